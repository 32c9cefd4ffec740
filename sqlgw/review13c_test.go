package sqlgw_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/sqlgw"
	"github.com/sqlgw/sqlgw/sqlgw/engine"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage/pebble"
)

// TestReview13cDupCollationEqualSecondRow: two collation-equal values in
// one multi-row INSERT under a unique column: MySQL's 1062 names the
// second row's value (the one that collided), on every path.
func TestReview13cDupCollationEqualSecondRow(t *testing.T) {
	direct := insertDiffConn(t, sqlgw.Config{})
	cached := insertDiffConn(t, sqlgw.Config{NoDirect: true})
	general := insertDiffConn(t, sqlgw.Config{NoPlanCache: true})
	steps := []string{
		"CREATE DATABASE rc", "USE rc",
		"CREATE TABLE cu (id INT PRIMARY KEY, u VARCHAR(10) COLLATE utf8mb4_0900_ai_ci, UNIQUE KEY uu (u))",
		"INSERT INTO cu VALUES (1, 'xyz'), (2, 'XyZ')",
		"INSERT INTO cu VALUES (3, 'abc'), (4, 'b'), (5, 'ABC')",
		"INSERT INTO cu VALUES (1, 'q'), (1, 'r')",
		"CREATE TABLE cp (id VARCHAR(10) COLLATE utf8mb4_0900_ai_ci PRIMARY KEY, v INT)",
		"INSERT INTO cp VALUES ('xyz', 1), ('XyZ', 2)",
		"CREATE TABLE cm (id INT PRIMARY KEY, a INT, u VARCHAR(10) COLLATE utf8mb4_0900_ai_ci, UNIQUE KEY au (a, u))",
		"INSERT INTO cm VALUES (1, 1, 'xyz'), (2, 1, 'XYZ')",
		"SELECT COUNT(*) FROM cu", "SELECT COUNT(*) FROM cp", "SELECT COUNT(*) FROM cm",
		// A stored value met before the pair, after it, by its first row.
		"INSERT INTO cu VALUES (9, 'q')",
		"INSERT INTO cu VALUES (10, 'xyz'), (11, 'Q'), (12, 'XyZ')",
		"INSERT INTO cu VALUES (13, 'xyz'), (14, 'XYZ'), (15, 'q')",
		"INSERT INTO cu VALUES (16, 'Q'), (17, 'q')",
		// Inside a transaction, INSERT IGNORE, NULLs.
		"BEGIN", "INSERT INTO cu VALUES (20, 'm'), (21, 'M')", "INSERT INTO cu VALUES (22, 'n')", "INSERT INTO cu VALUES (23, 'N')", "COMMIT",
		"INSERT IGNORE INTO cu VALUES (24, 'ig'), (25, 'IG'), (26, 'iG')",
		"INSERT INTO cu VALUES (27, NULL), (28, NULL)",
		"SELECT * FROM cu ORDER BY id",
	}
	want := map[int]string{3: "'XyZ' for key 'cu.uu'", 4: "'ABC' for key 'cu.uu'", 5: "'1' for key 'cu.PRIMARY'", 7: "'XyZ' for key 'cp.PRIMARY'", 9: "'1-XYZ' for key 'cm.au'",
		14: "'Q' for key 'cu.uu'", 15: "'XYZ' for key 'cu.uu'", 16: "'Q' for key 'cu.uu'", 18: "'M' for key 'cu.uu'", 20: "'N' for key 'cu.uu'", 22: "'IG' for key 'cu.uu'"}
	for i, q := range steps {
		a, b, c := writeRun(direct, q), writeRun(cached, q), writeRun(general, q)
		if w, ok := want[i]; ok {
			for n, r := range map[string]string{"direct": a, "cached": b, "general": c} {
				if !strings.Contains(r, w) {
					t.Errorf("step %d %s: %s\n%s: want %s", i, q, n, r, w)
				}
			}
		}
		if a != b || a != c {
			t.Errorf("step %d: %s\ndirect:\n%s\ncached:\n%s\ngeneral:\n%s", i, q, a, b, c)
		}
	}
}

