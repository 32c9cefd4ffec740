package sqlgw_test

import (
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// SQL prepared statement names are not case-sensitive, as in MySQL
// (PREPARE S, then EXECUTE s); an unknown name is 1243 naming it as
// written and the statement it was given to.
func TestPrepareNamesCase(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Session("prepcase", "")
		r := sqltest.NewRunner(t, c)
		r.Exec("PREPARE S FROM 'SELECT 1'")
		r.ExpectRows("EXECUTE s", "1")
		r.ExpectRows("EXECUTE S", "1")
		r.Exec("PREPARE `My Stmt` FROM 'SELECT ? + 1'")
		r.Exec("SET @a = 4")
		r.ExpectRows("EXECUTE `my stmt` USING @a", "5")
		// PREPARE of the name in another case replaces the statement.
		r.Exec("PREPARE s FROM 'SELECT 2'")
		r.ExpectRows("EXECUTE S", "2")
		r.Exec("DEALLOCATE PREPARE s")
		r.ExpectMessage(1243, "Unknown prepared statement handler (S) given to EXECUTE", "EXECUTE S")
		r.Exec("DROP PREPARE `MY STMT`")
		r.ExpectMessage(1243, "Unknown prepared statement handler (My Stmt) given to DEALLOCATE PREPARE", "DEALLOCATE PREPARE `My Stmt`")
		// A prepared DO keeps its OK answer under any case.
		r.Exec("PREPARE D FROM 'DO 1'")
		if cts := r.ColumnTypes("EXECUTE d"); len(cts) != 0 {
			t.Fatalf("EXECUTE d of PREPARE D FROM 'DO 1': %d columns, want an OK packet", len(cts))
		}
	})
}

// PREPARE s FROM @var prepares the variable's text, a DO included (it
// was 1064: vitess's grammar has no DO).
func TestPrepareDoFromVariable(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Session("prepdovar", "")
		r := sqltest.NewRunner(t, c)
		r.Exec("SET @q = 'DO 1'")
		r.Exec("PREPARE s FROM @q")
		if cts := r.ColumnTypes("EXECUTE s"); len(cts) != 0 {
			t.Fatalf("EXECUTE of a DO prepared from @q: %d columns, want an OK packet", len(cts))
		}
		r.Exec("SET @Q2 = 'DO @z := ? * 2', @v = 21")
		r.Exec("PREPARE t FROM @q2")
		r.Exec("EXECUTE t USING @v")
		r.ExpectRows("SELECT @z", "42")
		// The same name prepared from a SELECT answers rows again.
		r.Exec("SET @q = 'SELECT 7'")
		r.Exec("PREPARE s FROM @q")
		r.ExpectRows("EXECUTE s", "7")
		r.Exec("SET @q = 'DO 1; DO 2'")
		r.ExpectErrno(1064, "PREPARE s FROM @q")
	})
}

// CREATE TABLE ... SELECT with a NOT NULL column without a default that
// the SELECT does not give: MySQL checks it before any row, so strict mode
// fails with 1364 even for a SELECT with no rows (and no table is left);
// outside strict mode it warns once and stores the type's implicit
// default. An ENUM takes its first member. A NULL the SELECT gives stays
// 1048. (Was 1048 per row, and a table when there was no row.)
func TestCTASNoDefault(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Session("ctas17", "")
		r := sqltest.NewRunner(t, c)
		r.ExpectMessage(1364, "Field 'b' doesn't have a default value", "CREATE TABLE t1 (b INT NOT NULL) SELECT 1 AS a")
		r.ExpectMessage(1364, "Field 'b' doesn't have a default value", "CREATE TABLE t2 (b VARCHAR(3) NOT NULL) SELECT 1 AS a FROM DUAL WHERE 0")
		r.ExpectMessage(1048, "Column 'a' cannot be null", "CREATE TABLE t3 (a INT NOT NULL) SELECT NULL AS a")
		r.ExpectRows("SHOW TABLES")
		r.Exec("CREATE TABLE t4 (e ENUM('x', 'y') NOT NULL, n INT NOT NULL DEFAULT 3, id INT AUTO_INCREMENT PRIMARY KEY) SELECT 1 AS a")
		r.ExpectRows("SELECT e, n, id, a FROM t4", "x\t3\t1\t1")
		r.ExpectRows("SHOW WARNINGS")
		r.Exec("SET sql_mode = ''")
		r.Exec("CREATE TABLE t5 (b INT NOT NULL, c VARCHAR(3) NOT NULL, d DATE NOT NULL, e ENUM('p', 'q') NOT NULL) SELECT 1 AS a UNION ALL SELECT 2")
		r.ExpectRows("SHOW WARNINGS",
			"Warning\t1364\tField 'b' doesn't have a default value",
			"Warning\t1364\tField 'c' doesn't have a default value",
			"Warning\t1364\tField 'd' doesn't have a default value")
		r.ExpectRows("SELECT b, c, d, e, a FROM t5 ORDER BY a", "0\t\t0000-00-00\tp\t1", "0\t\t0000-00-00\tp\t2")
	})
}

