package txn

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sqlgw/sqlgw/internal/ordered"
	"github.com/sqlgw/sqlgw/storage"
)

// Group is the operations of one commit on one partition of one table:
// at most storage.MaxBatchOps operations on distinct entities (the batch
// its locks are written in). Operations are Insert, Update and Upsert in
// Replace mode, and Delete; IfMatch as in a batch.
type Group struct {
	Table string
	Ops   []storage.Operation
}

// GroupError reports the group whose locks failed (Err is the store's
// error, a *storage.BatchError naming the operation when the store named
// one). Nothing of the transaction is applied.
type GroupError struct {
	Group int
	Err   error
}

func (e *GroupError) Error() string { return fmt.Sprintf("txn: group %d: %v", e.Group, e.Err) }
func (e *GroupError) Unwrap() error { return e.Err }

// parallel bounds the requests of one commit in flight at once.
const parallel = 16

// chunkBytes is the size of one Binary chunk of an intent value, and
// partChunks the number of chunks in one intent entity.
const (
	chunkBytes = 60 << 10
	partChunks = 12
)

func (s *Store) ensureTable(ctx context.Context) error {
	if s.ensured.Load() {
		return nil
	}
	err := s.Store.CreateTable(ctx, s.table)
	if err != nil && !errors.Is(err, storage.ErrAlreadyExists) {
		return err
	}
	s.ensured.Store(true)
	return nil
}

// intentEntities returns the entities holding intent n (op) of txn id.
func intentEntities(id string, n int, table string, op storage.Operation) []*storage.Entity {
	return intentEntitiesAt(id, intentKey(n), table, op)
}

// intentEntitiesAt returns the entities holding the intent of op (on
// table) in partition pk, their RowKeys pre + the part number: in the
// record's partition, or beside the rows for an inline transaction
// (inline.go).
func intentEntitiesAt(pk, pre string, table string, op storage.Operation) []*storage.Entity {
	id := pk
	first := &storage.Entity{PartitionKey: id, RowKey: pre + "00", Properties: storage.Properties{
		propTable: storage.String(table), propPK: storage.String(op.Entity.PartitionKey), propRK: storage.String(op.Entity.RowKey)}}
	if op.Kind == storage.OpDelete {
		first.Properties[propKind] = storage.String("d")
		return []*storage.Entity{first}
	}
	first.Properties[propKind] = storage.String("w")
	b := encodeProps(op.Entity.Properties)
	out := []*storage.Entity{first}
	cur, c := first, 0
	for len(b) > 0 || c == 0 {
		if c == partChunks {
			cur = &storage.Entity{PartitionKey: id, RowKey: pre + fmt.Sprintf("%02d", len(out)), Properties: storage.Properties{}}
			out = append(out, cur)
			c = 0
		}
		k := min(len(b), chunkBytes)
		cur.Properties["b"+strconv.Itoa(c)] = storage.Binary(b[:k])
		b = b[k:]
		c++
	}
	return out
}

// batches cuts entities of one partition into batches within the limits.
func batches(ops []storage.Operation) [][]storage.Operation {
	return storage.SplitBatches(ops, storage.MaxBatchBytes/2)
}

func (s *Store) recordEntity(id, state string, expires int64, n int) *storage.Entity {
	return &storage.Entity{PartitionKey: id, RowKey: recRowKey, Properties: storage.Properties{
		propState: storage.String(state), propOwner: storage.String(s.owner),
		propExpire: storage.Int64(expires), propCount: storage.Int32(int32(n))}}
}

