package admin

import (
	"context"
	"strings"

	"github.com/dolthub/vitess/go/mysql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// A view named with its database, without a current database
//
// go-mysql-server binds a view's definition through
// Builder.bindOnlyWithDatabase, which first saves the builder's current
// database by calling currentDb(); with no current database that call
// fails, so SELECT * FROM db.v was "no database selected" even though
// every name in it is qualified (MySQL answers the rows). The binding of
// the view itself does not use the saved value: it binds in the view's
// database and restores the saved one afterwards.
//
// viewDatabase finds the statements this affects: a SELECT (or UNION, or
// a parenthesized SELECT), INSERT|REPLACE ... SELECT, UPDATE or
// single-table DELETE run with no current database, in which every
// table is named with its database, at least one of them is a view, and
// DATABASE()/SCHEMA() is not called. For those, admin2Handler makes the
// view's database current for the statement and restores "no database"
// after it: with every table qualified and DATABASE() not called, nothing
// in the statement depends on the current database, so the answer is the
// one MySQL gives. Anything else runs unchanged (and an unqualified table
// still gets "no database selected").
//
// The same holds for the binary protocol (COM_STMT_PREPARE and each
// COM_STMT_EXECUTE, which binds again); SQL PREPARE/EXECUTE is not covered.
// The parse is done only when the session has no current database.

// viewDatabase returns the database to make current for the first
// statement of query (see above); ok is false when none is needed.
func (a *admin2Handler) viewDatabase(ctx context.Context, c *mysql.Conn, query string) (db string, ok bool) {
	s := a.gw.Session(c.ConnectionID)
	if s == nil || s.GetCurrentDatabase() != "" {
		return "", false
	}
	l := &adminLexer{s: query}
	switch w := strings.ToUpper(l.word()); w {
	case "SELECT", "WITH", "INSERT", "REPLACE", "UPDATE", "DELETE":
	default:
		if w != "" || !l.punct('(') {
			return "", false
		}
	}
	st, _, err := ast.ParseOne(ctx, query)
	if err != nil {
		return "", false
	}
	switch st := st.(type) {
	case *ast.Select, *ast.SetOp, *ast.ParenSelect, *ast.Update:
	case *ast.Insert:
		if st.Table.DbQualifier.IsEmpty() {
			return "", false
		}
	case *ast.Delete:
		if len(st.Targets) > 0 { // DELETE alias FROM ...: names that are aliases
			return "", false
		}
	default:
		return "", false
	}
	viewDB := ""
	ok = true
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		switch n := n.(type) {
		case *ast.AliasedTableExpr:
			tn, isName := n.Expr.(ast.TableName)
			if !isName {
				return true, nil
			}
			q := tn.DbQualifier.String()
			if q == "" {
				ok = false // a CTE or an unqualified table: leave it to the engine
				return false, nil
			}
			if viewDB == "" {
				if _, isView, err := a.gw.Views.Get(ctx, q, tn.Name.String()); err == nil && isView {
					viewDB = q
				}
			}
		case *ast.FuncExpr:
			switch strings.ToLower(n.Name.String()) {
			case "database", "schema":
				ok = false
				return false, nil
			}
		}
		return true, nil
	}, st)
	if !ok || viewDB == "" {
		return "", false
	}
	return viewDB, true
}

// withViewDatabase runs f with db current in the connection's session,
// then restores no current database.
func (a *admin2Handler) withViewDatabase(c *mysql.Conn, db string, f func()) {
	s := a.gw.Session(c.ConnectionID)
	s.SetCurrentDatabase(db)
	defer func() {
		if s.GetCurrentDatabase() == db { // not changed by the statement
			s.SetCurrentDatabase("")
		}
	}()
	f()
}
