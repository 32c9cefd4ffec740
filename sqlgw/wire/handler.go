package wire

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"

	"github.com/sqlgw/sqlgw/sqlgw/engine"
	"github.com/sqlgw/sqlgw/sqlgw/sqltext"
)

// handler wraps go-mysql-server's mysql.Handler for two things it does not
// do itself:
//
//   - The initial handshake carries SERVER_STATUS_AUTOCOMMIT. go-mysql-server
//     sets the status flags only after the first query (setConnStatusFlags),
//     so the handshake said "autocommit off" and drivers that trust it
//     (PyMySQL's get_autocommit) were wrong until the first query.
//   - go-mysql-server's results and errors differ from MySQL's in ways
//     clients notice: resultSteps (result_steps.go) rewrites them.
//   - Draining on shutdown: every command runs between begin() and end(),
//     so Close can stop new commands, wait for the ones in flight (whose
//     writes the client has not been told about yet) and only then close
//     the store.
type Handler struct {
	mysql.Handler
	GW    *engine.Gateway
	Conns *ConnRegistry    // the listener's connections (conn.go)
	Fast  *engine.FastLane // the plan cache of prepared statements (plancache.go)

	mu      sync.Mutex
	closing bool // Drain has started (under mu)
	// cmds counts the commands in flight (begin, end) in its low bits,
	// with cmdsDraining set once Drain has started: one atomic add per
	// command where a mutex and a WaitGroup took four atomic operations
	// on lines every connection shares (issue 13, seventh round). drained
	// is made by Drain before it sets the bit and closed by the end that
	// leaves none in flight after it.
	cmds      atomic.Int64
	drained   chan struct{}
	drainedAt sync.Once

	kills killRegistry // KILL targets, for 1927 (clienterrs.go)

	// Retried autocommit statements (autoretry.go): the rows' wait
	// queues, and the cancel function of each connection's waiting
	// statement (under mu).
	rows    rowQueues
	waits   map[uint32]context.CancelCauseFunc
	waiting atomic.Int32 // len(waits), read without mu
}

// interceptor is one named step in front of go-mysql-server's handler: it
// answers the statements and commands it owns and passes the rest to next.
// The server lists them in order (NewServer); the first sees a statement
// first.
type Interceptor struct {
	Name string
	Wrap func(next mysql.Handler) mysql.Handler
}

// chainInterceptors puts list in front of inner, list[0] outermost.
func Chain(inner mysql.Handler, list []Interceptor) mysql.Handler {
	for i := len(list) - 1; i >= 0; i-- {
		inner = list[i].Wrap(inner)
	}
	return inner
}

func (h *Handler) NewConnection(c *mysql.Conn) {
	h.Handler.NewConnection(c)
	c.StatusFlags |= uint16(mysql.ServerStatusAutocommit)
}

func (h *Handler) ConnectionClosed(c *mysql.Conn) {
	h.Handler.ConnectionClosed(c)
	h.GW.ForgetSession(c.ConnectionID)
	h.kills.forget(c.ConnectionID)
}

// translate gives an error of the statement query MySQL's code, wording
// and SQLSTATE: resultSteps' Error rewrites (result_steps.go).
func (h *Handler) translate(c *mysql.Conn, query string, err error) error {
	if err == nil {
		return nil // (errorOf's answer, without its statement on the heap: every command ends here)
	}
	return h.errorOf(&statement{c: c, query: query}, err)
}

// WarningCount implements mysql.Handler: the protocol asks it after every
// statement (the OK and EOF packets' warning count). go-mysql-server's
// looks the session up in its SessionManager under the manager's mutex,
// which every connection takes in turn; the gateway's own map of the same
// sessions (engine.Gateway.Session: the session builder puts each session
// go-mysql-server makes in both) is read without a lock (issue 13, seventh
// round).
func (h *Handler) WarningCount(c *mysql.Conn) uint16 {
	if s := h.GW.Session(c.ConnectionID); s != nil {
		return s.WarningCount()
	}
	return h.Handler.WarningCount(c)
}