// Commit applies groups atomically (package doc). beforeCommit, if not
// nil, runs after every lock is written and before the commit point; an
// error from it aborts. Commit returns nil once committed (the intents are
// resolved before it returns, except those a failure left to readers and
// the sweep); *GroupError or another error when nothing was applied;
// ErrAborted when a gateway aborted the record first; ErrStoreFailed when
// a request failed without an answer before the commit point (aborted:
// nothing applied); ErrUnknownOutcome only when the commit point's result
// could not be learnt.
func (s *Store) Commit(ctx context.Context, groups []Group, beforeCommit func() error) error {
	for _, g := range groups {
		for _, op := range g.Ops {
			if op.Kind == storage.OpUpdate && op.Mode == storage.Merge || op.Kind == storage.OpUpsert && op.Mode == storage.Merge {
				return fmt.Errorf("%w: txn: merge operations cannot be part of a transaction", storage.ErrInvalid)
			}
		}
	}
	if done, err := s.commitMulti(ctx, groups, beforeCommit); done {
		return err
	}
	// A resolved value carries PropVersion: one property more than the
	// caller's. Refused before anything is written, so that no committed
	// transaction has a value its resolution cannot write.
	for gi, g := range groups {
		for i, op := range g.Ops {
			if op.Kind != storage.OpDelete && len(op.Entity.Properties) > storage.MaxProperties-1 {
				return &GroupError{Group: gi, Err: &storage.BatchError{Index: i, Err: fmt.Errorf("%w: %d properties, the limit is %d in a transaction (one for the version)",
					storage.ErrTooLarge, len(op.Entity.Properties), storage.MaxProperties-1)}}
			}
			// The resolution writes the previous value to a history
			// entity whose RowKey is longer than the row's (histKey): a
			// RowKey without room for it would fail every resolution
			// after the commit point (the row unreadable, its record
			// never finished).
			if err := storage.DefaultLimits.ValidateKey("RowKey", histKey(op.Entity.RowKey, 0, 0)); err != nil {
				return &GroupError{Group: gi, Err: &storage.BatchError{Index: i, Err: fmt.Errorf("%w: the RowKey leaves no room for its history entity's key in a transaction: %v",
					storage.ErrTooLarge, err)}}
			}
		}
	}
	// One partition of one table, within one batch: without the record.
	if done, err := s.commitInline(ctx, groups, beforeCommit); done {
		return err
	}
	if err := s.ensureTable(ctx); err != nil {
		return failedBeforeCommit(err)
	}
	start, startReal := s.now(), time.Now()
	id := newID(start)
	expires := start.Add(s.lease).UnixMicro()
	// 1. The record (pending) and the intent values, in the record's own
	// partition: the record in the first batch, so a lock never exists
	// without it.
	n := 0
	var side []storage.Operation
	for _, g := range groups {
		for _, op := range g.Ops {
			for _, e := range intentEntities(id, n, g.Table, op) {
				side = append(side, storage.Operation{Kind: storage.OpInsert, Entity: e})
			}
			n++
		}
	}
	rec := s.recordEntity(id, statePending, expires, n)
	side = append([]storage.Operation{{Kind: storage.OpInsert, Entity: rec}}, side...)
	bs := batches(side)
	bg := context.WithoutCancel(ctx)
	etags, err := s.Store.Batch(ctx, s.table, bs[0])
	if err != nil {
		if !definite(err) {
			// The record may have landed: aborted at once, rather than
			// left pending to its lease (no lock was sent).
			s.abort(bg, id, nil, n)
		}
		return failedBeforeCommit(err)
	}
	// The lease is renewed from the moment the record exists until the
	// commit point is reached (renewal below).
	stopRenew := s.renewLease(ctx, id, n, startReal, etags[0])
	defer stopRenew()
	if len(bs) > 1 {
		if err := s.parallelBatches(ctx, s.table, bs[1:]); err != nil {
			stopRenew()
			s.abort(bg, id, nil, n)
			return failedBeforeCommit(err)
		}
	}
	// A lock must never overwrite another transaction's. A conditional
	// lock cannot (a locked entity reads with a poisoned ETag), and an
	// unconditional one in a group with a conditional operation fails
	// with it when the rows are locked (a row's continuation and index
	// entities share the batch of its conditional main entity). In a
	// group without any, unconditional updates and deletes are made
	// conditional on the ETag read now; one whose entity reads as absent
	// (absent, or another transaction's placeholder, which an
	// unconditional Merge of the lock would take over) fails as the store
	// would fail it, before any lock is written.
	preErr := s.makeConditional(ctx, groups)
	// 2. The locks, one batch per group, in parallel. The failure
	// reported is the first group's in the order of groups (the
	// caller's rows: a multi-row INSERT with several duplicates names the
	// first), not the first to arrive.
	lockETags := make([][]storage.ETag, len(groups))
	locks := ordered.NewGroup(parallel)
	locks.Fail(len(groups), preErr) // after any group's
	base := 0
	for gi, g := range groups {
		ops := lockOps(id, base, g)
		base += len(g.Ops)
		if locks.Err() != nil {
			break
		}
		locks.Go(gi, func() error {
			etags, err := s.lockBatch(ctx, g.Table, ops)
			if err != nil {
				return &GroupError{Group: gi, Err: err}
			}
			lockETags[gi] = etags // each goroutine its own element; read after Wait
			return nil
		})
	}
	firstErr := locks.Wait()
	if firstErr != nil {
		stopRenew()
		s.abort(bg, id, groups, n)
		return failedBeforeCommit(firstErr)
	}
	if beforeCommit != nil {
		if err := beforeCommit(); err != nil {
			stopRenew()
			s.abort(bg, id, groups, n)
			return err
		}
	}
	// 3. The commit point: the commit row, with the clock (mvcc.go). The
	// lease is renewed until it is reached: the clock's batch may wait for
	// the one before it, and a slow store may take a while to answer it.
	if s.now().Sub(start) > abortRetention/2 {
		stopRenew()
		s.abort(bg, id, groups, n)
		return fmt.Errorf("%w: the commit took longer than %s", ErrAborted, abortRetention/2)
	}
	ts, aborted, err := s.commitPoint(ctx, id, site{})
	stopRenew()
	if err != nil {
		if aborted {
			s.abort(bg, id, groups, n)
		}
		return err
	}
	// 4. Resolution: roll every lock forward, one batch per group.
	if s.resolveGroups(bg, id, ts, groups, lockETags, nil) {
		s.deleteEntities(bg, id, side[1:])
	}
	return nil
}

