package engine

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/storage/recorder"
)

// Session is one client connection's state: go-mysql-server's base session,
// the open transaction's write buffer, and the request counters that
// SHOW SESSION STATUS LIKE 'Sqlgw%' reports.
type Session struct {
	*sql.BaseSession
	GW       *Gateway
	Counters *recorder.Counters
	Tx       *txn
	// snap is the read snapshot of the statement or transaction
	// (snapshot.go); snapReads counts the requests taking snapshots (the
	// clock reads on Azure Table), apart from Counters.
	snap      snapState
	snapReads recorder.Counters

	// warns: the warning list in MySQL's order (warnings.go).
	warns warnState

	// The plan cache (plancache.go) and its counters.
	plans         planCache
	planHits      atomic.Int64
	planMisses    atomic.Int64
	lastFromCache atomic.Bool
	directRuns    atomic.Int64 // executes run directly (direct.go)
	writeRuns     atomic.Int64 // writes run from the cache (directwrite.go)
	uncachedDone  func(error)  // notFromCache's, made once

	// The plan cache's statement contexts (querycontext.go): the options
	// made once, and the pid sequence. Used by the connection's
	// goroutine only.
	ctxOpts *ctxOpts
	pidSeq  uint32
	// proc is the process list entry of the statement the plan cache
	// runs (fastproc.go).
	proc fastProc
	// spareDirect is the directState of the last direct execute, for the
	// next (direct.go: takeDirectState). Used by the connection's
	// goroutine only.
	spareDirect *directState

	// txSeq numbers the session's transactions (txn.id).
	txSeq uint32

	// txReadOnly is transaction_read_only's session value; beginRW: the
	// statement parsed last is START TRANSACTION READ WRITE; oneShotTx:
	// it is a SET TRANSACTION without SESSION or GLOBAL, setting
	// oneShot; nextTx: the characteristics such a SET gave the next
	// transaction; txConflict: the text parsed last was START TRANSACTION
	// READ ONLY, READ WRITE (txreadonly.go).
	txReadOnly, beginRW, oneShotTx, txConflict bool
	oneShot, nextTx                            txOneShot

	// hintWarns: the warnings of the SET_VAR hints of the statement parsed
	// last, until it runs; hintVars: the variables they set, with the
	// values to put back when it ends; hintDone: the running statement's
	// hints are applied (setvarhint.go).
	hintWarns []*sql.Warning
	hintVars  []hintVarSet
	hintDone  bool

	// maxExecMS is max_execution_time's session value (maxexec.go).
	maxExecMS int64

	// vars are the session variables the plan cache reads per execute,
	// varsGen counts the changes to the session's variables
	// (stmtvars.go).
	vars    stmtVars
	varsGen atomic.Uint64

	// groups: the statement's reads of table group partitions (tablegroup.go).
	groups groupReads

	// The running statement's table editors (see "A failed statement's
	// writes" below): open, those between StatementBegin and
	// StatementComplete or DiscardChanges, and the undo logs of those
	// completed, oldest first.
	editorsMu sync.Mutex
	editors   []*editor
	completed [][]undo
}

var (
	_ sql.Session            = (*Session)(nil)
	_ sql.TransactionSession = (*Session)(nil)
)

// Status variable names, reported per session and cumulative (like MySQL's
// Handler_read_* counters).
const (
	StatusStoreRequests = "Sqlgw_store_requests"
	StatusEntitiesRead  = "Sqlgw_entities_read"
	// The plan cache's (plancache.go): executes that ran from a cached
	// plan, executes of a cacheable statement that built one, and whether
	// the session's last statement ran from the cache (0 or 1). Named
	// without the Sqlgw prefix, so that LIKE 'Sqlgw%' still lists exactly
	// the request counters, as scripts and tests expect.
	StatusPlanCacheHits     = "Plan_cache_hits"
	StatusPlanCacheMisses   = "Plan_cache_misses"
	StatusLastPlanFromCache = "Last_plan_from_cache"
	// Plan_cache_direct: the hits executed directly, without
	// go-mysql-server's executor (direct.go).
	StatusPlanCacheDirect = "Plan_cache_direct"
	// Plan_cache_writes: the hits that were INSERT, UPDATE or DELETE
	// (directwrite.go).
	StatusPlanCacheWrites = "Plan_cache_writes"
	// Snapshot_clock_reads: the requests that took the session's read
	// snapshots (on Azure Table one clock read per snapshot, catalog/txn;
	// none on the embedded store), not in Sqlgw_store_requests: a
	// statement's requests there are those of its plan.
	StatusSnapshotClockReads = "Snapshot_clock_reads"
)

