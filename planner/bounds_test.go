package planner

import "testing"

// TestRangeSelectivityFromBounds: with the analysed bounds of an indexed
// INT column, a narrow range is a small share of the table and goes
// through the index; without them, a range keeps a third and the table is
// scanned; a range covering the whole span scans either way.
func TestRangeSelectivityFromBounds(t *testing.T) {
	tb, err := parseTable("users (id int, n int, v string) primary key (id)")
	if err != nil {
		t.Fatal(err)
	}
	if err := parseIndex(tb, "index by_n (n)"); err != nil {
		t.Fatal(err)
	}
	rangeOn := func(lo, hi int64) []Expr {
		return []Expr{&Cmp{Col: 1, Op: Ge, Value: lo}, &Cmp{Col: 1, Op: Le, Value: hi}}
	}
	bounds := map[int][2]float64{1: {0, 9999}}
	for _, tc := range []struct {
		lo, hi int64
		bounds map[int][2]float64
		want   AccessPath
	}{
		{10, 11, nil, TableScan},
		{10, 11, bounds, IndexRange},
		{0, 9999, bounds, TableScan},
		{5000, 9999, bounds, TableScan},
	} {
		p, err := Build(tb, &Query{Where: rangeOn(tc.lo, tc.hi), Stats: &Stats{Rows: 100000, Bounds: tc.bounds}})
		if err != nil {
			t.Fatal(err)
		}
		if p.Path != tc.want {
			t.Errorf("n BETWEEN %d AND %d, bounds %v: %v, want %v\n%s", tc.lo, tc.hi, tc.bounds, p.Path, tc.want, p)
		}
	}
}
