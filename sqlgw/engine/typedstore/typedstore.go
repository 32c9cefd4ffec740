// Package typedstore is the store wrapper that presents each entity type
// of an attached store table as a table of its own (TYPES BY; the engine's
// attached.go, catalog/attached_types.go): a request on a typed Physical
// name goes to the store table restricted to the entity type, every other
// request passes through.
//
// It imports the catalog (the typed Physical names and entity types) and
// the storage contract only: never the engine or anything above it
// (scripts/layering.sh checks it). The engine wraps its store in New once,
// below its table-group wrapper (gateway.go).
package typedstore

import (
	"context"
	"slices"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/storage"
)

// typedStore is the gateway's store (New): requests on a typed attached table's
// Physical ("Orders#p=EntityType&...", catalog/attached_types.go) go to
// the store table restricted to the entity type; every other request
// passes through unchanged. Queries get the discriminator as a filter (or
// the RowKey prefix as a range) so that $top and paging stay exact, and
// entities of other types are dropped even when the filter could not be
// added (at the service's 15 comparisons); a Get of another type's entity
// is ErrNotFound. Writes need no change: the catalog's row encoding stamps
// the discriminator, and updates and deletes are conditional on the ETag
// of an entity read through the type.
type typedStore struct {
	storage.Store
}

// New wraps s (see typedStore).
func New(s storage.Store) storage.Store { return &typedStore{Store: s} }

func base(table string) string {
	b, _, _ := catalog.ParseTypedPhysical(table)
	return b
}

func (s *typedStore) CreateTable(ctx context.Context, table string) error {
	return s.Store.CreateTable(ctx, base(table))
}

func (s *typedStore) DeleteTable(ctx context.Context, table string) error {
	return s.Store.DeleteTable(ctx, base(table))
}

func (s *typedStore) TableExists(ctx context.Context, table string) (bool, error) {
	return s.Store.TableExists(ctx, base(table))
}

func (s *typedStore) Get(ctx context.Context, table, pk, rk string, opts *storage.GetOptions) (*storage.Entity, error) {
	b, et, typed := catalog.ParseTypedPhysical(table)
	if !typed {
		return s.Store.Get(ctx, table, pk, rk, opts)
	}
	o, strip := withTypeProp(opts, et)
	e, err := s.Store.Get(ctx, b, pk, rk, o)
	if err != nil {
		return nil, err
	}
	if !et.Match(e) {
		return nil, storage.ErrNotFound
	}
	if strip {
		delete(e.Properties, et.Prop)
	}
	return e, nil
}

// withTypeProp adds the discriminator property to a Get's projection (to
// check the type); strip reports that it was not asked for.
func withTypeProp(opts *storage.GetOptions, et *catalog.EntityType) (*storage.GetOptions, bool) {
	if opts == nil || opts.Select == nil || et.Prop == "" || slices.Contains(opts.Select, et.Prop) {
		return opts, false
	}
	return &storage.GetOptions{Select: append(slices.Clip(opts.Select), et.Prop)}, true
}

func (s *typedStore) Insert(ctx context.Context, table string, e *storage.Entity) (storage.ETag, error) {
	return s.Store.Insert(ctx, base(table), e)
}

func (s *typedStore) Upsert(ctx context.Context, table string, e *storage.Entity, mode storage.UpdateMode) (storage.ETag, error) {
	return s.Store.Upsert(ctx, base(table), e, mode)
}

func (s *typedStore) Update(ctx context.Context, table string, e *storage.Entity, mode storage.UpdateMode, ifMatch storage.ETag) (storage.ETag, error) {
	return s.Store.Update(ctx, base(table), e, mode, ifMatch)
}

func (s *typedStore) Delete(ctx context.Context, table, pk, rk string, ifMatch storage.ETag) error {
	return s.Store.Delete(ctx, base(table), pk, rk, ifMatch)
}

func (s *typedStore) Batch(ctx context.Context, table string, ops []storage.Operation) ([]storage.ETag, error) {
	return s.Store.Batch(ctx, base(table), ops)
}

// MultiQuery implements storage.MultiQuerier: forwarded in one call for
// a table of its own physical name; a typed table's queries (rewritten and
// checked by Query) are Query calls.
func (s *typedStore) MultiQuery(ctx context.Context, table string, qs []*storage.Query) ([]*storage.Page, error) {
	if _, _, typed := catalog.ParseTypedPhysical(table); typed {
		return storage.QueryEach(ctx, s, table, qs)
	}
	return storage.MultiQuery(ctx, s.Store, table, qs)
}

