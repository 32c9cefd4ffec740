package sqlgw_test

import (
	"net"
	"sync"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage/pebble"
)

// TestGreetingsDuringStoreStall: while the store does not answer, each new
// connection waits for the accounts version check (accounts.go,
// NewConnection) at most its own 5 s timeout before the greeting, and
// falls back to the accounts loaded. The checks used to queue behind one
// another, so the k-th concurrent connection waited k x 5 s and was closed
// by connect_timeout (10 s) before it was greeted.
func TestGreetingsDuringStoreStall(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: waits out a 5 s accounts check")
	}
	store, err := pebble.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	s := sqltest.Start(t, store, sqltest.Options{Fault: true})
	addr := s.Srv.Addr().String()
	s.Fault.Stall(20 * time.Second)
	time.Sleep(1500 * time.Millisecond) // the next accounts poll is now stalled too

	const n = 4
	var wg sync.WaitGroup
	codes := make([]int, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				codes[i] = -2
				return
			}
			defer c.Close()
			// One check's timeout plus a margin for a loaded machine; well
			// under the 15 s the fourth queued check used to take.
			c.SetDeadline(time.Now().Add(9 * time.Second))
			codes[i] = readPacket(c)
		}(i)
	}
	wg.Wait()
	for i, code := range codes {
		if code != 0 {
			t.Errorf("connection %d during the stall: no greeting within 9 s (read result %d)", i, code)
		}
	}
}
