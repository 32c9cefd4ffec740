package ixmaint

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/storage"
)

// PropPending marks a global index entity that may disagree with its base
// row; its value is the writer's start time (Int64, Unix microseconds).
// Part of the persisted format.
const PropPending = "_p"

// PropPrevPK and PropPrevRK, on a marked entity of a unique global index,
// name a second candidate base row: the row of the same transaction that
// held the value before the row named by the base keys took it over
// (Handoffs). Readers verify both; resolving keeps the one whose row
// implies the entity. Part of the persisted format.
const (
	PropPrevPK = "_qp"
	PropPrevRK = "_qr"
)

// DefaultLease is how long a marked entity belongs to a live writer.
const DefaultLease = 10 * time.Second

// ErrDuplicate reports a unique index violation (MySQL 1062).
var ErrDuplicate = errors.New("ixmaint: duplicate entry")

// DuplicateError names the index and the entity key that collided.
type DuplicateError struct {
	Index string
	Key   string // the index entity's PartitionKey + RowKey
	// Entity is the index entity that could not be written (its
	// properties carry the indexed values), when known.
	Entity *storage.Entity
}

func (e *DuplicateError) Error() string {
	return fmt.Sprintf("duplicate entry for unique index %q", e.Index)
}
func (e *DuplicateError) Unwrap() error { return ErrDuplicate }

// ErrExpired reports that a write took longer than Lease/2 between Begin
// and the base commit; the caller aborts (Finish with nothing committed)
// and the client retries.
var ErrExpired = errors.New("ixmaint: index write took too long; retry")

// Maintainer maintains the index entities of tables in one store.
type Maintainer struct {
	Store storage.Store
	// Lease: a marked entity younger than this belongs to a live writer
	// (0: DefaultLease).
	Lease time.Duration
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Parallel caps concurrent requests per call (0: 16).
	Parallel int
	// MultiBatch, if set, is the store's atomic batch across partitions
	// (storage.MultiBatcher; storage.ErrMultiBatchUnsupported when there
	// is none): Backfill then writes a page's global entities, unmarked,
	// in one write with a check that the page's rows are unchanged
	// (backfillAtomic).
	MultiBatch func(ctx context.Context, batches []storage.TableBatch) ([][]storage.ETag, error)
	// Writers, if set with MultiBatch, tells Backfill when no writer of
	// the store's rows can run (WriterGate): a page read and written
	// while none ran is written without its checks (backfillQuiet).
	Writers WriterGate
}

// WriterGate tracks the writers of a store's rows, for Backfill's quiet
// pages (backfillQuiet). Every write of a row, by anyone, must be in a
// writer that the gate counts from before it reads the indexes it
// maintains (or, failing that, before its Begin) until after its Finish;
// a gate that cannot promise that for the whole store (another process
// or gateway may write) must answer false. The gateway's commit gate
// implements it on an embedded store only it uses (sqlgw/engine,
// commitgate.go).
type WriterGate interface {
	// Idle returns a token when no writer is in flight.
	Idle() (token uint64, ok bool)
	// Hold, if no writer has started or finished since Idle returned
	// token, keeps writers from starting until release is called; ok is
	// false otherwise (nothing held).
	Hold(token uint64) (release func(), ok bool)
}

func (m *Maintainer) lease() time.Duration {
	if m.Lease > 0 {
		return m.Lease
	}
	return DefaultLease
}

func (m *Maintainer) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

func (m *Maintainer) parallel() int {
	if m.Parallel > 0 {
		return m.Parallel
	}
	return 16
}

// Write is one row change of a table. Old is the stored row (nil: none,
// an insert); New is nil for a delete. OldPK/OldRK are the stored row's
// keys (equal to PK/RK unless the primary key changed).
type Write struct {
	OldPK, OldRK string
	Old          []catalog.Datum
	PK, RK       string
	New          []catalog.Datum
}

