package planner

import (
	"testing"
)

// BenchmarkBuild measures planning time per access path (planning runs on
// every statement, so it must stay far below one store round trip).
func BenchmarkBuild(b *testing.B) {
	tb, err := parseTable("table orders (tenant string, id int, line int, qty int, note string) primary key (tenant, id, line) layout")
	if err != nil {
		b.Fatal(err)
	}
	const tenant, id, line, qty, note = 0, 1, 2, 3, 4
	ints := func(n int) []Datum {
		out := make([]Datum, n)
		for i := range out {
			out[i] = int64(i)
		}
		return out
	}
	cases := []struct {
		name  string
		where []Expr
	}{
		{"PointGet", []Expr{&Cmp{Col: tenant, Op: Eq, Value: "acme"}, &Cmp{Col: id, Op: Eq, Value: int64(7)}, &Cmp{Col: line, Op: Eq, Value: int64(1)}}},
		{"MultiGet100", []Expr{&Cmp{Col: tenant, Op: Eq, Value: "acme"}, &In{Col: id, Values: ints(10)}, &In{Col: line, Values: ints(10)}}},
		{"RowRange", []Expr{&Cmp{Col: tenant, Op: Eq, Value: "acme"}, &Cmp{Col: id, Op: Gt, Value: int64(7)}, &Cmp{Col: qty, Op: Lt, Value: int64(3)}}},
		{"TableScan", []Expr{&Cmp{Col: qty, Op: Gt, Value: int64(3)}, Or{&Cmp{Col: note, Op: Eq, Value: "x"}, &IsNull{Col: note}}, &Opaque{Text: "f(note)", Cols: []int{note}}}},
	}
	for _, c := range cases {
		b.Run("path="+c.name, func(b *testing.B) {
			q := &Query{Where: c.where, Columns: []int{qty, note}}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := Build(tb, q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
