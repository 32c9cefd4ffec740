package engine

import (
	"io"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
)

// Static lookup cache
//
// go-mysql-server's join planner may put a static lookup (say a PointGet
// on t from WHERE t.pk = 7) on the inner side of a nested loop and re-run
// it for every outer row: remotely, one round trip per row. The first
// complete execution of a static lookup keeps its rows (up to
// maxCachedRows) and later executions in the same statement replay them,
// as long as the transaction has not written to the table since.

const maxCachedRows = 1000

type lookupCache struct {
	spec    any // the *readSpec of a dynamic lookup
	mu      sync.Mutex
	valid   bool
	tx      *txn
	version uint64
	rows    []sql.Row
}

func (c *lookupCache) get(tx *txn, version uint64) ([]sql.Row, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.valid || c.tx != tx || c.version != version {
		return nil, false
	}
	return c.rows, true
}

func (c *lookupCache) put(tx *txn, version uint64, rows []sql.Row) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.valid, c.tx, c.version, c.rows = true, tx, version, rows
}

// txVersion returns the write version of the table in the current
// transaction.
func txVersion(ctx *sql.Context, phys string) (*txn, uint64) {
	tx := currentTxn(ctx)
	if tt := tx.peek(phys); tt != nil {
		return tx, tt.version
	}
	return tx, 0
}

// cachedIter returns an iterator for a static spec: the cached rows, or a
// store iterator that fills the cache when it completes.
func (t *Table) cachedIter(ctx *sql.Context, spec *readSpec) (sql.RowIter, error) {
	cache := spec.cache
	tx, ver := txVersion(ctx, t.meta().Physical)
	if rows, ok := cache.get(tx, ver); ok {
		out := make([]sql.Row, len(rows))
		for i, r := range rows {
			out[i] = t.project(r)
		}
		return sql.RowsToRowIter(out...), nil
	}
	it, err := t.newRowIter(ctx, spec)
	if err != nil {
		return nil, err
	}
	it.keepFull = true
	return &cachingIter{it: it, t: t, cache: cache, tx: tx, ver: ver}, nil
}

// cachingIter records the full rows an iterator returns.
type cachingIter struct {
	it    *rowIter
	t     *Table
	cache *lookupCache
	tx    *txn
	ver   uint64
	rows  []sql.Row
	over  bool
}

func (c *cachingIter) Next(ctx *sql.Context) (sql.Row, error) {
	row, err := c.it.Next(ctx)
	if err == io.EOF {
		if !c.over {
			c.cache.put(c.tx, c.ver, c.rows)
		}
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	if !c.over {
		if len(c.rows) >= maxCachedRows {
			c.over, c.rows = true, nil
		} else {
			c.rows = append(c.rows, c.it.lastFull)
		}
	}
	return row, nil
}

func (c *cachingIter) Close(ctx *sql.Context) error { return c.it.Close(ctx) }

// dynCache caches the lookups of a lookup join (one per outer row) by their
// ranges, so outer rows with the same key cost one lookup. At most
// maxCachedLookups keys are kept per join.
type dynCache struct {
	mu sync.Mutex
	m  map[string]*lookupCache
}

const maxCachedLookups = 1000

func (d *dynCache) lookup(key string) *lookupCache {
	if d == nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.m[key]
}

func (d *dynCache) add(key string, spec *readSpec) *lookupCache {
	if d == nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.m == nil {
		d.m = map[string]*lookupCache{}
	}
	if len(d.m) >= maxCachedLookups {
		return nil
	}
	c := &lookupCache{spec: spec}
	d.m[key] = c
	return c
}
