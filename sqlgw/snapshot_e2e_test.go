package sqlgw_test

import (
	"testing"

	"github.com/sqlgw/sqlgw/storage/pebble"
)

// The isolation levels' guarantees and remaining anomalies (sqlgw/engine/snapshot.go).
// Tests of what snapshots give run on the backends that take snapshots
// (the embedded Pebble store); the others run everywhere.

// snapshotBackends is forEachBackend restricted to stores with snapshots.
func snapshotBackends(t *testing.T, f func(t *testing.T, ts *testServer)) {
	forEachBackend(t, func(t *testing.T, ts *testServer) {
		if !hasSnapshots(ts.Store) {
			t.Skip("the store has no snapshots: reads are read committed (sqlgw/engine/snapshot.go)")
		}
		f(t, ts)
	})
}

// TestSnapshotRepeatableRead: at REPEATABLE READ (the default) a
// transaction reads the snapshot taken at its first read until COMMIT:
// rows another session updates, inserts or deletes meanwhile are not
// seen (no non-repeatable read, no phantom), and a statement over several
// partitions and tables sees one cut (no read skew); its own writes are
// seen on top. START TRANSACTION WITH CONSISTENT SNAPSHOT takes the
// snapshot at once.
func TestSnapshotRepeatableRead(t *testing.T) {
	snapshotBackends(t, func(t *testing.T, ts *testServer) {
		a, b := ts.Session("d"), ts.conn()
		mustExec(t, b, "USE d")
		mustExec(t, a, "CREATE TABLE t (p INT, id INT, v INT, PRIMARY KEY (p, id))")
		mustExec(t, a, "CREATE TABLE u (id INT PRIMARY KEY, v INT)")
		mustExec(t, a, "INSERT INTO t VALUES (1, 1, 10), (2, 2, 20), (3, 3, 30)")
		mustExec(t, a, "INSERT INTO u VALUES (1, 100)")

		mustExec(t, a, "BEGIN")
		expectRows(t, a, "SELECT SUM(v) FROM t", "60")
		// b moves 5 from partition 1 to partition 3 and into u, inserts
		// and deletes.
		mustExec(t, b, "BEGIN")
		mustExec(t, b, "UPDATE t SET v = v - 5 WHERE p = 1 AND id = 1")
		mustExec(t, b, "UPDATE t SET v = v + 5 WHERE p = 3 AND id = 3")
		mustExec(t, b, "UPDATE u SET v = v + 1 WHERE id = 1")
		mustExec(t, b, "COMMIT")
		mustExec(t, b, "INSERT INTO t VALUES (4, 4, 40)")
		mustExec(t, b, "DELETE FROM t WHERE p = 2")
		expectRows(t, a, "SELECT p, v FROM t ORDER BY p", "1\t10", "2\t20", "3\t30")
		expectRows(t, a, "SELECT v FROM t WHERE p = 1 AND id = 1", "10")
		expectRows(t, a, "SELECT COUNT(*) FROM t WHERE p IN (1, 2, 3, 4)", "3")
		expectRows(t, a, "SELECT t.v, u.v FROM t JOIN u ON u.id = t.id", "10\t100")
		// Its own writes on top of the snapshot.
		mustExec(t, a, "INSERT INTO t VALUES (5, 5, 50)")
		expectRows(t, a, "SELECT SUM(v) FROM t", "110")
		mustExec(t, a, "COMMIT")
		expectRows(t, a, "SELECT p, v FROM t ORDER BY p", "1\t5", "3\t35", "4\t40", "5\t50")

		// WITH CONSISTENT SNAPSHOT: taken at START TRANSACTION, before the
		// first read.
		mustExec(t, a, "START TRANSACTION WITH CONSISTENT SNAPSHOT")
		mustExec(t, b, "UPDATE t SET v = 0 WHERE p = 1")
		expectRows(t, a, "SELECT v FROM t WHERE p = 1", "5")
		mustExec(t, a, "COMMIT")
		// A plain BEGIN takes it at the first read.
		mustExec(t, a, "BEGIN")
		mustExec(t, b, "UPDATE t SET v = 1 WHERE p = 1")
		expectRows(t, a, "SELECT v FROM t WHERE p = 1", "1")
		mustExec(t, b, "UPDATE t SET v = 2 WHERE p = 1")
		expectRows(t, a, "SELECT v FROM t WHERE p = 1", "1")
		mustExec(t, a, "ROLLBACK")
		expectRows(t, a, "SELECT v FROM t WHERE p = 1", "2")
	})
}

