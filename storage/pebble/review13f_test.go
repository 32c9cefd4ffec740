package pebble

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/storage"
)

// Attack tests of the reviewer r10 (issue 13, tenth round) on the row
// cache (rowcache.go): a read through the cache must answer what a
// Pebble read of the same state answers, around every write, snapshot,
// table drop and under racing readers and writers.

func review13fOpen(t *testing.T, size int64) *Store {
	t.Helper()
	s, err := Open("", &Options{InMemory: true, RowCacheSize: size})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func review13fPut(t *testing.T, s *Store, table, pk, rk string, v int64) {
	t.Helper()
	e := &storage.Entity{PartitionKey: pk, RowKey: rk, Properties: storage.Properties{"v": storage.Int64(v)}}
	if _, err := s.Upsert(context.Background(), table, e, storage.Replace); err != nil {
		t.Fatal(err)
	}
}

// review13fGet reads v of (pk, rk) by Get and by GetRow, which must agree;
// -1 when the entity does not exist.
func review13fGet(t *testing.T, ctx context.Context, s *Store, table, pk, rk string) int64 {
	t.Helper()
	e, err := s.Get(ctx, table, pk, rk, &storage.GetOptions{Select: []string{"v"}})
	var row storage.Row
	rerr := s.GetRow(ctx, table, pk, rk, []string{"v"}, nil, &row)
	if errors.Is(err, storage.ErrNotFound) {
		if !errors.Is(rerr, storage.ErrNotFound) {
			t.Fatalf("Get: not found, GetRow: %v %v", rerr, row.Values)
		}
		return -1
	}
	if err != nil {
		t.Fatal(err)
	}
	if rerr != nil {
		t.Fatalf("Get: %v, GetRow: %v", e.Properties, rerr)
	}
	if got, want := row.Values[0].Int(), e.Properties["v"].Int(); got != want {
		t.Fatalf("Get: %d, GetRow: %d", want, got)
	}
	return e.Properties["v"].Int()
}

// TestReview13fRowCacheBetweenCommitAndDone: a write's batch has
// committed (Pebble, and a query, show the new record) but the write has
// not yet left the cache's shard (done). A Get then, and a Get at a
// snapshot taken then, must not return the record the commit replaced
// from the cache: a query saw the new one before them, so the old one
// would be a read going back in time (and the snapshot holds the new
// one).
func TestReview13fRowCacheBetweenCommitAndDone(t *testing.T) {
	ctx := context.Background()
	s := review13fOpen(t, 1<<20)
	if err := s.CreateTable(ctx, "tab"); err != nil {
		t.Fatal(err)
	}
	review13fPut(t, s, "tab", "p", "r", 1)
	for range 2 { // the second read hits the cache
		if got := review13fGet(t, ctx, s, "tab", "p", "r"); got != 1 {
			t.Fatalf("v = %d, want 1", got)
		}
	}
	if n, _ := s.rc.stats(); n != 1 {
		t.Fatalf("the cache holds %d entries, want 1 (the test reads through it)", n)
	}
	// The write, as Store.write does it, stopped between commit and done.
	ti, err := s.table("tab")
	if err != nil {
		t.Fatal(err)
	}
	key := appendEntityKey(nil, ti.id, "p", "r")
	w := s.rc.begin([][]byte{key}, false)
	b := s.db.NewBatch()
	b.Set(key, encodeEntity(nil, storage.Properties{"v": storage.Int64(2)}, s.newETag(), 1), nil)
	if err := s.commit(b, s.wo); err != nil {
		t.Fatal(err)
	}
	defer b.Close() // after done, which reads the records it committed
	page, err := s.Query(ctx, "tab", &storage.Query{Partition: storage.Exactly("p")})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Entities) != 1 || page.Entities[0].Properties["v"].Int() != 2 {
		t.Fatalf("query after the commit: %+v", page.Entities)
	}
	if got := review13fGet(t, ctx, s, "tab", "p", "r"); got != 2 {
		t.Errorf("Get after the commit, before done: v = %d, want 2 (a query already returned 2)", got)
	}
	sn, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sctx := storage.WithSnapshot(ctx, sn)
	if got := review13fGet(t, sctx, s, "tab", "p", "r"); got != 2 {
		t.Errorf("Get at a snapshot taken after the commit, before done: v = %d, want 2", got)
	}
	w.done(b)
	if got := review13fGet(t, sctx, s, "tab", "p", "r"); got != 2 {
		t.Errorf("Get at the snapshot after done: v = %d, want 2", got)
	}
	sn.Release()
	if got := review13fGet(t, ctx, s, "tab", "p", "r"); got != 2 {
		t.Errorf("Get after done: v = %d, want 2", got)
	}
}

