package txn_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/catalog/txn"
	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/faultstore"
)

// Review tests of the inline path (inline.go).

// TestReviewInlineInsertOverTombstones: rows deleted by one inline commit
// are inserted again by the next, four of them at once: every lock is an
// insert over a tombstone (the store's Batch turns each into a Merge on
// the tombstone after an ErrAlreadyExists), and the commit must succeed
// like the same inserts of new rows do.
func TestReviewInlineInsertOverTombstones(t *testing.T) {
	forEachVersionedStore(t, func(t *testing.T, env *mvccEnv) {
		ctx := context.Background()
		s := env.vwrap(t, env.inner, env.wrapOptions)
		rks := []string{"k1", "k2", "k3", "k4", "k5"}
		row := func(rk string, bal int64) *storage.Entity {
			return &storage.Entity{PartitionKey: "q", RowKey: rk, Properties: storage.Properties{"bal": storage.Int64(bal)}}
		}
		var ins, del []storage.Operation
		for _, rk := range rks {
			ins = append(ins, storage.Operation{Kind: storage.OpInsert, Entity: row(rk, 1)})
		}
		if err := s.Commit(ctx, []txn.Group{{Table: env.acct, Ops: ins}}, nil); err != nil {
			t.Fatal(err)
		}
		for _, rk := range rks {
			e, err := s.Get(ctx, env.acct, "q", rk, nil)
			if err != nil {
				t.Fatal(err)
			}
			del = append(del, storage.Operation{Kind: storage.OpDelete, IfMatch: e.ETag, Entity: &storage.Entity{PartitionKey: "q", RowKey: rk}})
		}
		if err := s.Commit(ctx, []txn.Group{{Table: env.acct, Ops: del}}, nil); err != nil {
			t.Fatal(err)
		}
		ins = ins[:0]
		for _, rk := range rks {
			ins = append(ins, storage.Operation{Kind: storage.OpInsert, Entity: row(rk, 2)})
		}
		if err := s.Commit(ctx, []txn.Group{{Table: env.acct, Ops: ins}}, nil); err != nil {
			t.Fatalf("inserting %d deleted rows again in one commit: %v", len(rks), err)
		}
		got, extra := env.stateQ(t, ctx, s)
		if fmt.Sprint(got) != "map[k1:2 k2:2 k3:2 k4:2 k5:2]" || extra != "" {
			t.Fatalf("after the inserts: %v %q", got, extra)
		}
	})
}

// TestReviewInlineSweepRacesResolution: an inline commit whose resolution
// is held past its lease while another gateway's sweep (its clock past the
// lease) rolls the locks forward from the intents and deletes the commit
// row; the committer's resolution then finds its locks gone. Commit
// returns nil, the rows hold the new values exactly once (a's history has
// one entry), readers and snapshots see the commit, nothing is left.
func TestReviewInlineSweepRacesResolution(t *testing.T) {
	forEachVersionedStore(t, func(t *testing.T, env *mvccEnv) {
		ctx := context.Background()
		env.rowsQ(t)
		sweep := env.vwrap(t, env.inner, txn.Options{Now: func() time.Time { return time.Now().Add(2 * txn.DefaultLease) }})
		var swept txn.RecoverStats
		var sweepErr error
		s := env.vwrap(t, pauseResolution{Store: env.inner, table: env.acct, once: &sync.Once{}, hook: func() {
			swept, sweepErr = sweep.Recover(ctx)
			// The sweep alone rolled the commit forward.
			if raw, extra := env.stateQ(t, ctx, env.inner); classifyQ(raw) != "new" || extra != "" {
				t.Errorf("raw store after the sweep, before the committer's resolution: %v %q", raw, extra)
			}
		}}, env.wrapOptions)
		before := snap(t, s)
		if err := s.Commit(ctx, env.oneGroup(t, s), nil); err != nil {
			t.Fatalf("commit: %v", err)
		}
		if sweepErr != nil {
			t.Fatal(sweepErr)
		}
		t.Logf("sweep: %+v", swept)
		after := snap(t, s)
		for _, r := range []*txn.Store{s, sweep, env.vwrap(t, env.inner, env.wrapOptions)} {
			if got, _ := env.stateQ(t, ctx, r); classifyQ(got) != "new" {
				t.Fatalf("after the commit: %v", got)
			}
			if got, _ := env.stateQ(t, after, r); classifyQ(got) != "new" {
				t.Fatalf("snapshot after the commit: %v", got)
			}
			if got, _ := env.stateQ(t, before, r); classifyQ(got) != "old" {
				t.Fatalf("snapshot before the commit: %v", got)
			}
		}
		if raw, extra := env.stateQ(t, ctx, env.inner); classifyQ(raw) != "new" || extra != "" {
			t.Fatalf("raw store: %v %q", raw, extra)
		}
		if _, err := s.Recover(ctx); err != nil {
			t.Fatal(err)
		}
		if rows := env.commitRows(t); rows["committed"] != 0 {
			t.Fatalf("commit rows left: %v", rows)
		}
	})
}

// TestReviewInlineAbortInManyPages: an inline commit aborted before its
// commit point (beforeCommit fails) in a partition of many rows (several
// pages): every lock removed, every intent deleted, the rows unchanged.
func TestReviewInlineAbortInManyPages(t *testing.T) {
	forEachVersionedStore(t, func(t *testing.T, env *mvccEnv) {
		if env.name == "azurite" {
			t.Skip("pebble only: 2,500 rows")
		}
		ctx := context.Background()
		s := env.vwrap(t, env.inner, env.wrapOptions)
		var ops []storage.Operation
		for i := 0; i < 2500; i++ {
			ops = append(ops, storage.Operation{Kind: storage.OpInsert, Entity: &storage.Entity{PartitionKey: "q", RowKey: fmt.Sprintf("r%05d", i),
				Properties: storage.Properties{"bal": storage.Int64(1)}}})
		}
		for _, b := range storage.SplitBatches(ops, storage.MaxBatchBytes/2) {
			if _, err := env.inner.Batch(ctx, env.acct, b); err != nil {
				t.Fatal(err)
			}
		}
		var upd []storage.Operation
		for _, rk := range []string{"r00000", "r01200", "r02499"} {
			e, err := s.Get(ctx, env.acct, "q", rk, nil)
			if err != nil {
				t.Fatal(err)
			}
			upd = append(upd, storage.Operation{Kind: storage.OpUpdate, IfMatch: e.ETag, Entity: &storage.Entity{PartitionKey: "q", RowKey: rk,
				Properties: storage.Properties{"bal": storage.Int64(7)}}})
		}
		upd = append(upd, storage.Operation{Kind: storage.OpInsert, Entity: &storage.Entity{PartitionKey: "q", RowKey: "r99999", Properties: storage.Properties{"bal": storage.Int64(7)}}})
		fail := errors.New("no")
		if err := s.Commit(ctx, []txn.Group{{Table: env.acct, Ops: upd}}, func() error { return fail }); !errors.Is(err, fail) {
			t.Fatalf("commit: %v", err)
		}
		n, locks, intents := 0, 0, 0
		q := &storage.Query{Partition: storage.Exactly("q")}
		for {
			page, err := env.inner.Query(ctx, env.acct, q)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range page.Entities {
				n++
				if _, ok := e.Properties[txn.PropLock]; ok {
					locks++
				}
				if len(e.RowKey) > 2 && e.RowKey[:3] == "\u00ffi" {
					intents++
				}
				if v, ok := e.Properties["bal"]; ok && v.Int() != 1 {
					t.Errorf("%s = %d after the abort", e.RowKey, v.Int())
				}
			}
			if page.Continuation == "" {
				break
			}
			q.Continuation = page.Continuation
		}
		if n != 2500 || locks != 0 || intents != 0 {
			t.Fatalf("after the abort: %d entities, %d locks, %d intents", n, locks, intents)
		}
	})
}

