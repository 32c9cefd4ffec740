package storagetest

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/sqlgw/sqlgw/storage"
)

// testReverse checks Query.Reverse, the optional backwards read: on a
// backend with Capabilities().Reverse, every partition range x RowKey range
// (with a filter, and with pages of a few entities followed through their
// continuations) returns exactly the forward result, reversed; keys whose
// UTF-16 order differs from byte order come back in reverse UTF-16 order.
// A backend without the capability rejects a reverse query with ErrInvalid.
func (r *runner) testReverse(t *testing.T) {
	e := r.setup(t)
	if !e.s.Capabilities().Reverse {
		_, err := e.s.Query(e.ctx, e.table, &storage.Query{Reverse: true})
		if !errors.Is(err, storage.ErrInvalid) {
			t.Fatalf("reverse query on a backend without the capability: %v, want ErrInvalid", err)
		}
		return
	}
	if e.s.Capabilities().Unsorted {
		t.Fatal("a backend cannot both read backwards and return results unsorted")
	}
	parts := []string{"", "a", "b", "ba", "c", "d"}
	for _, p := range parts {
		var ents []*storage.Entity
		for i := range 12 {
			ents = append(ents, ent(p, fmt.Sprintf("r%02d", i), storage.Properties{"n": storage.Int32(int32(i))}))
		}
		ents = append(ents, ent(p, "r1", storage.Properties{"n": storage.Int32(100)}))
		e.batchInsert(ents)
	}
	b := func(k string, excl bool) *storage.Bound { return &storage.Bound{Key: k, Exclusive: excl} }
	rowRanges := []*storage.KeyRange{
		nil,
		{Low: b("r03", false), High: b("r08", false)},
		{Low: b("r03", true), High: b("r08", true)},
		{Low: b("r1", false)},
		{Low: b("r1", true)},
		{High: b("r1", false)},
		{High: b("r1", true)},
		{Low: b("r11", true)},
		{Low: b("r08", false), High: b("r03", false)}, // empty
		storage.Exactly("r07"),
	}
	partRanges := []*storage.KeyRange{
		nil,
		storage.Exactly(""),
		storage.Exactly("b"),
		storage.Exactly("bb"),
		{Low: b("b", false), High: b("c", false)},
		{Low: b("b", true), High: b("c", true)},
		{High: b("ba", true)},
		{Low: b("ba", false)},
	}
	filters := []storage.Expr{nil, storage.Ge("n", storage.Int32(5))}
	for _, pr := range partRanges {
		for _, rr := range rowRanges {
			for _, f := range filters {
				fwd := storage.Query{Partition: pr, Row: rr, Filter: f}
				want := keys(e.queryAll(e.table, fwd))
				slices.Reverse(want)
				for _, top := range []int{0, 1, 4} {
					q := fwd
					q.Reverse, q.Top = true, top
					got := keys(e.queryAll(e.table, q))
					expectKeys(t, "Query "+describe(&q), got, want)
				}
			}
		}
	}
	// The first page of a reverse query under Top is the highest keys.
	page := e.queryPage(e.table, &storage.Query{Partition: storage.Exactly("c"), Top: 2, Reverse: true})
	expectKeys(t, "first reverse page", keys(page.Entities), []string{"c/r11", "c/r10"})
	if page.Continuation == "" {
		t.Fatal("first reverse page of 2: no continuation")
	}

	// UTF-16 order, backwards.
	e2 := &env{t: t, s: e.s, ctx: e.ctx, r: r}
	e2.table = e2.newTable("utf16")
	var ents []*storage.Entity
	for _, k := range orderKeys {
		ents = append(ents, ent("p", k, nil))
	}
	e2.batchInsert(ents)
	want := slices.Clone(orderKeys)
	slices.SortFunc(want, storage.CompareKeys)
	slices.Reverse(want)
	for i := range want {
		want[i] = "p/" + want[i]
	}
	got := keys(e2.queryAll(e2.table, storage.Query{Partition: storage.Exactly("p"), Reverse: true, Top: 5}))
	expectKeys(t, "RowKeys in reverse UTF-16 order", got, want)
}
