package sqlgw_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage"
)

// TestRequestsPerCommit measures the store requests of a COMMIT that
// updates one row in each of 1, 2 and 10 partitions: one Pebble batch on
// Pebble; on the Table service the record, 2P+3 (the record with the
// intents, P locks, the commit point, P resolutions, the clean-up), and
// for one partition within one batch the inline path, 3 (the locks with
// the intents, the commit point, the resolution): a commit timestamp is
// what snapshot reads decide by (catalog/txn, "Isolation").
func TestRequestsPerCommit(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		db := sqltest.NewRunner(t, ts.DB)
		db.Exec("CREATE DATABASE rq")
		db.Exec("CREATE TABLE rq.t (p INT, id INT, v INT, PRIMARY KEY (p, id))")
		for p := 0; p < 10; p++ {
			db.Exec(fmt.Sprintf("INSERT INTO rq.t VALUES (%d, 0, 0), (%d, 1, 0)", p, p))
		}
		c := sqltest.NewRunner(t, ts.Conn())
		// Warm up: the record table is created by the first atomic commit.
		c.Exec("BEGIN")
		c.Exec("UPDATE rq.t SET v = v + 1 WHERE p = 0 AND id = 1")
		c.Exec("UPDATE rq.t SET v = v + 1 WHERE p = 1 AND id = 1")
		c.Exec("COMMIT")
		// Pebble commits across partitions in one atomic batch of its own
		// (storage.MultiBatcher); the Table service through the record.
		multi := strings.Contains(t.Name(), "pebble")
		for _, tc := range []struct{ parts, want int }{{1, 3}, {2, 7}, {10, 23}} {
			if multi {
				tc.want = 1
			}
			c.Exec("BEGIN")
			for p := 0; p < tc.parts; p++ {
				c.Exec(fmt.Sprintf("UPDATE rq.t SET v = v + 1 WHERE p = %d AND id = 0", p))
			}
			r0, _ := c.Status()
			c.Exec("COMMIT")
			r1, _ := c.Status()
			t.Logf("COMMIT of one row in each of %d partitions: %d store requests", tc.parts, r1-r0)
			if int(r1-r0) != tc.want {
				t.Errorf("COMMIT over %d partitions: %d requests, want %d", tc.parts, r1-r0, tc.want)
			}
		}
		// A two-row single-partition transaction: one batch on Pebble, the
		// inline path on the Table service.
		c.Exec("BEGIN")
		c.Exec("UPDATE rq.t SET v = v + 1 WHERE p = 3")
		r0, _ := c.Status()
		c.Exec("COMMIT")
		want := int64(3)
		if multi {
			want = 1
		}
		if r1, _ := c.Status(); r1-r0 != want {
			t.Errorf("COMMIT of two rows of one partition: %d requests, want %d", r1-r0, want)
		}
		c.ExpectRows("SELECT p, id, v FROM rq.t WHERE p < 3 ORDER BY p, id",
			"0\t0\t3", "0\t1\t1", "1\t0\t2", "1\t1\t1", "2\t0\t1", "2\t1\t0")
	})
}

// TestCommitConflictAppliesNothing: a transaction over two partitions whose
// second row another session changed fails with 1213 and applies nothing;
// retried, it applies once.
func TestCommitConflictAppliesNothing(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		db := sqltest.NewRunner(t, ts.DB)
		db.Exec("CREATE DATABASE cf")
		db.Exec("CREATE TABLE cf.acct (id INT PRIMARY KEY, bal INT)")
		db.Exec("INSERT INTO cf.acct VALUES (1, 100), (2, 100)")
		a, b := ts.Runner(), ts.Runner()
		transfer := []string{"UPDATE cf.acct SET bal = bal - 10 WHERE id = 1", "UPDATE cf.acct SET bal = bal + 10 WHERE id = 2"}
		commitFails(a, b, 1213, transfer, "UPDATE cf.acct SET bal = bal + 1 WHERE id = 2")
		db.ExpectRows("SELECT id, bal FROM cf.acct ORDER BY id", "1\t100", "2\t101")
		commits(a, transfer...)
		db.ExpectRows("SELECT id, bal FROM cf.acct ORDER BY id", "1\t90", "2\t111")
		// A multi-row INSERT over partitions with a duplicate in one of
		// them: 1062, and no row of it is left.
		db.ExpectErrno(1062, "INSERT INTO cf.acct VALUES (3, 1), (4, 1), (2, 1), (5, 1)")
		db.ExpectRows("SELECT COUNT(*) FROM cf.acct", "2")
	})
}

// commitFails runs the statements txn in a transaction on a, then
// meanwhile on b, and expects a's COMMIT to fail with MySQL error want.
func commitFails(a, b *sqltest.Runner, want uint16, txn []string, meanwhile string) {
	a.T.Helper()
	a.Exec("BEGIN")
	a.ExecAll(txn...)
	b.Exec(meanwhile)
	a.ExpectErrno(want, "COMMIT")
}

// commits runs the statements txn in a transaction on a, which must commit.
func commits(a *sqltest.Runner, txn ...string) {
	a.T.Helper()
	a.Exec("BEGIN")
	a.ExecAll(txn...)
	a.Exec("COMMIT")
}

