package engine

// Schema features the engine evaluates and sqlgw only stores: ON UPDATE
// column expressions, generated columns (VIRTUAL and STORED) and CHECK
// constraints.
//
// The catalog keeps each of them as SQL text rendered by go-mysql-server
// (catalog.Column.OnUpdate/Generated/Virtual, catalog.Table.Checks); the
// gateway hands them back to the engine as sql.Column.OnUpdate/Generated/
// Virtual and sql.CheckDefinition, and the engine does the rest, exactly
// as for its own memory tables:
//   - ON UPDATE: the engine sets the column on every UPDATE that changes
//     the row and does not assign the column itself.
//   - Generated columns: the engine computes them on INSERT/UPDATE, rejects
//     explicit values (3105), and recomputes VIRTUAL columns on every read
//     (plan.VirtualColumnTable). sqlgw writes a VIRTUAL column's value like
//     any other (the engine passes it with the row) but never trusts it:
//     the planner does not push predicates on it to the store, and it
//     cannot be indexed, so a value stale since an ALTER TABLE ADD COLUMN
//     is never observable.
//   - CHECK constraints: the engine evaluates enforced checks on every
//     INSERT/UPDATE (3819) and verifies existing rows on ALTER TABLE ADD
//     CHECK. Names are unique per database, as in MySQL 8 (3822); unnamed
//     ones are named <table>_chk_<n>.
//
// Refused with 1235 rather than done wrong: indexes on VIRTUAL columns;
// CHECK constraints on a table with VIRTUAL columns (go-mysql-server reads
// such a table through a wrapper that hides its checks, so it would
// neither enforce nor show them); a STORED generated column added to, or
// changed on, a table with rows (the engine computes generated values for
// existing rows only for sql.RewritableTable). Dropping or renaming a
// column a generated column uses is 3108, as in MySQL 8 (MariaDB rewrites
// the expression instead). Values given for generated columns outside
// strict mode are ignored with warning 1906, as MariaDB does, so that
// mariadb-dump output restores (dump_generated_values.go); in strict mode they
// are 3105. Triggers: triggers.go.

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/planbuilder"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/sqlgw/sqlgw/catalog"
)

// exprText renders a column expression (ON UPDATE, GENERATED) for the
// catalog, parenthesized when the engine parsed it so.
func exprText(d *sql.ColumnDefaultValue) string { return defaultText(d) }

// catalogColumnFeatures copies the engine column's ON UPDATE and generated
// expressions into the catalog column.
func catalogColumnFeatures(col *catalog.Column, c *sql.Column) error {
	if c.OnUpdate != nil {
		col.OnUpdate = exprText(c.OnUpdate)
	}
	if c.Generated != nil {
		col.Generated = exprText(c.Generated)
		col.Virtual = c.Virtual
	} else if c.Virtual {
		return errUnsupported.New(fmt.Sprintf("column %q: VIRTUAL without an expression", c.Name))
	}
	return nil
}

// engineColumnFeatures rebuilds the engine column's ON UPDATE and generated
// expressions and its EXTRA text (information_schema.COLUMNS, SHOW
// COLUMNS) from the catalog column, as MySQL 8 shows them:
// "DEFAULT_GENERATED on update CURRENT_TIMESTAMP", "VIRTUAL GENERATED",
// "STORED GENERATED".
func engineColumnFeatures(ctx *sql.Context, col *sql.Column, c *catalog.Column) error {
	var extra []string
	if col.Extra != "" {
		extra = append(extra, col.Extra)
	}
	if col.Default != nil && !col.Default.IsLiteral() {
		extra = append(extra, "DEFAULT_GENERATED")
	}
	if c.OnUpdate != "" {
		d := columnExpr(ctx, c.OnUpdate, col.Type, col.Nullable)
		col.OnUpdate = d
		extra = append(extra, "on update "+onUpdateShown(d))
	}
	if c.Generated != "" {
		col.Generated = columnExpr(ctx, c.Generated, col.Type, col.Nullable)
		col.Virtual = c.Virtual
		if c.Virtual {
			extra = append(extra, "VIRTUAL GENERATED")
		} else {
			extra = append(extra, "STORED GENERATED")
		}
	}
	if c.OnUpdate != "" || c.Generated != "" {
		col.Extra = strings.Join(extra, " ")
	}
	return nil
}

