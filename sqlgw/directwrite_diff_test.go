package sqlgw_test

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/sqlgw/engine"
)

// writeRun runs text statement q over the vitess client and renders what
// a client sees of a write: rows affected, insert id, the OK packet's info
// and status flags, the warnings, ROW_COUNT() and LAST_INSERT_ID(); or
// the error.
func writeRun(c *mysql.Conn, q string) string {
	res, err := c.ExecuteFetch(q, 10000, true)
	var sb strings.Builder
	if err != nil {
		fmt.Fprintf(&sb, "error: %v\n", err)
	} else {
		for _, r := range res.Rows {
			fmt.Fprintf(&sb, "row %v\n", r)
		}
		fmt.Fprintf(&sb, "affected %d insert id %d info %q\n", res.RowsAffected, res.InsertID, res.Info)
	}
	if w, err := c.ExecuteFetch("SHOW WARNINGS", 100, false); err == nil {
		for _, r := range w.Rows {
			fmt.Fprintf(&sb, "warning %v\n", r)
		}
	}
	if r, err := c.ExecuteFetch("SELECT ROW_COUNT(), LAST_INSERT_ID()", 1, false); err == nil {
		fmt.Fprintf(&sb, "row_count, last_insert_id %v\n", r.Rows)
	}
	return sb.String()
}

// writeHits returns a connection's Plan_cache_writes.
func writeHits(t *testing.T, c *mysql.Conn) int {
	t.Helper()
	res, err := c.ExecuteFetch("SHOW SESSION STATUS LIKE 'Plan_cache_writes'", 1, false)
	if err != nil || len(res.Rows) != 1 {
		t.Fatalf("Plan_cache_writes: %v", err)
	}
	var n int
	fmt.Sscan(res.Rows[0][1].ToString(), &n)
	return n
}

// TestWritePlanCacheText runs text writes of the cached shapes
// (directwrite.go) against a server with the plan cache and one without,
// comparing everything a client sees.
func TestWritePlanCacheText(t *testing.T) {
	with, without := vtConn(t, false), vtConn(t, true)
	for i, q := range writeSteps {
		if a, b := writeRun(with, q), writeRun(without, q); a != b {
			t.Errorf("step %d: %s\nwith the plan cache:\n%s\nwithout:\n%s", i, q, a, b)
		}
	}
	n := writeHits(t, with)
	t.Logf("%d writes from the plan cache", n)
	if n < 40 {
		t.Errorf("only %d writes came from the plan cache", n)
	}
}

