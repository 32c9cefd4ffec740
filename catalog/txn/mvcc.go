package txn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sqlgw/sqlgw/storage"
)

// Versions and commit timestamps on stores without snapshots (package doc,
// "Isolation").

// System properties of versioned entities.
const (
	// PropVersion is the commit timestamp of an entity's value (Int64);
	// absent means 0: written outside a transaction, visible to every
	// snapshot.
	PropVersion = "_v"
	// PropDeleted marks a tombstone: the row was deleted at PropVersion.
	PropDeleted = "_d"
)

// histPrefix starts the RowKeys of history entities: the previous values
// of a row, one entity per version, at histKey(rk, version). The
// catalog's keys are printable ASCII ('!'..'~', catalog/keys), so no row,
// continuation or local index entity is in this namespace, and it sorts
// above all of them: a query of rows or of a local index never meets it
// (only a scan of whole partitions, which Store hides it from).
const histPrefix = "\u00ffh"

// histEnd bounds the history namespace above.
const histEnd = "\u00ffi"

// The clock partition of the record table.
const (
	clockPK     = "clock"
	clockRK     = "n"
	commitRowRK = "c-" // + txn id: the transaction's commit timestamp
	propTS      = "n"
)

// ErrSnapshotTooOld reports a read at a snapshot older than every version
// a row keeps (the versions it needs were pruned). The statement or
// transaction can be retried with a fresh snapshot.
var ErrSnapshotTooOld = errors.New("txn: the snapshot is older than the versions kept")

// tsSnapshot is a snapshot of a store without snapshots of its own: a
// timestamp of the clock. Reads at it see exactly the transactions whose
// commit timestamp is at most ts.
type tsSnapshot struct {
	ts    int64
	taken time.Time
}

// MaxSnapshotAge is how long a snapshot of a store without snapshots may
// be read: history entities superseded longer ago than that (and a
// margin) are pruned (pruneHistory), so a read at an older snapshot fails
// with ErrSnapshotTooOld rather than miss a pruned version.
const MaxSnapshotAge = time.Hour

// pruneMargin covers the clock skew between the gateways and the store
// (history entities are aged by the store's Timestamp).
const pruneMargin = 5 * time.Minute

func (*tsSnapshot) Release() {}

// SnapshotTS returns the commit timestamp a snapshot of Store reads at,
// and false for a store's native snapshot.
func SnapshotTS(sn storage.Snapshot) (int64, bool) {
	t, ok := sn.(*tsSnapshot)
	if !ok || t == nil {
		return 0, false
	}
	return t.ts, true
}

func tsOf(ctx context.Context) (int64, bool) { return SnapshotTS(storage.SnapshotOf(ctx)) }

// checkAge fails a read at a snapshot older than MaxSnapshotAge.
func (s *Store) checkAge(ctx context.Context) error {
	if t, ok := storage.SnapshotOf(ctx).(*tsSnapshot); ok && t != nil && s.now().Sub(t.taken) > MaxSnapshotAge {
		return fmt.Errorf("%w: the snapshot was taken %s ago (at most %s)", ErrSnapshotTooOld, s.now().Sub(t.taken).Round(time.Second), MaxSnapshotAge)
	}
	return nil
}

// noteHistory records that table holds history entities (pruneHistory
// looks at those tables).
func (s *Store) noteHistory(table string) {
	s.histTables.Store(table, struct{}{})
}

// pruneEvery is how often Recover prunes histories.
const pruneEvery = 5 * time.Minute