// Maintained returns the indexes writers maintain (every state).
func Maintained(t *catalog.Table) []*catalog.Index {
	out := make([]*catalog.Index, 0, len(t.Indexes))
	for i := range t.Indexes {
		out = append(out, &t.Indexes[i])
	}
	return out
}

// HasGlobal reports whether t has a global index.
func HasGlobal(t *catalog.Table) bool {
	for i := range t.Indexes {
		if t.Indexes[i].Global {
			return true
		}
	}
	return false
}

// keyed reports whether a unique index entity is keyed by the values alone
// (no base-key suffix: no NULL among them): its Insert enforces uniqueness.
func keyed(ix *catalog.Index, t *catalog.Table, e *storage.Entity) bool {
	return ix.Unique && !hasNull(t, ix, e)
}

// hasNull reports whether some index column is NULL in e (absent property).
func hasNull(t *catalog.Table, ix *catalog.Index, e *storage.Entity) bool {
	for _, kp := range ix.Columns {
		c := t.ColumnIndex(kp.Column)
		if _, ok := e.Properties[t.Columns[c].Property]; !ok {
			return true
		}
	}
	return false
}

// entity returns index ix's entity for row (nil row: none).
func entity(t *catalog.Table, ix *catalog.Index, pk, rk string, row []catalog.Datum) (*storage.Entity, error) {
	if row == nil {
		return nil, nil
	}
	return t.IndexEntity(ix, pk, rk, row)
}

// sameEntity reports whether two index entities have the same keys and
// properties (the mark and bookkeeping fields ignored).
func sameEntity(a, b *storage.Entity) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.PartitionKey != b.PartitionKey || a.RowKey != b.RowKey {
		return false
	}
	n := 0
	for k, v := range a.Properties {
		if bookkeeping(k) {
			continue
		}
		n++
		w, ok := b.Properties[k]
		if !ok || !v.Equal(w) {
			return false
		}
	}
	for k := range b.Properties {
		if !bookkeeping(k) {
			n--
		}
	}
	return n == 0
}

// bookkeeping reports the protocol's own properties of an index entity.
func bookkeeping(p string) bool { return p == PropPending || p == PropPrevPK || p == PropPrevRK }

// Candidates returns the base rows an index entity may stand for: its base
// keys, then, on a marked entity handed over between two rows of one
// transaction, the previous holder's.
func Candidates(e *storage.Entity) [][2]string {
	var v [len(candidateProps)]storage.Value
	for i, p := range candidateProps {
		v[i] = e.Properties[p]
	}
	c, n := CandidatesOf(v[:])
	return append(make([][2]string, 0, n), c[:n]...)
}

// candidateProps are the properties Candidates reads, in CandidateProps'
// order.
var candidateProps = [...]string{catalog.PropBasePK, catalog.PropBaseRK, PropPending, PropPrevPK, PropPrevRK}

// CandidateProps returns the properties of an index entity that decide
// its Candidates, in the order CandidatesOf takes their values (a
// reader's projection: storage.Query.Select).
func CandidateProps() []string { return candidateProps[:] }

// CandidatesOf is Candidates from the values of an index entity's
// CandidateProps, in their order (the zero Value for an absent one, as a
// storage.Row holds them): the candidates are c[:n]. It allocates nothing.
func CandidatesOf(v []storage.Value) (c [2][2]string, n int) {
	c[0] = [2]string{v[0].Str(), v[1].Str()}
	if v[4].IsValid() && v[2].IsValid() {
		c[1] = [2]string{v[3].Str(), v[4].Str()}
		return c, 2
	}
	return c, 1
}

// Handoffs records, for one transaction's writes of a table, the values of
// unique global indexes that one row releases and another takes (a swap,
// a shift like u = u + 1): Begin then takes the entity over from the
// releasing row instead of failing on it as a duplicate. Build it over all
// the writes the transaction commits, whichever batch they go in.
type Handoffs struct {
	from map[string][2]string // entity -> the row releasing it
	to   map[string][2]string // entity -> the row taking it
}