// notFromCache returns the done function of a statement the plan cache
// did not run (it clears Last_plan_from_cache), one per session rather
// than a closure per execute.
func (s *Session) notFromCache() func(error) {
	if s.uncachedDone == nil {
		s.uncachedDone = func(error) { s.lastFromCache.Store(false) }
	}
	return s.uncachedDone
}

func (g *Gateway) newSession(base *sql.BaseSession) *Session {
	return &Session{BaseSession: base, GW: g, Counters: &recorder.Counters{}}
}

func (g *Gateway) SessionBuilder(ctx context.Context, conn *mysql.Conn, addr string) (sql.Session, error) {
	host, user := "", ""
	if u, ok := conn.UserData.(sql.MysqlConnectionUser); ok {
		host, user = u.Host, u.User
	}
	client := sql.Client{Address: host, User: user, Capabilities: conn.Capabilities}
	s := g.newSession(sql.NewBaseSessionWithClientServer(addr, client, conn.ConnectionID))
	s.noteMaxExecutionTime()            // the global value the session starts with (maxexec.go)
	s.noteTxReadOnly(txReadOnlyVars[0]) // and transaction_read_only's (txreadonly.go)
	g.sessions.Store(conn.ConnectionID, s)
	return s, nil
}

// currentDB returns the current database of a connection's session.
func (g *Gateway) CurrentDB(conn uint32) string {
	s := g.Session(conn)
	if s == nil {
		return ""
	}
	return s.GetCurrentDatabase()
}

func (g *Gateway) ForgetSession(conn uint32) {
	if v, ok := g.sessions.LoadAndDelete(conn); ok {
		s := v.(*Session)
		s.releaseSnapshot(nil)
	}
}

// sessionOf returns the sqlgw session of ctx, or nil (e.g. a context built
// by the engine for background work).
func sessionOf(ctx *sql.Context) *Session {
	if ctx == nil {
		return nil
	}
	s, _ := ctx.Session.(*Session)
	return s
}

// storeCtx returns the context for the session's data requests: the
// statement's context carrying the session's counters.
func storeCtx(ctx *sql.Context) context.Context {
	if s := sessionOf(ctx); s != nil {
		return recorder.WithCounters(ctx, s.Counters)
	}
	return ctx
}

// storeCtxCounting is storeCtx whose requests also count in also.
func storeCtxCounting(ctx *sql.Context, also *recorder.Counters) context.Context {
	if s := sessionOf(ctx); s != nil {
		return recorder.WithCounters(ctx, s.Counters, also)
	}
	return recorder.WithCounters(ctx, also)
}

// storeCtxCountingIn is storeCtxCounting made in f (recorder.Frame: no
// allocation), for a read that keeps f as long as it uses the context.
func storeCtxCountingIn(ctx *sql.Context, f *recorder.Frame, also *recorder.Counters) context.Context {
	if s := sessionOf(ctx); s != nil {
		return recorder.WithCountersIn(f, ctx, s.Counters, also)
	}
	return recorder.WithCountersIn(f, ctx, also)
}

// WithoutCounters returns a context without the session's counters (and
// without any other value of ctx) that is cancelled with ctx. The
// recorder only adds counters to a context, so a clean one is built.
//
// It allocates nothing per call beyond the wrapper and registers nothing
// on ctx: it is called per row (an AUTO_INCREMENT value of a multi-row
// INSERT, GetNextAutoIncrementValue), where a context.AfterFunc on the
// statement's context each time made the statement's end run thousands
// of callbacks (issue 13, a tenth of sysbench prepare's CPU).
func WithoutCounters(ctx context.Context) context.Context {
	if ctx.Done() == nil {
		return context.Background()
	}
	return valuelessCtx{ctx}
}

