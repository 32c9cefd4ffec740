package pebble

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sqlgw/sqlgw/storage"
)

// cachedN returns property n of the row cache's entry of (pk, rk), and
// whether there is one.
func cachedN(t *testing.T, s *Store, table, pk, rk string) (int64, bool) {
	t.Helper()
	ti, err := s.table(table)
	if err != nil {
		t.Fatal(err)
	}
	v, ok := s.rc.lockedGet(appendEntityKey(nil, ti.id, pk, rk))
	if !ok {
		return 0, false
	}
	rec, err := parseRecord(v)
	if err != nil {
		t.Fatal(err)
	}
	props, err := rec.decodeProps(nil)
	if err != nil {
		t.Fatal(err)
	}
	return props["n"].Int(), true
}

// TestRowCacheWriteThrough: what a write commits becomes its keys' cache
// entries (rowcache.go), through every write path, without a read; a
// deletion drops the entry; a key an OpCheck only checked keeps its
// entry; a record larger than writeThroughMax drops the key's entry; a write
// whose commit failed drops its keys' entries.
func TestRowCacheWriteThrough(t *testing.T) {
	ctx := context.Background()
	s := openRowCached(t, 1<<20)
	const tb = "rcwt"
	if err := s.CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	want := func(pk, rk string, n int64) {
		t.Helper()
		got, ok := cachedN(t, s, tb, pk, rk)
		switch {
		case n < 0 && ok:
			t.Fatalf("%s/%s: cached n=%d, want no entry", pk, rk, got)
		case n >= 0 && (!ok || got != n):
			t.Fatalf("%s/%s: cached n=%d (entry %v), want %d", pk, rk, got, ok, n)
		}
		if n >= 0 { // and reads agree with it
			if r := readN(t, ctx, s, tb, pk, rk); r != n {
				t.Fatalf("%s/%s: read n=%d, want %d", pk, rk, r, n)
			}
		}
	}
	if _, err := s.Insert(ctx, tb, nEntity("p", "a", 1)); err != nil {
		t.Fatal(err)
	}
	want("p", "a", 1)
	if _, err := s.Upsert(ctx, tb, nEntity("p", "a", 2), storage.Merge); err != nil {
		t.Fatal(err)
	}
	want("p", "a", 2)
	if _, err := s.Batch(ctx, tb, []storage.Operation{
		{Kind: storage.OpInsert, Entity: nEntity("p", "b", 10)},
		{Kind: storage.OpUpdate, Mode: storage.Replace, Entity: nEntity("p", "a", 3)},
	}); err != nil {
		t.Fatal(err)
	}
	want("p", "a", 3)
	want("p", "b", 10)
	e, err := s.Get(ctx, tb, "p", "b", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.MultiBatch(ctx, []storage.TableBatch{
		{Table: tb, Ops: []storage.Operation{{Kind: storage.OpCheck, IfMatch: e.ETag, Entity: &storage.Entity{PartitionKey: "p", RowKey: "b"}}}},
		{Table: tb, Ops: []storage.Operation{{Kind: storage.OpInsert, Entity: nEntity("q", "c", 20)}}},
	}); err != nil {
		t.Fatal(err)
	}
	want("p", "b", 10) // checked, not written: still cached
	want("q", "c", 20)
	if err := s.Delete(ctx, tb, "p", "b", ""); err != nil {
		t.Fatal(err)
	}
	want("p", "b", -1)
	if readN(t, ctx, s, tb, "p", "b") != -1 {
		t.Fatal("p/b read after its deletion")
	}
	// Larger than a write puts in (writeThroughMax): the entry goes.
	big := nEntity("p", "a", 4)
	big.Properties["pad"] = storage.String(string(make([]byte, writeThroughMax)))
	if _, err := s.Upsert(ctx, tb, big, storage.Replace); err != nil {
		t.Fatal(err)
	}
	if _, ok := cachedN(t, s, tb, "p", "a"); ok {
		t.Fatal("p/a: a record larger than a shard's quarter is cached")
	}
	if r := readN(t, ctx, s, tb, "p", "a"); r != 4 {
		t.Fatalf("p/a: read n=%d, want 4", r)
	}
	// A failed commit (done without the batch) drops the keys' entries.
	ti, err := s.table(tb)
	if err != nil {
		t.Fatal(err)
	}
	w := s.rc.begin([][]byte{appendEntityKey(nil, ti.id, "q", "c")}, false)
	w.done(nil)
	want("q", "c", -1)
	if r := readN(t, ctx, s, tb, "q", "c"); r != 20 {
		t.Fatalf("q/c: read n=%d, want 20", r)
	}
}

// TestRowCacheConditionalWrites: writers read the current record through
// the cache (Store.cachedRead) while checking If-Match and merging
// properties. Concurrent optimistic increments (read, then update
// If-Match) and merges of distinct properties of one entity must lose
// nothing: a write that read a stale record would match an old ETag or
// merge into old properties.
func TestRowCacheConditionalWrites(t *testing.T) {
	ctx := context.Background()
	s := openRowCached(t, 1<<20)
	const tb = "rccond"
	if err := s.CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Insert(ctx, tb, nEntity("p", "ctr", 0)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Insert(ctx, tb, &storage.Entity{PartitionKey: "p", RowKey: "m", Properties: storage.Properties{}}); err != nil {
		t.Fatal(err)
	}
	const writers, each = 6, 150
	var done atomic.Int64
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; {
				e, err := s.Get(ctx, tb, "p", "ctr", nil)
				if err != nil {
					t.Error(err)
					return
				}
				n := e.Properties["n"].Int()
				var werr error
				if w%2 == 0 {
					_, werr = s.Update(ctx, tb, nEntity("p", "ctr", n+1), storage.Replace, e.ETag)
				} else {
					_, werr = s.MultiBatch(ctx, []storage.TableBatch{{Table: tb, Ops: []storage.Operation{
						{Kind: storage.OpUpdate, Mode: storage.Replace, IfMatch: e.ETag, Entity: nEntity("p", "ctr", n+1)}}}})
				}
				if errors.Is(werr, storage.ErrPreconditionFailed) {
					continue
				}
				var mb *storage.MultiBatchError
				if errors.As(werr, &mb) && errors.Is(mb.Err, storage.ErrPreconditionFailed) {
					continue
				}
				if werr != nil {
					t.Error(werr)
					return
				}
				done.Add(1)
				// Each writer merges its own property of m.
				if _, err := s.Upsert(ctx, tb, &storage.Entity{PartitionKey: "p", RowKey: "m",
					Properties: storage.Properties{fmt.Sprintf("w%d", w): storage.Int64(int64(i + 1))}}, storage.Merge); err != nil {
					t.Error(err)
					return
				}
				i++
			}
		}()
	}
	wg.Wait()
	if got := readN(t, ctx, s, tb, "p", "ctr"); got != done.Load() || got != writers*each {
		t.Fatalf("counter %d after %d acknowledged increments (want %d)", got, done.Load(), writers*each)
	}
	m, err := s.Get(ctx, tb, "p", "m", nil)
	if err != nil {
		t.Fatal(err)
	}
	for w := range writers {
		if got := m.Properties[fmt.Sprintf("w%d", w)].Int(); got != each {
			t.Errorf("m.w%d = %d, want %d (a merge lost another's property)", w, got, each)
		}
	}
}

