package planner

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// bindCase is one table and query shape of TestBindDifferential.
type bindCase struct {
	name    string
	table   string
	indexes []string
	salt    int
	stats   *Stats
	// where builds the conjuncts from values (the template's holes in
	// depth-first order); kinds are the compared columns' kinds, one per
	// hole.
	where  func(v []Datum) []Expr
	kinds  []Kind
	limit  int64
	order  []OrderColumn
	wantIx bool // an index template is expected
	none   bool // no template is expected (Prepare declines)
	// same: the template is made with one value in every hole (one
	// point), where more points make Build choose another path.
	same bool
	// point: a point template is expected (bindPoint).
	point bool
}

func cmpE(col int, op CmpOp) func(v Datum) Expr {
	return func(v Datum) Expr { return &Cmp{Col: col, Op: op, Value: v} }
}

// bindCases covers primary-key points, composite and salted keys,
// collated keys (exact and PAD SPACE), IN lists, ranges, unique and
// non-unique global indexes and a local index.
func bindCases() []bindCase {
	ints := func(n int) []Kind {
		k := make([]Kind, n)
		for i := range k {
			k[i] = KindInt
		}
		return k
	}
	in := func(col, n int) func(v []Datum) Expr {
		return func(v []Datum) Expr { return &In{Col: col, Values: append([]Datum(nil), v[:n]...)} }
	}
	return []bindCase{
		{name: "pk point", table: "table t (id int, k int, c string) primary key (id) layout",
			indexes: []string{"index k_1 (k)"},
			where:   func(v []Datum) []Expr { return []Expr{cmpE(0, Eq)(v[0])} }, kinds: ints(1), point: true},
		{name: "pk in", table: "table t (id int, k int, c string) primary key (id) layout",
			indexes: []string{"index k_1 (k)"},
			where:   func(v []Datum) []Expr { return []Expr{in(0, 5)(v)} }, kinds: ints(5)},
		{name: "pk range", table: "table t (id int, k int, c string) primary key (id) layout",
			indexes: []string{"index k_1 (k)"},
			where:   func(v []Datum) []Expr { return []Expr{cmpE(0, Ge)(v[0]), cmpE(0, Le)(v[1])} }, kinds: ints(2)},
		{name: "pk range limit", table: "table t (id int, k int, c string) primary key (id) layout",
			where: func(v []Datum) []Expr { return []Expr{cmpE(0, Gt)(v[0]), cmpE(0, Lt)(v[1])} }, kinds: ints(2),
			limit: 10, order: []OrderColumn{{Col: 0, Desc: true}}},
		{name: "uint pk", table: "table u (id uint, c string) primary key (id)",
			where: func(v []Datum) []Expr { return []Expr{cmpE(0, Eq)(v[0])} }, kinds: []Kind{KindUint}, point: true},
		{name: "composite", table: "table c (a string keyci, b int, v int) primary key (a, b desc) layout",
			where: func(v []Datum) []Expr { return []Expr{cmpE(0, Eq)(v[0]), cmpE(1, Eq)(v[1])} },
			kinds: []Kind{KindString, KindInt}, point: true},
		{name: "composite in range", table: "table c (a string keyci, b int, v int) primary key (a, b desc) layout",
			where: func(v []Datum) []Expr {
				return []Expr{&In{Col: 0, Values: []Datum{v[0], v[1], v[2]}}, cmpE(1, Gt)(v[3])}
			},
			kinds: []Kind{KindString, KindString, KindString, KindInt}},
		{name: "collated or", table: "table c (a string keyci, b int) primary key (a)",
			where: func(v []Datum) []Expr {
				return []Expr{Or{Or{cmpE(0, Eq)(v[0]), cmpE(0, Eq)(v[1])}, cmpE(0, Eq)(v[2])}}
			},
			kinds: []Kind{KindString, KindString, KindString}},
		{name: "pad key", table: "table p (a string keypad, b int) primary key (a)",
			where: func(v []Datum) []Expr { return []Expr{cmpE(0, Eq)(v[0])} }, kinds: []Kind{KindString}, point: true},
		{name: "pad key in", table: "table p (a string keypad, b int) primary key (a)",
			where: func(v []Datum) []Expr { return []Expr{in(0, 3)(v)} }, kinds: []Kind{KindString, KindString, KindString}},
		{name: "pad key range", table: "table p (a string keypad, b int) primary key (a)",
			where: func(v []Datum) []Expr { return []Expr{cmpE(0, Ge)(v[0]), cmpE(0, Lt)(v[1])} }, kinds: []Kind{KindString, KindString}},
		{name: "legacy pad key", table: "table p (a string keylegacy, b int) primary key (a)",
			where: func(v []Datum) []Expr { return []Expr{cmpE(0, Eq)(v[0])} }, kinds: []Kind{KindString}},
		{name: "legacy pad key in", table: "table p (a string keylegacy, b int) primary key (a)",
			where: func(v []Datum) []Expr { return []Expr{in(0, 3)(v)} }, kinds: []Kind{KindString, KindString, KindString}},
		{name: "salted", table: "table s (p int, r int, v int) primary key (p, r)", salt: 3,
			where: func(v []Datum) []Expr { return []Expr{in(0, 3)(v), cmpE(1, Eq)(v[3])} }, kinds: ints(4)},
		{name: "salted point", table: "table s (p int, r int, v int) primary key (p, r) layout", salt: 4,
			where: func(v []Datum) []Expr { return []Expr{cmpE(1, Eq)(v[0]), cmpE(0, Eq)(v[1])} }, kinds: ints(2), point: true},
		{name: "salted range", table: "table s (p int, r int, v int) primary key (p, r)", salt: 3,
			where: func(v []Datum) []Expr { return []Expr{cmpE(0, Ge)(v[0]), cmpE(0, Lt)(v[1])} }, kinds: ints(2)},
		{name: "global index in", table: "table t (id int, k int, c string) primary key (id) layout",
			indexes: []string{"index k_1 (k)"},
			where:   func(v []Datum) []Expr { return []Expr{in(1, 10)(v)} }, kinds: ints(10), wantIx: true},
		{name: "global index in, analysed", table: "table t (id int, k int, c string) primary key (id) layout",
			indexes: []string{"index k_1 (k)"},
			stats:   &Stats{Rows: 100000, RowsPerValue: map[string]float64{"k_1": 3}, EntityBytes: 300},
			where:   func(v []Datum) []Expr { return []Expr{in(1, 10)(v)} }, kinds: ints(10), wantIx: true},
		{name: "global index in, top values", table: "table t (id int, k int, c string) primary key (id) layout",
			indexes: []string{"index k_1 (k)"},
			stats: &Stats{Rows: 100000, RowsPerValue: map[string]float64{"k_1": 3},
				TopValues:    map[string]map[string]float64{"k_1": {"a5": 5000, "a7": 30000, "b10": 20}},
				RestPerValue: map[string]float64{"k_1": 2}},
			where: func(v []Datum) []Expr { return []Expr{in(1, 3)(v)} }, kinds: ints(3), wantIx: true},
		{name: "index or scan", table: "table t (id int, k int, c string) primary key (id) layout",
			indexes: []string{"index k_1 (k)"},
			stats:   &Stats{Rows: 10000, RowsPerValue: map[string]float64{"k_1": 150}},
			where:   func(v []Datum) []Expr { return []Expr{in(1, 8)(v)} }, kinds: ints(8), wantIx: true, same: true},
		{name: "scan or index", table: "table t (id int, k int, c string) primary key (id) layout",
			indexes: []string{"index k_1 (k)"},
			stats:   &Stats{Rows: 10000, RowsPerValue: map[string]float64{"k_1": 150}},
			where:   func(v []Datum) []Expr { return []Expr{in(1, 8)(v)} }, kinds: ints(8), none: true},
		{name: "small table index", table: "table t (id int, k int, c string) primary key (id) layout",
			indexes: []string{"index k_1 (k)"}, stats: &Stats{Rows: 50},
			where: func(v []Datum) []Expr { return []Expr{in(1, 3)(v)} }, kinds: ints(3), wantIx: true},
		{name: "unique index", table: "table t (id int, u string keyci, c string) primary key (id) layout",
			indexes: []string{"index u_1 (u) unique"},
			where:   func(v []Datum) []Expr { return []Expr{cmpE(1, Eq)(v[0])} }, kinds: []Kind{KindString}, wantIx: true},
		{name: "two column index", table: "table t (id int, a int, b int) primary key (id) layout",
			indexes: []string{"index ab (a, b)"},
			where:   func(v []Datum) []Expr { return []Expr{cmpE(1, Eq)(v[0]), in(2, 2)(v[1:])} },
			kinds:   ints(3), none: true},
		{name: "local index", table: "table l (p int, r int, k int) primary key (p, r) layout",
			indexes: []string{"index lk (k) local"},
			where:   func(v []Datum) []Expr { return []Expr{cmpE(0, Eq)(v[0]), cmpE(2, Eq)(v[1])} }, kinds: ints(2), none: true},
	}
}

