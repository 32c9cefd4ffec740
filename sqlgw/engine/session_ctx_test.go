package engine

import (
	"context"
	"errors"
	"testing"
	"time"
)

type ctxKey struct{}

// TestWithoutCounters: the context has none of ctx's values, is cancelled
// with ctx (and so are contexts derived from it), and costs at most one
// allocation, registering nothing on ctx: it is called per generated
// AUTO_INCREMENT value of a bulk INSERT, where a context.AfterFunc per call
// left the statement's context thousands of callbacks to run at its end.
func TestWithoutCounters(t *testing.T) {
	if c := WithoutCounters(context.Background()); c.Done() != nil {
		t.Fatal("a context that is never cancelled got a Done channel")
	}
	parent, cancel := context.WithTimeout(context.WithValue(context.Background(), ctxKey{}, 1), time.Hour)
	c := WithoutCounters(parent)
	if c.Value(ctxKey{}) != nil {
		t.Fatal("a value of the parent is visible")
	}
	if _, ok := c.Deadline(); ok {
		t.Fatal("the parent's deadline is visible")
	}
	child, stop := context.WithCancel(c)
	defer stop()
	if c.Err() != nil || child.Err() != nil {
		t.Fatal("cancelled before the parent")
	}
	if n := testing.AllocsPerRun(100, func() { _ = WithoutCounters(parent) }); n > 1 {
		t.Fatalf("WithoutCounters allocates %v times per call, want at most 1", n)
	}
	cancel()
	select {
	case <-child.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("a context derived from it was not cancelled with the parent")
	}
	if !errors.Is(c.Err(), context.Canceled) || !errors.Is(child.Err(), context.Canceled) {
		t.Fatalf("errors after cancel: %v, %v; want context.Canceled", c.Err(), child.Err())
	}
}
