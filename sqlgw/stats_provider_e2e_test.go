package sqlgw_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// TestJoinPlanFollowsStatistics: go-mysql-server's join planner sees the
// rows a filter keeps on an analysed table (stats_join.go). Before ANALYZE
// TABLE it takes every filtered table for one row and plans the same
// nested loop whatever the filter keeps; after, a filter keeping nearly
// all of t1 makes it a hash join (each table read once; at 3,000 rows
// the nested loop sent 9,003 requests, the hash join 6), while the one
// keeping one row keeps the plan. The rows are
// the same throughout.
func TestJoinPlanFollowsStatistics(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, s *sqltest.Server) {
		r := s.Use("d",
			"CREATE TABLE t1 (id INT PRIMARY KEY, a INT, KEY ka (a))",
			"CREATE TABLE t2 (id INT PRIMARY KEY, x INT, y INT, KEY kx (x))")
		var v1, v2 []string
		for i := 1; i <= 400; i++ {
			a := 0
			if i == 77 {
				a = 1
			}
			v1 = append(v1, fmt.Sprintf("(%d, %d)", i, a))
			v2 = append(v2, fmt.Sprintf("(%d, %d, %d)", i, i%200, i))
		}
		for i := 0; i < len(v1); i += 100 {
			r.Exec("INSERT INTO t1 VALUES " + strings.Join(v1[i:i+100], ","))
			r.Exec("INSERT INTO t2 VALUES " + strings.Join(v2[i:i+100], ","))
		}
		const join = "SELECT t1.id, t2.y FROM t1 JOIN t2 ON t2.x = t1.id WHERE t1.a = %d ORDER BY t1.id, t2.y"
		plan := func(a int) string {
			return strings.Join(r.Rows("EXPLAIN PLAN "+fmt.Sprintf(join, a)), "\n")
		}
		hashJoin := func(p string) bool { return strings.Contains(p, "HashJoin") }
		before0, before1 := plan(0), plan(1)
		cost := func(q string) ([]string, int64) {
			before, _ := r.Status()
			rows := r.Rows(q)
			after, _ := r.Status()
			return rows, after - before
		}
		rows0, req0 := cost(fmt.Sprintf(join, 0))
		rows1 := r.Rows(fmt.Sprintf(join, 1))
		if hashJoin(before0) || hashJoin(before1) {
			t.Fatalf("before ANALYZE the planner already tells the filters apart:\n%s\n%s", before0, before1)
		}
		r.Exec("ANALYZE TABLE t1")
		r.Exec("ANALYZE TABLE t2")
		after0, after1 := plan(0), plan(1)
		if !hashJoin(after0) {
			t.Errorf("a = 0 keeps 399 of 400 rows; after ANALYZE want a hash join:\n%s", after0)
		}
		if hashJoin(after1) {
			t.Errorf("a = 1 keeps one row; after ANALYZE want no hash join:\n%s", after1)
		}
		got0, req0After := cost(fmt.Sprintf(join, 0))
		if !slices.Equal(got0, rows0) || len(rows0) != 396 {
			t.Errorf("a = 0: %d rows after ANALYZE, %d before", len(got0), len(rows0))
		}
		if got := r.Rows(fmt.Sprintf(join, 1)); !slices.Equal(got, rows1) || len(rows1) != 2 {
			t.Errorf("a = 1: %q after ANALYZE, %q before", got, rows1)
		}
		t.Logf("a = 0: %d store requests before ANALYZE, %d after", req0, req0After)
		if req0After > req0 {
			t.Errorf("a = 0: %d store requests after ANALYZE, %d before: want no more", req0After, req0)
		}
	})
}