// pruneHistory deletes, in every table this gateway resolved commits
// into since it started, the history entities superseded more than
// MaxSnapshotAge (and a margin) ago, and the tombstones deleted as long
// ago: no snapshot that may still be read needs them. Each is deleted
// conditional on the ETag it was read with.
func (s *Store) pruneHistory(ctx context.Context) error {
	cutoff := s.now().Add(-MaxSnapshotAge - pruneMargin)
	var tables []string
	s.histTables.Range(func(k, _ any) bool {
		tables = append(tables, k.(string))
		return true
	})
	for _, table := range tables {
		old := storage.Lt(storage.PropTimestamp, storage.DateTime(cutoff))
		for _, q := range []*storage.Query{
			{Row: &storage.KeyRange{Low: &storage.Bound{Key: histPrefix}, High: &storage.Bound{Key: histEnd, Exclusive: true}},
				Filter: old, Select: []string{}},
			{Filter: storage.And{storage.Eq(PropDeleted, storage.Bool(true)), old}, Select: []string{PropLock}},
		} {
			for {
				page, err := s.Store.Query(ctx, table, q)
				if err != nil {
					return err
				}
				byPart := map[string][]storage.Operation{}
				for _, e := range page.Entities {
					if _, locked := e.Properties[PropLock]; locked {
						continue // an insert over the tombstone in progress
					}
					byPart[e.PartitionKey] = append(byPart[e.PartitionKey], storage.Operation{Kind: storage.OpDelete, IfMatch: e.ETag,
						Entity: &storage.Entity{PartitionKey: e.PartitionKey, RowKey: e.RowKey}})
				}
				for _, ops := range byPart {
					for _, b := range batches(ops) {
						if _, err := s.Store.Batch(ctx, table, b); err != nil {
							// Changed or gone meanwhile: one by one.
							for _, op := range b {
								s.Store.Delete(ctx, table, op.Entity.PartitionKey, op.Entity.RowKey, op.IfMatch)
							}
						}
					}
				}
				if page.Continuation == "" {
					break
				}
				q.Continuation = page.Continuation
			}
		}
	}
	return nil
}

// noSnap returns ctx without a snapshot (the backend below reads its
// current state).
func noSnap(ctx context.Context) context.Context {
	if storage.SnapshotOf(ctx) == nil {
		return ctx
	}
	return storage.WithSnapshot(ctx, nil)
}

// Versioned reports whether the store below keeps versions in its
// entities (it has no snapshots of its own: the Table service). On such a
// store every commit that should be visible to snapshots atomically must
// go through Commit.
func (s *Store) Versioned(ctx context.Context) bool {
	switch s.versioned.Load() {
	case 1:
		return true
	case 2:
		return false
	}
	sn, err := storage.ForwardSnapshot(ctx, s.Store)
	if err == nil {
		sn.Release()
		s.versioned.Store(2)
		return false
	}
	if errors.Is(err, storage.ErrSnapshotUnsupported) {
		s.versioned.Store(1)
		return true
	}
	return false
}

// Snapshot implements storage.Snapshotter: the inner store's snapshot
// when it has them, else a timestamp read from the clock (one request,
// shared by the concurrent callers that arrived before it was sent).
func (s *Store) Snapshot(ctx context.Context) (storage.Snapshot, error) {
	sn, err := storage.ForwardSnapshot(ctx, s.Store)
	if !errors.Is(err, storage.ErrSnapshotUnsupported) {
		if err == nil {
			s.versioned.Store(2) // native snapshots: Get's plain path
		}
		return sn, err
	}
	s.versioned.Store(1)
	ts, err := s.clk.read(ctx, s)
	if err != nil {
		return nil, err
	}
	return &tsSnapshot{ts: ts, taken: s.now()}, nil
}

// clock is the gateway's access to the clock entity: coalesced reads and
// group commits.
type clock struct {
	mu sync.Mutex
	// reads: the flight running, and the one waiting for it (joined by
	// readers arriving meanwhile: a flight a reader joins starts after it
	// arrived, so the value it returns is at least every commit
	// acknowledged before the reader asked).
	running, waiting *flight
	// commits waiting for the next batch, and whether one is being sent.
	queue   []*commitReq
	sending bool
	// commit rows of finished transactions (their records deleted), to
	// delete in the next commit batch or sweep.
	dels []string
	// the last known state of the clock entity
	n    int64
	etag storage.ETag
}

type flight struct {
	done chan struct{}
	ts   int64
	err  error
	// readers: the attributions (storage.OnBehalfOf) of the readers that
	// joined the flight, each taken while its reader's context was live.
	// The flight's Get runs under none of their contexts: it may start
	// after the reader that made it has left (a flight is started when the
	// one before it ends, or the reader's statement was cancelled), and a
	// statement's context is recycled when the statement ends.
	readers []context.Context
}

