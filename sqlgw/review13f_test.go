package sqlgw_test

import (
	"context"
	gosql "database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// Attack tests of the tenth round of issue 13 (the reviewer r10): the
// conversions and dates of writes, CAST of numbers to dates wherever a
// statement holds one, BIGINT overflow, the session variables the plan
// cache keeps per session, and the row cache under SQL.

// review13fConn is one connection (one session) to a gateway of cfg.
func review13fConn(t *testing.T, cfg sqlgw.Config) *gosql.Conn {
	t.Helper()
	srv := memoryServer(t, cfg)
	db, err := gosql.Open("mysql", fmt.Sprintf("root@tcp(%s)/", srv.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestReview13fBigintOverflow: integer arithmetic beyond BIGINT is MySQL's
// 1690 on every path that writes it (UPDATE by key, by scan, ON
// DUPLICATE KEY UPDATE, INSERT ... SELECT) and nothing is written; within
// range the sum is written.
func TestReview13fBigintOverflow(t *testing.T) {
	rs := review13eRaw(t)
	same := func(q string) string { t.Helper(); return review13eRawSame(t, rs, q) }
	_, want := review13eWant(t, rs)
	for _, q := range []string{"CREATE DATABASE bo", "USE bo",
		"CREATE TABLE t (id INT PRIMARY KEY, b BIGINT, u BIGINT UNSIGNED, i INT)",
		"INSERT INTO t VALUES (1, 9223372036854775807, 0, 2147483647), (2, -9223372036854775808, 18446744073709551615, 0)",
		"CREATE TABLE s (id INT PRIMARY KEY, b BIGINT)"} {
		same(q)
	}
	const over = "error 1690 #22003BIGINT value is out of range in '(`bo`.`t`.`b` + 1)'"
	want("UPDATE t SET b = b + 1 WHERE id = 1", over)
	want("UPDATE t SET b = b + 1", over)
	want("UPDATE t SET b = b + 1 WHERE i > 0", over)
	want("INSERT INTO t (id) VALUES (1) ON DUPLICATE KEY UPDATE b = b + 1", over)
	want("UPDATE t SET u = u - 1 WHERE id = 1", "error 1690 #22003BIGINT UNSIGNED value is out of range in '(`bo`.`t`.`u` - 1)'")
	want("UPDATE t SET u = u + 1 WHERE id = 2", "error 1690 #22003BIGINT UNSIGNED value is out of range in '(`bo`.`t`.`u` + 1)'")
	want("UPDATE t SET b = b - 1 WHERE id = 2", "error 1690 #22003BIGINT value is out of range in '(`bo`.`t`.`b` - 1)'")
	want("INSERT INTO s SELECT id, b + 1 FROM t WHERE id = 1", over)
	// Nothing was written by any of them.
	want("SELECT id, b, u FROM t ORDER BY id", "row \"\\x011\\x139223372036854775807\\x010\"\nrow \"\\x012\\x14-9223372036854775808\\x1418446744073709551615\"\n")
	want("SELECT COUNT(*) FROM s", "row \"\\x010\"\n")
	// INT's own range: the sum fits BIGINT, the column does not (1264).
	want("UPDATE t SET i = i + 1 WHERE id = 1", "error 1264 ")
	// Within range.
	want("UPDATE t SET b = b - 1, u = u + 1 WHERE id = 1", "ok affected 1 ")
	want("SELECT b, u FROM t WHERE id = 1", "row \"\\x139223372036854775806\\x011\"\n")
}

// TestReview13fBlankIntoNumber: ” (and spaces) into a number column is
// 1366 in strict mode on every path, row numbered, also in a multi-row
// INSERT and an UPDATE, and from a prepared statement's parameter; a
// string column takes it as ever.
func TestReview13fBlankIntoNumber(t *testing.T) {
	rs := review13eRaw(t)
	same := func(q string) string { t.Helper(); return review13eRawSame(t, rs, q) }
	_, want := review13eWant(t, rs)
	for _, q := range []string{"CREATE DATABASE bl", "USE bl",
		"CREATE TABLE t (id INT PRIMARY KEY, i INT, s VARCHAR(5), d DECIMAL(5,2))"} {
		same(q)
	}
	want("INSERT INTO t (id, i) VALUES (1, '')", "error 1366 #HY000Incorrect integer value: '' for column 'i' at row 1")
	want("INSERT INTO t (id, i) VALUES (1, 1), (2, '  ')", "error 1366 #HY000Incorrect integer value: '  ' for column 'i' at row 2")
	want("INSERT INTO t (id, s) VALUES (1, '')", "ok affected 1 ")
	want("UPDATE t SET i = '' WHERE id = 1", "error 1366 #HY000Incorrect integer value: '' for column 'i' at row 1")
	want("UPDATE t SET d = '' WHERE id = 1", "error 1366 #HY000Incorrect decimal value: '' for column 'd' at row 1")
	want("SELECT id, i, s FROM t", "row \"\\x011\\xfb\\x00\"\n")

	c := review13fConn(t, sqlgw.Config{})
	r := sqltest.NewRunner(t, c)
	r.ExecAll("CREATE DATABASE bp", "USE bp", "CREATE TABLE t (id INT PRIMARY KEY, i INT)")
	for range 2 {
		r.ExpectMessage(1366, "Incorrect integer value: '' for column 'i' at row 1", "INSERT INTO t VALUES (?, ?)", 1, "")
	}
	r.Exec("SET SESSION sql_mode = ''")
	r.Exec("INSERT INTO t VALUES (?, ?)", 1, "")
	r.ExpectRows("SHOW WARNINGS", "Warning\t1366\tIncorrect integer value: '' for column 'i' at row 1")
	r.ExpectRows("SELECT i FROM t WHERE id = 1", "0")
}

// TestReview13fSessionVarsFollowSets: the plan cache's copies of the
// session's variables (stmtvars.go) follow every way of setting them:
// sql_select_limit, sql_mode, autocommit, by SET in its forms, by a
// prepared SET, each seen by the next cached
// execute.
func TestReview13fSessionVarsFollowSets(t *testing.T) {
	c := review13fConn(t, sqlgw.Config{})
	r := sqltest.NewRunner(t, c)
	r.ExecAll("CREATE DATABASE sv", "USE sv", "CREATE TABLE t (id INT PRIMARY KEY, i INT)", "INSERT INTO t VALUES (1, 10), (2, 20)")
	point := func(want ...string) {
		t.Helper()
		for range 2 {
			if got := r.Rows("SELECT i FROM t WHERE id = ?", 1); strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("prepared point select: %q, want %q", got, want)
			}
			if got := r.Rows("SELECT i FROM t WHERE id = 1"); strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("text point select: %q, want %q", got, want)
			}
		}
	}
	point("10")
	r.Exec("SET SESSION sql_select_limit = 0")
	point()
	r.Exec("SET sql_select_limit = DEFAULT")
	point("10")
	r.Exec("SET @@sql_select_limit = 0")
	point()
	r.Exec("SET @@session.sql_select_limit = 1000")
	point("10")
	r.Exec("PREPARE p FROM 'SET sql_select_limit = 0'")
	r.Exec("EXECUTE p")
	point()
	r.Exec("SET LOCAL sql_select_limit = 5")
	point("10")
	r.Exec("SET sql_select_limit = DEFAULT")
	point("10")

	// sql_mode: strict refuses '' into i, non-strict takes it.
	ins := func(id int, fail bool) {
		t.Helper()
		_, err := c.ExecContext(context.Background(), "INSERT INTO t VALUES (?, '')", id)
		if fail != (err != nil) {
			t.Fatalf("INSERT %d under %v: %v (want an error: %v)", id, r.Rows("SELECT @@sql_mode"), err, fail)
		}
	}
	ins(3, true)
	r.Exec("SET sql_mode = ''")
	ins(3, false)
	r.Exec("SET sql_mode = DEFAULT")
	ins(4, true)
	r.Exec("SET @@SESSION.SQL_MODE = 'NO_ENGINE_SUBSTITUTION'")
	ins(4, false)
	r.Exec("SET SESSION sql_mode = 'STRICT_TRANS_TABLES'")
	ins(5, true)
}

// TestReview13fSetAfterWarnings: a SET after a statement with warnings
// (text or prepared) answers OK with an empty list, whatever the SET
// (a user variable, a system variable to a value or to DEFAULT), and
// the connection lives on.
func TestReview13fSetAfterWarnings(t *testing.T) {
	c := review13fConn(t, sqlgw.Config{})
	r := sqltest.NewRunner(t, c)
	r.ExecAll("CREATE DATABASE sw", "USE sw", "CREATE TABLE t (id INT PRIMARY KEY, i INT)")
	warn := []func(){
		func() { r.Rows("SELECT 1/0") },
		func() { r.Rows("SELECT CAST(? AS SIGNED)", "1x") },
		func() {
			r.Exec("SET sql_mode = ''")
			r.Exec("REPLACE INTO t VALUES (?, '')", 1)
		},
	}
	sets := []string{"SET @a = 1", "SET sql_mode = DEFAULT", "SET SESSION sql_mode = 'STRICT_TRANS_TABLES'", "SET @@sql_select_limit = DEFAULT", "SET autocommit = 1"}
	for i, w := range warn {
		for _, set := range sets {
			w()
			if got := r.Rows("SHOW WARNINGS"); len(got) == 0 {
				t.Fatalf("warning statement %d raised nothing", i)
			}
			r.Exec(set)
			r.ExpectRows("SHOW WARNINGS")
			r.ExpectRows("SELECT 1", "1")
		}
	}
}

// TestReview13fRowCacheSQL: with the row cache under the gateway
// (memoryServer's store has one), point reads by key and by unique
// index answer what the store holds around transactions (a snapshot's
// repeated read, a rollback, a commit of several rows), TRUNCATE and
// DROP and CREATE of the same name, text and prepared.
func TestReview13fRowCacheSQL(t *testing.T) {
	srv := memoryServer(t, sqlgw.Config{})
	db, err := gosql.Open("mysql", fmt.Sprintf("root@tcp(%s)/", srv.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	conn := func() (*gosql.Conn, *sqltest.Runner) {
		c, err := db.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c, sqltest.NewRunner(t, c)
	}
	_, a := conn()
	_, b := conn()
	a.ExecAll("CREATE DATABASE rc", "USE rc", "CREATE TABLE t (id INT PRIMARY KEY, v INT, u INT, UNIQUE KEY ku (u))", "INSERT INTO t VALUES (1, 1, 1), (2, 2, 2)")
	b.Exec("USE rc")
	read := func(r *sqltest.Runner, id int, want ...string) {
		t.Helper()
		for range 2 {
			if got := r.Rows("SELECT v FROM t WHERE id = ?", id); strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("prepared read of %d: %q, want %q", id, got, want)
			}
			if got := r.Rows(fmt.Sprintf("SELECT v FROM t WHERE id = %d", id)); strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("text read of %d: %q, want %q", id, got, want)
			}
			if got := r.Rows("SELECT v FROM t WHERE u = ?", id); strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("unique index read of %d: %q, want %q", id, got, want)
			}
		}
	}
	read(a, 1, "1")
	read(b, 1, "1")
	// A snapshot's repeated read, while another session commits.
	a.Exec("BEGIN")
	read(a, 1, "1")
	b.Exec("UPDATE t SET v = 10 WHERE id = 1")
	read(b, 1, "10")
	read(a, 1, "1")
	a.Exec("COMMIT")
	read(a, 1, "10")
	// A rollback.
	a.Exec("BEGIN")
	a.Exec("UPDATE t SET v = 20 WHERE id = 1")
	read(a, 1, "20")
	read(b, 1, "10")
	a.Exec("ROLLBACK")
	read(a, 1, "10")
	read(b, 1, "10")
	// A transaction over both rows.
	a.Exec("BEGIN")
	a.Exec("UPDATE t SET v = v + 100 WHERE id IN (1, 2)")
	read(b, 2, "2")
	a.Exec("COMMIT")
	read(b, 1, "110")
	read(b, 2, "102")
	// Deletes, TRUNCATE, DROP and CREATE under the same name.
	b.Exec("DELETE FROM t WHERE id = 2")
	read(a, 2)
	a.Exec("TRUNCATE TABLE t")
	read(b, 1)
	a.Exec("INSERT INTO t VALUES (1, 30, 1)")
	read(b, 1, "30")
	a.Exec("DROP TABLE t")
	a.Exec("CREATE TABLE t (id INT PRIMARY KEY, v INT, u INT, UNIQUE KEY ku (u))")
	read(b, 1)
	a.Exec("INSERT INTO t VALUES (1, 40, 1)")
	read(b, 1, "40")
}

// TestReview13fUnsignedArithmeticSelect: integer arithmetic with a
// BIGINT UNSIGNED operand is unsigned (MySQL), in a SELECT list too:
// below 0 it is 1690; a result above BIGINT's range is returned, not an
// error or a wrapped value.
func TestReview13fUnsignedArithmeticSelect(t *testing.T) {
	rs := review13eRaw(t)
	same := func(q string) string { t.Helper(); return review13eRawSame(t, rs, q) }
	_, want := review13eWant(t, rs)
	for _, q := range []string{"CREATE DATABASE ua", "USE ua",
		"CREATE TABLE t (id INT PRIMARY KEY, u BIGINT UNSIGNED, b BIGINT)",
		"INSERT INTO t VALUES (1, 9223372036854775807, 1), (2, 0, -1)"} {
		same(q)
	}
	// go-mysql-server types u + 1 BIGINT (unsigned only when both
	// operands are): 9223372036854775807 (clamped) before the eleventh
	// session, numbercast.go's sqlgw_unsigned_arith since.
	want("SELECT u + 1 FROM t WHERE id = 1", "row \"\\x139223372036854775808\"\n")
	want("SELECT u + b FROM t WHERE id = 1", "row \"\\x139223372036854775808\"\n")
	want("SELECT u + 1 FROM t WHERE id > 0 ORDER BY id LIMIT 1", "row \"\\x139223372036854775808\"\n")
	want("SELECT (u + 1) - 1 FROM t WHERE id = 1", "row \"\\x139223372036854775807\"\n")
	want("SELECT u + 1 + 1 FROM t WHERE id = 1", "row \"\\x139223372036854775809\"\n")
	want("SELECT u * 2 FROM t WHERE id = 1", "row \"\\x1418446744073709551614\"\n")
	want("SELECT u * 3 FROM t WHERE id = 1", "error 1690 #22003BIGINT UNSIGNED value is out of range in '(`ua`.`t`.`u` * 3)'")
	want("SELECT u * 2 + 2 FROM t WHERE id = 1", "error 1690 #22003BIGINT UNSIGNED value is out of range in '((`ua`.`t`.`u` * 2) + 2)'")
	want("SELECT b + 1 FROM t WHERE id = 2", "row \"\\x010\"\n")
	want("SELECT u - 1 FROM t WHERE id = 2", "error 1690 #22003BIGINT UNSIGNED value is out of range in '(`ua`.`t`.`u` - 1)'")
	want("SELECT u + b FROM t WHERE id = 2", "error 1690 #22003BIGINT UNSIGNED value is out of range in '(`ua`.`t`.`u` + `ua`.`t`.`b`)'")

	c := review13fConn(t, sqlgw.Config{})
	r := sqltest.NewRunner(t, c)
	r.ExecAll("CREATE DATABASE up", "USE up", "CREATE TABLE t (id INT PRIMARY KEY, u BIGINT UNSIGNED)", "INSERT INTO t VALUES (1, 9223372036854775807)")
	for range 3 { // the second and third from the plan caches
		r.ExpectRows("SELECT u + 1 FROM t WHERE id = 1", "9223372036854775808")
		if got := r.Rows("SELECT u + ? FROM t WHERE id = ?", 1, 1); strings.Join(got, ",") != "9223372036854775808" {
			t.Errorf("prepared u + ?: %q, want 9223372036854775808", got)
		}
	}
}
