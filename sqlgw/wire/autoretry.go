package wire

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"

	"github.com/sqlgw/sqlgw/sqlgw/engine"
	"github.com/sqlgw/sqlgw/sqlgw/mysqlerr"
	"github.com/sqlgw/sqlgw/sqlgw/sqltext"
)

// Autocommit statements retried on write conflicts
//
// sqlgw's transactions are optimistic (txn.go): a write conflict is found
// at commit, when a conditional write's ETag no longer matches, and is
// MySQL's 1213. MySQL never fails a single autocommit statement that way:
// InnoDB makes it wait for the row lock. So when a statement that runs in
// autocommit mode (autocommit=1, no BEGIN or START TRANSACTION, no open
// transaction) fails with 1213, the handler runs it again, from scratch
// (it re-reads the rows, re-evaluates the expressions and re-writes), as
// long as all of these hold:
//
//   - nothing of the statement reached the client (no result set, no OK);
//   - the failed commit left nothing applied: the conflict came before the
//     first batch, or the applied inserts were undone (txn.go's commit);
//     a partial commit (errPartialCommit) is never retried;
//   - the statement is a data statement (SELECT, INSERT, UPDATE, DELETE,
//     REPLACE, WITH, TABLE, VALUES), not DDL or an administrative one;
//   - the bound is not reached: retries go on for at most
//     autocommitRetryWindow (50 s, MySQL's innodb_lock_wait_timeout
//     default) from the first conflict, time spent waiting included, and
//     stop at once if the statement is killed (KILL QUERY or KILL
//     CONNECTION naming its connection: 1317 or 1927) or the server
//     shuts down (1053). After the bound the client gets the 1213.
//
// # A wait queue per row
//
// Retried blindly, statements that conflict on one hot row race each
// other again and again: under 32 connections incrementing one row most
// attempts were wasted, and a few statements lost the race for the whole
// window and got the 1213 that MySQL never returns for one autocommit
// UPDATE. InnoDB queues such a statement on the row lock, and the lock
// is granted in order. The handler does the same with what a conflict
// tells it: the engine names the entity whose conditional write failed
// (table, PartitionKey and RowKey: mysqlerr.ConflictOn, from the store's
// BatchError index), and the retry waits in that entity's queue
// (rowQueues, rowqueue.go: one FIFO of tickets per entity, gateway-wide,
// dropped when empty). The statement at the head holds the entity's turn
// while its retry runs, and passes it to the next when the retry is over,
// whatever its outcome. A retry that conflicts again on the same entity
// keeps the turn and runs again at once; one that conflicts on another
// entity gives the turn up and queues on that one.
//
// A first attempt does not know its row until it conflicts, so it would
// run at once and race the head of the queue (which then runs again),
// and every newcomer that lost would join the queue only after a wasted
// attempt. So the queue also remembers the text of the statements that
// conflicted on its row (a hint; a prepared statement's text with its
// parameters' values): while the row's queue exists, a statement of the
// same text (the same literals or parameters, so most likely the same
// row) queues for that row before its first attempt.
// The hints go with the queue. Under 32 connections incrementing one
// row, this turned about one wasted attempt per statement into a few in
// a hundred (TestAutocommitContention, figures in docs/benchmarks.md). A
// hint that is wrong (the statement does not write that row) only makes
// the statement wait for the statements ahead of it.
//
// A conflict whose entity is unknown (a conflict found while reading, a
// transaction record aborted by another gateway, a snapshot too old, an
// error rewritten on the way) falls back to the randomized exponential
// backoff from 1 ms to 64 ms between attempts, without a queue.
//
// Limits: the queues order the statements of one gateway. Several
// gateways on one account still compete optimistically for a row (each
// gateway's head of queue against the others'), as do explicit
// transactions, which are never queued. KILL QUERY reaches a waiting
// statement through the handler (go-mysql-server's KILL cancels only a
// statement the engine is running): a KILL that lands in the instant
// between an attempt and its wait is lost, as one that lands between two
// statements. A client that closes its connection while its statement
// waits is noticed only when the statement ends, as with MySQL's lock
// waits. Counters (sqlgw/metrics): sqlgw_statement_retries_total, and
// the retries that waited in a queue, backed off, or gave up.
//
// A statement of an explicit transaction still gets 1213: only the client
// can retry a transaction, whose earlier statements the server cannot
// replay. Only 1213 is retried: an ambiguous outcome (the store did not
// answer, storage.ErrUnavailable: maybe applied) is never retried blindly
// (mysqlerr's store.go and the engine's txnatomic.go: 1180, "outcome unknown").
// A 1213 for a commit that failed on the store before its commit point
// (nothing applied: engine.StoreFailedNote) is retried storeFailedRetries
// times only.

const (
	autocommitRetryWindow = 50 * time.Second
	retryBackoffMin       = time.Millisecond
	retryBackoffMax       = 64 * time.Millisecond
	// storeFailedRetries is how many times a statement whose commit failed
	// on the store before its commit point (1213 with
	// engine.StoreFailedNote: nothing applied) is tried again: a dropped
	// connection is over by then, and a store that stays unreachable gets
	// its 1213 to the client at once, not after the whole window.
	storeFailedRetries = 3
)

