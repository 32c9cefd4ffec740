package sqltest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/storage"
)

// fakeT records the first failure of a Runner instead of failing the test.
type fakeT struct {
	testing.TB
	msg string
}

func (f *fakeT) Helper() {}
func (f *fakeT) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic(f)
}
func (f *fakeT) Fatal(args ...any) {
	f.msg = fmt.Sprint(args...)
	panic(f)
}

// failure runs f with a Runner on db that reports to a fakeT, and returns
// the failure message ("" when f passed).
func failure(t *testing.T, db Execer, f func(r *Runner)) (msg string) {
	ft := &fakeT{TB: t}
	defer func() {
		if p := recover(); p != nil {
			if p != ft {
				panic(p)
			}
			msg = ft.msg
		}
	}()
	f(NewRunner(ft, db))
	return ""
}

// TestRunnerFails: every expectation of the Runner and every script form
// passes when the server does what it says and fails when it does not.
func TestRunnerFails(t *testing.T) {
	s := StartBackend(t, Memory, Options{})
	c := s.Session("d",
		"CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))",
		"INSERT INTO t VALUES (1, 'a'), (2, NULL)")
	ok := `
		# a comment
		query SELECT id, v FROM t ORDER BY id
		= 1 | a
		= 2 | NULL
		query SELECT id FROM t WHERE id > 5
		query SELECT ''
		=
		affected 1 UPDATE t SET v = 'b' WHERE id = 1
		error 1062 INSERT INTO t VALUES (1, 'x')
		error 1146 SELECT * FROM nosuch
		! Table 'd.nosuch' doesn't exist
		exec INSERT INTO t VALUES (3, 'c')
		affected 1 DELETE FROM t WHERE id = 3
	`
	if msg := failure(t, c, func(r *Runner) { r.Script(ok) }); msg != "" {
		t.Fatalf("a true script failed: %s", msg)
	}
	if msg := failure(t, c, func(r *Runner) {
		ScriptSessions(r.T, map[string]*Runner{"a": r, "b": r}, "a: query SELECT id FROM t WHERE id = 2\n= 2\n b: error 1146 SELECT * FROM nosuch")
	}); msg != "" {
		t.Fatalf("a true session script failed: %s", msg)
	}
	for _, tc := range []struct {
		name, want string
		f          func(r *Runner)
	}{
		{"exec error", "nosuch", func(r *Runner) { r.Exec("SELECT * FROM nosuch") }},
		{"rows differ", "want", func(r *Runner) { r.ExpectRows("SELECT id FROM t ORDER BY id", "1", "3") }},
		{"row missing", "want", func(r *Runner) { r.ExpectRows("SELECT id FROM t ORDER BY id", "1") }},
		{"NULL is not empty", "want", func(r *Runner) { r.ExpectRows("SELECT v FROM t WHERE id = 2", "") }},
		{"no error", "succeeded, want error 1062", func(r *Runner) { r.ExpectErrno(1062, "SELECT 1") }},
		{"other error", "want 1062", func(r *Runner) { r.ExpectErrno(1062, "SELECT * FROM nosuch") }},
		{"affected", "1 rows affected, want 2", func(r *Runner) { r.ExpectAffected(2, "UPDATE t SET v = 'z' WHERE id = 1") }},
		{"script row", "want", func(r *Runner) { r.Script("query SELECT id FROM t WHERE id = 1\n= 2") }},
		{"script extra row", "want", func(r *Runner) { r.Script("query SELECT id FROM t ORDER BY id\n= 1") }},
		{"script no rows", "want", func(r *Runner) { r.Script("query SELECT id FROM t WHERE id = 1") }},
		{"script error", "want error 1146", func(r *Runner) { r.Script("error 1146 SELECT 1") }},
		{"message differs", `want error 1146 "Table 'd.other' doesn't exist"`, func(r *Runner) { r.ExpectMessage(1146, "Table 'd.other' doesn't exist", "SELECT * FROM nosuch") }},
		{"message of another code", "want error 1062", func(r *Runner) { r.ExpectMessage(1062, "Table 'd.nosuch' doesn't exist", "SELECT * FROM nosuch") }},
		{"script message", `want error 1146 "table not"`, func(r *Runner) { r.Script("error 1146 SELECT * FROM nosuch\n! table not") }},
		{"script exec", "nosuch", func(r *Runner) { r.Script("exec DROP TABLE nosuch") }},
		{"script affected", "want 7", func(r *Runner) { r.Script("affected 7 UPDATE t SET v = 'y' WHERE id = 1") }},
		{"script form", "unknown form", func(r *Runner) { r.Script("select 1") }},
		{"script number", "want error NUMBER SQL", func(r *Runner) { r.Script("error x SELECT 1") }},
		{"sessions row", "want", func(r *Runner) {
			ScriptSessions(r.T, map[string]*Runner{"a": r}, "a: query SELECT id FROM t WHERE id = 1\n= 2")
		}},
		{"sessions name", "want SESSION: FORM", func(r *Runner) { ScriptSessions(r.T, map[string]*Runner{"a": r}, "c: exec SELECT 1") }},
		{"sessions no name", "want SESSION: FORM", func(r *Runner) { ScriptSessions(r.T, map[string]*Runner{"a": r}, "exec SELECT 1") }},
	} {
		if msg := failure(t, c, tc.f); !strings.Contains(msg, tc.want) {
			t.Errorf("%s: failure %q, want one containing %q", tc.name, msg, tc.want)
		}
	}

	// Session costs and recorded requests agree: a point get is one
	// request reading one entity.
	r := NewRunner(t, c)
	var req, ent int64
	lines := s.Requests(func() { req, ent = r.Cost("SELECT v FROM t WHERE id = 1") })
	if req != 1 || ent != 1 {
		t.Errorf("point get cost %d requests, %d entities; want 1, 1: %q", req, ent, lines)
	}
	gets := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "Get ") {
			gets++
		}
	}
	if gets != 1 {
		t.Errorf("recorded requests: %q, want one Get", lines)
	}
}

// TestCrashAtEveryRequest: the loop tries every crash point of an
// operation, dropped and applied, and the data after each crash is either
// before or after the operation.
func TestCrashAtEveryRequest(t *testing.T) {
	runs := map[CrashPoint]bool{}
	n := CrashAtEveryRequest(t, Crash{
		Setup: func(r *Runner, _ storage.Store) {
			r.ExecAll("CREATE DATABASE d", "USE d", "CREATE TABLE t (id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 1)")
		},
		Op: func(r *Runner) { r.Try("UPDATE t SET v = 2 WHERE id = 1") },
		Check: func(r *Runner, _ storage.Store, p CrashPoint) {
			runs[p] = true
			r.Exec("USE d")
			if got := r.Rows("SELECT v FROM t"); len(got) != 1 || got[0] != "1" && got[0] != "2" {
				t.Errorf("%s: %q", p, got)
			}
		},
	})
	if n < 1 || len(runs) != 2*(n+1) {
		t.Errorf("%d crash points, %d runs: %v", n, len(runs), runs)
	}
}

// TestDiskBackend: the Pebble-on-disk backend serves a session, set up by
// statements one a line.
func TestDiskBackend(t *testing.T) {
	c := StartBackend(t, Disk, Options{Password: "pw"}).Session("d", `
		CREATE TABLE t (id INT PRIMARY KEY)

		INSERT INTO t VALUES (7)`, "INSERT INTO t VALUES (8)")
	NewRunner(t, c).ExpectRows("SELECT id FROM t ORDER BY id", "7", "8")
}
