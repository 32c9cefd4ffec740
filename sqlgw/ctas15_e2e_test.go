package sqlgw_test

import (
	"context"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// CREATE TABLE ... SELECT is atomic in MySQL 8.0: when an insert fails
// (out of range, duplicate key), the table does not exist afterwards, and
// a later CTAS of the same name starts from nothing (no rows, no index
// entries left over). CREATE TABLE IF NOT EXISTS ... SELECT on an existing
// table copies nothing (note 1050) and never drops it.
func TestCTASAtomic(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Session("ctas", "")
		r := sqltest.NewRunner(t, c)
		r.ExpectError(1264, "Out of range value for column 'a' at row 2",
			"CREATE TABLE t3 (a TINYINT) AS SELECT 1 a UNION ALL SELECT 1000")
		r.ExpectErrno(1146, "SELECT * FROM t3")
		r.Exec("CREATE TABLE src (k INT PRIMARY KEY, a INT)")
		r.Exec("INSERT INTO src VALUES (1, 1), (2, 2), (3, 1)")
		r.ExpectErrno(1062, "CREATE TABLE t5 (a INT PRIMARY KEY) SELECT a FROM src ORDER BY k")
		r.ExpectErrno(1146, "SELECT * FROM t5")
		r.ExpectErrno(1062, "CREATE TABLE t6 (a INT PRIMARY KEY, b INT, KEY ib (b)) AS SELECT 1 a, 5 b UNION ALL SELECT 2, 6 UNION ALL SELECT 1, 7")
		r.ExpectRows("SHOW TABLES", "src")
		// The same name again: nothing of the failed statement's rows or
		// index entries is found.
		r.Exec("CREATE TABLE t6 (a INT PRIMARY KEY, b INT, KEY ib (b)) AS SELECT 3 a, 7 b")
		r.ExpectRows("SELECT a, b FROM t6 ORDER BY a", "3\t7")
		r.ExpectRows("SELECT a FROM t6 WHERE b = 5")
		r.ExpectRows("SELECT a FROM t6 WHERE b IN (5, 6, 7)", "3")
		// IF NOT EXISTS on an existing table: nothing copied, the table
		// stays, also when the SELECT would fail.
		r.Exec("CREATE TABLE IF NOT EXISTS t6 AS SELECT 4 a, 8 b")
		r.ExpectRows("SHOW WARNINGS", "Note\t1050\tTable 't6' already exists")
		r.Exec("CREATE TABLE IF NOT EXISTS t6 (a TINYINT) AS SELECT 1000 a")
		r.ExpectRows("SELECT a, b FROM t6 ORDER BY a", "3\t7")
		// A CTAS of an existing name fails and leaves the table as it was.
		r.ExpectErrno(1050, "CREATE TABLE t6 AS SELECT 1 a")
		r.ExpectRows("SELECT a, b FROM t6 ORDER BY a", "3\t7")
		// The statement that succeeds.
		r.ExpectAffected(2, "CREATE TABLE t7 AS SELECT CAST(1 AS UNSIGNED) a UNION SELECT -1")
		r.ExpectRows("SELECT a FROM t7 ORDER BY a", "-1", "1")
	})
}

// A division written into a FLOAT, DOUBLE or DECIMAL column stores MySQL's
// internal quotient (9 fraction digits per word, truncated), not the
// 4-digit value a SELECT shows: INSERT VALUES, INSERT ... SELECT (also
// prepared), UPDATE.
func TestDivisionIntoDouble(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Session("divs", `
			CREATE TABLE t (k INT PRIMARY KEY, d DOUBLE, x DECIMAL(20,12))
			CREATE TABLE s (k INT PRIMARY KEY, n INT)
			INSERT INTO s VALUES (1, 1), (2, 2)`)
		r := sqltest.NewRunner(t, c)
		r.Exec("INSERT INTO t VALUES (1, 1/3, 1/3)")
		r.Exec("INSERT INTO t (k, d) VALUES (2, 2/3), (3, 1/3 + 1/3 + 1/3)")
		r.Exec("INSERT INTO t (d, k) VALUES (1.5/7, 4)")
		r.Exec("INSERT INTO t (k, d) SELECT 5, 1/7")
		r.Exec("INSERT INTO t (k, d) SELECT k + 10, n/3 FROM s ORDER BY k")
		r.Exec("INSERT INTO t (k, d) VALUES (6, 1.234567/7)")
		r.ExpectRows("SELECT k, d, x FROM t ORDER BY k",
			"1\t0.333333333\t0.333333333000", "2\t0.666666666\tNULL", "3\t0.999999999\tNULL",
			"4\t0.214285714\tNULL", "5\t0.142857142\tNULL", "6\t0.1763667142857143\tNULL",
			"11\t0.333333333\tNULL", "12\t0.666666666\tNULL")
		r.Exec("UPDATE t SET d = 2/3, x = 2/3 WHERE k = 1")
		r.Exec("UPDATE t SET d = k/7 WHERE k IN (2, 3)")
		r.ExpectRows("SELECT k, d, x FROM t WHERE k <= 3 ORDER BY k",
			"1\t0.666666666\t0.666666666000", "2\t0.285714285\tNULL", "3\t0.428571428\tNULL")
		// A SELECT still shows the declared scale.
		r.ExpectRows("SELECT 1/3, 1/3 + 1/3 + 1/3", "0.3333\t1.0000")
		r.Exec("PREPARE p FROM 'INSERT INTO t (k, d) VALUES (?, 1/3)'")
		r.Exec("SET @k = 20")
		r.Exec("EXECUTE p USING @k")
		r.Exec("SET @k = 21")
		r.Exec("EXECUTE p USING @k")
		r.ExpectRows("SELECT k, d FROM t WHERE k >= 20 ORDER BY k", "20\t0.333333333", "21\t0.333333333")
	})
}