// valuelessCtx is ctx's cancellation without its values or deadline: Err
// is context.Canceled once ctx is done, whatever ctx's own error, as the
// context.WithCancel child it replaces reported.
type valuelessCtx struct{ parent context.Context }

func (c valuelessCtx) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c valuelessCtx) Done() <-chan struct{}       { return c.parent.Done() }
func (c valuelessCtx) Value(any) any               { return nil }

func (c valuelessCtx) Err() error {
	if c.parent.Err() != nil {
		return context.Canceled
	}
	return nil
}

// AfterFunc lets a context derived from c (context.WithCancel) register
// on the parent directly instead of starting a goroutine to watch Done.
func (c valuelessCtx) AfterFunc(f func()) func() bool { return context.AfterFunc(c.parent, f) }

// currentTxn returns the session's open transaction, if any.
func currentTxn(ctx *sql.Context) *txn {
	s := sessionOf(ctx)
	if s == nil {
		return nil
	}
	if t, ok := ctx.GetTransaction().(*txn); ok && t != nil {
		return t
	}
	return s.Tx
}

// StartTransaction implements sql.TransactionSession.
func (s *Session) StartTransaction(ctx *sql.Context, tc sql.TransactionCharacteristic) (sql.Transaction, error) {
	s.txSeq++
	// The session's transaction_read_only too, unless the statement is
	// START TRANSACTION READ WRITE (txreadonly.go).
	tx := newTxn(uint64(s.ID())<<32|uint64(s.txSeq), tc == sql.ReadOnly || s.txReadOnly && !s.beginRW)
	s.startOneShot(tx, tc == sql.ReadOnly || s.beginRW) // a SET TRANSACTION's, if any (txreadonly.go)
	if err := s.startSnapshot(ctx, tx); err != nil {
		return nil, err
	}
	s.Tx = tx
	return s.Tx, nil
}

// CommitTransaction implements sql.TransactionSession.
func (s *Session) CommitTransaction(ctx *sql.Context, tx sql.Transaction) error {
	t, ok := tx.(*txn)
	if !ok || t == nil {
		return nil
	}
	if s.Tx == t {
		s.Tx = nil
	}
	s.endOneShot(ctx, t) // txreadonly.go
	var err error
	if t.hasWrites() {
		// (A transaction that wrote nothing has nothing to commit:
		// Gateway.commit would only walk its tables.)
		err = s.GW.commit(storeCtx(ctx), t)
	}
	s.releaseSnapshot(t)
	// Whatever happened, the buffer is spent: after a failed commit the
	// transaction is rolled back (MySQL rolls back on a deadlock), and a
	// second COMMIT, or the implicit one of the next BEGIN, is a no-op.
	if len(t.tables) > 0 {
		t.tables = map[string]*txTable{}
	}
	if err != nil {
		// go-mysql-server's COMMIT leaves BEGIN's state (ignore
		// autocommit, the transaction) in place when the commit fails;
		// ended here, the session's next statements autocommit again
		// instead of piling up in a transaction nobody commits
		// (cmd/sqlgw TestAutocommitAfterFailedCommit).
		ctx.SetIgnoreAutoCommit(false)
		ctx.SetTransaction(nil)
	}
	return err
}

// Rollback implements sql.TransactionSession.
func (s *Session) Rollback(ctx *sql.Context, tx sql.Transaction) error {
	if t, ok := tx.(*txn); ok {
		if s.Tx == t {
			s.Tx = nil
		}
		s.endOneShot(ctx, t) // txreadonly.go
		s.releaseSnapshot(t)
	}
	return nil
}

// CreateSavepoint implements sql.TransactionSession: it remembers the
// write buffer (writes are replaced, never modified in place, so a copy of
// the maps is a snapshot).
func (s *Session) CreateSavepoint(ctx *sql.Context, tx sql.Transaction, name string) error {
	t, ok := tx.(*txn)
	if !ok {
		return nil
	}
	t.dropSavepoint(name)
	t.savepoints = append(t.savepoints, savepoint{name: name, tables: t.snapshot()})
	return nil
}

