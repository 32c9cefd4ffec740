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

// TestDirectRangeRowReads: direct reads of a key range decode their
// columns from the store's rows (sqlgw/engine/rowread.go: no entity, no
// property map) and give exactly what go-mysql-server's executor gives
// for the same cached plan (Config.NoDirect) and without the plan cache
// (Config.NoPlanCache), compared as in TestDirectRangeDifferential: for
// a column of every type (integers of every width, signed and unsigned,
// FLOAT, DOUBLE, DECIMAL, DATE, DATETIME, TIMESTAMP, TIME, YEAR, BIT,
// ENUM, SET, BOOL, CHAR, VARCHAR, BINARY, VARBINARY, and TEXT and JSON,
// which may be split over properties and take the entity path), NULLs
// included, alone, sorted, DISTINCT and aggregated; a table of 300
// columns whose rows continue in a second entity (a row with
// continuations goes back to the entity path); inside a transaction
// with its own writes; and in a transaction's snapshot while another
// session commits changes to the range.
func TestDirectRangeRowReads(t *testing.T) {
	ctx := context.Background()
	type server struct{ a, b *gosql.Conn }
	open := func(cfg sqlgw.Config) server {
		srv := memoryServer(t, cfg)
		db, err := gosql.Open("mysql", fmt.Sprintf("root@tcp(%s)/", srv.Addr()))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		var s server
		for _, c := range []**gosql.Conn{&s.a, &s.b} {
			if *c, err = db.Conn(ctx); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { (*c).Close() })
		}
		return s
	}
	servers := []server{open(sqlgw.Config{}), open(sqlgw.Config{NoDirect: true}), open(sqlgw.Config{NoPlanCache: true})}
	names := []string{"direct", "plan cache without direct execution", "no plan cache"}
	exec := func(which func(server) *gosql.Conn, qs ...string) {
		t.Helper()
		for _, q := range qs {
			for i, s := range servers {
				if _, err := which(s).ExecContext(ctx, q); err != nil {
					t.Fatalf("%.100s on %s: %v", q, names[i], err)
				}
			}
		}
	}
	first := func(s server) *gosql.Conn { return s.a }
	second := func(s server) *gosql.Conn { return s.b }

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
	vals := func(i int) string {
		if i%11 == 0 {
			return fmt.Sprintf("(%d"+strings.Repeat(", NULL", len(cols))+")", i)
		}
		neg := 1 - 2*(i%2)
		return fmt.Sprintf("(%d, %d, %d, %d, %d, %d, %d, %g, %g, %d.%06d, '20%02d-%02d-%02d', '2024-01-%02d 10:%02d:%02d.%06d', '2023-06-%02d 01:02:03', '%d:%02d:%02d.%03d', %d, b'%b', '%s', '%s', %d, '%s', '%s', '%s', x'%08x', x'%x', '%s', '{\"k\": %d, \"s\": \"%s\"}')",
			i, neg*(i*5%128), i*1000%65536, neg*i*40000, i*100000000%4294967296, neg*i*1e15, uint64(i)*1e18%18446744073709551615,
			float32(neg)*float32(i)/7, float64(neg)*float64(i)/3, neg*i*1000, i*37%1000000,
			i%100, 1+i%12, 1+i%28, 1+i%28, i%60, i%60, i*12345%1000000, 1+i%28,
			neg*i%839, i%60, i%60, i%1000, 1901+i*3%254, i*37%1024, []string{"x", "y", "Z", "y"}[i%4], []string{"", "a", "b,c", "a,b,c", "c"}[i%5], i%2,
			[]string{"a", "A", "á", "b ", "ss"}[i%5], []string{"a", "A", "á", "b", "ss", "B"}[i%6], []string{"ä", "Ä", "a", "z"}[i%4],
			i*2654435761%4294967296, []byte(strings.Repeat(string(rune('a'+i%3)), 1+i%4)), strings.Repeat("t", i%9), i%4, []string{"x", "y"}[i%2])
	}
	var ins strings.Builder
	ins.WriteString("INSERT INTO ty VALUES ")
	for i := 1; i <= 80; i++ {
		if i > 1 {
			ins.WriteByte(',')
		}
		ins.WriteString(vals(i))
	}
	// A table of 300 columns: each row continues in a second entity.
	var wide, wideIns strings.Builder
	wide.WriteString("CREATE TABLE wd (id INT PRIMARY KEY")
	wideIns.WriteString("INSERT INTO wd VALUES ")
	for c := range 300 {
		fmt.Fprintf(&wide, ", c%d INT NULL", c)
	}
	wide.WriteString(")")
	for i := 1; i <= 12; i++ {
		if i > 1 {
			wideIns.WriteByte(',')
		}
		fmt.Fprintf(&wideIns, "(%d", i)
		for c := range 300 {
			if (i+c)%13 == 0 {
				wideIns.WriteString(", NULL")
			} else {
				fmt.Fprintf(&wideIns, ", %d", (i*c)%17)
			}
		}
		wideIns.WriteString(")")
	}
	exec(first, "CREATE DATABASE rr", "USE rr", ddl.String(), ins.String(), wide.String(), wideIns.String())
	exec(second, "USE rr")

	run := func(c func(server) *gosql.Conn, q string, args ...any) string {
		t.Helper()
		var outs []string
		for _, s := range servers {
			outs = append(outs, diffRun(c(s), q, args...)) // plancache_diff_test.go
		}
		for i := 1; i < len(outs); i++ {
			if outs[i] != outs[0] {
				t.Errorf("%s %v\n%s:\n%s\n%s:\n%s", q, args, names[0], outs[0], names[i], outs[i])
			}
		}
		return outs[0]
	}
	bounds := [][2]any{{1, 80}, {5, 44}, {11, 11}, {30, 20}, {70, 200}}
	var shapes []string
	for _, c := range cols {
		shapes = append(shapes,
			"SELECT "+c.name+" FROM ty WHERE id BETWEEN ? AND ?",
			"SELECT id, "+c.name+" FROM ty WHERE id BETWEEN ? AND ? ORDER BY "+c.name+", id",
			"SELECT DISTINCT "+c.name+" FROM ty WHERE id BETWEEN ? AND ? ORDER BY "+c.name,
			"SELECT MIN("+c.name+"), MAX("+c.name+"), COUNT("+c.name+") FROM ty WHERE id BETWEEN ? AND ?",
		)
	}
	shapes = append(shapes, "SELECT * FROM ty WHERE id BETWEEN ? AND ?", "SELECT SUM(ti), SUM(bu), SUM(de), SUM(db) FROM ty WHERE id BETWEEN ? AND ?",
		"SELECT c3, c290 FROM wd WHERE id BETWEEN ? AND ?", "SELECT * FROM wd WHERE id BETWEEN ? AND ?",
		"SELECT DISTINCT c299 FROM wd WHERE id BETWEEN ? AND ? ORDER BY c299", "SELECT SUM(c0), SUM(c250) FROM wd WHERE id BETWEEN ? AND ?",
		// Backwards, and bounds as comparisons.
		"SELECT id, vc FROM ty WHERE id BETWEEN ? AND ? ORDER BY id DESC", "SELECT vc, de FROM ty WHERE id >= ? AND id <= ? ORDER BY vc, de")
	check := func(c func(server) *gosql.Conn) {
		t.Helper()
		r0 := engine.RowReads()
		for _, q := range shapes {
			for _, b := range bounds {
				run(c, q, b[0], b[1])
			}
		}
		if engine.RowReads() == r0 {
			t.Error("no read went by rows")
		}
	}
	check(first)

	// Inside a transaction with its own writes.
	// Rows the transaction inserts between stored ones (50, 51: deleted
	// first), before and after them.
	exec(first, "DELETE FROM ty WHERE id IN (50, 51)")
	exec(first, "BEGIN", "INSERT INTO ty (id, ti, vc, bt, de) VALUES (81, 3, 'new', b'1', 1.5), (0, -1, 'zero', b'0', -2), (50, 7, 'mid', b'11', 0), (51, NULL, 'Mid', NULL, 0.5)",
		"UPDATE ty SET vc = 'A', en = 'x', dtt = '1999-12-31 23:59:59.5', bu = NULL WHERE id IN (5, 40, 41)", "DELETE FROM ty WHERE id IN (6, 44, 80)",
		"UPDATE wd SET c3 = 99, c290 = NULL WHERE id = 4", "DELETE FROM wd WHERE id = 5")
	check(first)
	exec(first, "ROLLBACK")

	// In a snapshot (REPEATABLE READ, the snapshot taken by the first
	// read) while another session commits changes to the range: the
	// transaction's reads do not see them, and after COMMIT they do.
	snap := "SELECT id, vc, de FROM ty WHERE id BETWEEN ? AND ? ORDER BY vc, id"
	exec(first, "BEGIN")
	before := run(first, snap, 1, 80)
	exec(second, "UPDATE ty SET vc = 'changed', de = 7 WHERE id BETWEEN 10 AND 20", "DELETE FROM ty WHERE id = 30", "INSERT INTO ty (id, vc) VALUES (85, 'dup')")
	if err := servers[0].b.QueryRowContext(ctx, "SELECT 1 FROM ty WHERE id = 30").Scan(new(int)); err != gosql.ErrNoRows {
		t.Fatalf("the other session's delete: %v", err)
	}
	if got := run(first, snap, 1, 80); got != before {
		t.Errorf("the snapshot saw another session's commit:\nbefore:\n%s\nafter:\n%s", before, got)
	}
	check(first)
	exec(first, "COMMIT")
	if got := run(first, snap, 1, 80); got == before || !strings.Contains(got, "changed") {
		t.Errorf("after COMMIT the other session's changes are missing:\n%s", got)
	}
	check(first)
}
