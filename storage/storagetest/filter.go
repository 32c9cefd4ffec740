package storagetest

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/storage"
)

var (
	guid0 = [16]byte{}
	guid1 = [16]byte{0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00}
	guid2 = [16]byte{0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x01}
	guid9 = [16]byte{9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9}
)

func date(y int, m time.Month, d, h, ns int) storage.Value {
	return storage.DateTime(time.Date(y, m, d, h, 0, 0, ns, time.UTC))
}

// filterData returns n entities of partition "p" with one property of each
// type, each absent from some entities.
func filterData(n int) []*storage.Entity {
	strs := []string{"", "a", "B", "b", "ab", "a'b", "\u00e9", "\u4e2d", "\uE000", "\U0001F600", "zz", "a b"}
	i32s := []int32{-5, 0, 3, 7, math.MaxInt32, math.MinInt32}
	i64s := []int64{-1 << 40, 0, 5, 1 << 50, -1}
	dbls := []float64{-1.5, 0, 2.5, 3, 1e10, -1e-3}
	dates := []storage.Value{date(2000, 1, 1, 0, 0), date(2020, 6, 15, 12, 0), date(1601, 1, 1, 0, 0), date(9999, 12, 31, 0, 0), date(2020, 6, 15, 12, 100)}
	bins := [][]byte{{}, {0}, {1, 2}, {0xff}, {1}}
	guids := [][16]byte{guid0, guid1, guid2}
	out := make([]*storage.Entity, n)
	for i := range n {
		p := storage.Properties{}
		if i%7 != 0 {
			p["s"] = storage.String(strs[i%len(strs)])
		}
		if i%5 != 1 {
			p["i32"] = storage.Int32(i32s[i%len(i32s)])
		}
		if i%6 != 2 {
			p["i64"] = storage.Int64(i64s[i%len(i64s)])
		}
		if i%4 != 3 {
			p["d"] = storage.Double(dbls[i%len(dbls)])
		}
		if i%3 != 2 {
			p["b"] = storage.Bool(i%3 == 0)
		}
		if i%8 != 4 {
			p["t"] = dates[i%len(dates)]
		}
		if i%9 != 5 {
			p["bin"] = storage.Binary(bins[i%len(bins)])
		}
		if i%10 != 6 {
			p["g"] = storage.GUID(guids[i%len(guids)])
		}
		out[i] = ent("p", fmt.Sprintf("r%02d", i), p)
	}
	return out
}

// expected returns the keys of the entities x keeps, by the reference
// evaluator.
func expected(ents []*storage.Entity, x storage.Expr) []string {
	var out []string
	for _, e := range ents {
		if storage.Eval(x, e) {
			out = append(out, e.PartitionKey+"/"+e.RowKey)
		}
	}
	return out
}

func (r *runner) testFilterOperators(t *testing.T) {
	e := r.setup(t)
	data := filterData(40)
	e.batchInsert(data)

	ordered := []storage.Op{storage.OpEq, storage.OpNe, storage.OpGt, storage.OpGe, storage.OpLt, storage.OpLe}
	equality := []storage.Op{storage.OpEq, storage.OpNe}
	literals := []struct {
		prop string
		ops  []storage.Op
		vals []storage.Value
	}{
		{"s", ordered, []storage.Value{storage.String(""), storage.String("a"), storage.String("ab"), storage.String("b"),
			storage.String("a'b"), storage.String("\uE000"), storage.String("\U0001F600"), storage.String("m"), storage.String("\uFFFD")}},
		{"i32", ordered, []storage.Value{storage.Int32(-5), storage.Int32(0), storage.Int32(4), storage.Int32(math.MaxInt32), storage.Int32(math.MinInt32)}},
		{"i64", ordered, []storage.Value{storage.Int64(0), storage.Int64(5), storage.Int64(-2), storage.Int64(1 << 50)}},
		{"d", ordered, []storage.Value{storage.Double(0), storage.Double(2.5), storage.Double(3), storage.Double(-2), storage.Double(1e10)}},
		{"t", ordered, []storage.Value{date(2020, 6, 15, 12, 0), date(2000, 1, 1, 0, 0), date(1601, 1, 1, 0, 0), date(2020, 6, 15, 12, 100)}},
		{"b", equality, []storage.Value{storage.Bool(true), storage.Bool(false)}},
		{"bin", equality, []storage.Value{storage.Binary([]byte{1, 2}), storage.Binary([]byte{0}), storage.Binary([]byte{9})}},
		{"g", equality, []storage.Value{storage.GUID(guid1), storage.GUID(guid9)}},
	}
	nonEmpty, empty := 0, 0
	for _, l := range literals {
		for _, op := range l.ops {
			for _, v := range l.vals {
				cmp := &storage.Compare{Prop: l.prop, Op: op, Value: v}
				for _, x := range []storage.Expr{cmp, &storage.Not{X: cmp}} {
					want := expected(data, x)
					if len(want) == 0 {
						empty++
					} else {
						nonEmpty++
					}
					q := storage.Query{Partition: storage.Exactly("p"), Filter: x}
					got := e.queryAll(e.table, q)
					expectKeys(t, "filter "+storage.FormatOData(x), e.resultKeys(got), want)
				}
			}
		}
	}
	if nonEmpty < 100 || empty < 10 {
		t.Fatalf("test bug: %d filters select something, %d nothing", nonEmpty, empty)
	}
	// Results of a filtered query carry every property.
	got := e.queryAll(e.table, storage.Query{Filter: storage.Eq("i32", storage.Int32(7))})
	for _, x := range got {
		checkProps(t, "filtered entity "+x.RowKey, x.Properties, data[rowIndex(x.RowKey)].Properties)
	}
}

