package sqlgw_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// TestTemporalKeyLiterals: DATE and DATETIME key columns compared with
// string and DATE literals use the key (the canonical forms, converted as
// MySQL converts them), and every form, canonical or not, returns the rows
// an unindexed copy returns.
func TestTemporalKeyLiterals(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Use("d")
		c.Exec("CREATE TABLE e (d DATE, ts DATETIME, v INT, PRIMARY KEY (d, ts))")
		c.Exec("CREATE TABLE e0 (id INT PRIMARY KEY, d DATE, ts DATETIME, v INT)")
		var vals, vals0 []string
		for i := range 30 {
			row := fmt.Sprintf("'2024-01-%02d', '2024-01-%02d %02d:00:00', %d", i/3+1, i/3+1, 8+i%3, i)
			vals = append(vals, "("+row+")")
			vals0 = append(vals0, fmt.Sprintf("(%d, %s)", i, row))
		}
		c.Exec("INSERT INTO e VALUES " + strings.Join(vals, ", "))
		c.Exec("INSERT INTO e0 VALUES " + strings.Join(vals0, ", "))
		for _, tc := range []struct {
			where string
			path  string // "" : any
			reqs  int64
		}{
			{"d = '2024-01-02'", "PartitionScan", 1},
			{"d = DATE '2024-01-02'", "PartitionScan", 1},
			{"d IN ('2024-01-02', '2024-01-05')", "PartitionScan", 2},
			{"d BETWEEN '2024-01-02' AND '2024-01-04'", "PartitionRange", 1},
			{"d > '2024-01-08'", "PartitionRange", 1},
			{"d = '2024-01-02' AND ts = '2024-01-02 09:00:00'", "PointGet", 1},
			{"d = '2024-01-02' AND ts >= '2024-01-02 09:00:00'", "RowRange", 1},
			{"d = '2024-01-02' AND ts = '2024-01-02 09:00:00.000000'", "PointGet", 1},
			{"d = '2024-01-02 00:00:00'", "PartitionScan", 1},
			{"d = '2024-01-02 10:00:00'", "", 1},
			{"d < '2024-01-02 10:00:00'", "", 1},
			{"d = '2024-1-2'", "", 0},
			{"d = '20240102'", "", 0},
			{"d = '2024-02-30'", "", 0},
			{"d = '0000-00-00'", "", 0},
		} {
			q := "SELECT d, ts, v FROM %s WHERE " + tc.where
			got := c.Rows(fmt.Sprintf(q, "e"))
			want := c.Rows(fmt.Sprintf(q, "e0"))
			slices.Sort(got)
			slices.Sort(want)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s: got %q, want %q", tc.where, got, want)
			}
			if tc.path != "" {
				plan := strings.Join(c.Rows("EXPLAIN PLAN "+fmt.Sprintf(q, "e")), "\n")
				if !strings.Contains(plan, tc.path) {
					t.Errorf("%s: no %s in\n%s", tc.where, tc.path, plan)
				}
				if r, _ := c.Cost(fmt.Sprintf(q, "e")); r > tc.reqs {
					t.Errorf("%s: %d requests, want at most %d", tc.where, r, tc.reqs)
				}
			}
		}
	})
}
