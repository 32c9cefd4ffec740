package planner

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// TestReview13BindIndexKinds: index templates (and their index key
// binding) on one-column global indexes over column kinds the bind
// differential test does not cover (float, decimal, uint, bytes, strings
// keyed inexactly by PAD SPACE or by a case-insensitive collation key,
// enum, bit), unique and not, bound with values of every kind: Bind gives
// Build's plan or declines.
func TestReview13BindIndexKinds(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	anyVal := func() Datum {
		vals := []Datum{nil, int64(1), int64(2), int64(-1), uint64(3), uint64(math.MaxUint64), 3.5, 1.0, 2.0, math.Copysign(0, -1), 1e30,
			decimal.RequireFromString("1.0"), decimal.RequireFromString("1.50"), decimal.RequireFromString("2"),
			"1", "2", "1.0", "a", "A", "a ", "A  ", "b", "é", "E", "", strings.Repeat("y", 300), []byte("a"), []byte("a\x00"), []byte{0xff},
			int64(r.IntN(20)), float64(r.IntN(20)) / 2, fmt.Sprint(r.IntN(20))}
		return vals[r.IntN(len(vals))]
	}
	for _, typ := range []string{"float", "decimal", "uint", "bytes", "string keypad", "string keyci", "string", "enum", "bit", "int"} {
		for _, uniq := range []string{"", " unique"} {
			for _, width := range []int{1, 3} {
				name := fmt.Sprintf("%s%s in(%d)", typ, uniq, width)
				t.Run(name, func(t *testing.T) {
					ft, err := parseTable("table t (id int, k " + typ + ", c string) primary key (id) layout")
					if err != nil {
						t.Fatal(err)
					}
					if err := parseIndex(ft, "index k_1 (k)"+uniq); err != nil {
						t.Fatal(err)
					}
					where := func(v []Datum) []Expr {
						if width == 1 {
							return []Expr{&Cmp{Col: 1, Op: Eq, Value: v[0]}}
						}
						return []Expr{&In{Col: 1, Values: append([]Datum(nil), v...)}}
					}
					var tp *Template
					bound, templates := 0, 0
					for range 2500 {
						vals := make([]Datum, width)
						for i := range vals {
							vals[i] = anyVal()
						}
						if tp == nil || r.IntN(50) == 0 { // a template made from these values
							tp = Prepare(ft, &Query{Where: where(vals)})
							if tp != nil {
								templates++
							}
							continue
						}
						want, err := Build(ft, &Query{Where: where(vals)})
						if err != nil {
							t.Fatal(err)
						}
						got, _, ok := tp.Bind(vals, nil)
						if !ok {
							continue
						}
						bound++
						if !reflect.DeepEqual(got, want) {
							t.Fatalf("template of %v, values %v:\nbound %v\nbuilt %v", tp.q.Where, vals, got, want)
						}
					}
					t.Logf("%d templates, bound %d", templates, bound)
				})
			}
		}
	}
}

// TestReview13BindKeyKinds: key templates (points, IN lists, ranges, a
// composite key's prefix) over primary keys of every kind, salted or not,
// bound with values of every kind and other statistics: Bind gives
// Build's plan or declines.
func TestReview13BindKeyKinds(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	anyVal := func() Datum {
		vals := []Datum{nil, int64(1), int64(2), int64(-1), uint64(3), uint64(math.MaxUint64), 3.5, 1.0, 2.0, 1e30, math.Inf(1),
			decimal.RequireFromString("1.0"), decimal.RequireFromString("1.50"), decimal.RequireFromString("-2"),
			"1", "2", "1.0", "a", "A", "a ", "A  ", "b", "é", "E", "", strings.Repeat("y", 300), []byte("a"), []byte("a\x00"),
			int64(r.IntN(20)), float64(r.IntN(20)) / 2, fmt.Sprint(r.IntN(20))}
		return vals[r.IntN(len(vals))]
	}
	shapes := []struct {
		name  string
		n     int
		where func(v []Datum) []Expr
	}{
		{"eq", 1, func(v []Datum) []Expr { return []Expr{&Cmp{Col: 0, Op: Eq, Value: v[0]}} }},
		{"eq2", 2, func(v []Datum) []Expr {
			return []Expr{&Cmp{Col: 0, Op: Eq, Value: v[0]}, &Cmp{Col: 1, Op: Eq, Value: v[1]}}
		}},
		{"in", 3, func(v []Datum) []Expr { return []Expr{&In{Col: 0, Values: append([]Datum(nil), v...)}} }},
		{"range", 2, func(v []Datum) []Expr {
			return []Expr{&Cmp{Col: 0, Op: Ge, Value: v[0]}, &Cmp{Col: 0, Op: Le, Value: v[1]}}
		}},
		{"prefix range", 2, func(v []Datum) []Expr {
			return []Expr{&Cmp{Col: 0, Op: Eq, Value: v[0]}, &Cmp{Col: 1, Op: Gt, Value: v[1]}}
		}},
		{"or", 2, func(v []Datum) []Expr {
			return []Expr{Or{&Cmp{Col: 0, Op: Eq, Value: v[0]}, &Cmp{Col: 0, Op: Lt, Value: v[1]}}}
		}},
	}
	for _, typ := range []string{"float", "decimal", "uint", "bytes", "string keypad", "string keyci", "string", "int", "enum"} {
		for _, salt := range []int{0, 3} {
			for _, sh := range shapes {
				t.Run(fmt.Sprintf("%s salt %d %s", typ, salt, sh.name), func(t *testing.T) {
					ft, err := parseTable("table t (a " + typ + ", b int, c string) primary key (a, b) layout")
					if err != nil {
						t.Fatal(err)
					}
					var tb Table = ft
					if salt > 0 {
						tb = &saltedFake{fakeTable: ft, n: salt}
					}
					var tp *Template
					bound := 0
					for range 800 {
						vals := make([]Datum, sh.n)
						for i := range vals {
							vals[i] = anyVal()
						}
						var stats *Stats
						if r.IntN(3) == 0 {
							stats = &Stats{Rows: float64(50 + r.IntN(100000)), EntityBytes: float64(r.IntN(3000)), Partitions: float64(r.IntN(100))}
						}
						if tp == nil || r.IntN(50) == 0 {
							tp = Prepare(tb, &Query{Where: sh.where(vals), Stats: stats, Reverse: true})
							continue
						}
						want, err := Build(tb, &Query{Where: sh.where(vals), Stats: stats, Reverse: true})
						if err != nil {
							t.Fatal(err)
						}
						got, _, ok := tp.Bind(vals, stats)
						if !ok {
							continue
						}
						bound++
						if !reflect.DeepEqual(got, want) {
							t.Fatalf("template of %v, values %v:\nbound %v\nbuilt %v", tp.q.Where, vals, got, want)
						}
					}
					if bound == 0 {
						t.Log("never bound")
					}
				})
			}
		}
	}
}