func handoffKey(ix *catalog.Index, e *storage.Entity) string {
	return ix.Name + "\x00" + e.PartitionKey + "\x00" + e.RowKey
}

// NewHandoffs finds the handed-over values among writes (nil if none).
func NewHandoffs(t *catalog.Table, writes []Write) (*Handoffs, error) {
	rel := map[string][2]string{}
	take := map[string][2]string{}
	for i := range t.Indexes {
		ix := &t.Indexes[i]
		if !ix.Global || !ix.Unique {
			continue
		}
		for _, w := range writes {
			oldE, err := entity(t, ix, w.OldPK, w.OldRK, w.Old)
			if err != nil {
				return nil, err
			}
			newE, err := entity(t, ix, w.PK, w.RK, w.New)
			if err != nil {
				return nil, err
			}
			if oldE != nil && newE != nil && oldE.PartitionKey == newE.PartitionKey && oldE.RowKey == newE.RowKey {
				continue
			}
			if oldE != nil && keyed(ix, t, oldE) {
				rel[handoffKey(ix, oldE)] = [2]string{w.OldPK, w.OldRK}
			}
			if newE != nil && keyed(ix, t, newE) {
				take[handoffKey(ix, newE)] = [2]string{w.PK, w.RK}
			}
		}
	}
	h := &Handoffs{from: map[string][2]string{}, to: map[string][2]string{}}
	for k, r := range rel {
		if w, ok := take[k]; ok && w != r {
			h.from[k], h.to[k] = r, w
		}
	}
	if len(h.from) == 0 {
		return nil, nil
	}
	return h, nil
}

// Len returns the number of handed-over values.
func (h *Handoffs) Len() int {
	if h == nil {
		return 0
	}
	return len(h.from)
}

// LocalOps returns the operations that keep t's local indexes in step
// with w, to add to the batch of partition w.PK (ops) and, when the
// primary key moved to another partition, to the batch of w.OldPK
// (oldOps; otherwise nil).
func LocalOps(t *catalog.Table, w Write) (ops, oldOps []storage.Operation, err error) {
	for i := range t.Indexes {
		ix := &t.Indexes[i]
		if ix.Global {
			continue
		}
		oldE, err := entity(t, ix, w.OldPK, w.OldRK, w.Old)
		if err != nil {
			return nil, nil, err
		}
		newE, err := entity(t, ix, w.PK, w.RK, w.New)
		if err != nil {
			return nil, nil, err
		}
		if sameEntity(oldE, newE) && (newE == nil || ix.State != catalog.IndexBuilding) {
			continue // an index being built may lack it: rewrite it then
		}
		if oldE != nil && (newE == nil || oldE.PartitionKey != newE.PartitionKey || oldE.RowKey != newE.RowKey) {
			del := storage.Operation{Kind: storage.OpDelete, Entity: &storage.Entity{PartitionKey: oldE.PartitionKey, RowKey: oldE.RowKey}}
			if oldE.PartitionKey == w.PK {
				ops = append(ops, del)
			} else {
				oldOps = append(oldOps, del)
			}
		}
		if newE != nil {
			kind := storage.OpUpsert
			if oldE == nil || oldE.PartitionKey != newE.PartitionKey || oldE.RowKey != newE.RowKey {
				if keyed(ix, t, newE) {
					kind = storage.OpInsert
				}
			}
			ops = append(ops, storage.Operation{Kind: kind, Mode: storage.Replace, Entity: newE})
		}
	}
	return ops, oldOps, nil
}

