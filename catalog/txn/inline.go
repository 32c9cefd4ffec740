package txn

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sqlgw/sqlgw/storage"
)

// The inline path: a commit whose groups all lie in one partition of one
// table and whose locks and intents fit one batch (package doc, "One
// partition: the inline path").

// inlinePrefix starts the RowKeys of an inline transaction's intents, in
// the partition of the rows it writes: "\u00ffi" + txn id + intentKey(n)
// + part. It is histEnd: above the catalog's keys (printable ASCII) and
// above the history namespace, so a query of rows, of a local index, or
// of the history never meets them (belowHistory bounds queries below
// histPrefix; pruneHistory's range ends at histEnd).
const inlinePrefix = histEnd

// site is the table and partition of an inline transaction's intents
// (empty for a transaction with a record).
type site struct{ table, pk string }

// put names the site in a commit row's properties (nothing when empty).
func (at site) put(p storage.Properties) {
	if at.table != "" {
		p[propTable] = storage.String(at.table)
		p[propPK] = storage.String(at.pk)
	}
}

// commitRowSite returns the site a commit row names.
func commitRowSite(c *storage.Entity) (site, bool) {
	t, ok1 := c.Properties[propTable]
	pk, ok2 := c.Properties[propPK]
	if !ok1 || !ok2 || t.Type() != storage.TypeString || pk.Type() != storage.TypeString {
		return site{}, false
	}
	return site{table: t.Str(), pk: pk.Str()}, true
}

// lockSite is the site of the transaction holding lock id on entity e of
// table: its own partition for an inline transaction, none otherwise.
func lockSite(id, table string, e *storage.Entity) site {
	if !isInline(id) {
		return site{}
	}
	return site{table: table, pk: e.PartitionKey}
}

// newInlineID returns the id of an inline transaction whose lease ends at
// expires: "i", the expiry in Unix nanoseconds (16 hex digits) and 16
// random hex digits. A reader takes the lease from the id: there is no
// record to read it from.
func newInlineID(expires time.Time) string {
	var b [8]byte
	rand.Read(b[:])
	return fmt.Sprintf("i%016x%s", uint64(expires.UnixNano()), hex.EncodeToString(b[:]))
}

// isInline reports whether id is an inline transaction's.
func isInline(id string) bool { return len(id) == 33 && id[0] == 'i' }

// inlineExpiry returns the lease expiry inline id encodes (the zero time,
// long past, when it does not parse).
func inlineExpiry(id string) time.Time {
	n, err := strconv.ParseUint(id[1:17], 16, 64)
	if err != nil {
		return time.Time{}
	}
	return time.Unix(0, int64(n))
}

// inlineIntentKey is the RowKey prefix of intent n of inline transaction
// id (intentKey's form, ending in '.').
func inlineIntentKey(id string, n int) string { return inlinePrefix + id + intentKey(n) }

// lockIntent reads the intent of lock l on entity e of table: the new
// properties or del, and, for an inline transaction, the deletes of the
// intent's entities (conditional on the ETags read), which go in the
// batch that resolves the lock.
func (s *Store) lockIntent(ctx context.Context, table string, e *storage.Entity, l lock) (storage.Properties, bool, []storage.Operation, error) {
	if !isInline(l.id) {
		nv, del, err := s.intentValue(ctx, l.id, l.n)
		return nv, del, nil, err
	}
	parts, err := s.intentParts(ctx, table, e.PartitionKey, inlineIntentKey(l.id, l.n), nil)
	if err != nil {
		return nil, false, nil, err
	}
	if len(parts) == 0 {
		return nil, false, nil, fmt.Errorf("%w: intent %d of committed transaction %s", errIntentMissing, l.n, l.id)
	}
	nv, del, err := decodeIntent(parts)
	if err != nil {
		return nil, false, nil, err
	}
	return nv, del, deletesOf(parts), nil
}

// deletesOf returns the deletes of entities, conditional on their ETags.
func deletesOf(es []*storage.Entity) []storage.Operation {
	out := make([]storage.Operation, len(es))
	for i, e := range es {
		out[i] = storage.Operation{Kind: storage.OpDelete, IfMatch: e.ETag, Entity: &storage.Entity{PartitionKey: e.PartitionKey, RowKey: e.RowKey}}
	}
	return out
}

// rollbackInline removes the lock l of an aborted inline transaction
// from entity e of table, with the deletes of its intent in the same
// batch (the intent read first; left to the sweep when that read fails).
// done reports that the batch landed (v is then what a reader sees); not
// done without an error, e changed meanwhile.
func (s *Store) rollbackInline(ctx context.Context, table string, e *storage.Entity, l lock) (v *storage.Entity, done bool, err error) {
	var dels []storage.Operation
	if parts, err := s.intentParts(ctx, table, e.PartitionKey, inlineIntentKey(l.id, l.n), []string{}); err == nil {
		dels = deletesOf(parts)
	}
	op := storage.Operation{Kind: storage.OpDelete, IfMatch: e.ETag, Entity: &storage.Entity{PartitionKey: e.PartitionKey, RowKey: e.RowKey}}
	if !placeholder(l, e) {
		v = stripped(e)
		op = storage.Operation{Kind: storage.OpUpdate, Mode: storage.Replace, IfMatch: e.ETag, Entity: v}
	}
	etags, err := s.Store.Batch(ctx, table, append([]storage.Operation{op}, dels...))
	if err != nil {
		if errors.Is(err, storage.ErrPreconditionFailed) || errors.Is(err, storage.ErrNotFound) {
			return nil, false, nil
		}
		return nil, false, err
	}
	if v != nil {
		v.ETag = etags[0]
	}
	return v, true, nil
}

