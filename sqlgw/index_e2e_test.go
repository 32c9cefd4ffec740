package sqlgw_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/catalog/ixmaint"
	"github.com/sqlgw/sqlgw/sqlgw"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage"
)

// TestSecondaryIndexes: DDL, SHOW INDEX, EXPLAIN, unique enforcement,
// request counts of index lookups, and results equal to an unindexed copy.
func TestSecondaryIndexes(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := sqltest.NewRunner(t, ts.Session("d", `
			CREATE TABLE u (id INT PRIMARY KEY, email VARCHAR(40), city VARCHAR(20), age INT, name VARCHAR(20), UNIQUE KEY by_email (email))
			CREATE INDEX by_city ON u (city, age) COMMENT 'sqlgw: global, cover=(name)'
			CREATE TABLE o (cust INT, id INT, status VARCHAR(10), total INT, PRIMARY KEY (cust, id), KEY by_status (cust, status))`))
		for i := range 30 {
			c.Exec(fmt.Sprintf("INSERT INTO u VALUES (%d, 'u%d@x', '%s', %d, 'n%d')", i, i, []string{"Paris", "Rome", "Oslo"}[i%3], 20+i%7, i))
			c.Exec(fmt.Sprintf("INSERT INTO o VALUES (%d, %d, '%s', %d)", i%2, i, []string{"open", "paid", "sent"}[i%3], i*10))
		}
		// SHOW INDEX lists them with their kind.
		got := strings.Join(c.Rows("SELECT index_name, non_unique, column_name, index_comment FROM information_schema.statistics WHERE table_schema = 'd' AND table_name = 'u' ORDER BY index_name, seq_in_index"), "\n")
		for _, want := range []string{"by_city\t1\tcity\tsqlgw: global, cover=(name)", "by_city\t1\tage", "by_email\t0\temail\tsqlgw: global"} {
			if !strings.Contains(got, want) {
				t.Errorf("statistics lack %q:\n%s", want, got)
			}
		}
		if r := c.Rows("SHOW INDEX FROM o"); len(r) < 3 {
			t.Errorf("SHOW INDEX FROM o: %q", r)
		}
		// EXPLAIN shows the index paths.
		plan := strings.Join(c.Rows("EXPLAIN SELECT * FROM u WHERE email = 'u5@x'"), "\n")
		if !strings.Contains(plan, "IndexLookup") || !strings.Contains(plan, "by_email") {
			t.Errorf("EXPLAIN unique lookup:\n%s", plan)
		}
		plan = strings.Join(c.Rows("EXPLAIN SELECT * FROM o WHERE cust = 1 AND status = 'open'"), "\n")
		if !strings.Contains(plan, "by_status") {
			t.Errorf("EXPLAIN local lookup:\n%s", plan)
		}
		// Results.
		c.ExpectRows("SELECT id, name FROM u WHERE email = 'u5@x'", "5\tn5")
		c.ExpectRows("SELECT id FROM u WHERE city = 'Rome' AND age = 21 ORDER BY id", "1", "22")
		c.ExpectRows("SELECT id FROM o WHERE cust = 1 AND status = 'paid' ORDER BY id", "1", "7", "13", "19", "25")
		// Request counts: unique global lookup 2, covering 1; local lookup
		// 1 range + one Get per row.
		c.ExpectRequests(2, "SELECT * FROM u WHERE email = 'u5@x'", "unique global lookup")
		c.ExpectRequests(1, "SELECT id, email FROM u WHERE email = 'u5@x'", "covering unique global lookup")
		if r, _ := c.Cost("SELECT * FROM o WHERE cust = 1 AND status = 'paid'"); r != 1+5 {
			t.Errorf("local lookup of 5 rows: %d requests, want 6", r)
		}
		// Unique enforcement: 1062 and no trace.
		c.Script(`
			error 1062 INSERT INTO u VALUES (100, 'u5@x', 'Oslo', 1, 'dup')
			error 1062 UPDATE u SET email = 'u6@x' WHERE id = 7
			query SELECT id FROM u WHERE email = 'u6@x'
			= 6
			query SELECT COUNT(*) FROM u WHERE id = 100
			= 0
			# NULLs are not duplicates.
			exec INSERT INTO u VALUES (101, NULL, 'Oslo', 1, 'a'), (102, NULL, 'Oslo', 1, 'b')
			# Updates and deletes keep the index right.
			exec UPDATE u SET email = 'new@x', city = 'Oslo' WHERE id = 5
			query SELECT id FROM u WHERE email = 'u5@x'
			query SELECT id, city FROM u WHERE email = 'new@x'
			= 5 | Oslo
			exec DELETE FROM u WHERE id = 6
			query SELECT id FROM u WHERE email = 'u6@x'
			exec INSERT INTO u VALUES (6, 'u6@x', 'Rome', 3, 'again')
			query SELECT name FROM u WHERE email = 'u6@x'
			= again
			# DROP INDEX.
			exec DROP INDEX by_city ON u
			query SELECT id FROM u WHERE city = 'Rome' AND age = 21 ORDER BY id
			= 1
			= 22
			exec ALTER TABLE u ADD INDEX by_age (age)
			query SELECT COUNT(*) FROM u WHERE age = 21
			= 5
		`)
	})
}

