package engine

import (
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/planner"
)

// Table is one SQL table as the engine sees it. Values are immutable: the
// engine derives projected and indexed variants with WithProjections and
// IndexedAccess, which return copies.
type Table struct {
	db   *Database
	gw   *Gateway
	info *tableInfo

	// proj are the projected column ordinals (nil: every column), projNames
	// the names the engine asked for.
	proj      []int
	projNames []string
	projected sql.Schema
	// projSel is the store projection of proj (catalog.Table.Select, nil:
	// every property), made once with proj when projSelSet.
	projSel    []string
	projSelSet bool

	// lookup is set on the table returned by IndexedAccess.
	lookup *sql.IndexLookup
	// limit is a row limit pushed by the LIMIT rule (0: none).
	limit int64
	// dyn caches the per-row lookups of a lookup join.
	dyn *dynCache
	// scanCache caches a full scan for re-executions in one statement.
	scanCache *lookupCache
	hints     *hintSet // index hints (hints.go); nil: not resolved yet
	// current: rows are read from the store's current state, not the
	// statement's or transaction's snapshot (snapshot.go): foreign key
	// checks and DDL verification scans.
	current bool
}

// The go-mysql-server capabilities of Table, all of them, with the file
// that implements each.
var (
	_ sql.Table                    = (*Table)(nil) // table.go
	_ sql.ProjectedTable           = (*Table)(nil) // table.go
	_ sql.PrimaryKeyTable          = (*Table)(nil) // table.go
	_ sql.CommentedTable           = (*Table)(nil) // table.go
	_ sql.CommentAlterableTable    = (*Table)(nil) // table.go
	_ sql.StatisticsTable          = (*Table)(nil) // table.go, stats.go
	_ sql.IndexSearchableTable     = (*Table)(nil) // table.go, index.go
	_ sql.IndexedTable             = (*Table)(nil) // table.go, index.go
	_ sql.InsertableTable          = (*Table)(nil) // editor.go
	_ sql.UpdatableTable           = (*Table)(nil) // editor.go
	_ sql.DeletableTable           = (*Table)(nil) // editor.go
	_ sql.ReplaceableTable         = (*Table)(nil) // editor.go
	_ sql.TruncateableTable        = (*Table)(nil) // table.go
	_ sql.AlterableTable           = (*Table)(nil) // table.go, alter_narrowing.go
	_ sql.AutoIncrementTable       = (*Table)(nil) // table.go
	_ sql.IndexAlterableTable      = (*Table)(nil) // table.go, secondary.go
	_ sql.PrimaryKeyAlterableTable = (*Table)(nil) // alter_primary_key.go
	_ sql.ForeignKeyTable          = (*Table)(nil) // foreignkeys.go
	_ sql.CheckTable               = (*Table)(nil) // generated_check_onupdate.go
	_ sql.CheckAlterableTable      = (*Table)(nil) // generated_check_onupdate.go
	_ sql.TemporaryTable           = (*Table)(nil) // temporary.go
)

func (t *Table) meta() *catalog.Table { return t.info.meta }

// Name implements sql.Table.
func (t *Table) Name() string { return t.meta().Name }

// String implements sql.Table.
func (t *Table) String() string { return t.meta().Name }

// Schema implements sql.Table: the projected schema once projections are set.
func (t *Table) Schema(ctx *sql.Context) sql.Schema {
	if t.projected != nil {
		return t.projected
	}
	return t.info.schema.Schema
}

// PrimaryKeySchema implements sql.PrimaryKeyTable.
func (t *Table) PrimaryKeySchema(ctx *sql.Context) sql.PrimaryKeySchema { return t.info.schema }

// Collation implements sql.Table.
func (t *Table) Collation() sql.CollationID {
	if t.meta().Collation != "" {
		if c, err := sql.ParseCollation("", t.meta().Collation, false); err == nil {
			return c
		}
	}
	return sql.Collation_Default
}

// Comment implements sql.CommentedTable.
func (t *Table) Comment() string { return t.meta().Comment }

