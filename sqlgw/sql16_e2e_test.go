package sqlgw_test

import (
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// ROUND, TRUNCATE and FORMAT of a division read the quotient's internal
// digits (9 fraction digits per word, truncated), as MySQL's do: 1/3 shows
// 0.3333 but ROUND(1/3, 6) is 0.333333. TRUNCATE shows d decimals as
// ROUND does.
func TestRoundOfDivision(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Session("rdiv", `
			CREATE TABLE n (k INT PRIMARY KEY, i INT, x DECIMAL(10,2))
			INSERT INTO n VALUES (1, 1, 1.50), (2, 2, 10.00)`)
		r := sqltest.NewRunner(t, c)
		r.ExpectRows("SELECT ROUND(1/3, 6), ROUND(2/3, 2), TRUNCATE(1/3, 6), ROUND(1/3), ROUND(10/3, -1), 1/3",
			"0.333333\t0.67\t0.333333\t0\t0\t0.3333")
		r.ExpectRows("SELECT ROUND(2/3, 8), ROUND(2/3, 9), ROUND(1/3, 10), TRUNCATE(2/3, 12), ROUND(1/3 + 0, 6), ROUND(1/3*3, 6)",
			"0.66666667\t0.666666666\t0.3333333330\t0.666666666000\t0.333333\t1.000000")
		r.ExpectRows("SELECT FORMAT(1/3, 6), FORMAT(2/3, 9), FORMAT(20000/3, 2), FORMAT(1/3, 2)",
			"0.333333\t0.666666666\t6,666.67\t0.33")
		r.ExpectRows("SELECT TRUNCATE(1.5, 3), TRUNCATE(-1.5, 0), TRUNCATE(1234.5678, -2)", "1.500\t-1\t1200")
		// At most 30 decimals (DECIMAL_MAX_SCALE), as MySQL.
		r.ExpectRows("SELECT TRUNCATE(1.223, 100), ROUND(1.2, 40)", "1.223000000000000000000000000000\t1.200000000000000000000000000000")
		// Columns: the quotient of the row's values.
		r.ExpectRows("SELECT k, ROUND(i/3, 6), TRUNCATE(x/7, 7), FORMAT(x/3, 5) FROM n ORDER BY k",
			"1\t0.333333\t0.2142857\t0.50000", "2\t0.666667\t1.4285714\t3.33333")
	})
}

// COUNT(DISTINCT x) of a text column counts the values its collation
// tells apart, as DISTINCT and GROUP BY group them: 'a', 'A', 'á' and (PAD
// SPACE) 'a ' are one value under utf8mb4_general_ci and
// latin1_swedish_ci; utf8mb4_0900_ai_ci is NO PAD ('a ' is another).
func TestCountDistinctCollation(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Session("cdcoll", `
			CREATE TABLE t (k INT PRIMARY KEY, c VARCHAR(10) COLLATE utf8mb4_0900_ai_ci, g VARCHAR(10) COLLATE utf8mb4_general_ci, l VARCHAR(10) CHARACTER SET latin1 COLLATE latin1_swedish_ci, b VARCHAR(10) COLLATE utf8mb4_bin)
			INSERT INTO t VALUES (1, 'a', 'a', 'a', 'a'), (2, 'A', 'A', 'A', 'A'), (3, 'á', 'á', 'á', 'á'), (4, 'b', 'b', 'b', 'b'), (5, 'a ', 'a ', 'a ', 'a '), (6, NULL, NULL, NULL, NULL)`)
		r := sqltest.NewRunner(t, c)
		r.ExpectRows("SELECT COUNT(DISTINCT c), COUNT(DISTINCT g), COUNT(DISTINCT l), COUNT(DISTINCT b), COUNT(DISTINCT c, g) FROM t",
			"3\t2\t2\t4\t3")
		r.ExpectRows("SELECT k % 2, COUNT(DISTINCT g), COUNT(DISTINCT c) FROM t GROUP BY k % 2 ORDER BY 1", "0\t2\t2", "1\t1\t2")
		// DISTINCT and GROUP BY agree.
		r.ExpectRows("SELECT COUNT(*) FROM (SELECT DISTINCT g FROM t WHERE g IS NOT NULL) d", "2")
		r.ExpectRows("SELECT COUNT(*) FROM (SELECT DISTINCT c FROM t WHERE c IS NOT NULL) d", "3")
		r.ExpectRows("SELECT COUNT(*), MIN(k) FROM t WHERE l IS NOT NULL GROUP BY l ORDER BY 2", "4\t1", "1\t4")
		r.ExpectRows("SELECT COUNT(*), MIN(k) FROM t WHERE c IS NOT NULL GROUP BY c ORDER BY 2", "3\t1", "1\t4", "1\t5")
	})
}

// SQL PREPARE of a DO statement (vitess's grammar has no DO: it was a
// 1064): EXECUTE runs its expressions and answers OK with no rows.
func TestPrepareDoSQL(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Session("prepdo", "")
		r := sqltest.NewRunner(t, c)
		r.Exec("PREPARE s FROM 'DO 1'")
		if cts := r.ColumnTypes("EXECUTE s"); len(cts) != 0 {
			t.Fatalf("EXECUTE of a prepared DO: %d columns, want an OK packet", len(cts))
		}
		r.Exec("PREPARE a FROM 'DO @x := ? + 1, @y := 2'")
		r.Exec("SET @v = 4")
		r.Exec("EXECUTE a USING @v")
		r.ExpectRows("SELECT @x, @y", "5\t2")
		// The name prepared again as a SELECT answers rows again.
		r.Exec("PREPARE s FROM 'SELECT 7'")
		r.ExpectRows("EXECUTE s", "7")
		r.ExpectErrno(1054, "PREPARE b FROM 'DO nosuchcol'")
		r.ExpectErrno(1064, "PREPARE b FROM 'DO 1; DO 2'")

	})
}