// TestIndexOnlineBuild creates an index on a populated table while another
// session writes.
func TestIndexOnlineBuild(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := sqltest.NewRunner(t, ts.Session("d",
			"CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT)"))
		c.InsertRows("t", 300, 300, func(i int) string { return fmt.Sprintf("(%d, %d, %d)", i, i%10, i) })
		w := ts.Conn()
		sqltest.NewRunner(t, w).Exec("USE d")
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				w.ExecContext(context.Background(), fmt.Sprintf("UPDATE t SET a = %d WHERE id = %d", i%10, i%300))
			}
		}()
		c.Exec("CREATE INDEX ia ON t (a)")
		close(stop)
		wg.Wait()
		for v := range 10 {
			q := fmt.Sprintf("SELECT id FROM t WHERE a = %d ORDER BY id", v)
			got := c.Rows(q)
			want := c.Rows(fmt.Sprintf("SELECT id FROM t WHERE a + 0 = %d ORDER BY id", v))
			if !slices.Equal(got, want) {
				t.Fatalf("%s: %v, want %v", q, got, want)
			}
		}
		c.ExpectErrno(1062, "CREATE UNIQUE INDEX ua ON t (a)")
		for _, r := range c.Rows("SHOW INDEX FROM t") {
			if strings.Contains(r, "\tua\t") {
				t.Errorf("failed unique index left: %q", r)
			}
		}
	})
}

// TestIndexRandomized runs the same random workload on a table with
// indexes and one without, comparing every query.
func TestIndexRandomized(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Session("d",
			"CREATE TABLE x (p INT, id INT, a INT, b VARCHAR(10), c INT, PRIMARY KEY (p, id), KEY la (p, a), KEY ga (a) COMMENT 'sqlgw: cover=(c)', UNIQUE KEY ub (b))",
			"CREATE TABLE y (p INT, id INT, a INT, b VARCHAR(10), c INT, PRIMARY KEY (p, id))")
		r := rand.New(rand.NewPCG(3, 3))
		val := func(n int) string {
			if r.IntN(5) == 0 {
				return "NULL"
			}
			return fmt.Sprint(r.IntN(n))
		}
		str := func() string {
			if r.IntN(4) == 0 {
				return "NULL"
			}
			return fmt.Sprintf("'s%d'", r.IntN(60))
		}
		for step := range 300 {
			var q string
			switch op := r.IntN(10); {
			case op < 5:
				q = fmt.Sprintf("INSERT INTO %%s VALUES (%d, %d, %s, %s, %s)", r.IntN(3), step, val(8), str(), val(100))
			case op < 8:
				q = fmt.Sprintf("UPDATE %%s SET a = %s, b = %s, c = %s WHERE id = %d", val(8), str(), val(100), r.IntN(step+1))
			default:
				q = fmt.Sprintf("DELETE FROM %%s WHERE id = %d", r.IntN(step+1))
			}
			_, errX := c.ExecContext(context.Background(), fmt.Sprintf(q, "x"))
			if sqltest.Errno(errX) == 1062 {
				continue // the unique index refuses it; y has none
			}
			if errX != nil {
				t.Fatalf("%s: %v", fmt.Sprintf(q, "x"), errX)
			}
			sqltest.NewRunner(t, c).Exec(fmt.Sprintf(q, "y"))
			if step%10 == 0 {
				for _, w := range []string{"a = 3", "a = 5 AND p = 1", "b = 's7'", "a > 4", "a IS NULL", "p = 2 AND a < 3", "b IN ('s1','s2','s3')"} {
					for _, sel := range []string{"*", "id, c", "COUNT(*)"} {
						qx := fmt.Sprintf("SELECT %s FROM x WHERE %s ORDER BY 1, 2", sel, w)
						qy := fmt.Sprintf("SELECT %s FROM y WHERE %s ORDER BY 1, 2", sel, w)
						if sel == "COUNT(*)" {
							qx, qy = qx[:strings.Index(qx, " ORDER")], qy[:strings.Index(qy, " ORDER")]
						}
						if gx, gy := sqltest.NewRunner(t, c).Rows(qx), sqltest.NewRunner(t, c).Rows(qy); !slices.Equal(gx, gy) {
							t.Fatalf("step %d: %s: %v, want %v", step, qx, gx, gy)
						}
					}
				}
			}
		}
	})
}

