package engine

import (
	"math"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/memo"
	"github.com/dolthub/go-mysql-server/sql/stats"
)

// Filtered cardinalities for the join planner
//
// go-mysql-server asks an sql.IndexSearchable table for its filters'
// lookup (LookupForExpressions: sqlgw's planner chooses the path, index.go)
// and then records the lookup in its memo with a fixed statistic of one
// row: its join planner sees every filtered sqlgw table as a single row,
// whatever the filter keeps. For a table sqlgw has analysed (stats.go),
// the coster (coster.go) first replaces that guess, in the join's child
// groups, with the rows the sqlgw plan expects to return: its index hits,
// or the entities it reads (the planner's estimate from ANALYZE's counts,
// top values and bounds). So a filter that keeps one row of a large table
// still makes it the outer side of a lookup join, and one that keeps most
// rows no longer does. Tables never analysed keep go-mysql-server's guess,
// as before.

// filteredRows returns the rows the sqlgw plan of group g's static lookup
// is expected to return, when g reads an analysed sqlgw table through one.
func filteredRows(ctx *sql.Context, g *memo.ExprGroup) (uint64, bool) {
	for r := g.First; r != nil; r = r.Next() {
		var scan *memo.IndexScan
		switch x := r.(type) {
		case *memo.IndexScan:
			scan = x
		case *memo.Filter:
			if s, ok := x.Child.First.(*memo.IndexScan); ok {
				scan = s
			}
		}
		if scan == nil || scan.Table == nil || !scan.Table.IsStatic() {
			continue
		}
		t, ok := unwrapTable(scan.Table.Table).(*Table)
		if !ok || t.gw.tableStatsOf(t.meta().Physical) == nil {
			continue
		}
		lookup, _, err := scan.Table.GetLookup(ctx, nil)
		if err != nil {
			continue
		}
		pr, ok := lookup.Ranges.(*planRanges)
		if !ok || pr.plan == nil {
			continue
		}
		p := pr.plan
		rows := p.Cost.Entities
		if p.Index != nil && p.Index.Hits > 0 {
			rows = p.Index.Hits
		}
		return uint64(math.Max(1, math.Ceil(rows))), true
	}
	return 0, false
}

// fixJoinInputs gives the children of join n their filtered cardinality
// (see above) before n is costed.
func fixJoinInputs(ctx *sql.Context, n memo.RelExpr) {
	j, ok := n.(memo.JoinRel)
	if !ok {
		return
	}
	jp := j.JoinPrivate()
	for _, g := range []*memo.ExprGroup{jp.Left, jp.Right} {
		if g == nil || g.RelProps == nil {
			continue
		}
		rows, ok := filteredRows(ctx, g)
		if !ok {
			continue
		}
		if cur := g.RelProps.GetStats(); cur == nil || cur.RowCount() != rows {
			g.RelProps.SetStats(&stats.Statistic{RowCnt: rows, DistinctCnt: rows})
		}
	}
}
