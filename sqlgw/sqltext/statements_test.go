package sqltext

import (
	"fmt"
	"strings"
	"testing"
)

// statementCases is the table of TestStatements, one case a line:
// "question: input => answer" (an input's \n is a newline). An answer of
// "-" is ok false.
const statementCases = `
kill: KILL 12 => 12
kill: kill connection 7; => 7
kill:   KILL /* the runaway */ CONNECTION 4294967295  => 4294967295
kill: /*!50000 KILL */ 3 => 3
kill: KILL QUERY 12 => -
kill: KILL 4294967296 => -
kill: KILL 1.5 => -
kill: KILL @id => -
kill: KILL 12 13 => -
kill: SELECT 'KILL 12' => -
kill: KILLS 12 => -
kill-target: KILL 12 => 12
kill-target: kill connection 7; => 7
kill-target: KILL QUERY 12 => 12
kill-target: kill /* a waiting statement */ query 9 => 9
kill-target: KILL QUERY @id => -
kill-target: KILL QUERY 4294967296 => -
kill-target: KILL QUERY CONNECTION 3 => -
kill-target: SELECT 'KILL QUERY 12' => -

rename: RENAME TABLE a TO b => .a>.b
rename: rename tables d1.a to d2.b, ` + "`c``x` TO `d`.e;" + ` => d1.a>d2.b, .c` + "`" + `x>d.e
rename: RENAME /* x */ TABLE a -- y\n TO b => .a>.b
rename: RENAME USER a TO b => -
rename: RENAME TABLE a => -
rename: RENAME TABLE a TO b c => -
rename: ALTER TABLE a RENAME TO b => -

columns: ALTER TABLE t RENAME COLUMN a TO b => .t a>b
columns: alter table d.t rename column ` + "`a b`" + ` to c, ADD COLUMN x DECIMAL(10, 2), RENAME COLUMN e TO f => d.t a b>c, e>f
columns: ALTER TABLE t MODIFY a TIME(3), RENAME COLUMN a TO b => .t a>b
columns: ALTER TABLE t RENAME TO u, RENAME INDEX i TO j => .t
columns: ALTER TABLE t CHANGE a b TIME(3) => .t
columns: ALTER TABLE t ADD CHECK (a IN (1, 2)), RENAME COLUMN a TO b => .t a>b
columns: ALTER DATABASE d CHARACTER SET utf8mb4 => -
columns: SELECT 1 => -

like: CREATE TABLE b LIKE a => .b .a
like: create temporary table if not exists d.b (like ` + "`e`.`a`" + `); => d.b e.a
like: CREATE TABLE b /* copy */ LIKE a => .b .a
like: CREATE TABLE b (id INT, name VARCHAR(10) COMMENT 'like a') => -
like: CREATE TABLE b AS SELECT * FROM a WHERE x LIKE 'a%' => -
like: CREATE TABLE b LIKE a, c => -
like: CREATE VIEW b AS SELECT 1 => -

shown: SHOW CREATE TABLE t => .t create
shown: show create table ` + "`d`.`t`" + `; => d.t create
shown: SHOW CREATE VIEW v => -
shown: SHOW COLUMNS FROM t => .t columns
shown: SHOW FULL FIELDS IN t FROM d LIKE 'a%' => d.t columns
shown: SHOW COLUMNS FROM d1.t FROM d2 => d1.t columns
shown: DESCRIBE t => .t columns
shown: desc d.t col => d.t columns
shown: EXPLAIN t => .t columns
shown: EXPLAIN SELECT * FROM t => -
shown: EXPLAIN FORMAT=TREE SELECT 1 => -
shown: DESCRIBE (SELECT 1) => -
shown: EXPLAIN ` + "`select`" + ` => .select columns
shown: SHOW TABLES => -

like-pattern: SHOW DATABASES LIKE 'a%' => a%
like-pattern: show schemas like "x\_y"; => x\_y
like-pattern: SHOW FULL TABLES FROM d LIKE 'it''s' => it's
like-pattern: SHOW TABLES IN ` + "`d`" + ` LIKE 't%' => t%
like-pattern: SHOW TABLES => -
like-pattern: SHOW TABLES WHERE Tables_in_d LIKE 't%' => -
like-pattern: SHOW COLUMNS FROM t LIKE 'a%' => -
like-pattern: SHOW TABLES LIKE @p => -
`

// TestStatements: each statement question, input → answer.
func TestStatements(t *testing.T) {
	name := func(n Name) string { return n.DB + "." + n.Table }
	questions := map[string]func(q string) (string, bool){
		"kill": func(q string) (string, bool) {
			id, ok := KillConnection(q)
			return fmt.Sprint(id), ok
		},
		"kill-target": func(q string) (string, bool) {
			id, ok := KillTarget(q)
			return fmt.Sprint(id), ok
		},
		"rename": func(q string) (string, bool) {
			var out []string
			for _, r := range Renames(q) {
				out = append(out, name(r[0])+">"+name(r[1]))
			}
			return strings.Join(out, ", "), out != nil
		},
		"columns": func(q string) (string, bool) {
			table, cols, ok := RenamedColumns(q)
			out := name(table)
			for i, c := range cols {
				out += map[bool]string{true: " ", false: ", "}[i == 0] + c[0] + ">" + c[1]
			}
			return out, ok
		},
		"like": func(q string) (string, bool) {
			table, src, ok := CreateLike(q)
			return name(table) + " " + name(src), ok
		},
		"shown": func(q string) (string, bool) {
			table, create, ok := ShownColumns(q)
			return name(table) + map[bool]string{true: " create", false: " columns"}[create], ok
		},
		"like-pattern": ShowLikePattern,
	}
	n := 0
	for _, line := range strings.Split(statementCases, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		q, rest, ok1 := strings.Cut(line, ": ")
		in, want, ok2 := strings.Cut(rest, " => ")
		f := questions[q]
		if !ok1 || !ok2 || f == nil {
			t.Fatalf("bad case %q", line)
		}
		in = strings.ReplaceAll(in, `\n`, "\n")
		got, ok := f(in)
		if !ok {
			got = "-"
		}
		if got != want {
			t.Errorf("%s(%q) = %q, want %q", q, in, got, want)
		}
		n++
	}
	if n < 50 {
		t.Fatalf("%d cases read", n)
	}
}
