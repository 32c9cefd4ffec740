package storage

import (
	"context"
	"errors"
)

// EntityKey names one entity of a table: a MultiGet's keys.
type EntityKey struct {
	PK, RK string
}

// MultiGetter is implemented by stores that read several entities of one
// table in one call: the embedded Pebble store reads them under one hold
// of its lock, one table lookup and one snapshot handle instead of a call
// per entity (and the wrappers above it pass the call on once), which is
// what the verified hits of a global index read send (sqlgw's
// select_random_points: a row per IN-list value). The Table service has no
// such request: its callers send the Gets in parallel instead.
type MultiGetter interface {
	// MultiGet returns, for each key of keys in order, the entity
	// Get(ctx, table, k.PK, k.RK, opts) would return, or nil where Get
	// would fail with ErrNotFound. On any other error it returns nil and
	// the error of the first Get that failed, as a loop of Get calls that
	// stops there.
	MultiGet(ctx context.Context, table string, keys []EntityKey, opts *GetOptions) ([]*Entity, error)
}

// MultiGet reads keys of table from s: in one call where s is a
// MultiGetter, else one Get after another (GetEach).
func MultiGet(ctx context.Context, s Store, table string, keys []EntityKey, opts *GetOptions) ([]*Entity, error) {
	if m, ok := s.(MultiGetter); ok {
		return m.MultiGet(ctx, table, keys, opts)
	}
	return GetEach(ctx, s, table, keys, opts)
}

// GetEach is MultiGet as a loop of s.Get calls: the reference every
// MultiGetter answers as, and what a wrapper uses for the tables it
// cannot forward in one call.
func GetEach(ctx context.Context, s Store, table string, keys []EntityKey, opts *GetOptions) ([]*Entity, error) {
	out := make([]*Entity, len(keys))
	for i, k := range keys {
		e, err := s.Get(ctx, table, k.PK, k.RK, opts)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, nil
}

// MultiRowGetter is MultiGetter's counterpart for rows (RowGetter's for
// several keys): a reader that knows the properties it wants (an index
// read's selected columns) asks for the rows of several keys of one table
// in one call, decoded by position, no Entity and no property map.
type MultiRowGetter interface {
	// MultiGetRows sets rows[i] to what GetRow(ctx, table, keys[i].PK,
	// keys[i].RK, sel, more, &rows[i]) would set, and found[i] to
	// whether that GetRow found the entity (false where it would fail
	// with ErrNotFound; rows[i] is then unspecified). rows and found have
	// len(keys) elements, owned by the caller; each row's Values are
	// reused when large enough. On any other error it returns the error
	// of the first GetRow that failed, as a loop of GetRow calls that
	// stops there, and the rows are unspecified. A store that cannot
	// answer (or not for this table) returns ErrRowsUnsupported having
	// sent nothing.
	MultiGetRows(ctx context.Context, table string, keys []EntityKey, sel, more []string, rows []Row, found []bool) error
}

// ForwardMultiGetRows is MultiGetRows for wrappers: it calls inner's, or
// returns ErrRowsUnsupported.
func ForwardMultiGetRows(ctx context.Context, inner Store, table string, keys []EntityKey, sel, more []string, rows []Row, found []bool) error {
	if g, ok := inner.(MultiRowGetter); ok {
		return g.MultiGetRows(ctx, table, keys, sel, more, rows, found)
	}
	return ErrRowsUnsupported
}