// bindValue returns a random value for a column of kind k, edge cases
// included: duplicates (small ranges), NULL, values of another type,
// fractions and huge numbers against integers, negatives against
// unsigned, strings that differ only in case or trailing spaces, strings
// that cannot be keys.
func bindValue(r *rand.Rand, k Kind) Datum {
	switch r.IntN(20) {
	case 0:
		return nil
	case 1:
		return 3.5
	case 2:
		return 1e30
	case 3:
		return "7"
	case 4:
		return int64(-1)
	case 5:
		return uint64(math.MaxUint64)
	case 6:
		return decimal.RequireFromString("4.0")
	case 7:
		return float64(r.IntN(8))
	}
	switch k {
	case KindInt:
		return int64(r.IntN(12))
	case KindUint:
		return uint64(r.IntN(12))
	case KindString:
		words := []string{"a", "A", "b", "B ", "b", "ab", "Ab", "z!", "zz", "a b", strings.Repeat("x", 101), "é"}
		return words[r.IntN(len(words))]
	}
	return nil
}

// TestBindDifferential: for random and edge-case values, a template's Bind
// returns exactly the plan Build makes for the same query, or declines.
//
// Point templates (bindPoint) are counted too: a key template whose plan
// is a PointGet must take that path for most values.
func TestBindDifferential(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, bc := range bindCases() {
		t.Run(bc.name, func(t *testing.T) {
			ft, err := parseTable(bc.table)
			if err != nil {
				t.Fatal(err)
			}
			for _, ix := range bc.indexes {
				if err := parseIndex(ft, ix); err != nil {
					t.Fatal(err)
				}
			}
			var tb Table = ft
			if bc.salt > 0 {
				tb = &saltedFake{fakeTable: ft, n: bc.salt}
			}
			query := func(vals []Datum) *Query {
				return &Query{Where: bc.where(vals), Limit: bc.limit, OrderBy: bc.order, Stats: bc.stats, Reverse: true}
			}
			// The template is made from plain distinct values.
			first := make([]Datum, len(bc.kinds))
			for i, k := range bc.kinds {
				switch k {
				case KindInt:
					first[i] = int64(i + 1)
				case KindUint:
					first[i] = uint64(i + 1)
				case KindString:
					first[i] = fmt.Sprintf("v%d", i)
				}
				if bc.same {
					first[i] = first[0]
				}
			}
			q := query(first)
			p, err := Build(tb, q)
			if err != nil {
				t.Fatal(err)
			}
			tp := Prepare(tb, q)
			if bc.none {
				if tp != nil {
					t.Fatalf("a template for %v", p)
				}
				return
			}
			if tp == nil {
				t.Fatalf("no template for %v", p)
			}
			if (tp.point != nil) != bc.point {
				t.Errorf("point template %v, want %v (plan %v)", tp.point != nil, bc.point, p)
			}
			if tp.Index() != bc.wantIx {
				t.Fatalf("index template %v, want %v (plan %v)", tp.Index(), bc.wantIx, p)
			}
			bound := 0
			const n = 3000
			for range n {
				vals := make([]Datum, len(bc.kinds))
				for i, k := range bc.kinds {
					vals[i] = bindValue(r, k)
				}
				if r.IntN(4) == 0 { // often the template's own kinds, distinct
					for i := range vals {
						if v, ok := first[i].(int64); ok {
							vals[i] = v + int64(r.IntN(1000))*int64(len(vals))
						}
					}
				}
				if bc.same && r.IntN(2) == 0 {
					for i := range vals {
						vals[i] = vals[0]
					}
				}
				// Other statistics now and then (a key template's plan
				// follows them; an index template declines).
				stats := bc.stats
				if r.IntN(4) == 0 {
					stats = &Stats{Rows: float64(50 + r.IntN(100000)), EntityBytes: float64(r.IntN(3000))}
				}
				wq := query(vals)
				wq.Stats = stats
				want, err := Build(tb, wq)
				if err != nil {
					t.Fatal(err)
				}
				got, where, ok := tp.Bind(vals, stats)
				if !ok {
					continue
				}
				bound++
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("values %v:\nbound %v\nbuilt %v", vals, got, want)
				}
				if !reflect.DeepEqual(where, query(vals).Where) {
					t.Fatalf("values %v: where %v", vals, where)
				}
			}
			if !bc.wantIx && bound != n {
				t.Errorf("key template bound %d of %d", bound, n)
			}
			if bound < n/10 {
				t.Errorf("bound only %d of %d", bound, n)
			}
			t.Logf("bound %d of %d", bound, n)
		})
	}
}

