package typedstore

import (
	"context"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/storage"
)

// MultiGet implements storage.MultiGetter: forwarded in one call for a
// table of its own physical name; a typed table's Gets (rewritten and
// checked by Get) are Get calls.
func (s *typedStore) MultiGet(ctx context.Context, table string, keys []storage.EntityKey, opts *storage.GetOptions) ([]*storage.Entity, error) {
	if _, _, typed := catalog.ParseTypedPhysical(table); typed {
		return storage.GetEach(ctx, s, table, keys, opts)
	}
	return storage.MultiGet(ctx, s.Store, table, keys, opts)
}
