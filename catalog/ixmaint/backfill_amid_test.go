package ixmaint

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/storage"
)

// TestBackfillPageAmidWrite runs a global index's backfill by atomic pages
// (which check the page's rows without rewriting them) at each point of a
// concurrent writer's index protocol: before its Begin, between its Begin
// and its row's commit, and between the commit and its Finish; then
// requires the writer's commit to have succeeded and the index to be
// exactly what the rows imply. The write is an update of the indexed
// value, an update of a covered value only, a delete and an insert, each
// on a row whose entity the backfill has not written yet (the index was
// just added) and on one it has.
func TestBackfillPageAmidWrite(t *testing.T) {
	type write struct {
		name  string
		id    int64 // the row written (an insert: a new id)
		build func(old []catalog.Datum) []catalog.Datum
	}
	writes := []write{
		{"update-indexed", 5, func(old []catalog.Datum) []catalog.Datum {
			nw := slices.Clone(old)
			nw[2] = int64(99)
			return nw
		}},
		{"update-covered", 5, func(old []catalog.Datum) []catalog.Datum {
			nw := slices.Clone(old)
			nw[4] = int64(12345)
			return nw
		}},
		{"delete", 5, func([]catalog.Datum) []catalog.Datum { return nil }},
		{"insert", 500, func([]catalog.Datum) []catalog.Datum { return row(1, 500, int64(7), "new", int64(70), nil) }},
	}
	for _, w := range writes {
		for _, prebuilt := range []bool{false, true} {
			for _, at := range []string{"before-begin", "before-commit", "before-finish"} {
				for _, mode := range []string{"atomic", "entities", "atomic-crash", "entities-crash"} {
					t.Run(fmt.Sprintf("%s/prebuilt=%v/%s/%s", w.name, prebuilt, at, mode), func(t *testing.T) {
						backfillAmidWrite(t, w.id, w.build, prebuilt, at, mode)
					})
				}
			}
		}
	}
}

// buildingIndex is the fixture of the backfill-amid-write tests: testDef's
// table with 20 rows in partition 1 and its global covering index "ga"
// added in state IndexBuilding (not backfilled).
func buildingIndex(t *testing.T) (*fixture, *catalog.Index) {
	t.Helper()
	ctx := context.Background()
	def := testDef()
	ga := def.Indexes[1] // global, covering c
	def.Indexes = nil
	var rows [][]catalog.Datum
	for i := range 20 {
		rows = append(rows, row(1, int64(i), int64(i%4), fmt.Sprintf("v%d", i), int64(i), nil))
	}
	f := setup(t, def, rows)
	c, err := catalog.Open(ctx, f.inner, catalog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ga.State = catalog.IndexBuilding
	if f.tbl, err = c.AddIndex(ctx, "db", "t", ga); err != nil {
		t.Fatal(err)
	}
	return f, f.tbl.Index("ga")
}

// backfillAmidWrite: mode "atomic" writes pages with Maintainer.MultiBatch,
// "entities" entity by entity (the Table service's way, and the atomic
// path's fallback); "-crash" stops the writer after its commit, before
// its Finish (a SIGKILL), then runs what a restart runs: Recover, and the
// backfill again from the start (the index is still building).
func backfillAmidWrite(t *testing.T, id int64, build func([]catalog.Datum) []catalog.Datum, prebuilt bool, at, mode string) {
	atomicPages := strings.HasPrefix(mode, "atomic")
	crash := strings.HasSuffix(mode, "-crash")
	ctx := context.Background()
	f, ix := buildingIndex(t)
	m := &Maintainer{Store: f.inner}
	var applied atomic.Int64
	if atomicPages {
		m.MultiBatch = func(ctx context.Context, b []storage.TableBatch) ([][]storage.ETag, error) {
			etags, err := f.inner.MultiBatch(ctx, b)
			if err == nil && len(b) > 0 {
				applied.Add(1)
			}
			return etags, err
		}
	}
	backfill := func(want bool) {
		t.Helper()
		before := applied.Load()
		if err := m.Backfill(ctx, f.tbl, ix, nil); err != nil {
			t.Fatal(err)
		}
		if atomicPages && want && applied.Load() == before {
			t.Fatal("the backfill wrote no atomic page: the test does not exercise it")
		}
	}
	if prebuilt {
		backfill(true)
	}

	// The writer: read the row, Begin, commit the row conditional on the
	// ETag read, Finish; the backfill runs at the point named by at.
	pk, rk, err := f.tbl.EncodePrimaryKey([]catalog.Datum{int64(1), id})
	if err != nil {
		t.Fatal(err)
	}
	old, etag, ok, err := GetRow(ctx, f.inner, f.tbl, pk, rk)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		old = nil
	}
	nw := build(old)
	var op storage.Operation
	switch {
	case nw == nil:
		op = storage.Operation{Kind: storage.OpDelete, IfMatch: etag, Entity: &storage.Entity{PartitionKey: pk, RowKey: rk}}
	case old == nil:
		ents, err := f.tbl.EncodeEntities(pk, rk, nw)
		if err != nil {
			t.Fatal(err)
		}
		op = storage.Operation{Kind: storage.OpInsert, Entity: ents[0]}
	default:
		ents, err := f.tbl.EncodeEntities(pk, rk, nw)
		if err != nil {
			t.Fatal(err)
		}
		op = storage.Operation{Kind: storage.OpUpdate, Mode: storage.Replace, IfMatch: etag, Entity: ents[0]}
	}
	if at == "before-begin" {
		backfill(true)
	}
	o, err := m.Begin(ctx, f.tbl, []Write{{OldPK: pk, OldRK: rk, Old: old, PK: pk, RK: rk, New: nw}})
	if err != nil {
		t.Fatal(err)
	}
	if at == "before-commit" {
		// The page reads the row unchanged, so its check passes: its
		// entities are written amid the writer's protocol.
		backfill(true)
	}
	_, cerr := f.inner.Batch(ctx, f.tbl.Physical, []storage.Operation{op})
	if at == "before-finish" {
		backfill(false) // a page may fail its check here (a marked entity of ours): entity by entity then
	}
	if cerr != nil {
		t.Fatalf("the writer's commit failed: %v", cerr)
	}
	if crash {
		// Killed before Finish. The restart: Recover (forced: no writer
		// is alive), then the backfill from the start.
		if _, err := m.Recover(ctx, f.tbl, true); err != nil {
			t.Fatal(err)
		}
		if err := m.Backfill(ctx, f.tbl, ix, nil); err != nil {
			t.Fatal(err)
		}
	} else if err := o.Finish(ctx, func(int) bool { return true }); err != nil {
		t.Fatal(err)
	}
	if mm, err := Check(ctx, f.inner, f.tbl); err != nil || len(mm) > 0 {
		t.Fatalf("%d mismatches: %v %v", len(mm), mm, err)
	}
}