type commitReq struct {
	// caller is the committer's context, live until done is closed: the
	// batch carrying this commit point counts and traces in its
	// recorder counters (storage.OnBehalfOf), nothing else of it.
	caller context.Context
	id     string
	at     site // an inline transaction's partition (named in its commit row)
	done   chan struct{}
	ts     int64
	err    error // ErrAborted: the commit row was taken by an abort
}

func (c *clock) read(ctx context.Context, s *Store) (int64, error) {
	if err := s.ensureTable(ctx); err != nil {
		return 0, err
	}
	attr := storage.OnBehalfOf(context.Background(), ctx)
	c.mu.Lock()
	if c.waiting == nil {
		c.waiting = &flight{done: make(chan struct{})}
	}
	f := c.waiting // sent after this reader arrived
	f.readers = append(f.readers, attr)
	if c.running == nil {
		c.startLocked(s) // f, now
	}
	c.mu.Unlock()
	select {
	case <-f.done:
		return f.ts, f.err
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// startLocked sends the waiting flight (c.mu held), for the readers that
// joined it.
func (c *clock) startLocked(s *Store) {
	f := c.waiting
	c.running, c.waiting = f, nil
	ctx := storage.OnBehalfOf(context.Background(), f.readers...)
	go func() {
		e, err := s.Store.Get(ctx, s.table, clockPK, clockRK, nil)
		switch {
		case errors.Is(err, storage.ErrNotFound):
			f.ts = 0
		case err != nil:
			f.err = err
		default:
			f.ts = e.Properties[propTS].Int()
		}
		c.mu.Lock()
		if err == nil && f.ts >= c.n {
			c.n, c.etag = f.ts, e.ETag
		}
		c.running = nil
		if c.waiting != nil {
			c.startLocked(s)
		}
		c.mu.Unlock()
		close(f.done)
	}()
}

// commitTS is the commit point of transaction id: one batch in the clock
// partition that advances the clock from n to n+1 (If-Match) and inserts
// the commit row of every transaction committing in it at n+1 (this
// gateway's concurrent commits share a batch and a timestamp: they hold
// disjoint locks). An abort (abortTxn) inserts the same commit row: one of
// the two wins. The commit row of an inline transaction names the table
// and partition of its intents (at). It returns the commit timestamp,
// ErrAborted, or the store's error (the outcome is then unknown: read the
// commit row).
func (c *clock) commitTS(ctx context.Context, s *Store, id string, at site) (int64, error) {
	r := &commitReq{caller: ctx, id: id, at: at, done: make(chan struct{})}
	c.mu.Lock()
	c.queue = append(c.queue, r)
	if !c.sending {
		c.sending = true
		// The sender outlives this call: it writes the commit points of
		// every transaction queued while it runs, so it must hold none
		// of this caller's context. A statement's context is recycled
		// when the statement ends (a soak run crashed in context.Value
		// on a zeroed parent), and a caller's values must not decide how
		// other transactions' commit points are written: under
		// storage.WithDeferredSync (an index backfill) they would not
		// have been synced. Commit points are always synced. Each batch
		// is counted for the committers it carries (send).
		go c.send(context.Background(), s)
	}
	c.mu.Unlock()
	<-r.done
	return r.ts, r.err
}

func (c *clock) send(ctx context.Context, s *Store) {
	for {
		c.mu.Lock()
		if len(c.queue) == 0 {
			c.sending = false
			c.mu.Unlock()
			return
		}
		k := min(len(c.queue), storage.MaxBatchOps-1)
		reqs := append([]*commitReq(nil), c.queue[:k]...)
		c.queue = c.queue[k:]
		d := min(len(c.dels), storage.MaxBatchOps-1-k)
		dels := append([]string(nil), c.dels[:d]...)
		c.dels = c.dels[d:]
		n, etag := c.n, c.etag
		c.mu.Unlock()
		for attempt := 0; len(reqs) > 0; attempt++ {
			next := n + 1
			clockOp := storage.Operation{Kind: storage.OpUpdate, Mode: storage.Replace, IfMatch: etag,
				Entity: &storage.Entity{PartitionKey: clockPK, RowKey: clockRK, Properties: storage.Properties{propTS: storage.Int64(next)}}}
			if etag == "" {
				clockOp = storage.Operation{Kind: storage.OpInsert, Entity: clockOp.Entity}
			}
			ops := []storage.Operation{clockOp}
			for _, r := range reqs {
				p := storage.Properties{propTS: storage.Int64(next)}
				r.at.put(p)
				ops = append(ops, storage.Operation{Kind: storage.OpInsert, Entity: &storage.Entity{PartitionKey: clockPK, RowKey: commitRowRK + r.id, Properties: p}})
			}
			for _, id := range dels {
				ops = append(ops, storage.Operation{Kind: storage.OpDelete, IfMatch: storage.ETagAny, Entity: &storage.Entity{PartitionKey: clockPK, RowKey: commitRowRK + id}})
			}
			callers := make([]context.Context, len(reqs))
			for i, r := range reqs {
				callers[i] = r.caller
			}
			bctx := storage.OnBehalfOf(ctx, callers...)
			etags, err := s.Store.Batch(bctx, s.table, ops)
			if err == nil {
				c.mu.Lock()
				if next > c.n {
					c.n, c.etag = next, etags[0]
				}
				c.mu.Unlock()
				for _, r := range reqs {
					r.ts = next
					close(r.done)
				}
				break
			}
			var be *storage.BatchError
			switch {
			case errors.As(err, &be) && be.Index > len(reqs) && be.Index < len(ops):
				// A commit row deleted already (by the sweep): drop it.
				i := be.Index - 1 - len(reqs)
				dels = append(dels[:i], dels[i+1:]...)
				continue
			case errors.As(err, &be) && be.Index >= 1 && be.Index <= len(reqs) && errors.Is(err, storage.ErrAlreadyExists):
				// That transaction's commit row is taken (an abort): it
				// reads the outcome; the others try again.
				r := reqs[be.Index-1]
				r.err = ErrAborted
				close(r.done)
				reqs = append(reqs[:be.Index-1], reqs[be.Index:]...)
				continue
			case errors.As(err, &be) && be.Index == 0 && (errors.Is(err, storage.ErrPreconditionFailed) || errors.Is(err, storage.ErrAlreadyExists) || errors.Is(err, storage.ErrNotFound)),
				errors.Is(err, storage.ErrPreconditionFailed) && (be == nil || be.Index < 0):
				// Another gateway moved the clock: read it, try again.
				if attempt > 1000 {
					break
				}
				e, gerr := s.Store.Get(bctx, s.table, clockPK, clockRK, nil)
				switch {
				case errors.Is(gerr, storage.ErrNotFound):
					n, etag = 0, ""
					continue
				case gerr == nil:
					n, etag = e.Properties[propTS].Int(), e.ETag
					continue
				}
				err = gerr
			}
			for _, r := range reqs {
				r.err = err
				close(r.done)
			}
			break
		}
	}
}

// deleteLater queues the deletion of a finished transaction's commit row
// (its record deleted): it rides on the next commit batch (or the sweep's
// flush), instead of a request of its own.
func (c *clock) deleteLater(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.dels) < 10_000 {
		c.dels = append(c.dels, id)
	}
}

// flushDeletes deletes the queued commit rows.
func (c *clock) flushDeletes(ctx context.Context, s *Store) {
	c.mu.Lock()
	dels := c.dels
	c.dels = nil
	c.mu.Unlock()
	var ops []storage.Operation
	for _, id := range dels {
		ops = append(ops, storage.Operation{Kind: storage.OpDelete, IfMatch: storage.ETagAny, Entity: &storage.Entity{PartitionKey: clockPK, RowKey: commitRowRK + id}})
	}
	for _, b := range batches(ops) {
		if _, err := s.Store.Batch(ctx, s.table, b); err != nil {
			for _, op := range b {
				s.Store.Delete(ctx, s.table, clockPK, op.Entity.RowKey, storage.ETagAny)
			}
		}
	}
}

// readCache keeps the raw entities (system properties included) the
// gateway read recently, by table, keys and ETag: a commit's resolution
// finds there the previous value of an entity it locked conditional on an
// ETag it read, instead of reading it again for the history. An entity is
// immutable under one ETag, so an entry is never stale, only absent.
type readCache struct {
	mu    sync.Mutex
	m     map[string]*storage.Entity
	bytes int
	// tombs: tombstones that an insert's lock merged into (overTombstone),
	// by table and keys, until the resolution takes them.
	tombs map[string]*storage.Entity
}

const (
	readCacheEntries = 20_000
	readCacheTotal   = 32 << 20 // bytes of entities, all entries
	readCacheBytes   = 64 << 10 // larger entities are not kept
)

func cacheKey(table, pk, rk string, etag storage.ETag) string {
	return table + "\x00" + pk + "\x00" + rk + "\x00" + string(etag)
}

// put keeps e; copy: a copy of it (the caller may change the entity it
// was given), else e itself (no one else holds it).
func (c *readCache) put(table string, e *storage.Entity, copy bool) {
	if e == nil || e.ETag == "" || isPoisoned(e.ETag) {
		return
	}
	size := storage.EntitySize(e)
	if size > readCacheBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= readCacheEntries || c.bytes+size > readCacheTotal {
		// Start again: an entry missed costs one read at commit.
		c.m, c.bytes = map[string]*storage.Entity{}, 0
	}
	if copy {
		cp := *e // the caller may change the entity it was given
		cp.Properties = make(storage.Properties, len(e.Properties))
		for k, v := range e.Properties {
			cp.Properties[k] = v
		}
		e = &cp
	}
	c.m[cacheKey(table, e.PartitionKey, e.RowKey, e.ETag)] = e
	c.bytes += size
}

func (c *readCache) get(table, pk, rk string, etag storage.ETag) *storage.Entity {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[cacheKey(table, pk, rk, etag)]
}

func (c *readCache) putTomb(table string, tomb *storage.Entity) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tombs == nil || len(c.tombs) >= readCacheEntries {
		c.tombs = map[string]*storage.Entity{}
	}
	c.tombs[cacheKey(table, tomb.PartitionKey, tomb.RowKey, "")] = tomb
}

