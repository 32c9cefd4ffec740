package sqlgw_test

import (
	"strconv"
	"testing"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"

	"github.com/sqlgw/sqlgw/sqlgw"
)

// TestStatementErrorDiagnostics: after a statement fails, as in MySQL,
// SHOW WARNINGS lists its error (Level Error, its code and message, after
// the previous statement's warnings are gone), @@warning_count counts it,
// @@error_count and SHOW COUNT(*) ERRORS say 1; the next statement that
// succeeds makes @@error_count 0. Text statements and prepared ones alike.
func TestStatementErrorDiagnostics(t *testing.T) {
	vt := newWarningsConn(t, sqlgw.Config{}).vt
	exec := func(q string) *mysqlResult {
		t.Helper()
		res, err := vt.ExecuteFetch(q, 100, false)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return &mysqlResult{rows: res.Rows}
	}
	fails := func(q string, code int) {
		t.Helper()
		_, err := vt.ExecuteFetch(q, 100, false)
		se, ok := err.(*mysql.SQLError)
		if !ok || se.Number() != code {
			t.Fatalf("%s: %v, want error %d", q, err, code)
		}
	}
	exec("CREATE DATABASE diag")
	exec("USE diag")
	exec("CREATE TABLE t (id INT PRIMARY KEY)")
	exec("INSERT INTO t VALUES (1)")
	for _, c := range []struct {
		q    string
		code int
		msg  string
	}{
		{"SELECT * FROM nosuch", 1146, "Table 'diag.nosuch' doesn't exist"},
		{"INSERT INTO t VALUES (1)", 1062, "Duplicate entry '1' for key 't.PRIMARY'"},
		{"SELEC 1", 1064, ""},
	} {
		exec("SELECT 1/0") // a warning the error must replace
		fails(c.q, c.code)
		w := exec("SHOW WARNINGS")
		if len(w.rows) != 1 || w.rows[0][0].ToString() != "Error" || w.rows[0][1].ToString() != strconv.Itoa(c.code) ||
			c.msg != "" && w.rows[0][2].ToString() != c.msg {
			t.Errorf("%s: SHOW WARNINGS %v, want one Error %d %q", c.q, w.rows, c.code, c.msg)
		}
		if got := exec("SHOW COUNT(*) ERRORS").str(0, 0); got != "1" {
			t.Errorf("%s: SHOW COUNT(*) ERRORS %s, want 1", c.q, got)
		}
		fails(c.q, c.code)
		if got := exec("SELECT @@error_count, @@warning_count"); got.str(0, 0) != "1" || got.str(0, 1) != "1" {
			t.Errorf("%s: @@error_count, @@warning_count = %v, want 1, 1", c.q, got.rows)
		}
		exec("SELECT id FROM t WHERE id = 1")
		if got := exec("SELECT @@error_count, @@warning_count"); got.str(0, 0) != "0" || got.str(0, 1) != "0" {
			t.Errorf("after a statement that succeeded: @@error_count, @@warning_count = %v, want 0, 0", got.rows)
		}
	}
	// A prepared statement's execution.
	exec("PREPARE s FROM 'INSERT INTO t VALUES (?)'")
	exec("SET @v = 1")
	fails("EXECUTE s USING @v", 1062)
	if got := exec("SELECT @@error_count").str(0, 0); got != "1" {
		t.Errorf("after EXECUTE failed: @@error_count %s, want 1", got)
	}
}

// TestDoStatement: DO evaluates its expressions, discards their values
// and answers OK; their warnings and errors are the statement's.
func TestDoStatement(t *testing.T) {
	vt := newWarningsConn(t, sqlgw.Config{}).vt
	res, w, err := vt.ExecuteFetchWithWarningCount("DO 1+1, SLEEP(0)", 10, false)
	if err != nil || len(res.Fields) != 0 || len(res.Rows) != 0 || res.RowsAffected != 0 || w != 0 {
		t.Fatalf("DO 1+1: %v, %+v, %d warnings; want OK", err, res, w)
	}
	if _, w, err = vt.ExecuteFetchWithWarningCount("DO CAST('x1' AS SIGNED)", 10, false); err != nil || w != 1 {
		t.Fatalf("DO CAST('x1' AS SIGNED): %v, %d warnings, want OK with 1", err, w)
	}
	if _, err := vt.ExecuteFetch("DO nosuch_function(1)", 10, false); err == nil {
		t.Fatal("DO of an unknown function: no error")
	}
	if res, err := vt.ExecuteFetch("SELECT @@error_count", 10, false); err != nil || res.Rows[0][0].ToString() != "1" {
		t.Fatalf("@@error_count after a failed DO: %v %v", err, res)
	}
	// DO is still no SELECT: a DO inside a transaction keeps it open.
	for _, q := range []string{"CREATE DATABASE d", "USE d", "CREATE TABLE t (id INT PRIMARY KEY)", "BEGIN", "INSERT INTO t VALUES (1)", "DO 1", "ROLLBACK"} {
		if _, err := vt.ExecuteFetch(q, 10, false); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if res, err := vt.ExecuteFetch("SELECT COUNT(*) FROM t", 10, false); err != nil || res.Rows[0][0].ToString() != "0" {
		t.Fatalf("after BEGIN, INSERT, DO, ROLLBACK: %v %v rows", err, res)
	}
}

// mysqlResult is a result's rows (vitess's values).
type mysqlResult struct{ rows [][]sqltypes.Value }

func (r *mysqlResult) str(i, j int) string {
	if i >= len(r.rows) || j >= len(r.rows[i]) {
		return "<none>"
	}
	return r.rows[i][j].ToString()
}

// TestTruncatedValueWarnings: a string taken as a number warns 1292 in
// MySQL 8.0's words, naming the kind of number and quoting the value
// (go-mysql-server: "Truncated incorrect bigint value: x1").
func TestTruncatedValueWarnings(t *testing.T) {
	w := newWarningsConn(t, sqlgw.Config{})
	const tr = "Warning|1292|Truncated incorrect "
	w.expect("SELECT CAST('x1' AS SIGNED)", tr+"INTEGER value: 'x1'")
	w.expect("SELECT CAST('1x' AS UNSIGNED)", tr+"INTEGER value: '1x'")
	w.expect("SELECT CAST('1.5x' AS DECIMAL(5,2))", tr+"DECIMAL value: '1.5x'")
	w.expect("SELECT CAST('abc' AS DOUBLE)", tr+"DOUBLE value: 'abc'")
	w.expect("SELECT '3x' + 1", tr+"DOUBLE value: '3x'")
	w.expect("DO CAST('y' AS SIGNED)", tr+"INTEGER value: 'y'")
}
