package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/catalog"
)

// Foreign keys
//
// FOREIGN KEY constraints (in CREATE TABLE, ALTER TABLE ADD [CONSTRAINT]
// FOREIGN KEY, DROP FOREIGN KEY) are stored in the declaring table's
// catalog record (catalog/foreignkeys.go) and enforced by go-mysql-server,
// as InnoDB enforces them: a child row without parent is error 1452, a
// parent row still referenced is error 1451 unless the constraint's ON
// DELETE / ON UPDATE action is CASCADE, SET NULL or SET DEFAULT, which the
// engine applies to the child rows in the same statement (and the same
// transaction buffer: all of it commits or none). foreign_key_checks=0
// turns every check and action off, as dump files do. Constraints are
// always reported resolved: MySQL does not re-check rows written with
// checks off when they are turned on again, whereas go-mysql-server would
// scan the child table when it first uses an unresolved constraint and
// refuse every later write if one old row had no parent.
//
// The engine finds rows by index lookups on both tables (ranges on an
// index, through the table's foreign key editor): the parent through its
// PRIMARY key (or a UNIQUE index on the referenced columns), the children
// through the index on the child columns, which MySQL creates implicitly
// with the constraint when no index starts with those columns: sqlgw
// creates it too (CreateIndexForForeignKey), as an ordinary secondary
// index (secondary.go) named like MySQL's. Each check is one store request
// for a parent by primary key, an index range plus base-row reads for
// children; reads merge the transaction's own buffered writes, so a parent
// inserted earlier in the same transaction is seen.
//
// Isolation: a check reads the latest committed parent (or child) rows,
// not the transaction's snapshot (snapshot.go); it takes no lock. A concurrent transaction of another session that deletes the
// parent between the check and the commit is not stopped (InnoDB would
// block it on the shared lock the check takes).

// latestMeta returns the table's newest catalog record: a statement may
// change the constraints through another value of the same table (RENAME
// TABLE updates a self-referencing constraint through a second lookup).
func (t *Table) latestMeta(ctx *sql.Context) *catalog.Table {
	m, err := t.gw.Catalog.Table(MetaCtx(ctx), t.db.name, t.meta().Name)
	if err != nil || m.ID != t.meta().ID {
		return t.meta()
	}
	return m
}

func fkAction(a string) sql.ForeignKeyReferentialAction {
	if a == "" {
		return sql.ForeignKeyReferentialAction_DefaultAction
	}
	return sql.ForeignKeyReferentialAction(a)
}

func catalogAction(a sql.ForeignKeyReferentialAction) string {
	if a == sql.ForeignKeyReferentialAction_DefaultAction {
		return ""
	}
	return string(a)
}

// sqlForeignKey converts a stored definition declared by child (of
// database db) to the engine's.
func sqlForeignKey(db string, child *catalog.Table, fk catalog.ForeignKey) sql.ForeignKeyConstraint {
	return sql.ForeignKeyConstraint{
		Name:           fk.Name,
		Database:       db,
		Table:          child.Name,
		ParentDatabase: fk.ParentDatabase,
		ParentTable:    fk.ParentTable,
		Columns:        append([]string(nil), fk.Columns...),
		ParentColumns:  append([]string(nil), fk.ParentColumns...),
		OnUpdate:       fkAction(fk.OnUpdate),
		OnDelete:       fkAction(fk.OnDelete),
		IsResolved:     true,
	}
}

func (t *Table) catalogForeignKey(fk sql.ForeignKeyConstraint) catalog.ForeignKey {
	pdb := fk.ParentDatabase
	if pdb == "" {
		pdb = t.db.name
	}
	return catalog.ForeignKey{
		Name:           fk.Name,
		Columns:        append([]string(nil), fk.Columns...),
		ParentDatabase: pdb,
		ParentTable:    fk.ParentTable,
		ParentColumns:  append([]string(nil), fk.ParentColumns...),
		OnUpdate:       catalogAction(fk.OnUpdate),
		OnDelete:       catalogAction(fk.OnDelete),
	}
}

// GetDeclaredForeignKeys implements sql.ForeignKeyTable.
func (t *Table) GetDeclaredForeignKeys(ctx *sql.Context) ([]sql.ForeignKeyConstraint, error) {
	m := t.latestMeta(ctx)
	if len(m.ForeignKeys) == 0 {
		return nil, nil
	}
	out := make([]sql.ForeignKeyConstraint, len(m.ForeignKeys))
	for i, fk := range m.ForeignKeys {
		out[i] = sqlForeignKey(t.db.name, m, fk)
	}
	// By name, as MySQL and MariaDB list them (SHOW CREATE TABLE).
	slices.SortStableFunc(out, func(a, b sql.ForeignKeyConstraint) int {
		return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
	})
	return out, nil
}

