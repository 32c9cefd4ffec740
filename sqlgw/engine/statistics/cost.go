package statistics

import (
	"math"

	"github.com/sqlgw/sqlgw/storage"
)

// Join costing
//
// go-mysql-server's coster prices a lookup join as a scan of the outer side
// plus one random read per result row, in units of one row read
// sequentially. Against a store, a lookup is a round trip, while a scan
// reads up to 1,000 entities per round trip. The engine's coster (its
// coster.go) adds what the lookups of a lookup join into a sqlgw table cost
// in round trips, LookupJoinCost, at LookupRoundTripCost row units each:
//
//   - A batched lookup join (inner, left outer, semi, anti; the engine's
//     joinbatch.go) sends the distinct keys of a block of outer rows as one
//     read: parallel Gets at a time (the engine's multiGetParallel), so
//     about outer/parallel round trips (twice that through a secondary
//     index, whose index reads precede the base Gets), plus one per block;
//     or, when the planner finds a scan of the inner table cheaper than the
//     block's index reads, a scan per block (then the hash join, one scan
//     in all, wins).
//   - With batching turned off, a lookup join sends one lookup per outer
//     row, in sequence: outer round trips.
//
// So a hash join (one scan of each side) wins once the outer side is a
// sizeable fraction of the inner table, and a batched lookup join wins for
// up to thousands of outer rows into a large table.

// LookupRoundTripCost is the price of one store round trip in the
// engine's cost unit (one row read sequentially): a Get against Azure costs
// about as much time as reading a hundred entities of a query page.
const LookupRoundTripCost = 100

// LookupJoinCost estimates, in row units, what the lookups of a lookup join
// with outer rows into a table of inner rows cost beyond the engine's own
// estimate, in blocks of batch rows (0: one lookup per row) read parallel
// Gets at a time, through a secondary index or the primary key.
//
// A block's keys through a secondary index cost two requests each, and the
// planner reads the block with a scan of the table instead when that is
// fewer requests (its Cost.Score: a scan page plus a page of entities per
// thousand rows, a table counted as at least planner.DefaultRows rows for
// that choice); whole keys are always a MultiGet.
func LookupJoinCost(outer, inner float64, batch, parallel int, secondary bool) float64 {
	outer = math.Max(outer, 1)
	steps := 1.0 // a primary-key lookup is one Get
	if secondary {
		steps = 2 // index read, then base Get
	}
	if batch <= 0 {
		return outer * steps * LookupRoundTripCost
	}
	blocks := math.Ceil(outer / float64(batch))
	keys := math.Min(outer, float64(batch))
	pages := math.Ceil(math.Max(inner, 1) / storage.MaxPageSize)
	if secondary && steps*keys > 2*math.Max(pages, PlannerDefaultPages) {
		// Each block scans the table.
		return blocks * (pages*LookupRoundTripCost + inner)
	}
	return blocks * (1 + steps*math.Ceil(keys/float64(parallel))) * LookupRoundTripCost
}

// PlannerDefaultPages is the page count of the planner's minimum table size
// for choosing between an index and a scan (planner/build.go defaultRows).
const PlannerDefaultPages = 10
