package sqlgw_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage"
)

// okPacket runs a write on one connection and checks that it answers with
// an OK packet, not a result set, and that ROW_COUNT() is n.
func okPacket(t *testing.T, c sqltest.Execer, q string, n int) {
	t.Helper()
	if cols := sqltest.NewRunner(t, c).ColumnTypes(q); len(cols) != 0 {
		t.Fatalf("%s: answered with a result set %v, want an OK packet", q, cols)
	}
	sqltest.NewRunner(t, c).ExpectRows("SELECT ROW_COUNT()", fmt.Sprint(n))
}

// Triggers are stored in the catalog and run by the engine: BEFORE
// triggers change NEW, AFTER triggers write other tables; a second gateway
// on the same store runs and lists them.
func TestTriggers(t *testing.T) {
	sqltest.ForEachSharedStore(t, func(t *testing.T, store storage.Store, co catalog.Options) {
		co.RefreshInterval = -1
		ca := sqltest.Start(t, store, sqltest.Options{Catalog: co}).Conn()
		sqltest.NewRunner(t, ca).Script(`
			exec CREATE DATABASE d
			exec USE d
			exec CREATE TABLE acct (id INT PRIMARY KEY, balance INT NOT NULL, name VARCHAR(20))
			exec CREATE TABLE audit (id INT PRIMARY KEY AUTO_INCREMENT, acct INT, what VARCHAR(10), delta INT)
			exec CREATE TRIGGER acct_bi BEFORE INSERT ON acct FOR EACH ROW SET NEW.name = UPPER(NEW.name)
			exec CREATE TRIGGER acct_ai AFTER INSERT ON acct FOR EACH ROW INSERT INTO audit (acct, what, delta) VALUES (NEW.id, 'open', NEW.balance)
			exec CREATE TRIGGER acct_au AFTER UPDATE ON acct FOR EACH ROW INSERT INTO audit (acct, what, delta) VALUES (NEW.id, 'move', NEW.balance - OLD.balance)
			exec CREATE TRIGGER acct_bd BEFORE DELETE ON acct FOR EACH ROW BEGIN IF OLD.balance <> 0 THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'balance not zero'; END IF; END
			error 1359 CREATE TRIGGER acct_ai AFTER DELETE ON audit FOR EACH ROW SET @x = 1
		`)

		// A write with triggers answers with an OK packet (rows
		// affected), never with rows.
		okPacket(t, ca, "INSERT INTO acct VALUES (1, 100, 'ann'), (2, 0, 'bob')", 2)
		okPacket(t, ca, "UPDATE acct SET balance = balance + 5 WHERE id = 1", 1)
		sqltest.NewRunner(t, ca).Script(`
			query SELECT id, balance, name FROM acct ORDER BY id
			= 1 | 105 | ANN
			= 2 | 0 | BOB
			query SELECT acct, what, delta FROM audit ORDER BY id
			= 1 | open | 100
			= 2 | open | 0
			= 1 | move | 5
			error 1644 DELETE FROM acct WHERE id = 1
			exec DELETE FROM acct WHERE id = 2
		`)

		// Another gateway on the same store sees and runs them.
		cb := sqltest.NewRunner(t, sqltest.Start(t, store, sqltest.Options{Catalog: co}).Conn())
		cb.ExpectRows("SELECT TRIGGER_NAME, EVENT_MANIPULATION, ACTION_TIMING, EVENT_OBJECT_TABLE FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = 'd' ORDER BY TRIGGER_NAME",
			"acct_ai\tINSERT\tAFTER\tacct", "acct_au\tUPDATE\tAFTER\tacct", "acct_bd\tDELETE\tBEFORE\tacct", "acct_bi\tINSERT\tBEFORE\tacct")
		// go-mysql-server resolves trigger statements in the current
		// database: from another one, writes are refused, not run
		// without their triggers.
		cb.Script(`
			error 1235 INSERT INTO d.acct VALUES (3, 7, 'cy')
			exec USE d
			exec INSERT INTO d.acct VALUES (3, 7, 'cy')
		`)
		sqltest.NewRunner(t, ca).ExpectRows("SELECT name FROM acct WHERE id = 3", "CY")
		sqltest.NewRunner(t, ca).ExpectRows("SELECT acct, what, delta FROM audit WHERE acct = 3", "3\topen\t7")
		create := strings.Join(cb.Rows("SHOW CREATE TRIGGER d.acct_bi"), "\n")
		if !strings.Contains(create, "SET NEW.name = UPPER(NEW.name)") {
			t.Errorf("SHOW CREATE TRIGGER on B: %s", create)
		}

		// DROP TRIGGER on B stops it on A.
		cb.Exec("DROP TRIGGER d.acct_bi")
		sqltest.NewRunner(t, ca).Script(`
			exec INSERT INTO acct VALUES (4, 0, 'dee')
			query SELECT name FROM acct WHERE id = 4
			= dee
			error 1360 DROP TRIGGER acct_bi
			exec DROP TRIGGER IF EXISTS acct_bi
			# A table with triggers cannot be renamed (the stored statements
			# name it); dropping it drops them.
			error 1235 RENAME TABLE acct TO account
			exec DROP TABLE acct
		`)
		cb.ExpectRows("SELECT COUNT(*) FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = 'd'", "0")
	})
}
