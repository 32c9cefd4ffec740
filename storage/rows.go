package storage

import (
	"context"
	"errors"
	"time"
)

// Row reads: a query's selected properties without property maps
//
// A Query page holds entities, each with its Properties map: on the
// embedded store that map is the largest cost of reading a row of a range
// (a map and its groups per row, filled property by property). A reader
// that knows the properties it wants (Query.Select) and reads them by
// position can ask a RowQuerier for a RowPage instead: each row carries
// its keys, ETag and Timestamp and the values of the selected properties
// in Select's order, in one slice cut from a slab shared by the page.
// The rows are exactly the entities Query would return for the same
// query (same filter, order, Top, pages and continuation tokens), seen
// through Select.
//
// A reader that must know whether an entity carries certain properties
// without reading them (catalog/txn's lock, version and tombstone) names
// them as marks: a row whose entity carries one of them is Marked, and
// their values take no room in the row.
//
// Wrappers that look at entities must implement QueryRows themselves
// (or not at all): a store that does not implement it, or a wrapper that
// cannot answer for the backend below it, returns ErrRowsUnsupported, and
// the reader sends Query instead. ForwardQueryRows forwards to the inner
// store.

// RowQuerier is implemented by stores that can answer a query as rows.
type RowQuerier interface {
	// QueryRows is Query answered as rows; q.Select must not be nil.
	// Row.Marked tells whether the entity carries a property named in
	// marks.
	QueryRows(ctx context.Context, table string, q *Query, marks []string) (*RowPage, error)
}

// RowPage is a page of rows: Query's Page as rows.
type RowPage struct {
	// Rows in the order of Page.Entities.
	Rows []Row
	// Continuation is Page's.
	Continuation string
}

// Row is one entity of a RowPage.
type Row struct {
	PartitionKey string
	RowKey       string
	ETag         ETag
	Timestamp    time.Time
	// Values holds the value of property Select[i] of the query at i;
	// the zero Value (Type 0) where the entity lacks it.
	Values []Value
	// Marked: the entity carries a property of QueryRows' marks.
	Marked bool
}

// ErrRowsUnsupported: the store, or the backend below a wrapper, cannot
// answer a query as rows (or not this one); send Query instead.
var ErrRowsUnsupported = errors.New("storage: this store cannot answer the query as rows")

// ForwardQueryRows is QueryRows for wrappers: it calls inner's, or
// returns ErrRowsUnsupported.
func ForwardQueryRows(ctx context.Context, inner Store, table string, q *Query, marks []string) (*RowPage, error) {
	if r, ok := inner.(RowQuerier); ok {
		return r.QueryRows(ctx, table, q, marks)
	}
	return nil, ErrRowsUnsupported
}

// Entity returns the row as the entity Query would have returned (the
// properties present among sel, the query's Select).
func (r *Row) Entity(sel []string) *Entity {
	e := &Entity{PartitionKey: r.PartitionKey, RowKey: r.RowKey, ETag: r.ETag, Timestamp: r.Timestamp, Properties: make(Properties, len(sel))}
	for i, v := range r.Values {
		if i < len(sel) && v.Type() != 0 {
			e.Properties[sel[i]] = v
		}
	}
	return e
}

// RowsOf returns the entities of a Query page as rows of the properties
// in sel (a wrapper's answer from a page it read as entities), marked
// by marks.
func RowsOf(page *Page, sel, marks []string) *RowPage {
	out := &RowPage{Rows: make([]Row, len(page.Entities)), Continuation: page.Continuation}
	vals := make([]Value, len(page.Entities)*len(sel))
	for i, e := range page.Entities {
		r := &out.Rows[i]
		*r = Row{PartitionKey: e.PartitionKey, RowKey: e.RowKey, ETag: e.ETag, Timestamp: e.Timestamp, Values: vals[:len(sel):len(sel)]}
		vals = vals[len(sel):]
		for j, name := range sel {
			r.Values[j] = e.Properties[name]
		}
		for _, m := range marks {
			if _, ok := e.Properties[m]; ok {
				r.Marked = true
			}
		}
	}
	return out
}
