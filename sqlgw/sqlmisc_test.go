package sqlgw_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// EXPLAIN prepared with parameters (known failure 7): the prepare
// reports the parameters of the explained statement, and the execution
// binds them. go-sql-driver prepares on the server whenever there are
// arguments and checks their number against the prepare's answer.
func TestMiscPreparedExplain(t *testing.T) {
	c := sqltest.Session(t, sqltest.Memory, "pe",
		"CREATE TABLE t (k INT NOT NULL PRIMARY KEY, q INT)",
		"INSERT INTO t VALUES (1, 10), (2, 20)")
	for _, tc := range []struct {
		q    string
		args []any
		want string // in the output
	}{
		{"EXPLAIN SELECT * FROM t WHERE k = ?", []any{1}, "PointGet"},
		{"/* c */ explain SELECT q FROM t WHERE k IN (?, ?)", []any{1, 2}, "MultiGet"},
		{"DESCRIBE SELECT * FROM t WHERE k > ? AND q < ?", []any{1, 100}, "SIMPLE"},
		{"EXPLAIN FORMAT=TREE SELECT * FROM t WHERE k = ?", []any{2}, "PointGet"},
		{"EXPLAIN ANALYZE SELECT * FROM t WHERE k = ?", []any{2}, "1 rows"},
	} {
		got := strings.Join(sqltest.NewRunner(t, c).Rows(tc.q, tc.args...), "\n")
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s %v:\n%s\nwant %q in it", tc.q, tc.args, got, tc.want)
		}
	}
	// The statement prepared once runs with other values.
	st, err := c.PrepareContext(context.Background(), "EXPLAIN SELECT * FROM t WHERE k = ?")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, k := range []int{1, 2, 3} {
		rs, err := st.Query(k)
		if err != nil {
			t.Fatalf("k=%d: %v", k, err)
		}
		n := 0
		for rs.Next() {
			n++
		}
		if err := rs.Err(); err != nil || n != 1 {
			t.Fatalf("k=%d: %d rows, %v", k, n, err)
		}
		rs.Close()
	}
}

// A write in START TRANSACTION READ ONLY is MySQL's 1792 (SQLSTATE 25006),
// and the connection survives it (go-mysql-server panicked on tables that
// are not sql.TemporaryTable).
func TestMiscReadOnlyTransaction(t *testing.T) {
	c := sqltest.Session(t, sqltest.Memory, "ro", `
		CREATE TABLE t (k INT NOT NULL PRIMARY KEY, q INT)
		INSERT INTO t VALUES (1, 10)
		START TRANSACTION READ ONLY`)
	r := sqltest.NewRunner(t, c)
	for _, q := range sqltest.Lines(`
		INSERT INTO t VALUES (2, 20)
		UPDATE t SET q = 11 WHERE k = 1
		DELETE FROM t WHERE k = 1
		REPLACE INTO t VALUES (1, 12)
	`) {
		_, err := c.ExecContext(context.Background(), q)
		expectSQLError(t, q, err, 1792, "25006")
	}
	r.Script(`
		query SELECT * FROM t
		= 1 | 10
		exec COMMIT
		exec INSERT INTO t VALUES (2, 20)
		query SELECT k FROM t
		= 1
		= 2
	`)
	// DROP TEMPORARY TABLE does not drop an ordinary table (MySQL: 1051).
	_, err := c.ExecContext(context.Background(), "DROP TEMPORARY TABLE t")
	expectSQLError(t, "DROP TEMPORARY TABLE t", err, 1051, "42S02")
	r.ExpectRows("SELECT COUNT(*) FROM t", "2")
}

func expectSQLError(t *testing.T, q string, err error, num uint16, state string) {
	t.Helper()
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		t.Fatalf("%s: error %v, want %d (%s)", q, err, num, state)
	}
	if me.Number != num || string(me.SQLState[:]) != state {
		t.Errorf("%s: %d (%s) %s; want %d (%s)", q, me.Number, me.SQLState, me.Message, num, state)
	}
}