// LocalIndexOf reports the local index whose entity op writes, for
// turning a batch's ErrAlreadyExists into a duplicate-key error naming the
// index; nil if op is not a local index entity.
func LocalIndexOf(t *catalog.Table, op *storage.Operation) *catalog.Index {
	if op == nil || op.Entity == nil || op.Entity.RowKey < t.RowKeyEnd() {
		return nil
	}
	for i := range t.Indexes {
		ix := &t.Indexes[i]
		if ix.Global {
			continue
		}
		_, pre, err := t.IndexPrefix(ix, nil)
		if err == nil && len(op.Entity.RowKey) >= len(pre) && op.Entity.RowKey[:len(pre)] == pre {
			return ix
		}
	}
	return nil
}

// touch is one global index entity a write changes.
type touch struct {
	ix      *catalog.Index
	w       int // index into Op.writes
	old     bool
	e       *storage.Entity // the entity (new: full; old: keys)
	etag    storage.ETag    // after Begin's write or mark
	written bool            // Begin wrote (or marked) it
	same    bool            // new entity with the old one's key: marked in Begin, written in Finish
	// from: a new entity that another row of the transaction releases
	// (Handoffs): taken over from that row if found. handed: an old
	// entity another row of the transaction takes: marked, never deleted
	// (Finish resolves it once the rows are written).
	from   *[2]string
	handed bool
	took   bool // Begin took the entity over (it names from as previous)
}

// Op is a write in progress (Begin to Finish).
type Op struct {
	m       *Maintainer
	t       *catalog.Table
	writes  []Write
	touches []*touch
	mark    int64
	started time.Time
}

// Expired reports that the base commit must not happen any more (more
// than Lease/2 since Begin).
func (o *Op) Expired() bool {
	return o != nil && len(o.touches) > 0 && o.m.now().Sub(o.started) > o.m.lease()/2
}

// Begin runs step 1 of the protocol for the global indexes of t. On
// ErrDuplicate (or any error) nothing it wrote remains. The returned Op
// must be finished with Finish after the base commit (also when the
// commit failed).
func (m *Maintainer) Begin(ctx context.Context, t *catalog.Table, writes []Write) (*Op, error) {
	return m.BeginHandoffs(ctx, t, writes, nil)
}

// BeginHandoffs is Begin for a part of a transaction whose writes (all of
// them, in every part) h was built from: a unique value one row of the
// transaction releases and another takes is handed over, not reported as
// a duplicate. A handed-over entity names both rows until Finish (readers
// verify both; Candidates), so that whichever row holds the value when a
// reader looks, and after a crash, is found.
func (m *Maintainer) BeginHandoffs(ctx context.Context, t *catalog.Table, writes []Write, h *Handoffs) (*Op, error) {
	o := &Op{m: m, t: t, writes: writes, started: m.now()}
	o.mark = o.started.UnixMicro()
	for wi, w := range writes {
		for i := range t.Indexes {
			ix := &t.Indexes[i]
			if !ix.Global {
				continue
			}
			oldE, err := entity(t, ix, w.OldPK, w.OldRK, w.Old)
			if err != nil {
				return nil, err
			}
			newE, err := entity(t, ix, w.PK, w.RK, w.New)
			if err != nil {
				return nil, err
			}
			if sameEntity(oldE, newE) && (newE == nil || ix.State != catalog.IndexBuilding) {
				continue // an index being built may lack it: rewrite it then
			}
			if oldE != nil && newE != nil && oldE.PartitionKey == newE.PartitionKey && oldE.RowKey == newE.RowKey {
				// Same key, other covered values: mark it now, rewrite it
				// in Finish (readers take a marked entity's row values).
				o.touches = append(o.touches, &touch{ix: ix, w: wi, e: newE, same: true})
				continue
			}
			if newE != nil {
				tc := &touch{ix: ix, w: wi, e: newE}
				if h != nil {
					if r, ok := h.from[handoffKey(ix, newE)]; ok {
						tc.from = &r
					}
				}
				o.touches = append(o.touches, tc)
			}
			if oldE != nil {
				tc := &touch{ix: ix, w: wi, old: true, e: oldE}
				if h != nil {
					_, tc.handed = h.to[handoffKey(ix, oldE)]
				}
				o.touches = append(o.touches, tc)
			}
		}
	}
	if len(o.touches) == 0 {
		return o, nil
	}
	// New entities first (a duplicate fails before any old one is marked),
	// then the marks on old ones.
	var news, olds []*touch
	for _, tc := range o.touches {
		if tc.old || tc.same {
			olds = append(olds, tc)
		} else {
			news = append(news, tc)
		}
	}
	err := m.each(ctx, news, func(ctx context.Context, tc *touch) error { return o.writeNew(ctx, tc) })
	if err == nil {
		err = m.each(ctx, olds, func(ctx context.Context, tc *touch) error { return o.markOld(ctx, tc) })
	}
	if err != nil {
		o.undo(context.WithoutCancel(ctx))
		return nil, err
	}
	return o, nil
}

