package txn_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/catalog/txn"
	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/faultstore"
	"github.com/sqlgw/sqlgw/storage/pebble"
)

// snapshotsOf returns the Pebble store below setup's wrapper, which takes
// the snapshots.
func snapshotsOf(t *testing.T, s storage.Store) *pebble.Store {
	t.Helper()
	p, ok := s.(protocolOnly).Store.(*pebble.Store)
	if !ok {
		t.Fatalf("setup's store is %T", s)
	}
	return p
}

func takeSnapshot(t *testing.T, p *pebble.Store) context.Context {
	t.Helper()
	sn, err := p.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sn.Release)
	return storage.WithSnapshot(context.Background(), sn)
}

// stateAt is state with reads in ctx (a snapshot).
func stateAt(t *testing.T, ctx context.Context, s storage.Store) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	q := &storage.Query{}
	for {
		page, err := s.Query(ctx, table, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Entities {
			out[e.PartitionKey] = e.Properties["bal"].Int()
		}
		if page.Continuation == "" {
			return out
		}
		q.Continuation = page.Continuation
	}
}

// TestSnapshotReadsResolveAsOfTheSnapshot: a read carrying a snapshot that
// meets locks decides by the record as the snapshot has it, and writes
// nothing: a snapshot taken while the transaction was pending shows it
// not applied, even after it commits and is resolved; one taken after the
// commit point (locks still in place) shows it applied; the store keeps
// its locks until a read without a snapshot resolves them; a write
// conditional on a value so read is a conflict.
func TestSnapshotReadsResolveAsOfTheSnapshot(t *testing.T) {
	ctx := context.Background()
	inner := setup(t)
	p := snapshotsOf(t, inner)
	fs := faultstore.New(inner)
	s := txn.Wrap(fs, "txns", txn.Options{})
	gs := transfer(t, s)
	before := takeSnapshot(t, p)
	var pending context.Context
	// ensure table, intents, 11 locks, the commit point: crash right after.
	fs.CrashAt(1+1+11+1+1, false)
	if err := s.Commit(ctx, gs, func() error { pending = takeSnapshot(t, p); return nil }); err != nil {
		t.Fatalf("commit: %v", err)
	}
	committed := takeSnapshot(t, p)
	r := txn.Wrap(inner, "txns", txn.Options{})
	for _, c := range []struct {
		name string
		ctx  context.Context
		want string
	}{{"before", before, "old"}, {"pending", pending, "old"}, {"committed", committed, "new"}} {
		if got := classify(stateAt(t, c.ctx, r)); got != c.want {
			t.Errorf("snapshot %s: %s, want %s", c.name, got, c.want)
		}
		e, err := r.Get(c.ctx, table, "p0", "r", nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.name != "before" {
			if _, err := r.Update(ctx, table, ent("p0", 1), storage.Replace, e.ETag); !errors.Is(err, storage.ErrPreconditionFailed) {
				t.Errorf("snapshot %s: a write on the ETag of a locked version read in it: %v, want a conflict", c.name, err)
			}
		}
	}
	// The snapshot reads resolved nothing: the locks are still there.
	if n := rawLocks(t, inner); n != 11 {
		t.Fatalf("%d locks in the store after the snapshot reads, want 11", n)
	}
	if got := classify(state(t, r)); got != "new" {
		t.Fatalf("a read without a snapshot: %s", got)
	}
	if n := rawLocks(t, inner); n != 0 {
		t.Fatalf("%d locks left after a read without a snapshot", n)
	}
	for _, c := range []struct {
		ctx  context.Context
		want string
	}{{before, "old"}, {pending, "old"}, {committed, "new"}} {
		if got := classify(stateAt(t, c.ctx, r)); got != c.want {
			t.Errorf("after the resolution: %s, want %s", got, c.want)
		}
	}
}

// rawLocks counts the locked entities of the accounts table.
func rawLocks(t *testing.T, s storage.Store) int {
	t.Helper()
	page, err := s.Query(context.Background(), table, &storage.Query{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range page.Entities {
		if _, ok := e.Properties[txn.PropLock]; ok {
			n++
		}
	}
	return n
}

// withSnapshots is a store below the protocol that takes native snapshots
// and reads several queries in one call (the embedded store's
// storage.MultiQuerier), as the gateway's store does.
type withSnapshots struct {
	storage.Store
	p *pebble.Store
}

func (w withSnapshots) Snapshot(ctx context.Context) (storage.Snapshot, error) {
	return w.p.Snapshot(ctx)
}

func (w withSnapshots) MultiQuery(ctx context.Context, table string, qs []*storage.Query) ([]*storage.Page, error) {
	return w.p.MultiQuery(ctx, table, qs)
}

// TestMultiQueryAtSnapshot: at a native snapshot, MultiQuery forwards the
// widened queries in one call and finishes each page as Query does; its
// pages are those of a loop of Query calls at snapshots taken before a
// transaction, while it was pending (locks in place) and after its commit
// point, for queries with and without projections and filters, and it
// writes nothing (the locks stay). Without a snapshot it is that loop.
func TestMultiQueryAtSnapshot(t *testing.T) {
	ctx := context.Background()
	inner := setup(t)
	p := snapshotsOf(t, inner)
	fs := faultstore.New(inner)
	s := txn.Wrap(fs, "txns", txn.Options{})
	gs := transfer(t, s)
	before := takeSnapshot(t, p)
	var pending context.Context
	fs.CrashAt(1+1+11+1+1, false)
	if err := s.Commit(ctx, gs, func() error { pending = takeSnapshot(t, p); return nil }); err != nil {
		t.Fatalf("commit: %v", err)
	}
	committed := takeSnapshot(t, p)
	r := txn.Wrap(withSnapshots{inner, p}, "txns", txn.Options{})
	sn, err := r.Snapshot(ctx) // native snapshots: MultiQuery's one call
	if err != nil {
		t.Fatal(err)
	}
	sn.Release()
	var qs []*storage.Query
	for i := range 11 {
		q := &storage.Query{Partition: storage.Exactly(fmt.Sprintf("p%d", i))}
		switch i % 3 {
		case 1:
			q.Select = []string{"bal"}
		case 2:
			q.Filter = storage.Ge("bal", storage.Int64(100))
		}
		qs = append(qs, q)
	}
	qs = append(qs, &storage.Query{Select: []string{"bal"}, Filter: storage.Lt("bal", storage.Int64(100))})
	// Queries alike but for the partition, as an IN list's, sharing one
	// projection (MultiQuery widens it once).
	bal := []string{"bal"}
	for i := range 11 {
		qs = append(qs, &storage.Query{Partition: storage.Exactly(fmt.Sprintf("p%d", i)), Select: bal})
	}
	for _, c := range []struct {
		name string
		ctx  context.Context
	}{{"before", before}, {"pending", pending}, {"committed", committed}} {
		got, err := r.MultiQuery(c.ctx, table, qs)
		if err != nil {
			t.Fatal(err)
		}
		want, err := storage.QueryEach(c.ctx, r, table, qs)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("snapshot %s: MultiQuery\n%v\nQuery by query\n%v", c.name, pageString(got), pageString(want))
		}
	}
	if n := rawLocks(t, inner); n != 11 {
		t.Fatalf("%d locks in the store after the snapshot reads, want 11", n)
	}
	got, err := r.MultiQuery(ctx, table, qs)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(qs) {
		t.Fatalf("%d pages for %d queries", len(got), len(qs))
	}
	if n := rawLocks(t, inner); n != 0 {
		t.Fatalf("%d locks left after a MultiQuery without a snapshot", n)
	}
}

// pageString renders pages' entities for a failure message.
func pageString(pages []*storage.Page) string {
	var sb strings.Builder
	for i, p := range pages {
		fmt.Fprintf(&sb, "%d:", i)
		for _, e := range p.Entities {
			fmt.Fprintf(&sb, " %s/%s%v", e.PartitionKey, e.RowKey, e.Properties)
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}
