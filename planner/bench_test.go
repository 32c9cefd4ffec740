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

// BenchmarkBindIn: Bind of select_random_points' template (k IN ten
// values through the global index k_1) with ten new distinct values, by
// bindIn (IN-list templates in bind.go) and by Bind's general path
// (noBindIn).
//
//	go test ./planner -run '^$' -bench BindIn -benchmem
func BenchmarkBindIn(b *testing.B) {
	ft, err := parseTable("table t (id int, k int, c string keyci, pad string keyci) primary key (id) layout")
	if err != nil {
		b.Fatal(err)
	}
	if err := parseIndex(ft, "index k_1 (k)"); err != nil {
		b.Fatal(err)
	}
	st := &Stats{Rows: 100000, RowsPerValue: map[string]float64{"k_1": 1.6}, EntityBytes: 200}
	vals := make([]Datum, 10)
	for i := range vals {
		vals[i] = int64(100 + 7*i)
	}
	tp := Prepare(ft, &Query{Where: []Expr{&In{Col: 1, Values: vals}}, Stats: st})
	if tp == nil || tp.inCol != 1 {
		b.Fatal("no IN-list template")
	}
	for _, general := range []bool{false, true} {
		b.Run(map[bool]string{false: "bindIn", true: "general"}[general], func(b *testing.B) {
			noBindIn = general
			defer func() { noBindIn = false }()
			b.ReportAllocs()
			n := int64(0)
			for b.Loop() {
				n++
				for i := range vals {
					vals[i] = (n*13 + int64(i)*1000) % 100000
				}
				if _, _, ok := tp.Bind(vals, st); !ok {
					b.Fatal("declined")
				}
			}
		})
	}
}