// TestReview13fRowCacheSnapshots: a snapshot taken before a write reads
// the old record whether the cache holds the old or the new one, and
// reads at old snapshots put nothing into the cache that a latest read
// would then return.
func TestReview13fRowCacheSnapshots(t *testing.T) {
	ctx := context.Background()
	s := review13fOpen(t, 1<<20)
	if err := s.CreateTable(ctx, "tab"); err != nil {
		t.Fatal(err)
	}
	review13fPut(t, s, "tab", "p", "a", 1)
	review13fPut(t, s, "tab", "p", "b", 1)
	old, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Release()
	octx := storage.WithSnapshot(ctx, old)
	// a: cached before the write (latest read); b: not cached.
	if got := review13fGet(t, ctx, s, "tab", "p", "a"); got != 1 {
		t.Fatal(got)
	}
	review13fPut(t, s, "tab", "p", "a", 2)
	review13fPut(t, s, "tab", "p", "b", 2)
	for range 3 {
		if got := review13fGet(t, octx, s, "tab", "p", "a"); got != 1 {
			t.Errorf("old snapshot, a: %d, want 1", got)
		}
		if got := review13fGet(t, octx, s, "tab", "p", "b"); got != 1 {
			t.Errorf("old snapshot, b: %d, want 1", got)
		}
		if got := review13fGet(t, ctx, s, "tab", "p", "a"); got != 2 {
			t.Errorf("latest, a: %d, want 2", got)
		}
		if got := review13fGet(t, ctx, s, "tab", "p", "b"); got != 2 {
			t.Errorf("latest, b: %d, want 2", got)
		}
	}
	// A delete: the cached record goes; the old snapshot still has it.
	if err := s.Delete(ctx, "tab", "p", "a", storage.ETagAny); err != nil {
		t.Fatal(err)
	}
	if got := review13fGet(t, ctx, s, "tab", "p", "a"); got != -1 {
		t.Errorf("latest after delete: %d, want absent", got)
	}
	if got := review13fGet(t, octx, s, "tab", "p", "a"); got != 1 {
		t.Errorf("old snapshot after delete: %d, want 1", got)
	}
	if got := review13fGet(t, ctx, s, "tab", "p", "a"); got != -1 {
		t.Errorf("latest after delete and a snapshot read: %d, want absent", got)
	}
}

