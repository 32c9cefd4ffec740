package engine

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/sqlgw/sqlgw/sqlgw/mysqlerr"
)

// The warning list (SHOW WARNINGS)
//
// MySQL lists a statement's conditions in the order they were raised, and
// every nondiagnostic statement starts a new list (SHOW WARNINGS, SHOW
// COUNT(*) WARNINGS and SHOW ERRORS do not). go-mysql-server's session
// keeps them in order but returns them newest first (BaseSession.Warnings),
// so SHOW WARNINGS listed them backwards and LIMIT counted from the last;
// and its QueryWithBindings, which keeps what binding warned while it
// clears the previous statement's list, takes "the warnings after the
// ones there before binding" from that reversed copy: a statement whose
// binding warns (DROP TABLE IF EXISTS of a missing table) after one that
// warned kept the previous statement's warning and lost its own.
//
// Session.Warnings returns them in MySQL's order, which makes
// QueryWithBindings' slice the binding's own warnings; it puts them back
// newest first (it expected the reversed copy), so Warn recognizes a
// warning being put back (the same *sql.Warning ClearWarnings just
// removed) and puts it before those already put back. Upstream, the fix is
// a BaseSession.Warnings in issue order and QueryWithBindings restoring
// forwards (docs/compatibility.md).
//
// Warn also words go-mysql-server's IF [NOT] EXISTS notes as MySQL 8.0:
//   - 1007 and 1008 quote the database ("Can't create database 'd';
//     database exists", go-mysql-server: no quotes and a trailing space);
//   - DROP TABLE IF EXISTS gives one 1051 note naming every missing table
//     qualified by the database, "Unknown table 'd.a,d.b'"
//     (go-mysql-server: one note per table, unqualified); DROP VIEW IF
//     EXISTS gives the same note ("Unknown view 'v'" in go-mysql-server).
//     The database is the one the statement named (DROP TABLE IF EXISTS
//     o.t notes 'o.t'), else the current one: go-mysql-server's note does
//     not say it, so the parser hook remembers it (statementParsed).
// CREATE TABLE IF NOT EXISTS and DROP VIEW IF EXISTS note as MySQL (ddlNotes).

// warnState is a session's state of the warning list.
type warnState struct {
	// last: the warning count of the session's last statement, as its OK
	// or EOF packet said (WarningCount), for @@warning_count; for a
	// statement that failed, its conditions with the error
	// (StatementError).
	last atomic.Uint32
	// errors: the errors of the last statement (0, or 1 if it failed),
	// for @@error_count.
	errors atomic.Uint32
	// clearedThis: ClearWarnings ran since the statement began
	// (StatementBegins), so the list holds its conditions only.
	clearedThis atomic.Bool

	// cleared: the warnings the last ClearWarnings removed, in MySQL's
	// order, while any may be put back (until another warning is raised).
	cleared []*sql.Warning
	// restored: how many of the list's first warnings were put back.
	restored int

	// dropDB: the database a DROP TABLE/VIEW IF EXISTS being parsed
	// named (statementParsed), for its 1051 note; "" for any other
	// statement. Used by the connection's goroutine only.
	dropDB string
	// dropIfExists: the statement being bound is that DROP ... IF EXISTS
	// naming dropDB, which may not exist (dropabsent.go).
	dropIfExists bool

	// beforeSet: the warnings listed when a SET was parsed to run
	// (statementParsed), which setStarts removes when it runs.
	beforeSet []*sql.Warning
}

// Warnings implements sql.Session: the warnings in the order they were
// raised.
func (s *Session) Warnings() []*sql.Warning {
	ws := s.BaseSession.Warnings() // a copy, newest first
	slices.Reverse(ws)
	return ws
}

// WarningCountVar is MySQL's read-only session variable warning_count:
// the number of conditions the previous statement raised (SELECT
// @@warning_count reads it before the SELECT itself resets the list).
// go-mysql-server does not define it. It is the count the previous
// statement's OK or EOF packet carried (the connection handler asks
// WarningCount for each); a statement that failed leaves it unchanged
// (MySQL counts the error).
const WarningCountVar = "warning_count"

// ErrorCountVar is MySQL's read-only session variable error_count: the
// number of errors the previous statement raised (1 if it failed, else 0;
// SHOW COUNT(*) ERRORS). go-mysql-server does not define it.
const ErrorCountVar = "error_count"

func init() {
	for _, name := range []string{WarningCountVar, ErrorCountVar} {
		sql.SystemVariables.AddSystemVariables([]sql.SystemVariable{&sql.MysqlSystemVariable{
			Name:    name,
			Scope:   sql.GetMysqlScope(sql.SystemVariableScope_Session),
			Dynamic: false,
			Type:    types.NewSystemUintType(name, 0, 65535),
			Default: uint64(0),
		}})
	}
}

