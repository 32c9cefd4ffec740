package sqlgw_test

import (
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw/engine"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"

	"github.com/sqlgw/sqlgw/storage/pebble"
)

// The isolation levels' guarantees and remaining anomalies (sqlgw/engine/snapshot.go),
// on every backend: the embedded Pebble store's own snapshots, and
// versions on Azure Table (catalog/txn, "Isolation").

// snapshotBackends runs f on every backend.
func snapshotBackends(t *testing.T, f func(t *testing.T, ts *sqltest.Server)) {
	sqltest.ForEachBackend(t, sqltest.Options{}, f)
}

// TestSnapshotRepeatableRead: at REPEATABLE READ (the default) a
// transaction reads the snapshot taken at its first read until COMMIT:
// rows another session updates, inserts or deletes meanwhile are not
// seen (no non-repeatable read, no phantom), and a statement over several
// partitions and tables sees one cut (no read skew); its own writes are
// seen on top. START TRANSACTION WITH CONSISTENT SNAPSHOT takes the
// snapshot at once.
func TestSnapshotRepeatableRead(t *testing.T) {
	snapshotBackends(t, func(t *testing.T, ts *sqltest.Server) {
		sqltest.ScriptSessions(t, ts.Sessions("d", "a", "b"), `
			a: exec CREATE TABLE t (p INT, id INT, v INT, PRIMARY KEY (p, id))
			a: exec CREATE TABLE u (id INT PRIMARY KEY, v INT)
			a: exec INSERT INTO t VALUES (1, 1, 10), (2, 2, 20), (3, 3, 30)
			a: exec INSERT INTO u VALUES (1, 100)

			a: exec BEGIN
			a: query SELECT SUM(v) FROM t
			= 60
			# b moves 5 from partition 1 to partition 3 and into u, inserts
			# and deletes.
			b: exec BEGIN
			b: exec UPDATE t SET v = v - 5 WHERE p = 1 AND id = 1
			b: exec UPDATE t SET v = v + 5 WHERE p = 3 AND id = 3
			b: exec UPDATE u SET v = v + 1 WHERE id = 1
			b: exec COMMIT
			b: exec INSERT INTO t VALUES (4, 4, 40)
			b: exec DELETE FROM t WHERE p = 2
			a: query SELECT p, v FROM t ORDER BY p
			= 1 | 10
			= 2 | 20
			= 3 | 30
			a: query SELECT v FROM t WHERE p = 1 AND id = 1
			= 10
			a: query SELECT COUNT(*) FROM t WHERE p IN (1, 2, 3, 4)
			= 3
			a: query SELECT t.v, u.v FROM t JOIN u ON u.id = t.id
			= 10 | 100
			# Its own writes on top of the snapshot.
			a: exec INSERT INTO t VALUES (5, 5, 50)
			a: query SELECT SUM(v) FROM t
			= 110
			a: exec COMMIT
			a: query SELECT p, v FROM t ORDER BY p
			= 1 | 5
			= 3 | 35
			= 4 | 40
			= 5 | 50

			# WITH CONSISTENT SNAPSHOT: taken at START TRANSACTION, before the
			# first read.
			a: exec START TRANSACTION WITH CONSISTENT SNAPSHOT
			b: exec UPDATE t SET v = 0 WHERE p = 1
			a: query SELECT v FROM t WHERE p = 1
			= 5
			a: exec COMMIT
			# A plain BEGIN takes it at the first read.
			a: exec BEGIN
			b: exec UPDATE t SET v = 1 WHERE p = 1
			a: query SELECT v FROM t WHERE p = 1
			= 1
			b: exec UPDATE t SET v = 2 WHERE p = 1
			a: query SELECT v FROM t WHERE p = 1
			= 1
			a: exec ROLLBACK
			a: query SELECT v FROM t WHERE p = 1
			= 2
		`)
	})
}

// TestSnapshotReadCommitted: at READ COMMITTED each statement reads its
// own snapshot: a second statement of the transaction sees what others
// committed since (non-repeatable reads and phantoms remain, as in MySQL).
func TestSnapshotReadCommitted(t *testing.T) {
	snapshotBackends(t, func(t *testing.T, ts *sqltest.Server) {
		sqltest.ScriptSessions(t, ts.Sessions("d", "a", "b"), `
			a: exec CREATE TABLE t (id INT PRIMARY KEY, v INT)
			a: exec INSERT INTO t VALUES (1, 10)
			a: exec SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED
			a: query SELECT @@transaction_isolation
			= READ-COMMITTED
			a: exec BEGIN
			a: query SELECT v FROM t
			= 10
			b: exec UPDATE t SET v = 11 WHERE id = 1
			b: exec INSERT INTO t VALUES (2, 20)
			a: query SELECT v FROM t ORDER BY id
			= 11
			= 20
			a: exec COMMIT
			a: exec SET SESSION transaction_isolation = 'REPEATABLE-READ'
			a: exec BEGIN
			a: query SELECT v FROM t ORDER BY id
			= 11
			= 20
			b: exec UPDATE t SET v = 12 WHERE id = 1
			a: query SELECT v FROM t ORDER BY id
			= 11
			= 20
			a: exec COMMIT
		`)
	})
}

