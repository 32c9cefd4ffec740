package engine

import (
	"testing"

	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// TestDualShape: only a plain SELECT of literals and system variables
// without FROM is cached; every clause, option or other expression that
// could make a cached plan differ from a fresh one keeps it out.
func TestDualShape(t *testing.T) {
	for q, want := range map[string]bool{
		"SELECT 1": true, "SELECT 1 AS x, 'a' b, NULL, TRUE, -1.5, 0x41": true, "SELECT 1 FROM dual": true,
		"SELECT @@version, @@session.sql_mode, @@global.max_connections": true,
		"SELECT @@warning_count": false, "SELECT @@session.error_count": false,
		"SELECT @x": false, "SELECT @x := 1": false, "SELECT 1 INTO @x": false, "SELECT NOW()": false,
		"SELECT 1 + 1": false, "SELECT (SELECT 1)": false, "SELECT DISTINCT 1": false, "SELECT SQL_CALC_FOUND_ROWS 1": false,
		"SELECT 1 LIMIT 0": false, "SELECT 1 FOR UPDATE": false, "SELECT 1 WHERE 1 = 0": false, "SELECT /*+ SET_VAR(sql_mode = '') */ 1": false,
		"SELECT 1 FROM t": false, "WITH c AS (SELECT 1) SELECT 1": false, "SELECT a": false, "SELECT t.@@x": false,
		"SELECT 1 UNION SELECT 2": false, "SELECT :v1": false, "SELECT -0x41": false, "SELECT 1 ORDER BY 1": false, "SELECT 1 GROUP BY 1": false, "SELECT 1 HAVING 1": false,
	} {
		stmt, err := sqlparser.Parse(q)
		if err != nil {
			if want {
				t.Errorf("%s: %v", q, err)
			}
			continue
		}
		if got := dualShape(stmt); got != want {
			t.Errorf("dualShape(%s) = %v, want %v", q, got, want)
		}
	}
	for q, want := range map[string]bool{
		"SELECT 1": true, "  select\t@@version": true, "SELECT 1 FROM dual": false, "SELECT 'where'": false,
		"SELECT /* c */ 1": false, "SELECT 1 -- c": false, "SELECT 1 # c": false, "SELECTx": false, "SET x = 1": false,
	} {
		if got := maybeDualText(q); got != want {
			t.Errorf("maybeDualText(%q) = %v, want %v", q, got, want)
		}
	}
}