// retryWindow is autocommitRetryWindow (tests shorten it).
var retryWindow = autocommitRetryWindow

// retryVerbs are the statements the handler may retry.
var retryVerbs = map[string]bool{"select": true, "insert": true, "update": true, "delete": true,
	"replace": true, "with": true, "table": true, "values": true}

// retryVerb reports whether w (any case) is one of retryVerbs, without
// allocating (it runs for every statement).
func retryVerb(w string) bool {
	var b [8]byte
	if len(w) == 0 || len(w) > len(b) {
		return false
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	return retryVerbs[string(b[:len(w)])]
}

// autocommitStatement reports whether query, about to run on connection
// c, runs alone in autocommit mode (see above).
func (h *Handler) autocommitStatement(c *mysql.Conn, query string) bool {
	if !retryVerb(sqltext.FirstWord(query)) {
		return false
	}
	s := h.GW.Session(c.ConnectionID)
	if s == nil || s.GetIgnoreAutoCommit() || s.PendingWrites() {
		// In a transaction (BEGIN), or after writes the statement's
		// commit would carry along. A transaction without writes is the
		// one go-mysql-server's PREPARE began for the execution.
		return false
	}
	if on, ok := s.KeptAutocommit(); ok { // (the plan cache's read, while current)
		return on
	}
	v, err := s.GetSessionVariable(varCtx(), "autocommit")
	if err != nil {
		return false
	}
	switch x := v.(type) {
	case int8:
		return x != 0
	case int64:
		return x != 0
	case int:
		return x != 0
	case bool:
		return x
	}
	return false
}

// varCtx is a context for reading session variables outside a statement
// (BaseSession does not use it; built once: a new one copies every
// system variable).
var varCtx = sync.OnceValue(sql.NewEmptyContext)

// retriableConflict reports whether err is a write conflict that left
// nothing applied.
func retriableConflict(err error) bool {
	if err == nil {
		return false
	}
	se := sqlError(err)
	return se != nil && se.Number() == mysql.ERLockDeadlock && !strings.Contains(se.Message, engine.PartialCommitNote)
}

// sqlError is err's MySQL error: the one it wraps, or its cast.
func sqlError(err error) *mysql.SQLError {
	var se *mysql.SQLError
	if !errors.As(err, &se) {
		se = sql.CastSQLError(err)
	}
	return se
}

// isStoreFailed reports whether err, a retriable conflict, is a commit
// that failed on the store before its commit point (engine.StoreFailedNote).
func isStoreFailed(err error) bool {
	se := sqlError(err)
	return se != nil && strings.Contains(se.Message, engine.StoreFailedNote)
}

// runRetried runs a statement (run sends its results through the
// callback it is given, which reports whether anything was sent) and
// retries it as described above when eligible. hint gives the text its
// row hints are kept under, built only under contention.
func (h *Handler) runRetried(ctx context.Context, c *mysql.Conn, query string, hint hintOf, run func(sent *bool) error) error {
	err := h.runRetriedOnce(ctx, c, query, hint, run)
	if err != nil {
		// MySQL rolls a failed statement back: what it buffered is
		// undone, whatever left it buffered (engine/session.go).
		h.GW.StatementFailed(c.ConnectionID)
	}
	return err
}

// runRetriedOnce is runRetried before a failed statement's writes are
// undone.
func (h *Handler) runRetriedOnce(ctx context.Context, c *mysql.Conn, query string, hint hintOf, run func(sent *bool) error) error {
	eligible := h.autocommitStatement(c, query) // before it runs: a failed commit changes the session
	text := ""
	if eligible && h.rows.anyHints() {
		text = hint.text()
		if key, ok := h.rows.hinted(text); ok {
			return h.retry(ctx, c.ConnectionID, text, run, nil, key)
		}
	}
	sent := false
	err := run(&sent)
	if err == nil || !eligible || sent || !retriableConflict(err) {
		return err
	}
	if text == "" {
		text = hint.text()
	}
	return h.retry(ctx, c.ConnectionID, text, run, err, mysqlerr.ConflictKey{})
}

// hintOf gives a statement's hint text (see runRetried): the text of a
// text statement; the text and the parameters' types and values of an
// execution of a prepared statement (prepare set). A value, built for
// every statement without allocating.
type hintOf struct {
	query   string
	prepare *mysql.PrepareData
}

func (s hintOf) text() string {
	if s.prepare == nil {
		return s.query
	}
	names := slices.Sorted(maps.Keys(s.prepare.BindVars))
	var b strings.Builder
	b.WriteString(s.prepare.PrepareStmt)
	for _, n := range names {
		bv := s.prepare.BindVars[n]
		fmt.Fprintf(&b, "\x00%s=%d:%q", n, bv.GetType(), bv.GetValue())
		for _, v := range bv.GetValues() {
			fmt.Fprintf(&b, ",%d:%q", v.GetType(), v.GetValue())
		}
	}
	return b.String()
}

// retry runs again, as described above, a statement of connection conn
// whose first attempt failed with the write conflict err; or, when err is
// nil, runs its first attempt in the turn of row hint. text is its text,
// or "".
func (h *Handler) retry(ctx context.Context, conn uint32, text string, run func(sent *bool) error, err error, hint mysqlerr.ConflictKey) error {
	wait, done := h.waitContext(ctx, conn, time.Now().Add(retryWindow))
	defer done()
	var (
		turn    mysqlerr.ConflictKey // the row whose turn the statement holds, if release != nil
		release func()
		backoff = retryBackoffMin
	)
	defer func() {
		if release != nil {
			release()
		}
	}()
	if err == nil {
		rel, waited, werr := h.rows.acquire(wait, hint, "")
		if werr != nil {
			return h.stopped(werr, mysqlerr.Conflict("the statement waited for its row's turn for the whole retry window"))
		}
		turn, release = hint, rel
		if waited {
			h.GW.Metrics.RetryWaited()
		}
		sent := false
		err = run(&sent)
		if err == nil || sent || !retriableConflict(err) {
			return err
		}
	}
	storeFailed := 0
	for {
		if isStoreFailed(err) {
			if storeFailed++; storeFailed > storeFailedRetries {
				return err
			}
		}
		keys := mysqlerr.ConflictKeys(err)
		switch {
		case len(keys) > 0 && release != nil && keys[0] == turn:
			// It conflicted again on the row whose turn it holds (with a
			// first attempt, or another gateway): it keeps the turn.
		case len(keys) > 0:
			if release != nil {
				release()
				release = nil
			}
			rel, waited, werr := h.rows.acquire(wait, keys[0], text)
			if werr != nil {
				return h.stopped(werr, err)
			}
			turn, release = keys[0], rel
			if waited {
				h.GW.Metrics.RetryWaited()
			}
		default:
			// The conflict's row is unknown: a randomized backoff.
			if release != nil {
				release()
				release = nil
			}
			select {
			case <-wait.Done():
				return h.stopped(context.Cause(wait), err)
			case <-time.After(retryBackoffMin + rand.N(backoff)):
			}
			backoff = min(2*backoff, retryBackoffMax)
			h.GW.Metrics.RetryBackedOff()
		}
		h.GW.Metrics.StatementRetried()
		sent := false
		err = run(&sent)
		if err == nil || sent || !retriableConflict(err) {
			return err
		}
		if wait.Err() != nil {
			return h.stopped(context.Cause(wait), err)
		}
	}
}

// errShutdown ends the wait of a retried statement when the server shuts
// down: MySQL's ER_SERVER_SHUTDOWN, as for a command that arrives then.
var errShutdown = mysql.NewSQLError(mysql.ERServerShutdown, mysql.SSUnknownSQLState, "sqlgw: server is shutting down")

// stopped is the error of a statement whose retries ended with cause
// (waitContext's), its last attempt having failed with err: err itself
// when the retry window ran out, the shutdown error, or an interruption
// (KILL: context.Canceled, which the error steps make 1317 or 1927).
func (h *Handler) stopped(cause, err error) error {
	switch {
	case errors.Is(cause, context.DeadlineExceeded):
		h.GW.Metrics.RetryGaveUp()
		return err
	case errors.Is(cause, errShutdown):
		return errShutdown
	}
	return fmt.Errorf("sqlgw: the statement was killed while waiting to be retried: %w", context.Canceled)
}

// waitContext returns the context the waits of connection conn's retried
// statement end with: with parent, at deadline (the retry window), when
// the server shuts down (cause errShutdown) or when a KILL [QUERY] names
// the connection (cause context.Canceled); done forgets it.
func (h *Handler) waitContext(parent context.Context, conn uint32, deadline time.Time) (ctx context.Context, done func()) {
	ctx, cancelDeadline := context.WithDeadline(parent, deadline)
	ctx, cancel := context.WithCancelCause(ctx)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closing {
		cancel(errShutdown)
	}
	if h.waits == nil {
		h.waits = map[uint32]context.CancelCauseFunc{}
	}
	h.waits[conn] = cancel
	h.waiting.Add(1)
	return ctx, func() {
		h.mu.Lock()
		delete(h.waits, conn)
		h.mu.Unlock()
		h.waiting.Add(-1)
		cancel(nil)
		cancelDeadline()
	}
}

// killed stops the retry waits of connection conn after a KILL [QUERY]
// statement ran: go-mysql-server's KILL cancels a statement only while
// the engine runs it, not between two attempts.
func (h *Handler) killed(query string, err error) {
	if err != nil || h.waiting.Load() == 0 {
		return
	}
	if id, ok := sqltext.KillTarget(query); ok {
		h.mu.Lock()
		cancel := h.waits[id]
		h.mu.Unlock()
		if cancel != nil {
			cancel(context.Canceled)
		}
	}
}

// noteSent wraps a result callback to record that something was sent.
func noteSent(sent *bool, cb mysql.ResultSpoolFn) mysql.ResultSpoolFn {
	return func(res *sqltypes.Result, more bool) error {
		*sent = true
		return cb(res, more)
	}
}
