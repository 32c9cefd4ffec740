package wire

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"

	"github.com/sqlgw/sqlgw/sqlgw/engine"
	"github.com/sqlgw/sqlgw/sqlgw/metrics"
	"github.com/sqlgw/sqlgw/sqlgw/mysqlerr"
)

func retryHandler() *Handler { return &Handler{GW: &engine.Gateway{Metrics: metrics.New()}} }

// attempts is a statement whose attempts fail with errs in turn, then
// succeed; check runs before each.
type attempts struct {
	errs  []error
	n     atomic.Int32
	check func(n int)
}

func (a *attempts) run(sent *bool) error {
	n := int(a.n.Add(1)) - 1
	if a.check != nil {
		a.check(n)
	}
	if n < len(a.errs) {
		return a.errs[n]
	}
	return nil
}

// retryAsync retries, on connection conn, a statement whose first attempt
// failed with first; the result arrives on the channel.
func retryAsync(h *Handler, conn uint32, a *attempts, first error) chan error {
	out := make(chan error, 1)
	go func() { out <- h.retry(context.Background(), conn, "", a.run, first, mysqlerr.ConflictKey{}) }()
	return out
}

// TestRetryWaitsForRowTurn: a statement that conflicted on a row runs
// again only when the statement holding the row's turn is done, holds the
// turn while it runs (also through another conflict on the same row), and
// moves to another row's queue when it conflicts there.
func TestRetryWaitsForRowTurn(t *testing.T) {
	h := retryHandler()
	holder, _, _ := h.rows.acquire(context.Background(), rowA, "")
	a := &attempts{errs: []error{mysqlerr.ConflictOn("again", rowA), mysqlerr.ConflictOn("elsewhere", rowB)}}
	a.check = func(n int) {
		want := rowA
		if n == 2 {
			want = rowB
		}
		if held, _ := h.rows.state(want); !held {
			t.Errorf("attempt %d runs without the turn of %v", n, want)
		}
		if n == 2 {
			if held, _ := h.rows.state(rowA); held {
				t.Errorf("attempt %d still holds the turn of the first row", n)
			}
		}
	}
	done := retryAsync(h, 7, a, mysqlerr.ConflictOn("first", rowA))
	eventually(t, "the retry is queued", waiting(&h.rows, rowA, 1))
	if n := a.n.Load(); n != 0 {
		t.Fatalf("%d attempts ran while another statement held the row", n)
	}
	holder()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := a.n.Load(); n != 3 {
		t.Fatalf("%d attempts, want 3", n)
	}
	if st := h.GW.Metrics.Retries(); st != (metrics.RetryStats{Retries: 3, Waits: 1}) {
		t.Errorf("counters %+v", st)
	}
	if len(h.rows.m) != 0 || len(h.waits) != 0 {
		t.Errorf("left behind: queues %v, waits %v", h.rows.m, h.waits)
	}
}