// TestReviewInlineCrashThenWriter stops an inline commit after its N-th
// request (dropped, or applied with the reply lost), for every N; then
// another gateway, its clock past the lease, writes row a (its value + 1000)
// through an inline commit of its own before any sweep, and then the sweep
// runs. The dead commit is all or nothing, the writer's commit is applied
// on top of what it read, a commit that returned nil is never rolled back,
// and nothing is left.
func TestReviewInlineCrashThenWriter(t *testing.T) {
	forEachVersionedStore(t, func(t *testing.T, env *mvccEnv) {
		ctx := context.Background()
		txns, acct := env.txns, env.acct
		later := func() time.Time { return time.Now().Add(2 * txn.DefaultLease) }
		run := func(n int, applied bool) int {
			total, err := env.crashInline(t, txns, acct, fmt.Sprintf("w%d%v", n, applied), n, applied)
			w := env.vwrap(t, env.inner, txn.Options{Now: later})
			var werr error
			for attempt := 0; attempt < 5; attempt++ {
				a, gerr := w.Get(ctx, env.acct, "q", "a", nil)
				if gerr != nil {
					t.Fatal(gerr)
				}
				werr = w.Commit(ctx, []txn.Group{{Table: env.acct, Ops: []storage.Operation{{Kind: storage.OpUpdate, IfMatch: a.ETag,
					Entity: &storage.Entity{PartitionKey: "q", RowKey: "a", Properties: storage.Properties{"bal": storage.Int64(a.Properties["bal"].Int() + 1000)}}}}}}, nil)
				if werr == nil {
					break
				}
			}
			if werr != nil {
				t.Fatalf("n=%d applied=%v: the writer: %v", n, applied, werr)
			}
			if _, rerr := w.Recover(ctx); rerr != nil {
				t.Fatal(rerr)
			}
			got, _ := env.stateQ(t, ctx, env.vwrap(t, env.inner, txn.Options{Now: later}))
			if got["a"] < 1000 {
				t.Fatalf("n=%d applied=%v: a = %d, the writer's commit lost", n, applied, got["a"])
			}
			got["a"] -= 1000
			c := classifyQ(got)
			switch {
			case c != "old" && c != "new":
				t.Fatalf("n=%d applied=%v (commit: %v): %s", n, applied, err, c)
			case err == nil && c != "new":
				t.Fatalf("n=%d applied=%v: commit succeeded, state %s", n, applied, c)
			case err != nil && !errors.Is(err, txn.ErrUnknownOutcome) && c != "old":
				t.Fatalf("n=%d applied=%v: commit failed (%v) but applied", n, applied, err)
			}
			if _, extra := env.stateQ(t, ctx, env.inner); extra != "" {
				t.Fatalf("n=%d applied=%v: left in the raw store: %q", n, applied, extra)
			}
			return total
		}
		total := run(0, false)
		for n := 1; n <= total; n++ {
			for _, applied := range []bool{false, true} {
				run(n, applied)
			}
		}
	})
}

// TestReviewInlineSnapshotRepeatable: while two gateways increment row a
// through inline commits (and a third resolves locks as a reader), every
// snapshot reads the same value of a each time it is read (by Get and by
// a query, through either gateway, before and after the commits it
// raced are resolved), and a later snapshot never reads less than an
// earlier one: a snapshot S sees exactly the commits C <= S.
func TestReviewInlineSnapshotRepeatable(t *testing.T) {
	forEachVersionedStore(t, func(t *testing.T, env *mvccEnv) {
		ctx := context.Background()
		env.rowsQ(t)
		gws := []*txn.Store{env.vwrap(t, env.inner, env.wrapOptions), env.vwrap(t, env.inner, env.wrapOptions)}
		deadline := time.Now().Add(1500 * time.Millisecond)
		var wg sync.WaitGroup
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func(s *txn.Store) {
				defer wg.Done()
				for time.Now().Before(deadline) {
					err, rerr := env.incrementA(ctx, s)
					if rerr != nil {
						t.Error(rerr)
						return
					}
					if err != nil && !errors.Is(err, storage.ErrPreconditionFailed) {
						t.Errorf("commit: %v", err)
						return
					}
				}
			}(gws[w%2])
		}
		type seen struct {
			ctx context.Context
			v   int64
		}
		var snaps []seen
		read := func(c context.Context, s *txn.Store, how int) int64 {
			if how == 0 {
				e, err := s.Get(c, env.acct, "q", "a", nil)
				if err != nil {
					t.Fatal(err)
				}
				return e.Properties["bal"].Int()
			}
			got, _ := env.stateQ(t, c, s)
			return got["a"]
		}
		for i := 0; time.Now().Before(deadline); i++ {
			s := gws[i%2]
			c := snap(t, s)
			v := read(c, s, i%2)
			if len(snaps) > 0 && v < snaps[len(snaps)-1].v {
				t.Errorf("snapshot %d reads %d, an earlier one %d", i, v, snaps[len(snaps)-1].v)
			}
			if v2 := read(c, gws[(i+1)%2], (i+1)%2); v2 != v {
				t.Errorf("snapshot %d reads %d, then %d", i, v, v2)
			}
			snaps = append(snaps, seen{c, v})
		}
		wg.Wait()
		for i, sn := range snaps {
			for how := 0; how < 2; how++ {
				if v := read(sn.ctx, gws[how], how); v != sn.v {
					t.Fatalf("snapshot %d read %d during the commits, %d after", i, sn.v, v)
				}
			}
		}
		t.Logf("%d snapshots, a = %d", len(snaps), read(ctx, gws[0], 0))
	})
}

// hookCommitPoint runs hook once around the first batch of the record
// table that inserts an inline commit row (the clock batch of the commit
// point): before it is sent, or after it landed with its reply replaced
// by lost (a timeout: the outcome unknown to the committer).
type hookCommitPoint struct {
	storage.Store
	table string
	once  *sync.Once
	after bool
	hook  func()
}

