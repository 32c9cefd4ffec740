package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
)

// CREATE TABLE ... SELECT is atomic
//
// MySQL 8.0 makes CREATE TABLE ... SELECT (CTAS) an atomic DDL statement:
// when inserting the selected rows fails (a value out of range for a
// declared column, a duplicate key, a failing CHECK, KILL QUERY), the
// table does not exist afterwards. go-mysql-server runs CTAS as
// plan.TableCopier: it creates the table (the catalog commits it at once),
// then inserts the rows through an INSERT iterator, and on an error there
// leaves the new table behind, with whatever rows were written.
//
// buildCreateSelect runs the TableCopier itself (the priority builder,
// explain.go) and drops the table it created whenever the statement fails:
// while creating it (a secondary index or check after the table), while
// building the insert, or while inserting (the iterator's Next or Close).
// The drop goes through Database.DropTable, which removes the catalog
// entry and, after the catalog commit, the physical table and its index
// tables (catalog.DropTable), so no row or index entity written before the
// error stays. A table that existed before the statement (CREATE TABLE IF
// NOT EXISTS ... SELECT) is never dropped, and, as in MySQL 8.0, gets
// no rows: the statement only notes that it exists.
//
// What a crash holds: the catalog commits the table before the first row
// is inserted, so a process that dies in the middle of a CTAS leaves the
// table, with the rows committed so far, visible after restart (MySQL 8.0
// recovers the atomic DDL from its redo log and has no such table).

// buildCreateSelect builds tc (CREATE TABLE ... SELECT) so that a failure
// drops the table the statement created. It returns nil for any other
// TableCopier (INSERT INTO an empty table's copy), which the engine builds.
func (e explainBuilder) buildCreateSelect(ctx *sql.Context, tc *plan.TableCopier, row sql.Row) (sql.RowIter, error) {
	ct, ok := tc.Destination.(*plan.CreateTable)
	if !ok {
		return nil, nil
	}
	db := tc.Database()
	if db == nil {
		return nil, nil
	}
	_, existed, err := db.GetTableInsensitive(ctx, ct.Name())
	if err != nil {
		return nil, err
	}
	if existed && ct.IfNotExists() {
		// MySQL 8.0: when the table exists, CREATE TABLE IF NOT EXISTS
		// ... SELECT copies nothing into it (note 1050 only, warnings.go).
		if _, err := e.exec.Build(ctx, ct, row); err != nil {
			return nil, err
		}
		return sql.RowsToRowIter(sql.Row{types.NewOkResult(0)}), nil
	}
	if _, err := e.exec.Build(ctx, ct, row); err != nil {
		// Nothing was created by this statement (or a secondary index,
		// check or foreign key after the table failed: the table is new
		// if it did not exist before).
		if !existed && !sql.ErrTableAlreadyExists.Is(err) {
			dropCreated(ctx, db, ct.Name())
		}
		return nil, err
	}
	undo := func() {}
	if !existed {
		undo = func() { dropCreated(ctx, db, ct.Name()) }
	}
	// The rest of plan.TableCopier.ProcessCreateTable: sqlgw's databases
	// are no sql.TableCopierDatabase, so the rows always go in through an
	// INSERT of the SELECT (resolveCreateSelect gives no IGNORE/REPLACE).
	table, ok, err := db.GetTableInsensitive(ctx, ct.Name())
	if err == nil && !ok {
		err = sql.ErrTableNotFound.New(ct.Name())
	}
	if err != nil {
		undo()
		return nil, err
	}
	src, err := createSelectSource(ctx, ct, table, tc.Source)
	if err != nil {
		undo()
		return nil, err
	}
	var ins sql.Node = plan.NewInsertInto(db, plan.NewResolvedTable(table, db, nil), src, false, nil, nil, false)
	if checks, err := createSelectChecks(ctx, ct, table); err != nil {
		undo()
		return nil, err
	} else if len(checks) > 0 {
		ins = ins.(*plan.InsertInto).WithChecks(checks)
	}
	it, err := e.exec.Build(ctx, ins, row)
	if err != nil {
		undo()
		return nil, err
	}
	return &createSelectIter{inner: it, undo: undo}, nil
}