// TestRetryStops: a statement waiting for its row's turn stops at once
// when KILL [QUERY] names its connection (context.Canceled, which the
// error steps make 1317 or 1927), when the server shuts down (1053) and
// when the retry window ends (the conflict, 1213); nothing else stops it.
func TestRetryStops(t *testing.T) {
	first := mysqlerr.ConflictOn("first", rowA)
	for _, tc := range []struct {
		name string
		stop func(h *Handler)
		want func(error) bool
	}{
		{"kill query", func(h *Handler) { h.killed("KILL QUERY 7", nil) }, func(err error) bool { return errors.Is(err, context.Canceled) }},
		{"kill connection", func(h *Handler) { h.killed("KILL 7", nil) }, func(err error) bool { return errors.Is(err, context.Canceled) }},
		{"shutdown", func(h *Handler) { h.Drain(time.Second) }, func(err error) bool {
			var se *mysql.SQLError
			return errors.As(err, &se) && se.Num == mysql.ERServerShutdown
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := retryHandler()
			holder, _, _ := h.rows.acquire(context.Background(), rowA, "")
			defer holder()
			a := &attempts{}
			done := retryAsync(h, 7, a, first)
			eventually(t, "the retry is queued", waiting(&h.rows, rowA, 1))
			// Neither a KILL of another connection nor a failed KILL stops it.
			h.killed("KILL QUERY 8", nil)
			h.killed("KILL QUERY 7", errors.New("denied"))
			select {
			case err := <-done:
				t.Fatalf("stopped by another connection's KILL: %v", err)
			case <-time.After(20 * time.Millisecond):
			}
			tc.stop(h)
			if err := <-done; !tc.want(err) {
				t.Fatalf("stopped with %v", err)
			}
			if n := a.n.Load(); n != 0 {
				t.Errorf("%d attempts after it was stopped", n)
			}
			if _, w := h.rows.state(rowA); w != 0 {
				t.Errorf("%d still waiting", w)
			}
		})
	}
	// The client sees a killed wait as MySQL's interruption errors.
	h := retryHandler()
	killedWait := h.stopped(context.Canceled, first)
	var se *mysql.SQLError
	if err := h.kills.interruptedError(7, killedWait); !errors.As(err, &se) || se.Num != erQueryInterrupted {
		t.Errorf("KILL QUERY: %v, want 1317", err)
	}
	h.kills.noteKill("KILL 7")
	if err := h.kills.interruptedError(7, killedWait); !errors.As(err, &se) || se.Num != erConnectionKilled {
		t.Errorf("KILL CONNECTION: %v, want 1927", err)
	}
	t.Run("window", func(t *testing.T) {
		defer func(w time.Duration) { retryWindow = w }(retryWindow)
		retryWindow = 30 * time.Millisecond
		h := retryHandler()
		holder, _, _ := h.rows.acquire(context.Background(), rowA, "")
		defer holder()
		if err := <-retryAsync(h, 7, &attempts{}, first); err != first {
			t.Fatalf("after the window: %v, want the conflict", err)
		}
		if st := h.GW.Metrics.Retries(); st.GiveUps != 1 || st.Retries != 0 {
			t.Errorf("counters %+v", st)
		}
	})
}

// TestRetryUnknownRow: a conflict that names no row (or a copy of one,
// which lost its key) is retried after a backoff, as before the queues.
func TestRetryUnknownRow(t *testing.T) {
	h := retryHandler()
	a := &attempts{errs: []error{mysqlerr.Conflict("no row")}}
	if err := h.retry(context.Background(), 7, "", a.run, mysqlerr.Conflict("no row either"), mysqlerr.ConflictKey{}); err != nil {
		t.Fatal(err)
	}
	if st := h.GW.Metrics.Retries(); st != (metrics.RetryStats{Retries: 2, Backoffs: 2}) {
		t.Errorf("counters %+v", st)
	}
	// A statement that fails otherwise, or after sending something, is
	// not retried again.
	other := errors.New("other")
	if err := h.retry(context.Background(), 7, "", (&attempts{errs: []error{other}}).run, mysqlerr.Conflict("x"), mysqlerr.ConflictKey{}); err != other {
		t.Fatalf("got %v", err)
	}
}