// TestConcurrentUniqueInsertsE2E: concurrent inserts of one unique value
// leave exactly one row.
func TestConcurrentUniqueInsertsE2E(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := sqltest.NewRunner(t, ts.Session("d",
			"CREATE TABLE t (id INT PRIMARY KEY, e VARCHAR(20), UNIQUE KEY ue (e))"))
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ts.DB.ExecContext(context.Background(), fmt.Sprintf("INSERT INTO d.t VALUES (%d, 'same')", i))
			}()
		}
		wg.Wait()
		c.ExpectRows("SELECT COUNT(*) FROM t", "1")
		c.ExpectRows("SELECT COUNT(*) FROM t WHERE e = 'same'", "1")
	})
}

// TestIndexCrashRecovery crashes the store under a server at every request
// of indexed INSERT, UPDATE (indexed value changing or not) and DELETE
// statements, then: a new server on the same data answers every indexed
// query exactly as a scan does (before any recovery), and after recovery
// every index equals what the rows imply (ixmaint.Check).
func TestIndexCrashRecovery(t *testing.T) {
	stmts := []string{
		"INSERT INTO t VALUES (9, 1, 30, 'z', 5)",
		"UPDATE t SET a = 40, b = 'w' WHERE id = 1",
		"UPDATE t SET c = 77 WHERE id = 2",
		"DELETE FROM t WHERE id = 3",
		"INSERT INTO t VALUES (10, 0, 10, 'x', 1)", // unique violation
		// Several partitions: the rows and their global index entities
		// in one transaction record (the fault store has no atomic batch
		// across partitions, as the Table service).
		"INSERT INTO t VALUES (11, 0, 50, 'v', 6), (12, 1, 10, 'u', 7)",
		"UPDATE t SET a = a + 5, b = CONCAT(b, '2') WHERE id IN (1, 2)",
		"DELETE FROM t WHERE id IN (1, 2)",
	}
	if !sqltest.IsLong() {
		// A plain go test crashes the transaction record's path only
		// (make unittest runs every statement: about 3 minutes).
		stmts = stmts[5:6]
	}
	for _, stmt := range stmts {
		sqltest.CrashAtEveryRequest(t, sqltest.Crash{
			Name: stmt,
			Setup: func(r *sqltest.Runner, _ storage.Store) {
				r.ExecAll("CREATE DATABASE d", "USE d",
					"CREATE TABLE t (id INT PRIMARY KEY, p INT, a INT, b VARCHAR(10), c INT, KEY ga (a) COMMENT 'sqlgw: cover=(c)', UNIQUE KEY ub (b))",
					"INSERT INTO t VALUES (1, 0, 10, 'x', 1), (2, 1, 10, 'y', 2), (3, 1, 20, NULL, 3), (4, 0, NULL, NULL, 4)")
			},
			Op: func(r *sqltest.Runner) { r.Try(stmt) },
			// A new server on what the store holds, before recovery.
			Check: func(r *sqltest.Runner, _ storage.Store, p sqltest.CrashPoint) {
				r.Exec("USE d")
				for _, w := range []string{"a = 10", "a = 15", "a = 20", "a = 30", "a = 40", "a = 50", "b = 'x'", "b = 'y'", "b = 'z'", "b = 'w'", "b = 'v'", "b = 'u'", "b = 'x2'", "b = 'y2'"} {
					for _, sel := range []string{"*", "id, a, c"} {
						got := r.Rows(fmt.Sprintf("SELECT %s FROM t WHERE %s ORDER BY id", sel, w))
						want := r.Rows(fmt.Sprintf("SELECT %s FROM t WHERE CONCAT(%s) ORDER BY id", sel, w)) // opaque: a scan
						if !slices.Equal(got, want) {
							t.Errorf("%s %s: WHERE %s: %v, want %v", stmt, p, w, got, want)
						}
					}
				}
			},
			After: func(store storage.Store, p sqltest.CrashPoint) {
				if mm, err := recoverIndexes(t, store, "d", "t"); err != nil || len(mm) > 0 {
					t.Errorf("%s %s: after recovery: %v %v", stmt, p, mm, err)
				}
			},
		})
	}
}

