package pebble

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/storage"
)

func openRowCached(t testing.TB, size int64) *Store {
	t.Helper()
	s, err := Open("", &Options{InMemory: true, RowCacheSize: size})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// readN reads property n of (pk, rk) by Get and by GetRow, which must
// agree; -1 for an absent entity.
func readN(t *testing.T, ctx context.Context, s *Store, table, pk, rk string) int64 {
	t.Helper()
	e, err := s.Get(ctx, table, pk, rk, &storage.GetOptions{Select: []string{"n"}})
	var row storage.Row
	rerr := s.GetRow(ctx, table, pk, rk, []string{"n"}, nil, &row)
	if errors.Is(err, storage.ErrNotFound) && errors.Is(rerr, storage.ErrNotFound) {
		return -1
	}
	if err != nil || rerr != nil {
		t.Fatalf("Get: %v, GetRow: %v", err, rerr)
	}
	n := e.Properties["n"].Int()
	if got := row.Values[0].Int(); got != n {
		t.Fatalf("%s/%s: Get n=%d, GetRow n=%d", pk, rk, n, got)
	}
	return n
}

// readMultiN reads property n of (pk, rk) by MultiGetRows and MultiGet,
// as the first and last of three keys (the middle one absent), which
// must agree; -1 for an absent entity.
func readMultiN(t *testing.T, ctx context.Context, s *Store, table, pk, rk string) int64 {
	t.Helper()
	keys := []storage.EntityKey{{PK: pk, RK: rk}, {PK: pk, RK: rk + "-absent"}, {PK: pk, RK: rk}}
	rows, found := make([]storage.Row, len(keys)), make([]bool, len(keys))
	if err := s.MultiGetRows(ctx, table, keys, []string{"n"}, nil, rows, found); err != nil {
		t.Fatalf("MultiGetRows: %v", err)
	}
	ents, err := s.MultiGet(ctx, table, keys, &storage.GetOptions{Select: []string{"n"}})
	if err != nil {
		t.Fatalf("MultiGet: %v", err)
	}
	if found[1] || ents[1] != nil {
		t.Fatalf("%s/%s-absent found", pk, rk)
	}
	n := int64(-1)
	for _, i := range []int{0, 2} {
		m, e := int64(-1), int64(-1)
		if found[i] {
			m = rows[i].Values[0].Int()
		}
		if ents[i] != nil {
			e = ents[i].Properties["n"].Int()
		}
		if m != e || i == 2 && m != n {
			t.Fatalf("%s/%s: MultiGetRows n=%d, MultiGet n=%d (first key %d)", pk, rk, m, e, n)
		}
		n = m
	}
	return n
}

func nEntity(pk, rk string, n int64) *storage.Entity {
	return &storage.Entity{PartitionKey: pk, RowKey: rk, Properties: storage.Properties{"n": storage.Int64(n)}}
}

// TestRowCacheWritePaths: every way the store writes an entity (Insert,
// Upsert replace and merge, an empty merge, Update, Delete, Batch,
// MultiBatch, a write with a deferred sync, DeleteTable and a new table
// of the same name) makes the next read show the write, though the read
// before it cached the entity's previous record.
func TestRowCacheWritePaths(t *testing.T) {
	ctx := context.Background()
	s := openRowCached(t, 1<<20)
	const tb = "rcpaths"
	if err := s.CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	want := func(pk, rk string, n int64) {
		t.Helper()
		// Twice: the first read may fill the cache, the second hits it;
		// a multi-get fills it first, for the point reads after it.
		for range 2 {
			if got := readMultiN(t, ctx, s, tb, pk, rk); got != n {
				t.Fatalf("%s/%s: multi-get n=%d, want %d", pk, rk, got, n)
			}
			if got := readN(t, ctx, s, tb, pk, rk); got != n {
				t.Fatalf("%s/%s: n=%d, want %d", pk, rk, got, n)
			}
		}
	}
	if _, err := s.Insert(ctx, tb, nEntity("p", "a", 1)); err != nil {
		t.Fatal(err)
	}
	if got := readMultiN(t, ctx, s, tb, "p", "a"); got != 1 {
		t.Fatalf("p/a: multi-get n=%d, want 1", got)
	}
	if ents, _ := s.rc.stats(); ents != 1 {
		t.Fatalf("%d cached entries after a multi-get of one entity, want 1", ents)
	}
	want("p", "a", 1)
	if _, err := s.Upsert(ctx, tb, nEntity("p", "a", 2), storage.Replace); err != nil {
		t.Fatal(err)
	}
	want("p", "a", 2)
	if _, err := s.Upsert(ctx, tb, nEntity("p", "a", 3), storage.Merge); err != nil {
		t.Fatal(err)
	}
	want("p", "a", 3)
	e, err := s.Get(ctx, tb, "p", "a", nil)
	if err != nil {
		t.Fatal(err)
	}
	// An empty merge changes the ETag only.
	if _, err := s.Upsert(ctx, tb, &storage.Entity{PartitionKey: "p", RowKey: "a"}, storage.Merge); err != nil {
		t.Fatal(err)
	}
	if e2, err := s.Get(ctx, tb, "p", "a", nil); err != nil || e2.ETag == e.ETag {
		t.Fatalf("after an empty merge: %v, ETag %s (before %s)", err, e2.ETag, e.ETag)
	}
	if _, err := s.Update(ctx, tb, nEntity("p", "a", 4), storage.Replace, ""); err != nil {
		t.Fatal(err)
	}
	want("p", "a", 4)
	if err := s.Delete(ctx, tb, "p", "a", ""); err != nil {
		t.Fatal(err)
	}
	want("p", "a", -1)
	if _, err := s.Insert(ctx, tb, nEntity("p", "a", 5)); err != nil {
		t.Fatal(err)
	}
	want("p", "a", 5)
	if _, err := s.Insert(ctx, tb, nEntity("p", "b", 50)); err != nil {
		t.Fatal(err)
	}
	want("p", "b", 50)
	if _, err := s.Batch(ctx, tb, []storage.Operation{
		{Kind: storage.OpUpsert, Mode: storage.Replace, Entity: nEntity("p", "a", 6)},
		{Kind: storage.OpDelete, Entity: &storage.Entity{PartitionKey: "p", RowKey: "b"}},
	}); err != nil {
		t.Fatal(err)
	}
	want("p", "a", 6)
	want("p", "b", -1)
	if _, err := s.Insert(ctx, tb, nEntity("q", "c", 70)); err != nil {
		t.Fatal(err)
	}
	want("q", "c", 70)
	if _, err := s.MultiBatch(ctx, []storage.TableBatch{
		{Table: tb, Ops: []storage.Operation{{Kind: storage.OpUpsert, Mode: storage.Replace, Entity: nEntity("p", "a", 7)}}},
		{Table: tb, Ops: []storage.Operation{{Kind: storage.OpUpdate, Mode: storage.Merge, Entity: nEntity("q", "c", 71)}}},
	}); err != nil {
		t.Fatal(err)
	}
	want("p", "a", 7)
	want("q", "c", 71)
	// MultiBatch's iterator reads (from multiBatchIterOps operations).
	var ops []storage.Operation
	for i := range multiBatchIterOps + 4 {
		rk := fmt.Sprintf("m%02d", i)
		if _, err := s.Insert(ctx, tb, nEntity("m", rk, 0)); err != nil {
			t.Fatal(err)
		}
		want("m", rk, 0)
		ops = append(ops, storage.Operation{Kind: storage.OpUpdate, Mode: storage.Merge, Entity: nEntity("m", rk, int64(i+1))})
	}
	if _, err := s.MultiBatch(ctx, []storage.TableBatch{{Table: tb, Ops: ops}}); err != nil {
		t.Fatal(err)
	}
	for i := range multiBatchIterOps + 4 {
		want("m", fmt.Sprintf("m%02d", i), int64(i+1))
	}
	dctx := storage.WithDeferredSync(ctx)
	if _, err := s.Upsert(dctx, tb, nEntity("p", "a", 8), storage.Replace); err != nil {
		t.Fatal(err)
	}
	want("p", "a", 8)
	if _, err := s.MultiBatch(dctx, []storage.TableBatch{{Table: tb, Ops: []storage.Operation{
		{Kind: storage.OpUpsert, Mode: storage.Replace, Entity: nEntity("p", "a", 9)}}}}); err != nil {
		t.Fatal(err)
	}
	want("p", "a", 9)
	// A failed write (its condition) changes nothing, cached or not.
	if _, err := s.Insert(ctx, tb, nEntity("p", "a", 99)); !errors.Is(err, storage.ErrAlreadyExists) {
		t.Fatalf("insert over an entity: %v", err)
	}
	want("p", "a", 9)
	if err := s.DeleteTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	if ents, bytes := s.rc.stats(); ents != 0 || bytes != 0 {
		t.Fatalf("after DeleteTable: %d entries, %d bytes cached", ents, bytes)
	}
	if err := s.CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	want("p", "a", -1)
	if _, err := s.Insert(ctx, tb, nEntity("p", "a", 10)); err != nil {
		t.Fatal(err)
	}
	want("p", "a", 10)
}

// TestRowCacheSnapshot: a read at a snapshot taken before a write sees
// the record before the write, though the cache holds the new one; a
// snapshot still of the current state reads through the cache and sees
// what a read of the database sees.
func TestRowCacheSnapshot(t *testing.T) {
	ctx := context.Background()
	s := openRowCached(t, 1<<20)
	const tb = "rcsnap"
	if err := s.CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Insert(ctx, tb, nEntity("p", "a", 1)); err != nil {
		t.Fatal(err)
	}
	old, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Release()
	octx := storage.WithSnapshot(ctx, old)
	if n := readN(t, octx, s, tb, "p", "a"); n != 1 {
		t.Fatalf("at the snapshot: %d", n)
	}
	if n := readMultiN(t, octx, s, tb, "p", "a"); n != 1 {
		t.Fatalf("multi-get at the snapshot: %d", n)
	}
	if _, err := s.Upsert(ctx, tb, nEntity("p", "a", 2), storage.Replace); err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second read of the database hits the cache
		if n := readN(t, ctx, s, tb, "p", "a"); n != 2 {
			t.Fatalf("latest: %d, want 2", n)
		}
		if n := readN(t, octx, s, tb, "p", "a"); n != 1 {
			t.Fatalf("at the snapshot before the write: %d, want 1", n)
		}
		if n := readMultiN(t, octx, s, tb, "p", "a"); n != 1 {
			t.Fatalf("multi-get at the snapshot before the write: %d, want 1", n)
		}
		if n := readMultiN(t, ctx, s, tb, "p", "a"); n != 2 {
			t.Fatalf("multi-get latest: %d, want 2", n)
		}
	}
	cur, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Release()
	cctx := storage.WithSnapshot(ctx, cur)
	if n := readN(t, cctx, s, tb, "p", "a"); n != 2 {
		t.Fatalf("at a current snapshot: %d, want 2", n)
	}
	if n := readMultiN(t, cctx, s, tb, "p", "a"); n != 2 {
		t.Fatalf("multi-get at a current snapshot: %d, want 2", n)
	}
	if _, err := s.Upsert(ctx, tb, nEntity("p", "a", 3), storage.Replace); err != nil {
		t.Fatal(err)
	}
	if n := readN(t, ctx, s, tb, "p", "a"); n != 3 {
		t.Fatalf("latest: %d, want 3", n)
	}
	if n := readN(t, cctx, s, tb, "p", "a"); n != 2 {
		t.Fatalf("at the snapshot before the second write: %d, want 2", n)
	}
	if n := readMultiN(t, cctx, s, tb, "p", "a"); n != 2 {
		t.Fatalf("multi-get at the snapshot before the second write: %d, want 2", n)
	}
}

