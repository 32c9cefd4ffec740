package compat

import (
	"testing"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// TestFixViewQualifier: the database of CREATE [OR REPLACE] VIEW db.v
// moves to where go-mysql-server's builder reads it; other statements and
// unqualified views are left alone.
func TestFixViewQualifier(t *testing.T) {
	for _, c := range []struct{ query, db string }{
		{"CREATE VIEW c1.v AS SELECT 1", "c1"},
		{"CREATE OR REPLACE VIEW c2.v AS SELECT 1", "c2"},
		{"CREATE VIEW v AS SELECT 1", ""},
		{"CREATE TABLE t (a INT)", ""},
	} {
		st, err := ast.Parse(c.query)
		if err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		FixViewQualifier(st)
		d, ok := st.(*ast.DDL)
		if !ok {
			t.Fatalf("%s: %T", c.query, st)
		}
		if got := d.Table.DbQualifier.String(); got != c.db {
			t.Errorf("%s: database %q, want %q", c.query, got, c.db)
		}
	}
}
