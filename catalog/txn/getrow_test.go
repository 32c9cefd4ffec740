package txn_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/sqlgw/sqlgw/catalog/txn"
	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/faultstore"
	"github.com/sqlgw/sqlgw/storage/pebble"
	"github.com/sqlgw/sqlgw/storage/recorder"
)

// rowGets is a store below the protocol with native snapshots that
// answers GetRow (storage.RowGetter) through a recorder, whose trace
// shows the requests each read sent.
type rowGets struct {
	protocolOnly
	rec *recorder.Store
}

func (s rowGets) Snapshot(ctx context.Context) (storage.Snapshot, error) { return s.rec.Snapshot(ctx) }

func (s rowGets) GetRow(ctx context.Context, table, pk, rk string, sel, more []string, row *storage.Row) error {
	return s.rec.GetRow(ctx, table, pk, rk, sel, more, row)
}

func (s rowGets) MultiGetRows(ctx context.Context, table string, keys []storage.EntityKey, sel, more []string, rows []storage.Row, found []bool) error {
	return s.rec.MultiGetRows(ctx, table, keys, sel, more, rows, found)
}

// TestGetRowSameAsGet: Store.GetRow answers every key with Get's entity
// as a row, sending the same requests (the recorder's trace), over locks
// of a transaction left committed but unresolved and of one left
// pending, in a snapshot taken before the resolution and without one
// (which resolves the locks, as Get does); then over the resolved rows,
// with versions and a tombstone (a deleted row), whose system properties
// read as absent even when selected; an absent key and a deleted one are
// not found with Get's error. Store.MultiGetRows answers each of its keys
// (present, repeated, absent) as GetRow does.
func TestGetRowSameAsGet(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name    string
		crashAt int
		resolve bool
	}{
		{"committed", 1 + 1 + 11 + 1 + 1, true},
		{"pending", 1 + 1 + 11 + 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			inner := setup(t)
			p := snapshotsOf(t, inner)
			fs := faultstore.New(inner)
			w := txn.Wrap(fs, "txns", txn.Options{})
			gs := transfer(t, w)
			fs.CrashAt(c.crashAt, false)
			_ = w.Commit(ctx, gs, nil)
			if n := rawLocks(t, inner); n != 11 {
				t.Fatalf("%d locks after the crash, want 11", n)
			}
			rec := recorder.New(p)
			r := txn.Wrap(rowGets{protocolOnly{rec}, rec}, "txns", txn.Options{})
			sn, err := r.Snapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer sn.Release()
			sctx := storage.WithSnapshot(ctx, sn)
			sels := [][]string{{"bal"}, {"bal", txn.PropVersion, txn.PropDeleted, txn.PropLock, "absent"}, {"absent"}}
			var row storage.Row
			compare := func(ctx context.Context, when, pk string, sel []string) {
				t.Helper()
				var tg, tr bytes.Buffer
				e, gerr := r.Get(recorder.WithTrace(ctx, &tg), table, pk, "r", &storage.GetOptions{Select: sel})
				rerr := r.GetRow(recorder.WithTrace(ctx, &tr), table, pk, "r", sel, nil, &row)
				desc := fmt.Sprintf("%s %s %q", when, pk, sel)
				if tg.String() != tr.String() {
					t.Errorf("%s: Get sent\n%sGetRow sent\n%s", desc, tg.String(), tr.String())
				}
				if gerr != nil || rerr != nil {
					if gerr == nil || rerr == nil || gerr.Error() != rerr.Error() {
						t.Fatalf("%s: Get: %v, GetRow: %v", desc, gerr, rerr)
					}
					return
				}
				var want storage.Row
				storage.SetRow(&want, e, sel, nil)
				if !reflect.DeepEqual(row, want) {
					t.Fatalf("%s:\nGetRow %+v\nGet    %+v", desc, row, want)
				}
			}
			var keys []storage.EntityKey
			for i := range 11 {
				keys = append(keys, storage.EntityKey{PK: fmt.Sprintf("p%d", i), RK: "r"})
			}
			keys = append(keys, keys[3], keys[7], storage.EntityKey{PK: "p1", RK: "nosuch"})
			compareMulti := func(ctx context.Context, when string, sel []string) {
				t.Helper()
				rows, found := make([]storage.Row, len(keys)), make([]bool, len(keys))
				if err := r.MultiGetRows(ctx, table, keys, sel, nil, rows, found); err != nil {
					t.Fatalf("%s %q: MultiGetRows: %v", when, sel, err)
				}
				for i, k := range keys {
					var want storage.Row
					err := r.GetRow(ctx, table, k.PK, k.RK, sel, nil, &want)
					if errors.Is(err, storage.ErrNotFound) != !found[i] || err != nil && !errors.Is(err, storage.ErrNotFound) {
						t.Fatalf("%s %v %q: GetRow %v, MultiGetRows found %v", when, k, sel, err, found[i])
					}
					if found[i] && !reflect.DeepEqual(rows[i], want) {
						t.Fatalf("%s %v %q:\nMultiGetRows %+v\nGetRow       %+v", when, k, sel, rows[i], want)
					}
				}
			}
			all := func(ctx context.Context, when string) {
				t.Helper()
				for i := range 11 {
					for _, sel := range sels {
						compare(ctx, when, fmt.Sprintf("p%d", i), sel)
					}
				}
				for _, sel := range sels {
					compareMulti(ctx, when, sel)
				}
			}
			all(sctx, "in the snapshot")
			if n := rawLocks(t, inner); n != 11 {
				t.Fatalf("%d locks after the snapshot reads, want 11", n)
			}
			// Without a snapshot: GetRow meets the locks first (and
			// resolves them when the commit is decided).
			for i := range 11 {
				row = storage.Row{}
				if err := r.GetRow(ctx, table, fmt.Sprintf("p%d", i), "r", []string{"bal"}, nil, &row); err != nil && !errors.Is(err, storage.ErrNotFound) {
					t.Fatal(err)
				}
			}
			if n := rawLocks(t, inner); c.resolve && n != 0 || !c.resolve && n != 11 {
				t.Fatalf("%d locks after GetRow without a snapshot", n)
			}
			all(ctx, "without a snapshot")
			all(sctx, "in the snapshot")

			// A tombstone (a deleted row, through the protocol) and
			// versions of resolved rows.
			if c.resolve {
				gs := []txn.Group{{Table: table, Ops: []storage.Operation{{Kind: storage.OpDelete, Entity: &storage.Entity{PartitionKey: "p3", RowKey: "r"}}}}}
				if err := r.Commit(ctx, gs, nil); err != nil {
					t.Fatal(err)
				}
				all(ctx, "after a delete")
				all(sctx, "in the snapshot after a delete")
			}
		})
	}
}

