package catalog

import (
	"github.com/sqlgw/sqlgw/storage"
)

// Append appends the key component of d for this key column (complemented
// for DESC columns) to b. d must not be nil: key columns are NOT NULL.
// Errors wrap ErrValue or ErrUnsupported and name the table and column.
func (k KeyColumn) Append(b []byte, d Datum) ([]byte, error) { return nil, errTODO }

// Range returns the range of keys that start with prefix (the encoded
// components before this one) and whose component for this column
// compares op with d in SQL order: OpEq, OpGt, OpGe, OpLt, OpLe (OpNe is
// not a range and is rejected). For DESC columns the range is mirrored.
// Both bounds are legal keys; a nil bound is unbounded.
func (k KeyColumn) Range(prefix string, op storage.Op, d Datum) (*storage.KeyRange, error) {
	return nil, errTODO
}

// PrefixRange returns the range of all keys starting with prefix (nil for
// the empty prefix: everything).
func PrefixRange(prefix string) *storage.KeyRange { return nil }

// PartitionPrefix encodes the first len(vals) partition-key components.
func (t *Table) PartitionPrefix(vals []Datum) (string, error) { return "", errTODO }

// RowPrefix encodes the first len(vals) RowKey components.
func (t *Table) RowPrefix(vals []Datum) (string, error) { return "", errTODO }