// GetReferencedForeignKeys implements sql.ForeignKeyTable: the constraints
// of every table (in any database) whose parent is this table.
func (t *Table) GetReferencedForeignKeys(ctx *sql.Context) ([]sql.ForeignKeyConstraint, error) {
	refs, err := t.gw.Catalog.ReferencingForeignKeys(MetaCtx(ctx), t.db.name, t.meta().Name)
	if err != nil {
		return nil, mapError(err)
	}
	if len(refs) == 0 {
		return nil, nil
	}
	out := make([]sql.ForeignKeyConstraint, len(refs))
	for i, r := range refs {
		out[i] = sqlForeignKey(r.Child.Database, r.Child, r.FK)
	}
	return out, nil
}

// fkError maps the catalog's constraint errors to the engine's.
func (t *Table) fkError(err error, name string) error {
	switch {
	case errors.Is(err, catalog.ErrForeignKeyExists):
		return sql.ErrForeignKeyDuplicateName.New(name)
	case errors.Is(err, catalog.ErrNoForeignKey):
		return mysql.NewSQLError(mysql.ERCantDropFieldOrKey, "42000", "Can't DROP FOREIGN KEY `%s`; check that it exists", name)
	}
	return mapError(err)
}

// checkActions rejects SET DEFAULT, which MySQL parses but InnoDB refuses
// (go-mysql-server's own check does not run behind sqlgw's parser).
func checkActions(fk *sql.ForeignKeyConstraint) error {
	if fk.OnDelete == sql.ForeignKeyReferentialAction_SetDefault || fk.OnUpdate == sql.ForeignKeyReferentialAction_SetDefault {
		return sql.ErrForeignKeySetDefault.New()
	}
	return nil
}

// AddForeignKey implements sql.ForeignKeyTable. The engine has checked
// the parent, the column types and the existing rows (unless
// foreign_key_checks=0) and made sure an index serves the child columns.
func (t *Table) AddForeignKey(ctx *sql.Context, fk sql.ForeignKeyConstraint) error {
	if err := checkActions(&fk); err != nil {
		return err
	}
	nm, err := t.gw.Catalog.AddForeignKey(MetaCtx(ctx), t.db.name, t.meta().Name, t.catalogForeignKey(fk))
	if err != nil {
		return t.fkError(err, fk.Name)
	}
	return t.refresh(ctx, nm)
}

// DropForeignKey implements sql.ForeignKeyTable. The constraint's index
// stays, as in MySQL.
func (t *Table) DropForeignKey(ctx *sql.Context, fkName string, _ string, _ string) error {
	nm, err := t.gw.Catalog.DropForeignKey(MetaCtx(ctx), t.db.name, t.meta().Name, fkName)
	if errors.Is(err, catalog.ErrNoForeignKey) {
		return sql.ErrForeignKeyNotFound.New(fkName, t.meta().Name) // 1091 (sqlgw/mysqlerr, foreignkeys.go)
	}
	if err != nil {
		return t.fkError(err, fkName)
	}
	return t.refresh(ctx, nm)
}

// UpdateForeignKey implements sql.ForeignKeyTable: the engine renames a
// constraint, its referenced table or columns, or marks it resolved. The
// constraint is this table's (fk.Table may already carry the table's new
// name during RENAME TABLE).
func (t *Table) UpdateForeignKey(ctx *sql.Context, fkName string, fk sql.ForeignKeyConstraint) error {
	nm, err := t.gw.Catalog.UpdateForeignKey(MetaCtx(ctx), t.db.name, t.meta().Name, fkName, t.catalogForeignKey(fk))
	if err != nil {
		return t.fkError(err, fk.Name)
	}
	return t.refresh(ctx, nm)
}

// CreateIndexForForeignKey implements sql.ForeignKeyTable: the index MySQL
// creates implicitly on the child columns, an ordinary secondary index
// (built, then ready before the constraint is added).
func (t *Table) CreateIndexForForeignKey(ctx *sql.Context, def sql.IndexDef) error {
	if t.meta().Keyless() {
		return errUnsupported.New(fmt.Sprintf("foreign key on table %s: a table without a primary key cannot have the index a foreign key needs", t.Name()))
	}
	// CREATE TABLE adds its indexes through another value of the table
	// than the one the engine then resolves the constraints on: an index
	// declared with the table may be missing from this value's metadata.
	// It serves the constraint: MySQL creates no second index.
	if latest := t.latestMeta(ctx); latest != t.meta() && hasIndexPrefix(latest, def.Columns) {
		return t.refresh(ctx, latest)
	}
	if err := t.createSecondaryIndex(ctx, def); err != nil {
		return err
	}
	nm, err := t.gw.Catalog.Table(MetaCtx(ctx), t.db.name, t.meta().Name)
	if err != nil {
		return mapError(err)
	}
	return t.refresh(ctx, nm)
}