// TestIndexRequestCounts measures, with the session counters, the store
// requests of statements on tables with 0, 1 and 3 indexes, and of index
// lookups; the figures are in docs/benchmarks.md. On the embedded store a
// row and its global index entities are one atomic batch (sqlgw/engine/txnindex.go):
// an indexed write costs what an unindexed one does. On the Table service
// every write goes through catalog/txn's commit (its commit timestamp is
// what snapshot reads decide by: catalog/txn, "Isolation"): 2P+3 requests
// for P groups (the row's partition, and each global index entity's)
// through the record, 3 for one group (the inline path), plus the
// reads that make a group's unconditional operations conditional and the
// previous values of upserted entities (local index entities) for the
// history; the snapshot's clock read is counted apart
// (Snapshot_clock_reads).
func TestIndexRequestCounts(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		indexRequestCounts(t, ts)
	})
}

func indexRequestCounts(t *testing.T, ts *sqltest.Server) {
	c := sqltest.NewRunner(t, ts.Session("d"))
	tables := []struct{ name, ddl string }{
		{"none", "CREATE TABLE none (id INT PRIMARY KEY, a INT, b INT, e INT)"},
		{"g1", "CREATE TABLE g1 (id INT PRIMARY KEY, a INT, b INT, e INT, KEY ia (a))"},
		{"g3", "CREATE TABLE g3 (id INT PRIMARY KEY, a INT, b INT, e INT, KEY ia (a), KEY ib (b), KEY iab (a, b))"},
		{"l1", "CREATE TABLE l1 (id INT PRIMARY KEY, a INT, b INT, e INT, KEY ia (id, a))"},
		{"l3", "CREATE TABLE l3 (id INT PRIMARY KEY, a INT, b INT, e INT, KEY ia (id, a), KEY ib (id, b), KEY iab (id, a, b))"},
	}
	type counts struct{ ins, upd, same, del int64 }
	want := map[string]counts{
		"none": {1, 2, 2, 2}, "l1": {1, 2, 2, 2}, "l3": {1, 2, 2, 2},
		"g1": {1, 2, 2, 2}, "g3": {1, 2, 2, 2},
	}
	if !strings.Contains(t.Name(), "pebble") {
		want["none"] = counts{3, 4, 4, 4}
		want["l1"] = counts{4, 5, 4, 5}
		want["l3"] = counts{4, 5, 4, 5}
		want["g1"] = counts{7, 11, 4, 9}
		want["g3"] = counts{11, 21, 4, 15}
	}
	var sb strings.Builder
	sb.WriteString("| table | INSERT | UPDATE (indexed values change) | UPDATE (no indexed value changes) | DELETE |\n|---|---|---|---|---|\n")
	for _, tb := range tables {
		c.Exec(tb.ddl)
		c.Exec(fmt.Sprintf("INSERT INTO %s VALUES (1, 1, 1, 1)", tb.name))
		var got counts
		got.ins, _ = c.Cost(fmt.Sprintf("INSERT INTO %s VALUES (2, 5, 5, 5)", tb.name))
		got.upd, _ = c.Cost(fmt.Sprintf("UPDATE %s SET a = 6, b = 6 WHERE id = 2", tb.name))
		got.same, _ = c.Cost(fmt.Sprintf("UPDATE %s SET e = 7 WHERE id = 2", tb.name))
		got.del, _ = c.Cost(fmt.Sprintf("DELETE FROM %s WHERE id = 2", tb.name))
		if got != want[tb.name] {
			t.Errorf("%s: requests %+v, want %+v", tb.name, got, want[tb.name])
		}
		fmt.Fprintf(&sb, "| %s | %d | %d | %d | %d |\n", tb.ddl[strings.Index(tb.ddl, "("):], got.ins, got.upd, got.same, got.del)
	}
	t.Log("\n" + sb.String())
	// A multi-row INSERT over 50 partitions of the table with 3 global
	// indexes: one atomic batch on the embedded store; on the Table
	// service one transaction record whose groups are the row batches and
	// the index entities' (2P+3 requests for P groups).
	var vals []string
	for i := 100; i < 150; i++ {
		vals = append(vals, fmt.Sprintf("(%d, %d, %d, %d)", i, i%7, i%5, i))
	}
	multi, _ := c.Cost("INSERT INTO g3 VALUES " + strings.Join(vals, ", "))
	t.Logf("INSERT of 50 rows (50 partitions) into g3: %d requests", multi)
	if strings.Contains(t.Name(), "pebble") && multi != 1 {
		t.Errorf("INSERT of 50 rows into g3: %d requests, want 1", multi)
	}
	// Lookups: unique global 2 (1 covering); local 1 range + base gets.
	c.Exec("CREATE TABLE u (id INT PRIMARY KEY, e VARCHAR(20), n INT, UNIQUE KEY ue (e))")
	c.Exec("CREATE TABLE o (cust INT, id INT, s VARCHAR(5), n INT, PRIMARY KEY (cust, id), KEY ls (cust, s))")
	for i := range 20 {
		c.Exec(fmt.Sprintf("INSERT INTO u VALUES (%d, 'e%d', %d)", i, i, i))
		c.Exec(fmt.Sprintf("INSERT INTO o VALUES (%d, %d, '%s', %d)", i%2, i, []string{"a", "b"}[i/2%2], i))
	}
	for _, q := range []struct {
		sql  string
		want int64
	}{
		{"SELECT * FROM u WHERE e = 'e7'", 2},
		{"SELECT id, e FROM u WHERE e = 'e7'", 1},
		{"SELECT * FROM o WHERE cust = 1 AND s = 'b'", 1 + 5},
		{"SELECT id FROM o WHERE cust = 1 AND s = 'b'", 1},
	} {
		if r, _ := c.Cost(q.sql); r != q.want {
			t.Errorf("%s: %d requests, want %d", q.sql, r, q.want)
		} else {
			t.Logf("%s: %d requests", q.sql, r)
		}
	}
}

