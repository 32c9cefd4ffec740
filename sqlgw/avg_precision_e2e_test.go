package sqlgw_test

import (
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// TestAvgDivPrecisionIncrement: AVG of an INT or DECIMAL column has
// div_precision_increment more decimals than its argument, as in MySQL,
// also when the session changes the variable between executes of a cached
// plan (text and prepared), on every path a SELECT can take.
func TestAvgDivPrecisionIncrement(t *testing.T) {
	forEachSelectPath(t, func(t *testing.T, s *sqltest.Server) {
		r := s.Use("avgp",
			"CREATE TABLE t (id INT PRIMARY KEY, k INT, d DECIMAL(6,2))",
			"INSERT INTO t VALUES (1, 1, 1.00), (2, 2, 0.50), (3, 0, 0.00), (4, 3, 1.00), (5, 1, 0.25), (6, 2, 0.00), (7, 3, 0.00)")
		for _, step := range []struct{ inc, k, d string }{
			{"4", "1.7143", "0.392857"},
			{"8", "1.71428571", "0.3928571429"},
			{"0", "2", "0.39"},
			{"4", "1.7143", "0.392857"},
		} {
			r.Exec("SET div_precision_increment = " + step.inc)
			want := step.k + "\t" + step.d
			r.ExpectRows("SELECT AVG(k), AVG(d) FROM t WHERE id BETWEEN 1 AND 7", want)
			if got := strings.Join(r.Rows("SELECT AVG(k), AVG(d) FROM t WHERE id BETWEEN ? AND ?", 1, 7), "\n"); got != want {
				t.Fatalf("div_precision_increment %s, prepared: %q, want %q", step.inc, got, want)
			}
		}
	})
}
