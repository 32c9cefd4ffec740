package txn_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/catalog/txn"
	"github.com/sqlgw/sqlgw/storage"
)

// resetOnce fails the first request of one step of a commit with the
// error the Table store reports for a connection reset on a write
// (storage.ErrOutcomeUnknown), the request applied first (its answer
// lost) or dropped, and passes every other request: a store that drops
// one connection, as Azurite did under load. Steps:
//
//   - "intents": a batch of the record's partition (the record and the
//     intents);
//   - "locks": a write of the rows' table before the commit point (the
//     lock batches; an inline transaction's one batch of locks and
//     intents);
//   - "commit": the commit point's batch (the clock and the commit row);
//   - "resolve": a write of the rows' table after the commit point.
type resetOnce struct {
	storage.Store
	acct, txns string
	step       string
	applied    bool

	mu    sync.Mutex
	sent  bool // the commit point was sent
	fired bool
}

var errReset = fmt.Errorf("%w: write tcp 127.0.0.1:40000->127.0.0.1:10002: connection reset by peer (test)", storage.ErrOutcomeUnknown)

// hit reports whether a write of table (batch ops, nil for a single
// write) fails, and notes the commit point's batch.
func (r *resetOnce) hit(table string, ops []storage.Operation) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	step := ""
	switch {
	case table == r.txns && len(ops) > 0 && ops[0].Entity.PartitionKey == "clock":
		for _, op := range ops {
			if op.Kind == storage.OpInsert && strings.HasPrefix(op.Entity.RowKey, "c-") {
				step = "commit"
			}
		}
	case table == r.txns && len(ops) > 0:
		step = "intents"
	case table == r.acct && !r.sent:
		step = "locks"
	case table == r.acct:
		step = "resolve"
	}
	if step == "commit" {
		r.sent = true
	}
	if r.fired || step != r.step {
		return false
	}
	r.fired = true
	return true
}

func (r *resetOnce) Batch(ctx context.Context, table string, ops []storage.Operation) ([]storage.ETag, error) {
	if !r.hit(table, ops) {
		return r.Store.Batch(ctx, table, ops)
	}
	if r.applied {
		r.Store.Batch(ctx, table, ops)
	}
	return nil, errReset
}

func (r *resetOnce) Insert(ctx context.Context, table string, e *storage.Entity) (storage.ETag, error) {
	if !r.hit(table, nil) {
		return r.Store.Insert(ctx, table, e)
	}
	if r.applied {
		r.Store.Insert(ctx, table, e)
	}
	return "", errReset
}

func (r *resetOnce) Update(ctx context.Context, table string, e *storage.Entity, mode storage.UpdateMode, ifMatch storage.ETag) (storage.ETag, error) {
	if !r.hit(table, nil) {
		return r.Store.Update(ctx, table, e, mode, ifMatch)
	}
	if r.applied {
		r.Store.Update(ctx, table, e, mode, ifMatch)
	}
	return "", errReset
}

