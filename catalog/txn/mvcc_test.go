package txn_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/catalog/txn"
	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/aztables"
	"github.com/sqlgw/sqlgw/storage/aztables/azurite"
	"github.com/sqlgw/sqlgw/storage/pebble"
)

// One Azurite serves the tests of versioned snapshot reads.
func TestMain(m *testing.M) { os.Exit(azurite.Main(m)) }

// mvccEnv is a store without snapshots of its own, with a table of
// accounts and a record table of its own.
type mvccEnv struct {
	inner       storage.Store
	acct, txns  string
	name        string
	wrapOptions txn.Options
	native      bool // the store has snapshots of its own (forEachLockingStore)
}

var envSeq atomic.Int64

// forEachVersionedStore runs f on the embedded store without its
// snapshots (and without its atomic multi-partition batch) and on Azurite:
// the stores on which catalog/txn keeps versions.
func forEachVersionedStore(t *testing.T, f func(t *testing.T, env *mvccEnv)) {
	t.Run("pebble-no-snapshots", func(t *testing.T) {
		p, err := pebble.OpenMemory()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		f(t, newEnv(t, protocolOnly{p}, "pebble"))
	})
	t.Run("azurite", func(t *testing.T) {
		if testing.Short() {
			t.Skip("-short")
		}
		s, err := aztables.Open(context.Background(), azurite.Shared(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		f(t, newEnv(t, s, "azurite"))
	})
}

// forEachLockingStore runs f on every store on which readers meet locks:
// forEachVersionedStore's, and the embedded store with its own snapshots
// but without its atomic multi-partition batch (commits take the inline
// path and the record; a read resolves locks, and at a snapshot reads
// Pebble's). env.rwrap wraps a store as each would be.
func forEachLockingStore(t *testing.T, f func(t *testing.T, env *mvccEnv)) {
	forEachVersionedStore(t, f)
	t.Run("pebble-native-snapshots", func(t *testing.T) {
		p, err := pebble.OpenMemory()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		env := newEnv(t, nativeSnapshots{p}, "pebble-native")
		env.native = true
		f(t, env)
	})
}

// nativeSnapshots hides the embedded store's atomic multi-partition
// batch, as protocolOnly does, but keeps its snapshots.
type nativeSnapshots struct{ storage.Store }

func (n nativeSnapshots) Snapshot(ctx context.Context) (storage.Snapshot, error) {
	return storage.ForwardSnapshot(ctx, n.Store)
}

// rwrap is vwrap on a versioned store; on one with native snapshots,
// env.wrap knowing that it has them.
func (env *mvccEnv) rwrap(t *testing.T, inner storage.Store) *txn.Store {
	t.Helper()
	if !env.native {
		return env.vwrap(t, inner, env.wrapOptions)
	}
	s := txn.Wrap(inner, env.txns, env.wrapOptions)
	if s.Versioned(context.Background()) {
		t.Fatal("versioned: the store's snapshots are hidden")
	}
	return s
}

func newEnv(t *testing.T, inner storage.Store, name string) *mvccEnv {
	t.Helper()
	n := fmt.Sprintf("%d%d", time.Now().UnixNano()%1_000_000_000, envSeq.Add(1))
	env := &mvccEnv{inner: inner, acct: "acct" + n, txns: "txns" + n, name: name}
	ctx := context.Background()
	if err := inner.CreateTable(ctx, env.acct); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		if _, err := inner.Insert(ctx, env.acct, ent(fmt.Sprintf("p%d", i), 100)); err != nil {
			t.Fatal(err)
		}
	}
	return env
}

func (env *mvccEnv) wrap(inner storage.Store) *txn.Store {
	return txn.Wrap(inner, env.txns, env.wrapOptions)
}

// snap takes a snapshot of s (a timestamp of the clock).
func snap(t *testing.T, s *txn.Store) context.Context {
	t.Helper()
	sn, err := s.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := txn.SnapshotTS(sn); !ok {
		t.Fatalf("snapshot %T: not a timestamp", sn)
	}
	return storage.WithSnapshot(context.Background(), sn)
}

// balances reads every account through s in ctx (a snapshot or not).
func (env *mvccEnv) balances(t *testing.T, ctx context.Context, s storage.Store) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	q := &storage.Query{}
	for {
		page, err := s.Query(ctx, env.acct, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Entities {
			for p := range e.Properties {
				if strings.HasPrefix(p, "_") {
					t.Fatalf("a reader sees the system property %s on %s/%s", p, e.PartitionKey, e.RowKey)
				}
			}
			if e.RowKey != "r" {
				t.Fatalf("a reader sees entity %s/%s", e.PartitionKey, e.RowKey)
			}
			out[e.PartitionKey] = e.Properties["bal"].Int()
		}
		if page.Continuation == "" {
			return out
		}
		q.Continuation = page.Continuation
	}
}

// transferOps is transfer (p0..p4 give 10, p5..p8 receive 10, p9 deleted,
// p10 inserted) on env's table.
func (env *mvccEnv) transferOps(t *testing.T, s storage.Store) []txn.Group {
	t.Helper()
	return transferIn(t, s, env.acct)
}

// TestVersionedSnapshotReads: a snapshot (a clock timestamp) sees exactly
// the transactions committed before it: one taken before a commit keeps
// reading the old values (from the history), the deleted row and not the
// inserted one, after the commit is resolved and after a second commit;
// one taken after sees the new values; Get and Query agree, with filters
// evaluated on the version read.
func TestVersionedSnapshotReads(t *testing.T) {
	forEachVersionedStore(t, func(t *testing.T, env *mvccEnv) {
		ctx := context.Background()
		s := env.wrap(env.inner)
		if !s.Versioned(ctx) {
			t.Fatal("the store is not versioned")
		}
		before := snap(t, s)
		if err := s.Commit(ctx, env.transferOps(t, s), nil); err != nil {
			t.Fatal(err)
		}
		after := snap(t, s)
		if got := classify(env.balances(t, before, s)); got != "old" {
			t.Fatalf("snapshot before the commit: %s", got)
		}
		if got := classify(env.balances(t, after, s)); got != "new" {
			t.Fatalf("snapshot after the commit: %s", got)
		}
		if got := classify(env.balances(t, ctx, s)); got != "new" {
			t.Fatalf("current read: %s", got)
		}
		// A second commit over the first: both snapshots keep theirs.
		gs := []txn.Group{}
		for _, pk := range []string{"p0", "p10"} {
			e, err := s.Get(ctx, env.acct, pk, "r", nil)
			if err != nil {
				t.Fatal(err)
			}
			gs = append(gs, txn.Group{Table: env.acct, Ops: []storage.Operation{{Kind: storage.OpUpdate, IfMatch: e.ETag, Entity: ent(pk, 7)}}})
		}
		if err := s.Commit(ctx, gs, nil); err != nil {
			t.Fatal(err)
		}
		if got := classify(env.balances(t, before, s)); got != "old" {
			t.Fatalf("snapshot before both commits: %s", got)
		}
		if got := classify(env.balances(t, after, s)); got != "new" {
			t.Fatalf("snapshot between the commits: %s", got)
		}
		for _, c := range []struct {
			ctx      context.Context
			pk       string
			want     int64
			notFound bool
		}{{before, "p9", 100, false}, {after, "p9", 0, true}, {before, "p10", 0, true}, {after, "p10", 100, false}, {ctx, "p10", 7, false}, {before, "p0", 100, false}, {after, "p0", 90, false}} {
			e, err := s.Get(c.ctx, env.acct, c.pk, "r", &storage.GetOptions{Select: []string{"bal"}})
			switch {
			case c.notFound && !errors.Is(err, storage.ErrNotFound):
				t.Errorf("Get %s: %v, want not found", c.pk, err)
			case !c.notFound && (err != nil || e.Properties["bal"].Int() != c.want || len(e.Properties) != 1):
				t.Errorf("Get %s: %v %v, want %d", c.pk, e, err, c.want)
			}
		}
		// A filter is evaluated on the version the snapshot reads: at
		// "before" p0 is 100 (now 7).
		page, err := s.Query(before, env.acct, &storage.Query{Filter: storage.Eq("bal", storage.Int64(100)), Select: []string{"bal"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Entities) != 10 {
			t.Fatalf("filtered query at the old snapshot: %d rows, want 10", len(page.Entities))
		}
		// A write on a version read in an old snapshot is a conflict.
		e, err := s.Get(before, env.acct, "p0", "r", nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Update(ctx, env.acct, ent("p0", 1), storage.Replace, e.ETag); !errors.Is(err, storage.ErrPreconditionFailed) {
			t.Fatalf("a write on the ETag of an old version: %v, want a conflict", err)
		}
	})
}

// pauseResolution calls hook before the first batch of a table that
// writes a version (a resolution, after the commit point).
type pauseResolution struct {
	storage.Store
	table string
	once  *sync.Once
	hook  func()
}

func (p pauseResolution) Batch(ctx context.Context, tbl string, ops []storage.Operation) ([]storage.ETag, error) {
	if tbl == p.table && ops[0].Entity != nil {
		if _, ok := ops[0].Entity.Properties[txn.PropVersion]; ok {
			p.once.Do(p.hook)
		}
	}
	return p.Store.Batch(ctx, tbl, ops)
}

// TestVersionedReadAroundTheCommitPoint: a snapshot taken while the locks
// are in place but before the commit point does not see the transaction
// (its commit timestamp is later); one taken after the commit point but
// before any lock is resolved sees it (the lock's commit row decides), and
// both still do after the resolution.
func TestVersionedReadAroundTheCommitPoint(t *testing.T) {
	forEachVersionedStore(t, func(t *testing.T, env *mvccEnv) {
		ctx := context.Background()
		reader := env.wrap(env.inner)
		var locked, committed context.Context
		var lockedSeen, committedSeen string
		s := env.wrap(pauseResolution{Store: env.inner, table: env.acct, once: &sync.Once{}, hook: func() {
			committed = snap(t, reader)
			committedSeen = classify(env.balances(t, committed, reader))
		}})
		gs := env.transferOps(t, s)
		err := s.Commit(ctx, gs, func() error {
			locked = snap(t, reader)
			lockedSeen = classify(env.balances(t, locked, reader))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if lockedSeen != "old" || committedSeen != "new" {
			t.Fatalf("during the commit: before the commit point %s (want old), after it %s (want new)", lockedSeen, committedSeen)
		}
		if got := classify(env.balances(t, locked, reader)); got != "old" {
			t.Fatalf("the snapshot from before the commit point, after it: %s", got)
		}
		if got := classify(env.balances(t, committed, reader)); got != "new" {
			t.Fatalf("the snapshot from after the commit point, after the resolution: %s", got)
		}
	})
}

// TestVersionedAbortRacesCommit: a gateway that finds the record's lease
// expired aborts the transaction (its commit row, as aborted) just before
// the committer's commit point: the commit fails with ErrAborted and
// applies nothing, for current and snapshot reads.
func TestVersionedAbortRacesCommit(t *testing.T) {
	forEachVersionedStore(t, func(t *testing.T, env *mvccEnv) {
		ctx := context.Background()
		s := env.wrap(env.inner)
		gs := env.transferOps(t, s)
		later := txn.Wrap(env.inner, env.txns, txn.Options{Now: func() time.Time { return time.Now().Add(2 * txn.DefaultLease) }})
		err := s.Commit(ctx, gs, func() error {
			st, err := later.Recover(ctx)
			if err != nil || st.Resolved != 1 {
				t.Errorf("the sweep past the lease: %+v %v", st, err)
			}
			return nil
		})
		if !errors.Is(err, txn.ErrAborted) {
			t.Fatalf("commit after an abort: %v, want ErrAborted", err)
		}
		now := snap(t, s)
		for _, c := range []context.Context{ctx, now} {
			if got := classify(env.balances(t, c, s)); got != "old" {
				t.Fatalf("after the aborted commit: %s", got)
			}
		}
	})
}

// TestVersionedTombstones: a row deleted and inserted again keeps every
// version for the snapshots between; an insert outside a transaction over
// the tombstone is not a duplicate; a snapshot whose version was pruned
// from the history fails with ErrSnapshotTooOld.
func TestVersionedTombstones(t *testing.T) {
	forEachVersionedStore(t, func(t *testing.T, env *mvccEnv) {
		ctx := context.Background()
		s := env.wrap(env.inner)
		get := func(pk string) *storage.Entity {
			e, err := s.Get(ctx, env.acct, pk, "r", nil)
			if err != nil {
				t.Fatal(err)
			}
			return e
		}
		commit := func(ops ...storage.Operation) {
			t.Helper()
			var gs []txn.Group
			for _, op := range ops {
				gs = append(gs, txn.Group{Table: env.acct, Ops: []storage.Operation{op}})
			}
			if err := s.Commit(ctx, gs, nil); err != nil {
				t.Fatal(err)
			}
		}
		s0 := snap(t, s)
		commit(storage.Operation{Kind: storage.OpDelete, IfMatch: get("p1").ETag, Entity: &storage.Entity{PartitionKey: "p1", RowKey: "r"}},
			storage.Operation{Kind: storage.OpDelete, IfMatch: get("p2").ETag, Entity: &storage.Entity{PartitionKey: "p2", RowKey: "r"}})
		s1 := snap(t, s)
		commit(storage.Operation{Kind: storage.OpInsert, Entity: ent("p1", 55)}, storage.Operation{Kind: storage.OpUpdate, IfMatch: get("p3").ETag, Entity: ent("p3", 1)})
		s2 := snap(t, s)
		if _, err := s.Insert(ctx, env.acct, ent("p2", 66)); err != nil {
			t.Fatalf("an insert over a tombstone: %v", err)
		}
		// p2's insert is outside a transaction: it has no commit timestamp
		// and every snapshot sees it (package doc, "Isolation": writes
		// outside Commit); -2: not checked.
		want := []struct {
			ctx    context.Context
			p1, p2 int64 // -1: absent
		}{{s0, 100, -2}, {s1, -1, -2}, {s2, 55, -2}, {ctx, 55, 66}}
		for i, w := range want {
			b := env.balances(t, w.ctx, s)
			for pk, v := range map[string]int64{"p1": w.p1, "p2": w.p2} {
				if v == -2 {
					continue
				}
				got, ok := b[pk]
				if v < 0 && ok || v >= 0 && (!ok || got != v) {
					t.Errorf("snapshot %d: %s = %d (present %v), want %d", i, pk, got, ok, v)
				}
			}
		}
		// Prune p3's history: s0 cannot be served any more.
		page, err := env.inner.Query(ctx, env.acct, &storage.Query{Partition: storage.Exactly("p3")})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Entities {
			if e.RowKey != "r" {
				if err := env.inner.Delete(ctx, env.acct, "p3", e.RowKey, storage.ETagAny); err != nil {
					t.Fatal(err)
				}
			}
		}
		if _, err := s.Get(s0, env.acct, "p3", "r", nil); !errors.Is(err, txn.ErrSnapshotTooOld) {
			t.Fatalf("a read of a pruned version: %v, want ErrSnapshotTooOld", err)
		}
		if e, err := s.Get(s2, env.acct, "p3", "r", nil); err != nil || e.Properties["bal"].Int() != 1 {
			t.Fatalf("a read of the current version: %v %v", e, err)
		}
	})
}

// TestVersionedConcurrentTransfers: two gateways (two Stores: two clocks
// contending on the clock entity's ETag) commit transfers concurrently
// while readers take snapshots and sum the balances: every sum is the
// total.
func TestVersionedConcurrentTransfers(t *testing.T) {
	forEachVersionedStore(t, func(t *testing.T, env *mvccEnv) {
		ctx := context.Background()
		gws := []*txn.Store{env.wrap(env.inner), env.wrap(env.inner)}
		deadline := time.Now().Add(2 * time.Second)
		var wg sync.WaitGroup
		var commits, conflicts, sums atomic.Int64
		var failMu sync.Mutex
		var fail []string
		for w := 0; w < 6; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				s := gws[w%2]
				r := rand.New(rand.NewSource(int64(w)))
				for time.Now().Before(deadline) {
					a, b := r.Intn(10), r.Intn(9)
					if b >= a {
						b++
					}
					pa, pb := fmt.Sprintf("p%d", a), fmt.Sprintf("p%d", b)
					ea, err1 := s.Get(ctx, env.acct, pa, "r", nil)
					eb, err2 := s.Get(ctx, env.acct, pb, "r", nil)
					if err1 != nil || err2 != nil {
						continue
					}
					n := int64(r.Intn(5) + 1)
					err := s.Commit(ctx, []txn.Group{
						{Table: env.acct, Ops: []storage.Operation{{Kind: storage.OpUpdate, IfMatch: ea.ETag, Entity: ent(pa, ea.Properties["bal"].Int()-n)}}},
						{Table: env.acct, Ops: []storage.Operation{{Kind: storage.OpUpdate, IfMatch: eb.ETag, Entity: ent(pb, eb.Properties["bal"].Int()+n)}}},
					}, nil)
					if err == nil {
						commits.Add(1)
					} else {
						conflicts.Add(1)
					}
				}
			}(w)
		}
		for r := 0; r < 2; r++ {
			wg.Add(1)
			go func(r int) {
				defer wg.Done()
				s := gws[r]
				for time.Now().Before(deadline) {
					sn, err := s.Snapshot(ctx)
					if err != nil {
						failMu.Lock()
						fail = append(fail, err.Error())
						failMu.Unlock()
						return
					}
					total := int64(0)
					q := &storage.Query{}
					for {
						page, err := s.Query(storage.WithSnapshot(ctx, sn), env.acct, q)
						if err != nil {
							failMu.Lock()
							fail = append(fail, err.Error())
							failMu.Unlock()
							return
						}
						for _, e := range page.Entities {
							total += e.Properties["bal"].Int()
						}
						if page.Continuation == "" {
							break
						}
						q.Continuation = page.Continuation
					}
					sums.Add(1)
					if total != 1000 {
						failMu.Lock()
						fail = append(fail, fmt.Sprintf("a snapshot sum of %d", total))
						failMu.Unlock()
					}
				}
			}(r)
		}
		wg.Wait()
		t.Logf("%s: %d commits, %d conflicts, %d snapshot sums", env.name, commits.Load(), conflicts.Load(), sums.Load())
		if len(fail) > 0 {
			t.Fatalf("%d failures, first: %s", len(fail), fail[0])
		}
		if commits.Load() == 0 || sums.Load() == 0 {
			t.Fatal("nothing ran")
		}
		if got := env.balances(t, ctx, gws[0]); len(got) != 10 {
			t.Fatalf("%d accounts", len(got))
		}
	})
}

// TestVersionedPruning: the sweep deletes history entities and tombstones
// superseded more than MaxSnapshotAge ago (here: a sweep whose clock runs
// two hours ahead); reads at a snapshot whose versions are pruned, or
// older than MaxSnapshotAge, fail with ErrSnapshotTooOld; current reads
// and reads at a fresh snapshot are unchanged.
func TestVersionedPruning(t *testing.T) {
	forEachVersionedStore(t, func(t *testing.T, env *mvccEnv) {
		ctx := context.Background()
		var offset atomic.Int64
		env.wrapOptions = txn.Options{Now: func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }}
		s := env.wrap(env.inner)
		old := snap(t, s)
		if err := s.Commit(ctx, env.transferOps(t, s), nil); err != nil {
			t.Fatal(err)
		}
		if got := classify(env.balances(t, old, s)); got != "old" {
			t.Fatalf("before pruning: %s", got)
		}
		raw := func() (history, tombstones int) {
			page, err := env.inner.Query(ctx, env.acct, &storage.Query{})
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range page.Entities {
				switch {
				case e.RowKey != "r":
					history++
				case e.Properties[txn.PropDeleted].BoolValue():
					tombstones++
				}
			}
			return
		}
		if h, d := raw(); h != 11 || d != 1 {
			t.Fatalf("before pruning: %d history entities, %d tombstones; want 11, 1", h, d)
		}
		offset.Store(int64(2 * time.Hour))
		if _, err := s.Recover(ctx); err != nil {
			t.Fatal(err)
		}
		if h, d := raw(); h != 0 || d != 0 {
			t.Fatalf("after pruning: %d history entities, %d tombstones; want none", h, d)
		}
		// old is now two hours old: refused before any read.
		if _, err := s.Query(old, env.acct, &storage.Query{}); !errors.Is(err, txn.ErrSnapshotTooOld) {
			t.Fatalf("a query at a snapshot older than MaxSnapshotAge: %v", err)
		}
		offset.Store(0)
		// At its age of a moment, old misses the pruned versions.
		if _, err := s.Get(old, env.acct, "p0", "r", nil); !errors.Is(err, txn.ErrSnapshotTooOld) {
			t.Fatalf("a read of a pruned version: %v", err)
		}
		if got := classify(env.balances(t, ctx, s)); got != "new" {
			t.Fatalf("current read after pruning: %s", got)
		}
		if got := classify(env.balances(t, snap(t, s), s)); got != "new" {
			t.Fatalf("fresh snapshot after pruning: %s", got)
		}
	})
}

// TestVersionedPropertyLimit: an entity with no room for the version
// property is refused before anything is written (a committed transaction
// whose resolution cannot write its value would stay locked for good).
func TestVersionedPropertyLimit(t *testing.T) {
	forEachVersionedStore(t, func(t *testing.T, env *mvccEnv) {
		ctx := context.Background()
		s := env.wrap(env.inner)
		wide := storage.Properties{}
		for i := 0; i < storage.MaxProperties; i++ {
			wide[fmt.Sprintf("c%03d", i)] = storage.Int32(int32(i))
		}
		e, err := s.Get(ctx, env.acct, "p0", "r", nil)
		if err != nil {
			t.Fatal(err)
		}
		err = s.Commit(ctx, []txn.Group{
			{Table: env.acct, Ops: []storage.Operation{{Kind: storage.OpUpdate, IfMatch: e.ETag, Entity: ent("p0", 1)}}},
			{Table: env.acct, Ops: []storage.Operation{{Kind: storage.OpInsert, Entity: &storage.Entity{PartitionKey: "w", RowKey: "r", Properties: wide}}}},
		}, nil)
		var ge *txn.GroupError
		if !errors.Is(err, storage.ErrTooLarge) || !errors.As(err, &ge) || ge.Group != 1 {
			t.Fatalf("a commit of an entity of %d properties: %v, want ErrTooLarge in group 1", storage.MaxProperties, err)
		}
		if got := classify(env.balances(t, ctx, s)); got != "old" {
			t.Fatalf("after the refused commit: %s", got)
		}
		if e2, err := env.inner.Get(ctx, env.acct, "p0", "r", nil); err != nil || e2.ETag != e.ETag {
			t.Fatalf("p0 was written: %v %v", e2, err)
		}
	})
}
