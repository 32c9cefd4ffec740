package sqlgw_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	gmssql "github.com/dolthub/go-mysql-server/sql"

	"github.com/sqlgw/sqlgw/sqlgw"
	"github.com/sqlgw/sqlgw/sqlgw/engine"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage"
)

// TestKilledWriteLeavesNothing: a write statement killed (KILL QUERY)
// while its rows are being written, deterministically at its n-th row (a
// hook in the table editor kills the statement's own query there),
// reports 1317 and has no effect, now and later: the rows it had buffered
// are neither committed by the session's next autocommit statement nor by
// the COMMIT of the transaction it ran in. Each shape runs on the direct
// path (bulk INSERT of literals, cached INSERT, UPDATE and DELETE) and on
// go-mysql-server's executor (NoDirect, INSERT ... SELECT).
func TestKilledWriteLeavesNothing(t *testing.T) {
	for _, noDirect := range []bool{false, true} {
		t.Run(fmt.Sprintf("nodirect=%v", noDirect), func(t *testing.T) {
			testKilledWrite(t, noDirect)
		})
	}
}

func testKilledWrite(t *testing.T, noDirect bool) {
	ts := sqltest.StartBackend(t, sqltest.Memory, sqltest.Options{Config: func(c *sqlgw.Config) { c.NoDirect = noDirect }})
	ctx := context.Background()
	a := ts.Conn()
	ra, rb := sqltest.NewRunner(t, a), sqltest.NewRunner(t, ts.Conn())
	ra.ExecAll("CREATE DATABASE kw", "USE kw",
		"CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, s INT, c VARCHAR(40), KEY ks (s))",
		"CREATE TABLE src (id INT PRIMARY KEY, s INT)")
	for i := 1; i <= 20; i++ {
		ra.Exec("INSERT INTO src VALUES (?, ?)", i, i)
	}
	var conn uint32
	if err := a.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&conn); err != nil {
		t.Fatal(err)
	}
	// killAt arms the hook: the connection's statement is killed before
	// its row n is written.
	var armed, rows atomic.Int64
	restore := engine.SetEditorRowHook(func(ctx *gmssql.Context) {
		if ctx.Session.ID() != conn || armed.Load() == 0 {
			return
		}
		if rows.Add(1) == armed.Load() {
			ctx.ProcessList.Kill(conn)
		}
	})
	defer restore()
	killAt := func(n int64) { rows.Store(0); armed.Store(n) }
	killed := func(q string, args ...any) {
		t.Helper()
		_, err := a.ExecContext(ctx, q, args...)
		armed.Store(0)
		if sqltest.Errno(err) != 1317 {
			t.Fatalf("%.60s: %v, want 1317", q, err)
		}
	}
	bulk := func(s, n int) string {
		var sb strings.Builder
		sb.WriteString("INSERT INTO t (s, c) VALUES ")
		for i := 0; i < n; i++ {
			if i > 0 {
				sb.WriteString(",")
			}
			fmt.Fprintf(&sb, "(%d, '%s')", s, strings.Repeat("k", 30))
		}
		return sb.String()
	}
	b0 := engine.BulkValuesInsertCount()

	// Autocommit: the killed statement's rows must not ride on the next
	// statement's commit.
	killAt(100)
	killed(bulk(1, 3000))
	rb.ExpectRows("SELECT COUNT(*) FROM kw.t", "0")
	ra.Exec("INSERT INTO t (s, c) VALUES (0, 'next')")
	rb.ExpectRows("SELECT COUNT(*) FROM kw.t", "1")
	if !noDirect && engine.BulkValuesInsertCount() == b0 {
		t.Error("no INSERT took the scanned bulk path")
	}
	killAt(3)
	killed("INSERT INTO t (s, c) VALUES (?, 'a'), (?, 'b'), (?, 'c'), (?, 'd')", 2, 2, 2, 2)
	ra.Exec("INSERT INTO t (s, c) VALUES (0, 'next')")
	killAt(5)
	killed("INSERT INTO t (s, c) SELECT s, 'sel' FROM src")
	ra.Exec("INSERT INTO t (s, c) VALUES (0, 'next')")
	rb.ExpectRows("SELECT COUNT(*), SUM(s) FROM kw.t", "3\t0")
	killAt(4)
	killed("UPDATE src SET s = s + 100")
	ra.Exec("INSERT INTO t (s, c) VALUES (0, 'next')")
	rb.ExpectRows("SELECT COUNT(*), SUM(s) FROM kw.src", "20\t210")
	killAt(1)
	killed("UPDATE src SET s = 0 WHERE id = ?", 7)
	killAt(1)
	killed("DELETE FROM src WHERE id = ?", 8)
	killAt(6)
	killed("DELETE FROM src WHERE id > 3")
	ra.Exec("INSERT INTO t (s, c) VALUES (0, 'next')")
	rb.ExpectRows("SELECT COUNT(*), SUM(s) FROM kw.src", "20\t210")

	// In a transaction: the killed statement is undone, the
	// transaction's other writes stay and commit.
	ra.Exec("BEGIN")
	ra.Exec("INSERT INTO t (s, c) VALUES (5, 'tx')")
	killAt(50)
	killed(bulk(5, 3000))
	killAt(2)
	killed("UPDATE src SET s = s + 100 WHERE id <= 10")
	ra.Exec("UPDATE src SET s = s + 1000 WHERE id = 1")
	ra.Exec("COMMIT")
	rb.ExpectRows("SELECT COUNT(*) FROM kw.t WHERE s = 5", "1")
	rb.ExpectRows("SELECT COUNT(*), SUM(s) FROM kw.src", "20\t1210")
	rb.ExpectRows("SELECT COUNT(*), COUNT(DISTINCT id) FROM kw.t", "6\t6")
}

