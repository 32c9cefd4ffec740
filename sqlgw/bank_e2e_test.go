package sqlgw_test

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"os"
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
	commits, conflicts, unknown, other atomic.Int64
	sums, sumsOff                      atomic.Int64
}

func (s *bankStats) String() string {
	return fmt.Sprintf("%d commits, %d retries on 1213, %d unknown outcomes (1180), %d other errors; %d SUM reads, %d of them off the total",
		s.commits.Load(), s.conflicts.Load(), s.unknown.Load(), s.other.Load(), s.sums.Load(), s.sumsOff.Load())
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
				err := bank.Transfer(ctx, db, r)
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
			if sum != sqltest.BankAccounts*sqltest.BankStart {
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
		bank.Setup(t, ts.DB)
		bank.Check(t, ts.DB, "bank")
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
		bank.Check(t, ts.DB, "bank")
	})
}
