package sqltest

import (
	"strconv"
	"strings"
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
//	query SQL               the query's rows must be exactly the "=" lines
//	= v1 | v2               that follow (in order; none: no rows), columns
//	                        separated by " | ", NULL for NULL (Runner.ExpectRows)
//
// A statement is one line. Values that contain " | ", a newline, or
// leading or trailing blanks cannot be written in a script (test them in
// Go with ExpectRows).
func (r *Runner) Script(script string) {
	r.T.Helper()
	lines := strings.Split(script, "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		verb, rest, _ := strings.Cut(line, " ")
		switch verb {
		case "exec":
			r.Exec(rest)
		case "affected", "error":
			num, q, _ := strings.Cut(rest, " ")
			n, err := strconv.ParseUint(num, 10, 64)
			if err != nil || q == "" || verb == "error" && n > 65535 {
				r.T.Fatalf("sqltest script line %d: %q: want %s NUMBER SQL", i+1, line, verb)
			}
			if verb == "error" {
				r.ExpectErrno(uint16(n), q)
			} else {
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
			r.T.Fatalf("sqltest script line %d: %q: unknown form (exec, affected, error, query, =, #)", i+1, line)
		}
	}
}
