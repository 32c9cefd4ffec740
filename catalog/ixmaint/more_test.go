package ixmaint

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/faultstore"
)

// TestConcurrentUniqueInserts: many writers insert rows with the same
// unique value at once; exactly one wins, the others get ErrDuplicate and
// leave no trace.
func TestConcurrentUniqueInserts(t *testing.T) {
	ctx := context.Background()
	for round := range 5 {
		f := setup(t, testDef(), initialRows())
		m := &Maintainer{Store: f.inner}
		const n = 8
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = insertRow(ctx, m, f.tbl, row(int64(3+i%2), int64(100+i), nil, "same", nil, nil))
			}()
		}
		wg.Wait()
		wins := 0
		for _, err := range errs {
			switch {
			case err == nil:
				wins++
			case !errors.Is(err, ErrDuplicate):
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if wins != 1 {
			t.Fatalf("round %d: %d winners", round, wins)
		}
		if mm, err := Check(ctx, f.inner, f.tbl); err != nil || len(mm) > 0 {
			t.Fatalf("round %d: %v %v", round, mm, err)
		}
	}
}

// TestNullsInUniqueIndex: MySQL allows any number of NULLs in a unique
// index.
func TestNullsInUniqueIndex(t *testing.T) {
	ctx := context.Background()
	f := setup(t, testDef(), initialRows())
	m := &Maintainer{Store: f.inner}
	for i := range 3 {
		if err := insertRow(ctx, m, f.tbl, row(1, int64(50+i), nil, nil, nil, nil)); err != nil {
			t.Fatal(err)
		}
	}
	if mm, err := Check(ctx, f.inner, f.tbl); err != nil || len(mm) > 0 {
		t.Fatalf("%v %v", mm, err)
	}
}

// TestLocalUniqueDuplicate: a table with only a local unique index.
func TestLocalUniqueDuplicate(t *testing.T) {
	ctx := context.Background()
	def := testDef()
	def.Indexes = def.Indexes[3:] // lub only
	f := setup(t, def, initialRows())
	m := &Maintainer{Store: f.inner}
	err := insertRow(ctx, m, f.tbl, row(1, 9, nil, "x", nil, nil))
	var de *DuplicateError
	if !errors.As(err, &de) || de.Index != "lub" {
		t.Fatalf("got %v, want a duplicate on lub", err)
	}
	if err := insertRow(ctx, m, f.tbl, row(2, 9, nil, "x", nil, nil)); err != nil {
		t.Fatalf("other partition: %v", err)
	}
	if mm, err := Check(ctx, f.inner, f.tbl); err != nil || len(mm) > 0 {
		t.Fatalf("%v %v", mm, err)
	}
}

// TestBackfillWhileWriting builds indexes on a populated table while
// writers update rows, then checks the index: entity by entity, and by
// atomic pages (Maintainer.MultiBatch: pages a writer changed meanwhile
// fall back to entity by entity).
func TestBackfillWhileWriting(t *testing.T) {
	t.Run("entities", func(t *testing.T) { backfillWhileWriting(t, false) })
	t.Run("atomic-pages", func(t *testing.T) { backfillWhileWriting(t, true) })
}

