package sqlgw_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw"
	"github.com/sqlgw/sqlgw/sqlgw/engine"
)

// TestTextShapeE2E runs text SELECTs over the wire against a gateway
// whose plan cache runs texts of a known shape without their parse
// (engine/textshape.go) and one without the plan cache: each statement
// (rows, warnings, ROW_COUNT(), errors: writeRun) must be the same, also
// after DDL changes the table and after sql_mode changes how the texts
// parse; and the shape path must have run a good part of them.
func TestTextShapeE2E(t *testing.T) {
	fast := insertDiffConn(t, sqlgw.Config{})
	general := insertDiffConn(t, sqlgw.Config{NoPlanCache: true, NoTextPlanCache: true})
	steps := []string{
		"CREATE DATABASE ts",
		"USE ts",
		"CREATE TABLE t (id BIGINT PRIMARY KEY, u BIGINT UNSIGNED, s VARCHAR(20), k INT, INDEX k (k))",
		"INSERT INTO t VALUES (1, 1, 'a', 10), (2, 18446744073709551615, 'b''c', 20), (3, 3, 'é', 10), (4, 4, 'x\\\\y', 40), " +
			"(5, 5, '5', 50), (6, 6, 'it''s', 60), (7, 7, '日本', 70), (8, 8, '', 80), (9, 9, 's', 90), (10, 10, '1', 10)",
	}
	// Each family runs with every value list, several times in a row
	// (the second sighting of a shape learns it, later ones hit).
	families := []struct {
		tmpl string
		vals [][]interface{}
	}{
		{"SELECT id, u, s, k FROM t WHERE id=%v", [][]interface{}{{1}, {2}, {3}, {11}, {0}, {"007"}, {"18446744073709551615"}, {"18446744073709551616"}, {"9223372036854775808"}}},
		{"SELECT id FROM t WHERE s = %v", [][]interface{}{{"'a'"}, {"'é'"}, {"'日本'"}, {"''"}, {"'5'"}, {"'nope'"}, {"'b''c'"}, {"'x\\\\y'"}, {"'s'"}}},
		{"SELECT id FROM t WHERE u = %v ORDER BY id", [][]interface{}{{1}, {"18446744073709551615"}, {"18446744073709551616"}, {4}}},
		{"SELECT id, s FROM t WHERE id BETWEEN %v AND %v ORDER BY id", [][]interface{}{{1, 3}, {2, 9}, {5, 5}, {9, 2}}},
		{"SELECT id FROM t WHERE id IN (%v, %v, %v) ORDER BY id", [][]interface{}{{1, 2, 3}, {1, 1, 1}, {4, 100, 7}}},
		{"SELECT 1 FROM t WHERE id = %v", [][]interface{}{{1}, {2}, {99}}},
		{"SELECT %v AS x, s FROM t WHERE id = %v", [][]interface{}{{1, 1}, {1, 2}, {2, 2}, {"'q'", 3}}},
		{"SELECT id FROM t WHERE k = %v LIMIT %v", [][]interface{}{{10, 1}, {10, 2}, {20, 1}, {10, 5}}},
		{"SELECT id FROM t WHERE k = %v ORDER BY id DESC LIMIT 1", [][]interface{}{{10}, {20}, {70}}},
		{"SELECT id FROM t WHERE id = -%v", [][]interface{}{{1}, {2}}},
		{"SELECT /* id = 5 */ s FROM t WHERE id = %v -- 7\n", [][]interface{}{{5}, {6}, {7}}},
		{"SELECT `s` FROM `t` WHERE `id` = %v # 9", [][]interface{}{{5}, {6}}},
		{"SELECT \"s\" FROM t WHERE id = %v", [][]interface{}{{1}, {9}, {3}}},
		{"SELECT id FROM t WHERE s = %v COLLATE utf8mb4_bin", [][]interface{}{{"'a'"}, {"'A'"}}},
		{"SELECT id FROM t WHERE s = _utf8mb4%v AND id = %v", [][]interface{}{{"'a'", 1}, {"'é'", 3}}},
		{"SELECT COUNT(*), SUM(k) FROM t WHERE id >= %v AND id < %v", [][]interface{}{{1, 5}, {3, 11}, {0, 0}}},
		{"SELECT id FROM t WHERE id = %v;", [][]interface{}{{1}, {4}}},
		{"SELECT id, s FROM t WHERE s = '%v'", [][]interface{}{{"1"}, {"5"}, {"s"}}},
		{"SELECT * FROM t WHERE id = %v", [][]interface{}{{1}, {2}, {4}}},
	}
	run := func() {
		for _, f := range families {
			for rep := 0; rep < 3; rep++ {
				for _, v := range f.vals {
					steps = append(steps, fmt.Sprintf(f.tmpl, v...))
				}
			}
		}
	}
	run()
	// DDL: the plans go stale; the shapes stay and must not run them.
	steps = append(steps, "ALTER TABLE t ADD COLUMN x INT DEFAULT 7")
	run()
	steps = append(steps, "DROP TABLE t", "CREATE TABLE t (id INT UNSIGNED PRIMARY KEY, u INT, s INT, k BIGINT, INDEX k (k))",
		"INSERT INTO t VALUES (1, -1, 5, 10), (2, 2, 1, 20), (3, 3, 0, 10), (9, 9, 9, 90)")
	run()
	// sql_mode: the same texts parse otherwise ("s" is the column; the
	// backslash is a character).
	steps = append(steps, "SET sql_mode = CONCAT(@@sql_mode, ',ANSI_QUOTES')")
	run()
	steps = append(steps, "SET sql_mode = 'NO_BACKSLASH_ESCAPES'")
	run()
	steps = append(steps, "SET sql_mode = 'PIPES_AS_CONCAT'",
		"SELECT id || 'x' FROM t WHERE id = 1", "SELECT id || 'x' FROM t WHERE id = 2", "SELECT id || 'x' FROM t WHERE id = 3",
		"SET sql_mode = DEFAULT",
		"SELECT id || 'x' FROM t WHERE id = 1", "SELECT id || 'x' FROM t WHERE id = 2", "SELECT id || 'x' FROM t WHERE id = 3")
	run()
	n0 := engine.TextShapeCount()
	for i, q := range steps {
		if a, c := writeRun(fast, q), writeRun(general, q); a != c {
			t.Errorf("step %d: %s\nwith the plan cache:\n%s\nwithout:\n%s", i, strings.TrimSpace(q), a, c)
		}
	}
	n := engine.TextShapeCount() - n0
	t.Logf("%d of %d statements ran from their shape", n, len(steps))
	if n < int64(len(steps))/4 {
		t.Errorf("only %d of %d statements ran from their shape, without the parse", n, len(steps))
	}
}
