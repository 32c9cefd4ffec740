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
