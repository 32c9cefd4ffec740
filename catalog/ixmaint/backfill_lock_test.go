package ixmaint

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/storage"
)

// lockAborted changes a row's ETag, not its value, just before the
// local backfill's conditional write of it: what a transaction record's
// lock (catalog/txn) does when it is written on the row and then rolled
// back (its transaction aborted).
type lockAborted struct {
	storage.Store
	table string
	left  *atomic.Int32
}

func (s lockAborted) Batch(ctx context.Context, table string, ops []storage.Operation) ([]storage.ETag, error) {
	if table == s.table && len(ops) == 2 && ops[0].Kind == storage.OpUpdate && ops[0].Mode == storage.Merge &&
		len(ops[0].Entity.Properties) == 0 && s.left.Add(-1) >= 0 {
		e := &storage.Entity{PartitionKey: ops[0].Entity.PartitionKey, RowKey: ops[0].Entity.RowKey, Properties: storage.Properties{}}
		if _, err := s.Store.Update(ctx, table, e, storage.Merge, storage.ETagAny); err != nil {
			return nil, err
		}
	}
	return s.Store.Batch(ctx, table, ops)
}

// TestBackfillLocalRowLockedThenAborted: the local backfill's write of a
// row's entity fails its condition because the row's ETag changed, but
// the row's value did not (a transaction's lock, rolled back). Was: the
// backfill took the failure for a writer that maintained the index and
// skipped the row, whose entity was then missing from the index once
// ready. Now it reads the row again and indexes it.
func TestBackfillLocalRowLockedThenAborted(t *testing.T) {
	ctx := context.Background()
	def := testDef()
	idx := def.Indexes[:1] // la: local, on a
	def.Indexes = nil
	f := setup(t, def, initialRows())
	c, err := catalog.Open(ctx, f.inner, catalog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ix := idx[0]
	ix.State = catalog.IndexBuilding
	if f.tbl, err = c.AddIndex(ctx, "db", "t", ix); err != nil {
		t.Fatal(err)
	}
	left := &atomic.Int32{}
	left.Store(2)
	m := &Maintainer{Store: lockAborted{Store: f.inner, table: f.tbl.Physical, left: left}}
	if err := m.Backfill(ctx, f.tbl, &f.tbl.Indexes[0], nil); err != nil {
		t.Fatal(err)
	}
	if left.Load() > 0 {
		t.Fatal("no conditional write was disturbed")
	}
	if mm, err := Check(ctx, f.inner, f.tbl); err != nil || len(mm) > 0 {
		t.Fatalf("%d mismatches: %v %v", len(mm), mm, err)
	}
}
