package ixmaint

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
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
				for _, mode := range []string{"atomic", "entities", "atomic-crash", "entities-crash", "quiet", "quiet-crash"} {
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
// path's fallback), "quiet" with MultiBatch and a writer gate (the
// writer is in flight from just before its Begin until after its
// Finish, as a gateway's commit is): pages read and written while it is
// not are unchecked (backfillQuiet), others checked; "-crash" stops the
// writer after its commit, before its Finish (a SIGKILL), then runs what
// a restart runs: Recover, and the backfill again from the start (the
// index is still building; the restarted process has no writer in
// flight).
func backfillAmidWrite(t *testing.T, id int64, build func([]catalog.Datum) []catalog.Datum, prebuilt bool, at, mode string) {
	quiet := strings.HasPrefix(mode, "quiet")
	atomicPages := strings.HasPrefix(mode, "atomic") || quiet
	crash := strings.HasSuffix(mode, "-crash")
	ctx := context.Background()
	f, ix := buildingIndex(t)
	m := &Maintainer{Store: f.inner}
	var applied, unchecked atomic.Int64
	if atomicPages {
		m.MultiBatch = func(ctx context.Context, b []storage.TableBatch) ([][]storage.ETag, error) {
			etags, err := f.inner.MultiBatch(ctx, b)
			if err == nil && len(b) > 0 {
				applied.Add(1)
				if !slices.ContainsFunc(b, func(tb storage.TableBatch) bool {
					return slices.ContainsFunc(tb.Ops, func(op storage.Operation) bool { return op.Kind == storage.OpCheck })
				}) {
					unchecked.Add(1)
				}
			}
			return etags, err
		}
	}
	gate := &testGate{lie: os.Getenv("SQLGW_TEST_LYING_GATE") != ""}
	if quiet {
		m.Writers = gate
	}
	backfill := func(want bool) {
		t.Helper()
		before, beforeUnchecked := applied.Load(), unchecked.Load()
		if err := m.Backfill(ctx, f.tbl, ix, nil); err != nil {
			t.Fatal(err)
		}
		if atomicPages && want && applied.Load() == before {
			t.Fatal("the backfill wrote no atomic page: the test does not exercise it")
		}
		if !quiet && unchecked.Load() != beforeUnchecked {
			t.Fatal("a page was written without its checks and no writer gate")
		}
		if n, busy := unchecked.Load()-beforeUnchecked, gate.busy(); quiet && !gate.lie &&
			(busy && n > 0 || want && !busy && n == 0) {
			t.Fatalf("writer in flight: %v, unchecked pages: %d: want unchecked pages exactly when no writer is in flight",
				busy, n)
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
	leave := gate.enter() // the writer's commit starts (a gateway's commit gate)
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
		gate.mu.Lock()
		gate.inflight, gate.seq = 0, gate.seq+1 // a new process: no writer in flight
		gate.mu.Unlock()
		if _, err := m.Recover(ctx, f.tbl, true); err != nil {
			t.Fatal(err)
		}
		if err := m.Backfill(ctx, f.tbl, ix, nil); err != nil {
			t.Fatal(err)
		}
	} else {
		if err := o.Finish(ctx, func(int) bool { return true }); err != nil {
			t.Fatal(err)
		}
		leave()
	}
	if mm, err := Check(ctx, f.inner, f.tbl); err != nil || len(mm) > 0 {
		t.Fatalf("%d mismatches: %v %v", len(mm), mm, err)
	}
}

// testGate is a WriterGate over the test's writers, as the gateway's
// commit gate is over its commits (one goroutine: a hold blocks nobody).
type testGate struct {
	mu       sync.Mutex
	inflight int
	seq      uint64
	held     bool
	// lie: Hold ignores the token (a broken gate, to show the test fails).
	lie bool
}

func (g *testGate) enter() (leave func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.inflight++
	g.seq++
	return func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		g.inflight--
		g.seq++
	}
}

func (g *testGate) busy() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.inflight > 0
}

func (g *testGate) Idle() (uint64, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.seq, g.inflight == 0 || g.lie
}

func (g *testGate) Hold(token uint64) (func(), bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.lie && (token != g.seq || g.inflight != 0 || g.held) {
		return nil, false
	}
	g.held = true
	return func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		g.held = false
	}, true
}

// TestBackfillQuietPageWriterBetween: a writer that runs whole (Begin,
// commit, Finish) between a quiet page's read and its write makes the
// page fall back to its checks (the gate's token is stale), so the page
// never writes the entity of the row as it was read. With a gate that
// ignores the token (SQLGW_TEST_LYING_GATE=1) the unchecked page leaves
// a stale unmarked entity (update of the indexed value, delete) and this
// test fails.
func TestBackfillQuietPageWriterBetween(t *testing.T) {
	for _, w := range []struct {
		name  string
		id    int64
		build func(old []catalog.Datum) []catalog.Datum
	}{
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
	} {
		for _, prebuilt := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/prebuilt=%v", w.name, prebuilt), func(t *testing.T) {
				ctx := context.Background()
				f, ix := buildingIndex(t)
				gate := &testGate{lie: os.Getenv("SQLGW_TEST_LYING_GATE") != ""}
				m := &Maintainer{Store: f.inner, MultiBatch: f.inner.MultiBatch, Writers: gate}
				if prebuilt {
					if err := m.Backfill(ctx, f.tbl, ix, nil); err != nil {
						t.Fatal(err)
					}
				}
				ran := false
				defer SetBackfillQuietHook(func(stage string) {
					if stage != "read" || ran {
						return
					}
					ran = true
					writeRow(t, m, f, w.id, w.build, gate)
				})()
				if err := m.Backfill(ctx, f.tbl, ix, nil); err != nil {
					t.Fatal(err)
				}
				if !ran {
					t.Fatal("no quiet page: the test does not exercise it")
				}
				if mm, err := Check(ctx, f.inner, f.tbl); err != nil || len(mm) > 0 {
					t.Fatalf("%d mismatches: %v %v", len(mm), mm, err)
				}
			})
		}
	}
}

// writeRow writes row (1, id) of the fixture's table as a gateway's
// commit does: in flight on gate from before its Begin until after its
// Finish.
func writeRow(t *testing.T, m *Maintainer, f *fixture, id int64, build func([]catalog.Datum) []catalog.Datum, gate *testGate) {
	t.Helper()
	ctx := context.Background()
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
	default:
		ents, err := f.tbl.EncodeEntities(pk, rk, nw)
		if err != nil {
			t.Fatal(err)
		}
		op = storage.Operation{Kind: storage.OpUpdate, Mode: storage.Replace, IfMatch: etag, Entity: ents[0]}
		if old == nil {
			op = storage.Operation{Kind: storage.OpInsert, Entity: ents[0]}
		}
	}
	defer gate.enter()()
	o, err := m.Begin(ctx, f.tbl, []Write{{OldPK: pk, OldRK: rk, Old: old, PK: pk, RK: rk, New: nw}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.inner.Batch(ctx, f.tbl.Physical, []storage.Operation{op}); err != nil {
		t.Fatal(err)
	}
	if err := o.Finish(ctx, func(int) bool { return true }); err != nil {
		t.Fatal(err)
	}
}
