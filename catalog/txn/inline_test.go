package txn_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/catalog/txn"
	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/faultstore"
)

// Tests of the inline path (inline.go): a commit in one partition of one
// table, within one batch, without the transaction record.

// vwrap is env.wrap on inner, knowing that the store is versioned (as
// the gateway's does, which asks before its first commit): its reads are
// kept for the resolution's history entities.
func (env *mvccEnv) vwrap(t *testing.T, inner storage.Store, opts txn.Options) *txn.Store {
	t.Helper()
	s := txn.Wrap(inner, env.txns, opts)
	if !s.Versioned(context.Background()) {
		t.Fatal("not versioned")
	}
	return s
}

// rowsQ writes the rows a, b and c (100 each) of partition q of env's
// table.
func (env *mvccEnv) rowsQ(t *testing.T) {
	t.Helper()
	for _, rk := range []string{"a", "b", "c"} {
		if _, err := env.inner.Insert(context.Background(), env.acct, &storage.Entity{PartitionKey: "q", RowKey: rk,
			Properties: storage.Properties{"bal": storage.Int64(100)}}); err != nil {
			t.Fatal(err)
		}
	}
}

// oneGroup builds an inline transaction on partition q over s's state: a
// gives 10 to c, b is deleted and d inserted (100).
func (env *mvccEnv) oneGroup(t *testing.T, s storage.Store) []txn.Group {
	return env.oneGroupDel(t, s, "b", "d")
}

