package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/vitess/go/mysql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/sqlgw/sqlgw/catalog"
)

// Triggers
//
// The catalog stores each trigger in its table's record
// (catalog.Table.Triggers): the CREATE TRIGGER statement as the engine
// received it, its SQL mode and creation time. go-mysql-server parses and
// runs them itself (BEFORE/AFTER INSERT/UPDATE/DELETE, NEW/OLD, FOLLOWS/
// PRECEDES); it asks the database for them (GetTriggers) when it plans
// every INSERT, UPDATE and DELETE, which is served from the catalog's
// cached snapshot. Dropping a table drops its triggers, as in MySQL.
// Renaming a table that has triggers is refused (1235): the stored
// statements name the table, and rewriting them is not done.

var _ sql.TriggerDatabase = (*Database)(nil)

// GetTriggers implements sql.TriggerDatabase.
func (d *Database) GetTriggers(ctx *sql.Context) ([]sql.TriggerDefinition, error) {
	tables, err := d.gw.Catalog.Tables(MetaCtx(ctx), d.name)
	if err != nil {
		return nil, mapError(err)
	}
	var out []sql.TriggerDefinition
	for _, t := range tables {
		for _, tr := range t.Triggers {
			out = append(out, sql.TriggerDefinition{Name: tr.Name, CreateStatement: tr.Create,
				CreatedAt: time.Unix(0, tr.CreatedAt).UTC(), SqlMode: tr.SQLMode})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt.Before(out[j].CreatedAt) })
	if len(out) > 0 && !strings.EqualFold(ctx.GetCurrentDatabase(), d.name) && isDML(ctx.Query()) {
		// go-mysql-server resolves the stored statements in the session's
		// current database and silently skips those that do not resolve:
		// the triggers would not run. Refused rather than skipped.
		return nil, errUnsupported.New(fmt.Sprintf("writing to database %s, which has triggers, from another current database (%q): USE %s first", d.name, ctx.GetCurrentDatabase(), d.name))
	}
	return out, nil
}

// isDML reports whether a statement's text starts with INSERT, REPLACE,
// UPDATE or DELETE (after comments).
func isDML(q string) bool {
	q = strings.TrimSpace(q)
	for strings.HasPrefix(q, "/*") {
		end := strings.Index(q, "*/")
		if end < 0 {
			return false
		}
		q = strings.TrimSpace(q[end+2:])
	}
	word, _, _ := strings.Cut(q, " ")
	switch strings.ToLower(word) {
	case "insert", "replace", "update", "delete":
		return true
	}
	return false
}

// CreateTrigger implements sql.TriggerDatabase: one catalog change on the
// trigger's table.
func (d *Database) CreateTrigger(ctx *sql.Context, def sql.TriggerDefinition) error {
	opts := sql.NewSqlModeFromString(def.SqlMode).ParserOptions()
	st, err := ast.ParseWithOptions(ctx, def.CreateStatement, opts)
	if err != nil {
		return err
	}
	ddl, ok := st.(*ast.DDL)
	if !ok || ddl.TriggerSpec == nil {
		return fmt.Errorf("sqlgw: not a CREATE TRIGGER statement: %s", def.CreateStatement)
	}
	if q := ddl.Table.DbQualifier.String(); q != "" && !strings.EqualFold(q, d.name) {
		return errUnsupported.New(fmt.Sprintf("trigger %s: a trigger on a table of another database (%s)", def.Name, q))
	}
	at := def.CreatedAt
	if at.IsZero() {
		at = time.Now()
	}
	_, err = d.gw.Catalog.AddTrigger(MetaCtx(ctx), d.name, ddl.Table.Name.String(), catalog.Trigger{
		Name: def.Name, Create: def.CreateStatement, CreatedAt: at.UnixNano(), SQLMode: def.SqlMode})
	if errors.Is(err, catalog.ErrTriggerExists) {
		return mysql.NewSQLError(1359, "HY000", "Trigger already exists (sqlgw: %s)", err.Error())
	}
	return mapError(err)
}

// DropTrigger implements sql.TriggerDatabase.
func (d *Database) DropTrigger(ctx *sql.Context, name string) error {
	_, err := d.gw.Catalog.DropTrigger(MetaCtx(ctx), d.name, name)
	if errors.Is(err, catalog.ErrNoTrigger) {
		if _, ok := droppedTriggers.LoadAndDelete(d.droppedKey(ctx, name)); ok {
			return nil // dropped with its table (noteDroppedTriggers)
		}
		return sql.ErrTriggerDoesNotExist.New(name)
	}
	return mapError(err)
}

// droppedTriggers holds the triggers that a DROP TABLE removed with their
// table's catalog record: go-mysql-server drops the table first and then
// each of its triggers, which must then succeed.
var droppedTriggers sync.Map // droppedKey -> struct{}

type droppedKey struct {
	gw       *Gateway
	session  uint32
	db, name string
}

func (d *Database) droppedKey(ctx *sql.Context, name string) droppedKey {
	return droppedKey{gw: d.gw, session: ctx.Session.ID(), db: strings.ToLower(d.name), name: strings.ToLower(name)}
}

// noteDroppedTriggers records, before DROP TABLE, the triggers the table
// takes with it.
func (d *Database) noteDroppedTriggers(ctx *sql.Context, table string) {
	t, err := d.gw.Catalog.Table(MetaCtx(ctx), d.name, table)
	if err != nil {
		return
	}
	for _, tr := range t.Triggers {
		droppedTriggers.Store(d.droppedKey(ctx, tr.Name), struct{}{})
	}
}

// renameWithTriggers refuses RENAME TABLE of a table with triggers.
func (d *Database) renameWithTriggers(ctx *sql.Context, name string) error {
	t, err := d.gw.Catalog.Table(MetaCtx(ctx), d.name, name)
	if err != nil || len(t.Triggers) == 0 {
		return nil // the rename reports a missing table
	}
	return errUnsupported.New(fmt.Sprintf("renaming table %s, which has triggers (%s ...): drop them, rename, create them again", t.Name, t.Triggers[0].Name))
}

// triggerWriteKey holds, while a plan.TriggerExecutor is built, the write
// node it wraps (AFTER triggers wrap the INSERT, UPDATE or DELETE itself).
type triggerWriteKey struct{}

// buildTriggerWrite keeps the write under an AFTER trigger out of the
// strict-write wrapper (strictwrite.go): go-mysql-server turns a write's
// rows into the OK result (rows affected) only for the iterators it knows,
// looking through its trigger iterator but not through sqlgw's wrapper, so
// an INSERT with an AFTER INSERT trigger answered with the inserted rows
// instead of an OK packet. Such writes keep go-mysql-server's own range
// and length errors. ok reports that n was handled (it and err are then
// the result; a nil it lets the engine build n itself).
func (e explainBuilder) buildTriggerWrite(ctx *sql.Context, n sql.Node, row sql.Row) (it sql.RowIter, ok bool, err error) {
	if te, isTrigger := n.(*plan.TriggerExecutor); isTrigger {
		if ctx.Value(triggerWriteKey{}) == te.Left() {
			return nil, true, nil // being built below: the engine's builder
		}
		it, err := e.exec.Build(ctx.WithContext(context.WithValue(ctx.Context, triggerWriteKey{}, te.Left())), n, row)
		return it, true, err
	}
	if w := ctx.Value(triggerWriteKey{}); w != nil && w == n {
		return nil, true, nil
	}
	return nil, false, nil
}