// TestReview13fRowCacheEveryWrite: every way the store changes an entity
// (Insert, Upsert merge and replace, Update, Delete, Batch, MultiBatch,
// deferred-sync writes, an empty Merge's ETag bump, a table dropped and
// created again under its name) shows in the next Get, ETag included.
func TestReview13fRowCacheEveryWrite(t *testing.T) {
	ctx := context.Background()
	s := review13fOpen(t, 1<<20)
	if err := s.CreateTable(ctx, "tab"); err != nil {
		t.Fatal(err)
	}
	etagOf := func(rk string) storage.ETag {
		t.Helper()
		e, err := s.Get(ctx, "tab", "p", rk, nil)
		if errors.Is(err, storage.ErrNotFound) {
			return ""
		}
		if err != nil {
			t.Fatal(err)
		}
		return e.ETag
	}
	check := func(step string, want int64) {
		t.Helper()
		for range 2 {
			if got := review13fGet(t, ctx, s, "tab", "p", "r"); got != want {
				t.Fatalf("after %s: v = %d, want %d", step, got, want)
			}
		}
	}
	ent := func(v int64) *storage.Entity {
		return &storage.Entity{PartitionKey: "p", RowKey: "r", Properties: storage.Properties{"v": storage.Int64(v)}}
	}
	check("nothing", -1)
	if _, err := s.Insert(ctx, "tab", ent(1)); err != nil {
		t.Fatal(err)
	}
	check("Insert", 1)
	if _, err := s.Upsert(ctx, "tab", ent(2), storage.Merge); err != nil {
		t.Fatal(err)
	}
	check("Upsert merge", 2)
	if _, err := s.Update(ctx, "tab", ent(3), storage.Replace, etagOf("r")); err != nil {
		t.Fatal(err)
	}
	check("Update", 3)
	if _, err := s.Batch(ctx, "tab", []storage.Operation{
		{Kind: storage.OpUpsert, Mode: storage.Replace, Entity: ent(4)},
		{Kind: storage.OpUpsert, Mode: storage.Replace, Entity: &storage.Entity{PartitionKey: "p", RowKey: "s"}},
	}); err != nil {
		t.Fatal(err)
	}
	check("Batch", 4)
	if _, err := s.MultiBatch(ctx, []storage.TableBatch{{Table: "tab", Ops: []storage.Operation{
		{Kind: storage.OpUpdate, Mode: storage.Merge, Entity: ent(5), IfMatch: storage.ETagAny}}}}); err != nil {
		t.Fatal(err)
	}
	check("MultiBatch", 5)
	if _, err := s.Upsert(storage.WithDeferredSync(ctx), "tab", ent(6), storage.Replace); err != nil {
		t.Fatal(err)
	}
	check("deferred-sync Upsert", 6)
	before := etagOf("r")
	if _, err := s.Upsert(ctx, "tab", &storage.Entity{PartitionKey: "p", RowKey: "r"}, storage.Merge); err != nil {
		t.Fatal(err)
	}
	if after := etagOf("r"); after == before {
		t.Fatalf("empty Merge: the ETag stayed %s", after)
	}
	check("empty Merge", 6)
	// Many operations: MultiBatch reads through per-table iterators.
	var ops []storage.Operation
	for i := range 40 {
		e := &storage.Entity{PartitionKey: "p", RowKey: fmt.Sprintf("m%02d", i)}
		if i == 0 {
			e = ent(7)
		}
		ops = append(ops, storage.Operation{Kind: storage.OpUpsert, Mode: storage.Merge, Entity: e})
	}
	if _, err := s.MultiBatch(ctx, []storage.TableBatch{{Table: "tab", Ops: ops}}); err != nil {
		t.Fatal(err)
	}
	check("MultiBatch of 40", 7)
	if err := s.Delete(ctx, "tab", "p", "r", etagOf("r")); err != nil {
		t.Fatal(err)
	}
	check("Delete", -1)
	if _, err := s.Insert(ctx, "tab", ent(8)); err != nil {
		t.Fatal(err)
	}
	check("Insert again", 8)
	if err := s.DeleteTable(ctx, "tab"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "tab", "p", "r", nil); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("Get in a dropped table: %v", err)
	}
	if err := s.CreateTable(ctx, "TAB"); err != nil {
		t.Fatal(err)
	}
	check("DeleteTable and CreateTable", -1)
	if _, err := s.Insert(ctx, "tab", ent(9)); err != nil {
		t.Fatal(err)
	}
	check("Insert into the new table", 9)
	// A failed conditional write changes nothing.
	if _, err := s.Update(ctx, "tab", ent(10), storage.Replace, `W/"0.0"`); !errors.Is(err, storage.ErrPreconditionFailed) {
		t.Fatalf("Update with a wrong ETag: %v", err)
	}
	check("a failed Update", 9)
}

// TestReview13fRowCacheReturnsCopies: what Get and GetRow return is the
// caller's to change; changing it changes no later read.
func TestReview13fRowCacheReturnsCopies(t *testing.T) {
	ctx := context.Background()
	s := review13fOpen(t, 1<<20)
	if err := s.CreateTable(ctx, "tab"); err != nil {
		t.Fatal(err)
	}
	props := storage.Properties{"b": storage.Binary([]byte("abc")), "s": storage.String("xyz")}
	if _, err := s.Insert(ctx, "tab", &storage.Entity{PartitionKey: "p", RowKey: "r", Properties: props}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		e, err := s.Get(ctx, "tab", "p", "r", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(e.Properties["b"].Bytes()); got != "abc" {
			t.Fatalf("read %d: b = %q", i, got)
		}
		copy(e.Properties["b"].Bytes(), "XXX")
		var row storage.Row
		if err := s.GetRow(ctx, "tab", "p", "r", []string{"b", "s"}, nil, &row); err != nil {
			t.Fatal(err)
		}
		if got := string(row.Values[0].Bytes()); got != "abc" {
			t.Fatalf("GetRow %d: b = %q", i, got)
		}
		copy(row.Values[0].Bytes(), "YYY")
	}
}

// TestReview13fRowCacheBounded: the cache holds at most its size in
// bytes, whatever the entities read, large ones included.
func TestReview13fRowCacheBounded(t *testing.T) {
	ctx := context.Background()
	const size = 256 << 10
	s := review13fOpen(t, size)
	if err := s.CreateTable(ctx, "tab"); err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 60<<10)
	for i := range 400 {
		p := storage.Properties{"v": storage.Int64(int64(i))}
		if i%10 == 0 {
			p["big"] = storage.Binary(big)
		}
		if _, err := s.Insert(ctx, "tab", &storage.Entity{PartitionKey: fmt.Sprintf("p%03d", i), RowKey: "r", Properties: p}); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		for i := range 400 {
			if got := review13fGet(t, ctx, s, "tab", fmt.Sprintf("p%03d", i), "r"); got != int64(i) {
				t.Fatalf("p%03d: v = %d", i, got)
			}
		}
	}
	n, b := s.rc.stats()
	if b > size || n == 0 {
		t.Fatalf("the cache holds %d entries of %d bytes; its size is %d", n, b, size)
	}
}

