package catalog

import (
	"context"
	"errors"
	"time"

	"github.com/sqlgw/sqlgw/storage"
)

var errTODO = errors.New("catalog: not implemented yet")

// Open opens the catalog kept in store, creating its reserved table on first
// use. Two Opens on one store (in one process or in two gateways) see the
// same schema.
func Open(ctx context.Context, store storage.Store, opts Options) (*Catalog, error) {
	return nil, errTODO
}

// Refresh reloads the catalog if another Catalog changed it (one store
// request when nothing changed). The gateway calls it when a physical table
// is not found or a write conflicts in a way a stale schema could explain.
func (c *Catalog) Refresh(ctx context.Context) error { return errTODO }

// CreateDatabase creates a database. Errors: ErrDatabaseExists.
func (c *Catalog) CreateDatabase(ctx context.Context, name string) error { return errTODO }

// DropDatabase drops a database with all its tables (their physical tables
// are deleted after the catalog change commits). Errors: ErrNoDatabase.
func (c *Catalog) DropDatabase(ctx context.Context, name string) error { return errTODO }

// Databases returns the database names in case-insensitive order.
func (c *Catalog) Databases(ctx context.Context) ([]string, error) { return nil, errTODO }

// DatabaseExists reports whether the database exists (case-insensitive).
func (c *Catalog) DatabaseExists(ctx context.Context, name string) (bool, error) {
	return false, errTODO
}

// CreateTable creates a table and its physical table(s) and returns its
// record. Errors: ErrNoDatabase, ErrTableExists, ErrInvalidDef, ErrUnsupported.
func (c *Catalog) CreateTable(ctx context.Context, db string, def *TableDef) (*Table, error) {
	return nil, errTODO
}

// DropTable drops a table; its physical tables are deleted after the
// catalog change commits. Errors: ErrNoTable.
func (c *Catalog) DropTable(ctx context.Context, db, name string) error { return errTODO }

// RenameTable renames (and possibly moves) a table. Metadata only: the
// physical table and property names stay. Errors: ErrNoTable,
// ErrTableExists, ErrNoDatabase.
func (c *Catalog) RenameTable(ctx context.Context, db, name, newDB, newName string) (*Table, error) {
	return nil, errTODO
}

// TruncateTable gives the table a fresh, empty physical table (a new
// generation), deletes the old one, and resets the AUTO_INCREMENT counter.
func (c *Catalog) TruncateTable(ctx context.Context, db, name string) (*Table, error) {
	return nil, errTODO
}

// Table returns a table's record from the cache (checking the version
// entity at most every RefreshInterval). Errors: ErrNoTable.
func (c *Catalog) Table(ctx context.Context, db, name string) (*Table, error) {
	return nil, errTODO
}

// Tables returns every table of a database, by name. Errors: ErrNoDatabase.
func (c *Catalog) Tables(ctx context.Context, db string) ([]*Table, error) {
	return nil, errTODO
}

// ColumnPosition says where AddColumn puts a column.
type ColumnPosition struct {
	First bool   // FIRST
	After string // AFTER column; "" and !First: last
}

// AddColumn adds a column to a table. Existing rows read it as NULL, or as
// its default if the gateway fills defaults (the catalog stores no value for
// old rows). A new NOT NULL column without default is rejected with
// ErrUnsupported on a table that may hold rows... the catalog does not know
// whether it is empty, so the gateway decides; the catalog accepts it.
func (c *Catalog) AddColumn(ctx context.Context, db, table string, col Column, pos ColumnPosition) (*Table, error) {
	return nil, errTODO
}

// DropColumn drops a column. Primary-key and indexed columns are rejected
// with ErrUnsupported. Stored values stay in old entities, unread.
func (c *Catalog) DropColumn(ctx context.Context, db, table, column string) (*Table, error) {
	return nil, errTODO
}

// ModifyColumn replaces the definition of column name by col (MODIFY and
// CHANGE COLUMN: col.Name may differ, which renames). Allowed only where the
// stored encoding stays valid: renames, comment/default/nullability changes
// on non-key columns, widening an integer or a string/binary length within
// the same storage representation, adding ENUM/SET members at the end.
// Anything else is ErrUnsupported.
func (c *Catalog) ModifyColumn(ctx context.Context, db, table, name string, col Column, pos *ColumnPosition) (*Table, error) {
	return nil, errTODO
}

// SetTableComment changes the table comment (metadata only; the partition
// key is fixed at creation).
func (c *Catalog) SetTableComment(ctx context.Context, db, table, comment string) (*Table, error) {
	return nil, errTODO
}

// AddIndex adds a secondary index in state def.State (IndexBuilding unless
// the caller knows the table is empty) and creates its physical table if it
// is global. Errors: ErrIndexExists, ErrNoColumn.
func (c *Catalog) AddIndex(ctx context.Context, db, table string, def Index) (*Table, error) {
	return nil, errTODO
}

// DropIndex drops a secondary index (and deletes its physical table).
func (c *Catalog) DropIndex(ctx context.Context, db, table, index string) (*Table, error) {
	return nil, errTODO
}

// SetIndexState changes an index's state (IndexBuilding -> IndexReady
// after backfill).
func (c *Catalog) SetIndexState(ctx context.Context, db, table, index string, state IndexState) (*Table, error) {
	return nil, errTODO
}

// NextAutoIncrement reserves n consecutive AUTO_INCREMENT values of t and
// returns the first. Values come from a block reserved with one
// ETag-guarded store write per Options.AutoIncrementBlock values, so most
// calls cost no request. Values are unique across catalogs sharing the
// store but, as with MySQL's interleaved lock mode, not gap-free.
func (c *Catalog) NextAutoIncrement(ctx context.Context, t *Table, n uint64) (uint64, error) {
	return 0, errTODO
}

// ObserveAutoIncrement records that the value v was inserted explicitly, so
// the counter continues above it (MySQL semantics). Cheap when v is below
// the counter already.
func (c *Catalog) ObserveAutoIncrement(ctx context.Context, t *Table, v uint64) error {
	return errTODO
}

// AutoIncrement returns the next value the counter would hand out (for
// SHOW TABLE STATUS / information_schema).
func (c *Catalog) AutoIncrement(ctx context.Context, t *Table) (uint64, error) {
	return 0, errTODO
}

var _ = time.Now