// TestKilledCommitReportsSuccess: a statement killed (KILL QUERY from
// another connection) right after its commit wrote, deterministically (a
// hook after the commit's write), replies OK with its affected rows and
// insert id, and its rows are there: a reply of 1317 would have the
// client write them again. Autocommit INSERT, UPDATE and DELETE (direct
// and through go-mysql-server's executor) and an explicit COMMIT.
func TestKilledCommitReportsSuccess(t *testing.T) {
	for _, noDirect := range []bool{false, true} {
		t.Run(fmt.Sprintf("nodirect=%v", noDirect), func(t *testing.T) {
			testKilledCommit(t, noDirect)
		})
	}
}

func testKilledCommit(t *testing.T, noDirect bool) {
	ts := sqltest.StartBackend(t, sqltest.Memory, sqltest.Options{Config: func(c *sqlgw.Config) { c.NoDirect = noDirect }})
	ctx := context.Background()
	a := ts.Conn()
	ra, rb := sqltest.NewRunner(t, a), sqltest.NewRunner(t, ts.Conn())
	ra.ExecAll("CREATE DATABASE kc", "USE kc",
		"CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, s INT, c VARCHAR(40), KEY ks (s))")
	var conn uint32
	if err := a.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&conn); err != nil {
		t.Fatal(err)
	}
	var armed, kills atomic.Int64
	restore := engine.SetCommitWrittenHook(func(cctx context.Context) {
		if !armed.CompareAndSwap(1, 0) {
			return
		}
		rb.Exec(fmt.Sprintf("KILL QUERY %d", conn))
		if cctx.Err() == nil {
			t.Error("KILL QUERY did not cancel the committing statement")
		}
		kills.Add(1)
	})
	defer restore()
	ok := func(want int64, q string, args ...any) int64 {
		t.Helper()
		armed.Store(1)
		res, err := a.ExecContext(ctx, q, args...)
		if armed.Load() != 0 {
			armed.Store(0)
			t.Fatalf("%.60s: no commit wrote", q)
		}
		if err != nil {
			t.Fatalf("%.60s killed after its commit: %v, want OK", q, err)
		}
		if n, _ := res.RowsAffected(); n != want {
			t.Fatalf("%.60s: %d rows affected, want %d", q, n, want)
		}
		id, _ := res.LastInsertId()
		return id
	}
	if id := ok(3, "INSERT INTO t (s, c) VALUES (1, 'a'), (1, 'b'), (1, 'c')"); id != 1 {
		t.Errorf("insert id %d, want 1", id)
	}
	if id := ok(2, "INSERT INTO t (s, c) VALUES (?, 'd'), (?, 'e')", 2, 2); id != 4 {
		t.Errorf("insert id %d, want 4", id)
	}
	ra.ExpectRows("SELECT LAST_INSERT_ID()", "4")
	ok(1, "UPDATE t SET c = 'u' WHERE id = ?", 1)
	ok(2, "UPDATE t SET s = 3 WHERE s = 2")
	ok(1, "DELETE FROM t WHERE id = ?", 3)
	ra.Exec("BEGIN")
	ra.Exec("INSERT INTO t (s, c) VALUES (9, 'tx')")
	ra.Exec("UPDATE t SET s = 8 WHERE id = 2")
	ok(0, "COMMIT")
	if kills.Load() != 6 {
		t.Errorf("%d statements killed after their commit, want 6", kills.Load())
	}
	rb.ExpectRows("SELECT id, s, c FROM kc.t ORDER BY id", "1\t1\tu", "2\t8\tb", "4\t3\td", "5\t3\te", "6\t9\ttx")
}