// WithProjections implements sql.ProjectedTable.
func (t *Table) WithProjections(ctx *sql.Context, cols []string) (sql.Table, error) {
	nt := *t
	nt.scanCache = nil
	// An empty projection means every column (as go-mysql-server's memory
	// tables treat it).
	if len(cols) == 0 {
		nt.proj, nt.projNames, nt.projected, nt.projSel, nt.projSelSet = nil, nil, nil, nil, false
		return &nt, nil
	}
	nt.proj = make([]int, len(cols))
	nt.projected = make(sql.Schema, len(cols))
	for i, c := range cols {
		j := t.meta().ColumnIndex(c)
		if j < 0 {
			return nil, sql.ErrTableColumnNotFound.New(t.Name(), c)
		}
		nt.proj[i] = j
		nt.projected[i] = t.info.schema.Schema[j]
	}
	nt.projNames = cols
	nt.projSel, nt.projSelSet = slices.Clip(t.meta().Select(nt.proj)), true
	return &nt, nil
}

// Projections implements sql.ProjectedTable.
func (t *Table) Projections() []string { return t.projNames }

// DataLength implements sql.StatisticsTable (an estimate).
func (t *Table) DataLength(ctx *sql.Context) (uint64, error) {
	n, _ := t.gw.rowCount(t.meta().Physical)
	return uint64(n) * 128, nil
}

// RowCount implements sql.StatisticsTable. It is called on every planning
// pass, so it never touches the store: an estimate kept by the gateway
// (exact after this gateway scanned the table, then adjusted by its own
// commits), never reported as exact, so COUNT(*) still reads the table.
func (t *Table) RowCount(ctx *sql.Context) (uint64, bool, error) {
	n, _ := t.gw.rowCount(t.meta().Physical)
	return uint64(n), false, nil
}

// singlePartition is the only partition of a table: sqlgw parallelises
// inside the row iterator (MultiGet), not across engine partitions.
type singlePartition struct{}

func (singlePartition) Key() []byte { return []byte("all") }

type partitionIter struct{ done bool }

func (p *partitionIter) Next(*sql.Context) (sql.Partition, error) {
	if p.done {
		return nil, io.EOF
	}
	p.done = true
	return singlePartition{}, nil
}

func (p *partitionIter) Close(*sql.Context) error { return nil }

// Partitions implements sql.Table.
func (t *Table) Partitions(ctx *sql.Context) (sql.PartitionIter, error) {
	return &partitionIter{}, nil
}

// lookupPartition carries the read spec of one lookup. The engine reuses
// (mutates) the range slices of lookup joins for the next outer row, so the
// ranges are converted here, not later.
type lookupPartition struct{ spec *readSpec }

func (lookupPartition) Key() []byte { return []byte("lookup") }

type onePartition struct {
	p    sql.Partition
	done bool
}

func (o *onePartition) Next(*sql.Context) (sql.Partition, error) {
	if o.done {
		return nil, io.EOF
	}
	o.done = true
	return o.p, nil
}

func (o *onePartition) Close(*sql.Context) error { return nil }

// LookupPartitions implements sql.IndexedTable.
func (t *Table) LookupPartitions(ctx *sql.Context, lookup sql.IndexLookup) (sql.PartitionIter, error) {
	spec, err := t.specForLookup(ctx, lookup)
	if err != nil {
		return nil, err
	}
	return &onePartition{p: lookupPartition{spec: spec}}, nil
}

// PartitionRows implements sql.Table: it executes the access path (the
// lookup's plan, or a TableScan) against the store.
func (t *Table) PartitionRows(ctx *sql.Context, part sql.Partition) (sql.RowIter, error) {
	if lp, ok := part.(lookupPartition); ok {
		if lp.spec.sortBy != nil {
			return t.sortedIter(ctx, lp.spec)
		}
		if lp.spec.cache != nil {
			return t.cachedIter(ctx, lp.spec)
		}
		return t.newRowIter(ctx, lp.spec)
	}
	if t.lookup == nil {
		p, err := t.plan(&planner.Query{Columns: t.proj, Limit: t.limit})
		if err != nil {
			return nil, err
		}
		// The engine re-reads the inner table of a nested loop for every
		// outer row: cache the scan for this statement (cache.go).
		if t.scanCache == nil {
			t.scanCache = &lookupCache{}
		}
		return t.cachedIter(ctx, &readSpec{plan: p, cache: t.scanCache})
	}
	spec, err := t.specForLookup(ctx, *t.lookup)
	if err != nil {
		return nil, err
	}
	if spec.sortBy != nil {
		return t.sortedIter(ctx, spec)
	}
	return t.newRowIter(ctx, spec)
}

