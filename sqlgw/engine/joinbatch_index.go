package engine

import (
	"errors"
	"sync/atomic"

	"github.com/sqlgw/sqlgw/planner"
	"github.com/sqlgw/sqlgw/storage"
)

// readIndexHits runs the index reads of an index plan (p.Index.Gets and
// p.Index.Queries, each query followed to its end) and returns the index
// entities in plan order (index order). Several reads are issued in
// parallel, multiGetParallel at a time (one after another on an
// in-process store: Gateway.each): a batched lookup join's block of
// keys is one plan with one index read per key. A plan with a limit keeps
// the sequential reads, which stop as soon as a covering plan has enough.
func (it *rowIter) readIndexHits(p *planner.Plan) ([]*storage.Entity, error) {
	st := it.t.gw.store
	noTop := it.tt != nil && len(it.tt.writes) > 0
	get := func(k planner.Key) (*storage.Entity, error) {
		e, err := st.Get(it.ctx, p.Index.Table, k.PK, k.RK, &storage.GetOptions{Select: p.Index.Select})
		if errors.Is(err, storage.ErrNotFound) {
			return nil, nil
		}
		return e, err
	}
	query := func(q0 *storage.Query, stop func(n int) bool) ([]*storage.Entity, error) {
		q := *q0
		if noTop {
			q.Top = 0
		}
		var out []*storage.Entity
		for {
			page, err := st.Query(it.ctx, p.Index.Table, &q)
			if err != nil {
				return nil, err
			}
			out = append(out, page.Entities...)
			if page.Continuation == "" || stop(len(out)) {
				return out, nil
			}
			q.Continuation = page.Continuation
		}
	}
	n := len(p.Index.Gets) + len(p.Index.Queries)
	if n <= 1 || p.Limit > 0 {
		var hits []*storage.Entity
		for _, k := range p.Index.Gets {
			e, err := get(k)
			if err != nil {
				return nil, mapError(err)
			}
			if e != nil {
				hits = append(hits, e)
			}
		}
		for _, q := range p.Index.Queries {
			before := len(hits)
			page, err := query(q, func(got int) bool {
				// A covering plan has its rows; an ordered read under a
				// LIMIT (ixTry) tries the first Limit hits (nextEntity).
				stop := p.Limit > 0 && len(p.Residual) == 0 && int64(before+got) >= p.Limit && (p.Index.Covering || it.ixTry)
				if stop && !p.Index.Covering {
					it.ixCut = true
				}
				return stop
			})
			if err != nil {
				return nil, mapError(err)
			}
			hits = append(hits, page...)
		}
		return hits, nil
	}
	if it.t.gw.serial && len(p.Index.Gets) == 0 && !noIndexMultiQuery.Load() {
		return it.multiQueryHits(p, query)
	}
	res := make([][]*storage.Entity, n)
	errs := make([]error, n)
	it.t.gw.each(n, func(i int) {
		if i < len(p.Index.Gets) {
			e, err := get(p.Index.Gets[i])
			if e != nil {
				res[i] = []*storage.Entity{e}
			}
			errs[i] = err
			return
		}
		res[i], errs[i] = query(p.Index.Queries[i-len(p.Index.Gets)], func(int) bool { return false })
	})
	var hits []*storage.Entity
	for i := range res {
		if errs[i] != nil {
			return nil, mapError(errs[i])
		}
		hits = append(hits, res[i]...)
	}
	return hits, nil
}

// multiQueryHits is readIndexHits for a plan of index queries alone on an
// in-process store (Gateway.serial, where Gateway.each would send them
// one after another): the first pages of all of them in one
// storage.MultiQuery call, which the embedded store reads through one
// iterator (and the wrappers above it pass on once), then each query's
// further pages, if any, with query (readIndexHits'). The hits are those
// of the queries sent one by one, in plan order; a failed request fails
// the read as there. sqlgw's TestIndexMultiQueryDifferential compares it
// with them (SetIndexMultiQuery).
func (it *rowIter) multiQueryHits(p *planner.Plan, query func(q0 *storage.Query, stop func(n int) bool) ([]*storage.Entity, error)) ([]*storage.Entity, error) {
	noTop := it.tt != nil && len(it.tt.writes) > 0
	// The copies in one slab (an IN list of ten: ten queries).
	qv := make([]storage.Query, len(p.Index.Queries))
	qs := make([]*storage.Query, len(p.Index.Queries))
	for i, q0 := range p.Index.Queries {
		qv[i] = *q0
		if noTop {
			qv[i].Top = 0
		}
		qs[i] = &qv[i]
	}
	indexMultiQueries.Add(1)
	pages, err := storage.MultiQuery(it.ctx, it.t.gw.store, p.Index.Table, qs)
	if err != nil {
		return nil, mapError(err)
	}
	n := 0
	for _, page := range pages {
		n += len(page.Entities)
	}
	hits := make([]*storage.Entity, 0, n)
	for i, page := range pages {
		hits = append(hits, page.Entities...)
		if page.Continuation == "" {
			continue
		}
		q := *qs[i]
		q.Continuation = page.Continuation
		more, err := query(&q, func(int) bool { return false })
		if err != nil {
			return nil, mapError(err)
		}
		hits = append(hits, more...)
	}
	return hits, nil
}

// noIndexMultiQuery turns multiQueryHits off (tests: SetIndexMultiQuery);
// indexMultiQueries counts its reads.
var (
	noIndexMultiQuery atomic.Bool
	indexMultiQueries atomic.Int64
)