// ComInitDB implements mysql.Handler: USE db from the protocol (the mysql
// CLI's "use", drivers' database option) answers with MySQL's errors too
// (1049 42000 "Unknown database 'x'").
func (h *Handler) ComInitDB(c *mysql.Conn, schemaName string) error {
	err := h.Handler.ComInitDB(c, schemaName)
	if err == nil {
		var r rowCounter
		r.note(h, c, &sqltypes.Result{}) // its OK packet: ROW_COUNT() 0 (rowcount.go)
	}
	return h.translate(c, "", err)
}

// begin registers one command; it fails once the server is shutting down.
// A command counted after Drain set cmdsDraining undoes its count and
// fails; one counted before it is waited for.
func (h *Handler) begin() error {
	if h.cmds.Add(1)&cmdsDraining != 0 {
		h.end()
		return mysql.NewSQLError(mysql.ERServerShutdown, mysql.SSUnknownSQLState, "sqlgw: server is shutting down")
	}
	return nil
}

func (h *Handler) end() {
	if h.cmds.Add(-1) == cmdsDraining {
		h.drainedAt.Do(func() { close(h.drained) })
	}
}

// cmdsDraining is the bit of Handler.cmds that Drain sets.
const cmdsDraining = 1 << 62

// drain refuses new commands and waits up to timeout for running ones.
// It reports whether every command finished.
func (h *Handler) Drain(timeout time.Duration) bool {
	h.mu.Lock()
	if !h.closing {
		h.closing = true
		h.drained = make(chan struct{})
		h.cmds.Or(cmdsDraining)
	}
	for _, cancel := range h.waits {
		cancel(errShutdown) // statements waiting to be retried (autoretry.go)
	}
	h.mu.Unlock()
	if h.cmds.Load() == cmdsDraining {
		return true // none in flight
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-h.drained:
		return true
	case <-t.C:
		return false
	}
}

// infoLen is the length an OK packet's info string must have to be read
// correctly: vitess writes it as '#' followed by the text, and clients with
// CLIENT_SESSION_TRACK (the MariaDB and MySQL clients, mysql2) read a
// length-encoded string there, whose first byte '#' (35) announces 35
// bytes. An info of exactly 35 bytes is therefore well formed; a shorter
// one, such as PREPARE's "Statement prepared", made the client report a
// malformed packet.
const infoLen = '#'

var (
	reRowsMatched = regexp.MustCompile(`^Rows matched: (\d+)\s+Changed: (\d+)(?:\s+Warnings: (\d+))?`)
	reRecords     = regexp.MustCompile(`^Records: (\d+)\s+Duplicates: (\d+)(?:\s+Warnings: (\d+))?`)
)

// fixInfo rewrites OK packets' info strings to start with infoLen bytes.
// UPDATE's "Rows matched: N  Changed: M  Warnings: W" is needed whole by
// clients that read the info to the end of the packet (mysqljs takes
// changedRows from it only when all three counts are there), and clients
// that read a length-encoded string (mysql2) find "Changed: M" in its
// first infoLen bytes; so it is sent as "Rows matched: N  Changed: M",
// space-padded to infoLen bytes, then "Warnings: W", which the
// length-encoded readers ignore (no SERVER_SESSION_STATE_CHANGED). Other
// infos are padded or, when too long, dropped (an OK packet without info is
// always valid).
func fixInfo(cb mysql.ResultSpoolFn) mysql.ResultSpoolFn {
	return func(res *sqltypes.Result, more bool) error {
		if res != nil && len(res.Fields) == 0 && res.Info != "" {
			r := *res
			r.Info = okInfo(r.Info)
			res = &r
		}
		return cb(res, more)
	}
}

