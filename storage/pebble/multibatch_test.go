package pebble_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/pebble"
)

// TestMultiBatch: batches of several tables and partitions apply together
// or not at all, with Batch's conditions.
func TestMultiBatch(t *testing.T) {
	ctx := context.Background()
	s, err := pebble.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tb := range []string{"taba", "tabb"} {
		if err := s.CreateTable(ctx, tb); err != nil {
			t.Fatal(err)
		}
	}
	ent := func(pk, rk string, v int64) *storage.Entity {
		return &storage.Entity{PartitionKey: pk, RowKey: rk, Properties: storage.Properties{"v": storage.Int64(v)}}
	}
	etag, err := s.Insert(ctx, "tabb", ent("q", "1", 1))
	if err != nil {
		t.Fatal(err)
	}
	// The second batch's If-Match fails: nothing of the first is applied.
	_, err = s.MultiBatch(ctx, []storage.TableBatch{
		{Table: "taba", Ops: []storage.Operation{{Kind: storage.OpInsert, Entity: ent("p", "1", 1)}, {Kind: storage.OpInsert, Entity: ent("p", "2", 2)}}},
		{Table: "tabb", Ops: []storage.Operation{{Kind: storage.OpUpdate, IfMatch: "W/\"nope\"", Entity: ent("q", "1", 5)}}},
	})
	var me *storage.MultiBatchError
	var be *storage.BatchError
	if !errors.As(err, &me) || me.Batch != 1 || !errors.As(err, &be) || be.Index != 0 || !errors.Is(err, storage.ErrPreconditionFailed) {
		t.Fatalf("MultiBatch with a stale ETag: %v", err)
	}
	if _, err := s.Get(ctx, "taba", "p", "1", nil); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("the first batch was applied: %v", err)
	}
	// Applied together.
	etags, err := s.MultiBatch(ctx, []storage.TableBatch{
		{Table: "taba", Ops: []storage.Operation{{Kind: storage.OpInsert, Entity: ent("p", "1", 1)}}},
		{Table: "taba", Ops: []storage.Operation{{Kind: storage.OpInsert, Entity: ent("p2", "1", 1)}}},
		{Table: "tabb", Ops: []storage.Operation{{Kind: storage.OpUpdate, IfMatch: etag, Entity: ent("q", "1", 5)}}},
	})
	if err != nil || len(etags) != 3 {
		t.Fatalf("MultiBatch: %v %v", etags, err)
	}
	got, err := s.Get(ctx, "tabb", "q", "1", nil)
	if err != nil || got.ETag != etags[2][0] || got.Properties["v"].Int() != 5 {
		t.Fatalf("after MultiBatch: %v %v", got, err)
	}
	// One entity in two batches is refused.
	_, err = s.MultiBatch(ctx, []storage.TableBatch{
		{Table: "taba", Ops: []storage.Operation{{Kind: storage.OpUpsert, Entity: ent("x", "1", 1)}}},
		{Table: "taba", Ops: []storage.Operation{{Kind: storage.OpUpsert, Entity: ent("x", "1", 2)}}},
	})
	if !errors.Is(err, storage.ErrInvalid) {
		t.Fatalf("one entity twice: %v", err)
	}
}