// BenchmarkPointRead: a point read of one row's two properties through
// the protocol over the embedded store (with a recorder between them, as
// the gateway has), as an entity (Get) and as a row (GetRow).
func BenchmarkPointRead(b *testing.B) {
	ctx := context.Background()
	p, err := pebble.OpenMemory()
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	if err := p.CreateTable(ctx, table); err != nil {
		b.Fatal(err)
	}
	for i := range 1000 {
		e := &storage.Entity{PartitionKey: fmt.Sprintf("p%04d", i), RowKey: "", Properties: storage.Properties{
			"id": storage.Int64(int64(i)), "k": storage.Int64(int64(i * 7)), "c": storage.String(fmt.Sprintf("%0120d", i)), "pad": storage.String(fmt.Sprintf("%060d", i))}}
		if _, err := p.Insert(ctx, table, e); err != nil {
			b.Fatal(err)
		}
	}
	rec := recorder.New(p)
	r := txn.Wrap(rowGets{protocolOnly{rec}, rec}, "txns", txn.Options{})
	sel := []string{"_n", "id", "c"}
	var row storage.Row
	// The first Get learns that the store has native snapshots.
	if _, err := r.Get(ctx, table, "p0001", "", &storage.GetOptions{Select: sel}); err != nil {
		b.Fatal(err)
	}
	if err := r.GetRow(ctx, table, "p0001", "", sel, nil, &row); err != nil {
		b.Fatal(err)
	}
	b.Run("Get", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, err := r.Get(ctx, table, fmt.Sprintf("p%04d", i%1000), "", &storage.GetOptions{Select: sel}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("GetRow", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if err := r.GetRow(ctx, table, fmt.Sprintf("p%04d", i%1000), "", sel, nil, &row); err != nil {
				b.Fatal(err)
			}
		}
	})
}
