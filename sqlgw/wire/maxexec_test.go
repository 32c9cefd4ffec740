package wire

import "testing"

// TestExecutionLimitText: which statements are top-level SELECTs and
// which MAX_EXECUTION_TIME hint they carry.
func TestExecutionLimitText(t *testing.T) {
	for _, c := range []struct {
		q      string
		selekt bool
		hint   int64
	}{
		{"SELECT 1", true, 0},
		{"select/*+ MAX_EXECUTION_TIME(250) */ 1", true, 250},
		{" -- c\n ((SELECT /*+ NO_ICP(t) max_execution_time ( 7 ) */ 1))", true, 7},
		{"SELECT /*+ MAX_EXECUTION_TIME(x) */ 1", true, 0},
		{"SELECT /*+ MAX_EXECUTION_TIME(5 */ 1", true, 0},
		{"SELECT /*+ MY_MAX_EXECUTION_TIME(5) */ 1", true, 0},
		{"SELECT 1 /*+ MAX_EXECUTION_TIME(5) */", true, 0},
		{"SELECT /* MAX_EXECUTION_TIME(5) */ 1", true, 0},
		{"SELECTX 1", false, 0},
		{"SELECT", true, 0},
		{"INSERT INTO t SELECT /*+ MAX_EXECUTION_TIME(5) */ 1", false, 0},
		{"UPDATE t SET a = 1", false, 0},
		{"SHOW PROCESSLIST", false, 0},
		{"WITH c AS (SELECT 1) SELECT * FROM c", true, 0},
		{"with recursive c (n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n < 3), `update` AS (SELECT ')') select /*+ MAX_EXECUTION_TIME(9) */ * FROM c", true, 9},
		{"WITH c AS (SELECT 1) UPDATE t SET a = 1", false, 0},
		{"WITH c AS (SELECT 1) DELETE FROM t", false, 0},
		{"WITH c AS (SELECT 1) INSERT INTO t SELECT * FROM c", false, 0},
		{"WITH", false, 0},
		{"", false, 0},
	} {
		end, ok := topSelect(c.q)
		if ok != c.selekt {
			t.Errorf("%q: SELECT %v, want %v", c.q, ok, c.selekt)
			continue
		}
		if ok {
			if got := selectHintLimit(c.q, end); got != c.hint {
				t.Errorf("%q: hint %d, want %d", c.q, got, c.hint)
			}
		}
	}
}

// TestExecutionLimitTextAllocs: looking at a statement's text for the
// limit allocates nothing (the point select path runs it every time).
func TestExecutionLimitTextAllocs(t *testing.T) {
	for _, q := range []string{"SELECT c FROM sbtest1 WHERE id = ?", "WITH C AS (SELECT 1) SELECT * FROM C", "UPDATE t SET a = 1"} {
		if n := testing.AllocsPerRun(100, func() {
			if end, ok := topSelect(q); ok {
				selectHintLimit(q, end)
			}
		}); n != 0 {
			t.Errorf("%q: %v allocations, want 0", q, n)
		}
	}
}