// RollbackToSavepoint implements sql.TransactionSession.
func (s *Session) RollbackToSavepoint(ctx *sql.Context, tx sql.Transaction, name string) error {
	t, ok := tx.(*txn)
	if !ok {
		return nil
	}
	for i := len(t.savepoints) - 1; i >= 0; i-- {
		if strings.EqualFold(t.savepoints[i].name, name) {
			t.restore(t.savepoints[i].tables)
			t.savepoints = t.savepoints[:i+1]
			return nil
		}
	}
	return mysql.NewSQLError(mysql.ERSPDoesNotExist, "42000", "SAVEPOINT %s does not exist", name)
}

// ReleaseSavepoint implements sql.TransactionSession.
func (s *Session) ReleaseSavepoint(ctx *sql.Context, tx sql.Transaction, name string) error {
	t, ok := tx.(*txn)
	if !ok {
		return nil
	}
	if !t.dropSavepoint(name) {
		return mysql.NewSQLError(mysql.ERSPDoesNotExist, "42000", "SAVEPOINT %s does not exist", name)
	}
	return nil
}

// statusVar is a read-only session status variable backed by a counter.
type statusVar struct {
	name string
	get  func() uint64
}

func (v *statusVar) Increment(uint64) error   { return nil }
func (v *statusVar) Set(interface{}) error    { return nil }
func (v *statusVar) Value() interface{}       { return v.get() }
func (v *statusVar) Copy() sql.StatusVarValue { c := *v; return &c }
func (v *statusVar) Variable() sql.StatusVariable {
	return &sql.MySQLStatusVariable{Name: v.name, Scope: sql.StatusVariableScope_Session, Type: types.NewSystemUintType(v.name, 0, ^uint64(0)), Default: uint64(0)}
}
func (v *statusVar) String() string { return v.name }

// GetAllStatusVariables adds sqlgw's counters to the engine's.
func (s *Session) GetAllStatusVariables(ctx *sql.Context) map[string]sql.StatusVarValue {
	m := s.BaseSession.GetAllStatusVariables(ctx)
	m[StatusStoreRequests] = &statusVar{name: StatusStoreRequests, get: func() uint64 { return uint64(s.Counters.Requests.Load()) }}
	m[StatusEntitiesRead] = &statusVar{name: StatusEntitiesRead, get: func() uint64 { return uint64(s.Counters.EntitiesRead.Load()) }}
	m[StatusPlanCacheHits] = &statusVar{name: StatusPlanCacheHits, get: func() uint64 { return uint64(s.planHits.Load()) }}
	m[StatusPlanCacheMisses] = &statusVar{name: StatusPlanCacheMisses, get: func() uint64 { return uint64(s.planMisses.Load()) }}
	m[StatusLastPlanFromCache] = &statusVar{name: StatusLastPlanFromCache, get: s.lastPlanFromCache}
	m[StatusPlanCacheDirect] = &statusVar{name: StatusPlanCacheDirect, get: func() uint64 { return uint64(s.directRuns.Load()) }}
	m[StatusPlanCacheWrites] = &statusVar{name: StatusPlanCacheWrites, get: func() uint64 { return uint64(s.writeRuns.Load()) }}
	m[StatusSnapshotClockReads] = &statusVar{name: StatusSnapshotClockReads, get: func() uint64 { return uint64(s.snapReads.Requests.Load()) }}
	return m
}

func (s *Session) lastPlanFromCache() uint64 {
	if s.lastFromCache.Load() {
		return 1
	}
	return 0
}

// LastPlanFromCacheVar is the read-only session variable that says whether
// the session's previous statement ran from the plan cache (plancache.go),
// as TiDB's @@last_plan_from_cache: SELECT @@last_plan_from_cache reads
// it before the SELECT itself counts. The same flag as the status
// variable Last_plan_from_cache; SET refuses it (1238, read only).
const LastPlanFromCacheVar = "last_plan_from_cache"