// GROUP_CONCAT(DISTINCT x) compares x by its collation, as COUNT(DISTINCT
// x) does (it kept 'a', 'A' and 'á' apart under utf8mb4_general_ci): the
// first row's value stays. COUNT(DISTINCT expr) takes the collation of a
// non-column expression from its operands (CONCAT(g, 'x') is
// utf8mb4_general_ci for a general_ci g; it counted by utf8mb4_0900_bin).
// GROUP_CONCAT(a, b) concatenates each row's arguments (it showed a's).
func TestGroupConcatCollation(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Session("gccoll", `
			CREATE TABLE t (k INT PRIMARY KEY, c VARCHAR(10) COLLATE utf8mb4_0900_ai_ci, g VARCHAR(10) COLLATE utf8mb4_general_ci, b VARCHAR(10) COLLATE utf8mb4_bin, vb VARBINARY(10))
			INSERT INTO t VALUES (1, 'a', 'a', 'a', 'a'), (2, 'A', 'A', 'A', 'A'), (3, 'á', 'á', 'á', 'a'), (4, 'b', 'b', 'b', 'b'), (5, 'a ', 'a ', 'a ', 'a '), (6, NULL, NULL, NULL, NULL)`)
		r := sqltest.NewRunner(t, c)
		r.ExpectRows("SELECT GROUP_CONCAT(DISTINCT c), GROUP_CONCAT(DISTINCT g), GROUP_CONCAT(DISTINCT b), GROUP_CONCAT(DISTINCT vb) FROM t",
			"a,b,a \ta,b\ta,A,á,b\ta,A,b,a ")
		r.ExpectRows("SELECT GROUP_CONCAT(DISTINCT g ORDER BY k DESC SEPARATOR '-') FROM t", "b-a")
		r.ExpectRows("SELECT k % 2, GROUP_CONCAT(DISTINCT g ORDER BY k) FROM t GROUP BY k % 2 ORDER BY 1", "0\tA,b", "1\ta")
		r.ExpectRows("SELECT k FROM t GROUP BY k HAVING GROUP_CONCAT(DISTINCT g) = 'b'", "4")
		r.ExpectRows("SELECT COUNT(DISTINCT CONCAT(g, 'x')), COUNT(DISTINCT CONCAT(c, 'x')), COUNT(DISTINCT LOWER(g)), COUNT(DISTINCT CONCAT(vb, 'x')) FROM t",
			"3\t3\t2\t4")
		r.ExpectRows("SELECT GROUP_CONCAT(g, '-', k ORDER BY k DESC SEPARATOR ';') FROM t", "a -5;b-4;á-3;A-2;a-1")
		r.ExpectRows("SELECT GROUP_CONCAT(DISTINCT g, k % 2 ORDER BY k) FROM t", "a1,A0,b0")
	})
}

