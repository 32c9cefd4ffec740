package engine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/vitess/go/mysql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// The session's read-only transactions (transaction_read_only)
//
// MySQL 8.0 makes a transaction read only by START TRANSACTION READ ONLY,
// or by the session's transaction_read_only (SET SESSION TRANSACTION READ
// ONLY, SET [SESSION] transaction_read_only = 1, SET
// @@transaction_read_only = 1): every transaction the session starts then
// is read only, autocommit statements included, and a write in it is
// error 1792, until the variable is 0 again; START TRANSACTION READ WRITE
// starts a read-write one whatever the variable says. go-mysql-server
// sets the variable and reads it nowhere: writes went on. Session.
// StartTransaction reads it (txReadOnly, noted whenever it is set, as
// max_execution_time), and statementParsed notes a START TRANSACTION READ
// WRITE (beginRW).
//
// SET TRANSACTION READ ONLY / READ WRITE without SESSION or GLOBAL is
// MySQL's one-shot form: the next transaction only, then the session's
// value again. go-mysql-server makes it the session form (it sets the
// session variable for good); sqlgw refuses it with 1235 instead
// (oneShotTx, txOneShotRefused), before anything is set.

// txReadOnlyVars are the names of the variable (tx_read_only is its
// deprecated alias, a separate variable in go-mysql-server).
var txReadOnlyVars = [...]string{"transaction_read_only", "tx_read_only"}

// noteTxReadOnly reads the session's variable name (transaction_read_only
// or its alias) into txReadOnly.
func (s *Session) noteTxReadOnly(name string) {
	v, err := s.BaseSession.GetSessionVariable(nil, name)
	if err != nil {
		return
	}
	s.txReadOnly = sqlTrue(v)
}

// sqlTrue reports whether a boolean system variable's value is true.
func sqlTrue(v any) bool {
	switch n := v.(type) {
	case int8:
		return n != 0
	case int64:
		return n != 0
	case int:
		return n != 0
	case bool:
		return n
	}
	return false
}

// isTxReadOnlyVar reports whether name names transaction_read_only or
// its alias.
func isTxReadOnlyVar(name string) bool {
	for _, v := range txReadOnlyVars {
		if len(name) == len(v) && strings.EqualFold(name, v) {
			return true
		}
	}
	return false
}

// txStatementParsed notes, for the statement st being parsed, a START
// TRANSACTION READ WRITE (beginRW) and a one-shot SET TRANSACTION
// (oneShotTx).
func (s *Session) txStatementParsed(st ast.Statement) {
	s.beginRW, s.oneShotTx = false, false
	switch d := st.(type) {
	case *ast.Begin:
		s.beginRW = d != nil && d.TransactionCharacteristic == ast.TxReadWrite
	case *ast.Set:
		if d == nil {
			return
		}
		for _, e := range d.Exprs {
			if e == nil || string(e.Scope) != "" || !strings.EqualFold(e.Name.String(), "transaction") {
				continue
			}
			// READ ONLY / READ WRITE only: the one-shot ISOLATION LEVEL
			// stays go-mysql-server's session form (sqlgw has one
			// isolation).
			if v, ok := e.Expr.(*ast.SQLVal); ok {
				switch strings.ToLower(string(v.Val)) {
				case ast.TxReadOnly, ast.TxReadWrite:
					s.oneShotTx = true
				}
			}
		}
	}
}

// txOneShotRefused returns 1235 for a SET node n parsed from a one-shot
// SET TRANSACTION (see above), before it sets anything.
func txOneShotRefused(ctx *sql.Context, n sql.Node) error {
	if _, ok := n.(*plan.Set); !ok {
		return nil
	}
	s, ok := ctx.Session.(*Session)
	if !ok || !s.oneShotTx {
		return nil
	}
	s.oneShotTx = false
	return mysql.NewSQLError(mysql.ERNotSupportedYet, "42000",
		"This version of sqlgw doesn't yet support 'SET TRANSACTION without SESSION or GLOBAL (the next transaction only)': use SET SESSION TRANSACTION, or START TRANSACTION READ ONLY")
}