// TestRowCacheWriteThroughIndexTable: a global index's entities (a table
// ReadByPartition names, read by partition queries that bypass the cache)
// are not added by their writes; a write of one a Get has cached replaces
// its entry; a deletion drops it.
func TestRowCacheWriteThroughIndexTable(t *testing.T) {
	ctx := context.Background()
	s := openRowCached(t, 1<<20)
	s.ReadByPartition(byIX)
	const tb = "ixwt"
	if err := s.CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	if ti, _ := s.table(tb); !flagged(ti.id) {
		t.Fatal("the index table is not flagged")
	}
	if _, err := s.Insert(ctx, tb, nEntity("v1", "r1", 1)); err != nil {
		t.Fatal(err)
	}
	if _, ok := cachedN(t, s, tb, "v1", "r1"); ok {
		t.Fatal("an index entity was added to the cache by its insert")
	}
	if n := readN(t, ctx, s, tb, "v1", "r1"); n != 1 { // a Get caches it
		t.Fatalf("read n=%d, want 1", n)
	}
	if n, ok := cachedN(t, s, tb, "v1", "r1"); !ok || n != 1 {
		t.Fatalf("after a Get: cached n=%d (entry %v), want 1", n, ok)
	}
	if _, err := s.Upsert(ctx, tb, nEntity("v1", "r1", 2), storage.Replace); err != nil {
		t.Fatal(err)
	}
	if n, ok := cachedN(t, s, tb, "v1", "r1"); !ok || n != 2 {
		t.Fatalf("after its update: cached n=%d (entry %v), want 2", n, ok)
	}
	if err := s.Delete(ctx, tb, "v1", "r1", storage.ETagAny); err != nil {
		t.Fatal(err)
	}
	if _, ok := cachedN(t, s, tb, "v1", "r1"); ok {
		t.Fatal("an index entity's entry survived its deletion")
	}
}