// TestBindDeclines: a template declines what it cannot prove: other
// statistics for an index template, and queries Prepare does not take.
func TestBindDeclines(t *testing.T) {
	ft, err := parseTable("table t (id int, k int, c string) primary key (id) layout")
	if err != nil {
		t.Fatal(err)
	}
	if err := parseIndex(ft, "index k_1 (k)"); err != nil {
		t.Fatal(err)
	}
	ins := func(vals ...int64) []Expr {
		var ds []Datum
		for _, v := range vals {
			ds = append(ds, v)
		}
		return []Expr{&In{Col: 1, Values: ds}}
	}
	q := &Query{Where: ins(1, 2, 3)}
	tp := Prepare(ft, q)
	if tp == nil || !tp.Index() {
		t.Fatal("no index template")
	}
	if _, _, ok := tp.Bind([]Datum{int64(4), int64(5), int64(6)}, &Stats{Rows: 5e6}); ok {
		t.Error("bound with other statistics")
	}
	// A duplicate value: another number of points, bound by comparing
	// the index plan's score with the scan's.
	dup := []Datum{int64(4), int64(4), int64(6)}
	got, _, ok := tp.Bind(dup, nil)
	want, _ := Build(ft, &Query{Where: []Expr{&In{Col: 1, Values: dup}}})
	if !ok || !reflect.DeepEqual(got, want) {
		t.Errorf("duplicate value: bound %v (%v), built %v", got, ok, want)
	}
	if _, _, ok := tp.Bind([]Datum{int64(4), int64(5), int64(6)}, nil); !ok {
		t.Error("did not bind distinct values")
	}
	// NOT IN, a range on the indexed column, a LIMIT with ORDER BY on an
	// indexed table: not prepared.
	for _, q := range []*Query{
		{Where: []Expr{&In{Col: 1, Values: []Datum{int64(1)}, Not: true}}},
		{Where: []Expr{&Cmp{Col: 1, Op: Gt, Value: int64(1)}}},
		{Where: []Expr{&Cmp{Col: 0, Op: Gt, Value: int64(1)}}, Limit: 3, OrderBy: []OrderColumn{{Col: 1}}},
		{Where: []Expr{&Opaque{Text: "f(c)", Cols: []int{2}}}},
	} {
		if Prepare(ft, q) != nil {
			t.Errorf("prepared %v", q.Where)
		}
	}
}

