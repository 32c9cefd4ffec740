package pebble

import (
	"context"
	"io"
	"sync"

	pebbledb "github.com/cockroachdb/pebble/v2"

	"github.com/sqlgw/sqlgw/storage"
)

// snapshot is a Pebble snapshot (storage.Snapshot): the store's Get and
// Query read from it when their context carries it. Every write of the
// store is one Pebble batch (a MultiBatch too), so a snapshot shows each
// wholly or not at all.
type snapshot struct {
	s  *Store
	mu sync.RWMutex // held shared by reads, exclusively by release
	db *pebbledb.Snapshot
}

// Snapshot implements storage.Snapshotter.
func (s *Store) Snapshot(ctx context.Context) (storage.Snapshot, error) {
	if err := s.rlock(ctx); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	sn := &snapshot{s: s, db: s.db.NewSnapshot()}
	s.snapMu.Lock()
	if s.snaps == nil {
		s.snaps = map[*snapshot]struct{}{}
	}
	s.snaps[sn] = struct{}{}
	s.snapMu.Unlock()
	return sn, nil
}

// Release implements storage.Snapshot.
func (sn *snapshot) Release() {
	sn.mu.Lock()
	defer sn.mu.Unlock()
	if sn.db == nil {
		return
	}
	sn.s.snapMu.Lock()
	_, open := sn.s.snaps[sn]
	delete(sn.s.snaps, sn)
	sn.s.snapMu.Unlock()
	if open { // not yet closed by Store.Close
		sn.db.Close()
	}
	sn.db = nil
}

// closeSnapshots closes the snapshots still open (Pebble refuses to close
// a database with open snapshots); s.mu is held exclusively.
func (s *Store) closeSnapshots() {
	s.snapMu.Lock()
	defer s.snapMu.Unlock()
	for sn := range s.snaps {
		sn.db.Close()
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
func (s *Store) reader(ctx context.Context) (reader, func(), error) {
	sn, ok := storage.SnapshotOf(ctx).(*snapshot)
	if !ok || sn.s != s {
		return s.db, func() {}, nil
	}
	sn.mu.RLock()
	if sn.db == nil {
		sn.mu.RUnlock()
		return nil, nil, storage.ErrSnapshotReleased
	}
	s.snapMu.Lock()
	_, open := s.snaps[sn]
	s.snapMu.Unlock()
	if !open {
		sn.mu.RUnlock()
		return nil, nil, storage.ErrSnapshotReleased
	}
	return sn.db, sn.mu.RUnlock, nil
}
