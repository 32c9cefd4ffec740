package sqlgw_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// The bank (sqltest.Bank, in database bank): accounts over many partitions,
// a global index on an account attribute, concurrent transfers in
// BEGIN ... COMMIT retried on 1213. The total never changes: a COMMIT that
// fails applied nothing, one that succeeds applied everything.

var bank = sqltest.Bank{DB: "bank"}

// bankDuration is how long each bank run lasts: short in go test,
// SQLGW_BANK_DURATION (make txntest) for the long runs.
func bankDuration() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("SQLGW_BANK_DURATION")); err == nil && d > 0 {
		return d
	}
	return 3 * time.Second
}

type bankStats struct {
	sqltest.BankCounts
	other, sums, sumsOff atomic.Int64
	// negative: SUM reads that saw a negative balance (MIN < 0) or a
	// wrong account count; repeats: transactions that read the total
	// twice; repeatsOff: those whose two reads differed.
	negative, repeats, repeatsOff atomic.Int64
}

// consistent reports that every read of the run saw a consistent state.
func (s *bankStats) consistent() bool {
	return s.sumsOff.Load() == 0 && s.negative.Load() == 0 && s.repeatsOff.Load() == 0
}

func (s *bankStats) String() string {
	return fmt.Sprintf("%d commits, %d retries on 1213, %d unknown outcomes (1180), %d other errors; %d SUM reads, %d of them off the total, %d with a negative balance or a wrong count; %d transactions reading the total twice, %d of them seeing two totals",
		s.Commits.Load(), s.Conflicts.Load(), s.Unknown.Load(), s.other.Load(), s.sums.Load(), s.sumsOff.Load(), s.negative.Load(), s.repeats.Load(), s.repeatsOff.Load())
}

// bankRun runs workers transferring for d, plus one reader summing the
// balances. It stops early when stop is closed. Errors other than 1213
// (and, when allowed, connection errors from a killed server) fail t.
//
// The run lasts d, and past it until a SUM read and a repeated read have
// completed (at most a minute more): on a loaded machine one statement on
// Azurite can take a second, and a 3 s run ended with the readers' first
// transaction reading twice cut short (2 SUM reads, none repeated: "no
// consistent read completed", under two test binaries at once).
func bankRun(t *testing.T, db *sql.DB, workers int, d time.Duration, st *bankStats, tolerateDown bool) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		end := time.Now().Add(d)
		for hard := end.Add(time.Minute); ctx.Err() == nil; time.Sleep(20 * time.Millisecond) {
			if now := time.Now(); now.After(hard) || now.After(end) && st.sums.Load() > 0 && st.repeats.Load() > 0 {
				cancel()
			}
		}
	}()
	var wg sync.WaitGroup
	var fail sqltest.FirstError
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			fail.Set(bank.Transfers(ctx, db, seed, &st.BankCounts, func(err error) (bool, error) {
				if tolerateDown && sqltest.Errno(err) == 0 {
					st.other.Add(1)
					time.Sleep(20 * time.Millisecond)
					return true, nil
				}
				return false, err
			}))
		}(time.Now().UnixNano() + int64(w))
	}
	// Readers: autocommit statements summing every account (one snapshot
	// per statement), and transactions that sum twice (one snapshot per
	// transaction at REPEATABLE READ).
	for r := 0; r < 2; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ctx.Err() == nil; i++ {
				if i%2 == 1 {
					bankRepeat(ctx, db, st)
					continue
				}
				var sum, minBal, n int64
				if err := db.QueryRowContext(ctx, bankSums[i/2%len(bankSums)]).Scan(&sum, &minBal, &n); err != nil {
					continue
				}
				st.sums.Add(1)
				if sum != sqltest.BankAccounts*sqltest.BankStart {
					st.sumsOff.Add(1)
				}
				if minBal < 0 || n != sqltest.BankAccounts {
					st.negative.Add(1)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}()
	}
	wg.Wait()
	if err := fail.Err(); err != nil {
		t.Fatalf("a transfer failed with an error other than 1213: %v", err)
	}
}

// bankSums are the readers' statements: a scan of the table, and reads of
// every branch by key (one request per partition).
var bankSums = []string{
	"SELECT SUM(balance), MIN(balance), COUNT(*) FROM bank.acct",
	"SELECT SUM(balance), MIN(balance), COUNT(*) FROM bank.acct WHERE branch IN (" + bankBranchList() + ")",
}

func bankBranchList() string {
	var b []string
	for i := 0; i < sqltest.BankBranches; i++ {
		b = append(b, fmt.Sprint(i))
	}
	return strings.Join(b, ",")
}

// bankRepeat reads the balances twice in one transaction, with transfers
// committing in between: the total, and a sum weighted by account (which
// every transfer changes), must read the same both times.
func bankRepeat(ctx context.Context, db *sql.DB, st *bankStats) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return
	}
	defer tx.Rollback()
	const q = "SELECT SUM(balance), SUM(balance * id) FROM bank.acct"
	var first, second, w1, w2 int64
	if err := tx.QueryRowContext(ctx, q).Scan(&first, &w1); err != nil {
		return
	}
	time.Sleep(30 * time.Millisecond)
	if err := tx.QueryRowContext(ctx, q).Scan(&second, &w2); err != nil {
		return
	}
	if tx.Commit() != nil {
		return
	}
	st.repeats.Add(1)
	if first != second || w1 != w2 {
		st.repeatsOff.Add(1)
	}
}

// TestBankTransfers: the bank invariant under concurrent cross-partition
// transfers, over TCP, on both backends.
func TestBankTransfers(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		bank.Setup(t, ts.DB)
		bank.Check(t, ts.DB, "bank")
		ts.DB.SetMaxOpenConns(16)
		var st bankStats
		bankRun(t, ts.DB, 8, bankDuration(), &st, false)
		t.Logf("bank: %s", &st)
		if st.Commits.Load() == 0 {
			t.Fatal("no transfer committed")
		}
		if st.Unknown.Load() > 0 {
			t.Fatalf("%d commits of unknown outcome without any failure of the store", st.Unknown.Load())
		}
		bankCheckReads(t, &st)
		bank.Check(t, ts.DB, "bank")
	})
}

// bankCheckReads fails t when a read during the run saw an inconsistent
// state: reads are snapshot reads on both backends (sqlgw/engine/snapshot.go;
// on Azure Table through versions, catalog/txn "Isolation").
func bankCheckReads(t *testing.T, st *bankStats) {
	t.Helper()
	if st.sums.Load() == 0 || st.repeats.Load() == 0 {
		t.Fatalf("bank: no consistent read completed during the run (%s)", st)
	}
	if !st.consistent() {
		t.Fatalf("bank: inconsistent snapshot reads during the run: %s", st)
	}
}