// IndexedAccess implements sql.IndexAddressable.
func (t *Table) IndexedAccess(ctx *sql.Context, lookup sql.IndexLookup) sql.IndexedTable {
	nt := *t
	nt.scanCache = nil
	nt.lookup = &lookup
	nt.dyn = &dynCache{}
	return &nt
}

// GetIndexes implements sql.IndexAddressable: the primary key, in storage
// order, then the secondary indexes (secondary.go). A table without a
// primary key has only its secondary indexes (its rows' generated keys
// are no index the engine can use).
func (t *Table) GetIndexes(ctx *sql.Context) ([]sql.Index, error) {
	if t.meta().Keyless() {
		return t.hintedIndexes(ctx, t.secondaryIndexes()), nil
	}
	return t.hintedIndexes(ctx, append([]sql.Index{t.primaryIndex()}, t.secondaryIndexes()...)), nil // index hints (hints.go)
}

// PreciseMatch implements sql.IndexAddressable: a lookup returns exactly
// the rows its ranges (or its plan's non-residual conjuncts) describe.
func (t *Table) PreciseMatch() bool { return true }

// CreateIndex implements sql.IndexAlterableTable: secondary indexes
// (secondary.go).
func (t *Table) CreateIndex(ctx *sql.Context, def sql.IndexDef) error {
	if t.gw.ignoreIndexes && !def.IsPrimary() {
		return nil
	}
	if def.IsPrimary() {
		return errUnsupported.New("changing the primary key of table " + t.Name() + " is not supported yet")
	}
	if err := virtualIndexError(t.Name(), t.info.schema.Schema, def.Name, def.Columns, def.Comment); err != nil {
		return err
	}
	if err := t.createSecondaryIndex(ctx, def); err != nil {
		return err
	}
	return t.reloadMeta(ctx) // foreignkeys.go
}

// DropIndex implements sql.IndexAlterableTable.
func (t *Table) DropIndex(ctx *sql.Context, name string) error {
	if t.gw.ignoreIndexes && t.meta().Index(name) == nil {
		return nil
	}
	return t.dropSecondaryIndex(ctx, name)
}

// RenameIndex implements sql.IndexAlterableTable.
func (t *Table) RenameIndex(ctx *sql.Context, from, to string) error {
	return t.renameSecondaryIndex(ctx, from, to) // indexrename.go
}

// Truncate implements sql.TruncateableTable: one catalog change that gives
// the table a fresh, empty physical table (the old one is deleted with one
// delete-table operation), not row by row. TRUNCATE commits implicitly, as
// in MySQL; buffered writes of the session to the table are dropped. The
// count is MySQL's for TRUNCATE TABLE, 0 (go-mysql-server puts it in the
// OK packet); a DELETE without WHERE that the analyzer made a TRUNCATE
// runs as a DELETE (okcounts.go), never here.
func (t *Table) Truncate(ctx *sql.Context) (int, error) {
	old := t.meta().Physical
	if tx := currentTxn(ctx); tx != nil {
		delete(tx.tables, old)
	}
	nm, err := t.gw.Catalog.TruncateTable(MetaCtx(ctx), t.db.name, t.Name())
	if err != nil {
		return 0, mapError(err)
	}
	t.gw.setRowCount(nm.Physical, 0)
	return 0, nil
}

