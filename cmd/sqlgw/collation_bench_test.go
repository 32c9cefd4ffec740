package main

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"
)

// BenchmarkPlannerPaths100k (issue 14, docs/benchmarks.md): on a table of
// 100,000 rows, a 10-value IN on an indexed INT column with ten rows per
// value (n, KEY (n)), and a lookup on a UNIQUE utf8mb4_0900_ai_ci column
// with a literal in another case (email). Each iteration runs the query as
// planned now and as it was planned before issue 14 (IGNORE INDEX: a table
// scan with the filter; a collated column was never used by a key path and
// an IN on an index lost to the scan), so machine load hits both alike.
// It reports each one's time, store requests and entities read per query.
//
//	go test ./cmd/sqlgw -run '^$' -bench PlannerPaths100k -benchtime 10x -v
func BenchmarkPlannerPaths100k(b *testing.B) {
	db := benchServer(b)
	benchExec(b, db, "CREATE DATABASE c")
	benchExec(b, db, "CREATE TABLE c.big (id INT PRIMARY KEY, n INT, email VARCHAR(64) COLLATE utf8mb4_0900_ai_ci, c VARCHAR(60))")
	start := time.Now()
	const perStmt = 1000
	var sb strings.Builder
	for first := 0; first < lookupRows; first += perStmt {
		sb.Reset()
		sb.WriteString("INSERT INTO c.big VALUES ")
		for id := first; id < first+perStmt; id++ {
			if id > first {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, "(%d,%d,'user%d@example.com','row %d with some filler text to look like data')", id, id*7919%lookupRows%10000, id, id)
		}
		benchExec(b, db, sb.String())
	}
	b.Logf("loaded %d rows in %v", lookupRows, time.Since(start).Round(time.Millisecond))
	for _, ddl := range []string{
		"CREATE INDEX by_n ON c.big (n)",
		"CREATE UNIQUE INDEX by_email ON c.big (email)",
		"ANALYZE TABLE c.big",
	} {
		start = time.Now()
		benchExec(b, db, ddl)
		b.Logf("%s: %v", ddl, time.Since(start).Round(time.Millisecond))
	}
	for _, q := range []struct {
		name, now, before string
		args              func(i int) []any
		rows              int
	}{
		{"in10-indexed-int",
			"SELECT * FROM c.big WHERE n IN (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			"SELECT * FROM c.big IGNORE INDEX (by_n) WHERE n IN (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			func(i int) []any {
				var a []any
				for j := range 10 {
					a = append(a, (i*37+j*1009)%10000)
				}
				return a
			}, 100},
		{"unique-0900-ai-ci",
			"SELECT * FROM c.big WHERE email = ?",
			"SELECT * FROM c.big IGNORE INDEX (by_email) WHERE email = ?",
			func(i int) []any { return []any{fmt.Sprintf("User%d@Example.COM", i*37%lookupRows)} }, 1},
	} {
		var plan [2]string
		for j, sqlText := range []string{q.now, q.before} {
			r := db.QueryRow("EXPLAIN "+sqlText, q.args(0)...)
			cols := make([]any, 12)
			for c := range cols {
				cols[c] = new(sql.NullString)
			}
			if err := r.Scan(cols...); err != nil {
				b.Fatalf("EXPLAIN %s: %v", sqlText, err)
			}
			plan[j] = cols[11].(*sql.NullString).String
		}
		if !strings.Contains(plan[0], "IndexLookup") || strings.Contains(plan[1], "index ") {
			b.Fatalf("%s: plans %q and %q", q.name, plan[0], plan[1])
		}
		run := func(b *testing.B, sqlText string, args []any, want int) {
			rows, err := db.Query(sqlText, args...)
			if err != nil {
				b.Fatalf("%s: %v", sqlText, err)
			}
			n := 0
			for rows.Next() {
				n++
			}
			if err := rows.Err(); err != nil {
				b.Fatal(err)
			}
			rows.Close()
			if n != want {
				b.Fatalf("%s %v: %d rows, want %d", sqlText, args, n, want)
			}
		}
		b.Run("query="+q.name, func(b *testing.B) {
			b.Logf("now:    %s", plan[0])
			b.Logf("before: %s", plan[1])
			var tn, tb time.Duration
			var rn, rb, en, eb int64
			for i := 0; i < b.N; i++ {
				args := q.args(i + 1)
				r0, e0 := sessionCounts(b, db)
				t0 := time.Now()
				run(b, q.now, args, q.rows)
				t1 := time.Now()
				r1, e1 := sessionCounts(b, db)
				t2 := time.Now()
				run(b, q.before, args, q.rows)
				t3 := time.Now()
				r2, e2 := sessionCounts(b, db)
				tn += t1.Sub(t0)
				tb += t3.Sub(t2)
				rn, en = rn+r1-r0, en+e1-e0
				rb, eb = rb+r2-r1, eb+e2-e1
			}
			n := float64(b.N)
			b.ReportMetric(float64(tn.Nanoseconds())/n, "now-ns/op")
			b.ReportMetric(float64(tb.Nanoseconds())/n, "before-ns/op")
			b.ReportMetric(float64(tb)/float64(tn), "before/now")
			b.ReportMetric(float64(rn)/n, "now-requests/op")
			b.ReportMetric(float64(rb)/n, "before-requests/op")
			b.ReportMetric(float64(en)/n, "now-entities/op")
			b.ReportMetric(float64(eb)/n, "before-entities/op")
		})
	}
}