func (o *Op) writeNew(ctx context.Context, tc *touch) error {
	st := o.m.Store
	e := cloneEntity(tc.e)
	e.Properties[PropPending] = storage.Int64(o.mark)
	w := o.writes[tc.w]
	wasOld := false
	if w.Old != nil {
		if oe, err := entity(o.t, tc.ix, w.OldPK, w.OldRK, w.Old); err == nil && oe.PartitionKey == e.PartitionKey && oe.RowKey == e.RowKey {
			wasOld = true // the row's own entity: rewrite it
		}
	}
	if !keyed(tc.ix, o.t, tc.e) || wasOld {
		etag, err := st.Upsert(ctx, tc.ix.Physical, e, storage.Replace)
		if err != nil {
			return err
		}
		tc.etag, tc.written = etag, true
		return nil
	}
	attempts := 2
	if tc.from != nil {
		attempts = 8 // the releasing row's own writer may touch the entity meanwhile
	}
	var waits int
	var waited time.Duration
	for attempt := 0; ; attempt++ {
		etag, err := st.Insert(ctx, tc.ix.Physical, e)
		if err == nil {
			tc.etag, tc.written = etag, true
			return nil
		}
		if errors.Is(err, storage.ErrPreconditionFailed) && waited < o.m.lease()/4 {
			// The placeholder of a transaction in progress (catalog/txn:
			// a record's atomic write of the value with its row): wait
			// for its outcome, as MySQL waits on the lock, then find the
			// value taken (a duplicate) or free. Bounded well below the
			// lease that Expired checks; a longer wait is a conflict.
			d := min(10*time.Millisecond<<min(waits, 5), 200*time.Millisecond)
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(d):
			}
			waits++
			waited += d
			attempt-- // not an attempt against another row's entity
			continue
		}
		if !errors.Is(err, storage.ErrAlreadyExists) || attempt >= attempts {
			return err
		}
		// Another row holds the value: a duplicate unless its entity is
		// stale and old enough to be resolved.
		cur, err := st.Get(ctx, tc.ix.Physical, e.PartitionKey, e.RowKey, nil)
		if errors.Is(err, storage.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		bpk, brk := cur.Properties[catalog.PropBasePK].Str(), cur.Properties[catalog.PropBaseRK].Str()
		if tc.from != nil && bpk == tc.from[0] && brk == tc.from[1] {
			// The row this transaction moves the value away from: take the
			// entity over, naming that row as the previous holder. If-Match:
			// a concurrent change (its own writer marking it) is retried.
			te := cloneEntity(e)
			te.Properties[PropPrevPK] = storage.String(bpk)
			te.Properties[PropPrevRK] = storage.String(brk)
			etag, err := st.Update(ctx, tc.ix.Physical, te, storage.Replace, cur.ETag)
			if err == nil {
				tc.etag, tc.written, tc.took = etag, true, true
				return nil
			}
			if errors.Is(err, storage.ErrPreconditionFailed) || errors.Is(err, storage.ErrNotFound) {
				continue
			}
			return err
		}
		if bpk == w.PK && brk == w.RK {
			// Our own row's entity (left by an interrupted write): rewrite.
			etag, err := st.Upsert(ctx, tc.ix.Physical, e, storage.Replace)
			if err != nil {
				return err
			}
			tc.etag, tc.written = etag, true
			return nil
		}
		mark, marked := cur.Properties[PropPending]
		if !marked || o.m.now().Sub(time.UnixMicro(mark.Int())) < o.m.lease() {
			return &DuplicateError{Index: tc.ix.Name, Key: e.PartitionKey + e.RowKey, Entity: tc.e}
		}
		if _, err := o.m.resolve(ctx, o.t, tc.ix, cur, true); err != nil {
			return err
		}
	}
}

