package sqlgw_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw"
)

// TestDropIfExistsOtherDatabase: DROP TABLE/VIEW IF EXISTS of a qualified
// missing name notes the database the statement named (MySQL 8.0
// "Unknown table 'otherdb.t'"), not the current one.
func TestDropIfExistsOtherDatabase(t *testing.T) {
	w := newWarningsConn(t, sqlgw.Config{})
	w.exec("CREATE DATABASE cur")
	w.exec("CREATE DATABASE otherdb")
	w.exec("USE cur")
	w.expect("DROP TABLE IF EXISTS otherdb.t", "Note|1051|Unknown table 'otherdb.t'")
	w.expect("DROP TABLE IF EXISTS otherdb.t1, otherdb.t2", "Note|1051|Unknown table 'otherdb.t1,otherdb.t2'")
	w.expect("DROP VIEW IF EXISTS otherdb.v", "Note|1051|Unknown table 'otherdb.v'")
	w.expect("DROP TABLE IF EXISTS t", "Note|1051|Unknown table 'cur.t'")
	w.expect("DROP VIEW IF EXISTS v", "Note|1051|Unknown table 'cur.v'")
	w.exec("CREATE TABLE otherdb.t (id INT PRIMARY KEY)")
	w.expect("DROP TABLE IF EXISTS otherdb.t, otherdb.gone", "Note|1051|Unknown table 'otherdb.gone'")
	w.expect("DROP TABLE IF EXISTS otherdb.t", "Note|1051|Unknown table 'otherdb.t'")
	w.exec("PREPARE s FROM 'DROP TABLE IF EXISTS otherdb.p'")
	w.expect("EXECUTE s", "Note|1051|Unknown table 'otherdb.p'")
	// The next statement's note is the current database's again.
	w.expect("DROP TABLE IF EXISTS t", "Note|1051|Unknown table 'cur.t'")
}

// TestSetClearsWarnings: SET is a nondiagnostic statement, so it starts a
// new warning list (MySQL 8.0, WL#5928): after a SET that raises nothing
// SHOW WARNINGS is empty and @@warning_count 0; go-mysql-server kept the
// previous statement's list (and its count in SET's OK packet).
func TestSetClearsWarnings(t *testing.T) {
	w := newWarningsConn(t, sqlgw.Config{})
	w.exec("CREATE DATABASE sc")
	w.exec("USE sc")
	w.expect("SELECT 1/0", "Warning|1365|Division by 0")
	w.expect("SET @a = 1")
	w.expect("SELECT 1/0, 2/0", "Warning|1365|Division by 0", "Warning|1365|Division by 0")
	w.expect("SET SESSION sql_mode = DEFAULT")
	if got := w.rows("SELECT @@warning_count"); len(got) != 1 || got[0] != "0" {
		t.Errorf("SELECT @@warning_count after SET: %q, want 0", got)
	}
	w.expect("SELECT 1/0", "Warning|1365|Division by 0")
	w.expect("SET @a = 2, @@session.autocommit = 1")
	w.exec("PREPARE ps FROM 'SET @b = 3'")
	w.expect("SELECT 1/0", "Warning|1365|Division by 0")
	w.expect("EXECUTE ps")
	if got := w.rows("SELECT @b"); len(got) != 1 || got[0] != "3" {
		t.Errorf("SELECT @b: %q, want 3", got)
	}
	// A SET's own warnings are its list.
	w.expect("SELECT 1/0, 2/0", "Warning|1365|Division by 0", "Warning|1365|Division by 0")
	w.expect("SET @c = 1/0", "Warning|1365|Division by 0")
}

