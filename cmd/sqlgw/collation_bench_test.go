package main

import (
	"fmt"
	"strings"
	"testing"
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
	db := benchTable(b, []string{"CREATE DATABASE c", "CREATE TABLE c.big (id INT PRIMARY KEY, n INT, email VARCHAR(64) COLLATE utf8mb4_0900_ai_ci, c VARCHAR(60))"},
		"c.big", lookupRows, func(id int) string {
			return fmt.Sprintf("(%d,%d,'user%d@example.com','row %d with some filler text to look like data')", id, id*7919%lookupRows%10000, id, id)
		},
		"CREATE INDEX by_n ON c.big (n)",
		"CREATE UNIQUE INDEX by_email ON c.big (email)",
		"ANALYZE TABLE c.big")
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
			plan[j] = explainPlan(b, db, sqlText, q.args(0)...)
		}
		if !strings.Contains(plan[0], "IndexLookup") || strings.Contains(plan[1], "index ") {
			b.Fatalf("%s: plans %q and %q", q.name, plan[0], plan[1])
		}
		b.Run("query="+q.name, func(b *testing.B) {
			b.Logf("now:    %s", plan[0])
			b.Logf("before: %s", plan[1])
			comparePaths(b, db, "now", q.now, "before", q.before, q.args, q.rows)
		})
	}
}
