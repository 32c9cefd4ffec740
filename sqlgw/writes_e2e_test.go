package sqlgw_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/catalog/ixmaint"
	"github.com/sqlgw/sqlgw/storage/faultstore"
	"github.com/sqlgw/sqlgw/storage/pebble"
)

// warningCodes returns the codes of SHOW WARNINGS.
func warningCodes(t *testing.T, c execer) []string {
	t.Helper()
	var out []string
	for _, r := range rows(t, c, "SHOW WARNINGS") {
		f := strings.Split(r, "\t")
		if len(f) > 1 {
			out = append(out, f[1])
		}
	}
	return out
}

// TestUniqueUpdatePerRow: UPDATE checks unique secondary keys row by row
// during the statement, as InnoDB does (results checked against MariaDB
// 10.11): UPDATE IGNORE skips a conflicting row with warning 1062; a
// failing multi-row UPDATE fails whole, with nothing committed; u = u + 1
// fails in key order and succeeds in descending order; INSERT IGNORE ... ON
// DUPLICATE KEY UPDATE whose update conflicts is skipped.
func TestUniqueUpdatePerRow(t *testing.T) {
	forEachBackend(t, func(t *testing.T, ts *testServer) {
		c := ts.conn()
		mustExec(t, c, "CREATE DATABASE d")
		mustExec(t, c, "USE d")
		mustExec(t, c, "CREATE TABLE g (id INT PRIMARY KEY, u INT, e VARCHAR(10), UNIQUE KEY uu (u))")
		mustExec(t, c, "CREATE TABLE l (p INT, id INT, u INT, e VARCHAR(10), PRIMARY KEY (p, id), UNIQUE KEY uu (p, u))")
		for _, tb := range []string{"g", "l"} {
			t.Run(tb, func(t *testing.T) {
				cols := "id, u, e"
				if tb == "l" {
					cols = "p, id, u, e"
					mustExec(t, c, "INSERT INTO l VALUES (1, 1, 1, 'a'), (1, 2, 2, 'b'), (1, 3, 3, 'c')")
				} else {
					mustExec(t, c, "INSERT INTO g VALUES (1, 1, 'a'), (2, 2, 'b'), (3, 3, 'c')")
				}
				all := "SELECT id, u FROM " + tb + " ORDER BY id"
				orig := []string{"1\t1", "2\t2", "3\t3"}
				// UPDATE IGNORE: the conflicting row is skipped.
				if n := affected(t, c, "UPDATE IGNORE "+tb+" SET u = 2 WHERE id = 1"); n != 0 {
					t.Errorf("UPDATE IGNORE of a duplicate: %d rows, want 0", n)
				}
				if w := warningCodes(t, c); len(w) != 1 || w[0] != "1062" {
					t.Errorf("UPDATE IGNORE warnings %q, want one 1062", w)
				}
				expectRows(t, c, all, orig...)
				if n := affected(t, c, "UPDATE IGNORE "+tb+" SET u = 9 WHERE id >= 1"); n != 1 {
					t.Errorf("UPDATE IGNORE of three rows to one value: %d rows, want 1", n)
				}
				expectRows(t, c, all, "1\t9", "2\t2", "3\t3")
				mustExec(t, c, "UPDATE "+tb+" SET u = 1 WHERE id = 1")
				// A failing multi-row UPDATE leaves every row as it was.
				expectErrno(t, c, 1062, "UPDATE "+tb+" SET u = 3 WHERE id IN (1, 2)")
				expectRows(t, c, all, orig...)
				expectErrno(t, c, 1062, "UPDATE "+tb+" SET u = u + 1")
				expectRows(t, c, all, orig...)
				if n := affected(t, c, "UPDATE "+tb+" SET u = u + 1 ORDER BY u DESC"); n != 3 {
					t.Errorf("u = u + 1 in descending order: %d rows", n)
				}
				expectRows(t, c, all, "1\t2", "2\t3", "3\t4")
				if n := affected(t, c, "UPDATE "+tb+" SET u = u - 1 ORDER BY u"); n != 3 {
					t.Errorf("u = u - 1 in ascending order: %d rows", n)
				}
				expectRows(t, c, all, orig...)
				// The index answers as the rows say.
				expectRows(t, c, "SELECT id FROM "+tb+" WHERE u = 2", "2")
				// INSERT IGNORE ... ON DUPLICATE KEY UPDATE whose update
				// would duplicate another row's value: skipped.
				vals := "(2, 7, 'x')"
				if tb == "l" {
					vals = "(1, 2, 7, 'x')"
				}
				if n := affected(t, c, "INSERT IGNORE INTO "+tb+" ("+cols+") VALUES "+vals+" ON DUPLICATE KEY UPDATE u = 3"); n != 0 {
					t.Errorf("INSERT IGNORE ... ON DUPLICATE KEY UPDATE to a duplicate: %d rows, want 0", n)
				}
				expectRows(t, c, all, orig...)
				expectErrno(t, c, 1062, "INSERT INTO "+tb+" ("+cols+") VALUES "+vals+" ON DUPLICATE KEY UPDATE u = 3")
				expectRows(t, c, all, orig...)
				// In a transaction, the statement fails and the transaction
				// goes on.
				mustExec(t, c, "BEGIN")
				mustExec(t, c, "UPDATE "+tb+" SET e = 'z' WHERE id = 3")
				expectErrno(t, c, 1062, "UPDATE "+tb+" SET u = 1 WHERE id = 2")
				mustExec(t, c, "COMMIT")
				expectRows(t, c, "SELECT id, u, e FROM "+tb+" ORDER BY id", "1\t1\ta", "2\t2\tb", "3\t3\tz")
			})
		}
	})
}

