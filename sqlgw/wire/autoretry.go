package wire

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"

	"github.com/sqlgw/sqlgw/sqlgw/engine"
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
//     default), with a randomized exponential backoff from 1 ms to 64 ms
//     between attempts, and stop at once if the statement is killed or the
//     server shuts down. After the bound the client gets the 1213.
//
// A statement of an explicit transaction still gets 1213: only the client
// can retry a transaction, whose earlier statements the server cannot
// replay. Only 1213 is retried: an ambiguous outcome (the store did not
// answer, storage.ErrUnavailable: maybe applied) is never retried blindly
// (mysqlerr's store.go and the engine's txnatomic.go: 1180, "outcome unknown").

const (
	autocommitRetryWindow = 50 * time.Second
	retryBackoffMin       = time.Millisecond
	retryBackoffMax       = 64 * time.Millisecond
)

// retryVerbs are the statements the handler may retry.
var retryVerbs = map[string]bool{"select": true, "insert": true, "update": true, "delete": true,
	"replace": true, "with": true, "table": true, "values": true}

// autocommitStatement reports whether query, about to run on connection
// c, runs alone in autocommit mode (see above).
func (h *Handler) autocommitStatement(c *mysql.Conn, query string) bool {
	words := sqltext.LeadingWords(query, 1)
	if len(words) == 0 || !retryVerbs[words[0]] {
		return false
	}
	s := h.GW.Session(c.ConnectionID)
	if s == nil || s.GetIgnoreAutoCommit() || s.Tx != nil || s.GetTransaction() != nil {
		return false
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
	var se *mysql.SQLError
	if !errors.As(err, &se) {
		se = sql.CastSQLError(err)
	}
	return se != nil && se.Number() == mysql.ERLockDeadlock && !strings.Contains(se.Message, engine.PartialCommitNote)
}

// runRetried runs a statement (run sends its results through the
// callback it is given, which reports whether anything was sent) and
// retries it as described above when eligible.
func (h *Handler) runRetried(ctx context.Context, c *mysql.Conn, query string, run func(sent *bool) error) error {
	eligible := h.autocommitStatement(c, query)
	var start time.Time
	backoff := retryBackoffMin
	for attempt := 0; ; attempt++ {
		sent := false
		err := run(&sent)
		if err == nil || !eligible || sent || !retriableConflict(err) {
			return err
		}
		if attempt == 0 {
			start = time.Now()
		}
		if time.Since(start) > autocommitRetryWindow || h.isClosing() {
			return err
		}
		pause := retryBackoffMin + rand.N(backoff)
		select {
		case <-ctx.Done():
			return err
		case <-time.After(pause):
		}
		backoff = min(2*backoff, retryBackoffMax)
		h.GW.Metrics.StatementRetried()
	}
}

func (h *Handler) isClosing() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closing
}

// noteSent wraps a result callback to record that something was sent.
func noteSent(sent *bool, cb mysql.ResultSpoolFn) mysql.ResultSpoolFn {
	return func(res *sqltypes.Result, more bool) error {
		*sent = true
		return cb(res, more)
	}
}
