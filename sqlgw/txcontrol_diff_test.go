package sqlgw_test

import (
	"context"
	gosql "database/sql"
	"encoding/binary"
	"fmt"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw"
	"github.com/sqlgw/sqlgw/sqlgw/engine"
)

// response reads a command's whole answer: an OK or error packet, or a
// result set (column count, definitions, EOF, rows, EOF), every packet's
// bytes quoted.
func (r *rawConn) response() string {
	r.t.Helper()
	first := r.read()
	out := []string{fmt.Sprintf("%q", first)}
	if first[0] == 0x00 || first[0] == 0xff {
		return out[0]
	}
	for eofs := 0; eofs < 2; {
		p := r.read()
		if p[0] == 0xfe && len(p) < 9 {
			eofs++
		}
		out = append(out, fmt.Sprintf("%q", p))
	}
	return strings.Join(out, " ")
}

// prepareRaw prepares q (COM_STMT_PREPARE) and returns its statement id
// and the answer.
func (r *rawConn) prepareRaw(q string) (uint32, string) {
	r.t.Helper()
	r.command(append([]byte{0x16}, q...)...)
	ok := r.read()
	if ok[0] != 0 {
		return 0, fmt.Sprintf("%q", ok)
	}
	out := []string{fmt.Sprintf("%q", ok)}
	cols, params := binary.LittleEndian.Uint16(ok[5:7]), binary.LittleEndian.Uint16(ok[7:9])
	for _, n := range []uint16{params, cols} {
		for i := 0; i < int(n); i++ {
			out = append(out, fmt.Sprintf("%q", r.read()))
		}
		if n > 0 {
			out = append(out, fmt.Sprintf("%q", r.read())) // EOF
		}
	}
	return binary.LittleEndian.Uint32(ok[1:5]), strings.Join(out, " ")
}

// executeRaw executes prepared statement id, which has no parameters
// (COM_STMT_EXECUTE), and returns the answer.
func (r *rawConn) executeRaw(id uint32) string {
	r.t.Helper()
	b := []byte{0x17}
	b = binary.LittleEndian.AppendUint32(b, id)
	b = append(b, 0)                           // no cursor
	b = binary.LittleEndian.AppendUint32(b, 1) // iteration count
	r.command(b...)
	return r.response()
}