func okInfo(info string) string {
	m, first, second := reRowsMatched.FindStringSubmatch(info), "Rows matched", "Changed"
	if m == nil {
		// INSERT's (insertinfo.go), the same way.
		m, first, second = reRecords.FindStringSubmatch(info), "Records", "Duplicates"
	}
	if m != nil {
		warnings := m[3]
		if warnings == "" {
			warnings = "0"
		}
		head := fmt.Sprintf("%s: %s  %s: %s", first, m[1], second, m[2])
		if len(head) > infoLen {
			head = fmt.Sprintf("%s: %s %s: %s", first, m[1], second, m[2])
		}
		if len(head) < infoLen {
			head += strings.Repeat(" ", infoLen-len(head))
		} else {
			head += " "
		}
		return head + "Warnings: " + warnings
	}
	if len(info) > infoLen {
		return ""
	}
	return info + strings.Repeat(" ", infoLen-len(info))
}

func (h *Handler) ComQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) error {
	if err := h.begin(); err != nil {
		return err
	}
	defer h.end()
	h.GW.StatementBegins(c.ConnectionID) // engine/warnings.go: StatementError
	fromCache := false
	defer func() {
		if !fromCache {
			h.GW.NoteUncached(c.ConnectionID)
		}
	}()
	defer h.GW.EndStatement(c.ConnectionID)  // engine/snapshot.go
	text := sqltext.Run(query, sqltext.Wire) // the statement text's rewrites (sqlgw/sqltext)
	if text.Empty {
		return callback(&sqltypes.Result{}, false)
	}
	query = text.String()
	if sqltext.IsEmpty(query) {
		return errEmptyQuery() // clienterrs.go
	}
	if handled, err := h.showCount(c, query, callback); handled { // showcount.go
		return err
	}
	h.kills.noteKill(query)
	defer h.noteSessionTimeouts(c, query) // connlimits.go
	h.GW.Parts.NotePartitionBy(c.ConnectionID, query)
	defer h.GW.Parts.Clear(c.ConnectionID)
	defer h.GW.NoteTimePrecision(c.ConnectionID, query, text.TimePrecisions)()
	ctx, cancel := h.executionLimit(ctx, c, query) // max_execution_time (maxexec.go)
	if cancel != nil {
		defer cancel()
	}
	st := &statement{ctx: ctx, c: c, query: query}
	err := h.runRetried(ctx, c, query, hintOf{query: query}, func(sent *bool) error { // autoretry.go
		var handled bool
		handled, err := h.cachedText(ctx, c, query, h.results(st, noteSent(sent, callback)), func(cb mysql.ResultSpoolFn) error {
			return h.Handler.ComQuery(ctx, c, query, cb)
		})
		fromCache = fromCache || handled
		return err
	})
	h.killed(query, err) // autoretry.go
	return h.failed(c, h.errorOf(st, err))
}

// cachedText runs a text statement through the plan cache of its shape
// (engine/textcache.go) or, if the cache does not take it, through run
// with the callback that records what the cache needs; handled reports
// the former.
func (h *Handler) cachedText(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn, run func(mysql.ResultSpoolFn) error) (handled bool, err error) {
	if h.Fast == nil {
		return false, run(callback)
	}
	handled, capture, done, err := h.Fast.Query(ctx, c, query, func(res *sqltypes.Result) error { return callback(res, false) })
	if handled {
		return true, err
	}
	err = run(func(res *sqltypes.Result, more bool) error {
		return capture(func(res *sqltypes.Result) error { return callback(res, more) })(res)
	})
	done(err)
	return false, err
}

