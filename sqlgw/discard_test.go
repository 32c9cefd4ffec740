package sqlgw

import (
	"context"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/storage/pebble"
)

// TestFailedStatementThenWrite: a statement that fails part-way is undone;
// a later write of the same rows, in the same transaction or the next
// autocommit one, commits once (the undone key once stayed in the
// buffer's order and was sent twice: "two operations on RowKey").
func TestFailedStatementThenWrite(t *testing.T) {
	st, err := pebble.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEngine(context.Background(), st, catalog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := sql.NewContext(context.Background(), sql.WithSession(e.NewSession(sql.NewBaseSession())))
	exec := func(q string) ([]sql.Row, error) {
		_, it, _, err := e.Engine.Query(ctx, q)
		if err != nil {
			return nil, err
		}
		return sql.RowIterToRows(ctx, it)
	}
	must := func(q string) []sql.Row {
		t.Helper()
		rows, err := exec(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return rows
	}
	must("CREATE DATABASE d")
	ctx.SetCurrentDatabase("d")
	must("CREATE TABLE t (k INT PRIMARY KEY, s VARCHAR(3))")
	must("INSERT INTO t VALUES (1, 'a'), (2, 'bb'), (3, 'ccc')")
	for _, inTxn := range []bool{false, true} {
		if inTxn {
			must("START TRANSACTION")
		}
		if _, err := exec("UPDATE t SET s = CONCAT(s, 'x')"); err == nil {
			t.Fatal("UPDATE past VARCHAR(3) succeeded")
		}
		must("INSERT INTO t VALUES (1, 'z') ON DUPLICATE KEY UPDATE s = 'y'")
		must("UPDATE t SET s = 'w' WHERE k = 2")
		if inTxn {
			must("COMMIT")
		}
		rows := must("SELECT k, s FROM t ORDER BY k")
		if len(rows) != 3 || rows[0][1] != "y" || rows[1][1] != "w" || rows[2][1] != "ccc" {
			t.Fatalf("in transaction %v: %v", inTxn, rows)
		}
	}
}