// TestAtomicWithUniqueGlobalIndex: a transaction inserting a row and
// updating another (two partitions) of a table with a unique global index
// is atomic; one handing a unique value from the updated row to the
// inserted one still commits (batch by batch, as before).
func TestAtomicWithUniqueGlobalIndex(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		db := sqltest.NewRunner(t, ts.DB)
		db.Exec("CREATE DATABASE ug")
		db.Exec("CREATE TABLE ug.u (id INT PRIMARY KEY, email VARCHAR(40), bal INT, UNIQUE KEY by_email (email) COMMENT 'sqlgw: global')")
		db.Exec("INSERT INTO ug.u VALUES (1, 'a@x', 100), (2, 'b@x', 100)")
		a, b := ts.Runner(), ts.Runner()
		commitFails(a, b, 1213, []string{"INSERT INTO ug.u VALUES (3, 'c@x', 0)", "UPDATE ug.u SET bal = bal - 10 WHERE id = 1"},
			"UPDATE ug.u SET bal = bal + 1 WHERE id = 1")
		db.ExpectRows("SELECT id, email, bal FROM ug.u ORDER BY id", "1\ta@x\t101", "2\tb@x\t100")
		db.ExpectRows("SELECT id FROM ug.u WHERE email = 'c@x'")
		// The value handed over: 'a@x' from row 1 to the new row 4.
		commits(a, "UPDATE ug.u SET email = 'z@x' WHERE id = 1", "INSERT INTO ug.u VALUES (4, 'a@x', 5)")
		db.ExpectRows("SELECT id, email FROM ug.u ORDER BY id", "1\tz@x", "2\tb@x", "4\ta@x")
		db.ExpectRows("SELECT id FROM ug.u WHERE email = 'a@x'", "4")
		// A duplicate found at COMMIT in a transaction over two partitions
		// (an update, then an insert whose value another session took
		// meanwhile): 1062, and the update is not applied either.
		commitFails(a, b, 1062, []string{"UPDATE ug.u SET bal = 0 WHERE id = 2", "INSERT INTO ug.u VALUES (5, 'd@x', 1)"},
			"INSERT INTO ug.u VALUES (6, 'd@x', 1)")
		db.ExpectRows("SELECT id, bal FROM ug.u WHERE id IN (2, 5, 6) ORDER BY id", "2\t100", "6\t1")
	})
}

// unknownOutcomeStore loses the answer to the commit point of every
// transaction record (the write is applied, its reply lost) and fails
// record reads while failing is set: the committer cannot learn the
// outcome.
type unknownOutcomeStore struct {
	storage.Store
	failing atomic.Bool
}

func (s *unknownOutcomeStore) Update(ctx context.Context, table string, e *storage.Entity, mode storage.UpdateMode, ifMatch storage.ETag) (storage.ETag, error) {
	etag, err := s.Store.Update(ctx, table, e, mode, ifMatch)
	if s.failing.Load() && strings.HasSuffix(table, "txn") && e.RowKey == "r" && e.Properties["s"].Str() == "c" {
		return "", fmt.Errorf("%w: reply lost", storage.ErrUnavailable)
	}
	return etag, err
}

// Batch loses the answer to the commit point's batch in the clock
// partition (catalog/txn: the clock and the commit row).
func (s *unknownOutcomeStore) Batch(ctx context.Context, table string, ops []storage.Operation) ([]storage.ETag, error) {
	etags, err := s.Store.Batch(ctx, table, ops)
	if s.failing.Load() && strings.HasSuffix(table, "txn") && len(ops) > 0 && ops[0].Entity.PartitionKey == "clock" {
		return nil, fmt.Errorf("%w: reply lost", storage.ErrUnavailable)
	}
	return etags, err
}

func (s *unknownOutcomeStore) Get(ctx context.Context, table, pk, rk string, opts *storage.GetOptions) (*storage.Entity, error) {
	if s.failing.Load() && strings.HasSuffix(table, "txn") {
		return nil, fmt.Errorf("%w: unreachable", storage.ErrUnavailable)
	}
	return s.Store.Get(ctx, table, pk, rk, opts)
}

// TestCommitUnknownOutcome: a COMMIT whose commit point is sent but not
// confirmed, and whose record cannot be read back, fails with 1180 (not
// 1213: a retry could apply it twice); once the store answers, readers see
// the transaction applied whole.
func TestCommitUnknownOutcome(t *testing.T) {
	inner, co := sqltest.Memory.Open(t)
	store := &unknownOutcomeStore{Store: inner}
	ts := sqltest.Start(t, store, sqltest.Options{Catalog: co})
	sqltest.NewRunner(t, ts.DB).Exec("CREATE DATABASE uo")
	sqltest.NewRunner(t, ts.DB).Exec("CREATE TABLE uo.acct (id INT PRIMARY KEY, bal INT)")
	sqltest.NewRunner(t, ts.DB).Exec("INSERT INTO uo.acct VALUES (1, 100)")
	sqltest.NewRunner(t, ts.DB).Exec("INSERT INTO uo.acct VALUES (2, 100)")
	c := ts.Conn()
	r := sqltest.NewRunner(t, c)
	r.Exec("BEGIN")
	r.Exec("UPDATE uo.acct SET bal = bal - 10 WHERE id = 1")
	r.Exec("UPDATE uo.acct SET bal = bal + 10 WHERE id = 2")
	store.failing.Store(true)
	_, err := c.ExecContext(context.Background(), "COMMIT")
	store.failing.Store(false)
	if sqltest.Errno(err) != 1180 {
		t.Fatalf("COMMIT with the commit point unconfirmed: %v, want 1180", err)
	}
	// The commit point was applied: every reader rolls it forward.
	sqltest.NewRunner(t, ts.DB).ExpectRows("SELECT id, bal FROM uo.acct ORDER BY id", "1\t90", "2\t110")
}