func rowIndex(rk string) int {
	var i int
	fmt.Sscanf(rk, "r%d", &i)
	return i
}

func (r *runner) testFilterSemantics(t *testing.T) {
	e := r.setup(t)
	data := []*storage.Entity{
		ent("p", "r1", storage.Properties{"x": storage.Int32(1), "s": storage.String("a")}),
		ent("p", "r2", storage.Properties{"x": storage.Int32(2)}),
		ent("p", "r3", storage.Properties{"s": storage.String("b")}),
		ent("p", "r4", storage.Properties{}),
		ent("q", "r1", storage.Properties{"x": storage.Int32(1), "s": storage.String("c")}),
	}
	for _, x := range data {
		e.insert(x.PartitionKey, x.RowKey, x.Properties)
	}
	x1 := storage.Eq("x", storage.Int32(1))
	sb := storage.Eq("s", storage.String("b"))
	var or15 storage.Or
	for i := range storage.MaxFilterComparisons {
		or15 = append(or15, storage.Eq("x", storage.Int32(int32(i+1))))
	}
	cases := []struct {
		x    storage.Expr
		want []string
	}{
		{x1, []string{"r1"}},
		{storage.Ne("x", storage.Int32(1)), []string{"r2"}},
		{&storage.Not{X: x1}, []string{"r2", "r3", "r4"}},
		{&storage.Not{X: storage.Ne("x", storage.Int32(1))}, []string{"r1", "r3", "r4"}},
		{storage.Gt("x", storage.Int32(0)), []string{"r1", "r2"}},
		{&storage.Not{X: storage.Gt("x", storage.Int32(0))}, []string{"r3", "r4"}},
		{storage.Le("x", storage.Int32(1)), []string{"r1"}},
		{storage.And{x1, storage.Eq("s", storage.String("a"))}, []string{"r1"}},
		{storage.And{x1}, []string{"r1"}},
		{storage.Or{storage.Eq("x", storage.Int32(2)), sb}, []string{"r2", "r3"}},
		{storage.Or{storage.Ne("x", storage.Int32(1)), storage.Ne("s", storage.String("a"))}, []string{"r2", "r3"}},
		{&storage.Not{X: storage.Or{x1, sb}}, []string{"r2", "r4"}},
		{storage.And{&storage.Not{X: x1}, &storage.Not{X: sb}}, []string{"r2", "r4"}},
		{&storage.Not{X: &storage.Not{X: x1}}, []string{"r1"}},
		{storage.Or{storage.And{storage.Ge("x", storage.Int32(1)), storage.Lt("x", storage.Int32(2))}, storage.And{&storage.Not{X: x1}, sb}}, []string{"r1", "r3"}},
		{storage.Eq("missing", storage.String("v")), nil},
		{storage.Ne("missing", storage.String("v")), nil},
		{&storage.Not{X: storage.Eq("missing", storage.String("v"))}, []string{"r1", "r2", "r3", "r4"}},
		{storage.And{x1, &storage.Not{X: x1}}, nil},
		{storage.Or{x1, &storage.Not{X: x1}}, []string{"r1", "r2", "r3", "r4"}},
		{or15, []string{"r1", "r2"}},
	}
	for _, tc := range cases {
		var want []string
		for _, rk := range tc.want {
			want = append(want, "p/"+rk)
		}
		// The reference evaluator agrees with the spelled-out answer.
		expectKeys(t, "storage.Eval of "+storage.FormatOData(tc.x), expected(data[:4], tc.x), want)
		got := e.queryAll(e.table, storage.Query{Partition: storage.Exactly("p"), Filter: tc.x})
		expectKeys(t, "filter "+storage.FormatOData(tc.x), e.resultKeys(got), want)
	}
	// Without a partition restriction the filter applies to every partition.
	got := e.queryAll(e.table, storage.Query{Filter: x1})
	expectKeys(t, "table scan filter", e.resultKeys(got), []string{"p/r1", "q/r1"})
}

