package planner

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func TestConvert(t *testing.T) {
	day := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	noon := day.Add(12 * time.Hour)
	for _, c := range []struct {
		k    Kind
		in   Datum
		want Datum
		res  convResult
	}{
		{KindInt, int64(5), int64(5), convExact},
		{KindInt, int32(5), int64(5), convExact},
		{KindInt, true, int64(1), convExact},
		{KindInt, uint64(5), int64(5), convExact},
		{KindInt, uint64(1 << 63), nil, convNone},
		{KindInt, decimal.RequireFromString("5.0"), int64(5), convExact},
		{KindInt, decimal.RequireFromString("5.5"), int64(5), convBelow},
		{KindInt, decimal.RequireFromString("-5.5"), int64(-6), convBelow},
		{KindInt, 5.5, int64(5), convBelow},
		{KindInt, 9007199254740992.0, nil, convNone},
		{KindInt, "5", int64(5), convExact},
		{KindInt, "-5.5", int64(-6), convBelow},
		{KindInt, "5e1", int64(50), convExact},
		{KindInt, " 5", nil, convNone},
		{KindInt, "5abc", nil, convNone},
		{KindInt, "0x10", nil, convNone},
		{KindInt, ".", nil, convNone},
		{KindInt, "1e", nil, convNone},
		{KindInt, "1e400", nil, convNone},
		{KindInt, "9007199254740993", nil, convNone},
		{KindUint, "7", uint64(7), convExact},
		{KindFloat, "2.5", 2.5, convExact},
		{KindDecimal, "2.5", nil, convNone},
		{KindString, int64(5), nil, convNone},
		{KindUint, int64(-1), nil, convNone},
		{KindUint, decimal.RequireFromString("-0.5"), nil, convNone},
		{KindFloat, int64(3), 3.0, convExact},
		{KindFloat, int64(1<<53 + 1), nil, convNone},
		{KindFloat, decimal.RequireFromString("2.5"), 2.5, convExact},
		{KindFloat, decimal.RequireFromString("0.1"), nil, convNone},
		{KindDecimal, int64(3), decimal.NewFromInt(3), convExact},
		{KindDecimal, 3.0, nil, convNone},
		{KindString, "a", "a", convExact},
		{KindString, []byte("a"), nil, convNone},
		{KindDate, day, day, convExact},
		{KindDate, noon, day, convBelow},
		{KindTime, noon, noon, convExact},
		{KindTime, noon.Add(1500), noon.Add(1000), convBelow},
		{KindEnum, int64(2), uint64(2), convExact},
		{KindEnum, "red", nil, convNone},
		{KindDuration, int64(10), nil, convNone},
		{KindJSON, "{}", "{}", convExact},
		{KindOther, int64(1), nil, convNone},
	} {
		got, res := convert(c.k, c.in)
		if res != c.res {
			t.Errorf("convert(%v, %#v): result %d, want %d", c.k, c.in, res, c.res)
			continue
		}
		if res == convNone {
			continue
		}
		if compareDatums(c.k, got, c.want) != 0 {
			t.Errorf("convert(%v, %#v) = %#v, want %#v", c.k, c.in, got, c.want)
		}
	}
}

func TestSpanSets(t *testing.T) {
	k := KindInt
	pts := fromPoints(k, []Datum{int64(3), int64(1), int64(3)})
	if got, ok := pts.points(k); !ok || len(got) != 2 || got[0] != int64(1) || got[1] != int64(3) {
		t.Fatalf("fromPoints: %v %v", got, ok)
	}
	comp := complementNonNull(k, pts)
	// (-inf,1) (1,3) (3,+inf)
	if len(comp.spans) != 3 || comp.null {
		t.Fatalf("complement: %+v", comp)
	}
	// Integers are discrete: NOT IN (1, 2) leaves no value between them.
	comp2 := complementNonNull(k, fromPoints(k, []Datum{int64(1), int64(2)}))
	if len(comp2.spans) != 2 {
		t.Fatalf("complement of {1,2}: %+v", comp2)
	}
	if !intersect(k, pts, comp).isEmpty() {
		t.Fatal("a set meets its complement")
	}
	if u := union(k, pts, comp); !u.allNonNull() {
		t.Fatalf("set and complement do not cover everything: %+v", u)
	}
	lt5 := cmpSet(k, Lt, int64(5), convExact)
	ge5 := cmpSet(k, Ge, int64(5), convExact)
	if !union(k, lt5, ge5).allNonNull() || !intersect(k, lt5, ge5).isEmpty() {
		t.Fatal("x < 5 and x >= 5 must partition the values")
	}
	// Extremes must not overflow in the discreteness check.
	wide := valSet{spans: []span{{lo: bound{val: int64(-1 << 63)}, hi: bound{val: int64(1<<63 - 1)}}}}
	if intersect(k, wide, wide).isEmpty() {
		t.Fatal("(min, max) is not empty")
	}
	if universe().isEmpty() || !emptySet().isEmpty() || !nullOnly().null {
		t.Fatal("constructors")
	}
}

func TestSummary(t *testing.T) {
	tb, err := parseTable("table t (a int, b int) primary key (a)")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Build(tb, &Query{Where: []Expr{&In{Col: 0, Values: []Datum{int64(1), int64(2), int64(3), int64(4), int64(5)}}}, Columns: []int{1}})
	if err != nil {
		t.Fatal(err)
	}
	want := "MultiGet t: get pk='a1' rk=''; get pk='a2' rk=''; get pk='a3' rk=''; … (+2 more) select=[b]"
	if got := p.Summary(); got != want {
		t.Fatalf("Summary:\n got %s\nwant %s", got, want)
	}
	p, err = Build(tb, &Query{Where: []Expr{&Cmp{Col: 1, Op: Gt, Value: int64(5)}}, Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	want = "TableScan t: query filter=(b gt 5L) top=3"
	if got := p.Summary(); got != want {
		t.Fatalf("Summary:\n got %s\nwant %s", got, want)
	}
}
