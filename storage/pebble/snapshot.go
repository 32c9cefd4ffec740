package pebble

import (
	"context"
	"io"
	"sync"
	"sync/atomic"

	pebbledb "github.com/cockroachdb/pebble/v2"

	"github.com/sqlgw/sqlgw/storage"
)

// snapshot is a Pebble snapshot (storage.Snapshot): the store's Get and
// Query read from it when their context carries it. Every write of the
// store is one Pebble batch (a MultiBatch too), so a snapshot shows each
// wholly or not at all.
//
// Snapshots taken while no write commits share one Pebble snapshot
// (shared): each statement of sqlgw takes one, and a read-only workload
// (sysbench's point selects) would otherwise open and close a Pebble
// snapshot per statement, whose Close also re-runs Pebble's compaction
// picker. A new snapshot reuses the current shared one only when no write
// is committing (Store.committing) and none has committed since the
// shared one was taken (Store.commits unchanged): the store's state is
// then exactly the shared snapshot's, so the reuse reads what a new
// snapshot would. Otherwise a new Pebble snapshot becomes the current
// shared one. A shared snapshot is closed when its last handle is
// released and it is no longer current (or a write made it stale); an
// unused current one is closed by the next write (commit), so that it
// never pins overwritten versions for long.
type snapshot struct {
	s  *Store
	mu sync.RWMutex // held shared by reads, exclusively by release
	sh *shared      // nil once released
	// runlock is mu.RUnlock, the release of each read (reader), bound
	// once rather than per read.
	runlock func()
}

// shared is one Pebble snapshot and its open handles (s.snapMu).
//
// It also keeps the iterators its queries used, for the next ones: a
// Pebble iterator costs far more to open and close (an iterator per
// memtable and level, each closed again) than to re-bound (SetBounds),
// and an IN list over a non-unique index runs a query per value
// (select_random_points: ten per statement, at most iterPoolMax kept).
// While kept, an iterator holds on to the memtables and files it reads
// (the snapshot already keeps their versions); the snapshot's close, on
// the next write or when it is no longer current, closes them.
type shared struct {
	db      *pebbledb.Snapshot
	commits uint64 // Store.commits before it was taken
	refs    int
	// closed: by Close, or once unused and replaced (set under
	// s.snapMu, read without it by reader).
	closed atomic.Bool

	itMu  sync.Mutex
	iters []*pebbledb.Iterator // idle, for reuse (iter, putIter)
}

// iterPoolMax bounds the idle iterators a shared snapshot keeps.
const iterPoolMax = 8

// iter returns an iterator of sh's snapshot bounded by lower and upper:
// an idle one re-bounded, else a new one.
func (sh *shared) iter(ctx context.Context, lower, upper []byte) (*pebbledb.Iterator, error) {
	sh.itMu.Lock()
	if n := len(sh.iters); n > 0 {
		it := sh.iters[n-1]
		sh.iters = sh.iters[:n-1]
		sh.itMu.Unlock()
		it.SetContext(ctx)
		it.SetBounds(lower, upper)
		return it, nil
	}
	sh.itMu.Unlock()
	return sh.db.NewIterWithContext(ctx, &pebbledb.IterOptions{LowerBound: lower, UpperBound: upper})
}

// putIter keeps it for the next query, or closes it (sh closing, or
// enough kept).
func (sh *shared) putIter(it *pebbledb.Iterator) {
	sh.itMu.Lock()
	if !sh.closed.Load() && len(sh.iters) < iterPoolMax && it.Error() == nil {
		it.SetContext(context.Background())
		sh.iters = append(sh.iters, it)
		sh.itMu.Unlock()
		return
	}
	sh.itMu.Unlock()
	it.Close()
}

// closeIters closes the kept iterators (sh is closing).
func (sh *shared) closeIters() {
	sh.itMu.Lock()
	iters := sh.iters
	sh.iters = nil
	sh.itMu.Unlock()
	for _, it := range iters {
		it.Close()
	}
}