// TestBindIndexKeys: index templates on one-column global indexes bind
// by encoding the index keys (bindIndexKeys); the differential test
// compares their plans with Build's.
func TestBindIndexKeys(t *testing.T) {
	for _, bc := range bindCases() {
		if !bc.wantIx || bc.same {
			continue
		}
		ft, err := parseTable(bc.table)
		if err != nil {
			t.Fatal(err)
		}
		for _, ix := range bc.indexes {
			if err := parseIndex(ft, ix); err != nil {
				t.Fatal(err)
			}
		}
		vals := make([]Datum, len(bc.kinds))
		for i, k := range bc.kinds {
			vals[i] = int64(i + 1)
			if k == KindString {
				vals[i] = fmt.Sprintf("v%d", i)
			}
		}
		tp := Prepare(ft, &Query{Where: bc.where(vals), Stats: bc.stats})
		if tp == nil || tp.indexPlan == nil {
			t.Errorf("%s: no index key template", bc.name)
		}
	}
}

// TestBindIndexVariants: values with duplicates among them (another
// number of distinct points) or other most-frequent-value rows bind from
// a variant kept for their (points, pointRows) after the first such
// values planned the index (bind.go, Variants), and the plan is Build's.
func TestBindIndexVariants(t *testing.T) {
	ft, err := parseTable("table t (id int, k int, c string) primary key (id) layout")
	if err != nil {
		t.Fatal(err)
	}
	if err := parseIndex(ft, "index k_1 (k)"); err != nil {
		t.Fatal(err)
	}
	it := IndexedTable(ft)
	top := map[string]float64{}
	for _, v := range []int64{3, 5, 8} {
		k, err := it.EncodeIndexKey(0, 0, []Datum{v})
		if err != nil {
			t.Fatal(err)
		}
		top[k] = float64(10 * v)
	}
	for _, st := range []*Stats{
		nil,
		{Rows: 100000, RowsPerValue: map[string]float64{"k_1": 3}, EntityBytes: 300},
		{Rows: 100000, RowsPerValue: map[string]float64{"k_1": 3},
			TopValues: map[string]map[string]float64{"k_1": top}, RestPerValue: map[string]float64{"k_1": 2}},
	} {
		in := func(vals []Datum) *Query {
			return &Query{Where: []Expr{&In{Col: 1, Values: append([]Datum(nil), vals...)}}, Stats: st}
		}
		first := make([]Datum, 10)
		for i := range first {
			first[i] = int64(100 + i)
		}
		tp := Prepare(ft, in(first))
		if tp == nil || tp.indexPlan == nil {
			t.Fatal("no index key template")
		}
		r := rand.New(rand.NewPCG(7, 8))
		fromVariant := 0
		for range 2000 {
			vals := make([]Datum, 10)
			for i := range vals {
				vals[i] = int64(r.IntN(12))
			}
			b, _ := tp.start(in(vals))
			vk, keyed := tp.variantKeyOf(b, it)
			had := keyed && tp.variant(vk) != nil
			got, _, ok := tp.Bind(vals, st)
			want, err := Build(ft, in(vals))
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				if had {
					t.Fatalf("values %v: declined with a variant, built %v", vals, want)
				}
				continue // Build chose the scan: the caller plans with Build
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("values %v (variant %v):\nbound %v\nbuilt %v", vals, had, got, want)
			}
			if had {
				fromVariant++
			}
		}
		if fromVariant < 1000 {
			t.Errorf("stats %v: %d of 2000 bound from a variant", st, fromVariant)
		}
		t.Logf("stats %v: %d of 2000 bound from a variant", st, fromVariant)
	}
}

