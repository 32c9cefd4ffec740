package engine

import (
	"context"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/storage/pebble"
)

// engineSession is an in-process engine on a memory store with one
// session; exec runs a statement to completion.
type engineSession struct {
	ctx *sql.Context
	e   *Engine
}

func newEngineSession(t *testing.T) *engineSession {
	t.Helper()
	st, err := pebble.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(context.Background(), st, catalog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return &engineSession{ctx: sql.NewContext(context.Background(), sql.WithSession(e.NewSession(sql.NewBaseSession()))), e: e}
}

func (s *engineSession) exec(q string) ([]sql.Row, error) {
	_, it, _, err := s.e.Engine.Query(s.ctx, q)
	if err != nil {
		return nil, err
	}
	return sql.RowIterToRows(s.ctx, it)
}

func (s *engineSession) must(t *testing.T, q string) []sql.Row {
	t.Helper()
	rows, err := s.exec(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return rows
}

// TestCreateViewQualified: CREATE VIEW db.v creates the view in db, with
// no current database and with another one.
func TestCreateViewQualified(t *testing.T) {
	s := newEngineSession(t)
	run := func(q string) []sql.Row { t.Helper(); return s.must(t, q) }
	run("CREATE DATABASE c1")
	run("CREATE DATABASE c2")
	run("CREATE TABLE c1.t (id INT PRIMARY KEY)")
	run("INSERT INTO c1.t VALUES (1)")
	run("CREATE VIEW c1.v1 AS SELECT id FROM c1.t") // no current database
	s.ctx.SetCurrentDatabase("c2")
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
