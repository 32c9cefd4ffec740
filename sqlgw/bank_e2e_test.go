package sqlgw_test

import (
	"context"
	"database/sql"
	"fmt"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"math/rand"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The bank: accounts over many partitions (branch is the partition key),
// a global index on an account attribute, concurrent transfers in
// BEGIN ... COMMIT retried on 1213. The total never changes: a COMMIT that
// fails applied nothing, one that succeeds applied everything.

const (
	bankAccounts = 1000
	bankBranches = 25
	bankStart    = 100
)

// bankDuration is how long each bank run lasts: short in go test,
// SQLGW_BANK_DURATION (make txntest) for the long runs.
func bankDuration() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("SQLGW_BANK_DURATION")); err == nil && d > 0 {
		return d
	}
	return 3 * time.Second
}

// bankSetup creates and fills the bank in database bank.
func bankSetup(t *testing.T, db *sql.DB) {
	t.Helper()
	sqltest.NewRunner(t, db).Exec("CREATE DATABASE IF NOT EXISTS bank")
	sqltest.NewRunner(t, db).Exec(`CREATE TABLE bank.acct (branch INT NOT NULL, id INT NOT NULL, kind VARCHAR(16) NOT NULL, balance BIGINT NOT NULL,
		PRIMARY KEY (branch, id), INDEX by_kind (kind) COMMENT 'sqlgw: global')`)
	for lo := 0; lo < bankAccounts; lo += 100 {
		var vals []string
		for i := lo; i < lo+100; i++ {
			vals = append(vals, fmt.Sprintf("(%d, %d, 'k%d', %d)", i%bankBranches, i, i%7, bankStart))
		}
		sqltest.NewRunner(t, db).Exec("INSERT INTO bank.acct VALUES " + strings.Join(vals, ","))
	}
}

// bankCheck verifies the invariant: the total, the count, no negative
// balance, and the global index agreeing with the rows.
func bankCheck(t *testing.T, db *sql.DB) {
	t.Helper()
	var sum, n, minBal int64
	if err := db.QueryRow("SELECT SUM(balance), COUNT(*), MIN(balance) FROM bank.acct").Scan(&sum, &n, &minBal); err != nil {
		t.Fatal(err)
	}
	if sum != bankAccounts*bankStart || n != bankAccounts || minBal < 0 {
		t.Fatalf("bank: total %d over %d accounts (min %d), want %d over %d", sum, n, minBal, bankAccounts*bankStart, bankAccounts)
	}
	var byIndex int64
	for k := 0; k < 7; k++ {
		var c int64
		if err := db.QueryRow("SELECT COUNT(*) FROM bank.acct WHERE kind = ?", fmt.Sprintf("k%d", k)).Scan(&c); err != nil {
			t.Fatal(err)
		}
		byIndex += c
	}
	if byIndex != bankAccounts {
		t.Fatalf("bank: the global index finds %d accounts, want %d", byIndex, bankAccounts)
	}
}

type bankStats struct {
	commits, conflicts, unknown, other atomic.Int64
	sums, sumsOff                      atomic.Int64
}

func (s *bankStats) String() string {
	return fmt.Sprintf("%d commits, %d retries on 1213, %d unknown outcomes (1180), %d other errors; %d SUM reads, %d of them off the total",
		s.commits.Load(), s.conflicts.Load(), s.unknown.Load(), s.other.Load(), s.sums.Load(), s.sumsOff.Load())
}

// transfer moves a random amount between two random accounts in one
// transaction, sometimes changing the indexed attribute too. It returns
// the error of the attempt (nil: committed).
func transfer(ctx context.Context, db *sql.DB, r *rand.Rand) error {
	a, b := r.Intn(bankAccounts), r.Intn(bankAccounts)
	for b == a {
		b = r.Intn(bankAccounts)
	}
	amt := 1 + r.Intn(20)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var bal int64
	if err := tx.QueryRow("SELECT balance FROM bank.acct WHERE branch = ? AND id = ?", a%bankBranches, a).Scan(&bal); err != nil {
		return err
	}
	if bal < int64(amt) {
		return tx.Commit()
	}
	if _, err := tx.Exec("UPDATE bank.acct SET balance = balance - ? WHERE branch = ? AND id = ?", amt, a%bankBranches, a); err != nil {
		return err
	}
	if _, err := tx.Exec("UPDATE bank.acct SET balance = balance + ? WHERE branch = ? AND id = ?", amt, b%bankBranches, b); err != nil {
		return err
	}
	if r.Intn(4) == 0 {
		if _, err := tx.Exec("UPDATE bank.acct SET kind = ? WHERE branch = ? AND id = ?", fmt.Sprintf("k%d", r.Intn(7)), b%bankBranches, b); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// bankRun runs workers transferring for d, plus one reader summing the
// balances. It stops early when stop is closed. Errors other than 1213
// (and, when allowed, connection errors from a killed server) fail t.
func bankRun(t *testing.T, db *sql.DB, workers int, d time.Duration, st *bankStats, tolerateDown bool) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var wg sync.WaitGroup
	var failMu sync.Mutex
	var fail error
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			r := rand.New(rand.NewSource(seed))
			for ctx.Err() == nil {
				err := transfer(ctx, db, r)
				switch {
				case err == nil:
					st.commits.Add(1)
				case sqltest.Errno(err) == 1213:
					st.conflicts.Add(1)
				case sqltest.Errno(err) == 1180:
					st.unknown.Add(1)
				case ctx.Err() != nil:
				case tolerateDown && sqltest.Errno(err) == 0:
					st.other.Add(1)
					time.Sleep(20 * time.Millisecond)
				default:
					failMu.Lock()
					if fail == nil {
						fail = err
					}
					failMu.Unlock()
					return
				}
			}
		}(time.Now().UnixNano() + int64(w))
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			var sum int64
			if err := db.QueryRowContext(ctx, "SELECT SUM(balance) FROM bank.acct").Scan(&sum); err != nil {
				continue
			}
			st.sums.Add(1)
			if sum != bankAccounts*bankStart {
				st.sumsOff.Add(1)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	wg.Wait()
	if fail != nil {
		t.Fatalf("a transfer failed with an error other than 1213: %v", fail)
	}
}

// TestBankTransfers: the bank invariant under concurrent cross-partition
// transfers, over TCP, on both backends.
func TestBankTransfers(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		bankSetup(t, ts.DB)
		bankCheck(t, ts.DB)
		ts.DB.SetMaxOpenConns(16)
		var st bankStats
		bankRun(t, ts.DB, 8, bankDuration(), &st, false)
		t.Logf("bank: %s", &st)
		if st.commits.Load() == 0 {
			t.Fatal("no transfer committed")
		}
		if st.unknown.Load() > 0 {
			t.Fatalf("%d commits of unknown outcome without any failure of the store", st.unknown.Load())
		}
		bankCheck(t, ts.DB)
	})
}
