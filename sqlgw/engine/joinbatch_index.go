package engine

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/catalog/ixmaint"
	"github.com/sqlgw/sqlgw/planner"
	"github.com/sqlgw/sqlgw/storage"
)

// readIndexHits runs the index reads of an index plan (p.Index.Gets and
// p.Index.Queries, each query followed to its end) and returns the index
// hits in plan order (index order). Several reads are issued in
// parallel, multiGetParallel at a time (one after another on an
// in-process store: Gateway.each): a batched lookup join's block of
// keys is one plan with one index read per key. A plan with a limit keeps
// the sequential reads, which stop as soon as a covering plan has enough.
// asRows lets an IN list's queries be read as rows (multiQueryHitRows):
// loadIndex needs only the hits' candidates, not their entities.
func (it *rowIter) readIndexHits(p *planner.Plan, asRows bool) ([]indexHit, error) {
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
		var hits []indexHit
		for _, k := range p.Index.Gets {
			e, err := get(k)
			if err != nil {
				return nil, mapError(err)
			}
			if e != nil {
				hits = appendHits(hits, e)
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
			hits = appendHits(hits, page...)
		}
		return hits, nil
	}
	if it.t.gw.serial && len(p.Index.Gets) == 0 && !noIndexMultiQuery.Load() {
		if asRows && !noIndexHitRows.Load() {
			if hits, ok, err := it.multiQueryHitRows(p, query); ok || err != nil {
				return hits, err
			}
		}
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
	var hits []indexHit
	for i := range res {
		if errs[i] != nil {
			return nil, mapError(errs[i])
		}
		hits = appendHits(hits, res[i]...)
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
func (it *rowIter) multiQueryHits(p *planner.Plan, query func(q0 *storage.Query, stop func(n int) bool) ([]*storage.Entity, error)) ([]indexHit, error) {
	qs := it.indexQueries(p, nil)
	indexMultiQueries.Add(1)
	pages, err := storage.MultiQuery(it.ctx, it.t.gw.store, p.Index.Table, qs)
	if err != nil {
		return nil, mapError(err)
	}
	n := 0
	for _, page := range pages {
		n += len(page.Entities)
	}
	hits := make([]indexHit, 0, n)
	for i, page := range pages {
		hits = appendHits(hits, page.Entities...)
		if page.Continuation == "" {
			continue
		}
		q := *qs[i]
		q.Continuation = page.Continuation
		more, err := query(&q, func(int) bool { return false })
		if err != nil {
			return nil, mapError(err)
		}
		hits = appendHits(hits, more...)
	}
	return hits, nil
}

// indexQueries returns copies of p's index queries, in one slab, without
// their Top when the transaction has buffered writes (they are merged
// after the read), projected to sel when it is set.
func (it *rowIter) indexQueries(p *planner.Plan, sel []string) []*storage.Query {
	noTop := it.tt != nil && len(it.tt.writes) > 0
	qv := make([]storage.Query, len(p.Index.Queries))
	qs := make([]*storage.Query, len(p.Index.Queries))
	for i, q0 := range p.Index.Queries {
		qv[i] = *q0
		if noTop {
			qv[i].Top = 0
		}
		if sel != nil {
			qv[i].Select = sel
		}
		qs[i] = &qv[i]
	}
	return qs
}

// Index hits as rows
//
// loadIndex reads of an index entity only the base rows it may stand for
// (ixmaint.Candidates: the base keys, and a handed-over entity's previous
// holder) unless the plan is covering (coveringEntity needs the carried
// values). multiQueryHitRows reads an IN list's index queries as rows of
// those properties alone (ixmaint.CandidateProps) in one
// storage.MultiQueryRows call: the embedded store decodes them by
// position, with no property map per index entity, and catalog/txn
// finishes each page as its QueryRows does. A query with more hits than
// a page reads its further pages as multiQueryHits does (as entities).
// A hit read as a row carries no entity (indexHit.e): the repair of a
// stale one reads it again (repairHit). A store chain that cannot answer
// rows (the Table service, a typed or grouped table, a store without
// native snapshots) answers ErrRowsUnsupported having sent nothing, and
// the hits are read by multiQueryHits. TestIndexHitRowsDifferential
// compares both ways.

// multiQueryHitRows is multiQueryHits with the first pages read as rows;
// ok is false, having sent nothing, when the store cannot answer them.
func (it *rowIter) multiQueryHitRows(p *planner.Plan, query func(q0 *storage.Query, stop func(n int) bool) ([]*storage.Entity, error)) (hits []indexHit, ok bool, err error) {
	mrq, ok := it.t.gw.store.(storage.MultiRowQuerier)
	if !ok {
		return nil, false, nil
	}
	qs := it.indexQueries(p, ixmaint.CandidateProps())
	pages := make([]storage.RowPage, len(qs))
	err = mrq.MultiQueryRows(it.ctx, p.Index.Table, qs, nil, pages)
	if errors.Is(err, storage.ErrRowsUnsupported) {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, mapError(err)
	}
	indexMultiQueries.Add(1)
	indexHitRowReads.Add(1)
	n := 0
	for i := range pages {
		n += len(pages[i].Rows)
	}
	hits = make([]indexHit, 0, n)
	for i := range pages {
		for j := range pages[i].Rows {
			hits = append(hits, hitOfRow(&pages[i].Rows[j]))
		}
		if pages[i].Continuation == "" {
			continue
		}
		q := *p.Index.Queries[i]
		q.Continuation = pages[i].Continuation
		more, err := query(&q, func(int) bool { return false })
		if err != nil {
			return nil, true, mapError(err)
		}
		hits = appendHits(hits, more...)
	}
	return hits, true, nil
}

// repairHit repairs the stale global index hit h (maint's Resolve): on
// the hit's entity, or, for a hit read as a row, on the entity as it is
// now (Resolve decides on the current rows anyway, and its writes are
// conditional on the entity's ETag).
func (it *rowIter) repairHit(ctx context.Context, ix *catalog.Index, h *indexHit) error {
	e := h.e
	if e == nil {
		var err error
		e, err = it.t.gw.store.Get(ctx, ix.Physical, h.PartitionKey, h.RowKey, nil)
		if errors.Is(err, storage.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
	}
	_, err := it.t.gw.maint().Resolve(ctx, it.meta, ix, e, false)
	return err
}

// noIndexMultiQuery turns multiQueryHits off (tests: SetIndexMultiQuery);
// indexMultiQueries counts its reads.
var (
	noIndexMultiQuery atomic.Bool
	indexMultiQueries atomic.Int64
)

// noIndexHitRows turns multiQueryHitRows off (tests: SetIndexHitRows);
// indexHitRowReads counts its reads answered as rows (IndexHitRowReads).
var (
	noIndexHitRows   atomic.Bool
	indexHitRowReads atomic.Int64
)
