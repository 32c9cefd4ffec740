package sqlgw_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage"
)

// warningCodes returns the codes of SHOW WARNINGS.
func warningCodes(t *testing.T, c sqltest.Execer) []string {
	t.Helper()
	var out []string
	for _, r := range sqltest.NewRunner(t, c).Rows("SHOW WARNINGS") {
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
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Session("d",
			"CREATE TABLE g (id INT PRIMARY KEY, u INT, e VARCHAR(10), UNIQUE KEY uu (u))",
			"CREATE TABLE l (p INT, id INT, u INT, e VARCHAR(10), PRIMARY KEY (p, id), UNIQUE KEY uu (p, u))")
		for _, tb := range []string{"g", "l"} {
			t.Run(tb, func(t *testing.T) {
				cols := "id, u, e"
				if tb == "l" {
					cols = "p, id, u, e"
					sqltest.NewRunner(t, c).Exec("INSERT INTO l VALUES (1, 1, 1, 'a'), (1, 2, 2, 'b'), (1, 3, 3, 'c')")
				} else {
					sqltest.NewRunner(t, c).Exec("INSERT INTO g VALUES (1, 1, 'a'), (2, 2, 'b'), (3, 3, 'c')")
				}
				all := "SELECT id, u FROM " + tb + " ORDER BY id"
				orig := []string{"1\t1", "2\t2", "3\t3"}
				// UPDATE IGNORE: the conflicting row is skipped.
				if n := sqltest.NewRunner(t, c).Affected("UPDATE IGNORE " + tb + " SET u = 2 WHERE id = 1"); n != 0 {
					t.Errorf("UPDATE IGNORE of a duplicate: %d rows, want 0", n)
				}
				if w := warningCodes(t, c); len(w) != 1 || w[0] != "1062" {
					t.Errorf("UPDATE IGNORE warnings %q, want one 1062", w)
				}
				pre := map[string]string{"g": "", "l": "1-"}[tb] // MySQL names all the key's values
				sqltest.NewRunner(t, c).ExpectRows("SHOW WARNINGS", "Warning\t1062\tDuplicate entry '"+pre+"2' for key '"+tb+".uu'")
				sqltest.NewRunner(t, c).Exec("INSERT IGNORE INTO " + tb + " (" + cols + ") VALUES " + map[string]string{"g": "(9, 3, 'q')", "l": "(1, 9, 3, 'q')"}[tb])
				sqltest.NewRunner(t, c).ExpectRows("SHOW WARNINGS", "Warning\t1062\tDuplicate entry '"+pre+"3' for key '"+tb+".uu'")
				sqltest.NewRunner(t, c).Exec("INSERT IGNORE INTO " + tb + " (" + cols + ") VALUES " + map[string]string{"g": "(1, 7, 'q')", "l": "(1, 1, 7, 'q')"}[tb])
				sqltest.NewRunner(t, c).ExpectRows("SHOW WARNINGS", "Warning\t1062\tDuplicate entry '"+pre+"1' for key '"+tb+".PRIMARY'")
				sqltest.NewRunner(t, c).ExpectRows(all, orig...)
				if n := sqltest.NewRunner(t, c).Affected("UPDATE IGNORE " + tb + " SET u = 9 WHERE id >= 1"); n != 1 {
					t.Errorf("UPDATE IGNORE of three rows to one value: %d rows, want 1", n)
				}
				sqltest.NewRunner(t, c).ExpectRows(all, "1\t9", "2\t2", "3\t3")
				sqltest.NewRunner(t, c).Exec("UPDATE " + tb + " SET u = 1 WHERE id = 1")
				// A failing multi-row UPDATE leaves every row as it was.
				sqltest.NewRunner(t, c).ExpectErrno(1062, "UPDATE "+tb+" SET u = 3 WHERE id IN (1, 2)")
				sqltest.NewRunner(t, c).ExpectRows(all, orig...)
				sqltest.NewRunner(t, c).ExpectErrno(1062, "UPDATE "+tb+" SET u = u + 1")
				sqltest.NewRunner(t, c).ExpectRows(all, orig...)
				// A swap in one statement fails in MySQL too (per row).
				sqltest.NewRunner(t, c).ExpectErrno(1062, "UPDATE "+tb+" SET u = CASE id WHEN 1 THEN 2 WHEN 2 THEN 1 ELSE u END")
				sqltest.NewRunner(t, c).ExpectRows(all, orig...)
				if n := sqltest.NewRunner(t, c).Affected("UPDATE " + tb + " SET u = u + 1 ORDER BY u DESC"); n != 3 {
					t.Errorf("u = u + 1 in descending order: %d rows", n)
				}
				sqltest.NewRunner(t, c).ExpectRows(all, "1\t2", "2\t3", "3\t4")
				if n := sqltest.NewRunner(t, c).Affected("UPDATE " + tb + " SET u = u - 1 ORDER BY u"); n != 3 {
					t.Errorf("u = u - 1 in ascending order: %d rows", n)
				}
				sqltest.NewRunner(t, c).ExpectRows(all, orig...)
				// The index answers as the rows say.
				sqltest.NewRunner(t, c).ExpectRows("SELECT id FROM "+tb+" WHERE u = 2", "2")
				// INSERT IGNORE ... ON DUPLICATE KEY UPDATE whose update
				// would duplicate another row's value: skipped.
				vals := "(2, 7, 'x')"
				if tb == "l" {
					vals = "(1, 2, 7, 'x')"
				}
				if n := sqltest.NewRunner(t, c).Affected("INSERT IGNORE INTO " + tb + " (" + cols + ") VALUES " + vals + " ON DUPLICATE KEY UPDATE u = 3"); n != 0 {
					t.Errorf("INSERT IGNORE ... ON DUPLICATE KEY UPDATE to a duplicate: %d rows, want 0", n)
				}
				sqltest.NewRunner(t, c).ExpectRows(all, orig...)
				sqltest.NewRunner(t, c).ExpectErrno(1062, "INSERT INTO "+tb+" ("+cols+") VALUES "+vals+" ON DUPLICATE KEY UPDATE u = 3")
				sqltest.NewRunner(t, c).ExpectRows(all, orig...)
				// In a transaction, the statement fails and the transaction
				// goes on.
				sqltest.NewRunner(t, c).Exec("BEGIN")
				sqltest.NewRunner(t, c).Exec("UPDATE " + tb + " SET e = 'z' WHERE id = 3")
				sqltest.NewRunner(t, c).ExpectErrno(1062, "UPDATE "+tb+" SET u = 1 WHERE id = 2")
				sqltest.NewRunner(t, c).Exec("COMMIT")
				sqltest.NewRunner(t, c).ExpectRows("SELECT id, u, e FROM "+tb+" ORDER BY id", "1\t1\ta", "2\t2\tb", "3\t3\tz")
			})
		}
	})
}

