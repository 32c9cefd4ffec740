package txn_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/sqlgw/sqlgw/catalog/txn"
	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/faultstore"
)

// multiRowsOnly is rowsOnly that also forwards the embedded store's
// MultiQueryRows (storage.MultiRowQuerier).
type multiRowsOnly struct{ rowsOnly }

func (s multiRowsOnly) MultiQueryRows(ctx context.Context, table string, qs []*storage.Query, marks []string, pages []storage.RowPage) error {
	return s.p.MultiQueryRows(ctx, table, qs, marks, pages)
}

// TestMultiQueryRowsSameAsQueryRows: Store.MultiQueryRows fills each page
// with QueryRows' (and so Query's) page, over locks of a transaction left
// committed but unresolved and of one left pending, in a snapshot taken
// before the resolution (one call to the store; nothing resolved) and
// without one (QueryRows one after another, which resolve the locks);
// caller's marks and queries without a projection are not answered, nor
// is anything over a store that cannot answer rows in one call.
func TestMultiQueryRowsSameAsQueryRows(t *testing.T) {
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
			for _, rk := range []string{"r", "\u00ffi-not-a-row"} {
				if _, err := p.Insert(ctx, table, &storage.Entity{PartitionKey: "q", RowKey: rk, Properties: storage.Properties{"bal": storage.Int64(1)}}); err != nil {
					t.Fatal(err)
				}
			}
			r := txn.Wrap(multiRowsOnly{rowsOnly{protocolOnly{p}, p}}, "txns", txn.Options{})
			sn, err := r.Snapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer sn.Release()
			sctx := storage.WithSnapshot(ctx, sn)
			bal := []string{"bal"}
			var qs []*storage.Query
			for i := range 11 {
				q := &storage.Query{Partition: storage.Exactly(fmt.Sprintf("p%d", i)), Select: bal}
				if i%3 == 2 {
					q.Filter = storage.Ge("bal", storage.Int64(100))
				}
				qs = append(qs, q)
			}
			qs = append(qs,
				&storage.Query{Partition: storage.Exactly("q"), Select: bal},
				&storage.Query{Select: []string{"bal", txn.PropLock, "absent"}, Top: 4},
				&storage.Query{Select: bal, Filter: storage.Lt("bal", storage.Int64(100))})
			compare := func(ctx context.Context, when string) {
				t.Helper()
				got := make([]storage.RowPage, len(qs))
				if err := r.MultiQueryRows(ctx, table, qs, nil, got); err != nil {
					t.Fatalf("%s: MultiQueryRows: %v", when, err)
				}
				for i, q := range qs {
					want, err := r.QueryRows(ctx, table, q, nil)
					if err != nil {
						t.Fatal(err)
					}
					g := got[i]
					if len(g.Rows) == 0 && len(want.Rows) == 0 {
						g.Rows = want.Rows
					}
					if !reflect.DeepEqual(&g, want) {
						t.Fatalf("%s %+v: MultiQueryRows\n%s\nQueryRows\n%s", when, q, dumpRows(&g), dumpRows(want))
					}
				}
			}
			compare(sctx, "in the snapshot")
			if n := rawLocks(t, inner); n != 11 {
				t.Fatalf("%d locks after the snapshot reads, want 11", n)
			}
			// Without a snapshot, the first page meets the locks first.
			got := make([]storage.RowPage, len(qs))
			if err := r.MultiQueryRows(ctx, table, qs, nil, got); err != nil {
				t.Fatal(err)
			}
			if n := rawLocks(t, inner); c.resolve && n != 0 || !c.resolve && n != 11 {
				t.Fatalf("%d locks after the first read without a snapshot", n)
			}
			compare(ctx, "without a snapshot")
			compare(sctx, "in the snapshot, after")
			for _, bad := range []struct {
				name  string
				qs    []*storage.Query
				marks []string
				r     *txn.Store
			}{
				{"marks", qs, []string{"bal"}, r},
				{"no projection", []*storage.Query{{Partition: storage.Exactly("p1")}}, nil, r},
				{"no MultiQueryRows below", qs, nil, txn.Wrap(rowsOnly{protocolOnly{p}, p}, "txns", txn.Options{})},
			} {
				if err := bad.r.MultiQueryRows(sctx, table, bad.qs, bad.marks, make([]storage.RowPage, len(bad.qs))); !errors.Is(err, storage.ErrRowsUnsupported) {
					t.Errorf("%s: %v, want ErrRowsUnsupported", bad.name, err)
				}
			}
		})
	}
}
