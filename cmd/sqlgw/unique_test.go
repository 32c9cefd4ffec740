package main

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// TestConcurrentDuplicatesPebble and ...Azurite: N connections to a
// "sqlgw serve" process insert (or update to) the same unique value at the
// same moment, round after round: exactly one statement succeeds, every
// other fails with 1062, and exactly one row holds the value, read
// through the index and by a scan. One table carries a unique global index
// (the rows are in different partitions) and a unique local index (the
// rows share a partition).
func TestConcurrentDuplicatesPebble(t *testing.T) {
	runConcurrentDuplicates(t, "pebble:"+t.TempDir(), "dups", 30)
}

func TestConcurrentDuplicatesAzurite(t *testing.T) {
	runConcurrentDuplicates(t, azureStore(t), uniqueDB("dups"), 10)
}

func runConcurrentDuplicates(t *testing.T, store, dbName string, rounds int) {
	const conns = 8
	g := startGateway(t, nil, "--store", store)
	g.MustBeReady(t, "not ready")
	db := g.Client(t)
	rdb := sqltest.NewRunner(t, db)
	rdb.Exec("CREATE DATABASE " + dbName)
	tb := dbName + ".t"
	rdb.Exec("CREATE TABLE " + tb + ` (p INT, id INT, e VARCHAR(20), f INT, PRIMARY KEY (p, id),
		UNIQUE KEY ue (e) COMMENT 'sqlgw: global', UNIQUE KEY lf (p, f) COMMENT 'sqlgw: local')
		COMMENT 'sqlgw: partition_key=(p)'`)
	// SHOW INDEX names the kinds this test means to exercise.
	var kinds []string
	rows, err := db.Query("SELECT index_name, index_comment FROM information_schema.statistics WHERE table_schema = ? AND table_name = 't' AND index_name <> 'PRIMARY' AND seq_in_index = 1 ORDER BY index_name", dbName)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n, c string
		if err := rows.Scan(&n, &c); err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, n+": "+c)
	}
	rows.Close()
	if got := strings.Join(kinds, "; "); got != "lf: sqlgw: local; ue: sqlgw: global" {
		t.Fatalf("index kinds: %s", got)
	}

	db.SetMaxOpenConns(conns + 1)
	cs := make([]*sql.Conn, conns)
	for i := range cs {
		c, err := db.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		cs[i] = c
	}
	// race runs stmt(i) on every connection at once and returns the
	// indexes of the ones that succeeded.
	race := func(what string, stmt func(i int) (string, []any)) []int {
		t.Helper()
		var mu sync.Mutex
		var won []int
		var wg sync.WaitGroup
		startc := make(chan struct{})
		for i, c := range cs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				q, args := stmt(i)
				<-startc
				for attempt := 0; ; attempt++ {
					_, err := c.ExecContext(context.Background(), q, args...)
					switch {
					case err == nil:
						mu.Lock()
						won = append(won, i)
						mu.Unlock()
					case retryable(err) && attempt < 100:
						time.Sleep(time.Millisecond)
						continue
					case sqltest.Errno(err) != 1062:
						t.Errorf("%s: connection %d: %s: %v, want success or 1062", what, i, q, err)
					}
					return
				}
			}()
		}
		close(startc)
		wg.Wait()
		if len(won) != 1 {
			t.Errorf("%s: %d statements succeeded (%v), want exactly 1", what, len(won), won)
		}
		return won
	}
	// count checks that one row matches, through the index (where) and by
	// a scan (scan: the column hidden from the planner in CONCAT).
	count := func(what, where, scan string, args ...any) {
		t.Helper()
		for _, w := range []string{where, scan} {
			var n int
			if err := db.QueryRow("SELECT COUNT(*) FROM "+tb+" WHERE "+w, args...).Scan(&n); err != nil {
				t.Fatalf("%s: %v", w, err)
			}
			if n != 1 {
				t.Errorf("%s: WHERE %s %v: %d rows, want 1", what, w, args, n)
			}
		}
	}
	start := time.Now()
	for r := range rounds {
		// Global unique: one value, rows in eight partitions.
		e := fmt.Sprintf("g%d", r)
		race("insert "+e, func(i int) (string, []any) {
			return "INSERT INTO " + tb + " VALUES (?, ?, ?, ?)", []any{i, r*conns + i, e, r*conns + i}
		})
		count("insert "+e, "e = ?", "CONCAT(e) = ?", e)
		// Local unique: one (p, f), rows in one partition.
		p := 1000 + r
		race(fmt.Sprintf("insert p=%d f=7", p), func(i int) (string, []any) {
			return "INSERT INTO " + tb + " VALUES (?, ?, NULL, 7)", []any{p, i}
		})
		count(fmt.Sprintf("insert p=%d f=7", p), "p = ? AND f = ?", "p = ? AND CONCAT(f) = ?", p, 7)
		// Updates of eight existing rows (of the first insert round, one
		// each) to one new value.
		if r == 0 {
			for i := range conns {
				rdb.Exec("INSERT INTO "+tb+" VALUES (?, ?, ?, ?)", 2000+i, i, fmt.Sprintf("u-%d", i), i)
			}
		}
		e = fmt.Sprintf("up%d", r)
		race("update to "+e, func(i int) (string, []any) {
			return "UPDATE " + tb + " SET e = ? WHERE p = ? AND id = ?", []any{e, 2000 + i, i}
		})
		count("update to "+e, "e = ?", "CONCAT(e) = ?", e)
	}
	var explain string
	if err := db.QueryRow("EXPLAIN SELECT COUNT(*) FROM "+tb+" WHERE e = 'g0'").Scan(new(any), new(any), new(any), new(any), new(any), new(any), new(any), new(any), new(any), new(any), new(any), &explain); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(explain, "index ue") {
		t.Errorf("EXPLAIN of the indexed count: %s", explain)
	}
	t.Logf("%d rounds of %d connections racing 3 ways in %v", rounds, conns, time.Since(start).Round(time.Millisecond))
}