func init() {
	sql.SystemVariables.AddSystemVariables([]sql.SystemVariable{&sql.MysqlSystemVariable{
		Name:    LastPlanFromCacheVar,
		Scope:   sql.GetMysqlScope(sql.SystemVariableScope_Session),
		Dynamic: false,
		Type:    types.NewSystemBoolType(LastPlanFromCacheVar),
		Default: int8(0),
	}})
}

// GetSessionVariable answers last_plan_from_cache from the session's flag,
// warning_count from the previous statement's count (warnings.go),
// identity and last_insert_id from LAST_INSERT_ID()'s value (identity.go),
// every other variable from the base session.
func (s *Session) GetSessionVariable(ctx *sql.Context, name string) (interface{}, error) {
	if len(name) == len(LastPlanFromCacheVar) && strings.EqualFold(name, LastPlanFromCacheVar) {
		return int8(s.lastPlanFromCache()), nil
	}
	if len(name) == len(WarningCountVar) && strings.EqualFold(name, WarningCountVar) {
		return uint64(s.warns.last.Load()), nil // warnings.go
	}
	if len(name) == len(ErrorCountVar) && strings.EqualFold(name, ErrorCountVar) {
		return uint64(s.warns.errors.Load()), nil // warnings.go
	}
	if isIdentityVar(name) {
		return s.GetLastQueryInfo().LastInsertId.Load(), nil // identity.go
	}
	return s.BaseSession.GetSessionVariable(ctx, name)
}

// GetAllSessionVariables adds last_plan_from_cache's, identity's and
// last_insert_id's current values to the base session's (SHOW VARIABLES).
func (s *Session) GetAllSessionVariables() map[string]interface{} {
	m := s.BaseSession.GetAllSessionVariables()
	m[LastPlanFromCacheVar] = int8(s.lastPlanFromCache())
	for _, v := range identityVars { // identity.go
		m[v] = s.GetLastQueryInfo().LastInsertId.Load()
	}
	// warning_count is read by name only (SHOW VARIABLES as
	// go-mysql-server's, whose suites list its variables).
	delete(m, WarningCountVar)
	delete(m, ErrorCountVar)
	return m
}

// GetStatusVariable returns sqlgw's counters by name, others from the base.
func (s *Session) GetStatusVariable(ctx *sql.Context, name string) (interface{}, error) {
	switch strings.ToLower(name) {
	case strings.ToLower(StatusStoreRequests):
		return uint64(s.Counters.Requests.Load()), nil
	case strings.ToLower(StatusEntitiesRead):
		return uint64(s.Counters.EntitiesRead.Load()), nil
	case strings.ToLower(StatusPlanCacheHits):
		return uint64(s.planHits.Load()), nil
	case strings.ToLower(StatusPlanCacheMisses):
		return uint64(s.planMisses.Load()), nil
	case strings.ToLower(StatusLastPlanFromCache):
		return s.lastPlanFromCache(), nil
	case strings.ToLower(StatusPlanCacheDirect):
		return uint64(s.directRuns.Load()), nil
	case strings.ToLower(StatusPlanCacheWrites):
		return uint64(s.writeRuns.Load()), nil
	case strings.ToLower(StatusSnapshotClockReads):
		return uint64(s.snapReads.Requests.Load()), nil
	}
	return s.BaseSession.GetStatusVariable(ctx, name)
}

// InReadOnlyTransaction reports whether connection conn is in a
// transaction started READ ONLY: MySQL's OK and EOF packets then carry
// SERVER_STATUS_IN_TRANS_READONLY (sqlgw/wire).
func (g *Gateway) InReadOnlyTransaction(conn uint32) bool {
	s := g.Session(conn)
	if s == nil {
		return false
	}
	t, ok := s.GetTransaction().(*txn)
	return ok && t != nil && t.readOnly
}

// session returns a connection's sqlgw session, or nil.
func (g *Gateway) Session(conn uint32) *Session {
	if v, ok := g.sessions.Load(conn); ok {
		return v.(*Session)
	}
	return nil
}

