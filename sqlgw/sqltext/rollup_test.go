package sqltext

import "testing"

func TestRollup(t *testing.T) {
	for _, c := range []struct {
		q    string
		want bool
	}{
		{"SELECT a, COUNT(*) FROM t GROUP BY a WITH ROLLUP", true},
		{"select a from t group by a with /* c */ rollup having a > 1 order by a", true},
		{"SELECT * FROM (SELECT a, SUM(b) FROM t GROUP BY a WITH ROLLUP) d", true},
		{"WITH rollup AS (SELECT 1 a) SELECT a FROM rollup", false},
		{"WITH rollup (x) AS (SELECT 1) SELECT x FROM rollup", false},
		{"SELECT 'group by a with rollup'", false},
		{"SELECT 1 AS rollup", false},
		{"SELECT a FROM t GROUP BY a", false},
	} {
		if got := Run(c.q, Parse).Rollup; got != c.want {
			t.Errorf("%q: Rollup %v, want %v", c.q, got, c.want)
		}
	}
}
