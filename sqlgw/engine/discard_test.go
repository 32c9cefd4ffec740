package engine

import "testing"

// TestFailedStatementThenWrite: a statement that fails part-way is undone;
// a later write of the same rows, in the same transaction or the next
// autocommit one, commits once (the undone key once stayed in the
// buffer's order and was sent twice: "two operations on RowKey").
func TestFailedStatementThenWrite(t *testing.T) {
	s := newEngineSession(t)
	s.must(t, "CREATE DATABASE d")
	s.ctx.SetCurrentDatabase("d")
	s.must(t, "CREATE TABLE t (k INT PRIMARY KEY, s VARCHAR(3))")
	s.must(t, "INSERT INTO t VALUES (1, 'a'), (2, 'bb'), (3, 'ccc')")
	for _, inTxn := range []bool{false, true} {
		if inTxn {
			s.must(t, "START TRANSACTION")
		}
		if _, err := s.exec("UPDATE t SET s = CONCAT(s, 'x')"); err == nil {
			t.Fatal("UPDATE past VARCHAR(3) succeeded")
		}
		s.must(t, "INSERT INTO t VALUES (1, 'z') ON DUPLICATE KEY UPDATE s = 'y'")
		s.must(t, "UPDATE t SET s = 'w' WHERE k = 2")
		if inTxn {
			s.must(t, "COMMIT")
		}
		rows := s.must(t, "SELECT k, s FROM t ORDER BY k")
		if len(rows) != 3 || rows[0][1] != "y" || rows[1][1] != "w" || rows[2][1] != "ccc" {
			t.Fatalf("in transaction %v: %v", inTxn, rows)
		}
	}
}