// TestColumnTrue: the contradiction check's columnTrue is columnSets'
// true set, for IN lists (and NOT IN, and other columns' lists) of random
// and edge-case values over every kind.
func TestColumnTrue(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, k := range []Kind{KindInt, KindUint, KindString, KindFloat, KindDecimal, KindBytes} {
		for range 2000 {
			vals := make([]Datum, r.IntN(8))
			for i := range vals {
				vals[i] = bindValue(r, []Kind{KindInt, KindUint, KindString}[r.IntN(3)])
			}
			in := &In{Col: r.IntN(2), Values: vals, Not: r.IntN(4) == 0}
			for _, x := range []Expr{in, &Cmp{Col: 0, Op: Eq, Value: bindValue(r, KindInt)}} {
				if got, want := columnTrue(0, k, x), columnSets(0, k, x).t; !reflect.DeepEqual(got, want) {
					t.Fatalf("kind %v, %v: columnTrue %v, columnSets %v", k, x, got, want)
				}
			}
		}
	}
}

// TestBindIn: a template whose query is one IN list on a one-column
// global index binds through bindIn (IN-list templates in bind.go) for
// most values, and what it binds is what Bind's general path (noBindIn)
// and Build make: plain, analysed and most-frequent-value statistics,
// a unique index (gets), a table with a collated column (the collated
// view), duplicates, NULLs, values of other kinds, out-of-range values.
func TestBindIn(t *testing.T) {
	top := map[string]float64{}
	tops := &Stats{Rows: 100000, RowsPerValue: map[string]float64{"k_1": 3},
		TopValues: map[string]map[string]float64{"k_1": top}, RestPerValue: map[string]float64{"k_1": 2}}
	cases := []struct {
		name, table, index string
		stats              *Stats
	}{
		{"plain", "table t (id int, k int, c string) primary key (id) layout", "index k_1 (k)", nil},
		{"analysed", "table t (id int, k int, c string) primary key (id) layout", "index k_1 (k)",
			&Stats{Rows: 100000, RowsPerValue: map[string]float64{"k_1": 3}, EntityBytes: 300}},
		{"top values", "table t (id int, k int, c string) primary key (id) layout", "index k_1 (k)", tops},
		{"unique", "table t (id int, k int, c string) primary key (id) layout", "index k_1 (k) unique", nil},
		{"collated table", "table t (id int, k int, c string keyci) primary key (id) layout", "index k_1 (k)", nil},
		{"uint", "table t (id int, k uint, c string) primary key (id) layout", "index k_1 (k)", nil},
	}
	r := rand.New(rand.NewPCG(21, 22))
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ft, err := parseTable(tc.table)
			if err != nil {
				t.Fatal(err)
			}
			if err := parseIndex(ft, tc.index); err != nil {
				t.Fatal(err)
			}
			kind := ft.Columns()[1].Kind
			if tc.stats == tops {
				clear(top)
				for _, v := range []int64{3, 5, 8} {
					k, err := IndexedTable(ft).EncodeIndexKey(0, 0, []Datum{v})
					if err != nil {
						t.Fatal(err)
					}
					top[k] = float64(10 * v)
				}
			}
			in := func(vals []Datum) *Query {
				return &Query{Where: []Expr{&In{Col: 1, Values: append([]Datum(nil), vals...)}}, Stats: tc.stats}
			}
			first := make([]Datum, 10)
			for i := range first {
				first[i] = int64(100 + i)
			}
			tp := Prepare(ft, in(first))
			if tp == nil || tp.inCol != 1 {
				t.Fatalf("no IN-list template: %+v", tp)
			}
			viaIn := 0
			const n = 3000
			// First values no row can match (the Empty plan), all alike,
			// then random ones.
			fixed := [][]Datum{
				{3.5, 3.5, 3.5, 3.5, 3.5, 3.5, 3.5, 3.5, 3.5, 3.5},
				{3.5, 1e30, 2.25, 3.5, 1e30, 0.5, 3.5, 3.5, 7.5, 3.5},
				{int64(5), int64(5), int64(5), int64(5), int64(5), int64(5), int64(5), int64(5), int64(5), int64(5)},
			}
			for iter := range n {
				vals := make([]Datum, 10)
				for i := range vals {
					if r.IntN(3) == 0 {
						vals[i] = bindValue(r, kind)
					} else {
						vals[i] = int64(r.IntN(14))
					}
				}
				if iter < len(fixed) {
					vals = fixed[iter]
				}
				q := in(vals)
				// Bind calls bindIn once no value is NULL (an index
				// template declines a NULL).
				done := false
				if !slices.Contains(vals, nil) {
					_, done = tp.bindIn(q)
				}
				noBindIn = true
				gen, genWhere, genOK := tp.Bind(vals, tc.stats)
				noBindIn = false
				got, where, ok := tp.Bind(vals, tc.stats)
				if ok != genOK || !reflect.DeepEqual(got, gen) || !reflect.DeepEqual(where, genWhere) {
					t.Fatalf("values %v (bindIn %v): bound %v %v\ngeneral %v %v", vals, done, ok, got, genOK, gen)
				}
				if done && !ok {
					t.Fatalf("values %v: bindIn bound, Bind declined", vals)
				}
				if !ok {
					continue
				}
				if done {
					viaIn++
				}
				want, err := Build(ft, q)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("values %v:\nbound %v\nbuilt %v", vals, got, want)
				}
			}
			if viaIn < n/2 {
				t.Errorf("%d of %d bound by bindIn", viaIn, n)
			}
			t.Logf("%d of %d bound by bindIn", viaIn, n)
		})
	}
}