// renewLease keeps the lease of transaction id's pending record (sent at
// sent, real time; n operations; ETag etag) alive until the returned stop is
// called (which waits for a renewal in flight). A committer that is alive
// and making progress must not lose its transaction to a reader or a sweep
// that finds its lease expired only because the store, or the machine, is
// slow; a dead one stops renewing and is recovered once its last lease is
// over. Hence:
//
//   - a renewal is sent every quarter of the lease, counted from the send
//     of the previous write of the record (the first from the record's
//     own batch, which may itself have been slow);
//   - each extends the lease from its send by the lease plus twice the
//     time the previous renewal took to be answered (at most one lease
//     more): while the store's latency stays under a lease (and does not
//     jump from nothing to more than three quarters of one), each renewal
//     lands before the lease it extends runs out;
//   - a renewal refused on its ETag (one whose answer was lost landed,
//     or the store retried it after it landed) reads the record and goes
//     on from its current ETag while it is still pending: before, every
//     later renewal failed on the stale ETag and the lease ran out;
//   - a record found deleted (aborted and recovered) ends the renewals:
//     the commit point reports the abort.
func (s *Store) renewLease(ctx context.Context, id string, n int, sent time.Time, etag storage.ETag) (stop func()) {
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		every := s.lease / 4
		var took time.Duration // the previous renewal's round trip
		t := time.NewTimer(time.Until(sent.Add(every)))
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			at := s.now()
			sentReal := time.Now()
			e := s.recordEntity(id, statePending, at.Add(s.lease+min(2*took, s.lease)).UnixMicro(), n)
			et, err := s.Store.Update(ctx, s.table, e, storage.Replace, etag)
			took = time.Since(sentReal)
			next := every
			switch {
			case err == nil:
				etag = et
			case errors.Is(err, storage.ErrPreconditionFailed):
				cur, gerr := s.Store.Get(ctx, s.table, id, recRowKey, nil)
				if errors.Is(gerr, storage.ErrNotFound) {
					return
				}
				if gerr == nil && cur.Properties[propState].Str() == statePending {
					etag = cur.ETag
					next = 0 // renew now, from the current ETag
				}
			case errors.Is(err, storage.ErrNotFound):
				return
			default:
				next = every / 4 // a failed request: try again soon
			}
			t.Reset(max(0, time.Until(sentReal.Add(next))))
		}
	}()
	return func() {
		select {
		case <-done:
		default:
			close(done)
			<-stopped
		}
	}
}

// makeConditional makes the unconditional updates and deletes of a group
// without any conditional operation conditional on the ETag read now
// (Commit). It returns a *GroupError when an entity reads as absent (or
// the read fails); the other operations are still made conditional.
func (s *Store) makeConditional(ctx context.Context, groups []Group) error {
	var preErr error
	for gi := range groups {
		conditional := false
		for _, op := range groups[gi].Ops {
			conditional = conditional || op.Kind == storage.OpInsert || op.IfMatch != "" && op.IfMatch != storage.ETagAny
		}
		if conditional {
			continue
		}
		for i, op := range groups[gi].Ops {
			if (op.Kind == storage.OpUpdate || op.Kind == storage.OpDelete) && (op.IfMatch == "" || op.IfMatch == storage.ETagAny) {
				cur, err := s.Get(ctx, groups[gi].Table, op.Entity.PartitionKey, op.Entity.RowKey, &storage.GetOptions{Select: []string{}})
				if err != nil {
					if preErr == nil {
						preErr = &GroupError{Group: gi, Err: &storage.BatchError{Index: i, Err: err}}
					}
					continue
				}
				groups[gi].Ops[i].IfMatch = cur.ETag
			}
		}
	}
	return preErr
}

