package storage

import "context"

// Point reads as rows: a Get's selected properties without a property map
//
// RowGetter is RowQuerier's counterpart for Get: a reader that knows the
// properties it wants (a point select's columns) asks for them by
// position instead of an Entity with its Properties map. The row is
// exactly the entity Get would return for the same key with
// GetOptions.Select = sel (same errors, ErrNotFound included, same
// snapshot), seen through sel; the values of the properties named in
// more follow those of sel (catalog/txn reads its lock, version and
// tombstone properties so, as its Get reads them through the
// projection). The caller owns row and may reuse it: its Values are
// reused when large enough.
//
// Wrappers that look at entities implement GetRow themselves or not at
// all; a store that cannot answer (or not for this table) returns
// ErrRowsUnsupported having sent nothing, and the reader sends Get.
// ForwardGetRow forwards to the inner store.

// RowGetter is implemented by stores that can answer a Get as a row.
type RowGetter interface {
	// GetRow is Get with Select sel (not nil) answered into row: its keys,
	// ETag and Timestamp, and in row.Values the values of sel's
	// properties then more's, by position (the zero Value where the
	// entity lacks one). row.Marked is left false.
	GetRow(ctx context.Context, table, pk, rk string, sel, more []string, row *Row) error
}

// ForwardGetRow is GetRow for wrappers: it calls inner's, or returns
// ErrRowsUnsupported.
func ForwardGetRow(ctx context.Context, inner Store, table, pk, rk string, sel, more []string, row *Row) error {
	if g, ok := inner.(RowGetter); ok {
		return g.GetRow(ctx, table, pk, rk, sel, more, row)
	}
	return ErrRowsUnsupported
}

// RowValues returns row.Values resized to n zero values, reusing their
// array when it is large enough.
func RowValues(row *Row, n int) []Value {
	if cap(row.Values) < n {
		row.Values = make([]Value, n)
	} else {
		row.Values = row.Values[:n]
		clear(row.Values)
	}
	return row.Values
}

// SetRow sets row to e seen through sel then more (GetRow's answer from
// an entity a wrapper read).
func SetRow(row *Row, e *Entity, sel, more []string) {
	vals := RowValues(row, len(sel)+len(more))
	*row = Row{PartitionKey: e.PartitionKey, RowKey: e.RowKey, ETag: e.ETag, Timestamp: e.Timestamp, Values: vals}
	for i, name := range sel {
		vals[i] = e.Properties[name]
	}
	for i, name := range more {
		vals[len(sel)+i] = e.Properties[name]
	}
}
