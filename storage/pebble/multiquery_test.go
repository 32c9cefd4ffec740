package pebble

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/sqlgw/sqlgw/storage"
)

// TestMultiQueryDifferential: MultiQuery's pages are those of a loop of
// Query calls (storage.QueryEach), for random queries (one partition or a
// range of them, RowKey ranges, filters, projections, Top, reverse reads,
// continuations), with and without a snapshot, on a store whose short
// pages (MaxScanPerPage) make continuations common; and its errors are the
// loop's.
func TestMultiQueryDifferential(t *testing.T) {
	ctx := context.Background()
	s, err := Open("", &Options{InMemory: true, MaxScanPerPage: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateTable(ctx, "mqt"); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for p := range 12 {
		for k := range r.IntN(9) {
			e := &storage.Entity{PartitionKey: fmt.Sprintf("p%02d", p), RowKey: fmt.Sprintf("r%02d", k),
				Properties: storage.Properties{"v": storage.Int64(int64(r.IntN(5))), "w": storage.String("x")}}
			if _, err := s.Insert(ctx, "mqt", e); err != nil {
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
	randQuery := func() *storage.Query {
		q := &storage.Query{Top: r.IntN(4), Reverse: r.IntN(4) == 0}
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
		if r.IntN(3) == 0 {
			q.Select = []string{"v"}
		}
		return q
	}
	run := func(ctx context.Context, qs []*storage.Query) {
		t.Helper()
		want, werr := storage.QueryEach(ctx, s, "mqt", qs)
		got, gerr := s.MultiQuery(ctx, "mqt", qs)
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Fatalf("errors: MultiQuery %v, Query %v", gerr, werr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("queries %v:\nMultiQuery %v\nQuery      %v", qs, got, want)
		}
	}
	for i := range 400 {
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
		for j := range qs {
			qs[j] = randQuery()
		}
		run(qctx, qs)
		// The continuations of the pages, resumed together.
		pages, err := s.MultiQuery(qctx, "mqt", qs)
		if err != nil {
			t.Fatal(err)
		}
		var next []*storage.Query
		for j, p := range pages {
			if p.Continuation != "" {
				c := *qs[j]
				c.Continuation = p.Continuation
				next = append(next, &c)
			}
		}
		run(qctx, next)
	}
	// Errors: an invalid continuation or Top among valid queries, a
	// missing table, a cancelled context.
	bad := []*storage.Query{{Partition: storage.Exactly("p01")}, {Partition: storage.Exactly("p02"), Continuation: "!"}}
	run(ctx, bad)
	run(ctx, []*storage.Query{{Partition: storage.Exactly("p01")}, {Top: -1}})
	if _, err := s.MultiQuery(ctx, "nosuch", bad[:1]); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("missing table: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	run(cctx, bad[:1])
}

// TestMultiQueryPagesApart: the pages of one MultiQuery share the call's
// slabs (their entity lists, the rows' values of MultiGetRows), and each
// is its own: appending to one page's entities, or to one row's values,
// leaves the others as they were.
func TestMultiQueryPagesApart(t *testing.T) {
	ctx := context.Background()
	s, err := Open("", &Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateTable(ctx, "apart"); err != nil {
		t.Fatal(err)
	}
	for p := range 4 {
		e := &storage.Entity{PartitionKey: fmt.Sprintf("p%d", p), RowKey: "r",
			Properties: storage.Properties{"v": storage.Int64(int64(p)), "w": storage.String(fmt.Sprint("w", p))}}
		if _, err := s.Insert(ctx, "apart", e); err != nil {
			t.Fatal(err)
		}
	}
	var qs []*storage.Query
	for p := range 4 {
		qs = append(qs, &storage.Query{Partition: storage.Exactly(fmt.Sprintf("p%d", p))})
	}
	pages, err := s.MultiQuery(ctx, "apart", qs)
	if err != nil {
		t.Fatal(err)
	}
	extra := &storage.Entity{PartitionKey: "x", RowKey: "x"}
	for i, pg := range pages {
		if len(pg.Entities) != 1 || pg.Entities[0].PartitionKey != fmt.Sprintf("p%d", i) {
			t.Fatalf("page %d: %+v", i, pg.Entities)
		}
		pg.Entities = append(pg.Entities, extra)
	}
	for i, pg := range pages {
		if len(pg.Entities) != 2 || pg.Entities[0].PartitionKey != fmt.Sprintf("p%d", i) || pg.Entities[1] != extra {
			t.Fatalf("page %d after appending to every page: %+v", i, pg.Entities)
		}
	}

	keys := make([]storage.EntityKey, 4)
	for p := range keys {
		keys[p] = storage.EntityKey{PK: fmt.Sprintf("p%d", p), RK: "r"}
	}
	rows := make([]storage.Row, len(keys))
	found := make([]bool, len(keys))
	if err := s.MultiGetRows(ctx, "apart", keys, []string{"v"}, []string{"w"}, rows, found); err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		if !found[i] || len(rows[i].Values) != 2 {
			t.Fatalf("row %d: found %v, %+v", i, found[i], rows[i])
		}
		rows[i].Values = append(rows[i].Values, storage.String("extra"))
	}
	for i, r := range rows {
		if r.Values[0].Int() != int64(i) || r.Values[1].Str() != fmt.Sprint("w", i) || r.Values[2].Str() != "extra" {
			t.Fatalf("row %d after appending to every row: %+v", i, r.Values)
		}
	}
}

// TestMultiQuerySeekOrder: a MultiQuery of single-partition queries (an IN
// list's index lookups) reads them from the greatest key down (seekOrder:
// Pebble's seeks stay in a loaded file and never step forward in vain),
// in the order of the encoded keys, which is UTF-16's and not UTF-8's
// (U+1F600 sorts below U+FF01), and still answers each query in its slot.
func TestMultiQuerySeekOrder(t *testing.T) {
	ctx := context.Background()
	s, err := OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.ReadByPartition(byIX)
	if err := s.CreateTable(ctx, "ixo"); err != nil {
		t.Fatal(err)
	}
	pks := []string{"a", "ab", "b", "\uff01", "\U0001F600", "", "zz", "\uffff", "m\U0001F600"}
	for i, pk := range pks[:len(pks)-2] { // the last two stay absent
		for rk := range i % 3 {
			e := &storage.Entity{PartitionKey: pk, RowKey: fmt.Sprintf("r%d", rk), Properties: storage.Properties{"v": storage.Int64(int64(i))}}
			if _, err := s.Insert(ctx, "ixo", e); err != nil {
				t.Fatal(err)
			}
		}
	}
	r := rand.New(rand.NewPCG(7, 8))
	for range 50 {
		qs := make([]*storage.Query, 1+r.IntN(12))
		for i := range qs {
			qs[i] = &storage.Query{Partition: storage.Exactly(pks[r.IntN(len(pks))])}
		}
		order, sorted := seekOrder(qs, nil)
		if sorted != (len(qs) > 1) {
			t.Fatalf("%d queries: sorted %v", len(qs), sorted)
		}
		for n := 1; n < len(order); n++ {
			a, _ := qs[order[n-1]].Partition.Single()
			b, _ := qs[order[n]].Partition.Single()
			if c := bytes.Compare(appendEKey(nil, a), appendEKey(nil, b)); c < 0 || c == 0 && order[n-1] > order[n] {
				t.Fatalf("order %v reads %q (query %d) before %q (query %d)", order, a, order[n-1], b, order[n])
			}
		}
		want, err := storage.QueryEach(ctx, s, "ixo", qs)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.MultiQuery(ctx, "ixo", qs)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("queries %v:\nMultiQuery %v\nQuery      %v", qs, got, want)
		}
	}
	// Not one partition each, or reverse, or resumed: the caller's order.
	for _, qs := range [][]*storage.Query{
		{{Partition: storage.Exactly("b")}, {Partition: storage.Exactly("a"), Reverse: true}},
		{{Partition: storage.Exactly("b")}, {Partition: &storage.KeyRange{Low: &storage.Bound{Key: "a"}}}},
		{{Partition: storage.Exactly("b")}, {Partition: storage.Exactly("a"), Continuation: "x"}},
	} {
		if order, sorted := seekOrder(qs, nil); sorted || !reflect.DeepEqual(order, []int{0, 1}) {
			t.Errorf("order %v, sorted %v", order, sorted)
		}
	}
}