// TestPlainInsertCheck: a plain autocommit INSERT skips the existence Get
// only when it is the statement itself (1 request); IGNORE, ON DUPLICATE KEY
// UPDATE and REPLACE keep the MySQL behaviour whatever the text around them.
func TestPlainInsertCheck(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Session("d",
			"CREATE TABLE t (id INT PRIMARY KEY, u INT, UNIQUE KEY uu (u))",
			"CREATE TABLE p (id INT PRIMARY KEY, u INT)",
			"CREATE TABLE `we ird` (id INT PRIMARY KEY, u INT)",
			"INSERT INTO t VALUES (1, 1)")
		r := sqltest.NewRunner(t, c)
		// 1 request on Pebble; on the Table service the commit takes
		// catalog/txn's inline path (onTable): 3, with no read either.
		r.ExpectRequests(onTable(t, 1, 3), "INSERT INTO p VALUES (1, 1)", "plain INSERT")
		r.ExpectRequests(onTable(t, 1, 3), "INSERT INTO d.p VALUES (2, 1)", "plain INSERT into db.table")
		r.ExpectRequests(onTable(t, 1, 3), "insert into `d`.`we ird` (id, u) values (1, 1)", "plain INSERT into a quoted name")
		for _, q := range []string{
			"INSERT IGNORE INTO t VALUES (2, 1)",
			"INSERT /* x */ IGNORE INTO t VALUES (2, 1)",
			"insert\tignore into t values (2, 1)",
			"INSERT INTO t VALUES (1, 5) ON DUPLICATE KEY UPDATE u = u",
		} {
			if n := r.Affected(q); n != 0 {
				t.Errorf("%s: %d rows, want 0", q, n)
			}
		}
		r.Script(`
			error 1062 INSERT INTO t VALUES (2, 1)
			error 1062 INSERT INTO d.t VALUES (1, 2)
			query SELECT id, u FROM t
			= 1 | 1
			exec REPLACE INTO t VALUES (3, 1)
			query SELECT id, u FROM t
			= 3 | 1
		`)
		_, err := c.ExecContext(context.Background(), fmt.Sprintf("INSERT INTO t VALUES (%d, %d)", 4, 1))
		if sqltest.Errno(err) != 1062 {
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
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Session("d")
		for _, tc := range []struct{ name, ddl, rows string }{
			{"global", "CREATE TABLE g (id INT PRIMARY KEY, u INT, c INT, UNIQUE KEY uu (u) COMMENT 'sqlgw: cover=(c)')", "(1, 1, 10), (2, 2, 20), (3, 3, 30)"},
			{"global one partition", "CREATE TABLE g1 (p INT, id INT, u INT, c INT, PRIMARY KEY (p, id), UNIQUE KEY uu (u))", "(0, 1, 1, 10), (0, 2, 2, 20), (0, 3, 3, 30)"},
			{"local", "CREATE TABLE l (p INT, id INT, u INT, c INT, PRIMARY KEY (p, id), UNIQUE KEY uu (p, u))", "(0, 1, 1, 10), (0, 2, 2, 20), (0, 3, 3, 30)"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				sqltest.NewRunner(t, c).Exec(tc.ddl)
				tb := strings.Fields(tc.ddl)[2]
				sqltest.NewRunner(t, c).Exec("INSERT INTO " + tb + " VALUES " + tc.rows)
				check := func(want ...string) {
					t.Helper()
					sqltest.NewRunner(t, c).ExpectRows("SELECT id, u FROM "+tb+" ORDER BY id", want...)
					for _, w := range want {
						id, u, _ := strings.Cut(w, "\t")
						sqltest.NewRunner(t, c).ExpectRows("SELECT id FROM "+tb+" WHERE u = "+u, id)
						sqltest.NewRunner(t, c).ExpectRows("SELECT id, c FROM "+tb+" WHERE u = "+u, id+"\t"+id+"0")
					}
				}
				// Swap through a free value.
				sqltest.NewRunner(t, c).Exec("BEGIN")
				sqltest.NewRunner(t, c).Exec("UPDATE " + tb + " SET u = 30 WHERE id = 1")
				sqltest.NewRunner(t, c).Exec("UPDATE " + tb + " SET u = 1 WHERE id = 2")
				sqltest.NewRunner(t, c).Exec("UPDATE " + tb + " SET u = 2 WHERE id = 1")
				r0, _ := sqltest.NewRunner(t, c).Status()
				sqltest.NewRunner(t, c).Exec("COMMIT")
				// On the embedded store the rows and their index entities,
				// the value handed over included, are one atomic batch.
				if r1, _ := sqltest.NewRunner(t, c).Status(); strings.Contains(t.Name(), "pebble") && r1-r0 != 1 {
					t.Errorf("COMMIT of the swap: %d store requests, want 1", r1-r0)
				}
				check("1\t2", "2\t1", "3\t3")
				// A three-way rotation in one transaction.
				sqltest.NewRunner(t, c).Exec("BEGIN")
				sqltest.NewRunner(t, c).Exec("UPDATE " + tb + " SET u = 100 + u")
				sqltest.NewRunner(t, c).Exec("UPDATE " + tb + " SET u = 3 WHERE id = 1")
				sqltest.NewRunner(t, c).Exec("UPDATE " + tb + " SET u = 2 WHERE id = 2")
				sqltest.NewRunner(t, c).Exec("UPDATE " + tb + " SET u = 1 WHERE id = 3")
				sqltest.NewRunner(t, c).Exec("COMMIT")
				check("1\t3", "2\t2", "3\t1")
				// A shift in one statement (autocommit), in the order that
				// never duplicates.
				sqltest.NewRunner(t, c).Exec("UPDATE " + tb + " SET u = u + 1 ORDER BY u DESC")
				check("1\t4", "2\t3", "3\t2")
				sqltest.NewRunner(t, c).Exec("UPDATE " + tb + " SET u = u - 1 ORDER BY u")
				check("1\t3", "2\t2", "3\t1")
				// Delete a row and give its value to another.
				sqltest.NewRunner(t, c).Exec("BEGIN")
				sqltest.NewRunner(t, c).Exec("DELETE FROM " + tb + " WHERE id = 3")
				sqltest.NewRunner(t, c).Exec("UPDATE " + tb + " SET u = 1 WHERE id = 2")
				sqltest.NewRunner(t, c).Exec("COMMIT")
				check("1\t3", "2\t1")
				// A concurrent duplicate: the other transaction read before
				// this one committed; exactly one of them wins.
				o := ts.Conn()
				sqltest.NewRunner(t, o).Exec("USE d")
				sqltest.NewRunner(t, c).Exec("BEGIN")
				sqltest.NewRunner(t, c).Exec("UPDATE " + tb + " SET u = 7 WHERE id = 1")
				sqltest.NewRunner(t, o).Exec("BEGIN")
				sqltest.NewRunner(t, o).Exec("UPDATE " + tb + " SET u = 7 WHERE id = 2")
				sqltest.NewRunner(t, c).Exec("COMMIT")
				_, err := o.ExecContext(context.Background(), "COMMIT")
				if sqltest.Errno(err) != 1062 {
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
	sqltest.Long(t) // crashes the store at every request of the commit
	type step struct{ setup, commit []string }
	steps := []step{
		{[]string{"BEGIN", "UPDATE t SET u = 30 WHERE id = 1", "UPDATE t SET u = 1 WHERE id = 2", "UPDATE t SET u = 2 WHERE id = 1"}, []string{"COMMIT"}},
		{nil, []string{"UPDATE t SET u = u + 1 ORDER BY u DESC"}},
		{[]string{"BEGIN", "DELETE FROM t WHERE id = 3", "UPDATE t SET u = 3, c = 0 WHERE id = 1"}, []string{"COMMIT"}},
	}
	for _, st := range steps {
		name := strings.Join(append(st.setup, st.commit...), "; ")
		dup := false
		sqltest.CrashAtEveryRequest(t, sqltest.Crash{
			Name: name,
			Setup: func(r *sqltest.Runner, _ storage.Store) {
				r.ExecAll("CREATE DATABASE d", "USE d",
					"CREATE TABLE t (id INT PRIMARY KEY, u INT, c INT, UNIQUE KEY uu (u) COMMENT 'sqlgw: cover=(c)')",
					"INSERT INTO t VALUES (1, 1, 10), (2, 2, 20), (3, 3, 30)")
				r.ExecAll(st.setup...)
			},
			Op: func(r *sqltest.Runner) {
				for _, q := range st.commit {
					r.Try(q)
				}
			},
			Check: func(r *sqltest.Runner, _ storage.Store, p sqltest.CrashPoint) {
				r.Exec("USE d")
				for u := 1; u <= 4; u++ {
					for _, sel := range []string{"id", "id, c"} {
						got := r.Rows(fmt.Sprintf("SELECT %s FROM t WHERE u = %d ORDER BY id", sel, u))
						want := r.Rows(fmt.Sprintf("SELECT %s FROM t WHERE CONCAT(u) = '%d' ORDER BY id", sel, u))
						if !slices.Equal(got, want) {
							t.Errorf("%s: %s: u = %d: %v, want %v", name, p, u, got, want)
						}
					}
				}
				dup = len(r.Rows("SELECT u FROM t GROUP BY u HAVING COUNT(*) > 1")) > 0
			},
			After: func(store storage.Store, p sqltest.CrashPoint) {
				if mm, err := recoverIndexes(t, store, "d", "t"); err != nil || len(mm) > 0 && !dup {
					t.Errorf("%s: %s: after recovery: %v %v", name, p, mm, err)
				}
			},
		})
	}
}

// rowEntities returns the RowKeys of the entities of partition pk of table
// db.name below the local index entities (a row and its continuations).
func rowEntities(t *testing.T, st storage.Store, co catalog.Options, db, name string, id int) []string {
	t.Helper()
	ctx := context.Background()
	tbl := sqltest.StoreTable(t, st, co, db, name)
	pk, _, err := tbl.EncodePrimaryKey([]catalog.Datum{int64(id)})
	if err != nil {
		t.Fatal(err)
	}
	q := &storage.Query{Partition: storage.Exactly(pk), Row: &storage.KeyRange{High: &storage.Bound{Key: tbl.RowKeyEnd(), Exclusive: true}}, Select: []string{}}
	var out []string
	view := txnView(t, st, co) // without the tombstones kept on the Table service
	for {
		page, err := view.Query(ctx, tbl.Physical, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Entities {
			out = append(out, e.RowKey)
		}
		if page.Continuation == "" {
			return out
		}
		q.Continuation = page.Continuation
	}
}

// TestLargeRowUpdate: a row larger than one store batch is updated (a
// small column, the large value itself, down to a small row and back up),
// reads back whole each time, keeps only its current continuation
// entities, and its local and global index entries follow it.
func TestLargeRowUpdate(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		sqltest.LongOnAzurite(t) // about 20-50 s on Azurite
		st, co := ts.Store, ts.Catalog
		c := ts.Session("d",
			"CREATE TABLE blobs (id INT PRIMARY KEY, name VARCHAR(10), body LONGTEXT, KEY ln (id, name), UNIQUE KEY gn (name))")
		r := sqltest.NewRunner(t, c)
		big := strings.Repeat("0123456789abcdef", 5<<20/16) // 5 MiB
		r.Exec("INSERT INTO blobs VALUES (1, 'small', 'x'), (2, 'huge', ?)", big)
		n0 := len(rowEntities(t, st, co, "d", "blobs", 2))
		if n0 < 4 {
			t.Fatalf("a 5 MiB row has %d entities", n0)
		}
		body := func(want string) {
			t.Helper()
			var got string
			if err := c.QueryRowContext(context.Background(), "SELECT body FROM blobs WHERE id = 2").Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("read back %d bytes, want %d", len(got), len(want))
			}
		}
		names := func(name string) {
			t.Helper()
			r.ExpectRows("SELECT id FROM blobs WHERE id = 2 AND name = '"+name+"'", "2")
			r.ExpectRows("SELECT id FROM blobs WHERE name = '"+name+"'", "2")
			r.ExpectRows("SELECT id, LENGTH(body) FROM blobs WHERE name = '"+name+"'", fmt.Sprintf("2\t%d", len(strings.Join(r.Rows("SELECT body FROM blobs WHERE id = 2"), ""))))
		}
		r.ExpectAffected(1, "UPDATE blobs SET name = 'renamed' WHERE id = 2")
		body(big)
		names("renamed")
		r.ExpectRows("SELECT id FROM blobs WHERE name = 'huge'")
		r.ExpectRows("SELECT id FROM blobs WHERE id = 2 AND name = 'huge'")
		if n := len(rowEntities(t, st, co, "d", "blobs", 2)); n != n0 {
			t.Errorf("after the update: %d entities, want %d (no old generation left)", n, n0)
		}
		big2 := strings.Repeat("fedcba9876543210", 6<<20/16) // 6 MiB
		r.Exec("UPDATE blobs SET body = ? WHERE id = 2", big2)
		body(big2)
		r.Exec("BEGIN")
		r.Exec("UPDATE blobs SET name = 'again' WHERE id = 2")
		r.Exec("UPDATE blobs SET name = 'tiny' WHERE id = 1")
		r.Exec("COMMIT")
		body(big2)
		names("again")
		// Down to one entity, and up again.
		r.Exec("UPDATE blobs SET body = 'short' WHERE id = 2")
		body("short")
		if n := len(rowEntities(t, st, co, "d", "blobs", 2)); n != 1 {
			t.Errorf("a small row keeps %d entities", n)
		}
		r.Exec("UPDATE blobs SET body = ? WHERE id = 2", big)
		body(big)
		names("again")
		r.ExpectRows("SELECT id, name, LENGTH(body) FROM blobs ORDER BY id", "1\ttiny\t1", fmt.Sprintf("2\tagain\t%d", len(big)))
		// A unique conflict of the large row fails cleanly.
		r.ExpectErrno(1062, "UPDATE blobs SET name = 'tiny' WHERE id = 2")
		names("again")
		r.ExpectAffected(1, "DELETE FROM blobs WHERE id = 2")
		if n := len(rowEntities(t, st, co, "d", "blobs", 2)); n != 0 {
			t.Errorf("a deleted row left %d entities", n)
		}
		r.ExpectRows("SELECT id FROM blobs WHERE name = 'again'")
		r.ExpectRows("SELECT id FROM blobs WHERE id = 2 AND name = 'again'")
	})
}

// TestLargeRowUpdateCrash crashes the store at every request of an UPDATE
// of a row larger than one batch (its value and its indexed name): a new
// server reads the old row or the new one, whole, with its local and
// global index entries agreeing; after recovery the indexes equal what the
// rows imply; the row's next update leaves only its own entities.
func TestLargeRowUpdateCrash(t *testing.T) {
	sqltest.Long(t) // crashes the store at every request of the commit
	oldBody := strings.Repeat("a", 3<<20)
	newBody := strings.Repeat("b", 3<<20+5)
	n0 := 0
	sqltest.CrashAtEveryRequest(t, sqltest.Crash{
		Setup: func(r *sqltest.Runner, store storage.Store) {
			r.ExecAll("CREATE DATABASE d", "USE d",
				"CREATE TABLE blobs (id INT PRIMARY KEY, name VARCHAR(10), body LONGTEXT, KEY ln (id, name), UNIQUE KEY gn (name))")
			r.Exec("INSERT INTO blobs VALUES (2, 'old', ?)", oldBody)
			n0 = len(rowEntities(t, store, catalog.Options{}, "d", "blobs", 2))
		},
		Op: func(r *sqltest.Runner) { r.Try("UPDATE blobs SET body = ?, name = 'new' WHERE id = 2", newBody) },
		Check: func(r *sqltest.Runner, store storage.Store, p sqltest.CrashPoint) {
			r.Exec("USE d")
			got := r.Rows("SELECT name, body FROM blobs WHERE id = 2")
			if len(got) != 1 {
				t.Fatalf("%s: reading the row: %d rows", p, len(got))
			}
			name, body, _ := strings.Cut(got[0], "\t")
			switch {
			case name == "old" && body == oldBody, name == "new" && body == newBody:
			default:
				t.Fatalf("%s: a mixed row: name %q, %d bytes", p, name, len(body))
			}
			other := map[string]string{"old": "new", "new": "old"}[name]
			r.ExpectRows("SELECT id FROM blobs WHERE id = 2 AND name = '"+name+"'", "2")
			r.ExpectRows("SELECT id FROM blobs WHERE id = 2 AND name = '" + other + "'")
			r.ExpectRows("SELECT id FROM blobs WHERE name = '"+name+"'", "2")
			r.ExpectRows("SELECT id FROM blobs WHERE name = '" + other + "'")
			// The next update of the row removes what the crash left.
			r.Exec("UPDATE blobs SET body = ? WHERE id = 2", oldBody+"c")
			if got := len(rowEntities(t, store, catalog.Options{}, "d", "blobs", 2)); got != n0 {
				t.Errorf("%s: after the next update the row has %d entities, want %d", p, got, n0)
			}
		},
		After: func(store storage.Store, p sqltest.CrashPoint) {
			if mm, err := recoverIndexes(t, store, "d", "blobs"); err != nil || len(mm) > 0 {
				t.Errorf("%s: after recovery: %v %v", p, mm, err)
			}
		},
	})
}

// TestRenameIndex: ALTER TABLE ... RENAME INDEX is a metadata change (no
// store writes beyond the catalog's); SHOW INDEX and EXPLAIN show the new
// name, lookups and unique enforcement go on, errors are MySQL's.
func TestRenameIndex(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := sqltest.NewRunner(t, ts.Session("d",
			"CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT, KEY ia (a), UNIQUE KEY ub (b), KEY li (id, a))"))
		for i := range 20 {
			c.Exec(fmt.Sprintf("INSERT INTO t VALUES (%d, %d, %d)", i, i%4, i))
		}
		c.Exec("ALTER TABLE t RENAME INDEX ia TO by_a")
		c.Exec("ALTER TABLE t RENAME INDEX ub TO by_b")
		c.Exec("ALTER TABLE t RENAME INDEX li TO LI")
		got := strings.Join(c.Rows("SELECT index_name, non_unique FROM information_schema.statistics WHERE table_schema = 'd' AND table_name = 't' ORDER BY index_name, seq_in_index"), "|")
		if want := "by_a\t1|by_b\t0|LI\t1|LI\t1|PRIMARY\t0"; got != want {
			t.Errorf("statistics after the renames: %q, want %q", got, want)
		}
		if r := strings.Join(c.Rows("SHOW INDEX FROM t"), "\n"); strings.Contains(r, "\tia\t") || !strings.Contains(r, "\tby_a\t") {
			t.Errorf("SHOW INDEX:\n%s", r)
		}
		plan := strings.Join(c.Rows("EXPLAIN SELECT * FROM t WHERE a = 1"), "\n")
		if !strings.Contains(plan, "by_a") {
			t.Errorf("EXPLAIN after the rename:\n%s", plan)
		}
		c.Script(`
			query SELECT id FROM t WHERE a = 1 ORDER BY id
			= 1
			= 5
			= 9
			= 13
			= 17
			query SELECT id FROM t WHERE id = 6 AND a = 2
			= 6
			query SELECT id FROM t WHERE b = 7
			= 7
			error 1062 INSERT INTO t VALUES (100, 0, 7)
			exec UPDATE t SET a = 3 WHERE id = 1
			query SELECT id FROM t WHERE a = 3 ORDER BY id
			= 1
			= 3
			= 7
			= 11
			= 15
			= 19
			# MySQL says 1176 (Key 'ia' doesn't exist); go-mysql-server checks
			# the name itself before the table sees the rename and says 1091.
			error 1091 ALTER TABLE t RENAME INDEX ia TO x
			error 1061 ALTER TABLE t RENAME INDEX by_a TO BY_B
			exec DROP INDEX by_a ON t
			query SELECT COUNT(*) FROM t WHERE a = 3
			= 6
		`)
	})
}