var errReplyLost = errors.New("review: reply lost")

func (h hookCommitPoint) Batch(ctx context.Context, tbl string, ops []storage.Operation) ([]storage.ETag, error) {
	point := false
	if tbl == h.table {
		for _, op := range ops {
			if op.Kind == storage.OpInsert && op.Entity.PartitionKey == "clock" && len(op.Entity.RowKey) > 3 && op.Entity.RowKey[:3] == "c-i" {
				point = true
			}
		}
	}
	if !point {
		return h.Store.Batch(ctx, tbl, ops)
	}
	fired := false
	if !h.after {
		h.once.Do(func() { fired = true; h.hook() })
		return h.Store.Batch(ctx, tbl, ops)
	}
	etags, err := h.Store.Batch(ctx, tbl, ops)
	h.once.Do(func() { fired = true; h.hook() })
	if fired && err == nil {
		return nil, errReplyLost
	}
	return etags, err
}

// TestReviewInlineAbortAtTheCommitPoint: a reader on another gateway,
// its clock past the lease, meets a lock of an inline transaction while
// the committer's clock batch is in flight. Before the batch lands, the
// reader's abort wins: the commit returns ErrAborted, and nothing of it
// is applied, for every reader and after the sweep. After the batch landed
// (its reply lost to the committer), the commit wins: the reader rolls
// the lock forward, and the committer learns the outcome from the commit
// row and returns nil, the commit applied.
func TestReviewInlineAbortAtTheCommitPoint(t *testing.T) {
	forEachVersionedStore(t, func(t *testing.T, env *mvccEnv) {
		ctx := context.Background()
		env.rowsQ(t)
		later := txn.Options{Now: func() time.Time { return time.Now().Add(2 * txn.DefaultLease) }}
		for _, after := range []bool{false, true} {
			reader := env.vwrap(t, env.inner, later)
			var readA int64
			s := env.vwrap(t, hookCommitPoint{Store: env.inner, table: env.txns, once: &sync.Once{}, after: after, hook: func() {
				e, err := reader.Get(ctx, env.acct, "q", "a", nil)
				if err != nil {
					t.Error(err)
					return
				}
				readA = e.Properties["bal"].Int()
			}}, env.wrapOptions)
			base, _ := env.stateQ(t, ctx, s)
			err := s.Commit(ctx, env.oneGroup(t, s), nil)
			got, _ := env.stateQ(t, ctx, env.vwrap(t, env.inner, later))
			if !after {
				if !errors.Is(err, txn.ErrAborted) {
					t.Fatalf("the reader aborted first: commit %v, want ErrAborted", err)
				}
				if readA != base["a"] || fmt.Sprint(got) != fmt.Sprint(base) {
					t.Fatalf("aborted: the reader read a = %d, then %v; before: %v", readA, got, base)
				}
			} else {
				if err != nil {
					t.Fatalf("the commit point landed first: commit %v, want nil", err)
				}
				if readA != base["a"]-10 || got["a"] != base["a"]-10 || got["c"] != base["c"]+10 {
					t.Fatalf("committed: the reader read a = %d, then %v; before: %v", readA, got, base)
				}
			}
			if _, extra := env.stateQ(t, ctx, env.inner); extra != "" {
				t.Fatalf("left in the raw store: %q", extra)
			}
		}
	})
}

// TestReviewInlineUpsertCrashAtEveryRequest: an inline commit of Upserts
// (of an existing row and of a new one) and a Delete, stopped after its
// N-th request for every N; a reader past the lease, then the sweep past
// abortRetention: all or nothing, matching what Commit returned, and no
// lock, intent, placeholder or commit row left.
func TestReviewInlineUpsertCrashAtEveryRequest(t *testing.T) {
	forEachVersionedStore(t, func(t *testing.T, env *mvccEnv) {
		ctx := context.Background()
		txns, acct := env.txns, env.acct
		later := func() time.Time { return time.Now().Add(11 * time.Minute) }
		row := func(rk string, bal int64) *storage.Entity {
			return &storage.Entity{PartitionKey: "q", RowKey: rk, Properties: storage.Properties{"bal": storage.Int64(bal)}}
		}
		run := func(n int, applied bool) int {
			suffix := fmt.Sprintf("u%d%v", n, applied)
			env.txns, env.acct = txns+suffix, acct+suffix
			if err := env.inner.CreateTable(ctx, env.acct); err != nil {
				t.Fatal(err)
			}
			env.rowsQ(t)
			fs := faultstore.New(env.inner)
			s := env.vwrap(t, fs, env.wrapOptions)
			c, err := s.Get(ctx, env.acct, "q", "c", nil)
			if err != nil {
				t.Fatal(err)
			}
			gs := []txn.Group{{Table: env.acct, Ops: []storage.Operation{
				{Kind: storage.OpUpsert, Mode: storage.Replace, Entity: row("a", 5)},
				{Kind: storage.OpUpsert, Mode: storage.Replace, Entity: row("e", 6)},
				{Kind: storage.OpDelete, IfMatch: c.ETag, Entity: &storage.Entity{PartitionKey: "q", RowKey: "c"}},
			}}}
			fs.CrashAt(n, applied)
			err = s.Commit(ctx, gs, nil)
			total := fs.Requests()
			r := env.vwrap(t, env.inner, txn.Options{Now: later})
			got, _ := env.stateQ(t, ctx, r)
			var cl string
			switch fmt.Sprint(got) {
			case "map[a:100 b:100 c:100]":
				cl = "old"
			case "map[a:5 b:100 e:6]":
				cl = "new"
			default:
				t.Fatalf("n=%d applied=%v (commit: %v): mixed %v", n, applied, err, got)
			}
			switch {
			case err == nil && cl != "new":
				t.Fatalf("n=%d applied=%v: commit succeeded, state %s", n, applied, cl)
			case err != nil && !errors.Is(err, txn.ErrUnknownOutcome) && cl != "old":
				t.Fatalf("n=%d applied=%v: commit failed (%v) but applied", n, applied, err)
			}
			if _, rerr := r.Recover(ctx); rerr != nil {
				t.Fatal(rerr)
			}
			if raw, extra := env.stateQ(t, ctx, env.inner); fmt.Sprint(raw) != fmt.Sprint(got) || extra != "" {
				t.Fatalf("n=%d applied=%v: raw store %v %q, readers saw %v", n, applied, raw, extra, got)
			}
			if rows := env.commitRows(t); len(rows) != 0 {
				t.Fatalf("n=%d applied=%v: commit rows left after the sweep: %v", n, applied, rows)
			}
			return total
		}
		total := run(0, false)
		for n := 1; n <= total; n++ {
			for _, applied := range []bool{false, true} {
				run(n, applied)
			}
		}
	})
}

