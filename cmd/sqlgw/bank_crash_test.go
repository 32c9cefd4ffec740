package main

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/catalog/txn"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage"
)

// The SIGKILL bank test (issue 15): 1,000 accounts over 25 partitions
// with a global index, 16 connections transferring money between random
// accounts in BEGIN ... COMMIT (retried on 1213), while "sqlgw serve" is
// killed with SIGKILL at random moments and restarted on the same store.
// Readers sum the balances during the run (a scan, and reads of every
// branch by key) are snapshot reads on both stores (sqlgw/engine/snapshot.go):
// every sum must be the total and no balance negative.
// After every restart the total, the count, the minimum balance and the
// global index are checked through SQL (readers resolve the locks of the
// killed gateway's transactions: rolled forward when committed, invisible
// while pending within their lease, rolled back after); at the end, once
// the lease has passed and the restarted server's sweep has run, no lock
// and no transaction record is left in the store.

func bankKills() int {
	if n, err := strconv.Atoi(os.Getenv("SQLGW_BANK_KILLS")); err == nil && n > 0 {
		return n
	}
	return 3
}

func TestBankSIGKILLPebble(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the SIGKILL bank test in -short mode")
	}
	runBankCrash(t, pebbleCrashBackend(t, "bank"), bankKills(), 1)
}

func TestBankSIGKILLAzurite(t *testing.T) {
	runBankCrash(t, azureCrashBackend(t, uniqueDB("bank")), bankKills(), 1)
}

// TestBankSIGKILLTwoGatewaysAzurite: two gateways on one Azurite account,
// killed alternately; each resolves the other's transactions.
func TestBankSIGKILLTwoGatewaysAzurite(t *testing.T) {
	runBankCrash(t, azureCrashBackend(t, uniqueDB("bank2")), bankKills()+1, 2)
}