// TestUniqueErrorText: 1062 on a unique secondary key names the values and
// the key as MySQL does, whether found during the statement or at commit.
func TestUniqueErrorText(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Session("d", `
			CREATE TABLE g (id INT PRIMARY KEY, a VARCHAR(5), b INT, UNIQUE KEY uab (a, b))
			CREATE TABLE l (p INT, id INT, a VARCHAR(5), PRIMARY KEY (p, id), UNIQUE KEY ua (p, a))
			INSERT INTO g VALUES (1, 'x', 2)
			INSERT INTO l VALUES (1, 1, 'x')`)
		for _, q := range []struct{ sql, want string }{
			{"INSERT INTO g VALUES (2, 'x', 2)", "Duplicate entry 'x-2' for key 'g.uab'"},          // commit (autocommit plain INSERT)
			{"INSERT INTO l VALUES (1, 2, 'x')", "Duplicate entry '1-x' for key 'l.ua'"},           // commit, local
			{"UPDATE g SET a = 'x', b = 2 WHERE id = 3", ""},                                       // no row
			{"INSERT INTO g (id, a, b) SELECT 5, 'x', 2", "Duplicate entry 'x-2' for key 'g.uab'"}, // statement
			{"INSERT INTO g VALUES (1, 'y', 1)", "Duplicate entry '1' for key 'g.PRIMARY'"},
		} {
			_, err := c.ExecContext(context.Background(), q.sql)
			if q.want == "" {
				if err != nil {
					t.Errorf("%s: %v", q.sql, err)
				}
				continue
			}
			if sqltest.Errno(err) != 1062 || !strings.Contains(err.Error(), q.want) {
				t.Errorf("%s: %v, want 1062 %q", q.sql, err, q.want)
			}
		}
		sqltest.NewRunner(t, c).Exec("INSERT INTO g VALUES (3, 'z', 2)")
		_, err := c.ExecContext(context.Background(), "UPDATE g SET a = 'x' WHERE id = 3")
		if want := "Duplicate entry 'x-2' for key 'g.uab'"; sqltest.Errno(err) != 1062 || !strings.Contains(err.Error(), want) {
			t.Errorf("UPDATE to a duplicate: %v, want %q", err, want)
		}
	})
}

