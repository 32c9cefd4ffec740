package aztables

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/aztables/azurite"
)

// Attack tests of the reviewer r9 (issue 13, eighth round) on the lean
// Get's own connections (leanconn.go) against a real Azurite: its idle
// close after 5 s, a pause (SIGSTOP) that times a Get out while its
// response is still to come, a kill mid-Get, and concurrent Gets: every
// Get answers its own key's entity or fails, never another's, never
// "not found" for a present entity, never hangs past its deadline.

func review13eAzurite(t *testing.T) (*azurite.Server, *Store, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("Azurite in -short mode")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	srv, err := azurite.Launch(ctx, &azurite.Options{Logf: t.Logf})
	if err != nil {
		if azurite.InCI() {
			t.Fatal(err)
		}
		t.Skipf("azurite: %v", err)
	}
	t.Cleanup(func() { srv.Stop() })
	s, err := Open(context.Background(), srv.ConnectionString, &Options{MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if s.lean == nil || s.lean.direct == nil {
		t.Fatal("the store does not take the direct Get")
	}
	const table = "revdirect"
	if err := s.CreateTable(context.Background(), table); err != nil {
		t.Fatal(err)
	}
	for i := range 64 {
		e := &storage.Entity{PartitionKey: fmt.Sprintf("p%02d", i), RowKey: "r", Properties: storage.Properties{"v": storage.String(fmt.Sprintf("value %d", i))}}
		if _, err := s.Insert(context.Background(), table, e); err != nil {
			t.Fatal(err)
		}
	}
	return srv, s, table
}

// review13eGet gets key i (absent for i >= 64) and checks the answer: the
// entity of key i, not found for an absent key, or an error that is not
// "not found" for a present one.
func review13eGet(ctx context.Context, s *Store, table string, i int) error {
	e, err := s.Get(ctx, table, fmt.Sprintf("p%02d", i), "r", nil)
	switch {
	case err == nil && i >= 64:
		return fmt.Errorf("%w: absent key %d answered %v", errReview13eWrong, i, e.Properties)
	case err == nil && (e.PartitionKey != fmt.Sprintf("p%02d", i) || e.Properties["v"].Str() != fmt.Sprintf("value %d", i)):
		return fmt.Errorf("%w: key %d answered %s %v", errReview13eWrong, i, e.PartitionKey, e.Properties)
	case err != nil && i < 64 && errors.Is(err, storage.ErrNotFound):
		return fmt.Errorf("%w: present key %d: %v", errReview13eWrong, i, err)
	case err != nil && i >= 64 && !errors.Is(err, storage.ErrNotFound):
		return fmt.Errorf("absent key %d: %w", i, err)
	case err != nil && i < 64:
		return fmt.Errorf("key %d: %w", i, err)
	}
	return nil
}

// errReview13eWrong marks a wrong answer (not a failure).
var errReview13eWrong = errors.New("wrong answer")

// TestReview13eDirectGetIdleAndConcurrent: Gets after pauses longer than
// Azurite's keep-alive (6 s) and between the client's idle time and it
// (4.5 s) succeed without retries; concurrent Gets of present and absent
// keys each get their own answer.
func TestReview13eDirectGetIdleAndConcurrent(t *testing.T) {
	_, s, table := review13eAzurite(t)
	ctx := context.Background()
	for i := range 70 {
		if err := review13eGet(ctx, s, table, i); err != nil {
			t.Fatal(err)
		}
	}
	if s.lean.direct.idleConns() == 0 {
		t.Fatal("no idle direct connection after the Gets")
	}
	for _, pause := range []time.Duration{6 * time.Second, 4500 * time.Millisecond} {
		time.Sleep(pause)
		for i := range 3 {
			if err := review13eGet(ctx, s, table, i*31); err != nil {
				t.Fatalf("after a pause of %v: %v", pause, err)
			}
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for g := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 9))
			for range 60 {
				if err := review13eGet(ctx, s, table, r.IntN(80)); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestReview13eDirectGetPausedAndKilled: a Get whose Azurite is paused
// (SIGSTOP) fails at its deadline; when Azurite resumes and answers the
// timed-out request, the next Gets (of other keys) get their own
// entities, not that late answer; Gets in flight when Azurite is killed
// fail (or answer correctly) within their deadline.
func TestReview13eDirectGetPausedAndKilled(t *testing.T) {
	srv, s, table := review13eAzurite(t)
	ctx := context.Background()
	for i := range 8 {
		if err := review13eGet(ctx, s, table, i); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Kill(srv.PID(), syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tctx, cancel := context.WithTimeout(ctx, time.Second)
			defer cancel()
			start := time.Now()
			_, err := s.Get(tctx, table, fmt.Sprintf("p%02d", 10+g), "r", nil)
			if err == nil {
				t.Errorf("a Get from a stopped Azurite succeeded")
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("a Get with a 1 s deadline took %v", d)
			}
		}()
	}
	wg.Wait()
	if err := syscall.Kill(srv.PID(), syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the late answers arrive
	for i := range 64 {
		if err := review13eGet(ctx, s, table, (i*7+20)%64); err != nil {
			t.Fatalf("after the pause: %v", err)
		}
	}

	// Killed while Gets are in flight.
	stop := make(chan struct{})
	errs := make(chan error, 1000)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				tctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				start := time.Now()
				err := review13eGet(tctx, s, table, (g*13+i)%70)
				cancel()
				if d := time.Since(start); d > 7*time.Second {
					errs <- fmt.Errorf("a Get with a 5 s deadline took %v", d)
				}
				if errors.Is(err, errReview13eWrong) {
					// Failing after the kill is right; a wrong answer
					// is not.
					errs <- err
				}
			}
		}()
	}
	time.Sleep(300 * time.Millisecond)
	if err := syscall.Kill(srv.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	tctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := s.Get(tctx, table, "p01", "r", nil); err == nil {
		t.Error("a Get after Azurite was killed succeeded")
	}
}
