package sqlgw_test

import (
	"os"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage"
)

// columnTypes returns the wire type names of a query's result columns.
func columnTypes(t *testing.T, db sqltest.Execer, q string) string {
	t.Helper()
	var names []string
	for _, ct := range sqltest.NewRunner(t, db).ColumnTypes(q) {
		names = append(names, ct.DatabaseTypeName())
	}
	return strings.Join(names, " ")
}

func expectColumnTypes(t *testing.T, db sqltest.Execer, q, want string) {
	t.Helper()
	if got := columnTypes(t, db, q); got != want {
		t.Fatalf("%s: column types %q, want %q", q, got, want)
	}
}

// SUM and AVG of INT and DECIMAL are exact and typed DECIMAL, as in MySQL;
// of DOUBLE they stay DOUBLE.
func TestSumAvgDecimal(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Session("agg",
			`CREATE TABLE o (k INT NOT NULL PRIMARY KEY, g VARCHAR(4), qty INT, price DECIMAL(10,2), big BIGINT, f DOUBLE)`,
			`INSERT INTO o VALUES (1,'a',1,1.00,9007199254740993,0.5),(2,'a',2,2.00,1,0.25),(3,'b',4,0.75,0,NULL),(4,'b',NULL,NULL,NULL,NULL)`)
		r := sqltest.NewRunner(t, c)

		expectColumnTypes(t, c, "SELECT SUM(qty), SUM(price), AVG(qty), AVG(price), SUM(f), AVG(f), COUNT(*) FROM o",
			"DECIMAL DECIMAL DECIMAL DECIMAL DOUBLE DOUBLE BIGINT")
		r.ExpectRows("SELECT SUM(qty), SUM(price), AVG(qty), AVG(price), SUM(f) FROM o",
			"7\t3.75\t2.3333\t1.250000\t0.75")
		// Exact beyond 2^53.
		r.ExpectRows("SELECT SUM(big) FROM o", "9007199254740994")
		// The scale is kept: 3.00, not 3.
		r.ExpectRows("SELECT SUM(price) FROM o WHERE g = 'a'", "3.00")
		// GROUP BY, HAVING, ORDER BY the sum.
		r.ExpectRows("SELECT g, SUM(price), SUM(qty) FROM o GROUP BY g HAVING SUM(price) > 0.5 ORDER BY SUM(price) DESC",
			"a\t3.00\t3", "b\t0.75\t4")
		expectColumnTypes(t, c, "SELECT g, SUM(price) AS s FROM o GROUP BY g", "VARCHAR DECIMAL")
		// No rows: NULL.
		r.ExpectRows("SELECT SUM(qty), AVG(price) FROM o WHERE k > 100", "NULL\tNULL")
		// DISTINCT.
		r.ExpectRows("SELECT SUM(DISTINCT price) FROM o WHERE k < 3 OR k = 3", "3.75")
		// Window SUM.
		expectColumnTypes(t, c, "SELECT k, SUM(price) OVER (ORDER BY k) FROM o", "INT DECIMAL")
		r.ExpectRows("SELECT k, SUM(price) OVER (ORDER BY k) FROM o ORDER BY k",
			"1\t1.00", "2\t3.00", "3\t3.75", "4\t3.75")
		r.ExpectRows("SELECT k, SUM(qty) OVER (PARTITION BY g) FROM o ORDER BY k",
			"1\t3", "2\t3", "3\t4", "4\t4")
		// In a subquery and in arithmetic.
		r.ExpectRows("SELECT (SELECT SUM(price) FROM o) + 1", "4.75")
		// Prepared statements (binary protocol).
		if got := r.Rows("SELECT SUM(price) FROM o WHERE g = ?", "a"); len(got) != 1 || got[0] != "3.00" {
			t.Fatalf("prepared SUM: %q, want 3.00", got)
		}
	})
}

// mycli's completion refresher reads the help topics and the accounts.
func TestMySQLHelpTables(t *testing.T) {
	ts := sqltest.Start(t, mustOpenMemory(t), sqltest.Options{})
	c := ts.Conn()
	sqltest.NewRunner(t, c).Script(`
		query SELECT name FROM mysql.help_topic WHERE name LIKE "SHOW %"
		query SELECT COUNT(*) FROM mysql.help_topic
		= 0
		query SELECT * FROM mysql.help_keyword
		query SELECT name FROM mysql.help_category ORDER BY name
		query SELECT help_topic_id FROM mysql.help_relation
		query SELECT t.name FROM mysql.help_topic t JOIN mysql.help_relation r ON r.help_topic_id = t.help_topic_id
		query SELECT CONCAT("'", user, "'@'", host, "'") FROM mysql.user WHERE host = 'localhost'
		= 'root'@'localhost'
	`)
}