// TestUniqueShiftManyBatches: a shift of local unique values over more
// rows of one partition than one store batch holds commits (the
// partition's batches go in order, releases first), in both directions;
// a cycle of values spread over several batches is refused before
// anything is written (MySQL would accept it: a known limit).
func TestUniqueShiftManyBatches(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := sqltest.NewRunner(t, ts.Session("d",
			"CREATE TABLE l (p INT, id INT, u INT, PRIMARY KEY (p, id), UNIQUE KEY uu (p, u))"))
		var v []string
		for i := range 150 {
			v = append(v, fmt.Sprintf("(0, %d, %d)", i, i))
		}
		c.Exec("INSERT INTO l VALUES " + strings.Join(v, ","))
		c.Script(`
			exec UPDATE l SET u = u + 1 ORDER BY u DESC
			query SELECT COUNT(*), MIN(u), MAX(u) FROM l
			= 150 | 1 | 150
			query SELECT id FROM l WHERE p = 0 AND u = 77
			= 76
			exec UPDATE l SET u = u - 1 ORDER BY u
			query SELECT COUNT(*), MIN(u), MAX(u) FROM l
			= 150 | 0 | 149
			query SELECT id FROM l WHERE p = 0 AND u = 77
			= 77
			# A rotation through free values, in one transaction: a cycle.
			exec BEGIN
			exec UPDATE l SET u = u + 1000
			exec UPDATE l SET u = u - 999 WHERE u < 1149
			exec UPDATE l SET u = 0 WHERE u = 1149
			error 1235 COMMIT
			query SELECT COUNT(*), MIN(u), MAX(u) FROM l
			= 150 | 0 | 149
			query SELECT id FROM l WHERE p = 0 AND u = 77
			= 77
			# The same shift made in two statements, in the order that first
			# wrote the rows ascending: the commit reorders the rows.
			exec BEGIN
			exec UPDATE l SET u = u + 1000
			exec UPDATE l SET u = u - 999
			exec COMMIT
			query SELECT COUNT(*), MIN(u), MAX(u) FROM l
			= 150 | 1 | 150
			query SELECT id FROM l WHERE p = 0 AND u = 77
			= 76
		`)
	})
}