func (c *readCache) takeTomb(table, pk, rk string) *storage.Entity {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := cacheKey(table, pk, rk, "")
	t := c.tombs[k]
	delete(c.tombs, k)
	return t
}

// outcome is a transaction's state with its commit timestamp.
type outcome struct {
	state string
	ts    int64
}

// status returns the state of transaction id: committed (with its commit
// timestamp) or aborted by its commit row; pending while its record exists
// without one; missing when neither exists (finished and cleaned up, or
// never written). The commit row is read before the record, and clean-up
// deletes the record before the commit row: a commit row absent before a
// record read present was not yet written (it is not deleted before the
// record), so a reader whose snapshot was taken before the commit row read
// sees the transaction commit after it, if at all.
func (s *Store) status(ctx context.Context, id string) (outcome, record, error) {
	s.mu.Lock()
	o, ok := s.known[id]
	s.mu.Unlock()
	if ok {
		return o, record{state: o.state}, nil
	}
	ctx = noSnap(ctx)
	c, err := s.Store.Get(ctx, s.table, clockPK, commitRowRK+id, nil)
	switch {
	case err == nil:
		o := commitRowOutcome(c)
		s.remember(id, o)
		return o, record{state: o.state}, nil
	case !errors.Is(err, storage.ErrNotFound):
		return outcome{}, record{}, err
	}
	if isInline(id) {
		// No record: the caller reads the locked entity again (inline.go).
		return outcome{state: stateMissing}, record{state: stateMissing}, nil
	}
	r, err := s.readRecord(ctx, id)
	if err != nil {
		return outcome{}, record{}, err
	}
	return outcome{state: r.state}, r, nil
}

