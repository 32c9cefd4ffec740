package txn_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/sqlgw/sqlgw/catalog/txn"
	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/faultstore"
	"github.com/sqlgw/sqlgw/storage/pebble"
)

// rowsOnly is protocolOnly that also forwards the embedded store's
// snapshots and row reads (storage.RowQuerier): a reader over it has
// native snapshots and answers QueryRows.
type rowsOnly struct {
	protocolOnly
	p *pebble.Store
}

func (s rowsOnly) Snapshot(ctx context.Context) (storage.Snapshot, error) { return s.p.Snapshot(ctx) }
func (s rowsOnly) QueryRows(ctx context.Context, table string, q *storage.Query, marks []string) (*storage.RowPage, error) {
	return s.p.QueryRows(ctx, table, q, marks)
}

// TestQueryRowsSameAsQuery: Store.QueryRows returns Query's page as rows
// over locks of a transaction left committed but unresolved, and of one
// left pending; in a snapshot taken before the resolution (which writes
// nothing) and without one (which resolves the locks: QueryRows then
// reads the page through Query); then over the resolved rows, whose
// versions, tombstone (a deleted row), history entities and an unmarked
// entity of the package's namespace it hides, and whose system properties
// read as absent even when selected.
func TestQueryRowsSameAsQuery(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name    string
		crashAt int
		resolve bool // the no-snapshot read resolves the locks
	}{
		// ensure table, intents, 11 locks, the commit point: crash right after.
		{"committed", 1 + 1 + 11 + 1 + 1, true},
		// crash on the commit point: pending within its lease.
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
			// An entity of the package's namespace without a mark (as an
			// inline intent is) beside a row no commit touched: hidden
			// by both.
			for _, rk := range []string{"r", "\u00ffi-not-a-row"} {
				if _, err := p.Insert(ctx, table, &storage.Entity{PartitionKey: "q", RowKey: rk, Properties: storage.Properties{"bal": storage.Int64(1)}}); err != nil {
					t.Fatal(err)
				}
			}
			r := txn.Wrap(rowsOnly{protocolOnly{p}, p}, "txns", txn.Options{})
			sn, err := r.Snapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer sn.Release()
			sctx := storage.WithSnapshot(ctx, sn)
			queries := []storage.Query{
				{Select: []string{"bal"}},
				{Select: []string{"bal", txn.PropVersion, txn.PropDeleted, txn.PropLock, "absent"}},
				{Select: []string{"bal"}, Filter: storage.Gt("bal", storage.Int64(95))},
				{Select: []string{"bal"}, Partition: &storage.KeyRange{Low: &storage.Bound{Key: "p3"}}, Top: 4},
				{Select: []string{"bal"}, Partition: storage.Exactly("q")},
			}
			compare := func(ctx context.Context, when string, q storage.Query) *storage.RowPage {
				t.Helper()
				got, err := r.QueryRows(ctx, table, &q, nil)
				if err != nil {
					t.Fatalf("%s %+v: QueryRows: %v", when, q, err)
				}
				page, err := r.Query(ctx, table, &q)
				if err != nil {
					t.Fatal(err)
				}
				want := storage.RowsOf(page, q.Select, nil)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s %+v: QueryRows\n%s\nQuery\n%s", when, q, dumpRows(got), dumpRows(want))
				}
				return got
			}
			for _, q := range queries {
				compare(sctx, "in the snapshot", q)
			}
			if n := rawLocks(t, inner); n != 11 {
				t.Fatalf("%d locks after the snapshot reads, want 11", n)
			}
			// Without a snapshot: QueryRows meets the locks first.
			compare(ctx, "without a snapshot", queries[1])
			if n := rawLocks(t, inner); c.resolve && n != 0 || !c.resolve && n != 11 {
				t.Fatalf("%d locks after the first read without a snapshot", n)
			}
			for _, q := range queries {
				compare(ctx, "without a snapshot", q)
				compare(sctx, "in the snapshot", q)
			}
			got := compare(ctx, "resolved", storage.Query{Select: []string{"bal"}})
			if want := 11; len(got.Rows) != want {
				t.Fatalf("%d rows, want %d:\n%s", len(got.Rows), want, dumpRows(got))
			}
		})
	}
}

func dumpRows(p *storage.RowPage) string {
	s := ""
	for _, r := range p.Rows {
		s += fmt.Sprintf("  %s/%s %s %v\n", r.PartitionKey, r.RowKey, r.ETag, r.Values)
	}
	return s + "  continuation " + p.Continuation
}
