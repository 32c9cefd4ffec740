package main

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// TestInsertLoadSIGKILLPebble kills "sqlgw serve" on Pebble with SIGKILL
// during a concurrent insert load on a table with a global index and a
// global unique index (sysbench's shape: k indexed, plus a unique value),
// from several connections: single-row autocommit INSERTs, multi-row
// INSERTs (some of 80 to 200 rows, sqlgw's bulk path) and BEGIN ... COMMIT
// of a few INSERTs. An insert is acknowledged
// when its statement (or its COMMIT) returned OK. After every kill:
//
//   - straight from the store, before any restart or recovery
//     (ixmaint.Check): every index is exactly what the rows imply, with no
//     mark: a row and its index entities are one atomic, synced Pebble
//     batch (sqlgw/engine/txnindex.go), so a kill leaves nothing to repair;
//   - after the restart, through SQL: every acknowledged row is there with
//     its values, found through both indexes; each statement in flight at
//     the kill is there wholly or not at all; and nothing else is there.
func TestInsertLoadSIGKILLPebble(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the SIGKILL insert test in -short mode")
	}
	runInsertKill(t, pebbleCrashBackend(t, "ins"), 4, 6)
}

const insertKillTable = `CREATE TABLE t (id INT PRIMARY KEY, k INT, u VARCHAR(20), pad VARCHAR(60),
	KEY gk (k) COMMENT 'sqlgw: global',
	UNIQUE KEY uu (u) COMMENT 'sqlgw: global')`

// insertStmt is one write of the load: the ids it inserts, all or none.
type insertStmt struct {
	ids []int
}

func insertKillK(id int) int { return id % 97 }