// lockOps returns the lock writes of group g of transaction id, its
// operations numbered from base: a Merge of PropLock conditional on the
// operation's ETag, an Insert of a placeholder for an Insert, an
// unconditional Merge for an Upsert.
func lockOps(id string, base int, g Group) []storage.Operation {
	ops := make([]storage.Operation, len(g.Ops))
	for i, op := range g.Ops {
		l := lock{id: id, n: base + i}
		e := &storage.Entity{PartitionKey: op.Entity.PartitionKey, RowKey: op.Entity.RowKey}
		switch op.Kind {
		case storage.OpInsert:
			l.flag = "a"
			e.Properties = storage.Properties{PropLock: storage.String(l.String())}
			ops[i] = storage.Operation{Kind: storage.OpInsert, Entity: e}
		case storage.OpUpsert:
			l.flag = "u"
			e.Properties = storage.Properties{PropLock: storage.String(l.String())}
			ops[i] = storage.Operation{Kind: storage.OpUpsert, Mode: storage.Merge, Entity: e}
		default: // update, delete: the entity must exist, as read
			e.Properties = storage.Properties{PropLock: storage.String(l.String())}
			ops[i] = storage.Operation{Kind: storage.OpUpdate, Mode: storage.Merge, IfMatch: op.IfMatch, Entity: e}
		}
	}
	return ops
}

// commitPoint reaches the commit point of transaction id (the commit row,
// naming the inline transaction's site at, with the clock: mvcc.go) and
// returns its commit timestamp. On failure, aborted reports that the
// transaction is aborted (the caller rolls its locks back; err wraps
// ErrAborted); otherwise err wraps ErrUnknownOutcome.
func (s *Store) commitPoint(ctx context.Context, id string, at site) (ts int64, aborted bool, err error) {
	bg := context.WithoutCancel(ctx)
	ts, err = s.clk.commitTS(ctx, s, id, at)
	if err != nil {
		var o outcome
		if errors.Is(err, ErrAborted) {
			o.state = stateAborted
		} else {
			// The batch may or may not have landed: ask.
			for try := 0; try < 3 && o.state == ""; try++ {
				c, rerr := s.Store.Get(bg, s.table, clockPK, commitRowRK+id, nil)
				switch {
				case rerr == nil:
					o = commitRowOutcome(c)
				case errors.Is(rerr, storage.ErrNotFound):
					if o2, aerr := s.abortTxn(bg, id, at); aerr == nil {
						o = o2
					}
				}
			}
		}
		switch o.state {
		case stateCommitted:
			ts = o.ts
		case stateAborted:
			if errors.Is(err, ErrAborted) {
				return 0, true, ErrAborted
			}
			// This gateway aborted it itself, the commit row found
			// absent after the batch failed: the batch never landed.
			return 0, true, fmt.Errorf("%w (the commit point's batch did not land: %v)", ErrStoreFailed, err)
		default:
			return 0, false, fmt.Errorf("%w: transaction %s: %v", ErrUnknownOutcome, id, err)
		}
	}
	s.remember(id, outcome{state: stateCommitted, ts: ts})
	return ts, false, nil
}

// commitMulti commits through the store's own atomic batch across
// partitions (storage.MultiBatcher: the embedded store), when it has one:
// one request, no record, no lock, the same outcomes. done reports that it
// took the commit.
func (s *Store) commitMulti(ctx context.Context, groups []Group, beforeCommit func() error) (done bool, err error) {
	m, ok := s.Store.(storage.MultiBatcher)
	if !ok {
		return false, nil
	}
	tbs := make([]storage.TableBatch, len(groups))
	for gi, g := range groups {
		for i, op := range g.Ops {
			if err := checkWrite(op.IfMatch); err != nil {
				return true, &GroupError{Group: gi, Err: &storage.BatchError{Index: i, Err: err}}
			}
		}
		tbs[gi] = storage.TableBatch{Table: g.Table, Ops: g.Ops}
	}
	if beforeCommit != nil {
		if err := beforeCommit(); err != nil {
			return true, err
		}
	}
	for attempt := 0; ; attempt++ {
		_, err := m.MultiBatch(ctx, tbs)
		if errors.Is(err, storage.ErrMultiBatchUnsupported) {
			return false, nil
		}
		if err == nil {
			return true, nil
		}
		var me *storage.MultiBatchError
		if !errors.As(err, &me) || me.Batch < 0 || me.Batch >= len(groups) {
			return true, err
		}
		ge := &GroupError{Group: me.Batch, Err: me.Err}
		var be *storage.BatchError
		if attempt >= 3 || !errors.Is(err, storage.ErrAlreadyExists) || !errors.As(err, &be) || be.Index < 0 || be.Index >= len(groups[me.Batch].Ops) {
			return true, ge
		}
		// An insert over another transaction's placeholder (left by the
		// record protocol): a conflict while it lives, removed and retried
		// once aborted.
		op := groups[me.Batch].Ops[be.Index]
		retry, tomb, err2 := s.existing(ctx, groups[me.Batch].Table, op.Entity.PartitionKey, op.Entity.RowKey)
		if err2 != nil {
			return true, &GroupError{Group: me.Batch, Err: &storage.BatchError{Index: be.Index, Err: err2}}
		}
		if !retry || tomb != nil {
			return true, ge
		}
	}
}

