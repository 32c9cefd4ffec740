package txn

import (
	"context"
	"errors"

	"github.com/sqlgw/sqlgw/storage"
)

// resolveInSnapshot is resolve for a read whose context carries a
// native storage.Snapshot (the embedded store's): the entity, its lock's
// commit row, record and intents are all read as of the snapshot, so the
// transaction's state at that point decides what the reader sees, and nothing is written (a resolution applies to the current
// state, which the snapshot does not show). The outcome cache is not used:
// it holds outcomes reached after the snapshot was taken.
//
//   - committed: the intent's value (or nothing, for a delete);
//   - pending (within its lease or not: it had no outcome when the snapshot
//     was taken) or aborted: the previous value (nothing for a
//     placeholder);
//   - no record: a record is deleted only after its last lock is resolved,
//     so a lock without one in the same snapshot belongs to an aborted
//     transaction (a lock write delayed past its recovery): the previous
//     value.
//
// The value returned carries a poisoned ETag: the entity still holds the
// lock in the snapshot, so a write conditional on it must not reach the
// store (whatever the store holds now, it is not that version).
func (s *Store) resolveInSnapshot(ctx context.Context, table string, e *storage.Entity) (*storage.Entity, bool, error) {
	l, ok := parseLock(e)
	if !ok {
		return stripped(e), false, nil // not ours: never written by this package
	}
	state := stateMissing
	var ts int64
	c, err := s.Store.Get(ctx, s.table, clockPK, commitRowRK+l.id, nil)
	switch {
	case err == nil:
		o := commitRowOutcome(c)
		state, ts = o.state, o.ts
	case !errors.Is(err, storage.ErrNotFound):
		return nil, false, err
	case isInline(l.id):
		// No record (inline.go): a commit row is deleted only after
		// every lock is resolved, so without one in the snapshot the
		// transaction had no outcome then.
		state = statePending
	default:
		rec, err := s.Store.Get(ctx, s.table, l.id, recRowKey, nil)
		switch {
		case err == nil:
			state = rec.Properties[propState].Str()
		case !errors.Is(err, storage.ErrNotFound):
			return nil, false, err
		}
	}
	poisoned := storage.ETag(poison) + e.ETag
	if state == stateCommitted {
		nv, del, _, err := s.lockIntent(ctx, table, e, l)
		if err != nil {
			return nil, false, err
		}
		if del {
			return nil, false, nil
		}
		if ts > 0 {
			nv = versionedValue(e.PartitionKey, e.RowKey, nv, false, ts).Properties
		}
		return &storage.Entity{PartitionKey: e.PartitionKey, RowKey: e.RowKey, Properties: nv, ETag: poisoned, Timestamp: e.Timestamp}, false, nil
	}
	if placeholder(l, e) {
		return nil, state == statePending, nil
	}
	v := stripped(e)
	v.ETag = poisoned
	return v, state == statePending, nil
}

// UnusableETag returns an ETag derived from t that a write through Store
// cannot be conditional on: the write fails with
// storage.ErrPreconditionFailed before reaching the store (as one on the
// ETag of a locked entity does). The gateway gives it to a row read at two
// versions, so that a write computed from either fails as a conflict.
func UnusableETag(t storage.ETag) storage.ETag {
	if isPoisoned(t) {
		return t
	}
	return storage.ETag(poison) + t
}
