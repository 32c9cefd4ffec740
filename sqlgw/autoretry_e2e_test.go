package sqlgw_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// contend runs workers x n times stmt on separate connections, without
// any client retry, and returns the errors and the statements' latencies,
// sorted.
func contend(t *testing.T, ts *sqltest.Server, workers, n int, stmt string, args ...any) (errs []error, lat []time.Duration) {
	t.Helper()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		c := ts.Conn()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < n; i++ {
				start := time.Now()
				_, err := c.ExecContext(context.Background(), stmt, args...)
				d := time.Since(start)
				mu.Lock()
				lat = append(lat, d)
				if err != nil {
					errs = append(errs, err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	slices.Sort(lat)
	return errs, lat
}

// quantile is the q-quantile of sorted latencies.
func quantile(lat []time.Duration, q float64) time.Duration {
	if len(lat) == 0 {
		return 0
	}
	return lat[int(q*float64(len(lat)-1))].Round(time.Millisecond)
}

// TestAutocommitContention: 32 connections x 200 autocommit increments
// (on Azurite 32 x 50; under SQLGW_SOAK=1 32 x 200, and on Pebble on disk
// too) of one row end at exactly 6,400 with no client retry. They used to
// lose 80% of the statements to 1213 (optimistic commit conflicts); MySQL
// never fails them (InnoDB waits for the row lock), and the server now
// runs a conflicting autocommit statement again, queued behind the others
// that conflicted on the row (autoretry.go). No statement may get the
// 1213 after the 50 s window; that is counted, not timed (the latency
// quantiles are only logged: the machine's load decides them).
func TestAutocommitContention(t *testing.T) {
	workers, n := 32, 200
	if testing.Short() {
		workers, n = 8, 50
	}
	backends := sqltest.Backends
	if os.Getenv("SQLGW_SOAK") != "" {
		backends = slices.Concat(backends, []sqltest.Backend{sqltest.Disk}) // Pebble with its log synced
	}
	for _, b := range backends {
		t.Run(b.Name, func(t *testing.T) { contention(t, sqltest.StartBackend(t, b, sqltest.Options{}), workers, n) })
	}
}

// contention is TestAutocommitContention on the server ts.
func contention(t *testing.T, ts *sqltest.Server, workers, n int) {
	if strings.Contains(t.Name(), "azurite") && os.Getenv("SQLGW_SOAK") == "" {
		n = 50 // 32 x 200 on Azurite takes minutes: make soak runs it
	}
	c := ts.Use("d")
	c.Exec("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
	c.Exec("INSERT INTO t VALUES (1, 0)")
	start := time.Now()
	errs, lat := contend(t, ts, workers, n, "UPDATE d.t SET v = v + 1 WHERE id = 1")
	st := ts.Srv.Metrics().Retries()
	t.Logf("%d x %d increments in %v (latency p50 %v, p99 %v, max %v): %d retries, %d waited in the row's queue, %d backed off, %d gave up",
		workers, n, time.Since(start).Round(time.Millisecond), quantile(lat, 0.5), quantile(lat, 0.99), quantile(lat, 1),
		st.Retries, st.Waits, st.Backoffs, st.GiveUps)
	if len(errs) > 0 {
		t.Fatalf("%d of %d statements failed, first: %v", len(errs), workers*n, errs[0])
	}
	c.ExpectRows("SELECT v FROM t WHERE id = 1", fmt.Sprint(workers*n))
	// The conflicts named their row: the statements queued on it, none ran
	// out of the retry window, and (almost) none backed off blindly: a
	// conflict without a row (a snapshot too old, say) may happen under
	// load, but not as the rule.
	if st.Retries > 0 && (st.Waits == 0 || st.Backoffs*10 > st.Waits || st.GiveUps > 0) {
		t.Errorf("retries %+v: want queue waits, few backoffs and no give-ups", st)
	}
	// Prepared statements (the driver prepares a statement with
	// arguments) are retried and queued the same way.
	if errs, _ := contend(t, ts, 8, 25, "UPDATE d.t SET v = v + ? WHERE id = ?", 1, 1); len(errs) > 0 {
		t.Fatalf("prepared: %d statements failed, first: %v", len(errs), errs[0])
	}
	c.ExpectRows("SELECT v FROM t WHERE id = 1", fmt.Sprint(workers*n+200))
	// Keyless tables are updated by the key read, and retried too.
	c.Exec("CREATE TABLE k (id INT, v INT)")
	c.Exec("INSERT INTO k VALUES (1, 0)")
	if errs, _ := contend(t, ts, 8, 25, "UPDATE d.k SET v = v + 1 WHERE id = 1"); len(errs) > 0 {
		t.Fatalf("keyless: %d statements failed, first: %v", len(errs), errs[0])
	}
	c.ExpectRows("SELECT COUNT(*), SUM(v) FROM k", "1\t200")
}

// TestExplicitTransactionConflict: a statement of an explicit transaction
// is never retried by the server: the transaction gets 1213.
func TestExplicitTransactionConflict(t *testing.T) {
	store, _ := sqltest.Memory.Open(t)
	ts := sqltest.Start(t, store, sqltest.Options{})
	a, b := ts.Conn(), ts.Conn()
	sqltest.ScriptSessions(t, map[string]*sqltest.Runner{"a": sqltest.NewRunner(t, a), "b": sqltest.NewRunner(t, b)}, `
		a: exec CREATE DATABASE d
		a: exec CREATE TABLE d.t (id INT PRIMARY KEY, v INT)
		a: exec INSERT INTO d.t VALUES (1, 0)
		a: exec BEGIN
		a: query SELECT v FROM d.t WHERE id = 1
		= 0
		a: exec UPDATE d.t SET v = v + 1 WHERE id = 1
		b: exec UPDATE d.t SET v = v + 10 WHERE id = 1
		a: error 1213 COMMIT
		a: query SELECT v FROM d.t WHERE id = 1
		= 10
		# autocommit=0: the same.
		a: exec SET autocommit = 0
		a: exec UPDATE d.t SET v = v + 1 WHERE id = 1
		b: exec UPDATE d.t SET v = v + 10 WHERE id = 1
	`)
	sqltest.NewRunner(t, a).ExpectError(1213, "Deadlock", "COMMIT")
}
