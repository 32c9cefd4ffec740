package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/rowexec"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// Direct INSERT ... VALUES (issue 13)
//
// A cached INSERT plan (directwrite.go) is executed without
// go-mysql-server's exec builder and row pipeline: the VALUES list of the
// rebound plan is evaluated and each row converted and handed to the
// table's editor here, in one loop, instead of through the iterators the
// builder makes of it (a values iterator, the analyzer's projection, the
// insert iterator, the table-editor iterator, sqlgw's strict wrapper and
// row counter, the accumulator that makes the OK row). Those iterators'
// per-row work is reproduced step by step, in their order, by the code
// below, which follows go-mysql-server's rowexec insertIter.Next (the
// non-IGNORE, non-REPLACE, no ON DUPLICATE KEY UPDATE path),
// TableEditorIter, accumulatorIter and insertRowHandler, and sqlgw's
// strictIter and countingIter (strictwrite.go):
//
//   - every tuple of the VALUES list is evaluated first (buildValues), a
//     failure there clears an autocommit transaction as a failed exec
//     build does;
//   - the AUTO_INCREMENT lock is taken as buildInsertInto takes it;
//   - per row: the projection (defaults, AUTO_INCREMENT), the rows-read
//     count, NOT NULL (ErrInsertIntoNonNullableProvidedNull or, for a
//     deferred default, ...DefaultNullColumn), CHECK constraints, the
//     conversion of each value to its column's type with the same errors
//     (out of range, ErrInvalidValue, the filled-in length, SRID, enum
//     and set errors), the editor's Insert (duplicate keys are the
//     editor's, as on the general path) and LAST_INSERT_ID;
//   - the editor's StatementBegin before the first row, DiscardChanges
//     after a failed row (MySQL's statement rollback) or
//     StatementComplete, then the insert's close (the AUTO_INCREMENT
//     lock released);
//   - errors get MySQL's number, column and row as strictIter gives
//     them; the OK result carries the rows affected, the first row's
//     AUTO_INCREMENT value as insert id, ROW_COUNT(), and the info
//     string's record count (insertinfo.go);
//   - the transaction-committing and process-tracking iterators are
//     go-mysql-server's own (rowexec.AddTransactionCommittingIter,
//     plan.AddTrackedRowIter), wrapped around the loop, so that an
//     autocommit INSERT commits (one synced store write, txn.go) and the
//     process list is updated exactly as before.
//
// The one conversion-time shortcut: go-mysql-server gives each value's
// conversion a context carrying the column name and the row number, used
// only by the text types' charset error; here one context per statement
// carries the current column and row (insertColumnCtx), instead of two
// context allocations per value.
//
// Plans that need more than this (IGNORE, REPLACE, ON DUPLICATE KEY
// UPDATE, RETURNING, triggers, a non-strict sql_mode (lenientwrite.go), a
// source other than a VALUES list, a destination that is not a sqlgw
// table, a read-only or locked engine)
// are executed as before, through go-mysql-server's pipeline; so is every
// cached INSERT when Config.NoDirect is set, which the differential tests
// (directwrite_diff_test.go) compare with this path.

// directInserts counts INSERTs executed by directInsert (for tests and
// benchmarks: DirectInsertCount).
var directInserts atomic.Int64

// DirectInsertCount returns how many INSERTs the process executed
// directly (directinsert.go).
func DirectInsertCount() int64 { return directInserts.Load() }

