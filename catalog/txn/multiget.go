package txn

import (
	"context"
	"errors"

	"github.com/sqlgw/sqlgw/storage"
)

// MultiGet implements storage.MultiGetter. On a store with snapshots of
// its own (the embedded store) it forwards the Gets in one call and
// finishes each entity as getNative does: tombstones hidden, system
// properties stripped, a locked entity resolved (its whole entity read
// again first when the Gets were projected). The call's reads share the
// snapshot ctx carries, as the loop's would; without one each entity is
// the store's current value, as each Get of the loop reads it (a lock is
// resolved by its record either way). Elsewhere (raw tables, a versioned
// store, whose reads look at the history and the read cache) it is the
// loop of Get calls.
func (s *Store) MultiGet(ctx context.Context, table string, keys []storage.EntityKey, opts *storage.GetOptions) ([]*storage.Entity, error) {
	if s.raw(table) || s.versioned.Load() != 2 {
		return storage.GetEach(ctx, s, table, keys, opts)
	}
	var sel []string
	o := opts
	if opts != nil && opts.Select != nil {
		sel = opts.Select
		o = &storage.GetOptions{Select: withSys(sel)}
	}
	ents, err := storage.MultiGet(ctx, s.Store, table, keys, o)
	if err != nil {
		return nil, err
	}
	for i, e := range ents {
		if e == nil {
			continue
		}
		if _, locked := e.Properties[PropLock]; !locked {
			if isTombstone(e) {
				ents[i] = nil
			} else {
				ents[i] = clean(e)
			}
			continue
		}
		if sel != nil {
			// The resolution needs the whole entity.
			e, err = s.Store.Get(ctx, table, keys[i].PK, keys[i].RK, nil)
			if errors.Is(err, storage.ErrNotFound) {
				ents[i] = nil
				continue
			}
			if err != nil {
				return nil, err
			}
		}
		v, _, err := s.resolve(ctx, table, e)
		if err != nil {
			return nil, err
		}
		if v == nil || isTombstone(v) {
			ents[i] = nil
			continue
		}
		ents[i] = project(clean(v), sel)
	}
	return ents, nil
}