// TestTxControlDifferential: a prepared BEGIN, START TRANSACTION and
// COMMIT run without go-mysql-server's executor (sqlgw/engine/txcontrol.go)
// answer exactly as go-mysql-server's path (Config.NoDirect) and the
// gateway without the plan cache: every byte of each answer (the OK
// packet's affected rows, insert id, status flags: autocommit and in
// transaction, warning count, info) and of the statements that look at
// what they leave behind (ROW_COUNT(), FOUND_ROWS(), LAST_INSERT_ID(),
// SHOW WARNINGS, @@last_plan_from_cache, Questions and the Com_ counters,
// the plan cache's counters, the rows a transaction sees and commits),
// with autocommit on and off, a transaction with reads only, one with
// writes (BEGIN's implicit commit and COMMIT then take go-mysql-server's
// path), nested BEGINs, a COMMIT without a transaction, and BEGIN READ
// ONLY (not taken).
func TestTxControlDifferential(t *testing.T) {
	const (
		planCounters = "SHOW SESSION STATUS WHERE Variable_name IN ('Plan_cache_hits', 'Plan_cache_misses')"
		// @@last_plan_from_cache last: the gateway without the plan
		// cache always says 0, and its answer is compared without it
		// (fromCache).
		lookVars = "SELECT ROW_COUNT(), FOUND_ROWS(), LAST_INSERT_ID(), @@autocommit, @@last_plan_from_cache"
	)
	fromCache := regexp.MustCompile(`\\x01[01]" "\\xfe`)
	names := []string{"direct", "plan cache without direct execution", "no plan cache"}
	cfgs := []func(*sqlgw.Config){nil, func(c *sqlgw.Config) { c.NoDirect = true }, func(c *sqlgw.Config) { c.NoPlanCache = true }}
	conns := make([]*rawConn, len(cfgs))
	for i, set := range cfgs {
		conns[i] = dialRaw(t, startConfigured(t, set).Addr().String(), "root", "")
	}
	// Prepared statements, by name in the steps ("ps:NAME").
	prepared := map[string]string{
		"begin":  "BEGIN",
		"start":  "START TRANSACTION",
		"commit": "COMMIT",
		"ro":     "START TRANSACTION READ ONLY",
		"get":    "SELECT c FROM t WHERE id = 1",
		"range":  "SELECT c FROM t WHERE id BETWEEN 1 AND 3",
		"ins":    "INSERT INTO t VALUES (10, 'p')",
		"del":    "DELETE FROM t WHERE id = 10",
	}
	look := []string{
		lookVars,
		"SHOW SESSION STATUS WHERE Variable_name IN ('Questions', 'Com_select', 'Com_insert', 'Com_delete', 'Com_begin', 'Com_commit', 'Com_rollback')",
		// (The gateway without the plan cache counts no hits or misses.)
		planCounters,
	}
	setup := []string{
		"CREATE DATABASE tc", "USE tc",
		"CREATE TABLE t (id INT PRIMARY KEY, c VARCHAR(10))",
		"CREATE TABLE a (id INT AUTO_INCREMENT PRIMARY KEY, v INT)",
		"INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')",
	}
	var steps []string
	for round := 0; round < 2; round++ {
		steps = append(steps,
			// A read-only transaction, as sysbench's oltp_read_only.
			"ps:begin", "ps:get", "ps:range", "ps:get", "ps:commit",
			"ps:begin", "ps:range", "ps:commit", "ps:commit",
			// What BEGIN and COMMIT leave: ROW_COUNT() after an INSERT,
			// FOUND_ROWS() after SQL_CALC_FOUND_ROWS, LAST_INSERT_ID(),
			// warnings, @@last_plan_from_cache after a cached read.
			"INSERT INTO a (v) VALUES (1), (2)", "ps:begin", "ps:get", "ps:commit",
			"INSERT INTO a (v) VALUES (3)", "ps:begin", "SHOW WARNINGS", "ps:commit",
			"SELECT SQL_CALC_FOUND_ROWS id FROM t LIMIT 1", "ps:begin",
			"SELECT SQL_CALC_FOUND_ROWS id FROM t LIMIT 1", "ps:commit",
			"SELECT CAST('1x' AS SIGNED)", "ps:begin!", "SHOW WARNINGS", "SELECT CAST('1x' AS SIGNED)", "ps:commit!", "SHOW WARNINGS",
			"SELECT CAST('1x' AS SIGNED)", "ps:begin!", "SHOW COUNT(*) WARNINGS", "SELECT CAST('1x' AS SIGNED)", "ps:commit!", "SELECT @@warning_count",
			"SELECT CAST('1x' AS SIGNED)", "ps:begin", "SHOW WARNINGS",
			"ps:get", "ps:get", "ps:commit", "ps:get", "ps:begin", "ps:commit",
			// Nested BEGINs: each commits the one before.
			"ps:begin", "ps:begin", "ps:get", "ps:start", "ps:commit", "ps:commit",
			// Writes in the transaction: BEGIN's implicit commit and the
			// COMMIT run the store commit (go-mysql-server's path), their
			// rows visible after.
			"ps:begin", "ps:ins", "ps:begin", "SELECT * FROM t ORDER BY id", "ps:del", "ps:commit", "SELECT * FROM t ORDER BY id",
			"ps:begin", "INSERT INTO t VALUES (11, 'q')", "ps:commit", "SELECT * FROM t ORDER BY id", "DELETE FROM t WHERE id = 11",
			// READ ONLY: not taken; then a BEGIN after it.
			"ps:ro", "ps:get", "ps:begin", "ps:commit", "ps:ro", "ps:commit",
			// autocommit off: COMMIT ends the transaction the reads began.
			"SET autocommit = 0", "ps:get", "ps:commit", "ps:commit", "ps:begin", "ps:get", "ps:commit",
			"ps:ins", "ps:commit", "ps:del", "ps:begin", "ps:commit", "SET autocommit = 1",
		)
	}
	ids := make([]map[string]uint32, len(conns))
	for i, r := range conns {
		ids[i] = map[string]uint32{}
		for _, q := range setup {
			if _, msg := r.query(q); msg != "" {
				t.Fatalf("%s on %s: %s", q, names[i], msg)
			}
		}
	}
	for name, q := range prepared {
		var answers []string
		for i, r := range conns {
			id, a := r.prepareRaw(q)
			ids[i][name] = id
			answers = append(answers, a)
		}
		if answers[0] != answers[1] || answers[0] != answers[2] {
			t.Fatalf("prepare %s:\n%s", q, strings.Join(answers, "\n"))
		}
	}
	n0 := engine.TxControlCount()
	for si, step := range steps {
		// What a text statement leaves is looked at after the prepared
		// statement that follows it; a step ending in "!" is not looked
		// at (the look's statements clear the warnings).
		step, quiet := strings.CutSuffix(step, "!")
		run := []string{step}
		if strings.HasPrefix(step, "ps:") && !quiet {
			run = append(run, look...)
		}
		for _, q := range run {
			var answers []string
			for i, r := range conns {
				if name, ok := strings.CutPrefix(q, "ps:"); ok {
					answers = append(answers, r.executeRaw(ids[i][name]))
				} else {
					r.command(append([]byte{0x03}, q...)...)
					answers = append(answers, r.response())
				}
			}
			general := answers[0] != answers[2]
			switch q {
			case planCounters:
				general = false
			case lookVars:
				general = fromCache.ReplaceAllString(answers[0], "") != fromCache.ReplaceAllString(answers[2], "")
			}
			if answers[0] != answers[1] || general {
				t.Errorf("step %d %s, then %s:", si, step, q)
				for i, a := range answers {
					t.Errorf("  %s: %s", names[i], a)
				}
			}
		}
	}
	n := engine.TxControlCount() - n0
	t.Logf("%d BEGINs and COMMITs ran without go-mysql-server's executor", n)
	if n < 60 {
		t.Errorf("only %d BEGINs and COMMITs ran without go-mysql-server's executor", n)
	}
}

