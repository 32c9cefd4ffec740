package sqltest

import (
	"database/sql"
	"fmt"
	"io"
	"log"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// QuietDriver silences the MySQL driver's log until the test ends: it
// logs every connection a kill breaks, and crash tests account for those
// errors themselves.
func QuietDriver(t testing.TB) {
	mysql.SetLogger(log.New(io.Discard, "", 0))
	t.Cleanup(func() { mysql.SetLogger(log.New(os.Stderr, "[mysql] ", log.Ldate|log.Ltime|log.Lshortfile)) })
}

// KillRounds describes a SIGKILL crash test of the real binary for
// RunKillRounds: a load runs against the gateways, one of them is killed
// with SIGKILL at a random moment, restarted on the same store, and the
// result checked; once per round. The load and the checks are the test's;
// the loop (start the load, pause, kill, wait for the load, check the
// store as the crash left it, restart, check through SQL, stop at the
// first failure) is written once here.
type KillRounds struct {
	// Rounds is the number of kills.
	Rounds int
	// Pause is how long the load runs before the kill of a round.
	Pause func(round int) time.Duration
	// Load starts the load of a round on the running gateways; killed is
	// set just before the kill (errors after it are expected on the
	// victim). It returns a function that ends the load and waits for it;
	// that function runs after the kill.
	Load func(round int, gws []*Process, killed *atomic.Bool) (wait func())
	// Crashed, if set, runs with the victim dead, before its restart (the
	// store as the crash left it).
	Crashed func(round int)
	// Restart starts a gateway again on the same store (it must be ready:
	// RunKillRounds checks with MustBeReady).
	Restart func(round int) *Process
	// Check, if set, runs after the restart, on every gateway.
	Check func(round int, gws []*Process)
}

// RunKillRounds runs k over gws (started and ready; in round r the victim
// is gws[r % len(gws)]) and returns the gateways running at the end and
// the time of the last kill (for a test that waits a lease past it). It
// stops the test (FailNow) after the first round in which t has failed,
// logging the victim's output when the load failed it.
func RunKillRounds(t testing.TB, gws []*Process, k KillRounds) ([]*Process, time.Time) {
	t.Helper()
	var lastKill time.Time
	for round := 1; round <= k.Rounds; round++ {
		victim := round % len(gws)
		var killed atomic.Bool
		wait := k.Load(round, gws, &killed)
		time.Sleep(k.Pause(round))
		killed.Store(true)
		gws[victim].Kill(t)
		lastKill = time.Now()
		wait()
		if t.Failed() {
			t.Logf("round %d: the server's output:\n%s", round, gws[victim].Out.String())
			t.FailNow()
		}
		if k.Crashed != nil {
			k.Crashed(round)
		}
		gws[victim] = k.Restart(round)
		gws[victim].MustBeReady(t, "round %d: restart failed", round)
		if k.Check != nil {
			k.Check(round, gws)
		}
		if t.Failed() {
			t.FailNow()
		}
	}
	return gws, lastKill
}

// Writers starts n goroutines, the load of a kill round: each gets a pool
// of its own holding one connection to database db on p (so that a
// connection the kill breaks is that writer's alone) and runs f with it
// until f returns. It returns the function that waits for them all (what a
// KillRounds Load returns).
func (p *Process) Writers(t testing.TB, n int, db string, f func(i int, db *sql.DB)) (wait func()) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pool, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/%s", p.Addr, db))
			if err != nil {
				t.Errorf("writer %d: %v", i, err)
				return
			}
			defer pool.Close()
			pool.SetMaxOpenConns(1)
			f(i, pool)
		}()
	}
	return wg.Wait
}
