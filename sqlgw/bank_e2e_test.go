package sqlgw_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/sqlgw/sqlgw/storage"
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
	mustExec(t, db, "CREATE DATABASE IF NOT EXISTS bank")
	mustExec(t, db, `CREATE TABLE bank.acct (branch INT NOT NULL, id INT NOT NULL, kind VARCHAR(16) NOT NULL, balance BIGINT NOT NULL,
		PRIMARY KEY (branch, id), INDEX by_kind (kind) COMMENT 'sqlgw: global')`)
	for lo := 0; lo < bankAccounts; lo += 100 {
		var vals []string
		for i := lo; i < lo+100; i++ {
			vals = append(vals, fmt.Sprintf("(%d, %d, 'k%d', %d)", i%bankBranches, i, i%7, bankStart))
		}
		mustExec(t, db, "INSERT INTO bank.acct VALUES "+strings.Join(vals, ","))
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
		s.commits.Load(), s.conflicts.Load(), s.unknown.Load(), s.other.Load(), s.sums.Load(), s.sumsOff.Load(), s.negative.Load(), s.repeats.Load(), s.repeatsOff.Load())
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

func errno(err error) uint16 {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
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
				case errno(err) == 1213:
					st.conflicts.Add(1)
				case errno(err) == 1180:
					st.unknown.Add(1)
				case ctx.Err() != nil:
				case tolerateDown && errno(err) == 0:
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
				if sum != bankAccounts*bankStart {
					st.sumsOff.Add(1)
				}
				if minBal < 0 || n != bankAccounts {
					st.negative.Add(1)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}()
	}
	wg.Wait()
	if fail != nil {
		t.Fatalf("a transfer failed with an error other than 1213: %v", fail)
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
	for i := 0; i < bankBranches; i++ {
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
	forEachBackend(t, func(t *testing.T, ts *testServer) {
		bankSetup(t, ts.db)
		bankCheck(t, ts.db)
		ts.db.SetMaxOpenConns(16)
		var st bankStats
		bankRun(t, ts.db, 8, bankDuration(), &st, false)
		t.Logf("bank: %s", &st)
		if st.commits.Load() == 0 {
			t.Fatal("no transfer committed")
		}
		if st.unknown.Load() > 0 {
			t.Fatalf("%d commits of unknown outcome without any failure of the store", st.unknown.Load())
		}
		bankCheckReads(t, ts.Store, &st)
		bankCheck(t, ts.db)
	})
}

// bankCheckReads fails t when a read during the run saw an inconsistent
// state on a store with snapshots (the embedded Pebble store: reads are
// snapshot reads, sqlgw/engine/snapshot.go). A store without them (Azure Table)
// reads committed data per entity, and its SUM reads may see one side of
// a transfer: they are only counted.
func bankCheckReads(t *testing.T, store storage.Store, st *bankStats) {
	t.Helper()
	if st.sums.Load() == 0 || st.repeats.Load() == 0 {
		t.Fatalf("bank: no consistent read completed during the run (%s)", st)
	}
	if !hasSnapshots(store) {
		t.Logf("bank: the store has no snapshots: %d of %d SUM reads off the total", st.sumsOff.Load(), st.sums.Load())
		return
	}
	if !st.consistent() {
		t.Fatalf("bank: inconsistent snapshot reads during the run: %s", st)
	}
}

// hasSnapshots reports whether store (the backend below the gateway) takes
// snapshots.
func hasSnapshots(store storage.Store) bool {
	_, ok := store.(storage.Snapshotter)
	return ok
}