// BenchmarkTxControl: a prepared BEGIN and COMMIT of an empty
// transaction, one pair per op, run without go-mysql-server's executor
// (direct, sqlgw/engine/txcontrol.go) and through it (executor,
// Config.NoDirect), in one process over go-sql-driver: compare the two
// sub-benchmarks of one run (-count alternates them).
func BenchmarkTxControl(b *testing.B) {
	for _, mode := range []struct {
		name     string
		noDirect bool
	}{{"direct", false}, {"executor", true}} {
		b.Run(mode.name, func(b *testing.B) {
			srv := memoryServer(b, sqlgw.Config{NoDirect: mode.noDirect})
			db, err := gosql.Open("mysql", fmt.Sprintf("root@tcp(%s)/", srv.Addr()))
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			ctx := context.Background()
			conn, err := db.Conn(ctx)
			if err != nil {
				b.Fatal(err)
			}
			defer conn.Close()
			begin, err := conn.PrepareContext(ctx, "BEGIN")
			if err != nil {
				b.Fatal(err)
			}
			commit, err := conn.PrepareContext(ctx, "COMMIT")
			if err != nil {
				b.Fatal(err)
			}
			n0 := engine.TxControlCount()
			b.ReportAllocs()
			var ru0 syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
			b.ResetTimer()
			for b.Loop() {
				if _, err := begin.ExecContext(ctx); err != nil {
					b.Fatal(err)
				}
				if _, err := commit.ExecContext(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			// cpu-µs/op: the process's CPU time (client included), which
			// other load on the machine moves less than ns/op.
			var ru1 syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
			cpu := ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano()
			b.ReportMetric(float64(cpu)/1e3/float64(b.N), "cpu-µs/op")
			b.ReportMetric(float64(engine.TxControlCount()-n0)/float64(b.N), "direct/op")
		})
	}
}
