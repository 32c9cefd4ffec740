package pebble

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/sqlgw/sqlgw/storage"
)

// TestSnapshot: reads carrying a snapshot see the store as it was when the
// snapshot was taken, on every page of a query and across tables; writes
// apply to the current state; a released snapshot fails reads.
func TestSnapshot(t *testing.T) {
	ctx := context.Background()
	s, err := OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tb := range []string{"aaa", "bbb"} {
		if err := s.CreateTable(ctx, tb); err != nil {
			t.Fatal(err)
		}
	}
	put := func(tb, pk string, v int64) storage.ETag {
		etag, err := s.Upsert(ctx, tb, &storage.Entity{PartitionKey: pk, RowKey: "r", Properties: storage.Properties{"v": storage.Int64(v)}}, storage.Replace)
		if err != nil {
			t.Fatal(err)
		}
		return etag
	}
	for i := 0; i < 30; i++ {
		put("aaa", fmt.Sprintf("p%02d", i), 1)
	}
	old := put("bbb", "x", 1)
	snap, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sctx := storage.WithSnapshot(ctx, snap)
	for i := 0; i < 30; i++ {
		put("aaa", fmt.Sprintf("p%02d", i), 2)
	}
	put("bbb", "x", 2)
	if _, err := s.Insert(ctx, "bbb", &storage.Entity{PartitionKey: "y", RowKey: "r"}); err != nil {
		t.Fatal(err)
	}

	sum := func(c context.Context) (n int64) {
		q := &storage.Query{Top: 7}
		for {
			page, err := s.Query(c, "aaa", q)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range page.Entities {
				n += e.Properties["v"].Int()
			}
			if page.Continuation == "" {
				return n
			}
			q.Continuation = page.Continuation
		}
	}
	if got := sum(sctx); got != 30 {
		t.Errorf("sum in the snapshot = %d, want 30", got)
	}
	if got := sum(ctx); got != 60 {
		t.Errorf("sum now = %d, want 60", got)
	}
	e, err := s.Get(sctx, "bbb", "x", "r", nil)
	if err != nil || e.Properties["v"].Int() != 1 || e.ETag != old {
		t.Fatalf("get in the snapshot = %v, %v; want v=1 with the old ETag", e, err)
	}
	if _, err := s.Get(sctx, "bbb", "y", "r", nil); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("a row inserted after the snapshot: %v, want not found", err)
	}
	// A write conditional on the snapshot's ETag is checked against the
	// current state: the row changed since.
	if _, err := s.Update(sctx, "bbb", &storage.Entity{PartitionKey: "x", RowKey: "r"}, storage.Replace, e.ETag); !errors.Is(err, storage.ErrPreconditionFailed) {
		t.Errorf("update on the snapshot's ETag: %v, want precondition failed", err)
	}
	// The context of an unrelated store's snapshot is ignored; nil hides one.
	if got := sum(storage.WithSnapshot(sctx, nil)); got != 60 {
		t.Errorf("sum with the snapshot hidden = %d, want 60", got)
	}
	snap.Release()
	snap.Release()
	if _, err := s.Get(sctx, "bbb", "x", "r", nil); !errors.Is(err, storage.ErrSnapshotReleased) {
		t.Errorf("get on a released snapshot: %v", err)
	}
	// A snapshot left open does not keep the store from closing.
	if _, err := s.Snapshot(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestSnapshotShared: snapshots taken while nothing commits share one
// Pebble snapshot; one taken after a write does not, and sees the write
// the earlier ones do not; the shared snapshot is closed once unused and
// stale (at the next write when nobody holds it), never while held.
func TestSnapshotShared(t *testing.T) {
	ctx := context.Background()
	s, err := OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateTable(ctx, "tab"); err != nil {
		t.Fatal(err)
	}
	put := func(v int64) {
		t.Helper()
		if _, err := s.Upsert(ctx, "tab", &storage.Entity{PartitionKey: "p", RowKey: "r", Properties: storage.Properties{"v": storage.Int64(v)}}, storage.Replace); err != nil {
			t.Fatal(err)
		}
	}
	take := func() *snapshot {
		t.Helper()
		sn, err := s.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return sn.(*snapshot)
	}
	read := func(sn *snapshot) int64 {
		t.Helper()
		e, err := s.Get(storage.WithSnapshot(ctx, sn), "tab", "p", "r", nil)
		if err != nil {
			t.Fatal(err)
		}
		return e.Properties["v"].Int()
	}
	put(1)
	a, b := take(), take()
	if a.sh != b.sh {
		t.Fatal("two snapshots without a write between do not share")
	}
	put(2)
	c := take()
	if c.sh == a.sh {
		t.Fatal("a snapshot after a write shares the one before it")
	}
	if ra, rb, rc := read(a), read(b), read(c); ra != 1 || rb != 1 || rc != 2 {
		t.Fatalf("reads %d %d %d, want 1 1 2", ra, rb, rc)
	}
	old := a.sh
	a.Release()
	if old.closed.Load() || read(b) != 1 {
		t.Fatal("a shared snapshot was closed while held")
	}
	b.Release()
	if !old.closed.Load() {
		t.Fatal("a stale snapshot stayed open once released")
	}
	cs := c.sh
	c.Release()
	if s.cur != cs || cs.closed.Load() || !s.curIdle.Load() {
		t.Fatal("the current snapshot, unused and up to date, was not kept")
	}
	d := take()
	if d.sh != cs || read(d) != 2 {
		t.Fatal("a snapshot after no write does not reuse the idle current one")
	}
	d.Release()
	idle := s.cur
	put(3)
	if !idle.closed.Load() || s.cur != nil {
		t.Fatal("a write left the unused stale snapshot open")
	}
	if _, err := s.Get(storage.WithSnapshot(ctx, d), "tab", "p", "r", nil); !errors.Is(err, storage.ErrSnapshotReleased) {
		t.Fatalf("read at a released snapshot: %v", err)
	}
	if e := take(); read(e) != 3 {
		t.Fatal("a new snapshot misses the last write")
	}
}
