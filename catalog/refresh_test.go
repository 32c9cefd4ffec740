package catalog

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/storage"
)

// heldStore counts the catalog version checks (Gets of the version entity)
// and, while held, blocks them until released.
type heldStore struct {
	storage.Store
	checks atomic.Int64
	mu     sync.Mutex
	hold   chan struct{} // non-nil: version checks wait for it to close
	fail   error         // non-nil: version checks fail with it
}

func (s *heldStore) Get(ctx context.Context, table, pk, rk string, o *storage.GetOptions) (*storage.Entity, error) {
	if pk == catalogPartition && rk == versionRowKey {
		s.checks.Add(1)
		s.mu.Lock()
		hold, fail := s.hold, s.fail
		s.mu.Unlock()
		if hold != nil {
			select {
			case <-hold:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if fail != nil {
			return nil, fail
		}
	}
	return s.Store.Get(ctx, table, pk, rk, o)
}

func (s *heldStore) setHold(ch chan struct{}) {
	s.mu.Lock()
	s.hold = ch
	s.mu.Unlock()
}

// TestCacheRefreshAhead: a read past half the refresh interval uses the
// cache and checks the version in the background, so that under a steady
// load no statement waits for the check (refresh.go); the bound is kept: a
// read past the whole interval never uses the cache, however the
// background check fares.
func TestCacheRefreshAhead(t *testing.T) {
	ctx := context.Background()
	hs := &heldStore{Store: newStore(t)}
	var now atomic.Int64
	now.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	const iv = 250 * time.Millisecond
	a := open(t, hs, Options{Now: clock})
	b := open(t, hs, Options{Now: clock})
	if err := a.CreateDatabase(ctx, "db"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.CreateTable(ctx, "db", simpleDef("t1")); err != nil {
		t.Fatal(err)
	}
	// waitChecked waits for b's background check to finish.
	waitIdle := func() {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); b.ahead.Load(); {
			if time.Now().After(deadline) {
				t.Fatal("the background check did not finish")
			}
			time.Sleep(time.Millisecond)
		}
	}
	// readWithin returns b's read of db.t1, failing if it does not
	// return within d (it waited for a held check).
	readWithin := func(d time.Duration) error {
		t.Helper()
		done := make(chan error, 1)
		go func() {
			_, err := b.Table(ctx, "db", "t1")
			done <- err
		}()
		select {
		case err := <-done:
			return err
		case <-time.After(d):
			t.Fatalf("the read waited for the version check")
			return nil
		}
	}

	// Below half the interval: the cache, no check.
	now.Add(int64(iv/2 - time.Millisecond))
	before := hs.checks.Load()
	for range 50 {
		if _, err := b.Table(ctx, "db", "t1"); !errors.Is(err, ErrNoDatabase) {
			t.Fatalf("b's cache should not know db yet: %v", err)
		}
	}
	if n := hs.checks.Load() - before; n != 0 {
		t.Fatalf("reads below half the interval sent %d checks", n)
	}

	// Past half the interval, with the check held: the reads return from
	// the cache at once (stale but within the bound), and start one
	// background check between them.
	hold := make(chan struct{})
	hs.setHold(hold)
	now.Add(int64(2 * time.Millisecond))
	before = hs.checks.Load()
	for range 50 {
		if err := readWithin(5 * time.Second); !errors.Is(err, ErrNoDatabase) {
			t.Fatalf("a read within the interval should use the cache: %v", err)
		}
	}
	for deadline := time.Now().Add(10 * time.Second); hs.checks.Load()-before != 1; {
		if time.Now().After(deadline) || hs.checks.Load()-before > 1 {
			t.Fatalf("%d background checks started, want 1", hs.checks.Load()-before)
		}
		time.Sleep(time.Millisecond)
	}
	// Past the whole interval with the background check still held: a
	// read must not use the cache; it waits for a check.
	now.Add(int64(iv))
	done := make(chan error, 1)
	go func() {
		_, err := b.Table(ctx, "db", "t1")
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("a read past the interval returned without a version check: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	hs.setHold(nil)
	close(hold)
	if err := <-done; err != nil {
		t.Fatalf("after the check: %v", err)
	}
	waitIdle()

	// The background check renews the cache: another gateway's change is
	// seen by reads past half the interval without any read waiting, and
	// the cache never expires under the steady reads.
	if _, err := a.CreateTable(ctx, "db", simpleDef("t2")); err != nil {
		t.Fatal(err)
	}
	inline := 0
	for step := 0; step < 40; step++ {
		now.Add(int64(iv / 5))
		b.mu.Lock()
		expired := clock().Sub(b.checkedAt) >= iv
		b.mu.Unlock()
		if expired {
			inline++
		}
		if err := readWithin(5 * time.Second); err != nil {
			t.Fatal(err)
		}
		waitIdle()
	}
	if inline != 0 {
		t.Fatalf("%d reads found the cache expired under a steady load", inline)
	}
	if _, err := b.Table(ctx, "db", "t2"); err != nil {
		t.Fatalf("the background check did not load another gateway's table: %v", err)
	}

	// A failing background check is not retried by every read, and the
	// read past the bound reports the failure.
	boom := errors.New("boom")
	hs.mu.Lock()
	hs.fail = boom
	hs.mu.Unlock()
	now.Add(int64(iv/2 + time.Millisecond))
	before = hs.checks.Load()
	for range 50 {
		if _, err := b.Table(ctx, "db", "t1"); err != nil {
			t.Fatal(err)
		}
		waitIdle()
	}
	if n := hs.checks.Load() - before; n != 1 {
		t.Fatalf("a failing background check was tried %d times by reads at one instant, want 1", n)
	}
	now.Add(int64(iv))
	if _, err := b.Table(ctx, "db", "t1"); !errors.Is(err, boom) {
		t.Fatalf("a read past the bound with the check failing: %v", err)
	}
}
