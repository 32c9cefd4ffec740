package sqlgw_test

import (
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// TestDistinctCollation: SELECT DISTINCT treats strings equal under the
// column's collation as one value, as MySQL does: 'a' and 'A' under
// utf8mb4_general_ci, 'a', 'A' and 'á' under utf8mb4_0900_ai_ci, while
// utf8mb4_0900_bin keeps them apart; on every path a SELECT can take
// (go-mysql-server's executor with and without the plan cache, and direct
// execution of a cached range), text and prepared. DISTINCT groups as =
// compares, PAD SPACE included: 'b' and 'b ' are one value under
// utf8mb4_general_ci (compat/distinct_collation.go), as in MySQL, where
// go-mysql-server's GROUP BY still holds them apart (docs/compatibility.md).
func TestDistinctCollation(t *testing.T) {
	forEachSelectPath(t, func(t *testing.T, s *sqltest.Server) {
		r := s.Use("dc",
			"CREATE TABLE t (id INT PRIMARY KEY, g VARCHAR(10) COLLATE utf8mb4_general_ci, "+
				"a VARCHAR(10) COLLATE utf8mb4_0900_ai_ci, b VARCHAR(10) COLLATE utf8mb4_0900_bin, n INT)",
			"INSERT INTO t VALUES (1, 'a', 'a', 'a', 1), (2, 'A', 'A', 'A', 1), (3, 'a', 'á', 'á', 2), "+
				"(4, 'b', 'b', 'b', 2), (5, 'B', 'B', 'B', NULL), (6, NULL, NULL, NULL, NULL), (7, 'b ', 'b ', 'b ', 3)")
		for range 2 { // the second round runs from the plan caches
			r.ExpectRows("SELECT DISTINCT g FROM t WHERE id BETWEEN 1 AND 6 ORDER BY g", "NULL", "a", "b")
			r.ExpectRows("SELECT COUNT(*) FROM (SELECT DISTINCT g FROM t WHERE id BETWEEN 1 AND 6) d", "3")
			r.ExpectRows("SELECT DISTINCT a FROM t WHERE id BETWEEN 1 AND 6 ORDER BY a", "NULL", "a", "b")
			r.ExpectRows("SELECT COUNT(*) FROM (SELECT DISTINCT b FROM t WHERE id BETWEEN 1 AND 6) d", "6")
			r.ExpectRows("SELECT COUNT(*) FROM (SELECT DISTINCT g, n FROM t WHERE id BETWEEN 1 AND 6) d", "5")
			for _, c := range []string{"a", "b", "g, n", "a, b"} {
				grouped := r.Rows("SELECT COUNT(*) FROM (SELECT " + c + " FROM t GROUP BY " + c + ") d")
				r.ExpectRows("SELECT COUNT(*) FROM (SELECT DISTINCT "+c+" FROM t) d", grouped...)
			}
			// NULL, {a, A}, {b, B, 'b '}: MySQL's count; GROUP BY g says 4.
			r.ExpectRows("SELECT COUNT(*) FROM (SELECT DISTINCT g FROM t) d", "3")
			for q, want := range map[string]string{
				"SELECT DISTINCT g FROM t WHERE id BETWEEN ? AND ? ORDER BY g": "NULL a b",
				"SELECT DISTINCT a FROM t WHERE id BETWEEN ? AND ?":            "a b NULL",
				"SELECT DISTINCT n FROM t WHERE id BETWEEN ? AND ? ORDER BY n": "NULL 1 2",
			} {
				if got := strings.Join(r.Rows(q, 1, 6), " "); got != want {
					t.Fatalf("%s (prepared): %q, want %q", q, got, want)
				}
			}
		}
	})
}

// forEachSelectPath runs f on a server in memory for each path a SELECT
// can take: direct execution of cached plans, cached plans through
// go-mysql-server's executor, and no plan cache at all.
func forEachSelectPath(t *testing.T, f func(t *testing.T, s *sqltest.Server)) {
	for _, tc := range []struct {
		name string
		cfg  func(*sqlgw.Config)
	}{
		{"direct", nil},
		{"no-direct", func(c *sqlgw.Config) { c.NoDirect = true }},
		{"no-plan-cache", func(c *sqlgw.Config) { c.NoPlanCache, c.NoTextPlanCache = true, true }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store, co := sqltest.Memory.Open(t)
			f(t, sqltest.Start(t, store, sqltest.Options{Catalog: co, Config: tc.cfg}))
		})
	}
}

