package main

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkReverseOrder100k (issue 14, docs/benchmarks.md): on a table of
// 100,000 rows, PRIMARY KEY (dev, ts) over 100 partitions of 1,000 rows,
// the newest 10 rows of one partition (ORDER BY ts DESC LIMIT 10) and of
// the whole table (ORDER BY dev DESC, ts DESC LIMIT 10), read backwards on
// Pebble, against the same query forced to a forward read and a sort (the
// ORDER BY on an expression: what every backend did before, and what Azure,
// which cannot read backwards, still does), alternately in one run. It
// reports each one's time, store requests and entities read per query.
//
//	go test ./cmd/sqlgw -run '^$' -bench ReverseOrder100k -benchtime 5x -v
func BenchmarkReverseOrder100k(b *testing.B) {
	db := benchTable(b, []string{"CREATE DATABASE r", "CREATE TABLE r.ev (dev INT, ts INT, v VARCHAR(60), PRIMARY KEY (dev, ts))"},
		"r.ev", 100_000, func(id int) string {
			return fmt.Sprintf("(%d,%d,'event %d with some filler text')", id%100, id/100, id)
		})
	for _, q := range []struct {
		name, now, before string
		args              func(i int) []any
	}{
		{"partition-tail",
			"SELECT * FROM r.ev WHERE dev = ? ORDER BY ts DESC LIMIT 10",
			"SELECT * FROM r.ev WHERE dev = ? ORDER BY ts + 0 DESC LIMIT 10",
			func(i int) []any { return []any{i * 37 % 100} }},
		{"table-tail",
			"SELECT * FROM r.ev ORDER BY dev DESC, ts DESC LIMIT 10",
			"SELECT * FROM r.ev ORDER BY dev + 0 DESC, ts DESC LIMIT 10",
			func(int) []any { return nil }},
	} {
		rs, err := db.Query("EXPLAIN PLAN "+q.now, q.args(0)...)
		if err != nil {
			b.Fatalf("EXPLAIN %s: %v", q.now, err)
		}
		var plan []string
		for rs.Next() {
			var line string
			if err := rs.Scan(&line); err != nil {
				b.Fatal(err)
			}
			plan = append(plan, line)
		}
		rs.Close()
		if !strings.Contains(strings.Join(plan, "\n"), " reverse") {
			b.Fatalf("%s: no backwards read:\n%s", q.name, strings.Join(plan, "\n"))
		}
		b.Run("query="+q.name, func(b *testing.B) {
			comparePaths(b, db, "reverse", q.now, "sort", q.before, q.args, 10)
		})
	}
}