var writeSteps = []string{
	"CREATE DATABASE dw", "USE dw",
	"CREATE TABLE sb (id INT NOT NULL AUTO_INCREMENT, k INT NOT NULL DEFAULT 0, c CHAR(20) NOT NULL DEFAULT '', pad CHAR(10) NOT NULL DEFAULT '', PRIMARY KEY (id), KEY k_1 (k))",
	"INSERT INTO sb (id, k, c, pad) VALUES (0, 500, 'c1', 'p1')",
	"INSERT INTO sb (id, k, c, pad) VALUES (0, 600, 'c2', 'p2')",
	"INSERT INTO sb (id, k, c, pad) VALUES (0, 700, 'c3', 'p3')",
	"INSERT INTO sb (id, k, c, pad) VALUES (10, 800, 'c4', 'p4')",
	"INSERT INTO sb (id, k, c, pad) VALUES (0, 900, 'c5', 'p5')",
	"INSERT INTO sb (id, k, c, pad) VALUES (3, 901, 'dup', 'p6')",
	"INSERT INTO sb (id, k, c, pad) VALUES (0, 902, 'c7', 'p7')",
	"INSERT INTO sb (id, k, c, pad) VALUES (0, 903, 'c8', 'p8'), (0, 904, 'c9', 'p9')",
	"INSERT INTO sb (id, k, c, pad) VALUES (0, 905, 'c10', 'p10'), (0, 906, 'c11', 'p11')",
	"INSERT INTO sb (id, k, c, pad) VALUES (0, 907, 'c12', 'p12'), (2, 908, 'dup', 'p13')",
	"INSERT INTO sb (id, k, c, pad) VALUES (0, 909, 'too long for char twenty', 'p14')",
	"INSERT INTO sb (id, k, c, pad) VALUES (0, 'x', 'c15', 'p15')",
	"INSERT INTO sb (id, k, c, pad) VALUES (0, '12abc', 'c16', 'p16')",
	"INSERT INTO sb (id, k, c, pad) VALUES (0, 3000000000, 'c17', 'p17')",
	"SELECT * FROM sb ORDER BY id",
	"UPDATE sb SET k = k + 1 WHERE id = 1", "UPDATE sb SET k = k + 1 WHERE id = 2", "UPDATE sb SET k = k + 1 WHERE id = 99",
	"UPDATE sb SET k = k + 1 WHERE id = 2147483647", "UPDATE sb SET k = k + 1 WHERE id = 1",
	"UPDATE sb SET c = 'new' WHERE id = 3", "UPDATE sb SET c = 'new' WHERE id = 3", "UPDATE sb SET c = 'other' WHERE id = 4",
	"UPDATE sb SET c = 'much too long for a char twenty' WHERE id = 4", "UPDATE sb SET k = 'abc' WHERE id = 5", "UPDATE sb SET k = '7x' WHERE id = 5",
	"UPDATE sb SET k = 2147483647 WHERE id = 5", "UPDATE sb SET k = k + 1 WHERE id = 5", "UPDATE sb SET k = k - 1 WHERE id = 5",
	"UPDATE sb SET id = 100 WHERE id = 6", "UPDATE sb SET id = 101 WHERE id = 7", "UPDATE sb SET id = 1 WHERE id = 100",
	"UPDATE sb SET k = 5, c = 'x' WHERE id = 10", "UPDATE sb SET k = 6, c = 'y' WHERE id = 11",
	"SELECT * FROM sb ORDER BY id",
	"DELETE FROM sb WHERE id = 10", "DELETE FROM sb WHERE id = 11", "DELETE FROM sb WHERE id = 10", "DELETE FROM sb WHERE id = 'x'",
	"INSERT INTO sb (id, k, c, pad) VALUES (0, 910, 'c18', 'p18')",
	"SELECT * FROM sb ORDER BY id",
	// Shapes left to the general path, between cached ones.
	"INSERT INTO sb (id, k, c, pad) VALUES (1, 5, 'odku', 'p') ON DUPLICATE KEY UPDATE k = k + 100",
	"INSERT INTO sb (id, k, c, pad) VALUES (0, 911, 'odku2', 'p') ON DUPLICATE KEY UPDATE k = k + 100",
	"INSERT IGNORE INTO sb (id, k, c, pad) VALUES (1, 5, 'ign', 'p')", "REPLACE INTO sb (id, k, c, pad) VALUES (2, 6, 'rep', 'p')",
	"INSERT INTO sb (id, k, c, pad) VALUES (0, 912, 'after', 'p')", "UPDATE sb SET k = k + 1 WHERE id = 2 LIMIT 1",
	"SELECT * FROM sb ORDER BY id",
	// Transactions.
	"BEGIN", "INSERT INTO sb (id, k, c, pad) VALUES (0, 920, 'tx1', 'p')", "UPDATE sb SET c = 'tx' WHERE id = 1",
	"DELETE FROM sb WHERE id = 2", "SELECT * FROM sb ORDER BY id", "ROLLBACK", "SELECT * FROM sb ORDER BY id",
	"BEGIN", "INSERT INTO sb (id, k, c, pad) VALUES (0, 921, 'tx2', 'p')", "UPDATE sb SET c = 'tx' WHERE id = 1", "COMMIT",
	"SET autocommit = 0", "UPDATE sb SET c = 'ac0' WHERE id = 1", "INSERT INTO sb (id, k, c, pad) VALUES (0, 922, 'ac0', 'p')", "ROLLBACK", "SET autocommit = 1",
	"SELECT * FROM sb ORDER BY id",
	// NULL into NOT NULL, truncation: strict and not.
	"CREATE TABLE nn (id INT PRIMARY KEY, a INT NOT NULL, s VARCHAR(3) NOT NULL, u TINYINT UNSIGNED)",
	"INSERT INTO nn (id, a, s, u) VALUES (1, 1, 'abc', 1)", "INSERT INTO nn (id, a, s, u) VALUES (2, 2, 'abcd', 2)",
	"INSERT INTO nn (id, a, s, u) VALUES (3, 3, 'ab', 300)", "INSERT INTO nn (id, a, s, u) VALUES (4, 'z', 'ab', 4)",
	"INSERT INTO nn (id, a, s, u) VALUES (5, NULL, 'ab', 4)",
	"UPDATE nn SET s = 'xyzw' WHERE id = 1", "UPDATE nn SET u = 256 WHERE id = 1", "UPDATE nn SET a = 'q' WHERE id = 1",
	"SET sql_mode = ''",
	"INSERT INTO nn (id, a, s, u) VALUES (6, 6, 'abcd', 6)", "INSERT INTO nn (id, a, s, u) VALUES (7, 7, 'ab', 300)",
	"INSERT INTO nn (id, a, s, u) VALUES (8, 'z', 'ab', 8)", "INSERT INTO nn (id, a, s, u) VALUES (9, NULL, 'ab', 9)",
	"UPDATE nn SET s = 'xyzw' WHERE id = 6", "UPDATE nn SET u = 256 WHERE id = 6", "UPDATE nn SET a = 'q' WHERE id = 6",
	"UPDATE nn SET s = 'xyzw' WHERE id = 7", "UPDATE nn SET u = 999 WHERE id = 7", "UPDATE nn SET a = 'qq' WHERE id = 7",
	"SET sql_mode = DEFAULT",
	"INSERT INTO nn (id, a, s, u) VALUES (10, 10, 'abcd', 10)", "SELECT * FROM nn ORDER BY id",
	// Unique and global indexes, the key itself.
	"CREATE TABLE uq (id INT PRIMARY KEY, e VARCHAR(20), g INT, UNIQUE KEY ue (e), KEY gi (g))",
	"INSERT INTO uq (id, e, g) VALUES (1, 'a', 1)", "INSERT INTO uq (id, e, g) VALUES (2, 'b', 2)", "INSERT INTO uq (id, e, g) VALUES (3, 'a', 3)",
	"INSERT INTO uq (id, e, g) VALUES (1, 'c', 3)", "INSERT INTO uq (id, e, g) VALUES (4, 'd', 4)",
	"UPDATE uq SET e = 'b' WHERE id = 1", "UPDATE uq SET e = 'z' WHERE id = 1", "UPDATE uq SET g = 9 WHERE id = 2", "UPDATE uq SET g = 8 WHERE id = 4",
	"UPDATE uq SET g = 7 WHERE e = 'z'", "UPDATE uq SET g = 6 WHERE e = 'b'", "UPDATE uq SET id = 2 WHERE id = 4", "UPDATE uq SET id = 5 WHERE id = 4",
	"DELETE FROM uq WHERE e = 'z'", "DELETE FROM uq WHERE e = 'b'", "DELETE FROM uq WHERE g = 8",
	"SELECT * FROM uq ORDER BY id", "SELECT id FROM uq WHERE g = 8", "SELECT id FROM uq WHERE e = 'b'",
	// Composite keys.
	"CREATE TABLE ck (a INT, b VARCHAR(10), v INT, PRIMARY KEY (a, b))",
	"INSERT INTO ck (a, b, v) VALUES (1, 'x', 1)", "INSERT INTO ck (a, b, v) VALUES (1, 'y', 2)", "INSERT INTO ck (a, b, v) VALUES (1, 'x', 3)",
	"UPDATE ck SET v = v + 10 WHERE a = 1 AND b = 'x'", "UPDATE ck SET v = v + 10 WHERE b = 'y' AND a = 1", "DELETE FROM ck WHERE a = 1 AND b = 'x'",
	"DELETE FROM ck WHERE a = 1 AND b = 'q'", "SELECT * FROM ck ORDER BY a, b",
	// AUTO_INCREMENT gaps and explicit values.
	"CREATE TABLE ai (id BIGINT AUTO_INCREMENT PRIMARY KEY, v INT)",
	"INSERT INTO ai (id, v) VALUES (0, 1)", "INSERT INTO ai (id, v) VALUES (100, 2)", "INSERT INTO ai (id, v) VALUES (0, 3)",
	"INSERT INTO ai (id, v) VALUES (0, 4), (0, 5)", "INSERT INTO ai (id, v) VALUES (50, 6)", "INSERT INTO ai (id, v) VALUES (0, 7)",
	"INSERT INTO ai (v) VALUES (8)", "INSERT INTO ai (v) VALUES (9)", "SELECT * FROM ai ORDER BY id",
	// Triggers: the plan is not cached (general path).
	"CREATE TABLE tr (id INT PRIMARY KEY, v INT)", "CREATE TABLE trlog (n INT)",
	"INSERT INTO tr (id, v) VALUES (1, 1)", "INSERT INTO tr (id, v) VALUES (2, 2)", "UPDATE tr SET v = 5 WHERE id = 1",
	"CREATE TRIGGER tru AFTER UPDATE ON tr FOR EACH ROW INSERT INTO trlog VALUES (NEW.v)",
	"CREATE TRIGGER tri AFTER INSERT ON tr FOR EACH ROW INSERT INTO trlog VALUES (NEW.id)",
	"UPDATE tr SET v = 6 WHERE id = 1", "UPDATE tr SET v = 7 WHERE id = 2", "INSERT INTO tr (id, v) VALUES (3, 3)", "INSERT INTO tr (id, v) VALUES (4, 4)",
	"SELECT * FROM trlog ORDER BY n",
	// Foreign keys: not cached.
	"CREATE TABLE par (id INT PRIMARY KEY, v INT)", "CREATE TABLE chi (id INT PRIMARY KEY, p INT, FOREIGN KEY (p) REFERENCES par (id))",
	"INSERT INTO par (id, v) VALUES (1, 1)", "INSERT INTO par (id, v) VALUES (2, 2)", "INSERT INTO chi (id, p) VALUES (1, 1)", "INSERT INTO chi (id, p) VALUES (2, 3)",
	"DELETE FROM par WHERE id = 1", "DELETE FROM par WHERE id = 2", "UPDATE par SET id = 5 WHERE id = 1",
	// DDL between executes.
	"INSERT INTO sb (id, k, c, pad) VALUES (0, 930, 'd1', 'p')", "ALTER TABLE sb ADD COLUMN extra INT NOT NULL DEFAULT 7",
	"INSERT INTO sb (id, k, c, pad) VALUES (0, 931, 'd2', 'p')", "UPDATE sb SET k = k + 1 WHERE id = 1",
	"ALTER TABLE sb DROP COLUMN pad", "INSERT INTO sb (id, k, c, pad) VALUES (0, 932, 'd3', 'p')", "UPDATE sb SET c = 'after' WHERE id = 1",
	"SELECT * FROM sb ORDER BY id",
	"DROP TABLE ck", "UPDATE ck SET v = v + 10 WHERE a = 1 AND b = 'x'", "INSERT INTO ck (a, b, v) VALUES (1, 'x', 1)",
}