// TestSetOpCollation: UNION, INTERSECT and EXCEPT compare rows as SELECT
// DISTINCT does, by the result column's collation: under
// utf8mb4_general_ci 'a' UNION 'A' is one row, 'a' INTERSECT 'A' is 'a',
// 'a' EXCEPT 'A' is empty; under utf8mb4_0900_bin they stay apart.
// go-mysql-server hashes set operations' rows without their schema (their
// bytes), as it did SELECT DISTINCT's, and so does a recursive CTE's
// UNION.
func TestSetOpCollation(t *testing.T) {
	forEachSelectPath(t, func(t *testing.T, s *sqltest.Server) {
		r := s.Use("sc",
			"CREATE TABLE t (id INT PRIMARY KEY, g VARCHAR(10) COLLATE utf8mb4_general_ci, "+
				"a VARCHAR(10) COLLATE utf8mb4_0900_ai_ci, b VARCHAR(10) COLLATE utf8mb4_0900_bin)",
			"INSERT INTO t VALUES (1, 'a', 'a', 'a'), (2, 'A', 'A', 'A'), (3, 'b', 'á', 'á'), (4, 'B', 'B', 'B'), (5, NULL, NULL, NULL)")
		for range 2 {
			for _, c := range []struct{ q, want string }{
				{"SELECT g FROM t WHERE id = 1 UNION SELECT g FROM t WHERE id = 2", "a"},
				{"SELECT COUNT(*) FROM (SELECT g FROM t UNION SELECT g FROM t WHERE id > 2) u", "3"},
				{"SELECT COUNT(*) FROM (SELECT a FROM t UNION DISTINCT SELECT a FROM t) u", "3"},
				{"SELECT COUNT(*) FROM (SELECT b FROM t UNION SELECT b FROM t) u", "5"},
				{"SELECT COUNT(*) FROM (SELECT g FROM t UNION ALL SELECT g FROM t) u", "10"},
				{"SELECT COUNT(*) FROM (SELECT a FROM t WHERE id < 3 INTERSECT SELECT a FROM t WHERE id = 3) u", "1"},
				{"SELECT COUNT(*) FROM (SELECT b FROM t WHERE id < 3 INTERSECT SELECT b FROM t WHERE id = 3) u", "0"},
				{"SELECT COUNT(*) FROM (SELECT g FROM t WHERE id = 1 EXCEPT SELECT g FROM t WHERE id = 2) u", "0"},
				{"SELECT COUNT(*) FROM (SELECT b FROM t WHERE id = 1 EXCEPT SELECT b FROM t WHERE id = 2) u", "1"},
				{"SELECT COUNT(*) FROM (SELECT g FROM t EXCEPT SELECT g FROM t WHERE id = 1) u", "2"},
				{"SELECT g FROM t WHERE id IN (1, 2, 3) UNION SELECT g FROM t WHERE id = 4 ORDER BY g LIMIT 1 OFFSET 1", "b"},
				// A recursive CTE's UNION deduplicates the same way.
				{"WITH RECURSIVE r(g, n) AS (SELECT g, 1 FROM t WHERE id IN (1, 4) UNION SELECT UPPER(g), n FROM r WHERE n < 2) SELECT COUNT(*) FROM r", "2"},
				{"WITH RECURSIVE r(g, n) AS (SELECT b, 1 FROM t WHERE id IN (1, 4) UNION SELECT UPPER(g), n FROM r WHERE n < 2) SELECT COUNT(*) FROM r", "3"},
				{"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT SUM(n) FROM r", "15"},
			} {
				r.ExpectRows(c.q, strings.Fields(c.want)...)
			}
		}
	})
}
