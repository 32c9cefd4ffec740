package sqltest

import (
	"context"
	"fmt"
	"testing"

	"github.com/sqlgw/sqlgw/storage"
)

// CrashPoint is one run of CrashAtEveryRequest: request N of the operation
// (1-based) and every later one fail; Applied says whether request N still
// reached the store (its reply lost) or was dropped.
type CrashPoint struct {
	N       int
	Applied bool
}

func (p CrashPoint) String() string { return fmt.Sprintf("crash at %d (applied=%v)", p.N, p.Applied) }

// Crash describes a crash-recovery test for CrashAtEveryRequest.
type Crash struct {
	// Name prefixes the log line with the number of crash points.
	Name string
	// Backend makes the store of each run (default Memory); the store is
	// closed at the end of the run.
	Backend Backend
	// Options of both servers (Fault is implied for the first).
	Options Options
	// Setup prepares the data on the first server; its requests do not
	// count toward the crash point.
	Setup func(r *Runner, store storage.Store)
	// Op is the operation crashed; errors are expected and ignored (use
	// Runner.Try).
	Op func(r *Runner)
	// Check runs on a new server over what the store kept after the crash
	// (before any recovery).
	Check func(r *Runner, store storage.Store, p CrashPoint)
	// After, if set, runs on the store once the second server has stopped
	// (recovery, ixmaint.Check).
	After func(store storage.Store, p CrashPoint)
}

// CrashAtEveryRequest runs c once per crash point: for N = 1, 2, ... and
// for the request dropped and applied, a fresh store under a server with
// the fault store, Setup, the crash armed at request N, Op, the server
// stopped (as if the process died), then Check on a new server over the
// same store and After on the store. It ends after the first N at which Op
// finished without reaching the crash point (every crash point has been
// tried), or as soon as the test has failed, and returns the number of
// crash points.
func CrashAtEveryRequest(t testing.TB, c Crash) int {
	t.Helper()
	if c.Backend.Open == nil {
		c.Backend = Memory
	}
	for n := 1; ; n++ {
		done := false
		for _, applied := range []bool{false, true} {
			p := CrashPoint{N: n, Applied: applied}
			store, co := c.Backend.Open(t)
			o := c.Options
			if o.Catalog.Prefix == "" {
				o.Catalog.Prefix = co.Prefix
			}
			fo := o
			fo.Fault = true
			s := Start(t, NoClose(store), fo)
			r := s.Runner()
			if c.Setup != nil {
				c.Setup(r, store)
			}
			s.Fault.CrashAt(n, applied)
			c.Op(r)
			if !s.Fault.Crashed() {
				done = true
			}
			s.Stop()
			s2 := Start(t, NoClose(store), o)
			if c.Check != nil {
				c.Check(s2.Runner(), store, p)
			}
			s2.Stop()
			if c.After != nil {
				c.After(store, p)
			}
			store.Close()
		}
		if done || t.Failed() {
			if c.Name != "" {
				t.Logf("%s: %d crash points", c.Name, n-1)
			} else {
				t.Logf("%d crash points", n-1)
			}
			return n - 1
		}
	}
}

// Try runs a statement and returns its error, for statements that may
// fail (a crashed store, a race a test provokes).
func (r *Runner) Try(q string, args ...any) error {
	_, err := r.DB.ExecContext(context.Background(), q, args...)
	return err
}