func mustOpenMemory(t *testing.T) storage.Store {
	s, _ := sqltest.Memory.Open(t)
	return s
}

// TIME values are shown with the column's precision (0) in text rows, not
// with six zero fraction digits; the binary protocol agrees.
func TestTimeText(t *testing.T) {
	c := sqltest.NewRunner(t, sqltest.Session(t, sqltest.Memory, "tm",
		"CREATE TABLE t (k INT NOT NULL PRIMARY KEY, v TIME)",
		"INSERT INTO t VALUES (1, '12:34:56'), (2, '-12:34:56'), (3, '838:59:59'), (4, NULL)"))
	c.ExpectRows("SELECT v FROM t ORDER BY k", "12:34:56", "-12:34:56", "838:59:59", "NULL")
	c.ExpectRows("SELECT CAST('12:00:01' AS TIME)", "12:00:01")
	if got := c.Rows("SELECT v FROM t WHERE k = ?", 1); len(got) != 1 || got[0] != "12:34:56" {
		t.Fatalf("binary protocol: %q", got)
	}
}

// @var := expr in SELECT, as MySQL evaluates it: left to right within a
// row, the value visible to later expressions and later statements.
func TestUserVarAssignment(t *testing.T) {
	ts := sqltest.Start(t, mustOpenMemory(t), sqltest.Options{})
	c := ts.Conn()
	r := sqltest.NewRunner(t, c)
	r.Script(`
		query SELECT @a := 1, @a + 1
		= 1 | 2
		query SELECT @a
		= 1
		query SELECT @a := @a + 10, @b := 'x'
		= 11 | x
		query SELECT @a, @b
		= 11 | x
	`)
	expectColumns(t, c, "SELECT @c := 1 a, @c + 1 b", "a b")
	// A bare read of a variable the statement assigns (the cli check).
	r.Script(`
		query SELECT @n := 1 + 2 AS a, @n AS b
		= 3 | 3
		exec SET @p = 5
		query SELECT @p := @p + 1, @p
		= 6 | 6
		query SELECT @p
		= 6
	`)
	// Prepared (COM_STMT_PREPARE, rewritten on the connection).
	if got := r.Rows("SELECT @w := ? + 1 AS a, @w AS b", 2); strings.Join(got, "|") != "3\t3" {
		t.Fatalf("prepared assignment: %q", got)
	}
	r.Script(`
		exec CREATE DATABASE uv
		exec USE uv
		exec CREATE TABLE orders (k INT NOT NULL PRIMARY KEY, price DECIMAL(10,2), note VARCHAR(20), at DATETIME)
		exec INSERT INTO orders VALUES (1, 1.50, 'a', NULL), (2, 2.50, 'b', NULL)
		exec SET @s := 0
		query SELECT k, @s := @s + k AS running FROM orders ORDER BY k
		= 1 | 1
		= 2 | 3
	`)

	// MariaDB Connector/ODBC's SQLColumns query.
	b, err := os.ReadFile("../testdata/compat/discovery/odbc_sqlcolumns.sql")
	if err != nil {
		t.Fatal(err)
	}
	q := strings.ReplaceAll(string(b), "@@DB@@", "uv")
	got := r.Rows(q)
	if len(got) != 4 {
		t.Fatalf("SQLColumns: %d rows, want 4: %q", len(got), got)
	}
	// TABLE_CAT, TABLE_SCHEM, TABLE_NAME, COLUMN_NAME, DATA_TYPE, TYPE_NAME, COLUMN_SIZE, BUFFER_LENGTH ...
	for i, want := range []string{"uv\tNULL\torders\tk\t4\tINT\t10\t4", "uv\tNULL\torders\tprice\t3\tDECIMAL\t10\t12",
		"uv\tNULL\torders\tnote\t-9\tVARCHAR\t20\t80", "uv\tNULL\torders\tat\t93\tDATETIME\t19\t16"} {
		if !strings.HasPrefix(got[i], want+"\t") {
			t.Errorf("SQLColumns row %d: %q, want prefix %q", i, got[i], want)
		}
	}
}

func expectColumns(t *testing.T, db sqltest.Execer, q, want string) {
	t.Helper()
	var cols []string
	for _, ct := range sqltest.NewRunner(t, db).ColumnTypes(q) {
		cols = append(cols, ct.Name())
	}
	if got := strings.Join(cols, " "); got != want {
		t.Fatalf("%s: columns %q, want %q", q, got, want)
	}
}