// TestUniqueShiftGlobal: a shift and a rotation (a cycle) of global unique
// values over 150 rows in as many partitions commit, and leave the index
// settled at once (ixmaint.Check: no marked or stale entity, before any
// recovery).
func TestUniqueShiftGlobal(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		st, co := ts.Store, ts.Catalog
		c := sqltest.NewRunner(t, ts.Session("d",
			"CREATE TABLE g (id INT PRIMARY KEY, u INT, UNIQUE KEY uu (u))"))
		var v []string
		for i := range 150 {
			v = append(v, fmt.Sprintf("(%d, %d)", i, i))
		}
		c.Exec("INSERT INTO g VALUES " + strings.Join(v, ","))
		check := func() {
			t.Helper()
			checkIndexes(t, st, co, "d", "g", "index after the commit")
		}
		c.Exec("UPDATE g SET u = u + 1 ORDER BY u DESC")
		c.ExpectRows("SELECT COUNT(*), MIN(u), MAX(u) FROM g", "150\t1\t150")
		c.ExpectRows("SELECT id FROM g WHERE u = 77", "76")
		check()
		c.Script(`
			exec BEGIN
			exec UPDATE g SET u = u + 1000
			exec UPDATE g SET u = u - 999 WHERE u < 1150
			exec UPDATE g SET u = 1 WHERE u = 1150
			exec COMMIT
			query SELECT id FROM g WHERE u = 77
			= 75
			query SELECT id FROM g WHERE u = 1
			= 149
		`)
		check()
	})
}

