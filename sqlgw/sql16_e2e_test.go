package sqlgw_test

import (
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// ROUND, TRUNCATE and FORMAT of a division read the quotient's internal
// digits (9 fraction digits per word, truncated), as MySQL's do: 1/3 shows
// 0.3333 but ROUND(1/3, 6) is 0.333333. TRUNCATE shows d decimals as
// ROUND does.
func TestRoundOfDivision(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Session("rdiv", `
			CREATE TABLE n (k INT PRIMARY KEY, i INT, x DECIMAL(10,2))
			INSERT INTO n VALUES (1, 1, 1.50), (2, 2, 10.00)`)
		r := sqltest.NewRunner(t, c)
		r.ExpectRows("SELECT ROUND(1/3, 6), ROUND(2/3, 2), TRUNCATE(1/3, 6), ROUND(1/3), ROUND(10/3, -1), 1/3",
			"0.333333\t0.67\t0.333333\t0\t0\t0.3333")
		r.ExpectRows("SELECT ROUND(2/3, 8), ROUND(2/3, 9), ROUND(1/3, 10), TRUNCATE(2/3, 12), ROUND(1/3 + 0, 6), ROUND(1/3*3, 6)",
			"0.66666667\t0.666666666\t0.3333333330\t0.666666666000\t0.333333\t1.000000")
		r.ExpectRows("SELECT FORMAT(1/3, 6), FORMAT(2/3, 9), FORMAT(20000/3, 2), FORMAT(1/3, 2)",
			"0.333333\t0.666666666\t6,666.67\t0.33")
		r.ExpectRows("SELECT TRUNCATE(1.5, 3), TRUNCATE(-1.5, 0), TRUNCATE(1234.5678, -2)", "1.500\t-1\t1200")
		// Columns: the quotient of the row's values.
		r.ExpectRows("SELECT k, ROUND(i/3, 6), TRUNCATE(x/7, 7), FORMAT(x/3, 5) FROM n ORDER BY k",
			"1\t0.333333\t0.2142857\t0.50000", "2\t0.666667\t1.4285714\t3.33333")
	})
}