// directInsert executes the rebound INSERT plan node of the cached write
// plan p directly; handled is false (and nothing done) if the plan is not
// one it executes.
func (f *FastLane) directInsert(ctx *sql.Context, p *cachedPlan, node sql.Node) (res *sqltypes.Result, handled bool, err error) {
	ii, ok := node.(*plan.InsertInto)
	if !ok || f.NoDirect || ii.IsReplace || ii.Ignore || ii.OnDupExprs.HasUpdates() || len(ii.Returning) > 0 || ii.HasAfterTrigger {
		return nil, false, nil
	}
	if p.write.qFlags.IsSet(sql.QFlagTrigger) || f.Engine.IsReadOnly() || f.Engine.IsServerLocked {
		return nil, false, nil
	}
	if !strictMode(ctx) {
		return nil, false, nil // non-strict conversions: lenientwrite.go
	}
	var projs []sql.Expression
	values, ok := ii.Source.(*plan.Values)
	if pr, isProj := ii.Source.(*plan.Project); isProj {
		if pr.IncludesNestedIters {
			return nil, false, nil
		}
		projs = pr.Projections
		values, ok = pr.Child.(*plan.Values)
	}
	if !ok || nodeArithmetic(ctx, ii.Source) { // writeconv.go: the general path rewrites it
		return nil, false, nil
	}
	t := insertTarget(ii.Destination)
	if t == nil {
		return nil, false, nil
	}
	insertable, err := plan.GetInsertable(ii.Destination)
	if err != nil {
		return nil, false, nil
	}
	if _, isSqlgw := sql.GetUnderlyingTable(insertable).(*Table); !isSqlgw {
		return nil, false, nil
	}
	directInserts.Add(1)

	// Engine.PrepQueryPlanForExecution, before the build.
	if err := beginStatement(ctx); err != nil {
		return nil, true, err
	}
	qFlags := p.write.qFlags
	qFlags.Set(sql.QFlagDeferProjections)

	ins := &directInsertIter{ii: ii, schema: ii.Destination.Schema(ctx), projs: projs, table: insertable,
		info: wantsInsertInfo(ii)}
	// The build: the VALUES list is evaluated (rowexec buildValues), then
	// the AUTO_INCREMENT lock taken (buildInsertInto).
	if p.write.rows != nil {
		ins.rows = p.write.rows // directinsert_values.go
		err = ins.lockAutoIncrement(ctx)
	} else if ins.rows, err = evalValues(ctx, values); err == nil {
		err = ins.lockAutoIncrement(ctx)
	}
	if err != nil {
		if cerr := clearAutocommitTransaction(ctx); cerr != nil {
			return nil, true, fmt.Errorf("unable to clear autocommit transaction: %s: %w", cerr.Error(), err)
		}
		return nil, true, err
	}
	var iter sql.RowIter = ins
	if iter, err = rowexec.AddTransactionCommittingIter(ctx, &qFlags, iter); err != nil {
		ins.Close(ctx)
		if cerr := clearAutocommitTransaction(ctx); cerr != nil {
			return nil, true, fmt.Errorf("unable to clear autocommit transaction: %s: %w", cerr.Error(), err)
		}
		return nil, true, err
	}
	iter = plan.AddTrackedRowIter(ctx, node, iter)
	iter = rowexec.AddExpressionCloser(ctx, node, iter)
	res, err = okResult(ctx, iter)
	return res, true, err
}

// clearAutocommitTransaction is go-mysql-server's (engine.go): a failed
// build leaves no autocommit transaction behind.
func clearAutocommitTransaction(ctx *sql.Context) error {
	if ctx.GetIgnoreAutoCommit() {
		return nil
	}
	autocommit, err := plan.IsSessionAutocommit(ctx)
	if err != nil {
		return err
	}
	if autocommit {
		ctx.SetTransaction(nil)
	}
	return nil
}

// evalValues is rowexec buildValues without a trigger row.
func evalValues(ctx *sql.Context, v *plan.Values) ([]sql.Row, error) {
	rows := make([]sql.Row, len(v.ExpressionTuples))
	for i, et := range v.ExpressionTuples {
		vals, err := rowexec.ProjectRow(ctx, et, make(sql.Row, len(et)))
		if err != nil {
			return nil, err
		}
		rows[i] = vals
	}
	return rows, nil
}

// directInsertIter runs the whole INSERT on its first Next and returns the
// OK row, as the accumulator over the insert pipeline does; its Close is
// the accumulator's child's (nothing left to do by then).
type directInsertIter struct {
	ii       *plan.InsertInto
	schema   sql.Schema
	projs    []sql.Expression // the analyzer's projection over the VALUES list, nil if none
	table    sql.InsertableTable
	rows     []sql.Row // the evaluated VALUES list
	unlocker func()
	info     bool // INSERT's info string wanted (insertinfo.go)
	done     bool
	closed   bool
}

