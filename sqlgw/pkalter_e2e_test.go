package sqlgw_test

import (
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/sqlgw"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage"
)

// Known failure 35 (Laravel/Eloquent): a table created without a key gets
// it from ALTER TABLE ... ADD PRIMARY KEY while it is empty.
func TestPKAlterAddOnEmptyTable(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Session("pk",
			"CREATE TABLE t (a INT, b VARCHAR(20), n INT)",
			"ALTER TABLE t ADD PRIMARY KEY (a, b)")
		r := sqltest.NewRunner(t, c)
		expectColumnType(t, c, "t", "a", "int\tNO", "a after ADD PRIMARY KEY")
		expectColumnType(t, c, "t", "b", "varchar(20)\tNO", "b after ADD PRIMARY KEY")
		create := r.Rows("SHOW CREATE TABLE t")
		if len(create) != 1 || !strings.Contains(create[0], "PRIMARY KEY (`a`,`b`)") {
			t.Fatalf("SHOW CREATE TABLE: %q", create)
		}
		r.Script(`
			exec INSERT INTO t VALUES (1, 'x', 10), (1, 'y', 11), (2, 'x', 20)
			error 1062 INSERT INTO t VALUES (1, 'y', 99)
			error 1048 INSERT INTO t VALUES (NULL, 'z', 1)
			query SELECT a, b, n FROM t ORDER BY a, b
			= 1 | x | 10
			= 1 | y | 11
			= 2 | x | 20
			query SELECT n FROM t WHERE a = 1 AND b = 'y'
			= 11
		`)
		if ex := explainText(t, c, "SELECT n FROM t WHERE a = 1 AND b = 'y'"); !strings.Contains(ex, "PRIMARY") {
			t.Fatalf("EXPLAIN of a key lookup does not use PRIMARY:\n%s", ex)
		}
		// The table now has a key: a second one is 1068, a secondary index works.
		r.Script(`
			error 1068 ALTER TABLE t ADD PRIMARY KEY (n)
			exec CREATE INDEX ix_n ON t (n)
			query SELECT a, b FROM t WHERE n = 20
			= 2 | x
			# With rows, the key cannot change.
			exec CREATE TABLE r (a INT, b INT)
			exec INSERT INTO r VALUES (1, 2)
		`)
		r.ExpectError(1235, "needs a table rewrite", "ALTER TABLE r ADD PRIMARY KEY (a)")
		expectColumnType(t, c, "r", "a", "int\tYES", "r.a after the refused ADD PRIMARY KEY")
		// Emptied by DELETE, it can.
		r.Script(`
			exec DELETE FROM r
			exec ALTER TABLE r ADD PRIMARY KEY (b)
			exec INSERT INTO r VALUES (1, 2)
			error 1062 INSERT INTO r VALUES (5, 2)
			# DROP PRIMARY KEY: 1091 on a keyless table, 1235 with rows, allowed empty.
			exec CREATE TABLE k (a INT)
			error 1091 ALTER TABLE k DROP PRIMARY KEY
		`)
		r.ExpectError(1235, "needs a table rewrite", "ALTER TABLE r DROP PRIMARY KEY")
		r.Script(`
			exec CREATE TABLE d (a INT PRIMARY KEY, b INT NOT NULL)
			exec ALTER TABLE d DROP PRIMARY KEY
			exec INSERT INTO d VALUES (1, 1), (1, 1)
			query SELECT COUNT(*) FROM d
			= 2
			exec DELETE FROM d
			# Both in one statement.
			exec ALTER TABLE d ADD PRIMARY KEY (b)
			exec ALTER TABLE d DROP PRIMARY KEY, ADD PRIMARY KEY (a, b)
		`)
		create = r.Rows("SHOW CREATE TABLE d")
		if len(create) != 1 || !strings.Contains(create[0], "PRIMARY KEY (`a`,`b`)") {
			t.Fatalf("SHOW CREATE TABLE d: %q", create)
		}
		// An AUTO_INCREMENT column must stay a key (1075); a table with a
		// secondary index keeps its key (1235) even when empty.
		r.Script(`
			exec CREATE TABLE ai (id INT AUTO_INCREMENT PRIMARY KEY)
			error 1075 ALTER TABLE ai DROP PRIMARY KEY
			exec CREATE TABLE ix (a INT PRIMARY KEY, b INT, KEY (b))
		`)
		r.ExpectError(1235, "secondary indexes", "ALTER TABLE ix DROP PRIMARY KEY")
		// A BLOB cannot be a key column (MariaDB 10.11: 1170).
		r.Exec("CREATE TABLE bl (a BLOB)")
		r.ExpectErrno(1170, "ALTER TABLE bl ADD PRIMARY KEY (a)")
	})
}