// diffExec runs the write q on c and describes its outcome: the error, or
// the rows affected and the insert id; then its warnings, ROW_COUNT() and
// LAST_INSERT_ID().
func diffExec(ctx context.Context, c *sql.Conn, q string, args ...any) string {
	var sb strings.Builder
	res, err := c.ExecContext(ctx, q, args...)
	if err != nil {
		fmt.Fprintf(&sb, "error: %v\n", err)
	} else {
		n, _ := res.RowsAffected()
		id, _ := res.LastInsertId()
		fmt.Fprintf(&sb, "affected %d insert id %d\n", n, id)
	}
	sb.WriteString(diffRun(c, "SHOW WARNINGS"))
	sb.WriteString(diffRun(c, "SELECT ROW_COUNT(), LAST_INSERT_ID()"))
	return sb.String()
}

// TestWritePlanCachePrepared runs the writes of the cached shapes as
// server-side prepared statements (go-sql-driver) against a server with
// the plan cache and one without, comparing rows affected, the last insert
// id, the error, the warnings and ROW_COUNT().
func TestWritePlanCachePrepared(t *testing.T) {
	with, without := diffServer(t, false), diffServer(t, true)
	ctx := context.Background()
	run := func(c *sql.Conn, q string, args ...any) string {
		if len(args) == 0 && strings.HasPrefix(q, "SELECT") {
			return diffRun(c, q)
		}
		return diffExec(ctx, c, q, args...)
	}
	for i, st := range preparedWrites {
		if a, b := run(with, st.q, st.args...), run(without, st.q, st.args...); a != b {
			t.Errorf("step %d: %s %v\nwith the plan cache:\n%s\nwithout:\n%s", i, st.q, st.args, a, b)
		}
	}
	var name string
	var n int
	if err := with.QueryRowContext(ctx, "SHOW SESSION STATUS LIKE 'Plan_cache_writes'").Scan(&name, &n); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d prepared writes from the plan cache", n)
	if n < 20 {
		t.Errorf("only %d prepared writes came from the plan cache", n)
	}
}

