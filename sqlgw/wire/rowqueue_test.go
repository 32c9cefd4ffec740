package wire

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/sqlgw/mysqlerr"
)

var rowA, rowB = mysqlerr.ConflictKey{Table: "t", PartitionKey: "p", RowKey: "a"},
	mysqlerr.ConflictKey{Table: "t", PartitionKey: "p", RowKey: "b"}

// eventually waits until cond holds (failing after a generous bound: the
// conditions are set by goroutines that only need to be scheduled).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
	}
}

func waiting(q *rowQueues, key mysqlerr.ConflictKey, n int) func() bool {
	return func() bool { _, w := q.state(key); return w == n }
}

// TestRowQueueFIFO: statements get a row's turn in the order they asked
// for it, one at a time, and the queue goes when nobody holds or waits.
func TestRowQueueFIFO(t *testing.T) {
	var q rowQueues
	release, waited, err := q.acquire(context.Background(), rowA, "")
	if err != nil || waited {
		t.Fatalf("first acquire: waited %v, %v", waited, err)
	}
	// Another row's turn is independent.
	relB, waited, err := q.acquire(context.Background(), rowB, "")
	if err != nil || waited {
		t.Fatalf("other row: waited %v, %v", waited, err)
	}
	relB()
	const n = 8
	order := make(chan int, n)
	done := make(chan struct{})
	for i := range n {
		go func() {
			rel, waited, err := q.acquire(context.Background(), rowA, "")
			if err != nil || !waited {
				t.Errorf("waiter %d: waited %v, %v", i, waited, err)
			}
			if held, _ := q.state(rowA); !held {
				t.Errorf("waiter %d runs without the turn", i)
			}
			order <- i
			rel()
			done <- struct{}{}
		}()
		eventually(t, "the waiter is queued", waiting(&q, rowA, i+1))
	}
	release()
	for range n {
		<-done
	}
	close(order)
	want := 0
	for i := range order {
		if i != want {
			t.Fatalf("turn %d went to waiter %d", want, i)
		}
		want++
	}
	if len(q.m) != 0 {
		t.Errorf("queues left behind: %v", q.m)
	}
}

// TestRowQueueCancel: a waiter whose context ends (KILL, shutdown, the
// retry window) leaves the queue at once with the context's cause, and
// the turn still passes in order to the others.
func TestRowQueueCancel(t *testing.T) {
	var q rowQueues
	release, _, _ := q.acquire(context.Background(), rowA, "")
	killed := errors.New("killed")
	ctxB, cancelB := context.WithCancelCause(context.Background())
	got := make(chan string, 3)
	errs := make(chan error, 3)
	for i, ctx := range []context.Context{context.Background(), ctxB, context.Background()} {
		name := string(rune('a' + i))
		go func() {
			rel, _, err := q.acquire(ctx, rowA, "")
			errs <- err
			if err != nil {
				return
			}
			got <- name
			rel()
		}()
		eventually(t, "the waiter is queued", waiting(&q, rowA, i+1))
	}
	cancelB(killed)
	if err := <-errs; err != killed {
		t.Fatalf("cancelled waiter: %v, want its cause", err)
	}
	eventually(t, "the cancelled waiter left the queue", waiting(&q, rowA, 2))
	release()
	for _, want := range []string{"a", "c"} {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
		if g := <-got; g != want {
			t.Fatalf("turn went to %s, want %s", g, want)
		}
	}
	// A waiter past its deadline (the retry window) gets
	// DeadlineExceeded; the holder keeps the turn.
	release, _, _ = q.acquire(context.Background(), rowA, "")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, waited, err := q.acquire(ctx, rowA, ""); !waited || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("past the deadline: waited %v, %v", waited, err)
	}
	if held, w := q.state(rowA); !held || w != 0 {
		t.Fatalf("after the timed-out waiter: held %v, %d waiting", held, w)
	}
	release()
	if len(q.m) != 0 {
		t.Errorf("queues left behind: %v", q.m)
	}
}
