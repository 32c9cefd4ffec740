package engine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/memo"

	"github.com/sqlgw/sqlgw/sqlgw/engine/statistics"
)

// coster is go-mysql-server's coster with what the lookups of a lookup
// join into a sqlgw table cost in store round trips added
// (statistics.LookupJoinCost, whose doc has the cost model), and the
// filtered cardinalities of analysed tables (stats_join.go).
type coster struct{ inner memo.Coster }

func (c coster) EstimateCost(ctx *sql.Context, n memo.RelExpr, s sql.StatsProvider) (float64, error) {
	fixJoinInputs(ctx, n) // filtered cardinalities of analysed tables (stats_join.go)
	cost, err := c.inner.EstimateCost(ctx, n, s)
	if err != nil {
		return cost, err
	}
	if lj, ok := n.(*memo.LookupJoin); ok && lj.Lookup != nil && lj.Lookup.Table != nil {
		if t, ours := unwrapTable(lj.Lookup.Table.Table).(*Table); ours {
			outer := float64(lj.Left.RelProps.GetStats().RowCount())
			secondary := false
			if lj.Lookup.Index != nil {
				_, secondary = lj.Lookup.Index.SqlIdx().(*secondaryIndex)
			}
			batch := 0
			if batchableOp(lj.Op) && !t.meta().Keyless() {
				batch = joinBatchSize(ctx)
			}
			inner, _ := t.gw.rowCount(t.meta().Physical)
			cost += statistics.LookupJoinCost(outer, float64(inner), batch, multiGetParallel, secondary)
		}
	}
	return cost, nil
}