// columnExpr rebuilds a column expression (DEFAULT, ON UPDATE, GENERATED)
// from its catalog text. A literal is built here; anything else is left
// for the engine to resolve when it builds the table's node (as Dolt
// does): this go-mysql-server's StringToColumnDefaultValue cannot build
// function calls or column references without a catalog.
func columnExpr(ctx *sql.Context, text string, typ sql.Type, nullable bool) *sql.ColumnDefaultValue {
	if d, err := literalExpr(ctx, text); err == nil && d.IsLiteral() {
		out := typ
		if types.IsEnum(typ) || types.IsSet(typ) {
			// go-mysql-server's SHOW CREATE TABLE prints a literal default
			// as its value converted to the column type, which for ENUM
			// and SET is the member's index: DEFAULT 'PG' read back as
			// DEFAULT '2', which a dump cannot restore. Unconverted, the
			// literal (typed as text) prints as written; the engine
			// converts the value to the column's type when it writes it.
			out = types.LongText
		}
		if v, err := sql.NewColumnDefaultValue(d.Expr, out, true, d.IsParenthesized(), nullable); err == nil {
			return v
		}
	}
	u := sql.NewUnresolvedColumnDefaultValue(text)
	u.OutType, u.ReturnNil = typ, nullable
	u.Parenthesized = strings.HasPrefix(text, "(")
	return u
}

// literalExpr parses text, reporting a panic of the parser as an error.
func literalExpr(ctx *sql.Context, text string) (d *sql.ColumnDefaultValue, err error) {
	defer func() {
		if r := recover(); r != nil {
			d, err = nil, fmt.Errorf("sqlgw: parsing %q: %v", text, r)
		}
	}()
	return planbuilder.StringToColumnDefaultValue(ctx, text)
}

// onUpdateShown is the ON UPDATE expression as MySQL prints it in EXTRA:
// CURRENT_TIMESTAMP (with its precision), not the engine's NOW().
func onUpdateShown(d *sql.ColumnDefaultValue) string {
	s := strings.Trim(d.String(), "()")
	u := strings.ToUpper(s)
	for _, fn := range []string{"NOW", "CURRENT_TIMESTAMP", "LOCALTIME", "LOCALTIMESTAMP"} {
		if u == fn || strings.HasPrefix(u, fn+"(") {
			if rest := strings.Trim(strings.TrimPrefix(u, fn), "()"); rest != "" {
				return "CURRENT_TIMESTAMP(" + rest + ")"
			}
			return "CURRENT_TIMESTAMP"
		}
	}
	return s
}

// GetChecks implements sql.CheckTable.
func (t *Table) GetChecks(ctx *sql.Context) ([]sql.CheckDefinition, error) {
	chs := t.meta().Checks
	if len(chs) == 0 {
		return nil, nil
	}
	out := make([]sql.CheckDefinition, len(chs))
	for i, ch := range chs {
		out[i] = sql.CheckDefinition{Name: ch.Name, CheckExpression: ch.Expr, Enforced: !ch.NotEnforced}
	}
	return out, nil
}

// CreateCheck implements sql.CheckAlterableTable: one catalog change. The
// engine has already verified the existing rows (ALTER TABLE ADD CHECK).
func (t *Table) CreateCheck(ctx *sql.Context, check *sql.CheckDefinition) error {
	if hasVirtual(t.info.schema.Schema) {
		return errChecksWithVirtual(t.Name())
	}
	nm, err := t.gw.Catalog.AddCheck(MetaCtx(ctx), t.db.name, t.Name(),
		catalog.Check{Name: check.Name, Expr: check.CheckExpression, NotEnforced: !check.Enforced})
	if err != nil {
		return checkError(err)
	}
	return t.refresh(ctx, nm)
}