// oneGroupDel is oneGroup deleting row del and inserting row ins.
func (env *mvccEnv) oneGroupDel(t *testing.T, s storage.Store, del, ins string) []txn.Group {
	t.Helper()
	ctx := context.Background()
	get := func(rk string) *storage.Entity {
		e, err := s.Get(ctx, env.acct, "q", rk, nil)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	row := func(rk string, bal int64) *storage.Entity {
		return &storage.Entity{PartitionKey: "q", RowKey: rk, Properties: storage.Properties{"bal": storage.Int64(bal)}}
	}
	a, b, c := get("a"), get(del), get("c")
	return []txn.Group{{Table: env.acct, Ops: []storage.Operation{
		{Kind: storage.OpUpdate, IfMatch: a.ETag, Entity: row("a", a.Properties["bal"].Int()-10)},
		{Kind: storage.OpDelete, IfMatch: b.ETag, Entity: &storage.Entity{PartitionKey: "q", RowKey: del}},
		{Kind: storage.OpUpdate, IfMatch: c.ETag, Entity: row("c", c.Properties["bal"].Int()+10)},
		{Kind: storage.OpInsert, Entity: row(ins, 100)},
	}}}
}

// stateQ reads partition q through s (a reader) or the raw store: the
// balances by RowKey, and what the raw store holds besides (locks,
// intents, "" when nothing).
func (env *mvccEnv) stateQ(t *testing.T, ctx context.Context, s storage.Store) (map[string]int64, string) {
	t.Helper()
	out := map[string]int64{}
	var extra []string
	page, err := s.Query(ctx, env.acct, &storage.Query{Partition: storage.Exactly("q")})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range page.Entities {
		switch {
		case strings.HasPrefix(e.RowKey, "\u00ffi"):
			extra = append(extra, "intent")
		case strings.HasPrefix(e.RowKey, "\u00ffh"):
			// history
		default:
			if _, ok := e.Properties[txn.PropLock]; ok {
				extra = append(extra, "lock on "+e.RowKey)
			}
			if v, ok := e.Properties["bal"]; ok && !e.Properties[txn.PropDeleted].BoolValue() {
				out[e.RowKey] = v.Int()
			}
		}
	}
	sort.Strings(extra)
	return out, strings.Join(extra, ",")
}

func classifyQ(m map[string]int64) string {
	switch fmt.Sprint(m) {
	case "map[a:100 b:100 c:100]":
		return "old"
	case "map[a:90 c:110 d:100]":
		return "new"
	}
	return fmt.Sprint("mixed ", m)
}

// commitRows returns the commit rows of env's record table, by state.
func (env *mvccEnv) commitRows(t *testing.T) map[string]int {
	t.Helper()
	out := map[string]int{}
	page, err := env.inner.Query(context.Background(), env.txns, &storage.Query{Partition: storage.Exactly("clock")})
	if errors.Is(err, storage.ErrNotFound) {
		return out
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range page.Entities {
		if !strings.HasPrefix(e.RowKey, "c-") {
			continue
		}
		if e.Properties["s"].Str() == "a" {
			out["aborted"]++
		} else {
			out["committed"]++
		}
		if !strings.HasPrefix(e.RowKey, "c-i") {
			continue
		}
		if e.Properties["t"].Str() != env.acct || e.Properties["p"].Str() != "q" {
			t.Errorf("inline commit row %s does not name its partition: %v", e.RowKey, e.Properties)
		}
	}
	return out
}

// TestInlineCommitRequests: a commit in one partition of one table that
// fits one batch costs 3 requests (the locks with the intents, the commit
// point, the resolution with the intents' deletes), not the record's
// 2P+3 = 5; with several groups in that partition (a table group's
// members) too. Two partitions keep the record (7). Nothing is left but
// the commit row, deleted with the next commit point.
func TestInlineCommitRequests(t *testing.T) {
	forEachVersionedStore(t, func(t *testing.T, env *mvccEnv) {
		ctx := context.Background()
		env.rowsQ(t)
		fs := faultstore.New(env.inner)
		s := env.vwrap(t, fs, env.wrapOptions)
		// The record table is created by the first commit.
		if err := s.Commit(ctx, transferIn(t, s, env.acct)[:2], nil); err != nil {
			t.Fatal(err)
		}
		cost := func(gs []txn.Group) int {
			t.Helper()
			fs.CrashAt(0, false)
			if err := s.Commit(ctx, gs, nil); err != nil {
				t.Fatal(err)
			}
			return fs.Requests()
		}
		if n := cost(env.oneGroup(t, s)); n != 3 {
			t.Errorf("a commit of 4 operations in one partition: %d requests, want 3", n)
		}
		if got, extra := env.stateQ(t, ctx, s); classifyQ(got) != "new" || extra != "" {
			t.Fatalf("after the commit: %v %q", got, extra)
		}
		if got, extra := env.stateQ(t, ctx, env.inner); classifyQ(got) != "new" || extra != "" {
			t.Fatalf("raw store after the commit: %v %q", got, extra)
		}
		// One row, one operation.
		a, err := s.Get(ctx, env.acct, "q", "a", nil)
		if err != nil {
			t.Fatal(err)
		}
		if n := cost([]txn.Group{{Table: env.acct, Ops: []storage.Operation{{Kind: storage.OpUpdate, IfMatch: a.ETag,
			Entity: &storage.Entity{PartitionKey: "q", RowKey: "a", Properties: storage.Properties{"bal": storage.Int64(1)}}}}}}); n != 3 {
			t.Errorf("a one-row commit: %d requests, want 3", n)
		}
		// Two groups of one partition (two member tables of a table
		// group share the physical table).
		a, _ = s.Get(ctx, env.acct, "q", "a", nil)
		c, _ := s.Get(ctx, env.acct, "q", "c", nil)
		if n := cost([]txn.Group{
			{Table: env.acct, Ops: []storage.Operation{{Kind: storage.OpUpdate, IfMatch: a.ETag, Entity: &storage.Entity{PartitionKey: "q", RowKey: "a", Properties: storage.Properties{"bal": storage.Int64(2)}}}}},
			{Table: env.acct, Ops: []storage.Operation{{Kind: storage.OpUpdate, IfMatch: c.ETag, Entity: &storage.Entity{PartitionKey: "q", RowKey: "c", Properties: storage.Properties{"bal": storage.Int64(3)}}}}},
		}); n != 3 {
			t.Errorf("two groups in one partition: %d requests, want 3", n)
		}
		// Two partitions: the record, 2P+3.
		p0, _ := s.Get(ctx, env.acct, "p0", "r", nil)
		a, _ = s.Get(ctx, env.acct, "q", "a", nil)
		if n := cost([]txn.Group{
			{Table: env.acct, Ops: []storage.Operation{{Kind: storage.OpUpdate, IfMatch: a.ETag, Entity: &storage.Entity{PartitionKey: "q", RowKey: "a", Properties: storage.Properties{"bal": storage.Int64(4)}}}}},
			{Table: env.acct, Ops: []storage.Operation{{Kind: storage.OpUpdate, IfMatch: p0.ETag, Entity: ent("p0", 5)}}},
		}); n != 7 {
			t.Errorf("two partitions: %d requests, want 7", n)
		}
		if got, extra := env.stateQ(t, ctx, env.inner); fmt.Sprint(got) != "map[a:4 c:3 d:100]" || extra != "" {
			t.Fatalf("raw store after the commits: %v %q", got, extra)
		}
		// The finished commits' rows ride on later commit points; the
		// sweep's flush takes the last ones.
		if _, err := s.Recover(ctx); err != nil {
			t.Fatal(err)
		}
		if rows := env.commitRows(t); len(rows) != 0 {
			t.Fatalf("commit rows after the sweep: %v", rows)
		}
		if left := leftoversIn(t, env.inner, env.txns); len(left) != 0 {
			t.Fatalf("record table: %v", left)
		}
	})
}

// leftoversIn is leftovers for record table tbl.
func leftoversIn(t *testing.T, inner storage.Store, tbl string) []string {
	t.Helper()
	page, err := inner.Query(context.Background(), tbl, &storage.Query{})
	if errors.Is(err, storage.ErrNotFound) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range page.Entities {
		if e.PartitionKey != "clock" {
			out = append(out, e.PartitionKey+"/"+e.RowKey)
		}
	}
	return out
}

// TestInlineCrashAtEveryRequest stops an inline commit after its N-th
// request, for every N (dropped, or applied with the reply lost). Then
// another gateway, its clock past the lease, sweeps: a commit that passed
// its commit point is rolled forward by the sweep alone (the raw store
// shows it, without a reader: the commit row must not be deleted before
// its locks are resolved); then readers resolve the rest. Every outcome
// is all or nothing and matches what Commit returned, and no lock or
// intent is left.
func TestInlineCrashAtEveryRequest(t *testing.T) {
	forEachVersionedStore(t, func(t *testing.T, env *mvccEnv) {
		ctx := context.Background()
		txns, acct := env.txns, env.acct
		later := func() time.Time { return time.Now().Add(2 * txn.DefaultLease) }
		run := func(n int, applied bool) (int, string) {
			total, err := env.crashInline(t, txns, acct, fmt.Sprintf("n%d%v", n, applied), n, applied)
			if n == 0 && err != nil {
				t.Fatal(err)
			}
			r := env.vwrap(t, env.inner, txn.Options{Now: later})
			if _, rerr := r.Recover(ctx); rerr != nil {
				t.Fatalf("n=%d applied=%v: recover: %v", n, applied, rerr)
			}
			rows := env.commitRows(t)
			if rows["committed"] != 0 {
				t.Fatalf("n=%d applied=%v (commit: %v): a committed commit row is left after the sweep", n, applied, err)
			}
			raw, extra := env.stateQ(t, ctx, env.inner)
			if err == nil && (classifyQ(raw) != "new" || extra != "") {
				t.Fatalf("n=%d applied=%v: committed, and after the sweep the raw store holds %v %q", n, applied, raw, extra)
			}
			got, _ := env.stateQ(t, ctx, r)
			c := classifyQ(got)
			switch {
			case c != "old" && c != "new":
				t.Fatalf("n=%d applied=%v (commit: %v): %s", n, applied, err, c)
			case err == nil && c != "new":
				t.Fatalf("n=%d applied=%v: commit succeeded, state %s", n, applied, c)
			case err != nil && !errors.Is(err, txn.ErrUnknownOutcome) && c != "old":
				t.Fatalf("n=%d applied=%v: commit failed (%v) but applied", n, applied, err)
			}
			raw, extra = env.stateQ(t, ctx, env.inner)
			if classifyQ(raw) != c || extra != "" {
				t.Fatalf("n=%d applied=%v: the raw store holds %v %q after the readers, who read %s", n, applied, raw, extra, c)
			}
			if left := leftoversIn(t, env.inner, env.txns); len(left) != 0 {
				t.Fatalf("n=%d applied=%v: record table: %v", n, applied, left)
			}
			return total, c
		}
		total, _ := run(0, false)
		t.Logf("a clean inline commit: %d requests (the record table's creation included)", total)
		seen := map[string]int{}
		for n := 1; n <= total; n++ {
			for _, applied := range []bool{false, true} {
				_, c := run(n, applied)
				seen[c]++
			}
		}
		t.Logf("outcomes: %v", seen)
		if seen["new"] == 0 || seen["old"] == 0 {
			t.Fatalf("outcomes %v: want both", seen)
		}
	})
}

// dropResolution fails every batch that writes a version (a resolution,
// after the commit point) without sending it: a committer that died
// right after its commit point.
type dropResolution struct{ storage.Store }

func (d dropResolution) Snapshot(ctx context.Context) (storage.Snapshot, error) {
	return storage.ForwardSnapshot(ctx, d.Store)
}

func (d dropResolution) Batch(ctx context.Context, tbl string, ops []storage.Operation) ([]storage.ETag, error) {
	if _, ok := ops[0].Entity.Properties[txn.PropVersion]; ok {
		return nil, faultstore.ErrCrashed
	}
	return d.Store.Batch(ctx, tbl, ops)
}

// waitLock waits until entity q/rk of table holds a lock.
func waitLock(t *testing.T, inner storage.Store, table, rk string) {
	t.Helper()
	for i := 0; ; i++ {
		if e, err := inner.Get(context.Background(), table, "q", rk, nil); err == nil {
			if _, ok := e.Properties[txn.PropLock]; ok {
				return
			}
		}
		if i > 2000 {
			t.Fatal("no lock written")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestInlineReaders: an inline transaction's locks, as other gateways
// meet them. Pending within the lease (the id encodes it): the previous
// values, a write on them a conflict, an insert over the placeholder a
// conflict; a snapshot taken then never sees the transaction, one taken
// after its commit point does. Past the lease without a commit point: the
// reader aborts it (the commit row, naming the partition, inserted as
// aborted) and rolls it back, and the committer's commit point then fails
// with ErrAborted. Committed but unresolved (the committer gone): the
// reader rolls it forward with the intent it reads beside the row, and
// deletes the intent in the same batch.
func TestInlineReaders(t *testing.T) {
	forEachVersionedStore(t, func(t *testing.T, env *mvccEnv) {
		ctx := context.Background()
		env.rowsQ(t)
		s := env.vwrap(t, env.inner, env.wrapOptions)
		other := env.vwrap(t, env.inner, env.wrapOptions)
		var before context.Context
		gs := env.oneGroup(t, s)
		hold, done := make(chan struct{}), make(chan error, 1)
		go func() { done <- s.Commit(ctx, gs, func() error { <-hold; return nil }) }()
		waitLock(t, env.inner, env.acct, "d")
		before = snap(t, other)
		got, _ := env.stateQ(t, ctx, other)
		if c := classifyQ(got); c != "old" {
			t.Errorf("pending: a reader sees %s", c)
		}
		a, err := other.Get(ctx, env.acct, "q", "a", nil)
		if err != nil || a.Properties["bal"].Int() != 100 {
			t.Fatalf("pending: a reads %v %v", a, err)
		}
		if _, err := other.Update(ctx, env.acct, &storage.Entity{PartitionKey: "q", RowKey: "a", Properties: storage.Properties{"bal": storage.Int64(1)}}, storage.Replace, a.ETag); !errors.Is(err, storage.ErrPreconditionFailed) {
			t.Errorf("a write over a pending lock: %v, want a conflict", err)
		}
		if _, err := other.Insert(ctx, env.acct, &storage.Entity{PartitionKey: "q", RowKey: "d", Properties: storage.Properties{"bal": storage.Int64(1)}}); !errors.Is(err, storage.ErrPreconditionFailed) {
			t.Errorf("an insert over a pending placeholder: %v, want a conflict", err)
		}
		close(hold)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		after := snap(t, other)
		for _, c := range []struct {
			ctx  context.Context
			want string
		}{{before, "old"}, {after, "new"}, {ctx, "new"}} {
			if got, _ := env.stateQ(t, c.ctx, other); classifyQ(got) != c.want {
				t.Errorf("%s snapshot: %v", c.want, got)
			}
		}
		if _, err := other.Get(before, env.acct, "q", "d", nil); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("Get at the snapshot before the commit point: d %v, want not found", err)
		}
		if e, err := other.Get(before, env.acct, "q", "c", nil); err != nil || e.Properties["bal"].Int() != 100 {
			t.Errorf("Get at the snapshot before the commit point: c %v %v, want 100", e, err)
		}

		// Past the lease, no commit point: aborted and rolled back by a
		// reader; the committer then fails at its commit point.
		lease := 300 * time.Millisecond
		s = env.vwrap(t, env.inner, txn.Options{Lease: lease})
		gs = env.oneGroupDel(t, s, "d", "b")
		hold, done = make(chan struct{}), make(chan error, 1)
		go func() { done <- s.Commit(ctx, gs, func() error { <-hold; return nil }) }()
		waitLock(t, env.inner, env.acct, "b")
		time.Sleep(lease + 50*time.Millisecond)
		got, _ = env.stateQ(t, ctx, other)
		if fmt.Sprint(got) != "map[a:90 c:110 d:100]" {
			t.Errorf("past the lease: a reader sees %v, want the values before the transaction", got)
		}
		close(hold)
		if err := <-done; !errors.Is(err, txn.ErrAborted) {
			t.Fatalf("commit after a reader aborted it: %v, want ErrAborted", err)
		}
		if raw, extra := env.stateQ(t, ctx, env.inner); fmt.Sprint(raw) != "map[a:90 c:110 d:100]" || extra != "" {
			t.Fatalf("raw store after the abort: %v %q", raw, extra)
		}
		if rows := env.commitRows(t); rows["aborted"] != 1 {
			t.Fatalf("commit rows after the abort: %v, want one aborted", rows)
		}

		// Committed, the committer gone before the resolution: a reader
		// within the lease rolls it forward.
		s = env.vwrap(t, dropResolution{env.inner}, env.wrapOptions)
		gs = env.oneGroupDel(t, s, "d", "b")
		if err := s.Commit(ctx, gs, nil); err != nil {
			t.Fatal(err)
		}
		if _, extra := env.stateQ(t, ctx, env.inner); extra != "intent,intent,intent,intent,lock on a,lock on b,lock on c,lock on d" {
			t.Fatalf("raw store after the crash: %q", extra)
		}
		reader := env.vwrap(t, env.inner, env.wrapOptions)
		if e, err := reader.Get(ctx, env.acct, "q", "a", nil); err != nil || e.Properties["bal"].Int() != 80 {
			t.Fatalf("a committed lock reads %v %v, want 80", e, err)
		}
		if _, extra := env.stateQ(t, ctx, env.inner); extra != "intent,intent,intent,lock on b,lock on c,lock on d" {
			t.Fatalf("raw store after one roll-forward: %q (want a's lock and intent gone)", extra)
		}
		if got, _ := env.stateQ(t, ctx, reader); fmt.Sprint(got) != "map[a:80 b:100 c:120]" {
			t.Fatalf("after the roll-forward: %v", got)
		}
		if raw, extra := env.stateQ(t, ctx, env.inner); fmt.Sprint(raw) != "map[a:80 b:100 c:120]" || extra != "" {
			t.Fatalf("raw store after the readers: %v %q", raw, extra)
		}
	})
}

// TestInlineConcurrentIncrements: gateways increment one row through
// one-row commits concurrently (the autocommit contention case), with
// snapshot readers: no increment is lost or doubled, and every snapshot
// reads a value that was committed.
func TestInlineConcurrentIncrements(t *testing.T) {
	forEachVersionedStore(t, func(t *testing.T, env *mvccEnv) {
		ctx := context.Background()
		env.rowsQ(t)
		gws := []*txn.Store{env.vwrap(t, env.inner, env.wrapOptions), env.vwrap(t, env.inner, env.wrapOptions)}
		var wg sync.WaitGroup
		var mu sync.Mutex
		committed := 0
		deadline := time.Now().Add(2 * time.Second)
		for w := 0; w < 6; w++ {
			wg.Add(1)
			go func(s *txn.Store) {
				defer wg.Done()
				for time.Now().Before(deadline) {
					err, rerr := env.incrementA(ctx, s)
					if rerr != nil {
						t.Error(rerr)
						return
					}
					if err == nil {
						mu.Lock()
						committed++
						mu.Unlock()
					} else if !errors.Is(err, storage.ErrPreconditionFailed) {
						t.Errorf("commit: %v", err)
						return
					}
				}
			}(gws[w%2])
		}
		wg.Wait()
		e, err := gws[0].Get(ctx, env.acct, "q", "a", nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d increments committed", env.name, committed)
		if committed == 0 || e.Properties["bal"].Int() != int64(100+committed) {
			t.Fatalf("a = %d after %d committed increments", e.Properties["bal"].Int(), committed)
		}
	})
}

// TestInlineFailures: an inline commit that fails applies nothing and
// leaves nothing. A stale ETag in the second of two groups of one
// partition fails the one batch: a *GroupError naming that group and
// operation, no lock, intent or commit row written. A failure after the
// locks (beforeCommit) aborts: the commit row inserted as aborted, naming
// the partition, the locks and intents removed; the sweep deletes that
// commit row after abortRetention. A committer that died after its locks
// leaves them to readers, who abort past the lease, and to the sweep,
// which rolls back what the intents name (past abortRetention).
func TestInlineFailures(t *testing.T) {
	forEachVersionedStore(t, func(t *testing.T, env *mvccEnv) {
		ctx := context.Background()
		env.rowsQ(t)
		s := env.vwrap(t, env.inner, env.wrapOptions)
		a, err := s.Get(ctx, env.acct, "q", "a", nil)
		if err != nil {
			t.Fatal(err)
		}
		c, err := s.Get(ctx, env.acct, "q", "c", nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Update(ctx, env.acct, &storage.Entity{PartitionKey: "q", RowKey: "c", Properties: storage.Properties{"bal": storage.Int64(100)}}, storage.Replace, c.ETag); err != nil {
			t.Fatal(err)
		}
		row := func(rk string, bal int64) *storage.Entity {
			return &storage.Entity{PartitionKey: "q", RowKey: rk, Properties: storage.Properties{"bal": storage.Int64(bal)}}
		}
		err = s.Commit(ctx, []txn.Group{
			{Table: env.acct, Ops: []storage.Operation{{Kind: storage.OpUpdate, IfMatch: a.ETag, Entity: row("a", 1)}}},
			{Table: env.acct, Ops: []storage.Operation{{Kind: storage.OpInsert, Entity: row("e", 1)}, {Kind: storage.OpUpdate, IfMatch: c.ETag, Entity: row("c", 1)}}},
		}, nil)
		var ge *txn.GroupError
		var be *storage.BatchError
		if !errors.As(err, &ge) || ge.Group != 1 || !errors.As(err, &be) || be.Index != 1 || !errors.Is(err, storage.ErrPreconditionFailed) {
			t.Fatalf("commit over a stale ETag: %v, want the precondition failure of group 1, operation 1", err)
		}
		if raw, extra := env.stateQ(t, ctx, env.inner); classifyQ(raw) != "old" || extra != "" {
			t.Fatalf("raw store after the failed commit: %v %q", raw, extra)
		}
		if rows := env.commitRows(t); len(rows) != 0 {
			t.Fatalf("commit rows after a failed lock batch: %v", rows)
		}

		fail := errors.New("before the commit point")
		if err := s.Commit(ctx, env.oneGroup(t, s), func() error { return fail }); !errors.Is(err, fail) {
			t.Fatalf("commit: %v, want beforeCommit's error", err)
		}
		if raw, extra := env.stateQ(t, ctx, env.inner); classifyQ(raw) != "old" || extra != "" {
			t.Fatalf("raw store after the abort: %v %q", raw, extra)
		}
		if rows := env.commitRows(t); rows["aborted"] != 1 || rows["committed"] != 0 {
			t.Fatalf("commit rows after the abort: %v, want one aborted", rows)
		}
		sweep := env.vwrap(t, env.inner, txn.Options{Now: func() time.Time { return time.Now().Add(11 * time.Minute) }})
		if _, err := sweep.Recover(ctx); err != nil {
			t.Fatal(err)
		}
		if rows := env.commitRows(t); len(rows) != 0 {
			t.Fatalf("commit rows after the sweep past abortRetention: %v", rows)
		}
		// The committer dies after the locks; a reader past the lease
		// meets one of them (aborts the transaction, rolls that lock
		// back); the sweep, past abortRetention, rolls back the locks the
		// intents name before deleting the aborted commit row.
		fs := faultstore.New(env.inner)
		dead := env.vwrap(t, fs, env.wrapOptions)
		gs := env.oneGroup(t, dead)
		fs.CrashAt(3, false) // the record table, the locks and intents, the commit point
		if err := dead.Commit(ctx, gs, nil); !errors.Is(err, txn.ErrUnknownOutcome) {
			t.Fatalf("commit with a crash at the commit point: %v", err)
		}
		reader := env.vwrap(t, env.inner, txn.Options{Now: func() time.Time { return time.Now().Add(2 * txn.DefaultLease) }})
		if e, err := reader.Get(ctx, env.acct, "q", "a", nil); err != nil || e.Properties["bal"].Int() != 100 {
			t.Fatalf("a past the lease: %v %v", e, err)
		}
		if _, extra := env.stateQ(t, ctx, env.inner); extra != "intent,intent,intent,lock on b,lock on c,lock on d" {
			t.Fatalf("raw store after one roll-back: %q", extra)
		}
		if rows := env.commitRows(t); rows["aborted"] != 1 {
			t.Fatalf("commit rows after the reader's abort: %v", rows)
		}
		if _, err := sweep.Recover(ctx); err != nil {
			t.Fatal(err)
		}
		if raw, extra := env.stateQ(t, ctx, env.inner); classifyQ(raw) != "old" || extra != "" {
			t.Fatalf("raw store after the sweep: %v %q", raw, extra)
		}
		if rows := env.commitRows(t); len(rows) != 0 {
			t.Fatalf("commit rows after the sweep: %v", rows)
		}
		// Committed, after all that.
		if err := s.Commit(ctx, env.oneGroup(t, s), nil); err != nil {
			t.Fatal(err)
		}
		if got, extra := env.stateQ(t, ctx, env.inner); classifyQ(got) != "new" || extra != "" {
			t.Fatalf("raw store after the commit: %v %q", got, extra)
		}
	})
}

// crashInline runs one inline commit (oneGroup) in tables of its own
// (txns and acct with suffix; env names them from then on) over a fault
// store that crashes at request n (applied: the request lands and its
// reply is lost), and returns the requests Commit sent and its error.
func (env *mvccEnv) crashInline(t *testing.T, txns, acct, suffix string, n int, applied bool) (int, error) {
	t.Helper()
	env.txns, env.acct = txns+suffix, acct+suffix
	if err := env.inner.CreateTable(context.Background(), env.acct); err != nil {
		t.Fatal(err)
	}
	env.rowsQ(t)
	fs := faultstore.New(env.inner)
	s := env.vwrap(t, fs, env.wrapOptions)
	gs := env.oneGroup(t, s)
	fs.CrashAt(n, applied)
	err := s.Commit(context.Background(), gs, nil)
	return fs.Requests(), err
}

// incrementA reads row q/a of the account table through s and commits
// its balance plus one, conditional on the ETag read: Commit's error
// (a conflict when another commit came between), and the read's.
func (env *mvccEnv) incrementA(ctx context.Context, s *txn.Store) (commitErr, readErr error) {
	e, err := s.Get(ctx, env.acct, "q", "a", nil)
	if err != nil {
		return nil, err
	}
	return s.Commit(ctx, []txn.Group{{Table: env.acct, Ops: []storage.Operation{{Kind: storage.OpUpdate, IfMatch: e.ETag,
		Entity: &storage.Entity{PartitionKey: "q", RowKey: "a", Properties: storage.Properties{"bal": storage.Int64(e.Properties["bal"].Int() + 1)}}}}}}, nil), nil
}
