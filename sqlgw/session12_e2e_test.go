package sqlgw_test

import (
	"context"
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