// TestReviewInlineSweptCommitRowThenCommit: the commit row of a finished
// inline commit, whose deletion the committer queued for its next clock
// batch, is deleted first by another gateway's sweep (its clock past the
// lease); the committer's next commit carries the deletion of a row that
// is gone: it succeeds, at the cost of one clock batch more (the
// deletion dropped after the store names the failed operation), on both
// backends (the batch error's index).
func TestReviewInlineSweptCommitRowThenCommit(t *testing.T) {
	forEachVersionedStore(t, func(t *testing.T, env *mvccEnv) {
		ctx := context.Background()
		env.rowsQ(t)
		fs := faultstore.New(env.inner)
		s := env.vwrap(t, fs, env.wrapOptions)
		if err := s.Commit(ctx, env.oneGroup(t, s), nil); err != nil {
			t.Fatal(err)
		}
		sweep := env.vwrap(t, env.inner, txn.Options{Now: func() time.Time { return time.Now().Add(2 * txn.DefaultLease) }})
		if _, err := sweep.Recover(ctx); err != nil {
			t.Fatal(err)
		}
		if rows := env.commitRows(t); len(rows) != 0 {
			t.Fatalf("commit rows after the sweep: %v", rows)
		}
		a, err := s.Get(ctx, env.acct, "q", "a", nil)
		if err != nil {
			t.Fatal(err)
		}
		fs.CrashAt(0, false)
		if err := s.Commit(ctx, []txn.Group{{Table: env.acct, Ops: []storage.Operation{{Kind: storage.OpUpdate, IfMatch: a.ETag,
			Entity: &storage.Entity{PartitionKey: "q", RowKey: "a", Properties: storage.Properties{"bal": storage.Int64(1)}}}}}}, nil); err != nil {
			t.Fatalf("the next commit: %v", err)
		}
		if n := fs.Requests(); n > 4 {
			t.Errorf("the next commit: %d requests, want at most 4", n)
		}
		if e, err := sweep.Get(ctx, env.acct, "q", "a", nil); err != nil || e.Properties["bal"].Int() != 1 {
			t.Fatalf("a: %v %v", e, err)
		}
	})
}

// TestReviewInlineCommitRowOfDroppedTable: an inline transaction left
// unresolved (committed, its committer gone before the resolution; or
// aborted by a reader with locks left) in a table that is then dropped:
// the sweep past the lease and abortRetention deletes its commit row (no
// partition left to finish), instead of keeping it, and querying the
// missing table, at every sweep forever.
func TestReviewInlineCommitRowOfDroppedTable(t *testing.T) {
	forEachVersionedStore(t, func(t *testing.T, env *mvccEnv) {
		ctx := context.Background()
		env.rowsQ(t)
		s := env.vwrap(t, dropResolution{env.inner}, env.wrapOptions)
		if err := s.Commit(ctx, env.oneGroup(t, s), nil); err != nil {
			t.Fatal(err)
		}
		if rows := env.commitRows(t); rows["committed"] != 1 {
			t.Fatalf("commit rows: %v", rows)
		}
		if err := env.inner.DeleteTable(ctx, env.acct); err != nil {
			t.Fatal(err)
		}
		sweep := env.vwrap(t, env.inner, txn.Options{Now: func() time.Time { return time.Now().Add(11 * time.Minute) }})
		if _, err := sweep.Recover(ctx); err != nil {
			t.Fatal(err)
		}
		if rows := env.commitRows(t); len(rows) != 0 {
			t.Fatalf("commit rows after the sweep, their table dropped: %v", rows)
		}
	})
}

