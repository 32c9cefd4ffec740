package sqlgw_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/sqlgw/sqlgw/sqlgw"
)

// TestIdentityVariable: @@identity and @@last_insert_id are LAST_INSERT_ID()
// (MySQL 8.0: identity is last_insert_id's synonym), read and set, in the
// text protocol and prepared; go-mysql-server had no @@identity and a
// @@last_insert_id that stayed 0.
func TestIdentityVariable(t *testing.T) {
	for _, cfg := range conv10Configs {
		t.Run(conv10Name(cfg), func(t *testing.T) {
			w, db := conv10DB(t, cfg)
			w.exec("CREATE DATABASE idv")
			w.exec("USE idv")
			w.exec("CREATE TABLE t (id INT PRIMARY KEY AUTO_INCREMENT, v INT)")
			const q = "SELECT LAST_INSERT_ID(), @@identity, @@session.identity, @@last_insert_id, @@session.last_insert_id"
			w.expectRows(q, "0|0|0|0|0")
			w.exec("INSERT INTO t (v) VALUES (1)")
			w.expectRows(q, "1|1|1|1|1")
			w.exec("INSERT INTO t (v) VALUES (2), (3)")
			w.expectRows(q, "2|2|2|2|2")
			w.exec("SET @@identity = 40")
			w.expectRows(q, "40|40|40|40|40")
			w.exec("SET last_insert_id = 41")
			w.expectRows(q, "41|41|41|41|41")
			w.exec("SET SESSION identity = 42")
			w.expectRows("SHOW VARIABLES WHERE Variable_name IN ('identity', 'last_insert_id')", "identity|42", "last_insert_id|42")
			w.expectError("SET GLOBAL identity = 1", 1105, "Variable 'identity' is a SESSION variable and can't be used with SET GLOBAL")
			// Prepared (the binary protocol), on a connection of its own.
			if _, err := db.Exec("INSERT INTO idv.t (v) VALUES (?)", 4); err != nil {
				t.Fatal(err)
			}
			var a, b, c int64
			if err := db.QueryRow("SELECT LAST_INSERT_ID(), @@identity, @@last_insert_id").Scan(&a, &b, &c); err != nil {
				t.Fatal(err)
			}
			if a != 4 || b != 4 || c != 4 {
				t.Errorf("prepared after INSERT: LAST_INSERT_ID(), @@identity, @@last_insert_id = %d, %d, %d, want 4, 4, 4", a, b, c)
			}
		})
	}
}