// createSelectSource returns the SELECT's rows laid out as the created
// table's columns: MySQL matches a selected column to the table's column
// of the same name (CREATE TABLE t (b INT, a INT) SELECT 1 a, 2 b puts 1
// in a), and a declared column the SELECT does not give gets its
// default (NULL without one; an AUTO_INCREMENT column its next value).
// The INSERT of go-mysql-server's TableCopier took the selected values in
// order, and a declared column beyond them read past the row (a panic:
// "Lost connection" for CREATE TABLE t (b INT DEFAULT 7) SELECT 5 a).
func createSelectSource(ctx *sql.Context, ct *plan.CreateTable, table sql.Table, src sql.Node) (sql.Node, error) {
	sch := table.Schema(ctx)
	ssch := src.Schema(ctx)
	same := len(sch) == len(ssch)
	for i := 0; same && i < len(sch); i++ {
		same = strings.EqualFold(sch[i].Name, ssch[i].Name)
	}
	if same {
		return src, nil
	}
	declared := ct.PkSchema().Schema
	proj := make([]sql.Expression, len(sch))
	for i, c := range sch {
		if at := ssch.IndexOfColName(c.Name); at >= 0 {
			sc := ssch[at]
			proj[i] = expression.NewGetFieldWithTable(at, 0, sc.Type, sc.DatabaseSource, sc.Source, sc.Name, sc.Nullable)
			continue
		}
		var def sql.Expression
		if at := declared.IndexOfColName(c.Name); at >= 0 && declared[at].Default != nil && !c.AutoIncrement {
			def = declared[at].Default
		}
		if def == nil && !c.Nullable && !c.AutoIncrement && c.Generated == nil {
			var err error
			if def, err = noDefault(ctx, c); err != nil {
				return nil, err
			}
		}
		if def == nil {
			def = expression.NewLiteral(nil, types.Null)
		}
		if c.AutoIncrement {
			ai, err := expression.NewAutoIncrementForColumn(ctx, table, c, def)
			if err != nil {
				return nil, err
			}
			def = ai
		}
		proj[i] = expression.NewAlias(c.Name, def)
	}
	return plan.NewProject(proj, src), nil
}

// noDefault is the value of a NOT NULL column without a default that a
// CTAS's SELECT does not give, as MySQL 8.0 gives it: before inserting
// any row (so also when the SELECT has none), MySQL checks that every
// such column gets a value (check_that_all_fields_are_given_values): in
// strict mode the statement fails with 1364 "Field 'b' doesn't have a
// default value" (and the table is not created); otherwise it warns so,
// once, and the rows get the type's implicit default (0, the empty
// string, the zero date, JSON null). An ENUM takes its first member,
// without a word. (A NULL the SELECT gives
// for such a column is 1048, per row, as for INSERT ... SELECT.)
func noDefault(ctx *sql.Context, c *sql.Column) (sql.Expression, error) {
	if et, ok := c.Type.(sql.EnumType); ok {
		return expression.NewLiteral(uint16(1), et), nil
	}
	if strictMode(ctx) {
		return nil, sql.ErrInsertIntoNonNullableDefaultNullColumn.New(c.Name)
	}
	ctx.Session.Warn(&sql.Warning{Level: "Warning", Code: mysql.ERNoDefaultForField, Message: fmt.Sprintf("Field '%s' doesn't have a default value", c.Name)})
	zero := c.Type.Zero()
	if types.IsJSON(c.Type) {
		zero = types.JSONDocument{Val: nil}
	}
	return expression.NewLiteral(zero, c.Type), nil
}