// TestPlainInsertCheck: a plain autocommit INSERT skips the existence Get
// only when it is the statement itself (1 request); IGNORE, ON DUPLICATE KEY
// UPDATE and REPLACE keep the MySQL behaviour whatever the text around them.
func TestPlainInsertCheck(t *testing.T) {
	forEachBackend(t, func(t *testing.T, ts *testServer) {
		c := ts.conn()
		mustExec(t, c, "CREATE DATABASE d")
		mustExec(t, c, "USE d")
		mustExec(t, c, "CREATE TABLE t (id INT PRIMARY KEY, u INT, UNIQUE KEY uu (u))")
		mustExec(t, c, "CREATE TABLE p (id INT PRIMARY KEY, u INT)")
		mustExec(t, c, "CREATE TABLE `we ird` (id INT PRIMARY KEY, u INT)")
		mustExec(t, c, "INSERT INTO t VALUES (1, 1)")
		if r, _ := cost(t, c, "INSERT INTO p VALUES (1, 1)"); r != 1 {
			t.Errorf("plain INSERT: %d requests, want 1", r)
		}
		if r, _ := cost(t, c, "INSERT INTO d.p VALUES (2, 1)"); r != 1 {
			t.Errorf("plain INSERT into db.table: %d requests, want 1", r)
		}
		if r, _ := cost(t, c, "insert into `d`.`we ird` (id, u) values (1, 1)"); r != 1 {
			t.Errorf("plain INSERT into a quoted name: %d requests, want 1", r)
		}
		for _, q := range []string{
			"INSERT IGNORE INTO t VALUES (2, 1)",
			"INSERT /* x */ IGNORE INTO t VALUES (2, 1)",
			"insert\tignore into t values (2, 1)",
			"INSERT INTO t VALUES (1, 5) ON DUPLICATE KEY UPDATE u = u",
		} {
			if n := affected(t, c, q); n != 0 {
				t.Errorf("%s: %d rows, want 0", q, n)
			}
		}
		expectErrno(t, c, 1062, "INSERT INTO t VALUES (2, 1)")
		expectErrno(t, c, 1062, "INSERT INTO d.t VALUES (1, 2)")
		expectRows(t, c, "SELECT id, u FROM t", "1\t1")
		mustExec(t, c, "REPLACE INTO t VALUES (3, 1)")
		expectRows(t, c, "SELECT id, u FROM t", "3\t1")
		_, err := c.ExecContext(context.Background(), fmt.Sprintf("INSERT INTO t VALUES (%d, %d)", 4, 1))
		if mysqlErrno(err) != 1062 {
			t.Errorf("duplicate plain INSERT: %v", err)
		}
	})
}

