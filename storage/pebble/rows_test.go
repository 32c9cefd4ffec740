package pebble

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/storage"
)

// TestQueryRowsSameAsQuery: QueryRows answers every query (selections
// with absent, repeated and no names, filters, Top, RowKey ranges, one
// and all partitions, backwards, page after page by continuation, at a
// snapshot taken before later writes) with exactly the rows of Query's
// entities seen through Select, over every property type, marked when the
// entity carries a property of the marks; pages read
// earlier keep their values after later queries reuse the scratch
// buffer.
func TestQueryRowsSameAsQuery(t *testing.T) {
	ctx := context.Background()
	s, err := OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const table = "rows"
	if err := s.CreateTable(ctx, table); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 13))
	put := func(i int) {
		p := storage.Properties{}
		if i%3 != 0 {
			p["s"] = storage.String(strings.Repeat(string(rune('a'+i%26)), i%40))
		}
		if i%4 != 1 {
			p["b"] = storage.Binary(bytes.Repeat([]byte{byte(i)}, i%5))
		}
		p["n"] = storage.Int64(int64(rng.IntN(100)))
		p["i"] = storage.Int32(int32(i))
		if i%2 == 0 {
			p["f"] = storage.Double(float64(i) / 3)
			p["t"] = storage.Bool(i%4 == 0)
		}
		if i%5 == 0 {
			p["d"] = storage.DateTimeTicks(int64(700_000_000_000_000_000) + int64(i)*1e7)
			p["g"] = storage.GUID([16]byte{byte(i), 1, 2, 3})
			p["big"] = storage.String(strings.Repeat("x", 1500+i))
		}
		if _, err := s.Upsert(ctx, table, &storage.Entity{PartitionKey: fmt.Sprintf("p%d", i%4), RowKey: fmt.Sprintf("r%04d", i), Properties: p}, storage.Replace); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 400 {
		put(i)
	}
	selects := [][]string{
		{"s"}, {"n", "s", "b"}, {"i", "f", "t", "d", "g", "big"}, {"absent", "s", "absent"}, {"s", "s", "n"}, {},
	}
	filters := []storage.Expr{nil, storage.Gt("n", storage.Int64(40)), storage.Eq("t", storage.Bool(true)), storage.Lt(storage.PropRowKey, storage.String("r0200"))}
	ranges := []*storage.KeyRange{nil, {Low: &storage.Bound{Key: "r0100"}, High: &storage.Bound{Key: "r0300", Exclusive: true}}, storage.Exactly("r0017")}
	// Marks: properties some entities carry (selected or not), none.
	markSets := [][]string{nil, {"big"}, {"absent", "t", "g"}}
	parts := []*storage.KeyRange{nil, storage.Exactly("p1"), {Low: &storage.Bound{Key: "p1", Exclusive: true}}}

	type kept struct {
		q    string
		got  *storage.RowPage
		want *storage.RowPage
	}
	var all []kept
	check := func(ctx context.Context, q storage.Query, marks []string) {
		t.Helper()
		desc := fmt.Sprintf("%+v sel %q marks %q", q, q.Select, marks)
		for pages := 0; ; pages++ {
			page, err := s.Query(ctx, table, &q)
			if err != nil {
				t.Fatalf("%s: %v", desc, err)
			}
			want := storage.RowsOf(page, q.Select, nil)
			// Marks are of the whole entity, selected or not.
			whole := q
			whole.Select = nil
			wpage, err := s.Query(ctx, table, &whole)
			if err != nil || len(wpage.Entities) != len(want.Rows) {
				t.Fatalf("%s: the whole entities: %v", desc, err)
			}
			for i, e := range wpage.Entities {
				for _, m := range marks {
					if _, ok := e.Properties[m]; ok {
						want.Rows[i].Marked = true
					}
				}
			}
			got, err := s.QueryRows(ctx, table, &q, marks)
			if err != nil {
				t.Fatalf("%s: QueryRows: %v", desc, err)
			}
			if !sameRows(got, want) {
				t.Fatalf("%s page %d: QueryRows differs from Query:\n got %d rows %+v\nwant %d rows %+v", desc, pages, len(got.Rows), got, len(want.Rows), want)
			}
			all = append(all, kept{desc, got, want})
			if page.Continuation == "" {
				return
			}
			q.Continuation = page.Continuation
		}
	}
	queries := 0
	for _, sel := range selects {
		for _, f := range filters {
			for _, r := range ranges {
				for _, p := range parts {
					for _, top := range []int{0, 1, 37} {
						for _, rev := range []bool{false, true} {
							check(ctx, storage.Query{Select: sel, Filter: f, Row: r, Partition: p, Top: top, Reverse: rev}, markSets[queries%len(markSets)])
							queries++
						}
					}
				}
			}
		}
	}
	// At a snapshot: later writes are not seen by either.
	sn, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sn.Release()
	for i := 0; i < 400; i += 7 {
		put(i)
		if err := s.Delete(ctx, table, fmt.Sprintf("p%d", (i+1)%4), fmt.Sprintf("r%04d", i+1), storage.ETagAny); err != nil && !errors.Is(err, storage.ErrNotFound) {
			t.Fatal(err)
		}
	}
	sctx := storage.WithSnapshot(ctx, sn)
	for _, sel := range selects {
		check(sctx, storage.Query{Select: sel, Filter: filters[1], Top: 50}, markSets[1])
		check(ctx, storage.Query{Select: sel, Filter: filters[1], Top: 50}, markSets[2])
	}
	// Earlier pages kept their values (the scratch buffer is reused).
	for _, k := range all {
		if !sameRows(k.got, k.want) {
			t.Fatalf("%s: a page changed after later queries", k.q)
		}
	}
	if _, err := s.QueryRows(ctx, table, &storage.Query{}, nil); !errors.Is(err, storage.ErrRowsUnsupported) {
		t.Fatalf("QueryRows without Select: %v, want ErrRowsUnsupported", err)
	}
	t.Logf("%d queries, %d pages", queries, len(all))
}

// sameRows compares two row pages, values included (a nil and an empty
// binary value differ).
func sameRows(a, b *storage.RowPage) bool {
	if a.Continuation != b.Continuation || len(a.Rows) != len(b.Rows) {
		return false
	}
	for i := range a.Rows {
		x, y := a.Rows[i], b.Rows[i]
		if x.PartitionKey != y.PartitionKey || x.RowKey != y.RowKey || x.ETag != y.ETag || x.Marked != y.Marked || !x.Timestamp.Equal(y.Timestamp) || x.Timestamp.Location() != y.Timestamp.Location() || len(x.Values) != len(y.Values) {
			return false
		}
		for j := range x.Values {
			if !reflect.DeepEqual(x.Values[j], y.Values[j]) {
				return false
			}
		}
	}
	return true
}