// CREATE TABLE ... SELECT as MySQL 8.0 runs it: the new table's CHECK
// constraints hold for the selected rows (3819, and no table); a
// selected column fills the table's column of its name, a declared
// column the SELECT does not give gets its default (an AUTO_INCREMENT
// column its next value; this read past the row and lost the connection);
// a set operation needs no AS.
func TestCTASChecksNamesUnion(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Session("ctas16", "")
		r := sqltest.NewRunner(t, c)
		r.ExpectError(3819, "Check constraint 'c1_chk_1' is violated.", "CREATE TABLE c1 (a INT CHECK (a > 0)) SELECT -1 AS a")
		r.ExpectError(3819, "Check constraint 'pos' is violated.",
			"CREATE TABLE c2 (a INT, b INT, CONSTRAINT pos CHECK (a > 0), CHECK (b < 5)) SELECT 1 a, 2 b UNION ALL SELECT -1, 1")
		r.ExpectRows("SHOW TABLES")
		r.Exec("CREATE TABLE c3 (a INT, CHECK (a > 0) NOT ENFORCED) SELECT -5 AS a")
		r.ExpectRows("SELECT a FROM c3", "-5")
		r.Exec("CREATE TABLE c4 (b INT, a INT, CHECK (b < 5)) SELECT 1 a, 2 b")
		r.ExpectRows("SELECT b, a FROM c4", "2\t1")
		r.ExpectErrno(3819, "INSERT INTO c4 VALUES (9, 9)")
		r.Exec("CREATE TABLE d1 (b INT DEFAULT 7, v VARCHAR(3) DEFAULT 'q') SELECT 5 AS a")
		r.ExpectRows("SELECT b, v, a FROM d1", "7\tq\t5")
		r.Exec("CREATE TABLE d2 (id INT AUTO_INCREMENT PRIMARY KEY, n INT NOT NULL DEFAULT 3) SELECT 'x' AS s UNION ALL SELECT 'y'")
		r.ExpectRows("SELECT id, n, s FROM d2 ORDER BY id", "1\t3\tx", "2\t3\ty")
		r.Exec("CREATE TABLE u1 SELECT 1 AS a UNION SELECT 2")
		r.ExpectRows("SELECT a FROM u1 ORDER BY a", "1", "2")
		r.Exec("CREATE TABLE u2 (a BIGINT) SELECT 1 AS a UNION ALL SELECT 1 ORDER BY a LIMIT 1")
		r.ExpectRows("SELECT a FROM u2", "1")
	})
}

// HAVING may test an aggregate the select list does not have, GROUP_CONCAT
// included (it was 1054 Unknown column, or 1105 next to another HAVING
// aggregate); COUNT, SUM, MAX already worked.
func TestHavingUnselectedAggregate(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Session("havagg", `
			CREATE TABLE t (k INT PRIMARY KEY, a INT, b INT, s VARCHAR(5))
			INSERT INTO t VALUES (1, 1, 1, 'x'), (2, 1, 3, 'y'), (3, 2, 5, 'x'), (4, 3, 1, 'z'), (5, 3, 1, 'w')`)
		r := sqltest.NewRunner(t, c)
		r.ExpectRows("SELECT a FROM t GROUP BY a HAVING COUNT(*) > 1 ORDER BY a", "1", "3")
		r.ExpectRows("SELECT a FROM t GROUP BY a HAVING SUM(b) > 3 ORDER BY a", "1", "2")
		r.ExpectRows("SELECT a FROM t GROUP BY a HAVING GROUP_CONCAT(s) = 'x'", "2")
		r.ExpectRows("SELECT a FROM t GROUP BY a HAVING GROUP_CONCAT(b ORDER BY b) = '1,3'", "1")
		r.ExpectRows("SELECT a FROM t GROUP BY a HAVING MAX(s) = 'z' AND GROUP_CONCAT(s ORDER BY k DESC) = 'w,z'", "3")
		r.ExpectRows("SELECT a FROM t GROUP BY a HAVING GROUP_CONCAT(DISTINCT b SEPARATOR '-') LIKE '1%' ORDER BY a DESC", "3", "1")
		r.ExpectRows("SELECT a, COUNT(*) FROM t GROUP BY a HAVING LENGTH(GROUP_CONCAT(s)) > 1 ORDER BY a DESC LIMIT 1", "3\t2")
		r.ExpectRows("SELECT a, GROUP_CONCAT(s ORDER BY k) g FROM t GROUP BY a HAVING GROUP_CONCAT(s ORDER BY k) <> 'x' ORDER BY a", "1\tx,y", "3\tz,w")
		r.ExpectRows("SELECT * FROM (SELECT a FROM t GROUP BY a HAVING GROUP_CONCAT(s) = 'x') d", "2")
		r.ExpectRows("SELECT DISTINCT a FROM t GROUP BY a HAVING GROUP_CONCAT(s) IN ('x', 'x,y') ORDER BY a", "1", "2")
	})
}