type preparedWrite struct {
	q    string
	args []any
}

var preparedWrites = func() []preparedWrite {
	ins := "INSERT INTO sb (id, k, c, pad) VALUES (?, ?, ?, ?)"
	inc := "UPDATE sb SET k=k+1 WHERE id=?"
	setc := "UPDATE sb SET c=? WHERE id=?"
	del := "DELETE FROM sb WHERE id=?"
	ws := []preparedWrite{
		{q: "CREATE DATABASE pw"}, {q: "USE pw"},
		{q: "CREATE TABLE sb (id INT NOT NULL AUTO_INCREMENT, k INT NOT NULL DEFAULT 0, c CHAR(20) NOT NULL DEFAULT '', pad CHAR(10) NOT NULL DEFAULT '', PRIMARY KEY (id), KEY k_1 (k))"},
	}
	for i := 0; i < 12; i++ {
		ws = append(ws, preparedWrite{q: ins, args: []any{0, 1000 + i*300, fmt.Sprintf("c%d", i), "p"}})
	}
	ws = append(ws,
		preparedWrite{q: ins, args: []any{3, 5, "dup", "p"}},
		preparedWrite{q: ins, args: []any{0, "x", "bad", "p"}},
		preparedWrite{q: ins, args: []any{0, 7, "a string longer than twenty", "p"}},
		preparedWrite{q: ins, args: []any{0, nil, "null k", "p"}},
		preparedWrite{q: ins, args: []any{500, 7, "explicit", "p"}},
		preparedWrite{q: ins, args: []any{0, 7, "after gap", "p"}},
	)
	for i := 1; i <= 14; i++ {
		ws = append(ws, preparedWrite{q: inc, args: []any{i}}, preparedWrite{q: setc, args: []any{fmt.Sprintf("s%d", i%3), i}})
	}
	ws = append(ws,
		preparedWrite{q: inc, args: []any{"2"}}, preparedWrite{q: inc, args: []any{"2x"}}, preparedWrite{q: inc, args: []any{1 << 40}},
		preparedWrite{q: setc, args: []any{nil, 1}}, preparedWrite{q: setc, args: []any{"much too long for char twenty", 1}},
		preparedWrite{q: "BEGIN"}, preparedWrite{q: inc, args: []any{1}}, preparedWrite{q: del, args: []any{2}}, preparedWrite{q: ins, args: []any{0, 1, "tx", "p"}},
		preparedWrite{q: "SELECT * FROM sb ORDER BY id"}, preparedWrite{q: "ROLLBACK"},
	)
	for i := 1; i <= 6; i++ {
		ws = append(ws, preparedWrite{q: del, args: []any{i}})
	}
	ws = append(ws, preparedWrite{q: del, args: []any{99}}, preparedWrite{q: "SELECT * FROM sb ORDER BY id"})
	return ws
}()

