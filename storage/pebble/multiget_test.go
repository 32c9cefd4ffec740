package pebble

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/sqlgw/sqlgw/storage"
)

// TestMultiGetDifferential: MultiGet's entities are those of a loop of Get
// calls (storage.GetEach), for random keys (present, absent, repeated),
// projections (none, short, empty, longer than Get's scanned list), with
// and without a snapshot that later writes do not reach; and its errors
// are the loop's (an invalid key after valid ones, a bad projection, a
// missing table, a cancelled context, a released snapshot).
func TestMultiGetDifferential(t *testing.T) {
	ctx := context.Background()
	s, err := Open("", &Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateTable(ctx, "mgt"); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 8))
	long := make([]string, 0, maxSelectScan+3)
	for i := range maxSelectScan + 3 {
		long = append(long, fmt.Sprintf("x%d", i))
	}
	write := func() {
		for range 40 {
			e := &storage.Entity{PartitionKey: fmt.Sprintf("p%02d", r.IntN(10)), RowKey: fmt.Sprintf("r%02d", r.IntN(10)),
				Properties: storage.Properties{"v": storage.Int64(int64(r.IntN(5))), "w": storage.String(fmt.Sprint("w", r.IntN(100))),
					"b": storage.Binary([]byte{byte(r.IntN(256))}), "x3": storage.Double(r.Float64())}}
			if r.IntN(6) == 0 {
				_ = s.Delete(ctx, "mgt", e.PartitionKey, e.RowKey, "*")
				continue
			}
			if _, err := s.Upsert(ctx, "mgt", e, storage.Replace); err != nil {
				t.Fatal(err)
			}
		}
	}
	write()
	run := func(ctx context.Context, keys []storage.EntityKey, opts *storage.GetOptions) error {
		t.Helper()
		want, werr := storage.GetEach(ctx, s, "mgt", keys, opts)
		got, gerr := s.MultiGet(ctx, "mgt", keys, opts)
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Fatalf("keys %v: errors: MultiGet %v, Get %v", keys, gerr, werr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("keys %v opts %v:\nMultiGet %v\nGet      %v", keys, opts, got, want)
		}
		return gerr
	}
	mustFail := func(err error) {
		t.Helper()
		if err == nil {
			t.Fatal("no error")
		}
	}
	optsOf := []*storage.GetOptions{nil, {}, {Select: []string{"v"}}, {Select: []string{}}, {Select: []string{"w", "b", "nosuch"}}, {Select: long}}
	found := 0
	for i := range 300 {
		qctx := ctx
		var sn storage.Snapshot
		if i%2 == 1 {
			if sn, err = s.Snapshot(ctx); err != nil {
				t.Fatal(err)
			}
			qctx = storage.WithSnapshot(ctx, sn)
		}
		keys := make([]storage.EntityKey, r.IntN(12))
		for j := range keys {
			keys[j] = storage.EntityKey{PK: fmt.Sprintf("p%02d", r.IntN(12)), RK: fmt.Sprintf("r%02d", r.IntN(12))}
		}
		opts := optsOf[r.IntN(len(optsOf))]
		if sn != nil && i%4 == 1 {
			// Writes after the snapshot: neither read sees them.
			before, err := s.MultiGet(qctx, "mgt", keys, opts)
			if err != nil {
				t.Fatal(err)
			}
			write()
			after, err := s.MultiGet(qctx, "mgt", keys, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(before, after) {
				t.Fatalf("a snapshot's MultiGet changed with later writes")
			}
		}
		run(qctx, keys, opts)
		got, _ := s.MultiGet(qctx, "mgt", keys, opts)
		for _, e := range got {
			if e != nil {
				found++
			}
		}
		if sn != nil {
			sn.Release()
		}
	}
	if found < 300 {
		t.Fatalf("only %d entities found: the keys miss the table", found)
	}
	ok := storage.EntityKey{PK: "p01", RK: "r01"}
	mustFail(run(ctx, []storage.EntityKey{ok, {PK: "p02", RK: "bad/key"}}, nil))
	mustFail(run(ctx, []storage.EntityKey{{PK: "bad#", RK: "r"}, ok}, nil))
	mustFail(run(ctx, []storage.EntityKey{ok}, &storage.GetOptions{Select: []string{"bad name!"}}))
	if _, err := s.MultiGet(ctx, "nosuch", []storage.EntityKey{ok}, nil); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("missing table: %v", err)
	}
	run(ctx, nil, nil)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	mustFail(run(cctx, []storage.EntityKey{ok}, nil))
	sn, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sn.Release()
	mustFail(run(storage.WithSnapshot(ctx, sn), []storage.EntityKey{ok, ok}, nil))
}
