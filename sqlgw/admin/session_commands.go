package admin

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"

	"github.com/sqlgw/sqlgw/sqlgw/accounts"
	"github.com/sqlgw/sqlgw/sqlgw/engine"
	"github.com/sqlgw/sqlgw/sqlgw/sqltext"
	"github.com/sqlgw/sqlgw/sqlgw/wire"
)

// Administrative statements and commands real clients send
//
// admin2Handler sits between adminHandler (maintenance.go) and go-mysql-server's
// handler and answers what go-mysql-server refuses or crashes on:
//
//   - DO expr [, expr] ... (which vitess's grammar lacks) runs as the
//     SELECT of its expressions, rows discarded, and answers OK.
//   - FLUSH PRIVILEGES, LOGS, BINARY LOGS, ENGINE LOGS, ERROR LOGS, GENERAL
//     LOGS, RELAY LOGS, SLOW LOGS, HOSTS, USER_RESOURCES, OPTIMIZER_COSTS
//     answer OK, as MySQL does. go-mysql-server's FLUSH PRIVILEGES panicked
//     (it persists its user table through a persister sqlgw does not set)
//     and the rest were "X not supported". There is nothing to reload:
//     accounts are reloaded from the store by accountsHandler (accounts.go)
//     before FLUSH PRIVILEGES gets here; sqlgw keeps no logs of its own
//     and no host cache. FLUSH STATUS resets the
//     session's sqlgw counters (Sqlgw_store_requests, Sqlgw_entities_read)
//     and go-mysql-server's session counters (Questions, Com_*) to zero,
//     as MySQL resets session status (global values are kept). A list
//     with TABLES or anything else goes to go-mysql-server unchanged.
//   - DESCRIBE|DESC|EXPLAIN tbl col_or_pattern, which go-mysql-server's
//     parser refuses, is rewritten to SHOW COLUMNS FROM tbl LIKE 'pattern'
//     (Perl DBI's column_info sends DESCRIBE `db`.`tbl` '%'): the second
//     operand is a quoted string or an identifier, both taken as a LIKE
//     pattern, as MySQL does.
//   - SELECT ... FROM db.view with no current database (view_database.go).
//   - COM_CHANGE_USER (protocol.go) ends in a COM_RESET_CONNECTION handed
//     to vitess; ComResetConnection here gives the new session the new user
//     and database.
type admin2Handler struct {
	mysql.Handler
	gw    *engine.Gateway
	conns *wire.ConnRegistry

	mu sync.Mutex
	// doStmts are the names of each connection's SQL prepared statements
	// that are DO statements (sqltext.PrepareFrom): EXECUTE answers OK.
	doStmts map[uint32]map[string]bool
}

// newAdmin2Handler wraps inner and installs the protocol commands
// (protocol.go) on the listener's connections.
func NewSessionCommands(inner mysql.Handler, gw *engine.Gateway, conns *wire.ConnRegistry, auth *accounts.AuthServer, hasDB func(*sql.Context, string) bool) *admin2Handler {
	exists := func(user, host, db string) bool {
		// As the account (the catalog shows a database only to a user
		// with privileges on it).
		s := sql.NewBaseSessionWithClientServer("", sql.Client{User: user, Address: host}, 0)
		return hasDB(sql.NewContext(context.Background(), sql.WithSession(s)), db)
	}
	conns.Proto = &wire.ProtoServer{Start: time.Now(), Auth: auth, HasDB: exists, Conns: conns}
	return &admin2Handler{Handler: inner, gw: gw, conns: conns}
}

func (a *admin2Handler) ComQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) error {
	if q, name, ok := a.prepareDo(c, query); ok {
		err := a.Handler.ComQuery(ctx, c, q, callback)
		if err != nil {
			a.forgetDoName(c, name) // a failed PREPARE leaves no statement
		}
		return err
	}
	if a.executesDo(c, query) {
		if err := a.Handler.ComQuery(ctx, c, query, func(*sqltypes.Result, bool) error { return nil }); err != nil {
			return err
		}
		return callback(&sqltypes.Result{}, false)
	}
	if sel, _, ok := sqltext.DoStatement(query); ok {
		if err := a.do(ctx, c, sel); err != nil {
			return err
		}
		return callback(&sqltypes.Result{}, false)
	}
	if ok, _, err := a.flush(ctx, c, query); ok {
		if err != nil {
			return err
		}
		return callback(&sqltypes.Result{}, false)
	}
	if db, ok := a.viewDatabase(ctx, c, query); ok { // view_database.go
		var err error
		a.withViewDatabase(c, db, func() { err = a.Handler.ComQuery(ctx, c, query, callback) })
		return err
	}
	return a.Handler.ComQuery(ctx, c, RewriteDescribe(query), callback)
}