// TestTxIsolationAlias: tx_isolation and transaction_isolation are one
// variable (MySQL 5.7's alias, as tx_read_only): setting either, in the
// session or globally, shows under both names, and the transactions take
// the level set under either.
func TestTxIsolationAlias(t *testing.T) {
	srv := memoryServer(t, sqlgw.Config{})
	a, b := newWarningsConnTo(t, srv), newWarningsConnTo(t, srv)
	a.exec("CREATE DATABASE txi")
	a.exec("USE txi")
	b.exec("USE txi")
	a.exec("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
	a.exec("INSERT INTO t VALUES (1, 10)")
	const q = "SELECT @@tx_isolation, @@transaction_isolation, @@session.tx_isolation, @@session.transaction_isolation"
	a.expectRows(q, "REPEATABLE-READ|REPEATABLE-READ|REPEATABLE-READ|REPEATABLE-READ")
	a.exec("SET tx_isolation = 'READ-COMMITTED'")
	a.expectRows(q, "READ-COMMITTED|READ-COMMITTED|READ-COMMITTED|READ-COMMITTED")
	a.expectRows("SHOW VARIABLES LIKE '%isolation'", "transaction_isolation|READ-COMMITTED", "tx_isolation|READ-COMMITTED")
	// The transaction reads at READ COMMITTED: a new snapshot per statement.
	a.exec("START TRANSACTION")
	a.expectRows("SELECT v FROM t", "10")
	b.exec("UPDATE t SET v = 11 WHERE id = 1")
	a.expectRows("SELECT v FROM t", "11")
	a.exec("COMMIT")
	a.exec("SET @@session.transaction_isolation = 'SERIALIZABLE'")
	a.expectRows(q, "SERIALIZABLE|SERIALIZABLE|SERIALIZABLE|SERIALIZABLE")
	a.exec("SET SESSION TRANSACTION ISOLATION LEVEL READ UNCOMMITTED")
	a.expectRows(q, "READ-UNCOMMITTED|READ-UNCOMMITTED|READ-UNCOMMITTED|READ-UNCOMMITTED")
	a.exec("SET @@tx_isolation = DEFAULT")
	a.expectRows(q, "REPEATABLE-READ|REPEATABLE-READ|REPEATABLE-READ|REPEATABLE-READ")
	// Globally: the other name too, and the sessions that start after.
	const g = "SELECT @@global.tx_isolation, @@global.transaction_isolation"
	a.exec("SET GLOBAL tx_isolation = 'READ-COMMITTED'")
	a.expectRows(g, "READ-COMMITTED|READ-COMMITTED")
	c := newWarningsConnTo(t, srv)
	c.expectRows(q, "READ-COMMITTED|READ-COMMITTED|READ-COMMITTED|READ-COMMITTED")
	a.exec("SET @@global.transaction_isolation = 'REPEATABLE-READ'")
	a.expectRows(g, "REPEATABLE-READ|REPEATABLE-READ")
	a.exec("SET GLOBAL tx_read_only = 1")
	a.expectRows("SELECT @@global.tx_read_only, @@global.transaction_read_only", "1|1")
	a.exec("SET GLOBAL transaction_read_only = 0")
	a.expectRows("SELECT @@global.tx_read_only, @@global.transaction_read_only", "0|0")
}

// TestSelectLockingClauseNames: a SELECT without FROM ending in FOR UPDATE
// names its last column without the FOR (MySQL 8.0: SELECT 1 FOR UPDATE
// is column "1"; it was "1 for"), in the text protocol and prepared.
func TestSelectLockingClauseNames(t *testing.T) {
	for _, cfg := range conv10Configs {
		t.Run(conv10Name(cfg), func(t *testing.T) {
			w, db := conv10DB(t, cfg)
			w.exec("CREATE DATABASE lcn")
			w.exec("CREATE TABLE lcn.t (id INT PRIMARY KEY)")
			w.exec("INSERT INTO lcn.t VALUES (1)")
			for q, want := range map[string]string{
				"SELECT 1 FOR UPDATE":                       "1",
				"select 1 for update nowait":                "1",
				"SELECT 1, 2+3 FOR UPDATE SKIP LOCKED":      "1,2+3",
				"SELECT 'for' FOR UPDATE":                   "for",
				"SELECT 1 LOCK IN SHARE MODE":               "1",
				"SELECT 1 AS x FOR UPDATE":                  "x",
				"SELECT id+1 FROM lcn.t FOR UPDATE":         "id+1",
				"SELECT 1 UNION SELECT 2 FOR UPDATE":        "1",
				"SELECT 1 FROM lcn.t WHERE id=1 FOR UPDATE": "1",
			} {
				res, err := w.vt.ExecuteFetch(q, 10, true)
				if err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				var names []string
				for _, f := range res.Fields {
					names = append(names, f.Name)
				}
				if got := strings.Join(names, ","); got != want {
					t.Errorf("%s: columns %q, want %q", q, got, want)
				}
				rows, err := db.Query(q)
				if err != nil {
					t.Fatalf("prepared %s: %v", q, err)
				}
				cols, _ := rows.Columns()
				rows.Close()
				if got := strings.Join(cols, ","); got != want {
					t.Errorf("prepared %s: columns %q, want %q", q, got, want)
				}
			}
		})
	}
}

// TestStartTransactionListPrepared: START TRANSACTION's characteristic
// list as a binary-protocol prepared statement (COM_STMT_PREPARE, which
// vitess parses before the engine): READ ONLY refuses writes, WITH
// CONSISTENT SNAPSHOT takes the snapshot at the start; READ ONLY with
// READ WRITE does not prepare.
func TestStartTransactionListPrepared(t *testing.T) {
	for _, cfg := range []sqlgw.Config{{}, {NoDirect: true}} {
		t.Run(fmt.Sprintf("NoDirect=%v", cfg.NoDirect), func(t *testing.T) {
			w, db := conv10DB(t, cfg)
			w.exec("CREATE DATABASE stp")
			w.exec("CREATE TABLE stp.t (id INT PRIMARY KEY, v INT)")
			w.exec("INSERT INTO stp.t VALUES (1, 10)")
			ctx := context.Background()
			conn, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			for i, q := range []string{"START TRANSACTION READ ONLY, WITH CONSISTENT SNAPSHOT",
				"START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY"} {
				st, err := conn.PrepareContext(ctx, q)
				if err != nil {
					t.Fatalf("prepare %s: %v", q, err)
				}
				if _, err := st.ExecContext(ctx); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				st.Close()
				// The snapshot was taken at START TRANSACTION.
				w.exec("UPDATE stp.t SET v = v + 1 WHERE id = 1")
				var v int
				if err := conn.QueryRowContext(ctx, "SELECT v FROM stp.t WHERE id = 1").Scan(&v); err != nil {
					t.Fatal(err)
				}
				if want := 10 + i; v != want {
					t.Errorf("%s: read %d after another session's UPDATE, want %d (the snapshot of the start)", q, v, want)
				}
				_, err = conn.ExecContext(ctx, "INSERT INTO stp.t VALUES (?, 0)", 2)
				var me *gomysql.MySQLError
				if !errors.As(err, &me) || me.Number != 1792 {
					t.Errorf("%s: INSERT got %v, want 1792", q, err)
				}
				if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
					t.Fatal(err)
				}
			}
			st, err := conn.PrepareContext(ctx, "START TRANSACTION WITH CONSISTENT SNAPSHOT, READ WRITE")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := st.ExecContext(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := conn.ExecContext(ctx, "INSERT INTO stp.t VALUES (?, 0)", 2); err != nil {
				t.Errorf("INSERT in START TRANSACTION WITH CONSISTENT SNAPSHOT, READ WRITE: %v", err)
			}
			if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
				t.Fatal(err)
			}
			if _, err := conn.PrepareContext(ctx, "START TRANSACTION READ ONLY, READ WRITE"); err == nil {
				t.Errorf("START TRANSACTION READ ONLY, READ WRITE prepared")
			}
			w.expectRows("SELECT id, v FROM stp.t ORDER BY id", "1|12", "2|0")
		})
	}
}

