package main

import (
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// BenchmarkCreateIndex is the CREATE INDEX of sysbench's prepare
// (--create_secondary): the global index k_1(k) built online over 20,000
// sbtest rows on a Pebble store in a temporary directory, opened as the
// server opens it (sqltest.DiskOneUser), then dropped, per iteration (the
// DROP untimed). The backfill reads the rows a page at a time and writes
// each page's index entities with a check of every row (catalog/ixmaint
// backfillAtomic) or, no commit having run meanwhile, without
// (backfillQuiet). cpu-ns/row is the process's CPU time (user and system,
// compactions included) per row indexed; ns/op includes the wait before
// the backfill (sqlgw/engine buildIndex: this gateway's commits in
// flight, the store being its alone).
//
//	go test ./cmd/sqlgw -run '^$' -bench CreateIndex -benchtime 5x -benchmem
func BenchmarkCreateIndex(b *testing.B) {
	const rows = 20_000
	rng := rand.New(rand.NewPCG(1, 2))
	// The store as the server opens it (its gateway's alone).
	db := sqltest.StartBackend(b, sqltest.DiskOneUser, sqltest.Options{}).Open("?interpolateParams=true")
	db.SetMaxOpenConns(1)
	r := sqltest.NewRunner(b, db)
	r.ExecAll("CREATE DATABASE ci",
		"CREATE TABLE ci.sbtest1(id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' NOT NULL, c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id))")
	r.InsertRows("ci.sbtest1 (k, c, pad)", rows, 1000, func(int) string {
		return fmt.Sprintf("(%d, '%s', '%s')", rng.IntN(rows)+1, sysbenchText(rng, 10), sysbenchText(rng, 5))
	})
	cpu := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			b.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	var used time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c0 := cpu()
		r.Exec("CREATE INDEX k_1 ON ci.sbtest1(k)")
		used += cpu() - c0
		b.StopTimer()
		r.Exec("DROP INDEX k_1 ON ci.sbtest1")
		b.StartTimer()
	}
	b.ReportMetric(float64(used.Nanoseconds())/float64(b.N*rows), "cpu-ns/row")
}