// TestUniqueIndexUpserts: INSERT IGNORE, ON DUPLICATE KEY UPDATE and
// REPLACE act on secondary unique keys as in MySQL.
func TestUniqueIndexUpserts(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Session("d", `
			CREATE TABLE t (id INT PRIMARY KEY, e VARCHAR(20), n INT, UNIQUE KEY ue (e))
			CREATE TABLE l (p INT, id INT, e VARCHAR(20), n INT, PRIMARY KEY (p, id), UNIQUE KEY le (p, e))
			INSERT INTO t VALUES (1, 'a', 1), (2, 'b', 2)
			INSERT INTO l VALUES (1, 1, 'a', 1), (1, 2, 'b', 2)`)
		r := sqltest.NewRunner(t, c)
		for _, tb := range []string{"t", "l"} {
			vals := func(id int, e string, n int) string {
				if tb == "l" {
					return fmt.Sprintf("(1, %d, '%s', %d)", id, e, n)
				}
				return fmt.Sprintf("(%d, '%s', %d)", id, e, n)
			}
			if n := r.Affected("INSERT IGNORE INTO " + tb + " VALUES " + vals(3, "a", 3)); n != 0 {
				t.Errorf("%s: INSERT IGNORE of a duplicate e: %d rows", tb, n)
			}
			r.Exec("INSERT INTO " + tb + " VALUES " + vals(4, "b", 4) + " ON DUPLICATE KEY UPDATE n = n + 10")
			r.ExpectRows("SELECT id, e, n FROM "+tb+" ORDER BY id", "1\ta\t1", "2\tb\t12")
			r.Exec("REPLACE INTO " + tb + " VALUES " + vals(5, "a", 5))
			r.ExpectRows("SELECT id, e, n FROM "+tb+" ORDER BY id", "2\tb\t12", "5\ta\t5")
			r.ExpectRows("SELECT id FROM "+tb+" WHERE e = 'a'", "5")
			c.ExecContext(context.Background(), "BEGIN")
			r.ExpectErrno(1062, "INSERT INTO "+tb+" VALUES "+vals(6, "b", 6))
			c.ExecContext(context.Background(), "ROLLBACK")
		}
	})
}

