package ixmaint

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/storage"
)

// markedFilter selects entities carrying PropPending (any stored value is
// ge the minimum; an absent property makes the comparison false).
var markedFilter = storage.Ge(PropPending, storage.Int64(-1<<63))

// RecoverStats counts what Recover did.
type RecoverStats struct {
	Marked, Kept, Removed, Skipped int
}

// Recover resolves the marked entities of t's global indexes that are
// older than the lease (all of them if force: only when no writer can be
// running, as in tests).
func (m *Maintainer) Recover(ctx context.Context, t *catalog.Table, force bool) (RecoverStats, error) {
	var rs RecoverStats
	for i := range t.Indexes {
		ix := &t.Indexes[i]
		if !ix.Global {
			continue
		}
		q := &storage.Query{Filter: markedFilter}
		for {
			page, err := m.Store.Query(ctx, ix.Physical, q)
			if err != nil {
				return rs, fmt.Errorf("recover index %q: %w", ix.Name, err)
			}
			for _, e := range page.Entities {
				rs.Marked++
				o, err := m.resolve(ctx, t, ix, e, force)
				if err != nil {
					return rs, fmt.Errorf("recover index %q: %w", ix.Name, err)
				}
				switch o {
				case Kept:
					rs.Kept++
				case Removed:
					rs.Removed++
				default:
					rs.Skipped++
				}
			}
			if page.Continuation == "" {
				break
			}
			q.Continuation = page.Continuation
		}
	}
	return rs, nil
}

// ScanAll runs q over table to the end, following continuations, and
// calls f for every entity.
func ScanAll(ctx context.Context, st storage.Store, table string, q *storage.Query, f func(*storage.Entity) error) error {
	for {
		page, err := st.Query(ctx, table, q)
		if err != nil {
			return err
		}
		for _, e := range page.Entities {
			if err := f(e); err != nil {
				return err
			}
		}
		if page.Continuation == "" {
			return nil
		}
		q.Continuation = page.Continuation
	}
}