// inlineSite returns the site of an inline commit of groups: every
// operation in one partition of one table; false otherwise.
func inlineSite(groups []Group) (site, bool) {
	if len(groups) == 0 || len(groups[0].Ops) == 0 {
		return site{}, false
	}
	at := site{table: groups[0].Table, pk: groups[0].Ops[0].Entity.PartitionKey}
	for _, g := range groups {
		if g.Table != at.table {
			return site{}, false
		}
		for _, op := range g.Ops {
			if op.Entity.PartitionKey != at.pk {
				return site{}, false
			}
		}
	}
	return at, true
}

// inlineOps returns the one batch of an inline commit of groups by id:
// the locks (lockOps, in the groups' order), then the intents, with the
// deletes of each operation's intent entities (by group and operation),
// and false when they do not fit one batch.
func inlineOps(id string, at site, groups []Group) (ops []storage.Operation, nLocks int, dels [][][]storage.Operation, ok bool) {
	var intents []storage.Operation
	dels = make([][][]storage.Operation, len(groups))
	n := 0
	for gi, g := range groups {
		ops = append(ops, lockOps(id, n, g)...)
		dels[gi] = make([][]storage.Operation, len(g.Ops))
		for i, op := range g.Ops {
			for _, e := range intentEntitiesAt(at.pk, inlineIntentKey(id, n), g.Table, op) {
				intents = append(intents, storage.Operation{Kind: storage.OpInsert, Entity: e})
				dels[gi][i] = append(dels[gi][i], storage.Operation{Kind: storage.OpDelete, IfMatch: storage.ETagAny,
					Entity: &storage.Entity{PartitionKey: e.PartitionKey, RowKey: e.RowKey}})
			}
			n++
		}
	}
	nLocks = len(ops)
	ops = append(ops, intents...)
	if len(ops) > storage.MaxBatchOps || len(batches(ops)) != 1 {
		return nil, 0, nil, false
	}
	return ops, nLocks, dels, true
}

// commitInline commits groups through the inline path when they lie in
// one partition of one table and their locks and intents fit one batch:
// that batch (the locks, and the intents beside the rows), the commit
// point (commitPoint: the commit row names the partition), and the
// resolution of all the groups together (one partition: one batch when
// they fit) that also deletes the intents. done is false, and nothing
// sent, when the groups do not qualify.
func (s *Store) commitInline(ctx context.Context, groups []Group, beforeCommit func() error) (done bool, err error) {
	at, ok := inlineSite(groups)
	if !ok {
		return false, nil
	}
	start := s.now()
	id := newInlineID(start.Add(s.lease))
	if _, _, _, ok := inlineOps(id, at, groups); !ok {
		return false, nil
	}
	if err := s.ensureTable(ctx); err != nil {
		return true, failedBeforeCommit(err)
	}
	// Unconditional updates and deletes made conditional (Commit), before
	// any write: a failure here applies nothing.
	if err := s.makeConditional(ctx, groups); err != nil {
		return true, failedBeforeCommit(err)
	}
	ops, nLocks, dels, _ := inlineOps(id, at, groups)
	bg := context.WithoutCancel(ctx)
	// 1. The locks and the intents: one batch, all or nothing.
	etags, err := s.Batch(ctx, at.table, ops)
	if err != nil {
		if !definite(err) {
			// The batch may have landed: the locks are released (or, the
			// store unreachable, left to readers after the lease).
			s.abortInline(bg, id, at, dels)
		}
		return true, failedBeforeCommit(inlineGroupError(groups, nLocks, err))
	}
	lockETags := etags[:nLocks]
	if beforeCommit != nil {
		if err := beforeCommit(); err != nil {
			s.abortInline(bg, id, at, dels)
			return true, err
		}
	}
	// 2. The commit point, as through the record.
	if s.now().Sub(start) > abortRetention/2 {
		s.abortInline(bg, id, at, dels)
		return true, fmt.Errorf("%w: the commit took longer than %s", ErrAborted, abortRetention/2)
	}
	ts, aborted, err := s.commitPoint(ctx, id, at)
	if err != nil {
		if aborted {
			s.abortInline(bg, id, at, dels)
		}
		return true, err
	}
	// 3. Resolution: the values, their history and the intents' deletes,
	// in one batch for all the groups (one partition) when they fit.
	all := Group{Table: at.table}
	var allDels [][]storage.Operation
	for gi, g := range groups {
		all.Ops = append(all.Ops, g.Ops...)
		allDels = append(allDels, dels[gi]...)
	}
	if s.resolveGroups(bg, id, ts, []Group{all}, [][]storage.ETag{lockETags}, [][][]storage.Operation{allDels}) {
		s.deleteCommitRow(bg, id)
	}
	return true, nil
}

