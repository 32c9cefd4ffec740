package catalog

import (
	"strings"

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
	// NextIndexID is the ID the next secondary index gets.
	NextIndexID uint32 `json:"nextidx"`

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

	table *Table
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