// lockAutoIncrement is buildInsertInto's AUTO_INCREMENT lock.
func (d *directInsertIter) lockAutoIncrement(ctx *sql.Context) error {
	if d.ii.FirstGeneratedAutoIncRowIdx < 0 {
		return nil
	}
	_, i, _ := sql.SystemVariables.GetGlobal("innodb_autoinc_lock_mode")
	lockMode, ok := i.(int64)
	if !ok {
		return fmt.Errorf("unexpected type for innodb_autoinc_lock_mode, expected int64, got %T", i)
	}
	if lockMode == 2 {
		return nil
	}
	ai, ok := sql.GetUnderlyingTable(d.table).(sql.AutoIncrementTable)
	if !ok {
		return errors.New("auto increment expression on non-AutoIncrement table. This should not be possible")
	}
	unlocker, err := ai.AutoIncrementSetter(ctx).AcquireAutoIncrementLock(ctx)
	if err != nil {
		return err
	}
	d.unlocker = unlocker
	return nil
}

func (d *directInsertIter) Next(ctx *sql.Context) (sql.Row, error) {
	if d.done {
		return nil, io.EOF
	}
	d.done = true
	ok, records, err := d.run(ctx)
	if err != nil {
		return nil, err
	}
	if d.info {
		noteInsertStats(ctx, InsertStats{Records: records})
	}
	return sql.NewRow(ok), nil
}

func (d *directInsertIter) Close(ctx *sql.Context) error {
	d.release()
	return nil
}

// release is insertIter.Close's part that is left: the AUTO_INCREMENT
// lock (the values are in memory, the editor's Close does nothing).
func (d *directInsertIter) release() {
	if !d.closed {
		d.closed = true
		if d.unlocker != nil {
			d.unlocker()
		}
	}
}

// run inserts the rows and returns the OK result and the number of rows
// read from the source, or the statement's error (translated as
// strictIter translates it).
func (d *directInsertIter) run(ctx *sql.Context) (types.OkResult, int, error) {
	d.wantAutoIncrement(ctx)
	inserter := d.table.Inserter(ctx)
	inserter.StatementBegin(ctx)
	if ed, ok := inserter.(*editor); ok && len(d.rows) > 1 {
		ed.expect(ctx, len(d.rows))
	}
	var ok types.OkResult
	records := 0
	_, err := d.insertRows(ctx, inserter, &ok, &records)
	// TableEditorIter.Close, then insertIter.Close. Unlike
	// TableEditorIter, a cancelled context (KILL QUERY, KILL
	// CONNECTION) discards the statement's rows too: the
	// statement fails with 1317 and must leave nothing behind, neither
	// now nor in the commit of the session's next statement or COMMIT.
	var cerr error
	if err != nil {
		cerr = inserter.DiscardChanges(ctx, err)
	} else {
		cerr = inserter.StatementComplete(ctx)
	}
	d.release()
	if ierr := inserter.Close(ctx); cerr == nil && err == nil {
		cerr = ierr
	}
	if err == nil {
		err = cerr
	}
	if err != nil {
		return ok, records, d.translate(ctx, err, records)
	}
	return ok, records, nil
}

// wantAutoIncrement tells the catalog how many AUTO_INCREMENT values the
// statement is about to take, one per row, when the column is not listed
// (every row takes one): a bulk INSERT's values are then reserved with one
// store write instead of one per block of 100 (catalog
// WantAutoIncrement; the values are the same).
func (d *directInsertIter) wantAutoIncrement(ctx *sql.Context) {
	t, ok := sql.GetUnderlyingTable(d.table).(*Table)
	if !ok || d.ii.FirstGeneratedAutoIncRowIdx != 0 || len(d.rows) < 2 {
		return
	}
	for _, col := range d.schema {
		if !col.AutoIncrement {
			continue
		}
		for _, name := range d.ii.ColumnNames {
			if strings.EqualFold(name, col.Name) {
				return // listed: rows may give their own values
			}
		}
		t.gw.Catalog.WantAutoIncrement(t.meta(), uint64(len(d.rows)))
		return
	}
}