func (h *Handler) ComMultiQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) (string, error) {
	if err := h.begin(); err != nil {
		return "", err
	}
	defer h.end()
	h.GW.StatementBegins(c.ConnectionID) // engine/warnings.go: StatementError
	fromCache := false
	defer func() {
		if !fromCache {
			h.GW.NoteUncached(c.ConnectionID)
		}
	}()
	defer h.GW.EndStatement(c.ConnectionID)  // engine/snapshot.go
	text := sqltext.Run(query, sqltext.Wire) // the statement text's rewrites (sqlgw/sqltext)
	if text.Empty {
		return "", callback(&sqltypes.Result{}, false)
	}
	query = text.String()
	if sqltext.IsEmpty(query) {
		return "", errEmptyQuery() // clienterrs.go
	}
	if handled, err := h.showCount(c, query, callback); handled { // showcount.go
		return "", err
	}
	h.kills.noteKill(query)
	defer h.noteSessionTimeouts(c, query) // connlimits.go
	h.GW.Parts.NotePartitionBy(c.ConnectionID, query)
	defer h.GW.Parts.Clear(c.ConnectionID)
	defer h.GW.NoteTimePrecision(c.ConnectionID, query, text.TimePrecisions)()
	ctx, cancel := h.executionLimit(ctx, c, query) // max_execution_time (maxexec.go)
	if cancel != nil {
		defer cancel()
	}
	st := &statement{ctx: ctx, c: c, query: query}
	var rest string
	err := h.runRetried(ctx, c, query, hintOf{query: query}, func(sent *bool) (err error) { // autoretry.go
		// A text of one statement may run from the plan cache of its
		// shape (engine/textcache.go); any other goes to the engine.
		handled, err := h.cachedText(ctx, c, query, h.results(st, noteSent(sent, callback)), func(cb mysql.ResultSpoolFn) (err error) {
			rest, err = h.Handler.ComMultiQuery(ctx, c, query, cb) // result_steps.go
			return err
		})
		fromCache = fromCache || handled
		if handled {
			rest = ""
		}
		return err
	})
	h.killed(query, err) // autoretry.go
	return rest, h.failed(c, h.errorOf(st, err))
}

func (h *Handler) ComPrepare(ctx context.Context, c *mysql.Conn, query string, prepare *mysql.PrepareData) ([]*querypb.Field, error) {
	if err := h.begin(); err != nil {
		return nil, err
	}
	defer h.end()
	h.GW.StatementBegins(c.ConnectionID) // engine/warnings.go: StatementError
	// No Wire pipeline here: vitess parses COM_STMT_PREPARE's text itself
	// before calling the handler; the connection wrapper runs
	// sqltext.Prepare on it before that (prepconn.go).
	if prepare.ParamsCount == 0 {
		if opts, err := h.Handler.ParserOptionsForConnection(c); err == nil {
			if n := engine.ExplainParamCount(ctx, query, opts); n > 0 {
				// explain.go, "Prepared EXPLAIN": vitess counted 0.
				prepare.ParamsCount = n
				prepare.ParamsType = make([]int32, n)
				prepare.BindVars = make(map[string]*querypb.BindVariable, n)
			}
		}
	}
	fields, err := h.Handler.ComPrepare(ctx, c, query, prepare)
	return floatFields(fields), h.failed(c, h.translate(c, query, err)) // float_text.go
}

// failed records err, the error a statement failed with as the client is
// sent it, in the session's warning list (engine/warnings.go:
// StatementError) and returns it; nil does nothing.
func (h *Handler) failed(c *mysql.Conn, err error) error {
	if err != nil {
		h.GW.StatementError(c.ConnectionID, err)
	}
	return err
}

func (h *Handler) ComStmtExecute(ctx context.Context, c *mysql.Conn, prepare *mysql.PrepareData, callback func(*sqltypes.Result) error) error {
	if err := h.begin(); err != nil {
		return err
	}
	defer h.end()
	h.GW.StatementBegins(c.ConnectionID)                         // engine/warnings.go: StatementError
	defer h.GW.EndStatement(c.ConnectionID)                      // engine/snapshot.go
	ctx, cancel := h.executionLimit(ctx, c, prepare.PrepareStmt) // max_execution_time (maxexec.go)
	if cancel != nil {
		defer cancel()
	}
	x := &stmtExecution{h: h, ctx: ctx, c: c, prepare: prepare, callback: callback}
	err := h.runRetried(ctx, c, prepare.PrepareStmt, hintOf{prepare: prepare}, x.run) // autoretry.go
	if err == nil {
		return nil
	}
	return h.failed(c, h.errorOf(&statement{ctx: ctx, c: c, query: prepare.PrepareStmt}, err))
}