// TestAutocommitAfterFailedCommit: a COMMIT that fails (here with 1062: a
// unique value the transaction took was taken by another session between
// its UPDATE and its COMMIT) ends the transaction, so the session's next
// autocommit statements commit. Found by TestIndexCrashSIGKILLPebble: the
// session stayed "inside BEGIN" (go-mysql-server's COMMIT clears that only
// after a successful commit), acknowledged autocommit INSERTs were only
// buffered, and they vanished with the session.
func TestAutocommitAfterFailedCommit(t *testing.T) {
	g := startGateway(t, nil, "--store", "pebble:"+t.TempDir())
	g.MustBeReady(t, "not ready")
	db := g.Client(t)
	rdb := sqltest.NewRunner(t, db)
	rdb.Script(`
		exec CREATE DATABASE fc
		exec CREATE TABLE fc.t (id INT PRIMARY KEY, u INT, v VARCHAR(20), UNIQUE KEY uu (u))
		exec INSERT INTO fc.t VALUES (1, 1, 'a')
	`)
	ctx := context.Background()
	// Session A on a pool of its own, so that closing it ends the session.
	dbA := g.Client(t)
	a, err := dbA.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for _, q := range []string{"BEGIN", "UPDATE fc.t SET u = 500 WHERE id = 1"} {
		if _, err := a.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	rdb.Exec("INSERT INTO fc.t VALUES (2, 500, 'thief')") // another session
	if _, err := a.ExecContext(ctx, "COMMIT"); sqltest.Errno(err) != 1062 {
		t.Fatalf("COMMIT: %v, want 1062", err)
	}
	// Autocommit again: this INSERT is committed when it returns.
	if _, err := a.ExecContext(ctx, "INSERT INTO fc.t VALUES (3, 3, 'after')"); err != nil {
		t.Fatalf("INSERT after the failed COMMIT: %v", err)
	}
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM fc.t WHERE id = 3").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("another session sees %d rows with id 3 after the INSERT returned, want 1 (the session is still in the failed transaction)", n)
	}
	a.Close()
	dbA.Close()
	if err := db.QueryRow("SELECT COUNT(*) FROM fc.t WHERE id = 3").Scan(&n); err != nil || n != 1 {
		t.Errorf("after the session closed: %d rows with id 3 (%v), want 1", n, err)
	}
	var u int
	if err := db.QueryRow("SELECT u FROM fc.t WHERE id = 1").Scan(&u); err != nil || u != 1 {
		t.Errorf("row 1: u = %d (%v), want 1 (the failed transaction rolled back)", u, err)
	}
}