// createSelectChecks returns the CHECK constraints of the table a CTAS
// created, for its inserts: MySQL enforces them on the selected rows
// (3819, and the table is not created); go-mysql-server's TableCopier
// inserts without them. The expressions are the statement's own
// (ct.Checks(), resolved over the declared columns), their columns
// indexed by name in the created table's schema (declared and selected
// columns); the names and enforcement are the table's (its catalog named
// the unnamed ones, t_chk_1, ...), in the same order.
func createSelectChecks(ctx *sql.Context, ct *plan.CreateTable, table sql.Table) (sql.CheckConstraints, error) {
	decl := ct.Checks()
	if len(decl) == 0 {
		return nil, nil
	}
	ctab, ok := table.(sql.CheckTable)
	if !ok {
		return nil, nil
	}
	defs, err := ctab.GetChecks(ctx)
	if err != nil {
		return nil, err
	}
	if len(defs) != len(decl) {
		return nil, fmt.Errorf("CREATE TABLE ... SELECT: table %s has %d CHECK constraints, the statement declared %d", ct.Name(), len(defs), len(decl))
	}
	sch := table.Schema(ctx)
	out := make(sql.CheckConstraints, 0, len(decl))
	for i, c := range decl {
		if !defs[i].Enforced {
			continue
		}
		x, _, err := transform.Expr(ctx, c.Expr, func(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
			gf, ok := e.(*expression.GetField)
			if !ok {
				return e, transform.SameTree, nil
			}
			at := sch.IndexOfColName(gf.Name())
			if at < 0 {
				return nil, transform.SameTree, sql.ErrColumnNotFound.New(gf.Name())
			}
			return gf.WithIndex(at), transform.NewTree, nil
		})
		if err != nil {
			return nil, err
		}
		out = append(out, &sql.CheckConstraint{Name: defs[i].Name, Expr: x, Enforced: true})
	}
	return out, nil
}

// dropCreated drops the table name of db that a failed CTAS created. The
// statement's context may be cancelled (KILL QUERY): the drop runs without
// its cancellation. It is best effort: the statement's own error is what
// the client gets.
func dropCreated(ctx *sql.Context, db sql.Database, name string) {
	dropper, ok := db.(sql.TableDropper)
	if !ok {
		return
	}
	dctx := ctx.WithContext(context.WithoutCancel(ctx.Context))
	if _, exists, err := db.GetTableInsensitive(dctx, name); err != nil || !exists {
		return
	}
	_ = dropper.DropTable(dctx, name)
}

// createSelectIter is the iterator of a CTAS's inserts: when one of them
// fails, it drops the new table at once. The engine does not close a
// statement's iterators after an error (its TransactionCommittingIter
// would commit on Close); the rows the failed statement wrote are still
// uncommitted writes of its transaction, which the failure rolls back,
// and any rows flushed before go with the physical table.
type createSelectIter struct {
	inner sql.RowIter
	undo  func()
}

var _ sql.MutableRowIter = (*createSelectIter)(nil)

// GetChildIter and WithChildIter let the engine's FinalizeIters reach the
// INSERT's iterator beneath (its accumulator, which turns the inserted
// rows into the statement's one OK result, is found by the iterator's
// type).
func (i *createSelectIter) GetChildIter() sql.RowIter { return i.inner }

func (i *createSelectIter) WithChildIter(child sql.RowIter) sql.RowIter {
	return &createSelectIter{inner: child, undo: i.undo}
}

func (i *createSelectIter) Next(ctx *sql.Context) (sql.Row, error) {
	r, err := i.inner.Next(ctx)
	if err != nil && !errors.Is(err, io.EOF) {
		i.failed()
	}
	return r, err
}

func (i *createSelectIter) Close(ctx *sql.Context) error {
	err := i.inner.Close(ctx)
	if err != nil {
		i.failed()
	}
	return err
}

// failed drops the new table, once.
func (i *createSelectIter) failed() {
	i.undo()
	i.undo = func() {}
}