// The error of a failed statement
//
// MySQL puts the error a statement failed with into the diagnostics area
// with the conditions the statement raised before it: SHOW WARNINGS lists
// it (Level Error), @@warning_count counts it, @@error_count and SHOW
// COUNT(*) ERRORS say 1. go-mysql-server sends the error packet only, and
// the list kept the previous statement's warnings when the statement
// failed before binding (a syntax error, an unknown table). The
// connection handler hands each statement's final error to
// Gateway.StatementError.

// StatementBegins notes that connection conn's next statement begins,
// before anything of it runs (the connection handler calls it first).
func (g *Gateway) StatementBegins(conn uint32) {
	if s := g.Session(conn); s != nil {
		s.warns.clearedThis.Store(false)
	}
}

// StatementError records err, the error the statement of connection conn
// failed with (as the client is sent it), in its session's list (see
// above).
func (g *Gateway) StatementError(conn uint32, err error) {
	if err == nil {
		return
	}
	if s := g.Session(conn); s != nil {
		s.statementError(err)
	}
}

func (s *Session) statementError(err error) {
	var se *mysql.SQLError
	if !errors.As(err, &se) {
		se, _ = mysql.NewSQLErrorFromError(err).(*mysql.SQLError)
		if se == nil {
			return
		}
	}
	if !s.warns.clearedThis.Load() {
		s.ClearWarnings() // the previous statement's
	}
	s.BaseSession.Warn(&sql.Warning{Level: "Error", Code: se.Number(), Message: se.Message})
	// The count the next OK or EOF packet carries is the next
	// statement's (its error packet has been sent).
	s.BaseSession.ClearWarningCount()
	s.warns.last.Store(uint32(len(s.BaseSession.Warnings())))
	s.warns.errors.Store(1)
}

// WarningCount implements sql.Session: the statement's warning count,
// which the connection handler asks for its OK or EOF packet, kept for
// @@warning_count.
func (s *Session) WarningCount() uint16 {
	n := s.BaseSession.WarningCount()
	if n == 0 && len(s.BaseSession.Warnings()) > 0 {
		// SHOW WARNINGS (go-mysql-server zeroes its count, not the
		// list): a diagnostic statement, @@warning_count stays.
		return n
	}
	s.warns.last.Store(uint32(n))
	s.warns.errors.Store(0)
	return n
}

// ClearWarnings implements sql.Session, remembering what it removed for
// Warn.
func (s *Session) ClearWarnings() {
	ws := s.Warnings()
	s.BaseSession.ClearWarnings()
	s.warns.clearedThis.Store(true)
	s.warns.cleared, s.warns.restored = nil, 0
	if s.BaseSession.WarningCount() == 0 && len(ws) > 0 && len(s.BaseSession.Warnings()) == 0 {
		s.warns.cleared = ws
	}
}

// Warn implements sql.Session: INSERT IGNORE and UPDATE IGNORE turn a
// foreign key violation into a warning, which MySQL words (and levels)
// like the error; the IF [NOT] EXISTS notes are MySQL's; a warning put
// back after ClearWarnings goes before those put back before it.
func (s *Session) Warn(w *sql.Warning) {
	if w == nil {
		s.BaseSession.Warn(w)
		return
	}
	if i := slices.Index(s.warns.cleared, w); i >= 0 {
		s.restore(w)
		return
	}
	if w.Code == mysql.ERDupIndex && s.falseDuplicateIndex(w) {
		return // dupindex.go
	}
	s.warns.cleared, s.warns.restored = nil, 0
	if w.Code == mysql.ErNoReferencedRow2 || w.Code == mysql.ERRowIsReferenced2 {
		db := s.GetCurrentDatabase()
		if err := mysqlerr.ForeignKey(mysql.NewSQLError(w.Code, "23000", "%s", w.Message), db, s.GW.Catalog); err != nil {
			var se *mysql.SQLError
			if errors.As(err, &se) && se.Message != w.Message {
				w = &sql.Warning{Level: "Warning", Code: w.Code, Message: se.Message}
			}
		}
	}
	if w.Code == mysql.ERDupEntry {
		w = dupEntryWarning(w) // editor.go
	}
	if w.Code == mysql.ERBadNullError && w.Level == "Note" {
		w = ignoredNullWarning(w)
	}
	if w.Level == "Note" {
		w = s.mysqlNote(w)
	}
	s.BaseSession.Warn(w)
}

// truncatedPattern is go-mysql-server's 1292 for a string cast to a
// number: "Truncated incorrect bigint value: x1", the SQL type's name and
// the value unquoted (quoted for some conversions).
var truncatedPattern = regexp.MustCompile(`^Truncated incorrect (.+?) value: (.*)$`)

