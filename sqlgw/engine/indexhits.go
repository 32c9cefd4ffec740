package engine

import (
	"context"
	"sync/atomic"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/catalog/ixmaint"
	"github.com/sqlgw/sqlgw/storage"
)

// Verified index hits in one read
//
// An index plan that reads base rows (loadIndex) reads each hit's row and,
// for a global index, checks that the row still implies the hit
// (verifyHit): one Get per candidate row. On an in-process store
// (Gateway.serial, where Gateway.each sends them one after another
// anyway) the rows of all hits are read in one storage.MultiGet call
// instead: the embedded store takes its lock, looks the table up and
// acquires the read's snapshot once, and the wrappers above it pass the
// call on once (metrics and the recorder count each key as the Get it
// stands for; catalog/txn finishes each entity as its Get does). The
// rows are then checked against their hits as verifyHit checks them
// (checkHit), and a hit whose row no longer implies it is stale as before.
// Azure keeps its parallel Gets. sqlgw's TestIndexMultiQueryDifferential
// compares the two (SetIndexMultiQuery turns both one-call reads off).

// indexHit is an index entity as loadIndex uses it: its keys and the base
// rows it may stand for (ixmaint.Candidates), and the entity itself when
// it was read as one (nil when it was read as a row: multiQueryHitRows,
// which reads only the properties that decide the candidates).
type indexHit struct {
	PartitionKey, RowKey string
	cands                [2][2]string
	n                    int // cands[:n] are the candidates
	e                    *storage.Entity
}

// candidates returns the base rows h may stand for (ixmaint.Candidates).
func (h *indexHit) candidates() [][2]string { return h.cands[:h.n] }

// appendHits appends the hits of index entities es.
func appendHits(hits []indexHit, es ...*storage.Entity) []indexHit {
	var v [5]storage.Value
	props := ixmaint.CandidateProps()
	for _, e := range es {
		for i, p := range props {
			v[i] = e.Properties[p]
		}
		h := indexHit{PartitionKey: e.PartitionKey, RowKey: e.RowKey, e: e}
		h.cands, h.n = ixmaint.CandidatesOf(v[:len(props)])
		hits = append(hits, h)
	}
	return hits
}

// hitOfRow is the hit of an index entity read as a row of
// ixmaint.CandidateProps.
func hitOfRow(r *storage.Row) indexHit {
	h := indexHit{PartitionKey: r.PartitionKey, RowKey: r.RowKey}
	h.cands, h.n = ixmaint.CandidatesOf(r.Values)
	return h
}

// hitRows is loadIndex's reads of the rows of hits[gets] in one
// storage.MultiGet, each checked against its hit: out and also are as
// the per-hit loop fills them (a handed-over entity names two candidate
// rows, ixmaint.Candidates). On an error nothing is filled.
func (it *rowIter) hitRows(ix *catalog.Index, cols indexCols, hits []indexHit, gets []int, out, also []*storage.Entity) error {
	keys := make([]storage.EntityKey, 0, len(gets))
	owner := make([]int, 0, len(gets))
	for _, i := range gets {
		for _, cand := range hits[i].candidates() {
			keys = append(keys, storage.EntityKey{PK: cand[0], RK: cand[1]})
			owner = append(owner, i)
		}
	}
	indexMultiGets.Add(1)
	ents, err := storage.MultiGet(it.ctx, it.t.gw.store, it.meta.Physical, keys, nil)
	if err != nil {
		return err
	}
	for j, e := range ents {
		if e == nil {
			continue
		}
		i := owner[j]
		ok, err := it.checkHit(ix, cols, &hits[i], keys[j].PK, keys[j].RK, e)
		if err != nil {
			return err
		}
		if ok && out[i] == nil {
			out[i] = e
		} else if ok {
			also[i] = e
		}
	}
	return nil
}

// MultiGet implements storage.MultiGetter: forwarded in one call for a
// table outside groups; a member's Gets (answered from the group's
// partitions, or rewritten into the group table's key space, by Get) are
// Get calls.
func (s *groupStore) MultiGet(ctx context.Context, table string, keys []storage.EntityKey, opts *storage.GetOptions) ([]*storage.Entity, error) {
	if _, _, ok := member(table); ok {
		return storage.GetEach(ctx, s, table, keys, opts)
	}
	return storage.MultiGet(ctx, s.Store, table, keys, opts)
}

// MultiGetRows forwards the Gets of a table outside every group to the
// wrapped store's storage.MultiRowGetter, if any; a member's are not
// answered as rows (GetRow).
func (s *groupStore) MultiGetRows(ctx context.Context, table string, keys []storage.EntityKey, sel, more []string, rows []storage.Row, found []bool) error {
	if _, _, ok := member(table); ok {
		return storage.ErrRowsUnsupported
	}
	return storage.ForwardMultiGetRows(ctx, s.Store, table, keys, sel, more, rows, found)
}

// indexMultiGets counts hitRows' reads (tests: IndexMultiGets).
var indexMultiGets atomic.Int64