// parallelBatches sends batches of one table, at most parallel at once.
func (s *Store) parallelBatches(ctx context.Context, table string, bs [][]storage.Operation) error {
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	sem := make(chan struct{}, parallel)
	for _, b := range bs {
		wg.Add(1)
		sem <- struct{}{}
		go func(b []storage.Operation) {
			defer wg.Done()
			defer func() { <-sem }()
			if _, err := s.Store.Batch(ctx, table, b); err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
		}(b)
	}
	wg.Wait()
	return firstErr
}

// lockBatch writes one group's locks. A lock insert that meets an entity
// is a duplicate (ErrAlreadyExists), unless the entity is another
// transaction's placeholder: then a conflict, or, aborted, removed and
// retried (Store.Batch).
func (s *Store) lockBatch(ctx context.Context, table string, ops []storage.Operation) ([]storage.ETag, error) {
	if len(ops) == 1 {
		op := ops[0]
		var etag storage.ETag
		var err error
		switch op.Kind {
		case storage.OpInsert:
			etag, err = s.Insert(ctx, table, op.Entity)
		case storage.OpUpsert:
			etag, err = s.Store.Upsert(ctx, table, op.Entity, op.Mode)
		default:
			etag, err = s.Update(ctx, table, op.Entity, op.Mode, op.IfMatch)
		}
		if err != nil {
			return nil, &storage.BatchError{Index: 0, Err: err}
		}
		return []storage.ETag{etag}, nil
	}
	return s.Batch(ctx, table, ops)
}

// abort ends a transaction that did not commit: its commit row inserted
// as aborted (unless already so), every lock rolled back, then the
// record, intents and commit row deleted. Failures leave the rest to
// readers and the sweep.
func (s *Store) abort(ctx context.Context, id string, groups []Group, n int) {
	o, err := s.abortRetrying(ctx, id, site{})
	if err != nil || o.state != stateAborted {
		return // unreachable (the lease will expire), or committed (cannot be: no commit was sent)
	}
	ok := true
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, parallel)
	for _, g := range groups {
		for _, op := range g.Ops {
			wg.Add(1)
			sem <- struct{}{}
			go func(table string, op storage.Operation) {
				defer wg.Done()
				defer func() { <-sem }()
				if err := s.release(ctx, table, op.Entity.PartitionKey, op.Entity.RowKey, id); err != nil {
					mu.Lock()
					ok = false
					mu.Unlock()
				}
			}(g.Table, op)
		}
	}
	wg.Wait()
	if ok {
		s.cleanup(ctx, id, n)
	}
}

// failedBeforeCommit is the error Commit reports for err, a failure
// before the commit point, once the transaction is aborted (or left to
// readers and the sweep to abort past its lease: nothing is applied
// either way, only the committer sends the commit point): err itself
// when it is the store's definite answer or not the store's failure (a
// *GroupError the caller maps to a duplicate or a conflict), else
// ErrStoreFailed with err as text. A transport error on a lock or intent
// batch reported as it was (storage.ErrOutcomeUnknown) made the gateway
// answer 1180, "outcome unknown", for a commit that had certainly not
// been applied.
func failedBeforeCommit(err error) error {
	if err == nil || definite(err) || !errors.Is(err, storage.ErrUnavailable) {
		return err
	}
	return fmt.Errorf("%w: %v", ErrStoreFailed, err)
}