// TestIndexBuildAcrossOpenTransaction: a transaction that wrote rows
// (an update of the indexed column, a delete, an insert) before CREATE
// INDEX added the index, and commits after its backfill passed those
// rows, maintains the new index: its commit takes the table's indexes as
// they are then, not as its statements saw them (the backfill no longer
// rewrites every row, which made such a commit fail on the rows it had
// read, and never caught its inserts).
func TestIndexBuildAcrossOpenTransaction(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := sqltest.NewRunner(t, ts.Session("d",
			"CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT)"))
		c.InsertRows("t", 50, 50, func(i int) string { return fmt.Sprintf("(%d, %d, %d)", i, i%10, i) })
		w := ts.Conn()
		tx := sqltest.NewRunner(t, w)
		tx.Exec("USE d")
		tx.Exec("BEGIN")
		tx.Exec("UPDATE t SET a = 99 WHERE id = 1")
		tx.Exec("UPDATE t SET b = -3 WHERE id = 3")
		tx.Exec("DELETE FROM t WHERE id = 2")
		tx.Exec("INSERT INTO t VALUES (1000, 77, 0)")
		c.Exec("CREATE INDEX ia ON t (a)")
		tx.Exec("COMMIT")
		for _, v := range []int{99, 1, 2, 3, 77} {
			q := fmt.Sprintf("SELECT id, b FROM t FORCE INDEX (ia) WHERE a = %d ORDER BY id", v)
			got := c.Rows(q)
			want := c.Rows(fmt.Sprintf("SELECT id, b FROM t IGNORE INDEX (ia) WHERE a + 0 = %d ORDER BY id", v))
			if !slices.Equal(got, want) {
				t.Fatalf("%s: %v, want %v", q, got, want)
			}
		}
		if got := c.Rows("SELECT COUNT(*) FROM t FORCE INDEX (ia) WHERE a >= 0"); !slices.Equal(got, []string{"50"}) {
			t.Fatalf("rows through ia: %v, want 50", got)
		}
	})
}

// TestIndexBuildWaitsForCommitsInFlight: a commit that took the table's
// indexes before CREATE INDEX added one, and writes after, holds the
// backfill back until it has written (the gateway's commit drain; on an
// embedded store this gateway alone uses, the only wait), so the index
// holds its row as committed. Without the drain the backfill passes the
// row first and the commit, unaware of the index, leaves a stale entry.
func TestIndexBuildWaitsForCommitsInFlight(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := sqltest.NewRunner(t, ts.Session("d",
			"CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT)"))
		c.InsertRows("t", 50, 50, func(i int) string { return fmt.Sprintf("(%d, %d, %d)", i, i%10, i) })
		w := sqltest.NewRunner(t, ts.Conn())
		w.Exec("USE d")
		inCommit, release := make(chan struct{}), make(chan struct{})
		var once sync.Once
		restore := sqlgw.SetCommitIndexesHook(func() {
			once.Do(func() {
				close(inCommit)
				<-release
			})
		})
		defer restore()
		updated := make(chan struct{})
		go func() {
			defer close(updated)
			w.Exec("UPDATE t SET a = 99 WHERE id = 1")
		}()
		<-inCommit
		built := make(chan struct{})
		go func() {
			defer close(built)
			c.Exec("CREATE INDEX ia ON t (a)")
		}()
		select {
		case <-built:
			t.Error("CREATE INDEX finished while a commit that had not seen the index was in flight")
		case <-time.After(700 * time.Millisecond):
		}
		close(release)
		<-updated
		<-built
		for _, v := range []int{99, 1} {
			q := fmt.Sprintf("SELECT id, b FROM t FORCE INDEX (ia) WHERE a = %d ORDER BY id", v)
			got := c.Rows(q)
			want := c.Rows(fmt.Sprintf("SELECT id, b FROM t IGNORE INDEX (ia) WHERE a + 0 = %d ORDER BY id", v))
			if !slices.Equal(got, want) {
				t.Fatalf("%s: %v, want %v", q, got, want)
			}
		}
	})
}