// Rows reads every row of t with its keys (for Check and tests).
func Rows(ctx context.Context, st storage.Store, t *catalog.Table) (map[[2]string][]catalog.Datum, error) {
	out := map[[2]string][]catalog.Datum{}
	var cur []*storage.Entity
	flush := func() error {
		if len(cur) == 0 {
			return nil
		}
		row, err := t.DecodeRow(cur...)
		if err != nil {
			return err
		}
		out[[2]string{cur[0].PartitionKey, cur[0].RowKey}] = row
		cur = nil
		return nil
	}
	q := &storage.Query{Row: t.RowRange()} // (an attached table: every entity)
	err := ScanAll(ctx, st, t.Physical, q, func(e *storage.Entity) error {
		if t.IsContinuation(e) {
			cur = append(cur, e)
			return nil
		}
		if err := flush(); err != nil {
			return err
		}
		cur = []*storage.Entity{e}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, flush()
}

// Mismatch is one difference between an index and its rows.
type Mismatch struct {
	Index  string
	Key    string // index entity PartitionKey + "|" + RowKey
	Reason string // "missing", "extra", "different", "marked"
}

// Check compares every index of t with what the rows imply: each row's
// entity must exist, unmarked and equal, and no other entity may exist.
func Check(ctx context.Context, st storage.Store, t *catalog.Table) ([]Mismatch, error) {
	rows, err := Rows(ctx, st, t)
	if err != nil {
		return nil, err
	}
	var out []Mismatch
	for i := range t.Indexes {
		ix := &t.Indexes[i]
		want := map[string]*storage.Entity{}
		for k, row := range rows {
			e, err := t.IndexEntity(ix, k[0], k[1], row)
			if err != nil {
				return nil, err
			}
			want[e.PartitionKey+"|"+e.RowKey] = e
		}
		table := ix.Physical
		q := &storage.Query{}
		if !ix.Global {
			table = t.Physical
			_, pre, err := t.IndexPrefix(ix, nil)
			if err != nil {
				return nil, err
			}
			q.Row = catalog.PrefixRange(pre)
		}
		got := map[string]bool{}
		err := ScanAll(ctx, st, table, q, func(e *storage.Entity) error {
			k := e.PartitionKey + "|" + e.RowKey
			got[k] = true
			w, ok := want[k]
			switch {
			case !ok:
				out = append(out, Mismatch{ix.Name, k, "extra"})
			case !sameEntity(w, e):
				out = append(out, Mismatch{ix.Name, k, "different"})
			case e.Properties[PropPending].IsValid():
				out = append(out, Mismatch{ix.Name, k, "marked"})
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		for k := range want {
			if !got[k] {
				out = append(out, Mismatch{ix.Name, k, "missing"})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Index != out[j].Index {
			return out[i].Index < out[j].Index
		}
		return out[i].Key < out[j].Key
	})
	return out, nil
}

// backfillRetries bounds the attempts to index one row of a local index
// whose ETag keeps changing (about a minute of 50 ms pauses).
const backfillRetries = 1200

// Progress reports a backfill's progress: rows indexed so far and the
// base-table cursor (the last row key done).
type Progress func(rows int, pk, rk string)

// Backfill writes the entities of index ix (any state) for every row of t,
// while writers run. It is idempotent and may be restarted from scratch.
// A unique index that finds two rows with the same values fails with
// ErrDuplicate; the caller then drops the index. Every entity it wrote is
// durable when it returns nil.
func (m *Maintainer) Backfill(ctx context.Context, t *catalog.Table, ix *catalog.Index, progress Progress) error {
	q := storage.Query{Row: t.RowRange(), Select: backfillSelect(t, ix)} // (an attached table: every entity)
	quiet := m.Writers != nil && m.MultiBatch != nil && ix.Global && !t.IsAttached()
	// The next page is read while this one is indexed and written (one
	// read ahead, on its own goroutine): the read and the write use
	// different resources (a scan of the table; the index entities'
	// encoding and batch), so CREATE INDEX on an idle server takes about
	// the longer of the two instead of their sum. Each page still takes
	// its writer-gate token just before its own read, as before.
	readCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	read := func(q storage.Query) backfillRead {
		// A page read while no writer runs may be written without its
		// checks if still none has run by then (backfillQuiet).
		var r backfillRead
		if quiet {
			if tok, ok := m.Writers.Idle(); ok {
				r.token = &tok
			}
		}
		r.page, r.err = m.Store.Query(readCtx, t.Physical, &q)
		return r
	}
	cur := read(q)
	done := 0
	for {
		if cur.err != nil {
			return cur.err
		}
		page := cur.page
		var ahead chan backfillRead
		if page.Continuation != "" {
			q.Continuation = page.Continuation
			ahead = make(chan backfillRead, 1)
			go func(q storage.Query) { ahead <- read(q) }(q)
		}
		if err := m.backfillPage(ctx, t, ix, page.Entities, cur.token); err != nil {
			if ahead != nil {
				cancel()
				<-ahead
			}
			return err
		}
		done += len(page.Entities)
		if progress != nil && len(page.Entities) > 0 {
			last := page.Entities[len(page.Entities)-1]
			progress(done, last.PartitionKey, last.RowKey)
		}
		if ahead == nil {
			break
		}
		cur = <-ahead
	}
	if m.MultiBatch != nil {
		// The sync barrier for the pages backfillAtomic and backfillQuiet
		// wrote unsynced.
		if _, err := m.MultiBatch(ctx, nil); err != nil && !errors.Is(err, storage.ErrMultiBatchUnsupported) {
			return err
		}
	}
	return nil
}

// backfillRead is one page of Backfill's scan, with the writer gate's
// token taken before it was read (nil: none, the page is written with
// its checks).
type backfillRead struct {
	page  *storage.Page
	token *uint64
	err   error
}

// backfillSelect returns the properties the backfill of ix reads of each
// row: those of the indexed and covering columns, and the row's count of
// continuation entities (a row that has some is read whole, GetRow); nil
// (every property) for an attached table or when one of those columns may
// be split over several properties (a large type).
func backfillSelect(t *catalog.Table, ix *catalog.Index) []string {
	if t.IsAttached() {
		return nil
	}
	names := append(make([]string, 0, len(ix.Columns)+len(ix.Covering)), ix.Covering...)
	for _, kp := range ix.Columns {
		names = append(names, kp.Column)
	}
	sel := []string{catalog.PropExtras}
	for _, name := range names {
		c := t.ColumnIndex(name)
		if c < 0 || t.Columns[c].Type.Kind.IsLarge() {
			return nil
		}
		if p := t.Columns[c].Property; !slices.Contains(sel, p) {
			sel = append(sel, p)
		}
	}
	return sel
}

// backfillPage indexes one page of rows (ents). token, if not nil, is the
// writer gate's token taken before the page was read (backfillQuiet).
func (m *Maintainer) backfillPage(ctx context.Context, t *catalog.Table, ix *catalog.Index, ents []*storage.Entity, token *uint64) error {
	items, err := m.pageItems(ctx, t, ix, ents)
	if err != nil {
		return err
	}
	return m.writePage(ctx, t, ix, items, token)
}

// pageItems returns the entities of index ix that a page of rows implies,
// each with the ETag of its row as the page read it.
func (m *Maintainer) pageItems(ctx context.Context, t *catalog.Table, ix *catalog.Index, ents []*storage.Entity) ([]*touch, error) {
	// Only the columns the index's entity carries are decoded (its
	// indexed and covering columns; the base keys come from the entity's).
	kcs, err := t.IndexColumns(ix)
	if err != nil {
		return nil, err
	}
	cols := make([]int, 0, len(kcs)+len(ix.Covering))
	for _, kc := range kcs {
		cols = append(cols, kc.Index)
	}
	for _, name := range ix.Covering {
		if c := t.ColumnIndex(name); c >= 0 {
			cols = append(cols, c)
		}
	}
	items := make([]*touch, 0, len(ents))
	slab := make([]touch, len(ents)) // the page's touches in one allocation
	for _, e := range ents {
		if t.IsContinuation(e) {
			continue
		}
		var row []catalog.Datum
		var err error
		if t.Extras(e) > 0 {
			row, _, _, err = GetRow(ctx, m.Store, t, e.PartitionKey, e.RowKey)
			if err != nil {
				return nil, err
			}
		} else if row, err = t.DecodeRowColumns(cols, e); err != nil {
			return nil, err
		}
		if row == nil {
			continue
		}
		ie, err := t.IndexEntity(ix, e.PartitionKey, e.RowKey, row)
		if err != nil {
			return nil, err
		}
		tc := &slab[len(items)]
		*tc = touch{ix: ix, e: ie, etag: e.ETag}
		items = append(items, tc)
	}
	return items, nil
}

// writePage writes the entities of a page (pageItems).
func (m *Maintainer) writePage(ctx context.Context, t *catalog.Table, ix *catalog.Index, items []*touch, token *uint64) error {
	if !ix.Global {
		// Local: the entity and an empty Merge of the row conditional on
		// the ETag read, in one batch: never an entity for a changed row.
		return m.each(ctx, items, func(ctx context.Context, tc *touch) error {
			bpk, brk := tc.e.Properties[catalog.PropBasePK].Str(), tc.e.Properties[catalog.PropBaseRK].Str()
			pause := time.Millisecond
			for attempt := 0; ; attempt++ {
				kind := storage.OpUpsert
				if keyed(ix, t, tc.e) {
					kind = storage.OpInsert
				}
				_, err := m.Store.Batch(ctx, t.Physical, []storage.Operation{
					{Kind: storage.OpUpdate, Mode: storage.Merge, IfMatch: tc.etag,
						Entity: &storage.Entity{PartitionKey: bpk, RowKey: brk, Properties: storage.Properties{}}},
					{Kind: kind, Mode: storage.Replace, Entity: tc.e},
				})
				var be *storage.BatchError
				switch {
				case err == nil:
					return nil
				case errors.As(err, &be) && be.Index == 1 && errors.Is(err, storage.ErrAlreadyExists):
					cur, gerr := m.Store.Get(ctx, t.Physical, tc.e.PartitionKey, tc.e.RowKey, nil)
					if gerr == nil && sameEntity(cur, tc.e) {
						return nil // already indexed by a writer
					}
					return &DuplicateError{Index: ix.Name, Key: tc.e.PartitionKey + tc.e.RowKey, Entity: tc.e}
				case errors.Is(err, storage.ErrNotFound):
					return nil // the row went: its writer maintained the index
				case !errors.Is(err, storage.ErrPreconditionFailed):
					return err
				}
				// The row's ETag changed since it was read: a writer's
				// commit, which maintained the index (writers rewrite
				// even unchanged entities of an index being built), or
				// a transaction record's lock (catalog/txn), whose
				// transaction may still abort and leave the row as it
				// was, with no writer of its entity. Index the row as it
				// is now; a lock is waited out (readers resolve it, its
				// lease bounds it).
				if attempt >= backfillRetries {
					return fmt.Errorf("ixmaint: backfill of index %s: row %s/%s kept changing (%d attempts): %w", ix.Name, bpk, brk, attempt, err)
				}
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(pause):
				}
				pause = min(2*pause, 50*time.Millisecond)
				row, etag, ok, gerr := GetRow(ctx, m.Store, t, bpk, brk)
				if gerr != nil {
					return gerr
				}
				if !ok {
					return nil // the row went
				}
				ie, ierr := t.IndexEntity(ix, bpk, brk, row)
				if ierr != nil {
					return ierr
				}
				tc.e, tc.etag = ie, etag
			}
		})
	}
	var err error
	held := false
	if token != nil {
		var done bool
		if done, held, err = m.backfillQuiet(ctx, t, ix, items, *token); done || err != nil {
			return err
		}
		// held: written while no writer ran, and failed: an entity of a
		// unique index exists already (a duplicate, or a stale one), so
		// the checked page would fail too. Entity by entity.
	}
	if !held {
		if done, err := m.backfillAtomic(ctx, t, ix, items); done || err != nil {
			return err
		}
	}
	// Global: marked entities, then resolved against the rows as they are now.
	mark := m.now().UnixMicro()
	o := &Op{m: m, t: t, mark: mark}
	err = m.each(ctx, items, func(ctx context.Context, tc *touch) error {
		e := cloneEntity(tc.e)
		e.Properties[PropPending] = storage.Int64(mark)
		var etag storage.ETag
		var err error
		if keyed(ix, t, tc.e) {
			etag, err = m.Store.Insert(ctx, ix.Physical, e)
			if errors.Is(err, storage.ErrAlreadyExists) {
				cur, gerr := m.Store.Get(ctx, ix.Physical, e.PartitionKey, e.RowKey, nil)
				if gerr != nil {
					return gerr
				}
				if sameEntity(cur, tc.e) {
					tc.etag, tc.written = cur.ETag, false
					return nil // indexed already
				}
				if o, rerr := m.resolve(ctx, t, ix, cur, false); rerr != nil || o != Removed {
					if rerr != nil {
						return rerr
					}
					// Resolved current (another row holds the value), or a
					// live writer's: a duplicate unless that row changes.
					if ok, _ := m.stillDuplicate(ctx, t, ix, tc.e); ok {
						return &DuplicateError{Index: ix.Name, Key: e.PartitionKey + e.RowKey, Entity: tc.e}
					}
					return nil
				}
				etag, err = m.Store.Insert(ctx, ix.Physical, e)
			}
		} else {
			etag, err = m.Store.Insert(ctx, ix.Physical, e)
			if errors.Is(err, storage.ErrAlreadyExists) {
				// There already: written by an earlier page or run
				// (current then: a writer since marked it), or by a
				// writer, marked, whose Finish (or Recover, after a
				// crash) settles it. Overwriting it, and resolving it
				// against the row before that writer's commit, would
				// drop the writer's mark.
				return nil
			}
		}
		if err != nil {
			return err
		}
		tc.etag, tc.written = etag, true
		return nil
	})
	if err != nil {
		return err
	}
	_ = o
	return m.each(ctx, items, func(ctx context.Context, tc *touch) error {
		if !tc.written {
			return nil
		}
		cur := cloneEntity(tc.e)
		cur.Properties[PropPending] = storage.Int64(mark)
		cur.ETag = tc.etag
		_, err := m.resolve(ctx, t, ix, cur, true)
		return err
	})
}

// stillDuplicate reports whether the entity at want's keys belongs to
// another row whose values imply it.
func (m *Maintainer) stillDuplicate(ctx context.Context, t *catalog.Table, ix *catalog.Index, want *storage.Entity) (bool, error) {
	cur, err := m.Store.Get(ctx, ix.Physical, want.PartitionKey, want.RowKey, nil)
	if errors.Is(err, storage.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	bpk, brk := cur.Properties[catalog.PropBasePK].Str(), cur.Properties[catalog.PropBaseRK].Str()
	row, _, _, err := GetRow(ctx, m.Store, t, bpk, brk)
	if err != nil {
		return false, err
	}
	ok, err := Current(t, ix, cur, row)
	return ok, err
}