// Error numbers and SQLSTATEs as MySQL 8 and MariaDB 10.11 answer them
// (checked against mariadbd 10.11.19; messages as MySQL 8 words them where
// go-mysql-server says enough).
func TestMiscErrorCodes(t *testing.T) {
	c := sqltest.Session(t, sqltest.Memory, "ec",
		"CREATE TABLE t (k INT NOT NULL PRIMARY KEY, s VARCHAR(3), ti TINYINT, u INT UNSIGNED, d DECIMAL(4,2))",
		"INSERT INTO t VALUES (1, 'a', 1, 1, 1.5)")
	for _, tc := range []struct {
		q     string
		num   uint16
		state string
		msg   string // "" = not checked
	}{
		{"SELECT nope FROM t", 1054, "42S22", "Unknown column 'nope' in 'field list'"},
		{"SELECT * FROM t WHERE nope = 1", 1054, "42S22", ""},
		{"SELECT t.nope FROM t", 1054, "42S22", "Unknown column 't.nope' in 'field list'"},
		{"SELECT k FROM t ORDER BY nope", 1054, "42S22", ""},
		{"INSERT INTO t (k, nope) VALUES (1, 2)", 1054, "42S22", "Unknown column 'nope' in 'field list'"},
		{"UPDATE t SET nope = 1", 1054, "42S22", ""},
		{"INSERT INTO t VALUES (2, 'abcd', 1, 1, 1.5)", 1406, "22001", "Data too long for column 's' at row 1"},
		{"INSERT INTO t VALUES (2, 'a', 1, 1, 1.5), (3, 'abcdef', 1, 1, 1.5)", 1406, "22001", "Data too long for column 's' at row 2"},
		{"UPDATE t SET s = 'abcdef'", 1406, "22001", "Data too long for column 's' at row 1"},
		{"INSERT INTO t VALUES (2, 'a', 300, 1, 1.5)", 1264, "22003", "Out of range value for column 'ti' at row 1"},
		{"INSERT INTO t (k, ti) VALUES (2, 1), (3, -300)", 1264, "22003", "Out of range value for column 'ti' at row 2"},
		{"INSERT INTO t VALUES (2, 'a', 1, -1, 1.5)", 1264, "22003", "Out of range value for column 'u' at row 1"},
		{"INSERT INTO t VALUES (2, 'a', 1, 1, 100.5)", 1264, "22003", "Out of range value for column 'd' at row 1"},
		// go-mysql-server clamped these to 127 and 0 and stored them.
		{"UPDATE t SET ti = 1000", 1264, "22003", "Out of range value for column 'ti' at row 1"},
		{"UPDATE t SET q = 1, u = u - 2 WHERE k = 1", 1054, "42S22", ""},
		{"UPDATE t SET u = -5 WHERE k = 1", 1264, "22003", "Out of range value for column 'u' at row 1"},
		{"INSERT INTO t (k, ti) VALUES (9, 1), (1, 2) ON DUPLICATE KEY UPDATE ti = 1000", 1264, "22003", "Out of range value for column 'ti' at row 2"},
		{"DROP TABLE missing", 1051, "42S02", "Unknown table 'ec.missing'"},
		{"/* x */ drop table t, missing", 1051, "42S02", "Unknown table 'ec.missing'"},
		{"DROP VIEW missing", 1051, "42S02", ""},
		{"SELECT * FROM missing", 1146, "42S02", "Table 'ec.missing' doesn't exist"},
		{"CREATE DATABASE ec", 1007, "HY000", "Can't create database 'ec'; database exists"},
		{"DROP DATABASE missingdb", 1008, "HY000", "Can't drop database 'missingdb'; database doesn't exist"},
		{"USE missingdb", 1049, "42000", "Unknown database 'missingdb'"},
		{"INSERT INTO t VALUES (1, 'a', 1, 1, 1.5)", 1062, "23000", ""},
	} {
		_, err := c.ExecContext(context.Background(), tc.q)
		expectSQLError(t, tc.q, err, tc.num, tc.state)
		var me *mysql.MySQLError
		if tc.msg != "" && errors.As(err, &me) && me.Message != tc.msg {
			t.Errorf("%s: message %q, want %q", tc.q, me.Message, tc.msg)
		}
	}
	// Nothing was changed by the failed statements (DROP TABLE t, missing
	// drops nothing, as in MySQL 8).
	sqltest.NewRunner(t, c).Script(`
		query SELECT * FROM t
		= 1 | a | 1 | 1 | 1.50
		# IGNORE keeps MySQL's clamping.
		exec INSERT INTO t VALUES (7, 'a', 1, 1, 1.5)
		exec UPDATE IGNORE t SET ti = 1000 WHERE k = 7
		query SELECT ti FROM t WHERE k = 7
		= 127
		exec DELETE FROM t WHERE k = 7
	`)
	// The same errors over the binary protocol (prepared statements).
	_, err := c.ExecContext(context.Background(), "INSERT INTO t VALUES (?, ?, 1, 1, 1.5)", 5, "abcd")
	expectSQLError(t, "prepared INSERT", err, 1406, "22001")
	_, err = c.ExecContext(context.Background(), "SELECT nope FROM t WHERE k = ?", 1)
	expectSQLError(t, "prepared SELECT", err, 1054, "42S22")
	_, err = c.ExecContext(context.Background(), "UPDATE t SET ti = ? WHERE k = ?", 200, 1)
	expectSQLError(t, "prepared UPDATE", err, 1264, "22003")
	sqltest.NewRunner(t, c).ExpectRows("SELECT ti FROM t", "1")
}