func (a *admin2Handler) ComMultiQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) (string, error) {
	if q, name, ok := a.prepareDo(c, query); ok {
		rest, err := a.Handler.ComMultiQuery(ctx, c, q, callback)
		if err != nil {
			a.forgetDoName(c, name) // a failed PREPARE leaves no statement
		}
		return rest, err
	}
	if a.executesDo(c, query) {
		rest, err := a.Handler.ComMultiQuery(ctx, c, query, func(*sqltypes.Result, bool) error { return nil })
		if err != nil {
			return "", err
		}
		return rest, callback(&sqltypes.Result{}, rest != "")
	}
	if sel, rest, ok := sqltext.DoStatement(query); ok {
		if err := a.do(ctx, c, sel); err != nil {
			return "", err
		}
		return rest, callback(&sqltypes.Result{}, rest != "")
	}
	if ok, rest, err := a.flush(ctx, c, query); ok {
		if err != nil {
			return "", err
		}
		return rest, callback(&sqltypes.Result{}, rest != "")
	}
	if db, ok := a.viewDatabase(ctx, c, query); ok { // view_database.go
		var rest string
		var err error
		a.withViewDatabase(c, db, func() { rest, err = a.Handler.ComMultiQuery(ctx, c, query, callback) })
		return rest, err
	}
	return a.Handler.ComMultiQuery(ctx, c, RewriteDescribe(query), callback)
}

func (a *admin2Handler) ComPrepare(ctx context.Context, c *mysql.Conn, query string, prepare *mysql.PrepareData) (fields []*querypb.Field, err error) {
	if sqltext.IsDoPrepared(query) {
		// A prepared DO (sqltext.PrepareDo): prepared as its SELECT,
		// described as MySQL describes DO, with no columns.
		_, err := a.Handler.ComPrepare(ctx, c, query, prepare)
		return nil, err
	}
	if db, ok := a.viewDatabase(ctx, c, query); ok { // view_database.go
		a.withViewDatabase(c, db, func() { fields, err = a.Handler.ComPrepare(ctx, c, query, prepare) })
		return fields, err
	}
	return a.Handler.ComPrepare(ctx, c, query, prepare)
}

func (a *admin2Handler) ComStmtExecute(ctx context.Context, c *mysql.Conn, prepare *mysql.PrepareData, callback func(*sqltypes.Result) error) (err error) {
	if sqltext.IsDoPrepared(prepare.PrepareStmt) {
		// A prepared DO: its SELECT runs, its rows are discarded, the
		// answer is OK.
		if err := a.Handler.ComStmtExecute(ctx, c, prepare, func(*sqltypes.Result) error { return nil }); err != nil {
			return err
		}
		return callback(&sqltypes.Result{})
	}
	if db, ok := a.viewDatabase(ctx, c, prepare.PrepareStmt); ok { // view_database.go
		a.withViewDatabase(c, db, func() { err = a.Handler.ComStmtExecute(ctx, c, prepare, callback) })
		return err
	}
	return a.Handler.ComStmtExecute(ctx, c, prepare, callback)
}