// abortRetrying is abortTxn, tried again (three times in all) while the
// store fails without an answer: an abort that lands tells readers at
// once that the transaction will never commit, where one that does not
// leaves its locks in the way of every writer of their rows until the
// lease is over. Sending the insert again is safe: if an earlier one
// landed, the next finds the commit row and reads it.
func (s *Store) abortRetrying(ctx context.Context, id string, at site) (outcome, error) {
	for try := 1; ; try++ {
		o, err := s.abortTxn(ctx, id, at)
		if err == nil || try == 3 || !errors.Is(err, storage.ErrUnavailable) {
			return o, err
		}
		time.Sleep(time.Duration(try) * 20 * time.Millisecond)
	}
}

// release resolves the lock of txn id on one entity, if it is there.
func (s *Store) release(ctx context.Context, table, pk, rk, id string) error {
	raw, err := s.Store.Get(ctx, table, pk, rk, nil)
	if errors.Is(err, storage.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if l, ok := parseLock(raw); !ok || l.id != id {
		return nil
	}
	_, _, err = s.resolve(ctx, table, raw)
	return err
}

// resolveGroups rolls the locks of committed transaction id forward at
// commit timestamp ts: per group, one read of its locked entities (their
// previous values go to the history, mvcc.go), then batches of each new
// value (PropVersion ts; a tombstone for a delete) with its history entity,
// conditional on the lock ETags; a batch that fails (a reader resolved an
// entity first) goes entity by entity. An inline transaction's intents are
// deleted in the batch of their operation (dels, by group and operation;
// nil for a transaction with a record). It reports whether every lock is
// resolved.
func (s *Store) resolveGroups(ctx context.Context, id string, ts int64, groups []Group, lockETags [][]storage.ETag, dels [][][]storage.Operation) bool {
	ok := true
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, parallel)
	for gi, g := range groups {
		wg.Add(1)
		sem <- struct{}{}
		go func(gi int, g Group) {
			defer wg.Done()
			defer func() { <-sem }()
			var d [][]storage.Operation
			if dels != nil {
				d = dels[gi]
			}
			if !s.resolveGroup(ctx, id, ts, g, lockETags[gi], d) {
				mu.Lock()
				ok = false
				mu.Unlock()
			}
		}(gi, g)
	}
	wg.Wait()
	return ok
}

func (s *Store) resolveGroup(ctx context.Context, id string, ts int64, g Group, etags []storage.ETag, dels [][]storage.Operation) bool {
	if len(g.Ops) == 0 {
		return true
	}
	pk := g.Ops[0].Entity.PartitionKey
	// The previous values: an insert's lock was a placeholder (or merged
	// into a tombstone, remembered); an update's or delete's was
	// conditional on an ETag the gateway read (in the read cache). The
	// others are read: the group's locked entities, in one query.
	prevs := make([]*storage.Entity, len(g.Ops))
	known := make([]bool, len(g.Ops))
	all := true
	for i, op := range g.Ops {
		switch {
		case op.Kind == storage.OpInsert:
			prevs[i], known[i] = s.reads.takeTomb(g.Table, pk, op.Entity.RowKey), true
		case op.IfMatch != "" && op.IfMatch != storage.ETagAny:
			if e := s.reads.get(g.Table, pk, op.Entity.RowKey, op.IfMatch); e != nil {
				prevs[i], known[i] = e, true
			}
		}
		all = all && known[i]
	}
	if !all {
		locked := map[string]*storage.Entity{}
		q := &storage.Query{Partition: storage.Exactly(pk), Filter: storage.And{
			storage.Gt(PropLock, storage.String(id+"|")), storage.Lt(PropLock, storage.String(id+"}"))}}
		for {
			page, err := s.Store.Query(ctx, g.Table, q)
			if err != nil {
				return s.releaseAll(ctx, id, g)
			}
			for _, e := range page.Entities {
				locked[e.RowKey] = e
			}
			if page.Continuation == "" {
				break
			}
			q.Continuation = page.Continuation
		}
		for i, op := range g.Ops {
			if known[i] {
				continue
			}
			e := locked[op.Entity.RowKey]
			if e == nil || e.ETag != etags[i] {
				continue // resolved already
			}
			known[i] = true
			if l, _ := parseLock(e); !placeholder(l, e) {
				prevs[i] = stripped(e)
			}
		}
	}
	// Per operation: the new value, the previous one's history entity,
	// and the deletes of an inline transaction's intent, in one batch.
	var items [][]storage.Operation
	for i, op := range g.Ops {
		if !known[i] {
			continue
		}
		item := []storage.Operation{
			{Kind: storage.OpUpdate, Mode: storage.Replace, IfMatch: etags[i],
				Entity: versionedValue(pk, op.Entity.RowKey, op.Entity.Properties, op.Kind == storage.OpDelete, ts)},
			historyOp(pk, op.Entity.RowKey, prevs[i], ts),
		}
		if dels != nil {
			item = append(item, dels[i]...)
		}
		items = append(items, item)
	}
	ok := true
	if len(items) > 0 {
		s.noteHistory(g.Table)
	}
	for len(items) > 0 {
		var b []storage.Operation
		var heads []string
		size, k := 0, 0
		for k < len(items) && len(b)+len(items[k]) <= storage.MaxBatchOps {
			ps := 0
			for _, op := range items[k] {
				ps += storage.EntitySize(op.Entity)
			}
			if len(b) > 0 && size+ps > storage.MaxBatchBytes/2 {
				break
			}
			b = append(b, items[k]...)
			heads = append(heads, items[k][0].Entity.RowKey)
			size += ps
			k++
		}
		if _, err := s.Store.Batch(ctx, g.Table, b); err != nil {
			for _, rk := range heads {
				if err := s.release(ctx, g.Table, pk, rk, id); err != nil {
					ok = false
				}
			}
		}
		items = items[k:]
	}
	return ok
}

