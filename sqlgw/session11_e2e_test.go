package sqlgw_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/sqlgw/sqlgw/sqlgw"
)

// TestDropIfExistsMissingDatabase: DROP TABLE / DROP VIEW IF EXISTS of a
// name in a database that does not exist succeeds with MySQL 8.0's note
// 1051 naming it (MariaDB the same); go-mysql-server failed with 1049.
// Without IF EXISTS, and for any other statement, 1049 stays.
func TestDropIfExistsMissingDatabase(t *testing.T) {
	w := newWarningsConn(t, sqlgw.Config{})
	w.exec("CREATE DATABASE cur")
	w.exec("USE cur")
	w.expect("DROP TABLE IF EXISTS nosuchdb.t", "Note|1051|Unknown table 'nosuchdb.t'")
	w.expect("DROP TABLE IF EXISTS nosuchdb.t1, nosuchdb.t2", "Note|1051|Unknown table 'nosuchdb.t1,nosuchdb.t2'")
	w.expect("DROP VIEW IF EXISTS nosuchdb.v", "Note|1051|Unknown table 'nosuchdb.v'")
	w.expect("DROP VIEW IF EXISTS nosuchdb.v1, nosuchdb.v2", "Note|1051|Unknown table 'nosuchdb.v1,nosuchdb.v2'")
	w.exec("PREPARE s FROM 'DROP TABLE IF EXISTS nosuchdb.p'")
	w.expect("EXECUTE s", "Note|1051|Unknown table 'nosuchdb.p'")
	w.expectError("DROP TABLE nosuchdb.t", 1049, "Unknown database 'nosuchdb'")
	w.expectError("SELECT * FROM nosuchdb.t", 1049, "Unknown database 'nosuchdb'")
	w.expectError("CREATE TABLE nosuchdb.t (id INT PRIMARY KEY)", 1049, "Unknown database 'nosuchdb'")
	w.expectRows("SHOW DATABASES LIKE 'nosuchdb'")
	w.expect("DROP TABLE IF EXISTS t", "Note|1051|Unknown table 'cur.t'")
}

// TestStartTransactionCharacteristicsList: START TRANSACTION takes any
// comma-separated list of READ ONLY, READ WRITE and WITH CONSISTENT
// SNAPSHOT (MySQL 8.0 and MariaDB); vitess's grammar took one. READ ONLY
// with READ WRITE is MySQL's syntax error 1064.
func TestStartTransactionCharacteristicsList(t *testing.T) {
	for _, cfg := range []sqlgw.Config{{}, {NoDirect: true}} {
		t.Run(fmt.Sprintf("NoDirect=%v", cfg.NoDirect), func(t *testing.T) {
			w := newWarningsConn(t, cfg)
			w.exec("CREATE DATABASE stc")
			w.exec("USE stc")
			w.exec("CREATE TABLE t (id INT PRIMARY KEY)")
			const ro = "Cannot execute statement in a READ ONLY transaction."
			for _, q := range []string{"START TRANSACTION READ ONLY, WITH CONSISTENT SNAPSHOT",
				"START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY",
				"start transaction /* c */ with consistent snapshot ,read only, read only",
				"START TRANSACTION READ ONLY,WITH CONSISTENT SNAPSHOT;"} {
				w.exec(q)
				w.expectError("INSERT INTO t VALUES (1)", 1792, ro)
				w.expectRows("SELECT COUNT(*) FROM t", "0")
				w.exec("COMMIT")
			}
			for i, q := range []string{"START TRANSACTION READ WRITE, WITH CONSISTENT SNAPSHOT",
				"START TRANSACTION WITH CONSISTENT SNAPSHOT, READ WRITE",
				"START TRANSACTION WITH CONSISTENT SNAPSHOT, WITH CONSISTENT SNAPSHOT"} {
				w.exec(q)
				w.exec(fmt.Sprintf("INSERT INTO t VALUES (%d)", i+1))
				w.exec("COMMIT")
			}
			w.expectRows("SELECT id FROM t ORDER BY id", "1", "2", "3")
			// Under the session's read-only mode, the list's READ WRITE
			// still starts a read-write transaction.
			w.exec("SET SESSION transaction_read_only = 1")
			w.exec("START TRANSACTION WITH CONSISTENT SNAPSHOT, READ WRITE")
			w.exec("INSERT INTO t VALUES (4)")
			w.exec("COMMIT")
			w.exec("SET SESSION transaction_read_only = 0")
			const syntax = "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near '' at line 1"
			w.expectError("START TRANSACTION READ ONLY, READ WRITE", 1064, syntax)
			w.expectError("START TRANSACTION READ WRITE, WITH CONSISTENT SNAPSHOT, READ ONLY", 1064, syntax)
			// The error commits nothing (a START TRANSACTION would).
			w.exec("BEGIN")
			w.exec("INSERT INTO t VALUES (5)")
			w.expectError("START TRANSACTION READ ONLY, WITH CONSISTENT SNAPSHOT, READ WRITE", 1064, syntax)
			w.exec("ROLLBACK")
			w.expectError("PREPARE s FROM 'START TRANSACTION READ WRITE, READ ONLY'", 1064, syntax)
			w.expectRows("SELECT id FROM t ORDER BY id", "1", "2", "3", "4")
		})
	}
}

