package txn

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sqlgw/sqlgw/storage"
)

// PropLock is the property of an entity locked by a transaction: its value
// is "<txn id>|<intent number>|<flag>", the flag "a" for an entity the
// transaction inserts (a placeholder without a previous value), "u" for
// one it upserts (present or not before), "" otherwise. The empty string
// is never left behind; a lock is removed, not blanked.
const PropLock = "_tx"

// DefaultLease is how long a transaction record in state pending belongs
// to a live committer. It is at most half of ixmaint.DefaultLease, so a
// global index entity marked before a commit outlives the commit's lease
// (package doc).
const DefaultLease = 5 * time.Second

// Record states.
const (
	statePending   = "p"
	stateCommitted = "c"
	stateAborted   = "a"
	stateMissing   = "" // no record
)

// Property names of records and intent values (in the record table only).
const (
	recRowKey  = "r"
	propState  = "s"
	propOwner  = "o"
	propExpire = "e"
	propCount  = "n"
	propTable  = "t"
	propPK     = "p"
	propRK     = "r"
	propKind   = "k"
)

// poison prefixes the ETag returned for an entity locked by a pending
// transaction: a write conditional on it fails with
// storage.ErrPreconditionFailed without reaching the store, so no writer
// can overwrite a live lock.
const poison = "sqlgw-locked:"

var errIntentMissing = errors.New("txn: intent of a committed transaction is missing")

var (
	// ErrAborted reports that the transaction was aborted (by a gateway
	// that found its lease expired) before its commit point: nothing of it
	// is applied. Callers report it as a write conflict.
	ErrAborted = errors.New("txn: transaction aborted before its commit point")
	// ErrUnknownOutcome reports that the commit point was attempted but
	// its result could not be learnt: the transaction is committed or
	// aborted, and every gateway will agree on which once the store
	// answers again.
	ErrUnknownOutcome = errors.New("txn: the outcome of the commit is unknown")
	// ErrStoreFailed reports that a request of the commit failed without
	// a definite answer (storage.ErrUnavailable, storage.ErrOutcomeUnknown:
	// a connection reset, a timeout) before the commit point was reached
	// or, the commit point's batch failing so, once it was known not to
	// have landed (its commit row found absent and inserted as aborted).
	// Nothing of the transaction is applied and never will be: only its
	// committer sends its commit point, and it sends none after this. The
	// transaction was aborted (its commit row inserted as aborted, its
	// locks rolled back) when the store answered that; otherwise readers
	// and the sweep abort it once its lease is over. It wraps ErrAborted;
	// the store's error is kept as text only, so that errors.Is(err,
	// storage.ErrOutcomeUnknown) does not hold: the outcome is known.
	ErrStoreFailed = fmt.Errorf("%w: a store request failed before the commit point, nothing is applied", ErrAborted)
)

// Store is a storage.Store that makes the locks of multi-partition
// transactions invisible: reads of a locked entity return its committed
// value (resolving the lock when its record has an outcome), writes
// conditional on a locked entity fail. Commit writes a transaction. See the
// package documentation.
type Store struct {
	storage.Store
	table string // the record table
	owner string
	lease time.Duration
	now   func() time.Time

	ensured   atomic.Bool
	versioned atomic.Int32 // 0 unknown, 1 versions (no native snapshots), 2 native snapshots
	clk       clock
	reads     readCache
	// histTables: the tables this gateway wrote history entities into
	// (pruneHistory); lastPrune: when Recover last pruned.
	histTables sync.Map
	lastPrune  atomic.Int64
	foreign    func(table string) bool
	mu         sync.Mutex
	known      map[string]outcome // terminal states by txn id
}