// insertRows is the accumulator's loop over insertIter.Next; rowErr
// tells an error of a row (insertIter's) from a cancelled context.
func (d *directInsertIter) insertRows(ctx *sql.Context, inserter sql.RowInserter, ok *types.OkResult, records *int) (rowErr bool, err error) {
	wrapped := func(row sql.Row, err error) (bool, error) { return true, sql.NewWrappedInsertError(row, err) }
	cctx := &insertColumnCtx{Context: ctx.Context}
	colCtx := ctx.WithContext(cctx)
	firstGenerated := d.ii.FirstGeneratedAutoIncRowIdx
	aiIdx := -1
	for i, e := range d.projs {
		if _, isAI := e.(*expression.AutoIncrement); isAI {
			aiIdx = i
			break
		}
	}
	safepoint := 0
	step := func() {
		// safepointPeriodicallyIter: one count per Next of the insert.
		if safepoint++; safepoint >= 1024 {
			safepoint = 0
			sql.SessionCommandSafepoint(ctx.Session)
		}
	}
	var rowNumber int64
	for _, vrow := range d.rows {
		step()
		row := vrow
		if d.projs != nil {
			if row, err = rowexec.ProjectRow(ctx, d.projs, vrow); err != nil {
				return wrapped(nil, err)
			}
		}
		*records++
		rowNumber++
		if len(row) > len(d.schema) {
			row = row[len(row)-len(d.schema):]
		}
		for idx, col := range d.schema {
			if idx >= len(d.projs) {
				break
			}
			_, isColDefVal := d.projs[idx].(*sql.ColumnDefaultValue)
			if row[idx] == nil && !col.Nullable && types.IsEnum(col.Type) && isColDefVal {
				row[idx] = 1
			}
		}
		for idx, col := range d.schema {
			if !col.Nullable && row[idx] == nil {
				if d.ii.DeferredDefaults.Contains(idx) {
					return wrapped(row, sql.ErrInsertIntoNonNullableDefaultNullColumn.New(col.Name))
				}
				return wrapped(row, sql.ErrInsertIntoNonNullableProvidedNull.New(col.Name))
			}
		}
		for _, check := range d.ii.Checks() {
			if !check.Enforced {
				continue
			}
			res, err := sql.EvaluateCondition(ctx, check.Expr, row)
			if err != nil {
				return wrapped(row, err)
			}
			if sql.IsFalse(res) {
				return wrapped(row, sql.ErrCheckConstraintViolated.New(check.Name))
			}
		}
		origRow := make(sql.Row, len(row))
		copy(origRow, row)
		for idx, col := range d.schema {
			if row[idx] == nil {
				continue
			}
			val := row[idx]
			if str, isStr := val.(string); isStr && stringAsIs(col.Type, str) {
				continue // converted to itself
			}
			// Dates written as numbers, invalid and zero dates, blank
			// strings into numbers (writeconv.go), as the general path.
			_, isDefault := d.projs[idx].(*sql.ColumnDefaultValue) // stored unchecked, zerodate.go
			val, cErr := writeValue(ctx, col, val, int(rowNumber), true, types.IsTime(col.Type) && !isDefault)
			if cErr != nil {
				return wrapped(origRow, cErr)
			}
			cctx.column, cctx.row = col.Name, rowNumber
			var converted any
			var inRange sql.ConvertInRange
			if typ, ok := col.Type.(sql.RoundingNumberType); ok {
				converted, inRange, cErr = typ.ConvertRound(ctx, val)
			} else {
				converted, inRange, cErr = col.Type.Convert(colCtx, val)
			}
			if cErr == nil && inRange != sql.InRange {
				cErr = sql.ErrValueOutOfRange.New(val, col.Type)
			}
			if sql.ErrTruncatedIncorrect.Is(cErr) {
				cErr = sql.ErrInvalidValue.New(val, col.Type)
			}
			if cErr != nil {
				switch {
				case types.ErrLengthBeyondLimit.Is(cErr):
					cErr = types.ErrLengthBeyondLimit.New(row[idx], col.Name)
				case sql.ErrNotMatchingSRID.Is(cErr):
					cErr = sql.ErrNotMatchingSRIDWithColName.New(col.Name, cErr)
				case types.ErrConvertingToEnum.Is(cErr), sql.ErrInvalidSetValue.Is(cErr), sql.ErrConvertingToSet.Is(cErr):
					cErr = types.ErrDataTruncatedForColumnAtRow.New(col.Name, rowNumber)
				}
				return wrapped(origRow, cErr)
			}
			row[idx] = converted
		}
		if err := inserter.Insert(ctx, row); err != nil {
			return wrapped(row, err)
		}
		if firstGenerated >= 0 {
			if firstGenerated == 0 && aiIdx >= 0 {
				ctx.GetLastQueryInfo().LastInsertId.Store(toInt64(row[aiIdx]))
			} else if firstGenerated == 0 {
				ctx.GetLastQueryInfo().LastInsertId.Store(0)
			}
			firstGenerated--
		}
		// TableEditorIter and the accumulator look at the context
		// after each row.
		if err := ctx.Err(); err != nil {
			return false, err
		}
		// insertRowHandler.handleRowUpdate.
		if ok.RowsAffected == 0 && aiIdx >= 0 {
			ok.InsertID = uint64(toInt64(row[aiIdx]))
		}
		ok.RowsAffected++
	}
	step() // the accumulator's last Next (io.EOF)
	ctx.GetLastQueryInfo().RowCount.Store(int64(ok.RowsAffected))
	return false, nil
}