// TestMultiBatchManyOps: a MultiBatch of many operations over two tables
// (read through per-table iterators, multibatch.go) checks every
// condition as a small one does: an Insert of an existing entity and a
// stale If-Match fail the whole write; a Merge keeps the properties read;
// Deletes and Inserts interleaved across tables apply together.
func TestMultiBatchManyOps(t *testing.T) {
	ctx := context.Background()
	s, err := pebble.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tb := range []string{"many1", "many2"} {
		if err := s.CreateTable(ctx, tb); err != nil {
			t.Fatal(err)
		}
	}
	ent := func(pk string, v int64) *storage.Entity {
		return &storage.Entity{PartitionKey: pk, RowKey: "r", Properties: storage.Properties{"v": storage.Int64(v)}}
	}
	etags := map[string]storage.ETag{}
	for i := range 40 {
		for _, tb := range []string{"many1", "many2"} {
			e, err := s.Insert(ctx, tb, ent(fmt.Sprintf("%03d", 2*i), int64(i)))
			if err != nil {
				t.Fatal(err)
			}
			etags[tb+fmt.Sprint(2*i)] = e
		}
	}
	build := func(dupAt int, staleAt int) []storage.TableBatch {
		var tbs []storage.TableBatch
		for i := range 40 {
			tb := []string{"many1", "many2"}[i%2]
			pk := fmt.Sprintf("%03d", 2*i+1) // new, between existing keys
			op := storage.Operation{Kind: storage.OpInsert, Entity: ent(pk, 100)}
			itb := tb
			if i == dupAt {
				// Exists, in the table this round does not update.
				op.Entity, itb = ent(fmt.Sprintf("%03d", 2*i), 100), []string{"many2", "many1"}[i%2]
			}
			tbs = append(tbs, storage.TableBatch{Table: itb, Ops: []storage.Operation{op}})
			upd := storage.Operation{Kind: storage.OpUpdate, Mode: storage.Merge, IfMatch: etags[tb+fmt.Sprint(2*i)],
				Entity: &storage.Entity{PartitionKey: fmt.Sprintf("%03d", 2*i), RowKey: "r", Properties: storage.Properties{"w": storage.Int64(1)}}}
			if i == staleAt {
				upd.IfMatch = "W/\"stale\""
			}
			tbs = append(tbs, storage.TableBatch{Table: tb, Ops: []storage.Operation{upd}})
		}
		return tbs
	}
	for _, c := range []struct {
		dup, stale int
		want       error
	}{{dup: 37, stale: -1, want: storage.ErrAlreadyExists}, {dup: -1, stale: 21, want: storage.ErrPreconditionFailed}} {
		if _, err := s.MultiBatch(ctx, build(c.dup, c.stale)); !errors.Is(err, c.want) {
			t.Fatalf("MultiBatch with dup %d, stale %d: %v, want %v", c.dup, c.stale, err, c.want)
		}
		if _, err := s.Get(ctx, "many1", "001", "r", nil); !errors.Is(err, storage.ErrNotFound) {
			t.Fatalf("a failed MultiBatch applied its first insert: %v", err)
		}
	}
	if _, err := s.MultiBatch(ctx, build(-1, -1)); err != nil {
		t.Fatal(err)
	}
	for i := range 80 {
		tb := []string{"many1", "many2"}[(i/2)%2]
		got, err := s.Get(ctx, tb, fmt.Sprintf("%03d", i), "r", nil)
		if i%2 == 1 {
			if err != nil || got.Properties["v"].Int() != 100 {
				t.Fatalf("inserted %s/%03d: %v %v", tb, i, got, err)
			}
			continue
		}
		if err != nil || got.Properties["v"].Int() != int64(i/2) || got.Properties["w"].Int() != 1 {
			t.Fatalf("merged %s/%03d: %v %v", tb, i, got, err)
		}
	}
}