// TestIgnoreWarningsAsMySQL: INSERT IGNORE and UPDATE IGNORE store what a
// non-strict write stores and raise MySQL's warnings (level Warning, 1264,
// 1366, 1265; a too-long string is strict mode's 1406 in strict mode,
// 1265 otherwise), in the text protocol and prepared; go-mysql-server's
// were Notes, mostly 1105, a DECIMAL out of range stored 0 and a string
// was cut by bytes.
func TestIgnoreWarningsAsMySQL(t *testing.T) {
	for _, cfg := range conv10Configs {
		t.Run(conv10Name(cfg), func(t *testing.T) {
			w, db := conv10DB(t, cfg)
			w.exec("CREATE DATABASE igw")
			w.exec("USE igw")
			w.exec("CREATE TABLE t (id INT PRIMARY KEY, a TINYINT, s VARCHAR(3), d DECIMAL(4,2), c CHAR(2))")
			w.expect("INSERT IGNORE INTO t (id, a, s) VALUES (1, 1000, 'abcdef'), (2, 'x', 'y')",
				"Warning|1264|Out of range value for column 'a' at row 1",
				"Warning|1406|Data too long for column 's' at row 1",
				"Warning|1366|Incorrect integer value: 'x' for column 'a' at row 2")
			w.expectRows("SELECT @@warning_count", "3")
			w.expect("INSERT IGNORE INTO t (id, d, c) VALUES (3, 123.456, 'é€€'), (4, '12abc', 'ab')",
				"Warning|1264|Out of range value for column 'd' at row 1",
				"Warning|1406|Data too long for column 'c' at row 1",
				"Warning|1265|Data truncated for column 'd' at row 2")
			w.expectRows("SELECT id, a, s, d, c FROM t ORDER BY id",
				"1|127|abc|NULL|NULL", "2|0|y|NULL|NULL", "3|NULL|NULL|99.99|é€", "4|NULL|NULL|12.00|ab")
			w.expect("UPDATE IGNORE t SET a = 5000 WHERE id <= 2",
				"Warning|1264|Out of range value for column 'a' at row 1",
				"Warning|1264|Out of range value for column 'a' at row 2")
			w.expect("UPDATE IGNORE t SET s = 'abcdefg', d = -1000 WHERE id = 3",
				"Warning|1406|Data too long for column 's' at row 1",
				"Warning|1264|Out of range value for column 'd' at row 1")
			w.expect("UPDATE IGNORE t SET a = 'zz' WHERE id = 4",
				"Warning|1366|Incorrect integer value: 'zz' for column 'a' at row 1")
			w.expectRows("SELECT id, a, s, d FROM t ORDER BY id",
				"1|127|abc|NULL", "2|127|y|NULL", "3|NULL|abc|-99.99", "4|0|NULL|12.00")
			// Not strict: the too-long string is 1265.
			w.exec("SET sql_mode = ''")
			w.expect("INSERT IGNORE INTO t (id, s) VALUES (5, 'abcd')", "Warning|1265|Data truncated for column 's' at row 1")
			w.expect("UPDATE IGNORE t SET s = 'wxyz' WHERE id = 5", "Warning|1265|Data truncated for column 's' at row 1")
			// Prepared: the same warnings.
			if _, err := db.Exec("INSERT IGNORE INTO igw.t (id, a, s) VALUES (?, ?, ?)", 6, 300, "abcdef"); err != nil {
				t.Fatal(err)
			}
			expectDBWarnings(t, db, "Warning|1264|Out of range value for column 'a' at row 1",
				"Warning|1406|Data too long for column 's' at row 1")
			if _, err := db.Exec("UPDATE IGNORE igw.t SET a = ? WHERE id = ?", "q", 6); err != nil {
				t.Fatal(err)
			}
			expectDBWarnings(t, db, "Warning|1366|Incorrect integer value: 'q' for column 'a' at row 1")
			w.expectRows("SELECT id, a, s FROM t WHERE id >= 5 ORDER BY id", "5|NULL|wxy", "6|0|abc")
		})
	}
}

