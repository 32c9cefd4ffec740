package recorder

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/sqlgw/sqlgw/storage"
)

// MultiGet implements storage.MultiGetter: each key is recorded as the Get
// request it stands for (counters and trace lines alike, an absent entity
// as Get's not-found error); on an error, which Get failed is not known
// here, and the first is recorded as one failed request.
func (s *Store) MultiGet(ctx context.Context, table string, keys []storage.EntityKey, opts *storage.GetOptions) ([]*storage.Entity, error) {
	ents, err := storage.MultiGet(ctx, s.inner, table, keys, opts)
	describe := func(k storage.EntityKey) func() string {
		return func() string {
			var b strings.Builder
			b.WriteString("Get " + table + " pk=" + key(k.PK) + " rk=" + key(k.RK))
			if opts != nil && opts.Select != nil {
				b.WriteString(" select=" + list(opts.Select))
			}
			return b.String()
		}
	}
	if err != nil {
		var k storage.EntityKey
		if len(keys) > 0 {
			k = keys[0]
		}
		s.record(ctx, 0, 0, err, describe(k), nil)
		return nil, err
	}
	for i, e := range ents {
		if e == nil {
			s.record(ctx, 0, 0, storage.ErrNotFound, describe(keys[i]), nil)
			continue
		}
		s.record(ctx, 1, 0, nil, describe(keys[i]), func() string { return "1 entity" })
	}
	return ents, nil
}

// MultiGetRows implements storage.MultiRowGetter when the inner store
// does: each key is recorded as the Get it stands for, as MultiGet
// records it, its projection being sel then more (GetRow's). A call the
// store below cannot answer as rows sent nothing and is not recorded.
func (s *Store) MultiGetRows(ctx context.Context, table string, keys []storage.EntityKey, sel, more []string, rows []storage.Row, found []bool) error {
	err := storage.ForwardMultiGetRows(ctx, s.inner, table, keys, sel, more, rows, found)
	if errors.Is(err, storage.ErrRowsUnsupported) {
		return err
	}
	describe := func(k storage.EntityKey) func() string {
		return func() string {
			return "Get " + table + " pk=" + key(k.PK) + " rk=" + key(k.RK) + " select=" + list(append(slices.Clip(sel), more...))
		}
	}
	if err != nil {
		var k storage.EntityKey
		if len(keys) > 0 {
			k = keys[0]
		}
		s.record(ctx, 0, 0, err, describe(k), nil)
		return err
	}
	for i, ok := range found {
		if !ok {
			s.record(ctx, 0, 0, storage.ErrNotFound, describe(keys[i]), nil)
			continue
		}
		s.record(ctx, 1, 0, nil, describe(keys[i]), func() string { return "1 entity" })
	}
	return nil
}
