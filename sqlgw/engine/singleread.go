package engine

import (
	"errors"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/sqlgw/sqlgw/planner"
	"github.com/sqlgw/sqlgw/storage"
)

// Single reads without a snapshot (issue 13, Azure)
//
// On a store whose snapshots are timestamps of catalog/txn's clock (the
// Table service), taking a snapshot is one request: an autocommit point
// select would cost two, the clock read and the Get. A statement whose
// only read of the store is one entity needs no snapshot to be consistent:
// one entity is a consistent cut by itself. So a direct execution
// (direct.go) that is its own transaction (autocommit, not inside BEGIN:
// committed at its end) and whose plan is one PointGet of the base
// table reads that entity's current committed state (readSpec.single):
// catalog/txn's Get without a snapshot, which resolves a lock it finds (a
// committed transaction's value rolled forward, a pending one's previous
// value: the statement is ordered before that commit), the read a DML
// statement's current read makes. It sees every commit acknowledged
// before it started, as a snapshot taken at its start would, and the
// statement reads nothing else, so no other read can disagree with it.
//
// A row stored in several entities (a wide row's continuations,
// catalog.Table.Extras) needs more reads: then the statement takes its
// snapshot after all and reads the head again at it before the
// continuations (rereadAtSnapshot), so the row is never torn between two
// versions; that costs the clock read and one Get more, only for such
// rows. Index reads (two reads: the index entity and the base row),
// MultiGets, queries and any statement inside a transaction take the
// snapshot as before (snapshot.go).
//
// The embedded store reads the same way: its snapshot costs no request,
// but taking and releasing one takes Pebble's DB mutex twice, a
// Snapshot.Get is no cheaper than a plain Get, and the contexts that
// carry it cost allocations (together about 4% of the CPU of sysbench's
// oltp_point_select, issue 13). There a transaction commits in one
// atomic batch (catalog/txn: a MultiBatcher store), so an entity is
// never locked and the Get only ever sees whole commits; a lock left by
// an older gateway would be resolved as a DML statement's current read
// resolves it.

// singleRead reports whether a direct execution that is its own
// transaction (autocommit, outside BEGIN) may read plan without a snapshot
// (see above). The transaction holds no writes (an autocommit statement's
// transaction never does before its read; checked all the same, as its
// buffered rows would be overlaid on the read).
func (g *Gateway) singleRead(ctx *sql.Context, p *planner.Plan) bool {
	if tx := currentTxn(ctx); tx != nil && tx.hasWrites() {
		return false
	}
	return p.Path == planner.PointGet && len(p.Gets) == 1 && p.Index == nil
}

// rereadAtSnapshot moves a single read (readSpec.single) whose head entity
// e turned out to need more reads to the statement's snapshot: it takes
// it, checks the table against it and returns the head as the snapshot
// sees it (nil: absent there).
func (it *rowIter) rereadAtSnapshot(ctx *sql.Context, e *storage.Entity) (*storage.Entity, error) {
	it.single = false
	it.ctx = withGroupReads(readCtxCounting(ctx, &it.counters), ctx)
	if err := checkTableSnapshot(it.ctx, it.meta); err != nil {
		return nil, err
	}
	e, err := it.t.gw.store.Get(it.ctx, it.spec.plan.Table, e.PartitionKey, e.RowKey, &storage.GetOptions{Select: it.sel})
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, mapError(err)
	}
	return e, nil
}
