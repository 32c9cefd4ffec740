package sqlgw_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// cardinalities maps "index.seq" to SHOW INDEX's Cardinality.
func cardinalities(t *testing.T, c sqltest.Execer, table string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, l := range sqltest.NewRunner(t, c).Rows("SHOW INDEX FROM " + table) {
		f := strings.Split(l, "\t")
		out[f[2]+"."+f[3]] = f[6]
	}
	return out
}

// TestAnalyzeStatistics: ANALYZE TABLE computes each index's distinct
// counts (SHOW INDEX, information_schema.STATISTICS, under the column's
// collation) and the row count (SHOW TABLE STATUS); they are refreshed in
// the background once sqlgw_stats_auto_recalc_percent of the rows
// changed; and with them the planner takes a 10-value IN on an indexed INT
// column through the index.
func TestAnalyzeStatistics(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Conn()
		r := sqltest.NewRunner(t, c)
		r.Script(`
			exec CREATE DATABASE d
			exec USE d
			exec CREATE TABLE s (id INT PRIMARY KEY, n INT, name VARCHAR(20) COLLATE utf8mb4_0900_ai_ci, KEY by_n (n), KEY by_name_n (name, n))
		`)
		r.InsertRows("s", 400, 400, func(i int) string {
			name := []string{"ann", "ANN", "Änn", "bob"}[i%4] // three spellings of one value under ai_ci
			return fmt.Sprintf("(%d, %d, '%s')", i, i%40, name)
		})
		before := cardinalities(t, c, "s")
		if before["by_n.1"] != "0" {
			t.Errorf("before ANALYZE: by_n cardinality %s, want 0", before["by_n.1"])
		}
		r.ExpectRows("ANALYZE TABLE s", "d.s\tanalyze\tstatus\tOK")
		got := cardinalities(t, c, "s")
		for k, want := range map[string]string{"PRIMARY.1": "400", "by_n.1": "40", "by_name_n.1": "2", "by_name_n.2": "40"} {
			if got[k] != want {
				t.Errorf("SHOW INDEX %s: cardinality %s, want %s", k, got[k], want)
			}
		}
		r.ExpectRows("SELECT CARDINALITY FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 's' AND INDEX_NAME = 'by_n'", "40")
		r.ExpectRows("SELECT TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 's'", "400")

		// Ten rows per value of n: the IN goes through the index.
		q := "SELECT id FROM s WHERE n IN (1, 2, 3, 4, 5, 6, 7, 8, 9, 10)"
		plan := strings.Join(r.Rows("EXPLAIN PLAN "+q), "\n")
		if !strings.Contains(plan, "IndexLookup") {
			t.Errorf("%s: want IndexLookup:\n%s", q, plan)
		}
		if n := len(r.Rows(q)); n != 100 {
			t.Errorf("%s: %d rows, want 100", q, n)
		}

		// 30% more rows: the statistics refresh by themselves.
		r.InsertRows("s", 120, 120, func(i int) string { return fmt.Sprintf("(%d, %d, 'cy%d')", 400+i, 400+i, (400+i)%2) })
		deadline := time.Now().Add(20 * time.Second)
		for {
			r.Rows("SELECT id FROM s WHERE n = 3") // plans start the refresh
			got = cardinalities(t, c, "s")
			if got["by_n.1"] == "160" && got["by_name_n.1"] == "4" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("statistics not refreshed: %v", got)
			}
			time.Sleep(50 * time.Millisecond)
		}

		// A new index of the analysed table gets its statistics.
		r.Exec("CREATE INDEX by_name ON s (name)")
		for deadline = time.Now().Add(20 * time.Second); ; {
			if got = cardinalities(t, c, "s"); got["by_name.1"] == "4" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no statistics for the new index: %v", got)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}

// TestDescKeyShown: a DESC primary-key column stays DESC in SHOW CREATE
// TABLE (so a dump reloads the same key order), SHOW INDEX and
// information_schema.STATISTICS ('D'), and ORDER BY in key order with a
// LIMIT reads only LIMIT entities.
func TestDescKeyShown(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Use("d")
		c.Exec("CREATE TABLE lg (host INT, ts INT, b INT, PRIMARY KEY (host, ts DESC))")
		create := c.Rows("SHOW CREATE TABLE lg")[0]
		if !strings.Contains(create, "PRIMARY KEY (`host`,`ts` DESC)") {
			t.Fatalf("SHOW CREATE TABLE:\n%s", create)
		}
		c.ExpectRows("SELECT COLUMN_NAME, COLLATION FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 'lg' ORDER BY SEQ_IN_INDEX", "host\tA", "ts\tD")
		// Reload the dump under another name.
		ddl := strings.Replace(strings.SplitN(create, "\t", 2)[1], "CREATE TABLE `lg`", "CREATE TABLE `lg2`", 1)
		c.Exec(ddl)
		c.ExpectRows("SELECT COLUMN_NAME, COLLATION FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 'lg2' ORDER BY SEQ_IN_INDEX", "host\tA", "ts\tD")
		c.InsertRows("lg", 100, 100, func(i int) string { return fmt.Sprintf("(%d, %d, %d)", i%4, i, i) })
		q := "SELECT host, ts FROM lg ORDER BY host, ts DESC LIMIT 2"
		c.ExpectRows(q, "0\t96", "0\t92")
		if r, e := c.Cost(q); r != 1 || e != 2 {
			t.Errorf("%s: %d requests, %d entities; want 1, 2", q, r, e)
		}
	})
}