// TestUniqueSwap: unique values swapped or shifted between rows within one
// transaction (each statement valid, as MySQL checks per statement and per
// row) commit without a false 1062, on global unique indexes (rows in one
// partition or in several) and local ones; the index answers as the rows
// say afterwards, and a concurrent transaction taking one of the values
// still gets 1062 (exactly one winner).
func TestUniqueSwap(t *testing.T) {
	forEachBackend(t, func(t *testing.T, ts *testServer) {
		c := ts.conn()
		mustExec(t, c, "CREATE DATABASE d")
		mustExec(t, c, "USE d")
		for _, tc := range []struct{ name, ddl, rows string }{
			{"global", "CREATE TABLE g (id INT PRIMARY KEY, u INT, c INT, UNIQUE KEY uu (u) COMMENT 'sqlgw: cover=(c)')", "(1, 1, 10), (2, 2, 20), (3, 3, 30)"},
			{"global one partition", "CREATE TABLE g1 (p INT, id INT, u INT, c INT, PRIMARY KEY (p, id), UNIQUE KEY uu (u))", "(0, 1, 1, 10), (0, 2, 2, 20), (0, 3, 3, 30)"},
			{"local", "CREATE TABLE l (p INT, id INT, u INT, c INT, PRIMARY KEY (p, id), UNIQUE KEY uu (p, u))", "(0, 1, 1, 10), (0, 2, 2, 20), (0, 3, 3, 30)"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				mustExec(t, c, tc.ddl)
				tb := strings.Fields(tc.ddl)[2]
				mustExec(t, c, "INSERT INTO "+tb+" VALUES "+tc.rows)
				check := func(want ...string) {
					t.Helper()
					expectRows(t, c, "SELECT id, u FROM "+tb+" ORDER BY id", want...)
					for _, w := range want {
						id, u, _ := strings.Cut(w, "\t")
						expectRows(t, c, "SELECT id FROM "+tb+" WHERE u = "+u, id)
						expectRows(t, c, "SELECT id, c FROM "+tb+" WHERE u = "+u, id+"\t"+id+"0")
					}
				}
				// Swap through a free value.
				mustExec(t, c, "BEGIN")
				mustExec(t, c, "UPDATE "+tb+" SET u = 30 WHERE id = 1")
				mustExec(t, c, "UPDATE "+tb+" SET u = 1 WHERE id = 2")
				mustExec(t, c, "UPDATE "+tb+" SET u = 2 WHERE id = 1")
				mustExec(t, c, "COMMIT")
				check("1\t2", "2\t1", "3\t3")
				// A three-way rotation in one transaction.
				mustExec(t, c, "BEGIN")
				mustExec(t, c, "UPDATE "+tb+" SET u = 100 + u")
				mustExec(t, c, "UPDATE "+tb+" SET u = 3 WHERE id = 1")
				mustExec(t, c, "UPDATE "+tb+" SET u = 2 WHERE id = 2")
				mustExec(t, c, "UPDATE "+tb+" SET u = 1 WHERE id = 3")
				mustExec(t, c, "COMMIT")
				check("1\t3", "2\t2", "3\t1")
				// A shift in one statement (autocommit), in the order that
				// never duplicates.
				mustExec(t, c, "UPDATE "+tb+" SET u = u + 1 ORDER BY u DESC")
				check("1\t4", "2\t3", "3\t2")
				mustExec(t, c, "UPDATE "+tb+" SET u = u - 1 ORDER BY u")
				check("1\t3", "2\t2", "3\t1")
				// Delete a row and give its value to another.
				mustExec(t, c, "BEGIN")
				mustExec(t, c, "DELETE FROM "+tb+" WHERE id = 3")
				mustExec(t, c, "UPDATE "+tb+" SET u = 1 WHERE id = 2")
				mustExec(t, c, "COMMIT")
				check("1\t3", "2\t1")
				// A concurrent duplicate: the other transaction read before
				// this one committed; exactly one of them wins.
				o := ts.conn()
				mustExec(t, o, "USE d")
				mustExec(t, c, "BEGIN")
				mustExec(t, c, "UPDATE "+tb+" SET u = 7 WHERE id = 1")
				mustExec(t, o, "BEGIN")
				mustExec(t, o, "UPDATE "+tb+" SET u = 7 WHERE id = 2")
				mustExec(t, c, "COMMIT")
				_, err := o.ExecContext(context.Background(), "COMMIT")
				if mysqlErrno(err) != 1062 {
					t.Errorf("concurrent duplicate COMMIT: %v, want 1062", err)
				}
				o.ExecContext(context.Background(), "ROLLBACK")
				check("1\t7", "2\t1")
			})
		}
	})
}