// DropCheck implements sql.CheckAlterableTable.
func (t *Table) DropCheck(ctx *sql.Context, name string) error {
	nm, err := t.gw.Catalog.DropCheck(MetaCtx(ctx), t.db.name, t.Name(), name)
	if err != nil {
		return checkError(err)
	}
	return t.refresh(ctx, nm)
}

// checkError maps the catalog's CHECK errors to MySQL's: 3822
// ER_CHECK_CONSTRAINT_DUP_NAME and 3821 ER_CHECK_CONSTRAINT_NOT_FOUND.
func checkError(err error) error {
	switch {
	case errors.Is(err, catalog.ErrCheckExists):
		return mysql.NewSQLError(3822, "HY000", "Duplicate check constraint name (sqlgw: %s).", err.Error())
	case errors.Is(err, catalog.ErrNoCheck):
		return mysql.NewSQLError(3821, "HY000", "Check constraint is not found in the table (sqlgw: %s).", err.Error())
	}
	return mapError(err)
}

// storedGeneratedOnPopulated rejects ALTER TABLE ADD COLUMN of a STORED
// generated column on a table that has rows: the engine computes generated
// values only for tables that implement sql.RewritableTable, so the
// existing rows would read NULL. It also rejects a VIRTUAL column on a
// table with CHECK constraints (errChecksWithVirtual).
func (t *Table) storedGeneratedOnPopulated(ctx *sql.Context, c *sql.Column) error {
	if c.Virtual && len(t.meta().Checks) > 0 {
		return errChecksWithVirtual(t.Name())
	}
	if c.Generated == nil || c.Virtual {
		return nil
	}
	it, err := t.PartitionRows(ctx, singlePartition{})
	if err != nil {
		return err
	}
	defer it.Close(ctx)
	if _, err := it.Next(ctx); err == nil {
		return errUnsupported.New(fmt.Sprintf("computing the STORED generated column %q for the existing rows of table %s (declare it VIRTUAL, or alter the table while it is empty)", c.Name, t.Name()))
	} else if !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// virtualIndexError rejects an index that keys or covers a VIRTUAL
// generated column: sqlgw does not trust the stored value of a VIRTUAL
// column (it is stale for rows written before an ALTER TABLE ADD COLUMN),
// so an index on it could return wrong rows. STORED generated columns can
// be indexed like any column.
func virtualIndexError(table string, sch sql.Schema, name string, cols []sql.IndexColumn, comment string) error {
	opts, _ := catalog.ParseIndexOptions(comment)
	names := make([]string, 0, len(cols)+len(opts.Cover))
	for _, c := range cols {
		names = append(names, c.Name)
	}
	names = append(names, opts.Cover...)
	for _, n := range names {
		if i := sch.IndexOfColName(n); i >= 0 && sch[i].Virtual {
			return errUnsupported.New(fmt.Sprintf("index %s of table %s: indexes on VIRTUAL generated columns (%s) are not supported; declare the column STORED", name, table, sch[i].Name))
		}
	}
	return nil
}

// generatedRefs returns the column names a generated expression refers to
// (lower case).
func generatedRefs(text string) (map[string]bool, error) {
	st, err := sqlparser.Parse("SELECT " + text)
	if err != nil {
		return nil, err
	}
	refs := map[string]bool{}
	err = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if c, ok := n.(*sqlparser.ColName); ok {
			refs[strings.ToLower(c.Name.String())] = true
		}
		return true, nil
	}, st)
	return refs, err
}

// generatedDependency returns MySQL's 3108 (ER_DEPENDENT_BY_GENERATED_COLUMN)
// if a generated column other than column itself refers to column: the
// catalog keeps the expressions as text, so dropping or renaming a column
// they use would leave them dangling (MySQL refuses both too).
func (t *Table) generatedDependency(column string) error {
	for _, c := range t.meta().Columns {
		if c.Generated == "" || strings.EqualFold(c.Name, column) {
			continue
		}
		refs, err := generatedRefs(c.Generated)
		if err != nil {
			return err
		}
		if refs[strings.ToLower(column)] {
			return mysql.NewSQLError(3108, "HY000", "Column '%s' has a generated column dependency.", column)
		}
	}
	return nil
}

