package sqltest

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Script runs a test script on the runner's session, line by line, and
// fails the test (t.Fatal) at the first line that does not do what it
// says. A script is the straight-line part of a test (statements and the
// results they must give) written once as data instead of as one Go call
// per statement. Lines are trimmed; the forms are:
//
//	# a comment
//	exec SQL                the statement must succeed (Runner.Exec)
//	affected N SQL          ... with N rows affected (Runner.ExpectAffected)
//	error CODE SQL          the statement must fail with MySQL error CODE (Runner.ExpectErrno)
//	! message               after an error line: ... and exactly this message
//	                        (Runner.ExpectMessage)
//	query SQL               the query's rows must be exactly the "=" lines
//	= v1 | v2               that follow (in order; none: no rows), columns
//	                        separated by " | ", NULL for NULL (Runner.ExpectRows)
//
// A statement is one line. Values that contain " | ", a newline, or
// leading or trailing blanks cannot be written in a script (test them in
// Go with ExpectRows).
func (r *Runner) Script(script string) {
	r.T.Helper()
	runScript(r.T, script, func(line string) (*Runner, string) { return r, line })
}

// ScriptSessions runs a script (the forms of Script) over several
// sessions, named in sessions: each statement line starts with the name
// of the session that runs it and a colon ("a: exec BEGIN", "b: error 1213
// COMMIT"); "=" lines belong to the query before them. It is the
// interleaving of a concurrency test (two transactions, the order of their
// statements) written as data.
func ScriptSessions(t testing.TB, sessions map[string]*Runner, script string) {
	t.Helper()
	runScript(t, script, func(line string) (*Runner, string) {
		name, rest, ok := strings.Cut(line, ":")
		r := sessions[strings.TrimSpace(name)]
		if !ok || r == nil {
			t.Fatalf("sqltest script: %q: want SESSION: FORM, with a session of %v", line, slices.Sorted(maps.Keys(sessions)))
		}
		return r, strings.TrimSpace(rest)
	})
}

// runScript runs the lines of script, each on the runner session picks
// for it (which also strips what named the runner).
func runScript(t testing.TB, script string, session func(line string) (*Runner, string)) {
	t.Helper()
	lines := strings.Split(script, "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		r, line := session(line)
		verb, rest, _ := strings.Cut(line, " ")
		switch verb {
		case "exec":
			r.Exec(rest)
		case "affected", "error":
			num, q, _ := strings.Cut(rest, " ")
			n, err := strconv.ParseUint(num, 10, 64)
			if err != nil || q == "" || verb == "error" && n > 65535 {
				t.Fatalf("sqltest script line %d: %q: want %s NUMBER SQL", i+1, line, verb)
			}
			switch {
			case verb == "error" && i+1 < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i+1]), "! "):
				i++
				r.ExpectMessage(uint16(n), strings.TrimPrefix(strings.TrimSpace(lines[i]), "! "), q)
			case verb == "error":
				r.ExpectErrno(uint16(n), q)
			default:
				r.ExpectAffected(int64(n), q)
			}
		case "query":
			var want []string
			for i+1 < len(lines) {
				next := strings.TrimSpace(lines[i+1])
				if next != "=" && !strings.HasPrefix(next, "= ") {
					break
				}
				i++
				want = append(want, strings.ReplaceAll(strings.TrimPrefix(strings.TrimPrefix(next, "="), " "), " | ", "\t"))
			}
			r.ExpectRows(rest, want...)
		default:
			t.Fatalf("sqltest script line %d: %q: unknown form (exec, affected, error, !, query, =, #)", i+1, line)
		}
	}
}