// AddColumn implements sql.AlterableTable.
func (t *Table) AddColumn(ctx *sql.Context, column *sql.Column, order *sql.ColumnOrder) error {
	if err := zeroDefaultError(ctx, column); err != nil { // zerodate.go
		return err
	}
	col, err := catalogColumn(column)
	if err != nil {
		return err
	}
	applyTimePrecision(ctx, &col) // TIME(n), time_precision.go
	if err := t.storedGeneratedOnPopulated(ctx, column); err != nil {
		return err
	}
	pos := catalog.ColumnPosition{}
	if order != nil {
		pos.First, pos.After = order.First, order.AfterColumn
	}
	nm, err := t.gw.Catalog.AddColumn(MetaCtx(ctx), t.db.name, t.Name(), col, pos)
	if err != nil {
		return mapError(err)
	}
	return t.refresh(ctx, nm)
}

// refresh makes this table value describe the altered table: the engine
// keeps using the same value after an ALTER (to fill in defaults).
func (t *Table) refresh(ctx *sql.Context, nm *catalog.Table) error {
	ti, err := t.gw.info(ctx, nm)
	if err != nil {
		return err
	}
	t.info, t.proj, t.projNames, t.projected, t.projSel, t.projSelSet = ti, nil, nil, nil, nil, false
	return nil
}

// DropColumn implements sql.AlterableTable.
func (t *Table) DropColumn(ctx *sql.Context, name string) error {
	if err := t.generatedDependency(name); err != nil {
		return err
	}
	nm, err := t.gw.Catalog.DropColumn(MetaCtx(ctx), t.db.name, t.Name(), name)
	if err != nil {
		return mapError(err)
	}
	return t.refresh(ctx, nm)
}

// ModifyColumn implements sql.AlterableTable.
func (t *Table) ModifyColumn(ctx *sql.Context, name string, column *sql.Column, order *sql.ColumnOrder) error {
	if err := zeroDefaultError(ctx, column); err != nil { // zerodate.go
		return err
	}
	col, err := catalogColumn(column)
	if err != nil {
		return err
	}
	applyTimePrecision(ctx, &col) // TIME(n), time_precision.go
	if err := t.modifyGeneratedError(ctx, name, column); err != nil {
		return err
	}
	var pos *catalog.ColumnPosition
	if order != nil {
		pos = &catalog.ColumnPosition{First: order.First, After: order.AfterColumn}
	}
	nm, err := t.modifyColumnChecked(ctx, name, col, pos) // alter_narrowing.go
	if err != nil {
		return mapError(err)
	}
	return t.refresh(ctx, nm)
}

func catalogColumn(c *sql.Column) (catalog.Column, error) {
	ct, err := catalogType(c.Name, c.Type)
	if err != nil {
		return catalog.Column{}, err
	}
	col := catalog.Column{Name: c.Name, Type: ct, Nullable: c.Nullable, AutoIncrement: c.AutoIncrement, Comment: c.Comment}
	if c.Default != nil {
		col.Default, col.HasDefault = defaultText(c.Default), true
	}
	if err := catalogColumnFeatures(&col, c); err != nil {
		return catalog.Column{}, err
	}
	return col, nil
}

// PeekNextAutoIncrementValue implements sql.AutoIncrementGetter.
func (t *Table) PeekNextAutoIncrementValue(ctx *sql.Context) (uint64, error) {
	v, err := t.gw.Catalog.AutoIncrement(MetaCtx(ctx), t.meta())
	return v, mapError(err)
}

// GetNextAutoIncrementValue implements sql.AutoIncrementTable: a NULL (or
// 0) value takes the next value of the catalog's counter (reserved in
// blocks, so usually no store request); an explicit value moves the
// counter past it.
func (t *Table) GetNextAutoIncrementValue(ctx *sql.Context, insertVal interface{}) (uint64, error) {
	if insertVal == nil {
		v, err := t.gw.Catalog.NextAutoIncrement(MetaCtx(ctx), t.meta(), 1)
		return v, mapError(err)
	}
	v, _, err := types.Uint64.Convert(ctx, insertVal)
	if err != nil {
		return 0, err
	}
	u := v.(uint64)
	if err := t.gw.Catalog.ObserveAutoIncrement(MetaCtx(ctx), t.meta(), u); err != nil {
		return 0, mapError(err)
	}
	return u, nil
}

// AutoIncrementSetter implements sql.AutoIncrementTable.
func (t *Table) AutoIncrementSetter(ctx *sql.Context) sql.AutoIncrementSetter {
	return &aiSetter{t: t}
}