// Snapshot implements storage.Snapshotter.
func (s *Store) Snapshot(ctx context.Context) (storage.Snapshot, error) {
	if err := s.rlock(ctx); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	s.snapMu.Lock()
	defer s.snapMu.Unlock()
	// committing before commits: a write between the two loads shows in
	// one of them (commit increments committing, then commits).
	busy := s.committing.Load() > 0
	commits := s.commits.Load()
	cur := s.cur
	if cur == nil || busy || cur.commits != commits {
		if cur != nil && cur.refs == 0 {
			s.closeShared(cur)
		}
		cur = &shared{db: s.db.NewSnapshot(), commits: commits}
		if s.snaps == nil {
			s.snaps = map[*shared]struct{}{}
		}
		s.snaps[cur] = struct{}{}
		s.cur = cur
	}
	cur.refs++
	s.curIdle.Store(false)
	sn := &snapshot{s: s, sh: cur}
	sn.runlock = sn.mu.RUnlock
	return sn, nil
}

// Release implements storage.Snapshot.
func (sn *snapshot) Release() {
	sn.mu.Lock()
	defer sn.mu.Unlock()
	if sn.sh == nil {
		return
	}
	s := sn.s
	s.snapMu.Lock()
	sh := sn.sh
	sh.refs--
	if sh.refs == 0 && (sh != s.cur || s.committing.Load() > 0 || sh.commits != s.commits.Load()) {
		s.closeShared(sh)
	} else if sh.refs == 0 {
		s.curIdle.Store(true)
	}
	s.snapMu.Unlock()
	sn.sh = nil
}

// closeShared closes sh (s.snapMu held).
func (s *Store) closeShared(sh *shared) {
	if sh.closed.Load() {
		return
	}
	sh.itMu.Lock() // putIter sees closed under itMu: nothing is kept after closeIters
	sh.closed.Store(true)
	sh.itMu.Unlock()
	sh.closeIters()
	sh.db.Close()
	delete(s.snaps, sh)
	if s.cur == sh {
		s.cur = nil
		s.curIdle.Store(false)
	}
}

// commit commits b: committing counts it while it commits, commits once
// it did (Snapshot's reuse test); then an unused shared snapshot, now
// stale, is closed.
func (s *Store) commit(b *pebbledb.Batch, wo *pebbledb.WriteOptions) error {
	s.committing.Add(1)
	err := b.Commit(wo)
	s.commits.Add(1)
	s.committing.Add(-1)
	if s.curIdle.Load() {
		s.snapMu.Lock()
		if cur := s.cur; cur != nil && cur.refs == 0 {
			s.closeShared(cur)
		}
		s.snapMu.Unlock()
	}
	return err
}

// closeSnapshots closes the snapshots still open (Pebble refuses to close
// a database with open snapshots); s.mu is held exclusively.
func (s *Store) closeSnapshots() {
	s.snapMu.Lock()
	defer s.snapMu.Unlock()
	for sh := range s.snaps {
		s.closeShared(sh)
	}
	s.snaps = nil
}

// reader is what Get and Query read from: the database, or a snapshot.
type reader interface {
	Get(key []byte) ([]byte, io.Closer, error)
	NewIterWithContext(ctx context.Context, o *pebbledb.IterOptions) (*pebbledb.Iterator, error)
}

// reader returns the reader for ctx and the function that ends the read
// (s.mu is held shared by the caller).
func (s *Store) reader(ctx context.Context) (reader, *shared, func(), error) {
	sn, ok := storage.SnapshotOf(ctx).(*snapshot)
	if !ok || sn.s != s {
		return s.db, nil, noRelease, nil
	}
	sn.mu.RLock()
	if sn.sh == nil {
		sn.mu.RUnlock()
		return nil, nil, nil, storage.ErrSnapshotReleased
	}
	if sn.sh.closed.Load() { // by Close
		sn.mu.RUnlock()
		return nil, nil, nil, storage.ErrSnapshotReleased
	}
	return sn.sh.db, sn.sh, sn.runlock, nil
}

// noRelease is the release function of a read without a snapshot.
func noRelease() {}

// IdleSnapshots returns the number of Pebble snapshots the store keeps
// open for reuse with no handle on them (0 or 1: the current shared one,
// up to date; the next write closes it).
func (s *Store) IdleSnapshots() int {
	s.snapMu.Lock()
	defer s.snapMu.Unlock()
	if s.cur != nil && s.cur.refs == 0 {
		return 1
	}
	return 0
}
