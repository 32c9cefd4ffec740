package engine

import (
	"context"
)

// Secondary indexes of attached tables (the mapping and the freshness
// contract are in catalog/attached_index.go): CREATE INDEX on an attached
// table builds a global index in a store table of sqlgw's own; SQL writes
// maintain it; IndexLookup and IndexRange plans read every hit's base
// entity and verify it (planner.Index.Unsynced, never covering). Writes of
// other applications reach the index when it is rebuilt: REPAIR TABLE
// (adminRepair: every missing entry added, every stale one removed), or
// REFRESH TABLE, which re-infers the columns and then repairs the indexes
// the same way (attached.go). CHECK TABLE reports how far they lag. A
// CREATE INDEX whose backfill fails on another application's value (a key
// over the store's limit) drops the index again (buildIndex).

// dropFailedIndex drops an index whose build failed; failures are only
// logged (the index stays in state building, never used by the planner).
func (g *Gateway) dropFailedIndex(ctx context.Context, db, table, name string) {
	if _, err := g.Catalog.DropIndex(ctx, db, table, name); err != nil {
		g.logger().Warn("sqlgw: dropping an index whose build failed", "table", table, "index", name, "error", err)
	}
}
