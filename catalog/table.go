package catalog

import (
	"fmt"
	"strings"

	"github.com/sqlgw/sqlgw/catalog/keys"
	"github.com/sqlgw/sqlgw/storage"
)

// Table is one table's catalog record. Tables returned by the Catalog are
// immutable snapshots shared between goroutines: callers must not modify
// them; a DDL method returns a new snapshot.
type Table struct {
	// ID is unique in the store for the table's lifetime (renames keep it).
	ID       uint64   `json:"id"`
	Database string   `json:"db"`
	Name     string   `json:"name"`
	Columns  []Column `json:"cols"`
	// PrimaryKey in key order; empty for a keyless table.
	PrimaryKey []KeyPart `json:"pk,omitempty"`
	// PartitionKey names the primary-key columns forming the PartitionKey,
	// resolved at creation (the default rule already applied).
	PartitionKey []string `json:"part,omitempty"`
	Indexes      []Index  `json:"idx,omitempty"`
	Comment      string   `json:"comment,omitempty"`
	Collation    string   `json:"coll,omitempty"`
	// Physical is the store table holding the rows. Every CREATE and every
	// TRUNCATE assigns a fresh name (Generation counts truncations).
	Physical   string `json:"phys"`
	Generation uint32 `json:"gen"`
	// Version is the catalog version at which this record last changed.
	Version uint64 `json:"ver"`
	// DefVersion is the catalog version at which the table's stored rows
	// last stopped being readable as they were: its creation, TRUNCATE
	// (a fresh physical table), a primary key change and a narrowing
	// column change (values an older snapshot holds may not fit). Other
	// changes (columns added, dropped or widened, indexes, comments,
	// renames, constraints) leave it, and DML never changes the record.
	// A read at a store snapshot taken while the catalog was at an older
	// version must not read the table (sqlgw/engine/snapshot.go: 1412).
	// 0: not recorded (a record written before it was).
	DefVersion uint64 `json:"dver,omitempty"`
	// NextIndexID is the last ID given to a secondary index.
	NextIndexID uint32 `json:"nextidx"`
	// Retired are the properties of dropped columns: never reused, since
	// old entities still carry their values.
	Retired []string `json:"retired,omitempty"`
	// AutoIncrementStart is the first AUTO_INCREMENT value of the current
	// generation (0 means 1).
	AutoIncrementStart uint64 `json:"aistart,omitempty"`
	// Checks are the table's CHECK constraints (checks.go).
	Checks []Check `json:"checks,omitempty"`
	// Triggers are the table's triggers (triggers.go).
	Triggers []Trigger `json:"trg,omitempty"`
	// ForeignKeys are the FOREIGN KEY constraints the table declares
	// (foreignkeys.go). Added later: absent in older records.
	ForeignKeys []ForeignKey `json:"fks,omitempty"`
	// Attached is set for a store table sqlgw did not create (attached.go).
	// Added later: absent in older records.
	Attached *Attached `json:"att,omitempty"`
	// Group names the table group the table belongs to (group.go); its
	// Physical is then the group's table with a member prefix. Added
	// later: absent in older records.
	Group string `json:"grp,omitempty"`
	// SaltBuckets, above 1, salts the PartitionKey with a hashed bucket
	// (salt.go). Added later: absent in older records.
	SaltBuckets int `json:"salt,omitempty"`
	// KeyFormat is the encoding of the table's text key components (primary
	// key and indexes alike): 0, a record written before the format was
	// recorded, keys a PAD SPACE weighted collation's value (utf8mb4_general_ci,
	// latin1_swedish_ci, ...) with the weights of its trailing spaces, so 'x'
	// and 'x ' are two keys; KeyFormatPadSpace keys it without them (one key,
	// as MySQL compares them). Tables created from then on get
	// KeyFormatCurrent, and so does a TRUNCATE (a fresh, empty physical
	// table); an older table keeps its format, and its keys, until it is
	// recreated. Added later: absent in older records.
	KeyFormat int `json:"kfmt,omitempty"`

	// Derived when the record is loaded; not persisted.
	partCols []KeyColumn
	rowCols  []KeyColumn
	byName   map[string]int
	byProp   map[string]int
	limits   storage.Limits
}

// KeyColumn is one component of a table's PartitionKey or RowKey.
type KeyColumn struct {
	// Index of the column in Table.Columns.
	Index int
	// Desc marks a DESC key column: its component is stored complemented.
	Desc bool

	table    *Table
	nullable bool // an index column: NULL encodes as keys.Null
	raw      bool // an attached table's PartitionKey or RowKey: the string itself
}

// Column returns the key column's definition.
func (k KeyColumn) Column() *Column { return &k.table.Columns[k.Index] }

// Keyless reports whether the table has no primary key; its rows get a
// generated RowKey (see EncodeRow).
func (t *Table) Keyless() bool { return len(t.PrimaryKey) == 0 }

// PartitionColumns returns the PartitionKey components in order. Empty for
// keyless tables (their PartitionKey is "").
func (t *Table) PartitionColumns() []KeyColumn { return t.partCols }

// RowColumns returns the RowKey components in order. Empty for keyless
// tables (the generated RowKey is not a column) and for tables whose whole
// primary key is the partition key.
func (t *Table) RowColumns() []KeyColumn { return t.rowCols }

// ColumnIndex returns the position of the named column (case-insensitive),
// or -1.
func (t *Table) ColumnIndex(name string) int {
	if i, ok := t.byName[strings.ToLower(name)]; ok {
		return i
	}
	return -1
}

// Index returns the named secondary index (case-insensitive), or nil.
func (t *Table) Index(name string) *Index {
	for i := range t.Indexes {
		if strings.EqualFold(t.Indexes[i].Name, name) {
			return &t.Indexes[i]
		}
	}
	return nil
}

// Limits returns the store limits the table's keys are checked against.
func (t *Table) Limits() storage.Limits { return t.limits }

// PhysicalName returns the store table holding the rows (Physical).
func (t *Table) PhysicalName() string { return t.Physical }

// PropertyValue converts d, a Datum of column col's type, to the value the
// store holds in the column's property (Columns[col].Literal).
func (t *Table) PropertyValue(col int, d Datum) (storage.Value, error) {
	if col < 0 || col >= len(t.Columns) {
		return storage.Value{}, fmt.Errorf("%w: table %q has no column %d", ErrNoColumn, t.Name, col)
	}
	return t.Columns[col].Literal(d)
}

// RowKeyEnd is an exclusive upper bound on the RowKeys of rows and their
// continuations: local index entities sharing the partitions sort at or
// above it (keys.LocalIndexPrefix).
// An attached table has no entities of sqlgw's in its partitions: its
// RowKeyEnd is "\xff", above every key in Go's byte order, which must
// never be sent to the store: query RowRange instead.
func (t *Table) RowKeyEnd() string {
	if t.IsAttached() {
		return "\xff"
	}
	return keys.LocalIndexPrefix
}

// RowRange is the RowKey range holding the table's rows (and their
// continuation entities) in every partition: below RowKeyEnd, or nil
// (everything) for an attached table.
func (t *Table) RowRange() *storage.KeyRange {
	if t.IsAttached() {
		return nil
	}
	return &storage.KeyRange{High: &storage.Bound{Key: keys.LocalIndexPrefix, Exclusive: true}}
}

// SelectAlways lists the internal properties every projection must
// include ([PropExtras]; none for an attached table).
func (t *Table) SelectAlways() []string {
	if t.IsAttached() {
		return []string{}
	}
	return []string{PropExtras}
}
