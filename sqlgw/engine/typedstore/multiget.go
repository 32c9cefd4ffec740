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

// MultiGetRows forwards the Gets of an untyped table to the wrapped
// store's storage.MultiRowGetter, if any; a typed table's are not
// answered as rows (GetRow).
func (s *typedStore) MultiGetRows(ctx context.Context, table string, keys []storage.EntityKey, sel, more []string, rows []storage.Row, found []bool) error {
	if _, _, typed := catalog.ParseTypedPhysical(table); typed {
		return storage.ErrRowsUnsupported
	}
	return storage.ForwardMultiGetRows(ctx, s.Store, table, keys, sel, more, rows, found)
}