// stmtExecution is one COM_STMT_EXECUTE: its attempts (run, more than one
// when retried) and the steps each result passes before the client's
// callback (send), in one allocation rather than a closure each, as this
// runs for every execute.
type stmtExecution struct {
	h        *Handler
	ctx      context.Context
	c        *mysql.Conn
	prepare  *mysql.PrepareData
	callback func(*sqltypes.Result) error
	sent     *bool      // the current attempt's (runRetried)
	rows     rowCounter // the statement's ROW_COUNT() (rowcount.go)
	sendFn   func(*sqltypes.Result) error
}

// run is one attempt (runRetried's run).
func (x *stmtExecution) run(sent *bool) error {
	x.sent = sent
	x.rows = rowCounter{}
	if x.sendFn == nil {
		x.sendFn = x.send
	}
	// The plan cache (plancache.go) runs the statement or says how the
	// engine's run is to be recorded.
	handled, capture, done, err := x.h.Fast.StmtExecute(x.ctx, x.c, x.prepare, x.sendFn)
	if handled {
		return err
	}
	err = x.h.Handler.ComStmtExecute(x.ctx, x.c, x.prepare, capture(x.sendFn))
	done(err)
	return err
}

// send passes a result to the client: the attempt has sent something
// (runRetried does not retry it), INSERT's info added (withInsertInfo), an
// UPDATE's or LOAD's info kept for the connection, TIME columns' decimals
// set (fixTimeFields), FLOAT and DOUBLE columns' decimals 31 (floatFields).
func (x *stmtExecution) send(res *sqltypes.Result) error {
	*x.sent = true
	h, c := x.h, x.c
	res = h.insertInfo(c, res)
	x.rows.note(h, c, res)
	if res != nil && len(res.Fields) == 0 && res.Info != "" && (reRowsMatched.MatchString(res.Info) || reRecords.MatchString(res.Info)) {
		h.Conns.setOKInfo(c.RemoteAddr(), res.Info)
	}
	fixTimeFields(h.GW, x.ctx, res)
	if res != nil && len(res.Fields) > 0 {
		res.Fields = floatFields(res.Fields) // float_text.go
	}
	h.setReadOnlyFlag(c) // result_steps.go
	return x.callback(res)
}

// withInsertInfo adds INSERT's info to the OK result of the statement
// just run on c.
func (h *Handler) withInsertInfo(c *mysql.Conn, cb mysql.ResultSpoolFn) mysql.ResultSpoolFn {
	return func(res *sqltypes.Result, more bool) error {
		return cb(h.insertInfo(c, res), more)
	}
}

// insertInfo returns res with INSERT's info added if it is the OK result
// of an INSERT just run on c (a copy), else res. An UPDATE's info gets
// the statement's warning count: go-mysql-server always writes
// "Warnings: 0", though an UPDATE warns (UPDATE IGNORE, a non-strict
// sql_mode's conversions: engine/lenientwrite.go).
func (h *Handler) insertInfo(c *mysql.Conn, res *sqltypes.Result) *sqltypes.Result {
	if res != nil && len(res.Fields) == 0 && strings.HasPrefix(res.Info, "Rows matched: ") &&
		(h.WarningCount(c) != 0 || !strings.HasSuffix(res.Info, "  Warnings: 0")) { // the common case without the regexp
		if m := reRowsMatched.FindStringSubmatch(res.Info); m != nil {
			if w := strconv.Itoa(int(h.WarningCount(c))); w != m[3] && (w != "0" || m[3] != "") {
				r := *res
				r.Info = "Rows matched: " + m[1] + "  Changed: " + m[2] + "  Warnings: " + w
				return &r
			}
		}
	}
	if res != nil && len(res.Fields) == 0 && res.Info == "" {
		if st, ok := h.GW.TakeInsertStats(c.ConnectionID); ok {
			r := *res
			r.Info = engine.InsertInfo(st, res.RowsAffected, h.WarningCount(c))
			return &r
		}
	}
	return res
}