// (a, b) IN ((..), (..)) on a composite primary key is a MultiGet: one
// point get per tuple, not a table scan.
func TestMiscTupleInMultiGet(t *testing.T) {
	c := sqltest.NewRunner(t, sqltest.Session(t, sqltest.Memory, "ti",
		"CREATE TABLE o (a VARCHAR(8) NOT NULL, b INT NOT NULL, q INT, PRIMARY KEY (a, b))",
		"INSERT INTO o VALUES ('x', 1, 10), ('x', 2, 20), ('y', 1, 30), ('y', 2, 40), ('z', 3, NULL)"))
	for _, tc := range []struct {
		q, path string
		want    []string
	}{
		{"SELECT * FROM o WHERE (a, b) IN (('x', 2), ('y', 1))", "MultiGet", []string{"x\t2\t20", "y\t1\t30"}},
		{"SELECT q FROM o WHERE (b, a) IN ((2, 'y'), (9, 'x'), (3, 'z'))", "MultiGet", []string{"40", "NULL"}},
		{"SELECT q FROM o WHERE (a, b) IN (('x', 1))", "PointGet", []string{"10"}},
		{"SELECT q FROM o WHERE (a, b) = ('y', 2)", "PointGet", []string{"40"}},
		{"SELECT q FROM o WHERE (a, b) IN (('x', 1), ('y', 2)) AND q > 10", "MultiGet", []string{"40"}},
		{"SELECT q FROM o WHERE (a, q) IN (('x', 20), ('y', 30))", "", []string{"20", "30"}},
		{"SELECT b FROM o WHERE (a, b) NOT IN (('x', 1), ('y', 2)) ORDER BY a, b", "", []string{"2", "1", "3"}},
		{"SELECT b FROM o WHERE (a, b) IN (('x', NULL), ('z', 3))", "", []string{"3"}},
	} {
		if tc.path != "" {
			plan := strings.Join(c.Rows("EXPLAIN "+tc.q), "\n")
			if !strings.Contains(plan, "sqlgw: "+tc.path) {
				t.Errorf("EXPLAIN %s:\n%s\nwant %s", tc.q, plan, tc.path)
			}
		}
		c.ExpectRows(tc.q, tc.want...)
	}
}