// TestSetTransactionOneShot: SET TRANSACTION READ ONLY / READ WRITE
// without SESSION or GLOBAL sets the next transaction only (MySQL 8.0 and
// MariaDB): an autocommit statement's or START TRANSACTION's, then the
// session's value again; the variable does not change. Inside an active
// transaction it is 1568. go-mysql-server made it the session form.
func TestSetTransactionOneShot(t *testing.T) {
	for _, cfg := range []sqlgw.Config{{}, {NoDirect: true}} {
		t.Run(fmt.Sprintf("NoDirect=%v", cfg.NoDirect), func(t *testing.T) {
			w := newWarningsConn(t, cfg)
			w.exec("CREATE DATABASE os")
			w.exec("USE os")
			w.exec("CREATE TABLE t (id INT PRIMARY KEY)")
			const ro = "Cannot execute statement in a READ ONLY transaction."
			const inTx = "Transaction characteristics can't be changed while a transaction is in progress"
			// The next autocommit statement.
			w.exec("SET TRANSACTION READ ONLY")
			w.expectError("INSERT INTO t VALUES (1)", 1792, ro)
			w.exec("INSERT INTO t VALUES (1)")
			// The next START TRANSACTION / BEGIN.
			w.exec("SET TRANSACTION READ ONLY")
			w.exec("START TRANSACTION")
			w.expectError("INSERT INTO t VALUES (2)", 1792, ro)
			w.exec("COMMIT")
			w.expectRows("SELECT @@transaction_read_only, @@session.transaction_read_only", "0|0")
			// Any statement is the next transaction in autocommit mode.
			w.exec("SET TRANSACTION READ ONLY")
			w.expectRows("SELECT 1", "1")
			w.exec("INSERT INTO t VALUES (2)")
			w.exec("SET TRANSACTION READ ONLY")
			w.exec("BEGIN")
			w.expectError("DELETE FROM t WHERE id = 1", 1792, ro)
			w.exec("ROLLBACK")
			// START TRANSACTION READ WRITE overrides it.
			w.exec("SET TRANSACTION READ ONLY")
			w.exec("START TRANSACTION READ WRITE")
			w.exec("INSERT INTO t VALUES (3)")
			w.exec("COMMIT")
			// READ WRITE for one transaction under a read-only session.
			w.exec("SET SESSION TRANSACTION READ ONLY")
			w.exec("SET TRANSACTION READ WRITE")
			w.exec("BEGIN")
			w.exec("INSERT INTO t VALUES (4)")
			w.exec("COMMIT")
			w.expectError("INSERT INTO t VALUES (5)", 1792, ro)
			w.expectRows("SELECT @@transaction_read_only", "1")
			w.exec("SET SESSION TRANSACTION READ WRITE")
			// 1568 inside a transaction, which goes on unchanged.
			w.exec("BEGIN")
			w.expectError("SET TRANSACTION READ ONLY", 1568, inTx)
			w.expectError("SET TRANSACTION ISOLATION LEVEL READ COMMITTED", 1568, inTx)
			w.exec("INSERT INTO t VALUES (5)")
			w.exec("COMMIT")
			// With autocommit off: the open transaction, until it has
			// touched a table.
			w.exec("SET autocommit = 0")
			w.exec("SET TRANSACTION READ ONLY")
			w.expectError("INSERT INTO t VALUES (6)", 1792, ro)
			w.exec("COMMIT")
			w.exec("INSERT INTO t VALUES (6)")
			w.expectError("SET TRANSACTION READ ONLY", 1568, inTx)
			w.exec("COMMIT")
			w.exec("SET TRANSACTION READ ONLY")
			w.exec("START TRANSACTION")
			w.expectError("INSERT INTO t VALUES (7)", 1792, ro)
			w.exec("COMMIT")
			w.exec("SET autocommit = 1")
			w.expectRows("SELECT id FROM t ORDER BY id", "1", "2", "3", "4", "5", "6")
		})
	}
}