// TestIgnoreNullWarning: INSERT IGNORE and UPDATE IGNORE of NULL into a
// NOT NULL column store the implicit default with MySQL's Warning 1048
// "Column 'v' cannot be null" (go-mysql-server: a Note with its own
// text), on the general and the direct write paths alike.
func TestIgnoreNullWarning(t *testing.T) {
	for _, cfg := range []sqlgw.Config{{}, {NoDirect: true}} {
		t.Run(fmt.Sprintf("NoDirect=%v", cfg.NoDirect), func(t *testing.T) {
			w := newWarningsConn(t, cfg)
			w.exec("CREATE DATABASE iw")
			w.exec("USE iw")
			w.exec("CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL)")
			w.expect("INSERT IGNORE INTO t VALUES (1, NULL)", "Warning|1048|Column 'v' cannot be null")
			w.expect("INSERT IGNORE INTO t VALUES (1, 5), (2, NULL)",
				"Warning|1062|Duplicate entry '1' for key 't.PRIMARY'", "Warning|1048|Column 'v' cannot be null")
			w.exec("UPDATE t SET v = 7 WHERE id = 1")
			w.expect("UPDATE IGNORE t SET v = NULL WHERE id = 1", "Warning|1048|Column 'v' cannot be null")
			if got := strings.Join(w.rows("SELECT id, v FROM t ORDER BY id"), ","); got != "1|0,2|0" {
				t.Errorf("rows: %s, want 1|0,2|0", got)
			}
		})
	}
}