// expectDBWarnings requires SHOW WARNINGS on db's one connection.
func expectDBWarnings(t *testing.T, db *sql.DB, want ...string) {
	t.Helper()
	rows, err := db.Query("SHOW WARNINGS")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var level, msg string
		var code int
		if err := rows.Scan(&level, &code, &msg); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s|%d|%s", level, code, msg))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("SHOW WARNINGS:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestSetVarHintApplied: SET_VAR(name = value) sets the session variable
// for its statement only (MySQL 8.0): sql_mode decides the write's
// conversions, sql_select_limit the rows, and the session's value is back
// after the statement, failed or not; a value the variable refuses is
// Warning 1231. Plans the plan cache kept under the session's values are
// not used under the hint's, nor the hint's plan after it. Text protocol
// and prepared.
func TestSetVarHintApplied(t *testing.T) {
	for _, cfg := range conv10Configs {
		t.Run(conv10Name(cfg), func(t *testing.T) {
			w, db := conv10DB(t, cfg)
			w.exec("CREATE DATABASE sva")
			w.exec("USE sva")
			w.exec("CREATE TABLE t (id INT PRIMARY KEY, a TINYINT)")
			const strict = "NO_ENGINE_SUBSTITUTION,ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES" // (go-mysql-server's order)
			w.exec("SET sql_mode = '" + strict + "'")
			w.expectRows("SELECT /*+ SET_VAR(sql_mode = '') */ @@sql_mode, @@session.sql_mode", "|")
			w.expectRows("SELECT @@sql_mode", strict)
			w.expect("INSERT /*+ SET_VAR(sql_mode = '') */ INTO t VALUES (1, 1000)",
				"Warning|1264|Out of range value for column 'a' at row 1")
			w.expectError("INSERT INTO t VALUES (2, 1000)", 1264, "Out of range value for column 'a' at row 1")
			w.exec("INSERT INTO t VALUES (2, 2), (3, 3)")
			w.expect("UPDATE /*+ SET_VAR(sql_mode='') */ t SET a = -500 WHERE id = 2",
				"Warning|1264|Out of range value for column 'a' at row 1")
			w.expectError("UPDATE t SET a = -500 WHERE id = 3", 1264, "Out of range value for column 'a' at row 1")
			// A failed statement's hint is undone too.
			w.expectError("INSERT /*+ SET_VAR(sql_mode='') */ INTO t VALUES (1, 1)", 1062, "Duplicate entry '1' for key 't.PRIMARY'")
			w.expectRows("SELECT @@sql_mode", strict)
			w.expect("SELECT /*+ SET_VAR(sql_mode = 'bogus') */ 1", "Warning|1231|Variable 'sql_mode' can't be set to the value of 'bogus'")
			// sql_select_limit, with the same statements cached without it
			// before and after.
			for i := 0; i < 3; i++ {
				w.expectRows("SELECT id FROM t WHERE id > 0", "1", "2", "3")
			}
			w.expectRows("SELECT /*+ SET_VAR(sql_select_limit = 1) */ id FROM t WHERE id > 0", "1")
			w.expectRows("SELECT id FROM t WHERE id > 0", "1", "2", "3")
			for i := 0; i < 3; i++ {
				w.expectRows("SELECT id FROM t WHERE id > 0 ORDER BY id", "1", "2", "3")
			}
			w.expectRows("SELECT /*+ SET_VAR(sql_select_limit = 1) */ id FROM t WHERE id > 0 ORDER BY id", "1")
			w.expectRows("SELECT id FROM t WHERE id > 0 ORDER BY id", "1", "2", "3")
			w.expectRows("SELECT /*+ SET_VAR(foreign_key_checks = OFF) SET_VAR(unique_checks = 0) */ @@foreign_key_checks, @@unique_checks", "0|0")
			w.expectRows("SELECT @@foreign_key_checks, @@unique_checks", "1|1")
			w.expectRows("SELECT id, a FROM t ORDER BY id", "1|127", "2|-128", "3|3")
			// Prepared (the binary protocol).
			count := func(q string, args ...any) int {
				t.Helper()
				rows, err := db.Query(q, args...)
				if err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				defer rows.Close()
				n := 0
				for rows.Next() {
					n++
				}
				return n
			}
			var before string
			if err := db.QueryRow("SELECT @@sql_mode").Scan(&before); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 3; i++ {
				if n := count("SELECT id FROM sva.t WHERE id > ? ORDER BY id", 0); n != 3 {
					t.Errorf("prepared SELECT before the hint: %d rows, want 3", n)
				}
			}
			if n := count("SELECT /*+ SET_VAR(sql_select_limit = 1) */ id FROM sva.t WHERE id > ? ORDER BY id", 0); n != 1 {
				t.Errorf("prepared SELECT with SET_VAR(sql_select_limit = 1): %d rows, want 1", n)
			}
			if n := count("SELECT id FROM sva.t WHERE id > ? ORDER BY id", 0); n != 3 {
				t.Errorf("prepared SELECT after the hint: %d rows, want 3", n)
			}
			if _, err := db.Exec("UPDATE /*+ SET_VAR(sql_mode='') */ sva.t SET a = ? WHERE id = ?", 999, 3); err != nil {
				t.Errorf("prepared UPDATE with SET_VAR(sql_mode=''): %v", err)
			}
			expectPreparedError(t, db, "UPDATE sva.t SET a = ? WHERE id = ?", 1264, "Out of range value for column 'a' at row 1", 999, 3)
			var mode string
			if err := db.QueryRow("SELECT @@sql_mode").Scan(&mode); err != nil || mode != before {
				t.Errorf("prepared connection's sql_mode after the hints: %q, %v; before them %q", mode, err, before)
			}
			w.expectRows("SELECT a FROM t WHERE id = 3", "127")
		})
	}
}