// TestReview13cNonAtomicFirstRowDuplicate: a multi-row INSERT holding a
// row larger than one batch commits batch by batch (engine/txn.go,
// commitTable: the path that bypasses the atomic commit), the batches of
// different partitions in parallel. When several rows hit stored keys,
// the 1062 must name the first of them in statement order, as MySQL does,
// not whichever batch's failure arrived first.
func TestReview13cNonAtomicFirstRowDuplicate(t *testing.T) {
	for _, cfg := range []sqlgw.Config{{}, {NoPlanCache: true}} {
		c := insertDiffConn(t, cfg)
		writeRun(c, "CREATE DATABASE IF NOT EXISTS na")
		writeRun(c, "USE na")
		writeRun(c, "CREATE TABLE nb (id INT PRIMARY KEY, v LONGTEXT)")
		var sb strings.Builder
		sb.WriteString("INSERT INTO nb VALUES ")
		for i := 1; i <= 40; i++ {
			if i > 1 {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, "(%d, 'v%d')", i, i)
		}
		if r := writeRun(c, sb.String()); strings.Contains(r, "error") {
			t.Fatal(r)
		}
		// Rows 1..40 again, then one row over batchBytes: the commit
		// takes commitTable; every batch fails with a duplicate.
		sb.WriteString(", (1000, REPEAT('x', 2200000))")
		for i := 0; i < 20; i++ {
			r := writeRun(c, sb.String())
			if !strings.Contains(r, "Duplicate entry '1' for key 'nb.PRIMARY'") {
				t.Fatalf("plan cache off %v, try %d: %s", cfg.NoPlanCache, i, r)
			}
		}
		if r := writeRun(c, "SELECT COUNT(*) FROM nb"); !strings.Contains(r, "INT64(40)") {
			t.Fatalf("rows after the failed INSERTs: %s", r)
		}
	}
}

// TestReview13cCreateIndexSecondGatewayWrapped: two gateways of one
// process on one embedded store, B's through a wrapper (faultstore, as
// sqltest's Fault option gives it): B's writers must see A's new index
// before A's backfill passes their rows. A gateway that is the store's
// only Claimer is not necessarily its only user: B, through a wrapper,
// cannot claim. An INSERT on B right after A's CREATE INDEX returns, with
// B's catalog cache still fresh, must be found through the index.
func TestReview13cCreateIndexSecondGatewayWrapped(t *testing.T) {
	store, err := pebble.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	co := catalog.Options{RefreshInterval: 2 * time.Second}
	a := sqltest.Start(t, store, sqltest.Options{Catalog: co}) // closes store
	ra := sqltest.NewRunner(t, a.DB)
	ra.ExecAll("CREATE DATABASE cg", "CREATE TABLE cg.t (id INT PRIMARY KEY, k INT)", "INSERT INTO cg.t VALUES (1, 7), (2, 8)")
	b := sqltest.Start(t, sqltest.NoClose(store), sqltest.Options{Catalog: co, Fault: true})
	rb := sqltest.NewRunner(t, b.DB)
	rb.ExpectRows("SELECT COUNT(*) FROM cg.t", "2")
	ra.Exec("CREATE INDEX k_1 ON cg.t (k)")
	rb.Exec("INSERT INTO cg.t VALUES (3, 7)")
	ra.ExpectRows("SELECT id FROM cg.t IGNORE INDEX (k_1) WHERE k = 7 ORDER BY id", "1", "3")
	ra.ExpectRows("SELECT id FROM cg.t FORCE INDEX (k_1) WHERE k = 7 ORDER BY id", "1", "3")
}

