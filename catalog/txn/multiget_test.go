package txn_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/catalog/txn"
	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/faultstore"
)

func (w withSnapshots) MultiGet(ctx context.Context, table string, keys []storage.EntityKey, opts *storage.GetOptions) ([]*storage.Entity, error) {
	return w.p.MultiGet(ctx, table, keys, opts)
}

// TestMultiGetAtSnapshot: on a store with native snapshots MultiGet
// forwards the Gets in one call and finishes each entity as Get does; its
// entities are those of a loop of Get calls at snapshots taken before a
// transaction, while it was pending (locks, an uncommitted insert and a
// deleted entity in place) and after its commit point, with and without a
// projection, for present, absent and repeated keys, and it writes
// nothing there (the locks stay). Without a snapshot the locks are
// resolved as the loop resolves them, to the committed values.
func TestMultiGetAtSnapshot(t *testing.T) {
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
	sn, err := r.Snapshot(ctx) // native snapshots: MultiGet's one call
	if err != nil {
		t.Fatal(err)
	}
	sn.Release()
	var keys []storage.EntityKey
	for i := range 12 {
		keys = append(keys, storage.EntityKey{PK: fmt.Sprintf("p%d", i), RK: "r"})
	}
	keys = append(keys, keys[3], keys[9], keys[10], storage.EntityKey{PK: "p1", RK: "nosuch"})
	for _, c := range []struct {
		name string
		ctx  context.Context
	}{{"before", before}, {"pending", pending}, {"committed", committed}} {
		for _, opts := range []*storage.GetOptions{nil, {Select: []string{"bal"}}} {
			got, err := r.MultiGet(c.ctx, table, keys, opts)
			if err != nil {
				t.Fatal(err)
			}
			want, err := storage.GetEach(c.ctx, r, table, keys, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("snapshot %s, %v: MultiGet\n%v\nGet by Get\n%v", c.name, opts, entString(got), entString(want))
			}
			if n := present(got); n < 9 {
				t.Errorf("snapshot %s: %d entities found", c.name, n)
			}
		}
	}
	if n := rawLocks(t, inner); n != 11 {
		t.Fatalf("%d locks in the store after the snapshot reads, want 11", n)
	}
	got, err := r.MultiGet(ctx, table, keys, &storage.GetOptions{Select: []string{"bal"}})
	if err != nil {
		t.Fatal(err)
	}
	want := stateAt(t, committed, r)
	for i, k := range keys {
		b, ok := want[k.PK]
		if k.RK != "r" {
			ok = false
		}
		if e := got[i]; (e != nil) != ok || ok && e.Properties["bal"].Int() != b {
			t.Errorf("key %v without a snapshot: %v, want %v (present %v)", k, e, b, ok)
		}
	}
	if n := rawLocks(t, inner); n != 0 {
		t.Fatalf("%d locks left after a MultiGet without a snapshot", n)
	}
}

func present(es []*storage.Entity) int {
	n := 0
	for _, e := range es {
		if e != nil {
			n++
		}
	}
	return n
}

// entString renders MultiGet's entities for a failure message.
func entString(es []*storage.Entity) string {
	var sb strings.Builder
	for i, e := range es {
		fmt.Fprintf(&sb, "%d:", i)
		if e != nil {
			fmt.Fprintf(&sb, " %s/%s%v %s", e.PartitionKey, e.RowKey, e.Properties, e.ETag)
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}