// DO runs its expressions, assignments included, and answers OK, as text
// and as a prepared statement (COM_STMT_PREPARE: no columns, OK on
// execute).
func TestDoAssignAndPrepared(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Session("dos", "CREATE TABLE t (k INT PRIMARY KEY)")
		r := sqltest.NewRunner(t, c)
		r.Exec("DO @a := 1")
		r.Exec("DO (@b := @a + 1), @c := 3")
		r.ExpectRows("SELECT @a, @b, @c", "1\t2\t3")
		ctx := context.Background()
		st, err := c.PrepareContext(ctx, "DO @p := ?")
		if err != nil {
			t.Fatalf("prepare DO: %v", err)
		}
		defer st.Close()
		if _, err := st.ExecContext(ctx, 5); err != nil {
			t.Fatalf("execute DO: %v", err)
		}
		r.ExpectRows("SELECT @p", "5")
		rows, err := st.QueryContext(ctx, 6)
		if err != nil {
			t.Fatalf("execute DO as a query: %v", err)
		}
		cols, err := rows.Columns()
		if err != nil || len(cols) != 0 || rows.Next() {
			t.Fatalf("prepared DO: columns %q (%v), want none and no row", cols, err)
		}
		rows.Close()
		r.ExpectRows("SELECT @p", "6")
		st2, err := c.PrepareContext(ctx, "DO 1")
		if err != nil {
			t.Fatalf("prepare DO 1: %v", err)
		}
		if _, err := st2.ExecContext(ctx); err != nil {
			t.Fatalf("execute DO 1: %v", err)
		}
		st2.Close()
		// An error of DO's expressions is the statement's.
		r.ExpectErrno(1146, "DO (SELECT k FROM nosuch)")
	})
}

// GROUP BY and COUNT(DISTINCT) under a PAD SPACE collation (utf8mb4_bin,
// utf8mb4_general_ci) take 'a' and 'a ' as one value; under a 0900
// collation (NO PAD) as two.
func TestGroupByPadSpace(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Session("gpad", `
			CREATE TABLE p (k INT PRIMARY KEY, b VARCHAR(10) COLLATE utf8mb4_bin, g VARCHAR(10) COLLATE utf8mb4_general_ci, n VARCHAR(10) COLLATE utf8mb4_0900_bin)
			INSERT INTO p VALUES (1, 'a', 'a', 'a'), (2, 'a ', 'A ', 'a '), (3, 'b', 'b', 'b')`)
		r := sqltest.NewRunner(t, c)
		r.ExpectRows("SELECT b, COUNT(*) FROM p GROUP BY b ORDER BY b", "a\t2", "b\t1")
		r.ExpectRows("SELECT g, COUNT(*), MIN(k) FROM p GROUP BY g ORDER BY g", "a\t2\t1", "b\t1\t3")
		r.ExpectRows("SELECT COUNT(*) FROM p GROUP BY n ORDER BY n", "1", "1", "1")
		// COUNT(DISTINCT) too: 'a' and 'a ' once under utf8mb4_bin, twice
		// under utf8mb4_0900_bin.
		r.ExpectRows("SELECT COUNT(DISTINCT b), COUNT(DISTINCT n) FROM p", "2\t3")
		r.ExpectRows("SELECT k = 3, COUNT(DISTINCT b) FROM p GROUP BY k = 3 ORDER BY 1", "0\t1", "1\t1")
		r.ExpectRows("SELECT CONCAT(b, '|'), COUNT(*) FROM p GROUP BY b, n ORDER BY MIN(k)", "a|\t1", "a |\t1", "b|\t1")
	})
}
