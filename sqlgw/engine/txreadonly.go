package engine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/sqlgw/sqlgw/sqlgw/sqltext"
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
// SET TRANSACTION without SESSION or GLOBAL: see "The one-shot SET
// TRANSACTION" below.

// txReadOnlyVars are the names of the variable. tx_read_only is its old
// name (sysvaralias.go: setting either sets both).
var txReadOnlyVars = aliasedVars[0]

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
// (oneShotTx, and what it sets in oneShot).
func (s *Session) txStatementParsed(st ast.Statement) {
	s.beginRW, s.oneShotTx, s.oneShot = false, false, txOneShot{}
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
			v, ok := e.Expr.(*ast.SQLVal)
			if !ok {
				continue
			}
			switch c := strings.ToLower(string(v.Val)); c {
			case ast.TxReadOnly:
				s.oneShotTx, s.oneShot.mode = true, oneShotReadOnly
			case ast.TxReadWrite:
				s.oneShotTx, s.oneShot.mode = true, oneShotReadWrite
			default:
				if lvl, ok := strings.CutPrefix(c, "isolation level "); ok {
					s.oneShotTx = true
					s.oneShot.iso = strings.ToUpper(strings.ReplaceAll(lvl, " ", "-"))
				}
			}
		}
	}
}

// The one-shot SET TRANSACTION
//
// SET TRANSACTION READ ONLY / READ WRITE / ISOLATION LEVEL ... without
// SESSION or GLOBAL is MySQL's one-shot form: it sets the characteristics
// of the next transaction only, and changes no variable (a SELECT
// @@transaction_read_only still shows the session's value). go-mysql-
// server made it the session form, for good. sqlgw runs it itself
// (txOneShotSet, before go-mysql-server's SET sets anything):
//   - inside an active transaction it is MySQL's 1568 "Transaction
//     characteristics can't be changed while a transaction is in
//     progress": one begun by BEGIN or START TRANSACTION, or, with
//     autocommit off, one that has read or written a table;
//   - with autocommit on, the SET's own transaction ends with it: the
//     characteristics wait in nextTx for the next transaction the session
//     starts (an autocommit statement's, or START TRANSACTION's), which
//     takes them (startOneShot);
//   - with autocommit off, the transaction open (which has touched no
//     table) is the next one and takes them at once.
// The next transaction is read only or read write as the SET said, unless
// it is started READ ONLY or READ WRITE itself (START TRANSACTION READ
// WRITE after SET TRANSACTION READ ONLY is read-write, as in MySQL); its
// isolation level is the SET's, which decides how it takes snapshots
// (perStatement, snapshot.go). A transaction that had them and is ended
// by BEGIN or START TRANSACTION without having touched a table hands them
// on to the one BEGIN starts (endOneShot): the transaction the engine
// started for the BEGIN statement itself, or, with autocommit off, the
// open one, was not the next transaction in MySQL's sense.

// txOneShot is what a one-shot SET TRANSACTION sets.
type txOneShot struct {
	mode oneShotMode
	iso  string // "READ-COMMITTED", ...; "" for the session's
}

func (o txOneShot) set() bool { return o.mode != 0 || o.iso != "" }

type oneShotMode uint8

const (
	oneShotReadOnly oneShotMode = iota + 1
	oneShotReadWrite
)

// startOneShot gives the transaction tx being started the
// characteristics waiting in nextTx (explicit: it is started READ ONLY or
// READ WRITE itself).
func (s *Session) startOneShot(tx *txn, explicit bool) {
	next := s.nextTx
	if !next.set() {
		return
	}
	s.nextTx = txOneShot{}
	tx.oneShot = &next
	if !explicit && next.mode != 0 {
		tx.readOnly = next.mode == oneShotReadOnly
	}
}

// endOneShot hands the one-shot characteristics of transaction t, which
// ends, on to the next transaction if a BEGIN ends it before it touched a
// table (see above).
func (s *Session) endOneShot(ctx *sql.Context, t *txn) {
	if t.oneShot == nil || len(t.tables) > 0 || s.nextTx.set() || ctx == nil {
		return
	}
	// The statement's text (as prepared, for a binary-protocol execution).
	if w := sqltext.FirstWord(ctx.Query()); strings.EqualFold(w, "begin") || strings.EqualFold(w, "start") {
		s.nextTx = *t.oneShot
	}
}

// oneShotOpen reports whether the session's open transaction has one-shot
// characteristics (EndFailedStatement ends it in autocommit mode, as
// MySQL ends a failed autocommit statement's transaction).
func (s *Session) oneShotOpen() bool {
	tx, _ := s.GetTransaction().(*txn)
	return tx != nil && tx.oneShot != nil || s.Tx != nil && s.Tx.oneShot != nil
}

// autocommitOn reports whether the session's autocommit is on (as it is
// taken to be when it cannot be read).
func autocommitOn(ctx *sql.Context) bool {
	on, err := sessionAutocommit(ctx) // stmtvars.go
	return err != nil || on
}

// errTxCharacteristics returns MySQL's 1568
// (ER_CANT_CHANGE_TX_CHARACTERISTICS).
func errTxCharacteristics() error {
	return mysql.NewSQLError(1568, "25001", "Transaction characteristics can't be changed while a transaction is in progress")
}

// txOneShotSet runs the SET node n if it was parsed from a one-shot SET
// TRANSACTION (see above); it is nil, nil for any other node.
func txOneShotSet(ctx *sql.Context, n sql.Node) (sql.RowIter, error) {
	if _, ok := n.(*plan.Set); !ok {
		return nil, nil
	}
	s, ok := ctx.Session.(*Session)
	if !ok || !s.oneShotTx {
		return nil, nil
	}
	s.oneShotTx = false
	oneShot := s.oneShot
	cur, _ := ctx.GetTransaction().(*txn)
	autocommit := autocommitOn(ctx)
	if ctx.GetIgnoreAutoCommit() || !autocommit && cur != nil && len(cur.tables) > 0 {
		return nil, errTxCharacteristics()
	}
	s.nextTx = oneShot
	if !autocommit && cur != nil {
		s.startOneShot(cur, false) // the next transaction is the open one
	}
	return sql.RowsToRowIter(sql.NewRow(types.NewOkResult(0))), nil // as go-mysql-server's SET
}

// txConflictRefused returns MySQL's 1064 for the node n of START
// TRANSACTION READ ONLY, READ WRITE (or a PREPARE of it), which
// sqltext.TxCharacteristics found and wrote as START TRANSACTION for the
// parser.
func txConflictRefused(ctx *sql.Context, n sql.Node) error {
	s, ok := ctx.Session.(*Session)
	if !ok || !s.txConflict {
		return nil
	}
	switch n.(type) {
	case *plan.StartTransaction, *plan.PrepareQuery:
		s.txConflict = false
		return mysql.NewSQLError(mysql.ERParseError, "42000",
			"You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near '' at line 1")
	}
	return nil
}