// TestSnapshotReadCommitted: at READ COMMITTED each statement reads its
// own snapshot: a second statement of the transaction sees what others
// committed since (non-repeatable reads and phantoms remain, as in MySQL).
func TestSnapshotReadCommitted(t *testing.T) {
	snapshotBackends(t, func(t *testing.T, ts *testServer) {
		a, b := ts.Session("d"), ts.conn()
		mustExec(t, b, "USE d")
		mustExec(t, a, "CREATE TABLE t (id INT PRIMARY KEY, v INT)")
		mustExec(t, a, "INSERT INTO t VALUES (1, 10)")
		mustExec(t, a, "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED")
		expectRows(t, a, "SELECT @@transaction_isolation", "READ-COMMITTED")
		mustExec(t, a, "BEGIN")
		expectRows(t, a, "SELECT v FROM t", "10")
		mustExec(t, b, "UPDATE t SET v = 11 WHERE id = 1")
		mustExec(t, b, "INSERT INTO t VALUES (2, 20)")
		expectRows(t, a, "SELECT v FROM t ORDER BY id", "11", "20")
		mustExec(t, a, "COMMIT")
		mustExec(t, a, "SET SESSION transaction_isolation = 'REPEATABLE-READ'")
		mustExec(t, a, "BEGIN")
		expectRows(t, a, "SELECT v FROM t ORDER BY id", "11", "20")
		mustExec(t, b, "UPDATE t SET v = 12 WHERE id = 1")
		expectRows(t, a, "SELECT v FROM t ORDER BY id", "11", "20")
		mustExec(t, a, "COMMIT")
	})
}

// TestSnapshotLostUpdate: a transaction that writes a row another
// transaction changed after its snapshot (or its read) fails its COMMIT
// with 1213, whether it read the row first or only updates it: first
// committer wins, on every backend.
func TestSnapshotLostUpdate(t *testing.T) {
	forEachBackend(t, func(t *testing.T, ts *testServer) {
		a, b := ts.Session("d"), ts.conn()
		mustExec(t, b, "USE d")
		mustExec(t, a, "CREATE TABLE t (id INT PRIMARY KEY, v INT)")
		mustExec(t, a, "INSERT INTO t VALUES (1, 10), (2, 20)")

		// Read, then write what was read plus one.
		mustExec(t, a, "BEGIN")
		expectRows(t, a, "SELECT v FROM t WHERE id = 1", "10")
		mustExec(t, b, "UPDATE t SET v = v + 100 WHERE id = 1")
		mustExec(t, a, "UPDATE t SET v = 11 WHERE id = 1")
		expectErrno(t, a, 1213, "COMMIT")
		expectRows(t, a, "SELECT v FROM t WHERE id = 1", "110")

		// Snapshot taken by reading another row; the update reads the
		// row from the snapshot, older than its current version.
		mustExec(t, a, "BEGIN")
		expectRows(t, a, "SELECT v FROM t WHERE id = 1", "110")
		mustExec(t, b, "UPDATE t SET v = v + 100 WHERE id = 2")
		mustExec(t, a, "UPDATE t SET v = v + 1 WHERE id = 2")
		if hasSnapshots(ts.Store) {
			expectErrno(t, a, 1213, "COMMIT")
			expectRows(t, a, "SELECT v FROM t WHERE id = 2", "120")
		} else {
			// Read committed: the update read the current version.
			mustExec(t, a, "COMMIT")
			expectRows(t, a, "SELECT v FROM t WHERE id = 2", "121")
		}
	})
}

// TestSnapshotWriteSkew shows the anomaly snapshot isolation keeps, at
// REPEATABLE READ and SERIALIZABLE alike: two transactions each read both
// rows and write a different one, and both commit (no read set is
// validated at commit and no read takes a lock).
func TestSnapshotWriteSkew(t *testing.T) {
	forEachBackend(t, func(t *testing.T, ts *testServer) {
		a, b := ts.Session("d"), ts.conn()
		mustExec(t, b, "USE d")
		mustExec(t, a, "CREATE TABLE oncall (id INT PRIMARY KEY, on_duty INT)")
		mustExec(t, a, "INSERT INTO oncall VALUES (1, 1), (2, 1)")
		for _, level := range []string{"REPEATABLE-READ", "SERIALIZABLE"} {
			mustExec(t, a, "UPDATE oncall SET on_duty = 1")
			mustExec(t, a, "SET SESSION transaction_isolation = '"+level+"'")
			mustExec(t, b, "SET SESSION transaction_isolation = '"+level+"'")
			mustExec(t, a, "BEGIN")
			mustExec(t, b, "BEGIN")
			expectRows(t, a, "SELECT SUM(on_duty) FROM oncall", "2")
			expectRows(t, b, "SELECT SUM(on_duty) FROM oncall", "2")
			mustExec(t, a, "UPDATE oncall SET on_duty = 0 WHERE id = 1")
			mustExec(t, b, "UPDATE oncall SET on_duty = 0 WHERE id = 2")
			mustExec(t, a, "COMMIT")
			mustExec(t, b, "COMMIT")
			expectRows(t, a, "SELECT SUM(on_duty) FROM oncall", "0")
		}
	})
}