// TestUniqueSwapCrash crashes the store at every request of the COMMIT of
// a transaction that swaps unique values (rows in several partitions) and
// of a statement that shifts them. A new server on what the store holds
// answers every lookup of the index as a scan does, before any recovery;
// after recovery the index equals what the rows imply (ixmaint.Check) —
// unless the crash left the commit half-applied with two rows holding one
// value (the commit is not atomic across partitions: txn.go), where the
// index must still find both.
func TestUniqueSwapCrash(t *testing.T) {
	type step struct{ setup, commit []string }
	steps := []step{
		{[]string{"BEGIN", "UPDATE t SET u = 30 WHERE id = 1", "UPDATE t SET u = 1 WHERE id = 2", "UPDATE t SET u = 2 WHERE id = 1"}, []string{"COMMIT"}},
		{nil, []string{"UPDATE t SET u = u + 1 ORDER BY u DESC"}},
		{[]string{"BEGIN", "DELETE FROM t WHERE id = 3", "UPDATE t SET u = 3, c = 0 WHERE id = 1"}, []string{"COMMIT"}},
	}
	ctx := context.Background()
	for _, st := range steps {
		name := strings.Join(append(st.setup, st.commit...), "; ")
		for n := 1; ; n++ {
			done := false
			for _, applied := range []bool{false, true} {
				inner, err := pebble.OpenMemory()
				if err != nil {
					t.Fatal(err)
				}
				fs := faultstore.New(noClose{inner})
				ts := startServer(t, fs)
				c := ts.conn()
				mustExec(t, c, "CREATE DATABASE d")
				mustExec(t, c, "USE d")
				mustExec(t, c, "CREATE TABLE t (id INT PRIMARY KEY, u INT, c INT, UNIQUE KEY uu (u) COMMENT 'sqlgw: cover=(c)')")
				mustExec(t, c, "INSERT INTO t VALUES (1, 1, 10), (2, 2, 20), (3, 3, 30)")
				for _, q := range st.setup {
					mustExec(t, c, q)
				}
				fs.CrashAt(n, applied)
				for _, q := range st.commit {
					c.ExecContext(ctx, q)
				}
				if !fs.Crashed() {
					done = true
				}
				ts.stop()
				ts2 := startServer(t, noClose{inner})
				c2 := ts2.conn()
				mustExec(t, c2, "USE d")
				for u := 1; u <= 4; u++ {
					for _, sel := range []string{"id", "id, c"} {
						got := rows(t, c2, fmt.Sprintf("SELECT %s FROM t WHERE u = %d ORDER BY id", sel, u))
						want := rows(t, c2, fmt.Sprintf("SELECT %s FROM t WHERE CONCAT(u) = '%d' ORDER BY id", sel, u))
						if !slices.Equal(got, want) {
							t.Errorf("%s: crash at %d (applied=%v): u = %d: %v, want %v", name, n, applied, u, got, want)
						}
					}
				}
				dup := len(rows(t, c2, "SELECT u FROM t GROUP BY u HAVING COUNT(*) > 1")) > 0
				ts2.stop()
				cat, err := catalog.Open(ctx, inner, catalog.Options{})
				if err != nil {
					t.Fatal(err)
				}
				tbl, err := cat.Table(ctx, "d", "t")
				if err != nil {
					t.Fatal(err)
				}
				if _, err := (&ixmaint.Maintainer{Store: inner}).Recover(ctx, tbl, true); err != nil {
					t.Fatal(err)
				}
				if mm, err := ixmaint.Check(ctx, inner, tbl); err != nil || len(mm) > 0 && !dup {
					t.Errorf("%s: crash at %d (applied=%v): after recovery: %v %v", name, n, applied, mm, err)
				}
				inner.Close()
			}
			if done || t.Failed() {
				t.Logf("%s: %d crash points", name, n-1)
				break
			}
		}
	}
}