// TestSessionTransactionReadOnly: the session's transaction_read_only
// (SET SESSION TRANSACTION READ ONLY, SET [SESSION] transaction_read_only
// = 1, SET @@transaction_read_only = 1) makes every transaction read only,
// autocommit statements included: writes are MySQL's 1792, until READ
// WRITE again; START TRANSACTION READ WRITE is read-write whatever the
// variable says. go-mysql-server set the variable and let writes through.
// SET TRANSACTION without SESSION (the next transaction only) sets no
// variable. Both write paths.
func TestSessionTransactionReadOnly(t *testing.T) {
	for _, cfg := range []sqlgw.Config{{}, {NoDirect: true}} {
		t.Run(fmt.Sprintf("NoDirect=%v", cfg.NoDirect), func(t *testing.T) {
			w := newWarningsConn(t, cfg)
			w.exec("CREATE DATABASE tro")
			w.exec("USE tro")
			w.exec("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
			w.exec("INSERT INTO t VALUES (1, 1)")
			const ro = "Cannot execute statement in a READ ONLY transaction."
			writes := []string{"INSERT INTO t VALUES (2, 2)", "UPDATE t SET v = 9 WHERE id = 1", "DELETE FROM t WHERE id = 1", "REPLACE INTO t VALUES (1, 5)"}
			for _, set := range []string{"SET SESSION TRANSACTION READ ONLY", "SET transaction_read_only = 1",
				"SET SESSION transaction_read_only = ON", "SET @@transaction_read_only = 1", "SET @@session.transaction_read_only = 1"} {
				w.exec(set)
				w.expectRows("SELECT @@transaction_read_only", "1")
				for _, q := range writes {
					w.expectError(q, 1792, ro) // autocommit
				}
				w.exec("BEGIN")
				w.expectError(writes[0], 1792, ro)
				w.exec("COMMIT")
				w.exec("START TRANSACTION READ WRITE")
				w.exec("UPDATE t SET v = v + 1 WHERE id = 1")
				w.exec("COMMIT")
				w.expectRows("SELECT id, v FROM t ORDER BY id", "1|2")
				w.exec("SET @@transaction_read_only = 0")
				w.expectRows("SELECT @@transaction_read_only", "0")
				w.exec("UPDATE t SET v = 1 WHERE id = 1")
			}
			w.exec("SET SESSION TRANSACTION READ ONLY")
			w.exec("SET SESSION TRANSACTION READ WRITE")
			w.exec("UPDATE t SET v = 3 WHERE id = 1")
			w.exec("SET transaction_read_only = 1")
			w.exec("SET transaction_read_only = 0")
			w.exec("INSERT INTO t VALUES (2, 2)")
			w.expectRows("SELECT id, v FROM t ORDER BY id", "1|3", "2|2")
			// The one-shot form sets no variable (TestSetTransactionOneShot).
			w.exec("SET TRANSACTION READ ONLY")
			w.exec("SET TRANSACTION READ WRITE")
			w.expectRows("SELECT @@transaction_read_only", "0")
			w.exec("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
			w.exec("SET tx_read_only = 1")
			w.expectError(writes[0], 1792, ro)
			w.exec("SET tx_read_only = 0")
			w.exec("DELETE FROM t WHERE id = 2")
			w.expectRows("SELECT id, v FROM t ORDER BY id", "1|3")
		})
	}
}

// TestSetVarHintWarns: a SET_VAR optimizer hint that cannot apply says
// so: MySQL's Warning 4537 for a variable SET_VAR cannot set, 1193 for an
// unknown one; one that applies (sql_mode) raises nothing
// (TestSetVarHintApplied); go-mysql-server ignored every one silently.
// SELECT, INSERT, UPDATE, DELETE, on both paths.
func TestSetVarHintWarns(t *testing.T) {
	for _, cfg := range []sqlgw.Config{{}, {NoDirect: true}} {
		t.Run(fmt.Sprintf("NoDirect=%v", cfg.NoDirect), func(t *testing.T) {
			w := newWarningsConn(t, cfg)
			w.exec("CREATE DATABASE sv")
			w.exec("USE sv")
			w.exec("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
			w.expect("SELECT /*+ SET_VAR(sql_mode='') */ 1")
			w.expect("SELECT /*+ SET_VAR(transaction_read_only = 1) */ 1",
				"Warning|4537|Variable transaction_read_only cannot be set using SET_VAR hint.")
			w.expect("SELECT /*+ SET_VAR(no_such_var = 1) */ 1", "Warning|1193|Unknown system variable 'no_such_var'")
			w.expect("SELECT /*+ SET_VAR(sql_mode = '') SET_VAR(autocommit = 0) */ id FROM t WHERE id = 1",
				"Warning|4537|Variable autocommit cannot be set using SET_VAR hint.")
			w.expect("INSERT /*+ SET_VAR(sql_mode='') SET_VAR(nope=1) */ INTO t VALUES (1, 1)", "Warning|1193|Unknown system variable 'nope'")
			w.expect("UPDATE /*+ SET_VAR(autocommit=1) */ t SET v = 2 WHERE id = 1", "Warning|4537|Variable autocommit cannot be set using SET_VAR hint.")
			w.expect("DELETE /*+ SET_VAR(nope=1) */ FROM t WHERE id = 1", "Warning|1193|Unknown system variable 'nope'")
			// Without the hint (a plain comment, MAX_EXECUTION_TIME) nothing.
			w.expect("SELECT /* SET_VAR(sql_mode='') */ 1")
			w.expect("SELECT /*+ MAX_EXECUTION_TIME(1000) */ 1")
			w.expect("SELECT 1")
		})
	}
}

// TestSessionTransactionReadOnlyPrepared: the session's
// transaction_read_only refuses server-side prepared writes (the binary
// protocol, the plan cache's direct writes) with 1792 too.
func TestSessionTransactionReadOnlyPrepared(t *testing.T) {
	for _, cfg := range []sqlgw.Config{{}, {NoDirect: true}} {
		t.Run(fmt.Sprintf("NoDirect=%v", cfg.NoDirect), func(t *testing.T) {
			w, db := conv10DB(t, cfg)
			w.exec("CREATE DATABASE trp")
			w.exec("CREATE TABLE trp.t (id INT PRIMARY KEY, v INT)")
			const ro = "Cannot execute statement in a READ ONLY transaction."
			for i := 1; i <= 3; i++ { // (the plan cache takes them after the first)
				if _, err := db.Exec("INSERT INTO trp.t VALUES (?, ?)", i, i); err != nil {
					t.Fatal(err)
				}
				if _, err := db.Exec("UPDATE trp.t SET v = v + ? WHERE id = ?", 10, i); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := db.Exec("SET SESSION transaction_read_only = 1"); err != nil {
				t.Fatal(err)
			}
			expectPreparedError(t, db, "INSERT INTO trp.t VALUES (?, ?)", 1792, ro, 4, 4)
			expectPreparedError(t, db, "UPDATE trp.t SET v = v + ? WHERE id = ?", 1792, ro, 10, 1)
			expectPreparedError(t, db, "DELETE FROM trp.t WHERE id = ?", 1792, ro, 2)
			if _, err := db.Exec("SET SESSION transaction_read_only = 0"); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec("UPDATE trp.t SET v = v + ? WHERE id = ?", 100, 1); err != nil {
				t.Fatal(err)
			}
			w.expectRows("SELECT id, v FROM trp.t ORDER BY id", "1|111", "2|12", "3|13")
		})
	}
}