func (o *Op) markOld(ctx context.Context, tc *touch) error {
	e := &storage.Entity{PartitionKey: tc.e.PartitionKey, RowKey: tc.e.RowKey,
		Properties: storage.Properties{PropPending: storage.Int64(o.mark)}}
	etag, err := o.m.Store.Update(ctx, tc.ix.Physical, e, storage.Merge, storage.ETagAny)
	if errors.Is(err, storage.ErrNotFound) {
		if tc.same {
			return o.writeNew(ctx, tc) // an index being built: not there yet
		}
		if tc.ix.State != catalog.IndexBuilding {
			return nil // already gone (an interrupted earlier write)
		}
		// An index being built whose backfill has not written the entity
		// yet: write it marked, so that a backfill page written before
		// our commit (the row still unchanged) cannot leave it behind
		// unmarked: the page overwrites this copy, Finish sees its ETag
		// changed and resolves it from the row (backfillAtomic).
		mc := cloneEntity(tc.e)
		mc.Properties[PropPending] = storage.Int64(o.mark)
		etag, err = o.m.Store.Insert(ctx, tc.ix.Physical, mc)
		if errors.Is(err, storage.ErrAlreadyExists) {
			// Written meanwhile (by the backfill): mark it.
			etag, err = o.m.Store.Update(ctx, tc.ix.Physical, e, storage.Merge, storage.ETagAny)
		}
		if err != nil {
			return err
		}
	}
	if err != nil {
		return err
	}
	tc.etag, tc.written = etag, true
	return nil
}

// undo removes what Begin wrote: new entities we created are deleted if
// still ours; marks are resolved against the (unchanged) rows.
func (o *Op) undo(ctx context.Context) {
	_ = o.m.each(ctx, o.touches, func(ctx context.Context, tc *touch) error {
		if !tc.written {
			return nil
		}
		if tc.from != nil {
			// Taken over from a row of the same transaction, whose own
			// write may be in flight: left marked, naming both rows; that
			// row's Finish (or Recover) settles it.
			return nil
		}
		_, err := o.m.resolveKey(ctx, o.t, tc.ix, tc.e, true)
		return err
	})
}

// Finish runs step 3: committed(i) reports whether writes[i] reached the
// store. Errors are only reported: whatever is left marked, Recover or a
// reader resolves.
func (o *Op) Finish(ctx context.Context, committed func(i int) bool) error {
	if o == nil || len(o.touches) == 0 {
		return nil
	}
	ctx = context.WithoutCancel(ctx)
	return o.m.each(ctx, o.touches, func(ctx context.Context, tc *touch) error {
		if !committed(tc.w) {
			if !tc.written {
				return nil
			}
			_, err := o.m.resolveKey(ctx, o.t, tc.ix, tc.e, true)
			return err
		}
		st := o.m.Store
		var err error
		if tc.same && !tc.written || tc.took {
			// The entity was missing at Begin, or was taken over from
			// another row of the transaction, whose own batch may have
			// failed (then both rows hold the value, and the entity must
			// keep naming both): decide from the rows.
			_, err = o.m.resolveKey(ctx, o.t, tc.ix, tc.e, true)
			return err
		}
		if tc.old {
			if !tc.written {
				return nil
			}
			if tc.handed {
				// Another row of the transaction takes the value: whether it
				// did is for the rows to say.
				_, err = o.m.resolveKey(ctx, o.t, tc.ix, tc.e, true)
				return err
			}
			err = st.Delete(ctx, tc.ix.Physical, tc.e.PartitionKey, tc.e.RowKey, tc.etag)
		} else {
			_, err = st.Update(ctx, tc.ix.Physical, tc.e, storage.Replace, tc.etag)
		}
		if errors.Is(err, storage.ErrPreconditionFailed) || errors.Is(err, storage.ErrNotFound) {
			// Someone else touched it since: decide from the row.
			_, err = o.m.resolveKey(ctx, o.t, tc.ix, tc.e, true)
		}
		return err
	})
}