type aiSetter struct{ t *Table }

func (s *aiSetter) SetAutoIncrementValue(ctx *sql.Context, v uint64) error {
	if v == 0 {
		return nil
	}
	return mapError(s.t.gw.Catalog.ObserveAutoIncrement(MetaCtx(ctx), s.t.meta(), v-1))
}

func (s *aiSetter) AcquireAutoIncrementLock(ctx *sql.Context) (func(), error) {
	return func() {}, nil
}

func (s *aiSetter) Close(*sql.Context) error { return nil }

// columnNames returns the table's column names for the expression converter.
func (t *Table) columnNames() []string { return t.info.names }

func lower(s string) string { return strings.ToLower(s) }

// plan asks the planner, with the gateway's row estimate as statistics.
func (t *Table) plan(q *planner.Query) (*planner.Plan, error) {
	q.Stats = t.gw.plannerStats(t.meta())   // stats.go
	q.Cost = t.gw.store.Capabilities().Cost // the backend's weights (planner doc, Cost)
	q.Reverse = t.gw.reverse                // the store reads backwards (planner doc, Order)
	return t.buildPlan(q)                   // index hints (hints.go)
}

// ModifyComment implements sql.CommentAlterableTable. The partition key
// is fixed at creation: a new comment may repeat it or leave it out (the
// option is then kept, so the comment keeps telling the truth), but not
// change it.
func (t *Table) ModifyComment(ctx *sql.Context, comment string) error {
	newOpts, err := catalog.ParseTableOptions(comment)
	if err != nil {
		return mapError(err)
	}
	oldOpts, _ := catalog.ParseTableOptions(t.meta().Comment)
	switch {
	case newOpts.PartitionKey != nil:
		if !sameNames(newOpts.PartitionKey, t.meta().PartitionKey) {
			return errUnsupported.New("changing the partition key of table " + t.Name() + " is not supported")
		}
	case oldOpts.PartitionKey != nil:
		quoted := make([]string, len(oldOpts.PartitionKey))
		for i, c := range oldOpts.PartitionKey {
			quoted[i] = "`" + strings.ReplaceAll(c, "`", "``") + "`"
		}
		comment = appendTableOption(comment, "partition_key=("+strings.Join(quoted, ", ")+")")
	}
	switch { // salt_buckets likewise (sqlgw/engine/ddldecl)
	case newOpts.SaltBuckets != 0:
		if max(newOpts.SaltBuckets, 1) != max(t.meta().Salted(), 1) {
			return errUnsupported.New("changing the salt_buckets of table " + t.Name() + " is not supported")
		}
	case oldOpts.SaltBuckets != 0:
		comment = appendTableOption(comment, "salt_buckets="+strconv.Itoa(oldOpts.SaltBuckets))
	}
	// The table group is fixed at creation too (catalog/group.go).
	switch g := t.meta().Group; {
	case newOpts.Group != "" && !strings.EqualFold(newOpts.Group, g):
		return errUnsupported.New("changing the table group of table " + t.Name() + " is not supported")
	case newOpts.Group == "" && g != "":
		comment = appendTableOption(comment, "group=`"+strings.ReplaceAll(g, "`", "``")+"`")
	}
	nm, err := t.gw.Catalog.SetTableComment(MetaCtx(ctx), t.db.name, t.Name(), comment)
	if err != nil {
		return mapError(err)
	}
	return t.refresh(ctx, nm)
}

func sameNames(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !strings.EqualFold(a[i], b[i]) {
			return false
		}
	}
	return true
}

// planIn is plan for a read inside the session's transaction: no index
// path while the transaction has buffered writes to the table (they are
// merged in key order).
func (t *Table) planIn(ctx *sql.Context, q *planner.Query) (*planner.Plan, error) {
	if tx := currentTxn(ctx); tx != nil {
		if tt := tx.peek(t.meta().Physical); tt != nil && len(tt.writes) > 0 {
			q.NoIndex = true
		}
	}
	t.hintsIn(ctx)
	return t.plan(q)
}