// TestSnapshotLostUpdate: a transaction that writes a row another
// transaction changed after its snapshot (or its read) fails its COMMIT
// with 1213, whether it read the row first or only updates it: first
// committer wins, on every backend.
func TestSnapshotLostUpdate(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		ss := ts.Sessions("d", "a", "b")
		sqltest.ScriptSessions(t, ss, `
			a: exec CREATE TABLE t (id INT PRIMARY KEY, v INT)
			a: exec INSERT INTO t VALUES (1, 10), (2, 20)

			# Read, then write what was read plus one.
			a: exec BEGIN
			a: query SELECT v FROM t WHERE id = 1
			= 10
			b: exec UPDATE t SET v = v + 100 WHERE id = 1
			a: exec UPDATE t SET v = 11 WHERE id = 1
			a: error 1213 COMMIT
			a: query SELECT v FROM t WHERE id = 1
			= 110

			# Snapshot taken by reading another row; the update reads the
			# row from the snapshot, older than its current version.
			a: exec BEGIN
			a: query SELECT v FROM t WHERE id = 1
			= 110
			b: exec UPDATE t SET v = v + 100 WHERE id = 2
			a: exec UPDATE t SET v = v + 1 WHERE id = 2
		`)
		ss["a"].ExpectErrno(1213, "COMMIT")
		ss["a"].ExpectRows("SELECT v FROM t WHERE id = 2", "120")
	})
}

// TestSnapshotWriteSkew shows the anomaly snapshot isolation keeps, at
// REPEATABLE READ and SERIALIZABLE alike: two transactions each read both
// rows and write a different one, and both commit (no read set is
// validated at commit and no read takes a lock).
func TestSnapshotWriteSkew(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		ra, rb := ts.Pair("d")
		ra.Exec("CREATE TABLE oncall (id INT PRIMARY KEY, on_duty INT)")
		ra.Exec("INSERT INTO oncall VALUES (1, 1), (2, 1)")
		for _, level := range []string{"REPEATABLE-READ", "SERIALIZABLE"} {
			ra.Exec("UPDATE oncall SET on_duty = 1")
			ra.Exec("SET SESSION transaction_isolation = '" + level + "'")
			rb.Exec("SET SESSION transaction_isolation = '" + level + "'")
			ra.Exec("BEGIN")
			rb.Exec("BEGIN")
			ra.ExpectRows("SELECT SUM(on_duty) FROM oncall", "2")
			rb.ExpectRows("SELECT SUM(on_duty) FROM oncall", "2")
			ra.Exec("UPDATE oncall SET on_duty = 0 WHERE id = 1")
			rb.Exec("UPDATE oncall SET on_duty = 0 WHERE id = 2")
			ra.Exec("COMMIT")
			rb.Exec("COMMIT")
			ra.ExpectRows("SELECT SUM(on_duty) FROM oncall", "0")
		}
	})
}

// TestSnapshotForeignKeyChecksReadCurrentRows: a foreign key check reads
// the latest committed rows, not the transaction's snapshot (InnoDB's
// checks are current reads): a parent deleted after the snapshot is
// missing for a child inserted later in the transaction.
func TestSnapshotForeignKeyChecksReadCurrentRows(t *testing.T) {
	snapshotBackends(t, func(t *testing.T, ts *sqltest.Server) {
		sqltest.ScriptSessions(t, ts.Sessions("d", "a", "b"), `
			a: exec CREATE TABLE parent (id INT PRIMARY KEY)
			a: exec CREATE TABLE child (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES parent (id))
			a: exec INSERT INTO parent VALUES (1), (2)
			a: exec BEGIN
			a: query SELECT id FROM parent ORDER BY id
			= 1
			= 2
			b: exec DELETE FROM parent WHERE id = 2
			# the snapshot
			a: query SELECT id FROM parent ORDER BY id
			= 1
			= 2
			a: error 1452 INSERT INTO child VALUES (1, 2)
			a: exec INSERT INTO child VALUES (1, 1)
			a: exec COMMIT
			a: query SELECT id, pid FROM child
			= 1 | 1
		`)
	})
}