// TestRowCacheBulkWrite: a write under storage.WithBulkWrite (a multi-row
// INSERT, LOAD DATA) replaces the entry of a key that has one (a deletion
// drops it), so that no read is served a record older than the store's,
// through Batch and MultiBatch; it adds the entries of new keys only into
// free room: a bulk load larger than the cache evicts none of the entries
// reads and other writes made, where an ordinary write evicts them.
func TestRowCacheBulkWrite(t *testing.T) {
	ctx := context.Background()
	bulk := storage.WithBulkWrite(ctx)
	s := openRowCached(t, 1<<20)
	const tb = "rcbulk"
	if err := s.CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Insert(ctx, tb, nEntity("p", "a", 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Batch(bulk, tb, []storage.Operation{
		{Kind: storage.OpInsert, Entity: nEntity("p", "b", 10)},
		{Kind: storage.OpUpdate, Mode: storage.Replace, Entity: nEntity("p", "a", 2)},
	}); err != nil {
		t.Fatal(err)
	}
	if n, ok := cachedN(t, s, tb, "p", "b"); !ok || n != 10 {
		t.Fatalf("p/b: cached n=%d (entry %v) after a bulk insert into free room, want 10", n, ok)
	}
	if n, ok := cachedN(t, s, tb, "p", "a"); !ok || n != 2 {
		t.Fatalf("p/a: cached n=%d (entry %v) after a bulk update, want 2", n, ok)
	}
	if _, err := s.MultiBatch(bulk, []storage.TableBatch{
		{Table: tb, Ops: []storage.Operation{{Kind: storage.OpUpdate, Mode: storage.Replace, Entity: nEntity("p", "a", 3)}}},
		{Table: tb, Ops: []storage.Operation{{Kind: storage.OpInsert, Entity: nEntity("q", "c", 20)}}},
	}); err != nil {
		t.Fatal(err)
	}
	if n, ok := cachedN(t, s, tb, "p", "a"); !ok || n != 3 || readN(t, ctx, s, tb, "p", "a") != 3 {
		t.Fatalf("p/a: cached n=%d (entry %v) after a bulk MultiBatch, want 3", n, ok)
	}
	if _, err := s.MultiBatch(bulk, []storage.TableBatch{{Table: tb, Ops: []storage.Operation{{Kind: storage.OpDelete, Entity: &storage.Entity{PartitionKey: "p", RowKey: "a"}}}}}); err != nil {
		t.Fatal(err)
	}
	if _, ok := cachedN(t, s, tb, "p", "a"); ok {
		t.Fatal("p/a: cached after a bulk deletion")
	}

	// Fill the cache by ordinary writes (past its bound: it evicts), then
	// load ten times its size in bulk: every entry cached before the load
	// stays, and each new key either went into free room or is read from
	// the store.
	pad := string(make([]byte, 400))
	entity := func(pk string, n int) *storage.Entity {
		e := nEntity(pk, "r", int64(n))
		e.Properties["pad"] = storage.String(pad)
		return e
	}
	write := func(ctx context.Context, from, to int) {
		t.Helper()
		var tbs []storage.TableBatch
		for i := from; i < to; i++ {
			tbs = append(tbs, storage.TableBatch{Table: tb, Ops: []storage.Operation{{Kind: storage.OpInsert, Entity: entity(fmt.Sprintf("k%06d", i), i)}}})
		}
		if _, err := s.MultiBatch(ctx, tbs); err != nil {
			t.Fatal(err)
		}
	}
	const n = 2500 // a cache's worth of records, about (1 MiB / 400 bytes)
	for i := 0; i < 4*n; i += 500 {
		write(ctx, i, i+500)
	}
	var hot []int
	for i := range 4 * n {
		if _, ok := cachedN(t, s, tb, fmt.Sprintf("k%06d", i), "r"); ok {
			hot = append(hot, i)
		}
	}
	if len(hot) == 0 || len(hot) == 4*n {
		t.Fatalf("%d of %d written keys cached: the cache did not fill and evict", len(hot), 4*n)
	}
	for i := 4 * n; i < 14*n; i += 500 {
		write(bulk, i, i+500)
	}
	for _, i := range hot {
		if _, ok := cachedN(t, s, tb, fmt.Sprintf("k%06d", i), "r"); !ok {
			t.Fatalf("k%06d: cached before a bulk load, evicted by it", i)
		}
	}
	for _, i := range []int{0, 4 * n, 9 * n, 14*n - 1} {
		if r := readN(t, ctx, s, tb, fmt.Sprintf("k%06d", i), "r"); r != int64(i) {
			t.Fatalf("k%06d: read n=%d, want %d", i, r, i)
		}
	}
}
