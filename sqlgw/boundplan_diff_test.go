package sqlgw_test

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw/engine"
)

// TestBoundPlanDifferential: cached plans bind their parameters into the
// cached access path (sqlgw/engine/boundplan.go) instead of re-planning
// it. Over tables covering the key kinds (integer and unsigned primary
// keys, composite keys, a salted table), the collations keys are encoded
// by (utf8mb4_0900_ai_ci, utf8mb4_general_ci, utf8mb4_unicode_ci,
// utf8mb4_bin, latin1), unique, global and local secondary indexes, point
// gets, IN lists and ranges, prepared SELECTs, UPDATEs and DELETEs are run
// with random and edge-case values (duplicates, NULL, a string for an
// integer, 3.5 and 1e30 for an integer, negative for unsigned, case and
// accent variants, trailing spaces, overlong strings, contradictions)
// against a server with the plan cache and one without, comparing every
// outcome; and every bound execute is also re-planned the old way inside
// the server (engine.SetVerifyBoundPlans), which must give exactly the
// same access path.
func TestBoundPlanDifferential(t *testing.T) {
	defer engine.SetVerifyBoundPlans(true)()
	m0, _ := engine.BoundPlanMismatches()
	b0, r0 := engine.BoundPlanCounts()
	with, without := diffServer(t, false), diffServer(t, true)
	both := func(q string, args ...any) string {
		a, b := diffRun(with, q, args...), diffRun(without, q, args...)
		if a != b {
			t.Fatalf("%s %v\nwith the plan cache:\n%s\nwithout:\n%s", q, args, a, b)
		}
		return a
	}
	for _, q := range []string{
		"CREATE DATABASE bp", "USE bp",
		"CREATE TABLE ti (id INT PRIMARY KEY, k INT, u VARCHAR(20) COLLATE utf8mb4_0900_ai_ci, c VARCHAR(30), KEY k_1 (k), UNIQUE KEY u_1 (u))",
		"CREATE TABLE tu (id BIGINT UNSIGNED PRIMARY KEY, v INT)",
		"CREATE TABLE tg (a VARCHAR(20) COLLATE utf8mb4_general_ci, b INT, v INT, PRIMARY KEY (a, b DESC))",
		"CREATE TABLE tb (name VARCHAR(20) COLLATE utf8mb4_bin PRIMARY KEY, v INT)",
		"CREATE TABLE tn (name VARCHAR(20) COLLATE utf8mb4_unicode_ci PRIMARY KEY, v INT)",
		"CREATE TABLE tl (name VARCHAR(20) CHARACTER SET latin1 PRIMARY KEY, v INT)",
		"CREATE TABLE ts (p INT, r INT, v INT, PRIMARY KEY (p, r)) COMMENT 'sqlgw: salt_buckets=4'",
		"CREATE TABLE tp (p INT, r INT, lk INT, v INT, PRIMARY KEY (p, r), KEY lk_1 (lk) COMMENT 'sqlgw: local')",
	} {
		both(q)
	}
	words := []string{"a", "A", "b", "B ", "é", "e", "E", "ab", "Ab", "abc", "x y", "zz", "ß", "ss", "5", "-3"}
	for i := range 40 {
		both("INSERT INTO ti VALUES (?, ?, ?, ?)", i, i%7, words[i%len(words)]+strings.Repeat("z", i/len(words)), "c")
		both("INSERT INTO tu VALUES (?, ?)", uint64(i)*3, i)
		both("INSERT IGNORE INTO tg VALUES (?, ?, ?)", words[i%len(words)], i%5, i)
		both("INSERT IGNORE INTO tb VALUES (?, ?)", words[i%len(words)], i)
		both("INSERT IGNORE INTO tn VALUES (?, ?)", words[i%len(words)], i)
		both("INSERT IGNORE INTO tl VALUES (?, ?)", words[i%len(words)], i)
		both("INSERT INTO ts VALUES (?, ?, ?)", i%9, i, i)
		both("INSERT INTO tp VALUES (?, ?, ?, ?)", i%4, i, i%6, i)
	}
	r := rand.New(rand.NewPCG(13, 13))
	// The values come in classes, one class per run of executes: a
	// parameter of another type makes another plan (the cache keeps a few
	// per statement), and the executes of a class come from its plan.
	intVal := func(class int) any {
		switch class {
		case 0: // small integers, duplicates among them
			return r.IntN(45)
		case 1: // out of range, negative
			return []any{-1, uint64(math.MaxUint64), int64(math.MinInt64), int64(math.MaxInt64), 0}[r.IntN(5)]
		case 2: // fractions and huge numbers
			return []any{3.5, 2.0, 1e30, -0.5, float64(r.IntN(45))}[r.IntN(5)]
		case 3: // strings
			return []any{"5", "abc", " 7", "7 ", "1e1", ""}[r.IntN(6)]
		}
		if r.IntN(3) == 0 { // NULLs among integers
			return nil
		}
		return r.IntN(45)
	}
	strVal := func(class int) any {
		switch class {
		case 0:
			return words[r.IntN(len(words))]
		case 1: // trailing spaces, overlong
			if r.IntN(3) == 0 {
				return strings.Repeat("é", 10+r.IntN(300))
			}
			return words[r.IntN(len(words))] + strings.Repeat(" ", 1+r.IntN(3))
		case 2: // numbers
			return []any{5, -3, 2.5, 0}[r.IntN(4)]
		case 3:
			return strings.ToUpper(words[r.IntN(len(words))])
		}
		if r.IntN(3) == 0 {
			return nil
		}
		return words[r.IntN(len(words))]
	}
	const classes = 5
	type stmt struct {
		q    string
		args []func(int) any
	}
	n := func(k int, f func(int) any) []func(int) any {
		out := make([]func(int) any, k)
		for i := range out {
			out[i] = f
		}
		return out
	}
	stmts := []stmt{
		{"SELECT id, k, u, c FROM ti WHERE id = ?", n(1, intVal)},
		{"SELECT id, c FROM ti WHERE id IN (?, ?, ?, ?)", n(4, intVal)},
		{"SELECT id FROM ti WHERE id >= ? AND id < ?", n(2, intVal)},
		{"SELECT id FROM ti WHERE id BETWEEN ? AND ?", n(2, intVal)},
		{"SELECT id, k, c FROM ti WHERE k IN (?, ?, ?)", n(3, intVal)},
		{"SELECT id, k FROM ti WHERE k = ?", n(1, intVal)},
		{"SELECT id, u FROM ti WHERE u = ?", n(1, strVal)},
		{"SELECT id, u FROM ti WHERE u IN (?, ?)", n(2, strVal)},
		{"SELECT id, v FROM tu WHERE id = ?", n(1, intVal)},
		{"SELECT id, v FROM tu WHERE id IN (?, ?, ?)", n(3, intVal)},
		{"SELECT a, b, v FROM tg WHERE a = ? AND b = ?", []func(int) any{strVal, intVal}},
		{"SELECT a, b, v FROM tg WHERE a IN (?, ?) AND b = ?", []func(int) any{strVal, strVal, intVal}},
		{"SELECT a, b, v FROM tg WHERE a = ? AND b > ?", []func(int) any{strVal, intVal}},
		{"SELECT name, v FROM tb WHERE name = ?", n(1, strVal)},
		{"SELECT name, v FROM tn WHERE name = ?", n(1, strVal)},
		{"SELECT name, v FROM tn WHERE name IN (?, ?, ?)", n(3, strVal)},
		{"SELECT name, v FROM tl WHERE name = ?", n(1, strVal)},
		{"SELECT p, r, v FROM ts WHERE p = ? AND r = ?", n(2, intVal)},
		{"SELECT p, r, v FROM ts WHERE p IN (?, ?) AND r = ?", n(3, intVal)},
		{"SELECT p, r, v FROM ts WHERE p = ?", n(1, intVal)},
		{"SELECT p, r, v FROM tp WHERE p = ? AND r = ?", n(2, intVal)},
		{"SELECT p, r, lk FROM tp WHERE p = ? AND lk = ?", n(2, intVal)},
	}
	const rounds = 16 // per class
	run := func(s stmt, rounds int) {
		for class := range classes {
			// A statement text of its own per class (more spaces), so
			// that one class's plans do not crowd out another's.
			q := strings.Replace(s.q, " ", strings.Repeat(" ", class+1), 1)
			for range rounds {
				args := make([]any, len(s.args))
				for i, f := range s.args {
					args[i] = f(class)
				}
				both(q, args...)
			}
		}
	}
	hitsNow := func() int {
		var name string
		var hits int
		if err := with.QueryRowContext(context.Background(), "SHOW SESSION STATUS LIKE 'Plan_cache_hits'").Scan(&name, &hits); err != nil {
			t.Fatal(err)
		}
		return hits
	}
	for _, s := range stmts {
		h0 := hitsNow()
		bb, _ := engine.BoundPlanCounts()
		run(s, rounds)
		ba, _ := engine.BoundPlanCounts()
		hits := hitsNow() - h0
		t.Logf("%s: %d of %d executes from the plan cache, %d bound", s.q, hits, classes*rounds, ba-bb)
		// PAD SPACE keys (utf8mb4_general_ci, utf8mb4_bin, utf8mb4_unicode_ci,
		// latin1) answer equality and IN exactly: their statements are
		// cached and bound like any key's (catalog.Type.CollationKeyEqualExact).
		if strings.Contains(s.q, " FROM tg ") || strings.Contains(s.q, " FROM tb ") || strings.Contains(s.q, " FROM tn ") || strings.Contains(s.q, " FROM tl ") {
			if hits < classes*rounds/8 || ba-bb < int64(classes*rounds/8) {
				t.Errorf("%s: %d of %d executes from the plan cache, %d bound: a PAD SPACE key's equality must stay cacheable", s.q, hits, classes*rounds, ba-bb)
			}
		}
	}
	// Inside a transaction with writes to the table (planned without
	// secondary indexes, its buffered rows filtered by the overlay):
	// statements first prepared there.
	both("BEGIN")
	both("UPDATE ti SET c = 'in txn' WHERE id IN (3, 4, 40)")
	both("INSERT INTO ti VALUES (41, 1, 'new', 'c'), (42, 2, 'newer', 'c')")
	for _, s := range []stmt{
		{"SELECT  id, k, c FROM ti WHERE id IN (?, ?)", n(2, intVal)},
		{"SELECT  id, k, c FROM ti WHERE id = ?", n(1, intVal)},
		{"SELECT  id, k, c FROM ti WHERE k IN (?, ?)", n(2, intVal)},
		{"SELECT  id, u FROM ti WHERE u = ?", n(1, strVal)},
	} {
		run(s, rounds)
	}
	both("COMMIT")
	// A template proves an index plan for the statistics it was made
	// with: after ANALYZE TABLE (or the automatic refresh) it declines,
	// and after a few declines in a row it is made again from the
	// current values and statistics (boundplan.go, remakeAfter).
	for i := range 3 {
		both("SELECT   id, k FROM ti WHERE k IN (?, ?, ?)", 1, 2, 3+i)
	}
	both("INSERT INTO ti SELECT id + 100, k % 3, NULL, c FROM ti")
	both("ANALYZE TABLE ti")
	bb, _ := engine.BoundPlanCounts()
	for i := range 10 {
		both("SELECT   id, k FROM ti WHERE k IN (?, ?, ?)", 1, 2, 3+i%3)
	}
	if ba, _ := engine.BoundPlanCounts(); ba-bb < 5 {
		t.Errorf("a remade template bound %d of 10 executes", ba-bb)
	}
	// Writes by key, through the same binding; each followed by a read
	// of the whole table.
	writes := []stmt{
		{"UPDATE ti SET c = ? WHERE id = ?", []func(int) any{strVal, intVal}},
		{"UPDATE tg SET v = v + 1 WHERE a = ? AND b = ?", []func(int) any{strVal, intVal}},
		{"UPDATE ts SET v = ? WHERE p = ? AND r = ?", n(3, intVal)},
		{"DELETE FROM tn WHERE name = ?", n(1, strVal)},
		{"DELETE FROM tu WHERE id = ?", n(1, intVal)},
	}
	for _, s := range writes {
		run(s, rounds/2)
	}
	for _, q := range []string{"SELECT * FROM ti ORDER BY id", "SELECT * FROM tg ORDER BY a, b",
		"SELECT * FROM ts ORDER BY p, r", "SELECT * FROM tn ORDER BY name", "SELECT * FROM tu ORDER BY id"} {
		both(q)
	}
	m1, last := engine.BoundPlanMismatches()
	if m1 != m0 {
		t.Errorf("%d bound access paths differ from the re-planned ones; the last: %s", m1-m0, last)
	}
	b1, r1 := engine.BoundPlanCounts()
	t.Logf("bound %d executes, re-planned %d", b1-b0, r1-r0)
	if b1-b0 < int64(len(stmts)*rounds*classes/3) {
		t.Errorf("only %d executes bound their access path (%d re-planned)", b1-b0, r1-r0)
	}
	var name string
	var hits int
	if err := with.QueryRowContext(context.Background(), "SHOW SESSION STATUS LIKE 'Plan_cache_hits'").Scan(&name, &hits); err != nil {
		t.Fatal(err)
	}
	t.Logf("plan cache hits %d", hits)
}
