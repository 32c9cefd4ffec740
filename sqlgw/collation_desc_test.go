package sqlgw_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// TestCollatedDescKeyRanges: ranges, LIKE, IN and ORDER BY on a DESC key
// column under a weight collation, a PAD SPACE one and latin1 return the
// rows of an unindexed copy (the planner's bounds in the collation key
// space, mirrored for DESC, widened for PAD SPACE).
func TestCollatedDescKeyRanges(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Use("d")
		for _, coll := range []string{"utf8mb4_0900_ai_ci", "utf8mb4_bin", "latin1_swedish_ci"} {
			cs := ""
			if strings.HasPrefix(coll, "latin1") {
				cs = " CHARACTER SET latin1"
			}
			c.Exec("DROP TABLE IF EXISTS x")
			c.Exec("DROP TABLE IF EXISTS x0")
			c.Exec(fmt.Sprintf("CREATE TABLE x (r INT, k VARCHAR(10)%s COLLATE %s, PRIMARY KEY (r, k DESC))", cs, coll))
			c.Exec(fmt.Sprintf("CREATE TABLE x0 (id INT PRIMARY KEY, r INT, k VARCHAR(10)%s COLLATE %s)", cs, coll))
			words := []string{"apple", "Banana", "cherry", "date", "éclair", "fig", "Grape", "kiwi", "lemon", "a b", "a", "ab", "b"}
			var v, v0 []string
			for i, w := range words {
				for r := 1; r <= 2; r++ {
					v = append(v, fmt.Sprintf("(%d, '%s')", r, w))
					v0 = append(v0, fmt.Sprintf("(%d, %d, '%s')", i*10+r, r, w))
				}
			}
			c.Exec("INSERT INTO x VALUES " + strings.Join(v, ","))
			c.Exec("INSERT INTO x0 VALUES " + strings.Join(v0, ","))
			for _, w := range []string{"k > 'c'", "k < 'D'", "k BETWEEN 'b' AND 'F'", "k LIKE 'a%%'", "k LIKE 'A%%'", "k IN ('FIG', 'eclair')", "k = 'a '", "k >= 'a b'", "k < 'ab'"} {
				q := "SELECT r, k FROM %s WHERE r = 1 AND " + w
				got := c.Rows(fmt.Sprintf(q, "x"))
				want := c.Rows(fmt.Sprintf(q, "x0"))
				slices.Sort(got)
				slices.Sort(want)
				if strings.Join(got, "|") != strings.Join(want, "|") {
					t.Errorf("%s %s: got %q want %q\n%s", coll, w, got, want, strings.Join(c.Rows("EXPLAIN PLAN "+fmt.Sprintf(q, "x")), "\n"))
				}
			}
			got := c.Rows("SELECT k FROM x WHERE r = 2 ORDER BY k DESC LIMIT 4")
			want := c.Rows("SELECT k FROM x0 WHERE r = 2 ORDER BY k DESC LIMIT 4")
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("%s order: got %q want %q", coll, got, want)
			}
		}
	})
}