// translate is strictIter.translate for the insert's errors (at: the
// rows read from the source when it failed).
func (d *directInsertIter) translate(ctx *sql.Context, err error, read int) error {
	s := &strictIter{schema: d.schema, g: &writeGuard{rows: read}}
	return s.translate(ctx, err)
}

// insertColumnCtx is the context a value's conversion gets: go-mysql-server
// gives each one context.WithValue(ctx, ColumnNameKey, column) and
// RowNumberKey, row; this one answers both for the value being converted.
type insertColumnCtx struct {
	context.Context
	column string
	row    int64
}

func (c *insertColumnCtx) Value(key any) any {
	switch key {
	case types.ColumnNameKey:
		return c.column
	case types.RowNumberKey:
		return c.row
	}
	return c.Context.Value(key)
}

// stringAsIs reports whether go-mysql-server's conversion of the string s
// to the column type t (types.StringType.Convert, ConvertToBytes) is s
// itself: t is CHAR or VARCHAR and s has no more bytes than t has
// characters, or TEXT and s fits its bytes, and s is valid UTF-8 (an
// invalid string is rejected or converted by the column's character set).
// The conversion would copy s twice to make the same string.
func stringAsIs(t sql.Type, s string) bool {
	st, ok := t.(types.StringType)
	if !ok {
		return false
	}
	switch st.Type() {
	case querypb.Type_CHAR, querypb.Type_VARCHAR:
		if int64(len(s)) > st.MaxCharacterLength() {
			return false
		}
	case querypb.Type_TEXT:
		if int64(len(s)) > st.MaxByteLength() {
			return false
		}
	default:
		return false
	}
	if cs := st.Collation().CharacterSet(); cs != sql.CharacterSet_utf8mb4 && unencodable(cs.Encoder(), s) >= 0 {
		return false // charsetwrite.go
	}
	return utf8.ValidString(s)
}

// toInt64 is rowexec's toInt64 (insertIter.getAutoIncVal).
func toInt64(x interface{}) int64 {
	switch x := x.(type) {
	case int:
		return int64(x)
	case uint:
		return int64(x)
	case int8:
		return int64(x)
	case uint8:
		return int64(x)
	case int16:
		return int64(x)
	case uint16:
		return int64(x)
	case int32:
		return int64(x)
	case uint32:
		return int64(x)
	case int64:
		return x
	case uint64:
		return int64(x)
	case float32:
		return int64(x)
	case float64:
		return int64(x)
	default:
		panic(fmt.Sprintf("Expected a numeric auto increment value, but got %T", x))
	}
}