// TestSnapshotsReleased: an idle connection holds no snapshot; an open
// REPEATABLE READ transaction holds one until COMMIT or ROLLBACK.
func TestSnapshotsReleased(t *testing.T) {
	snapshotBackends(t, func(t *testing.T, ts *sqltest.Server) {
		p, ok := ts.Store.(*pebble.Store)
		if !ok {
			t.Skipf("store %T", ts.Store)
		}
		// (Not counting the one the store keeps for reuse while nothing
		// is written, which pins no old version: storage/pebble.)
		open := func() int { return p.DB().Metrics().Snapshots.Count - p.IdleSnapshots() }
		ra, rb := ts.Pair("d")
		ra.Exec("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
		ra.Exec("INSERT INTO t VALUES (1, 10), (2, 20)")
		ra.ExpectRows("SELECT v FROM t WHERE id = 1", "10")
		ra.ExpectRows("SELECT SUM(v) FROM t", "30")
		ra.Exec("UPDATE t SET v = 11 WHERE id = 1")
		if n := open(); n != 0 {
			t.Fatalf("%d snapshots open after autocommit statements", n)
		}
		rb.Exec("SET SESSION transaction_isolation = 'READ-COMMITTED'")
		rb.Exec("BEGIN")
		rb.ExpectRows("SELECT SUM(v) FROM t", "31")
		if n := open(); n != 0 {
			t.Fatalf("%d snapshots open between statements at READ COMMITTED", n)
		}
		rb.Exec("COMMIT")
		ra.Exec("BEGIN")
		ra.ExpectRows("SELECT SUM(v) FROM t", "31")
		if n := open(); n != 1 {
			t.Fatalf("%d snapshots open in a REPEATABLE READ transaction, want 1", n)
		}
		ra.Exec("COMMIT")
		if n := open(); n != 0 {
			t.Fatalf("%d snapshots open after COMMIT", n)
		}
		ra.Exec("BEGIN")
		ra.ExpectRows("SELECT SUM(v) FROM t", "31")
		ra.Exec("ROLLBACK")
		if n := open(); n != 0 {
			t.Fatalf("%d snapshots open after ROLLBACK", n)
		}
	})
}

// TestSnapshotMixedReadsNoLostUpdate: a row read both in the snapshot and
// by a current read (an INSERT IGNORE's duplicate check) at two versions
// cannot be written on either read's ETag: the UPDATE computes from the
// snapshot's value, so committing it on the newer ETag would lose the
// change in between. The commit fails with 1213.
func TestSnapshotMixedReadsNoLostUpdate(t *testing.T) {
	snapshotBackends(t, func(t *testing.T, ts *sqltest.Server) {
		ra, rb := ts.Pair("d")
		ra.Exec("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
		ra.Exec("INSERT INTO t VALUES (1, 10), (2, 20)")
		for _, order := range []string{"current first", "snapshot first"} {
			ra.Exec("UPDATE t SET v = 20 WHERE id = 2")
			ra.Exec("BEGIN")
			ra.ExpectRows("SELECT v FROM t WHERE id = 1", "10") // the snapshot
			rb.Exec("UPDATE t SET v = v + 1 WHERE id = 2")      // 21, after it
			if order == "snapshot first" {
				ra.ExpectRows("SELECT v FROM t WHERE id = 2", "20")
			}
			ra.Exec("INSERT IGNORE INTO t VALUES (2, 0)") // reads the current row
			ra.Exec("UPDATE t SET v = v + 100 WHERE id = 2")
			ra.ExpectErrno(1213, "COMMIT")
			ra.ExpectRows("SELECT v FROM t WHERE id = 2", "21")
		}
	})
}

// TestSnapshotRangeReadsRemembered: the rows a range read returns inside
// a transaction are remembered at the version read (engine/txn.go's runs
// of rows read by rows), as single-row reads are: at READ COMMITTED a
// later statement that reads a row again at a newer version (another
// session committed to it in between) and writes it cannot commit on
// either version (1213), whether the first read was of the row alone or
// of a range holding it, prepared (read by rows) or as text.
func TestSnapshotRangeReadsRemembered(t *testing.T) {
	snapshotBackends(t, func(t *testing.T, ts *sqltest.Server) {
		ra, rb := ts.Pair("d")
		ra.Exec("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
		ra.Exec("INSERT INTO t VALUES (1, 10), (2, 20), (3, 30)")
		ra.Exec("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED")
		for _, first := range []string{"SELECT v FROM t WHERE id = 2", "SELECT v FROM t WHERE id BETWEEN 1 AND 3", "SELECT v FROM t WHERE id BETWEEN ? AND ?"} {
			if strings.Contains(first, "?") {
				for range 3 { // cached, then direct
					ra.Rows(first, 1, 3)
				}
			}
			ra.Exec("BEGIN")
			if strings.Contains(first, "?") {
				r0 := engine.RowReads()
				ra.Rows(first, 1, 3)
				if engine.RowReads() == r0 && strings.HasSuffix(t.Name(), "pebble-memory") {
					t.Fatal("the range was not read by rows")
				}
			} else {
				ra.Rows(first)
			}
			rb.Exec("UPDATE t SET v = v + 1 WHERE id = 2")
			ra.Exec("UPDATE t SET v = v + 100 WHERE id = 2")
			ra.ExpectErrno(1213, "COMMIT")
		}
	})
}