// Options configure Wrap.
type Options struct {
	// Owner names this gateway in its records (for operators).
	Owner string
	// Lease is the lease of a pending record (0: DefaultLease).
	Lease time.Duration
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Foreign reports the tables other applications own (the gateway's
	// attached tables; nil: none): Store passes every request on them to
	// the inner store as it is, neither versioned nor resolved (package
	// doc, "Foreign tables").
	Foreign func(table string) bool
}

// Wrap returns the transactional view of inner, keeping records and intent
// values in table recordTable (created when first needed).
func Wrap(inner storage.Store, recordTable string, opts Options) *Store {
	s := &Store{Store: inner, table: recordTable, owner: opts.Owner, lease: opts.Lease, now: opts.Now, foreign: opts.Foreign, known: map[string]outcome{}}
	if s.lease <= 0 {
		s.lease = DefaultLease
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s
}

// Inner returns the wrapped store.
func (s *Store) Inner() storage.Store { return s.Store }

// RecordTable returns the name of the record table.
func (s *Store) RecordTable() string { return s.table }

// raw reports whether requests on table go to the inner store as they
// are: the record table's, and a foreign table's (Options.Foreign), whose
// entities' properties are their owner's data, whatever their names
// (_v, _d, _tx), and whose RowKeys may lie in the history namespace.
func (s *Store) raw(table string) bool {
	return strings.EqualFold(table, s.table) || s.foreign != nil && s.foreign(table)
}

// rawCtx is ctx for a read of a foreign table: without a timestamp
// snapshot, which the inner store does not know (a foreign table's
// entities carry no versions: a read sees their current state, read
// committed); a native snapshot (Pebble's) stays.
func rawCtx(ctx context.Context) context.Context {
	if _, at := tsOf(ctx); at {
		return noSnap(ctx)
	}
	return ctx
}

type lock struct {
	id   string
	n    int
	flag string
}

func parseLock(e *storage.Entity) (lock, bool) {
	v, ok := e.Properties[PropLock]
	if !ok || v.Type() != storage.TypeString {
		return lock{}, false
	}
	parts := strings.Split(v.Str(), "|")
	if len(parts) != 3 {
		return lock{}, false
	}
	n, err := strconv.Atoi(parts[1])
	if err != nil {
		return lock{}, false
	}
	return lock{id: parts[0], n: n, flag: parts[2]}, true
}

func (l lock) String() string { return l.id + "|" + strconv.Itoa(l.n) + "|" + l.flag }

// stripped returns e without the lock property (a copy).
func stripped(e *storage.Entity) *storage.Entity {
	c := *e
	c.Properties = make(storage.Properties, len(e.Properties))
	for k, v := range e.Properties {
		if k != PropLock {
			c.Properties[k] = v
		}
	}
	return &c
}

// placeholder reports whether a locked entity has no previous value. An
// insert's lock over a tombstone (mvcc.go) keeps the tombstone: not a
// placeholder.
func placeholder(l lock, e *storage.Entity) bool {
	return (l.flag == "a" || l.flag == "u") && len(e.Properties) == 1
}

func isPoisoned(t storage.ETag) bool { return strings.HasPrefix(string(t), poison) }

// cleanProject is project(clean(e), sel) with at most one copy of the
// properties (the Get of a versioned entity, which always carries
// PropVersion, would otherwise copy them twice).
func cleanProject(e *storage.Entity, sel []string) *storage.Entity {
	if sel == nil {
		return clean(e)
	}
	c := clean(e)
	if c != e {
		// clean copied: keep only the selected properties of the copy
		// (project would copy it again).
		for k := range c.Properties {
			if !slices.Contains(sel, k) {
				delete(c.Properties, k)
			}
		}
		return c
	}
	return project(e, sel)
}

func project(e *storage.Entity, sel []string) *storage.Entity {
	if sel == nil || onlySelected(e.Properties, sel) {
		return e // nothing to leave out: no copy (most entities of a page)
	}
	c := *e
	c.Properties = make(storage.Properties, len(sel))
	for _, n := range sel {
		if v, ok := e.Properties[n]; ok {
			c.Properties[n] = v
		}
	}
	return &c
}

// onlySelected reports whether every property of props is in sel.
func onlySelected(props storage.Properties, sel []string) bool {
	if len(props) > len(sel) {
		return false
	}
	for n := range props {
		if !slices.Contains(sel, n) {
			return false
		}
	}
	return true
}

// Get implements storage.Store.
func (s *Store) Get(ctx context.Context, table, pk, rk string, opts *storage.GetOptions) (*storage.Entity, error) {
	if s.raw(table) {
		return s.Store.Get(rawCtx(ctx), table, pk, rk, opts)
	}
	if s.versioned.Load() == 2 {
		return s.getNative(ctx, table, pk, rk, opts)
	}
	var sel []string
	o := opts
	if opts != nil && opts.Select != nil {
		sel = opts.Select
		o = &storage.GetOptions{Select: withSys(sel)}
		if s.Versioned(ctx) {
			// The whole entity (one request either way), kept in the
			// read cache: a commit conditional on its ETag finds its
			// previous value there (mvcc.go).
			o = nil
		}
	}
	ts, at := tsOf(ctx)
	if at {
		if err := s.checkAge(ctx); err != nil {
			return nil, err
		}
		ctx = noSnap(ctx)
	}
	e, err := s.Store.Get(ctx, table, pk, rk, o)
	if err != nil {
		return nil, err
	}
	_, locked := e.Properties[PropLock]
	if !locked && (!at || versionOf(e) <= ts) {
		if isTombstone(e) {
			if o == nil || o.Select == nil {
				s.cacheRead(table, e)
			}
			return nil, fmt.Errorf("%w: entity %s/%s of table %s (deleted)", storage.ErrNotFound, pk, rk, table)
		}
		out := cleanProject(e, sel)
		if o == nil || o.Select == nil {
			if out != e {
				// The caller has a copy: the cache keeps e as it is.
				s.cacheReadOwned(table, e)
			} else {
				s.cacheRead(table, e)
			}
		}
		return out, nil
	}
	if !locked && (o == nil || o.Select == nil) {
		s.cacheRead(table, e)
	}
	if sel != nil && locked {
		// The resolution needs the whole entity.
		if e, err = s.Store.Get(ctx, table, pk, rk, nil); err != nil {
			return nil, err
		}
	}
	var v *storage.Entity
	if at {
		v, err = s.versionAt(ctx, table, e, ts)
	} else {
		v, _, err = s.resolve(ctx, table, e)
	}
	if err != nil {
		return nil, err
	}
	if v == nil || isTombstone(v) {
		return nil, fmt.Errorf("%w: entity %s/%s of table %s (an uncommitted insert, or deleted)", storage.ErrNotFound, pk, rk, table)
	}
	return project(clean(v), sel), nil
}

// Query implements storage.Store. A filter is widened to also return
// locked entities (whose committed value the store cannot see) and
// evaluated again on their resolved values only: an entity without a lock
// passed the caller's filter in the store, and carries only the projected
// properties, not necessarily those the filter names. A page read without
// a snapshot that meets a lock is read again at a snapshot taken then
// (queryLocked).
func (s *Store) Query(ctx context.Context, table string, q *storage.Query) (*storage.Page, error) {
	if s.raw(table) {
		return s.Store.Query(rawCtx(ctx), table, q)
	}
	if s.versioned.Load() != 2 {
		q = s.belowHistory(table, q)
		if ts, ok := tsOf(ctx); ok {
			if err := s.checkAge(ctx); err != nil {
				return nil, err
			}
			return s.queryAt(noSnap(ctx), table, q, ts)
		}
	}
	q2 := widenQuery(q)
	page, err := s.Store.Query(ctx, table, q2)
	if err != nil {
		return nil, err
	}
	if storage.SnapshotOf(ctx) == nil && hasLock(page.Entities) {
		return s.queryLocked(ctx, table, q, q2, page)
	}
	return s.finishPage(ctx, table, q, q2, page)
}

// MultiQuery implements storage.MultiQuerier. At a native snapshot it
// forwards the widened queries in one call and finishes each page as
// Query does: there the snapshot decides every page, so reading them all
// before resolving the locks of the first reads what Query's loop would.
// Elsewhere (raw tables, a store without native snapshots, a read without
// a snapshot, whose locked pages are read again at one taken then) it is
// the loop of Query calls.
func (s *Store) MultiQuery(ctx context.Context, table string, qs []*storage.Query) ([]*storage.Page, error) {
	if s.raw(table) || s.versioned.Load() != 2 || storage.SnapshotOf(ctx) == nil {
		return storage.QueryEach(ctx, s, table, qs)
	}
	// The widened queries; an IN list's are alike but for the partition,
	// and share the widened projection and filter (neither is written).
	q2s := make([]*storage.Query, len(qs))
	q2v := make([]storage.Query, len(qs))
	for i, q := range qs {
		if p := i - 1; p >= 0 && q.Filter == nil && qs[p].Filter == nil && sameSlice(q.Select, qs[p].Select) {
			q2v[i] = *q
			q2v[i].Select, q2v[i].Filter = q2v[p].Select, q2v[p].Filter
		} else {
			q2v[i] = *widenQuery(q)
		}
		q2s[i] = &q2v[i]
	}
	pages, err := storage.MultiQuery(ctx, s.Store, table, q2s)
	if err != nil {
		return nil, err
	}
	for i, page := range pages {
		if pages[i], err = s.finishPage(ctx, table, qs[i], q2s[i], page); err != nil {
			return nil, err
		}
	}
	return pages, nil
}

// sameSlice reports whether a and b are the same slice (both nil, or
// the same elements of one array).
func sameSlice(a, b []string) bool {
	return (a == nil) == (b == nil) && len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// widenQuery is the query Query sends for q: the system properties
// selected too, and the filter widened to return locked entities.
func widenQuery(q *storage.Query) *storage.Query {
	q2 := *q
	q2.Select = withSys(q.Select)
	if q2.Select != nil {
		// A locked entity's previous value is evaluated here: the page
		// brings the properties the filter names.
		q2.Select = appendFilterProps(q2.Select, q.Filter)
	}
	q2.Filter = widen(q.Filter)
	return &q2
}

// finishPage is Query's answer for q from page, read with q2 (the
// widened q) at the read's snapshot, or without one when the page met no
// lock: system rows and tombstones dropped, locked entities resolved,
// the projection applied.
func (s *Store) finishPage(ctx context.Context, table string, q, q2 *storage.Query, page *storage.Page) (*storage.Page, error) {
	var err error
	out := page.Entities[:0]
	for _, e := range page.Entities {
		if isSystemRow(e.RowKey) {
			s.noteHistory(table)
			continue
		}
		if _, locked := e.Properties[PropLock]; locked {
			// In the read's native snapshot (resolveInSnapshot): the
			// snapshot decides, page after page.
			full := e
			if q2.Select != nil {
				full, err = s.Store.Get(ctx, table, e.PartitionKey, e.RowKey, nil)
				switch {
				case errors.Is(err, storage.ErrNotFound):
					continue
				case err != nil:
					return nil, err
				}
			}
			v, _, err := s.resolve(ctx, table, full)
			if err != nil {
				return nil, err
			}
			if v == nil || isTombstone(v) {
				continue
			}
			// The store evaluated the filter on the locked value: evaluate
			// it on the resolved one (which has every property).
			if q.Filter != nil && !storage.Eval(q.Filter, v) {
				continue
			}
			e = v
		}
		// An entity without a lock passed the caller's filter in the store
		// (each widened conjunct reduces to it), and may lack the
		// properties the filter names but the projection leaves out.
		if isTombstone(e) {
			continue
		}
		if q2.Select == nil {
			s.cacheRead(table, e)
		}
		out = append(out, project(clean(e), q.Select))
	}
	page.Entities = out
	return page, nil
}

// QueryRows implements storage.RowQuerier on a store with snapshots of
// its own (the embedded store) whose backend answers rows: Query's page
// as rows, with no property maps. The rows are marked by this package's
// properties (a lock, a version, a tombstone: sysProps); a page none of
// whose rows carries one is Query's page as read (history rows hidden);
// a page that holds one goes through Query (which resolves locks, and
// without a snapshot reads the page again at one: queryLocked) and is
// returned as its rows. The embedded store's own commits (one atomic
// batch) write none of them. On a versioned store (no native snapshots)
// every read may need the history: not answered as rows; nor are marks
// of the caller's.
func (s *Store) QueryRows(ctx context.Context, table string, q *storage.Query, marks []string) (*storage.RowPage, error) {
	if s.raw(table) {
		return storage.ForwardQueryRows(rawCtx(ctx), s.Store, table, q, marks)
	}
	if q.Select == nil || len(marks) > 0 || s.versioned.Load() != 2 {
		return nil, storage.ErrRowsUnsupported
	}
	// A locked entity is in the page whatever the filter says (widen):
	// it is marked, and Query evaluates the filter on its resolved value.
	q2 := *q
	q2.Filter = widen(q.Filter)
	rp, err := storage.ForwardQueryRows(ctx, s.Store, table, &q2, sysProps)
	if err != nil {
		return nil, err
	}
	if err := s.finishRows(ctx, table, q, rp); err != nil {
		return nil, err
	}
	return rp, nil
}

// MultiQueryRows implements storage.MultiRowQuerier where QueryRows
// answers: each page is the one QueryRows would return. At a native
// snapshot the queries (their filters widened as QueryRows widens them)
// go to the backend in one call, marked by sysProps, and each page is
// finished as QueryRows finishes it (history rows hidden; a page holding
// a marked row goes through Query, at the same snapshot, and is returned
// as its rows): the snapshot decides every page, as in MultiQuery.
// Without one it is a loop of QueryRows calls (whose locked pages are
// read again at a snapshot taken then), as MultiQuery is a loop of Query.
func (s *Store) MultiQueryRows(ctx context.Context, table string, qs []*storage.Query, marks []string, pages []storage.RowPage) error {
	if s.raw(table) {
		return storage.ForwardMultiQueryRows(rawCtx(ctx), s.Store, table, qs, marks, pages)
	}
	if len(marks) > 0 || s.versioned.Load() != 2 {
		return storage.ErrRowsUnsupported
	}
	if _, ok := s.Store.(storage.MultiRowQuerier); !ok {
		return storage.ErrRowsUnsupported
	}
	filtered := false
	for _, q := range qs {
		if q.Select == nil {
			return storage.ErrRowsUnsupported
		}
		filtered = filtered || q.Filter != nil
	}
	if storage.SnapshotOf(ctx) == nil {
		for i, q := range qs {
			rp, err := s.QueryRows(ctx, table, q, nil)
			if err != nil {
				return err
			}
			pages[i] = *rp
		}
		return nil
	}
	q2s := qs
	if filtered {
		// A locked entity is in the page whatever the filter says.
		q2v := make([]storage.Query, len(qs))
		q2s = make([]*storage.Query, len(qs))
		for i, q := range qs {
			q2v[i] = *q
			q2v[i].Filter = widen(q.Filter)
			q2s[i] = &q2v[i]
		}
	}
	if err := storage.ForwardMultiQueryRows(ctx, s.Store, table, q2s, sysProps, pages); err != nil {
		return err
	}
	for i := range pages {
		if err := s.finishRows(ctx, table, qs[i], &pages[i]); err != nil {
			return err
		}
	}
	return nil
}

// finishRows finishes q's page rp of QueryRows and MultiQueryRows: history
// rows dropped, and a page holding a marked row answered by Query instead.
func (s *Store) finishRows(ctx context.Context, table string, q *storage.Query, rp *storage.RowPage) error {
	out := rp.Rows[:0]
	for _, r := range rp.Rows {
		if isSystemRow(r.RowKey) {
			s.noteHistory(table)
			continue
		}
		if r.Marked {
			page, err := s.Query(ctx, table, q)
			if err != nil {
				return err
			}
			*rp = *storage.RowsOf(page, q.Select, nil)
			return nil
		}
		out = append(out, r)
	}
	rp.Rows = out
	return nil
}

// sysProps are the properties this package adds to entities.
var sysProps = []string{PropLock, PropVersion, PropDeleted}

// hasLock reports whether an entity of es holds a lock.
func hasLock(es []*storage.Entity) bool {
	for _, e := range es {
		if _, locked := e.Properties[PropLock]; locked {
			return true
		}
	}
	return false
}

// queryLocked is Query without a snapshot for a page (read with q2, the
// widened q) that met a lock: the page is read again at a snapshot taken
// now, after the page, so that it shows every transaction wholly or not
// at all (package doc, "Readers resolve": a lock's state is learnt after
// the page was read, and what the page holds of the transaction's other
// entities, or of a later one, cannot be told apart from it without a
// snapshot). On a versioned store the snapshot is a timestamp of the
// clock (queryAt resolves the locks it meets); on a store with snapshots
// of its own, the page's locks are resolved first (a snapshot read writes
// nothing), then the page is read in a native snapshot.
func (s *Store) queryLocked(ctx context.Context, table string, q, q2 *storage.Query, page *storage.Page) (*storage.Page, error) {
	if s.Versioned(ctx) {
		ts, err := s.clk.read(ctx, s)
		if err != nil {
			return nil, err
		}
		return s.queryAt(ctx, table, q, ts)
	}
	for _, e := range page.Entities {
		if _, locked := e.Properties[PropLock]; !locked || isSystemRow(e.RowKey) {
			continue
		}
		if q2.Select != nil {
			full, err := s.Store.Get(ctx, table, e.PartitionKey, e.RowKey, nil)
			switch {
			case errors.Is(err, storage.ErrNotFound):
				continue
			case err != nil:
				return nil, err
			}
			e = full
		}
		if _, _, err := s.resolve(ctx, table, e); err != nil {
			return nil, err
		}
	}
	sn, err := storage.ForwardSnapshot(ctx, s.Store)
	if err != nil {
		return nil, err
	}
	defer sn.Release()
	return s.Query(storage.WithSnapshot(ctx, sn), table, q)
}

// queryAt is Query at snapshot timestamp ts (mvcc.go): the filter also
// keeps locked entities and those newer than ts, whose version at ts is
// chosen (versionAt) and evaluated again; history entities and tombstones
// are hidden.
func (s *Store) queryAt(ctx context.Context, table string, q *storage.Query, ts int64) (*storage.Page, error) {
	q2 := *q
	q2.Select = withSys(q.Select)
	if q2.Select != nil {
		q2.Select = appendFilterProps(q2.Select, q.Filter)
	}
	q2.Filter = widenAt(q.Filter, ts)
	page, err := s.Store.Query(ctx, table, &q2)
	if err != nil {
		return nil, err
	}
	out := page.Entities[:0]
	for _, e := range page.Entities {
		if isSystemRow(e.RowKey) {
			s.noteHistory(table)
			continue
		}
		_, locked := e.Properties[PropLock]
		if !locked && q2.Select == nil {
			s.cacheRead(table, e)
		}
		if !locked && versionOf(e) <= ts {
			// Passed the caller's filter in the store.
			if !isTombstone(e) {
				out = append(out, project(clean(e), q.Select))
			}
			continue
		}
		full := e
		if q2.Select != nil && locked {
			full, err = s.Store.Get(ctx, table, e.PartitionKey, e.RowKey, nil)
			switch {
			case errors.Is(err, storage.ErrNotFound):
				continue
			case err != nil:
				return nil, err
			}
		}
		v, err := s.versionAt(ctx, table, full, ts)
		if err != nil {
			return nil, err
		}
		if v == nil || q.Filter != nil && !storage.Eval(q.Filter, v) {
			continue
		}
		out = append(out, project(clean(v), q.Select))
	}
	page.Entities = out
	return page, nil
}

// getNative is Get on a store with snapshots of its own (the embedded
// store): no timestamp snapshot and no history to look at. Its entities
// carry versions and tombstones all the same when commits take the
// inline path or the record (a wrapper without the atomic batch across
// partitions): they are stripped and hidden, as Query does
// (TestReviewGetHidesVersions).
func (s *Store) getNative(ctx context.Context, table, pk, rk string, opts *storage.GetOptions) (*storage.Entity, error) {
	var sel []string
	o := opts
	if opts != nil && opts.Select != nil {
		sel = opts.Select
		o = &storage.GetOptions{Select: withSys(sel)}
	}
	e, err := s.Store.Get(ctx, table, pk, rk, o)
	if err != nil {
		return nil, err
	}
	if _, locked := e.Properties[PropLock]; !locked {
		if isTombstone(e) {
			return nil, fmt.Errorf("%w: entity %s/%s of table %s (deleted)", storage.ErrNotFound, pk, rk, table)
		}
		// Projected by the store already: only the system properties to
		// strip (none, and no copy, without a commit through the
		// protocol).
		return clean(e), nil
	}
	if sel != nil {
		// The resolution needs the whole entity.
		if e, err = s.Store.Get(ctx, table, pk, rk, nil); err != nil {
			return nil, err
		}
	}
	v, _, err := s.resolve(ctx, table, e)
	if err != nil {
		return nil, err
	}
	if v == nil || isTombstone(v) {
		return nil, fmt.Errorf("%w: entity %s/%s of table %s (an uncommitted insert, or deleted)", storage.ErrNotFound, pk, rk, table)
	}
	return project(clean(v), sel), nil
}

// belowHistory returns q bounded below the history namespace (mvcc.go)
// in a table known to hold history entities, so that the store does not
// send them (Query hides them anyway). A table is known once this
// gateway resolved a commit into it, or a query met one of them.
func (s *Store) belowHistory(table string, q *storage.Query) *storage.Query {
	if _, ok := s.histTables.Load(table); !ok {
		return q
	}
	if q.Row != nil && q.Row.High != nil && q.Row.High.Key <= histPrefix {
		return q
	}
	q2 := *q
	r := storage.KeyRange{High: &storage.Bound{Key: histPrefix, Exclusive: true}}
	if q.Row != nil {
		r.Low = q.Row.Low
	}
	q2.Row = &r
	return &q2
}

// cacheRead keeps e (as stored, unlocked, whole) in the read cache, on a
// versioned store only (mvcc.go, readCache): the embedded store's reads
// pay nothing for it.
func (s *Store) cacheRead(table string, e *storage.Entity) {
	if s.versioned.Load() == 1 {
		s.reads.put(table, e, true)
	}
}

// cacheReadOwned is cacheRead for an entity no caller is given (no copy).
func (s *Store) cacheReadOwned(table string, e *storage.Entity) {
	if s.versioned.Load() == 1 {
		s.reads.put(table, e, false)
	}
}

// appendFilterProps appends to sel the properties x names (pseudo
// properties aside) that sel lacks.
func appendFilterProps(sel []string, x storage.Expr) []string {
	switch x := x.(type) {
	case *storage.Compare:
		switch x.Prop {
		case storage.PropPartitionKey, storage.PropRowKey, storage.PropTimestamp:
			return sel
		}
		if !slices.Contains(sel, x.Prop) {
			sel = append(sel, x.Prop)
		}
	case storage.And:
		for _, y := range x {
			sel = appendFilterProps(sel, y)
		}
	case storage.Or:
		for _, y := range x {
			sel = appendFilterProps(sel, y)
		}
	case *storage.Not:
		sel = appendFilterProps(sel, x.X)
	}
	return sel
}

// widen returns a filter that also keeps every locked entity: each
// top-level conjunct c becomes (c or locked), so a backend that sends only
// the conjuncts that fit in one request still sends each whole.
func widen(f storage.Expr) storage.Expr {
	return widenWith(f, storage.Gt(PropLock, storage.String("")))
}

// widenWith ors each top-level conjunct of f with also.
func widenWith(f storage.Expr, also ...storage.Expr) storage.Expr {
	or := func(c storage.Expr) storage.Expr { return append(storage.Or{c}, also...) }
	switch f := f.(type) {
	case nil:
		return nil
	case storage.And:
		out := make(storage.And, len(f))
		for i, c := range f {
			out[i] = or(c)
		}
		return out
	}
	return or(f)
}

// record is a transaction record as read.
type record struct {
	state   string
	expires time.Time
	etag    storage.ETag
	count   int
}

// readRecord reads the record of transaction id: pending (its state; a
// record written before commit rows were the commit point may say
// committed or aborted), or stateMissing.
func (s *Store) readRecord(ctx context.Context, id string) (record, error) {
	e, err := s.Store.Get(ctx, s.table, id, recRowKey, nil)
	if errors.Is(err, storage.ErrNotFound) {
		return record{state: stateMissing}, nil
	}
	if err != nil {
		return record{}, err
	}
	r := record{state: e.Properties[propState].Str(), etag: e.ETag, count: int(e.Properties[propCount].Int())}
	r.expires = time.UnixMicro(e.Properties[propExpire].Int())
	return r, nil
}

func (s *Store) remember(id string, o outcome) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.known) > 100_000 {
		s.known = map[string]outcome{}
	}
	s.known[id] = o
}

// resolve returns the value a reader sees of the locked entity e (raw, as
// stored, a tombstone included): nil when it sees no entity. It rolls the
// lock forward or back when its transaction has an outcome (or aborts it
// when its lease has expired); pending reports that a live transaction
// holds the lock (the value returned is the previous one, with a poisoned
// ETag). In a native snapshot it decides as of the snapshot and writes
// nothing (resolveInSnapshot).
func (s *Store) resolve(ctx context.Context, table string, e *storage.Entity) (v *storage.Entity, pending bool, err error) {
	if storage.SnapshotOf(ctx) != nil {
		if _, ok := tsOf(ctx); !ok {
			return s.resolveInSnapshot(ctx, table, e)
		}
		ctx = noSnap(ctx)
	}
	missing := ""
	for attempt := 0; attempt < 20; attempt++ {
		l, ok := parseLock(e)
		if !ok {
			if _, has := e.Properties[PropLock]; has {
				return stripped(e), false, nil // not ours: never written by this package
			}
			return e, false, nil
		}
		o, r, err := s.status(ctx, l.id)
		if err != nil {
			return nil, false, err
		}
		state := o.state
		if state == stateMissing && isInline(l.id) {
			// No commit row, and no record to ask (inline.go): the commit
			// point is not reached yet, or it was, and the lock was
			// resolved and the commit row deleted since e was read. The
			// entity read again tells: locked at the same ETag, the lock
			// outlived the commit row's read, so the commit point, if
			// any, comes after that read: pending, with the lease the id
			// encodes.
			ne, err := s.Store.Get(ctx, table, e.PartitionKey, e.RowKey, nil)
			if errors.Is(err, storage.ErrNotFound) {
				return nil, false, nil
			}
			if err != nil {
				return nil, false, err
			}
			if ne.ETag != e.ETag {
				if _, locked := ne.Properties[PropLock]; !locked {
					return ne, false, nil
				}
				e = ne
				continue
			}
			state, r = statePending, record{state: statePending, expires: inlineExpiry(l.id)}
		}
		if state == stateMissing {
			// The record is written before any lock and deleted after
			// every lock is resolved: read the entity again; a lock still
			// there after a missing record belongs to an aborted record
			// deleted by recovery, or to a lock write delayed past it.
			if missing != l.id {
				missing = l.id
				state = ""
			} else {
				state = stateAborted
			}
		}
		if state == statePending {
			if s.now().Before(r.expires) {
				v := stripped(e)
				v.ETag = storage.ETag(poison) + e.ETag
				if placeholder(l, e) {
					return nil, true, nil
				}
				return v, true, nil
			}
			if o, err = s.abortTxn(ctx, l.id, lockSite(l.id, table, e)); err != nil {
				return nil, false, err
			}
			state = o.state
		}
		var werr error
		switch state {
		case stateCommitted:
			nv, del, dels, err := s.lockIntent(ctx, table, e, l)
			if errors.Is(err, errIntentMissing) && missing != l.id+"/i" {
				missing = l.id + "/i" // resolved and cleaned up meanwhile? read again
				werr = storage.ErrPreconditionFailed
				break
			}
			if err != nil {
				return nil, false, err
			}
			if o.ts > 0 {
				// A versioned commit: the new value (a tombstone for a
				// delete) at the commit timestamp, and the previous one
				// into the history, in one batch.
				var prev *storage.Entity
				if !placeholder(l, e) {
					prev = stripped(e)
				}
				// An inline transaction's intent goes in the same batch
				// (inline.go).
				ops := append([]storage.Operation{
					{Kind: storage.OpUpdate, Mode: storage.Replace, IfMatch: e.ETag, Entity: versionedValue(e.PartitionKey, e.RowKey, nv, del, o.ts)},
					historyOp(e.PartitionKey, e.RowKey, prev, o.ts),
				}, dels...)
				var etags []storage.ETag
				s.noteHistory(table)
				etags, werr = s.Store.Batch(ctx, table, ops)
				if werr == nil {
					ne := ops[0].Entity
					ne.ETag = etags[0]
					ne.Timestamp = s.now()
					return ne, false, nil
				}
			} else if del {
				werr = s.Store.Delete(ctx, table, e.PartitionKey, e.RowKey, e.ETag)
				if werr == nil {
					return nil, false, nil
				}
			} else {
				ne := &storage.Entity{PartitionKey: e.PartitionKey, RowKey: e.RowKey, Properties: nv}
				var etag storage.ETag
				etag, werr = s.Store.Update(ctx, table, ne, storage.Replace, e.ETag)
				if werr == nil {
					ne.ETag = etag
					ne.Timestamp = s.now()
					return ne, false, nil
				}
			}
		case stateAborted:
			if isInline(l.id) {
				// The lock removed and the intent deleted in one batch
				// (inline.go).
				if v, done, err := s.rollbackInline(ctx, table, e, l); done || err != nil {
					return v, false, err
				}
				werr = storage.ErrPreconditionFailed // changed meanwhile: read again
				break
			}
			if placeholder(l, e) {
				werr = s.Store.Delete(ctx, table, e.PartitionKey, e.RowKey, e.ETag)
				if werr == nil {
					return nil, false, nil
				}
			} else {
				ne := stripped(e)
				var etag storage.ETag
				etag, werr = s.Store.Update(ctx, table, ne, storage.Replace, e.ETag)
				if werr == nil {
					ne.ETag = etag
					return ne, false, nil
				}
			}
		}
		if werr != nil && !errors.Is(werr, storage.ErrPreconditionFailed) && !errors.Is(werr, storage.ErrNotFound) {
			return nil, false, werr
		}
		// Someone else changed the entity meanwhile (or the record must be
		// read again): read it again.
		ne, err := s.Store.Get(ctx, table, e.PartitionKey, e.RowKey, nil)
		if errors.Is(err, storage.ErrNotFound) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		if _, locked := ne.Properties[PropLock]; !locked {
			return ne, false, nil
		}
		e = ne
	}
	return nil, false, fmt.Errorf("%w: the lock on %s/%s of table %s keeps changing", storage.ErrUnavailable, e.PartitionKey, e.RowKey, table)
}

func intentKey(n int) string { return fmt.Sprintf("v%07d.", n) }

// intentValue reads intent n of transaction id: the new properties, or
// del for a delete.
func (s *Store) intentValue(ctx context.Context, id string, n int) (storage.Properties, bool, error) {
	parts, err := s.intentParts(ctx, s.table, id, intentKey(n), nil)
	if err != nil {
		return nil, false, err
	}
	if len(parts) == 0 {
		return nil, false, fmt.Errorf("%w: intent %d of committed transaction %s", errIntentMissing, n, id)
	}
	return decodeIntent(parts)
}

// intentParts reads the entities of one intent: the RowKeys that start
// with pre (an intentKey, ending in '.') in partition pk of table,
// projected on sel (nil: whole).
func (s *Store) intentParts(ctx context.Context, table, pk, pre string, sel []string) ([]*storage.Entity, error) {
	return s.keyRange(ctx, table, pk, pre, pre[:len(pre)-1]+"/", sel)
}

// keyRange reads the entities of partition pk of table whose RowKeys are
// in [low, high), projected on sel (nil: whole).
func (s *Store) keyRange(ctx context.Context, table, pk, low, high string, sel []string) ([]*storage.Entity, error) {
	q := &storage.Query{Partition: storage.Exactly(pk), Select: sel,
		Row: &storage.KeyRange{Low: &storage.Bound{Key: low}, High: &storage.Bound{Key: high, Exclusive: true}}}
	var parts []*storage.Entity
	for {
		page, err := s.Store.Query(ctx, table, q)
		if err != nil {
			return nil, err
		}
		parts = append(parts, page.Entities...)
		if page.Continuation == "" {
			return parts, nil
		}
		q.Continuation = page.Continuation
	}
}

// decodeIntent returns the value an intent's entities hold: the new
// properties, or del for a delete.
func decodeIntent(parts []*storage.Entity) (storage.Properties, bool, error) {
	if parts[0].Properties[propKind].Str() == "d" {
		return nil, true, nil
	}
	var b []byte
	for _, p := range parts {
		for i := 0; ; i++ {
			v, ok := p.Properties["b"+strconv.Itoa(i)]
			if !ok {
				break
			}
			b = append(b, v.Bytes()...)
		}
	}
	props, err := decodeProps(b)
	return props, false, err
}

// checkWrite fails a write conditional on a poisoned ETag.
func checkWrite(ifMatch storage.ETag) error {
	if isPoisoned(ifMatch) {
		return fmt.Errorf("%w: the entity is locked by a transaction in progress", storage.ErrPreconditionFailed)
	}
	return nil
}

// Update implements storage.Store.
func (s *Store) Update(ctx context.Context, table string, e *storage.Entity, mode storage.UpdateMode, ifMatch storage.ETag) (storage.ETag, error) {
	if err := checkWrite(ifMatch); err != nil {
		return "", err
	}
	return s.Store.Update(ctx, table, e, mode, ifMatch)
}

// Delete implements storage.Store.
func (s *Store) Delete(ctx context.Context, table, pk, rk string, ifMatch storage.ETag) error {
	if err := checkWrite(ifMatch); err != nil {
		return err
	}
	return s.Store.Delete(ctx, table, pk, rk, ifMatch)
}

// Insert implements storage.Store: an insert that meets the placeholder of
// an aborted transaction removes it and retries; one that meets a live
// transaction's placeholder is a write conflict (ErrPreconditionFailed),
// not a duplicate; one that meets a tombstone (mvcc.go) replaces it.
func (s *Store) Insert(ctx context.Context, table string, e *storage.Entity) (storage.ETag, error) {
	for attempt := 0; ; attempt++ {
		etag, err := s.Store.Insert(ctx, table, e)
		if err == nil || !errors.Is(err, storage.ErrAlreadyExists) || s.raw(table) || attempt >= 3 {
			return etag, err
		}
		retry, tomb, err2 := s.existing(ctx, table, e.PartitionKey, e.RowKey)
		if err2 != nil {
			return "", err2
		}
		if tomb != nil {
			op := overTombstone(storage.Operation{Kind: storage.OpInsert, Entity: e}, tomb)
			if op.Mode == storage.Merge {
				s.reads.putTomb(table, tomb)
			}
			etag, err := s.Store.Update(ctx, table, op.Entity, op.Mode, op.IfMatch)
			if errors.Is(err, storage.ErrPreconditionFailed) || errors.Is(err, storage.ErrNotFound) {
				continue
			}
			return etag, err
		}
		if !retry {
			return "", err
		}
	}
}

// overTombstone turns an insert that found a tombstone into an update
// conditional on it: a lock (an entity holding only PropLock) merges, so
// that the tombstone stays for older snapshots until the transaction
// commits; a plain insert replaces it.
func overTombstone(op storage.Operation, tomb *storage.Entity) storage.Operation {
	mode := storage.Replace
	if _, ok := op.Entity.Properties[PropLock]; ok && len(op.Entity.Properties) == 1 {
		mode = storage.Merge
	}
	return storage.Operation{Kind: storage.OpUpdate, Mode: mode, IfMatch: tomb.ETag, Entity: op.Entity}
}

// existing looks at the entity an insert found: retry reports that it was
// an aborted placeholder, now removed; tomb, that it is a tombstone (as
// stored, with its ETag). A live placeholder gives ErrPreconditionFailed.
func (s *Store) existing(ctx context.Context, table, pk, rk string) (retry bool, tomb *storage.Entity, err error) {
	raw, err := s.Store.Get(ctx, table, pk, rk, nil)
	if errors.Is(err, storage.ErrNotFound) {
		return true, nil, nil
	}
	if err != nil {
		return false, nil, err
	}
	if _, locked := raw.Properties[PropLock]; !locked {
		if isTombstone(raw) {
			return false, raw, nil
		}
		return false, nil, nil
	}
	v, pending, err := s.resolve(ctx, table, raw)
	if err != nil {
		return false, nil, err
	}
	if pending {
		return false, nil, fmt.Errorf("%w: entity %s/%s of table %s is locked by a transaction in progress", storage.ErrPreconditionFailed, pk, rk, table)
	}
	if v != nil && isTombstone(v) {
		return false, v, nil
	}
	return v == nil, nil, nil
}

// Batch implements storage.Store (see Insert and the poisoned ETags).
func (s *Store) Batch(ctx context.Context, table string, ops []storage.Operation) ([]storage.ETag, error) {
	for i, op := range ops {
		if err := checkWrite(op.IfMatch); err != nil {
			return nil, &storage.BatchError{Index: i, Err: err}
		}
	}
	// Each attempt fixes one operation (an insert over a tombstone or an
	// aborted placeholder): up to one per operation, and a few more for
	// placeholders that come back.
	for attempt := 0; ; attempt++ {
		etags, err := s.Store.Batch(ctx, table, ops)
		var be *storage.BatchError
		if err == nil || s.raw(table) || attempt >= len(ops)+3 || !errors.Is(err, storage.ErrAlreadyExists) ||
			!errors.As(err, &be) || be.Index < 0 || be.Index >= len(ops) {
			return etags, err
		}
		op := ops[be.Index]
		retry, tomb, err2 := s.existing(ctx, table, op.Entity.PartitionKey, op.Entity.RowKey)
		if err2 != nil {
			return nil, &storage.BatchError{Index: be.Index, Err: err2}
		}
		if tomb != nil {
			ops = slices.Clone(ops)
			ops[be.Index] = overTombstone(op, tomb)
			if ops[be.Index].Mode == storage.Merge {
				s.reads.putTomb(table, tomb)
			}
			continue
		}
		if !retry {
			return nil, err
		}
	}
}

// newID returns a transaction id: time-ordered and random.
func newID(now time.Time) string {
	var b [8]byte
	rand.Read(b[:])
	return fmt.Sprintf("t%016x%s", now.UnixNano(), hex.EncodeToString(b[:]))
}