// modifyGeneratedError checks MODIFY/CHANGE COLUMN name to c: the
// generated columns using the column must keep seeing it (no rename), and
// a column becoming STORED generated, or changing its expression, needs
// the stored values recomputed, which sqlgw does not do on a table with
// rows.
func (t *Table) modifyGeneratedError(ctx *sql.Context, name string, c *sql.Column) error {
	if !strings.EqualFold(name, c.Name) {
		if err := t.generatedDependency(name); err != nil {
			return err
		}
	}
	i := t.meta().ColumnIndex(name)
	if i < 0 || c.Generated == nil {
		return nil
	}
	old := t.meta().Columns[i]
	// go-mysql-server renames a column by first rewriting the generated
	// columns that use it (ModifyColumn with the new name in the
	// expression, a column that does not exist yet: a user's MODIFY with
	// an unknown column fails analysis), then renaming it. MySQL refuses
	// the rename (3108): refuse it at the first step, before anything
	// changed.
	if old.Generated != "" {
		newRefs, err := generatedRefs(exprText(c.Generated))
		if err != nil {
			return err
		}
		for r := range newRefs {
			if t.meta().ColumnIndex(r) < 0 && !strings.EqualFold(r, c.Name) {
				oldRefs, _ := generatedRefs(old.Generated)
				for o := range oldRefs {
					if !newRefs[o] && t.meta().ColumnIndex(o) >= 0 {
						return mysql.NewSQLError(3108, "HY000", "Column '%s' has a generated column dependency.", t.meta().Columns[t.meta().ColumnIndex(o)].Name)
					}
				}
				return mysql.NewSQLError(3108, "HY000", "Column '%s' has a generated column dependency.", r)
			}
		}
	}
	if c.Virtual {
		if len(t.meta().Checks) > 0 {
			return errChecksWithVirtual(t.Name())
		}
		return nil
	}
	if old.Generated == exprText(c.Generated) && !old.Virtual {
		return nil
	}
	return t.storedGeneratedOnPopulated(ctx, c)
}

// checkNamesFree rejects, before CREATE TABLE creates anything, CHECK
// constraint names already used in the database or twice in the statement
// (3822): the engine creates the table first and its checks afterwards.
// A table of the same name is skipped: the statement then fails with 1050,
// or does nothing under IF NOT EXISTS.
func (g *Gateway) checkNamesFree(ctx *sql.Context, db, table string, checks sql.CheckConstraints) error {
	seen := map[string]bool{}
	var named bool
	for _, ch := range checks {
		if ch.Name == "" {
			continue
		}
		if seen[strings.ToLower(ch.Name)] {
			return checkError(fmt.Errorf("%w: %q", catalog.ErrCheckExists, ch.Name))
		}
		seen[strings.ToLower(ch.Name)], named = true, true
	}
	if !named {
		return nil
	}
	tables, err := g.Catalog.Tables(MetaCtx(ctx), db)
	if err != nil {
		return mapError(err)
	}
	for _, t := range tables {
		if strings.EqualFold(t.Name, table) {
			continue
		}
		for _, ch := range t.Checks {
			if seen[strings.ToLower(ch.Name)] {
				return checkError(fmt.Errorf("%w: %q (table %s)", catalog.ErrCheckExists, ch.Name, t.Name))
			}
		}
	}
	return nil
}

// errChecksWithVirtual is returned for a table that would have both CHECK
// constraints and VIRTUAL generated columns: go-mysql-server reads a
// table with VIRTUAL columns through a wrapper (plan.VirtualColumnTable)
// that hides sql.CheckTable, so it would neither enforce nor show the
// checks. Declaring the generated columns STORED avoids the wrapper.
func errChecksWithVirtual(table string) error {
	return errUnsupported.New(fmt.Sprintf("table %s: CHECK constraints on a table with VIRTUAL generated columns (declare them STORED)", table))
}

func hasVirtual(sch sql.Schema) bool {
	for _, c := range sch {
		if c.Virtual {
			return true
		}
	}
	return false
}
