package engine

import (
	"math"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/memo"

	"github.com/sqlgw/sqlgw/storage"
)

// Join costing
//
// go-mysql-server's coster prices a lookup join as a scan of the outer side
// plus one random read per result row, in units of one row read
// sequentially. Against a store, a lookup is a round trip, while a scan
// reads up to 1,000 entities per round trip. The coster below adds what the
// lookups of a lookup join into a sqlgw table cost in round trips, at
// lookupRoundTripCost row units each:
//
//   - A batched lookup join (inner, left outer, semi, anti; joinbatch.go) sends the
//     distinct keys of a block of outer rows as one read: multiGetParallel
//     Gets at a time, so about outer/multiGetParallel round trips (twice
//     that through a secondary index, whose index reads precede the base
//     Gets), plus one per block; or, when the planner finds a scan of the
//     inner table cheaper than the block's index reads, a scan per block
//     (then the hash join, one scan in all, wins).
//   - With batching turned off, a lookup join sends one lookup per outer
//     row, in sequence: outer round trips.
//
// So a hash join (one scan of each side) wins once the outer side is a
// sizeable fraction of the inner table, and a batched lookup join wins for
// up to thousands of outer rows into a large table.

// lookupRoundTripCost is the price of one store round trip in the
// engine's cost unit (one row read sequentially): a Get against Azure costs
// about as much time as reading a hundred entities of a query page.
const lookupRoundTripCost = 100

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
			cost += lookupJoinCost(outer, float64(inner), batch, secondary)
		}
	}
	return cost, nil
}

// lookupJoinCost estimates, in row units, what the lookups of a lookup join
// with outer rows into a table of inner rows cost beyond the engine's own
// estimate, in blocks of batch rows (0: one lookup per row), through a
// secondary index or the primary key.
//
// A block's keys through a secondary index cost two requests each, and the
// planner reads the block with a scan of the table instead when that is
// fewer requests (its Cost.Score: a scan page plus a page of entities per
// thousand rows, a table counted as at least planner.DefaultRows rows for
// that choice); whole keys are always a MultiGet.
func lookupJoinCost(outer, inner float64, batch int, secondary bool) float64 {
	outer = math.Max(outer, 1)
	steps := 1.0 // a primary-key lookup is one Get
	if secondary {
		steps = 2 // index read, then base Get
	}
	if batch <= 0 {
		return outer * steps * lookupRoundTripCost
	}
	blocks := math.Ceil(outer / float64(batch))
	keys := math.Min(outer, float64(batch))
	pages := math.Ceil(math.Max(inner, 1) / storage.MaxPageSize)
	if secondary && steps*keys > 2*math.Max(pages, plannerDefaultPages) {
		// Each block scans the table.
		return blocks * (pages*lookupRoundTripCost + inner)
	}
	return blocks * (1 + steps*math.Ceil(keys/multiGetParallel)) * lookupRoundTripCost
}

// plannerDefaultPages is the page count of the planner's minimum table size
// for choosing between an index and a scan (planner/build.go defaultRows).
const plannerDefaultPages = 10
