package sqlgw_test

import (
	"context"
	gosql "database/sql"
	"fmt"
	"net"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/sqlgw"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// diffSteps runs each step on a server with the plan cache (text
// statements, direct execution) and one without, and fails at the first
// step whose outcome (columns, metadata, rows, error, warnings) differs.
// A step with a "?" runs as a server-side prepared statement with args.
type diffStep struct {
	q    string
	args []any
}

func diffSteps(t *testing.T, steps []diffStep) {
	t.Helper()
	with, without := diffServer(t, false), diffServer(t, true)
	for i, s := range steps {
		a, b := diffRun(with, s.q, s.args...), diffRun(without, s.q, s.args...)
		if a != b {
			t.Errorf("step %d: %s %v\nwith the plan cache:\n%s\nwithout:\n%s", i, s.q, s.args, a, b)
		}
	}
}

func texts(qs ...string) []diffStep {
	out := make([]diffStep, len(qs))
	for i, q := range qs {
		out[i] = diffStep{q: q}
	}
	return out
}

// TestPlanCacheSessionSettings: session variables that change a SELECT's
// result but not its text: sql_select_limit (go-mysql-server's analyzer
// puts a LIMIT on the plan) and character_set_results (the result fields'
// charset and length). A plan cached before the SET must not answer after
// it, for text statements and prepared ones.
func TestPlanCacheSessionSettings(t *testing.T) {
	steps := texts("CREATE DATABASE ss", "USE ss",
		"CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20))",
		"INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three'), (4, 'four')")
	queries := []diffStep{
		{q: "SELECT v FROM t WHERE id > 0"},
		{q: "SELECT v FROM t WHERE id = 2"},
		{q: "SELECT id, v FROM t WHERE id IN (1, 3, 4)"},
		{q: "SELECT v FROM t WHERE id > ?", args: []any{0}},
		{q: "SELECT id, v FROM t WHERE id BETWEEN ? AND ?", args: []any{1, 4}},
		{q: "SELECT v FROM t WHERE id = ?", args: []any{2}},
		{q: "SELECT v FROM t"},
		// Prepared with spaces around, as sysbench's select_random_points.
		{q: "\n  SELECT id, v\n    FROM t\n    WHERE id IN (?, ?)\n  ", args: []any{1, 3}},
	}
	for _, set := range []string{
		"SET sql_select_limit = 2", "SET sql_select_limit = 0", "SET sql_select_limit = DEFAULT",
		"SET character_set_results = latin1", "SET character_set_results = binary", "SET character_set_results = NULL", "SET NAMES utf8mb4",
	} {
		steps = append(steps, queries...)
		steps = append(steps, queries...)
		steps = append(steps, diffStep{q: set})
	}
	steps = append(steps, queries...)
	diffSteps(t, steps)
}

// vtConn starts a server (with or without the plan cache) and connects
// go-mysql-server's vitess client to it, which shows every field of the
// result metadata (charset, length, flags, decimals) that database/sql
// does not.
func vtConn(t *testing.T, noCache bool) *mysql.Conn {
	t.Helper()
	return vtConns(t, noCache, 1)[0]
}

// startServer starts a server with or without the plan cache and returns
// its address.
func startServer(t *testing.T, noCache bool) (string, int) {
	t.Helper()
	srv := memoryServer(t, sqlgw.Config{NoPlanCache: noCache})
	host, port, _ := net.SplitHostPort(srv.Addr().String())
	p, _ := strconv.Atoi(port)
	return host, p
}

// vtConns is vtConn with n connections to one server.
func vtConns(t *testing.T, noCache bool, n int) []*mysql.Conn {
	t.Helper()
	return vtServerConns(t, noCache, []string{}, n)
}

// vtServerConns is vtConns whose connections after the first log in as
// the users named in users (created by the first), each with password
// "pw".
func vtServerConns(t *testing.T, noCache bool, users []string, n int) []*mysql.Conn {
	t.Helper()
	host, p := startServer(t, noCache)
	var cs []*mysql.Conn
	for i := range n {
		cp := &mysql.ConnParams{Host: host, Port: p, Uname: "root"}
		if i > 0 && i <= len(users) {
			for _, q := range []string{"CREATE USER '" + users[i-1] + "'@'%' IDENTIFIED BY 'pw'"} {
				if _, err := cs[0].ExecuteFetch(q, 0, false); err != nil {
					t.Fatal(err)
				}
			}
			cp.Uname, cp.Pass = users[i-1], "pw"
		}
		c, err := mysql.Connect(context.Background(), cp)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		cs = append(cs, c)
	}
	return cs
}

// rawRun runs text query q and renders its fields, rows, status and
// warning count, or its error.
func rawRun(c *mysql.Conn, q string) string {
	res, err := c.ExecuteFetch(q, 10000, true)
	if err != nil {
		return "error: " + err.Error()
	}
	var sb strings.Builder
	for _, f := range res.Fields {
		fmt.Fprintf(&sb, "field %s/%s table %s/%s db %s type %v charset %d len %d flags %d dec %d\n",
			f.Name, f.OrgName, f.Table, f.OrgTable, f.Database, f.Type, f.Charset, f.ColumnLength, f.Flags, f.Decimals)
	}
	for _, r := range res.Rows {
		fmt.Fprintf(&sb, "row %v\n", r)
	}
	fmt.Fprintf(&sb, "affected %d insert id %d\n", res.RowsAffected, res.InsertID)
	if w, err := c.ExecuteFetch("SHOW WARNINGS", 100, false); err == nil {
		for _, r := range w.Rows {
			fmt.Fprintf(&sb, "warning %v\n", r)
		}
	}
	return sb.String()
}

// rawDiff runs text statements on a server with the plan cache and one
// without, over the vitess client, and fails at each that differs.
func rawDiff(t *testing.T, qs []string) {
	t.Helper()
	with, without := vtConn(t, false), vtConn(t, true)
	for i, q := range qs {
		if a, b := rawRun(with, q), rawRun(without, q); a != b {
			t.Errorf("step %d: %s\nwith the plan cache:\n%s\nwithout:\n%s", i, q, a, b)
		}
	}
	if res, err := with.ExecuteFetch("SHOW SESSION STATUS LIKE 'Plan_cache%'", 10, false); err == nil {
		t.Logf("%v", res.Rows)
	}
}

// TestTextPlanCacheCharsetResults: the result fields' charset and length
// follow character_set_results (go-mysql-server's schemaToFields); a text
// shape cached before SET NAMES / SET character_set_results must not send
// the fields of the old setting.
func TestTextPlanCacheCharsetResults(t *testing.T) {
	qs := []string{"CREATE DATABASE cr", "USE cr",
		"CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20), b VARBINARY(8))",
		"INSERT INTO t VALUES (1, 'one', 'x'), (2, 'two', 'y')"}
	sel := []string{"SELECT v, b FROM t WHERE id = 1", "SELECT id, v FROM t WHERE id > 0"}
	for _, set := range []string{"SET NAMES latin1", "SET character_set_results = NULL", "SET character_set_results = binary", "SET NAMES utf8mb4"} {
		qs = append(qs, sel...)
		qs = append(qs, sel...)
		qs = append(qs, set)
	}
	qs = append(qs, sel...)
	rawDiff(t, qs)
}

// TestTextPlanCacheLiterals: text statements of one shape with literals
// of other kinds and values, over keys of every type, each after texts
// of the shape that built and used its plan, answer as the general path.
func TestTextPlanCacheLiterals(t *testing.T) {
	qs := []string{"CREATE DATABASE tl", "USE tl",
		"CREATE TABLE ki (id INT PRIMARY KEY, ti TINYINT, u INT UNSIGNED, de DECIMAL(10,2), dt DATETIME(3), e ENUM('a','b','c'), st SET('x','y'), ch CHAR(5), bi BINARY(4), j JSON, bt BIT(8), f FLOAT, y YEAR, tm TIME(2), UNIQUE KEY ti_u (ti))",
		"INSERT INTO ki VALUES (1, 1, 1, 1.5, '2020-01-01 10:00:00.123', 'a', 'x,y', 'ab', 'ab', '{\"a\": 1}', 65, 1.25, 2001, '10:00:00.5'), (2, 2, 2, 2.25, '2021-06-01 00:00:00', 'b', '', 'cd  ', 'c', 'null', 0, -0.5, 1999, '-01:00:00'), (-1, -1, 0, -1.00, NULL, 'c', 'y', NULL, NULL, NULL, NULL, NULL, NULL, NULL), (127, 127, 4294967295, 99999999.99, '1000-01-01 00:00:00', 'a', 'x', 'z', 'zzzz', '[1,2]', 255, 3.5e10, 2155, '838:59:59')",
		"CREATE TABLE kc (c CHAR(5) PRIMARY KEY, n INT)",
		"INSERT INTO kc VALUES ('a', 1), ('ab', 2), ('b ', 3), ('5', 4), ('05', 5)",
		"CREATE TABLE kv (s VARCHAR(10) COLLATE utf8mb4_0900_ai_ci PRIMARY KEY, n INT)",
		"INSERT INTO kv VALUES ('a', 1), ('A b', 2), ('é', 3), ('5', 4), ('5abc', 5), (' 5', 6)",
		"CREATE TABLE kvb (s VARCHAR(10) COLLATE utf8mb4_bin PRIMARY KEY, n INT)",
		"INSERT INTO kvb VALUES ('a', 1), ('A', 2), ('a ', 3)",
		"CREATE TABLE kb (b BINARY(4) PRIMARY KEY, n INT)",
		"INSERT INTO kb VALUES ('a', 1), ('ab', 2), (0x61000000, 3)",
		"CREATE TABLE kvbin (b VARBINARY(4) PRIMARY KEY, n INT)",
		"INSERT INTO kvbin VALUES ('a', 1), ('a ', 2), (0x6100, 3)",
		"CREATE TABLE kd (d DECIMAL(10,2) PRIMARY KEY, n INT)",
		"INSERT INTO kd VALUES (1, 1), (1.5, 2), (-2.25, 3), (100, 4)",
		"CREATE TABLE kf (f DOUBLE PRIMARY KEY, n INT)",
		"INSERT INTO kf VALUES (1, 1), (1.5, 2), (-2.25, 3), (1e20, 4)",
		"CREATE TABLE kdt (dt DATETIME PRIMARY KEY, n INT)",
		"INSERT INTO kdt VALUES ('2020-01-01 00:00:00', 1), ('2020-01-02 10:00:00', 2), ('2020-01-01 00:00:01', 3)",
		"CREATE TABLE kda (da DATE PRIMARY KEY, n INT)",
		"INSERT INTO kda VALUES ('2020-01-01', 1), ('2020-01-02', 2), ('2021-01-01', 3)",
		"CREATE TABLE kts (ts TIMESTAMP PRIMARY KEY, n INT)",
		"INSERT INTO kts VALUES ('2020-01-01 00:00:00', 1), ('2020-01-01 05:00:00', 2)",
		"CREATE TABLE ke (e ENUM('x','y','z') PRIMARY KEY, n INT)",
		"INSERT INTO ke VALUES ('x', 1), ('z', 3)",
		"CREATE TABLE ku (id BIGINT UNSIGNED PRIMARY KEY, n INT)",
		"INSERT INTO ku VALUES (0, 0), (1, 1), (9223372036854775808, 2), (18446744073709551615, 3)",
		"CREATE TABLE kt (id TINYINT PRIMARY KEY, n INT)",
		"INSERT INTO kt VALUES (-128, 0), (1, 1), (127, 2)",
		"CREATE TABLE kc2 (a INT, b VARCHAR(10), c INT, PRIMARY KEY (a, b), KEY c_i (c))",
		"INSERT INTO kc2 VALUES (1, 'x', 10), (1, 'y', 10), (2, 'x', 20), (3, 'z', 10)",
	}
	// Each group: texts of one shape (mostly), run in order, twice.
	groups := [][]string{
		{"SELECT * FROM ki WHERE id = 1", "SELECT * FROM ki WHERE id = 2", "SELECT * FROM ki WHERE id = -1", "SELECT * FROM ki WHERE id = 127", "SELECT * FROM ki WHERE id = '2'", "SELECT * FROM ki WHERE id = '2abc'", "SELECT * FROM ki WHERE id = ' 2'", "SELECT * FROM ki WHERE id = 300", "SELECT * FROM ki WHERE id = 2147483648", "SELECT * FROM ki WHERE id = 18446744073709551615", "SELECT * FROM ki WHERE id = 1.0", "SELECT * FROM ki WHERE id = 1e0", "SELECT * FROM ki WHERE id = 0x01", "SELECT * FROM ki WHERE id = b'1'", "SELECT * FROM ki WHERE id = -(-1)", "SELECT * FROM ki WHERE id = 1"},
		{"SELECT id FROM ki WHERE ti = 1", "SELECT id FROM ki WHERE ti = 127", "SELECT id FROM ki WHERE ti = 128", "SELECT id FROM ki WHERE ti = 300", "SELECT id FROM ki WHERE ti = -1", "SELECT id FROM ki WHERE ti = '1'", "SELECT id FROM ki WHERE ti = -129", "SELECT id FROM ki WHERE ti = 2"},
		{"SELECT id, v FROM ki WHERE id IN (1, 2)", "SELECT id FROM ki WHERE id IN (1, 2)", "SELECT id FROM ki WHERE id IN (2, 1)", "SELECT id FROM ki WHERE id IN (2, 2)", "SELECT id FROM ki WHERE id IN (127, -1)", "SELECT id FROM ki WHERE id IN ('1', 2)", "SELECT id FROM ki WHERE id IN (1, 300)", "SELECT id FROM ki WHERE id IN (1, 4294967296)", "SELECT id FROM ki WHERE id IN (1, 2)"},
		{"SELECT id FROM ki WHERE id BETWEEN 1 AND 2", "SELECT id FROM ki WHERE id BETWEEN 2 AND 1", "SELECT id FROM ki WHERE id BETWEEN -1 AND 127", "SELECT id FROM ki WHERE id BETWEEN '1' AND '127'", "SELECT id FROM ki WHERE id BETWEEN 1 AND 2"},
		{"SELECT id FROM ki WHERE id > 1 ORDER BY id DESC LIMIT 2", "SELECT id FROM ki WHERE id > -5 ORDER BY id DESC LIMIT 2", "SELECT id FROM ki WHERE id >= 1 AND id < 127 ORDER BY id LIMIT 1", "SELECT id FROM ki WHERE id >= 2 AND id < 127 ORDER BY id LIMIT 1", "SELECT id FROM ki WHERE id > 1 LIMIT 0", "SELECT id FROM ki WHERE id > 1 LIMIT 1"},
		{"SELECT n FROM kc WHERE c = 'a'", "SELECT n FROM kc WHERE c = 'ab'", "SELECT n FROM kc WHERE c = 'b'", "SELECT n FROM kc WHERE c = 'b '", "SELECT n FROM kc WHERE c = 'A'", "SELECT n FROM kc WHERE c = 5", "SELECT n FROM kc WHERE c = '5'", "SELECT n FROM kc WHERE c = 'a'"},
		{"SELECT n FROM kv WHERE s = 'a'", "SELECT n FROM kv WHERE s = 'A'", "SELECT n FROM kv WHERE s = 'a '", "SELECT n FROM kv WHERE s = 'e'", "SELECT n FROM kv WHERE s = 'E'", "SELECT n FROM kv WHERE s = 5", "SELECT n FROM kv WHERE s = '5'", "SELECT n FROM kv WHERE s = 'a b'", "SELECT n FROM kv WHERE s IN ('a', 'A')", "SELECT n FROM kv WHERE s IN ('a', 'e')", "SELECT n FROM kv WHERE s = 'a'"},
		{"SELECT n FROM kvb WHERE s = 'a'", "SELECT n FROM kvb WHERE s = 'A'", "SELECT n FROM kvb WHERE s = 'a '", "SELECT n FROM kvb WHERE s = 'a'"},
		{"SELECT n FROM kb WHERE b = 'a'", "SELECT n FROM kb WHERE b = 'ab'", "SELECT n FROM kb WHERE b = 'a\\0\\0\\0'", "SELECT n FROM kb WHERE b = 'a'"},
		{"SELECT n FROM kvbin WHERE b = 'a'", "SELECT n FROM kvbin WHERE b = 'a '", "SELECT n FROM kvbin WHERE b = 'A'", "SELECT n FROM kvbin WHERE b = 'a'"},
		{"SELECT n FROM kd WHERE d = 1", "SELECT n FROM kd WHERE d = 100", "SELECT n FROM kd WHERE d = '1.5'", "SELECT n FROM kd WHERE d = 1.50", "SELECT n FROM kd WHERE d = '-2.25'", "SELECT n FROM kd WHERE d = 2", "SELECT n FROM kd WHERE d > 1 ORDER BY d", "SELECT n FROM kd WHERE d > '1.2' ORDER BY d", "SELECT n FROM kd WHERE d = 1"},
		{"SELECT n FROM kf WHERE f = 1", "SELECT n FROM kf WHERE f = '1.5'", "SELECT n FROM kf WHERE f = 2", "SELECT n FROM kf WHERE f = 100000000000000000000", "SELECT n FROM kf WHERE f = '1e20'", "SELECT n FROM kf WHERE f = 1"},
		{"SELECT n FROM kdt WHERE dt = '2020-01-01 00:00:00'", "SELECT n FROM kdt WHERE dt = '2020-01-01'", "SELECT n FROM kdt WHERE dt = '2020-01-02 10:00'", "SELECT n FROM kdt WHERE dt = 20200101000001", "SELECT n FROM kdt WHERE dt = '2020-01-01 00:00:00.4'", "SELECT n FROM kdt WHERE dt = '2020-01-01 00:00:00.6'", "SELECT n FROM kdt WHERE dt = 'x'", "SELECT n FROM kdt WHERE dt > '2020-01-01' ORDER BY dt", "SELECT n FROM kdt WHERE dt > '2020-01-01 00:00:00' ORDER BY dt", "SELECT n FROM kdt WHERE dt = '2020-01-01 00:00:00'"},
		{"SELECT n FROM kda WHERE da = '2020-01-01'", "SELECT n FROM kda WHERE da = '2020-01-01 10:00:00'", "SELECT n FROM kda WHERE da = 20200102", "SELECT n FROM kda WHERE da = '20200102'", "SELECT n FROM kda WHERE da BETWEEN '2020-01-01' AND '2020-12-31'", "SELECT n FROM kda WHERE da BETWEEN '2020-01-01 12:00' AND '2021-01-01'", "SELECT n FROM kda WHERE da = '2020-01-01'"},
		{"SELECT n, ts FROM kts WHERE ts = '2020-01-01 05:00:00'", "SET time_zone = '+05:00'", "SELECT n, ts FROM kts WHERE ts = '2020-01-01 05:00:00'", "SELECT n, ts FROM kts WHERE ts = '2020-01-01 10:00:00'", "SELECT n, ts FROM kts WHERE ts > '2020-01-01 04:00:00'", "SET time_zone = '+00:00'", "SELECT n, ts FROM kts WHERE ts > '2020-01-01 04:00:00'", "SELECT n, ts FROM kts WHERE ts = '2020-01-01 05:00:00'", "SET time_zone = SYSTEM"},
		{"SELECT n FROM ke WHERE e = 'x'", "SELECT n FROM ke WHERE e = 'z'", "SELECT n FROM ke WHERE e = 'X'", "SELECT n FROM ke WHERE e = 3", "SELECT n FROM ke WHERE e = '3'", "SELECT n FROM ke WHERE e = 1", "SELECT n FROM ke WHERE e = 'w'", "SELECT n FROM ke WHERE e > 'x' ORDER BY e", "SELECT n FROM ke WHERE e = 'x'"},
		{"SELECT n FROM ku WHERE id = 1", "SELECT n FROM ku WHERE id = 18446744073709551615", "SELECT n FROM ku WHERE id = 9223372036854775808", "SELECT n FROM ku WHERE id = 0", "SELECT n FROM ku WHERE id = -1", "SELECT n FROM ku WHERE id > 9223372036854775807 ORDER BY id", "SELECT n FROM ku WHERE id > 1 ORDER BY id", "SELECT n FROM ku WHERE id IN (1, 18446744073709551615)", "SELECT n FROM ku WHERE id IN (1, 0)", "SELECT n FROM ku WHERE id = 1"},
		{"SELECT n FROM kt WHERE id = 1", "SELECT n FROM kt WHERE id = 127", "SELECT n FROM kt WHERE id = 128", "SELECT n FROM kt WHERE id = -128", "SELECT n FROM kt WHERE id = -129", "SELECT n FROM kt WHERE id > 100 ORDER BY id", "SELECT n FROM kt WHERE id > 1000 ORDER BY id", "SELECT n FROM kt WHERE id < -1000 ORDER BY id", "SELECT n FROM kt WHERE id > -1000 ORDER BY id", "SELECT n FROM kt WHERE id IN (1, 1000)", "SELECT n FROM kt WHERE id = 1"},
		{"SELECT c FROM kc2 WHERE a = 1 AND b = 'x'", "SELECT c FROM kc2 WHERE a = 1 AND b = 'y'", "SELECT c FROM kc2 WHERE a = 1 AND b = 'X'", "SELECT c FROM kc2 WHERE a = 1 AND b = 'x '", "SELECT c FROM kc2 WHERE a = '1' AND b = 'x'", "SELECT c FROM kc2 WHERE a = 1 AND b = 1", "SELECT c FROM kc2 WHERE a = 1", "SELECT c FROM kc2 WHERE a = 2", "SELECT b FROM kc2 WHERE a = 1 ORDER BY b DESC", "SELECT b FROM kc2 WHERE a = 2 ORDER BY b DESC", "SELECT a, b FROM kc2 WHERE c = 10", "SELECT a, b FROM kc2 WHERE c = 20", "SELECT a, b FROM kc2 WHERE c IN (10, 20)", "SELECT a, b FROM kc2 WHERE c IN (20, 10)", "SELECT a, b FROM kc2 WHERE c IN (10, 10)", "SELECT c FROM kc2 WHERE a = 1 AND b = 'x'"},
		{"SELECT id AS x, id FROM ki WHERE id = 1", "SELECT id AS y, id FROM ki WHERE id = 1", "SELECT ID FROM ki WHERE id = 1", "SELECT `id` FROM ki WHERE id = 1", "SELECT ki.id FROM ki WHERE id = 1", "SELECT tl.ki.id FROM tl.ki WHERE id = 1", "select id from ki where id = 2", "SELECT id FROM ki WHERE ID = 2", "SELECT id FROM ki WHERE id = 1 AND id = 2", "SELECT id FROM ki WHERE id = 1 AND id = 1", "SELECT id FROM ki WHERE id = 1 AND ti = 1", "SELECT id FROM ki WHERE id = 1 AND ti = 2"},
		{"SELECT id FROM ki WHERE id = 1 /* c */", "SELECT /*+ NO_INDEX(ki) */ id FROM ki WHERE id = 1", "SELECT id FROM ki WHERE id = 1 -- c", "SELECT id FROM ki WHERE id = 1;", "SELECT SQL_CALC_FOUND_ROWS id FROM ki WHERE id > 1 LIMIT 1", "SELECT FOUND_ROWS()", "SELECT id FROM ki WHERE id > 1 LIMIT 1", "SELECT FOUND_ROWS()", "SELECT id FROM ki WHERE id > -10", "SELECT FOUND_ROWS()", "SELECT ROW_COUNT()", "SELECT id FROM ki WHERE id = _latin1'1'", "SELECT id FROM ki WHERE id = N'1'", "SELECT id FROM ki WHERE id = '1' COLLATE utf8mb4_bin", "SELECT id FROM ki WHERE id = NULL", "SELECT id FROM ki WHERE id <=> 1", "SELECT id FROM ki WHERE id = 1 FOR UPDATE", "SELECT id FROM ki WHERE id = 1 LOCK IN SHARE MODE"},
	}
	for _, g := range groups {
		qs = append(qs, g...)
		qs = append(qs, g...)
	}
	rawDiff(t, qs)
}

// rawDiff2 is rawDiff over two connections of each server: a step
// prefixed "b:" runs on the second.
func rawDiff2(t *testing.T, qs []string) {
	t.Helper()
	with, without := vtConns(t, false, 2), vtConns(t, true, 2)
	for i, q := range qs {
		c := 0
		if strings.HasPrefix(q, "b:") {
			c, q = 1, q[2:]
		}
		if a, b := rawRun(with[c], q), rawRun(without[c], q); a != b {
			t.Errorf("step %d: %s\nwith the plan cache:\n%s\nwithout:\n%s", i, q, a, b)
		}
	}
	if res, err := with[0].ExecuteFetch("SHOW SESSION STATUS LIKE 'Plan_cache%'", 10, false); err == nil {
		t.Logf("%v", res.Rows)
	}
}

// TestTextPlanCacheTransactions: texts from the cache inside
// transactions at each isolation level, with another session's commits
// in between, its own writes, rollbacks and write conflicts, answer as
// the general path.
func TestTextPlanCacheTransactions(t *testing.T) {
	qs := []string{"CREATE DATABASE tx", "USE tx", "b:USE tx",
		"CREATE TABLE t (id INT PRIMARY KEY, k INT, v VARCHAR(20), KEY k_i (k))",
		"INSERT INTO t VALUES (1, 10, 'one'), (2, 20, 'two'), (3, 10, 'three')",
	}
	reads := []string{"SELECT v FROM t WHERE id = 1", "SELECT v FROM t WHERE id = 2", "SELECT id, v FROM t WHERE k = 10", "SELECT id, v FROM t WHERE id > 0", "SELECT id FROM t WHERE id > 0 ORDER BY id DESC LIMIT 2"}
	qs = append(qs, reads...)
	qs = append(qs, reads...)
	n := 0
	write := func() string {
		n++
		return fmt.Sprintf("b:UPDATE t SET v = 'v%d', k = %d WHERE id IN (1, 2)", n, 10+n%2*10)
	}
	for _, level := range []string{"READ COMMITTED", "REPEATABLE READ", "READ UNCOMMITTED", "SERIALIZABLE"} {
		qs = append(qs, "SET SESSION TRANSACTION ISOLATION LEVEL "+level, "BEGIN")
		qs = append(qs, reads...)
		qs = append(qs, write())
		qs = append(qs, reads...)
		qs = append(qs, "INSERT INTO t VALUES (10, 10, 'own')", "UPDATE t SET v = 'mine' WHERE id = 3")
		qs = append(qs, reads...)
		qs = append(qs, write())
		qs = append(qs, reads...)
		qs = append(qs, "ROLLBACK")
		qs = append(qs, reads...)
		qs = append(qs, "START TRANSACTION WITH CONSISTENT SNAPSHOT")
		qs = append(qs, write())
		qs = append(qs, reads...)
		qs = append(qs, "UPDATE t SET v = 'late' WHERE id = 1", "COMMIT")
		qs = append(qs, reads...)
		qs = append(qs, "SET autocommit = 0")
		qs = append(qs, reads...)
		qs = append(qs, write())
		qs = append(qs, reads...)
		qs = append(qs, "COMMIT")
		qs = append(qs, reads...)
		qs = append(qs, write())
		qs = append(qs, reads...)
		qs = append(qs, "ROLLBACK", "SET autocommit = 1")
		qs = append(qs, reads...)
		qs = append(qs, "START TRANSACTION READ ONLY")
		qs = append(qs, reads...)
		qs = append(qs, write())
		qs = append(qs, reads...)
		qs = append(qs, "COMMIT", "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ")
	}
	// Savepoints: the transaction's writes after one are gone from
	// reads after ROLLBACK TO it.
	qs = append(qs, "BEGIN", "UPDATE t SET v = 'sp0' WHERE id = 1", "SAVEPOINT s1", "UPDATE t SET v = 'sp1', k = 20 WHERE id = 1", "DELETE FROM t WHERE id = 2", "INSERT INTO t VALUES (20, 10, 'sp')")
	qs = append(qs, reads...)
	qs = append(qs, "ROLLBACK TO SAVEPOINT s1")
	qs = append(qs, reads...)
	qs = append(qs, "INSERT INTO t VALUES (1, 1, 'dup')")
	qs = append(qs, reads...)
	qs = append(qs, "COMMIT")
	qs = append(qs, reads...)
	rawDiff2(t, qs)
}

// TestTextPlanCacheSchemaChanges: a shape cached before USE, RENAME, DROP
// and CREATE (of a table or a view of the same name), ALTER, an index
// added or dropped, and over generated columns, answers as the general
// path after each; and the statement counters count as there.
func TestTextPlanCacheSchemaChanges(t *testing.T) {
	qs := []string{"CREATE DATABASE d1", "CREATE DATABASE d2", "USE d1",
		"CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20))", "INSERT INTO t VALUES (1, 'd1 one'), (2, 'd1 two')",
		"CREATE TABLE d2.t (id BIGINT PRIMARY KEY, v TEXT, w INT)", "INSERT INTO d2.t VALUES (1, 'd2 one', 1), (2, 'd2 two', 2)",
		"CREATE TABLE g (id INT PRIMARY KEY, a INT, b INT AS (a * 2) VIRTUAL, c INT AS (a + 1) STORED, KEY b_i (b))",
		"INSERT INTO g (id, a) VALUES (1, 1), (2, 2), (3, 3)",
	}
	gen := []string{"SELECT * FROM g WHERE id = 1", "SELECT b FROM g WHERE id = 2", "SELECT id, b, c FROM g WHERE id > 1", "SELECT id FROM g WHERE b = 4", "SELECT id, c FROM g WHERE b = 6"}
	qs = append(qs, gen...)
	qs = append(qs, gen...)
	qs = append(qs, "UPDATE g SET a = 10 WHERE id = 2")
	qs = append(qs, gen...)
	reads := []string{"SELECT * FROM t WHERE id = 1", "SELECT v FROM t WHERE id = 2", "SELECT id, v FROM t WHERE id > 0", "SELECT id FROM t WHERE id IN (1, 2)"}
	rep := func(extra ...string) {
		qs = append(qs, reads...)
		qs = append(qs, reads...)
		qs = append(qs, extra...)
	}
	rep("USE d2")
	rep("USE d1")
	rep("RENAME TABLE t TO t_old, d2.t TO t")
	rep("DROP TABLE t")
	rep("CREATE VIEW t AS SELECT id + 1 AS id, 'view' AS v FROM t_old")
	rep("DROP VIEW t", "CREATE TABLE t (v VARCHAR(20), id INT PRIMARY KEY)", "INSERT INTO t VALUES ('new', 1), ('new2', 2)")
	rep("ALTER TABLE t MODIFY v VARCHAR(30) COLLATE utf8mb4_bin")
	rep("ALTER TABLE t ADD COLUMN x INT DEFAULT 5 FIRST")
	rep("ALTER TABLE t DROP PRIMARY KEY", "ALTER TABLE t ADD PRIMARY KEY (v)")
	rep("CREATE INDEX id_i ON t (id)")
	rep("DROP INDEX id_i ON t")
	rep()
	qs = append(qs, "SHOW SESSION STATUS WHERE Variable_name IN ('Com_select', 'Questions', 'Queries', 'Handler_read_key', 'Select_scan')")
	rawDiff(t, qs)
}

// TestTextPlanCachePrivileges: a shape cached for a user answers as the
// general path after REVOKE and GRANT of table, database and column
// privileges from another session.
func TestTextPlanCachePrivileges(t *testing.T) {
	setup := []string{"CREATE DATABASE pv", "USE pv",
		"CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20), secret INT)", "INSERT INTO t VALUES (1, 'one', 11), (2, 'two', 22)",
		"CREATE TABLE o (id INT PRIMARY KEY, v VARCHAR(20))", "INSERT INTO o VALUES (1, 'o')"}
	steps := []string{"GRANT SELECT ON pv.t TO 'u'@'%'", "GRANT SELECT ON pv.o TO 'u'@'%'"}
	reads := []string{"b:SELECT v FROM pv.t WHERE id = 1", "b:SELECT id, v FROM pv.t WHERE id > 0", "b:SELECT secret FROM pv.t WHERE id = 2", "b:SELECT * FROM pv.t WHERE id = 2", "b:SELECT v FROM pv.o WHERE id = 1"}
	rep := func(extra ...string) {
		steps = append(steps, reads...)
		steps = append(steps, reads...)
		steps = append(steps, extra...)
	}
	rep("REVOKE SELECT ON pv.t FROM 'u'@'%'")
	rep("GRANT SELECT ON pv.* TO 'u'@'%'")
	rep("REVOKE SELECT ON pv.* FROM 'u'@'%'", "REVOKE SELECT ON pv.o FROM 'u'@'%'", "GRANT SELECT (id, v) ON pv.t TO 'u'@'%'")
	rep("GRANT SELECT ON *.* TO 'u'@'%'")
	rep("REVOKE SELECT ON *.* FROM 'u'@'%'")
	rep("b:USE pv")
	rep()
	run := func(noCache bool) []string {
		cs := vtServerConns(t, noCache, []string{"u"}, 2)
		for _, q := range setup {
			if _, err := cs[0].ExecuteFetch(q, 0, false); err != nil {
				t.Fatal(err)
			}
		}
		var out []string
		for _, q := range steps {
			c := cs[0]
			if strings.HasPrefix(q, "b:") {
				c, q = cs[1], q[2:]
			}
			out = append(out, rawRun(c, q))
		}
		return out
	}
	with, without := run(false), run(true)
	for i := range steps {
		if with[i] != without[i] {
			t.Errorf("step %d: %s\nwith the plan cache:\n%s\nwithout:\n%s", i, steps[i], with[i], without[i])
		}
	}
}

// TestTextPlanCacheLayouts: shapes over partitioned (salted) tables and
// table groups, secondary and unique indexes with NULLs, results of more
// than one packet batch and rows larger than a packet answer as the
// general path.
func TestTextPlanCacheLayouts(t *testing.T) {
	qs := []string{"CREATE DATABASE ly", "USE ly",
		"CREATE TABLE s (g INT NOT NULL, id INT NOT NULL, u VARCHAR(10), v INT, PRIMARY KEY (g, id), UNIQUE KEY ku (u), KEY kv (v)) PARTITION BY KEY (g) PARTITIONS 3",
		"CREATE TABLE m (g INT NOT NULL, id INT NOT NULL, u VARCHAR(10), v INT, PRIMARY KEY (g, id), UNIQUE KEY ku (u), KEY kv (v)) COMMENT 'sqlgw: group=gg'",
		"CREATE TABLE m2 (g INT NOT NULL, id INT NOT NULL, w INT, PRIMARY KEY (g, id)) COMMENT 'sqlgw: group=gg'",
		"CREATE TABLE big (id INT PRIMARY KEY, k INT, body LONGTEXT, KEY k_i (k))",
	}
	var sv, mv, m2v []string
	for i := 0; i < 300; i++ {
		u := fmt.Sprintf("'u%d'", i)
		if i%7 == 0 {
			u = "NULL"
		}
		v := fmt.Sprint(i % 5)
		if i%11 == 0 {
			v = "NULL"
		}
		sv = append(sv, fmt.Sprintf("(%d, %d, %s, %s)", i%4, i, u, v))
		m2v = append(m2v, fmt.Sprintf("(%d, %d, %d)", i%4, i, i*2))
	}
	mv = sv
	qs = append(qs, "INSERT INTO s VALUES "+strings.Join(sv, ", "), "INSERT INTO m VALUES "+strings.Join(mv, ", "), "INSERT INTO m2 VALUES "+strings.Join(m2v, ", "))
	qs = append(qs, "INSERT INTO big VALUES (1, 1, REPEAT('x', 3000000)), (2, 1, REPEAT('y', 17000000)), (3, 2, 'small')")
	for _, tb := range []string{"s", "m"} {
		qs = append(qs,
			"SELECT * FROM "+tb+" WHERE g = 1 AND id = 5", "SELECT * FROM "+tb+" WHERE g = 1 AND id = 9", "SELECT * FROM "+tb+" WHERE g = 2 AND id = 9",
			"SELECT id FROM "+tb+" WHERE g = 1", "SELECT id FROM "+tb+" WHERE g = 3",
			"SELECT id FROM "+tb+" WHERE g = 1 ORDER BY id DESC LIMIT 5", "SELECT id FROM "+tb+" WHERE g = 2 ORDER BY id DESC LIMIT 5",
			"SELECT g, id FROM "+tb+" WHERE g IN (1, 2) AND id < 40", "SELECT g, id FROM "+tb+" WHERE g IN (3, 0) AND id < 40",
			"SELECT g, id FROM "+tb+" WHERE v = 3", "SELECT g, id FROM "+tb+" WHERE v = 4", "SELECT g, id FROM "+tb+" WHERE v IN (1, 2)", "SELECT g, id FROM "+tb+" WHERE v IN (2, 1)",
			"SELECT g, id FROM "+tb+" WHERE v > 3 ORDER BY v LIMIT 7", "SELECT g, id FROM "+tb+" WHERE v > 2 ORDER BY v LIMIT 7", "SELECT v, id FROM "+tb+" WHERE v < 2 ORDER BY v DESC LIMIT 9", "SELECT v, id FROM "+tb+" WHERE v < 3 ORDER BY v DESC LIMIT 9",
			"SELECT g, id FROM "+tb+" WHERE u = 'u5'", "SELECT g, id FROM "+tb+" WHERE u = 'u6'", "SELECT g, id FROM "+tb+" WHERE u = 'U6'", "SELECT g, id FROM "+tb+" WHERE u IN ('u1', 'u2', 'u1')", "SELECT g, id FROM "+tb+" WHERE u > 'u9' ORDER BY u LIMIT 3", "SELECT g, id FROM "+tb+" WHERE u > 'u8' ORDER BY u LIMIT 3",
			"SELECT g, id, v FROM "+tb+" WHERE id > 0", "SELECT g, id, v FROM "+tb+" WHERE id > 10", "SELECT id FROM "+tb+" WHERE id BETWEEN 100 AND 250", "SELECT id FROM "+tb+" WHERE id BETWEEN 1 AND 299 ORDER BY id DESC LIMIT 200",
		)
	}
	qs = append(qs, "SELECT g, id, w FROM m2 WHERE g = 1 AND id = 5", "SELECT g, id, w FROM m2 WHERE g = 2 AND id = 6", "SELECT id, w FROM m2 WHERE g = 2", "SELECT id, w FROM m2 WHERE g = 3")
	qs = append(qs, qs[len(qs)-60:]...)
	// A row larger than a packet (16 MB), from a plan cached with small
	// ones.
	qs = append(qs, "SELECT id, LENGTH(body) FROM big WHERE id > 0", "SELECT id, body FROM big WHERE id = 3", "SELECT id, body FROM big WHERE id = 1", "SELECT body FROM big WHERE k = 2", "SELECT body FROM big WHERE k = 1", "SELECT id, body FROM big WHERE id = 2")
	rawDiff(t, qs)
}

// TestTextPlanCacheAggregates: cached plans that run through
// go-mysql-server's executor (aggregates, DISTINCT, GROUP BY, sorts)
// answer as the general path on every execute, including aggregates of
// DISTINCT values, whose expressions keep state between rows.
func TestTextPlanCacheAggregates(t *testing.T) {
	qs := []string{"CREATE DATABASE ag", "USE ag",
		"CREATE TABLE t (id INT PRIMARY KEY, k INT, v INT, d DECIMAL(10,3), s VARCHAR(10), KEY k_i (k))",
		"INSERT INTO t VALUES (1, 1, 5, 1.5, 'a'), (2, 1, 5, 2.25, 'b'), (3, 2, 7, NULL, 'a'), (4, 2, NULL, 3, NULL), (5, 3, 7, 0.001, 'c'), (6, 3, 9, 10, 'a')",
	}
	g := []string{
		"SELECT COUNT(DISTINCT v) FROM t WHERE id > 0", "SELECT COUNT(DISTINCT v) FROM t WHERE id > 1", "SELECT COUNT(DISTINCT v) FROM t WHERE id > 2",
		"SELECT SUM(DISTINCT v) FROM t WHERE id > 0", "SELECT SUM(DISTINCT v) FROM t WHERE id > 3",
		"SELECT AVG(DISTINCT d) FROM t WHERE id < 7", "SELECT AVG(DISTINCT d) FROM t WHERE id < 3", "SELECT AVG(d) FROM t WHERE id < 3", "SELECT AVG(d) FROM t WHERE id < 7", "SELECT AVG(v) FROM t WHERE id < 7",
		"SELECT SUM(d) FROM t WHERE id BETWEEN 1 AND 6", "SELECT SUM(d) FROM t WHERE id BETWEEN 4 AND 4", "SELECT SUM(d) FROM t WHERE id BETWEEN 9 AND 10",
		"SELECT MIN(s), MAX(s) FROM t WHERE id > 0", "SELECT MIN(s), MAX(s) FROM t WHERE id > 4", "SELECT COUNT(*) FROM t WHERE id > 0", "SELECT COUNT(*) FROM t WHERE id > 100", "SELECT COUNT(s) FROM t WHERE k = 2", "SELECT COUNT(s) FROM t WHERE k = 1",
		"SELECT DISTINCT v FROM t WHERE id > 0", "SELECT DISTINCT v FROM t WHERE id > 2", "SELECT DISTINCT s FROM t WHERE k IN (1, 2)", "SELECT DISTINCT s FROM t WHERE k IN (2, 3)",
		"SELECT k, COUNT(*) FROM t WHERE id > 0 GROUP BY k", "SELECT k, COUNT(*) FROM t WHERE id > 2 GROUP BY k", "SELECT k, SUM(v) FROM t WHERE k > 1 GROUP BY k ORDER BY k", "SELECT k, SUM(v) FROM t WHERE k > 0 GROUP BY k ORDER BY k",
		"SELECT s, id FROM t WHERE id > 0 ORDER BY s", "SELECT s, id FROM t WHERE id > 2 ORDER BY s", "SELECT s FROM t WHERE id > 0 ORDER BY s DESC LIMIT 2 OFFSET 1", "SELECT s FROM t WHERE id > 3 ORDER BY s DESC LIMIT 2 OFFSET 1",
		"SELECT v FROM t WHERE k = 1 ORDER BY v, id", "SELECT v FROM t WHERE k = 2 ORDER BY v, id",
	}
	for range 3 {
		qs = append(qs, g...)
	}
	rawDiff(t, qs)
}

// TestPlanCachePreparedTypes: prepared statements over keys of other
// types (DATETIME, DATE, TIMESTAMP, DECIMAL, ENUM, BINARY, CHAR, a
// composite key), executed with parameters of every kind the driver
// sends, answer as a server without the plan cache.
func TestPlanCachePreparedTypes(t *testing.T) {
	steps := texts("CREATE DATABASE pt", "USE pt",
		"CREATE TABLE kdt (dt DATETIME(3) PRIMARY KEY, n INT)",
		"INSERT INTO kdt VALUES ('2020-01-01 00:00:00', 1), ('2020-01-02 10:00:00.5', 2), ('2020-01-01 00:00:01', 3)",
		"CREATE TABLE kda (da DATE PRIMARY KEY, n INT)", "INSERT INTO kda VALUES ('2020-01-01', 1), ('2020-01-02', 2)",
		"CREATE TABLE kts (ts TIMESTAMP PRIMARY KEY, n INT)", "INSERT INTO kts VALUES ('2020-01-01 00:00:00', 1), ('2020-01-01 05:00:00', 2)",
		"CREATE TABLE kd (d DECIMAL(10,2) PRIMARY KEY, n INT)", "INSERT INTO kd VALUES (1, 1), (1.5, 2), (-2.25, 3)",
		"CREATE TABLE ke (e ENUM('x','y','z') PRIMARY KEY, n INT)", "INSERT INTO ke VALUES ('x', 1), ('z', 3)",
		"CREATE TABLE kb (b BINARY(3) PRIMARY KEY, n INT)", "INSERT INTO kb VALUES ('a', 1), ('ab', 2)",
		"CREATE TABLE kc (c CHAR(4) PRIMARY KEY, n INT)", "INSERT INTO kc VALUES ('a', 1), ('ab', 2)",
		"CREATE TABLE k2 (a INT, b VARCHAR(5), n INT, PRIMARY KEY (a, b))", "INSERT INTO k2 VALUES (1, 'x', 1), (1, 'y', 2), (2, 'x', 3)",
		"CREATE TABLE tm (id INT PRIMARY KEY, t2 TIME(2), t0 TIME, t6 TIME(6), d3 DATETIME(3))",
		"INSERT INTO tm VALUES (1, '10:00:00.25', '11:00:00', '-01:02:03.123456', '2020-01-01 00:00:00.125'), (2, '-838:59:59', '00:00:01', NULL, NULL)",
	)
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	odd := []any{nil, "2020-01-01", "2020-01-01 00:00:00", "2020-01-02 10:00:00.5", t0, t0.Add(time.Second), t0.Add(5 * time.Hour), 1, 1.5, "1.5", "1.50", -2.25, "x", "X", "z", 3, "a", "a ", "ab", []byte("a"), []byte("a\x00\x00"), 20200101, "20200101", ""}
	cases := []struct {
		q     string
		build []any
	}{
		{"SELECT n FROM kdt WHERE dt = ?", []any{"2020-01-01 00:00:00"}},
		{"SELECT n, dt FROM kdt WHERE dt > ? ORDER BY dt", []any{"2020-01-01"}},
		{"SELECT n FROM kda WHERE da = ?", []any{"2020-01-01"}},
		{"SELECT n, ts FROM kts WHERE ts = ?", []any{"2020-01-01 05:00:00"}},
		{"SELECT n FROM kd WHERE d = ?", []any{1}},
		{"SELECT n FROM kd WHERE d = ?", []any{"1.5"}},
		{"SELECT n FROM ke WHERE e = ?", []any{"x"}},
		{"SELECT n FROM kb WHERE b = ?", []any{"ab"}},
		{"SELECT n FROM kc WHERE c = ?", []any{"a"}},
		{"SELECT n FROM k2 WHERE a = ? AND b = 'x'", []any{1}},
		{"SELECT n FROM k2 WHERE a = ?", []any{1}},
		{"SELECT * FROM tm WHERE id = ?", []any{1}},
		{"SELECT t2, t0 FROM tm WHERE id > ?", []any{0}},
	}
	for _, c := range cases {
		for range 3 {
			steps = append(steps, diffStep{c.q, c.build})
		}
		for _, v := range odd {
			args := make([]any, len(c.build))
			for i := range args {
				args[i] = v
			}
			steps = append(steps, diffStep{c.q, args}, diffStep{c.q, c.build})
		}
	}
	steps = append(steps, diffStep{q: "SET time_zone = '+05:00'"}, diffStep{"SELECT n, ts FROM kts WHERE ts = ?", []any{"2020-01-01 05:00:00"}}, diffStep{"SELECT n, ts FROM kts WHERE ts = ?", []any{t0.Add(5 * time.Hour)}})
	diffSteps(t, steps)
}

var timing = regexp.MustCompile(`\([0-9.]+ sec\)`)

// TestTextPlanCacheCLI: the mariadb client (multi-statement texts, its
// own protocol options) shows the same results, column metadata and
// warnings with and without the plan cache.
func TestTextPlanCacheCLI(t *testing.T) {
	cli, err := exec.LookPath("mariadb")
	if err != nil {
		t.Skip("no mariadb client")
	}
	script := `CREATE DATABASE cl; USE cl;
CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20), d DECIMAL(6,2), dt DATETIME(2), b VARBINARY(4));
INSERT INTO t VALUES (1, 'one', 1.5, '2020-01-01 00:00:00.25', 'x'), (2, 'two', NULL, NULL, NULL), (3, 'three', -2, '1999-12-31 23:59:59', '');
`
	for range 3 {
		script += `SELECT * FROM t WHERE id = 1; SELECT v FROM t WHERE id = 2;
SELECT id, d FROM t WHERE id > 0; SELECT * FROM t WHERE id IN (1, 3);
SELECT v FROM t WHERE id = 3; SELECT v FROM t WHERE id = 1; SELECT v FROM t WHERE id = '1x'; SHOW WARNINGS;
SELECT dt FROM t WHERE id BETWEEN 1 AND 3; SELECT id FROM t WHERE id > 1 ORDER BY id DESC LIMIT 1;
SET NAMES latin1; SELECT v FROM t WHERE id = 1; SET NAMES utf8mb4;
`
	}
	run := func(noCache bool) string {
		host, port := startServer(t, noCache)
		out, err := exec.Command(cli, "-h", host, "-P", strconv.Itoa(port), "-u", "root", "--skip-ssl", "--column-type-info", "-vvv", "-e", script).CombinedOutput()
		if err != nil {
			t.Logf("mariadb: %v", err)
		}
		return timing.ReplaceAllString(string(out), "")
	}
	a, b := run(false), run(true)
	if a != b {
		al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
		for i := range min(len(al), len(bl)) {
			if al[i] != bl[i] {
				t.Fatalf("line %d differs:\nwith the plan cache: %s\nwithout: %s\n\nwith:\n%s", i, al[i], bl[i], a)
			}
		}
		t.Fatalf("outputs differ in length\nwith:\n%s\nwithout:\n%s", a, b)
	}
	if !strings.Contains(a, "three") {
		t.Fatalf("unexpected output:\n%s", a)
	}
}

// TestTextPlanCacheStatusCounters: the session's status counters (store
// requests and entities read, statements, rows) count a statement from
// the cache as the general path counts it; only the plan cache's own
// counters differ.
func TestTextPlanCacheStatusCounters(t *testing.T) {
	with, without := vtConn(t, false), vtConn(t, true)
	qs := []string{"CREATE DATABASE sc", "USE sc",
		"CREATE TABLE t (id INT PRIMARY KEY, k INT, v VARCHAR(20), KEY k_i (k))",
		"INSERT INTO t VALUES (1, 10, 'one'), (2, 20, 'two'), (3, 10, 'three')"}
	for _, q := range qs {
		rawRun(with, q)
		rawRun(without, q)
	}
	status := func(c *mysql.Conn) map[string]string {
		res, err := c.ExecuteFetch("SHOW SESSION STATUS", 10000, false)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for _, r := range res.Rows {
			m[r[0].ToString()] = r[1].ToString()
		}
		return m
	}
	before := []map[string]string{status(with), status(without)}
	reads := []string{"SELECT v FROM t WHERE id = 1", "SELECT v FROM t WHERE id = 2", "SELECT id, v FROM t WHERE k = 10", "SELECT id FROM t WHERE k IN (10, 20)", "SELECT id, v FROM t WHERE id > 1", "SELECT id FROM t WHERE id > 0 ORDER BY id DESC LIMIT 2", "SELECT COUNT(*) FROM t WHERE id > 0", "SELECT v FROM t WHERE id = 9"}
	for range 3 {
		for _, q := range reads {
			rawRun(with, q)
			rawRun(without, q)
		}
	}
	after := []map[string]string{status(with), status(without)}
	for name := range after[1] {
		if strings.HasPrefix(name, "Plan_cache") || name == "Last_plan_from_cache" || strings.Contains(strings.ToLower(name), "time") || strings.Contains(strings.ToLower(name), "uptime") {
			continue
		}
		dw := after[0][name] + " (from " + before[0][name] + ")"
		dn := after[1][name] + " (from " + before[1][name] + ")"
		if dw != dn {
			t.Errorf("%s: with the plan cache %s, without %s", name, dw, dn)
		}
	}
}

// TestTextPlanCacheSQLModes: shapes cached under one sql_mode answer as
// the general path under another that changes how the text parses
// (ANSI_QUOTES, NO_BACKSLASH_ESCAPES) or how results are formed
// (PAD_CHAR_TO_FULL_LENGTH).
func TestTextPlanCacheSQLModes(t *testing.T) {
	qs := []string{"CREATE DATABASE sm", "USE sm",
		"CREATE TABLE t (id INT PRIMARY KEY, c CHAR(6), v VARCHAR(10), one INT)",
		"INSERT INTO t VALUES (1, 'ab', 'one', 7), (2, 'a\\\\b', 'a\\\\b', 8), (3, 'x', 'two', 9)"}
	reads := []string{"SELECT id, c FROM t WHERE v = \"one\"", "SELECT id, c FROM t WHERE v = \"two\"", "SELECT id, c, v FROM t WHERE id = 2", "SELECT id FROM t WHERE v = 'a\\\\b'", "SELECT id FROM t WHERE c = 'a\\\\b'", "SELECT id FROM t WHERE v = 'a\\b'", "SELECT c FROM t WHERE id > 0", "SELECT c FROM t WHERE id IN (1, 3)"}
	for _, mode := range []string{"ANSI_QUOTES", "NO_BACKSLASH_ESCAPES", "PAD_CHAR_TO_FULL_LENGTH", "ANSI", "DEFAULT"} {
		qs = append(qs, reads...)
		qs = append(qs, reads...)
		qs = append(qs, "SET sql_mode = '"+mode+"'")
		if mode == "DEFAULT" {
			qs[len(qs)-1] = "SET sql_mode = DEFAULT"
		}
	}
	qs = append(qs, reads...)
	rawDiff(t, qs)
}

// TestTextPlanCacheDegenerateRanges: shapes whose first literals make a
// point, an empty range or a contradiction, then others that make a
// range (and back), answer as the general path.
func TestTextPlanCacheDegenerateRanges(t *testing.T) {
	qs := []string{"CREATE DATABASE dr", "USE dr",
		"CREATE TABLE t (id INT PRIMARY KEY, u VARCHAR(5), k INT, UNIQUE KEY u_i (u), KEY k_i (k))",
		"INSERT INTO t VALUES (1, 'a', 1), (2, 'b', 1), (3, NULL, 2), (4, 'd', NULL), (5, 'e', 2)"}
	groups := [][]string{
		{"SELECT id FROM t WHERE id >= 1 AND id <= 1", "SELECT id FROM t WHERE id >= 1 AND id <= 1", "SELECT id FROM t WHERE id >= 1 AND id <= 3", "SELECT id FROM t WHERE id >= 3 AND id <= 1", "SELECT id FROM t WHERE id >= 2 AND id <= 2"},
		{"SELECT id FROM t WHERE id BETWEEN 2 AND 2", "SELECT id FROM t WHERE id BETWEEN 2 AND 2", "SELECT id FROM t WHERE id BETWEEN 2 AND 4", "SELECT id FROM t WHERE id BETWEEN 4 AND 2"},
		{"SELECT id FROM t WHERE id = 1 AND id > 0", "SELECT id FROM t WHERE id = 1 AND id > 0", "SELECT id FROM t WHERE id = 1 AND id > 3", "SELECT id FROM t WHERE id = 4 AND id > 3"},
		{"SELECT id FROM t WHERE id > 1 AND id < 2", "SELECT id FROM t WHERE id > 1 AND id < 2", "SELECT id FROM t WHERE id > 1 AND id < 5", "SELECT id FROM t WHERE id > 0 AND id < 2"},
		{"SELECT id FROM t WHERE u >= 'b' AND u <= 'b'", "SELECT id FROM t WHERE u >= 'b' AND u <= 'b'", "SELECT id FROM t WHERE u >= 'a' AND u <= 'd'", "SELECT id FROM t WHERE u >= 'B' AND u <= 'B'"},
		{"SELECT id FROM t WHERE u = 'a'", "SELECT id FROM t WHERE u = 'a'", "SELECT id FROM t WHERE u = 'A'", "SELECT id FROM t WHERE u = 'a '", "SELECT id FROM t WHERE u = ''"},
		{"SELECT id FROM t WHERE k = 1 AND id = 2", "SELECT id FROM t WHERE k = 1 AND id = 2", "SELECT id FROM t WHERE k = 2 AND id = 2", "SELECT id FROM t WHERE k = 2 AND id = 5"},
		{"SELECT id FROM t WHERE k IN (1, 2) AND id > 1", "SELECT id FROM t WHERE k IN (1, 2) AND id > 1", "SELECT id FROM t WHERE k IN (2, 2) AND id > 1", "SELECT id FROM t WHERE k IN (1, 2) AND id > 4"},
		{"SELECT id FROM t WHERE id IN (1, 2) AND id IN (2, 3)", "SELECT id FROM t WHERE id IN (1, 2) AND id IN (2, 3)", "SELECT id FROM t WHERE id IN (1, 2) AND id IN (3, 4)", "SELECT id FROM t WHERE id IN (4, 5) AND id IN (5, 4)"},
		{"SELECT id FROM t WHERE id > 1 ORDER BY id LIMIT 1", "SELECT id FROM t WHERE id > 1 ORDER BY id LIMIT 1", "SELECT id FROM t WHERE id > 9 ORDER BY id LIMIT 1", "SELECT id FROM t WHERE id > 3 ORDER BY id LIMIT 1"},
		{"SELECT id, k FROM t WHERE k >= 1 ORDER BY k, id LIMIT 3", "SELECT id, k FROM t WHERE k >= 1 ORDER BY k, id LIMIT 3", "SELECT id, k FROM t WHERE k >= 2 ORDER BY k, id LIMIT 3", "SELECT id, k FROM t WHERE k < 2 ORDER BY k DESC, id DESC LIMIT 3", "SELECT id, k FROM t WHERE k < 3 ORDER BY k DESC, id DESC LIMIT 3"},
	}
	for _, g := range groups {
		qs = append(qs, g...)
		qs = append(qs, g...)
	}
	rawDiff(t, qs)
}

// TestTextPlanCacheCharsetKeys: string keys in other character sets and
// collations (latin1, ascii, utf8mb4_bin, utf8mb3) with literals that do
// and do not fit them, under two connection collations.
func TestTextPlanCacheCharsetKeys(t *testing.T) {
	qs := []string{"CREATE DATABASE ck", "USE ck",
		"CREATE TABLE l (s VARCHAR(10) CHARACTER SET latin1 PRIMARY KEY, n INT)",
		"INSERT INTO l VALUES ('a', 1), ('é', 2), ('E', 3), ('b ', 4)",
		"CREATE TABLE a (s VARCHAR(10) CHARACTER SET ascii PRIMARY KEY, n INT)",
		"INSERT INTO a VALUES ('a', 1), ('B', 2)",
		"CREATE TABLE m3 (s VARCHAR(4) CHARACTER SET utf8mb3 PRIMARY KEY, n INT)",
		"INSERT INTO m3 VALUES ('a', 1), ('ü', 2)",
		"CREATE TABLE u (s VARCHAR(4) COLLATE utf8mb4_unicode_ci PRIMARY KEY, n INT)",
		"INSERT INTO u VALUES ('a', 1), ('ß', 2), ('ss', 3)",
	}
	g := []string{
		"SELECT n FROM l WHERE s = 'a'", "SELECT n FROM l WHERE s = 'é'", "SELECT n FROM l WHERE s = 'e'", "SELECT n FROM l WHERE s = 'A'", "SELECT n FROM l WHERE s = '€'", "SELECT n FROM l WHERE s = 'b'", "SELECT n FROM l WHERE s = 'aaaaaaaaaaaaa'", "SELECT n FROM l WHERE s > 'a' ORDER BY s", "SELECT n FROM l WHERE s > 'c' ORDER BY s", "SELECT n FROM l WHERE s IN ('a', 'é')",
		"SELECT n FROM a WHERE s = 'a'", "SELECT n FROM a WHERE s = 'b'", "SELECT n FROM a WHERE s = 'é'", "SELECT n FROM a WHERE s = 'A'",
		"SELECT n FROM m3 WHERE s = 'a'", "SELECT n FROM m3 WHERE s = 'U'", "SELECT n FROM m3 WHERE s = '😀'", "SELECT n FROM m3 WHERE s = 'ü'",
		"SELECT n FROM u WHERE s = 'a'", "SELECT n FROM u WHERE s = 'ss'", "SELECT n FROM u WHERE s = 'ß'", "SELECT n FROM u WHERE s = 'SS'",
	}
	for _, set := range []string{"SET collation_connection = utf8mb4_bin", "SET NAMES latin1", "SET NAMES utf8mb4"} {
		qs = append(qs, g...)
		qs = append(qs, g...)
		qs = append(qs, set)
	}
	qs = append(qs, g...)
	rawDiff(t, qs)
}

// TestSQLSelectLimit: MySQL caps a top-level SELECT without LIMIT at
// sql_select_limit rows. go-mysql-server's analyzer leaves its rule out for
// a simple SELECT (a projection of one table, filtered or not), which then
// returned every row; sqlgw applies the limit itself there
// (engine/selectlimit.go), with and without the plan cache, for text and
// prepared statements.
func TestSQLSelectLimit(t *testing.T) {
	for _, noCache := range []bool{false, true} {
		c := vtConn(t, noCache)
		for _, q := range []string{"CREATE DATABASE sl", "USE sl", "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))", "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')"} {
			rawRun(c, q)
		}
		// Under the default, the same statements with an explicit LIMIT 1
		// give what sql_select_limit = 1 must give without one.
		qs := []string{"SELECT id FROM t", "SELECT id, v AS w FROM t WHERE id > 0", "SELECT id FROM t WHERE id IN (2, 3)",
			"SELECT v FROM t WHERE id BETWEEN 1 AND 3", "SELECT id FROM t WHERE id > 1 ORDER BY id DESC", "SELECT * FROM t WHERE v <> 'a'",
			"SELECT id FROM t WHERE v = 0", "SELECT id, 1/0 FROM t WHERE id > 1"} // the last two warn
		want := map[string]string{}
		for _, q := range qs {
			want[q] = rawRun(c, q+" LIMIT 1")
		}
		rawRun(c, "SET sql_select_limit = 1")
		for _, q := range qs {
			for i := range 3 { // text plans are cached from the second run on
				if got := rawRun(c, q); got != want[q] {
					t.Errorf("noCache %v: %s with sql_select_limit = 1, run %d:\n%s\nwant (LIMIT 1):\n%s", noCache, q, i+1, got, want[q])
				}
			}
		}
		// An explicit LIMIT wins; aggregates give their one row.
		if got := rawRun(c, "SELECT id FROM t LIMIT 2"); strings.Count(got, "row ") != 2 {
			t.Errorf("noCache %v: LIMIT 2 under sql_select_limit = 1:\n%s", noCache, got)
		}
		if got := rawRun(c, "SELECT COUNT(*) FROM t WHERE id > 0"); !strings.Contains(got, "row [INT64(3)]") {
			t.Errorf("noCache %v: COUNT(*) under sql_select_limit = 1:\n%s", noCache, got)
		}
		rawRun(c, "SET sql_select_limit = 2")
		if got := rawRun(c, "SELECT id FROM t WHERE id > 0"); strings.Count(got, "row ") != 2 {
			t.Errorf("noCache %v: sql_select_limit = 2:\n%s", noCache, got)
		}
		rawRun(c, "SET sql_select_limit = DEFAULT")
		for _, q := range []string{"SELECT id FROM t", "SELECT id FROM t WHERE id > 0"} {
			if got := rawRun(c, q); strings.Count(got, "row ") != 3 {
				t.Errorf("noCache %v: %s after SET sql_select_limit = DEFAULT:\n%s", noCache, q, got)
			}
		}
	}
}

// TestSQLSelectLimitPrepared: sql_select_limit caps a prepared simple
// SELECT at each execute, whether its plan was cached before the SET or
// not, and stops capping it after SET sql_select_limit = DEFAULT.
func TestSQLSelectLimitPrepared(t *testing.T) {
	for _, noCache := range []bool{false, true} {
		host, port := startServer(t, noCache)
		db, err := gosql.Open("mysql", fmt.Sprintf("root@tcp(%s)/", net.JoinHostPort(host, strconv.Itoa(port))))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		ctx := context.Background()
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		r := sqltest.NewRunner(t, c)
		r.Exec("CREATE DATABASE slp")
		r.Exec("USE slp")
		r.Exec("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))")
		r.Exec("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')")
		st, err := c.PrepareContext(ctx, "SELECT id, v FROM t WHERE id > ?")
		if err != nil {
			t.Fatal(err)
		}
		count := func() int {
			t.Helper()
			rs, err := st.QueryContext(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer rs.Close()
			n := 0
			for rs.Next() {
				n++
			}
			if err := rs.Err(); err != nil {
				t.Fatal(err)
			}
			return n
		}
		for step, c := range []struct {
			set  string
			want int
		}{{"", 3}, {"", 3}, {"SET sql_select_limit = 1", 1}, {"", 1}, {"SET sql_select_limit = 2", 2}, {"SET sql_select_limit = DEFAULT", 3}, {"", 3}} {
			if c.set != "" {
				r.Exec(c.set)
			}
			if got := count(); got != c.want {
				t.Errorf("noCache %v, step %d (%s): %d rows, want %d", noCache, step, c.set, got, c.want)
			}
		}
		st.Close()
	}
}