// TestReviewInlineReadAroundTheCommitPoint: snapshots and filtered
// queries around an inline commit point, through another gateway: taken
// while the locks and intents are in place before the commit point, a
// snapshot sees nothing of the commit; taken after the commit point but
// before the resolution, it sees all of it (the commit row decides), and
// both still do after the resolution. A filter that only the new values
// pass (bal = 90, or 110) finds them at the later snapshot and now, and
// not at the earlier one; intents never show.
func TestReviewInlineReadAroundTheCommitPoint(t *testing.T) {
	forEachVersionedStore(t, func(t *testing.T, env *mvccEnv) {
		ctx := context.Background()
		env.rowsQ(t)
		reader := env.vwrap(t, env.inner, env.wrapOptions)
		var locked, committed context.Context
		var lockedSeen, committedSeen string
		filtered := func(c context.Context) string {
			page, err := reader.Query(c, env.acct, &storage.Query{Partition: storage.Exactly("q"),
				Filter: storage.Or{storage.Eq("bal", storage.Int64(90)), storage.Eq("bal", storage.Int64(110))}})
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, e := range page.Entities {
				out = append(out, fmt.Sprintf("%s=%d", e.RowKey, e.Properties["bal"].Int()))
			}
			return fmt.Sprint(out)
		}
		var lockedF, committedF string
		s := env.vwrap(t, pauseResolution{Store: env.inner, table: env.acct, once: &sync.Once{}, hook: func() {
			committed = snap(t, reader)
			got, extra := env.stateQ(t, committed, reader)
			if extra != "" {
				t.Errorf("a reader's query at a snapshot shows %q before the resolution", extra)
			}
			committedSeen = classifyQ(got)
			committedF = filtered(committed)
		}}, env.wrapOptions)
		gs := env.oneGroup(t, s)
		err := s.Commit(ctx, gs, func() error {
			locked = snap(t, reader)
			got, extra := env.stateQ(t, locked, reader)
			lockedSeen = classifyQ(got)
			for _, c := range []context.Context{locked, ctx} {
				if _, extra2 := env.stateQ(t, c, reader); extra+extra2 != "" {
					t.Errorf("a reader's query shows %q %q while the locks are in place", extra, extra2)
				}
			}
			lockedF = filtered(locked)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if lockedSeen != "old" || committedSeen != "new" || lockedF != "[]" || committedF != "[a=90 c=110]" {
			t.Fatalf("during the commit: before the commit point %s %s, after it %s %s", lockedSeen, lockedF, committedSeen, committedF)
		}
		for _, c := range []struct {
			ctx         context.Context
			want, wantF string
		}{{locked, "old", "[]"}, {committed, "new", "[a=90 c=110]"}, {ctx, "new", "[a=90 c=110]"}} {
			got, extra := env.stateQ(t, c.ctx, reader)
			if classifyQ(got) != c.want || extra != "" || filtered(c.ctx) != c.wantF {
				t.Fatalf("after the resolution, want %s: %v %q %s", c.want, got, extra, filtered(c.ctx))
			}
		}
	})
}

// TestReviewInlineLargeEntity: an inline commit of an entity near the
// store's size limit, over a previous value as large (its intent in two
// parts, the resolution's value and history both near the limit): the
// committer dies after the commit point, a reader rolls it forward from
// the intent's parts (and deletes them), and reads the new value whole;
// then an inline commit of it aborted before the commit point leaves it
// unchanged and nothing behind.
func TestReviewInlineLargeEntity(t *testing.T) {
	forEachVersionedStore(t, func(t *testing.T, env *mvccEnv) {
		ctx := context.Background()
		big := func(c byte) storage.Properties {
			p := storage.Properties{}
			for i := 0; i < 12; i++ {
				p[fmt.Sprintf("p%02d", i)] = storage.Binary([]byte(strings.Repeat(string(c), 61<<10)))
			}
			return p
		}
		if _, err := env.inner.Insert(ctx, env.acct, &storage.Entity{PartitionKey: "q", RowKey: "big", Properties: big('x')}); err != nil {
			t.Fatal(err)
		}
		s := env.vwrap(t, dropResolution{env.inner}, env.wrapOptions)
		e, err := s.Get(ctx, env.acct, "q", "big", nil)
		if err != nil {
			t.Fatal(err)
		}
		before := snap(t, s)
		if err := s.Commit(ctx, []txn.Group{{Table: env.acct, Ops: []storage.Operation{{Kind: storage.OpUpdate, IfMatch: e.ETag,
			Entity: &storage.Entity{PartitionKey: "q", RowKey: "big", Properties: big('y')}}}}}, nil); err != nil {
			t.Fatal(err)
		}
		if _, extra := env.stateQ(t, ctx, env.inner); extra != "intent,intent,lock on big" {
			t.Fatalf("raw store after the crash: %q (want a lock and an intent in two parts)", extra)
		}
		reader := env.vwrap(t, env.inner, env.wrapOptions)
		check := func(c context.Context, want byte) {
			t.Helper()
			got, err := reader.Get(c, env.acct, "q", "big", nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Properties) != 12 {
				t.Fatalf("%d properties", len(got.Properties))
			}
			for k, v := range got.Properties {
				if string(v.Bytes()) != strings.Repeat(string(want), 61<<10) {
					t.Fatalf("%s: %.10q..., want %c", k, v.Bytes(), want)
				}
			}
		}
		check(ctx, 'y')
		check(before, 'x')
		if _, extra := env.stateQ(t, ctx, env.inner); extra != "" {
			t.Fatalf("raw store after the roll-forward: %q", extra)
		}
		e, err = reader.Get(ctx, env.acct, "q", "big", nil)
		if err != nil {
			t.Fatal(err)
		}
		fail := errors.New("no")
		if err := reader.Commit(ctx, []txn.Group{{Table: env.acct, Ops: []storage.Operation{{Kind: storage.OpUpdate, IfMatch: e.ETag,
			Entity: &storage.Entity{PartitionKey: "q", RowKey: "big", Properties: big('z')}}}}}, func() error { return fail }); !errors.Is(err, fail) {
			t.Fatalf("commit: %v", err)
		}
		check(ctx, 'y')
		if _, extra := env.stateQ(t, ctx, env.inner); extra != "" {
			t.Fatalf("raw store after the abort: %q", extra)
		}
	})
}

// flaky fails a request now and then without a definite answer: dropped
// before the store, or applied with its reply lost.
type flaky struct {
	storage.Store
	mu   *sync.Mutex
	rnd  *rand.Rand
	rate float64
}

var errFlaky = fmt.Errorf("%w: review: flaky", storage.ErrUnavailable)

// roll returns whether to send the request and whether to fail it.
func (f flaky) roll() (send, fail bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.rnd.Float64() >= f.rate {
		return true, false
	}
	return f.rnd.Intn(2) == 0, true
}

func (f flaky) Batch(ctx context.Context, tbl string, ops []storage.Operation) ([]storage.ETag, error) {
	send, fail := f.roll()
	var etags []storage.ETag
	var err error
	if send {
		etags, err = f.Store.Batch(ctx, tbl, ops)
	}
	if fail {
		return nil, errFlaky
	}
	return etags, err
}

func (f flaky) Insert(ctx context.Context, tbl string, e *storage.Entity) (storage.ETag, error) {
	send, fail := f.roll()
	var etag storage.ETag
	var err error
	if send {
		etag, err = f.Store.Insert(ctx, tbl, e)
	}
	if fail {
		return "", errFlaky
	}
	return etag, err
}

func (f flaky) Update(ctx context.Context, tbl string, e *storage.Entity, m storage.UpdateMode, ifMatch storage.ETag) (storage.ETag, error) {
	send, fail := f.roll()
	var etag storage.ETag
	var err error
	if send {
		etag, err = f.Store.Update(ctx, tbl, e, m, ifMatch)
	}
	if fail {
		return "", errFlaky
	}
	return etag, err
}

func (f flaky) Delete(ctx context.Context, tbl, pk, rk string, ifMatch storage.ETag) error {
	send, fail := f.roll()
	var err error
	if send {
		err = f.Store.Delete(ctx, tbl, pk, rk, ifMatch)
	}
	if fail {
		return errFlaky
	}
	return err
}

func (f flaky) Get(ctx context.Context, tbl, pk, rk string, o *storage.GetOptions) (*storage.Entity, error) {
	if _, fail := f.roll(); fail {
		return nil, errFlaky
	}
	return f.Store.Get(ctx, tbl, pk, rk, o)
}

func (f flaky) Query(ctx context.Context, tbl string, q *storage.Query) (*storage.Page, error) {
	if _, fail := f.roll(); fail {
		return nil, errFlaky
	}
	return f.Store.Query(ctx, tbl, q)
}

// TestReviewInlineFlakyTransfers: two gateways on one store, whose
// requests fail now and then (dropped, or applied with the reply lost),
// move units between rows a, b and c of one partition through inline
// commits (short leases: a committer that gave up leaves its locks to the
// others), each transfer also counting itself in row n. Snapshot reads
// of a third, healthy gateway always find the sum 300, and so do its
// reads without a snapshot (one page: TestReviewQueryPageLaterCommit); at
// the end, after a reader and the sweep past the lease and abortRetention,
// the sum is 300, n counts every commit that returned nil (and at most
// those with an unknown outcome besides), and nothing is left.
func TestReviewInlineFlakyTransfers(t *testing.T) {
	forEachVersionedStore(t, func(t *testing.T, env *mvccEnv) {
		ctx := context.Background()
		env.rowsQ(t)
		if _, err := env.inner.Insert(ctx, env.acct, &storage.Entity{PartitionKey: "q", RowKey: "n", Properties: storage.Properties{"bal": storage.Int64(0)}}); err != nil {
			t.Fatal(err)
		}
		opts := txn.Options{Lease: 300 * time.Millisecond}
		var gws []*txn.Store
		for i := 0; i < 2; i++ {
			gws = append(gws, env.vwrap(t, flaky{Store: env.inner, mu: &sync.Mutex{}, rnd: rand.New(rand.NewSource(int64(i + 1))), rate: 0.05}, opts))
		}
		healthy := env.vwrap(t, env.inner, env.wrapOptions)
		var mu sync.Mutex
		committed, unknown, other := 0, 0, map[string]int{}
		deadline := time.Now().Add(time.Second)
		var wg sync.WaitGroup
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func(w int, s *txn.Store) {
				defer wg.Done()
				rks := []string{"a", "b", "c"}
				for i := 0; time.Now().Before(deadline); i++ {
					from, to := rks[(w+i)%3], rks[(w+i+1)%3]
					var es []*storage.Entity
					for _, rk := range []string{from, to, "n"} {
						e, err := s.Get(ctx, env.acct, "q", rk, nil)
						if err != nil {
							break
						}
						es = append(es, e)
					}
					if len(es) != 3 {
						continue
					}
					up := func(e *storage.Entity, d int64) storage.Operation {
						return storage.Operation{Kind: storage.OpUpdate, IfMatch: e.ETag, Entity: &storage.Entity{PartitionKey: "q", RowKey: e.RowKey,
							Properties: storage.Properties{"bal": storage.Int64(e.Properties["bal"].Int() + d)}}}
					}
					err := s.Commit(ctx, []txn.Group{{Table: env.acct, Ops: []storage.Operation{up(es[0], -1), up(es[1], 1), up(es[2], 1)}}}, nil)
					mu.Lock()
					switch {
					case err == nil:
						committed++
					case errors.Is(err, txn.ErrUnknownOutcome):
						unknown++
					default:
						k := "other"
						switch {
						case errors.Is(err, storage.ErrPreconditionFailed):
							k = "conflict"
						case errors.Is(err, txn.ErrAborted):
							k = "aborted"
						case errors.Is(err, storage.ErrUnavailable):
							k = "unavailable"
						}
						other[k]++
					}
					mu.Unlock()
				}
			}(w, gws[w%2])
		}
		sum := func(c context.Context, s *txn.Store) (int64, map[string]int64) {
			got, _ := env.stateQ(t, c, s)
			return got["a"] + got["b"] + got["c"], got
		}
		reads := 0
		for time.Now().Before(deadline) {
			c := snap(t, healthy)
			if n, got := sum(c, healthy); n != 300 {
				t.Errorf("a snapshot reads %v", got)
			}
			if n, got := sum(ctx, healthy); n != 300 {
				t.Errorf("a read without a snapshot: %v", got)
			}
			reads++
			time.Sleep(10 * time.Millisecond)
		}
		wg.Wait()
		later := env.vwrap(t, env.inner, txn.Options{Now: func() time.Time { return time.Now().Add(11 * time.Minute) }})
		n, got := sum(ctx, later)
		if _, err := later.Recover(ctx); err != nil {
			t.Fatal(err)
		}
		t.Logf("%d committed, %d unknown, others %v, %d reads; end %v", committed, unknown, other, reads, got)
		if n != 300 || got["n"] < int64(committed) || got["n"] > int64(committed+unknown) {
			t.Fatalf("after the transfers: %v (%d committed, %d unknown)", got, committed, unknown)
		}
		if raw, extra := env.stateQ(t, ctx, env.inner); fmt.Sprint(raw) != fmt.Sprint(got) || extra != "" {
			t.Fatalf("raw store: %v %q, readers %v", raw, extra, got)
		}
		if rows := env.commitRows(t); len(rows) != 0 {
			t.Fatalf("commit rows after the sweep: %v", rows)
		}
	})
}

// TestReviewQueryPageLaterCommit: a query page (no snapshot) meets the
// locks of transaction X (a gives 1 to b; inline, or through the record
// when X also writes partition p0) and an unlocked c. While the page is
// resolved, X commits, then Y (c gives 1 to a) commits too. Resolving the
// locked a from a whole re-read showed Y's value of a, but c as the page
// read it, before Y: a sum of 301, Y half seen. The page is read again at
// a snapshot taken when it met the lock (Query, queryLocked): on every
// store on which readers meet locks, the sum is 300, and the next read
// shows X and Y.
func TestReviewQueryPageLaterCommit(t *testing.T) {
	forEachLockingStore(t, func(t *testing.T, env *mvccEnv) {
		base := env.acct
		for _, path := range []string{"inline", "record"} {
			t.Run(path, func(t *testing.T) {
				ctx := context.Background()
				env.acct = base + path[:1]
				if err := env.inner.CreateTable(ctx, env.acct); err != nil {
					t.Fatal(err)
				}
				env.rowsQ(t)
				if _, err := env.inner.Insert(ctx, env.acct, ent("p0", 100)); err != nil {
					t.Fatal(err)
				}
				s := env.rwrap(t, env.inner)
				other := env.rwrap(t, env.inner)
				get := func(s *txn.Store, pk, rk string) *storage.Entity {
					e, err := s.Get(ctx, env.acct, pk, rk, nil)
					if err != nil {
						t.Fatal(err)
					}
					return e
				}
				up := func(s *txn.Store, rk string, d int64) storage.Operation {
					e := get(s, "q", rk)
					return storage.Operation{Kind: storage.OpUpdate, IfMatch: e.ETag, Entity: &storage.Entity{PartitionKey: "q", RowKey: rk,
						Properties: storage.Properties{"bal": storage.Int64(e.Properties["bal"].Int() + d)}}}
				}
				x := []txn.Group{{Table: env.acct, Ops: []storage.Operation{up(s, "a", -1), up(s, "b", 1)}}}
				if path == "record" {
					p0 := get(s, "p0", "r")
					x = append(x, txn.Group{Table: env.acct, Ops: []storage.Operation{{Kind: storage.OpUpdate, IfMatch: p0.ETag, Entity: ent("p0", 100)}}})
				}
				hold, done := make(chan struct{}), make(chan error, 1)
				go func() { done <- s.Commit(ctx, x, func() error { <-hold; return nil }) }()
				waitLock(t, env.inner, env.acct, "b")
				var yErr error
				ran := false
				// X and Y commit at the reader's first read after the page
				// (the clock's aside): the locked entity's, or its
				// transaction's record.
				reader := env.rwrap(t, hookGet{Store: env.inner, once: &sync.Once{}, hook: func() {
					ran = true
					close(hold)
					if err := <-done; err != nil {
						t.Error(err)
					}
					yErr = other.Commit(ctx, []txn.Group{{Table: env.acct, Ops: []storage.Operation{up(other, "c", -1), up(other, "a", 1)}}}, nil)
				}})
				got, _ := env.stateQ(t, ctx, reader)
				if !ran {
					t.Fatal("the reader's page did not read the locked entities again")
				}
				if yErr != nil {
					t.Fatal(yErr)
				}
				if sum := got["a"] + got["b"] + got["c"]; sum != 300 {
					t.Fatalf("one page: %v, sum %d", got, sum)
				}
				if after, _ := env.stateQ(t, ctx, s); fmt.Sprint(after) != "map[a:100 b:101 c:99]" {
					t.Fatalf("after X and Y: %v", after)
				}
			})
		}
	})
}

// holdLocks holds the lock writes (a batch, or one entity's update) of
// partition pk until release is closed.
type holdLocks struct {
	storage.Store
	pk      string
	release chan struct{}
}

func (h holdLocks) hold(e *storage.Entity) {
	if _, lock := e.Properties[txn.PropLock]; lock && e.PartitionKey == h.pk {
		<-h.release
	}
}

func (h holdLocks) Batch(ctx context.Context, tbl string, ops []storage.Operation) ([]storage.ETag, error) {
	h.hold(ops[0].Entity)
	return h.Store.Batch(ctx, tbl, ops)
}

func (h holdLocks) Update(ctx context.Context, tbl string, e *storage.Entity, m storage.UpdateMode, ifMatch storage.ETag) (storage.ETag, error) {
	h.hold(e)
	return h.Store.Update(ctx, tbl, e, m, ifMatch)
}

func (h holdLocks) Snapshot(ctx context.Context) (storage.Snapshot, error) {
	return storage.ForwardSnapshot(ctx, h.Store)
}

// TestReviewQueryPageHalfLocked: transaction X (through the record) moves
// 1 from q/a to p0; a query page of every partition (no snapshot) reads
// a locked and p0 not yet locked (its lock batch is held), and X commits
// at the reader's first read after the page. The page's view of p0 is
// before X, so a showing X (its lock rolled forward, or the intent's
// value) would count the unit twice or not at all: a lock's transaction
// found committed after the page cannot be shown from the page alone. The
// page read again at a snapshot shows X wholly or not at all: the total
// stays 1300.
func TestReviewQueryPageHalfLocked(t *testing.T) {
	forEachLockingStore(t, func(t *testing.T, env *mvccEnv) {
		ctx := context.Background()
		env.rowsQ(t)
		hold := holdLocks{Store: env.inner, pk: "p0", release: make(chan struct{})}
		s := env.rwrap(t, hold)
		a, err := s.Get(ctx, env.acct, "q", "a", nil)
		if err != nil {
			t.Fatal(err)
		}
		p0, err := s.Get(ctx, env.acct, "p0", "r", nil)
		if err != nil {
			t.Fatal(err)
		}
		x := []txn.Group{
			{Table: env.acct, Ops: []storage.Operation{{Kind: storage.OpUpdate, IfMatch: a.ETag, Entity: &storage.Entity{PartitionKey: "q", RowKey: "a",
				Properties: storage.Properties{"bal": storage.Int64(99)}}}}},
			{Table: env.acct, Ops: []storage.Operation{{Kind: storage.OpUpdate, IfMatch: p0.ETag, Entity: ent("p0", 101)}}},
		}
		done := make(chan error, 1)
		go func() { done <- s.Commit(ctx, x, nil) }()
		waitLock(t, env.inner, env.acct, "a")
		ran := false
		reader := env.rwrap(t, hookGet{Store: env.inner, once: &sync.Once{}, hook: func() {
			ran = true
			close(hold.release)
			if err := <-done; err != nil {
				t.Error(err)
			}
		}})
		sum := func(s storage.Store) (int64, map[string]int64) {
			page, err := s.Query(ctx, env.acct, &storage.Query{})
			if err != nil {
				t.Fatal(err)
			}
			if page.Continuation != "" {
				t.Fatal("more than one page")
			}
			n, got := int64(0), map[string]int64{}
			for _, e := range page.Entities {
				n += e.Properties["bal"].Int()
				got[e.PartitionKey+"/"+e.RowKey] = e.Properties["bal"].Int()
			}
			return n, got
		}
		n, got := sum(reader)
		if !ran {
			t.Fatal("the reader's page read nothing after the page")
		}
		if n != 1300 {
			t.Fatalf("one page: sum %d (q/a %d, p0/r %d)", n, got["q/a"], got["p0/r"])
		}
		if n, got := sum(s); n != 1300 || got["q/a"] != 99 || got["p0/r"] != 101 {
			t.Fatalf("after X: sum %d, %v", n, got)
		}
	})
}

// TestReviewGetLaterCommit: a Get without a snapshot (whole, or
// projected: then the locked entity is read again whole) meets the lock
// of transaction X (q/a gives 1 to q/b; inline, or through the record when
// X also writes p0), and X then Y (q/c gives 10 to q/a) commit right after
// the Get's first read. The Get reads one entity: it returns a value q/a
// held while it ran (before X, after X or after Y), whole, and the Gets
// after it never show less than it did (a Get that showed Y is followed
// by one of q/c showing Y, one that showed X by one of q/b showing X).
// Separate Gets are no cut, only monotonic: package doc, "Readers
// resolve".
func TestReviewGetLaterCommit(t *testing.T) {
	forEachLockingStore(t, func(t *testing.T, env *mvccEnv) {
		base := env.acct
		for _, path := range []string{"inline", "record"} {
			for _, sel := range [][]string{nil, {"bal"}} {
				name := path + "-whole"
				if sel != nil {
					name = path + "-projected"
				}
				t.Run(name, func(t *testing.T) {
					ctx := context.Background()
					env.acct = base + path[:1] + fmt.Sprint(len(sel))
					if err := env.inner.CreateTable(ctx, env.acct); err != nil {
						t.Fatal(err)
					}
					env.rowsQ(t)
					if _, err := env.inner.Insert(ctx, env.acct, ent("p0", 100)); err != nil {
						t.Fatal(err)
					}
					s := env.rwrap(t, env.inner)
					other := env.rwrap(t, env.inner)
					get := func(s storage.Store, pk, rk string, o *storage.GetOptions) *storage.Entity {
						e, err := s.Get(ctx, env.acct, pk, rk, o)
						if err != nil {
							t.Fatal(err)
						}
						return e
					}
					up := func(s *txn.Store, rk string, d int64) storage.Operation {
						e := get(s, "q", rk, nil)
						return storage.Operation{Kind: storage.OpUpdate, IfMatch: e.ETag, Entity: &storage.Entity{PartitionKey: "q", RowKey: rk,
							Properties: storage.Properties{"bal": storage.Int64(e.Properties["bal"].Int() + d), "k": storage.String(rk)}}}
					}
					x := []txn.Group{{Table: env.acct, Ops: []storage.Operation{up(s, "a", -1), up(s, "b", 1)}}}
					if path == "record" {
						p0 := get(s, "p0", "r", nil)
						x = append(x, txn.Group{Table: env.acct, Ops: []storage.Operation{{Kind: storage.OpUpdate, IfMatch: p0.ETag, Entity: ent("p0", 100)}}})
					}
					hold, done := make(chan struct{}), make(chan error, 1)
					go func() { done <- s.Commit(ctx, x, func() error { <-hold; return nil }) }()
					waitLock(t, env.inner, env.acct, "a")
					var yErr error
					ran := false
					reader := env.rwrap(t, hookGet{Store: env.inner, once: &sync.Once{}, hook: func() {
						ran = true
						close(hold)
						if err := <-done; err != nil {
							t.Error(err)
						}
						yErr = other.Commit(ctx, []txn.Group{{Table: env.acct, Ops: []storage.Operation{up(other, "c", -10), up(other, "a", 10)}}}, nil)
					}})
					var o *storage.GetOptions
					if sel != nil {
						o = &storage.GetOptions{Select: sel}
					}
					a := get(reader, "q", "a", o)
					if !ran {
						t.Fatal("the hook did not run")
					}
					if yErr != nil {
						t.Fatal(yErr)
					}
					bal := a.Properties["bal"].Int()
					_, k := a.Properties["k"]
					after := bal == 99 || bal == 109 // X's or Y's value, with k
					switch {
					case sel != nil && len(a.Properties) != 1:
						t.Fatalf("projected on bal: %v", a.Properties)
					case sel == nil && len(a.Properties) != map[bool]int{false: 1, true: 2}[after]:
						t.Fatalf("q/a reads %v: never its value", a.Properties)
					case bal != 100 && !after, sel == nil && after != k:
						t.Fatalf("q/a reads %v: never its value", a.Properties)
					}
					for _, rk := range []string{"c", "b"} {
						e := get(reader, "q", rk, nil)
						if bal == 109 && rk == "c" && e.Properties["bal"].Int() != 90 || bal >= 99 && bal != 100 && rk == "b" && e.Properties["bal"].Int() != 101 {
							t.Fatalf("q/a read %d, then q/%s %d", bal, rk, e.Properties["bal"].Int())
						}
					}
					t.Logf("q/a read %d", bal)
				})
			}
		}
	})
}

// TestReviewGetHidesVersions: on every store on which commits take the
// inline path or the record, a Get (whole or projected) after a commit
// returns the caller's properties only, never a version or a tombstone's
// marks, and a deleted row is not found, as Query shows them; the same
// with the commit's locks still in place (its resolution lost).
func TestReviewGetHidesVersions(t *testing.T) {
	forEachLockingStore(t, func(t *testing.T, env *mvccEnv) {
		ctx := context.Background()
		base := env.acct
		for _, resolved := range []bool{true, false} {
			t.Run(map[bool]string{true: "resolved", false: "locked"}[resolved], func(t *testing.T) {
				env.acct = base + map[bool]string{true: "r", false: "l"}[resolved]
				if err := env.inner.CreateTable(ctx, env.acct); err != nil {
					t.Fatal(err)
				}
				env.rowsQ(t)
				var committer storage.Store = env.inner
				if !resolved {
					committer = dropResolution{env.inner}
				}
				s := env.rwrap(t, committer)
				if err := s.Commit(ctx, env.oneGroup(t, s), nil); err != nil && resolved {
					t.Fatal(err)
				}
				if raw, extra := env.stateQ(t, ctx, env.inner); resolved != (extra == "") {
					t.Fatalf("raw store after the commit: %v %q", raw, extra)
				}
				reader := env.rwrap(t, env.inner)
				want, _ := env.stateQ(t, ctx, reader)
				if classifyQ(want) != "new" {
					t.Fatalf("query after the commit: %v", want)
				}
				for _, rk := range []string{"a", "b", "c", "d"} {
					for _, o := range []*storage.GetOptions{nil, {Select: []string{"bal"}}} {
						e, err := reader.Get(ctx, env.acct, "q", rk, o)
						if _, ok := want[rk]; !ok {
							if !errors.Is(err, storage.ErrNotFound) {
								t.Fatalf("Get %s (%v) of a deleted row: %v, %v", rk, o, e, err)
							}
							continue
						}
						if err != nil {
							t.Fatal(err)
						}
						if len(e.Properties) != 1 || e.Properties["bal"].Int() != want[rk] {
							t.Fatalf("Get %s (%v): %v, want bal %d only", rk, o, e.Properties, want[rk])
						}
					}
				}
				// MultiGet (multiget.go) hides and strips them as Get does.
				keys := []storage.EntityKey{{PK: "q", RK: "a"}, {PK: "q", RK: "b"}, {PK: "q", RK: "c"}, {PK: "q", RK: "d"}}
				for _, o := range []*storage.GetOptions{nil, {Select: []string{"bal"}}} {
					got, err := reader.MultiGet(ctx, env.acct, keys, o)
					if err != nil {
						t.Fatal(err)
					}
					for i, k := range keys {
						_, ok := want[k.RK]
						if e := got[i]; (e != nil) != ok || ok && (len(e.Properties) != 1 || e.Properties["bal"].Int() != want[k.RK]) {
							t.Fatalf("MultiGet %s (%v): %v, want bal %d only (present %v)", k.RK, o, e, want[k.RK], ok)
						}
					}
				}
			})
		}
	})
}

// TestReviewInlineDuplicateInsert: an inline commit inserting a row that
// exists (a duplicate key) fails as the store fails it, naming the group
// and operation (the gateway's 1062), and writes nothing, on both
// backends (the batch error's index); a tombstone is not a duplicate.
func TestReviewInlineDuplicateInsert(t *testing.T) {
	forEachVersionedStore(t, func(t *testing.T, env *mvccEnv) {
		ctx := context.Background()
		env.rowsQ(t)
		s := env.vwrap(t, env.inner, env.wrapOptions)
		a, err := s.Get(ctx, env.acct, "q", "a", nil)
		if err != nil {
			t.Fatal(err)
		}
		row := func(rk string, bal int64) *storage.Entity {
			return &storage.Entity{PartitionKey: "q", RowKey: rk, Properties: storage.Properties{"bal": storage.Int64(bal)}}
		}
		err = s.Commit(ctx, []txn.Group{
			{Table: env.acct, Ops: []storage.Operation{{Kind: storage.OpUpdate, IfMatch: a.ETag, Entity: row("a", 1)}}},
			{Table: env.acct, Ops: []storage.Operation{{Kind: storage.OpInsert, Entity: row("z", 1)}, {Kind: storage.OpInsert, Entity: row("b", 1)}}},
		}, nil)
		var ge *txn.GroupError
		var be *storage.BatchError
		if !errors.As(err, &ge) || ge.Group != 1 || !errors.As(err, &be) || be.Index != 1 || !errors.Is(err, storage.ErrAlreadyExists) {
			t.Fatalf("insert of an existing row: %v, want already exists in group 1, operation 1", err)
		}
		if raw, extra := env.stateQ(t, ctx, env.inner); classifyQ(raw) != "old" || extra != "" {
			t.Fatalf("raw store after the duplicate: %v %q", raw, extra)
		}
		if rows := env.commitRows(t); len(rows) != 0 {
			t.Fatalf("commit rows: %v", rows)
		}
	})
}
