package sqlgw_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage/pebble"
)

// queryAll runs q on c (server-side prepared when it has args), reads
// every row and returns the error, and how long it took.
func queryAll(c *sql.Conn, q string, args ...any) (time.Duration, error) {
	start := time.Now()
	rows, err := c.QueryContext(context.Background(), q, args...)
	if err != nil {
		return time.Since(start), err
	}
	for rows.Next() {
	}
	err = rows.Err()
	rows.Close()
	return time.Since(start), err
}

// expectTimeout runs q and fails unless it fails with 3024 HY000 within
// about a second.
func expectTimeout(t *testing.T, c *sql.Conn, q string, args ...any) {
	t.Helper()
	took, err := queryAll(c, q, args...)
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 3024 || string(me.SQLState[:]) != "HY000" ||
		me.Message != "Query execution was interrupted, maximum statement execution time exceeded" {
		t.Fatalf("%s: %v, want 3024 (HY000) Query execution was interrupted, maximum statement execution time exceeded", q, err)
	}
	if took > 900*time.Millisecond {
		t.Errorf("%s: failed after %v, want about its limit", q, took)
	}
}

func expectOK(t *testing.T, c *sql.Conn, q string, args ...any) {
	t.Helper()
	if _, err := queryAll(c, q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// TestMaxExecutionTime: max_execution_time and the MAX_EXECUTION_TIME(N)
// hint stop a top-level SELECT with 3024 (they were ignored), text and
// prepared, on go-mysql-server's path and the plan cache's direct paths;
// other statements are not limited; the session goes on.
func TestMaxExecutionTime(t *testing.T) {
	inner, err := pebble.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	st := &blockingGets{Store: inner, waiting: make(chan struct{}, 1)}
	ts := sqltest.Start(t, st, sqltest.Options{})
	a, b := ts.Session("met"), ts.Conn()
	ra := sqltest.NewRunner(t, a)
	ra.Exec("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20))")
	ra.Exec("CREATE TABLE t2 (id INT PRIMARY KEY, s INT)")
	ra.Exec("INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three')")

	// No limit (the default, 0): a slow SELECT completes.
	if got := ra.Rows("SELECT @@max_execution_time"); len(got) != 1 || got[0] != "0" {
		t.Fatalf("@@max_execution_time: %q", got)
	}
	expectOK(t, a, "SELECT SLEEP(0.3)")

	ra.Exec("SET max_execution_time = 100")
	if got := ra.Rows("SELECT @@session.max_execution_time"); len(got) != 1 || got[0] != "100" {
		t.Fatalf("@@session.max_execution_time: %q", got)
	}
	expectTimeout(t, a, "SELECT SLEEP(1)")
	expectTimeout(t, a, "  /* c */ (SELECT SLEEP(1) FROM t WHERE id = 1) UNION ALL (SELECT 2)")
	expectTimeout(t, a, "SELECT SLEEP(?)", 1) // prepared
	expectTimeout(t, a, "WITH c AS (SELECT 1 AS n) SELECT SLEEP(n) FROM c")
	// The session's next statement runs.
	if got := ra.Rows("SELECT v FROM t WHERE id = 2"); len(got) != 1 || got[0] != "two" {
		t.Fatalf("after the timeout: %q", got)
	}
	// In a transaction the timed-out SELECT ends alone: the
	// transaction's writes stay and commit.
	ra.Exec("BEGIN")
	ra.Exec("INSERT INTO t2 VALUES (5, 5)")
	expectTimeout(t, a, "SELECT SLEEP(1)")
	ra.Exec("INSERT INTO t2 VALUES (6, 6)")
	ra.Exec("COMMIT")
	if got := strings.Join(sqltest.NewRunner(t, b).Rows("SELECT id FROM met.t2 ORDER BY id"), " "); got != "5 6" {
		t.Fatalf("the transaction around the timeout committed %q, want 5 6", got)
	}
	ra.Exec("DELETE FROM t2")
	// Not limited: INSERT ... SELECT, UPDATE, DELETE, SET, SHOW.
	ra.Exec("INSERT INTO t2 SELECT id, SLEEP(0.3) FROM t WHERE id = 1")
	ra.Exec("UPDATE t SET v = 'uno' WHERE id = 1 AND SLEEP(0.3) = 0")
	ra.Exec("DELETE FROM t2 WHERE id = 1 AND SLEEP(0.3) = 0")
	ra.Exec("CREATE TABLE t3 AS SELECT id, SLEEP(0.3) AS s FROM t WHERE id = 1")
	ra.Exec("SET @x = SLEEP(0.3)")
	expectOK(t, a, "SHOW PROCESSLIST")
	expectOK(t, a, "SHOW SESSION STATUS LIKE 'Plan_cache_direct'")
	if got := ra.Rows("SELECT v FROM t WHERE id = 1"); len(got) != 1 || got[0] != "uno" {
		t.Fatalf("the UPDATE: %q", got)
	}

	// The hint overrides the variable; MAX_EXECUTION_TIME(0) leaves it.
	expectOK(t, a, "SELECT /*+ MAX_EXECUTION_TIME(5000) */ SLEEP(0.3)")
	expectTimeout(t, a, "SELECT /*+ MAX_EXECUTION_TIME(0) */ SLEEP(1)")
	ra.Exec("SET SESSION max_execution_time = DEFAULT")
	expectOK(t, a, "SELECT SLEEP(0.3)")
	expectTimeout(t, a, "select /*+ BKA(t) max_execution_time( 100 ) */ SLEEP(1)")
	expectTimeout(t, a, "SELECT /*+ MAX_EXECUTION_TIME(100) */ SLEEP(?)", 1)
	// Only after the first SELECT: elsewhere it is not this hint.
	expectOK(t, a, "SELECT SLEEP(0.3) FROM (SELECT /*+ MAX_EXECUTION_TIME(100) */ 1) d")
	ra.Exec("INSERT /*+ MAX_EXECUTION_TIME(100) */ INTO t2 SELECT 9, SLEEP(0.3)")

	// The plan cache's direct paths (engine.FastLane): a point read whose
	// store Get blocks until its context ends.
	point := "SELECT v FROM t WHERE id = ?"
	execRows(t, a, point, 2)
	execRows(t, a, point, 2)
	text := "SELECT v FROM t WHERE id = 3"
	execRows(t, a, text)
	execRows(t, a, text)
	d0 := directRuns(t, a)
	ra.Exec("SET @@max_execution_time = 100")
	st.block.Store(true)
	expectTimeout(t, a, point, 2)
	expectTimeout(t, a, text)
	st.block.Store(false)
	if d := directRuns(t, a) - d0; d < 1 {
		t.Errorf("no execute ran directly (%d)", d)
	}
	if got := execRows(t, a, point, 2); got != "two" {
		t.Errorf("after the timeouts: %q", got)
	}
	if got := execRows(t, a, text); got != "three" {
		t.Errorf("after the timeouts: %q", got)
	}
	ra.Exec("SET max_execution_time = 0")

	// Another session is not limited by this one's value; SET GLOBAL
	// reaches the sessions made after it.
	rb := sqltest.NewRunner(t, b)
	ra.Exec("SET max_execution_time = 100")
	expectOK(t, b, "SELECT SLEEP(0.3)")
	rb.Exec("SET GLOBAL max_execution_time = 100")
	t.Cleanup(func() { sqltest.NewRunner(t, ts.Conn()).Exec("SET GLOBAL max_execution_time = 0") })
	expectOK(t, b, "SELECT SLEEP(0.3)")
	c := ts.Conn()
	expectTimeout(t, c, "SELECT SLEEP(1)")
	if got := strings.Join(sqltest.NewRunner(t, c).Rows("SELECT 7"), ""); got != "7" {
		t.Errorf("after the timeout: %q", got)
	}
	rb.Exec("SET GLOBAL max_execution_time = 0")
}