// TestRowCacheMultiGetRace: a write that completes while a multi-get
// reads, after it made its iterator and before it looks up the written
// key, neither leaves the iterator's older record in the cache (read
// from the database: the iterator shows the state of its making, older
// than the lookup) nor lets a read at a snapshot from before the write
// take the newer record from the cache.
func TestRowCacheMultiGetRace(t *testing.T) {
	ctx := context.Background()
	for _, atSnapshot := range []bool{false, true} {
		t.Run(fmt.Sprintf("snapshot=%v", atSnapshot), func(t *testing.T) {
			s := openRowCached(t, 1<<20)
			const tb = "rcmgrace"
			if err := s.CreateTable(ctx, tb); err != nil {
				t.Fatal(err)
			}
			for _, rk := range []string{"a", "b"} {
				if _, err := s.Insert(ctx, tb, nEntity("p", rk, 1)); err != nil {
					t.Fatal(err)
				}
			}
			s.rc.clear() // the inserts wrote through: start uncached
			rctx := ctx
			if atSnapshot {
				sn, err := s.Snapshot(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer sn.Release()
				rctx = storage.WithSnapshot(ctx, sn)
			}
			// a misses (nothing is cached), so the multi-get makes its
			// iterator; then b is written before the multi-get looks b
			// up: at the database, b misses and the iterator shows the
			// record before the write (which must not go in); at the
			// snapshot, b is read (and cached) at the database first, so
			// that the lookup finds the newer record.
			s.multiGetIterHook = func() {
				s.multiGetIterHook = nil
				if _, err := s.Upsert(ctx, tb, nEntity("p", "b", 2), storage.Replace); err != nil {
					t.Error(err)
				}
				if !atSnapshot {
					return
				}
				if n := readN(t, ctx, s, tb, "p", "b"); n != 2 {
					t.Errorf("b after the write: %d", n)
				}
			}
			keys := []storage.EntityKey{{PK: "p", RK: "a"}, {PK: "p", RK: "b"}}
			rows, found := make([]storage.Row, 2), make([]bool, 2)
			if err := s.MultiGetRows(rctx, tb, keys, []string{"n"}, nil, rows, found); err != nil {
				t.Fatal(err)
			}
			if s.multiGetIterHook != nil {
				t.Fatal("the multi-get made no iterator")
			}
			// At the snapshot b is the record before the write; at the
			// database, what the iterator shows (either record: the
			// keys are read one after another, as a loop of GetRow).
			if !found[1] || atSnapshot && rows[1].Values[0].Int() != 1 {
				t.Fatalf("b read by the multi-get: %v %v", found[1], rows[1].Values)
			}
			for range 2 {
				if n := readN(t, ctx, s, tb, "p", "b"); n != 2 {
					t.Fatalf("b after the multi-get: %d, want 2", n)
				}
				if n := readMultiN(t, ctx, s, tb, "p", "b"); n != 2 {
					t.Fatalf("b by a multi-get after the multi-get: %d, want 2", n)
				}
			}
		})
	}
}

// TestRowCacheBounded: the cache holds at most its size in bytes, and an
// entity read again after many others is still answered right.
func TestRowCacheBounded(t *testing.T) {
	ctx := context.Background()
	const size = 256 << 10
	s := openRowCached(t, size)
	const tb = "rcbound"
	if err := s.CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	pad := storage.String(strings.Repeat("x", 300))
	for i := range 2000 {
		e := nEntity("p", fmt.Sprintf("r%05d", i), int64(i))
		e.Properties["pad"] = pad
		if _, err := s.Insert(ctx, tb, e); err != nil {
			t.Fatal(err)
		}
		if n := readN(t, ctx, s, tb, "p", e.RowKey); n != int64(i) {
			t.Fatalf("%s: %d", e.RowKey, n)
		}
		if ents, bytes := s.rc.stats(); bytes > size || ents == 0 {
			t.Fatalf("after %d reads: %d entries, %d bytes (size %d)", i+1, ents, bytes, size)
		}
	}
	ents, bytes := s.rc.stats()
	if ents >= 2000 || bytes < size/2 {
		t.Fatalf("%d entries, %d bytes cached of %d", ents, bytes, size)
	}
	if n := readN(t, ctx, s, tb, "p", "r00000"); n != 0 {
		t.Fatalf("r00000: %d", n)
	}
}

// TestRowCacheDisabled: a store without a row cache caches nothing.
func TestRowCacheDisabled(t *testing.T) {
	ctx := context.Background()
	s := openRowCached(t, 0)
	if s.rc != nil {
		t.Fatal("a row cache of size 0")
	}
	if err := s.CreateTable(ctx, "rcoff"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Insert(ctx, "rcoff", nEntity("p", "a", 1)); err != nil {
		t.Fatal(err)
	}
	if n := readN(t, ctx, s, "rcoff", "p", "a"); n != 1 {
		t.Fatal(n)
	}
}

// TestRowCacheConcurrent: writers increment a counter per key (by Upsert,
// Batch, MultiBatch and conditional Update), readers (Get, GetRow,
// MultiGetRows and MultiGet, at the database and at current snapshots) check that they never see a
// value older than the last write acknowledged before their read started.
// Few keys, so that readers and writers meet on them.
func TestRowCacheConcurrent(t *testing.T) {
	ctx := context.Background()
	s := openRowCached(t, 1<<20)
	const tb = "rcstress"
	if err := s.CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	const keys = 8
	rk := func(k int) string { return fmt.Sprintf("k%d", k) }
	var acked [keys]atomic.Int64
	for k := range keys {
		if _, err := s.Insert(ctx, tb, nEntity("p", rk(k), 0)); err != nil {
			t.Fatal(err)
		}
	}
	dur := 2 * time.Second
	if testing.Short() || raceEnabled {
		dur = time.Second
	}
	deadline := time.Now().Add(dur)
	var wg sync.WaitGroup
	errc := make(chan error, 16)
	fail := func(err error) {
		select {
		case errc <- err:
		default:
		}
	}
	// One writer per key pair, so each key's counter has one writer and
	// increases by one per acknowledged write.
	for w := range keys / 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; time.Now().Before(deadline); i++ {
				k := 2*w + i%2
				n := acked[k].Load() + 1
				var err error
				switch i % 4 {
				case 0:
					_, err = s.Upsert(ctx, tb, nEntity("p", rk(k), n), storage.Replace)
				case 1:
					_, err = s.Batch(ctx, tb, []storage.Operation{{Kind: storage.OpUpdate, Mode: storage.Merge, Entity: nEntity("p", rk(k), n)}})
				case 2:
					_, err = s.MultiBatch(ctx, []storage.TableBatch{{Table: tb, Ops: []storage.Operation{{Kind: storage.OpUpsert, Mode: storage.Replace, Entity: nEntity("p", rk(k), n)}}}})
				case 3:
					_, err = s.Update(ctx, tb, nEntity("p", rk(k), n), storage.Replace, storage.ETagAny)
				}
				if err != nil {
					fail(err)
					return
				}
				acked[k].Store(n)
			}
		}()
	}
	for r := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var row storage.Row
			for i := 0; time.Now().Before(deadline); i++ {
				k := (i + r) % keys
				// The floors are loaded before the snapshot is taken.
				k2 := (k + 1) % keys
				floor, floor2 := acked[k].Load(), acked[k2].Load()
				rctx := ctx
				var sn storage.Snapshot
				if i%3 == 0 {
					var err error
					if sn, err = s.Snapshot(ctx); err != nil {
						fail(err)
						return
					}
					rctx = storage.WithSnapshot(ctx, sn)
				}
				var n int64
				if i%5 == 4 {
					// A multi-get of k and the next key, by MultiGetRows
					// or MultiGet.
					mkeys := []storage.EntityKey{{PK: "p", RK: rk(k)}, {PK: "p", RK: rk(k2)}}
					var got [2]int64
					if i%10 == 4 {
						rows, found := make([]storage.Row, 2), make([]bool, 2)
						if err := s.MultiGetRows(rctx, tb, mkeys, []string{"n"}, nil, rows, found); err != nil || !found[0] || !found[1] {
							fail(fmt.Errorf("MultiGetRows: %v %v", err, found))
							return
						}
						got = [2]int64{rows[0].Values[0].Int(), rows[1].Values[0].Int()}
					} else {
						ents, err := s.MultiGet(rctx, tb, mkeys, nil)
						if err != nil || ents[0] == nil || ents[1] == nil {
							fail(fmt.Errorf("MultiGet: %v %v", err, ents))
							return
						}
						got = [2]int64{ents[0].Properties["n"].Int(), ents[1].Properties["n"].Int()}
					}
					n = got[0]
					if got[1] < floor2 {
						fail(fmt.Errorf("%s: multi-get read %d after write %d was acknowledged", rk(k2), got[1], floor2))
						return
					}
				} else if i%2 == 0 {
					e, err := s.Get(rctx, tb, "p", rk(k), nil)
					if err != nil {
						fail(err)
						return
					}
					n = e.Properties["n"].Int()
				} else {
					if err := s.GetRow(rctx, tb, "p", rk(k), []string{"n"}, nil, &row); err != nil {
						fail(err)
						return
					}
					n = row.Values[0].Int()
				}
				if sn != nil {
					// A second read at the snapshot sees the same.
					e, err := s.Get(rctx, tb, "p", rk(k), nil)
					if err != nil {
						fail(err)
						return
					}
					if m := e.Properties["n"].Int(); m != n {
						fail(fmt.Errorf("%s: two reads at one snapshot: %d then %d", rk(k), n, m))
					}
					sn.Release()
				}
				if n < floor {
					fail(fmt.Errorf("%s: read %d after write %d was acknowledged", rk(k), n, floor))
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	for k := range keys {
		if n, want := readN(t, ctx, s, tb, "p", rk(k)), acked[k].Load(); n != want {
			t.Fatalf("%s: %d at the end, want %d", rk(k), n, want)
		}
	}
}

// BenchmarkRowCacheHit is the row cache's lookup of a cached key (get),
// from one goroutine and from GOMAXPROCS at once: the cost a hit adds to
// a point read's (its shard's lock, its recency).
func BenchmarkRowCacheHit(b *testing.B) {
	const n = 10_000
	c := newRowCache(64 << 20)
	keys := make([][]byte, n)
	val := make([]byte, 200)
	for i := range keys {
		keys[i] = fmt.Appendf(nil, "key%08d", i)
		_, token, _ := c.testGet(keys[i])
		c.testPut(keys[i], val, token)
	}
	if ents, _ := c.stats(); ents != n {
		b.Fatalf("%d entries cached of %d", ents, n)
	}
	// cpu-ns/op (the process's CPU time) as well: on a shared machine
	// the wall time counts the other processes' turns.
	b.Run("goroutines=1", func(b *testing.B) {
		b.ReportAllocs()
		c0, ops := processCPU(), 0
		for i := 0; b.Loop(); i++ {
			k := keys[i*7919%n]
			if _, _, ok := c.testGet(k); !ok {
				b.Fatal("miss")
			}
			ops++
		}
		b.ReportMetric(float64(processCPU()-c0)/float64(ops), "cpu-ns/op")
	})
	b.Run("goroutines=procs", func(b *testing.B) {
		b.ReportAllocs()
		var seq atomic.Int64
		c0 := processCPU()
		b.RunParallel(func(pb *testing.PB) {
			i := int(seq.Add(1)) * 4099
			for ; pb.Next(); i++ {
				k := keys[i*7919%n]
				if _, _, ok := c.testGet(k); !ok {
					b.Fatal("miss")
				}
			}
		})
		b.ReportMetric(float64(processCPU()-c0)/float64(b.N), "cpu-ns/op")
	})
}

// TestRowCacheClock: the eviction keeps what is looked up. In one shard
// of a small cache, an entry hit between inserts survives many times the
// shard's capacity of inserts; an insert into a shard whose every entry
// was hit since its last round goes in (one of the others goes); and the
// shard stays within its bound throughout.
func TestRowCacheClock(t *testing.T) {
	c := newRowCache(rowCacheShards * 8 << 10) // 8 KiB a shard
	sh := &c.shards[0]
	var keys [][]byte // keys of shard 0
	for i := 0; len(keys) < 401; i++ {
		k := fmt.Appendf(nil, "k%06d", i)
		if c.shard(k) == sh {
			keys = append(keys, k)
		}
	}
	val := make([]byte, 100)
	insert := func(k []byte) {
		t.Helper()
		_, token, ok := c.testGet(k)
		if ok {
			t.Fatalf("%s cached before its insert", k)
		}
		c.testPut(k, val, token)
		if b := sh.bytes(); b > 8<<10 {
			t.Fatalf("%d bytes in a shard of %d", b, 8<<10)
		}
		if ch, _, _ := sh.find(c.hash(k), k); ch == nil { // not get: that would count as a hit
			t.Fatalf("%s not cached after its insert", k)
		}
	}
	hot := keys[0]
	insert(hot)
	perShard := sh.maxChunks * (sh.chunkSize / entrySize(hot, val))
	if 4*perShard > len(keys) {
		t.Fatalf("%d entries a shard: too few keys", perShard)
	}
	for _, k := range keys[1:400] {
		insert(k)
		if _, _, ok := c.testGet(hot); !ok {
			t.Fatalf("the entry hit between inserts was evicted after %s", k)
		}
	}
	// Every entry hit: the next insert still goes in.
	for _, k := range keys[:400] {
		c.testGet(k)
	}
	insert(keys[400])
	if ch, _, _ := sh.find(c.hash(keys[400]), keys[400]); ch == nil {
		t.Fatalf("%s not cached after its insert into a shard whose entries were all hit", keys[400])
	}
	if len(sh.idx) > perShard {
		t.Fatalf("%d entries in a shard of %d", len(sh.idx), perShard)
	}
}

// testGet is get of key in its shard.
func (c *rowCache) testGet(key []byte) ([]byte, uint64, bool) {
	sh, h := c.locate(key)
	return c.get(sh, h, key)
}

// testPut is put of key in its shard.
func (c *rowCache) testPut(key, val []byte, token uint64) {
	sh, h := c.locate(key)
	c.put(sh, h, key, val, token)
}
