package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// BenchmarkSysbenchLoad sends what sysbench's prepare and oltp_insert send
// to an in-process server on a Pebble store (benchServer): the sbtest
// table as sysbench creates it (AUTO_INCREMENT id, k, CHAR(120) c, CHAR(60)
// pad), then
//
//   - op=bulk1000: prepare's multi-row INSERT INTO sbtest1(k, c, pad)
//     VALUES (...), ... of 1,000 rows with generated ids;
//   - op=insert: oltp_insert's single-row INSERT with an explicit id;
//
// each without and with the secondary index k_1(k) (sysbench's
// --create_secondary, a global index in sqlgw). It reports store requests
// and time per row, so that a profile (-cpuprofile) of the INSERT path
// shows where the load time goes:
//
//	go test ./cmd/sqlgw -run '^$' -bench SysbenchLoad -benchtime 20x -cpuprofile /tmp/load.prof
func BenchmarkSysbenchLoad(b *testing.B) {
	db := benchServer(b)
	sqltest.NewRunner(b, db).Exec("CREATE DATABASE sb")
	rng := rand.New(rand.NewPCG(1, 2))
	text := func(groups int) string { return sysbenchText(rng, groups) }
	for _, secondary := range []bool{false, true} {
		name := "sb.plain"
		if secondary {
			name = "sb.indexed"
		}
		sqltest.NewRunner(b, db).Exec("CREATE TABLE " + name + "(id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' NOT NULL, c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id))")
		if secondary {
			sqltest.NewRunner(b, db).Exec("CREATE INDEX k_1 ON " + name + "(k)")
		}
		sub := fmt.Sprintf("secondary=%v", secondary)
		const rows = 1000
		b.Run(sub+"/op=bulk1000", func(b *testing.B) {
			stmts := make([]string, b.N)
			for i := range stmts {
				var sb strings.Builder
				sb.WriteString("INSERT INTO " + name + "(k, c, pad) VALUES")
				for r := range rows {
					if r > 0 {
						sb.WriteByte(',')
					}
					fmt.Fprintf(&sb, "(%d, '%s', '%s')", rng.IntN(100_000)+1, text(10), text(5))
				}
				stmts[i] = sb.String()
			}
			perStmt := measure(b, db, func(i int) { sqltest.NewRunner(b, db).Exec(stmts[i]) })
			b.ReportMetric(perStmt/rows, "requests/row")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/row")
		})
		id := 10_000_000
		b.Run(sub+"/op=insert", func(b *testing.B) {
			measure(b, db, func(int) {
				id++
				sqltest.NewRunner(b, db).Exec("INSERT INTO "+name+" (id, k, c, pad) VALUES (?, ?, ?, ?)", id, rng.IntN(100_000)+1, text(10), text(5))
			})
		})
	}
}