// TestEmptyMerge: an empty Merge (the backfill's touch of a row) keeps
// every property of every type (copied encoded, Store.apply), gives a new
// ETag and timestamp, and is conditional on If-Match; alone and in a
// MultiBatch.
func TestEmptyMerge(t *testing.T) {
	ctx := context.Background()
	s, err := pebble.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateTable(ctx, "touch"); err != nil {
		t.Fatal(err)
	}
	props := storage.Properties{"c": storage.String("ça"), "k": storage.Int64(5), "i": storage.Int32(-7), "d": storage.Double(2.5),
		"b": storage.Bool(true), "t": storage.DateTime(time.Date(2024, 2, 3, 4, 5, 6, 700, time.UTC)), "x": storage.Binary([]byte{0, 1, 2}),
		"g": storage.GUID([16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}), "e": storage.String("")}
	etag, err := s.Insert(ctx, "touch", &storage.Entity{PartitionKey: "p", RowKey: "r", Properties: props})
	if err != nil {
		t.Fatal(err)
	}
	before, err := s.Get(ctx, "touch", "p", "r", nil)
	if err != nil {
		t.Fatal(err)
	}
	same := func(what string, e *storage.Entity) {
		t.Helper()
		if len(e.Properties) != len(props) {
			t.Fatalf("%s: %d properties, want %d", what, len(e.Properties), len(props))
		}
		for name, v := range props {
			if !e.Properties[name].Equal(v) {
				t.Fatalf("%s: %s = %v, want %v", what, name, e.Properties[name], v)
			}
		}
	}
	time.Sleep(2 * time.Millisecond) // a later timestamp
	touch := func(ifMatch storage.ETag) (storage.ETag, error) {
		return s.Update(ctx, "touch", &storage.Entity{PartitionKey: "p", RowKey: "r", Properties: storage.Properties{}}, storage.Merge, ifMatch)
	}
	etag2, err := touch(etag)
	if err != nil || etag2 == etag {
		t.Fatalf("empty Merge: %q, %v", etag2, err)
	}
	if _, err := touch(etag); !errors.Is(err, storage.ErrPreconditionFailed) {
		t.Fatalf("empty Merge with the old ETag: %v", err)
	}
	got, err := s.Get(ctx, "touch", "p", "r", nil)
	if err != nil || got.ETag != etag2 || !got.Timestamp.After(before.Timestamp) {
		t.Fatalf("after the empty Merge: %+v, %v", got, err)
	}
	same("after the empty Merge", got)
	etags, err := s.MultiBatch(ctx, []storage.TableBatch{{Table: "touch", Ops: []storage.Operation{
		{Kind: storage.OpUpdate, Mode: storage.Merge, IfMatch: etag2, Entity: &storage.Entity{PartitionKey: "p", RowKey: "r", Properties: storage.Properties{}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	got, err = s.Get(ctx, "touch", "p", "r", nil)
	if err != nil || got.ETag != etags[0][0] || got.ETag == etag2 {
		t.Fatalf("after the empty Merge in a MultiBatch: %+v, %v", got, err)
	}
	same("after the empty Merge in a MultiBatch", got)
}

// TestMultiBatchUpserts: Upserts (which read nothing in Replace mode) in a
// MultiBatch large enough for its iterator reads, over existing and absent
// entities: Replace leaves exactly the new properties under a new ETag,
// Merge keeps the stored ones it does not set.
func TestMultiBatchUpserts(t *testing.T) {
	ctx := context.Background()
	s, err := pebble.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateTable(ctx, "tabu"); err != nil {
		t.Fatal(err)
	}
	const n = 40
	old := map[string]storage.ETag{}
	for i := 0; i < n; i += 2 { // every other entity exists, with "old"
		e := &storage.Entity{PartitionKey: fmt.Sprintf("p%02d", i), RowKey: "r", Properties: storage.Properties{"old": storage.Int64(1)}}
		if old[e.PartitionKey], err = s.Insert(ctx, "tabu", e); err != nil {
			t.Fatal(err)
		}
	}
	var tbs []storage.TableBatch
	for i := 0; i < n; i++ {
		mode := storage.Replace
		if i%4 >= 2 {
			mode = storage.Merge
		}
		tbs = append(tbs, storage.TableBatch{Table: "tabu", Ops: []storage.Operation{{Kind: storage.OpUpsert, Mode: mode,
			Entity: &storage.Entity{PartitionKey: fmt.Sprintf("p%02d", i), RowKey: "r", Properties: storage.Properties{"new": storage.Int64(int64(i))}}}}})
	}
	if _, err := s.MultiBatch(ctx, tbs); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		pk := fmt.Sprintf("p%02d", i)
		e, err := s.Get(ctx, "tabu", pk, "r", nil)
		if err != nil {
			t.Fatal(err)
		}
		_, hasOld := e.Properties["old"]
		wantOld := i%2 == 0 && i%4 >= 2 // existed, and merged
		if hasOld != wantOld || e.Properties["new"].Int() != int64(i) {
			t.Errorf("%s: %v, want old=%v and new=%d", pk, e.Properties, wantOld, i)
		}
		if e.ETag == old[pk] {
			t.Errorf("%s: ETag unchanged", pk)
		}
	}
}

// TestMultiBatchCheck: an OpCheck in a MultiBatch passes while its entity
// exists with the ETag given and writes nothing (the entity keeps its
// ETag and timestamp); a stale ETag or a missing entity fails the whole
// write; Store.Batch refuses it. The index backfill relies on this
// (catalog/ixmaint, backfillAtomic), also with many operations (read
// through iterators).
func TestMultiBatchCheck(t *testing.T) {
	ctx := context.Background()
	s, err := pebble.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tb := range []string{"rows", "idx"} {
		if err := s.CreateTable(ctx, tb); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []int{1, 100} {
		var checks, writes []storage.Operation
		before := map[string]*storage.Entity{}
		for i := range n {
			rk := fmt.Sprintf("n%d-%04d", n, i)
			etag, err := s.Insert(ctx, "rows", &storage.Entity{PartitionKey: "p", RowKey: rk, Properties: storage.Properties{"v": storage.Int64(int64(i))}})
			if err != nil {
				t.Fatal(err)
			}
			e, _ := s.Get(ctx, "rows", "p", rk, nil)
			before[rk] = e
			checks = append(checks, storage.Operation{Kind: storage.OpCheck, IfMatch: etag, Entity: &storage.Entity{PartitionKey: "p", RowKey: rk}})
			writes = append(writes, storage.Operation{Kind: storage.OpUpsert, Entity: &storage.Entity{PartitionKey: "q", RowKey: rk, Properties: storage.Properties{"w": storage.Int64(1)}}})
		}
		// A stale ETag on the last check: nothing written.
		bad := append([]storage.Operation(nil), checks...)
		bad[n-1].IfMatch = `W/"stale"`
		_, err := s.MultiBatch(ctx, []storage.TableBatch{{Table: "rows", Ops: bad}, {Table: "idx", Ops: writes}})
		if !errors.Is(err, storage.ErrPreconditionFailed) {
			t.Fatalf("n=%d: a stale check: %v", n, err)
		}
		if _, err := s.Get(ctx, "idx", "q", writes[0].Entity.RowKey, nil); !errors.Is(err, storage.ErrNotFound) {
			t.Fatalf("n=%d: written despite a failed check: %v", n, err)
		}
		// A missing entity.
		miss := append([]storage.Operation(nil), checks...)
		miss[0] = storage.Operation{Kind: storage.OpCheck, IfMatch: storage.ETagAny, Entity: &storage.Entity{PartitionKey: "p", RowKey: "absent"}}
		if _, err := s.MultiBatch(ctx, []storage.TableBatch{{Table: "rows", Ops: miss}, {Table: "idx", Ops: writes}}); !errors.Is(err, storage.ErrNotFound) {
			t.Fatalf("n=%d: a check of a missing entity: %v", n, err)
		}
		// Current: applied, the checked entities untouched.
		etags, err := s.MultiBatch(ctx, []storage.TableBatch{{Table: "rows", Ops: checks}, {Table: "idx", Ops: writes}})
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		for i, op := range checks {
			got, err := s.Get(ctx, "rows", "p", op.Entity.RowKey, nil)
			if err != nil {
				t.Fatal(err)
			}
			b := before[op.Entity.RowKey]
			if got.ETag != b.ETag || got.ETag != etags[0][i] || !got.Timestamp.Equal(b.Timestamp) || got.Properties["v"].Int() != int64(i) {
				t.Fatalf("n=%d: a checked entity changed: %+v, was %+v (check ETag %s)", n, got, b, etags[0][i])
			}
		}
		if _, err := s.Get(ctx, "idx", "q", writes[n-1].Entity.RowKey, nil); err != nil {
			t.Fatalf("n=%d: not written: %v", n, err)
		}
	}
	// Store.Batch refuses a check.
	_, err = s.Batch(ctx, "rows", []storage.Operation{{Kind: storage.OpCheck, Entity: &storage.Entity{PartitionKey: "p", RowKey: "n1-0000"}}})
	if !errors.Is(err, storage.ErrInvalid) {
		t.Fatalf("Batch with a check: %v", err)
	}
}
