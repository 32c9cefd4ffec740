package wire

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dolthub/vitess/go/mysql"
)

// TestDrainCommands: Drain waits for the commands begun before it, a
// command begun after it fails with ER_SERVER_SHUTDOWN and is not waited
// for, and commands racing Drain are either refused or finished when it
// returns true.
func TestDrainCommands(t *testing.T) {
	t.Run("idle", func(t *testing.T) {
		h := &Handler{}
		if !h.Drain(time.Millisecond) {
			t.Fatal("Drain with no command in flight = false")
		}
		if err := h.begin(); err == nil {
			t.Fatal("begin after Drain succeeded")
		} else if se, ok := err.(*mysql.SQLError); !ok || se.Num != mysql.ERServerShutdown {
			t.Fatalf("begin after Drain: %v", err)
		}
		if !h.Drain(time.Millisecond) {
			t.Fatal("second Drain = false: the refused command was counted")
		}
	})
	t.Run("inflight", func(t *testing.T) {
		h := &Handler{}
		if err := h.begin(); err != nil {
			t.Fatal(err)
		}
		if h.Drain(20 * time.Millisecond) {
			t.Fatal("Drain = true with a command in flight")
		}
		if err := h.begin(); err == nil {
			t.Fatal("begin while draining succeeded")
		}
		done := make(chan bool)
		go func() { done <- h.Drain(10 * time.Second) }()
		time.Sleep(10 * time.Millisecond)
		h.end()
		select {
		case ok := <-done:
			if !ok {
				t.Fatal("Drain = false after the last command ended")
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Drain did not return after the last command ended")
		}
	})
	t.Run("race", func(t *testing.T) {
		for range 50 {
			h := &Handler{}
			var running atomic.Int64 // begun, not ended
			var stop atomic.Bool
			var wg sync.WaitGroup
			for range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for !stop.Load() {
						if h.begin() != nil {
							continue
						}
						running.Add(1)
						running.Add(-1)
						h.end()
					}
				}()
			}
			time.Sleep(200 * time.Microsecond)
			if !h.Drain(5 * time.Second) {
				t.Fatal("Drain = false")
			}
			if n := running.Load(); n != 0 {
				t.Fatalf("%d commands still running when Drain returned", n)
			}
			stop.Store(true)
			wg.Wait()
			if got := h.cmds.Load(); got != cmdsDraining {
				t.Fatalf("cmds = %#x after every command ended", got)
			}
		}
	})
}