func runInsertKill(t *testing.T, be crashBackend, kills, conns int) {
	ctx := context.Background()
	sqltest.QuietDriver(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 15))

	g := startGateway(t, nil, "--store", be.store)
	g.MustBeReady(t, "not ready")
	admin := sqltest.NewRunner(t, g.Client(t))
	admin.Exec("CREATE DATABASE " + be.db)
	admin.Exec(strings.Replace(insertKillTable, "TABLE t", "TABLE "+be.db+".t", 1))

	acked := map[int]bool{}    // ids acknowledged
	var inFlight []insertStmt  // statements whose outcome the kill hid
	next := make([]int, conns) // each connection's next id
	for c := range next {
		next[c] = c * 10_000_000
	}
	var mu sync.Mutex
	var errMu sync.Mutex
	errorf := func(format string, args ...any) {
		errMu.Lock()
		defer errMu.Unlock()
		t.Errorf(format, args...)
	}
	values := func(ids []int) string {
		var vs []string
		for _, id := range ids {
			vs = append(vs, fmt.Sprintf("(%d, %d, 'u%d', 'pad-%d-%s')", id, insertKillK(id), id, id, strings.Repeat("x", 30)))
		}
		return strings.Join(vs, ", ")
	}
	total := 0
	gws, _ := sqltest.RunKillRounds(t, []*sqltest.Process{g}, sqltest.KillRounds{
		Rounds: kills,
		Pause:  func(int) time.Duration { return time.Duration(1000+rng.IntN(2000)) * time.Millisecond },
		Load: func(round int, gws []*sqltest.Process, killed *atomic.Bool) func() {
			return gws[0].Writers(t, conns, be.db, func(c int, db *sql.DB) {
				r := rand.New(rand.NewPCG(seed, uint64(round*100+c)))
				conn, err := db.Conn(ctx)
				if err != nil {
					errorf("connection %d: %v", c, err)
					return
				}
				defer conn.Close()
				for {
					n := 1
					switch x := r.IntN(10); {
					case x < 3:
						n = 2 + r.IntN(40) // a multi-row INSERT
					case x == 3:
						n = -(2 + r.IntN(4)) // BEGIN, -n INSERTs, COMMIT
					case x == 4:
						// A bulk INSERT of over 4 KiB, run with only its
						// first tuple parsed (sqlgw/engine
						// directinsert_values.go).
						n = 80 + r.IntN(120)
					}
					var ids []int
					var err error
					if n > 0 {
						for i := 0; i < n; i++ {
							ids = append(ids, next[c])
							next[c]++
						}
						_, err = conn.ExecContext(ctx, "INSERT INTO t VALUES "+values(ids))
					} else {
						_, err = conn.ExecContext(ctx, "BEGIN")
						for i := 0; i < -n && err == nil; i++ {
							ids = append(ids, next[c])
							next[c]++
							_, err = conn.ExecContext(ctx, "INSERT INTO t VALUES "+values(ids[len(ids)-1:]))
						}
						if err == nil {
							_, err = conn.ExecContext(ctx, "COMMIT")
						}
					}
					mu.Lock()
					switch classify(err) {
					case errNone:
						for _, id := range ids {
							acked[id] = true
						}
						mu.Unlock()
						continue
					case errConn:
						inFlight = append(inFlight, insertStmt{ids: ids})
						if !killed.Load() {
							errorf("connection %d: %v while the server was running", c, err)
						}
					default:
						errorf("connection %d: inserting %v: %v", c, ids, err)
						inFlight = append(inFlight, insertStmt{ids: ids})
					}
					mu.Unlock()
					return
				}
			})
		},
		// Straight from the store: the indexes are exact, unmarked.
		Crashed: func(round int) {
			if mm := checkStore(t, be, 0); len(mm) > 0 {
				t.Fatalf("round %d: after SIGKILL, before any recovery: %d index entities differ from the rows, first %+v", round, len(mm), mm[0])
			}
		},
		Restart: func(int) *sqltest.Process { return startGateway(t, nil, "--store", be.store) },
		Check: func(round int, gws []*sqltest.Process) {
			db := gws[0].Client(t)
			present := map[int]bool{}
			rows, err := db.QueryContext(ctx, "SELECT id, k, u FROM "+be.db+".t")
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var id, k int
				var u string
				if err := rows.Scan(&id, &k, &u); err != nil {
					t.Fatal(err)
				}
				if k != insertKillK(id) || u != fmt.Sprintf("u%d", id) {
					t.Errorf("round %d: row %d has k=%d u=%s", round, id, k, u)
				}
				present[id] = true
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			rows.Close()
			lost := 0
			for id := range acked {
				if !present[id] {
					lost++
					if lost < 10 {
						t.Errorf("round %d: acknowledged row %d is missing after SIGKILL", round, id)
					}
				}
			}
			if lost > 0 {
				t.Fatalf("round %d: %d of %d acknowledged rows lost", round, lost, len(acked))
			}
			known := map[int]bool{}
			committed := 0
			for _, st := range inFlight {
				n := 0
				for _, id := range st.ids {
					known[id] = true
					if present[id] {
						n++
					}
				}
				if n != 0 && n != len(st.ids) {
					t.Errorf("round %d: a statement in flight at the kill left %d of its %d rows %v", round, n, len(st.ids), st.ids)
				}
				if n == len(st.ids) {
					committed++
					for _, id := range st.ids {
						acked[id] = true
					}
				}
			}
			for id := range present {
				if !acked[id] && !known[id] {
					t.Errorf("round %d: row %d is there but was never written", round, id)
				}
			}
			t.Logf("round %d: %d acknowledged rows all present; %d of %d statements in flight at the kill had committed", round, len(acked), committed, len(inFlight))
			inFlight = nil
			// Through the indexes, as a scan sees it.
			for _, k := range []int{0, 1, 13, 50, 96} {
				var byIndex, byScan int
				if err := db.QueryRowContext(ctx, fmt.Sprintf("SELECT COUNT(*) FROM %s.t WHERE k = %d", be.db, k)).Scan(&byIndex); err != nil {
					t.Fatal(err)
				}
				if err := db.QueryRowContext(ctx, fmt.Sprintf("SELECT COUNT(*) FROM %s.t WHERE CONCAT(k) = '%d'", be.db, k)).Scan(&byScan); err != nil {
					t.Fatal(err)
				}
				if byIndex != byScan {
					t.Errorf("round %d: k = %d: %d rows through the index, %d by a scan", round, k, byIndex, byScan)
				}
			}
			n := 0
			for id := range acked {
				if n++; n > 200 {
					break
				}
				var got int
				if err := db.QueryRowContext(ctx, fmt.Sprintf("SELECT id FROM %s.t WHERE u = 'u%d'", be.db, id)).Scan(&got); err != nil || got != id {
					t.Errorf("round %d: u = 'u%d' through the unique index: %d, %v", round, id, got, err)
				}
			}
			total = len(acked)
		},
	})
	gws[0].Stop(t)
	t.Logf("%d kills, %d acknowledged rows", kills, total)
}