// TIME(n): declared precision kept, values rounded on write (half away
// from zero, as MySQL), shown with n digits in text and binary results,
// and printed back by SHOW CREATE TABLE and DESCRIBE.
func TestMiscTimePrecision(t *testing.T) {
	c := sqltest.NewRunner(t, sqltest.Session(t, sqltest.Memory, "tp",
		"CREATE TABLE t (k INT NOT NULL PRIMARY KEY, t0 TIME, t3 TIME(3), t6 TIME(6), `time` TIME( 1 ) COMMENT 'TIME(2)')",
		"INSERT INTO t VALUES (1, '12:00:01.5', '12:00:01.1235', '12:00:01.1234567', '01:02:03.45')",
		"INSERT INTO t VALUES (2, '-12:00:01.4', '-12:00:01.1234', '-00:00:00.000001', '-01:59:59.94')",
		"INSERT INTO t VALUES (3, '10:00:00', '10:00:00', '10:00:00', '10:00:00')"))
	c.Exec("INSERT INTO t VALUES (?, ?, ?, ?, ?)", 4, "00:00:59.999", "00:00:59.9995", "1:2:3", "-1:00:00.04")
	want := []string{
		"1\t12:00:02\t12:00:01.124\t12:00:01.123457\t01:02:03.5",
		"2\t-12:00:01\t-12:00:01.123\t-00:00:00.000001\t-01:59:59.9",
		"3\t10:00:00\t10:00:00.000\t10:00:00.000000\t10:00:00.0",
		"4\t00:01:00\t00:01:00.000\t01:02:03.000000\t-01:00:00.0",
	}
	c.ExpectRows("SELECT * FROM t ORDER BY k", want...)
	// Binary protocol (a prepared statement): the same values.
	if got := c.Rows("SELECT * FROM t WHERE k > ? ORDER BY k", 0); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("prepared:\n got: %q\nwant: %q", got, want)
	}
	// Comparisons see the rounded values.
	c.ExpectRows("SELECT k FROM t WHERE t3 = '12:00:01.124'", "1")
	c.ExpectRows("SELECT k FROM t WHERE t0 = '12:00:02'", "1")
	// Result metadata (Decimals = n): TestFixTimeResults; go-sql-driver
	// reports no scale for TIME.
	create := strings.Join(c.Rows("SHOW CREATE TABLE t"), "\n")
	for _, frag := range []string{"`t0` time,", "`t3` time(3),", "`t6` time(6),", "`time` time(1) COMMENT 'TIME(2)'"} {
		if !strings.Contains(create, frag) {
			t.Errorf("SHOW CREATE TABLE:\n%s\nwant %q", create, frag)
		}
	}
	var types []string
	for _, l := range c.Rows("DESCRIBE t") {
		f := strings.Split(l, "\t")
		types = append(types, f[0]+" "+f[1])
	}
	if got := strings.Join(types, ", "); got != "k int, t0 time, t3 time(3), t6 time(6), time time(1)" {
		t.Errorf("DESCRIBE t: %s", got)
	}
	// information_schema.COLUMNS, in rows that name their column.
	c.ExpectRows("SELECT table_schema, table_name, column_name, column_type, datetime_precision FROM information_schema.columns WHERE table_schema = 'tp' AND table_name = 't' AND data_type = 'time' ORDER BY ordinal_position",
		"tp\tt\tt0\ttime\t0", "tp\tt\tt3\ttime(3)\t3", "tp\tt\tt6\ttime(6)\t6", "tp\tt\ttime\ttime(1)\t1")
	// ALTER TABLE: added and modified columns get their precision.
	c.Script(`
		exec ALTER TABLE t ADD COLUMN t2 TIME(2), MODIFY COLUMN t0 TIME(4)
		exec UPDATE t SET t2 = '01:00:00.555', t0 = '01:00:00.55555' WHERE k = 3
		query SELECT t0, t2 FROM t WHERE k = 3
		= 01:00:00.5556 | 01:00:00.56
	`)
	// The dump of SHOW CREATE TABLE recreates the same table.
	c.Exec(strings.Replace(strings.SplitN(create, "\t", 2)[1], "CREATE TABLE `t`", "CREATE TABLE `t_copy`", 1))
	c.Exec("INSERT INTO t_copy SELECT k, t0, t3, t6, `time` FROM t")
	c.ExpectRows("SELECT t3 FROM t_copy ORDER BY k", "12:00:01.124", "-12:00:01.123", "10:00:00.000", "00:01:00.000")
	if got := strings.Join(c.Rows("SHOW CREATE TABLE t_copy"), ""); !strings.Contains(got, "`t3` time(3),") {
		t.Errorf("SHOW CREATE TABLE t_copy: %s", got)
	}
	// RENAME COLUMN and CREATE TABLE ... LIKE keep the precision.
	c.Exec("ALTER TABLE t_copy RENAME COLUMN t3 TO t3b")
	c.Exec("CREATE TABLE t_like LIKE t_copy")
	for _, tbl := range []string{"t_copy", "t_like"} {
		if got := strings.Join(c.Rows("SHOW CREATE TABLE "+tbl), ""); !strings.Contains(got, "`t3b` time(3),") || !strings.Contains(got, "`t0` time,") {
			t.Errorf("SHOW CREATE TABLE %s: %s", tbl, got)
		}
	}
	c.ExpectRows("SELECT t3b FROM t_copy WHERE k = 1", "12:00:01.124")
}

