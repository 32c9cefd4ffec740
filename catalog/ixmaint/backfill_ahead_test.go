package ixmaint

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/storage"
)

// readAheadProbe cuts the base table's scan into pages of one row and
// makes the first page's index write wait (up to a timeout) until the
// second page's read has begun.
type readAheadProbe struct {
	storage.Store
	base        string
	reads       atomic.Int32
	firstWrites atomic.Int32
	overlapped  atomic.Bool
}

func (s *readAheadProbe) Query(ctx context.Context, table string, q *storage.Query) (*storage.Page, error) {
	if table == s.base {
		q2 := *q
		q2.Top = 1
		q = &q2
		s.reads.Add(1)
	}
	return s.Store.Query(ctx, table, q)
}

func (s *readAheadProbe) Insert(ctx context.Context, table string, e *storage.Entity) (storage.ETag, error) {
	if table != s.base && s.firstWrites.Add(1) == 1 {
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			if s.reads.Load() >= 2 {
				s.overlapped.Store(true)
				break
			}
		}
	}
	return s.Store.Insert(ctx, table, e)
}

// TestBackfillReadsAhead: Backfill reads the next page of the table
// while it writes the index entities of the current one, and indexes
// every row exactly as the sequential scan did.
func TestBackfillReadsAhead(t *testing.T) {
	ctx := context.Background()
	f, ix := buildingIndex(t) // 20 rows, global index ga being built
	probe := &readAheadProbe{Store: f.inner, base: f.tbl.Physical}
	pages := 0
	m := &Maintainer{Store: probe}
	if err := m.Backfill(ctx, f.tbl, ix, func(int, string, string) { pages++ }); err != nil {
		t.Fatal(err)
	}
	if !probe.overlapped.Load() {
		t.Errorf("the second page was not read while the first page's index entities were written (reads so far: %d)", probe.reads.Load())
	}
	if pages != 20 {
		t.Errorf("progress reported %d pages, want one per row (20)", pages)
	}
	mm, err := Check(ctx, f.inner, f.tbl)
	if err != nil {
		t.Fatal(err)
	}
	if len(mm) != 0 {
		t.Fatalf("index after the backfill differs from the rows: %v", mm)
	}
}