// quietBackends are the stores the server opens (pebble OneUser: the
// gateway's alone), where the backfill writes pages no commit overlapped
// without checks (catalog/ixmaint backfillQuiet, sqlgw/engine
// commitgate.go).
var quietBackends = []sqltest.Backend{sqltest.MemoryOneUser, sqltest.DiskOneUser}

// TestIndexBuildQuietPageCommitBetween: a commit that runs whole between
// a backfill page's read and its write (an update of the indexed value,
// then a delete) makes the page fall back to its checked write (the
// commit gate's count moved), so the index holds the rows as committed.
// With a gate whose hold ignored the count, the page would write the
// rows as read: a stale entry for the updated row and one for the
// deleted row.
func TestIndexBuildQuietPageCommitBetween(t *testing.T) {
	for _, b := range quietBackends {
		t.Run(b.Name, func(t *testing.T) {
			ts := sqltest.StartBackend(t, b, sqltest.Options{})
			c := sqltest.NewRunner(t, ts.Session("d",
				"CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT)"))
			c.InsertRows("t", 50, 50, func(i int) string { return fmt.Sprintf("(%d, %d, %d)", i, i%10, i) })
			w := sqltest.NewRunner(t, ts.Conn())
			w.Exec("USE d")
			var mu sync.Mutex
			stages := map[string]int{}
			defer ixmaint.SetBackfillQuietHook(func(stage string) {
				mu.Lock()
				stages[stage]++
				first := stage == "read" && stages[stage] == 1
				mu.Unlock()
				if first {
					w.Exec("UPDATE t SET a = 99 WHERE id = 1")
					w.Exec("DELETE FROM t WHERE id = 2")
				}
			})()
			c.Exec("CREATE INDEX ia ON t (a)")
			mu.Lock()
			read, held := stages["read"], stages["held"]
			mu.Unlock()
			if read == 0 {
				t.Fatal("no quiet page: the test does not exercise it")
			}
			if held != 0 {
				t.Fatalf("%d pages held the writers after a commit ran between their read and write", held)
			}
			checkIndexA(t, c, 49, 99, 1, 2)
		})
	}
}

// TestIndexBuildQuietPageHoldsCommits: a commit that starts while a
// backfill page is written unchecked waits for that write (the commit
// gate's hold), then maintains the entity the page wrote. Were it not
// held back, it would commit (and finish) before the page's write, which
// would then put back the entry of the row as read.
func TestIndexBuildQuietPageHoldsCommits(t *testing.T) {
	for _, b := range quietBackends {
		t.Run(b.Name, func(t *testing.T) {
			ts := sqltest.StartBackend(t, b, sqltest.Options{})
			c := sqltest.NewRunner(t, ts.Session("d",
				"CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT)"))
			c.InsertRows("t", 50, 50, func(i int) string { return fmt.Sprintf("(%d, %d, %d)", i, i%10, i) })
			w := sqltest.NewRunner(t, ts.Conn())
			w.Exec("USE d")
			var once sync.Once
			updated := make(chan struct{})
			var held atomic.Bool
			defer ixmaint.SetBackfillQuietHook(func(stage string) {
				if stage != "held" {
					return
				}
				once.Do(func() {
					held.Store(true)
					go func() {
						defer close(updated)
						w.Exec("UPDATE t SET a = 99 WHERE id = 1")
					}()
					select {
					case <-updated:
						t.Error("a commit ran while a backfill page was written unchecked")
					case <-time.After(300 * time.Millisecond):
					}
				})
			})()
			c.Exec("CREATE INDEX ia ON t (a)")
			if !held.Load() {
				t.Fatal("no quiet page: the test does not exercise it")
			}
			<-updated
			checkIndexA(t, c, 50, 99, 1)
		})
	}
}