// SHOW DATABASES/TABLES LIKE 'p' name their first column as MySQL does.
func TestMiscShowLikeHeader(t *testing.T) {
	c := sqltest.Session(t, sqltest.Memory, "shl",
		"CREATE TABLE tab1 (k INT NOT NULL PRIMARY KEY)")
	for _, tc := range []struct{ q, cols, rows string }{
		{"SHOW DATABASES LIKE 'sh%'", "Database (sh%)", "shl"},
		{"SHOW DATABASES WHERE `Database` = 'shl'", "Database", "shl"},
		{"SHOW TABLES LIKE 'tab%'", "Tables_in_shl (tab%)", "tab1"},
		{"SHOW FULL TABLES FROM shl LIKE 'tab1'", "Tables_in_shl (tab1),Table_type", "tab1\tBASE TABLE"},
		{"SHOW TABLES", "Tables_in_shl", "tab1"},
	} {
		var cols []string
		for _, ct := range sqltest.NewRunner(t, c).ColumnTypes(tc.q) {
			cols = append(cols, ct.Name())
		}
		if got := strings.Join(cols, ","); got != tc.cols {
			t.Errorf("%s: columns %q, want %q", tc.q, got, tc.cols)
		}
		sqltest.NewRunner(t, c).ExpectRows(tc.q, tc.rows)
	}
}

// Columns of the inner side of an outer join are nullable in the result
// metadata (MySQL: no NOT_NULL flag), the outer side keeps NOT NULL.
func TestMiscOuterJoinNullable(t *testing.T) {
	c := sqltest.Session(t, sqltest.Memory, "oj", `
		CREATE TABLE f (k INT NOT NULL PRIMARY KEY, a VARCHAR(10) NOT NULL, b INT)
		CREATE TABLE g (k INT NOT NULL PRIMARY KEY, fk INT NOT NULL)
		INSERT INTO f VALUES (1, 'x', NULL), (2, 'y', 1)
		INSERT INTO g VALUES (10, 2)`)
	for _, tc := range []struct {
		q    string
		null string // per column: N nullable, - NOT NULL
		rows []string
	}{
		{"SELECT f.k, f.a, f2.k, f2.a FROM f LEFT JOIN f f2 ON f2.k = f.b ORDER BY f.k", "--NN",
			[]string{"1\tx\tNULL\tNULL", "2\ty\t1\tx"}},
		{"SELECT g.k, f.a, g.fk + 1 AS n FROM g RIGHT JOIN f ON g.fk = f.k ORDER BY f.k", "N-N",
			[]string{"NULL\tx\tNULL", "10\ty\t3"}},
		{"SELECT f.k, g.k FROM f JOIN g ON g.fk = f.k", "--", []string{"2\t10"}},
		{"SELECT f.k, x.k FROM f LEFT JOIN (SELECT k, fk FROM g) x ON x.fk = f.k ORDER BY f.k", "-N",
			[]string{"1\tNULL", "2\t10"}},
	} {
		var got strings.Builder
		for _, ct := range sqltest.NewRunner(t, c).ColumnTypes(tc.q) {
			if n, ok := ct.Nullable(); ok && !n {
				got.WriteByte('-')
			} else {
				got.WriteByte('N')
			}
		}
		if got.String() != tc.null {
			t.Errorf("%s: nullable %s, want %s", tc.q, got.String(), tc.null)
		}
		sqltest.NewRunner(t, c).ExpectRows(tc.q, tc.rows...)
	}
}