// MySQLWarningMessage is the text MySQL 8.0 gives a warning whose code
// and go-mysql-server text are code and msg: for a 1292 for a string
// taken as a number, the kind of number and the value quoted ("Truncated
// incorrect INTEGER value: 'x1'" for any integer type, signed or not,
// "... DOUBLE value: 'abc'" for FLOAT and DOUBLE, "... DECIMAL value:
// '1.5x'" for DECIMAL(p,s)); msg itself otherwise (dates and times too).
// The connection handler words SHOW WARNINGS' rows with it
// (sqlgw/wire): the session keeps go-mysql-server's text, which its own
// engine tests assert.
func MySQLWarningMessage(code int, msg string) string {
	if code != mysql.ERTruncatedWrongValue {
		return msg
	}
	m := truncatedPattern.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	var kind string
	switch t := strings.TrimSuffix(strings.ToLower(m[1]), " unsigned"); {
	case t == "tinyint" || t == "smallint" || t == "mediumint" || t == "int" || t == "integer" || t == "bigint":
		kind = "INTEGER"
	case t == "double" || t == "float" || t == "real":
		kind = "DOUBLE"
	case t == "decimal" || strings.HasPrefix(t, "decimal("):
		kind = "DECIMAL"
	default:
		return msg
	}
	v := m[2]
	if len(v) < 2 || v[0] != '\'' || v[len(v)-1] != '\'' {
		v = "'" + v + "'"
	}
	return "Truncated incorrect " + kind + " value: " + v
}

// ignoredNullWarning words as MySQL the note go-mysql-server raises when
// INSERT IGNORE or UPDATE IGNORE stores the implicit default for a NULL
// into a NOT NULL column: MySQL's is the error it replaces, 1048 "Column
// 'c' cannot be null", at the Warning level. Another note with that code
// is kept as it is.
func ignoredNullWarning(w *sql.Warning) *sql.Warning {
	var se *mysql.SQLError
	if err := mysqlerr.Translate(mysql.NewSQLError(w.Code, "23000", "%s", w.Message), ""); errors.As(err, &se) && se.Message != w.Message {
		return &sql.Warning{Level: "Warning", Code: w.Code, Message: se.Message}
	}
	return w
}

// restore puts w, which ClearWarnings removed, back before the warnings
// put back before it (QueryWithBindings puts them back newest first); a
// 1051 note put back before another is merged with it, as MySQL gives
// one note for all the tables a DROP did not find.
func (s *Session) restore(w *sql.Warning) {
	ws := s.Warnings()
	front := ws[:s.warns.restored]
	rest := ws[s.warns.restored:]
	s.BaseSession.ClearWarnings()
	if len(front) > 0 && isUnknownTableNote(w) && isUnknownTableNote(front[0]) {
		a := strings.TrimSuffix(strings.TrimPrefix(w.Message, unknownTable), "'")
		b := strings.TrimPrefix(front[0].Message, unknownTable)
		front[0] = &sql.Warning{Level: "Note", Code: mysql.ERBadTable, Message: unknownTable + a + "," + b}
	} else {
		front = append([]*sql.Warning{w}, front...)
	}
	for _, x := range front {
		s.BaseSession.Warn(x)
	}
	for _, x := range rest {
		s.BaseSession.Warn(x)
	}
	s.warns.restored = len(front)
}

const unknownTable = "Unknown table '"

func isUnknownTableNote(w *sql.Warning) bool {
	return w.Code == mysql.ERBadTable && w.Level == "Note" && strings.HasPrefix(w.Message, unknownTable)
}

// mysqlNote words go-mysql-server's IF [NOT] EXISTS notes as MySQL.
func (s *Session) mysqlNote(w *sql.Warning) *sql.Warning {
	switch w.Code {
	case mysql.ERDbCreateExists, mysql.ERDbDropExists:
		// "Can't create database d; database exists "
		msg := strings.TrimSpace(w.Message)
		for _, verb := range []string{"Can't create database ", "Can't drop database "} {
			if rest, ok := strings.CutPrefix(msg, verb); ok {
				if name, tail, ok := strings.Cut(rest, "; "); ok && !strings.HasPrefix(name, "'") {
					return &sql.Warning{Level: w.Level, Code: w.Code, Message: verb + "'" + name + "'; " + tail}
				}
			}
		}
	case mysql.ERBadTable:
		var name string
		if rest, ok := strings.CutPrefix(w.Message, unknownTable); ok {
			name = strings.TrimSuffix(rest, "'")
		} else if rest, ok := strings.CutPrefix(w.Message, "Unknown view '"); ok {
			name = strings.TrimSuffix(rest, "'")
		} else {
			return w
		}
		db := s.warns.dropDB
		if db == "" {
			db = s.GetCurrentDatabase()
		}
		if db != "" && !strings.Contains(name, ".") {
			name = db + "." + name
		}
		return &sql.Warning{Level: w.Level, Code: w.Code, Message: unknownTable + name + "'"}
	}
	return w
}

