package sqlgw

import (
	"context"
	"sync/atomic"

	"github.com/sqlgw/sqlgw/storage"
)

// counters are one session's store request counters.
type counters struct {
	requests atomic.Int64
	entities atomic.Int64
}

func (c *counters) Requests() int64     { return c.requests.Load() }
func (c *counters) EntitiesRead() int64 { return c.entities.Load() }

type countersKey struct{}

// withCounters returns ctx carrying c (nil: none) for the counting store.
func withCounters(ctx context.Context, c *counters) context.Context {
	return context.WithValue(ctx, countersKey{}, c)
}

func countersFrom(ctx context.Context) *counters {
	c, _ := ctx.Value(countersKey{}).(*counters)
	return c
}

// countingStore counts, per session, every request sent to the store and
// every entity it returns, using the counters carried by the context.
type countingStore struct {
	storage.Store
}

func (s countingStore) req(ctx context.Context) *counters {
	c := countersFrom(ctx)
	if c != nil {
		c.requests.Add(1)
	}
	return c
}

func (s countingStore) CreateTable(ctx context.Context, table string) error {
	s.req(ctx)
	return s.Store.CreateTable(ctx, table)
}

func (s countingStore) DeleteTable(ctx context.Context, table string) error {
	s.req(ctx)
	return s.Store.DeleteTable(ctx, table)
}

func (s countingStore) ListTables(ctx context.Context) ([]string, error) {
	s.req(ctx)
	return s.Store.ListTables(ctx)
}

func (s countingStore) TableExists(ctx context.Context, table string) (bool, error) {
	s.req(ctx)
	return s.Store.TableExists(ctx, table)
}

func (s countingStore) Get(ctx context.Context, table, pk, rk string, opts *storage.GetOptions) (*storage.Entity, error) {
	c := s.req(ctx)
	e, err := s.Store.Get(ctx, table, pk, rk, opts)
	if c != nil && err == nil {
		c.entities.Add(1)
	}
	return e, err
}

func (s countingStore) Insert(ctx context.Context, table string, e *storage.Entity) (storage.ETag, error) {
	s.req(ctx)
	return s.Store.Insert(ctx, table, e)
}

func (s countingStore) Upsert(ctx context.Context, table string, e *storage.Entity, mode storage.UpdateMode) (storage.ETag, error) {
	s.req(ctx)
	return s.Store.Upsert(ctx, table, e, mode)
}

func (s countingStore) Update(ctx context.Context, table string, e *storage.Entity, mode storage.UpdateMode, ifMatch storage.ETag) (storage.ETag, error) {
	s.req(ctx)
	return s.Store.Update(ctx, table, e, mode, ifMatch)
}

func (s countingStore) Delete(ctx context.Context, table, pk, rk string, ifMatch storage.ETag) error {
	s.req(ctx)
	return s.Store.Delete(ctx, table, pk, rk, ifMatch)
}

func (s countingStore) Batch(ctx context.Context, table string, ops []storage.Operation) ([]storage.ETag, error) {
	s.req(ctx)
	return s.Store.Batch(ctx, table, ops)
}

func (s countingStore) Query(ctx context.Context, table string, q *storage.Query) (*storage.Page, error) {
	c := s.req(ctx)
	p, err := s.Store.Query(ctx, table, q)
	if c != nil && err == nil {
		c.entities.Add(int64(len(p.Entities)))
	}
	return p, err
}
