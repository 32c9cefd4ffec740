package wire

import (
	"context"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"

	"github.com/sqlgw/sqlgw/sqlgw/mysqlerr"
)

// ResultStep is one named rewrite of what go-mysql-server answers a
// statement from the text protocol (COM_QUERY, COM_MULTI_QUERY): its
// result sets and OK packets (Result) or its error (Error). The steps are
// listed in resultSteps, in the order they see the answer; sqltext's
// Step list is the same thing for the statement's text before it runs.
type ResultStep struct {
	// Name names the step in tests and documentation.
	Name string
	// Upstream is the go-mysql-server (or vitess) behaviour the step
	// corrects, in one line.
	Upstream string
	// Result wraps next, the callback that gets the answer after this
	// step; nil for a step that only rewrites errors.
	Result func(h *Handler, s *statement, next mysql.ResultSpoolFn) mysql.ResultSpoolFn
	// Error rewrites the statement's (non-nil) error; nil for a step
	// that only rewrites results.
	Error func(h *Handler, s *statement, err error) error
}

// statement is what the steps know of the statement being answered.
type statement struct {
	ctx   context.Context
	c     *mysql.Conn
	query string // after sqltext's Wire pipeline
}

// resultSteps are the result and error rewrites, in the order they see
// go-mysql-server's answer: the first Result gets the engine's results,
// the last hands them to the client; the Error steps run in list order.
var resultSteps = []ResultStep{
	{Name: "time-precision", Upstream: "TIME is always TIME(6) in results (fields' Decimals and values' fractions)",
		Result: func(h *Handler, s *statement, next mysql.ResultSpoolFn) mysql.ResultSpoolFn {
			return fixTimeResults(h.GW, s.ctx, next) // time_precision.go
		}},
	{Name: "time-fractions", Upstream: "TIME values in text rows always carry .000000",
		Result: func(h *Handler, s *statement, next mysql.ResultSpoolFn) mysql.ResultSpoolFn {
			return trimTimeFractions(next) // time_fractions.go
		}},
	{Name: "float-text", Upstream: "FLOAT and DOUBLE in text rows are Go's strconv 'g' (1234567 as 1.234567e+06), not MySQL's my_gcvt",
		Result: func(h *Handler, s *statement, next mysql.ResultSpoolFn) mysql.ResultSpoolFn {
			return fixFloatText(next) // float_text.go
		}},
	{Name: "insert-info", Upstream: "INSERT's OK packet has no \"Records: N  Duplicates: M  Warnings: W\" info",
		Result: func(h *Handler, s *statement, next mysql.ResultSpoolFn) mysql.ResultSpoolFn {
			return h.withInsertInfo(s.c, next)
		}},
	{Name: "ok-info", Upstream: "vitess writes an OK packet's info as '#'+text, malformed for length-encoded readers unless 35 bytes long",
		Result: func(h *Handler, s *statement, next mysql.ResultSpoolFn) mysql.ResultSpoolFn {
			return fixInfo(next)
		}},
	{Name: "show-like-header", Upstream: "SHOW DATABASES/TABLES LIKE 'p' leaves \" (p)\" out of the column name",
		Result: func(h *Handler, s *statement, next mysql.ResultSpoolFn) mysql.ResultSpoolFn {
			return fixShowLikeHeader(s.ctx, s.query, next) // show_like_header.go
		}},
	{Name: "time-ddl", Upstream: "SHOW CREATE TABLE, SHOW COLUMNS and DESCRIBE print time(6) for every TIME column",
		Result: func(h *Handler, s *statement, next mysql.ResultSpoolFn) mysql.ResultSpoolFn {
			return fixTimeDDL(h.GW, s.ctx, s.c.ConnectionID, s.query, next) // time_precision.go
		}},
	{Name: "warning-texts", Upstream: "SHOW WARNINGS words some conditions as go-mysql-server does (1292: Truncated incorrect bigint value: x1)",
		Result: func(h *Handler, s *statement, next mysql.ResultSpoolFn) mysql.ResultSpoolFn {
			return mysqlWarningTexts(s.query, next) // warning_texts.go
		}},
	{Name: "row-count", Upstream: "ROW_COUNT() after SET, BEGIN, USE is -1 and after CREATE DATABASE 0, not the OK packet's affected rows (-1 after a result set) as in MySQL",
		Result: func(h *Handler, s *statement, next mysql.ResultSpoolFn) mysql.ResultSpoolFn {
			return h.rowCountResults(s.c, next) // rowcount.go
		}},
	{Name: "read-only-transaction-flag", Upstream: "the status flags never carry SERVER_STATUS_IN_TRANS_READONLY (0x2000) in a READ ONLY transaction",
		Result: func(h *Handler, s *statement, next mysql.ResultSpoolFn) mysql.ResultSpoolFn {
			return func(res *sqltypes.Result, more bool) error {
				h.setReadOnlyFlag(s.c)
				return next(res, more)
			}
		}},
	{Name: "interrupted", Upstream: "a statement cancelled by KILL or stopped by max_execution_time fails with a context error, not MySQL's 1317 (or 1927 for KILL CONNECTION, 3024 for the time limit)",
		Error: func(h *Handler, s *statement, err error) error {
			if timeout := timedOut(s.ctx, err); timeout != nil {
				return timeout // maxexec.go
			}
			return h.kills.interruptedError(s.c.ConnectionID, err) // clienterrs.go
		}},
	{Name: "foreign-key-errors", Upstream: "foreign key errors have go-mysql-server's own texts and codes",
		Error: func(h *Handler, s *statement, err error) error {
			return mysqlerr.ForeignKey(err, h.GW.CurrentDB(s.c.ConnectionID), h.GW.Catalog) // mysqlerr/foreignkeys.go
		}},
	{Name: "mysql-errors", Upstream: "most errors are 1105 HY000 with go-mysql-server's wording",
		Error: func(h *Handler, s *statement, err error) error {
			return mysqlerr.TranslateStatement(err, s.query, h.GW.CurrentDB(s.c.ConnectionID), h.GW.TakeWriteError(s.c.ConnectionID))
		}},
}

