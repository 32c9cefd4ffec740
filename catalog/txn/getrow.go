package txn

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/sqlgw/sqlgw/storage"
)

// GetRow implements storage.RowGetter on a store with snapshots of its
// own (the embedded store) whose backend answers rows: getNative's answer
// as a row, with no property map. The backend reads the selection and,
// after it, this package's properties the selection lacks (as getNative's
// projection, withSys, reads them: the same request, the same trace); an
// entity without a lock is answered as read (a tombstone: not found; the
// system properties are never part of the row), a locked one goes
// through getNative's resolution (the whole entity read, resolved,
// projected) and is handed back as a row. On a versioned store (no
// native snapshots) a read may need the read cache and the history: not
// answered as a row; nor is a selection of the caller's after sel (more).
func (s *Store) GetRow(ctx context.Context, table, pk, rk string, sel, more []string, row *storage.Row) error {
	if s.raw(table) {
		return storage.ForwardGetRow(rawCtx(ctx), s.Store, table, pk, rk, sel, more, row)
	}
	if sel == nil || more != nil || s.versioned.Load() != 2 {
		return storage.ErrRowsUnsupported
	}
	sys, selSys := sysProps, hasSysProp(sel)
	if selSys {
		sys = withSys(sel)[len(sel):]
	}
	if err := storage.ForwardGetRow(ctx, s.Store, table, pk, rk, sel, sys, row); err != nil {
		return err
	}
	return s.finishRow(ctx, table, pk, rk, sel, sys, selSys, row)
}

// finishRow finishes row, the backend's answer for (pk, rk) with sel then
// sys (GetRow's request), as GetRow answers: an entity without a lock as
// read (a tombstone: ErrNotFound; the system properties cut off or
// cleared), a locked one through getNative's resolution.
func (s *Store) finishRow(ctx context.Context, table, pk, rk string, sel, sys []string, selSys bool, row *storage.Row) error {
	locked, tomb := false, false
	for i, name := range sys {
		v := row.Values[len(sel)+i]
		switch name {
		case PropLock:
			locked = v.Type() != 0
		case PropDeleted:
			tomb = v.Type() == storage.TypeBoolean && v.BoolValue()
		}
	}
	if !locked {
		for i, name := range sel {
			switch name {
			case PropLock:
				locked = row.Values[i].Type() != 0
			case PropDeleted:
				tomb = row.Values[i].Type() == storage.TypeBoolean && row.Values[i].BoolValue()
			}
		}
	}
	if !locked {
		if tomb {
			return fmt.Errorf("%w: entity %s/%s of table %s (deleted)", storage.ErrNotFound, pk, rk, table)
		}
		row.Values = row.Values[:len(sel)]
		if selSys {
			// clean: the system properties are never the caller's.
			for i, name := range sel {
				if slices.Contains(sysProps, name) {
					row.Values[i] = storage.Value{}
				}
			}
		}
		return nil
	}
	// getNative's resolution: the whole entity.
	e, err := s.Store.Get(ctx, table, pk, rk, nil)
	if err != nil {
		return err
	}
	v, _, err := s.resolve(ctx, table, e)
	if err != nil {
		return err
	}
	if v == nil || isTombstone(v) {
		return fmt.Errorf("%w: entity %s/%s of table %s (an uncommitted insert, or deleted)", storage.ErrNotFound, pk, rk, table)
	}
	storage.SetRow(row, project(clean(v), sel), sel, nil)
	return nil
}

// MultiGetRows implements storage.MultiRowGetter where GetRow answers
// rows (a store with native snapshots, sel given, no more): the backend
// reads the keys in one call with GetRow's request for each (sel, then
// this package's properties sel lacks), and each row is finished as
// GetRow finishes it (finishRow: a tombstone is not found, a locked
// entity resolved from its whole entity). A raw table forwards the call.
func (s *Store) MultiGetRows(ctx context.Context, table string, keys []storage.EntityKey, sel, more []string, rows []storage.Row, found []bool) error {
	if s.raw(table) {
		return storage.ForwardMultiGetRows(rawCtx(ctx), s.Store, table, keys, sel, more, rows, found)
	}
	if sel == nil || more != nil || s.versioned.Load() != 2 {
		return storage.ErrRowsUnsupported
	}
	sys, selSys := sysProps, hasSysProp(sel)
	if selSys {
		sys = withSys(sel)[len(sel):]
	}
	if err := storage.ForwardMultiGetRows(ctx, s.Store, table, keys, sel, sys, rows, found); err != nil {
		return err
	}
	for i := range keys {
		if !found[i] {
			continue
		}
		err := s.finishRow(ctx, table, keys[i].PK, keys[i].RK, sel, sys, selSys, &rows[i])
		if errors.Is(err, storage.ErrNotFound) {
			found[i] = false
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}

var _ storage.MultiRowGetter = (*Store)(nil)

// hasSysProp reports whether sel names one of this package's properties.
func hasSysProp(sel []string) bool {
	for _, n := range sel {
		if slices.Contains(sysProps, n) {
			return true
		}
	}
	return false
}
