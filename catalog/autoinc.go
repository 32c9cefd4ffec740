package catalog

import (
	"context"
	"errors"
	"fmt"

	"github.com/sqlgw/sqlgw/storage"
)

// counter reads the stored counter of t's generation: the next value and
// the entity's ETag ("" if it does not exist yet).
func (c *Catalog) counter(ctx context.Context, t *Table) (uint64, storage.ETag, error) {
	e, err := c.store.Get(ctx, c.table, autoIncPartition, autoIncRowKey(t.ID, t.Generation), nil)
	if errors.Is(err, storage.ErrNotFound) {
		start := t.AutoIncrementStart
		if start == 0 {
			start = 1
		}
		return start, "", nil
	}
	if err != nil {
		return 0, "", fmt.Errorf("catalog: reading AUTO_INCREMENT of %q: %w", t.Name, err)
	}
	v, ok := e.Properties[propNext]
	if !ok || v.Type() != storage.TypeInt64 {
		return 0, "", fmt.Errorf("%w: AUTO_INCREMENT counter of %q is malformed", ErrValue, t.Name)
	}
	return uint64(v.Int()) ^ flipBit, e.ETag, nil
}

// casCounter moves the stored counter from (cur, etag) to next; false on a
// conflict.
func (c *Catalog) casCounter(ctx context.Context, t *Table, etag storage.ETag, next uint64) (bool, error) {
	e := &storage.Entity{PartitionKey: autoIncPartition, RowKey: autoIncRowKey(t.ID, t.Generation),
		Properties: storage.Properties{propNext: storage.Int64(int64(next ^ flipBit))}}
	var err error
	if etag == "" {
		_, err = c.store.Insert(ctx, c.table, e)
	} else {
		_, err = c.store.Update(ctx, c.table, e, storage.Replace, etag)
	}
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, storage.ErrAlreadyExists), errors.Is(err, storage.ErrPreconditionFailed), errors.Is(err, storage.ErrNotFound):
		return false, nil
	}
	return false, fmt.Errorf("catalog: updating AUTO_INCREMENT of %q: %w", t.Name, err)
}

// NextAutoIncrement reserves n consecutive AUTO_INCREMENT values of t and
// returns the first. Values come from a block reserved with one
// ETag-guarded store write per Options.AutoIncrementBlock values, so most
// calls cost no request. Values are unique across catalogs sharing the
// store but, as with MySQL's interleaved lock mode, not gap-free.
func (c *Catalog) NextAutoIncrement(ctx context.Context, t *Table, n uint64) (uint64, error) {
	if n == 0 {
		n = 1
	}
	key := aiKey{t.ID, t.Generation}
	c.aiMu.Lock()
	defer c.aiMu.Unlock()
	if b := c.ai[key]; b != nil && b.limit-b.next >= n {
		v := b.next
		b.next += n
		return v, nil
	}
	size := max(n, c.opts.AutoIncrementBlock, c.aiWant[key])
	delete(c.aiWant, key)
	for range c.opts.MaxRetries {
		cur, etag, err := c.counter(ctx, t)
		if err != nil {
			return 0, err
		}
		if cur+size < cur {
			return 0, fmt.Errorf("%w: AUTO_INCREMENT of %q is exhausted", ErrValue, t.Name)
		}
		ok, err := c.casCounter(ctx, t, etag, cur+size)
		if err != nil {
			return 0, err
		}
		if ok {
			c.ai[key] = &aiBlock{next: cur + n, limit: cur + size}
			return cur, nil
		}
	}
	return 0, ErrConflict
}

// WantAutoIncrement tells the catalog that a statement is about to take n
// AUTO_INCREMENT values of t one by one (a multi-row INSERT: sysbench's
// prepare inserts 2,700 rows a statement): the next reservation, when the
// values already reserved run out, is made for the rest of them at once,
// one ETag-guarded, synced store write instead of one per
// Options.AutoIncrementBlock values. The values handed out are the same:
// the reserved block is used up first, and the next one starts where the
// stored counter is. A block not used up (a failed statement, a gateway
// that stops) leaves a gap, as any reserved block does.
func (c *Catalog) WantAutoIncrement(t *Table, n uint64) {
	key := aiKey{t.ID, t.Generation}
	c.aiMu.Lock()
	defer c.aiMu.Unlock()
	if b := c.ai[key]; b != nil {
		if b.limit-b.next >= n {
			return
		}
		n -= b.limit - b.next
	}
	if n <= c.opts.AutoIncrementBlock {
		return
	}
	if c.aiWant == nil {
		c.aiWant = map[aiKey]uint64{}
	}
	c.aiWant[key] = n
}

// ObserveAutoIncrement records that the value v was inserted explicitly, so
// the counter continues above it (MySQL semantics). It costs no request
// when v is below this catalog's reserved block.
func (c *Catalog) ObserveAutoIncrement(ctx context.Context, t *Table, v uint64) error {
	key := aiKey{t.ID, t.Generation}
	c.aiMu.Lock()
	defer c.aiMu.Unlock()
	if b := c.ai[key]; b != nil {
		if v < b.next {
			return nil
		}
		if v < b.limit {
			b.next = v + 1
			return nil
		}
		delete(c.ai, key)
	}
	if v == ^uint64(0) {
		return nil
	}
	for range c.opts.MaxRetries {
		cur, etag, err := c.counter(ctx, t)
		if err != nil {
			return err
		}
		if cur > v {
			return nil
		}
		ok, err := c.casCounter(ctx, t, etag, v+1)
		if err != nil || ok {
			return err
		}
	}
	return ErrConflict
}

// AutoIncrement returns the next value the counter would hand out (for
// SHOW TABLE STATUS / information_schema).
func (c *Catalog) AutoIncrement(ctx context.Context, t *Table) (uint64, error) {
	c.aiMu.Lock()
	b := c.ai[aiKey{t.ID, t.Generation}]
	c.aiMu.Unlock()
	if b != nil && b.next < b.limit {
		return b.next, nil
	}
	v, _, err := c.counter(ctx, t)
	return v, err
}

// dropCounter deletes the counter of t's generation after a drop or
// truncate.
func (c *Catalog) dropCounter(t *Table) func(ctx context.Context) {
	return func(ctx context.Context) {
		_ = c.store.Delete(ctx, c.table, autoIncPartition, autoIncRowKey(t.ID, t.Generation), storage.ETagAny)
		c.aiMu.Lock()
		delete(c.ai, aiKey{t.ID, t.Generation})
		c.aiMu.Unlock()
	}
}
