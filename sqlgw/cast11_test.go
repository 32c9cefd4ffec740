package sqlgw_test

import (
	"strings"
	"testing"
)

// TestCast11FoldedDateArithmetic: a DATE in + - * / is the number
// YYYYMMDD (MySQL 8.0), also where go-mysql-server folds a constant
// expression before sqlgw's exec builder sees it (a WHERE on the key),
// and DATE + INTERVAL stays date arithmetic.
func TestCast11FoldedDateArithmetic(t *testing.T) {
	rs := review13eRaw(t)
	same := func(q string) string { t.Helper(); return review13eRawSame(t, rs, q) }
	want, _ := review13eWant(t, rs)
	for _, q := range []string{"CREATE DATABASE c11", "USE c11",
		"CREATE TABLE da (d DATE PRIMARY KEY, v INT)",
		"INSERT INTO da VALUES ('2024-01-02', 1), ('2024-01-01', 2)"} {
		same(q)
	}
	want("SELECT DATE('2024-01-01') + 1", "row \"\\b20240102\"\neof status 0x0002 warnings 0")
	want("SELECT v FROM da WHERE d = DATE('2024-01-01') + 1", "row \"\\x011\"\neof status 0x0002 warnings 0")
	want("SELECT v FROM da WHERE d = CAST('2024-01-01' AS DATE) + 1", "row \"\\x011\"\neof status 0x0002 warnings 0")
	want("SELECT v FROM da WHERE d = DATE('2024-01-01') + INTERVAL 1 DAY", "row \"\\x011\"\neof status 0x0002 warnings 0")
	// EXPLAIN plans the statement as it runs: the CAST is the date.
	// (Each config names its physical table differently: not compared.)
	for i, r := range rs {
		if got := review13eOK(r, "EXPLAIN FORMAT=tree SELECT v FROM da WHERE d = CAST(20240102 AS DATE)"); !strings.Contains(got, "pk='2024-01-02'") {
			t.Errorf("config %d: EXPLAIN of WHERE d = CAST(20240102 AS DATE) without the date:\n%s", i, got)
		}
	}
	same("INSERT INTO da VALUES (DATE('2024-01-02') + 1, 3)")
	want("SELECT d FROM da WHERE v = 3", "row \"\\n2024-01-03\"\neof status 0x0002 warnings 0")
}
