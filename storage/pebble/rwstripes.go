package pebble

import (
	"context"
	"math/rand/v2"
	"sync"
	"unsafe"
)

// rwStripes is a reader-writer lock for the hottest read, Get: a reader
// read-locks one of its RWMutexes, chosen at random, each on cache lines
// of its own, and a writer locks them all. Store.mu alone is one word
// that every Get of every connection added to and subtracted from, a
// cache line the cores passed between them on every point select (issue
// 13, seventh round: sysbench's oltp_point_select, 4 threads on 2 cores);
// with stripes two concurrent Gets meet on a line one time in
// rwStripeCount. The other operations keep Store.mu; table DDL and Close
// take both (Store.lockAll), so a Get under either one's read lock sees
// an open store and a stable table map.
type rwStripes struct {
	s [rwStripeCount]struct {
		mu sync.RWMutex
		_  [128 - unsafe.Sizeof(sync.RWMutex{})%128]byte
	}
}

const rwStripeCount = 8

// rlock read-locks one stripe and returns it, for RUnlock.
func (l *rwStripes) rlock() *sync.RWMutex {
	m := &l.s[rand.Uint32()%rwStripeCount].mu
	m.RLock()
	return m
}

// lock write-locks every stripe, in order.
func (l *rwStripes) lock() {
	for i := range l.s {
		l.s[i].mu.Lock()
	}
}

func (l *rwStripes) unlock() {
	for i := len(l.s) - 1; i >= 0; i-- {
		l.s[i].mu.Unlock()
	}
}

// lockAll takes the store exclusively: Store.mu, then the Get stripes.
func (s *Store) lockAll() {
	s.mu.Lock()
	s.getMu.lock()
}

func (s *Store) unlockAll() {
	s.getMu.unlock()
	s.mu.Unlock()
}

// rlockGet is rlock for Get: it read-locks one stripe of getMu and
// returns it; on success the caller must RUnlock it.
func (s *Store) rlockGet(ctx context.Context) (*sync.RWMutex, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m := s.getMu.rlock()
	if s.closed {
		m.RUnlock()
		return nil, ErrClosed
	}
	return m, nil
}
