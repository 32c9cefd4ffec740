package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/sqlgw"
	"github.com/sqlgw/sqlgw/sqlgw/engine"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage/pebble"
)

// BenchmarkOLTP tracks the per-statement cost of sysbench's OLTP shapes
// (issue 13) in one process, wire included: an in-process server on a
// Pebble store in a temporary directory, one go-sql-driver/mysql
// connection over TCP, the sbtest1 table of sysbench (10,000 rows, with
// its secondary index k_1). Sub-benchmarks:
//
//   - point_select/ps: oltp_point_select, SELECT c FROM sbtest1 WHERE id=?
//     as a server-side prepared statement (COM_STMT_EXECUTE), as sysbench
//     sends it;
//   - point_select/text: the same statement as text (COM_QUERY);
//   - read_only_ranges/ps: oltp_read_only's four 100-row range queries on
//     id (plain, SUM, ORDER BY, DISTINCT + ORDER BY), prepared, in turn;
//   - range/{simple,sum,order,distinct}/ps: each of the four, alone;
//   - read_only/tx: one whole oltp_read_only transaction (BEGIN, ten
//     point selects, the four ranges, COMMIT), prepared;
//   - insert/ps: oltp_insert's single-row autocommit INSERT, prepared;
//   - insert/text: the same as text with id 0, as sysbench sends it;
//   - update_index/ps: oltp_update_index, UPDATE sbtest1 SET k=k+1 WHERE
//     id=? (k_1 maintained), prepared;
//   - update_non_index/ps: oltp_update_non_index, UPDATE sbtest1 SET c=?
//     WHERE id=?, prepared.
//
// The store is opened as `sqlgw serve` opens it, row cache included
// (SQLGW_BENCH_ROWCACHE=0: without it).
//
// writes/op is the share of writes run from a cached plan
// (Plan_cache_writes, sqlgw/engine/directwrite.go; absent in builds
// without it).
//
// cachehits/op is the share of executes served from the plan cache
// (sqlgw/engine/plancache.go), direct/op the share executed directly
// (sqlgw/engine/direct.go); SQLGW_BENCH_NODIRECT=1 turns direct execution
// off (Config.NoDirect), for an A/B in one build; SQLGW_BENCH_GCPACING=0
// runs without serve's garbage collector pacing (gctune.go). random_points/ps is
// select_random_points (ten values of k IN a list, through k_1), with
// uniform values; random_points_special/ps draws them as sysbench's default
// distribution does (duplicates among them now and then).
//
// allocs/op and B/op count the whole process, the client driver's
// allocations included (a few dozen per statement), so compare them
// between builds, not against zero. requests/op is the session's store
// request counter.
//
//	go test ./cmd/sqlgw -run '^$' -bench OLTP -benchmem -benchtime 20000x
func BenchmarkOLTP(b *testing.B) {
	db := oltpServer(b)
	const rows = 10_000
	sqltest.NewRunner(b, db).Exec("CREATE DATABASE sbtest")
	sqltest.NewRunner(b, db).Exec("CREATE TABLE sbtest.sbtest1(id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' NOT NULL, c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id))")
	rng := rand.New(rand.NewPCG(1, 2))
	text := func(groups int) string { return sysbenchText(rng, groups) }
	for start := 0; start < rows; start += 1000 {
		var sb strings.Builder
		sb.WriteString("INSERT INTO sbtest.sbtest1(k, c, pad) VALUES")
		for r := range 1000 {
			if r > 0 {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, "(%d, '%s', '%s')", rng.IntN(rows)+1, text(10), text(5))
		}
		sqltest.NewRunner(b, db).Exec(sb.String())
	}
	sqltest.NewRunner(b, db).Exec("CREATE INDEX k_1 ON sbtest.sbtest1(k)")
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "USE sbtest"); err != nil {
		b.Fatal(err)
	}

	b.Run("point_select/ps", func(b *testing.B) {
		stmt, err := conn.PrepareContext(ctx, "SELECT c FROM sbtest1 WHERE id=?")
		if err != nil {
			b.Fatal(err)
		}
		defer stmt.Close()
		var c string
		b.ReportAllocs()
		h0, d0 := oltpStatus(b, conn, "Plan_cache_hits"), oltpStatus(b, conn, "Plan_cache_direct")
		oltpMeasure(b, conn, func(int) {
			if err := stmt.QueryRowContext(ctx, rng.IntN(rows)+1).Scan(&c); err != nil {
				b.Fatal(err)
			}
		})
		b.ReportMetric(float64(oltpStatus(b, conn, "Plan_cache_hits")-h0)/float64(b.N), "cachehits/op")
		b.ReportMetric(float64(oltpStatus(b, conn, "Plan_cache_direct")-d0)/float64(b.N), "direct/op")
	})
	randomPoints := func(value func() int) func(b *testing.B) {
		return func(b *testing.B) {
			// select_random_points: ten values of k through the global index k_1.
			stmt, err := conn.PrepareContext(ctx, "SELECT id, k, c, pad FROM sbtest1 WHERE k IN (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
			if err != nil {
				b.Fatal(err)
			}
			defer stmt.Close()
			b.ReportAllocs()
			h0, d0 := oltpStatus(b, conn, "Plan_cache_hits"), oltpStatus(b, conn, "Plan_cache_direct")
			args := make([]any, 10)
			oltpMeasure(b, conn, func(int) {
				for i := range args {
					args[i] = value()
				}
				rs, err := stmt.QueryContext(ctx, args...)
				if err != nil {
					b.Fatal(err)
				}
				for rs.Next() {
				}
				if err := rs.Err(); err != nil {
					b.Fatal(err)
				}
				rs.Close()
			})
			b.ReportMetric(float64(oltpStatus(b, conn, "Plan_cache_hits")-h0)/float64(b.N), "cachehits/op")
			b.ReportMetric(float64(oltpStatus(b, conn, "Plan_cache_direct")-d0)/float64(b.N), "direct/op")
		}
	}
	b.Run("random_points/ps", randomPoints(func() int { return rng.IntN(rows) + 1 }))
	// sysbench's default "special" distribution: three values in four
	// from 1% of the range (its middle), so that about one statement in
	// nine has a duplicate among its ten values.
	b.Run("random_points_special/ps", randomPoints(func() int {
		if rng.IntN(4) < 3 {
			return rows/2 + rng.IntN(rows/100)
		}
		return rng.IntN(rows) + 1
	}))
	b.Run("point_select/text", func(b *testing.B) {
		var c string
		b.ReportAllocs()
		oltpMeasure(b, conn, func(int) {
			if err := conn.QueryRowContext(ctx, fmt.Sprintf("SELECT c FROM sbtest1 WHERE id=%d", rng.IntN(rows)+1)).Scan(&c); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("read_only_ranges/ps", func(b *testing.B) {
		// oltp_read_only's four range queries (100 rows each).
		var stmts []*sql.Stmt
		for _, q := range []string{
			"SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?",
			"SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN ? AND ?",
			"SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c",
			"SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c",
		} {
			st, err := conn.PrepareContext(ctx, q)
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			stmts = append(stmts, st)
		}
		b.ReportAllocs()
		h0 := oltpStatus(b, conn, "Plan_cache_hits")
		oltpMeasure(b, conn, func(i int) {
			lo := rng.IntN(rows-100) + 1
			rs, err := stmts[i%len(stmts)].QueryContext(ctx, lo, lo+99)
			if err != nil {
				b.Fatal(err)
			}
			for rs.Next() {
			}
			if err := rs.Err(); err != nil {
				b.Fatal(err)
			}
			rs.Close()
		})
		b.ReportMetric(float64(oltpStatus(b, conn, "Plan_cache_hits")-h0)/float64(b.N), "cachehits/op")
	})
	rangeStmt := func(q string) func(b *testing.B) {
		return func(b *testing.B) {
			st, err := conn.PrepareContext(ctx, q)
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			b.ReportAllocs()
			h0, d0 := oltpStatus(b, conn, "Plan_cache_hits"), oltpStatus(b, conn, "Plan_cache_direct")
			oltpMeasure(b, conn, func(int) {
				lo := rng.IntN(rows-100) + 1
				oltpDrain(b, st, lo, lo+99)
			})
			b.ReportMetric(float64(oltpStatus(b, conn, "Plan_cache_hits")-h0)/float64(b.N), "cachehits/op")
			b.ReportMetric(float64(oltpStatus(b, conn, "Plan_cache_direct")-d0)/float64(b.N), "direct/op")
		}
	}
	b.Run("range/simple/ps", rangeStmt("SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?"))
	b.Run("range/sum/ps", rangeStmt("SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN ? AND ?"))
	b.Run("range/order/ps", rangeStmt("SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c"))
	b.Run("range/distinct/ps", rangeStmt("SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c"))
	b.Run("read_only/tx", func(b *testing.B) {
		// One oltp_read_only transaction: BEGIN, ten point selects, the
		// four ranges, COMMIT (prepared, as sysbench sends them).
		var stmts []*sql.Stmt
		for _, q := range []string{
			"SELECT c FROM sbtest1 WHERE id=?",
			"SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?",
			"SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN ? AND ?",
			"SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c",
			"SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c",
			"BEGIN", "COMMIT",
		} {
			st, err := conn.PrepareContext(ctx, q)
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			stmts = append(stmts, st)
		}
		b.ReportAllocs()
		h0, d0 := oltpStatus(b, conn, "Plan_cache_hits"), oltpStatus(b, conn, "Plan_cache_direct")
		var c string
		oltpMeasure(b, conn, func(int) {
			if _, err := stmts[5].ExecContext(ctx); err != nil {
				b.Fatal(err)
			}
			for range 10 {
				if err := stmts[0].QueryRowContext(ctx, rng.IntN(rows)+1).Scan(&c); err != nil {
					b.Fatal(err)
				}
			}
			for _, st := range stmts[1:5] {
				lo := rng.IntN(rows-100) + 1
				oltpDrain(b, st, lo, lo+99)
			}
			if _, err := stmts[6].ExecContext(ctx); err != nil {
				b.Fatal(err)
			}
		})
		b.ReportMetric(float64(oltpStatus(b, conn, "Plan_cache_hits")-h0)/float64(b.N), "cachehits/op")
		b.ReportMetric(float64(oltpStatus(b, conn, "Plan_cache_direct")-d0)/float64(b.N), "direct/op")
	})
	b.Run("insert/ps", func(b *testing.B) {
		stmt, err := conn.PrepareContext(ctx, "INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)")
		if err != nil {
			b.Fatal(err)
		}
		defer stmt.Close()
		pads := make([][2]string, 256)
		for i := range pads {
			pads[i] = [2]string{text(10), text(5)}
		}
		id := 10_000_000 + rng.IntN(1_000_000)*1000
		w0 := oltpWrites(b, conn)
		b.ReportAllocs()
		oltpMeasure(b, conn, func(i int) {
			id++
			p := pads[i%len(pads)]
			if _, err := stmt.ExecContext(ctx, id, rng.IntN(rows)+1, p[0], p[1]); err != nil {
				b.Fatal(err)
			}
		})
		oltpReportWrites(b, conn, w0)
	})
	b.Run("insert/text", func(b *testing.B) {
		// oltp_insert as sysbench sends it: text, autocommit, id 0 (its
		// --auto_inc default: the id is generated).
		pads := make([][2]string, 256)
		for i := range pads {
			pads[i] = [2]string{text(10), text(5)}
		}
		w0 := oltpWrites(b, conn)
		b.ReportAllocs()
		oltpMeasure(b, conn, func(i int) {
			p := pads[i%len(pads)]
			q := fmt.Sprintf("INSERT INTO sbtest1 (id, k, c, pad) VALUES (%d, %d, '%s', '%s')", 0, rng.IntN(rows)+1, p[0], p[1])
			if _, err := conn.ExecContext(ctx, q); err != nil {
				b.Fatal(err)
			}
		})
		oltpReportWrites(b, conn, w0)
	})
	update := func(query string, args func() []any) func(b *testing.B) {
		return func(b *testing.B) {
			stmt, err := conn.PrepareContext(ctx, query)
			if err != nil {
				b.Fatal(err)
			}
			defer stmt.Close()
			w0 := oltpWrites(b, conn)
			b.ReportAllocs()
			oltpMeasure(b, conn, func(int) {
				if _, err := stmt.ExecContext(ctx, args()...); err != nil {
					b.Fatal(err)
				}
			})
			oltpReportWrites(b, conn, w0)
		}
	}
	b.Run("update_index/ps", update("UPDATE sbtest1 SET k=k+1 WHERE id=?", func() []any { return []any{rng.IntN(rows) + 1} }))
	b.Run("update_non_index/ps", update("UPDATE sbtest1 SET c=? WHERE id=?", func() []any { return []any{text(10), rng.IntN(rows) + 1} }))
}

// oltpDrain runs the query st with args and reads all its rows.
func oltpDrain(b *testing.B, st *sql.Stmt, args ...any) {
	b.Helper()
	rs, err := st.QueryContext(context.Background(), args...)
	if err != nil {
		b.Fatal(err)
	}
	for rs.Next() {
	}
	if err := rs.Err(); err != nil {
		b.Fatal(err)
	}
	rs.Close()
}

// oltpWrites returns the session's Plan_cache_writes, or -1 in a build
// without it.
func oltpWrites(b *testing.B, conn *sql.Conn) int64 {
	b.Helper()
	var name string
	var n int64
	if err := conn.QueryRowContext(context.Background(), "SHOW SESSION STATUS LIKE 'Plan_cache_writes'").Scan(&name, &n); err != nil {
		return -1
	}
	return n
}

// oltpReportWrites reports writes/op since w0 (oltpWrites).
func oltpReportWrites(b *testing.B, conn *sql.Conn, w0 int64) {
	b.Helper()
	if w0 >= 0 {
		b.ReportMetric(float64(oltpWrites(b, conn)-w0)/float64(b.N), "writes/op")
	}
}

// oltpServer is benchServer without interpolateParams: prepared
// statements are server-side (COM_STMT_PREPARE / COM_STMT_EXECUTE), as
// sysbench sends them.
func oltpServer(b *testing.B) *sql.DB {
	b.Helper()
	// As serve opens it (main.go): this gateway's alone, with the default
	// row cache; SQLGW_BENCH_ROWCACHE=0 turns the cache off.
	opts := &pebble.Options{OneUser: true, RowCacheSize: pebble.DefaultRowCacheSize()}
	if os.Getenv("SQLGW_BENCH_ROWCACHE") == "0" {
		opts.RowCacheSize = 0
	}
	st, err := pebble.Open(b.TempDir(), opts)
	if err != nil {
		b.Fatal(err)
	}
	srv, err := sqlgw.NewServer(context.Background(), sqlgw.Config{
		Listen: "127.0.0.1:0", Store: st, StoreName: "bench",
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
		NoDirect: os.Getenv("SQLGW_BENCH_NODIRECT") == "1",
	})
	if err != nil {
		b.Fatal(err)
	}
	if os.Getenv("SQLGW_BENCH_GCPACING") != "0" {
		b.Cleanup(startGCPacing()) // as serve does (gctune.go)
	}
	go srv.Serve()
	b.Cleanup(func() { srv.Close(context.Background()) })
	db, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/", srv.Addr()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

// oltpStatus returns a session status counter.
func oltpStatus(b *testing.B, conn *sql.Conn, name string) int64 {
	b.Helper()
	var n int64
	if err := conn.QueryRowContext(context.Background(), "SHOW SESSION STATUS LIKE '"+name+"'").Scan(&name, &n); err != nil {
		b.Fatal(err)
	}
	return n
}

// oltpMeasure runs op b.N times on conn and reports the session's store
// requests and CPU time (cpu-µs/op: processCPU) per op.
func oltpMeasure(b *testing.B, conn *sql.Conn, op func(i int)) {
	b.Helper()
	count := func() int64 {
		var name string
		var n int64
		if err := conn.QueryRowContext(context.Background(), "SHOW SESSION STATUS LIKE 'Sqlgw_store_requests'").Scan(&name, &n); err != nil {
			b.Fatal(err)
		}
		return n
	}
	r0 := count()
	bound0, _ := engine.BoundPlanCounts()
	cpu0 := processCPU()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		op(i)
	}
	b.StopTimer()
	// cpu-µs/op: the process's CPU time (user and system, client driver
	// included) per op, less sensitive than ns/op to other load on a
	// shared machine; compare it between builds.
	b.ReportMetric(float64(processCPU()-cpu0)/float64(time.Microsecond)/float64(b.N), "cpu-µs/op")
	b.ReportMetric(float64(count()-r0)/float64(b.N), "requests/op")
	// bound/op: executes whose access path was bound into the cached one
	// instead of re-planned (sqlgw/engine/boundplan.go).
	bound1, _ := engine.BoundPlanCounts()
	b.ReportMetric(float64(bound1-bound0)/float64(b.N), "bound/op")
}

// sysbenchText is sysbench's c and pad: groups of 11 random digits
// separated by '-'.
func sysbenchText(rng *rand.Rand, groups int) string {
	var sb strings.Builder
	for g := range groups {
		if g > 0 {
			sb.WriteByte('-')
		}
		fmt.Fprintf(&sb, "%011d", rng.Uint64()%100_000_000_000)
	}
	return sb.String()
}
