package main

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
	"github.com/sqlgw/sqlgw/catalog/ixmaint"
	"github.com/sqlgw/sqlgw/catalog/txn"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// TestIndexBuildSIGKILLPebble kills "sqlgw serve" on Pebble with SIGKILL
// while CREATE INDEX backfills a global index and writers update, insert
// and delete rows, then restarts it: the restart resumes the build, and
// once the index is ready, the store (opened directly, the marks of the
// writers killed mid-protocol resolved as the sweep resolves them once
// their lease is over) holds exactly the entries the rows imply. The
// backfill's pages check their rows without rewriting them and keep the
// writers' marks (catalog/ixmaint, backfillAtomic); a lost mark or a page
// written amid a writer's protocol would leave a stale entry here.
func TestIndexBuildSIGKILLPebble(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the SIGKILL index build test in -short mode")
	}
	ctx := context.Background()
	sqltest.QuietDriver(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 17))
	be := pebbleCrashBackend(t, "ibk")
	const rows = 40_000
	g := startGateway(t, nil, "--store", be.store)
	g.MustBeReady(t, "not ready")
	admin := sqltest.NewRunner(t, g.Client(t))
	admin.Exec("CREATE DATABASE " + be.db)
	admin.Exec("CREATE TABLE " + be.db + ".t (id INT PRIMARY KEY, k INT, c INT)")
	for start := 0; start < rows; start += 1000 {
		var vs []string
		for id := start; id < start+1000; id++ {
			vs = append(vs, fmt.Sprintf("(%d, %d, %d)", id, id%101, id))
		}
		admin.Exec("INSERT INTO " + be.db + ".t VALUES " + strings.Join(vs, ","))
	}
	killed := 0
	for round := range 4 {
		name := fmt.Sprintf("g%d", round)
		db := g.Client(t)
		var stop atomic.Bool
		var wg sync.WaitGroup
		var writes atomic.Int64
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rand.New(rand.NewPCG(seed+uint64(round), uint64(w)))
				for next := rows + 1_000_000*(round*2+w+1); !stop.Load(); next++ {
					var q string
					switch r.IntN(4) {
					case 0:
						q = fmt.Sprintf("INSERT INTO %s.t VALUES (%d, %d, 0)", be.db, next, r.IntN(101))
					case 1:
						q = fmt.Sprintf("DELETE FROM %s.t WHERE id = %d", be.db, r.IntN(rows))
					default:
						q = fmt.Sprintf("UPDATE %s.t SET k = %d, c = c + 1 WHERE id = %d", be.db, r.IntN(101), r.IntN(rows))
					}
					if _, err := db.ExecContext(ctx, q); err == nil {
						writes.Add(1)
					}
				}
			}()
		}
		time.Sleep(20 * time.Millisecond)
		built := make(chan error, 1)
		go func() {
			_, err := db.ExecContext(ctx, fmt.Sprintf("CREATE INDEX %s ON %s.t (k) COMMENT 'sqlgw: global'", name, be.db))
			built <- err
		}()
		time.Sleep(time.Duration(30+rng.IntN(200)) * time.Millisecond)
		g.Kill(t)
		stop.Store(true)
		wg.Wait()
		interrupted := <-built != nil
		if interrupted {
			killed++
		}

		// Was the index added before the kill? (Read from the store: no
		// server holds it now.)
		st, closeStore := be.open(t)
		added := sqltest.StoreTable(t, st, catalog.Options{}, be.db, "t").Index(name) != nil
		closeStore()
		// The restart resumes the build; wait until the index is ready.
		g = startGateway(t, nil, "--store", be.store)
		g.MustBeReady(t, "not ready after SIGKILL")
		db = g.Client(t)
		deadline := time.Now().Add(2 * time.Minute)
		t.Logf("round %d: %d writes; CREATE INDEX interrupted: %v, the index added before the kill: %v", round, writes.Load(), interrupted, added)
		for added {
			// The planner uses the index once it is ready (EXPLAIN names it).
			plan := strings.Join(sqltest.NewRunner(t, db).Rows(fmt.Sprintf("EXPLAIN SELECT id FROM %s.t FORCE INDEX (%s) WHERE k = 5", be.db, name)), "\n")
			if strings.Contains(plan, name) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("round %d: index %s not used 2 minutes after the restart: %s", round, name, plan)
			}
			time.Sleep(50 * time.Millisecond)
		}
		g.Stop(t)

		// Straight from the store: the writers killed mid-protocol left
		// marks younger than the lease (the sweep settles them later);
		// settle them now, then every index must be exact.
		st, closeStore = be.open(t)
		tbl := sqltest.StoreTable(t, st, catalog.Options{}, be.db, "t")
		cat, err := catalog.Open(ctx, st, catalog.Options{})
		if err != nil {
			t.Fatal(err)
		}
		view := txn.Wrap(st, strings.TrimSuffix(cat.CatalogTable(), "catalog")+"txn", txn.Options{})
		if _, err := (&ixmaint.Maintainer{Store: view}).Recover(ctx, tbl, true); err != nil {
			t.Fatal(err)
		}
		mm, err := ixmaint.Check(ctx, view, tbl)
		closeStore()
		if err != nil {
			t.Fatal(err)
		}
		if len(mm) > 0 {
			t.Fatalf("round %d: %d mismatches, e.g. %v", round, len(mm), mm[:min(len(mm), 5)])
		}
		for _, ix := range tbl.Indexes {
			if ix.State != catalog.IndexReady {
				t.Fatalf("round %d: index %s is %v after the restart", round, ix.Name, ix.State)
			}
		}
		g = startGateway(t, nil, "--store", be.store)
		g.MustBeReady(t, "not ready")
	}
	g.Stop(t)
	if killed == 0 {
		t.Error("no CREATE INDEX was interrupted by the kill: the test did not exercise a crash during the backfill")
	}
}
