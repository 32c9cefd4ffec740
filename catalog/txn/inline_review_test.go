package txn_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/catalog/txn"
	"github.com/sqlgw/sqlgw/storage"
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