// prepareDo recognizes SQL PREPARE name FROM '<DO ...>' (or FROM @var
// holding such a text) as query's first statement: ok, and q is query with the DO written as its marked SELECT
// (sqltext.PrepareFrom: go-mysql-server parses the string with vitess's
// grammar, which has no DO), the caller runs q; name is noted as one of
// the connection's DO statements. A PREPARE of anything else forgets the
// name (ok false, the caller goes on with query).
func (a *admin2Handler) prepareDo(c *mysql.Conn, query string) (q, name string, ok bool) {
	name, out, isDo, ok := sqltext.PrepareFrom(query, func(v string) (string, bool) { return a.userVarText(c, v) })
	if !ok {
		return "", "", false
	}
	if !isDo {
		a.forgetDoName(c, name)
		return "", "", false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.doStmts == nil {
		a.doStmts = map[uint32]map[string]bool{}
	}
	if a.doStmts[c.ConnectionID] == nil {
		a.doStmts[c.ConnectionID] = map[string]bool{}
	}
	a.doStmts[c.ConnectionID][name] = true
	return out, name, true
}

// userVarText returns the value of the connection's user variable name
// when it holds a string (PREPARE s FROM @q prepares it).
func (a *admin2Handler) userVarText(c *mysql.Conn, name string) (string, bool) {
	s := a.gw.Session(c.ConnectionID)
	if s == nil {
		return "", false
	}
	_, v, err := s.GetUserVariable(sql.NewContext(context.Background(), sql.WithSession(s)), name)
	text, ok := v.(string)
	return text, ok && err == nil
}

// forgetDoName drops name from the connection's DO statements.
func (a *admin2Handler) forgetDoName(c *mysql.Conn, name string) {
	a.mu.Lock()
	delete(a.doStmts[c.ConnectionID], name)
	a.mu.Unlock()
}

// executesDo reports whether query's first statement is EXECUTE of a
// statement prepareDo prepared from a DO: the caller runs it, discards
// its rows and answers OK, as MySQL answers DO.
func (a *admin2Handler) executesDo(c *mysql.Conn, query string) bool {
	name, ok := sqltext.ExecuteName(query)
	if !ok {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.doStmts[c.ConnectionID][name]
}

// forgetDo drops the connection's DO statement names (its session's
// prepared statements are gone).
func (a *admin2Handler) forgetDo(c *mysql.Conn) {
	a.mu.Lock()
	delete(a.doStmts, c.ConnectionID)
	a.mu.Unlock()
}

// ConnectionClosed forgets the connection's prepared DO statements.
func (a *admin2Handler) ConnectionClosed(c *mysql.Conn) {
	a.forgetDo(c)
	a.Handler.ConnectionClosed(c)
}

// do runs DO's expressions as sel, the SELECT of them
// (sqltext.DoStatement), and discards the rows: the caller answers OK, as
// MySQL answers DO. Their errors and warnings are the statement's.
// A prepared DO is answered by ComPrepare and ComStmtExecute
// (sqltext.PrepareDo).
func (a *admin2Handler) do(ctx context.Context, c *mysql.Conn, sel string) error {
	return a.Handler.ComQuery(ctx, c, sel, func(*sqltypes.Result, bool) error { return nil })
}

// flush answers a FLUSH statement go-mysql-server cannot run (see above);
// rest is the text after it for a multi-statement query. As in MySQL, it
// commits the open transaction first.
func (a *admin2Handler) flush(ctx context.Context, c *mysql.Conn, query string) (ok bool, rest string, err error) {
	opts, rest, ok := parseFlush(query)
	if !ok {
		return false, "", nil
	}
	if s := a.gw.Session(c.ConnectionID); s != nil && s.GetTransaction() != nil {
		if err := a.Handler.ComQuery(ctx, c, "COMMIT", func(*sqltypes.Result, bool) error { return nil }); err != nil {
			return true, "", err
		}
	}
	for _, o := range opts {
		if o == "STATUS" {
			if s := a.gw.Session(c.ConnectionID); s != nil {
				s.Counters.Requests.Store(0)
				s.Counters.EntitiesRead.Store(0)
				s.Counters.EntitiesWritten.Store(0)
				s.Counters.Errors.Store(0)
				// go-mysql-server's counters (Questions, Com_*, ...).
				for _, v := range s.BaseSession.GetAllStatusVariables(nil) {
					if m, ok := v.(*sql.MutableStatusVarValue); ok {
						_ = m.Set(uint64(0)) // a uint64 is what Set takes
					}
				}
			}
		}
	}
	return true, rest, nil
}

// flushOptions are the FLUSH options admin2Handler answers; the value is
// the word that must follow (LOGS) or "".
var flushOptions = map[string]string{
	"PRIVILEGES": "", "STATUS": "", "LOGS": "", "HOSTS": "", "USER_RESOURCES": "", "OPTIMIZER_COSTS": "",
	"BINARY": "LOGS", "ENGINE": "LOGS", "ERROR": "LOGS", "GENERAL": "LOGS", "RELAY": "LOGS", "SLOW": "LOGS",
}

// parseFlush recognizes FLUSH [NO_WRITE_TO_BINLOG | LOCAL] option [, option]
// ... where every option is one of flushOptions (RELAY LOGS may name a
// channel: FOR CHANNEL name). ok is false for anything else.
func parseFlush(query string) (opts []string, rest string, ok bool) {
	l := &adminLexer{s: query}
	if !l.keyword("FLUSH") {
		return nil, "", false
	}
	if !l.keyword("NO_WRITE_TO_BINLOG") {
		l.keyword("LOCAL")
	}
	for {
		w := strings.ToUpper(l.word())
		next, known := flushOptions[w]
		if !known {
			return nil, "", false
		}
		if next != "" && !l.keyword(next) {
			return nil, "", false
		}
		if w == "RELAY" && l.keyword("FOR") {
			if !l.keyword("CHANNEL") {
				return nil, "", false
			}
			if _, ok := l.ident(); !ok {
				return nil, "", false
			}
		}
		opts = append(opts, w)
		if !l.punct(',') {
			break
		}
	}
	rest, ok = statementEnd(l)
	return opts, rest, ok
}

// statementEnd checks that the lexer is at the end of a statement: the end
// of the text or a ';'. rest is what follows the ';' ("" if only space and
// comments do).
func statementEnd(l *adminLexer) (rest string, ok bool) {
	l.skipSpace()
	if l.pos >= len(l.s) {
		return "", true
	}
	if l.s[l.pos] != ';' {
		return "", false
	}
	rest = l.s[l.pos+1:]
	r := &adminLexer{s: rest}
	r.skipSpace()
	if r.pos >= len(rest) {
		rest = ""
	}
	return rest, true
}

// rewriteDescribe rewrites a first statement DESCRIBE|DESC|EXPLAIN tbl
// pattern into SHOW COLUMNS FROM tbl LIKE 'pattern' and returns query
// unchanged otherwise; the statements after it are kept.
func RewriteDescribe(query string) string {
	l := &adminLexer{s: query}
	switch strings.ToUpper(l.word()) {
	case "DESCRIBE", "DESC", "EXPLAIN":
	default:
		return query
	}
	// EXPLAIN's own forms (EXPLAIN SELECT, EXPLAIN FORMAT=..., ...) have a
	// keyword here and never a second operand after a table name.
	l.skipSpace()
	quoted := l.pos < len(l.s) && l.s[l.pos] == '`'
	tbl, ok := l.ident()
	if !ok || (!quoted && explainKeywords[strings.ToUpper(tbl)]) {
		return query
	}
	name := quoteIdent(tbl)
	if l.punct('.') {
		t2, ok := l.ident()
		if !ok {
			return query
		}
		name += "." + quoteIdent(t2)
	}
	l.skipSpace()
	var pattern string
	if l.pos < len(l.s) && (l.s[l.pos] == '\'' || l.s[l.pos] == '"') {
		p, ok := l.literal(`'"`)
		if !ok {
			return query
		}
		pattern = p
	} else {
		p, ok := l.ident()
		if !ok {
			return query
		}
		pattern = p
	}
	end := l.pos
	if _, ok := statementEnd(l); !ok {
		return query
	}
	return "SHOW COLUMNS FROM " + name + " LIKE " + sqlString(pattern) + query[end:]
}

// explainKeywords start EXPLAIN's statement forms (EXPLAIN SELECT 1,
// EXPLAIN TABLE t, EXPLAIN ANALYZE ...): never an unquoted table name.
var explainKeywords = map[string]bool{
	"SELECT": true, "WITH": true, "TABLE": true, "VALUES": true, "INSERT": true, "UPDATE": true, "DELETE": true,
	"REPLACE": true, "ANALYZE": true, "EXTENDED": true, "PARTITIONS": true, "FOR": true, "PLAN": true, "FORMAT": true,
}

// sqlString quotes s as a single-quoted SQL string literal.
func sqlString(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, `\\%`, `\%`)
	s = strings.ReplaceAll(s, `\\_`, `\_`)
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// ComResetConnection resets the session (go-mysql-server makes a new one);
// after a COM_CHANGE_USER (protocol.go) the new session gets the new user
// and database.
func (a *admin2Handler) ComResetConnection(c *mysql.Conn) error {
	a.forgetDo(c)
	cu, ok := a.conns.TakeChangeUser(c.RemoteAddr())
	if !ok {
		return a.Handler.ComResetConnection(c)
	}
	c.User = cu.User
	c.UserData = sql.MysqlConnectionUser{User: cu.User, Host: cu.Host}
	if err := a.Handler.ComResetConnection(c); err != nil {
		return err
	}
	return a.Handler.ComInitDB(c, cu.DB)
}
