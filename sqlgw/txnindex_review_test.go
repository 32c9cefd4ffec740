package sqlgw_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/catalog/ixmaint"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage"
)

// checkIndexes fails t unless every index of db.name equals what its rows
// imply (ixmaint.Check: no missing, stale or marked entity).
func checkIndexes(t *testing.T, st storage.Store, co catalog.Options, db, name, what string) {
	t.Helper()
	ctx := context.Background()
	tbl := sqltest.StoreTable(t, st, co, db, name)
	mm, err := ixmaint.Check(ctx, txnView(t, st, co), tbl)
	if err != nil {
		t.Fatal(err)
	}
	if len(mm) > 0 {
		t.Fatalf("%s: %d index mismatches, first %+v", what, len(mm), mm[0])
	}
}

// TestUniqueRaceTransactions: connections committing, at the same time,
// transactions that insert one value of a global unique index (each
// transaction over three partitions: one Pebble batch with the index
// entities, a transaction record with index groups on the Table service;
// and single-row autocommit INSERTs): exactly one commits, every other
// gets 1062, and the index then equals the rows.
func TestUniqueRaceTransactions(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		st, co, r := ts.Store, ts.Catalog, sqltest.NewRunner(t, ts.DB)
		r.Exec("CREATE DATABASE ur")
		r.Exec("CREATE TABLE ur.t (p INT, id INT, e VARCHAR(20), PRIMARY KEY (p, id), UNIQUE KEY ue (e) COMMENT 'sqlgw: global')")
		const writers = 3
		conns := make([]*sql.Conn, writers)
		for i := range conns {
			conns[i] = ts.Conn()
		}
		id := 0
		for round := range 12 {
			multi := round%2 == 0
			stmts := make([][]string, writers)
			for w := range writers {
				if multi {
					var vals []string
					for p := range 3 {
						id++
						e := fmt.Sprintf("'x%d'", id)
						if p == w%3 {
							e = fmt.Sprintf("'same%d'", round)
						}
						vals = append(vals, fmt.Sprintf("(%d, %d, %s)", p, id, e))
					}
					stmts[w] = []string{"BEGIN", "INSERT INTO ur.t VALUES " + strings.Join(vals, ", "), "COMMIT"}
				} else {
					id++
					stmts[w] = []string{fmt.Sprintf("INSERT INTO ur.t VALUES (%d, %d, 'same%d')", id%3, id, round)}
				}
			}
			errs := sqltest.Race(conns, stmts)
			won := 0
			for w, err := range errs {
				switch {
				case err == nil:
					won++
				case sqltest.Errno(err) != 1062:
					t.Errorf("round %d writer %d: %v, want 1062", round, w, err)
				}
			}
			if won != 1 {
				t.Errorf("round %d (multi-partition %v): %d transactions committed, want 1 (%v)", round, multi, won, errs)
			}
			r.ExpectRows(fmt.Sprintf("SELECT COUNT(*) FROM ur.t WHERE e = 'same%d'", round), "1")
			r.ExpectRows(fmt.Sprintf("SELECT COUNT(*) FROM ur.t WHERE CONCAT(e) = 'same%d'", round), "1")
			checkIndexes(t, st, co, "ur", "t", fmt.Sprintf("round %d", round))
		}
	})
}