// TestWritePlanCachePrivileges: a REVOKE applies to the writes cached
// before it, as to any statement (the table's privilege check runs on
// every execute from the cache).
func TestWritePlanCachePrivileges(t *testing.T) {
	servers := [][]*mysql.Conn{vtServerConns(t, false, []string{"wu"}, 2), vtServerConns(t, true, []string{"wu"}, 2)}
	steps := []struct {
		user int
		q    string
	}{
		{0, "CREATE DATABASE pv"}, {0, "CREATE TABLE pv.t (id INT PRIMARY KEY, v INT)"},
		{0, "GRANT SELECT, INSERT, UPDATE, DELETE ON pv.* TO 'wu'@'%'"},
		{1, "USE pv"},
		{1, "INSERT INTO t (id, v) VALUES (1, 1)"}, {1, "INSERT INTO t (id, v) VALUES (2, 2)"}, {1, "INSERT INTO t (id, v) VALUES (3, 3)"},
		{1, "UPDATE t SET v = 10 WHERE id = 1"}, {1, "UPDATE t SET v = 20 WHERE id = 2"},
		{1, "DELETE FROM t WHERE id = 3"}, {1, "DELETE FROM t WHERE id = 4"},
		{0, "REVOKE UPDATE, INSERT ON pv.* FROM 'wu'@'%'"},
		{1, "UPDATE t SET v = 30 WHERE id = 1"}, {1, "INSERT INTO t (id, v) VALUES (5, 5)"}, {1, "DELETE FROM t WHERE id = 2"},
		{0, "REVOKE DELETE ON pv.* FROM 'wu'@'%'"},
		{1, "DELETE FROM t WHERE id = 1"},
		{0, "GRANT UPDATE ON pv.* TO 'wu'@'%'"},
		{1, "UPDATE t SET v = 40 WHERE id = 1"}, {1, "SELECT * FROM t ORDER BY id"},
	}
	for i, st := range steps {
		a, b := writeRun(servers[0][st.user], st.q), writeRun(servers[1][st.user], st.q)
		if a != b {
			t.Errorf("step %d: %s\nwith the plan cache:\n%s\nwithout:\n%s", i, st.q, a, b)
		}
		if st.user == 1 && strings.HasPrefix(st.q, "UPDATE t SET v = 30") && !strings.Contains(a, "error") {
			t.Errorf("the UPDATE after the REVOKE succeeded:\n%s", a)
		}
	}
	if n := writeHits(t, servers[0][1]); n < 3 {
		t.Errorf("only %d writes came from the plan cache", n)
	}
}