func commitRowOutcome(c *storage.Entity) outcome {
	if st := c.Properties[propState].Str(); st == stateAborted {
		return outcome{state: stateAborted}
	}
	return outcome{state: stateCommitted, ts: c.Properties[propTS].Int()}
}

// abortTxn aborts transaction id by inserting its commit row as aborted;
// it returns the outcome: aborted, or committed when the commit point won.
// An inline transaction's commit row names the partition of its intents
// (at), for the sweep.
func (s *Store) abortTxn(ctx context.Context, id string, at site) (outcome, error) {
	ctx = noSnap(ctx)
	p := storage.Properties{propState: storage.String(stateAborted)}
	at.put(p)
	_, err := s.Store.Insert(ctx, s.table, &storage.Entity{PartitionKey: clockPK, RowKey: commitRowRK + id, Properties: p})
	switch {
	case err == nil:
		o := outcome{state: stateAborted}
		s.remember(id, o)
		return o, nil
	case errors.Is(err, storage.ErrAlreadyExists):
		c, err := s.Store.Get(ctx, s.table, clockPK, commitRowRK+id, nil)
		if err != nil {
			return outcome{}, err
		}
		o := commitRowOutcome(c)
		s.remember(id, o)
		return o, nil
	}
	return outcome{}, err
}

