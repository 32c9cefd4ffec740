package engine

import (
	"io"
	"sync/atomic"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
)

// Direct UPDATE by key (issue 13)
//
// A cached UPDATE (directwrite.go) whose rows come from one index lookup
// on a sqlgw table is executed here, from its rebound plan, instead of
// through go-mysql-server's PrepQueryPlanForExecution and its iterator
// tree (exec builder, TableEditorIter, updateIter, updateSourceIter,
// accumulatorIter, strictIter, TransactionCommittingIter, TrackedRowIter):
// about a third of the CPU of sysbench's oltp_update_index once the plan
// is cached. Each step is the general path's own, in its order, with the
// same functions where they are exported:
//
//   - PrepQueryPlanForExecution: the session's validation, the
//     transaction begun if none is open, the engine's read-only and
//     write-lock checks (an UPDATE is never read-only);
//   - the rows: the plan's IndexedTableAccess built by the engine's exec
//     builder (the table's lookup, as the general path reads it: through
//     the transaction, which records what the commit checks);
//   - updateSourceIter: the explicit assignments evaluated in order on
//     the row (SetField: the conversions, errors and warnings of the
//     column's type), then, if the row changed, the derived ones (ON
//     UPDATE and generated columns); in strict mode the assignments are
//     strictSetFields, as strictUpdate makes them (strictwrite.go);
//   - updateIter: an unchanged row is not written; a changed one is
//     checked against the enforced CHECK constraints and the columns'
//     nullability, then given to the table's updater (editor.go: the
//     transaction's buffered writes, unique and global index maintenance
//     at commit, txn.go and txnindex.go); the updater's StatementBegin
//     before the first row, StatementComplete after the last or
//     DiscardChanges after an error (TableEditorIter), then its Close;
//   - strictIter: an error gets MySQL's column and row (translate);
//   - accumulatorIter: rows matched and changed (CLIENT_FOUND_ROWS makes
//     the matched count the affected rows), FOUND_ROWS and ROW_COUNT(),
//     the OK packet's "Rows matched: %d  Changed: %d  Warnings: 0";
//   - TransactionCommittingIter: an autocommit statement outside an
//     explicit transaction commits (one synced Pebble commit,
//     txnindex.go) and clears the session's transaction.
//
// An error returns as runWrite returns it (okResult does not close the
// iterators after a failed Next: no commit, the transaction left as the
// general path leaves it). The plan is taken only without IGNORE and
// RETURNING, and not for an interpreted context (stored programs); foreign
// keys and triggers are never cached (directwrite.go). Config.NoDirect
// turns this off as it does direct SELECTs. Plan_cache_writes counts these
// executes as every cached write; DirectUpdates counts them alone.
//
// Upstream: go-mysql-server would make this unnecessary with a cheaper
// build of the iterator tree of a single-table DML statement.

// directUpdates counts the UPDATEs executed directly (process-wide, for
// tests and benchmarks).
var directUpdates atomic.Int64

// DirectUpdates returns how many UPDATEs were executed directly.
func DirectUpdates() int64 { return directUpdates.Load() }

// directUpdate is the part of an UPDATE's rebound plan runDirectUpdate
// executes.
type directUpdate struct {
	update *plan.Update
	source *plan.UpdateSource
	ita    *plan.IndexedTableAccess
}

// directUpdateOf returns the parts of node, an UPDATE ... WHERE through
// one index lookup, or ok false.
func directUpdateOf(node sql.Node) (d directUpdate, ok bool) {
	u, ok := node.(*plan.Update)
	if !ok || u.Ignore || len(u.Returning) > 0 {
		return d, false
	}
	us, ok := u.Child.(*plan.UpdateSource)
	if !ok || us.Ignore {
		return d, false
	}
	ita, ok := us.Child.(*plan.IndexedTableAccess)
	if !ok {
		return d, false
	}
	if _, ok := ita.Table.(*Table); !ok {
		return d, false
	}
	return directUpdate{update: u, source: us, ita: ita}, true
}

// runDirectUpdate executes the rebound UPDATE node (see above); handled
// is false, with nothing done, when the statement must run the general
// way.
func (f *FastLane) runDirectUpdate(ctx *sql.Context, c *mysql.Conn, node sql.Node, callback func(*sqltypes.Result) error) (handled bool, err error) {
	if f.NoDirect || ctx.IsInterpreted() || !strictMode(ctx) { // non-strict: lenientwrite.go
		return false, nil
	}
	d, ok := directUpdateOf(node)
	if !ok {
		return false, nil
	}
	directUpdates.Add(1)
	res, err := f.directUpdate(ctx, d)
	if err != nil {
		return true, sql.CastSQLError(err)
	}
	setStatusFlags(ctx, c)
	return true, callback(res)
}