// sessionStatus returns a connection's session status variable name.
func sessionStatus(t *testing.T, c *sql.Conn, name string) int {
	t.Helper()
	var n int
	if err := c.QueryRowContext(context.Background(), "SHOW SESSION STATUS LIKE '"+name+"'").Scan(&name, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestWritePlanCacheReused: a prepared write executed again is served
// from its cached plan (a hit), not analyzed again on every execute, under
// the default session settings (a plan that no execute finds valid is
// built anew each time, and still counted as a cached write).
func TestWritePlanCacheReused(t *testing.T) {
	c := diffServer(t, false)
	ctx := context.Background()
	for _, q := range []string{"CREATE DATABASE ru", "USE ru",
		"CREATE TABLE sb (id INT PRIMARY KEY, k INT NOT NULL DEFAULT 0, c CHAR(20) NOT NULL DEFAULT '', KEY k_1 (k))",
		"INSERT INTO sb VALUES (2, 10, 'a'), (3, 20, 'b'), (4, 30, 'c')"} {
		if _, err := c.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{"UPDATE sb SET k=k+1 WHERE id=?", "UPDATE sb SET c=? WHERE id=?", "DELETE FROM sb WHERE id=?"} {
		stmt, err := c.PrepareContext(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		h0, m0 := sessionStatus(t, c, "Plan_cache_hits"), sessionStatus(t, c, "Plan_cache_misses")
		const n = 10
		for i := 0; i < n; i++ {
			// Not id 1: a parameter equal to the constant 1 of k=k+1 makes
			// the build fail (directwrite.go), and the next execute builds.
			args := []any{i%3 + 2}
			if strings.Contains(q, "c=?") {
				args = []any{fmt.Sprint("v", i), i%3 + 2}
			}
			if _, err := stmt.ExecContext(ctx, args...); err != nil {
				t.Fatal(err)
			}
		}
		stmt.Close()
		// Each SHOW SESSION STATUS is a statement of its own (a miss at most).
		hits, misses := sessionStatus(t, c, "Plan_cache_hits")-h0, sessionStatus(t, c, "Plan_cache_misses")-m0
		if hits < n-1 || misses > 2 {
			t.Errorf("%s: %d executes gave %d plan cache hits and %d misses, want %d hits", q, n, hits, misses, n-1)
		}
	}
}

// directUpdateSteps are UPDATEs of the shape run directly (directupdate.go:
// by key, unique or other index) on tables with a global index, a unique
// index, NULLs, an ON UPDATE column, a stored generated column and a CHECK
// constraint, with the reads that show the indexes' contents after them.
var directUpdateSteps = []string{
	"CREATE DATABASE du", "USE du",
	"CREATE TABLE t (id INT PRIMARY KEY, k INT NOT NULL DEFAULT 0, u VARCHAR(10), n INT, c CHAR(8) NOT NULL DEFAULT '', KEY k_1 (k), UNIQUE KEY u_1 (u))",
	"INSERT INTO t VALUES (1, 10, 'a', NULL, 'x'), (2, 20, 'b', 2, 'y'), (3, 30, NULL, 3, 'z'), (4, 10, NULL, NULL, 'w'), (5, 50, 'e', 5, 'v')",
	// An indexed value moving, again and again; a missing key.
	"UPDATE t SET k = k + 1 WHERE id = 2", "UPDATE t SET k = k + 1 WHERE id = 2", "UPDATE t SET k = k - 1 WHERE id = 3",
	"UPDATE t SET k = k + 1 WHERE id = 99", "UPDATE t SET k = 10 WHERE id = 5",
	"SELECT id FROM t WHERE k = 10 ORDER BY id", "SELECT id FROM t WHERE k = 22", "SELECT id FROM t WHERE k = 20", "SELECT id, k FROM t ORDER BY id",
	// No-op updates: matched 1, changed 0, nothing written.
	"UPDATE t SET k = k WHERE id = 1", "UPDATE t SET c = 'x' WHERE id = 1", "UPDATE t SET k = 10, c = 'x' WHERE id = 1", "UPDATE t SET u = NULL WHERE id = 3",
	// NULLs: into a nullable column, a unique one, and a NOT NULL one.
	"UPDATE t SET n = NULL WHERE id = 2", "UPDATE t SET n = 7 WHERE id = 1", "UPDATE t SET u = NULL WHERE id = 1", "UPDATE t SET u = 'a' WHERE id = 4",
	"UPDATE t SET k = NULL WHERE id = 1", "UPDATE t SET c = NULL WHERE id = 1",
	"SELECT id FROM t WHERE u = 'a'", "SELECT id FROM t WHERE u IS NULL ORDER BY id", "SELECT * FROM t ORDER BY id",
	// Unique violations (1062, the same message), the key itself.
	"UPDATE t SET u = 'b' WHERE id = 5", "UPDATE t SET u = 'e' WHERE id = 3", "UPDATE t SET u = 'z' WHERE id = 5", "UPDATE t SET u = 'e' WHERE id = 3",
	"UPDATE t SET id = 1 WHERE id = 2", "UPDATE t SET id = 20 WHERE id = 2", "UPDATE t SET id = 2 WHERE id = 20", "UPDATE t SET id = id + 100 WHERE id = 4",
	"UPDATE t SET k = k + 1 WHERE id = 104",
	"SELECT id FROM t WHERE u = 'e'", "SELECT id FROM t WHERE u = 'z'", "SELECT id FROM t WHERE k = 11 ORDER BY id", "SELECT * FROM t ORDER BY id",
	// Through the unique index and through the non-unique one (many rows).
	"UPDATE t SET n = 9 WHERE u = 'z'", "UPDATE t SET k = 70 WHERE u = 'a'", "UPDATE t SET c = 'many' WHERE k = 10", "UPDATE t SET k = 12 WHERE k = 10",
	"UPDATE t SET n = 1 WHERE k = 12", "UPDATE t SET k = 13 WHERE k = 999",
	"SELECT id FROM t WHERE k = 12 ORDER BY id", "SELECT id FROM t WHERE k = 10", "SELECT * FROM t ORDER BY id",
	// Strict conversions and their errors; then the non-strict warnings.
	"UPDATE t SET k = 'abc' WHERE id = 1", "UPDATE t SET k = '12x' WHERE id = 1", "UPDATE t SET c = 'far too long' WHERE id = 1", "UPDATE t SET k = 3000000000 WHERE id = 1",
	"SET sql_mode = ''",
	"UPDATE t SET k = 'abc' WHERE id = 1", "UPDATE t SET k = '12x' WHERE id = 1", "UPDATE t SET c = 'far too long' WHERE id = 1", "UPDATE t SET k = 3000000000 WHERE id = 1",
	"UPDATE t SET k = NULL WHERE id = 1",
	"SET sql_mode = DEFAULT",
	"SELECT id FROM t WHERE k = 2147483647", "SELECT * FROM t ORDER BY id",
	// Transactions: rolled back, committed, autocommit off.
	"BEGIN", "UPDATE t SET k = 500 WHERE id = 1", "UPDATE t SET u = 'tx' WHERE id = 2", "SELECT id FROM t WHERE k = 500", "SELECT id FROM t WHERE u = 'tx'",
	"UPDATE t SET u = 'tx' WHERE id = 3", "ROLLBACK",
	"SELECT id FROM t WHERE k = 500", "SELECT id FROM t WHERE u = 'tx'", "SELECT * FROM t ORDER BY id",
	"BEGIN", "UPDATE t SET k = 501 WHERE id = 1", "UPDATE t SET k = 502 WHERE id = 1", "COMMIT", "SELECT id FROM t WHERE k = 502",
	"SET autocommit = 0", "UPDATE t SET k = 600 WHERE id = 2", "SELECT id FROM t WHERE k = 600", "ROLLBACK", "SELECT id FROM t WHERE k = 600",
	"UPDATE t SET k = 601 WHERE id = 2", "COMMIT", "SET autocommit = 1", "SELECT id FROM t WHERE k = 601",
	"START TRANSACTION READ ONLY", "UPDATE t SET k = 700 WHERE id = 2", "COMMIT", "SELECT id FROM t WHERE k = 700",
	// ON UPDATE, a stored generated column, a CHECK constraint.
	"CREATE TABLE ou (id INT PRIMARY KEY, v INT, ts DATETIME DEFAULT '2000-01-01 00:00:00' ON UPDATE CURRENT_TIMESTAMP, g INT AS (v * 2) STORED, CHECK (v < 100), KEY g_1 (g))",
	"INSERT INTO ou (id, v) VALUES (1, 1), (2, 2)",
	"UPDATE ou SET v = 1 WHERE id = 1", "SELECT id, v, ts = '2000-01-01 00:00:00', g FROM ou ORDER BY id",
	"UPDATE ou SET v = v + 10 WHERE id = 1", "SELECT id, v, ts = '2000-01-01 00:00:00', g FROM ou ORDER BY id", "SELECT id FROM ou WHERE g = 22",
	"UPDATE ou SET v = 5000 WHERE id = 2", "UPDATE ou SET g = 3 WHERE id = 2", "SELECT id, v, ts = '2000-01-01 00:00:00', g FROM ou ORDER BY id",
	"UPDATE ou SET v = v + 3 WHERE id = 2", "UPDATE ou SET v = v + 99 WHERE id = 2", "UPDATE ou SET v = v + 4 WHERE id = 1", "UPDATE ou SET v = v - 0 WHERE id = 1",
	"SELECT id FROM ou WHERE g = 30",
	"SELECT id, v, ts = '2000-01-01 00:00:00', g FROM ou ORDER BY id",
}

// TestDirectUpdate runs directUpdateSteps on a server whose cached UPDATEs
// run directly and on one without the plan cache, comparing everything a
// client sees (results, errors, warnings, rows matched and changed); then
// checks on the first that every index agrees with a scan of the rows.
func TestDirectUpdate(t *testing.T) {
	with, without := vtConn(t, false), vtConn(t, true)
	d0 := engine.DirectUpdates()
	for i, q := range directUpdateSteps {
		if a, b := writeRun(with, q), writeRun(without, q); a != b {
			t.Errorf("step %d: %s\nrun directly:\n%s\nwithout the plan cache:\n%s", i, q, a, b)
		}
	}
	if n := engine.DirectUpdates() - d0; n < 40 {
		t.Errorf("only %d statements ran directly", n)
	}
	indexesAgree(t, with, "t", "k", "u")
	indexesAgree(t, with, "ou", "g")
}

// indexesAgree requires, for each column of cols (each the first column
// of an index of table), that a lookup through the index finds exactly the
// rows a scan of the table finds with that value.
func indexesAgree(t *testing.T, c *mysql.Conn, table string, cols ...string) {
	t.Helper()
	for _, col := range cols {
		scan, err := c.ExecuteFetch(fmt.Sprintf("SELECT %s, id FROM %s IGNORE INDEX (%s_1) ORDER BY id", col, table, col), 1000, false)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string][]string{}
		for _, r := range scan.Rows {
			if !r[0].IsNull() {
				want[r[0].ToString()] = append(want[r[0].ToString()], r[1].ToString())
			}
		}
		total := 0
		for v, ids := range want {
			got, err := c.ExecuteFetch(fmt.Sprintf("SELECT id FROM %s FORCE INDEX (%s_1) WHERE %s = '%s' ORDER BY id", table, col, col, v), 1000, false)
			if err != nil {
				t.Fatal(err)
			}
			var g []string
			for _, r := range got.Rows {
				g = append(g, r[0].ToString())
			}
			if fmt.Sprint(g) != fmt.Sprint(ids) {
				t.Errorf("%s.%s = %s: the index finds %v, a scan %v", table, col, v, g, ids)
			}
			total += len(ids)
		}
		// No entity left behind for a value no row has any more.
		all, err := c.ExecuteFetch(fmt.Sprintf("SELECT COUNT(*) FROM %s FORCE INDEX (%s_1) WHERE %s IS NOT NULL", table, col, col), 1, false)
		if err != nil {
			t.Fatal(err)
		}
		if n := all.Rows[0][0].ToString(); n != fmt.Sprint(total) {
			t.Errorf("%s.%s: the index holds %s rows with a value, a scan %d", table, col, n, total)
		}
	}
}

// TestDirectUpdateFoundRows: with CLIENT_FOUND_ROWS an UPDATE's affected
// rows are the rows matched (changed or not), prepared and as text, run
// directly as by the engine.
func TestDirectUpdateFoundRows(t *testing.T) {
	ctx := context.Background()
	conn := func(noCache bool) *sql.Conn {
		host, port := startServer(t, noCache)
		db, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/?clientFoundRows=true", net.JoinHostPort(host, strconv.Itoa(port))))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	with, without := conn(false), conn(true)
	d0 := engine.DirectUpdates()
	steps := []preparedWrite{
		{q: "CREATE DATABASE fr"}, {q: "USE fr"},
		{q: "CREATE TABLE t (id INT PRIMARY KEY, k INT NOT NULL, KEY k_1 (k))"},
		{q: "INSERT INTO t VALUES (2, 10), (3, 10), (4, 30)"},
	}
	for i := 0; i < 4; i++ {
		steps = append(steps, preparedWrite{q: "UPDATE t SET k = ? WHERE id = ?", args: []any{10, 2}},
			preparedWrite{q: "UPDATE t SET k = ? WHERE id = ?", args: []any{11 + i, 3}},
			preparedWrite{q: "UPDATE t SET k = k + 0 WHERE id = 4"}, preparedWrite{q: "UPDATE t SET k = 30 WHERE k = 30"})
	}
	run := func(c *sql.Conn, st preparedWrite) string {
		res, err := c.ExecContext(ctx, st.q, st.args...)
		if err != nil {
			return "error: " + err.Error()
		}
		n, _ := res.RowsAffected()
		return fmt.Sprintf("affected %d %s", n, diffRun(c, "SELECT ROW_COUNT(), FOUND_ROWS()"))
	}
	for i, st := range steps {
		if a, b := run(with, st), run(without, st); a != b {
			t.Errorf("step %d: %s %v\nrun directly: %s\nwithout the plan cache: %s", i, st.q, st.args, a, b)
		}
	}
	if n := engine.DirectUpdates() - d0; n < 8 {
		t.Errorf("only %d statements ran directly", n)
	}
}
