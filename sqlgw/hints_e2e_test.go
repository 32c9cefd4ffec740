package sqlgw_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// TestIndexHints: USE/IGNORE/FORCE INDEX reach single-table filters,
// UPDATE/DELETE, batched lookup joins and prepared statements; unknown
// names are 1176.
func TestIndexHints(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Session("d", `
			CREATE TABLE t (id INT PRIMARY KEY, r INT, s INT, KEY ir (r), KEY is2 (s))
			CREATE TABLE o (id INT PRIMARY KEY, x INT)
			CREATE TABLE nokey (a INT)`)
		for i := range 30 {
			sqltest.NewRunner(t, c).Exec("INSERT INTO t VALUES (?, ?, ?)", i, i, i%5)
			sqltest.NewRunner(t, c).Exec("INSERT INTO o VALUES (?, ?)", i, i%4)
		}
		for _, tc := range []struct {
			q    string
			want string // path and index in sqlgw's EXPLAIN line
		}{
			{"SELECT * FROM t WHERE r = 2", "IndexLookup, 11 store requests; index ir"},
			{"SELECT * FROM t IGNORE INDEX (ir) WHERE r = 2", "TableScan"},
			{"SELECT * FROM t ignore key (IR, is2) WHERE r = 2", "TableScan"},
			{"SELECT * FROM t IGNORE INDEX FOR JOIN (ir) WHERE r = 2", "TableScan"},
			{"SELECT * FROM t IGNORE INDEX FOR ORDER BY (ir) WHERE r = 2", "index ir"},
			{"SELECT * FROM t IGNORE INDEX FOR GROUP BY (ir) WHERE r = 2", "index ir"},
			{"SELECT * FROM t IGNORE INDEX (is2) WHERE r = 2", "index ir"},
			{"SELECT * FROM t USE INDEX (is2) WHERE r = 2", "TableScan"},
			{"SELECT * FROM t USE INDEX (is2) WHERE r = 2 AND s = 2", "index is2"},
			{"SELECT * FROM t USE INDEX () WHERE r = 2 AND s = 2", "TableScan"},
			{"SELECT * FROM t USE INDEX (PRIMARY) WHERE r = 2", "TableScan"},
			{"SELECT * FROM t USE INDEX (is2) USE INDEX (ir) WHERE r = 2", "index ir"},
			{"SELECT * FROM t USE INDEX (ir, is2) IGNORE INDEX (ir) WHERE r = 2", "TableScan"},
			{"SELECT * FROM t IGNORE INDEX (PRIMARY) WHERE id = 2", "PointGet"},
			{"SELECT * FROM t FORCE INDEX (ir) WHERE id = 2", "PointGet"},
			{"SELECT * FROM t WHERE r > 20", "TableScan"},
			{"SELECT * FROM t FORCE INDEX (ir) WHERE r > 20", "IndexRange, 11 store requests; index ir"},
			{"SELECT * FROM t FORCE KEY FOR JOIN (ir) WHERE r > 20", "IndexRange, 11 store requests; index ir"},
			{"SELECT * FROM t FORCE INDEX (is2) WHERE r > 20", "TableScan"}, // is2 answers nothing
			{"SELECT * FROM t FORCE INDEX (ir) WHERE s > 2", "TableScan"},
			{"SELECT * FROM d.t AS x FORCE INDEX (ir) WHERE x.r > 20", "index ir"},
			{"SELECT * FROM t x IGNORE INDEX (ir) WHERE x.r = 2", "TableScan"},
			{"UPDATE t IGNORE INDEX (ir) SET s = s WHERE r = 2", "TableScan"},
			{"UPDATE t FORCE INDEX (ir) SET s = s WHERE r > 20", "index ir"},
			{"DELETE t FROM t IGNORE INDEX (ir) WHERE r = 2", "TableScan"},
		} {
			plan := explainText(t, c, tc.q)
			if !strings.Contains(plan, tc.want) {
				t.Errorf("EXPLAIN %s: want %q in\n%s", tc.q, tc.want, plan)
			}
		}
		// The same table twice: each reference's own hints.
		plan := sqltest.NewRunner(t, c).Rows("EXPLAIN SELECT a.id FROM t AS a IGNORE INDEX (ir) JOIN t b ON b.id = a.id WHERE a.r = 2 AND b.r = 2")
		for _, line := range plan {
			f := strings.Split(line, "\t")
			switch {
			case len(f) < 3:
				t.Errorf("EXPLAIN line %q", line)
			case f[2] == "a" && !strings.Contains(line, "TableScan"), f[2] == "b" && !strings.Contains(line, "index ir"):
				t.Errorf("same table twice: %q", line)
			}
		}
		// Results are unchanged by hints.
		for _, q := range sqltest.Lines(`
			SELECT id FROM t WHERE r > 26 ORDER BY id
			SELECT id FROM t FORCE INDEX (ir) WHERE r > 26 ORDER BY id
			SELECT id FROM t IGNORE INDEX (ir) WHERE r > 26 ORDER BY id
			SELECT id FROM t USE INDEX () WHERE r > 26 ORDER BY id
		`) {
			sqltest.NewRunner(t, c).ExpectRows(q, "27", "28", "29")
		}
		// Writes through hinted UPDATE/DELETE.
		if n := sqltest.NewRunner(t, c).Affected("UPDATE t FORCE INDEX (ir) SET s = 100 WHERE r > 27"); n != 2 {
			t.Errorf("UPDATE FORCE INDEX: %d rows", n)
		}
		sqltest.NewRunner(t, c).ExpectRows("SELECT id FROM t IGNORE INDEX (is2) WHERE s = 100 ORDER BY id", "28", "29")
		if n := sqltest.NewRunner(t, c).Affected("DELETE t FROM t IGNORE INDEX (ir) WHERE r = 29"); n != 1 {
			t.Errorf("DELETE IGNORE INDEX: %d rows", n)
		}

		// The reads themselves (store requests), not only EXPLAIN: an
		// index lookup is an index query and a Get, a scan one page.
		sqltest.NewRunner(t, c).ExpectRequests(2, "SELECT s FROM t WHERE r = 3", "index lookup")
		if r, _ := sqltest.NewRunner(t, c).Cost("SELECT s FROM t IGNORE INDEX (ir) WHERE r = 3"); r != 1 {
			t.Errorf("IGNORE INDEX: %d requests, want 1 (a scan)", r)
		}
		// A batched lookup join into t on ir reads the index (o's Get,
		// an index query, the base row's Get); with ir ignored, the
		// join's lookup does not use it (a scan).
		join := "SELECT /*+ LOOKUP_JOIN(o, t) */ o.id, t.s FROM o JOIN t%s ON t.r = o.x WHERE o.id = 3"
		sqltest.NewRunner(t, c).ExpectRows(strings.ReplaceAll(join, "%s", ""), "3\t3")
		sqltest.NewRunner(t, c).ExpectRows(strings.ReplaceAll(join, "%s", " IGNORE INDEX (ir)"), "3\t3")
		// EXPLAIN: the engine's own lookup join is on ir without the hint;
		// with it, ir is neither chosen nor listed in possible_keys.
		if plan := explainText(t, c, strings.ReplaceAll(join, "%s", "")); !strings.Contains(plan, "into t on ir") {
			t.Errorf("lookup join: want a lookup on ir in\n%s", plan)
		}
		if plan := explainText(t, c, strings.ReplaceAll(join, "%s", " IGNORE INDEX (ir)")); strings.Contains(plan, "on ir") || strings.Contains(plan, "ir\t") {
			t.Errorf("lookup join with ir ignored: ir in\n%s", plan)
		}
		sqltest.NewRunner(t, c).ExpectRequests(3, strings.ReplaceAll(join, "%s", ""), "lookup join on ir")
		sqltest.NewRunner(t, c).ExpectRequests(2, strings.ReplaceAll(join, "%s", " IGNORE INDEX (ir)"), "lookup join with ir ignored")

		// Prepared statements (the binary protocol): hints hold at execution.
		ctx := context.Background()
		prepCost := func(q string, arg any) int64 {
			t.Helper()
			r0, _ := sqltest.NewRunner(t, c).Status()
			rs, err := c.QueryContext(ctx, q, arg)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			for rs.Next() {
			}
			rs.Close()
			r1, _ := sqltest.NewRunner(t, c).Status()
			return r1 - r0
		}
		for _, pc := range []struct {
			what, q string
			arg     any
			want    int64
			why     string
		}{
			{"prepared index lookup", "SELECT s FROM t WHERE r = ?", 3, 2, ""},
			{"prepared IGNORE INDEX", "SELECT s FROM t IGNORE INDEX (ir) WHERE r = ?", 3, 1, ""},
			{"prepared range", "SELECT s FROM t WHERE r > ?", 26, 1, " (a scan)"},
			{"prepared FORCE INDEX", "SELECT s FROM t FORCE INDEX (ir) WHERE r > ?", 26, 3, " (the index, Gets of rows 27 and 28)"},
		} {
			if r := prepCost(pc.q, pc.arg); r != pc.want {
				t.Errorf("%s: %d requests, want %d%s", pc.what, r, pc.want, pc.why)
			}
		}

		// Unknown names: 1176, as MySQL.
		for _, q := range sqltest.Lines(`
			SELECT * FROM t FORCE INDEX (nosuch) WHERE r = 2
			SELECT * FROM t USE INDEX (ir, nosuch)
			SELECT * FROM t IGNORE KEY FOR ORDER BY (nosuch)
			SELECT * FROM o JOIN t AS tt IGNORE INDEX (nosuch) ON tt.id = o.id
			UPDATE t FORCE INDEX (nosuch) SET s = 1
			SELECT * FROM nokey USE INDEX (PRIMARY)
		`) {
			sqltest.NewRunner(t, c).ExpectErrno(1176, q)
		}
		_, err := c.ExecContext(ctx, "SELECT * FROM t FORCE INDEX (nosuch) WHERE r = 2")
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Message != "Key 'nosuch' doesn't exist in table 't'" || string(me.SQLState[:]) != "42000" {
			t.Errorf("unknown index: %v", err)
		}
		if _, err := c.QueryContext(ctx, "SELECT * FROM t FORCE INDEX (nosuch) WHERE r = ?", 1); sqltest.Errno(err) != 1176 {
			t.Errorf("prepared unknown index: %v", err)
		}
		sqltest.NewRunner(t, c).ExpectErrno(1176, "SELECT a FROM nokey USE INDEX (ia) WHERE a = 1")
		// Multi-statement texts (the handler's own parse): the error is
		// 1176 too, and hints apply.
		mc, err := ts.Open("d?multiStatements=true").Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer mc.Close()
		sqltest.NewRunner(t, mc).ExpectErrno(1176, "SELECT 1; SELECT * FROM t FORCE INDEX (nosuch) WHERE r = 2")
		sqltest.NewRunner(t, mc).ExpectRequests(1, "SELECT s FROM t IGNORE INDEX (ir) WHERE r = 3; SELECT 1", "multi-statement IGNORE INDEX")
		// Hint-like text in strings and comments is not a hint.
		sqltest.NewRunner(t, c).ExpectRows("SELECT 'FROM t FORCE INDEX (nosuch)' /* t use index (nosuch) */", "FROM t FORCE INDEX (nosuch)")
	})
}
