package engine

import (
	"sync"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/planner"
	"github.com/sqlgw/sqlgw/storage"
)

// Reading salted tables
//
// A salted table (catalog salt.go, SALT_BUCKETS) stores each PartitionKey
// behind a hashed bucket prefix. The planner plans on logical keys and
// fans a PartitionKey range or a scan out to one query per bucket
// (planner.Plan.Groups); the row iterator runs a group's queries with a
// mergeCursor: the first page of every bucket in parallel, then the next
// page of a bucket only once its entities are consumed, always returning
// the smallest logical key (PartitionKey without the bucket, then RowKey)
// of the buckets' heads. Rows therefore arrive in key order, as the plan
// says, and a LIMIT stops the read after at most Limit entities per
// bucket (each bucket query carries Top).

var _ planner.Salted = (*plannerTable)(nil)

// SaltBuckets implements planner.Salted.
func (p *plannerTable) SaltBuckets() int { return p.t.Salted() }

// Salt implements planner.Salted.
func (p *plannerTable) Salt(pk string) string { return p.t.Salt(pk) }

// SaltPrefix implements planner.Salted.
func (p *plannerTable) SaltPrefix(bucket int) string { return catalog.SaltPrefix(bucket) }

// less orders two stored keys of the iterator's table in logical key
// order: the order its reads return rows in (salted tables included).
func (it *rowIter) less(a, b entKey) bool {
	if it.meta.Salted() > 0 {
		a.pk, b.pk = it.meta.LogicalKey(a.pk), it.meta.LogicalKey(b.pk)
	}
	return keyLess(a, b)
}

// mergeCursor merges the queries of one salted group in logical key order.
type mergeCursor struct {
	it      *rowIter
	qs      []*storage.Query
	pages   [][]*storage.Entity
	pos     []int
	started bool
	back    *storage.Entity
}

func newMergeCursor(it *rowIter, first, n int) *mergeCursor {
	m := &mergeCursor{it: it, pages: make([][]*storage.Entity, n), pos: make([]int, n)}
	for i := 0; i < n; i++ {
		m.qs = append(m.qs, it.query(first+i))
	}
	return m
}

// fill reads the first page of every query in parallel.
func (m *mergeCursor) fill() error {
	errs := make([]error, len(m.qs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, multiGetParallel)
	for i, q := range m.qs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			page, err := m.it.t.gw.store.Query(m.it.ctx, m.it.spec.plan.Table, q)
			if err != nil {
				errs[i] = err
				return
			}
			m.pages[i], q.Continuation = page.Entities, page.Continuation
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	m.started = true
	return nil
}

// head returns the next entity of query i, fetching its next pages while
// they are needed; nil when the query is done.
func (m *mergeCursor) head(i int) (*storage.Entity, error) {
	for m.pos[i] >= len(m.pages[i]) {
		q := m.qs[i]
		if q.Continuation == "" {
			return nil, nil
		}
		page, err := m.it.t.gw.store.Query(m.it.ctx, m.it.spec.plan.Table, q)
		if err != nil {
			return nil, err
		}
		m.pages[i], m.pos[i], q.Continuation = page.Entities, 0, page.Continuation
	}
	return m.pages[i][m.pos[i]], nil
}

// next returns the group's next entity in logical key order, or nil.
func (m *mergeCursor) next() (*storage.Entity, error) {
	if e := m.back; e != nil {
		m.back = nil
		return e, nil
	}
	if !m.started {
		if err := m.fill(); err != nil {
			return nil, err
		}
	}
	best := -1
	var bestE *storage.Entity
	for i := range m.qs {
		e, err := m.head(i)
		if err != nil {
			return nil, err
		}
		if e != nil && (bestE == nil || m.it.less(entKey{e.PartitionKey, e.RowKey}, entKey{bestE.PartitionKey, bestE.RowKey})) {
			best, bestE = i, e
		}
	}
	if best < 0 {
		return nil, nil
	}
	m.pos[best]++
	return bestE, nil
}

// nextGrouped is nextEntity for a plan with query groups (a salted
// table's fanned-out reads).
func (it *rowIter) nextGrouped() (*storage.Entity, error) {
	p := it.spec.plan
	for {
		if it.merge == nil {
			if it.gi >= len(p.Groups) {
				it.finishScan()
				return nil, nil
			}
			it.merge = newMergeCursor(it, it.qi, p.Groups[it.gi])
		}
		e, err := it.merge.next()
		if err != nil {
			return nil, it.queryError(err)
		}
		if e == nil {
			it.qi += p.Groups[it.gi]
			it.gi++
			it.merge = nil
			continue
		}
		if it.meta.IsContinuation(e) {
			continue
		}
		it.scanned++
		return e, nil
	}
}
