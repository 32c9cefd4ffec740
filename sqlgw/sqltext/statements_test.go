package sqltext

import (
	"fmt"
	"testing"
)

func TestKillConnection(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // "" : not a KILL CONNECTION
	}{
		{"KILL 12", "12"},
		{"kill connection 7;", "7"},
		{"  KILL /* the runaway */ CONNECTION 4294967295 ", "4294967295"},
		{"/*!50000 KILL */ 3", "3"},
		{"KILL QUERY 12", ""},
		{"KILL 4294967296", ""},
		{"KILL 1.5", ""},
		{"KILL @id", ""},
		{"KILL 12 13", ""},
		{"SELECT 'KILL 12'", ""},
		{"KILLS 12", ""},
	} {
		id, ok := KillConnection(tc.in)
		got := ""
		if ok {
			got = fmt.Sprint(id)
		}
		if got != tc.want {
			t.Errorf("KillConnection(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestRenames(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"RENAME TABLE a TO b", "[[{ a} { b}]]"},
		{"rename tables d1.a to d2.b, `c``x` TO `d`.e;", "[[{d1 a} {d2 b}] [{ c`x} {d e}]]"},
		{"RENAME /* x */ TABLE a -- y\n TO b", "[[{ a} { b}]]"},
		{"RENAME USER a TO b", "[]"},
		{"RENAME TABLE a", "[]"},
		{"RENAME TABLE a TO b c", "[]"},
		{"ALTER TABLE a RENAME TO b", "[]"},
	} {
		if got := fmt.Sprint(Renames(tc.in)); got != tc.want {
			t.Errorf("Renames(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestRenamedColumns(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"ALTER TABLE t RENAME COLUMN a TO b", "{ t} [[a b]] true"},
		{"alter table d.t rename column `a b` to c, ADD COLUMN x DECIMAL(10, 2), RENAME COLUMN e TO f", "{d t} [[a b c] [e f]] true"},
		{"ALTER TABLE t MODIFY a TIME(3), RENAME COLUMN a TO b", "{ t} [[a b]] true"},
		{"ALTER TABLE t RENAME TO u, RENAME INDEX i TO j", "{ t} [] true"},
		{"ALTER TABLE t CHANGE a b TIME(3)", "{ t} [] true"},
		{"ALTER TABLE t ADD CHECK (a IN (1, 2)), RENAME COLUMN a TO b", "{ t} [[a b]] true"},
		{"ALTER DATABASE d CHARACTER SET utf8mb4", "{ } [] false"},
		{"SELECT 1", "{ } [] false"},
	} {
		table, cols, ok := RenamedColumns(tc.in)
		got := fmt.Sprint(table, " ", fmt.Sprint(cols), " ", ok)
		if cols == nil {
			got = fmt.Sprint(table, " [] ", ok)
		}
		if got != tc.want {
			t.Errorf("RenamedColumns(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestCreateLike(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"CREATE TABLE b LIKE a", "{ b} { a} true"},
		{"create temporary table if not exists d.b (like `e`.`a`);", "{d b} {e a} true"},
		{"CREATE TABLE b /* copy */ LIKE a", "{ b} { a} true"},
		{"CREATE TABLE b (id INT, name VARCHAR(10) COMMENT 'like a')", "{ } { } false"},
		{"CREATE TABLE b AS SELECT * FROM a WHERE x LIKE 'a%'", "{ } { } false"},
		{"CREATE TABLE b LIKE a, c", "{ } { } false"},
		{"CREATE VIEW b AS SELECT 1", "{ } { } false"},
	} {
		table, src, ok := CreateLike(tc.in)
		if got := fmt.Sprint(table, " ", src, " ", ok); got != tc.want {
			t.Errorf("CreateLike(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestShownColumns(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"SHOW CREATE TABLE t", "{ t} true true"},
		{"show create table `d`.`t`;", "{d t} true true"},
		{"SHOW CREATE VIEW v", "{ } false false"},
		{"SHOW COLUMNS FROM t", "{ t} false true"},
		{"SHOW FULL FIELDS IN t FROM d LIKE 'a%'", "{d t} false true"},
		{"SHOW COLUMNS FROM d1.t FROM d2", "{d1 t} false true"},
		{"DESCRIBE t", "{ t} false true"},
		{"desc d.t col", "{d t} false true"},
		{"EXPLAIN t", "{ t} false true"},
		{"EXPLAIN SELECT * FROM t", "{ } false false"},
		{"EXPLAIN FORMAT=TREE SELECT 1", "{ } false false"},
		{"DESCRIBE (SELECT 1)", "{ } false false"},
		{"EXPLAIN `select`", "{ select} false true"},
		{"SHOW TABLES", "{ } false false"},
	} {
		table, create, ok := ShownColumns(tc.in)
		if got := fmt.Sprint(table, " ", create, " ", ok); got != tc.want {
			t.Errorf("ShownColumns(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestShowLikePattern(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"SHOW DATABASES LIKE 'a%'", "a% true"},
		{"show schemas like \"x\\_y\";", "x\\_y true"},
		{"SHOW FULL TABLES FROM d LIKE 'it''s'", "it's true"},
		{"SHOW TABLES IN `d` LIKE 't%'", "t% true"},
		{"SHOW TABLES", " false"},
		{"SHOW TABLES WHERE Tables_in_d LIKE 't%'", " false"},
		{"SHOW COLUMNS FROM t LIKE 'a%'", " false"},
		{"SHOW TABLES LIKE @p", " false"},
	} {
		p, ok := ShowLikePattern(tc.in)
		if got := fmt.Sprint(p, " ", ok); got != tc.want {
			t.Errorf("ShowLikePattern(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