// TestUniqueBuffer: unique checks against the transaction's own buffered
// rows follow the buffer through statements undone by an error, savepoint
// rollbacks and deletes.
func TestUniqueBuffer(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := sqltest.NewRunner(t, ts.Session("d", `
			CREATE TABLE t (id INT PRIMARY KEY, e VARCHAR(10), UNIQUE KEY ue (e))
			INSERT INTO t VALUES (1, 'a')
			BEGIN`))
		if n := c.Affected("INSERT IGNORE INTO t VALUES (2, 'z'), (3, 'z'), (4, 'a')"); n != 1 {
			t.Errorf("INSERT IGNORE with duplicates among its rows: %d rows, want 1", n)
		}
		// A statement undone by an error releases its values.
		c.Script(`
			error 1062 INSERT INTO t VALUES (5, 'w'), (1, 'x')
			exec INSERT INTO t VALUES (6, 'w')
			# A savepoint rollback restores the values it held.
			exec SAVEPOINT s
			exec UPDATE t SET e = 'v' WHERE id = 6
			exec INSERT INTO t VALUES (7, 'w')
			exec ROLLBACK TO SAVEPOINT s
			error 1062 INSERT INTO t VALUES (8, 'w')
			exec INSERT INTO t VALUES (8, 'v')
			# A statement that moved a value, then failed, gives it back.
			error 1062 UPDATE t SET e = CASE id WHEN 6 THEN 'y' ELSE 'a' END WHERE id IN (6, 8) ORDER BY id
			error 1062 INSERT INTO t VALUES (10, 'w')
			# A deleted row's value is free.
			exec DELETE FROM t WHERE id = 2
			exec INSERT INTO t VALUES (9, 'z')
			error 1062 UPDATE t SET e = 'z' WHERE id = 8
			exec COMMIT
			query SELECT id, e FROM t ORDER BY id
			= 1 | a
			= 6 | w
			= 8 | v
			= 9 | z
		`)
	})
}