// TestReview13fRowCacheNeverGoesBack: writers raise each key's counter
// by conditional updates while readers read the keys by Get, GetRow, a
// query and at fresh snapshots, in random order. A read never returns
// less than the last value acknowledged before it began, nor less than
// what an earlier read of the same goroutine returned (run with -race).
func TestReview13fRowCacheNeverGoesBack(t *testing.T) {
	ctx := context.Background()
	s := review13fOpen(t, 64<<10)
	if err := s.CreateTable(ctx, "tab"); err != nil {
		t.Fatal(err)
	}
	const keys = 8
	var acked [keys]atomic.Int64
	for k := range keys {
		review13fPut(t, s, "tab", "p", fmt.Sprintf("k%d", k), 0)
	}
	dur := 2 * time.Second
	if testing.Short() {
		dur = 300 * time.Millisecond
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var failed atomic.Bool
	fail := func(format string, args ...any) {
		if failed.CompareAndSwap(false, true) {
			t.Errorf(format, args...)
		}
	}
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				k := (i*7 + w) % keys
				rk := fmt.Sprintf("k%d", k)
				e, err := s.Get(ctx, "tab", "p", rk, nil)
				if err != nil {
					fail("writer Get: %v", err)
					return
				}
				v := e.Properties["v"].Int() + 1
				_, err = s.Update(ctx, "tab", &storage.Entity{PartitionKey: "p", RowKey: rk, Properties: storage.Properties{"v": storage.Int64(v)}}, storage.Replace, e.ETag)
				if errors.Is(err, storage.ErrPreconditionFailed) {
					continue
				}
				if err != nil {
					fail("writer Update: %v", err)
					return
				}
				for {
					a := acked[k].Load()
					if v <= a || acked[k].CompareAndSwap(a, v) {
						break
					}
				}
			}
		}()
	}
	for r := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var seen [keys]int64
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				k := (i*5 + r) % keys
				rk := fmt.Sprintf("k%d", k)
				floor := max(acked[k].Load(), seen[k])
				var v int64
				how := (i + r) % 4
				switch how {
				case 0:
					e, err := s.Get(ctx, "tab", "p", rk, &storage.GetOptions{Select: []string{"v"}})
					if err != nil {
						fail("Get: %v", err)
						return
					}
					v = e.Properties["v"].Int()
				case 1:
					var row storage.Row
					if err := s.GetRow(ctx, "tab", "p", rk, []string{"v"}, nil, &row); err != nil {
						fail("GetRow: %v", err)
						return
					}
					v = row.Values[0].Int()
				case 2:
					page, err := s.Query(ctx, "tab", &storage.Query{Partition: storage.Exactly("p"), Row: storage.Exactly(rk), Top: 1})
					if err != nil || len(page.Entities) != 1 {
						fail("Query: %v %v", err, page)
						return
					}
					v = page.Entities[0].Properties["v"].Int()
				case 3:
					sn, err := s.Snapshot(ctx)
					if err != nil {
						fail("Snapshot: %v", err)
						return
					}
					e, err := s.Get(storage.WithSnapshot(ctx, sn), "tab", "p", rk, nil)
					sn.Release()
					if err != nil {
						fail("snapshot Get: %v", err)
						return
					}
					v = e.Properties["v"].Int()
				}
				if v < floor {
					fail("read %d of %s (way %d) returned %d, below %d (acknowledged or read before)", i, rk, how, v, floor)
					return
				}
				seen[k] = v
			}
		}()
	}
	time.Sleep(dur)
	close(stop)
	wg.Wait()
}