// hasIndexPrefix reports whether a secondary index of m starts with cols,
// in order (the engine's rule for an index serving a foreign key).
func hasIndexPrefix(m *catalog.Table, cols []sql.IndexColumn) bool {
	for _, ix := range m.Indexes {
		if len(ix.Columns) < len(cols) {
			continue
		}
		ok := true
		for i, c := range cols {
			if !strings.EqualFold(ix.Columns[i].Column, c.Name) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// reloadMeta makes t describe the table's latest catalog record. CREATE
// TABLE adds the table's indexes (CreateIndex) and then its foreign keys
// on the same value, looking the referenced index up with GetIndexes: a
// self-referencing key must find the index just created.
func (t *Table) reloadMeta(ctx *sql.Context) error {
	if m := t.latestMeta(ctx); m != t.meta() {
		return t.refresh(ctx, m)
	}
	return nil
}

// GetForeignKeyEditor implements sql.ForeignKeyTable: the table's editor,
// also addressable by index for the engine's reference lookups.
func (t *Table) GetForeignKeyEditor(ctx *sql.Context) sql.ForeignKeyEditor {
	return &fkEditor{editor: t.editor(ctx), points: map[string]*lookupCache{}}
}

// fkEditor is the editor the engine writes through when a table takes part
// in a foreign key, and looks rows up with. The engine builds one per
// statement.
type fkEditor struct {
	*editor
	// points caches the statement's point lookups on a unique index (the
	// parent checks) by index and key: the rows of a 1000-row INSERT that
	// reference the same parent cost one Get. A result is replayed only
	// while the transaction has not written to the table since
	// (cache.go).
	points map[string]*lookupCache
}

var _ sql.ForeignKeyEditor = (*fkEditor)(nil)

// maxFKPoints bounds the cached point lookups of one statement.
const maxFKPoints = 10000

// IndexedAccess implements sql.IndexAddressable: a lookup on the table,
// reading through the transaction's buffered writes.
func (e *fkEditor) IndexedAccess(ctx *sql.Context, lookup sql.IndexLookup) sql.IndexedTable {
	it := e.t.IndexedAccess(ctx, lookup)
	nt, ok := it.(*Table)
	if ok {
		// A check reads the current rows, as InnoDB's do, not the
		// snapshot (snapshot.go): a parent deleted since is missing.
		nt.current = true
	}
	if !ok || !uniquePoint(lookup) {
		return it
	}
	key := lookup.Index.ID() + ":" + lookup.Ranges.String()
	c := e.points[key]
	if c == nil {
		if len(e.points) >= maxFKPoints {
			return it
		}
		c = &lookupCache{}
		e.points[key] = c
	}
	return &fkPointLookup{Table: nt, cache: c}
}

// uniquePoint reports a lookup of one key of a unique index (every column
// bound to one value): at most one row.
func uniquePoint(lookup sql.IndexLookup) bool {
	ranges, ok := lookup.Ranges.(sql.MySQLRangeCollection)
	if !ok || len(ranges) != 1 || lookup.Index == nil || !lookup.Index.IsUnique() {
		return false
	}
	rng := ranges[0]
	if len(rng) != len(lookup.Index.Expressions()) {
		return false
	}
	for _, ce := range rng {
		lo, ok1 := ce.LowerBound.(sql.Below)
		hi, ok2 := ce.UpperBound.(sql.Above)
		if !ok1 || !ok2 || lo.Key == nil || hi.Key == nil {
			return false
		}
	}
	return true
}

// fkPointLookup is a unique point lookup whose result the statement
// caches: it reads the (at most one) row to the end, so that the result is
// known complete, and replays it while the table is unchanged.
type fkPointLookup struct {
	*Table
	cache *lookupCache
}

// PartitionRows implements sql.Table.
func (l *fkPointLookup) PartitionRows(ctx *sql.Context, part sql.Partition) (sql.RowIter, error) {
	tx, ver := txVersion(ctx, l.meta().Physical)
	if rows, ok := l.cache.get(tx, ver); ok {
		return sql.RowsToRowIter(copyRows(rows)...), nil
	}
	it, err := l.Table.PartitionRows(ctx, part)
	if err != nil {
		return nil, err
	}
	rows, err := sql.RowIterToRows(ctx, it)
	if err != nil {
		return nil, err
	}
	l.cache.put(tx, ver, rows)
	return sql.RowsToRowIter(copyRows(rows)...), nil
}

func copyRows(rows []sql.Row) []sql.Row {
	out := make([]sql.Row, len(rows))
	for i, r := range rows {
		out[i] = append(sql.Row(nil), r...)
	}
	return out
}

// GetIndexes implements sql.IndexAddressable.
func (e *fkEditor) GetIndexes(ctx *sql.Context) ([]sql.Index, error) { return e.t.GetIndexes(ctx) }

// PreciseMatch implements sql.IndexAddressable.
func (e *fkEditor) PreciseMatch() bool { return true }
