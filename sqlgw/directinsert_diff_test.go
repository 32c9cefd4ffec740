package sqlgw_test

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/sqlgw"
	"github.com/sqlgw/sqlgw/sqlgw/engine"
)

// insertDiffConn starts a gateway with cfg and returns a vitess client
// connection to it.
func insertDiffConn(t *testing.T, cfg sqlgw.Config) *mysql.Conn {
	t.Helper()
	srv := memoryServer(t, cfg)
	host, port, _ := net.SplitHostPort(srv.Addr().String())
	p, _ := strconv.Atoi(port)
	c, err := mysql.Connect(context.Background(), &mysql.ConnParams{Host: host, Port: p, Uname: "root"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// compareWritePaths runs each statement of steps on the three gateways of
// a write differential test (direct execution, the plan cache run by
// go-mysql-server, no plan cache) and fails the test where what a client
// sees of it (writeRun) differs.
func compareWritePaths(t *testing.T, direct, cached, general *mysql.Conn, steps []string) {
	t.Helper()
	for i, q := range steps {
		a, b, c := writeRun(direct, q), writeRun(cached, q), writeRun(general, q)
		if a != b || a != c {
			t.Errorf("step %d: %s\ndirect:\n%s\ncached, executed by go-mysql-server:\n%s\nwithout the plan cache:\n%s", i, q, a, b, c)
		}
	}
}

// TestDirectInsertDiff runs INSERT ... VALUES statements of the cached
// shapes against three gateways: the plan cache with direct execution
// (engine/directinsert.go), the plan cache with go-mysql-server's executor
// (Config.NoDirect) and no plan cache at all; everything a client sees of
// each statement (writeRun: rows affected, insert id, info, warnings,
// ROW_COUNT(), LAST_INSERT_ID(), the error) and the tables' contents after
// must be the same. Each statement runs twice in a row (the second from
// the cache) where that makes sense.
func TestDirectInsertDiff(t *testing.T) {
	direct := insertDiffConn(t, sqlgw.Config{})
	cached := insertDiffConn(t, sqlgw.Config{NoDirect: true})
	general := insertDiffConn(t, sqlgw.Config{NoPlanCache: true})
	n0, t0, b0 := engine.DirectInsertCount(), engine.InsertTextCount(), engine.BulkValuesInsertCount()
	compareWritePaths(t, direct, cached, general, directInsertSteps)
	// Bulk INSERTs of literals with only their first tuple parsed
	// (directinsert_values.go).
	if nb := engine.BulkValuesInsertCount() - b0; nb < 200 {
		t.Errorf("only %d bulk INSERTs ran with their first tuple parsed", nb)
	} else {
		t.Logf("%d bulk INSERTs ran with their first tuple parsed", nb)
	}
	n := engine.DirectInsertCount() - n0
	t.Logf("%d INSERTs executed directly", n)
	if n < 100 {
		t.Errorf("only %d INSERTs were executed directly", n)
	}
	// Texts of a known template run without their parse
	// (directinsert_text.go).
	if nt := engine.InsertTextCount() - t0; nt < 100 {
		t.Errorf("only %d INSERTs ran from their text template", nt)
	} else {
		t.Logf("%d INSERTs ran from their text template", nt)
	}
	// The second run of a shape is a hit of the plan built by the first
	// (a write plan once never stayed valid: it lacked the session's
	// div_precision_increment).
	res, err := direct.ExecuteFetch("SHOW SESSION STATUS LIKE 'Plan_cache_hits'", 1, false)
	if err != nil || len(res.Rows) != 1 {
		t.Fatalf("Plan_cache_hits: %v", err)
	}
	hits, _ := strconv.Atoi(res.Rows[0][1].ToString())
	t.Logf("%d plan cache hits", hits)
	if hits < 200 {
		t.Errorf("only %d plan cache hits", hits)
	}
}

// directInsertSteps: each INSERT is listed twice where the second run
// must come from the cache with other values of the same types.
var directInsertSteps = func() []string {
	steps := []string{
		"CREATE DATABASE di", "USE di",
		// Every column type, at its limits and past them.
		`CREATE TABLE ty (id INT PRIMARY KEY, ti TINYINT, tu TINYINT UNSIGNED, si SMALLINT, su SMALLINT UNSIGNED,
			mi MEDIUMINT, mu MEDIUMINT UNSIGNED, i INT, iu INT UNSIGNED, bi BIGINT, bu BIGINT UNSIGNED,
			de DECIMAL(5,2), fl FLOAT, db DOUBLE, ch CHAR(4), vc VARCHAR(5), bn BINARY(3), vb VARBINARY(4),
			tx TINYTEXT, bl BLOB, dt DATE, dtt DATETIME(3), ts TIMESTAMP NULL, tm TIME, yr YEAR,
			en ENUM('a','b','c'), st SET('x','y','z'), bt BIT(5), js JSON)`,
	}
	cols := "id, ti, tu, si, su, mi, mu, i, iu, bi, bu, de, fl, db, ch, vc, bn, vb, tx, bl, dt, dtt, ts, tm, yr, en, st, bt, js"
	rows := []string{
		"1, 127, 255, 32767, 65535, 8388607, 16777215, 2147483647, 4294967295, 9223372036854775807, 18446744073709551615, '999.99', '3.4e38', '1.7e308', 'abcd', 'abcde', 'abc', 'abcd', 'tiny', 'blob', '9999-12-31', '9999-12-31 23:59:59.999', '2038-01-19 03:14:07', '838:59:59', 2155, 'c', 'x,z', 31, '{\"a\": [1, 2]}'",
		"2, -128, 0, -32768, 0, -8388608, 0, -2147483648, 0, -9223372036854775808, 0, '-999.99', '-3.4e38', '-1.7e308', '', '', '', '', '', '', '1000-01-01', '1000-01-01 00:00:00', '1970-01-01 00:00:01', '-838:59:59', 1901, 'a', '', 0, 'null'",
		"3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL",
		"4, '12', '13', '-5', '6', '7', '8', '9', '10', '11', '12', 12, 13, 14, 'ab', 'é', 'a', 'ab', 'é', 'b', '2020-02-29', '2020-02-29 12:34:56.789', '2020-02-29 12:34:56', '12:34:56', '1999', 2, 3, 5, '[]'",
	}
	for _, r := range rows {
		steps = append(steps, "INSERT INTO ty ("+cols+") VALUES ("+r+")")
	}
	// Past the limits, in strict mode (errors) and not (warnings, clamped).
	bad := map[string][]string{
		"ti": {"128", "-129", "'x'", "'1x'"}, "tu": {"256", "-1"}, "si": {"32768"}, "su": {"65536"}, "mi": {"8388608"},
		"mu": {"16777216"}, "i": {"2147483648", "'2147483648'"}, "iu": {"4294967296", "-1"}, "bi": {"9223372036854775808"},
		"bu": {"-1", "'18446744073709551616'"}, "de": {"'1000.00'", "'12.345'", "'abc'"}, "fl": {"'3.5e38'"}, "db": {"'1e309'"},
		"ch": {"'abcde'"}, "vc": {"'abcdef'"}, "bn": {"'abcd'"}, "vb": {"'abcde'"}, "tx": {"'" + strings.Repeat("t", 256) + "'"},
		"dt": {"'2020-02-30'", "'x'", "20200230"}, "dtt": {"'2020-13-01 00:00:00'"}, "ts": {"'2040-01-01 00:00:00'", "'1969-12-31 23:59:59'"},
		"tm": {"'839:00:00'"}, "yr": {"1900", "2156", "'x'"}, "en": {"'d'", "4", "0"}, "st": {"'w'", "8"}, "bt": {"32", "'ab'"},
		"js": {"'{bad'", "'[1,'"},
	}
	order := []string{"ti", "tu", "si", "su", "mi", "mu", "i", "iu", "bi", "bu", "de", "fl", "db", "ch", "vc", "bn", "vb", "tx", "dt", "dtt", "ts", "tm", "yr", "en", "st", "bt", "js"}
	id := 100
	for _, mode := range []string{"SET sql_mode = DEFAULT", "SET sql_mode = ''", "SET sql_mode = 'STRICT_TRANS_TABLES'", "SET sql_mode = DEFAULT"} {
		steps = append(steps, mode)
		for _, c := range order {
			for _, v := range bad[c] {
				id++
				steps = append(steps, fmt.Sprintf("INSERT INTO ty (id, %s) VALUES (%d, %s)", c, id, v))
			}
		}
	}
	steps = append(steps, "SELECT * FROM ty ORDER BY id")

	// NULL into NOT NULL, defaults, AUTO_INCREMENT, duplicates.
	steps = append(steps,
		"CREATE TABLE nn (id INT AUTO_INCREMENT PRIMARY KEY, a INT NOT NULL, b VARCHAR(10) NOT NULL DEFAULT 'dflt', c INT DEFAULT 42, d DATETIME DEFAULT CURRENT_TIMESTAMP, e ENUM('p','q') NOT NULL, u INT, UNIQUE KEY uu (u))",
		"INSERT INTO nn (a, e) VALUES (1, 'p')", "INSERT INTO nn (a, e) VALUES (2, 'q')",
		"INSERT INTO nn (a) VALUES (3)", "INSERT INTO nn (a) VALUES (4)",
		"INSERT INTO nn (a, b) VALUES (NULL, 'x')", "INSERT INTO nn (a, b) VALUES (5, NULL)", "INSERT INTO nn (a, b) VALUES (6, 'y')",
		"INSERT INTO nn (id, a) VALUES (0, 7)", "INSERT INTO nn (id, a) VALUES (NULL, 8)", "INSERT INTO nn (id, a) VALUES (50, 9)",
		"INSERT INTO nn (id, a) VALUES (0, 10)", "INSERT INTO nn (id, a) VALUES (50, 11)", "INSERT INTO nn (id, a) VALUES (-3, 12)",
		"INSERT INTO nn (id, a) VALUES (0, 13), (0, 14), (0, 15)", "INSERT INTO nn (id, a) VALUES (70, 16), (0, 17), (NULL, 18)",
		"INSERT INTO nn (id, a) VALUES (80, 19), (81, 20)", "INSERT INTO nn (id, a) VALUES (0, 21), (81, 22)",
		"INSERT INTO nn (id, a) VALUES (0, 23), (0, NULL)", "INSERT INTO nn (id, a) VALUES (0, 24), (0, 'zz')",
		"INSERT INTO nn (a, u) VALUES (25, 1)", "INSERT INTO nn (a, u) VALUES (26, 1)", "INSERT INTO nn (a, u) VALUES (27, 2), (28, 2)", "INSERT INTO nn (a, u) VALUES (27, 5), (28, NULL)",
		"INSERT INTO nn (a, u) VALUES (29, 3), (30, NULL)", "INSERT INTO nn (a, u) VALUES (31, NULL), (32, NULL)",
		"SET sql_mode = 'NO_AUTO_VALUE_ON_ZERO'", "INSERT INTO nn (id, a) VALUES (0, 33)", "INSERT INTO nn (id, a) VALUES (0, 34)",
		"INSERT INTO nn (id, a) VALUES (NULL, 35)", "INSERT INTO nn (a, b) VALUES (NULL, 'n')", "INSERT INTO nn (a, b) VALUES (36, 'toolongvalue')",
		"SET sql_mode = DEFAULT",
		"INSERT INTO nn VALUES (200, 37, 'all', 1, '2020-01-01 00:00:00', 'q', 9)", "INSERT INTO nn VALUES (201, 38, 'all', 2, '2020-01-01 00:00:00', 'p', 10)",
		"INSERT INTO nn VALUES (202, 39)", "INSERT INTO nn (id, a, b) VALUES (203, 40)",
		"SELECT id, a, b, c, d IS NOT NULL, e, u FROM nn ORDER BY id",
		"SELECT LAST_INSERT_ID()",
	)
	// Primary keys of several columns, duplicates within one statement,
	// a multi-row statement failing in its middle: nothing written.
	steps = append(steps,
		"CREATE TABLE pk (a INT, b VARCHAR(5), v INT, PRIMARY KEY (a, b))",
		"INSERT INTO pk (a, b, v) VALUES (1, 'x', 1)", "INSERT INTO pk (a, b, v) VALUES (1, 'y', 2)", "INSERT INTO pk (a, b, v) VALUES (1, 'x', 3)",
		"INSERT INTO pk (a, b, v) VALUES (2, 'x', 4), (2, 'x', 5)", "INSERT INTO pk (a, b, v) VALUES (3, 'x', 6), (3, 'y', 7), (3, 'toolong', 8)",
		"INSERT INTO pk (a, b, v) VALUES (4, 'x', 9), (4, 'y', 10), (4, 'z', 11)", "INSERT INTO pk (a, b, v) VALUES (5, 'x', 9), (5, 'y', 10), (1, 'y', 11)",
		"INSERT INTO pk (a, b, v) VALUES (6, 'X', 1)", "INSERT INTO pk (a, b, v) VALUES (6, 'x', 2)",
		"SELECT * FROM pk ORDER BY a, b",
		// Transactions: buffered, rolled back, committed; a failed
		// statement inside one.
		"BEGIN", "INSERT INTO pk (a, b, v) VALUES (10, 'a', 1)", "INSERT INTO pk (a, b, v) VALUES (10, 'b', 2)", "INSERT INTO pk (a, b, v) VALUES (10, 'a', 3)",
		"INSERT INTO pk (a, b, v) VALUES (11, 'a', 1), (10, 'b', 2)", "SELECT * FROM pk WHERE a >= 10 ORDER BY a, b", "ROLLBACK",
		"SELECT * FROM pk WHERE a >= 10 ORDER BY a, b",
		"BEGIN", "INSERT INTO pk (a, b, v) VALUES (12, 'a', 1)", "INSERT INTO pk (a, b, v) VALUES (12, 'b', 2)", "INSERT INTO pk (a, b, v) VALUES (12, 'a', 3)", "COMMIT",
		"SET autocommit = 0", "INSERT INTO pk (a, b, v) VALUES (13, 'a', 1)", "INSERT INTO pk (a, b, v) VALUES (13, 'b', 1)", "ROLLBACK",
		"INSERT INTO pk (a, b, v) VALUES (14, 'a', 1)", "COMMIT", "SET autocommit = 1",
		"SELECT * FROM pk WHERE a >= 10 ORDER BY a, b",
		// A multi-row statement first to write the table in its
		// transaction (its buffer sized for its rows: editor.expect)
		// failing in its middle, then writing its keys again.
		"BEGIN", "INSERT INTO pk (a, b, v) VALUES (15, 'a', 1), (15, 'b', 2), (15, 'a', 3), (15, 'c', 4)",
		"INSERT INTO pk (a, b, v) VALUES (15, 'b', 5), (15, 'a', 6)", "INSERT INTO pk (a, b, v) VALUES (15, 'c', 7), (15, 'b', 8)", "COMMIT",
		"SELECT * FROM pk WHERE a >= 15 ORDER BY a, b",
		"INSERT INTO nn (a) VALUES (100)", "BEGIN", "INSERT INTO nn (a) VALUES (101)", "INSERT INTO nn (a) VALUES (102), (103)", "ROLLBACK",
		"INSERT INTO nn (a) VALUES (104)", "SELECT id, a FROM nn WHERE a >= 100 ORDER BY id", "SELECT LAST_INSERT_ID()",
		// A CHECK constraint, a table without a primary key, a global
		// index.
		"CREATE TABLE ck (id INT PRIMARY KEY, v INT, CHECK (v > 0))",
		"INSERT INTO ck (id, v) VALUES (1, 1)", "INSERT INTO ck (id, v) VALUES (2, 0)", "INSERT INTO ck (id, v) VALUES (3, 5), (4, -1)",
		"INSERT INTO ck (id, v) VALUES (5, NULL)", "SELECT * FROM ck ORDER BY id",
		"CREATE TABLE kl (a INT, b VARCHAR(3))",
		"INSERT INTO kl (a, b) VALUES (1, 'a')", "INSERT INTO kl (a, b) VALUES (1, 'a')", "INSERT INTO kl (a, b) VALUES (2, 'b'), (2, 'b')",
		"INSERT INTO kl VALUES (3, 'c')", "INSERT INTO kl VALUES (4, 'dddd')", "SELECT * FROM kl ORDER BY a, b",
		// Strings converted to themselves (directinsert.go stringAsIs):
		// at and past the limits in bytes and characters, other
		// character sets, invalid UTF-8 in strict and non-strict mode.
		"CREATE TABLE sx (id INT PRIMARY KEY, c CHAR(3), v VARCHAR(3), t TINYTEXT, l VARCHAR(3) CHARACTER SET latin1, b VARBINARY(3))",
		"INSERT INTO sx VALUES (1, 'abc', 'abc', 'abc', 'abc', 'abc')", "INSERT INTO sx VALUES (2, 'éé', 'ééé', 'é', 'ééé', 'ab')",
		"INSERT INTO sx VALUES (3, 'éééé', 'a', 'a', 'a', 'a')", "INSERT INTO sx VALUES (4, 'a', 'abcd', 'a', 'a', 'a')",
		"INSERT INTO sx VALUES (5, 'a', 'a', '"+strings.Repeat("é", 128)+"', 'a', 'a')", "INSERT INTO sx VALUES (6, 'a', 'a', 'a', 'éééé', 'a')",
		"INSERT INTO sx VALUES (7, 'a\xffb', 'a', 'a', 'a', 'a')", "INSERT INTO sx VALUES (8, 'a', 'a\xff', 'a', 'a', 'a')",
		"INSERT INTO sx VALUES (9, 'a', 'a', 'a\xfe', 'a', 'a')", "INSERT INTO sx VALUES (10, 'a', 'a', 'a', 'a\xff', 'a\xff')",
		"SET sql_mode = ''",
		"INSERT INTO sx VALUES (11, 'a\xffb', 'a', 'a', 'a', 'a')", "INSERT INTO sx VALUES (12, 'a', 'a\xff', 'a', 'a', 'a')",
		"INSERT INTO sx VALUES (13, 'a', 'a', 'a\xfe', 'a', 'a')", "INSERT INTO sx VALUES (14, 'a', 'a', 'a', 'a\xff', 'a\xff')",
		"INSERT INTO sx VALUES (15, 'abcd', 'abcd', '"+strings.Repeat("t", 256)+"', 'abcd', 'abcd')",
		"SET sql_mode = DEFAULT",
		"SELECT id, HEX(c), HEX(v), HEX(t), HEX(l), HEX(b) FROM sx ORDER BY id",
		"CREATE TABLE gi (id INT PRIMARY KEY, k INT, e VARCHAR(10), KEY kk (k), UNIQUE KEY ee (e))",
		"INSERT INTO gi (id, k, e) VALUES (1, 5, 'a')", "INSERT INTO gi (id, k, e) VALUES (2, 5, 'b')", "INSERT INTO gi (id, k, e) VALUES (3, 6, 'a')",
		"INSERT INTO gi (id, k, e) VALUES (4, 7, 'c'), (5, 8, 'c')", "INSERT INTO gi (id, k, e) VALUES (6, 9, 'A')",
		"SELECT * FROM gi ORDER BY id", "SELECT id FROM gi WHERE k = 5 ORDER BY id", "SELECT id FROM gi WHERE e = 'c'",
		// sysbench's shapes.
		"CREATE TABLE sbtest1 (id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' NOT NULL, c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id))",
		"CREATE INDEX k_1 ON sbtest1 (k)",
	)
	for i := range 20 {
		steps = append(steps, fmt.Sprintf("INSERT INTO sbtest1 (id, k, c, pad) VALUES (0, %d, '%011d-%011d', '%011d')", 5000+i, i, i*7, i*3))
	}
	for i := range 3 {
		var sb strings.Builder
		sb.WriteString("INSERT INTO sbtest1 (k, c, pad) VALUES ")
		for r := range 4 {
			if r > 0 {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, "(%d, 'c%d', 'p%d')", i*10+r, r, r)
		}
		steps = append(steps, sb.String())
	}
	steps = append(steps, "INSERT INTO sbtest1 (id, k, c, pad) VALUES (5, 1, 'dup', 'dup')", "INSERT INTO sbtest1 (id, k, c, pad) VALUES (0, 1, 'x', '"+strings.Repeat("p", 61)+"')",
		"SELECT * FROM sbtest1 ORDER BY id", "SELECT id FROM sbtest1 WHERE k = 5003")
	// Large multi-row INSERTs, over the plan cache's size: executed
	// directly uncached (directinsert_bulk.go), or declined after the
	// parse (a trigger, a foreign key).
	bulk := func(table string, from, n int, row func(i int) string) string {
		var sb strings.Builder
		sb.WriteString("INSERT INTO " + table + " VALUES ")
		for i := from; i < from+n; i++ {
			if i > from {
				sb.WriteString(",\n")
			}
			sb.WriteString("(" + row(i) + ")")
		}
		return sb.String()
	}
	plain := func(i int) string {
		return fmt.Sprintf("%d, %d, 'c-%05d-%s', 'pad %d'", i, i%97, i, strings.Repeat("x", i%30), i)
	}
	steps = append(steps,
		"CREATE TABLE bk (id INT NOT NULL AUTO_INCREMENT, k INT NOT NULL DEFAULT 0, c VARCHAR(40) NOT NULL, pad CHAR(10), PRIMARY KEY (id), KEY k_1 (k))",
		bulk("bk", 1, 200, plain), bulk("bk", 201, 200, plain), bulk("bk (id, k, c, pad)", 401, 200, plain),
		bulk("bk", 150, 200, plain), // duplicate keys from the first row on
		bulk("bk", 601, 200, func(i int) string {
			if i == 700 {
				return "0, 1, 'dup', NULL), (690, 1, 'dup again', NULL"
			}
			return plain(i)
		}),
		bulk("bk", 801, 200, func(i int) string {
			if i == 900 {
				return "900, 1, '" + strings.Repeat("y", 41) + "', 'p'"
			}
			return plain(i)
		}),
		bulk("bk", 1001, 200, func(i int) string {
			if i == 1100 {
				return "1100, NULL, 'null k', 'p'"
			}
			return plain(i)
		}),
		bulk("bk", 1201, 200, func(i int) string {
			if i%3 == 0 {
				return fmt.Sprintf("0, %d, 'ai %d', NULL", i, i)
			}
			if i%3 == 1 {
				return fmt.Sprintf("NULL, %d, 'ai %d', 'p'", i, i)
			}
			return plain(i)
		}),
		"SELECT LAST_INSERT_ID()",
		bulk("bk (k, c)", 0, 300, func(i int) string { return fmt.Sprintf("%d, 'generated id %d'", i, i) }),
		"SELECT COUNT(*), SUM(k), MIN(id), MAX(id) FROM bk", "SELECT * FROM bk WHERE id > 1390 ORDER BY id LIMIT 20",
		"SET sql_mode = ''",
		bulk("bk", 2001, 200, func(i int) string {
			if i == 2100 {
				return "2100, 'nan', '" + strings.Repeat("z", 50) + "', 'overlong pad'"
			}
			return plain(i)
		}),
		"SET sql_mode = DEFAULT",
		"SELECT * FROM bk WHERE id BETWEEN 2098 AND 2102 ORDER BY id",
		"BEGIN", bulk("bk", 3001, 200, plain), "SELECT COUNT(*) FROM bk", bulk("bk", 3101, 200, plain), "SELECT COUNT(*) FROM bk", "ROLLBACK",
		"SELECT COUNT(*) FROM bk",
		"BEGIN", bulk("bk", 3001, 200, plain), "COMMIT", "SELECT COUNT(*), SUM(k) FROM bk", "SELECT id FROM bk WHERE k = 5 ORDER BY id LIMIT 50",
		"CREATE TABLE bklog (n INT)", "CREATE TRIGGER bkt AFTER INSERT ON bk FOR EACH ROW INSERT INTO bklog VALUES (NEW.id)",
		bulk("bk", 4001, 200, plain), "SELECT COUNT(*), SUM(n) FROM bklog", "DROP TRIGGER bkt",
		"CREATE TABLE bkp (id INT PRIMARY KEY)", "INSERT INTO bkp VALUES (1), (2)",
		"CREATE TABLE bkc (id INT PRIMARY KEY, p INT, c VARCHAR(40), FOREIGN KEY (p) REFERENCES bkp (id))",
		bulk("bkc", 1, 200, func(i int) string { return fmt.Sprintf("%d, %d, '%s'", i, 1+i%2, strings.Repeat("f", 30)) }),
		bulk("bkc", 301, 200, func(i int) string { return fmt.Sprintf("%d, %d, '%s'", i, 1+i%3, strings.Repeat("f", 30)) }),
		"SELECT COUNT(*) FROM bkc",
	)
	// Bulk INSERTs of literals only, run with only their first tuple
	// parsed (directinsert_values.go): the binder's integer types at
	// their boundaries, conversions, errors and warnings in strict and
	// non-strict mode, AUTO_INCREMENT, duplicates, heads written in other
	// ways, and texts the scan or the plan declines.
	head := func(h string, n int, row func(i int) string) string {
		var sb strings.Builder
		sb.WriteString(h)
		for i := range n {
			if i > 0 {
				sb.WriteString(",")
			}
			sb.WriteString("(" + row(i) + ")")
		}
		return sb.String()
	}
	ints := []string{"0", "1", "127", "128", "255", "256", "32767", "32768", "65535", "65536", "2147483647", "2147483648",
		"4294967295", "4294967296", "9223372036854775807", "9223372036854775808", "18446744073709551615"}
	str := func(i int) string { return fmt.Sprintf("'%08d-%s'", i, strings.Repeat("s", i%20)) }
	for _, mode := range []string{"SET sql_mode = DEFAULT", "SET sql_mode = ''"} {
		steps = append(steps, mode, "DROP TABLE IF EXISTS bv",
			`CREATE TABLE bv (id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, ti TINYINT, tu TINYINT UNSIGNED, si SMALLINT,
				bu BIGINT UNSIGNED, c CHAR(30) NOT NULL DEFAULT 'd', u INT, UNIQUE KEY uu (u), KEY kc (c))`)
		for _, col := range []string{"bu", "ti", "tu", "si", "c", "u"} {
			for _, v := range ints {
				steps = append(steps, head("INSERT INTO bv ("+col+", c) VALUES ", 250, func(i int) string {
					if col == "c" {
						return v + ", " + str(i)
					}
					if i == 75 {
						return v + ", " + str(i)
					}
					return "1, " + str(i)
				}))
			}
		}
		steps = append(steps,
			"SELECT COUNT(*), SUM(bu), SUM(ti), SUM(tu), SUM(si), MAX(c) FROM bv", "SELECT LAST_INSERT_ID()",
			// sysbench's own head, no spaces; generated ids.
			head("INSERT INTO bv(tu, c, si) VALUES", 300, func(i int) string { return fmt.Sprintf("%d,%s,%d", i%200, str(i), i) }),
			// Backquotes, a qualified name, lower case, a semicolon.
			head("insert into `di`.`bv` (`tu`, `c`) values ", 200, func(i int) string { return fmt.Sprintf("%d, %s", i%100, str(i)) })+";",
			// NULL: into NOT NULL, into the AUTO_INCREMENT column, first.
			head("INSERT INTO bv (c, tu) VALUES ", 200, func(i int) string {
				if i == 120 {
					return "NULL, 1"
				}
				return str(i) + ", NULL"
			}),
			head("INSERT INTO bv (id, c) VALUES ", 200, func(i int) string {
				switch i % 4 {
				case 0:
					return "NULL, " + str(i)
				case 1:
					return "0, " + str(i)
				}
				return fmt.Sprintf("%d, %s", 900000+i, str(i))
			}), "SELECT LAST_INSERT_ID()",
			head("INSERT INTO bv (id, c) VALUES ", 200, func(i int) string {
				if i < 10 {
					return fmt.Sprintf("%d, %s", 800000+i, str(i))
				}
				return "0, " + str(i)
			}), "SELECT LAST_INSERT_ID()",
			head("INSERT INTO bv (id, c) VALUES ", 200, func(i int) string { return fmt.Sprintf("%d, %s", 700000+i, str(i)) }), "SELECT LAST_INSERT_ID()",
			"SET sql_mode = CONCAT(@@sql_mode, ',NO_AUTO_VALUE_ON_ZERO')",
			head("INSERT INTO bv (id, c) VALUES ", 200, func(i int) string {
				if i == 0 {
					return "0, 'zero'"
				}
				if i == 50 {
					return "NULL, 'null'"
				}
				return fmt.Sprintf("%d, %s", 600000+i, str(i))
			}), "SELECT LAST_INSERT_ID()", mode,
			// Too long, not a number, a duplicate key in the statement
			// and with a stored row (the error names the right row).
			head("INSERT INTO bv (c, si) VALUES ", 200, func(i int) string {
				if i == 130 {
					return "'" + strings.Repeat("l", 31) + "', 1"
				}
				return str(i) + ", 1"
			}),
			head("INSERT INTO bv (c, si) VALUES ", 200, func(i int) string {
				if i == 140 {
					return str(i) + ", 'abc'"
				}
				return str(i) + ", 2"
			}),
			head("INSERT INTO bv (c, si) VALUES ", 200, func(i int) string {
				if i == 100 {
					return "'inv\xffalid', 3"
				}
				return str(i) + ", 3"
			}),
			head("INSERT INTO bv (c, si) VALUES ", 200, func(i int) string { return fmt.Sprintf("'%s', 4", strings.Repeat("é", 30)) }),
			head("INSERT INTO bv (c, si) VALUES ", 200, func(i int) string { return fmt.Sprintf("'%s', 5", strings.Repeat("é", 30+i/199)) }),
			head("INSERT INTO bv (c, u) VALUES ", 200, func(i int) string { return fmt.Sprintf("%s, %d", str(i), 5000+i%190) }),
			head("INSERT INTO bv (c, u) VALUES ", 200, func(i int) string { return fmt.Sprintf("%s, %d", str(i), 6000+i) }),
			head("INSERT INTO bv (c, u) VALUES ", 200, func(i int) string { return fmt.Sprintf("%s, %d", str(i), 6199-i) }),
			head("INSERT INTO bv (id, c) VALUES ", 200, func(i int) string { return fmt.Sprintf("%d, %s", 500000+i, str(i)) }),
			head("INSERT INTO bv (id, c) VALUES ", 200, func(i int) string { return fmt.Sprintf("%d, %s", 500199-i, str(i)) }),
			// Declined by the scan or the plan: the general path.
			head("INSERT INTO bv (c, u) VALUES ", 200, func(i int) string {
				if i == 100 {
					return str(i)
				}
				return fmt.Sprintf("%s, %d", str(i), 7000+i)
			}),
			head("INSERT INTO bv (c, u) VALUES ", 200, func(i int) string { return fmt.Sprintf("%s, %d", str(i), -7000-i) }),
			head("INSERT INTO bv (c, u) VALUES ", 200, func(i int) string { return fmt.Sprintf("%s, DEFAULT", str(i)) }),
			head("INSERT INTO bv (c, nope) VALUES ", 200, func(i int) string { return fmt.Sprintf("%s, %d", str(i), i) }),
			head("INSERT INTO nope (c) VALUES ", 200, func(i int) string { return str(i) }),
			head("INSERT INTO bv (c, u) VALUES ", 200, func(i int) string { return fmt.Sprintf("%s, %d", str(i), 8000+i) })+" AS n ON DUPLICATE KEY UPDATE c = 'dup'",
			head("INSERT IGNORE INTO bv (c, u) VALUES ", 200, func(i int) string { return fmt.Sprintf("%s, %d", str(i), 5000+i) }),
			head("REPLACE INTO bv (c, u) VALUES ", 200, func(i int) string { return fmt.Sprintf("%s, %d", str(i), 5000+i) }),
			"SELECT COUNT(*), SUM(u), MAX(id) FROM bv", "SELECT * FROM bv WHERE u BETWEEN 5180 AND 5210 OR id > 899990 ORDER BY id",
			// Inside a transaction, a failing statement in the middle.
			"BEGIN", head("INSERT INTO bv (c, u) VALUES ", 200, func(i int) string { return fmt.Sprintf("%s, %d", str(i), 9000+i) }),
			head("INSERT INTO bv (c, u) VALUES ", 200, func(i int) string { return fmt.Sprintf("%s, %d", str(i), 9100+i) }),
			head("INSERT INTO bv (c, u) VALUES ", 200, func(i int) string { return fmt.Sprintf("%s, %d", str(i), 9400+i) }),
			"COMMIT", "SELECT COUNT(*), SUM(u) FROM bv WHERE u >= 9000",
			// A CHECK constraint and a generated column: declined.
			"CREATE TABLE IF NOT EXISTS bvc (id INT PRIMARY KEY, v INT, g INT AS (v * 2), CHECK (v >= 0))",
			head("INSERT INTO bvc (id, v) VALUES ", 300, func(i int) string { return fmt.Sprintf("%d, %d", i+len(steps)*1000, i%50) }),
			head("INSERT INTO bvc (id, v) VALUES ", 300, func(i int) string { return fmt.Sprintf("%d, %d", i+len(steps)*1000, 10-i) }),
			"SELECT COUNT(*), SUM(g) FROM bvc",
		)
	}
	steps = append(steps, "SHOW SESSION STATUS LIKE 'Com_insert'", "SHOW SESSION STATUS LIKE 'Questions'")
	// Each INSERT twice: the second run is from the cache (or fails as
	// the first did).
	var out []string
	for _, s := range steps {
		out = append(out, s)
		if strings.HasPrefix(s, "INSERT") {
			out = append(out, s)
		}
	}
	return out
}()
