package sqlgw

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/memo"
)

// Join costing
//
// go-mysql-server's coster prices a lookup join as a scan of the outer side
// plus one random read per result row, in units of one row read
// sequentially. Against a store, every lookup is a round trip, while a scan
// reads up to 1,000 entities per round trip. The coster below adds
// lookupRoundTripCost row units per outer row of a lookup join into a sqlgw
// table, so that a hash join (one scan of each side) wins once the outer
// side is more than a small fraction of the inner table, and a lookup join
// keeps winning for a few outer rows into a large table.

// lookupRoundTripCost is the price of one store round trip in the
// engine's cost unit (one row read sequentially): a Get against Azure costs
// about as much time as reading a hundred entities of a query page.
const lookupRoundTripCost = 100

type coster struct{ inner memo.Coster }

func (c coster) EstimateCost(ctx *sql.Context, n memo.RelExpr, s sql.StatsProvider) (float64, error) {
	cost, err := c.inner.EstimateCost(ctx, n, s)
	if err != nil {
		return cost, err
	}
	if lj, ok := n.(*memo.LookupJoin); ok && lj.Lookup != nil && lj.Lookup.Table != nil {
		if _, ours := unwrapTable(lj.Lookup.Table.Table).(*Table); ours {
			outer := float64(lj.Left.RelProps.GetStats().RowCount())
			cost += outer * lookupRoundTripCost
		}
	}
	return cost, nil
}