// releaseAll resolves every lock of transaction id in group g, entity by
// entity.
func (s *Store) releaseAll(ctx context.Context, id string, g Group) bool {
	ok := true
	for _, op := range g.Ops {
		if err := s.release(ctx, g.Table, op.Entity.PartitionKey, op.Entity.RowKey, id); err != nil {
			ok = false
		}
	}
	return ok
}

// deleteEntities deletes the intents of a finished transaction (known to
// the committer), then its record.
func (s *Store) deleteEntities(ctx context.Context, id string, intents []storage.Operation) {
	del := make([]storage.Operation, 0, len(intents)+1)
	for _, op := range intents {
		del = append(del, storage.Operation{Kind: storage.OpDelete, Entity: &storage.Entity{PartitionKey: id, RowKey: op.Entity.RowKey}})
	}
	del = append(del, storage.Operation{Kind: storage.OpDelete, Entity: &storage.Entity{PartitionKey: id, RowKey: recRowKey}})
	for _, b := range batches(del) {
		if _, err := s.Store.Batch(ctx, s.table, b); err != nil {
			s.cleanup(ctx, id, 0) // a reader or the sweep deleted some: look
			return
		}
	}
	s.deleteCommitRow(ctx, id)
}

// deleteCommitRow deletes the commit row of a finished committed
// transaction, after its record (mvcc.go, status). An aborted one stays
// for abortRetention (sweepCommitRows): it is what makes a committer that
// stalled past its lease fail its commit point.
func (s *Store) deleteCommitRow(ctx context.Context, id string) {
	s.mu.Lock()
	o := s.known[id]
	s.mu.Unlock()
	if o.state == stateCommitted {
		s.clk.deleteLater(id)
	}
}

// abortRetention is how long an aborted transaction's commit row is kept;
// a committer refuses to reach its commit point later than half of it
// after it started.
const abortRetention = 10 * time.Minute

// sweepCommitRows deletes the commit rows whose record is gone: committed
// ones a crash left after deleting their record (every lock was resolved
// before), and aborted ones older than abortRetention. An inline
// transaction has no record: its commit row (committed, past its lease;
// aborted, past abortRetention) is deleted once the locks its intents
// name are resolved and the intents deleted (finishInline).
func (s *Store) sweepCommitRows(ctx context.Context) error {
	q := &storage.Query{Partition: storage.Exactly(clockPK),
		Row: &storage.KeyRange{Low: &storage.Bound{Key: commitRowRK}, High: &storage.Bound{Key: "c.", Exclusive: true}}}
	for {
		page, err := s.Store.Query(ctx, s.table, q)
		if err != nil {
			return err
		}
		for _, e := range page.Entities {
			if commitRowOutcome(e).state == stateAborted && s.now().Sub(e.Timestamp) < abortRetention {
				continue
			}
			id := strings.TrimPrefix(e.RowKey, commitRowRK)
			if at, ok := commitRowSite(e); ok && isInline(id) {
				// No record: the intents beside the rows name the locks,
				// which may not be resolved yet (a crash after the commit
				// point). Within its lease the committer resolves them.
				o := commitRowOutcome(e)
				if o.state == stateCommitted && s.now().Before(inlineExpiry(id)) {
					continue
				}
				s.remember(id, o)
				if err := s.finishInline(ctx, id, at); err != nil {
					continue // the commit row stays: next sweep
				}
				s.Store.Delete(ctx, s.table, clockPK, e.RowKey, e.ETag)
				continue
			}
			if _, err := s.Store.Get(ctx, s.table, id, recRowKey, &storage.GetOptions{Select: []string{}}); !errors.Is(err, storage.ErrNotFound) {
				continue
			}
			s.Store.Delete(ctx, s.table, clockPK, e.RowKey, e.ETag)
		}
		if page.Continuation == "" {
			return nil
		}
		q.Continuation = page.Continuation
	}
}

