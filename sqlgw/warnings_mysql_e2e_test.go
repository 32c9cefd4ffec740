package sqlgw_test

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/sqlgw"
)

// warningsConn is one connection of the text protocol (SHOW WARNINGS is
// per connection, so database/sql's pool will not do).
type warningsConn struct {
	t  *testing.T
	vt *mysql.Conn
}

func newWarningsConn(t *testing.T, cfg sqlgw.Config) *warningsConn {
	t.Helper()
	srv := memoryServer(t, cfg)
	host, port, _ := net.SplitHostPort(srv.Addr().String())
	p, _ := strconv.Atoi(port)
	vt, err := mysql.Connect(context.Background(), &mysql.ConnParams{Host: host, Port: p, Uname: "root"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(vt.Close)
	return &warningsConn{t: t, vt: vt}
}

// exec runs q and returns the warning count of its OK or EOF packet.
func (w *warningsConn) exec(q string) uint16 {
	w.t.Helper()
	_, n, err := w.vt.ExecuteFetchWithWarningCount(q, 1000, false)
	if err != nil {
		w.t.Fatalf("%s: %v", q, err)
	}
	return n
}

// rows runs q and returns its rows, each "a|b|c".
func (w *warningsConn) rows(q string) []string {
	w.t.Helper()
	res, err := w.vt.ExecuteFetch(q, 1000, false)
	if err != nil {
		w.t.Fatalf("%s: %v", q, err)
	}
	var out []string
	for _, r := range res.Rows {
		var cols []string
		for _, v := range r {
			if v.IsNull() {
				cols = append(cols, "NULL")
			} else {
				cols = append(cols, v.ToString())
			}
		}
		out = append(out, strings.Join(cols, "|"))
	}
	return out
}

// expect runs q, then SHOW WARNINGS, and requires the packet's count and
// the list (each "Level|Code|Message", in MySQL's order).
func (w *warningsConn) expect(q string, want ...string) {
	w.t.Helper()
	n := w.exec(q)
	got := w.rows("SHOW WARNINGS")
	if int(n) != len(want) || strings.Join(got, "\n") != strings.Join(want, "\n") {
		w.t.Errorf("%s: %d warnings in the packet, SHOW WARNINGS:\n%s\nwant %d:\n%s", q, n,
			strings.Join(got, "\n"), len(want), strings.Join(want, "\n"))
	}
}

// TestWarningsAsMySQL: the notes MySQL 8.0 gives for IF [NOT] EXISTS DDL,
// the warning list in the order the conditions were raised (SHOW
// WARNINGS, its LIMIT), and a list that every nondiagnostic statement
// resets. go-mysql-server lists the newest first and, when a statement's
// binding warns (DROP TABLE IF EXISTS), keeps the previous statement's
// warnings instead of the new one.
func TestWarningsAsMySQL(t *testing.T) {
	w := newWarningsConn(t, sqlgw.Config{})
	w.exec("CREATE DATABASE wn")
	w.exec("USE wn")
	w.expect("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
	w.expect("CREATE TABLE IF NOT EXISTS t (id INT PRIMARY KEY, v INT)", "Note|1050|Table 't' already exists")
	w.expect("CREATE TABLE IF NOT EXISTS T (id INT PRIMARY KEY)", "Note|1050|Table 'T' already exists")
	w.expect("CREATE DATABASE IF NOT EXISTS wn", "Note|1007|Can't create database 'wn'; database exists")
	w.expect("DROP DATABASE IF EXISTS nosuch", "Note|1008|Can't drop database 'nosuch'; database doesn't exist")
	w.expect("DROP TABLE IF EXISTS nosuch", "Note|1051|Unknown table 'wn.nosuch'")
	w.expect("DROP VIEW IF EXISTS nov", "Note|1051|Unknown table 'wn.nov'")
	// One note naming every missing table, as MySQL.
	w.expect("DROP TABLE IF EXISTS a1, a2, a3", "Note|1051|Unknown table 'wn.a1,wn.a2,wn.a3'")
	// A statement without warnings after one with: the list is reset.
	w.expect("SELECT 1")
	w.expect("INSERT INTO t VALUES (1, 1)")
	w.expect("SELECT v FROM t WHERE id = 1")
	// The previous statement's warnings are not kept when a binding warns.
	w.expect("SELECT 1/0", "Warning|1365|Division by 0")
	w.expect("DROP TABLE IF EXISTS nosuch", "Note|1051|Unknown table 'wn.nosuch'")
	w.expect("SELECT 1/0, 2/0, 3", "Warning|1365|Division by 0", "Warning|1365|Division by 0")
	// Issue order; LIMIT counts from the first raised.
	if n := w.exec("SELECT 1/0, CAST('1x' AS SIGNED)"); n != 2 {
		t.Errorf("SELECT 1/0, CAST('1x' AS SIGNED): %d warnings in the packet, want 2", n)
	}
	if got := w.rows("SHOW WARNINGS"); len(got) != 2 || !strings.HasPrefix(got[0], "Warning|1365|") || !strings.HasPrefix(got[1], "Warning|1292|") {
		t.Errorf("SHOW WARNINGS: %q, want 1365 then 1292", got)
	}
	if got := w.rows("SHOW WARNINGS LIMIT 1"); len(got) != 1 || !strings.HasPrefix(got[0], "Warning|1365|") {
		t.Errorf("SHOW WARNINGS LIMIT 1: %q, want the 1365 warning", got)
	}
	if got := w.rows("SHOW WARNINGS LIMIT 1, 1"); len(got) != 1 || !strings.HasPrefix(got[0], "Warning|1292|") {
		t.Errorf("SHOW WARNINGS LIMIT 1, 1: %q, want the 1292 warning", got)
	}
	// SHOW WARNINGS does not reset the list.
	if got := w.rows("SHOW WARNINGS"); len(got) != 2 {
		t.Errorf("SHOW WARNINGS again: %q, want both warnings", got)
	}
	// A prepared statement's binding warns as the text one.
	w.exec("PREPARE s FROM 'DROP TABLE IF EXISTS nosuch2'")
	w.expect("EXECUTE s", "Note|1051|Unknown table 'wn.nosuch2'")
}

// TestStringBoundWarnings: a string compared with a numeric column warns
// once per literal that is not a number, as MySQL converts the constant
// once; go-mysql-server warned for every row compared. A string that is a
// number does not warn.
func TestStringBoundWarnings(t *testing.T) {
	for _, cfg := range []sqlgw.Config{{}, {NoDirect: true}, {NoPlanCache: true, NoTextPlanCache: true}} {
		t.Run(fmt.Sprintf("NoDirect=%v,NoCache=%v", cfg.NoDirect, cfg.NoPlanCache), func(t *testing.T) {
			w := newWarningsConn(t, cfg)
			w.exec("CREATE DATABASE sb")
			w.exec("USE sb")
			w.exec("CREATE TABLE t (id INT PRIMARY KEY, v INT, d DECIMAL(5,1), KEY iv (v))")
			w.exec("INSERT INTO t VALUES (1, 10, 1.5), (2, 20, 2.5), (3, 30, 3.5), (4, 40, 4.5), (5, 50, 5.5)")
			const trunc = "Warning|1292|Truncated incorrect DOUBLE value: "
			for i := 0; i < 2; i++ { // the second from the plan cache
				for _, c := range []struct {
					q     string
					rows  string
					warns []string
				}{
					{"SELECT id FROM t WHERE id BETWEEN '1' AND '10' ORDER BY id", "1,2,3,4,5", nil},
					{"SELECT id FROM t WHERE id > '3' ORDER BY id", "4,5", nil},
					{"SELECT id FROM t WHERE id > '3x' ORDER BY id", "4,5", []string{trunc + "'3x'"}},
					{"SELECT id FROM t WHERE id BETWEEN '2x' AND '4y' ORDER BY id", "2,3,4", []string{trunc + "'2x'", trunc + "'4y'"}},
					{"SELECT id FROM t WHERE v < '25z' ORDER BY id", "1,2", []string{trunc + "'25z'"}},
					{"SELECT id FROM t WHERE d >= '4.5q' ORDER BY id", "4,5", []string{trunc + "'4.5q'"}},
					{"SELECT id FROM t WHERE id = 'x'", "", []string{trunc + "'x'"}},
				} {
					n := w.exec(c.q)
					got := w.rows("SHOW WARNINGS")
					if int(n) != len(c.warns) || strings.Join(got, "\n") != strings.Join(c.warns, "\n") {
						t.Errorf("%s: %d warnings, SHOW WARNINGS %q, want %q", c.q, n, got, c.warns)
					}
					if rows := strings.Join(w.rows(c.q), ","); rows != c.rows {
						t.Errorf("%s: rows %s, want %s", c.q, rows, c.rows)
					}
				}
			}
			w.expect("UPDATE t SET v = v + 1 WHERE id > '3x'", trunc+"'3x'")
			w.expect("DELETE FROM t WHERE id > '4x'", trunc+"'4x'")
			if got := strings.Join(w.rows("SELECT id, v FROM t ORDER BY id"), ","); got != "1|10,2|20,3|30,4|41" {
				t.Errorf("rows after the writes: %s", got)
			}
		})
	}
}

// TestWarningCountVariable: @@warning_count is the previous statement's
// warning count (go-mysql-server: unknown system variable).
func TestWarningCountVariable(t *testing.T) {
	w := newWarningsConn(t, sqlgw.Config{})
	for _, c := range []struct {
		q    string
		want string
	}{
		{"SELECT 1/0, 2/0", ""},
		{"SHOW WARNINGS", ""},
		{"SELECT @@warning_count", "2"},
		{"SELECT @@session.warning_count", "0"},
		{"SELECT 1/0", ""},
		{"SELECT 1", ""},
		{"SELECT @@warning_count", "0"},
		{"CREATE DATABASE IF NOT EXISTS mysql", ""},
		{"SELECT @@warning_count", "1"},
	} {
		got := w.rows(c.q)
		if c.want != "" && (len(got) != 1 || got[0] != c.want) {
			t.Errorf("%s: %q, want %s", c.q, got, c.want)
		}
	}
}

// TestShowCountWarnings: SHOW COUNT(*) WARNINGS counts the previous
// statement's conditions and, a diagnostic statement, keeps the list
// (go-mysql-server: unsupported feature).
func TestShowCountWarnings(t *testing.T) {
	w := newWarningsConn(t, sqlgw.Config{})
	w.exec("SELECT 1/0, 2/0")
	if got := w.rows("SHOW COUNT(*) WARNINGS"); len(got) != 1 || got[0] != "2" {
		t.Errorf("SHOW COUNT(*) WARNINGS: %q, want 2", got)
	}
	if got := w.rows("show count ( * ) errors"); len(got) != 1 || got[0] != "0" {
		t.Errorf("SHOW COUNT(*) ERRORS: %q, want 0", got)
	}
	if got := w.rows("SHOW WARNINGS"); len(got) != 2 {
		t.Errorf("SHOW WARNINGS after SHOW COUNT(*) WARNINGS: %q, want the 2 warnings", got)
	}
	res, err := w.vt.ExecuteFetch("SHOW COUNT(*) WARNINGS", 10, true)
	if err != nil || len(res.Fields) != 1 || res.Fields[0].Name != "@@session.warning_count" {
		t.Errorf("SHOW COUNT(*) WARNINGS column: %v %v", res, err)
	}
}
