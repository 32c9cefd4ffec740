package sqltest

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"sync"
	"sync/atomic"
	"testing"
)

// The bank workload of the transaction tests (sqlgw's TestBank*, cmd/sqlgw's
// TestBankSIGKILL*): BankAccounts accounts over BankBranches partitions
// (branch is the partition key) in table acct, with a global index on an
// account attribute (kind), and transfers between random accounts in
// BEGIN ... COMMIT. The total never changes: a COMMIT that fails applied
// nothing, one that succeeds applied everything.
const (
	BankAccounts = 1000
	BankBranches = 25
	BankStart    = 100 // each account's opening balance
)

// Bank is the bank in one database.
type Bank struct {
	DB string // the database holding table acct
	// KindEveryTransfer: the credit of every transfer also sets the
	// indexed attribute, in the same UPDATE (each transfer moves an index
	// entry); otherwise one transfer in four sets it in an UPDATE of its
	// own.
	KindEveryTransfer bool
}

// Setup creates the database (if missing) and the table, and opens the
// accounts.
func (b Bank) Setup(t testing.TB, db Execer) {
	t.Helper()
	r := NewRunner(t, db)
	r.Exec("CREATE DATABASE IF NOT EXISTS " + b.DB)
	r.Exec(`CREATE TABLE ` + b.DB + `.acct (branch INT NOT NULL, id INT NOT NULL, kind VARCHAR(16) NOT NULL, balance BIGINT NOT NULL,
		PRIMARY KEY (branch, id), INDEX by_kind (kind) COMMENT 'sqlgw: global')`)
	r.InsertRows(b.DB+".acct", BankAccounts, 100, func(i int) string {
		return fmt.Sprintf("(%d, %d, 'k%d', %d)", i%BankBranches, i, i%7, BankStart)
	})
}

// Check verifies the invariant: the total, the count, no negative balance,
// and the global index agreeing with the rows; when names the moment in
// the failure message.
func (b Bank) Check(t testing.TB, db *sql.DB, when string) {
	t.Helper()
	var sum, n, minBal int64
	if err := db.QueryRow("SELECT SUM(balance), COUNT(*), MIN(balance) FROM "+b.DB+".acct").Scan(&sum, &n, &minBal); err != nil {
		t.Fatalf("%s: %v", when, err)
	}
	if sum != BankAccounts*BankStart || n != BankAccounts || minBal < 0 {
		t.Fatalf("%s: total %d over %d accounts (min %d), want %d over %d", when, sum, n, minBal, BankAccounts*BankStart, BankAccounts)
	}
	var byIndex int64
	for k := 0; k < 7; k++ {
		var c int64
		if err := db.QueryRow("SELECT COUNT(*) FROM "+b.DB+".acct WHERE kind = ?", fmt.Sprintf("k%d", k)).Scan(&c); err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		byIndex += c
	}
	if byIndex != BankAccounts {
		t.Fatalf("%s: the global index finds %d accounts, want %d", when, byIndex, BankAccounts)
	}
}

// Transfer moves a random amount between two random accounts in one
// transaction (nothing when the debited account has too little), changing
// the indexed attribute too as KindEveryTransfer says. It returns the
// error of the attempt (nil: committed).
func (b Bank) Transfer(ctx context.Context, db *sql.DB, r *rand.Rand) error {
	from, to := r.Intn(BankAccounts), r.Intn(BankAccounts)
	for to == from {
		to = r.Intn(BankAccounts)
	}
	amt := 1 + r.Intn(20)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var bal int64
	if err := tx.QueryRow("SELECT balance FROM "+b.DB+".acct WHERE branch = ? AND id = ?", from%BankBranches, from).Scan(&bal); err != nil {
		return err
	}
	if bal < int64(amt) {
		return tx.Commit()
	}
	if _, err := tx.Exec("UPDATE "+b.DB+".acct SET balance = balance - ? WHERE branch = ? AND id = ?", amt, from%BankBranches, from); err != nil {
		return err
	}
	if b.KindEveryTransfer {
		if _, err := tx.Exec("UPDATE "+b.DB+".acct SET balance = balance + ?, kind = ? WHERE branch = ? AND id = ?", amt, fmt.Sprintf("k%d", r.Intn(7)), to%BankBranches, to); err != nil {
			return err
		}
		return tx.Commit()
	}
	if _, err := tx.Exec("UPDATE "+b.DB+".acct SET balance = balance + ? WHERE branch = ? AND id = ?", amt, to%BankBranches, to); err != nil {
		return err
	}
	if r.Intn(4) == 0 {
		if _, err := tx.Exec("UPDATE "+b.DB+".acct SET kind = ? WHERE branch = ? AND id = ?", fmt.Sprintf("k%d", r.Intn(7)), to%BankBranches, to); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// BankCounts counts the outcomes of transfers: committed, refused with
// 1213 (a conflict: nothing applied, the client may retry) and 1180 (the
// commit's outcome is unknown).
type BankCounts struct {
	Commits, Conflicts, Unknown atomic.Int64
}

// Transfers runs transfers on db, with the random numbers of seed, until
// ctx ends, counting their outcomes in c. Any other error goes to other,
// which says whether the transfers go on and whether the error fails the
// run; Transfers returns that failure (nil when ctx ended or other stopped
// them without one). A nil other fails on every other error.
func (b Bank) Transfers(ctx context.Context, db *sql.DB, seed int64, c *BankCounts, other func(err error) (goOn bool, fail error)) error {
	r := rand.New(rand.NewSource(seed))
	for ctx.Err() == nil {
		err := b.Transfer(ctx, db, r)
		switch {
		case err == nil:
			c.Commits.Add(1)
		case Errno(err) == 1213:
			c.Conflicts.Add(1)
		case Errno(err) == 1180:
			c.Unknown.Add(1)
		case ctx.Err() != nil:
			return nil
		case other == nil:
			return err
		default:
			goOn, fail := other(err)
			if fail != nil || !goOn {
				return fail
			}
		}
	}
	return nil
}

// FirstError keeps the first error set by any of several goroutines.
type FirstError struct {
	mu  sync.Mutex
	err error
}

// Set keeps err if it is the first non-nil error.
func (f *FirstError) Set(err error) {
	if err == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil {
		f.err = err
	}
}

// Err returns the first error set, or nil.
func (f *FirstError) Err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}
