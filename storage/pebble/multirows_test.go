package pebble

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"unsafe"

	"github.com/sqlgw/sqlgw/storage"
)

// TestMultiQueryRowsSameAsQueryRows: MultiQueryRows' pages are those of a
// loop of QueryRows calls (marked alike), and the rows of MultiQuery's
// entities seen through each query's Select (storage.RowsOf), for random
// queries (one partition or a range of them, RowKey ranges, filters,
// different projections in one call, Top, reverse reads, continuations
// resumed together) with and without a snapshot, on a store whose short
// pages (MaxScanPerPage) make continuations common; the pages read first
// keep their rows after later calls reuse the scratch buffer, and a page's
// rows cannot grow into the next page's; the errors are MultiQuery's.
func TestMultiQueryRowsSameAsQueryRows(t *testing.T) {
	ctx := context.Background()
	s, err := Open("", &Options{InMemory: true, MaxScanPerPage: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const table = "mqr"
	if err := s.CreateTable(ctx, table); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 9))
	for p := range 12 {
		for k := range r.IntN(9) {
			props := storage.Properties{"v": storage.Int64(int64(r.IntN(5))), "w": storage.String(fmt.Sprintf("x%d", k))}
			if k%3 == 0 {
				props["m"] = storage.Bool(true)
			}
			if k%4 == 1 {
				props["b"] = storage.Binary([]byte{byte(p), byte(k)})
			}
			e := &storage.Entity{PartitionKey: fmt.Sprintf("p%02d", p), RowKey: fmt.Sprintf("r%02d", k), Properties: props}
			if _, err := s.Insert(ctx, table, e); err != nil {
				t.Fatal(err)
			}
		}
	}
	key := func(pre string, n int) string { return fmt.Sprintf("%s%02d", pre, r.IntN(n)) }
	bound := func(pre string, n int) *storage.Bound {
		if r.IntN(3) == 0 {
			return nil
		}
		return &storage.Bound{Key: key(pre, n), Exclusive: r.IntN(2) == 0}
	}
	selects := [][]string{{"v", "w"}, {"w", "absent", "m", "b"}, {}, {"v", "v"}}
	randQuery := func(sel []string) *storage.Query {
		q := &storage.Query{Top: r.IntN(4), Reverse: r.IntN(4) == 0, Select: sel}
		if r.IntN(4) == 0 {
			q.Partition = &storage.KeyRange{Low: bound("p", 14), High: bound("p", 14)}
		} else {
			q.Partition = storage.Exactly(key("p", 14))
		}
		if r.IntN(3) == 0 {
			q.Row = &storage.KeyRange{Low: bound("r", 10), High: bound("r", 10)}
		}
		if r.IntN(3) == 0 {
			q.Filter = storage.Ge("v", storage.Int64(int64(r.IntN(5))))
		}
		return q
	}
	type kept struct {
		got, want []storage.RowPage
	}
	var all []kept
	run := func(ctx context.Context, qs []*storage.Query, marks []string) []storage.RowPage {
		t.Helper()
		want := make([]storage.RowPage, len(qs))
		var werr error
		for i, q := range qs {
			p, err := s.QueryRows(ctx, table, q, marks)
			if err != nil {
				werr = err
				break
			}
			want[i] = *p
		}
		got := make([]storage.RowPage, len(qs))
		gerr := s.MultiQueryRows(ctx, table, qs, marks, got)
		ents, eerr := s.MultiQuery(ctx, table, qs)
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() || (eerr == nil) != (gerr == nil) {
			t.Fatalf("errors: MultiQueryRows %v, QueryRows %v, MultiQuery %v", gerr, werr, eerr)
		}
		if gerr != nil {
			return nil
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("queries %v marks %q:\nMultiQueryRows %+v\nQueryRows      %+v", qs, marks, got, want)
		}
		for i, p := range ents {
			if marks != nil {
				// RowsOf sees only the selected properties; QueryRows'
				// marks are checked against Query's by TestQueryRowsSameAsQuery.
				break
			}
			rp := storage.RowsOf(p, qs[i].Select, marks)
			if len(rp.Rows) == 0 {
				rp.Rows = nil
			}
			if !reflect.DeepEqual(got[i], *rp) {
				t.Fatalf("query %v marks %q:\nMultiQueryRows %+v\nMultiQuery     %+v", qs[i], marks, got[i], *rp)
			}
		}
		all = append(all, kept{got, want})
		return got
	}
	for i := range 300 {
		qctx := ctx
		if i%2 == 1 {
			sn, err := s.Snapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer sn.Release()
			qctx = storage.WithSnapshot(ctx, sn)
		}
		qs := make([]*storage.Query, r.IntN(12))
		sel := selects[r.IntN(len(selects))]
		for j := range qs {
			if r.IntN(5) == 0 {
				sel = selects[r.IntN(len(selects))]
			}
			qs[j] = randQuery(sel)
		}
		var marks []string
		if i%3 == 0 {
			marks = []string{"m"}
		}
		pages := run(qctx, qs, marks)
		// The continuations of the pages, resumed together.
		var next []*storage.Query
		for j, p := range pages {
			if p.Continuation != "" {
				c := *qs[j]
				c.Continuation = p.Continuation
				next = append(next, &c)
			}
		}
		run(qctx, next, marks)
	}
	for _, k := range all {
		if !reflect.DeepEqual(k.got, k.want) {
			t.Fatalf("a page changed after later calls:\n%+v\n%+v", k.got, k.want)
		}
	}
	// Apart: appending to a page's rows, or to a row's values, leaves the
	// next page's as they were.
	qs := []*storage.Query{{Partition: storage.Exactly("p01"), Select: []string{"v"}}, {Partition: storage.Exactly("p02"), Select: []string{"v"}}}
	pages := make([]storage.RowPage, 2)
	if err := s.MultiQueryRows(ctx, table, qs, nil, pages); err != nil {
		t.Fatal(err)
	}
	if len(pages[0].Rows) > 0 && len(pages[1].Rows) > 0 {
		before := pages[1].Rows[0]
		before.Values = append([]storage.Value(nil), before.Values...)
		r0 := &pages[0].Rows[len(pages[0].Rows)-1]
		_ = append(r0.Values, storage.Int64(-1))
		_ = append(pages[0].Rows, storage.Row{RowKey: "clobbered"})
		if !reflect.DeepEqual(pages[1].Rows[0], before) {
			t.Fatalf("page 1 changed: %+v, was %+v", pages[1].Rows[0], before)
		}
	} else {
		t.Fatalf("partitions p01 and p02 must have rows: %+v", pages)
	}
	// Errors: an invalid continuation or Top among valid queries, a
	// missing table, a cancelled context; a query without a projection
	// is not answered as rows.
	sel := []string{"v"}
	bad := []*storage.Query{{Partition: storage.Exactly("p01"), Select: sel}, {Partition: storage.Exactly("p02"), Continuation: "!", Select: sel}}
	run(ctx, bad, nil)
	run(ctx, []*storage.Query{{Partition: storage.Exactly("p01"), Select: sel}, {Top: -1, Select: sel}}, nil)
	if err := s.MultiQueryRows(ctx, "nosuch", bad[:1], nil, make([]storage.RowPage, 1)); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("missing table: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	run(cctx, bad[:1], nil)
	if err := s.MultiQueryRows(ctx, table, []*storage.Query{{Partition: storage.Exactly("p01")}}, nil, make([]storage.RowPage, 1)); !errors.Is(err, storage.ErrRowsUnsupported) {
		t.Errorf("no Select: %v", err)
	}
}

// TestMultiQueryRowsSeekOrder: MultiQueryRows reads an IN list's
// single-partition queries in seekOrder's order, as MultiQuery does: the
// call's slab holds the rows of the greatest partition first, and each
// page is still its query's (a loop of QueryRows calls), with one
// projection or several (a change of Select in read order starts another
// slab), duplicates, absent partitions and RowKey ranges among them.
func TestMultiQueryRowsSeekOrder(t *testing.T) {
	ctx := context.Background()
	s, err := OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.ReadByPartition(byIX)
	if err := s.CreateTable(ctx, "ixr"); err != nil {
		t.Fatal(err)
	}
	pks := []string{"a", "ab", "b", "\uff01", "\U0001F600", "", "zz", "\uffff", "m\U0001F600"}
	for i, pk := range pks[:len(pks)-2] { // the last two stay absent
		for rk := range 1 + i%3 {
			e := &storage.Entity{PartitionKey: pk, RowKey: fmt.Sprintf("r%d", rk), Properties: storage.Properties{"v": storage.Int64(int64(i)), "w": storage.String(pk)}}
			if _, err := s.Insert(ctx, "ixr", e); err != nil {
				t.Fatal(err)
			}
		}
	}
	selects := [][]string{{"v", "w"}, {"w"}}
	r := rand.New(rand.NewPCG(3, 4))
	for round := range 200 {
		mixed := round%2 == 1
		qs := make([]*storage.Query, 2+r.IntN(10))
		for i := range qs {
			q := &storage.Query{Partition: storage.Exactly(pks[r.IntN(len(pks))]), Select: selects[0]}
			if mixed && r.IntN(3) == 0 {
				q.Select = selects[1]
			}
			if r.IntN(5) == 0 {
				q.Row = &storage.KeyRange{Low: &storage.Bound{Key: "r1"}}
			}
			qs[i] = q
		}
		want := make([]storage.RowPage, len(qs))
		for i, q := range qs {
			p, err := s.QueryRows(ctx, "ixr", q, nil)
			if err != nil {
				t.Fatal(err)
			}
			want[i] = *p
		}
		got := make([]storage.RowPage, len(qs))
		if err := s.MultiQueryRows(ctx, "ixr", qs, nil, got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("queries %v:\nMultiQueryRows %+v\nQueryRows      %+v", qs, got, want)
		}
		if mixed {
			continue
		}
		// One slab: a greater partition's rows lie before a lesser one's.
		for a := range qs {
			for b := range qs {
				pa, _ := qs[a].Partition.Single()
				pb, _ := qs[b].Partition.Single()
				if len(got[a].Rows) == 0 || len(got[b].Rows) == 0 || compareEKeys(pa, pb) <= 0 {
					continue
				}
				if ra, rb := uintptr(unsafe.Pointer(&got[a].Rows[0])), uintptr(unsafe.Pointer(&got[b].Rows[0])); ra > rb {
					t.Fatalf("partition %q (query %d) was read after %q (query %d)", pa, a, pb, b)
				}
			}
		}
	}
}
