package ordered

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// The error reported is the lowest position's, whatever the order the
// failures arrive in.
func TestOrderedLowestPosition(t *testing.T) {
	g := NewGroup(4)
	for i := 0; i < 8; i++ {
		g.Go(i, func() error {
			time.Sleep(time.Duration(8-i) * time.Millisecond) // the later positions fail first
			if i%3 == 1 {
				return fmt.Errorf("e%d", i)
			}
			return nil
		})
	}
	if err := g.Wait(); err == nil || err.Error() != "e1" {
		t.Fatalf("Wait: %v, want e1", err)
	}
}

// No failure: nil; an error recorded with Fail competes by position.
func TestOrderedFail(t *testing.T) {
	g := NewGroup(2)
	g.Go(0, func() error { return nil })
	if err := g.Wait(); err != nil {
		t.Fatalf("Wait: %v", err)
	}
	pre := errors.New("pre")
	g.Fail(5, pre)
	g.Fail(7, errors.New("later"))
	if err := g.Err(); err != pre {
		t.Fatalf("Err: %v, want pre", err)
	}
	g.Go(3, func() error { return errors.New("three") })
	if err := g.Wait(); err == nil || err.Error() != "three" {
		t.Fatalf("Wait: %v, want three", err)
	}
}

// At most limit functions run at a time.
func TestOrderedLimit(t *testing.T) {
	var running, peak atomic.Int32
	g := NewGroup(3)
	for i := 0; i < 20; i++ {
		g.Go(i, func() error {
			n := running.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			time.Sleep(time.Millisecond)
			running.Add(-1)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	if p := peak.Load(); p > 3 || p < 1 {
		t.Fatalf("peak %d running, limit 3", p)
	}
}
