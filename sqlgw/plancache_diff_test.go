package sqlgw_test

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// TestPlanCacheDifferential runs the statements of the SQL corpora
// (testdata/cli/*.sql, testdata/compat/**/*.sql) against two servers, one with the plan cache
// (plancache.go) and one without (Config.NoPlanCache), in lockstep. Every
// SELECT whose WHERE compares columns with literals is run twice more as
// text (from the plan cache of its shape, textcache.go, where it
// qualifies) and also as a server-side prepared statement with those
// literals as parameters, three times (the second and third executes
// come from the cache where the shape qualifies), and everything is
// compared: column names, rows, the MySQL
// error, warnings. The corpus must give the cache some hits, or the test
// proves nothing.
func TestPlanCacheDifferential(t *testing.T) {
	files, err := filepath.Glob("../testdata/cli/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	// Each file is one session, but the compat CLI corpus's three files
	// run in one (piped.sql reads what the other two made).
	corpora := make([][]string, 0, len(files)+4)
	for _, f := range files {
		corpora = append(corpora, []string{f})
	}
	corpora = append(corpora, []string{"../testdata/compat/cli/schema.sql", "../testdata/compat/cli/data.sql", "../testdata/compat/cli/piped.sql"})
	others, _ := filepath.Glob("../testdata/compat/*/*.sql")
	more, _ := filepath.Glob("../testdata/compat/*/*/*.sql")
	for _, f := range append(others, more...) {
		if filepath.Base(filepath.Dir(f)) != "cli" {
			corpora = append(corpora, []string{f})
		}
	}
	var hits, checked, direct, texts int
	for _, fs := range corpora {
		name, _ := filepath.Rel("../testdata", fs[0])
		t.Run(name, func(t *testing.T) {
			var text []byte
			for _, f := range fs {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				text = append(append(text, b...), '\n')
			}
			pieces, err := sqlparser.SplitStatementToPieces(string(text))
			if err != nil {
				t.Skipf("split: %v", err)
			}
			c, h, d, x := diffStatements(t, pieces)
			checked += c
			hits += h
			direct += d
			texts += x
		})
	}
	t.Run("cache_shapes", func(t *testing.T) {
		c, h, d, x := diffStatements(t, cacheShapes)
		checked += c
		hits += h
		direct += d
		texts += x
		if x < 20 {
			t.Errorf("only %d text statements of the cache's shapes came from the plan cache", x)
		}
		if h < 40 {
			t.Errorf("only %d executes of the cache's shapes came from the plan cache", h)
		}
		if d < 20 {
			t.Errorf("only %d executes of the cache's shapes were executed directly", d)
		}
	})
	t.Logf("%d prepared executes compared; %d executes and text statements from the plan cache, %d of them executed directly, %d of them writes (directwrite.go); %d repeated text statements from the cache", checked, hits, direct, corpusWrites, texts)
	if hits == 0 || direct == 0 || texts == 0 || corpusWrites == 0 {
		t.Error("no execute came from the plan cache or its direct execution: the corpus does not exercise it")
	}
}

// corpusWrites counts the writes of the corpora that ran from the plan
// cache (Plan_cache_writes, directwrite.go).
var corpusWrites int

// cacheShapes are statements aimed at the plan cache's shapes and at what
// could tell a cached plan from a fresh one: composite and DESC keys, a
// unique secondary index, collations, NULLs, wide values, a transaction's
// own writes, a missing row, out-of-range and mistyped parameters, DDL.
var cacheShapes = []string{
	"CREATE DATABASE pcd", "USE pcd",
	"CREATE TABLE k1 (id INT PRIMARY KEY, v VARCHAR(20), n INT NULL)",
	"INSERT INTO k1 VALUES (1, 'a', NULL), (2, 'b', 2), (127, 'c', 3), (128, 'd', 4), (70000, 'e', 5), (-5, 'neg', 6)",
	"SELECT v FROM k1 WHERE id = 1", "SELECT v, n FROM k1 WHERE id = 128", "SELECT * FROM k1 WHERE id = 70000",
	"SELECT v FROM k1 WHERE id = 3", "SELECT v FROM k1 WHERE id = -5", "SELECT v FROM k1 WHERE id = 99999999999",
	"SELECT v FROM k1 WHERE id = '2'", "SELECT v FROM k1 WHERE id = 'x'", "SELECT v FROM k1 WHERE id = '1abc'", "SELECT v FROM k1 WHERE id = '2x'",
	"SELECT v FROM k1 WHERE id IN ('1abc', 2)", "SELECT v FROM k1 WHERE id IN ('2abc', 1)", "SELECT v FROM k1 WHERE id BETWEEN '1z' AND 2", "SELECT n AS nn, v AS vv FROM k1 WHERE 2 = id",
	"CREATE TABLE k2 (t VARCHAR(10) COLLATE utf8mb4_0900_ai_ci, id INT, d VARCHAR(10), PRIMARY KEY (t, id))",
	"INSERT INTO k2 VALUES ('Acme', 1, 'x'), ('acme', 2, 'y'), ('beta', 1, 'z')",
	"SELECT d FROM k2 WHERE t = 'ACME' AND id = 1", "SELECT d FROM k2 WHERE t = 'acme' AND id = 2",
	"SELECT d FROM k2 WHERE id = 1 AND t = 'beta'", "SELECT d FROM k2 WHERE t = 'acme '  AND id = 1",
	"CREATE TABLE k3 (a INT, b INT, c VARCHAR(10), PRIMARY KEY (a, b DESC))",
	"INSERT INTO k3 VALUES (1, 1, 'p'), (1, 2, 'q'), (2, 1, 'r')",
	"SELECT c FROM k3 WHERE a = 1 AND b = 2", "SELECT c FROM k3 WHERE a = 2 AND b = 1", "SELECT c FROM k3 WHERE a = 1",
	"CREATE TABLE k4 (id INT PRIMARY KEY, email VARCHAR(40), UNIQUE KEY ue (email))",
	"INSERT INTO k4 VALUES (1, 'a@x'), (2, 'b@x'), (3, NULL)",
	"SELECT id FROM k4 WHERE email = 'b@x'", "SELECT id FROM k4 WHERE email = 'a@x'", "SELECT id FROM k4 WHERE email = 'none'",
	"CREATE TABLE k5 (id BIGINT UNSIGNED PRIMARY KEY, big TEXT, bin VARBINARY(10), f DOUBLE, dt DATETIME(3), dec1 DECIMAL(10,2))",
	"INSERT INTO k5 VALUES (18446744073709551615, REPEAT('w', 70000), X'00FF', 1.5, '2024-01-02 03:04:05.678', 12.34), (1, 'small', NULL, NULL, NULL, NULL)",
	"SELECT big, bin, f, dt, dec1 FROM k5 WHERE id = 18446744073709551615", "SELECT big, bin FROM k5 WHERE id = 1",
	"BEGIN", "UPDATE k1 SET v = 'in-tx' WHERE id = 1", "SELECT v FROM k1 WHERE id = 1", "DELETE FROM k1 WHERE id = 2",
	"SELECT v FROM k1 WHERE id = 2", "ROLLBACK", "SELECT v FROM k1 WHERE id = 1", "SELECT v FROM k1 WHERE id = 2",
	"ALTER TABLE k1 ADD COLUMN extra INT DEFAULT 7", "SELECT * FROM k1 WHERE id = 1", "SELECT v FROM k1 WHERE id = 127",
	"ALTER TABLE k1 DROP COLUMN v", "SELECT v FROM k1 WHERE id = 1", "SELECT * FROM k1 WHERE id = 1",
	"CREATE TABLE sb (id INT NOT NULL AUTO_INCREMENT, k INT NOT NULL DEFAULT 0, c CHAR(20) NOT NULL DEFAULT '', PRIMARY KEY (id), KEY k_1 (k))",
	"INSERT INTO sb (k, c) VALUES (5, 'c1'), (3, 'c2'), (5, 'c3'), (9, 'c1'), (1, 'c5'), (7, 'c2'), (2, 'c7'), (5, 'c8'), (4, 'c9'), (6, 'c0')",
	"SELECT c FROM sb WHERE id BETWEEN 2 AND 6", "SELECT SUM(k) FROM sb WHERE id BETWEEN 3 AND 8",
	"SELECT c FROM sb WHERE id BETWEEN 1 AND 10 ORDER BY c", "SELECT DISTINCT c FROM sb WHERE id BETWEEN 1 AND 10 ORDER BY c",
	"SELECT id, k, c FROM sb WHERE k IN (5, 9, 1)", "SELECT id, k, c FROM sb WHERE k IN (2, 2, 4)", "SELECT id FROM sb WHERE id IN (3, 1, 99)",
	"SELECT id, c FROM sb WHERE k IN (1, 300, 70000)", "SELECT id, c FROM sb WHERE k IN (70000, 5, 300)",
	"SELECT id, c FROM sb WHERE k IN (200, 40000, 3000000000)", "SELECT id, c FROM sb WHERE k IN (2, 3, 4)", "SELECT id, c FROM sb WHERE id IN (2, 300, 9)", "SELECT id, c FROM sb WHERE id IN (40000, 1, 5000000000)", "SELECT id, c FROM sb WHERE k IN (-1, 9, 5000000000)",
	"SELECT c FROM sb WHERE id >= 4 AND id < 8 ORDER BY id DESC", "SELECT c FROM sb WHERE id > 2 ORDER BY id LIMIT 3",
	"SELECT COUNT(*), MIN(k), MAX(c) FROM sb WHERE id <= 7", "SELECT k, COUNT(*) FROM sb WHERE id BETWEEN 1 AND 10 GROUP BY k ORDER BY k",
	"SELECT c FROM sb WHERE id BETWEEN 6 AND 2", "SELECT c FROM sb WHERE id = 3 AND k = 3", "SELECT c FROM sb WHERE k = 5 ORDER BY id LIMIT 2",
	"SELECT c FROM sb WHERE c = 'c1'", "SELECT id FROM sb WHERE c >= 'c5' ORDER BY id",
	// Plans whose sort the index order answers, cached outside a
	// transaction and run inside one with writes to the table (planned
	// without secondary indexes there), and back.
	"SELECT id, k FROM sb WHERE k > 3 ORDER BY k DESC LIMIT 3", "SELECT id, k FROM sb WHERE k > 2 ORDER BY k DESC", "SELECT c FROM sb WHERE id > 3 ORDER BY id DESC",
	"BEGIN", "INSERT INTO sb (k, c) VALUES (50, 'n1'), (40, 'n2')",
	"SELECT id, k FROM sb WHERE k > 3 ORDER BY k DESC LIMIT 3", "SELECT id, k FROM sb WHERE k > 2 ORDER BY k DESC", "SELECT c FROM sb WHERE id > 3 ORDER BY id DESC",
	"ROLLBACK", "SELECT id, k FROM sb WHERE k > 3 ORDER BY k DESC LIMIT 3", "SELECT id, k FROM sb WHERE k > 2 ORDER BY k DESC",
	// Session settings that change the plan or the result's fields.
	"SET sql_select_limit = 2", "SELECT c FROM sb WHERE id BETWEEN 2 AND 6", "SELECT v FROM k1 WHERE id = 1",
	"SET sql_select_limit = DEFAULT", "SELECT c FROM sb WHERE id BETWEEN 2 AND 6",
	"SELECT big, bin FROM k5 WHERE id = 1", "SET character_set_results = latin1", "SELECT c FROM sb WHERE id BETWEEN 2 AND 6", "SELECT big, bin FROM k5 WHERE id = 1",
	"SET character_set_results = utf8mb4", "SELECT c FROM sb WHERE id BETWEEN 2 AND 6", "SELECT big, bin FROM k5 WHERE id = 1",
	// With character_set_results NULL a select list's string literal is sent
	// in its own collation, collation_connection's when it was parsed.
	"SET character_set_results = NULL", "SELECT 'é' AS e, c FROM sb WHERE id = 3", "SET collation_connection = latin1_swedish_ci",
	"SELECT 'é' AS e, c FROM sb WHERE id = 3", "SET NAMES utf8mb4", "SELECT 'é' AS e, c FROM sb WHERE id = 3",
	"DROP TABLE k1", "SELECT * FROM k1 WHERE id = 1",
	"CREATE TABLE k1 (id INT PRIMARY KEY, v INT)", "INSERT INTO k1 VALUES (1, 100)", "SELECT v FROM k1 WHERE id = 1",
}

// diffStatements runs statements on a server with the plan cache and its
// direct execution (direct.go) and one without the cache, comparing every
// outcome; it returns the prepared executes compared, the plan cache's
// hits and the hits executed directly.
func diffStatements(t *testing.T, statements []string) (checked, hits, direct, texts int) {
	t.Helper()
	with, without := diffServer(t, false), diffServer(t, true)
	for _, q := range statements {
		q = strings.TrimSpace(q)
		if q == "" {
			continue
		}
		a, b := diffRun(with, q), diffRun(without, q)
		if a != b {
			t.Fatalf("%s\nwith the plan cache:\n%s\nwithout:\n%s", q, a, b)
		}
		pq, args, ok := parametrize(q)
		if !ok {
			continue
		}
		// The text again: from the plan cache of its shape
		// (textcache.go) where it qualifies.
		cacheHits := func() int {
			var name string
			var n int
			if err := with.QueryRowContext(context.Background(), "SHOW SESSION STATUS LIKE 'Plan_cache_hits'").Scan(&name, &n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		h0 := cacheHits()
		for range 2 {
			a, b := diffRun(with, q), diffRun(without, q)
			if a != b {
				t.Fatalf("%s (text, again)\nwith the plan cache:\n%s\nwithout:\n%s", q, a, b)
			}
		}
		texts += cacheHits() - h0
		for range 3 {
			a, b := diffRun(with, pq, args...), diffRun(without, pq, args...)
			if a != b {
				t.Fatalf("%s %v\nwith the plan cache:\n%s\nwithout:\n%s", pq, args, a, b)
			}
			checked++
		}
	}
	var name string
	if err := with.QueryRowContext(context.Background(), "SHOW SESSION STATUS LIKE 'Plan_cache_hits'").Scan(&name, &hits); err != nil {
		t.Fatal(err)
	}
	if err := with.QueryRowContext(context.Background(), "SHOW SESSION STATUS LIKE 'Plan_cache_direct'").Scan(&name, &direct); err != nil {
		t.Fatal(err)
	}
	var writes int
	if err := with.QueryRowContext(context.Background(), "SHOW SESSION STATUS LIKE 'Plan_cache_writes'").Scan(&name, &writes); err != nil {
		t.Fatal(err)
	}
	corpusWrites += writes
	return checked, hits, direct, texts
}

// diffServer starts a server on an in-memory store and returns one
// connection of it.
func diffServer(t *testing.T, noCache bool) *sql.Conn {
	t.Helper()
	host, port := startServer(t, noCache) // plancache_review_test.go
	db, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/", net.JoinHostPort(host, strconv.Itoa(port))))
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

// diffRun runs q and renders its outcome: columns and rows, or the error;
// then the warnings.
func diffRun(c *sql.Conn, q string, args ...any) string {
	ctx := context.Background()
	var sb strings.Builder
	rs, err := c.QueryContext(ctx, q, args...)
	if err != nil {
		fmt.Fprintf(&sb, "error: %v\n", err)
	} else {
		cols, _ := rs.Columns()
		fmt.Fprintf(&sb, "columns: %q\n", cols)
		// The result metadata: type, length, decimals, nullability.
		if cts, err := rs.ColumnTypes(); err == nil {
			for _, ct := range cts {
				n, _ := ct.Nullable()
				l, _ := ct.Length()
				p, sc, _ := ct.DecimalSize()
				fmt.Fprintf(&sb, "column %s: %s len %d dec %d,%d null %v scan %v\n", ct.Name(), ct.DatabaseTypeName(), l, p, sc, n, ct.ScanType())
			}
		}
		for rs.Next() {
			vals := make([]sql.RawBytes, len(cols))
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
	if ws, err := c.QueryContext(ctx, "SHOW WARNINGS"); err == nil {
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

var valArg = regexp.MustCompile(`:v[0-9]+`)

// parametrize turns the literals that a SELECT's WHERE compares with
// columns by equality into parameters: the statement for a server-side
// prepare and its arguments.
func parametrize(q string) (string, []any, bool) {
	if strings.Contains(q, ":v") || strings.Contains(q, "?") {
		return "", nil, false
	}
	stmt, err := sqlparser.Parse(q)
	if err != nil {
		return "", nil, false
	}
	sel, ok := stmt.(*sqlparser.Select)
	if !ok || sel.Where == nil {
		return "", nil, false
	}
	var args []any
	param := func(side *sqlparser.Expr) {
		v, ok := (*side).(*sqlparser.SQLVal)
		if !ok {
			return
		}
		var arg any
		switch v.Type {
		case sqlparser.IntVal:
			n, err := strconv.ParseInt(string(v.Val), 10, 64)
			if err != nil {
				return
			}
			arg = n
		case sqlparser.StrVal:
			arg = string(v.Val)
		default:
			return
		}
		args = append(args, arg)
		*side = sqlparser.NewValArg([]byte(fmt.Sprintf(":v%d", len(args))))
	}
	_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
		switch e := node.(type) {
		case *sqlparser.ComparisonExpr:
			switch e.Operator {
			case sqlparser.EqualStr, sqlparser.LessThanStr, sqlparser.LessEqualStr, sqlparser.GreaterThanStr, sqlparser.GreaterEqualStr:
				param(&e.Left)
				param(&e.Right)
			case sqlparser.InStr:
				if tuple, ok := e.Right.(sqlparser.ValTuple); ok {
					for i := range tuple {
						param(&tuple[i])
					}
				}
			}
		case *sqlparser.RangeCond:
			param(&e.From)
			param(&e.To)
		}
		return true, nil
	}, sel.Where)
	if len(args) == 0 {
		return "", nil, false
	}
	return valArg.ReplaceAllString(sqlparser.String(sel), "?"), args, true
}