// results puts resultSteps' Result rewrites in front of cb, the first
// step outermost (it gets the engine's results first). ComQuery builds the
// chain for each attempt of runRetried (autoretry.go) with cb =
// noteSent(client callback): every step passes each result on, so the
// client has been sent something exactly when a step has been called, and
// a retried attempt starts with fresh per-result-set state.
func (h *Handler) results(s *statement, cb mysql.ResultSpoolFn) mysql.ResultSpoolFn {
	for i := len(resultSteps) - 1; i >= 0; i-- {
		if r := resultSteps[i].Result; r != nil {
			cb = r(h, s, cb)
		}
	}
	return cb
}

// errorOf runs err through resultSteps' Error rewrites, in order.
func (h *Handler) errorOf(s *statement, err error) error {
	if err == nil {
		return nil
	}
	// A failed autocommit statement leaves nothing buffered
	// (engine/txn.go).
	h.GW.EndFailedStatement(s.c.ConnectionID)
	for _, st := range resultSteps {
		if st.Error != nil {
			err = st.Error(h, s, err)
		}
	}
	return err
}

// serverStatusInTransReadonly is SERVER_STATUS_IN_TRANS_READONLY, which
// vitess does not name: the connection is in a READ ONLY transaction.
const serverStatusInTransReadonly = 0x2000

// setReadOnlyFlag sets or clears SERVER_STATUS_IN_TRANS_READONLY in the
// status flags of c's next OK or EOF packet, as MySQL sends it: set while
// the connection is in a transaction started READ ONLY.
// go-mysql-server's handler and the engine's direct paths set the other
// flags (SERVER_STATUS_IN_TRANS, SERVER_STATUS_AUTOCOMMIT) before the
// result reaches the callback.
func (h *Handler) setReadOnlyFlag(c *mysql.Conn) {
	if h.GW.InReadOnlyTransaction(c.ConnectionID) {
		c.StatusFlags |= serverStatusInTransReadonly
	} else {
		c.StatusFlags &^= serverStatusInTransReadonly
	}
}