func backfillWhileWriting(t *testing.T, atomicPages bool) {
	ctx := context.Background()
	def := testDef()
	idx := def.Indexes
	def.Indexes = nil
	var rows [][]catalog.Datum
	for i := range 300 {
		rows = append(rows, row(int64(i%7), int64(i), int64(i%13), fmt.Sprintf("v%d", i), int64(i), nil))
	}
	f := setup(t, def, rows)
	c, err := catalog.Open(ctx, f.inner, catalog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ix := range idx {
		ix.State = catalog.IndexBuilding
		if f.tbl, err = c.AddIndex(ctx, "db", "t", ix); err != nil {
			t.Fatal(err)
		}
	}
	m := &Maintainer{Store: f.inner}
	var pages, atomicOK, synced, barriers atomic.Int64
	var lastBarrier atomic.Bool
	if atomicPages {
		m.MultiBatch = func(ctx context.Context, b []storage.TableBatch) ([][]storage.ETag, error) {
			// Pages are written unsynced; Backfill ends with a synced
			// barrier (no batches) that makes them durable.
			lastBarrier.Store(len(b) == 0)
			if len(b) == 0 {
				if storage.DeferredSync(ctx) {
					t.Error("the sync barrier itself is deferred")
				}
				barriers.Add(1)
				return f.inner.MultiBatch(ctx, b)
			}
			if !storage.DeferredSync(ctx) {
				synced.Add(1)
			}
			pages.Add(1)
			etags, err := f.inner.MultiBatch(ctx, b)
			if err == nil {
				atomicOK.Add(1)
			}
			return etags, err
		}
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		r := rand.New(rand.NewPCG(1, 2))
		for {
			select {
			case <-stop:
				return
			default:
			}
			i := r.IntN(300)
			err := updateRow(ctx, m, f.tbl, int64(i%7), int64(i), func(x []catalog.Datum) {
				x[2], x[4] = int64(r.IntN(13)), int64(r.IntN(1000))
			})
			if err != nil && !errors.Is(err, storage.ErrPreconditionFailed) {
				t.Error(err)
				return
			}
		}
	}()
	var last int
	for i := range f.tbl.Indexes {
		if err := m.Backfill(ctx, f.tbl, &f.tbl.Indexes[i], func(n int, pk, rk string) { last = n }); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	if last == 0 {
		t.Fatal("no progress reported")
	}
	if mm, err := Check(ctx, f.inner, f.tbl); err != nil || len(mm) > 0 {
		t.Fatalf("%d mismatches: %v %v", len(mm), mm, err)
	}
	if atomicPages {
		t.Logf("%d atomic page writes, %d applied", pages.Load(), atomicOK.Load())
		if pages.Load() == 0 {
			t.Error("no page was written atomically")
		}
		// Without writers, every page is one atomic write.
		before := atomicOK.Load()
		for i := range f.tbl.Indexes {
			if f.tbl.Indexes[i].Global {
				if err := m.Backfill(ctx, f.tbl, &f.tbl.Indexes[i], nil); err != nil {
					t.Fatal(err)
				}
			}
		}
		if atomicOK.Load() == before {
			t.Error("a quiet backfill wrote no atomic page")
		}
		if synced.Load() > 0 || barriers.Load() == 0 || !lastBarrier.Load() {
			t.Errorf("%d pages written synced, %d sync barriers, last write a barrier: %v; want 0, some, true",
				synced.Load(), barriers.Load(), lastBarrier.Load())
		}
		if mm, err := Check(ctx, f.inner, f.tbl); err != nil || len(mm) > 0 {
			t.Fatalf("after a quiet backfill: %d mismatches: %v %v", len(mm), mm, err)
		}
	}
}

// TestRandomWorkload runs the same random writes on a table with indexes
// and one without, with random crashes (followed, at random times, by
// recovery) on the indexed one, and compares every lookup through each
// index with a scan of the unindexed table.
func TestRandomWorkload(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(7, 7))
	withIx := setup(t, testDef(), nil)
	plainDef := testDef()
	plainDef.Indexes = nil
	plain := setup(t, plainDef, nil)
	fs := faultstore.New(withIx.inner)
	mi := &Maintainer{Store: fs}
	mp := &Maintainer{Store: plain.inner}
	val := func(n int) catalog.Datum {
		if r.IntN(6) == 0 {
			return nil
		}
		return int64(r.IntN(n))
	}
	str := func() catalog.Datum {
		if r.IntN(4) == 0 {
			return nil
		}
		return fmt.Sprintf("s%d", r.IntN(40))
	}
	ids := []int64{}
	for step := range 400 {
		crash := r.IntN(5) == 0
		if crash {
			fs.CrashAt(1+r.IntN(6), r.IntN(2) == 0)
		} else {
			fs.CrashAt(0, false)
		}
		var errI, errP error
		switch op := r.IntN(10); {
		case op < 4 || len(ids) == 0:
			id := int64(step)
			nr := row(int64(r.IntN(3)), id, val(8), str(), val(100), nil)
			errI = insertRow(ctx, mi, withIx.tbl, nr)
			if errI == nil || (crash && fs.Crashed() && exists(t, withIx, nr)) {
				errP = insertRow(ctx, mp, plain.tbl, nr)
				ids = append(ids, id)
			}
		case op < 8:
			id := ids[r.IntN(len(ids))]
			a, b, cc := val(8), str(), val(100)
			ch := func(x []catalog.Datum) { x[2], x[3], x[4] = a, b, cc }
			p := partOf(t, plain, id)
			errI = updateRow(ctx, mi, withIx.tbl, p, id, ch)
			if errI == nil || (crash && fs.Crashed() && sameAs(t, withIx, plain, p, id, ch)) {
				errP = updateRow(ctx, mp, plain.tbl, p, id, ch)
			}
		default:
			k := r.IntN(len(ids))
			id := ids[k]
			p := partOf(t, plain, id)
			errI = deleteRow(ctx, mi, withIx.tbl, p, id)
			if errI == nil || (crash && fs.Crashed() && !existsKey(t, withIx, p, id)) {
				errP = deleteRow(ctx, mp, plain.tbl, p, id)
				ids = slices.Delete(ids, k, k+1)
			}
		}
		if errI != nil && !crash && !errors.Is(errI, ErrDuplicate) {
			t.Fatalf("step %d: %v", step, errI)
		}
		if errP != nil {
			t.Fatalf("step %d: plain: %v", step, errP)
		}
		fs.CrashAt(0, false)
		if r.IntN(3) == 0 {
			if _, err := (&Maintainer{Store: withIx.inner}).Recover(ctx, withIx.tbl, true); err != nil {
				t.Fatal(err)
			}
		}
		compareLookups(t, ctx, withIx, plain, fmt.Sprintf("step %d", step))
		if t.Failed() {
			return
		}
	}
	if _, err := (&Maintainer{Store: withIx.inner}).Recover(ctx, withIx.tbl, true); err != nil {
		t.Fatal(err)
	}
	if mm, err := Check(ctx, withIx.inner, withIx.tbl); err != nil || len(mm) > 0 {
		t.Fatalf("%v %v", mm, err)
	}
}

func partOf(t *testing.T, f *fixture, id int64) int64 {
	rows, err := Rows(context.Background(), f.inner, f.tbl)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r[1] == id {
			return r[0].(int64)
		}
	}
	t.Fatalf("no row %d", id)
	return 0
}