// TestUniqueSwapRaceInsert: one connection swaps two values of a global
// unique index in a transaction (their entities handed from row to row,
// one update each in the atomic commit) while another inserts one of the
// values: the insert must get 1062 whichever commits first, and the index
// equals the rows after each round.
func TestUniqueSwapRaceInsert(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		st, co, r := ts.Store, ts.Catalog, sqltest.NewRunner(t, ts.DB)
		r.Script(`
			exec CREATE DATABASE us
			exec CREATE TABLE us.t (id INT PRIMARY KEY, u INT, UNIQUE KEY uu (u) COMMENT 'sqlgw: global')
			exec INSERT INTO us.t VALUES (1, 1), (2, 2)
		`)
		a, b := ts.Conn(), ts.Conn()
		for round := range 6 {
			sqltest.NewRunner(t, a).ExecAll("BEGIN", "UPDATE us.t SET u = 30 WHERE id = 1", "UPDATE us.t SET u = 1 WHERE id = 2", "UPDATE us.t SET u = 2 WHERE id = 1")
			errs := sqltest.Race([]*sql.Conn{a, b}, [][]string{{"COMMIT"}, {fmt.Sprintf("INSERT INTO us.t VALUES (%d, %d)", 100+round, 1+round%2)}})
			errA, errB := errs[0], errs[1]
			if errA != nil && sqltest.Errno(errA) != 1213 {
				t.Errorf("round %d: swap: %v", round, errA)
			}
			if sqltest.Errno(errB) != 1062 {
				t.Errorf("round %d: insert of a held value: %v, want 1062", round, errB)
			}
			r.ExpectRows("SELECT COUNT(*) FROM us.t", "2")
			checkIndexes(t, st, co, "us", "t", fmt.Sprintf("round %d", round))
		}
	})
}

// TestUniqueKeyAndValueUpdate: one UPDATE changing both the primary key
// and the globally indexed values of rows (the row moves: a delete and an
// insert, the unique value released by the old key and taken by the new
// one, or changed with it) leaves indexes equal to the rows.
func TestUniqueKeyAndValueUpdate(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		st, co, r := ts.Store, ts.Catalog, sqltest.NewRunner(t, ts.DB)
		r.Script(`
			exec CREATE DATABASE kv
			exec CREATE TABLE kv.t (id INT PRIMARY KEY, u INT, a INT, UNIQUE KEY uu (u) COMMENT 'sqlgw: global', KEY ga (a) COMMENT 'sqlgw: global')
			exec INSERT INTO kv.t VALUES (1, 1, 5), (2, 2, 5), (3, 3, 6)
			exec UPDATE kv.t SET id = id + 10, a = a + 1 WHERE id < 3
		`)
		checkIndexes(t, st, co, "kv", "t", "key moved, unique value kept")
		r.ExpectRows("SELECT id FROM kv.t WHERE u = 1", "11")
		r.Exec("UPDATE kv.t SET id = id + 10, u = u + 10 WHERE id > 10")
		checkIndexes(t, st, co, "kv", "t", "key and unique value moved")
		r.Script(`
			query SELECT id FROM kv.t WHERE u = 11
			= 21
			query SELECT id FROM kv.t WHERE u = 1
			# The key of one row moves onto the key another row leaves, the
			# unique value shifting with it.
			exec UPDATE kv.t SET id = id - 1, u = u - 1 ORDER BY id
		`)
		checkIndexes(t, st, co, "kv", "t", "keys and values shifted")
		r.Script(`
			query SELECT id, u, a FROM kv.t ORDER BY id
			= 2 | 2 | 6
			= 20 | 10 | 6
			= 21 | 11 | 6
			query SELECT id FROM kv.t WHERE u = 10
			= 20
			query SELECT COUNT(*) FROM kv.t WHERE a = 6
			= 3
		`)
	})
}

// leaveMarks runs the previous version's index protocol step 1 (ixmaint
// Begin, an hour ago) for a write of row id of db.name changing column
// col to val, and stops there, as a gateway of that version crashing
// before the row's commit: a new entity marked and the row's old one
// marked, the row unchanged.
func leaveMarks(t *testing.T, st storage.Store, co catalog.Options, db, name string, id int64, col int, val any) {
	t.Helper()
	ctx := context.Background()
	tbl := sqltest.StoreTable(t, st, co, db, name)
	pk, rk, err := tbl.EncodePrimaryKey([]catalog.Datum{id})
	if err != nil {
		t.Fatal(err)
	}
	st = txnView(t, st, co)
	old, _, ok, err := ixmaint.GetRow(ctx, st, tbl, pk, rk)
	if err != nil || !ok {
		t.Fatalf("row %d: %v %v", id, ok, err)
	}
	nw := append([]catalog.Datum(nil), old...)
	nw[col] = val
	m := &ixmaint.Maintainer{Store: st, Now: func() time.Time { return time.Now().Add(-time.Hour) }}
	if _, err := m.Begin(ctx, tbl, []ixmaint.Write{{OldPK: pk, OldRK: rk, Old: old, PK: pk, RK: rk, New: nw}}); err != nil {
		t.Fatal(err)
	}
}

