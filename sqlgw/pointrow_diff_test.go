package sqlgw_test

import (
	gosql "database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw/engine"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// TestDirectPointRowReads: a direct point select decodes its columns
// from the store's row (sqlgw/engine/pointrow.go: storage.RowGetter, no
// entity, no property map) and gives exactly what the entity path gives
// for the same statement in the same server (engine.SetPointRows(false)):
// the result (columns, their metadata, values, errors), the requests sent
// (the recorder's trace of Gets), the session's request and entity
// counters and the metrics' table reads by access path; prepared (binary protocol) and as text; for a column of every
// type (integers of every width, signed and unsigned, FLOAT, DOUBLE,
// DECIMAL, DATE, DATETIME, TIMESTAMP, TIME, YEAR, BIT, ENUM, SET, BOOL,
// CHAR and VARCHAR in three collations, BINARY, VARBINARY, and TEXT and
// JSON, which may be split over properties and take the entity path),
// NULLs, absent keys; a composite key of a case-insensitive collation;
// a table of 300 columns whose rows continue in a second entity (the
// entity path again); inside a transaction with its own writes to the
// keys read; and in a transaction's snapshot while another session
// commits to the row. engine.PointRowReads proves the path ran.
func TestDirectPointRowReads(t *testing.T) {
	ts := sqltest.StartBackend(t, sqltest.Memory, sqltest.Options{})
	defer engine.SetPointRows(true)
	cols := []struct{ name, typ string }{
		{"ti", "TINYINT"}, {"si", "SMALLINT UNSIGNED"}, {"mi", "MEDIUMINT"}, {"iu", "INT UNSIGNED"},
		{"bi", "BIGINT"}, {"bu", "BIGINT UNSIGNED"}, {"fl", "FLOAT"}, {"db", "DOUBLE"}, {"de", "DECIMAL(20,6)"},
		{"dt", "DATE"}, {"dtt", "DATETIME(6)"}, {"ts", "TIMESTAMP"}, {"tm", "TIME(3)"}, {"yr", "YEAR"},
		{"bt", "BIT(10)"}, {"en", "ENUM('x','y','Z')"}, {"st", "SET('a','b','c')"}, {"bo", "BOOL"},
		{"ch", "CHAR(5) COLLATE utf8mb4_0900_ai_ci"}, {"vc", "VARCHAR(30) COLLATE utf8mb4_bin"}, {"vl", "VARCHAR(30) CHARACTER SET latin1"},
		{"bn", "BINARY(4)"}, {"vb", "VARBINARY(10)"}, {"tx", "TEXT"}, {"js", "JSON"},
	}
	var ddl strings.Builder
	ddl.WriteString("CREATE TABLE ty (id INT PRIMARY KEY")
	for _, c := range cols {
		fmt.Fprintf(&ddl, ", %s %s NULL", c.name, c.typ)
	}
	ddl.WriteString(")")
	var ins strings.Builder
	ins.WriteString("INSERT INTO ty VALUES ")
	for i := 1; i <= 40; i++ {
		if i > 1 {
			ins.WriteByte(',')
		}
		if i%11 == 0 {
			fmt.Fprintf(&ins, "(%d"+strings.Repeat(", NULL", len(cols))+")", i)
			continue
		}
		neg := 1 - 2*(i%2)
		fmt.Fprintf(&ins, "(%d, %d, %d, %d, %d, %d, %d, %g, %g, %d.%06d, '20%02d-%02d-%02d', '2024-01-%02d 10:%02d:%02d.%06d', '2023-06-%02d 01:02:03', '%d:%02d:%02d.%03d', %d, b'%b', '%s', '%s', %d, '%s', '%s', '%s', x'%08x', x'%x', '%s', '{\"k\": %d}')",
			i, neg*(i*5%128), i*1000%65536, neg*i*40000, i*100000000%4294967296, neg*i*1e15, uint64(i)*1e18%18446744073709551615,
			float32(neg)*float32(i)/7, float64(neg)*float64(i)/3, neg*i*1000, i*37%1000000,
			i%100, 1+i%12, 1+i%28, 1+i%28, i%60, i%60, i*12345%1000000, 1+i%28,
			neg*i%839, i%60, i%60, i%1000, 1901+i*3%254, i*37%1024, []string{"x", "y", "Z", "y"}[i%4], []string{"", "a", "b,c", "a,b,c", "c"}[i%5], i%2,
			[]string{"a", "A", "á", "b ", "ss"}[i%5], []string{"a", "A", "á", "b", "ss", "B"}[i%6], []string{"ä", "Ä", "a", "z"}[i%4],
			i*2654435761%4294967296, []byte(strings.Repeat(string(rune('a'+i%3)), 1+i%4)), strings.Repeat("t", i%9), i%4)
	}
	var wide, wideIns strings.Builder
	wide.WriteString("CREATE TABLE wd (id INT PRIMARY KEY")
	wideIns.WriteString("INSERT INTO wd VALUES ")
	for c := range 300 {
		fmt.Fprintf(&wide, ", c%d INT NULL", c)
	}
	wide.WriteString(")")
	for i := 1; i <= 5; i++ {
		if i > 1 {
			wideIns.WriteByte(',')
		}
		fmt.Fprintf(&wideIns, "(%d", i)
		for c := range 300 {
			fmt.Fprintf(&wideIns, ", %d", (i*c)%17)
		}
		wideIns.WriteString(")")
	}
	a := ts.Session("pr", ddl.String(), ins.String(), wide.String(), wideIns.String(),
		"CREATE TABLE ck (k VARCHAR(10) COLLATE utf8mb4_0900_ai_ci, r INT, n INT, v VARCHAR(10), PRIMARY KEY (k, r))",
		"INSERT INTO ck VALUES ('k1', 1, 10, 'one'), ('K2', 2, 20, 'two'), ('résumé', 3, NULL, 'three')")
	b := ts.Conn()
	sqltest.NewRunner(t, b).Exec("USE pr")

	gets := func(lines []string) string {
		var out []string
		for _, l := range lines {
			// The catalog's own checks (in the background) aside.
			if strings.HasPrefix(l, "Get ") && !strings.HasPrefix(l, "Get sqlgwcatalog") {
				out = append(out, l)
			}
		}
		return strings.Join(out, "\n")
	}
	// tableReads are the metrics' counters of table reads by access path
	// (reads, their store requests and entities; the store's own
	// counters also count the catalog's background checks).
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
			engine.SetPointRows(on)
			r0, e0 := r.Status()
			m0 := tableReads()
			lines := ts.Requests(func() { outs[i] = diffRun(c, q, args...) })
			reads[i] = delta(m0, tableReads())
			r1, e1 := r.Status()
			traces[i], costs[i] = gets(lines), [2]int64{r1 - r0, e1 - e0}
		}
		engine.SetPointRows(true)
		if outs[0] != outs[1] {
			t.Errorf("%s %v: point rows\n%s\nentities\n%s", q, args, outs[0], outs[1])
		}
		if reads[0] != reads[1] {
			t.Errorf("%s %v: the metrics' table reads: point rows %s; entities %s", q, args, reads[0], reads[1])
		}
		if traces[0] != traces[1] || costs[0] != costs[1] {
			t.Errorf("%s %v: point rows sent\n%s\n(requests, entities %v); entities sent\n%s\n(%v)", q, args, traces[0], costs[0], traces[1], costs[1])
		}
		return outs[0]
	}
	var shapes []string
	for _, c := range cols {
		shapes = append(shapes, "SELECT "+c.name+" FROM ty WHERE id = ?")
	}
	shapes = append(shapes, "SELECT * FROM ty WHERE id = ?", "SELECT id, vc, de, bt FROM ty WHERE id = ?", "SELECT vc, vc, id FROM ty WHERE id = ?",
		"SELECT c3, c290 FROM wd WHERE id = ?", "SELECT * FROM wd WHERE id = ?")
	keys := []int{1, 7, 11, 22, 40, 0, 999}
	check := func(c *gosql.Conn) {
		t.Helper()
		p0 := engine.PointRowReads()
		for _, q := range shapes {
			for _, k := range keys {
				run(c, q, k)
			}
		}
		run(c, "SELECT vc, de FROM ty WHERE id = 3")
		run(c, "SELECT c3 FROM wd WHERE id = 2")
		for _, k := range [][2]any{{"k1", 1}, {"K1", 1}, {"k2", 2}, {"resume", 3}, {"RÉSUMÉ", 3}, {"k1", 2}, {"nope", 1}} {
			run(c, "SELECT n, v FROM ck WHERE k = ? AND r = ?", k[0], k[1])
		}
		run(c, "SELECT v FROM ck WHERE k = 'K2' AND r = 2")
		if engine.PointRowReads() == p0 {
			t.Error("no point select went by row")
		}
	}
	check(a)

	// Inside a transaction with its own writes to the keys read.
	ra := sqltest.NewRunner(t, a)
	ra.Exec("BEGIN")
	ra.Exec("UPDATE ty SET vc = 'upd', de = 1.5, bt = b'1' WHERE id IN (1, 7)")
	ra.Exec("DELETE FROM ty WHERE id = 22")
	ra.Exec("INSERT INTO ty (id, vc) VALUES (999, 'new')")
	ra.Exec("UPDATE wd SET c3 = 99 WHERE id = 1")
	ra.Exec("UPDATE ck SET v = 'uno' WHERE k = 'k1' AND r = 1")
	check(a)
	ra.Exec("ROLLBACK")
	if got := run(a, "SELECT vc FROM ty WHERE id = ?", 999); strings.Contains(got, "new") {
		t.Errorf("a rolled back insert is read:\n%s", got)
	}

	// In a snapshot (REPEATABLE READ, taken by the first read) while
	// another session commits to the row.
	q := "SELECT vc, de FROM ty WHERE id = ?"
	ra.Exec("BEGIN")
	before := run(a, q, 10)
	sqltest.NewRunner(t, b).Exec("UPDATE ty SET vc = 'changed', de = 7 WHERE id = 10")
	if got := run(a, q, 10); got != before {
		t.Errorf("the snapshot saw another session's commit:\nbefore:\n%s\nafter:\n%s", before, got)
	}
	ra.Exec("COMMIT")
	if got := run(a, q, 10); !strings.Contains(got, "changed") {
		t.Errorf("after COMMIT the other session's change is missing:\n%s", got)
	}
}