func existsKey(t *testing.T, f *fixture, p, id int64) bool {
	pk, rk, err := f.tbl.EncodePrimaryKey([]catalog.Datum{p, id})
	if err != nil {
		t.Fatal(err)
	}
	_, _, ok, err := GetRow(context.Background(), f.inner, f.tbl, pk, rk)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

func exists(t *testing.T, f *fixture, r []catalog.Datum) bool {
	return existsKey(t, f, r[0].(int64), r[1].(int64))
}

// sameAs reports whether the indexed table's row now has the update.
func sameAs(t *testing.T, f, plain *fixture, p, id int64, ch func([]catalog.Datum)) bool {
	pk, rk, _ := f.tbl.EncodePrimaryKey([]catalog.Datum{p, id})
	got, _, _, err := GetRow(context.Background(), f.inner, f.tbl, pk, rk)
	if err != nil {
		t.Fatal(err)
	}
	want, _, _, err := GetRow(context.Background(), plain.inner, plain.tbl, pk, rk)
	if err != nil {
		t.Fatal(err)
	}
	want = slices.Clone(want)
	ch(want)
	return fmt.Sprint(got) == fmt.Sprint(want)
}

func compareLookups(t *testing.T, ctx context.Context, withIx, plain *fixture, when string) {
	t.Helper()
	m := &Maintainer{Store: withIx.inner}
	rows, err := Rows(ctx, plain.inner, plain.tbl)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"la", "ga", "ub", "lub"} {
		ix := withIx.tbl.Index(name)
		for v := range 8 {
			var vals []catalog.Datum
			switch name {
			case "la", "ga":
				vals = []catalog.Datum{int64(v)}
			case "ub":
				vals = []catalog.Datum{fmt.Sprintf("s%d", v)}
			case "lub":
				vals = []catalog.Datum{int64(v % 3), fmt.Sprintf("s%d", v)}
			}
			want := truth(rows, withIx.tbl, ix, vals)
			for _, cov := range []bool{false, true} {
				got := lookup(t, ctx, m, withIx.tbl, ix, vals, cov)
				if !slices.Equal(got, want) {
					t.Errorf("%s: %s %v covering=%v: got %v, want %v", when, name, vals, cov, got, want)
				}
			}
		}
	}
	_ = sort.Strings
}
