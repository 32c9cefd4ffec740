package sqlgw

import (
	"context"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/storage/pebble"
)

// TestCreateViewQualified: CREATE VIEW db.v creates the view in db, with
// no current database and with another one.
func TestCreateViewQualified(t *testing.T) {
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
	run := func(q string) []sql.Row {
		t.Helper()
		_, it, _, err := e.Engine.Query(ctx, q)
		var rows []sql.Row
		if err == nil {
			rows, err = sql.RowIterToRows(ctx, it)
		}
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return rows
	}
	run("CREATE DATABASE c1")
	run("CREATE DATABASE c2")
	run("CREATE TABLE c1.t (id INT PRIMARY KEY)")
	run("INSERT INTO c1.t VALUES (1)")
	run("CREATE VIEW c1.v1 AS SELECT id FROM c1.t") // no current database
	ctx.SetCurrentDatabase("c2")
	run("CREATE VIEW c1.v2 AS SELECT id FROM c1.t")
	run("CREATE OR REPLACE VIEW c1.v2 AS SELECT id + 1 AS id FROM c1.t")
	if rows := run("SELECT id FROM c1.v2"); len(rows) != 1 || rows[0][0] != int64(2) {
		t.Errorf("c1.v2: %v", rows)
	}
	if rows := run("SELECT id FROM c1.v1"); len(rows) != 1 || rows[0][0] != int32(1) {
		t.Errorf("c1.v1: %#v", rows)
	}
	if rows := run("SHOW FULL TABLES FROM c2"); len(rows) != 0 {
		t.Errorf("c2 holds %v, want nothing", rows)
	}
}