// cleanup deletes a finished transaction's intents, then its record.
func (s *Store) cleanup(ctx context.Context, id string, n int) {
	q := &storage.Query{Partition: storage.Exactly(id), Select: []string{}}
	var del []storage.Operation
	for {
		page, err := s.Store.Query(ctx, s.table, q)
		if err != nil {
			return
		}
		for _, e := range page.Entities {
			if e.RowKey != recRowKey {
				del = append(del, storage.Operation{Kind: storage.OpDelete, Entity: &storage.Entity{PartitionKey: id, RowKey: e.RowKey}})
			}
		}
		if page.Continuation == "" {
			break
		}
		q.Continuation = page.Continuation
	}
	// The record goes last (in the last batch).
	del = append(del, storage.Operation{Kind: storage.OpDelete, Entity: &storage.Entity{PartitionKey: id, RowKey: recRowKey}})
	for _, b := range batches(del) {
		if _, err := s.Store.Batch(ctx, s.table, b); err != nil && !errors.Is(err, storage.ErrNotFound) {
			return
		}
	}
	s.deleteCommitRow(ctx, id)
}

// RecoverStats counts what Recover did.
type RecoverStats struct {
	Records, Resolved, Pending int
}

// Recover finishes the transactions a crash left: every record whose
// lease has expired (pending ones are aborted first) has its locks
// resolved, then its intents and record are deleted. Pending records
// within their lease are left to their committers.
func (s *Store) Recover(ctx context.Context) (RecoverStats, error) {
	var st RecoverStats
	ok, err := s.Store.TableExists(ctx, s.table)
	if err != nil || !ok {
		return st, err
	}
	q := &storage.Query{Row: storage.Exactly(recRowKey)}
	for {
		page, err := s.Store.Query(ctx, s.table, q)
		if err != nil {
			return st, err
		}
		for _, e := range page.Entities {
			st.Records++
			id := e.PartitionKey
			r := record{state: e.Properties[propState].Str(), etag: e.ETag, count: int(e.Properties[propCount].Int()),
				expires: time.UnixMicro(e.Properties[propExpire].Int())}
			if s.now().Before(r.expires) {
				st.Pending++
				continue // a live committer resolves it
			}
			o, cur, err := s.status(ctx, id)
			if err != nil {
				return st, err
			}
			if o.state == statePending && s.now().Before(cur.expires) {
				// Renewed since the page was read (the records before
				// it may have taken a while): a live committer's.
				st.Pending++
				continue
			}
			if o.state == statePending {
				if o, err = s.abortTxn(ctx, id, site{}); err != nil {
					return st, err
				}
			}
			if o.state != stateAborted && o.state != stateCommitted {
				st.Pending++
				continue
			}
			if err := s.finish(ctx, id, r.count); err != nil {
				return st, err
			}
			st.Resolved++
		}
		if page.Continuation == "" {
			s.clk.flushDeletes(ctx, s)
			if last := s.lastPrune.Load(); s.now().Sub(time.UnixMicro(last)) >= pruneEvery {
				s.lastPrune.Store(s.now().UnixMicro())
				if err := s.pruneHistory(ctx); err != nil {
					return st, err
				}
			}
			return st, s.sweepCommitRows(ctx)
		}
		q.Continuation = page.Continuation
	}
}

// finish resolves every lock of a transaction with an outcome, then
// deletes its intents and record.
func (s *Store) finish(ctx context.Context, id string, n int) error {
	q := &storage.Query{Partition: storage.Exactly(id), Select: []string{propTable, propPK, propRK}}
	for {
		page, err := s.Store.Query(ctx, s.table, q)
		if err != nil {
			return err
		}
		for _, e := range page.Entities {
			t, ok := e.Properties[propTable]
			if !ok {
				continue // the record, or a later part of an intent
			}
			if err := s.release(ctx, t.Str(), e.Properties[propPK].Str(), e.Properties[propRK].Str(), id); err != nil {
				return err
			}
		}
		if page.Continuation == "" {
			break
		}
		q.Continuation = page.Continuation
	}
	s.cleanup(ctx, id, n)
	return nil
}