func (f *FastLane) directUpdate(ctx *sql.Context, d directUpdate) (*sqltypes.Result, error) {
	// PrepQueryPlanForExecution.
	if err := beginStatement(ctx); err != nil {
		return nil, err
	}
	if f.Engine.IsReadOnly() {
		return nil, sql.ErrReadOnly.New()
	}
	if f.Engine.IsServerLocked {
		return nil, sql.ErrDatabaseWriteLocked.New()
	}
	updatable, err := plan.GetUpdatable(d.source)
	if err != nil {
		return nil, f.clearAutocommit(ctx, err)
	}
	updater := updatable.Updater(ctx)
	rows, err := f.Engine.Analyzer.ExecBuilder.Build(ctx, d.ita, nil)
	if err != nil {
		return nil, f.clearAutocommit(ctx, err)
	}
	autoCommit, err := plan.IsSessionAutocommit(ctx)
	if err != nil {
		rows.Close(ctx)
		return nil, f.clearAutocommit(ctx, err)
	}
	schema := updatable.Schema(ctx)
	exprs := d.source.UpdateExprs.AllExpressions()
	nexplicit := len(d.source.UpdateExprs.ExplicitUpdateExprs())
	var matched, changed, read int
	if strictMode(ctx) { // lenientwrite.go
		exprs, _ = strictAssignments(ctx, exprs, len(exprs), &read) // strictUpdate
	}
	checks := d.update.Checks()

	// The rows: updateSourceIter, updateIter, strictIter and the
	// accumulator, one row at a time.
	updater.StatementBegin(ctx)
	rowErr := func() error {
		for n := 1; ; n++ {
			if n%safepointRows == 0 { // safepointPeriodicallyIter
				sql.SessionCommandSafepoint(ctx.Session)
			}
			old, err := rows.Next(ctx)
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			read++
			nw, err := applyAssignments(ctx, exprs, nexplicit, schema, old)
			if err != nil {
				return err
			}
			equal, err := old.Equals(ctx, nw, schema)
			if err != nil {
				return err
			}
			if !equal {
				for _, check := range checks {
					if !check.Enforced {
						continue
					}
					res, err := sql.EvaluateCondition(ctx, check.Expr, nw)
					if err != nil {
						return err
					}
					if sql.IsFalse(res) {
						return sql.ErrCheckConstraintViolated.New(check.Name)
					}
				}
				for i, col := range schema {
					if !col.Nullable && nw[i] == nil {
						return sql.ErrInsertIntoNonNullableProvidedNull.New(col.Name)
					}
				}
				if err := updater.Update(ctx, old, nw); err != nil {
					return err
				}
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			matched++
			if !equal {
				changed++
			}
		}
	}()
	// TableEditorIter.Close, then updateIter.Close.
	var closeErr error
	if rowErr != nil {
		closeErr = updater.DiscardChanges(ctx, rowErr)
	} else {
		closeErr = updater.StatementComplete(ctx)
	}
	if err := updater.Close(ctx); closeErr == nil && rowErr == nil {
		closeErr = err
	}
	if err := rows.Close(ctx); closeErr == nil && rowErr == nil {
		closeErr = err
	}
	if rowErr != nil {
		s := &strictIter{schema: schema, g: &writeGuard{rows: read}}
		return nil, s.translate(ctx, rowErr)
	}
	// The accumulator's result, kept even when closing fails.
	affected := changed
	if ctx.Client().Capabilities&mysql.CapabilityClientFoundRows != 0 {
		affected = matched
	}
	info := ctx.GetLastQueryInfo()
	info.FoundRows.Store(int64(matched))
	info.RowCount.Store(int64(affected))
	if closeErr != nil {
		return nil, closeErr
	}
	ok := types.OkResult{RowsAffected: uint64(affected), Info: plan.UpdateInfo{Matched: matched, Updated: changed}}
	// TransactionCommittingIter.
	if tx := ctx.GetTransaction(); tx != nil && autoCommit && !ctx.GetIgnoreAutoCommit() {
		if ts, isTS := ctx.Session.(sql.TransactionSession); isTS {
			if err := ts.CommitTransaction(ctx, tx); err != nil {
				return nil, err
			}
			ctx.SetTransaction(nil)
		}
	}
	return &sqltypes.Result{RowsAffected: ok.RowsAffected, InsertID: ok.InsertID, Info: ok.Info.String()}, nil
}

// safepointRows is go-mysql-server's safepointEveryNRows: a long write
// lets the session take a safepoint every so many rows.
const safepointRows = 1024

// clearAutocommit is go-mysql-server's clearAutocommitTransaction after a
// failed build: an autocommit statement's transaction is dropped.
func (f *FastLane) clearAutocommit(ctx *sql.Context, err error) error {
	if ctx.GetIgnoreAutoCommit() {
		return err
	}
	if autoCommit, aerr := plan.IsSessionAutocommit(ctx); aerr != nil {
		return aerr
	} else if autoCommit {
		ctx.SetTransaction(nil)
	}
	return err
}

// applyAssignments is go-mysql-server's applyUpdateExpressionsWithIgnore
// without IGNORE: the explicit assignments in order, then, if the row
// changed, the derived ones.
func applyAssignments(ctx *sql.Context, exprs []sql.Expression, nexplicit int, schema sql.Schema, old sql.Row) (sql.Row, error) {
	row := old
	apply := func(e sql.Expression) error {
		v, err := e.Eval(ctx, row)
		if err != nil {
			return err
		}
		r, ok := v.(sql.Row)
		if !ok {
			return plan.ErrUpdateUnexpectedSetResult.New(v)
		}
		row = r
		return nil
	}
	for _, e := range exprs[:nexplicit] {
		if err := apply(e); err != nil {
			return nil, err
		}
	}
	if len(exprs) > nexplicit {
		same, err := old.Equals(ctx, row, schema)
		if err != nil {
			return nil, err
		}
		if !same {
			for _, e := range exprs[nexplicit:] {
				if err := apply(e); err != nil {
					return nil, err
				}
			}
		}
	}
	return row, nil
}
