package engine

import (
	"context"
	"sync/atomic"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// Prepared BEGIN and COMMIT without go-mysql-server's executor
//
// sysbench's oltp_read_only brackets every transaction with a prepared
// BEGIN and COMMIT. go-mysql-server's handler ran each through doQuery:
// a new context, the binder and the analyzer, the exec builder and its
// iterator wrappers, log entries; about 3% of sqlgw's CPU under that
// workload for two statements that only start and end a transaction.
// StmtExecute (plancache.go) runs a prepared BEGIN (or START TRANSACTION
// without characteristics) and COMMIT here instead, with the same effects
// as that path, step by step:
//
//   - the statement's bookkeeping as for a direct SELECT (beginStatement:
//     the statement metrics, the process list entry, the session's command
//     lock, Questions); go-mysql-server counts neither Com_begin nor
//     Com_commit, and neither is counted here;
//   - Engine.QueryWithBindings: the session's validation and a transaction
//     started if the session has none (direct.go's beginStatement), the
//     warnings cleared (the binder clears them for every statement but
//     SHOW WARNINGS and SET);
//   - the exec builder's StartTransaction: the current transaction
//     committed, a read-write one started, autocommit ignored until it
//     ends; its Commit: the transaction committed, autocommit no longer
//     ignored, no transaction;
//   - the iterator wrappers' Close: the transaction-committing wrapper has
//     nothing to do after either (BEGIN ignores autocommit, COMMIT leaves
//     no transaction), the process wrapper sets ROW_COUNT() to -1 and
//     FOUND_ROWS() to 0 (the statement is neither DDL nor a write, and
//     returned no rows);
//   - the handler: the status flags (autocommit, in transaction), then an
//     OK result with no fields, and the session's last statement not from
//     the plan cache (@@last_plan_from_cache 0), as for any statement the
//     plan cache does not serve.
//
// Only statements that cannot fail once started take this path: the
// transaction they commit (BEGIN's implicit commit, COMMIT's) must have
// buffered no write, since Session.CommitTransaction fails only in the
// store commit of writes; and the statement must have no parameters.
// A commit of writes, BEGIN with characteristics (READ ONLY, WITH
// CONSISTENT SNAPSHOT), ROLLBACK and text statements go to
// go-mysql-server as before. Config.NoDirect turns this off with the rest
// of direct execution; TestTxControlDifferential compares both paths.

// txControls counts the BEGINs and COMMITs run here (TxControlCount, for
// tests).
var txControls atomic.Int64

// TxControlCount returns the number of prepared BEGINs and COMMITs run
// without go-mysql-server's executor since the process started.
func TxControlCount() int64 { return txControls.Load() }

// txControlOf reports whether stmt is a BEGIN (begin true) or COMMIT this
// file runs.
func txControlOf(stmt sqlparser.Statement) (begin, ok bool) {
	switch st := stmt.(type) {
	case *sqlparser.Begin:
		return true, st.TransactionCharacteristic == ""
	case *sqlparser.Commit:
		return false, true
	}
	return false, false
}

// stmtTxControl runs the prepared statement query if it is a BEGIN or
// COMMIT this file runs (see above); handled is false, with nothing done,
// otherwise.
func (f *FastLane) stmtTxControl(ctx context.Context, c *mysql.Conn, s *Session, prepare *mysql.PrepareData, callback func(*sqltypes.Result) error) (handled bool, err error) {
	if f.NoDirect || len(prepare.BindVars) > 0 {
		return false, nil
	}
	stmt, ok := preparedStatement(s, prepare.PrepareStmt)
	if !ok {
		return false, nil
	}
	begin, ok := txControlOf(stmt)
	if !ok {
		return false, nil
	}
	if cur := s.GetTransaction(); cur != nil {
		if t, isTxn := cur.(*txn); !isTxn || t == nil || t.hasWrites() {
			return false, nil // its commit may fail: go-mysql-server's path
		}
	}
	txControls.Add(1)
	err = f.txControl(f.queryContext(ctx, c, s, prepare.PrepareStmt), c, prepare.PrepareStmt, begin, callback)
	s.lastFromCache.Store(false) // as notFromCache's done, whatever the outcome
	return true, err
}

// txControl is stmtTxControl's run of BEGIN or COMMIT.
func (f *FastLane) txControl(sqlCtx *sql.Context, c *mysql.Conn, query string, begin bool, callback func(*sqltypes.Result) error) (err error) {
	sqlCtx, end, err := f.beginStatement(sqlCtx, query, "")
	if err != nil {
		return err
	}
	defer func() { end.done(err) }()
	if err := beginStatement(sqlCtx); err != nil { // direct.go
		return sql.CastSQLError(err)
	}
	sqlCtx.ClearWarnings()
	ts := sqlCtx.Session.(sql.TransactionSession) // (beginStatement started one through it)
	if begin {
		if cur := sqlCtx.GetTransaction(); cur != nil {
			if err := ts.CommitTransaction(sqlCtx, cur); err != nil {
				return sql.CastSQLError(err)
			}
		}
		tx, err := ts.StartTransaction(sqlCtx, sql.ReadWrite)
		if err != nil {
			return sql.CastSQLError(err)
		}
		sqlCtx.SetTransaction(tx)
		sqlCtx.SetIgnoreAutoCommit(true)
	} else if cur := sqlCtx.GetTransaction(); cur != nil {
		if err := ts.CommitTransaction(sqlCtx, cur); err != nil {
			return sql.CastSQLError(err)
		}
		sqlCtx.SetIgnoreAutoCommit(false)
		sqlCtx.SetTransaction(nil)
	}
	info := sqlCtx.GetLastQueryInfo()
	info.RowCount.Store(-1)
	info.FoundRows.Store(0)
	setStatusFlags(sqlCtx, c)
	return callback(&sqltypes.Result{Fields: []*querypb.Field{}})
}