// TestSetTransactionOneShotPrepared: a one-shot SET TRANSACTION READ ONLY
// applies to a binary-protocol prepared START TRANSACTION (the plan
// cache's BEGIN without go-mysql-server, txcontrol.go).
func TestSetTransactionOneShotPrepared(t *testing.T) {
	for _, cfg := range []sqlgw.Config{{}, {NoDirect: true}} {
		t.Run(fmt.Sprintf("NoDirect=%v", cfg.NoDirect), func(t *testing.T) {
			w, db := conv10DB(t, cfg)
			w.exec("CREATE DATABASE osp")
			w.exec("CREATE TABLE osp.t (id INT PRIMARY KEY)")
			ctx := context.Background()
			conn, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			begin, err := conn.PrepareContext(ctx, "START TRANSACTION")
			if err != nil {
				t.Fatal(err)
			}
			for i := 1; i <= 3; i++ {
				if _, err := conn.ExecContext(ctx, "SET TRANSACTION READ ONLY"); err != nil {
					t.Fatal(err)
				}
				if _, err := begin.ExecContext(ctx); err != nil {
					t.Fatal(err)
				}
				_, err := conn.ExecContext(ctx, "INSERT INTO osp.t VALUES (?)", i)
				var me *gomysql.MySQLError
				if !errors.As(err, &me) || me.Number != 1792 {
					t.Errorf("INSERT %d after SET TRANSACTION READ ONLY; START TRANSACTION: %v, want 1792", i, err)
				}
				if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
					t.Fatal(err)
				}
				if _, err := conn.ExecContext(ctx, "INSERT INTO osp.t VALUES (?)", i); err != nil {
					t.Errorf("INSERT %d in the transaction after: %v", i, err)
				}
			}
			w.expectRows("SELECT id FROM osp.t ORDER BY id", "1", "2", "3")
		})
	}
}

// TestSetTransactionOneShotIsolation: SET TRANSACTION ISOLATION LEVEL
// without SESSION or GLOBAL gives the next transaction its level (how it
// takes snapshots) and leaves @@transaction_isolation alone (MySQL 8.0);
// go-mysql-server changed the session's level for good.
func TestSetTransactionOneShotIsolation(t *testing.T) {
	srv := memoryServer(t, sqlgw.Config{})
	a, b := newWarningsConnTo(t, srv), newWarningsConnTo(t, srv)
	a.exec("CREATE DATABASE osi")
	a.exec("USE osi")
	b.exec("USE osi")
	a.exec("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
	a.exec("INSERT INTO t VALUES (1, 10)")
	a.exec("SET TRANSACTION ISOLATION LEVEL READ COMMITTED")
	a.exec("START TRANSACTION")
	a.expectRows("SELECT @@transaction_isolation", "REPEATABLE-READ")
	a.expectRows("SELECT v FROM t", "10")
	b.exec("UPDATE t SET v = 11 WHERE id = 1")
	a.expectRows("SELECT v FROM t", "11") // READ COMMITTED: a new snapshot
	a.exec("COMMIT")
	// The next transaction is the session's REPEATABLE READ again.
	a.exec("START TRANSACTION")
	a.expectRows("SELECT v FROM t", "11")
	b.exec("UPDATE t SET v = 12 WHERE id = 1")
	a.expectRows("SELECT v FROM t", "11")
	a.exec("COMMIT")
	// And the other way: one REPEATABLE READ transaction in a READ
	// COMMITTED session.
	a.exec("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED")
	a.exec("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ WRITE")
	a.exec("BEGIN")
	a.expectRows("SELECT v FROM t", "12")
	b.exec("UPDATE t SET v = 13 WHERE id = 1")
	a.expectRows("SELECT v FROM t", "12")
	a.exec("COMMIT")
	a.expectRows("SELECT @@transaction_isolation", "READ-COMMITTED")
}

// TestTxReadOnlyAlias: tx_read_only and transaction_read_only are one
// variable (MySQL 5.7's alias; 8.0.3 removed the old name, MariaDB has
// only it, and Connector/J 5.1 and MariaDB's connectors read it): setting
// either shows in both, and either makes the session read only.
func TestTxReadOnlyAlias(t *testing.T) {
	w := newWarningsConn(t, sqlgw.Config{})
	w.exec("CREATE DATABASE tra")
	w.exec("USE tra")
	w.exec("CREATE TABLE t (id INT PRIMARY KEY)")
	const q = "SELECT @@tx_read_only, @@transaction_read_only, @@session.tx_read_only, @@session.transaction_read_only"
	w.expectRows(q, "0|0|0|0")
	w.exec("SET tx_read_only = 1")
	w.expectRows(q, "1|1|1|1")
	w.expectError("INSERT INTO t VALUES (1)", 1792, "Cannot execute statement in a READ ONLY transaction.")
	w.exec("SET transaction_read_only = 0")
	w.expectRows(q, "0|0|0|0")
	w.exec("INSERT INTO t VALUES (1)")
	w.exec("SET SESSION TRANSACTION READ ONLY")
	w.expectRows(q, "1|1|1|1")
	w.exec("SET @@session.tx_read_only = OFF")
	w.expectRows(q, "0|0|0|0")
	w.exec("SET @@transaction_read_only = ON")
	w.expectRows("SHOW VARIABLES LIKE '%read_only'", "innodb_read_only|OFF", "read_only|OFF", "super_read_only|OFF", "transaction_read_only|ON", "tx_read_only|ON")
	w.exec("SET @@transaction_read_only = OFF")
}