// A row written between the emptiness check and the commit makes the
// second check fail: the key is restored and the ALTER fails.
func TestPKAlterConcurrentInsert(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		rc, rw := ts.Pair("pc")
		rc.Exec("CREATE TABLE t (a INT, b INT)")
		inWindow(t, sqlgw.SetPKVerifiedHook, rw.DB, "INSERT INTO t VALUES (1, 1), (1, 1)", func() {
			rc.ExpectError(1235, "needs a table rewrite", "ALTER TABLE t ADD PRIMARY KEY (a)")
		})
		expectColumnType(t, rc.DB, "t", "a", "int\tYES", "after the reverted ADD PRIMARY KEY")
		rc.ExpectRows("SELECT a, b FROM t", "1\t1", "1\t1")

		// A DDL change in the window: a retryable conflict.
		rc.Exec("DELETE FROM t")
		inWindow(t, sqlgw.SetPKVerifiedHook, rw.DB, "ALTER TABLE t ADD COLUMN g INT", func() {
			rc.ExpectErrno(1213, "ALTER TABLE t ADD PRIMARY KEY (a)")
		})
		rc.Exec("ALTER TABLE t ADD PRIMARY KEY (a)") // the retry succeeds
		rc.Exec("INSERT INTO t VALUES (1, 1, 1)")
		rc.ExpectErrno(1062, "INSERT INTO t VALUES (1, 2, 2)")
	})
}

// Another gateway sees the new key; a stale gateway's keyless insert after
// the commit is found by the second check and the key is restored.
func TestPKAlterOtherGateway(t *testing.T) {
	sqltest.ForEachSharedStore(t, func(t *testing.T, store storage.Store, co catalog.Options) {
		ca := sqltest.NewRunner(t, sqltest.Start(t, store, sqltest.Options{Catalog: co}).Conn())
		ca.Script(`
			exec CREATE DATABASE og
			exec CREATE TABLE og.t (a INT, b INT)
			exec CREATE TABLE og.u (a INT, b INT)
		`)
		cb := sqltest.Start(t, store, sqltest.Options{Catalog: co}).Conn()
		sqltest.NewRunner(t, cb).ExpectRows("SELECT COUNT(*) FROM og.t", "0")

		ca.Exec("ALTER TABLE og.t ADD PRIMARY KEY (a, b)")
		sqltest.NewRunner(t, cb).Exec("INSERT INTO og.t VALUES (1, 2)")
		sqltest.NewRunner(t, cb).ExpectErrno(1062, "INSERT INTO og.t VALUES (1, 2)")
		ca.ExpectRows("SELECT a, b FROM og.t WHERE a = 1 AND b = 2", "1\t2")
		sqltest.NewRunner(t, cb).Exec("USE og")
		if ex := explainText(t, cb, "SELECT a FROM t WHERE a = 1 AND b = 2"); !strings.Contains(ex, "PRIMARY") {
			t.Fatalf("gateway B's EXPLAIN does not use PRIMARY:\n%s", ex)
		}

		cc := staleGateway(t, store, co) // C keeps its cached catalog
		cc.ExpectRows("SELECT COUNT(*) FROM og.u", "0")
		inWindow(t, sqlgw.SetPKCommittedHook, cc.DB, "INSERT INTO og.u VALUES (7, 8)", func() {
			ca.ExpectError(1235, "needs a table rewrite", "ALTER TABLE og.u ADD PRIMARY KEY (a)")
		})
		ca.ExpectRows("SELECT a, b FROM og.u", "7\t8")
	})
}