// HAVING GROUP_CONCAT(...) not in the select list inside a subquery of an
// expression (1105 "unable to find field": go-mysql-server resolved the
// aggregate's columns in the outer query).
func TestHavingGroupConcatSubquery(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Session("havsub", `
			CREATE TABLE t (k INT PRIMARY KEY, a INT, b INT, s VARCHAR(5))
			CREATE TABLE u (a INT PRIMARY KEY, s VARCHAR(5))
			INSERT INTO t VALUES (1, 1, 1, 'x'), (2, 1, 3, 'y'), (3, 2, 5, 'x'), (4, 3, 1, 'z'), (5, 3, 1, 'w')
			INSERT INTO u VALUES (1, 'x'), (2, 'x'), (3, 'y')`)
		r := sqltest.NewRunner(t, c)
		r.ExpectRows("SELECT k FROM t WHERE a IN (SELECT a FROM t t2 GROUP BY a HAVING GROUP_CONCAT(s ORDER BY k) = 'x,y') ORDER BY k", "1", "2")
		r.ExpectRows("SELECT k FROM t WHERE EXISTS (SELECT a FROM t t2 WHERE t2.a = t.a GROUP BY a HAVING GROUP_CONCAT(s) = 'x')", "3")
		r.ExpectRows("SELECT a FROM u WHERE a IN (SELECT a FROM t GROUP BY a HAVING GROUP_CONCAT(b) = '5' OR COUNT(*) > 1) ORDER BY a", "1", "2", "3")
		r.ExpectRows("SELECT k, (SELECT MAX(a) FROM t t2 WHERE t2.a = t.a GROUP BY a HAVING GROUP_CONCAT(DISTINCT b) = '1') FROM t ORDER BY k",
			"1\tNULL", "2\tNULL", "3\tNULL", "4\t3", "5\t3")
	})
}

// ROUND and TRUNCATE whose D is a column: MySQL types them by the first
// argument alone. A DECIMAL keeps its scale, rounded at most to it
// (ROUND(1.2345, d) was 1.2 for d = 1, MySQL 1.2000; ROUND(1/3, d) for d =
// 6 rounds at 4); an integer is a DOUBLE (was BIGINT).
func TestRoundColumnScale(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Session("roundcol", `
			CREATE TABLE r (k INT PRIMARY KEY, d INT, x DECIMAL(10,4), i INT)
			INSERT INTO r VALUES (1, 1, 3.1416, 12345), (2, 2, 2.5, 12355), (3, -1, 15.5, 15), (4, 6, 1.0001, 7)`)
		r := sqltest.NewRunner(t, c)
		r.ExpectRows("SELECT ROUND(x, d), TRUNCATE(x, d), ROUND(1.2345, d), TRUNCATE(1.2345, d), ROUND(i / 7, d), ROUND(1/3, d), ROUND(i, d), TRUNCATE(i, d) FROM r ORDER BY k",
			"3.1000\t3.1000\t1.2000\t1.2000\t1763.6000\t0.3000\t12345\t12345",
			"2.5000\t2.5000\t1.2300\t1.2300\t1765.0000\t0.3300\t12355\t12355",
			"20.0000\t10.0000\t0.0000\t0.0000\t0.0000\t0.0000\t20\t10",
			"1.0001\t1.0001\t1.2345\t1.2345\t1.0000\t0.3333\t7\t7")
		cts := r.ColumnTypes("SELECT ROUND(1.2345, d), ROUND(i, d), TRUNCATE(i, d), ROUND(i, 1) FROM r")
		for i, want := range []string{"DECIMAL", "DOUBLE", "DOUBLE", "BIGINT"} {
			if got := cts[i].DatabaseTypeName(); got != want {
				t.Errorf("column %d (%s): %s, want %s", i+1, cts[i].Name(), got, want)
			}
		}
		if _, scale, ok := cts[0].DecimalSize(); !ok || scale != 4 {
			t.Errorf("ROUND(1.2345, d): scale %d, want 4", scale)
		}
	})
}

// GROUP BY ... WITH ROLLUP is a clear 1235 "not supported" (vitess's
// grammar lacks it: it was the syntax error 1064); a CTE named rollup
// still works.
func TestRollupNotSupported(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Session("rollup17", `CREATE TABLE t (a INT PRIMARY KEY, b INT)`)
		r := sqltest.NewRunner(t, c)
		r.ExpectMessage(1235, "sqlgw: GROUP BY ... WITH ROLLUP is not supported yet", "SELECT b, COUNT(*) FROM t GROUP BY b WITH ROLLUP")
		r.ExpectMessage(1235, "sqlgw: GROUP BY ... WITH ROLLUP is not supported yet", "PREPARE s FROM 'SELECT b FROM t GROUP BY b WITH ROLLUP'")
		r.ExpectRows("WITH rollup AS (SELECT 1 AS x) SELECT x FROM rollup", "1")
	})
}