// A failed statement's writes
//
// MySQL rolls back a statement that fails; go-mysql-server's editors
// undo a failed statement's buffered writes in TableEditorIter.Close
// (DiscardChanges), but not when the statement is killed (KILL QUERY,
// KILL CONNECTION): TableEditorIter and the accumulator over it see
// the context done after a row, close the editor, which then completes
// the statement (StatementComplete), and return the context's error; the
// handler does not close the rest of the iterators, so the autocommit
// transaction is neither committed nor ended. Its rows stayed in the
// session's transaction, which go-mysql-server keeps for the session's
// next statement: the statement reported 1317 and its rows were committed
// by the next statement or by the COMMIT of the transaction it ran in
// (the client retries and inserts twice). The same happens when the
// handler returns an error without closing the iterators at all.
//
// So the session keeps the running statement's undo logs: the editors
// register their statement at StatementBegin, hand their undo log over at
// StatementComplete, and a statement that ends with an error
// (sqlgw/wire's runRetried calls Gateway.StatementFailed) has every write
// it buffered undone, the completed editors' and those left open, newest
// first; only keys whose buffered write is still the statement's own are
// undone. (Stored procedures, whose statements that succeeded MySQL does
// not undo when a later one fails, are not supported.) The logs are dropped when a statement ends (EndStatement) and
// when a command begins. A statement that committed (autocommit) left its
// logs pointing at the committed transaction's tables, which the commit
// has emptied: undoing them changes nothing.

// closeEditor unregisters e's statement; completed: its undo log if it
// completed (kept until the statement ends).
func (s *Session) closeEditor(e *editor, completed []undo) {
	s.editorsMu.Lock()
	for i := len(s.editors) - 1; i >= 0; i-- {
		if s.editors[i] == e {
			s.editors = append(s.editors[:i], s.editors[i+1:]...)
			break
		}
	}
	if len(completed) > 0 {
		s.completed = append(s.completed, completed)
	}
	s.editorsMu.Unlock()
}

// openEditor registers e's open statement.
func (s *Session) openEditor(e *editor) {
	s.editorsMu.Lock()
	s.editors = append(s.editors, e)
	s.editorsMu.Unlock()
}

// takeEdits returns and forgets the running statement's editors and logs.
func (s *Session) takeEdits() (open []*editor, completed [][]undo) {
	s.editorsMu.Lock()
	open, completed = s.editors, s.completed
	s.editors, s.completed = nil, nil
	s.editorsMu.Unlock()
	for _, e := range open {
		e.sess = nil
	}
	return open, completed
}

// dropEdits forgets the running statement's editors and logs, keeping the
// lists' arrays for the next statement (no allocation per write).
func (s *Session) dropEdits() {
	s.editorsMu.Lock()
	for i, e := range s.editors {
		e.sess = nil
		s.editors[i] = nil
	}
	clear(s.completed)
	s.editors, s.completed = s.editors[:0], s.completed[:0]
	s.editorsMu.Unlock()
}

// statementFailed undoes the writes of the statement that failed.
func (s *Session) statementFailed() {
	open, completed := s.takeEdits()
	for i := len(open) - 1; i >= 0; i-- {
		undoWrites(open[i].undo, true)
		open[i].undo = open[i].undo[:0]
	}
	for i := len(completed) - 1; i >= 0; i-- {
		undoWrites(completed[i], true)
	}
}

// StatementFailed undoes the buffered writes of connection conn's
// statement, which failed (see above).
func (g *Gateway) StatementFailed(conn uint32) {
	if s := g.Session(conn); s != nil {
		s.statementFailed()
	}
}

// CommandBegin implements sql.LifecycleAwareSession: a new statement's
// undo logs start empty.
func (s *Session) CommandBegin() error {
	s.dropEdits()
	return nil
}

// CommandEnd implements sql.LifecycleAwareSession: what the command's
// SET_VAR hints set is put back (setvarhint.go).
func (s *Session) CommandEnd() { s.restoreHintVars() }

// SessionEnd implements sql.LifecycleAwareSession.
func (s *Session) SessionEnd() {}