// versionOf returns an entity's commit timestamp.
func versionOf(e *storage.Entity) int64 {
	if v, ok := e.Properties[PropVersion]; ok && v.Type() == storage.TypeInt64 {
		return v.Int()
	}
	return 0
}

func isTombstone(e *storage.Entity) bool {
	v, ok := e.Properties[PropDeleted]
	return ok && v.Type() == storage.TypeBoolean && v.BoolValue()
}

// isHistory reports whether rk names a history entity.
func isHistory(rk string) bool { return strings.HasPrefix(rk, histPrefix) }

// isSystemRow reports whether rk names an entity of this package in a
// catalog table: a history entity or an inline transaction's intent
// (inline.go). Queries never return them.
func isSystemRow(rk string) bool { return isHistory(rk) || strings.HasPrefix(rk, inlinePrefix) }

// histKey is the RowKey of the version ts of row rk that the commit at
// succ superseded: newest version first, then by successor. The successor
// lets a reader see where the chain of versions was broken by a write
// outside Commit (historyAt).
func histKey(rk string, ts, succ int64) string {
	return fmt.Sprintf("%s %016x", histVersionKey(rk, ts), uint64(succ))
}

// histVersionKey is the prefix of the history keys of version ts of row
// rk (and the whole key of an entity written before keys named the
// successor).
func histVersionKey(rk string, ts int64) string {
	return fmt.Sprintf("%s%s %016x", histPrefix, rk, uint64(math.MaxInt64-ts))
}

// histSucc returns the successor a history key of row rk names (false:
// a key without one).
func histSucc(rk, key string) (int64, bool) {
	rest, ok := strings.CutPrefix(key, histPrefix+rk+" ")
	if !ok || len(rest) != 33 || rest[16] != ' ' {
		return 0, false
	}
	v, err := strconv.ParseUint(rest[17:], 16, 64)
	if err != nil {
		return 0, false
	}
	return int64(v), true
}

// historyOp returns the write of the previous value prev (as stored,
// lock stripped; nil: the row was absent) of row pk/rk, superseded by the
// commit at ts, into its history: an upsert, so that writing one version
// twice is harmless.
func historyOp(pk, rk string, prev *storage.Entity, ts int64) storage.Operation {
	h := &storage.Entity{PartitionKey: pk, RowKey: "", Properties: storage.Properties{}}
	var ver int64
	if prev == nil {
		h.Properties[PropDeleted] = storage.Bool(true)
	} else {
		ver = versionOf(prev)
		for k, v := range prev.Properties {
			if k != PropLock {
				h.Properties[k] = v
			}
		}
	}
	h.Properties[PropVersion] = storage.Int64(ver)
	h.RowKey = histKey(rk, ver, ts)
	return storage.Operation{Kind: storage.OpUpsert, Mode: storage.Replace, Entity: h}
}

// versioned returns the value op writes at commit timestamp ts: its
// properties with PropVersion, or a tombstone for a delete.
func versionedValue(pk, rk string, props storage.Properties, del bool, ts int64) *storage.Entity {
	e := &storage.Entity{PartitionKey: pk, RowKey: rk, Properties: make(storage.Properties, len(props)+1)}
	if del {
		e.Properties[PropDeleted] = storage.Bool(true)
	} else {
		for k, v := range props {
			if k != PropVersion && k != PropDeleted && k != PropLock {
				e.Properties[k] = v
			}
		}
	}
	e.Properties[PropVersion] = storage.Int64(ts)
	return e
}