// statementParsed is the parser hook's part for the warning list, run
// for each statement parsed to run (EXECUTE's for the prepared one):
//   - SET starts a new list, as every nondiagnostic statement in MySQL 8.0
//     (go-mysql-server clears the list for every statement but SET, which
//     kept the previous statement's warnings and count): the warnings
//     listed now go when the SET runs (setStarts);
//   - it remembers, for mysqlNote, the database a DROP TABLE or DROP VIEW
//     IF EXISTS names (go-mysql-server drops from one database per
//     statement: the first name's, else the current one), and forgets it
//     for any other statement.
func statementParsed(ctx context.Context, st ast.Statement) {
	sctx, ok := ctx.(*sql.Context)
	if !ok || sctx == nil {
		return
	}
	s, ok := sctx.Session.(*Session)
	if !ok {
		return
	}
	s.warns.dropDB, s.warns.dropIfExists = "", false
	// The SET_VAR hints (setvarhint.go).
	s.applySetVarHints(sctx, sctx.Query())
	if x, ok := st.(*ast.Execute); ok && x != nil { // EXECUTE binds the prepared statement again
		st, _ = s.GetPreparedQuery(x.Name)
	}
	s.warns.beforeSet = nil
	s.txStatementParsed(st) // txreadonly.go
	switch d := st.(type) {
	case *ast.Set:
		// Not cleared here: go-mysql-server parses a statement while it
		// binds it (Engine.bindQuery), between counting the warnings
		// before and slicing the list after at that count, which a list
		// emptied in between made panic (the connection dropped). The
		// list goes when the SET runs (setStarts).
		s.warns.beforeSet = s.Warnings()
		if len(s.warns.beforeSet) == 0 {
			s.warns.beforeSet = nil
		}
	case *ast.DDL:
		if d == nil || d.Action != ast.DropStr || !d.IfExists {
			return
		}
		switch {
		case len(d.FromTables) > 0:
			s.warns.dropDB = d.FromTables[0].DbQualifier.String()
		case len(d.FromViews) > 0:
			s.warns.dropDB = d.FromViews[0].DbQualifier.String()
		}
		s.warns.dropIfExists = s.warns.dropDB != "" // (a missing one: dropabsent.go)
	}
}

// setStarts starts a SET's warning list (statementParsed) when its node
// n is built to run: the warnings listed when it was parsed go, those
// raised since (by its binding) stay.
func setStarts(ctx *sql.Context, n sql.Node) {
	if _, ok := n.(*plan.Set); !ok {
		return
	}
	s, ok := ctx.Session.(*Session)
	if !ok || s.warns.beforeSet == nil {
		return
	}
	stale := s.warns.beforeSet
	s.warns.beforeSet = nil
	ws := s.Warnings()
	s.ClearWarnings()
	for _, w := range ws {
		if !slices.Contains(stale, w) {
			s.BaseSession.Warn(w)
		}
	}
}

// ddlNotes gives CREATE TABLE IF NOT EXISTS of an existing table (or
// view) MySQL's note 1050, and DROP VIEW IF EXISTS of missing views the
// note 1051 naming them; go-mysql-server creates or drops nothing and
// says nothing.
func ddlNotes(ctx *sql.Context, n sql.Node) {
	switch x := n.(type) {
	case *plan.CreateTable:
		if x.IfNotExists() && !x.Temporary() && x.Db != nil && tableOrViewExists(ctx, x.Db, x.Name()) {
			ctx.Session.Warn(&sql.Warning{Level: "Note", Code: mysql.ERTableExists,
				Message: fmt.Sprintf("Table '%s' already exists", x.Name())})
		}
	case *plan.DropView:
		if !x.IfExists {
			return
		}
		var missing []string
		for _, c := range x.Children() {
			d, ok := c.(*plan.SingleDropView)
			if !ok || d.Database() == nil {
				continue
			}
			vdb, ok := d.Database().(sql.ViewDatabase)
			if !ok {
				continue
			}
			if _, ok, err := vdb.GetViewDefinition(ctx, d.ViewName); err == nil && !ok {
				missing = append(missing, d.Database().Name()+"."+d.ViewName)
			}
		}
		if len(missing) > 0 {
			ctx.Session.Warn(&sql.Warning{Level: "Note", Code: mysql.ERBadTable,
				Message: unknownTable + strings.Join(missing, ",") + "'"})
		}
	}
}

func tableOrViewExists(ctx *sql.Context, db sql.Database, name string) bool {
	if _, ok, err := db.GetTableInsensitive(ctx, name); err == nil && ok {
		return true
	}
	if vdb, ok := db.(sql.ViewDatabase); ok {
		if _, ok, err := vdb.GetViewDefinition(ctx, name); err == nil && ok {
			return true
		}
	}
	return false
}
