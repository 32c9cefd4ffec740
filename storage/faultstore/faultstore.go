// Package faultstore wraps a storage.Store to inject failures: after a
// chosen number of requests, every request fails, as if the process had
// died (the store keeps exactly what earlier requests did). The request
// at the crash point can be dropped before it reaches the store, or
// applied with its reply lost (the two ways a crash can fall around one
// request). Stall makes the store stop answering for a while instead. Crash-recovery tests run an operation once per crash point,
// then recover on the inner store and check the invariants.
package faultstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/sqlgw/sqlgw/storage"
)

// ErrCrashed is returned by every request at and after the crash point.
var ErrCrashed = errors.New("faultstore: crashed")

// Store is the fault-injecting wrapper. Read-only requests (Get, Query,
// ListTables, TableExists) count like writes: a crash can fall anywhere.
type Store struct {
	storage.Store
	mu      sync.Mutex
	n       int  // requests seen
	crashAt int  // 1-based request that crashes; 0: never
	applied bool // the crashing request reaches the store
	crashed bool
	stall   chan struct{} // closed when the current stall ends; nil: none
}

// Stall makes every request that starts during the next d wait until the
// stall ends (a store that stops answering for a while, then recovers).
// A request whose context ends while it waits fails with
// storage.ErrUnavailable without reaching the store. Stall returns at
// once.
func (s *Store) Stall(d time.Duration) {
	ch := make(chan struct{})
	s.mu.Lock()
	s.stall = ch
	s.mu.Unlock()
	time.AfterFunc(d, func() {
		s.mu.Lock()
		if s.stall == ch {
			s.stall = nil
		}
		s.mu.Unlock()
		close(ch)
	})
}

// waitStall blocks a request while the store is stalled.
func (s *Store) waitStall(ctx context.Context) error {
	s.mu.Lock()
	ch := s.stall
	s.mu.Unlock()
	if ch == nil {
		return nil
	}
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%w: faultstore: stalled: %v", storage.ErrUnavailable, ctx.Err())
	}
}

// New wraps inner; it does not crash until CrashAt is called.
func New(inner storage.Store) *Store { return &Store{Store: inner} }

// CrashAt makes request n (1-based, counted from now) and every later one
// fail with ErrCrashed; if applied, request n is still applied to the
// inner store (its reply is lost).
func (s *Store) CrashAt(n int, applied bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n, s.crashAt, s.applied, s.crashed = 0, n, applied, false
}

// Requests returns the number of requests seen since New or CrashAt.
func (s *Store) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

// Crashed reports whether the crash point was reached.
func (s *Store) Crashed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.crashed
}

// enter counts a request: run says whether to send it to the inner store,
// fail whether to report ErrCrashed.
func (s *Store) enter() (run, fail bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	if s.crashed {
		return false, true
	}
	if s.crashAt > 0 && s.n >= s.crashAt {
		s.crashed = true
		return s.applied, true
	}
	return true, false
}

func do[T any](s *Store, ctx context.Context, f func() (T, error)) (T, error) {
	if err := s.waitStall(ctx); err != nil {
		var zero T
		return zero, err
	}
	run, fail := s.enter()
	var v T
	var err error
	if run {
		v, err = f()
	}
	if fail {
		var zero T
		return zero, ErrCrashed
	}
	return v, err
}

type none struct{}

func (s *Store) CreateTable(ctx context.Context, table string) error {
	_, err := do(s, ctx, func() (none, error) { return none{}, s.Store.CreateTable(ctx, table) })
	return err
}

func (s *Store) DeleteTable(ctx context.Context, table string) error {
	_, err := do(s, ctx, func() (none, error) { return none{}, s.Store.DeleteTable(ctx, table) })
	return err
}

func (s *Store) ListTables(ctx context.Context) ([]string, error) {
	return do(s, ctx, func() ([]string, error) { return s.Store.ListTables(ctx) })
}

func (s *Store) TableExists(ctx context.Context, table string) (bool, error) {
	return do(s, ctx, func() (bool, error) { return s.Store.TableExists(ctx, table) })
}

func (s *Store) Get(ctx context.Context, table, pk, rk string, opts *storage.GetOptions) (*storage.Entity, error) {
	return do(s, ctx, func() (*storage.Entity, error) { return s.Store.Get(ctx, table, pk, rk, opts) })
}

func (s *Store) Insert(ctx context.Context, table string, e *storage.Entity) (storage.ETag, error) {
	return do(s, ctx, func() (storage.ETag, error) { return s.Store.Insert(ctx, table, e) })
}

func (s *Store) Upsert(ctx context.Context, table string, e *storage.Entity, mode storage.UpdateMode) (storage.ETag, error) {
	return do(s, ctx, func() (storage.ETag, error) { return s.Store.Upsert(ctx, table, e, mode) })
}

func (s *Store) Update(ctx context.Context, table string, e *storage.Entity, mode storage.UpdateMode, ifMatch storage.ETag) (storage.ETag, error) {
	return do(s, ctx, func() (storage.ETag, error) { return s.Store.Update(ctx, table, e, mode, ifMatch) })
}

func (s *Store) Delete(ctx context.Context, table, pk, rk string, ifMatch storage.ETag) error {
	_, err := do(s, ctx, func() (none, error) { return none{}, s.Store.Delete(ctx, table, pk, rk, ifMatch) })
	return err
}

func (s *Store) Batch(ctx context.Context, table string, ops []storage.Operation) ([]storage.ETag, error) {
	return do(s, ctx, func() ([]storage.ETag, error) { return s.Store.Batch(ctx, table, ops) })
}

func (s *Store) Query(ctx context.Context, table string, q *storage.Query) (*storage.Page, error) {
	return do(s, ctx, func() (*storage.Page, error) { return s.Store.Query(ctx, table, q) })
}

// Close closes the inner store.
func (s *Store) Close() error { return s.Store.Close() }

var _ storage.Store = (*Store)(nil)