// historyAt returns the newest version of row pk/rk in its history at or
// below ts (nil when the row was absent then), or ErrSnapshotTooOld.
//
// That version's successor (histKey) is above ts unless a write outside
// Commit broke the chain after it (replaced or deleted the row, keeping no
// history): that write is visible to every snapshot (package doc), so the
// value at ts is the one the first commit above ts found, written
// outside Commit (a version-0 history entity, or a tombstone: the row was
// absent), never the older version.
func (s *Store) historyAt(ctx context.Context, table, pk, rk string, ts int64) (*storage.Entity, error) {
	return s.historyFrom(ctx, table, pk, rk, ts, histVersionKey(rk, ts), true)
}

// historyFrom returns the first history entity of row pk/rk from key low
// on (historyAt); gap: check its successor.
func (s *Store) historyFrom(ctx context.Context, table, pk, rk string, ts int64, low string, gap bool) (*storage.Entity, error) {
	q := &storage.Query{Partition: storage.Exactly(pk), Top: 1,
		Row: &storage.KeyRange{Low: &storage.Bound{Key: low}, High: &storage.Bound{Key: histPrefix + rk + " ~", Exclusive: true}}}
	for {
		page, err := s.Store.Query(noSnap(ctx), table, q)
		if err != nil {
			return nil, err
		}
		if len(page.Entities) > 0 {
			h := page.Entities[0]
			if succ, ok := histSucc(rk, h.RowKey); gap && ok && succ <= ts {
				// The version-0 entity superseded first after ts.
				return s.historyFrom(ctx, table, pk, rk, ts, fmt.Sprintf("%s %016x", histVersionKey(rk, 0), uint64(ts+1)), false)
			}
			if isTombstone(h) {
				return nil, nil
			}
			v := &storage.Entity{PartitionKey: pk, RowKey: rk, Timestamp: h.Timestamp, ETag: storage.ETag(poison) + h.ETag, Properties: h.Properties}
			return v, nil
		}
		if page.Continuation == "" {
			return nil, fmt.Errorf("%w: row %s/%s of table %s at timestamp %d", ErrSnapshotTooOld, pk, rk, table, ts)
		}
		q.Continuation = page.Continuation
	}
}

// versionAt returns the value of the raw entity e (as stored) that a
// snapshot at ts sees: nil when the row was absent (or deleted) then. A
// lock is resolved first (rolled forward, back, or found pending, whose
// previous value is then the candidate: a pending transaction commits
// after the snapshot, if at all). The candidate is the value when its
// version is at most ts, else the history has it.
func (s *Store) versionAt(ctx context.Context, table string, e *storage.Entity, ts int64) (*storage.Entity, error) {
	ctx = noSnap(ctx)
	if _, locked := e.Properties[PropLock]; locked {
		v, _, err := s.resolve(ctx, table, e)
		if err != nil {
			return nil, err
		}
		if v == nil {
			// An aborted or pending insert's placeholder, or an entity
			// deleted outside a transaction: absent.
			return nil, nil
		}
		e = v
	}
	if versionOf(e) <= ts {
		if isTombstone(e) {
			return nil, nil
		}
		return e, nil
	}
	return s.historyAt(ctx, table, e.PartitionKey, e.RowKey, ts)
}

// clean returns e without the system properties (a copy when it has
// any).
func clean(e *storage.Entity) *storage.Entity {
	_, a := e.Properties[PropLock]
	_, b := e.Properties[PropVersion]
	_, c := e.Properties[PropDeleted]
	if !a && !b && !c {
		return e
	}
	out := *e
	out.Properties = make(storage.Properties, len(e.Properties))
	for k, v := range e.Properties {
		if k != PropLock && k != PropVersion && k != PropDeleted {
			out.Properties[k] = v
		}
	}
	return &out
}

// withSys adds the system properties to a projection.
func withSys(sel []string) []string {
	if sel == nil {
		return nil
	}
	out := append(make([]string, 0, len(sel)+3), sel...)
	for _, p := range []string{PropLock, PropVersion, PropDeleted} {
		found := false
		for _, x := range sel {
			found = found || x == p
		}
		if !found {
			out = append(out, p)
		}
	}
	return out
}

// widenAt is widen for a read at ts: each top-level conjunct also keeps
// the entities whose value is newer than ts (their version at ts is in
// the history, and may pass).
func widenAt(f storage.Expr, ts int64) storage.Expr {
	return widenWith(f, storage.Gt(PropLock, storage.String("")), storage.Gt(PropVersion, storage.Int64(ts)))
}
