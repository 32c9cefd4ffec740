package sqlgw_test

import (
	"context"
	gosql "database/sql"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/sqlgw/engine"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// TestIndexRowsDifferential: a direct read through a secondary index
// reads its verified hits' rows as rows of the selected properties
// (sqlgw/engine/indexrows.go: storage.MultiRowGetter, no entities, no
// property maps; sysbench's select_random_points) and gives exactly what
// the entity path gives for the same statement in the same server
// (engine.SetIndexRows(false): the rows read as entities in one
// storage.MultiGet): the result (columns, their metadata, values, order,
// errors, warnings), the requests sent (the recorder's trace of Gets,
// whose projection alone differs: the rows read the selection and the
// index columns, the entities everything), the session's request and
// entity counters and the metrics' table reads by access path; prepared
// and as text; IN lists and ranges on global indexes over columns of
// several types (INT, a case-insensitive VARCHAR, DECIMAL, DATETIME, a
// two-column index), selections with and without the index columns,
// duplicates, NULLs, absent values, ORDER BY and LIMIT; rows whose index
// value changed, and a stale index entity (not an answer, repaired); a table of 300 columns
// whose rows continue in a second entity (the entity path for those
// rows); inside a transaction with its own writes to the rows read; and in
// a transaction's snapshot while another session commits to them.
// engine.IndexRowReads proves the path ran.
func TestIndexRowsDifferential(t *testing.T) {
	ts := sqltest.StartBackend(t, sqltest.Memory, sqltest.Options{})
	defer engine.SetIndexRows(true)
	var wide, wideIns strings.Builder
	wide.WriteString("CREATE TABLE wd (id INT PRIMARY KEY")
	for c := range 300 {
		fmt.Fprintf(&wide, ", c%d INT NULL", c)
	}
	wide.WriteString(", KEY c5_1 (c5))")
	wideIns.WriteString("INSERT INTO wd VALUES ")
	for i := 1; i <= 12; i++ {
		if i > 1 {
			wideIns.WriteByte(',')
		}
		fmt.Fprintf(&wideIns, "(%d", i)
		for c := range 300 {
			fmt.Fprintf(&wideIns, ", %d", (i*c)%17)
		}
		wideIns.WriteString(")")
	}
	var ins strings.Builder
	ins.WriteString("INSERT INTO t VALUES ")
	words := []string{"a", "A", "a ", "b", "B", "é", "e", "ab", "zz", "ß", "ss"}
	for i := 1; i <= 150; i++ {
		if i > 1 {
			ins.WriteByte(',')
		}
		k := fmt.Sprint(i % 13)
		if i%17 == 0 {
			k = "NULL"
		}
		fmt.Fprintf(&ins, "(%d, %s, '%s', %d.%02d, '2024-01-%02d 10:00:%02d', %d, %d, 'c%d', 'pad%d')",
			i, k, words[i%len(words)], i%7, i%100, 1+i%5, i%3, i%4, i%3, i, i)
	}
	a := ts.Session("ir",
		"CREATE TABLE t (id INT PRIMARY KEY, k INT, s VARCHAR(20) COLLATE utf8mb4_general_ci, d DECIMAL(10,2), dt DATETIME, x INT, y INT, c VARCHAR(30), pad VARCHAR(30),"+
			" KEY k_1 (k), KEY s_1 (s), KEY d_1 (d), KEY dt_1 (dt), KEY xy_1 (x, y))",
		ins.String(), wide.String(), wideIns.String(),
		// Rows whose index value changed, some deleted.
		"UPDATE t SET k = k + 20 WHERE id % 5 = 1",
		"DELETE FROM t WHERE id % 11 = 3",
		"ANALYZE TABLE t, wd")
	b := ts.Conn()
	sqltest.NewRunner(t, b).Exec("USE ir")

	// The Gets of the rows (the catalog's background checks aside), their
	// projections cut off.
	sel := regexp.MustCompile(` select=\[[^\]]*\]`)
	gets := func(lines []string) string {
		var out []string
		for _, l := range lines {
			if strings.HasPrefix(l, "Get ") && !strings.HasPrefix(l, "Get sqlgwcatalog") {
				out = append(out, sel.ReplaceAllString(l, ""))
			}
		}
		return strings.Join(out, "\n")
	}
	tableReads := func() map[string]int64 {
		var buf strings.Builder
		if _, err := ts.Srv.Metrics().WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		out := map[string]int64{}
		for _, l := range strings.Split(buf.String(), "\n") {
			name, val, ok := strings.Cut(l, "\t")
			if ok && strings.HasPrefix(name, "sqlgw_table_read") && !strings.Contains(name, "seconds") {
				var n int64
				fmt.Sscan(val, &n)
				out[name] = n
			}
		}
		return out
	}
	delta := func(a, b map[string]int64) string {
		var out []string
		for k, v := range b {
			if v != a[k] {
				out = append(out, fmt.Sprintf("%s+%d", k, v-a[k]))
			}
		}
		slices.Sort(out)
		return strings.Join(out, " ")
	}
	// run runs q both ways (after a first run, so that both are plan
	// cache hits) and returns the result.
	run := func(c *gosql.Conn, q string, args ...any) string {
		t.Helper()
		r := sqltest.NewRunner(t, c)
		diffRun(c, q, args...)
		var outs, traces, reads [2]string
		var costs [2][2]int64
		for i, on := range []bool{true, false} {
			engine.SetIndexRows(on)
			r0, e0 := r.Status()
			m0 := tableReads()
			lines := ts.Requests(func() { outs[i] = diffRun(c, q, args...) + diffRun(c, "SHOW WARNINGS") })
			reads[i] = delta(m0, tableReads())
			r1, e1 := r.Status()
			traces[i], costs[i] = gets(lines), [2]int64{r1 - r0, e1 - e0}
		}
		engine.SetIndexRows(true)
		if outs[0] != outs[1] {
			t.Errorf("%s %v: index rows\n%s\nentities\n%s", q, args, outs[0], outs[1])
		}
		if reads[0] != reads[1] {
			t.Errorf("%s %v: the metrics' table reads: index rows %s; entities %s", q, args, reads[0], reads[1])
		}
		if traces[0] != traces[1] || costs[0] != costs[1] {
			t.Errorf("%s %v: index rows sent\n%s\n(requests, entities %v); entities sent\n%s\n(%v)", q, args, traces[0], costs[0], traces[1], costs[1])
		}
		return outs[0]
	}
	type shape struct {
		q    string
		args [][]any
	}
	ks := [][]any{{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, {3, 3, 21, nil, 99, 0, 12, 22, 7, 1}, {"4", 5.5, -1, 1e20, " 6", 2, 2, 2, 30, 31}}
	shapes := []shape{
		{"SELECT id, k, c, pad FROM t WHERE k IN (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", ks},
		{"SELECT c FROM t WHERE k IN (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", ks},
		{"SELECT pad, id, pad FROM t WHERE k IN (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ORDER BY id DESC LIMIT 5", ks},
		{"SELECT id, c FROM t WHERE k BETWEEN ? AND ?", [][]any{{2, 5}, {20, 40}, {7, 7}, {50, 60}}},
		{"SELECT id, c FROM t WHERE s IN (?, ?, ?)", [][]any{{"a", "B", "zz"}, {"A ", "é", "nope"}, {"SS", "ß", nil}}},
		{"SELECT id, s, pad FROM t WHERE s = ?", [][]any{{"a"}, {"E"}, {"b  "}}},
		{"SELECT id, d, c FROM t WHERE d IN (?, ?, ?)", [][]any{{"1.01", 2.02, 3}, {"6.99", "0.5", "4.04"}}},
		{"SELECT id, c FROM t WHERE dt IN (?, ?)", [][]any{{"2024-01-02 10:00:01", "2024-01-03 10:00:02"}, {"2024-01-01", "2024-01-05 10:00:04"}}},
		{"SELECT id, c FROM t WHERE x = ? AND y IN (?, ?)", [][]any{{1, 1, 2}, {0, 0, 3}, {2, 1, 1}}},
		{"SELECT id, y FROM t WHERE x IN (?, ?)", [][]any{{0, 2}, {1, 5}}},
		{"SELECT id, c3, c290 FROM wd WHERE c5 IN (?, ?, ?)", [][]any{{0, 5, 10}, {15, 3, 99}}},
		{"SELECT * FROM wd WHERE c5 IN (?, ?)", [][]any{{5, 10}}},
	}
	// check runs the shapes on c; byRows: some must have gone by rows
	// (inside a transaction with its own writes to the table, reads take
	// the general path, which reads entities).
	check := func(c *gosql.Conn, byRows bool) {
		t.Helper()
		n0 := engine.IndexRowReads()
		for _, s := range shapes {
			for _, args := range s.args {
				run(c, s.q, args...)
			}
		}
		run(c, "SELECT id, k, c, pad FROM t WHERE k IN (1, 2, 3, 21, 22)")
		run(c, "SELECT id, c FROM t WHERE s IN ('a', 'zz')")
		if byRows && engine.IndexRowReads() == n0 {
			t.Error("no index read went by rows")
		}
	}
	check(a, true)

	// A stale index entity (as a crash between the index's steps can
	// leave: row 2 claimed at k = 99), made again before each way's read
	// (the read repairs it): not an answer either way.
	tbl := sqltest.StoreTable(t, ts.Store, ts.Catalog, "ir", "t")
	stale := func() {
		t.Helper()
		ix, table, es := indexEntities(t, txnView(t, ts.Store, ts.Catalog), tbl, "k_1")
		for _, e := range es {
			if baseID(t, tbl, e) != int64(2) {
				continue
			}
			fake, err := tbl.IndexEntity(ix, e.Properties[catalog.PropBasePK].Str(), e.Properties[catalog.PropBaseRK].Str(),
				[]catalog.Datum{int64(2), int64(99), nil, nil, nil, nil, nil, nil, nil})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ts.Store.Insert(context.Background(), table, fake); err != nil {
				t.Fatal(err)
			}
		}
	}
	sq := "SELECT id, k, c FROM t WHERE k IN (?, ?, ?)"
	diffRun(a, sq, 99, 3, 4)
	var staleOut [2]string
	d0, n0 := directRuns(t, a), engine.IndexRowReads()
	for i, on := range []bool{true, false} {
		engine.SetIndexRows(on)
		stale()
		staleOut[i] = diffRun(a, sq, 99, 3, 4)
	}
	engine.SetIndexRows(true)
	if staleOut[0] != staleOut[1] || strings.Contains(staleOut[0], "99") {
		t.Errorf("a stale index entity: index rows\n%s\nentities\n%s", staleOut[0], staleOut[1])
	}
	if directRuns(t, a)-d0 != 2 || engine.IndexRowReads() == n0 {
		t.Error("the reads with a stale index entity did not run directly, by rows")
	}

	// Inside a transaction with its own writes to the rows read.
	ra := sqltest.NewRunner(t, a)
	ra.Exec("BEGIN")
	ra.Exec("UPDATE t SET k = 3, c = 'upd' WHERE id IN (1, 7, 30)")
	ra.Exec("DELETE FROM t WHERE id IN (4, 17)")
	ra.Exec("INSERT INTO t (id, k, s, c) VALUES (999, 5, 'a', 'new')")
	ra.Exec("UPDATE wd SET c5 = 10 WHERE id = 1")
	check(a, false)
	ra.Exec("ROLLBACK")

	// In a snapshot (REPEATABLE READ, taken by the first read) while
	// another session commits to the rows.
	ra.Exec("BEGIN")
	first := run(a, "SELECT id, k, c FROM t WHERE k IN (1, 2, 3)")
	rb := sqltest.NewRunner(t, b)
	rb.Exec("UPDATE t SET k = 2, c = 'moved' WHERE id IN (5, 6, 40)")
	rb.Exec("DELETE FROM t WHERE k = 1 AND id < 60")
	rb.Exec("INSERT INTO t (id, k, c) VALUES (1001, 3, 'other')")
	if again := run(a, "SELECT id, k, c FROM t WHERE k IN (1, 2, 3)"); again != first {
		t.Errorf("the snapshot changed:\n%s\nthen\n%s", first, again)
	}
	check(a, true)
	ra.Exec("COMMIT")
	check(a, true)
	check(b, true)
}

// BenchmarkIndexRows: select_random_points' statement (ten values of a
// global index, their rows' id, k, c and pad) prepared, on the embedded
// store in memory, with the hits' rows read as rows and as entities
// (engine.SetIndexRows).
//
//	go test ./sqlgw -run '^$' -bench IndexRows -benchmem
func BenchmarkIndexRows(b *testing.B) {
	ts := sqltest.StartBackend(b, sqltest.Memory, sqltest.Options{})
	defer engine.SetIndexRows(true)
	c := ts.Session("bir", "CREATE TABLE sb (id INT PRIMARY KEY, k INT NOT NULL, c CHAR(120) NOT NULL, pad CHAR(60) NOT NULL, KEY k_1 (k))")
	r := sqltest.NewRunner(b, c)
	for start := 0; start < 10000; start += 500 {
		var sb strings.Builder
		sb.WriteString("INSERT INTO sb VALUES ")
		for i := start; i < start+500; i++ {
			if i > start {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, "(%d, %d, '%0120d', '%060d')", i, i%5000, i, i)
		}
		r.Exec(sb.String())
	}
	st, err := c.PrepareContext(context.Background(), "SELECT id, k, c, pad FROM sb WHERE k IN (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	args := make([]any, 10)
	for _, on := range []bool{true, false} {
		b.Run(fmt.Sprintf("rows=%v", on), func(b *testing.B) {
			engine.SetIndexRows(on)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				for j := range args {
					args[j] = (i*10 + j*37) % 5000
				}
				rs, err := st.QueryContext(context.Background(), args...)
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for rs.Next() {
					n++
				}
				rs.Close()
				if n != 20 {
					b.Fatalf("%d rows, want 20", n)
				}
			}
		})
	}
}