// TestReview13cInListVariants: prepared and text IN lists on a global
// index, the primary key and a unique index, executed again and again
// with other numbers of distinct values (duplicates, values equal under
// the column's collation or after conversion, NULLs), against a server
// with the plan cache (its index template variants, h7points) and one
// without; inside a transaction with its own writes too. Everything a
// client sees must agree.
func TestReview13cInListVariants(t *testing.T) {
	fast, slow := diffServer(t, false), diffServer(t, true)
	both := func(q string, args ...any) {
		t.Helper()
		a, b := diffRun(fast, q, args...), diffRun(slow, q, args...)
		if a != b {
			t.Fatalf("%s %v\nwith the plan cache:\n%s\nwithout:\n%s", q, args, a, b)
		}
	}
	for _, q := range []string{
		"CREATE DATABASE iv", "USE iv",
		`CREATE TABLE t (id INT PRIMARY KEY, k INT, s VARCHAR(10) COLLATE utf8mb4_0900_ai_ci, u VARCHAR(10) COLLATE utf8mb4_general_ci,
			b VARBINARY(5), KEY k_1 (k), KEY s_1 (s), UNIQUE KEY u_1 (u), KEY b_1 (b))`,
	} {
		both(q)
	}
	words := []string{"a", "A", "a ", "b", "é", "E", "ß", "ss", "x"}
	for i := 1; i <= 60; i++ {
		var k any = i % 7
		if i%11 == 0 {
			k = nil
		}
		both("INSERT INTO t VALUES (?, ?, ?, ?, ?)", i, k, words[i%len(words)], fmt.Sprintf("u%d", i), fmt.Sprintf("b%d", i%5))
	}
	both("INSERT INTO t VALUES (100, 3, 'Q', 'Mixed', 'B1')")
	sets := [][]any{
		{1, 2, 3, 4, 5, 6, 0, 8, 9, 10},
		{1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
		{1, 2, 1, 2, 1, 2, 3, 3, 3, 3},
		{nil, 1, nil, 2, nil, 3, nil, 4, nil, 5},
		{nil, nil, nil, nil, nil, nil, nil, nil, nil, nil},
		{"1", 1, "1.0", 1.0, " 1", "01", 2, "2x", 3, 3},
		{1.5, 2.0, -1, 9223372036854775807, "abc", 0, 0, 0, 6, 6},
		{6, 5, 4, 3, 2, 1, 0, 7, 8, 9},
	}
	strs := [][]any{
		{"a", "A", "a ", "b", "B", "é", "e", "E", "ß", "ss"},
		{"a", "a", "a", "a", "a", "a", "a", "a", "a", "a"},
		{"A", "a", "A", "a", "q", "Q", "x", "X", nil, nil},
		{"u1", "U1", "u1 ", "u2", "mixed", "MIXED", "u3", "u3", "u60", "u61"},
		{"b1", "B1", "b2", "b2", "b1 ", "b3", "b4", "b0", nil, "b1"},
	}
	qs := []string{
		"SELECT id, k FROM t WHERE k IN (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ORDER BY id",
		"SELECT COUNT(*), SUM(k) FROM t WHERE k IN (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		"SELECT DISTINCT k FROM t WHERE k IN (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ORDER BY k",
		"SELECT id, k FROM t WHERE id IN (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ORDER BY id",
		"SELECT id, k FROM t WHERE k IN (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) AND id > 10 ORDER BY id DESC LIMIT 5",
	}
	sqs := []string{
		"SELECT id, s FROM t WHERE s IN (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ORDER BY id",
		"SELECT id, u FROM t WHERE u IN (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ORDER BY id",
		"SELECT id, b FROM t WHERE b IN (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ORDER BY id",
		"SELECT COUNT(*) FROM t WHERE s IN (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	}
	run := func() {
		for round := 0; round < 2; round++ {
			for _, q := range qs {
				for _, a := range sets {
					both(q, a...)
				}
			}
			for _, q := range sqs {
				for _, a := range strs {
					both(q, a...)
				}
			}
		}
		// The same shapes as text (the normalized text's template).
		for _, a := range sets {
			var parts []string
			for _, v := range a {
				switch v := v.(type) {
				case nil:
					parts = append(parts, "NULL")
				case string:
					parts = append(parts, "'"+v+"'")
				default:
					parts = append(parts, fmt.Sprint(v))
				}
			}
			both("SELECT id, k FROM t WHERE k IN (" + strings.Join(parts, ", ") + ") ORDER BY id")
			both("SELECT id FROM t WHERE id IN (" + strings.Join(parts, ", ") + ") ORDER BY id")
		}
		for _, a := range strs {
			var parts []string
			for _, v := range a {
				if v == nil {
					parts = append(parts, "NULL")
				} else {
					parts = append(parts, "'"+v.(string)+"'")
				}
			}
			both("SELECT id, s FROM t WHERE s IN (" + strings.Join(parts, ", ") + ") ORDER BY id")
			both("SELECT id, u FROM t WHERE u IN (" + strings.Join(parts, ", ") + ") ORDER BY id")
		}
	}
	run()
	// A transaction's own writes, moving rows between the listed values.
	for _, q := range []string{"BEGIN", "UPDATE t SET k = 1, s = 'A', u = 'new' WHERE id = 5", "DELETE FROM t WHERE id = 1",
		"INSERT INTO t VALUES (200, 2, 'a', 'U1x', 'b1')"} {
		both(q)
	}
	run()
	both("ROLLBACK")
	run()
}

// TestReview13cMultiQueryCounters: an IN list on a non-unique global
// index read through one MultiQuery (h7points) counts the session's store
// requests and entities read as the query-by-query read does.
func TestReview13cMultiQueryCounters(t *testing.T) {
	c := diffServer(t, false)
	for _, q := range []string{"CREATE DATABASE mc", "USE mc", "CREATE TABLE t (id INT PRIMARY KEY, k INT, KEY k_1 (k))"} {
		diffRun(c, q)
	}
	for i := 1; i <= 50; i++ {
		diffRun(c, "INSERT INTO t VALUES (?, ?)", i, i%9)
	}
	status := func() [2]int64 {
		var out [2]int64
		for i, v := range []string{"Sqlgw_store_requests", "Sqlgw_entities_read"} {
			var name string
			if err := c.QueryRowContext(context.Background(), "SHOW SESSION STATUS LIKE '"+v+"'").Scan(&name, &out[i]); err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	counts := func(q string, args ...any) (string, [2]int64) {
		before := status()
		out := diffRun(c, q, args...)
		after := status()
		return out, [2]int64{after[0] - before[0], after[1] - before[1]}
	}
	q := "SELECT id FROM t WHERE k IN (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ORDER BY id"
	args := []any{1, 2, 3, 3, 20, 5, 6, 7, 1, 0}
	counts(q, args...) // the plan cached
	n0 := engine.IndexMultiQueries()
	outA, a := counts(q, args...)
	if engine.IndexMultiQueries() == n0 {
		t.Fatal("the IN list was not read through a MultiQuery")
	}
	restore := engine.SetIndexMultiQuery(false)
	outB, b := counts(q, args...)
	restore()
	if outA != outB {
		t.Fatalf("rows differ:\n%s\n%s", outA, outB)
	}
	if a != b {
		t.Fatalf("store requests, entities read: %v with one MultiQuery, %v query by query", a, b)
	}
	t.Logf("store requests, entities read: %v", a)
}

// TestReview13cBackfillShapes: CREATE INDEX over existing rows (the
// backfill reads only the properties the index needs since h7prepare's
// 4efbd95 and decodes only its columns since d8ada6c) on shapes where the
// indexed values do not come from one stored property each: primary key
// columns, generated columns, a column added later with a default, a
// renamed column, a keyless table, wide rows. Reads through
// the index must equal reads without it, and CHECK TABLE must pass.
func TestReview13cBackfillShapes(t *testing.T) {
	c := diffServer(t, false)
	run := func(q string, args ...any) string {
		t.Helper()
		out := diffRun(c, q, args...)
		if strings.HasPrefix(out, "error") {
			t.Fatalf("%s: %s", q, out)
		}
		return out
	}
	run("CREATE DATABASE bs")
	run("USE bs")
	run(`CREATE TABLE t (a INT, b VARCHAR(20), k INT, s VARCHAR(30) COLLATE utf8mb4_0900_ai_ci,
		g INT AS (k * 2) VIRTUAL, gs VARCHAR(40) AS (CONCAT(b, '-', k)) STORED, w MEDIUMTEXT, PRIMARY KEY (a, b))`)
	for i := 0; i < 40; i++ {
		var k any = i % 6
		if i%9 == 0 {
			k = nil
		}
		w := fmt.Sprintf("w%d", i)
		if i%10 == 3 {
			w = strings.Repeat(fmt.Sprintf("%d", i%10), 70000) // continuation entities
		}
		run("INSERT INTO t (a, b, k, s, w) VALUES (?, ?, ?, ?, ?)", i%4, fmt.Sprintf("b%02d", i), k, []string{"x", "X", "y", "é", "e"}[i%5], w)
	}
	run("ALTER TABLE t ADD COLUMN d INT NOT NULL DEFAULT 7")
	run("ALTER TABLE t ADD COLUMN dn VARCHAR(5) DEFAULT 'dd'")
	run("UPDATE t SET d = 8 WHERE a = 1")
	run("ALTER TABLE t RENAME COLUMN s TO s2")
	idx := map[string]string{
		"i_kb":   "(k, b)",
		"i_ba":   "(b, a)",
		"i_a":    "(a)",
		"i_gs":   "(gs)",
		"i_d":    "(d)",
		"i_dn":   "(dn, k)",
		"i_s2":   "(s2)",
		"u_bk":   "(b, k)",
		"i_kbs2": "(k, s2, a)",
		"i_gs2":  "(gs, k)",
		"i_w":    "(k, a)", // wide rows' values
	}
	for name, cols := range idx {
		kind := "INDEX"
		if strings.HasPrefix(name, "u_") {
			kind = "UNIQUE INDEX"
		}
		run("CREATE " + kind + " " + name + " ON t " + cols)
	}
	probes := map[string][]string{
		"i_kb": {"k = 2", "k IS NULL", "k = 2 AND b = 'b08'"}, "i_ba": {"b = 'b13'", "b > 'b30'"}, "i_a": {"a = 1", "a IN (0, 3)"},
		"i_gs": {"gs = 'b07-1'", "gs LIKE 'b1%'"}, "i_d": {"d = 7", "d = 8"},
		"i_dn": {"dn = 'dd'", "dn = 'dd' AND k = 3"}, "i_s2": {"s2 = 'x'", "s2 = 'E'", "s2 = 'y'"}, "i_gs2": {"gs = 'b21-3'"},
		"i_w": {"k = 3 AND a = 3", "k = 1", "k = 5 AND a = 3"}, "u_bk": {"b = 'b05' AND k = 5"}, "i_kbs2": {"k = 1 AND s2 = 'X'"},
	}
	for name, wheres := range probes {
		for _, w := range wheres {
			q := "SELECT a, b, k, s2, g, gs, d, dn, LENGTH(w) FROM t HOW INDEX (" + name + ") WHERE " + w + " ORDER BY a, b"
			with, without := run(strings.Replace(q, "HOW", "FORCE", 1)), run(strings.Replace(q, "HOW", "IGNORE", 1))
			if with != without {
				t.Errorf("%s WHERE %s:\nthrough the index:\n%s\nwithout:\n%s", name, w, with, without)
			}
		}
	}
	if out := run("CHECK TABLE t"); !strings.Contains(out, `"OK"`) {
		t.Errorf("CHECK TABLE: %s", out)
	}
	// A keyless table.
	run("CREATE TABLE kl (x INT, y VARCHAR(5))")
	for i := 0; i < 30; i++ {
		run("INSERT INTO kl VALUES (?, ?)", i%5, fmt.Sprintf("y%d", i%3))
	}
	run("CREATE INDEX kx ON kl (x, y)")
	for _, w := range []string{"x = 3", "x = 3 AND y = 'y0'", "y = 'y1'"} {
		q := "SELECT x, y FROM kl %s INDEX (kx) WHERE " + w + " ORDER BY x, y"
		if with, without := run(fmt.Sprintf(q, "FORCE")), run(fmt.Sprintf(q, "IGNORE")); with != without {
			t.Errorf("kl WHERE %s:\nthrough the index:\n%s\nwithout:\n%s", w, with, without)
		}
	}
}

// TestReview13cCreateIndexUnderWriters: CREATE INDEX on a gateway that is
// its embedded store's only user (pebble.Options.OneUser, as sqlgw serve
// opens it: no catalog-refresh wait, only the drain of this gateway's
// commits, h7prepare) while four sessions insert, update, delete and run
// multi-statement transactions on the table. Afterwards every value read
// through the index equals the table's, and CHECK TABLE passes.
func TestReview13cCreateIndexUnderWriters(t *testing.T) {
	store, err := pebble.Open("", &pebble.Options{InMemory: true, OneUser: true})
	if err != nil {
		t.Fatal(err)
	}
	ts := sqltest.Start(t, store, sqltest.Options{})
	r := sqltest.NewRunner(t, ts.DB)
	r.ExecAll("CREATE DATABASE cw", "CREATE TABLE cw.t (id INT PRIMARY KEY, k INT, c VARCHAR(20))")
	r.InsertRows("cw.t", 3000, 500, func(i int) string { return fmt.Sprintf("(%d, %d, 'c%d')", i, i%50, i) })
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var writes atomic.Int64
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			conn := ts.Conn()
			rng := rand.New(rand.NewPCG(uint64(w), 9))
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				id := rng.IntN(3500)
				var qs []string
				switch rng.IntN(5) {
				case 0:
					qs = []string{fmt.Sprintf("INSERT INTO cw.t VALUES (%d, %d, 'n') ON DUPLICATE KEY UPDATE k = k + 1", id, rng.IntN(50))}
				case 1:
					qs = []string{fmt.Sprintf("UPDATE cw.t SET k = %d WHERE id = %d", rng.IntN(50), id)}
				case 2:
					qs = []string{fmt.Sprintf("DELETE FROM cw.t WHERE id = %d", id)}
				case 3:
					qs = []string{"BEGIN", fmt.Sprintf("UPDATE cw.t SET k = k + 1 WHERE id = %d", id),
						fmt.Sprintf("REPLACE INTO cw.t VALUES (%d, %d, 'r')", 3500+w*1000+i, rng.IntN(50)), "COMMIT"}
				default:
					qs = []string{fmt.Sprintf("UPDATE cw.t SET c = 'u%d' WHERE id = %d", i, id)}
				}
				for _, q := range qs {
					if _, err := conn.ExecContext(context.Background(), q); err != nil {
						conn.ExecContext(context.Background(), "ROLLBACK")
						break // a conflict (1213) or such: the load goes on
					}
				}
				writes.Add(1)
			}
		}(w)
	}
	time.Sleep(100 * time.Millisecond)
	r.Exec("CREATE INDEX k_1 ON cw.t (k)")
	time.Sleep(100 * time.Millisecond)
	close(stop)
	wg.Wait()
	t.Logf("%d writes", writes.Load())
	for k := 0; k < 60; k++ {
		q := fmt.Sprintf("SELECT id, c FROM cw.t HOW INDEX (k_1) WHERE k = %d ORDER BY id", k)
		with := strings.Join(r.Rows(strings.Replace(q, "HOW", "FORCE", 1)), ",")
		without := strings.Join(r.Rows(strings.Replace(q, "HOW", "IGNORE", 1)), ",")
		if with != without {
			t.Fatalf("k = %d:\nthrough the index: %s\nwithout: %s", k, with, without)
		}
	}
	if got := r.Rows("CHECK TABLE cw.t"); !strings.Contains(strings.Join(got, " "), "OK") {
		t.Fatalf("CHECK TABLE: %v", got)
	}
}