func (s *typedStore) Query(ctx context.Context, table string, q *storage.Query) (*storage.Page, error) {
	b, et, typed := catalog.ParseTypedPhysical(table)
	if !typed {
		return s.Store.Query(ctx, table, q)
	}
	tq := *q
	strip := false
	if f := et.Filter(); f != nil {
		if q.Filter == nil {
			tq.Filter = f
		} else if storage.CountComparisons(q.Filter) < maxFilterComparisons {
			tq.Filter = storage.And{q.Filter, f}
		}
		// The entities are checked here too: the discriminator must come back.
		if q.Select != nil && !slices.Contains(q.Select, et.Prop) {
			tq.Select, strip = append(slices.Clip(q.Select), et.Prop), true
		}
	}
	if r := et.RowRange(); r != nil {
		tq.Row = intersectRange(q.Row, r)
		if tq.Row == nil {
			return &storage.Page{}, nil
		}
	}
	page, err := s.Store.Query(ctx, b, &tq)
	if err != nil {
		return nil, err
	}
	kept := page.Entities[:0]
	for _, e := range page.Entities {
		if et.Match(e) {
			if strip {
				delete(e.Properties, et.Prop)
			}
			kept = append(kept, e)
		}
	}
	page.Entities = kept
	return page, nil
}

// maxFilterComparisons is the service's limit of comparisons per filter.
const maxFilterComparisons = 15

// intersectRange returns the keys in both a (nil: all) and b, or nil when
// none.
func intersectRange(a, b *storage.KeyRange) *storage.KeyRange {
	if a == nil {
		return b
	}
	r := &storage.KeyRange{Low: a.Low, High: a.High}
	if b.Low != nil && (r.Low == nil || storage.CompareKeys(b.Low.Key, r.Low.Key) > 0 ||
		storage.CompareKeys(b.Low.Key, r.Low.Key) == 0 && b.Low.Exclusive) {
		r.Low = b.Low
	}
	if b.High != nil && (r.High == nil || storage.CompareKeys(b.High.Key, r.High.Key) < 0 ||
		storage.CompareKeys(b.High.Key, r.High.Key) == 0 && b.High.Exclusive) {
		r.High = b.High
	}
	if r.Low != nil && r.High != nil {
		if c := storage.CompareKeys(r.Low.Key, r.High.Key); c > 0 || c == 0 && (r.Low.Exclusive || r.High.Exclusive) {
			return nil
		}
	}
	return r
}

// Snapshot forwards to the wrapped store's storage.Snapshotter, if any.
func (s *typedStore) Snapshot(ctx context.Context) (storage.Snapshot, error) {
	return storage.ForwardSnapshot(ctx, s.Store)
}

// GetRow forwards a Get of an untyped table to the wrapped store's
// storage.RowGetter, if any; a typed table's entities are checked here
// (Get), so its Gets are not answered as rows.
func (s *typedStore) GetRow(ctx context.Context, table, pk, rk string, sel, more []string, row *storage.Row) error {
	if _, _, typed := catalog.ParseTypedPhysical(table); typed {
		return storage.ErrRowsUnsupported
	}
	return storage.ForwardGetRow(ctx, s.Store, table, pk, rk, sel, more, row)
}

// MultiQueryRows forwards the queries of an untyped table to the wrapped
// store's storage.MultiRowQuerier, if any; a typed table's are not
// answered as rows (QueryRows).
func (s *typedStore) MultiQueryRows(ctx context.Context, table string, qs []*storage.Query, marks []string, pages []storage.RowPage) error {
	if _, _, typed := catalog.ParseTypedPhysical(table); typed {
		return storage.ErrRowsUnsupported
	}
	return storage.ForwardMultiQueryRows(ctx, s.Store, table, qs, marks, pages)
}

// QueryRows forwards a query of an untyped table to the wrapped store's
// storage.RowQuerier, if any; a typed table's entities are checked here
// (Query), so its queries are not answered as rows.
func (s *typedStore) QueryRows(ctx context.Context, table string, q *storage.Query, marks []string) (*storage.RowPage, error) {
	if _, _, typed := catalog.ParseTypedPhysical(table); typed {
		return nil, storage.ErrRowsUnsupported
	}
	return storage.ForwardQueryRows(ctx, s.Store, table, q, marks)
}