// definite reports whether a batch's error is the store's answer that it
// applied nothing (a condition failed, or a request the store refused),
// rather than a failure to learn what it did.
func definite(err error) bool {
	for _, e := range []error{storage.ErrPreconditionFailed, storage.ErrAlreadyExists, storage.ErrNotFound,
		storage.ErrTooLarge, storage.ErrInvalid, storage.ErrInvalidKey} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// inlineGroupError returns the error of an inline commit's batch as
// Commit reports it: a *GroupError naming the group and, for a lock, the
// operation.
func inlineGroupError(groups []Group, nLocks int, err error) error {
	var be *storage.BatchError
	if !errors.As(err, &be) || be.Index < 0 {
		return &GroupError{Group: 0, Err: err}
	}
	if be.Index >= nLocks {
		return &GroupError{Group: 0, Err: be.Err} // an intent's: no operation to name
	}
	k := be.Index
	for gi, g := range groups {
		if k < len(g.Ops) {
			return &GroupError{Group: gi, Err: &storage.BatchError{Index: k, Err: be.Err}}
		}
		k -= len(g.Ops)
	}
	return &GroupError{Group: 0, Err: err}
}

// abortInline ends an inline transaction that did not commit: its commit
// row inserted as aborted (naming its partition), then its locks removed
// and its intents deleted in one batch (the locks read in one query);
// when that fails, lock by lock, the intents left to the sweep.
func (s *Store) abortInline(ctx context.Context, id string, at site, dels [][][]storage.Operation) {
	o, err := s.abortRetrying(ctx, id, at)
	if err != nil || o.state != stateAborted {
		return // unreachable (readers abort it after the lease), or committed (cannot be: no commit was sent)
	}
	q := &storage.Query{Partition: storage.Exactly(at.pk), Filter: storage.And{
		storage.Gt(PropLock, storage.String(id+"|")), storage.Lt(PropLock, storage.String(id+"}"))}}
	var ops []storage.Operation
	for {
		page, err := s.Store.Query(ctx, at.table, q)
		if err != nil {
			return
		}
		for _, e := range page.Entities {
			l, ok := parseLock(e)
			if !ok || l.id != id {
				continue
			}
			if placeholder(l, e) {
				ops = append(ops, storage.Operation{Kind: storage.OpDelete, IfMatch: e.ETag, Entity: &storage.Entity{PartitionKey: e.PartitionKey, RowKey: e.RowKey}})
			} else {
				ops = append(ops, storage.Operation{Kind: storage.OpUpdate, Mode: storage.Replace, IfMatch: e.ETag, Entity: stripped(e)})
			}
		}
		if page.Continuation == "" {
			break
		}
		q.Continuation = page.Continuation
	}
	locks := len(ops)
	if locks == 0 {
		return // the batch did not land (or readers rolled it back): intents, if any, are the sweep's
	}
	for _, g := range dels {
		for _, d := range g {
			ops = append(ops, d...)
		}
	}
	if len(ops) <= storage.MaxBatchOps {
		if _, err := s.Store.Batch(ctx, at.table, ops); err == nil {
			return
		}
	}
	for _, op := range ops[:locks] {
		s.release(ctx, at.table, at.pk, op.Entity.RowKey, id)
	}
}

// finishInline finishes an inline transaction with an outcome whose
// commit row names its partition (the sweep): every lock its intents name
// is resolved (release: rolled forward or back), then the intents left
// are deleted. It reports an error when a lock could not be resolved (the
// commit row must then stay). A table that no longer exists (dropped)
// has nothing left to finish.
func (s *Store) finishInline(ctx context.Context, id string, at site) error {
	parts, err := s.keyRange(ctx, at.table, at.pk, inlinePrefix+id, inlinePrefix+id+"w", []string{propRK})
	if errors.Is(err, storage.ErrNotFound) {
		return nil // the table is gone (dropped), and its locks and intents with it
	}
	if err != nil {
		return err
	}
	if len(parts) == 0 {
		return nil
	}
	for _, e := range parts {
		if !strings.HasSuffix(e.RowKey, ".00") {
			continue // a later part of an intent
		}
		if err := s.release(ctx, at.table, at.pk, e.Properties[propRK].Str(), id); err != nil {
			return err
		}
	}
	// The resolutions deleted their intents; what is left goes now.
	if parts, err = s.keyRange(ctx, at.table, at.pk, inlinePrefix+id, inlinePrefix+id+"w", []string{}); err != nil {
		return err
	}
	for _, b := range batches(deletesOf(parts)) {
		if _, err := s.Store.Batch(ctx, at.table, b); err != nil {
			for _, op := range b {
				if err := s.Store.Delete(ctx, at.table, at.pk, op.Entity.RowKey, op.IfMatch); err != nil && !errors.Is(err, storage.ErrNotFound) {
					return err
				}
			}
		}
	}
	return nil
}