// runBankCrash runs the bank over ngw gateways on one store, killing one
// of them (in turn) per round.
func runBankCrash(t *testing.T, be crashBackend, kills, ngw int) {
	sqltest.QuietDriver(t)
	gws := make([]*sqltest.Process, ngw)
	for i := range gws {
		gws[i] = startGateway(t, nil, "--store", be.store)
		gws[i].MustBeReady(t, "not ready")
	}
	admin := gws[0].Client(t)
	bank := sqltest.Bank{DB: be.db, KindEveryTransfer: true}
	bank.Setup(t, admin)
	bank.Check(t, admin, "after loading")
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	var counts sqltest.BankCounts
	var broken atomic.Int64
	var sums, sumsOff atomic.Int64
	var branches []string
	for i := 0; i < sqltest.BankBranches; i++ {
		branches = append(branches, strconv.Itoa(i))
	}
	sumQueries := []string{
		"SELECT SUM(balance), MIN(balance), COUNT(*) FROM " + be.db + ".acct",
		"SELECT SUM(balance), MIN(balance), COUNT(*) FROM " + be.db + ".acct WHERE branch IN (" + strings.Join(branches, ",") + ")",
	}
	var fail sqltest.FirstError // the first failure of a round's load
	gws, lastKill := sqltest.RunKillRounds(t, gws, sqltest.KillRounds{
		Rounds: kills,
		Pause:  func(int) time.Duration { return time.Duration(700+rng.Intn(2300)) * time.Millisecond },
		Load: func(round int, gws []*sqltest.Process, killed *atomic.Bool) func() {
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			victim := round % ngw
			dbs := make([]*sql.DB, ngw)
			for i, g := range gws {
				db, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/", g.Addr))
				if err != nil {
					t.Fatal(err)
				}
				db.SetMaxOpenConns(18)
				dbs[i] = db
			}
			for i := range dbs {
				wg.Add(1)
				go func(db *sql.DB) {
					defer wg.Done()
					for n := 0; ctx.Err() == nil; n++ {
						var sum, minBal, cnt int64
						if err := db.QueryRowContext(ctx, sumQueries[n%len(sumQueries)]).Scan(&sum, &minBal, &cnt); err != nil {
							time.Sleep(20 * time.Millisecond) // the gateway is down, or the round ends
							continue
						}
						sums.Add(1)
						if sum != sqltest.BankAccounts*sqltest.BankStart || minBal < 0 || cnt != sqltest.BankAccounts {
							sumsOff.Add(1)
							fail.Set(fmt.Errorf("a snapshot read during the run saw a total of %d over %d accounts (min %d)", sum, cnt, minBal))
						}
						time.Sleep(10 * time.Millisecond)
					}
				}(dbs[i])
			}
			for w := 0; w < 16; w++ {
				wg.Add(1)
				db := dbs[w%ngw]
				onVictim := w%ngw == victim
				go func(seed int64) {
					defer wg.Done()
					fail.Set(bank.Transfers(ctx, db, seed, &counts, func(err error) (bool, error) {
						if killed.Load() && onVictim {
							broken.Add(1)
							return false, nil
						}
						return false, err
					}))
				}(rng.Int63())
			}
			return func() {
				if ngw > 1 {
					// The survivor's transfers go on while the victim is down, and
					// meet its locks.
					time.Sleep(time.Duration(300+rng.Intn(1000)) * time.Millisecond)
				}
				cancel()
				wg.Wait()
				for _, db := range dbs {
					db.Close()
				}
			}
		},
		Crashed: func(round int) {
			if err := fail.Err(); err != nil {
				t.Fatalf("round %d: a transfer failed while the server ran: %v", round, err)
			}
		},
		Restart: func(int) *sqltest.Process { return startGateway(t, nil, "--store", be.store) },
		Check: func(round int, gws []*sqltest.Process) {
			for i, g := range gws {
				bank.Check(t, g.Client(t), fmt.Sprintf("round %d, after the restart, gateway %d", round, i))
			}
			t.Logf("round %d: %d commits, %d retries on 1213, %d unknown outcomes, %d broken by the kill so far; %d sums read during the run, %d off the total", round, counts.Commits.Load(), counts.Conflicts.Load(), counts.Unknown.Load(), broken.Load(), sums.Load(), sumsOff.Load())
		},
	})
	// After the lease, a fresh server's sweep finishes every transaction.
	for _, g := range gws {
		g.Stop(t)
	}
	if wait := time.Until(lastKill.Add(txn.DefaultLease + time.Second)); wait > 0 {
		time.Sleep(wait)
	}
	g := startGateway(t, nil, "--store", be.store)
	g.MustBeReady(t, "final restart failed")
	bank.Check(t, g.Client(t), "final")
	time.Sleep(2 * time.Second) // the start-up sweep runs in the background
	g.Stop(t)
	for _, line := range strings.Split(g.Out.String(), "\n") {
		if strings.Contains(line, "transaction recovery") {
			t.Logf("final start-up sweep: %s", line)
		}
	}
	s, closeStore := be.open(t)
	defer closeStore()
	if strings.HasPrefix(be.store, "pebble:") {
		if left := storeLocks(t, s, nil); left > 0 {
			t.Errorf("%d locks or transaction records left after the sweep", left)
		}
	} else {
		// Other tests' gateways share the Azurite account: look at the
		// bank's own tables (rows and global index) only.
		tb := sqltest.StoreTable(t, s, catalog.Options{}, be.db, "acct")
		only := []string{tb.Physical}
		for _, ix := range tb.Indexes {
			if ix.Physical != "" {
				only = append(only, ix.Physical)
			}
		}
		if left := storeLocks(t, s, only); left > 0 {
			t.Errorf("%d locks left in the bank's tables after the sweep", left)
		}
	}
	if counts.Commits.Load() == 0 {
		t.Fatal("no transfer committed")
	}
	if sums.Load() == 0 {
		t.Fatal("no sum read completed during the run")
	}
}

// storeLocks counts the entities carrying a lock and the transaction
// records, in the tables only names (nil: every table of the store).
func storeLocks(t *testing.T, s storage.Store, only []string) int {
	t.Helper()
	ctx := context.Background()
	tables := only
	if tables == nil {
		var err error
		if tables, err = s.ListTables(ctx); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	for _, tb := range tables {
		q := &storage.Query{}
		for {
			page, err := s.Query(ctx, tb, q)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range page.Entities {
				if _, ok := e.Properties[txn.PropLock]; ok || strings.HasSuffix(tb, "txn") {
					n++
				}
			}
			if page.Continuation == "" {
				break
			}
			q.Continuation = page.Continuation
		}
	}
	return n
}