// TestReview13BindSkewed: index templates bound with duplicate values and
// values among the most frequent ones (another cost than the template's:
// Bind compares the index plan's score with the scan's), for statistics
// of large tables with and without most-frequent values, IN lists of
// several widths and index column kinds: Bind gives Build's plan or
// declines.
func TestReview13BindSkewed(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	for _, typ := range []string{"int", "string keyci", "string"} {
		for _, width := range []int{1, 2, 5, 20} {
			t.Run(fmt.Sprintf("%s in(%d)", typ, width), func(t *testing.T) {
				ft, err := parseTable("table t (id int, k " + typ + ", c string) primary key (id) layout")
				if err != nil {
					t.Fatal(err)
				}
				if err := parseIndex(ft, "index k_1 (k)"); err != nil {
					t.Fatal(err)
				}
				val := func(i int) Datum {
					if typ == "int" {
						return int64(i)
					}
					return []string{"a", "A", "b", "c", "d", "e", "f"}[i%7] + fmt.Sprint(i/7)
				}
				key := func(i int) string {
					k, err := ft.EncodeIndexKey(0, 0, []Datum{val(i)})
					if err != nil {
						t.Fatal(err)
					}
					return k
				}
				bound, declined := 0, 0
				for range 120 {
					rows := []float64{1000, 20000, 1e5, 1e6, 5e7}[r.IntN(5)]
					st := &Stats{Rows: rows, EntityBytes: float64(100 + r.IntN(2000)), Partitions: rows / float64(1+r.IntN(3)),
						RowsPerValue: map[string]float64{"k_1": float64(1 + r.IntN(5000))}}
					if r.IntN(2) == 0 {
						top := map[string]float64{}
						for range 1 + r.IntN(4) {
							top[key(r.IntN(10))] = float64(r.IntN(int(rows)/2 + 1))
						}
						st.TopValues = map[string]map[string]float64{"k_1": top}
						st.RestPerValue = map[string]float64{"k_1": float64(1 + r.IntN(50))}
					}
					first := make([]Datum, width)
					for i := range first {
						first[i] = val(100 + i)
					}
					where := func(v []Datum) []Expr {
						if width == 1 {
							return []Expr{&Cmp{Col: 1, Op: Eq, Value: v[0]}}
						}
						return []Expr{&In{Col: 1, Values: append([]Datum(nil), v...)}}
					}
					tp := Prepare(ft, &Query{Where: where(first), Stats: st})
					if tp == nil {
						continue
					}
					for range 30 {
						vals := make([]Datum, width)
						for i := range vals {
							vals[i] = val(r.IntN(12)) // duplicates and top values
						}
						want, err := Build(ft, &Query{Where: where(vals), Stats: st})
						if err != nil {
							t.Fatal(err)
						}
						got, _, ok := tp.Bind(vals, st)
						if !ok {
							declined++
							continue
						}
						bound++
						if !reflect.DeepEqual(got, want) {
							t.Fatalf("stats %+v, template of %v, values %v:\nbound %v\nbuilt %v", *st, tp.q.Where, vals, got, want)
						}
					}
				}
				t.Logf("bound %d, declined %d", bound, declined)
			})
		}
	}
}