// TestStoreFailureAtEachStep: a commit whose store drops one write
// (storage.ErrOutcomeUnknown) at each step, applied or not, on the
// embedded store without its atomic batch and on Azurite, through the
// record (11 partitions) and the inline path (one partition). Before the
// commit point (the intent and lock batches) the commit is a definite
// abort: ErrStoreFailed (so ErrAborted), neither ErrUnknownOutcome nor
// the store's ErrOutcomeUnknown (the gateway answered 1180 for it), the
// transaction aborted before Commit returns (an aborted commit row, no
// lock left on a row: another writer goes on at once), nothing applied.
// At the commit point the batch is read back: committed when it landed,
// else aborted (ErrStoreFailed). After it, committed. In every case the
// data is all or nothing, for a reader at once and after the sweep.
func TestStoreFailureAtEachStep(t *testing.T) {
	forEachVersionedStore(t, func(t *testing.T, env *mvccEnv) {
		ctx := context.Background()
		for _, path := range []string{"record", "inline"} {
			for _, step := range []string{"intents", "locks", "commit", "resolve"} {
				if path == "inline" && step == "intents" {
					continue // the intents ride in the locks' batch
				}
				for _, applied := range []bool{false, true} {
					name := fmt.Sprintf("%s/%s/applied=%v", path, step, applied)
					// Each case on fresh tables of the same store.
					e := newEnv(t, env.inner, env.name)
					if path == "inline" {
						e.rowsQ(t)
					}
					rs := &resetOnce{Store: e.inner, acct: e.acct, txns: e.txns, step: step, applied: applied}
					s := e.wrap(rs)
					var gs []txn.Group
					if path == "record" {
						gs = e.transferOps(t, s)
					} else {
						gs = e.oneGroup(t, s)
					}
					err := s.Commit(ctx, gs, nil)
					if !rs.fired {
						t.Fatalf("%s: no request of the step failed", name)
					}
					if errors.Is(err, txn.ErrUnknownOutcome) || errors.Is(err, storage.ErrOutcomeUnknown) {
						t.Fatalf("%s: commit: %v, an unknown outcome although the store answered", name, err)
					}
					want := "new"
					switch {
					case step == "intents" || step == "locks" || step == "commit" && !applied:
						want = "old"
						if !errors.Is(err, txn.ErrStoreFailed) || !errors.Is(err, txn.ErrAborted) {
							t.Fatalf("%s: commit: %v, want ErrStoreFailed (aborted, nothing applied)", name, err)
						}
						if n := e.commitRows(t); n["aborted"] != 1 || n["committed"] != 0 {
							t.Fatalf("%s: commit rows %v when Commit returned, want the abort", name, n)
						}
					case err != nil:
						t.Fatalf("%s: commit: %v, want committed", name, err)
					}
					// A reader at once (no lease to wait for), then after
					// the sweep past the lease.
					other := e.wrap(e.inner)
					if got := e.outcome(t, path, other); got != want {
						t.Fatalf("%s (commit: %v): a reader sees %s, want %s", name, err, got, want)
					}
					if want == "old" {
						// No lock of the aborted transaction is left in
						// the way of a writer.
						if left := e.rawLeft(t); left != "" {
							t.Fatalf("%s: the abort left %s", name, left)
						}
						pk, rk := "p0", "r"
						if path == "inline" {
							pk, rk = "q", "a"
						}
						cur, gerr := other.Get(ctx, e.acct, pk, rk, nil)
						if gerr != nil {
							t.Fatal(gerr)
						}
						if _, uerr := other.Update(ctx, e.acct, cur, storage.Replace, cur.ETag); uerr != nil {
							t.Fatalf("%s: a write of %s after the abort: %v", name, pk, uerr)
						}
					}
					later := txn.Wrap(e.inner, e.txns, txn.Options{Now: func() time.Time { return time.Now().Add(2 * txn.DefaultLease) }})
					if _, rerr := later.Recover(ctx); rerr != nil {
						t.Fatalf("%s: recover: %v", name, rerr)
					}
					if got := e.outcome(t, path, later); got != want {
						t.Fatalf("%s: after recovery %s, want %s", name, got, want)
					}
					if left := e.rawLeft(t); left != "" {
						t.Fatalf("%s: after recovery the store holds %s", name, left)
					}
					if left := leftoversIn(t, e.inner, e.txns); len(left) != 0 {
						t.Fatalf("%s: record table after recovery: %v", name, left)
					}
				}
			}
		}
	})
}

// outcome classifies what s reads of the transaction of path: transfer's
// accounts ("record"), oneGroup's partition q ("inline").
func (env *mvccEnv) outcome(t *testing.T, path string, s storage.Store) string {
	t.Helper()
	if path == "inline" {
		m, _ := env.stateQ(t, context.Background(), s)
		return classifyQ(m)
	}
	return classify(env.balances(t, context.Background(), s))
}

// rawLeft lists the locks and inline intents in env's table, read raw
// ("" when none).
func (env *mvccEnv) rawLeft(t *testing.T) string {
	t.Helper()
	var out []string
	q := &storage.Query{}
	for {
		page, err := env.inner.Query(context.Background(), env.acct, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Entities {
			if _, ok := e.Properties[txn.PropLock]; ok {
				out = append(out, "lock on "+e.PartitionKey+"/"+e.RowKey)
			}
			if strings.HasPrefix(e.RowKey, "\u00ffi") {
				out = append(out, "intent "+e.PartitionKey)
			}
		}
		if page.Continuation == "" {
			return strings.Join(out, ",")
		}
		q.Continuation = page.Continuation
	}
}
