package planner

import (
	"fmt"

	"github.com/sqlgw/sqlgw/storage"
)

// Kind is how the planner compares a column's values: the SQL type family,
// which fixes the Go type of its Datums (see Datum).
type Kind uint8

// The column kinds. KindOther is a column the planner never reasons about
// (spatial, vector, ...): comparisons on it always stay residual.
const (
	KindOther    Kind = iota
	KindInt           // int64: TINYINT..BIGINT, BOOL
	KindUint          // uint64: unsigned integers
	KindFloat         // float64: FLOAT, DOUBLE
	KindDecimal       // decimal.Decimal
	KindString        // string: CHAR, VARCHAR, TEXT
	KindBytes         // []byte: BINARY, VARBINARY, BLOB
	KindTime          // time.Time: DATETIME, TIMESTAMP
	KindDate          // time.Time at midnight UTC: DATE
	KindDuration      // int64 microseconds: TIME
	KindEnum          // uint64 index
	KindSet           // uint64 bits
	KindBit           // uint64
	KindJSON          // string
)

var kindNames = [...]string{"other", "int", "uint", "float", "decimal", "string", "bytes",
	"time", "date", "duration", "enum", "set", "bit", "json"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Pushdown says which comparisons of a column the store evaluates exactly as
// SQL would, on the column's property (Column.Prop) with literals converted
// by Table.PropertyValue.
type Pushdown uint8

const (
	// PushNone: the store cannot compare this column (DECIMAL text, JSON,
	// values split across properties, non-binary collations, ...).
	PushNone Pushdown = iota
	// PushEquality: eq and ne are exact, orderings are not (e.g. a value
	// stored in a canonical form whose order is not SQL's).
	PushEquality
	// PushOrdered: eq, ne, lt, le, gt, ge are all exact.
	PushOrdered
)

// Column is the planner's view of one column.
type Column struct {
	// Name is the SQL name, used by EXPLAIN.
	Name string
	// Kind fixes the Go type of the column's Datums and how they compare.
	Kind Kind
	// Collated is set for a string column whose collation is not binary
	// (case- or accent-insensitive, or padding): the planner never pushes
	// comparisons on it into a store filter, and uses it in key ranges only
	// through its Collation.
	Collated bool
	// Collation, for a Collated key or index column keyed by a collation
	// key, maps its values into the key space (collate.go). Nil: the
	// planner does not constrain the column at all.
	Collation Collation
	// Prop is the property that holds the column's value in the entity, or
	// "" if the store cannot filter on it (e.g. a key column kept only in
	// the keys).
	Prop string
	// Pushdown says which comparisons on Prop the store evaluates exactly.
	Pushdown Pushdown
	// Stored lists the properties that hold the column's value, for $select
	// (usually just Prop; empty, not nil, for a column kept only in the
	// keys). Nil means: Prop alone if the store can compare the column
	// (Pushdown is not PushNone: such a value is never split across
	// properties), otherwise unknown (a value split across properties), and
	// a query needing the column then selects every property.
	Stored []string
}

// storedProps returns the properties to $select for the column, or false
// if they cannot be named.
func (c Column) storedProps() ([]string, bool) {
	switch {
	case c.Stored != nil:
		return c.Stored, true
	case c.Prop != "" && c.Pushdown != PushNone:
		return []string{c.Prop}, true
	}
	return nil, false
}

// KeyColumn is one column of the PartitionKey or the RowKey.
type KeyColumn struct {
	Col  int  // ordinal in Table.Columns
	Desc bool // stored with the complemented encoding: entities sort by descending value
}

// KeyPart names one of the two keys of an entity.
type KeyPart uint8

const (
	PartitionKey KeyPart = iota + 1
	RowKey
)

func (p KeyPart) String() string {
	switch p {
	case PartitionKey:
		return "PartitionKey"
	case RowKey:
		return "RowKey"
	}
	return fmt.Sprintf("KeyPart(%d)", uint8(p))
}

// Table is the narrow view of a table the planner needs. The catalog
// implements it; tests use a fake.
//
// Key encoding contract. EncodeKey(part, vals) returns the encoding of the
// first len(vals) columns of that key, vals[i] being a Datum of column
// i's Kind (already converted: the planner converts literals). The
// encoding must be:
//   - order-preserving per column: for two tuples that differ first at
//     column i, their encodings compare (storage.CompareKeys) as the SQL
//     values of column i do, reversed for a Desc column;
//   - prefix-compatible: EncodeKey(part, vals[:i]) is a prefix of
//     EncodeKey(part, vals) and every key whose first i columns are vals[:i]
//     starts with it, while no other key does (components are prefix-free);
//   - the whole key when len(vals) is the number of columns of the part
//     (EncodeKey(RowKey, nil) is the RowKey of a table whose RowKey has no
//     columns).
//
// It returns an error for a value that cannot be a key (too long, invalid);
// the planner then falls back to a path that does not need that key.
//
// Key columns are NOT NULL.
type Table interface {
	// PhysicalName is the store's table name.
	PhysicalName() string
	// Columns lists the columns by ordinal.
	Columns() []Column
	// PartitionKeyColumns lists the columns encoded in the PartitionKey, in
	// order. Empty for a table without a declared key (TableScan only).
	PartitionKeyColumns() []KeyColumn
	// RowKeyColumns lists the columns encoded in the RowKey, in order. Empty
	// when the primary key is the partition key alone (RowKey is then
	// EncodeKey(RowKey, nil)), or for a table without a primary key.
	RowKeyColumns() []KeyColumn
	// EncodeKey encodes a prefix of a key; see the contract above.
	EncodeKey(part KeyPart, vals []Datum) (string, error)
	// PrefixEnd returns the smallest string greater than every key that
	// starts with prefix, or "" if there is none (prefix is all maximal
	// characters). The planner uses it for exclusive upper bounds.
	PrefixEnd(prefix string) string
	// PropertyValue converts d, a Datum of column col's Kind, to the value
	// the store holds in the column's property, for comparisons in a filter.
	PropertyValue(col int, d Datum) (storage.Value, error)
	// RowKeyEnd is an exclusive upper bound on the RowKeys of rows: other
	// entities sharing the partitions (local index entities) sort at or
	// above it, and every query is capped below it. "" if there is none.
	RowKeyEnd() string
	// SelectAlways lists bookkeeping properties every projection must
	// include (e.g. the count of a wide row's continuation entities).
	SelectAlways() []string
}

// Stats is optional statistics about a table, for cost estimates.
type Stats struct {
	// Rows is the estimated number of rows (entities) in the table.
	Rows float64
	// Partitions is the estimated number of distinct PartitionKeys
	// (0: unknown).
	Partitions float64
	// RowsPerValue, when known (ANALYZE TABLE), is the number of rows per
	// distinct value of each secondary index's leading column, by
	// lower-cased index name; it replaces IndexRowsPerValue. It does not
	// scale with Rows (the planner's small-table rule keeps it).
	RowsPerValue map[string]float64
	// Bounds, when known (ANALYZE TABLE), are the smallest and largest
	// values of numeric and temporal columns, by column ordinal, as
	// numbers (time: Unix seconds): a range on a key or index column then
	// keeps the share of [min, max] it covers instead of a fixed third.
	Bounds map[int][2]float64
	// TopValues, when known, are the most frequent values of each index's
	// leading column (their EncodeIndexKey(ix, 0, ...) component) with
	// their row counts, by lower-cased index name; RestPerValue is the
	// rows per value of the other values. An equality or IN on the leading
	// column is then costed with the rows of its very values (a skewed
	// 'active' status reads as many rows as it has).
	TopValues    map[string]map[string]float64
	RestPerValue map[string]float64
	// EntityBytes, when known (ANALYZE TABLE), is the average size of the
	// table's entities, for the bytes a plan reads (Cost.Bytes).
	EntityBytes float64
}