// TestUniqueSwapHalfCommitted: a swap whose commit is cut half-way by a
// concurrent change of one of its rows (the commit is not atomic across
// partitions: the client gets the error saying so) leaves two rows with
// one value; the index still finds both, as a scan does.
func TestUniqueSwapHalfCommitted(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Conn()
		r := sqltest.NewRunner(t, c)
		o := sqltest.NewRunner(t, ts.Conn())
		r.Exec("CREATE DATABASE d")
		r.Exec("USE d")
		o.Exec("USE d")
		r.Script(`
			exec CREATE TABLE g (id INT PRIMARY KEY, u INT, n INT, UNIQUE KEY uu (u))
			exec INSERT INTO g VALUES (1, 1, 0), (2, 2, 0)
			exec BEGIN
			exec UPDATE g SET u = 30 WHERE id = 1
			exec UPDATE g SET u = 1 WHERE id = 2
			exec UPDATE g SET u = 2 WHERE id = 1
		`)
		o.Exec("UPDATE g SET n = 5 WHERE id = 2") // row 2 changes under the swap
		_, err := c.ExecContext(context.Background(), "COMMIT")
		if err == nil {
			t.Fatal("COMMIT of a swap whose row changed meanwhile succeeded")
		}
		c.ExecContext(context.Background(), "ROLLBACK")
		for u := 1; u <= 2; u++ {
			want := r.Rows(fmt.Sprintf("SELECT id FROM g WHERE CONCAT(u) = '%d' ORDER BY id", u))
			r.ExpectRows(fmt.Sprintf("SELECT id FROM g WHERE u = %d ORDER BY id", u), want...)
		}
	})
}