// TestDescIndexColumns: KEY (b DESC) and CREATE INDEX ... (c DESC) keep
// their order (SHOW CREATE TABLE, SHOW INDEX), ORDER BY b DESC LIMIT n
// reads n index entries and n rows, and ASC columns stay ASC.
func TestDescIndexColumns(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Use("d")
		c.Exec("CREATE TABLE x (id INT PRIMARY KEY, b INT, c INT, e INT, KEY kb (b DESC), KEY ke (e))")
		c.Exec("CREATE INDEX kc ON x (c DESC, id)")
		create := c.Rows("SHOW CREATE TABLE x")[0]
		for _, want := range []string{"KEY `kb` (`b` DESC)", "KEY `kc` (`c` DESC,`id`)", "KEY `ke` (`e`)"} {
			if !strings.Contains(create, want) {
				t.Errorf("SHOW CREATE TABLE: no %s in\n%s", want, create)
			}
		}
		c.ExpectRows("SELECT INDEX_NAME, COLUMN_NAME, COLLATION FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 'x' AND INDEX_NAME <> 'PRIMARY' ORDER BY INDEX_NAME, SEQ_IN_INDEX",
			"kb\tb\tD", "kc\tc\tD", "kc\tid\tA", "ke\te\tA")
		c.InsertRows("x", 200, 200, func(i int) string { return fmt.Sprintf("(%d, %d, %d, %d)", i, i*7%200, i*11%200, i) })
		q := "SELECT id, b FROM x ORDER BY b DESC LIMIT 3"
		c.ExpectRows(q, "57\t199", "114\t198", "171\t197")
		plan := strings.Join(c.Rows("EXPLAIN PLAN "+q), "\n")
		if !strings.Contains(plan, "IndexRange") {
			t.Errorf("%s: want IndexRange:\n%s", q, plan)
		}
		if r, e := c.Cost(q); r > 4 || e > 6 {
			t.Errorf("%s: %d requests, %d entities; want at most 4, 6", q, r, e)
		}
		// Reload the dump: the order survives.
		ddl := strings.Replace(strings.SplitN(create, "\t", 2)[1], "CREATE TABLE `x`", "CREATE TABLE `x2`", 1)
		c.Exec(ddl)
		c.ExpectRows("SELECT INDEX_NAME, COLLATION FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 'x2' AND SEQ_IN_INDEX = 1 AND INDEX_NAME <> 'PRIMARY' ORDER BY INDEX_NAME",
			"kb\tD", "kc\tD", "ke\tA")
	})
}

// TestStatisticsPersist: the statistics of ANALYZE TABLE survive a restart
// of the gateway (they are stored), and DROP TABLE removes them.
func TestStatisticsPersist(t *testing.T) {
	dir := t.TempDir()
	ts := sqltest.Start(t, sqltest.OpenDisk(t, dir), sqltest.Options{})
	sqltest.NewRunner(t, ts.DB).Exec("CREATE DATABASE d")
	sqltest.NewRunner(t, ts.DB).Exec("CREATE TABLE d.s (id INT PRIMARY KEY, n INT, KEY by_n (n))")
	var vals []string
	for i := range 60 {
		vals = append(vals, fmt.Sprintf("(%d, %d)", i, i%6))
	}
	sqltest.NewRunner(t, ts.DB).Exec("INSERT INTO d.s VALUES " + strings.Join(vals, ", "))
	sqltest.NewRunner(t, ts.DB).Exec("ANALYZE TABLE d.s")
	ts.Stop()

	ts = sqltest.Start(t, sqltest.OpenDisk(t, dir), sqltest.Options{})
	sqltest.NewRunner(t, ts.DB).Script(`
		query SELECT INDEX_NAME, CARDINALITY FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 's' ORDER BY INDEX_NAME
		= by_n | 6
		= PRIMARY | 60
		exec DROP TABLE d.s
		exec CREATE TABLE d.s (id INT PRIMARY KEY, n INT, KEY by_n (n))
		query SELECT INDEX_NAME, CARDINALITY FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 's' ORDER BY INDEX_NAME
		= by_n | 0
		= PRIMARY | 0
	`)
}

// TestSkewedIndexValues: the most frequent values of an index's leading
// column are costed with their own row counts: a value most rows hold is
// read by a scan, a rare one through the index (the query needs a column
// the index does not carry: base gets).
func TestSkewedIndexValues(t *testing.T) {
	store, co := sqltest.Memory.Open(t)
	ts := sqltest.Start(t, store, sqltest.Options{Catalog: co})
	c := ts.Use("d")
	c.Exec("CREATE TABLE o (id INT PRIMARY KEY, status VARCHAR(10), v INT, KEY by_status (status))")
	var vals []string
	for i := range 2000 {
		st := "active"
		if i%100 == 0 {
			st = fmt.Sprintf("rare%d", i)
		}
		vals = append(vals, fmt.Sprintf("(%d, '%s', %d)", i, st, i))
	}
	c.Exec("INSERT INTO o VALUES " + strings.Join(vals, ", "))
	c.Exec("ANALYZE TABLE o")
	for q, want := range map[string]string{
		"SELECT v FROM o WHERE status = 'active'":  "TableScan",
		"SELECT v FROM o WHERE status = 'rare100'": "IndexLookup",
	} {
		plan := strings.Join(c.Rows("EXPLAIN PLAN "+q), "\n")
		if !strings.Contains(plan, want) {
			t.Errorf("%s: want %s:\n%s", q, want, plan)
		}
	}
}
