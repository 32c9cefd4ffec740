package sqlgw_test

import (
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// TestReview13fCastNumberToDateEverywhere: CAST(20240229 AS DATE) is
// 2024-02-29 (MySQL) not only in a SELECT list but in a WHERE that
// reads a key or an index, in INSERT's VALUES and UPDATE's SET, on every
// path, text and prepared.
func TestReview13fCastNumberToDateEverywhere(t *testing.T) {
	rs := review13eRaw(t)
	same := func(q string) string { t.Helper(); return review13eRawSame(t, rs, q) }
	want, _ := review13eWant(t, rs)
	for _, q := range []string{"CREATE DATABASE cd", "USE cd",
		"CREATE TABLE dk (d DATE PRIMARY KEY, v INT, e DATE, KEY ke (e))",
		"INSERT INTO dk VALUES ('2024-02-29', 1, '2024-03-01'), ('2024-03-01', 2, '2024-02-29')"} {
		same(q)
	}
	want("SELECT CAST(20240229 AS DATE)", "row \"\\n2024-02-29\"\neof status 0x0002 warnings 0")
	want("SELECT v FROM dk WHERE d = CAST(20240229 AS DATE)", "row \"\\x011\"\neof status 0x0002 warnings 0")
	want("SELECT v FROM dk WHERE e = CAST(20240229 AS DATE)", "row \"\\x012\"\neof status 0x0002 warnings 0")
	want("SELECT v FROM dk WHERE d IN (CAST(20240229 AS DATE), CAST(20240301 AS DATE)) ORDER BY v", "row \"\\x011\"\nrow \"\\x012\"\neof status 0x0002 warnings 0")
	want("SELECT v FROM dk WHERE d BETWEEN CAST(20240228 AS DATE) AND CAST(20240229 AS DATE)", "row \"\\x011\"\neof status 0x0002 warnings 0")
	same("INSERT INTO dk VALUES (CAST(20240302 AS DATE), 3, CAST(20240303 AS DATE))")
	want("SELECT d, e FROM dk WHERE v = 3", "row \"\\n2024-03-02\\n2024-03-03\"\neof status 0x0002 warnings 0")
	same("UPDATE dk SET e = CAST(20240304 AS DATE) WHERE d = '2024-03-02'")
	want("SELECT e FROM dk WHERE v = 3", "row \"\\n2024-03-04\"\neof status 0x0002 warnings 0")
	want("SELECT v FROM dk ORDER BY CAST(20240229 AS DATE) = d DESC, v LIMIT 1", "row \"\\x011\"\neof status 0x0002 warnings 0")

	c := review13fConn(t, sqlgw.Config{})
	r := sqltest.NewRunner(t, c)
	r.ExecAll("CREATE DATABASE cp", "USE cp", "CREATE TABLE dk (d DATE PRIMARY KEY, v INT)", "INSERT INTO dk VALUES ('2024-02-29', 1)")
	for range 3 { // the second and third from the plan cache
		r.ExpectRows("SELECT v FROM dk WHERE d = CAST(20240229 AS DATE)", "1")
		if got := r.Rows("SELECT v FROM dk WHERE d = CAST(? AS DATE)", 20240229); strings.Join(got, ",") != "1" {
			t.Errorf("prepared CAST(? AS DATE) = 20240229: %q, want 1", got)
		}
	}
}
