package sqlgw_test

import (
	"context"
	gosql "database/sql"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw"
	"github.com/sqlgw/sqlgw/sqlgw/engine"
)

// Review of issue 13's bound plans (i13plan) and directly executed ranges
// (i13range): each statement runs on three servers (plan cache with direct
// execution, plan cache without it, no plan cache) and must give the same
// columns, rows, errors and warnings; bound access paths are also
// re-planned inside the server (engine.SetVerifyBoundPlans).

// r13Servers are the three servers' connections.
type r13Servers struct {
	t     *testing.T
	dbs   []*gosql.DB
	conns []*gosql.Conn
	names []string
}

func r13Start(t *testing.T) *r13Servers {
	s := &r13Servers{t: t, names: []string{"direct", "plan cache without direct execution", "no plan cache"}}
	for _, cfg := range [][2]bool{{false, false}, {false, true}, {true, false}} {
		db := r13Server(t, cfg[0], cfg[1])
		c, err := db.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		s.dbs = append(s.dbs, db)
		s.conns = append(s.conns, c)
	}
	return s
}

// r13Server starts a server on an in-memory store as rangeDiffConn does
// and returns its pool.
func r13Server(t *testing.T, noCache, noDirect bool) *gosql.DB {
	t.Helper()
	srv := memoryServer(t, sqlgw.Config{NoPlanCache: noCache, NoDirect: noDirect})
	db, err := gosql.Open("mysql", fmt.Sprintf("root@tcp(%s)/", srv.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	r13Addrs = append(r13Addrs, srv.Addr().String())
	return db
}

// directRuns is the direct server's Plan_cache_direct of this session.
func (s *r13Servers) directRuns() int64 {
	s.t.Helper()
	var name string
	var n int64
	if err := s.conns[0].QueryRowContext(context.Background(), "SHOW SESSION STATUS LIKE 'Plan_cache_direct'").Scan(&name, &n); err != nil {
		s.t.Fatal(err)
	}
	return n
}

// r13Addrs are the addresses of the servers started (for probes with
// other clients).
var r13Addrs []string

// other returns a second connection to every server.
func (s *r13Servers) other() []*gosql.Conn {
	var out []*gosql.Conn
	for _, db := range s.dbs {
		c, err := db.Conn(context.Background())
		if err != nil {
			s.t.Fatal(err)
		}
		s.t.Cleanup(func() { c.Close() })
		out = append(out, c)
	}
	return out
}

// exec runs q on every server, failing on an error.
func (s *r13Servers) exec(q string, args ...any) {
	s.t.Helper()
	for i, c := range s.conns {
		if _, err := c.ExecContext(context.Background(), q, args...); err != nil {
			s.t.Fatalf("%s on %s: %v", q, s.names[i], err)
		}
	}
}

// same runs q (a text statement, or with args a prepared one) on every
// server and requires the same outcome; it returns the first's.
func (s *r13Servers) same(q string, args ...any) string {
	s.t.Helper()
	var outs []string
	for _, c := range s.conns {
		outs = append(outs, diffRun(c, q, args...)) // plancache_diff_test.go
	}
	for i := 1; i < len(outs); i++ {
		if outs[i] != outs[0] {
			s.t.Errorf("%s %v\n%s:\n%s\n%s:\n%s", q, r13Args(args), s.names[0], outs[0], s.names[i], outs[i])
		}
	}
	return outs[0]
}

// prepared prepares q once on every server and runs it with each of
// argSets in turn (a plan cached under one set's types then executed with
// another's), requiring the same outcome everywhere.
func (s *r13Servers) prepared(q string, argSets ...[]any) {
	s.t.Helper()
	ctx := context.Background()
	stmts := make([]*gosql.Stmt, len(s.conns))
	for i, c := range s.conns {
		st, err := c.PrepareContext(ctx, q)
		if err != nil {
			s.t.Fatalf("prepare %s on %s: %v", q, s.names[i], err)
		}
		defer st.Close()
		stmts[i] = st
	}
	for _, args := range argSets {
		var outs []string
		for i, st := range stmts {
			rs, err := st.QueryContext(ctx, args...)
			outs = append(outs, r13Render(s.conns[i], rs, err))
		}
		for i := 1; i < len(outs); i++ {
			if outs[i] != outs[0] {
				s.t.Errorf("prepared %s %v\n%s:\n%s\n%s:\n%s", q, r13Args(args), s.names[0], outs[0], s.names[i], outs[i])
			}
		}
	}
}

func r13Args(args []any) string {
	var sb strings.Builder
	for i, a := range args {
		if i > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(&sb, "%T(%v)", a, a)
	}
	return "[" + sb.String() + "]"
}

// r13Render renders a result as diffRun does.
func r13Render(c *gosql.Conn, rs *gosql.Rows, err error) string {
	var sb strings.Builder
	if err != nil {
		fmt.Fprintf(&sb, "error: %v\n", err)
	} else {
		cols, _ := rs.Columns()
		fmt.Fprintf(&sb, "columns: %q\n", cols)
		if cts, err := rs.ColumnTypes(); err == nil {
			for _, ct := range cts {
				n, _ := ct.Nullable()
				l, _ := ct.Length()
				p, sc, _ := ct.DecimalSize()
				fmt.Fprintf(&sb, "column %s: %s len %d dec %d,%d null %v\n", ct.Name(), ct.DatabaseTypeName(), l, p, sc, n)
			}
		}
		for rs.Next() {
			vals := make([]gosql.RawBytes, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rs.Scan(ptrs...); err != nil {
				fmt.Fprintf(&sb, "scan error: %v\n", err)
				break
			}
			for i, v := range vals {
				if i > 0 {
					sb.WriteByte('\t')
				}
				if v == nil {
					sb.WriteString("NULL")
				} else {
					sb.WriteString(strconv.Quote(string(v)))
				}
			}
			sb.WriteByte('\n')
		}
		if err := rs.Err(); err != nil {
			fmt.Fprintf(&sb, "error: %v\n", err)
		}
		rs.Close()
	}
	var wc int64
	if err := c.QueryRowContext(context.Background(), "SELECT @@warning_count").Scan(&wc); err == nil {
		fmt.Fprintf(&sb, "warning_count: %d\n", wc)
	}
	if ws, err := c.QueryContext(context.Background(), "SHOW WARNINGS"); err == nil {
		for ws.Next() {
			var level, msg string
			var code int
			if ws.Scan(&level, &code, &msg) == nil {
				fmt.Fprintf(&sb, "warning: %s %d %s\n", level, code, msg)
			}
		}
		ws.Close()
	}
	return sb.String()
}

// r13Verify turns on the in-server re-planning of bound access paths and
// returns a check that none differed.
func r13Verify(t *testing.T) func() {
	restore := engine.SetVerifyBoundPlans(true)
	m0, _ := engine.BoundPlanMismatches()
	b0, r0 := engine.BoundPlanCounts()
	return func() {
		restore()
		b1, r1 := engine.BoundPlanCounts()
		t.Logf("bound %d executes, re-planned %d", b1-b0, r1-r0)
		if m1, last := engine.BoundPlanMismatches(); m1 != m0 {
			t.Errorf("%d bound access paths differ from the re-planned ones; the last: %s", m1-m0, last)
		}
	}
}

// mixed are parameter values of every kind, run in turn through one
// prepared statement.
var r13Mixed = []any{
	1, "1", 1.0, "1.0", " 1", "1abc", "12abc", 3.5, "3.5", 1e30, -1, int64(-9223372036854775808),
	uint64(18446744073709551615), "18446744073709551615", "18446744073709551616", nil, 2, "a", "A", "á",
	"a ", "A  ", "ab", "abc", "abcd", "abc ", "ß", "ss", "", 0, "0", "-0", 1.005, "1.005", "1.01", 999.995, "9999.99",
	"1e1", 10, true, false, []byte("b"), []byte("a\x00"),
}

// TestReview13BoundKeyKinds: point gets, IN lists and ranges over primary
// keys of kinds the existing differential tests do not cover (DECIMAL,
// CHAR, VARCHAR(3) under PAD SPACE, VARBINARY, a composite unsigned and
// latin1 key with a prefix, a salted collated key, DOUBLE), each prepared
// once and executed with values of every kind in turn.
func TestReview13BoundKeyKinds(t *testing.T) {
	defer r13Verify(t)()
	s := r13Start(t)
	for _, q := range []string{
		"CREATE DATABASE r13", "USE r13",
		"CREATE TABLE td (id DECIMAL(6,2) PRIMARY KEY, v INT)",
		"INSERT INTO td VALUES (1.00, 1), (1.01, 2), (3.50, 3), (-3.25, 4), (9999.99, 5), (0, 6), (10, 7)",
		"CREATE TABLE tch (id CHAR(4) COLLATE utf8mb4_0900_ai_ci PRIMARY KEY, v INT)",
		"INSERT INTO tch VALUES ('a', 1), ('ab', 2), ('abc', 3), ('ss', 4), ('1', 5), ('b', 6)",
		"CREATE TABLE tv3 (id VARCHAR(3) COLLATE utf8mb4_general_ci PRIMARY KEY, v INT)",
		"INSERT INTO tv3 VALUES ('a', 1), ('ab', 2), ('abc', 3), ('ß', 4), ('1', 5), ('é', 6)",
		"CREATE TABLE t09 (id VARCHAR(3) COLLATE utf8mb4_0900_ai_ci PRIMARY KEY, v INT)",
		"INSERT INTO t09 VALUES ('a', 1), ('a ', 2), ('ab', 3), ('abc', 4), ('1', 5)",
		"CREATE TABLE tvb (id VARBINARY(4) PRIMARY KEY, v INT)",
		"INSERT INTO tvb VALUES ('a', 1), ('a\\0', 2), ('b', 3), ('1', 4), ('ab', 5)",
		"CREATE TABLE tcu (a BIGINT UNSIGNED, b VARCHAR(5) CHARACTER SET latin1, v INT, PRIMARY KEY (a, b))",
		"INSERT INTO tcu VALUES (1, 'a', 1), (1, 'c', 2), (1, 'b', 3), (0, 'a', 4), (18446744073709551615, 'a', 5), (10, 'ä', 6)",
		"CREATE TABLE tsc (id VARCHAR(10) COLLATE utf8mb4_unicode_ci PRIMARY KEY, v INT) COMMENT 'sqlgw: salt_buckets=4'",
		"INSERT INTO tsc VALUES ('a', 1), ('ab', 2), ('abc', 3), ('ss', 4), ('1', 5), ('é', 6), ('b', 7)",
		"CREATE TABLE tdb (id DOUBLE PRIMARY KEY, v INT)",
		"INSERT INTO tdb VALUES (1, 1), (1.5, 2), (3.5, 3), (-1, 4), (1e30, 5), (0, 6)",
		"CREATE TABLE tbu (id BIGINT UNSIGNED PRIMARY KEY, v INT)",
		"INSERT INTO tbu VALUES (0, 1), (1, 2), (2, 3), (10, 4), (18446744073709551615, 5), (9223372036854775808, 6)",
	} {
		s.exec(q)
	}
	sets := func(n int) [][]any {
		var out [][]any
		for i, v := range r13Mixed {
			args := []any{v}
			for j := 1; j < n; j++ {
				args = append(args, r13Mixed[(i+j*7)%len(r13Mixed)])
			}
			out = append(out, args)
		}
		return out
	}
	for _, tb := range []string{"td", "tch", "tv3", "t09", "tvb", "tsc", "tdb", "tbu"} {
		s.prepared("SELECT id, v FROM "+tb+" WHERE id = ?", sets(1)...)
		s.prepared("SELECT id, v FROM "+tb+" WHERE id IN (?, ?, ?) ORDER BY v", sets(3)...)
		s.prepared("SELECT id, v FROM "+tb+" WHERE id >= ? AND id <= ? ORDER BY v", sets(2)...)
		s.prepared("SELECT id, v FROM "+tb+" WHERE id BETWEEN ? AND ? ORDER BY v", sets(2)...)
		s.prepared("UPDATE "+tb+" SET v = v + 1 WHERE id = ?", sets(1)...)
		s.same("SELECT id, v FROM " + tb + " ORDER BY v")
	}
	s.prepared("SELECT a, b, v FROM tcu WHERE a = ? AND b = ?", sets(2)...)
	s.prepared("SELECT a, b, v FROM tcu WHERE a = ? ORDER BY v", sets(1)...)
	s.prepared("SELECT a, b, v FROM tcu WHERE a = ? AND b > ? ORDER BY v", sets(2)...)
	s.prepared("SELECT a, b, v FROM tcu WHERE a IN (?, ?) AND b = ? ORDER BY v", sets(3)...)
	s.prepared("DELETE FROM tcu WHERE a = ? AND b = ?", sets(2)...)
	s.same("SELECT a, b, v FROM tcu ORDER BY v")
}

// TestReview13BoundDDL: a statement prepared once keeps answering right
// when DDL changes its table between executes (an index created and
// dropped on the compared column, the key column's collation changed),
// when the current database changes to one with a table of the same name,
// and under another sql_mode; as prepared statements and as text.
func TestReview13BoundDDL(t *testing.T) {
	defer r13Verify(t)()
	s := r13Start(t)
	for _, q := range []string{
		"CREATE DATABASE r13a", "CREATE DATABASE r13b", "USE r13a",
		"CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(10) COLLATE utf8mb4_0900_ai_ci, k INT)",
		"INSERT INTO t VALUES (1, 'a', 10), (2, 'A', 20), (3, 'b', 10), (4, 'á', 30), (5, 'a ', 10)",
		"CREATE TABLE r13b.t (id INT PRIMARY KEY, name VARCHAR(10) COLLATE utf8mb4_bin, k INT)",
		"INSERT INTO r13b.t VALUES (1, 'x', 10), (2, 'A', 20), (7, 'a', 10)",
		"CREATE TABLE n (name VARCHAR(10) COLLATE utf8mb4_0900_ai_ci PRIMARY KEY, v INT)",
		"INSERT INTO n VALUES ('a', 1), ('b', 2), ('c ', 3)",
		"CREATE TABLE r13b.n (name VARCHAR(10) COLLATE utf8mb4_bin PRIMARY KEY, v INT)",
		"INSERT INTO r13b.n VALUES ('a', 10), ('A', 20), ('c ', 30)",
	} {
		s.exec(q)
	}
	vals := [][]any{{"a"}, {"A"}, {"á"}, {"a "}, {1}, {"b"}, {10}, {"10"}, {nil}}
	kvals := [][]any{{10}, {"10"}, {20}, {10.0}, {"1e1"}, {nil}, {"a"}}
	stmts := []struct {
		q    string
		vals [][]any
	}{
		{"SELECT id, name FROM t WHERE name = ? ORDER BY id", vals},
		{"SELECT id, k FROM t WHERE k = ? ORDER BY id", kvals},
		{"SELECT id, k FROM t WHERE k IN (?) ORDER BY id", kvals},
		{"SELECT name, v FROM n WHERE name = ?", vals},
		{"SELECT id, name FROM t WHERE id = ?", kvals},
	}
	runAll := func() {
		for _, st := range stmts {
			s.prepared(st.q, st.vals...)
			for _, v := range st.vals {
				s.same(st.q, v...)
				if v[0] != nil {
					lit := fmt.Sprint(v[0])
					if _, isStr := v[0].(string); isStr {
						lit = "'" + lit + "'"
					}
					s.same(strings.Replace(st.q, "?", lit, 1))
				}
			}
		}
	}
	runAll()
	for _, ddl := range []string{
		"CREATE INDEX k_1 ON t (k)", "CREATE UNIQUE INDEX nm ON t (name, id)",
		"ALTER TABLE t MODIFY name VARCHAR(20) COLLATE utf8mb4_0900_ai_ci",
		"DROP INDEX k_1 ON t", "DROP INDEX nm ON t", "CREATE INDEX nm2 ON t (name)",
		"ALTER TABLE t ADD COLUMN z INT DEFAULT 7",
		"USE r13b",
	} {
		s.exec(ddl)
		runAll()
	}
	s.exec("USE r13a")
	s.exec("SET sql_mode = 'ANSI_QUOTES,PAD_CHAR_TO_FULL_LENGTH'")
	runAll()
	s.same(`SELECT id, name FROM t WHERE name = "name" ORDER BY id`)
	s.exec("SET sql_mode = DEFAULT")
	s.same(`SELECT id, name FROM t WHERE name = "name" ORDER BY id`)
}

// r13RangeSetup is the table of the range tests.
var r13RangeSetup = []string{
	"CREATE DATABASE r13r", "USE r13r",
	`CREATE TABLE t (id INT PRIMARY KEY, k INT NULL, big BIGINT NULL, d DECIMAL(10,2) NULL, f FLOAT NULL,
		c VARCHAR(20) COLLATE utf8mb4_0900_ai_ci NULL, g VARCHAR(20) COLLATE utf8mb4_general_ci NULL, KEY kk (k))`,
	`INSERT INTO t VALUES
		(1, 5, 9223372036854775807, 1.25, 0.5, 'a', 'a'),
		(2, NULL, 9223372036854775807, NULL, NULL, 'A', 'A'),
		(3, -7, -3, -0.75, -1.5, 'á', 'a '),
		(4, 5, NULL, 99999999.99, 1e30, 'b', 'b '),
		(5, 0, 1, 0.01, 3.25, 'B', 'B'),
		(6, NULL, NULL, NULL, NULL, NULL, NULL),
		(7, 3, -9223372036854775808, -1.00, 0.1, 'a', 'A  '),
		(8, 3, -9223372036854775808, 2.00, 0.2, 'c', 'c'),
		(9, 3, 7, 2.00, 0.3, 'C', 'c ')`,
}

// TestReview13RangeLimits: the LIMIT of a directly executed range (a
// Limit above a DISTINCT or an aggregate) is the statement's, not the one
// the plan was cached with: prepared with LIMIT ?, and as text statements
// of one shape with different LIMIT literals; and sql_select_limit.
func TestReview13RangeLimits(t *testing.T) {
	s := r13Start(t)
	for _, q := range r13RangeSetup {
		s.exec(q)
	}
	d0 := s.directRuns()
	defer func() { t.Logf("%d executes run directly", s.directRuns()-d0) }()
	for _, n := range []int{2, 3, 1, 5, 2} {
		s.same(fmt.Sprintf("SELECT DISTINCT c FROM t WHERE id BETWEEN 1 AND 9 LIMIT %d", n))
		s.same(fmt.Sprintf("SELECT DISTINCT g FROM t WHERE id BETWEEN 1 AND 9 ORDER BY g LIMIT %d", n))
		s.same(fmt.Sprintf("SELECT SUM(k) FROM t WHERE id BETWEEN 1 AND 9 LIMIT %d", n))
		s.same(fmt.Sprintf("SELECT c FROM t WHERE id BETWEEN 1 AND 9 ORDER BY c LIMIT %d", n))
		s.same(fmt.Sprintf("SELECT c FROM t WHERE id BETWEEN 1 AND 9 ORDER BY c LIMIT %d, 2", n))
	}
	argSets := [][]any{{1, 9, 2}, {1, 9, 3}, {1, 9, 1}, {2, 8, 5}, {1, 9, 0}, {1, 9, 2}}
	s.prepared("SELECT DISTINCT c FROM t WHERE id BETWEEN ? AND ? LIMIT ?", argSets...)
	s.prepared("SELECT DISTINCT g FROM t WHERE id BETWEEN ? AND ? ORDER BY g LIMIT ?", argSets...)
	s.prepared("SELECT c FROM t WHERE id BETWEEN ? AND ? ORDER BY c LIMIT ?", argSets...)
	for _, lim := range []string{"2", "DEFAULT", "1", "0", "DEFAULT"} {
		s.exec("SET sql_select_limit = " + lim)
		s.prepared("SELECT DISTINCT c FROM t WHERE id BETWEEN ? AND ? ORDER BY c", []any{1, 9}, []any{2, 9})
		s.prepared("SELECT c FROM t WHERE id BETWEEN ? AND ? ORDER BY c", []any{1, 9}, []any{2, 9})
		s.prepared("SELECT SUM(k), COUNT(*) FROM t WHERE id BETWEEN ? AND ?", []any{1, 9}, []any{2, 9})
		s.same("SELECT DISTINCT g FROM t WHERE id BETWEEN 1 AND 9 ORDER BY g")
		s.same("SELECT c FROM t WHERE id BETWEEN 1 AND 9 ORDER BY c")
	}
}

// TestReview13RangeTxn: the ranges executed directly inside transactions:
// a REPEATABLE READ snapshot taken before another session's commit, the
// transaction's own uncommitted writes (the overlay) and then its
// rollback.
func TestReview13RangeTxn(t *testing.T) {
	s := r13Start(t)
	for _, q := range r13RangeSetup {
		s.exec(q)
	}
	d0 := s.directRuns()
	defer func() { t.Logf("%d executes run directly", s.directRuns()-d0) }()
	others := s.other()
	ctx := context.Background()
	shapes := []string{
		"SELECT c FROM t WHERE id BETWEEN ? AND ?",
		"SELECT SUM(k), SUM(big), SUM(d), SUM(f), COUNT(*), MIN(c), MAX(g) FROM t WHERE id BETWEEN ? AND ?",
		"SELECT c, id FROM t WHERE id BETWEEN ? AND ? ORDER BY c",
		"SELECT DISTINCT c FROM t WHERE id BETWEEN ? AND ? ORDER BY c",
		"SELECT DISTINCT g FROM t WHERE id BETWEEN ? AND ? ORDER BY g DESC",
	}
	runShapes := func() {
		for _, q := range shapes {
			s.prepared(q, []any{1, 9}, []any{3, 12}, []any{9, 1}, []any{4, 4})
			s.same(strings.Replace(strings.Replace(q, "?", "1", 1), "?", "12", 1))
		}
	}
	runShapes()
	s.exec("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ")
	s.exec("START TRANSACTION")
	runShapes()
	for _, c := range others {
		for _, q := range []string{"UPDATE r13r.t SET k = k + 100, c = 'zz' WHERE id IN (1, 3)", "INSERT INTO r13r.t (id, k, c) VALUES (10, 1000, 'a'), (11, 1, 'A ')", "DELETE FROM r13r.t WHERE id = 8"} {
			if _, err := c.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
	}
	runShapes() // the snapshot: none of the other session's writes
	s.exec("UPDATE t SET k = -1, c = 'A' WHERE id = 2")
	s.exec("INSERT INTO t (id, k, big, c, g) VALUES (12, 9, 9223372036854775807, 'a', 'A'), (20, 1, 1, 'b', 'b')")
	s.exec("DELETE FROM t WHERE id = 9")
	runShapes() // the snapshot and the transaction's own writes
	s.exec("ROLLBACK")
	runShapes()
	s.exec("START TRANSACTION")
	s.exec("UPDATE t SET big = 9223372036854775807 WHERE id BETWEEN 1 AND 12")
	runShapes()
	s.exec("COMMIT")
	runShapes()
}

// TestReview13TextLiterals: text statements of one shape whose literals
// differ in what MySQL makes of them (introducers, COLLATE, hex and bit
// literals, national strings, dates, signed and exponent numbers), run on
// keys and on the range shapes.
func TestReview13TextLiterals(t *testing.T) {
	defer r13Verify(t)()
	s := r13Start(t)
	for _, q := range []string{
		"CREATE DATABASE r13t", "USE r13t",
		"CREATE TABLE n (name VARCHAR(10) COLLATE utf8mb4_0900_ai_ci PRIMARY KEY, v INT)",
		"INSERT INTO n VALUES ('a', 1), ('B', 2), ('c ', 3), ('1', 4), ('10', 5), ('é', 6)",
		"CREATE TABLE i (id INT PRIMARY KEY, c VARCHAR(10) COLLATE utf8mb4_0900_ai_ci, k INT)",
		"INSERT INTO i VALUES (1, 'a', 1), (2, 'A', 2), (10, 'b', 3), (97, 'B', 4), (98, 'c', 5), (65, 'á', 6)",
	} {
		s.exec(q)
	}
	lits := []string{"'a'", "'A'", "_binary'A'", "_binary'a'", "'A' COLLATE utf8mb4_bin", "'a' COLLATE utf8mb4_bin",
		"_latin1'A'", "N'A'", "0x61", "0x41", "X'61'", "b'1100001'", "'1'", "1", "10", "1e1", "'1e1'", "0x0A", "+1", "-1",
		"'é'", "_utf8mb4'E' COLLATE utf8mb4_0900_as_cs", "'c'", "'c '", "_binary'c '", "TRUE", "NULL", "'10' + 0"}
	for _, l := range lits {
		s.same("SELECT name, v FROM n WHERE name = " + l)
		s.same("SELECT name, v FROM n WHERE name IN (" + l + ", 'zz')")
		s.same("SELECT id, c FROM i WHERE id = " + l)
		s.same("SELECT id, c FROM i WHERE id IN (" + l + ", 2)")
		s.same("SELECT SUM(k) FROM i WHERE id BETWEEN " + l + " AND 100")
		s.same("SELECT DISTINCT c FROM i WHERE id BETWEEN 1 AND " + l + " ORDER BY c")
		s.same("SELECT c FROM i WHERE id BETWEEN 1 AND 100 AND c = " + l + " ORDER BY c")
	}
}

// TestReview13SessionVars: session settings changed between executes of
// one prepared statement and one text shape: the connection's character
// set and collation, div_precision_increment (AVG's scale), the
// transaction isolation level, autocommit.
func TestReview13SessionVars(t *testing.T) {
	defer r13Verify(t)()
	s := r13Start(t)
	for _, q := range r13RangeSetup {
		s.exec(q)
	}
	sets := [][]any{{1, 9}, {"a", "b"}, {3, 3}, {"1", 9.5}}
	run := func() {
		s.prepared("SELECT AVG(k), SUM(k), AVG(d), SUM(d) FROM t WHERE id BETWEEN ? AND ?", sets...)
		s.prepared("SELECT DISTINCT c FROM t WHERE id BETWEEN ? AND ? ORDER BY c", sets...)
		s.prepared("SELECT id, c FROM t WHERE c = ? ORDER BY id", []any{"a"}, []any{"A"}, []any{"á"}, []any{"b "})
		s.same("SELECT AVG(k), SUM(k), AVG(d), SUM(d) FROM t WHERE id BETWEEN 1 AND 9")
		s.same("SELECT DISTINCT g FROM t WHERE id BETWEEN 1 AND 9 ORDER BY g")
		s.same("SELECT id, c FROM t WHERE c = 'á' ORDER BY id")
		s.same("SELECT id, c FROM t WHERE id = 3")
	}
	run()
	for _, q := range []string{
		"SET div_precision_increment = 8", "SET NAMES latin1", "SET collation_connection = utf8mb4_bin",
		"SET NAMES utf8mb4 COLLATE utf8mb4_general_ci", "SET autocommit = 0", "SET autocommit = 1",
		"SET div_precision_increment = 0", "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
	} {
		s.exec(q)
		run()
	}
}

// r13Rows returns q's rows on every server (one string per row, NULL as
// "NULL"), failing if the servers disagree.
func (s *r13Servers) rows(q string, args ...any) []string {
	s.t.Helper()
	out := s.same(q, args...)
	var rows []string
	for _, line := range strings.Split(out, "\n") {
		if line == "" || strings.HasPrefix(line, "column") || strings.HasPrefix(line, "warning:") {
			continue
		}
		rows = append(rows, line)
	}
	return rows
}

// TestReview13DistinctCollation: SELECT DISTINCT over a key range (one of
// oltp_read_only's statements, executed directly by directrange.go)
// returns one row per value equal under the column's collation, as MySQL
// does (its temporary table's unique key compares with the collation):
// 'a', 'A' and 'á' are one value under utf8mb4_0900_ai_ci, and under
// utf8mb4_general_ci 'a' and 'A' are (compat/distinct_collation.go), and
// so are 'a' and 'a ' (PAD SPACE, TestReview13DistinctPadSpace).
func TestReview13DistinctCollation(t *testing.T) {
	s := r13Start(t)
	for _, q := range r13RangeSetup {
		s.exec(q)
	}
	for _, tc := range []struct {
		q    string
		want int
	}{
		// c: NULL, {a, A, á}, {b, B}, {c, C}.
		{"SELECT DISTINCT c FROM t WHERE id BETWEEN 1 AND 9 ORDER BY c", 4},
		{"SELECT DISTINCT c FROM t WHERE id BETWEEN 1 AND 9", 4},
		// g: NULL, {a, A, a , A  }, {B, b }, {c, c } (PAD SPACE).
		{"SELECT DISTINCT g FROM t WHERE id BETWEEN 1 AND 9 ORDER BY g", 4},
	} {
		if got := s.rows(tc.q); len(got) != tc.want {
			t.Errorf("%s: %d rows %q, want %d", tc.q, len(got), got, tc.want)
		}
		if got := s.rows(tc.q[:strings.Index(tc.q, "BETWEEN")]+"BETWEEN ? AND ?"+tc.q[strings.Index(tc.q, " AND 9")+6:], 1, 9); len(got) != tc.want {
			t.Errorf("%s (prepared): %d rows %q, want %d", tc.q, len(got), got, tc.want)
		}
	}
}

// TestReview13DistinctPadSpace: under utf8mb4_general_ci (PAD SPACE)
// MySQL's DISTINCT returns 'a', 'A', 'a ' and 'A  ' as one value.
func TestReview13DistinctPadSpace(t *testing.T) {
	s := r13Start(t)
	for _, q := range r13RangeSetup {
		s.exec(q)
	}
	// g: NULL, {a, A, a , A  }, {B, b }, {c, c }.
	if got := s.rows("SELECT DISTINCT g FROM t WHERE id BETWEEN 1 AND 9 ORDER BY g"); len(got) != 4 {
		t.Errorf("%d rows %q, want 4", len(got), got)
	}
}

// TestReview13AvgDivPrecision: AVG of an INT or DECIMAL column has
// div_precision_increment more decimals than its argument (MySQL), also
// when the session changes it between executes of a cached plan.
func TestReview13AvgDivPrecision(t *testing.T) {
	s := r13Start(t)
	for _, q := range r13RangeSetup {
		s.exec(q)
	}
	for _, tc := range []struct{ dpi, want string }{{"4", "\"1.7143\""}, {"8", "\"1.71428571\""}, {"0", "\"2\""}, {"4", "\"1.7143\""}} {
		s.exec("SET div_precision_increment = " + tc.dpi)
		for _, q := range []string{"SELECT AVG(k) FROM t WHERE id BETWEEN 1 AND 9"} {
			if got := s.rows(q); len(got) != 1 || got[0] != tc.want {
				t.Errorf("div_precision_increment %s: %s = %q, want %s", tc.dpi, q, got, tc.want)
			}
			if got := s.rows("SELECT AVG(k) FROM t WHERE id BETWEEN ? AND ?", 1, 9); len(got) != 1 || got[0] != tc.want {
				t.Errorf("div_precision_increment %s: prepared %s = %q, want %s", tc.dpi, q, got, tc.want)
			}
		}
	}
}

// TestReview13BoundIndexKinds: equalities and IN lists on one-column
// global indexes (unique and not) over VARCHAR in several collations,
// DECIMAL, BIGINT UNSIGNED and DOUBLE columns, each prepared once and
// executed with values of every kind, and inside a transaction with
// writes to the table.
func TestReview13BoundIndexKinds(t *testing.T) {
	defer r13Verify(t)()
	s := r13Start(t)
	s.exec("CREATE DATABASE r13i")
	s.exec("USE r13i")
	s.exec(`CREATE TABLE x (id INT PRIMARY KEY, g VARCHAR(8) COLLATE utf8mb4_general_ci, a VARCHAR(8) COLLATE utf8mb4_0900_ai_ci,
		b VARCHAR(8) COLLATE utf8mb4_bin, l VARCHAR(8) CHARACTER SET latin1, d DECIMAL(6,2), u BIGINT UNSIGNED, f DOUBLE,
		KEY g_1 (g), UNIQUE KEY a_1 (a), KEY b_1 (b), UNIQUE KEY l_1 (l), KEY d_1 (d), UNIQUE KEY u_1 (u), KEY f_1 (f))`)
	words := []string{"a", "A ", "á", "b", "B", "ss", "ß", "1", "10", "c  ", "ab", "é"}
	for i := range 60 {
		s.exec("INSERT INTO x VALUES (?, ?, ?, ?, ?, ?, ?, ?)", i,
			words[i%len(words)], fmt.Sprintf("%s%d", words[i%len(words)], i), words[(i*5)%len(words)], fmt.Sprintf("%s%d", words[(i*7)%len(words)], i),
			fmt.Sprintf("%d.%02d", i%7, (i*13)%100), uint64(i)*1000+uint64(i%3), float64(i%9)/2)
	}
	sets := func(col, n int) [][]any {
		var out [][]any
		for i := range 16 { // the stored values first: the plan is cached for them
			args := []any{}
			for j := range n {
				k := i + j*11
				args = append(args, []any{words[k%len(words)], fmt.Sprintf("%s%d", words[k%len(words)], k), words[(k*5)%len(words)],
					fmt.Sprintf("%s%d", words[(k*7)%len(words)], k), fmt.Sprintf("%d.%02d", k%7, (k*13)%100), uint64(k) * 1000, float64(k%9) / 2}[col])
			}
			out = append(out, args)
		}
		for i, v := range r13Mixed[:20] {
			args := []any{v}
			for j := 1; j < n; j++ {
				args = append(args, r13Mixed[(i+j*5)%len(r13Mixed)])
			}
			out = append(out, args)
		}
		return out
	}
	run := func() {
		for i, col := range []string{"g", "a", "b", "l", "d", "u", "f"} {
			s.prepared("SELECT id, "+col+" FROM x WHERE "+col+" = ? ORDER BY id", sets(i, 1)...)
			s.prepared("SELECT id, "+col+" FROM x WHERE "+col+" IN (?, ?, ?) ORDER BY id", sets(i, 3)...)
		}
	}
	run()
	s.exec("BEGIN")
	s.exec("UPDATE x SET g = 'A', a = 'zz', d = 1.5, u = 7, f = 2.5 WHERE id = 3")
	s.exec("INSERT INTO x VALUES (100, 'b ', 'B100', 'b', 'x100', 0.5, 100000, 0.5)")
	run()
	s.exec("ROLLBACK")
	run()
}

// TestReview13RangeFirstExecute: the plan of a range shape is cached by
// its first execute; when that one is empty (reversed bounds), one point
// (equal bounds, an IN list of one value repeated) or out of range, the
// later executes over many rows must not inherit what the analyzer made
// of at most one row (a sort or DISTINCT dropped).
func TestReview13RangeFirstExecute(t *testing.T) {
	defer r13Verify(t)()
	s := r13Start(t)
	for _, q := range r13RangeSetup {
		s.exec(q)
	}
	d0 := s.directRuns()
	defer func() { t.Logf("%d executes run directly", s.directRuns()-d0) }()
	firsts := [][]any{{9, 3}, {4, 4}, {100, 200}, {"9", "3"}, {5.5, 5.5}, {nil, 3}}
	for _, first := range firsts {
		for _, q := range []string{
			"SELECT c FROM t WHERE id BETWEEN ? AND ? ORDER BY c",
			"SELECT DISTINCT c FROM t WHERE id BETWEEN ? AND ? ORDER BY c",
			"SELECT DISTINCT g FROM t WHERE id BETWEEN ? AND ?",
			"SELECT SUM(k), COUNT(*), MAX(c) FROM t WHERE id BETWEEN ? AND ?",
			"SELECT c, id FROM t WHERE id >= ? AND id <= ? ORDER BY c DESC",
		} {
			s.prepared(q, first, []any{1, 9}, []any{2, 8}, first, []any{1, 9})
		}
		s.prepared("SELECT DISTINCT c FROM t WHERE id IN (?, ?, ?) ORDER BY c", []any{first[0], first[0], first[0]}, []any{1, 2, 3}, []any{7, 8, 9})
		s.prepared("SELECT c FROM t WHERE id IN (?, ?) ORDER BY c", []any{first[0], first[0]}, []any{1, 2}, []any{8, 9})
		s.prepared("SELECT SUM(k) FROM t WHERE id IN (?, ?)", []any{first[0], first[0]}, []any{1, 2}, []any{8, 8})
	}
}

// execSame runs the statement q with each of argSets (one prepared
// statement per server) and requires the same affected rows, errors and
// warnings everywhere.
func (s *r13Servers) execSame(q string, argSets ...[]any) {
	s.t.Helper()
	ctx := context.Background()
	stmts := make([]*gosql.Stmt, len(s.conns))
	for i, c := range s.conns {
		st, err := c.PrepareContext(ctx, q)
		if err != nil {
			s.t.Fatalf("prepare %s on %s: %v", q, s.names[i], err)
		}
		defer st.Close()
		stmts[i] = st
	}
	for _, args := range argSets {
		var outs []string
		for i, st := range stmts {
			var out string
			res, err := st.ExecContext(ctx, args...)
			if err != nil {
				out = fmt.Sprintf("error: %v\n", err)
			} else {
				n, _ := res.RowsAffected()
				out = fmt.Sprintf("affected %d\n", n)
			}
			outs = append(outs, out+r13Render(s.conns[i], nil, fmt.Errorf("-")))
		}
		for i := 1; i < len(outs); i++ {
			if outs[i] != outs[0] {
				s.t.Errorf("exec %s %v\n%s:\n%s\n%s:\n%s", q, r13Args(args), s.names[0], outs[0], s.names[i], outs[i])
			}
		}
	}
}

// TestReview13BoundWrites: UPDATE and DELETE by key and by index through
// bound plans, prepared once and executed with values of every kind, in
// and out of transactions; the affected rows, warnings and the table
// after each statement must be those of the servers without the plan
// cache.
func TestReview13BoundWrites(t *testing.T) {
	defer r13Verify(t)()
	s := r13Start(t)
	for _, q := range []string{
		"CREATE DATABASE r13w", "USE r13w",
		"CREATE TABLE w (id INT PRIMARY KEY, name VARCHAR(10) COLLATE utf8mb4_general_ci, k INT, v INT, UNIQUE KEY n_1 (name), KEY k_1 (k))",
	} {
		s.exec(q)
	}
	words := []string{"a", "B", "c ", "é", "ss", "x"}
	reset := func() {
		s.exec("DELETE FROM w")
		for i := range 30 {
			s.exec("INSERT INTO w VALUES (?, ?, ?, ?)", i, fmt.Sprintf("%s%d", words[i%len(words)], i/len(words)), i%5, i)
		}
	}
	vals := [][]any{{1, 1}, {"2", 2}, {3.0, 3}, {"4abc", 4}, {4.5, 5}, {nil, 6}, {1e30, 7}, {-1, 8}, {5, 5}, {"a0", 9}, {"A0 ", 10}, {"é0", 11}, {29, 12}, {6, 6}}
	dump := func() { s.same("SELECT * FROM w ORDER BY id") }
	for _, txn := range []string{"", "BEGIN", "BEGIN;write"} {
		reset()
		if txn != "" {
			s.exec("BEGIN")
			if strings.HasSuffix(txn, "write") {
				s.exec("UPDATE w SET v = v + 100 WHERE id = 0")
			}
		}
		s.execSame("UPDATE w SET v = v + ? WHERE id = ?", vals...)
		dump()
		s.execSame("UPDATE w SET v = ? WHERE name = ?", vals...)
		dump()
		s.execSame("UPDATE w SET v = v + 1 WHERE k IN (?, ?)", vals...)
		dump()
		s.execSame("UPDATE w SET k = ? WHERE k = ?", vals...)
		dump()
		s.execSame("UPDATE w SET id = id + 100 WHERE id = ? OR id = ?", vals...)
		dump()
		s.execSame("DELETE FROM w WHERE id BETWEEN ? AND ?", [][]any{{9, 3}, {25, "26"}, {"27.5", 28}, {nil, 1}, {100, 101}}...)
		dump()
		s.execSame("DELETE FROM w WHERE name IN (?, ?)", vals...)
		dump()
		s.execSame("DELETE FROM w WHERE k = ? AND id > ?", vals...)
		dump()
		if txn != "" {
			s.exec("ROLLBACK")
			dump()
		}
	}
}

// TestReview13RangeWarnings: the warnings of a directly executed range
// (SUM over strings that are not numbers, a string bound for an integer
// key) and @@warning_count, on their own and after a statement with
// warnings of its own.
func TestReview13RangeWarnings(t *testing.T) {
	s := r13Start(t)
	for _, q := range r13RangeSetup {
		s.exec(q)
	}
	for range 2 {
		for _, q := range []string{
			"SELECT SUM(c), AVG(g), MAX(c) FROM t WHERE id BETWEEN ? AND ?",
			"SELECT SUM(k) FROM t WHERE id BETWEEN ? AND ?",
			"SELECT DISTINCT c FROM t WHERE id BETWEEN ? AND ? ORDER BY c",
			"SELECT c FROM t WHERE id BETWEEN ? AND ? ORDER BY c",
		} {
			s.prepared(q, []any{1, 9}, []any{"1x", "9y"}, []any{1, 9}, []any{"2", 8.5}, []any{1, 9})
			s.same(strings.Replace(strings.Replace(q, "?", "'1x'", 1), "?", "9", 1))
			s.same(strings.Replace(strings.Replace(q, "?", "1", 1), "?", "9", 1))
		}
	}
}

// TestReview13Salted: the range shapes and bound points over tables
// partitioned by a key (PARTITION BY KEY ... PARTITIONS n, salted
// partitions), with a composite key and a global index.
func TestReview13Salted(t *testing.T) {
	defer r13Verify(t)()
	s := r13Start(t)
	for _, q := range []string{
		"CREATE DATABASE r13s", "USE r13s",
		`CREATE TABLE p (a INT, b VARCHAR(10) COLLATE utf8mb4_general_ci, k INT, c VARCHAR(10) COLLATE utf8mb4_0900_ai_ci,
			PRIMARY KEY (a, b), KEY k_1 (k)) PARTITION BY KEY (a) PARTITIONS 4`,
		"CREATE TABLE q (id BIGINT PRIMARY KEY, k INT, c VARCHAR(10)) COMMENT 'sqlgw: salt_buckets=5'",
	} {
		s.exec(q)
	}
	words := []string{"a", "A ", "b", "B", "é", "E"}
	for i := range 40 {
		s.exec("INSERT IGNORE INTO p VALUES (?, ?, ?, ?)", i%8, words[i%len(words)]+fmt.Sprint(i/12), i%5, words[(i*5)%len(words)])
		s.exec("INSERT INTO q VALUES (?, ?, ?)", i*3-20, i%7, words[i%len(words)])
	}
	d0 := s.directRuns()
	defer func() { t.Logf("%d executes run directly", s.directRuns()-d0) }()
	bounds := [][]any{{-20, 100}, {0, 30}, {30, 0}, {"1", "40"}, {5, 5}, {-100, -19}, {2.5, 7.5}}
	for _, q := range []string{
		"SELECT c FROM q WHERE id BETWEEN ? AND ?",
		"SELECT SUM(k), COUNT(*), MIN(c) FROM q WHERE id BETWEEN ? AND ?",
		"SELECT c, id FROM q WHERE id BETWEEN ? AND ? ORDER BY c",
		"SELECT DISTINCT c FROM q WHERE id BETWEEN ? AND ? ORDER BY c",
		"SELECT id FROM q WHERE id BETWEEN ? AND ? ORDER BY id DESC LIMIT 3",
		"SELECT b, c FROM p WHERE a BETWEEN ? AND ? ORDER BY c, b",
		"SELECT SUM(k), COUNT(*) FROM p WHERE a BETWEEN ? AND ?",
		"SELECT DISTINCT c FROM p WHERE a BETWEEN ? AND ? ORDER BY c",
		"SELECT a, b, k FROM p WHERE a = ? AND b >= ? ORDER BY a, b",
		"SELECT a, b, k FROM p WHERE a IN (?, ?) ORDER BY a, b",
		"SELECT a, b FROM p WHERE k IN (?, ?) ORDER BY a, b",
		"SELECT a, b, c FROM p WHERE a = ? AND b = ?",
	} {
		s.prepared(q, bounds...)
		s.prepared(q, [][]any{{1, "a0"}, {2, "b0"}, {1, "A0 "}, {"3", "e0"}, {7, "é1"}, {1, "b"}}...)
	}
}

// TestReview13RangeColumns: the range shapes over columns whose values are
// not simply stored: generated columns (virtual and stored) and a column
// added by ALTER TABLE after the rows were written (its default), ENUM,
// SET, BIT, YEAR and JSON.
func TestReview13RangeColumns(t *testing.T) {
	s := r13Start(t)
	for _, q := range []string{
		"CREATE DATABASE r13g", "USE r13g",
		`CREATE TABLE t (id INT PRIMARY KEY, k INT, c VARCHAR(10) COLLATE utf8mb4_general_ci,
			vk INT AS (k * 2) VIRTUAL, sk BIGINT AS (k - 100) STORED, vc VARCHAR(12) AS (CONCAT(c, '!')) VIRTUAL,
			e ENUM('x', 'y', 'z'), st SET('a', 'b'), bt BIT(8), y YEAR, j JSON)`,
		`INSERT INTO t (id, k, c, e, st, bt, y, j) VALUES (1, 5, 'a', 'y', 'a,b', b'101', 2001, '{"a": 1}'),
			(2, NULL, 'A', 'x', '', b'0', 1999, NULL), (3, -7, 'b ', 'z', 'b', b'11111111', NULL, '[1, 2]'),
			(4, 5, NULL, NULL, NULL, NULL, 2155, '"s"'), (5, 3, 'B', 'y', 'a', b'1', 1901, '{"a": 1}')`,
		"ALTER TABLE t ADD COLUMN z INT DEFAULT 7",
		"ALTER TABLE t ADD COLUMN zs VARCHAR(5) DEFAULT 'q' COLLATE utf8mb4_bin",
		"INSERT INTO t (id, k, c, z, zs) VALUES (6, 1, 'c', NULL, 'Q')",
		// The same without generated columns (a table with them is not
		// executed directly).
		`CREATE TABLE u (id INT PRIMARY KEY, k INT, c VARCHAR(10) COLLATE utf8mb4_general_ci,
			e ENUM('x', 'y', 'z'), st SET('a', 'b'), bt BIT(8), y YEAR, j JSON)`,
		"INSERT INTO u SELECT id, k, c, e, st, bt, y, j FROM t",
		"ALTER TABLE u ADD COLUMN z INT DEFAULT 7",
		"ALTER TABLE u ADD COLUMN zs VARCHAR(5) DEFAULT 'q' COLLATE utf8mb4_bin",
		"UPDATE u SET z = NULL, zs = 'Q' WHERE id = 6",
	} {
		s.exec(q)
	}
	d0 := s.directRuns()
	defer func() { t.Logf("%d executes run directly", s.directRuns()-d0) }()
	for _, q := range []string{
		"SELECT SUM(vk), SUM(sk), SUM(z), COUNT(z), MAX(zs), MIN(vc) FROM t WHERE id BETWEEN ? AND ?",
		"SELECT SUM(e), SUM(st), SUM(bt), SUM(y), MAX(e), MIN(st), MAX(bt), MIN(y), MAX(j) FROM t WHERE id BETWEEN ? AND ?",
		"SELECT AVG(bt), AVG(y), AVG(e) FROM t WHERE id BETWEEN ? AND ?",
		"SELECT vk, sk, id FROM t WHERE id BETWEEN ? AND ? ORDER BY vk, id",
		"SELECT vc FROM t WHERE id BETWEEN ? AND ? ORDER BY vc",
		"SELECT DISTINCT vc FROM t WHERE id BETWEEN ? AND ? ORDER BY vc",
		"SELECT DISTINCT z, zs FROM t WHERE id BETWEEN ? AND ? ORDER BY zs",
		"SELECT e, id FROM t WHERE id BETWEEN ? AND ? ORDER BY e",
		"SELECT DISTINCT st FROM t WHERE id BETWEEN ? AND ? ORDER BY st",
		"SELECT bt, y FROM t WHERE id BETWEEN ? AND ? ORDER BY bt",
		"SELECT DISTINCT y FROM t WHERE id BETWEEN ? AND ? ORDER BY y DESC",
		"SELECT j FROM t WHERE id BETWEEN ? AND ? ORDER BY j",
		"SELECT DISTINCT j FROM t WHERE id BETWEEN ? AND ?",
	} {
		for _, tb := range []string{"FROM t ", "FROM u "} {
			if tb == "FROM u " && (strings.Contains(q, "vk") || strings.Contains(q, "vc") || strings.Contains(q, "sk")) {
				continue
			}
			q := strings.Replace(q, "FROM t ", tb, 1)
			s.prepared(q, []any{1, 6}, []any{2, 5}, []any{6, 1}, []any{1, 6})
			s.same(strings.Replace(strings.Replace(q, "?", "1", 1), "?", "6", 1))
		}
	}
}

// TestReview13BoundSkewed: select_random_points' shape (k IN of ten
// values through a global index) on a table of more than the planner's
// default row count whose k is skewed, after ANALYZE TABLE (most frequent
// values known): bound with duplicates and frequent values, the plans are
// the re-planned ones and the rows those of the servers without the plan
// cache.
func TestReview13BoundSkewed(t *testing.T) {
	defer r13Verify(t)()
	s := r13Start(t)
	s.exec("CREATE DATABASE r13k")
	s.exec("USE r13k")
	s.exec("CREATE TABLE sb (id INT PRIMARY KEY, k INT NOT NULL, c CHAR(12) NOT NULL, KEY k_1 (k))")
	const n = 12000
	for lo := 0; lo < n; lo += 1000 {
		var sb strings.Builder
		sb.WriteString("INSERT INTO sb VALUES ")
		for i := lo; i < lo+1000; i++ {
			if i > lo {
				sb.WriteString(", ")
			}
			k := i % 3000
			if i%5 < 2 {
				k = i % 3 // 40% of the rows on three values
			}
			fmt.Fprintf(&sb, "(%d, %d, 'c%d')", i, k, i%97)
		}
		s.exec(sb.String())
	}
	s.exec("ANALYZE TABLE sb")
	q := "SELECT id, k, c FROM sb WHERE k IN (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ORDER BY id"
	var sets [][]any
	r := 7
	next := func() int { r = (r*1103515245 + 12345) & 0x7fffffff; return r }
	for i := range 40 {
		args := make([]any, 10)
		for j := range args {
			switch {
			case i < 10: // distinct, rare
				args[j] = 100 + i*10 + j
			case i < 20: // duplicates
				args[j] = 100 + next()%4
			case i < 30: // frequent values among rare ones
				args[j] = []int{0, 1, 2, 500 + j, 700 + j}[next()%5]
			default:
				args[j] = next() % 3100
			}
		}
		sets = append(sets, args)
	}
	s.prepared(q, sets...)
	s.prepared(strings.Replace(q, " ORDER BY id", "", 1), sets[:10]...)
}

// TestReview13RangeConsistentSum: an autocommit SUM over a key range
// (executed directly) reads one committed state: while another session
// moves amounts between rows of the range in transactions, the sum never
// changes.
func TestReview13RangeConsistentSum(t *testing.T) {
	s := r13Start(t)
	s.exec("CREATE DATABASE r13c")
	s.exec("USE r13c")
	s.exec("CREATE TABLE acct (id INT PRIMARY KEY, k INT NOT NULL)")
	for i := range 50 {
		s.exec("INSERT INTO acct VALUES (?, 100)", i)
	}
	ctx := context.Background()
	for si, db := range s.dbs {
		w, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		stop := make(chan struct{})
		done := make(chan int, 1)
		go func() {
			defer w.Close()
			for i := 0; ; i++ {
				select {
				case <-stop:
					done <- i
					return
				default:
				}
				a, b := i*7%50, (i*13+1)%50
				for _, q := range []string{"BEGIN", fmt.Sprintf("UPDATE r13c.acct SET k = k - 3 WHERE id = %d", a),
					fmt.Sprintf("UPDATE r13c.acct SET k = k + 3 WHERE id = %d", b), "COMMIT"} {
					if _, err := w.ExecContext(ctx, q); err != nil {
						w.ExecContext(ctx, "ROLLBACK")
						break
					}
				}
			}
		}()
		bad := 0
		for range 300 {
			var sum string
			if err := s.conns[si].QueryRowContext(ctx, "SELECT SUM(k) FROM acct WHERE id BETWEEN ? AND ?", 0, 49).Scan(&sum); err != nil {
				t.Fatal(err)
			}
			if sum != "5000" {
				bad++
				if bad < 4 {
					t.Errorf("%s: SUM(k) = %s, want 5000", s.names[si], sum)
				}
			}
		}
		close(stop)
		if moves := <-done; moves < 10 {
			t.Errorf("%s: only %d transfers ran during the sums", s.names[si], moves)
		}
		if bad > 0 {
			t.Errorf("%s: %d of 300 sums wrong", s.names[si], bad)
		}
	}
}

// TestReview13BoundRecreate: a statement prepared once keeps answering
// right when its table is dropped and created again with another key
// type and collation, or swapped with another by RENAME TABLE, between
// executes.
func TestReview13BoundRecreate(t *testing.T) {
	defer r13Verify(t)()
	s := r13Start(t)
	for _, q := range []string{
		"CREATE DATABASE r13d", "USE r13d",
		"CREATE TABLE t (id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 10), (2, 20), (10, 100)",
		"CREATE TABLE o (id VARCHAR(5) COLLATE utf8mb4_bin PRIMARY KEY, v INT)", "INSERT INTO o VALUES ('1', 1), ('a', 2), ('A', 3)",
	} {
		s.exec(q)
	}
	args := [][]any{{1}, {"1"}, {"a"}, {"A"}, {"10"}, {1.0}}
	queries := []string{"SELECT id, v FROM t WHERE id = ?", "SELECT id, v FROM t WHERE id IN (?, 'A') ORDER BY v",
		"SELECT SUM(v) FROM t WHERE id BETWEEN ? AND 'z'", "SELECT DISTINCT v FROM t WHERE id >= ? ORDER BY v"}
	run := func() {
		for _, q := range queries {
			s.prepared(q, args...)
			s.same(strings.Replace(q, "?", "'1'", 1))
		}
	}
	run()
	s.exec("RENAME TABLE t TO tmp, o TO t, tmp TO o")
	run()
	s.exec("DROP TABLE t")
	s.exec("CREATE TABLE t (id VARCHAR(5) COLLATE utf8mb4_0900_ai_ci PRIMARY KEY, v INT)")
	s.exec("INSERT INTO t VALUES ('1', 5), ('a', 6), ('B', 7), ('10', 8)")
	run()
	s.exec("DROP TABLE t")
	s.exec("CREATE TABLE t (id DECIMAL(4,1) PRIMARY KEY, v INT)")
	s.exec("INSERT INTO t VALUES (1, 50), (1.5, 60), (10, 70)")
	run()
}