func (r *runner) testFilterPseudo(t *testing.T) {
	e := r.setup(t)
	start := time.Now()
	for _, pk := range []string{"p0", "p1", "p2"} {
		var ents []*storage.Entity
		for i := range 5 {
			ents = append(ents, ent(pk, fmt.Sprintf("r%d", i), storage.Properties{"n": storage.Int32(int32(i))}))
		}
		e.batchInsert(ents)
	}
	all := e.queryAll(e.table, storage.Query{})
	if len(all) != 15 {
		t.Fatalf("%d entities, want 15", len(all))
	}
	cases := []storage.Expr{
		storage.Eq(storage.PropPartitionKey, storage.String("p1")),
		storage.And{storage.Ge(storage.PropPartitionKey, storage.String("p1")), storage.Lt(storage.PropRowKey, storage.String("r2"))},
		storage.Ne(storage.PropRowKey, storage.String("r0")),
		storage.Gt(storage.PropPartitionKey, storage.String("p")),
		storage.Le(storage.PropPartitionKey, storage.String("p")),
		&storage.Not{X: storage.Eq(storage.PropRowKey, storage.String("r3"))},
		storage.Or{storage.Eq(storage.PropRowKey, storage.String("r4")), storage.Eq("n", storage.Int32(0))},
	}
	for _, x := range cases {
		got := e.queryAll(e.table, storage.Query{Filter: x})
		expectKeys(t, "filter "+storage.FormatOData(x), e.resultKeys(got), expected(all, x))
	}
	got := e.queryAll(e.table, storage.Query{Filter: storage.Ge(storage.PropTimestamp, storage.DateTime(start.Add(-10*time.Minute)))})
	if len(got) != 15 {
		t.Fatalf("Timestamp ge (start - 10 min): %d entities, want 15", len(got))
	}
	old := storage.Lt(storage.PropTimestamp, date(2000, 1, 1, 0, 0))
	if got := e.queryAll(e.table, storage.Query{Filter: old}); len(got) != 0 {
		t.Fatalf("Timestamp lt 2000: %d entities, want 0", len(got))
	}
	if got := e.queryAll(e.table, storage.Query{Filter: &storage.Not{X: old}}); len(got) != 15 {
		t.Fatalf("not (Timestamp lt 2000): %d entities, want 15", len(got))
	}
	// The filter sees each entity's own Timestamp.
	x := all[7]
	ts := storage.DateTime(x.Timestamp)
	got = e.queryAll(e.table, storage.Query{Filter: storage.And{storage.Ge(storage.PropTimestamp, ts), storage.Le(storage.PropTimestamp, ts)}})
	found := false
	for _, y := range got {
		if !y.Timestamp.Equal(x.Timestamp) {
			t.Fatalf("Timestamp eq %v returned an entity with Timestamp %v", x.Timestamp, y.Timestamp)
		}
		found = found || (y.PartitionKey == x.PartitionKey && y.RowKey == x.RowKey)
	}
	if !found {
		t.Fatalf("Timestamp eq its own Timestamp did not return %s", keyOf(x))
	}
}