// checkIndexA requires index ia of d.t to return, for each value of a,
// the rows a scan returns, and n rows in all.
func checkIndexA(t *testing.T, c *sqltest.Runner, n int, values ...int) {
	t.Helper()
	// First: readers resolve the stale entries they meet.
	if got := c.Rows("CHECK TABLE t"); len(got) == 0 || !strings.HasSuffix(got[len(got)-1], "OK") {
		t.Fatalf("CHECK TABLE t: %v", got)
	}
	for _, v := range values {
		q := fmt.Sprintf("SELECT id, b FROM t FORCE INDEX (ia) WHERE a = %d ORDER BY id", v)
		got := c.Rows(q)
		want := c.Rows(fmt.Sprintf("SELECT id, b FROM t IGNORE INDEX (ia) WHERE a + 0 = %d ORDER BY id", v))
		if !slices.Equal(got, want) {
			t.Fatalf("%s: %v, want %v", q, got, want)
		}
	}
	if got := c.Rows("SELECT COUNT(*) FROM t FORCE INDEX (ia) WHERE a >= 0"); !slices.Equal(got, []string{fmt.Sprint(n)}) {
		t.Fatalf("rows through ia: %v, want %d", got, n)
	}
}

// TestIndexBuildQuietUnderWriters: CREATE INDEX, CHECK TABLE and DROP
// INDEX, five times, on a store the gateway alone uses while four
// sessions write the table in bursts (inserts, updates of the indexed
// value, deletes, transactions), so that some backfill pages are read and
// written between commits, unchecked (backfillQuiet), and others fall
// back to their checks. CHECK TABLE runs before anything reads through
// the index (readers repair the stale entries they meet) and must find
// the index exactly what the rows imply.
func TestIndexBuildQuietUnderWriters(t *testing.T) {
	ts := sqltest.StartBackend(t, sqltest.MemoryOneUser, sqltest.Options{})
	r := sqltest.NewRunner(t, ts.DB)
	r.ExecAll("CREATE DATABASE qw", "CREATE TABLE qw.t (id INT PRIMARY KEY, k INT, c VARCHAR(20))")
	r.InsertRows("qw.t", 6000, 1000, func(i int) string { return fmt.Sprintf("(%d, %d, 'c%d')", i, i%50, i) })
	var mu sync.Mutex
	stages := map[string]int{}
	defer ixmaint.SetBackfillQuietHook(func(stage string) {
		mu.Lock()
		stages[stage]++
		mu.Unlock()
	})()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			conn := ts.Conn()
			rng := rand.New(rand.NewPCG(uint64(w), 17))
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				case <-time.After(time.Duration(rng.IntN(3000)) * time.Microsecond):
				}
				id := rng.IntN(6500)
				var qs []string
				switch rng.IntN(4) {
				case 0:
					qs = []string{fmt.Sprintf("INSERT INTO qw.t VALUES (%d, %d, 'n') ON DUPLICATE KEY UPDATE k = k + 1", id, rng.IntN(50))}
				case 1:
					qs = []string{fmt.Sprintf("UPDATE qw.t SET k = %d WHERE id = %d", rng.IntN(50), id)}
				case 2:
					qs = []string{fmt.Sprintf("DELETE FROM qw.t WHERE id = %d", id)}
				default:
					qs = []string{"BEGIN", fmt.Sprintf("UPDATE qw.t SET k = k + 1 WHERE id = %d", id),
						fmt.Sprintf("REPLACE INTO qw.t VALUES (%d, %d, 'r')", 7000+w*100000+i, rng.IntN(50)), "COMMIT"}
				}
				for _, q := range qs {
					if _, err := conn.ExecContext(context.Background(), q); err != nil {
						conn.ExecContext(context.Background(), "ROLLBACK")
						break // a conflict (1213) or such: the load goes on
					}
				}
			}
		}(w)
	}
	for round := 0; round < 5; round++ {
		r.Exec("CREATE INDEX k_1 ON qw.t (k)")
		if got := r.Rows("CHECK TABLE qw.t"); len(got) == 0 || !strings.HasSuffix(got[len(got)-1], "OK") {
			close(stop)
			wg.Wait()
			t.Fatalf("round %d: CHECK TABLE: %v", round, got)
		}
		r.Exec("DROP INDEX k_1 ON qw.t")
	}
	close(stop)
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	t.Logf("pages read with no commit in flight: %d, of which written unchecked: %d", stages["read"], stages["held"])
	if stages["held"] == 0 {
		t.Log("no page was written unchecked: the load left no gap (the test still checked the checked pages)")
	}
}