// TestIndexWritesOverOldMarks: the upgrade path. Entities the previous
// version's index protocol left marked (its gateway stopped between the
// marks and the row) meet this version's atomic form: a delete, an update
// and an insert of a value whose stale marked entity is still there each
// give the right answer, and after recovery the indexes equal the rows.
func TestIndexWritesOverOldMarks(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		st, co, r := ts.Store, ts.Catalog, sqltest.NewRunner(t, ts.DB)
		r.Script(`
			exec CREATE DATABASE om
			exec CREATE TABLE om.t (id INT PRIMARY KEY, u INT, a INT, UNIQUE KEY uu (u) COMMENT 'sqlgw: global', KEY ga (a) COMMENT 'sqlgw: global')
			exec INSERT INTO om.t VALUES (1, 1, 10), (2, 2, 20), (3, 3, 30), (4, 4, 40)
		`)
		leaveMarks(t, st, co, "om", "t", 1, 1, int64(5))  // u 1 -> 5, never committed
		leaveMarks(t, st, co, "om", "t", 2, 2, int64(21)) // a 20 -> 21
		leaveMarks(t, st, co, "om", "t", 3, 1, int64(6))  // u 3 -> 6
		leaveMarks(t, st, co, "om", "t", 4, 1, int64(7))  // u 4 -> 7
		r.Script(`
			query SELECT id FROM om.t WHERE u = 5
			query SELECT id FROM om.t WHERE u = 1
			= 1
			# A delete of a row whose entity is marked.
			exec DELETE FROM om.t WHERE id = 1
			# The value its stale marked entity names, taken by another row.
			exec INSERT INTO om.t VALUES (5, 5, 50)
			# An update of a row whose old and new entities are marked.
			exec UPDATE om.t SET a = 22 WHERE id = 2
			# An update to the very value the stale mark names.
			exec UPDATE om.t SET u = 6 WHERE id = 3
			# A value swap between a marked row and another, in one transaction.
			exec BEGIN
			exec UPDATE om.t SET u = 100 WHERE id = 4
			exec UPDATE om.t SET u = 4 WHERE id = 5
			exec UPDATE om.t SET u = 5 WHERE id = 4
			exec COMMIT
			error 1062 INSERT INTO om.t VALUES (9, 6, 0)
			query SELECT id, u, a FROM om.t ORDER BY id
			= 2 | 2 | 22
			= 3 | 6 | 30
			= 4 | 5 | 40
			= 5 | 4 | 50
		`)
		for _, w := range []string{"u = 1", "u = 4", "u = 5", "u = 6", "u = 7", "a = 20", "a = 21", "a = 22", "a = 50"} {
			got := r.Rows("SELECT id FROM om.t WHERE " + w + " ORDER BY id")
			want := r.Rows("SELECT id FROM om.t WHERE CONCAT(" + w + ") ORDER BY id")
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("WHERE %s: %v through the index, %v by a scan", w, got, want)
			}
		}
		ctx := context.Background()
		tbl := sqltest.StoreTable(t, st, co, "om", "t")
		if _, err := (&ixmaint.Maintainer{Store: txnView(t, st, co)}).Recover(ctx, tbl, true); err != nil {
			t.Fatal(err)
		}
		checkIndexes(t, st, co, "om", "t", "after recovery")
	})
}
