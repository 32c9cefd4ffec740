package ixmaint

import (
	"context"
	"errors"
	"time"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/storage"
)

// GetRow reads a base row (its main entity and continuations); ok is false
// if it does not exist. A wide row rewritten between the two reads (its
// old continuation generation deleted) is read again.
func GetRow(ctx context.Context, st storage.Store, t *catalog.Table, pk, rk string) (row []catalog.Datum, etag storage.ETag, ok bool, err error) {
	for attempt := 0; ; attempt++ {
		row, etag, ok, err = getRowOnce(ctx, st, t, pk, rk)
		if errors.Is(err, catalog.ErrValue) && attempt < 2 {
			continue
		}
		return row, etag, ok, err
	}
}

func getRowOnce(ctx context.Context, st storage.Store, t *catalog.Table, pk, rk string) (row []catalog.Datum, etag storage.ETag, ok bool, err error) {
	e, err := st.Get(ctx, t.Physical, pk, rk, nil)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, "", false, nil
	}
	if err != nil {
		return nil, "", false, err
	}
	ents := []*storage.Entity{e}
	if n := t.Extras(e); n > 0 {
		q := &storage.Query{Partition: storage.Exactly(pk), Row: t.ContinuationRange(rk)}
		for {
			page, err := st.Query(ctx, t.Physical, q)
			if err != nil {
				return nil, "", false, err
			}
			ents = append(ents, page.Entities...)
			if page.Continuation == "" {
				break
			}
			q.Continuation = page.Continuation
		}
	}
	row, err = t.DecodeRow(ents...)
	if err != nil {
		return nil, "", false, err
	}
	return row, e.ETag, true, nil
}

// Outcome is what resolving an entity did.
type Outcome uint8

const (
	Kept     Outcome = iota // current (mark cleared if it had one)
	Removed                 // stale: deleted
	Skipped                 // marked by a live writer, or changed meanwhile
	Restored                // missing but implied by its row: written
)

// Current reports whether base row row (nil: no row) implies exactly the
// index entity e (keys and carried values).
func Current(t *catalog.Table, ix *catalog.Index, e *storage.Entity, row []catalog.Datum) (bool, error) {
	if row == nil {
		return false, nil
	}
	bpk, brk := e.Properties[catalog.PropBasePK].Str(), e.Properties[catalog.PropBaseRK].Str()
	want, err := t.IndexEntity(ix, bpk, brk, row)
	if err != nil {
		return false, err
	}
	return sameEntity(want, e), nil
}

// Resolve makes index entity cur (as read, with its ETag) agree with its
// base row: clears its mark if the row implies it, deletes it otherwise.
// A marked entity younger than the lease is skipped unless force.
func (m *Maintainer) Resolve(ctx context.Context, t *catalog.Table, ix *catalog.Index, cur *storage.Entity, force bool) (Outcome, error) {
	return m.resolve(ctx, t, ix, cur, force)
}

func (m *Maintainer) resolve(ctx context.Context, t *catalog.Table, ix *catalog.Index, cur *storage.Entity, force bool) (Outcome, error) {
	mark, marked := cur.Properties[PropPending]
	if marked && !force && m.now().Sub(time.UnixMicro(mark.Int())) < m.lease() {
		return Skipped, nil
	}
	cands := Candidates(cur)
	wants := make([]*storage.Entity, len(cands))
	for i, c := range cands {
		row, _, _, err := GetRow(ctx, m.Store, t, c[0], c[1])
		if err != nil {
			return 0, err
		}
		if row != nil {
			if wants[i], err = t.IndexEntity(ix, c[0], c[1], row); err != nil {
				return 0, err
			}
		}
	}
	sameKey := func(w *storage.Entity) bool {
		return w != nil && w.PartitionKey == cur.PartitionKey && w.RowKey == cur.RowKey
	}
	want := wants[0]
	if len(wants) > 1 {
		switch a, b := sameKey(wants[0]), sameKey(wants[1]); {
		case a && b:
			// Both rows hold the value (a transaction that handed it over
			// committed one row and not the other): the entity keeps naming
			// both, so that readers find both.
			return Skipped, nil
		case b:
			// The previous holder keeps it (the taker did not commit).
			_, err := m.Store.Update(ctx, ix.Physical, wants[1], storage.Replace, cur.ETag)
			return settle(Kept, err)
		}
	}
	switch {
	case sameEntity(want, cur) && len(cands) == 1:
		if !marked {
			return Kept, nil
		}
		e := cloneEntity(cur)
		delete(e.Properties, PropPending)
		_, err := m.Store.Update(ctx, ix.Physical, e, storage.Replace, cur.ETag)
		return settle(Kept, err)
	case sameKey(want):
		// Other carried values (a covering column changed), or a handed-
		// over entity settled on its new holder.
		_, err := m.Store.Update(ctx, ix.Physical, want, storage.Replace, cur.ETag)
		return settle(Kept, err)
	}
	err := m.Store.Delete(ctx, ix.Physical, cur.PartitionKey, cur.RowKey, cur.ETag)
	return settle(Removed, err)
}

func settle(o Outcome, err error) (Outcome, error) {
	if errors.Is(err, storage.ErrPreconditionFailed) || errors.Is(err, storage.ErrNotFound) {
		return Skipped, nil
	}
	return o, err
}

// resolveKey resolves the entity with want's keys, reading it first; if it
// is missing and want's base row implies it, it is written (unmarked).
func (m *Maintainer) resolveKey(ctx context.Context, t *catalog.Table, ix *catalog.Index, want *storage.Entity, force bool) (Outcome, error) {
	cur, err := m.Store.Get(ctx, ix.Physical, want.PartitionKey, want.RowKey, nil)
	if err == nil {
		return m.resolve(ctx, t, ix, cur, force)
	}
	if !errors.Is(err, storage.ErrNotFound) {
		return 0, err
	}
	bpk, brk := want.Properties[catalog.PropBasePK].Str(), want.Properties[catalog.PropBaseRK].Str()
	row, _, _, err := GetRow(ctx, m.Store, t, bpk, brk)
	if err != nil {
		return 0, err
	}
	ok, err := Current(t, ix, want, row)
	if err != nil || !ok {
		return Skipped, err
	}
	e := cloneEntity(want)
	delete(e.Properties, PropPending)
	_, err = m.Store.Insert(ctx, ix.Physical, e)
	if errors.Is(err, storage.ErrAlreadyExists) {
		return Skipped, nil
	}
	return Restored, err
}
