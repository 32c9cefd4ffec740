package pebble_test

import (
	"context"
	"errors"
	"testing"

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
