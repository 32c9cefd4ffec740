package sqlgw_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/catalog/ixmaint"
	"github.com/sqlgw/sqlgw/storage"
)

// checkIndexes fails t unless every index of db.name equals what its rows
// imply (ixmaint.Check: no missing, stale or marked entity).
func checkIndexes(t *testing.T, st storage.Store, co catalog.Options, db, name, what string) {
	t.Helper()
	ctx := context.Background()
	cat, err := catalog.Open(ctx, st, co)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := cat.Table(ctx, db, name)
	if err != nil {
		t.Fatal(err)
	}
	mm, err := ixmaint.Check(ctx, st, tbl)
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
	forEachBackendStore(t, func(t *testing.T, ts *testServer, st storage.Store, co catalog.Options) {
		mustExec(t, ts.db, "CREATE DATABASE ur")
		mustExec(t, ts.db, "CREATE TABLE ur.t (p INT, id INT, e VARCHAR(20), PRIMARY KEY (p, id), UNIQUE KEY ue (e) COMMENT 'sqlgw: global')")
		const writers = 3
		conns := make([]*sql.Conn, writers)
		for i := range conns {
			conns[i] = ts.conn()
		}
		id := 0
		for round := range 12 {
			multi := round%2 == 0
			var wg sync.WaitGroup
			errs := make([]error, writers)
			start := make(chan struct{})
			for w := range writers {
				var stmts []string
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
					stmts = []string{"BEGIN", "INSERT INTO ur.t VALUES " + strings.Join(vals, ", "), "COMMIT"}
				} else {
					id++
					stmts = []string{fmt.Sprintf("INSERT INTO ur.t VALUES (%d, %d, 'same%d')", id%3, id, round)}
				}
				wg.Add(1)
				go func(c *sql.Conn, stmts []string) {
					defer wg.Done()
					<-start
					for _, q := range stmts {
						if _, err := c.ExecContext(context.Background(), q); err != nil {
							errs[w] = err
							c.ExecContext(context.Background(), "ROLLBACK")
							return
						}
					}
				}(conns[w], stmts)
			}
			close(start)
			wg.Wait()
			won := 0
			for w, err := range errs {
				switch {
				case err == nil:
					won++
				case mysqlErrno(err) != 1062:
					t.Errorf("round %d writer %d: %v, want 1062", round, w, err)
				}
			}
			if won != 1 {
				t.Errorf("round %d (multi-partition %v): %d transactions committed, want 1 (%v)", round, multi, won, errs)
			}
			expectRows(t, ts.db, fmt.Sprintf("SELECT COUNT(*) FROM ur.t WHERE e = 'same%d'", round), "1")
			expectRows(t, ts.db, fmt.Sprintf("SELECT COUNT(*) FROM ur.t WHERE CONCAT(e) = 'same%d'", round), "1")
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
	forEachBackendStore(t, func(t *testing.T, ts *testServer, st storage.Store, co catalog.Options) {
		mustExec(t, ts.db, "CREATE DATABASE us")
		mustExec(t, ts.db, "CREATE TABLE us.t (id INT PRIMARY KEY, u INT, UNIQUE KEY uu (u) COMMENT 'sqlgw: global')")
		mustExec(t, ts.db, "INSERT INTO us.t VALUES (1, 1), (2, 2)")
		a, b := ts.conn(), ts.conn()
		for round := range 6 {
			mustExec(t, a, "BEGIN")
			mustExec(t, a, "UPDATE us.t SET u = 30 WHERE id = 1")
			mustExec(t, a, "UPDATE us.t SET u = 1 WHERE id = 2")
			mustExec(t, a, "UPDATE us.t SET u = 2 WHERE id = 1")
			var wg sync.WaitGroup
			var errA, errB error
			wg.Add(2)
			go func() { defer wg.Done(); _, errA = a.ExecContext(context.Background(), "COMMIT") }()
			go func() {
				defer wg.Done()
				_, errB = b.ExecContext(context.Background(), fmt.Sprintf("INSERT INTO us.t VALUES (%d, %d)", 100+round, 1+round%2))
			}()
			wg.Wait()
			if errA != nil && mysqlErrno(errA) != 1213 {
				t.Errorf("round %d: swap: %v", round, errA)
			}
			if mysqlErrno(errB) != 1062 {
				t.Errorf("round %d: insert of a held value: %v, want 1062", round, errB)
			}
			expectRows(t, ts.db, "SELECT COUNT(*) FROM us.t", "2")
			checkIndexes(t, st, co, "us", "t", fmt.Sprintf("round %d", round))
		}
	})
}

// TestUniqueKeyAndValueUpdate: one UPDATE changing both the primary key
// and the globally indexed values of rows (the row moves: a delete and an
// insert, the unique value released by the old key and taken by the new
// one, or changed with it) leaves indexes equal to the rows.
func TestUniqueKeyAndValueUpdate(t *testing.T) {
	forEachBackendStore(t, func(t *testing.T, ts *testServer, st storage.Store, co catalog.Options) {
		mustExec(t, ts.db, "CREATE DATABASE kv")
		mustExec(t, ts.db, "CREATE TABLE kv.t (id INT PRIMARY KEY, u INT, a INT, UNIQUE KEY uu (u) COMMENT 'sqlgw: global', KEY ga (a) COMMENT 'sqlgw: global')")
		mustExec(t, ts.db, "INSERT INTO kv.t VALUES (1, 1, 5), (2, 2, 5), (3, 3, 6)")
		mustExec(t, ts.db, "UPDATE kv.t SET id = id + 10, a = a + 1 WHERE id < 3")
		checkIndexes(t, st, co, "kv", "t", "key moved, unique value kept")
		expectRows(t, ts.db, "SELECT id FROM kv.t WHERE u = 1", "11")
		mustExec(t, ts.db, "UPDATE kv.t SET id = id + 10, u = u + 10 WHERE id > 10")
		checkIndexes(t, st, co, "kv", "t", "key and unique value moved")
		expectRows(t, ts.db, "SELECT id FROM kv.t WHERE u = 11", "21")
		expectRows(t, ts.db, "SELECT id FROM kv.t WHERE u = 1")
		// The key of one row moves onto the key another row leaves, the
		// unique value shifting with it.
		mustExec(t, ts.db, "UPDATE kv.t SET id = id - 1, u = u - 1 ORDER BY id")
		checkIndexes(t, st, co, "kv", "t", "keys and values shifted")
		expectRows(t, ts.db, "SELECT id, u, a FROM kv.t ORDER BY id", "2\t2\t6", "20\t10\t6", "21\t11\t6")
		expectRows(t, ts.db, "SELECT id FROM kv.t WHERE u = 10", "20")
		expectRows(t, ts.db, "SELECT COUNT(*) FROM kv.t WHERE a = 6", "3")
	})
}
