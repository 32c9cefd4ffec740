package sqltext

import "testing"

func TestCreateSelectAs(t *testing.T) {
	for _, c := range []struct{ in, out string }{
		{"CREATE TABLE t SELECT 1 a UNION SELECT 2", "CREATE TABLE t AS SELECT 1 a UNION SELECT 2"},
		{"create table t (a INT) ENGINE=InnoDB select 1 a union all select 2", "create table t (a INT) ENGINE=InnoDB AS select 1 a union all select 2"},
		{"CREATE TABLE t (SELECT 1 a) UNION (SELECT 2)", "CREATE TABLE t AS (SELECT 1 a) UNION (SELECT 2)"},
		{"CREATE TEMPORARY TABLE t SELECT 1 a EXCEPT SELECT 2; SELECT 3", "CREATE TEMPORARY TABLE t AS SELECT 1 a EXCEPT SELECT 2; SELECT 3"},
		// Left alone: AS already there, no set operation, UNION only
		// inside a derived table, not a CREATE TABLE.
		{"CREATE TABLE t AS SELECT 1 a UNION SELECT 2", "CREATE TABLE t AS SELECT 1 a UNION SELECT 2"},
		{"CREATE TABLE t SELECT 'union' a", "CREATE TABLE t SELECT 'union' a"},
		{"CREATE TABLE t SELECT * FROM (SELECT 1 a UNION SELECT 2) d", "CREATE TABLE t SELECT * FROM (SELECT 1 a UNION SELECT 2) d"},
		{"SELECT 1 UNION SELECT 2", "SELECT 1 UNION SELECT 2"},
		{"CREATE TABLE t IGNORE SELECT 1 a UNION SELECT 2", "CREATE TABLE t IGNORE SELECT 1 a UNION SELECT 2"},
	} {
		if got := Run(c.in, []Step{CreateSelectAs}).String(); got != c.out {
			t.Errorf("CreateSelectAs(%q) = %q; want %q", c.in, got, c.out)
		}
	}
}