// TestSnapshotForeignKeyChecksReadCurrentRows: a foreign key check reads
// the latest committed rows, not the transaction's snapshot (InnoDB's
// checks are current reads): a parent deleted after the snapshot is
// missing for a child inserted later in the transaction.
func TestSnapshotForeignKeyChecksReadCurrentRows(t *testing.T) {
	snapshotBackends(t, func(t *testing.T, ts *testServer) {
		a, b := ts.Session("d"), ts.conn()
		mustExec(t, b, "USE d")
		mustExec(t, a, "CREATE TABLE parent (id INT PRIMARY KEY)")
		mustExec(t, a, "CREATE TABLE child (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES parent (id))")
		mustExec(t, a, "INSERT INTO parent VALUES (1), (2)")
		mustExec(t, a, "BEGIN")
		expectRows(t, a, "SELECT id FROM parent ORDER BY id", "1", "2")
		mustExec(t, b, "DELETE FROM parent WHERE id = 2")
		expectRows(t, a, "SELECT id FROM parent ORDER BY id", "1", "2") // the snapshot
		expectErrno(t, a, 1452, "INSERT INTO child VALUES (1, 2)")
		mustExec(t, a, "INSERT INTO child VALUES (1, 1)")
		mustExec(t, a, "COMMIT")
		expectRows(t, a, "SELECT id, pid FROM child", "1\t1")
	})
}

// TestSnapshotsReleased: an idle connection holds no snapshot; an open
// REPEATABLE READ transaction holds one until COMMIT or ROLLBACK.
func TestSnapshotsReleased(t *testing.T) {
	snapshotBackends(t, func(t *testing.T, ts *testServer) {
		p, ok := ts.Store.(*pebble.Store)
		if !ok {
			t.Skipf("store %T", ts.Store)
		}
		open := func() int { return p.DB().Metrics().Snapshots.Count }
		a, b := ts.Session("d"), ts.conn()
		mustExec(t, b, "USE d")
		mustExec(t, a, "CREATE TABLE t (id INT PRIMARY KEY, v INT)")
		mustExec(t, a, "INSERT INTO t VALUES (1, 10), (2, 20)")
		expectRows(t, a, "SELECT v FROM t WHERE id = 1", "10")
		expectRows(t, a, "SELECT SUM(v) FROM t", "30")
		mustExec(t, a, "UPDATE t SET v = 11 WHERE id = 1")
		if n := open(); n != 0 {
			t.Fatalf("%d snapshots open after autocommit statements", n)
		}
		mustExec(t, b, "SET SESSION transaction_isolation = 'READ-COMMITTED'")
		mustExec(t, b, "BEGIN")
		expectRows(t, b, "SELECT SUM(v) FROM t", "31")
		if n := open(); n != 0 {
			t.Fatalf("%d snapshots open between statements at READ COMMITTED", n)
		}
		mustExec(t, b, "COMMIT")
		mustExec(t, a, "BEGIN")
		expectRows(t, a, "SELECT SUM(v) FROM t", "31")
		if n := open(); n != 1 {
			t.Fatalf("%d snapshots open in a REPEATABLE READ transaction, want 1", n)
		}
		mustExec(t, a, "COMMIT")
		if n := open(); n != 0 {
			t.Fatalf("%d snapshots open after COMMIT", n)
		}
		mustExec(t, a, "BEGIN")
		expectRows(t, a, "SELECT SUM(v) FROM t", "31")
		mustExec(t, a, "ROLLBACK")
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
	snapshotBackends(t, func(t *testing.T, ts *testServer) {
		a, b := ts.Session("d"), ts.conn()
		mustExec(t, b, "USE d")
		mustExec(t, a, "CREATE TABLE t (id INT PRIMARY KEY, v INT)")
		mustExec(t, a, "INSERT INTO t VALUES (1, 10), (2, 20)")
		for _, order := range []string{"current first", "snapshot first"} {
			mustExec(t, a, "UPDATE t SET v = 20 WHERE id = 2")
			mustExec(t, a, "BEGIN")
			expectRows(t, a, "SELECT v FROM t WHERE id = 1", "10") // the snapshot
			mustExec(t, b, "UPDATE t SET v = v + 1 WHERE id = 2")  // 21, after it
			if order == "snapshot first" {
				expectRows(t, a, "SELECT v FROM t WHERE id = 2", "20")
			}
			mustExec(t, a, "INSERT IGNORE INTO t VALUES (2, 0)") // reads the current row
			mustExec(t, a, "UPDATE t SET v = v + 100 WHERE id = 2")
			expectErrno(t, a, 1213, "COMMIT")
			expectRows(t, a, "SELECT v FROM t WHERE id = 2", "21")
		}
	})
}