// TestRetryHint: while a row's queue exists, a statement text that
// conflicted on it names it, and the next statement of that text waits
// for the row's turn before its first attempt; the hint goes with the
// queue.
func TestRetryHint(t *testing.T) {
	h := retryHandler()
	const text = "UPDATE d.t SET v = v + 1 WHERE id = 1"
	holder, _, _ := h.rows.acquire(context.Background(), rowA, "")
	first := retryAsync2(h, 7, text, &attempts{}, mysqlerr.ConflictOn("first", rowA), mysqlerr.ConflictKey{})
	eventually(t, "the retry is queued", waiting(&h.rows, rowA, 1))
	if key, ok := h.rows.hinted(text); !ok || key != rowA {
		t.Fatalf("hint %v %v", key, ok)
	}
	if _, ok := h.rows.hinted("UPDATE d.t SET v = v + 1 WHERE id = 2"); ok {
		t.Fatal("another text is hinted")
	}
	a := &attempts{}
	a.check = func(n int) {
		if held, _ := h.rows.state(rowA); !held {
			t.Errorf("the hinted first attempt runs without the turn")
		}
	}
	second := retryAsync2(h, 8, text, a, nil, rowA)
	eventually(t, "the hinted statement is queued", waiting(&h.rows, rowA, 2))
	holder()
	for _, done := range []chan error{first, second} {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if n := a.n.Load(); n != 1 {
		t.Errorf("hinted statement: %d attempts, want 1", n)
	}
	if _, ok := h.rows.hinted(text); ok || len(h.rows.hints) != 0 || h.rows.nhints.Load() != 0 {
		t.Errorf("hints left after the queue went: %v", h.rows.hints)
	}
}

func retryAsync2(h *Handler, conn uint32, text string, a *attempts, first error, hint mysqlerr.ConflictKey) chan error {
	out := make(chan error, 1)
	go func() { out <- h.retry(context.Background(), conn, text, a.run, first, hint) }()
	return out
}

// TestHintOf: the hint text of a prepared statement's execution shows its
// parameters: executions with other values hint at other rows.
func TestHintOf(t *testing.T) {
	const stmt = "UPDATE d.t SET v = v + 1 WHERE id = ?"
	exec := func(id int64) hintOf {
		return hintOf{prepare: &mysql.PrepareData{PrepareStmt: stmt,
			BindVars: map[string]*querypb.BindVariable{"v1": sqltypes.Int64BindVariable(id)}}}
	}
	if a, b := exec(1).text(), exec(1).text(); a != b {
		t.Errorf("one execution, two hints: %q, %q", a, b)
	}
	if a, b := exec(1).text(), exec(2).text(); a == b || !strings.HasPrefix(a, stmt) {
		t.Errorf("two rows, hints %q and %q", a, b)
	}
	if got := (hintOf{query: stmt}).text(); got != stmt {
		t.Errorf("text statement's hint %q", got)
	}
}

// TestRetryStoreFailedBounded: a statement whose commit failed on the
// store before its commit point (1213 with engine.StoreFailedNote) is
// tried again storeFailedRetries times, then its 1213 goes to the client:
// a store that stays unreachable is not retried for the whole window. An
// ordinary conflict is still retried past that count.
func TestRetryStoreFailedBounded(t *testing.T) {
	h := retryHandler()
	failed := func() error {
		return mysqlerr.Conflict(engine.StoreFailedNote + ", the transaction was aborted and nothing was applied: connection reset")
	}
	a := &attempts{errs: []error{failed(), failed(), failed(), failed(), failed(), failed()}}
	start := time.Now()
	err := <-retryAsync(h, 9, a, failed())
	if !retriableConflict(err) || !strings.Contains(err.Error(), engine.StoreFailedNote) {
		t.Fatalf("got %v, want the store failure's 1213", err)
	}
	if n := int(a.n.Load()); n != storeFailedRetries {
		t.Fatalf("%d attempts after the first, want %d", n, storeFailedRetries)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("the bounded retries took %v", d)
	}
	b := &attempts{errs: []error{mysqlerr.Conflict("a"), mysqlerr.Conflict("b"), mysqlerr.Conflict("c"), mysqlerr.Conflict("d"), mysqlerr.Conflict("e")}}
	if err := <-retryAsync(h, 10, b, mysqlerr.Conflict("first")); err != nil {
		t.Fatalf("an ordinary conflict: %v", err)
	}
	if n := b.n.Load(); n != 6 {
		t.Fatalf("an ordinary conflict ran %d attempts after the first, want 6", n)
	}
}