// TestBindPointAllocs: a point template binds in one allocation of its
// own (pointBind: the query, its conjuncts, the key's values, the plan and
// its Get) beside the key's encoding, the fake table's here; the
// equality's point is taken without the value sets (cmpTrue, intersect,
// points), and gives Build's plan.
func TestBindPointAllocs(t *testing.T) {
	ft, err := parseTable("table t (id int, k int, c string) primary key (id) layout")
	if err != nil {
		t.Fatal(err)
	}
	q := &Query{Where: []Expr{&Cmp{Col: 0, Op: Eq, Value: int64(1)}}}
	tp := Prepare(ft, q)
	if tp == nil || tp.point == nil {
		t.Fatal("no point template")
	}
	vals := []Datum{int64(42)}
	p, _, ok := tp.Bind(vals, nil)
	if !ok || p.Path != PointGet {
		t.Fatalf("bind: %v %v", p, ok)
	}
	want, err := Build(ft, &Query{Where: []Expr{&Cmp{Col: 0, Op: Eq, Value: int64(42)}}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.Gets, want.Gets) || p.Cost != want.Cost {
		t.Fatalf("bound %v, built %v", p, want)
	}
	encode := testing.AllocsPerRun(100, func() {
		if _, err := ft.EncodeKey(PartitionKey, vals); err != nil {
			t.Fatal(err)
		}
		if _, err := ft.EncodeKey(RowKey, nil); err != nil {
			t.Fatal(err)
		}
	})
	allocs := testing.AllocsPerRun(100, func() {
		if _, _, ok := tp.Bind(vals, nil); !ok {
			t.Fatal("declined")
		}
	})
	if allocs > 1+encode {
		t.Errorf("Bind: %v allocations, want 1 beside the key's %v", allocs, encode)
	}
}