// killBatchStore runs hook after the batch number at (counted from 1
// after arm) succeeded.
type killBatchStore struct {
	storage.Store
	mu      sync.Mutex
	at, n   int
	hook    func(ctx context.Context)
	batches int // batches since arm
}

func (s *killBatchStore) arm(at int, hook func(ctx context.Context)) {
	s.mu.Lock()
	s.at, s.n, s.hook, s.batches = at, 0, hook, 0
	s.mu.Unlock()
}

func (s *killBatchStore) Batch(ctx context.Context, table string, ops []storage.Operation) ([]storage.ETag, error) {
	etags, err := s.Store.Batch(ctx, table, ops)
	if err == nil {
		s.mu.Lock()
		s.batches++
		var h func(ctx context.Context)
		if s.n++; s.n == s.at {
			h = s.hook
		}
		s.mu.Unlock()
		if h != nil {
			h(ctx)
		}
	}
	return etags, err
}

// TestKilledDuringCommit: KILL QUERY after each store batch in turn of a
// commit of several batches (an UPDATE of 40 rows, a DELETE, a
// transaction's COMMIT): the statement either replies OK and every row
// changed (killed after its commit point) or fails with 1317 and no row
// changed, never an error with some of its batches applied, nor OK with
// some missing.
func TestKilledDuringCommit(t *testing.T) {
	st, co := sqltest.Memory.Open(t)
	ks := &killBatchStore{Store: st}
	ts := sqltest.Start(t, ks, sqltest.Options{Catalog: co})
	ctx := context.Background()
	a := ts.Conn()
	ra, rb := sqltest.NewRunner(t, a), sqltest.NewRunner(t, ts.Conn())
	ra.ExecAll("CREATE DATABASE kd", "USE kd", "CREATE TABLE t (id INT PRIMARY KEY, s INT)")
	var conn uint32
	if err := a.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&conn); err != nil {
		t.Fatal(err)
	}
	// run runs the statement of step (BEGIN, its writes, COMMIT for a
	// transaction) killed after batch at; done: no batch left to kill at.
	run := func(at int, stmts []string) (err error, done bool) {
		var fired atomic.Bool
		ks.arm(at, func(bctx context.Context) {
			fired.Store(true)
			rb.Exec(fmt.Sprintf("KILL QUERY %d", conn))
		})
		for i, q := range stmts {
			if i == len(stmts)-1 {
				_, err = a.ExecContext(ctx, q)
			} else {
				ra.Exec(q)
			}
		}
		ks.arm(0, nil)
		return err, !fired.Load()
	}
	steps := []struct {
		stmts        []string
		before, want string
	}{
		{[]string{"UPDATE t SET s = s + 1"}, "40\t0", "40\t40"},
		{[]string{"DELETE FROM t WHERE id > 20"}, "40\t0", "20\t0"},
		{[]string{"BEGIN", "UPDATE t SET s = 2", "INSERT INTO t VALUES (1000, 2)", "COMMIT"}, "40\t0", "41\t82"},
	}
	for _, st := range steps {
		for at := 1; ; at++ {
			ra.Exec("DELETE FROM t")
			ra.InsertRows("t", 40, 40, func(i int) string { return fmt.Sprintf("(%d, 0)", i+1) })
			rb.ExpectRows("SELECT COUNT(*), SUM(s) FROM kd.t", st.before)
			err, done := run(at, st.stmts)
			if err != nil {
				ra.Exec("ROLLBACK")
			}
			got := rb.Rows("SELECT COUNT(*), SUM(s) FROM kd.t")[0]
			switch {
			case err == nil && got == st.want:
			case err != nil && sqltest.Errno(err) == 1317 && got == st.before:
			default:
				t.Fatalf("%v killed after batch %d: %v, table %q (before %q, all done %q)", st.stmts, at, err, got, st.before, st.want)
			}
			if done {
				t.Logf("%v: killed after each of %d batches", st.stmts, at-1)
				break
			}
		}
	}
}