// each runs f over items with bounded parallelism and returns the first
// error.
func (m *Maintainer) each(ctx context.Context, items []*touch, f func(context.Context, *touch) error) error {
	if len(items) == 1 {
		return f(ctx, items[0])
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, m.parallel())
	errs := make([]error, len(items))
	for i, it := range items {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			errs[i] = f(ctx, it)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func cloneEntity(e *storage.Entity) *storage.Entity {
	c := &storage.Entity{PartitionKey: e.PartitionKey, RowKey: e.RowKey, Properties: make(storage.Properties, len(e.Properties)+1)}
	for k, v := range e.Properties {
		c.Properties[k] = v
	}
	return c
}

// Apply writes rows of one partition of t with their index maintenance:
// Begin, one atomic batch of the rows' operations (base, built by the
// caller, conditional on the ETags it read) and their local index
// operations, then Finish. Rows whose primary key moved to another
// partition are not supported here (write them as a delete and an insert).
// A duplicate on a local unique index is reported as a DuplicateError.
func (m *Maintainer) Apply(ctx context.Context, t *catalog.Table, writes []Write, base []storage.Operation) error {
	ops := append([]storage.Operation(nil), base...)
	for _, w := range writes {
		lo, old, err := LocalOps(t, w)
		if err != nil {
			return err
		}
		if len(old) > 0 {
			return fmt.Errorf("ixmaint: Apply of a row moving between partitions")
		}
		ops = append(ops, lo...)
	}
	op, err := m.Begin(ctx, t, writes)
	if err != nil {
		return err
	}
	if op.Expired() {
		_ = op.Finish(ctx, func(int) bool { return false })
		return ErrExpired
	}
	for {
		_, err = m.Store.Batch(ctx, t.Physical, ops)
		// A local index still being built may lack the old entity: drop
		// its delete and retry. Safe: the backfill's write of that entity
		// changes the row's ETag, so the retry then fails on it.
		var be *storage.BatchError
		if errors.As(err, &be) && errors.Is(err, storage.ErrNotFound) && be.Index >= len(base) && be.Index < len(ops) &&
			ops[be.Index].Kind == storage.OpDelete {
			ops = slices.Delete(slices.Clone(ops), be.Index, be.Index+1)
			continue
		}
		break
	}
	committed := err == nil
	// On an ambiguous failure (the batch may have been applied), the
	// uncommitted path resolves from the rows, which is right either way.
	_ = op.Finish(ctx, func(int) bool { return committed })
	if err != nil {
		var be *storage.BatchError
		if errors.As(err, &be) && errors.Is(err, storage.ErrAlreadyExists) && be.Index >= 0 && be.Index < len(ops) {
			if ix := LocalIndexOf(t, &ops[be.Index]); ix != nil {
				return &DuplicateError{Index: ix.Name, Key: ops[be.Index].Entity.PartitionKey + ops[be.Index].Entity.RowKey, Entity: ops[be.Index].Entity}
			}
		}
		return err
	}
	return nil
}
