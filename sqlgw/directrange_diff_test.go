package sqlgw_test

import (
	"context"
	gosql "database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw"
	"github.com/sqlgw/sqlgw/sqlgw/engine"
)

// rangeDiffConn starts a server on an in-memory store, with the plan cache
// and direct execution as cfg says, and returns one connection of it.
func rangeDiffConn(t *testing.T, noCache, noDirect bool) *gosql.Conn {
	t.Helper()
	srv := memoryServer(t, sqlgw.Config{NoPlanCache: noCache, NoDirect: noDirect})
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

// TestDirectRangeDifferential: the aggregates, sorts and DISTINCT over a
// key range that sqlgw/engine/directrange.go executes directly give
// exactly what go-mysql-server's executor gives for the same cached plan
// (Config.NoDirect) and without the plan cache (Config.NoPlanCache):
// column names and types, rows, errors, warnings, FOUND_ROWS(). The
// tables hold integer, BIGINT (a SUM past its range), DECIMAL, DOUBLE and
// VARCHAR columns in utf8mb4_0900_ai_ci, utf8mb4_general_ci, utf8mb4_bin
// and latin1, NULLs, and values equal under one collation but not another
// (for DISTINCT and ORDER BY); the ranges include empty and reversed ones.
// The near misses (GROUP BY with keys, HAVING, expressions, COUNT
// DISTINCT, TopN, OFFSET) must not run directly, every shape of the list
// must.
func TestDirectRangeDifferential(t *testing.T) {
	direct := rangeDiffConn(t, false, false)
	cached := rangeDiffConn(t, false, true)
	plain := rangeDiffConn(t, true, false)
	conns := []*gosql.Conn{direct, cached, plain}
	names := []string{"direct", "plan cache without direct execution", "no plan cache"}
	setup := []string{
		"CREATE DATABASE drd", "USE drd",
		`CREATE TABLE t (id INT PRIMARY KEY, k INT NULL, big BIGINT NULL, u BIGINT UNSIGNED NULL, d DECIMAL(10,2) NULL, f DOUBLE NULL,
			a VARCHAR(20) COLLATE utf8mb4_0900_ai_ci NULL, g VARCHAR(20) COLLATE utf8mb4_general_ci NULL,
			b VARCHAR(20) COLLATE utf8mb4_bin NULL, l VARCHAR(20) CHARACTER SET latin1 NULL, KEY kk (k))`,
		`INSERT INTO t VALUES
			(1, 5, 9223372036854775807, 18446744073709551615, 1.25, 0.5, 'a', 'a', 'a', 'a'),
			(2, NULL, 9223372036854775807, 1, NULL, NULL, 'A', 'A', 'A', 'A'),
			(3, -7, -3, 2, -0.75, -1e300, 'á', 'á', 'á', 'ä'),
			(4, 5, NULL, NULL, 99999999.99, 1e300, 'b ', 'b ', 'b ', 'b '),
			(5, 0, 1, 3, 0.01, 3.25, 'B', 'B', 'B', 'B'),
			(6, 2147483647, 9223372036854775807, 4, 12.5, 0, 'ss', 'ss', 'ss', 'ss'),
			(7, 2147483647, 2, 5, 12.5, NULL, 'ß', 'ß', 'ß', 'ß'),
			(8, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
			(9, 5, 3, 6, 7.00, 2.5, 'b', 'b', 'b', 'b'),
			(10, -2147483648, -9223372036854775808, 0, -99999999.99, -0e0, 'Ä', 'Ä', 'Ä', 'Ä'),
			(11, 3, 4, 7, 3.33, 1.5, 'a ', 'a ', 'a ', 'a '),
			(12, 3, 5, 8, 3.33, 1.5, 'zz', 'ZZ', 'zZ', 'Zz')`,
		"CREATE TABLE s (id BIGINT PRIMARY KEY, v VARCHAR(10) COLLATE utf8mb4_0900_ai_ci NOT NULL, n INT NOT NULL)",
		"INSERT INTO s VALUES (1, 'x', 1), (2, 'X', 2), (3, 'y', 3), (4, 'x', 4)",
	}
	for _, q := range setup {
		for i, c := range conns {
			if _, err := c.ExecContext(context.Background(), q); err != nil {
				t.Fatalf("%s on %s: %v", q, names[i], err)
			}
		}
	}
	// Each statement runs with these bounds (full, partial, one row,
	// empty, reversed, outside).
	bounds := [][2]any{{1, 12}, {2, 7}, {8, 8}, {9, 3}, {100, 200}, {-5, 3}, {10, 10}}
	shapes := []string{
		"SELECT SUM(k) FROM t WHERE id BETWEEN ? AND ?",
		"SELECT SUM(big) FROM t WHERE id BETWEEN ? AND ?",
		"SELECT SUM(u), SUM(d), SUM(f) FROM t WHERE id BETWEEN ? AND ?",
		"SELECT COUNT(*), COUNT(k), COUNT(a) FROM t WHERE id BETWEEN ? AND ?",
		"SELECT MIN(k), MAX(k), MIN(big), MAX(u), MIN(d), MAX(f) FROM t WHERE id BETWEEN ? AND ?",
		"SELECT MIN(a), MAX(a), MIN(g), MAX(g), MIN(b), MAX(b), MIN(l), MAX(l) FROM t WHERE id BETWEEN ? AND ?",
		"SELECT AVG(k), AVG(big), AVG(d), AVG(f) FROM t WHERE id BETWEEN ? AND ?",
		"SELECT SUM(a), SUM(l), AVG(b) FROM t WHERE id BETWEEN ? AND ?",
		"SELECT SUM(k) AS total, COUNT(*) n FROM t WHERE id BETWEEN ? AND ?",
		"SELECT SUM(k) FROM t WHERE id >= ? AND id < ?",
		"SELECT a FROM t WHERE id BETWEEN ? AND ? ORDER BY a",
		"SELECT g FROM t WHERE id BETWEEN ? AND ? ORDER BY g",
		"SELECT b FROM t WHERE id BETWEEN ? AND ? ORDER BY b",
		"SELECT l FROM t WHERE id BETWEEN ? AND ? ORDER BY l",
		"SELECT id, a FROM t WHERE id BETWEEN ? AND ? ORDER BY a DESC",
		"SELECT k, d, id FROM t WHERE id BETWEEN ? AND ? ORDER BY k, d DESC",
		"SELECT f FROM t WHERE id BETWEEN ? AND ? ORDER BY f",
		// A float column projected out of sorted rows, and aggregates
		// of it (id 10 holds -0: go-mysql-server's Project returns 0).
		"SELECT f FROM t WHERE id BETWEEN ? AND ? ORDER BY k",
		"SELECT f, a FROM t WHERE id BETWEEN ? AND ? ORDER BY a DESC",
		"SELECT MIN(f), MAX(f) FROM t WHERE id BETWEEN ? AND ?",
		"SELECT a AS x, b FROM t WHERE id BETWEEN ? AND ? ORDER BY b, a",
		"SELECT DISTINCT a FROM t WHERE id BETWEEN ? AND ? ORDER BY a",
		"SELECT DISTINCT g FROM t WHERE id BETWEEN ? AND ? ORDER BY g",
		"SELECT DISTINCT b FROM t WHERE id BETWEEN ? AND ? ORDER BY b",
		"SELECT DISTINCT l FROM t WHERE id BETWEEN ? AND ? ORDER BY l DESC",
		"SELECT DISTINCT k FROM t WHERE id BETWEEN ? AND ?",
		"SELECT DISTINCT a, k FROM t WHERE id BETWEEN ? AND ? ORDER BY k, a",
		"SELECT DISTINCT d FROM t WHERE id BETWEEN ? AND ? ORDER BY d",
		"SELECT DISTINCT v FROM s WHERE id BETWEEN ? AND ? ORDER BY v",
		"SELECT v, n FROM s WHERE id BETWEEN ? AND ? ORDER BY v",
		"SELECT SUM(n), MAX(v) FROM s WHERE id BETWEEN ? AND ?",
		"SELECT DISTINCT a FROM t WHERE id BETWEEN ? AND ? LIMIT 2",
	}
	nearMisses := []string{
		"SELECT k, SUM(big) FROM t WHERE id BETWEEN ? AND ? GROUP BY k ORDER BY k",
		"SELECT SUM(k) FROM t WHERE id BETWEEN ? AND ? HAVING SUM(k) > 0",
		"SELECT SUM(k + 1) FROM t WHERE id BETWEEN ? AND ?",
		"SELECT COUNT(DISTINCT k) FROM t WHERE id BETWEEN ? AND ?",
		"SELECT a FROM t WHERE id BETWEEN ? AND ? ORDER BY a LIMIT 3",
		"SELECT a FROM t WHERE id BETWEEN ? AND ? ORDER BY a LIMIT 2 OFFSET 1",
		"SELECT k FROM t WHERE id BETWEEN ? AND ? ORDER BY k + 1",
		"SELECT SUM(k) FROM t WHERE id BETWEEN ? AND ? AND a = 'b'",
		"SELECT DISTINCT LOWER(a) FROM t WHERE id BETWEEN ? AND ? ORDER BY 1",
	}
	ctx := context.Background()
	directCount := func() int64 {
		var name string
		var n int64
		if err := direct.QueryRowContext(ctx, "SHOW SESSION STATUS LIKE 'Plan_cache_direct'").Scan(&name, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// run executes q with args on every server and compares the outcome
	// and FOUND_ROWS(); it returns the executes run directly.
	run := func(q string, args ...any) int64 {
		t.Helper()
		d0 := directCount()
		var outs []string
		for _, c := range conns {
			out := diffRun(c, q, args...) // plancache_diff_test.go
			var found int64
			if err := c.QueryRowContext(ctx, "SELECT FOUND_ROWS()").Scan(&found); err != nil {
				t.Fatal(err)
			}
			outs = append(outs, fmt.Sprintf("%sfound_rows: %d\n", out, found))
		}
		for i := 1; i < len(outs); i++ {
			if outs[i] != outs[0] {
				t.Errorf("%s %v\n%s:\n%s\n%s:\n%s", q, args, names[0], outs[0], names[i], outs[i])
			}
		}
		return directCount() - d0
	}
	// The status queries themselves are not executed directly, so the
	// difference of two readings is the executes of the statements in
	// between.
	if d0 := directCount(); directCount() != d0 {
		t.Fatal("SHOW SESSION STATUS counts as a direct execute")
	}
	check := func(stmts []string, wantDirect bool) {
		for _, q := range stmts {
			var d int64
			for _, b := range bounds {
				d += run(q, b[0], b[1])
				// The same as a text statement (the plan cache of its
				// shape, textcache.go).
				d += run(strings.Replace(strings.Replace(q, "?", fmt.Sprint(b[0]), 1), "?", fmt.Sprint(b[1]), 1))
			}
			switch {
			case wantDirect && d == 0:
				t.Errorf("%s: never executed directly", q)
			case !wantDirect && d != 0:
				t.Errorf("%s: executed directly %d times, a near miss must not be", q, d)
			}
		}
	}
	check(shapes, true)
	check(nearMisses, false)

	// Inside a transaction: its own writes, then after ROLLBACK the
	// stored rows again.
	for _, c := range conns {
		for _, q := range []string{"BEGIN", "INSERT INTO t (id, k, a, b) VALUES (13, 100, 'aa', 'AA')", "UPDATE t SET k = 1, a = 'Z' WHERE id = 2", "DELETE FROM t WHERE id = 9"} {
			if _, err := c.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
	}
	check(shapes[:1], true)
	check([]string{shapes[10], shapes[21], shapes[4]}, true)
	for _, c := range conns {
		if _, err := c.ExecContext(ctx, "ROLLBACK"); err != nil {
			t.Fatal(err)
		}
	}
	check([]string{shapes[0], shapes[10], shapes[21]}, true)

	// sysbench's shapes over CHAR columns of every collation, 300 rows
	// (more than one slab of decoded rows, rowIter.newRow) from a small
	// alphabet, so that ranges of 100 rows hold many ties, values equal
	// under one collation and not another, NULLs and long common
	// prefixes.
	alphabet := []string{"a", "A", "á", "b", "B", "ss", "ß", "Ä", "ä", "z", " ", "-1"}
	seed := uint32(7)
	word := func(n int) string {
		var sb strings.Builder
		for range n {
			seed = seed*1103515245 + 12345
			sb.WriteString(alphabet[(seed>>16)%uint32(len(alphabet))])
		}
		return strings.TrimRight(sb.String(), " ")
	}
	var ins strings.Builder
	ins.WriteString("INSERT INTO w VALUES ")
	for id := 1; id <= 300; id++ {
		if id > 1 {
			ins.WriteByte(',')
		}
		v := func(n int) string {
			if id%37 == 0 {
				return "NULL"
			}
			return "'" + word(n) + "'"
		}
		fmt.Fprintf(&ins, "(%d, %d, %s, %s, %s, %s, '%s', %s)", id, id%7, v(1+id%3), v(2), v(1+id%2), v(2), strings.Repeat("p", id%5), v(1+id%2))
	}
	for _, q := range []string{
		`CREATE TABLE w (id INT PRIMARY KEY, k INT NOT NULL, c CHAR(30) COLLATE utf8mb4_0900_ai_ci NULL,
			cg CHAR(20) COLLATE utf8mb4_general_ci NULL, cb CHAR(20) COLLATE utf8mb4_bin NULL, cl CHAR(20) CHARACTER SET latin1 NULL,
			pad CHAR(60) NOT NULL, c9 CHAR(20) NULL)`,
		ins.String(),
	} {
		for i, c := range conns {
			if _, err := c.ExecContext(ctx, q); err != nil {
				t.Fatalf("%.80s on %s: %v", q, names[i], err)
			}
		}
	}
	bounds = [][2]any{{1, 100}, {150, 249}, {201, 300}, {37, 37}, {250, 150}, {1, 300}}
	var sysbench []string
	for _, col := range []string{"c", "cg", "cb", "cl", "c9"} {
		sysbench = append(sysbench,
			"SELECT "+col+" FROM w WHERE id BETWEEN ? AND ? ORDER BY "+col,
			"SELECT DISTINCT "+col+" FROM w WHERE id BETWEEN ? AND ? ORDER BY "+col,
			"SELECT DISTINCT "+col+" FROM w WHERE id BETWEEN ? AND ?",
			"SELECT id, "+col+" FROM w WHERE id BETWEEN ? AND ? ORDER BY "+col+" DESC",
			"SELECT "+col+", pad FROM w WHERE id BETWEEN ? AND ? ORDER BY "+col+", pad",
			"SELECT MIN("+col+"), MAX("+col+"), COUNT("+col+") FROM w WHERE id BETWEEN ? AND ?",
		)
	}
	sysbench = append(sysbench, "SELECT SUM(k) FROM w WHERE id BETWEEN ? AND ?", "SELECT c FROM w WHERE id BETWEEN ? AND ?",
		// DISTINCT and ORDER BY of several columns of the byte-ordered
		// collations (utf8mb4_bin, the default utf8mb4_0900_bin: one
		// operator, sortrows.go), and with a column of another type or
		// collation, or not sorted by every column (two).
		"SELECT DISTINCT cb, c9 FROM w WHERE id BETWEEN ? AND ? ORDER BY c9 DESC, cb",
		"SELECT DISTINCT c9, cb FROM w WHERE id BETWEEN ? AND ? ORDER BY cb, c9",
		"SELECT DISTINCT c9 AS x, cb FROM w WHERE id BETWEEN ? AND ? ORDER BY x, cb DESC",
		"SELECT DISTINCT c9, cb FROM w WHERE id BETWEEN ? AND ? ORDER BY cb",
		"SELECT DISTINCT c9, k FROM w WHERE id BETWEEN ? AND ? ORDER BY c9, k",
		"SELECT DISTINCT c9, c FROM w WHERE id BETWEEN ? AND ? ORDER BY c, c9",
		// No operator above the table access at all (the order is the
		// key's): direct.go's simple shape.
		"SELECT * FROM w WHERE id BETWEEN ? AND ? ORDER BY id")
	sd0 := engine.SortedDistincts()
	check(sysbench, true)
	if engine.SortedDistincts() == sd0 {
		t.Error("no DISTINCT ... ORDER BY ran as one operator (sortrows.go)")
	}
	// Inside a transaction with its own writes: rows added, changed (to a
	// value equal under the collation to a stored one) and deleted within
	// the ranges.
	for _, c := range conns {
		for _, q := range []string{"BEGIN",
			"INSERT INTO w VALUES (0, 1, 'Ab', 'Ab', 'Ab', 'Ab', '', 'Ab'), (301, 2, 'á', 'ß', 'a', 'ä', 'x', 'a')",
			"DELETE FROM w WHERE id = 120",
			"INSERT INTO w VALUES (120, 2, 'á', 'ß', 'a', 'ä', 'x', 'ß')",
			"UPDATE w SET c = 'A', cg = 'SS', cb = 'b', cl = 'Ä', c9 = 'B' WHERE id IN (3, 160, 161)",
			"DELETE FROM w WHERE id IN (2, 155, 201)",
			"UPDATE w SET c = NULL, c9 = NULL WHERE id = 202",
		} {
			if _, err := c.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
	}
	check(sysbench, true)
	for _, c := range conns {
		if _, err := c.ExecContext(ctx, "COMMIT"); err != nil {
			t.Fatal(err)
		}
	}
	check(sysbench[:3], true)
}
