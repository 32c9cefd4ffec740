package storagetest

import (
	"fmt"
	"testing"

	"github.com/sqlgw/sqlgw/storage"
)

// pagingN is the size of the paging table: more than two full pages.
const pagingN = 2500

func pagingData(pk string, n int) []*storage.Entity {
	ents := make([]*storage.Entity, n)
	for i := range ents {
		ents[i] = ent(pk, fmt.Sprintf("r%05d", i), storage.Properties{"n": storage.Int32(int32(i)), "m": storage.Int32(int32(i % 10))})
	}
	return ents
}

func (r *runner) testPaging(t *testing.T) {
	e := r.setup(t)
	data := pagingData("p", pagingN)
	e.batchInsert(data)
	want := keys(data)

	// The whole partition, and the whole table, page by page.
	for _, q := range []storage.Query{{Partition: storage.Exactly("p")}, {}} {
		pages := 0
		var got []*storage.Entity
		for cur := q; ; pages++ {
			page := e.queryPage(e.table, &cur)
			got = append(got, page.Entities...)
			if page.Continuation == "" {
				break
			}
			cur.Continuation = page.Continuation
		}
		expectKeys(t, "paged "+describe(&q), e.resultKeys(got), want)
		if pages < 2 {
			t.Fatalf("%d entities came in %d pages; pages hold at most %d", pagingN, pages+1, storage.MaxPageSize)
		}
		for i, x := range got {
			if x.Properties["n"].Int() != int64(i) {
				t.Fatalf("entity %d holds n=%v", i, x.Properties["n"])
			}
		}
	}

	// A token resumes later, from a fresh Query, after unrelated requests,
	// and resuming twice gives the same page.
	first := e.queryPage(e.table, &storage.Query{Partition: storage.Exactly("p"), Top: 300})
	var got []*storage.Entity
	got = append(got, first.Entities...)
	if first.Continuation == "" {
		t.Fatalf("first page of %d entities without a continuation", len(got))
	}
	token := string([]byte(first.Continuation))
	other := e.newTable("other")
	if _, err := e.s.Insert(e.ctx, other, ent("p", "x", nil)); err != nil {
		t.Fatal(err)
	}
	e.queryAll(other, storage.Query{})
	e.queryAll(e.table, storage.Query{Filter: storage.Eq("m", storage.Int32(3))})
	resumed := e.queryPage(e.table, &storage.Query{Partition: storage.Exactly("p"), Top: 300, Continuation: token})
	again := e.queryPage(e.table, &storage.Query{Partition: storage.Exactly("p"), Top: 300, Continuation: token})
	expectKeys(t, "the same token resumed twice", keys(again.Entities), keys(resumed.Entities))
	got = append(got, resumed.Entities...)
	got = append(got, e.queryAll(e.table, storage.Query{Partition: storage.Exactly("p"), Top: 300, Continuation: resumed.Continuation})...)
	if resumed.Continuation == "" {
		t.Fatal("second page of 300 without a continuation")
	}
	expectKeys(t, "pages resumed from a stored token", keys(got), want)

	// Entities written behind the cursor are not returned; ahead of it they are.
	mid := e.queryPage(e.table, &storage.Query{Partition: storage.Exactly("p"), Top: 1000})
	if mid.Continuation == "" {
		t.Fatal("no continuation after 1000 of 2500")
	}
	behind := ""
	if len(mid.Entities) > 0 {
		// Between the last entity returned and the next one.
		behind = mid.Entities[len(mid.Entities)-1].RowKey + "a"
		e.insert("p", behind, nil)
	}
	e.insert("p", "r99999", nil) // ahead
	rest := e.queryAll(e.table, storage.Query{Partition: storage.Exactly("p"), Top: 1000, Continuation: mid.Continuation})
	n := len(mid.Entities) + len(rest)
	if n != pagingN+1 || rest[len(rest)-1].RowKey != "r99999" {
		t.Fatalf("after writes around the cursor: %d entities (want %d), last %s", n, pagingN+1, keyOf(rest[len(rest)-1]))
	}
	if err := e.s.Delete(e.ctx, e.table, "p", "r99999", ""); err != nil {
		t.Fatal(err)
	}
	if behind != "" {
		if err := e.s.Delete(e.ctx, e.table, "p", behind, ""); err != nil {
			t.Fatal(err)
		}
	}

	// Filtered paging: every match, once, in order, whatever the page sizes.
	for _, top := range []int{0, 7, 1000} {
		x := storage.Eq("m", storage.Int32(0))
		got := e.queryAll(e.table, storage.Query{Partition: storage.Exactly("p"), Filter: x, Top: top})
		expectKeys(t, fmt.Sprintf("filtered paging, top %d", top), e.resultKeys(got), expected(data, x))
	}
	// A RowKey range across the page boundary.
	rng := &storage.KeyRange{Low: &storage.Bound{Key: "r00990", Exclusive: true}, High: &storage.Bound{Key: "r02010"}}
	got = e.queryAll(e.table, storage.Query{Partition: storage.Exactly("p"), Row: rng, Top: 500})
	expectKeys(t, "range over page boundaries", keys(got), want[991:2011])
}

func (r *runner) testPagingPartitions(t *testing.T) {
	e := r.setup(t)
	var want []string
	for _, pk := range []string{"a", "b", "c"} {
		data := pagingData(pk, 400)
		e.batchInsert(data)
		want = append(want, keys(data)...)
	}
	for _, q := range []storage.Query{
		{},
		{Top: 250},
		{Partition: &storage.KeyRange{Low: &storage.Bound{Key: "a"}, High: &storage.Bound{Key: "c"}}},
		{Filter: storage.Ne("m", storage.Int32(5))},
	} {
		got := e.queryAll(e.table, q)
		w := want
		if q.Filter != nil {
			w = nil
			for _, k := range want {
				var i int
				fmt.Sscanf(k[3:], "%d", &i)
				if i%10 != 5 {
					w = append(w, k)
				}
			}
		}
		expectKeys(t, "paging "+describe(&q), e.resultKeys(got), w)
	}
	got := e.queryAll(e.table, storage.Query{Partition: &storage.KeyRange{Low: &storage.Bound{Key: "a", Exclusive: true}}, Row: &storage.KeyRange{High: &storage.Bound{Key: "r00009"}}})
	expectKeys(t, "rows r00000..r00009 of partitions after a", e.resultKeys(got), append(append([]string{}, want[400:410]...), want[800:810]...))
}

// testPagingEmptyPartition pages through the partition "" (where sqlgw
// keeps the rows of tables without a primary key). Azurite's
// continuation for it has an empty NextPartitionKey, which the Azure SDK
// drops: a backend must still resume in that partition, not end the query
// after the first page.
func (r *runner) testPagingEmptyPartition(t *testing.T) {
	e := r.setup(t)
	data := pagingData("", 2100)
	e.batchInsert(data)
	after := pagingData("a", 10)
	e.batchInsert(after)
	want := keys(data)
	for _, q := range []storage.Query{
		{Partition: storage.Exactly("")},
		{Partition: storage.Exactly(""), Top: 700},
		{},
		{Select: []string{}},
	} {
		got := e.queryAll(e.table, q)
		w := want
		if q.Partition == nil {
			w = append(append([]string{}, want...), keys(after)...)
		}
		expectKeys(t, "partition \"\" "+describe(&q), e.resultKeys(got), w)
	}
	x := storage.Eq("m", storage.Int32(4))
	got := e.queryAll(e.table, storage.Query{Partition: storage.Exactly(""), Filter: x})
	expectKeys(t, "partition \"\" filtered", e.resultKeys(got), expected(data, x))
}

func (r *runner) testTop(t *testing.T) {
	e := r.setup(t)
	data := pagingData("p", 1200)
	e.batchInsert(data)
	want := keys(data)

	// The first n entities: follow continuations, asking for the remainder.
	for _, n := range []int{1, 10, 999, 1000, 1001} {
		var got []*storage.Entity
		q := storage.Query{Partition: storage.Exactly("p"), Top: n}
		for pages := 0; len(got) < n; pages++ {
			if pages == maxPages {
				t.Fatalf("top %d: no end after %d pages", n, pages)
			}
			q.Top = n - len(got)
			page := e.queryPage(e.table, &q)
			got = append(got, page.Entities...)
			if page.Continuation == "" {
				break
			}
			q.Continuation = page.Continuation
		}
		expectKeys(t, fmt.Sprintf("first %d entities", n), keys(got), want[:n])
	}
	// Top above the page size is capped at MaxPageSize per page.
	got := e.queryAll(e.table, storage.Query{Top: 5000})
	expectKeys(t, "top 5000", keys(got), want)
	// Top with a filter counts matches, not scanned entities.
	x := storage.Ge("n", storage.Int32(1100))
	page := e.queryPage(e.table, &storage.Query{Filter: x, Top: 1000})
	got = page.Entities
	if page.Continuation != "" {
		got = append(got, e.queryAll(e.table, storage.Query{Filter: x, Top: 1000, Continuation: page.Continuation})...)
	}
	expectKeys(t, "top with filter", keys(got), want[1100:])
	// Top with projection.
	got = e.queryAll(e.table, storage.Query{Top: 3, Select: []string{"m"}, Row: &storage.KeyRange{High: &storage.Bound{Key: "r00002"}}})
	expectKeys(t, "top 3 with select", keys(got), want[:3])
	for _, x := range got {
		if len(x.Properties) != 1 {
			t.Fatalf("select m returned %v", x.Properties)
		}
	}
}

func (r *runner) testBadQueries(t *testing.T) {
	e := r.setup(t)
	e.batchInsert(pagingData("p", 30))
	bad := []struct {
		name string
		q    storage.Query
	}{
		{"negative top", storage.Query{Top: -1}},
		{"empty and", storage.Query{Filter: storage.And{}}},
		{"empty or", storage.Query{Filter: storage.Or{}}},
		{"not without operand", storage.Query{Filter: &storage.Not{}}},
		{"invalid value", storage.Query{Filter: storage.Eq("n", storage.Value{})}},
		{"bad property name", storage.Query{Filter: storage.Eq("a-b", storage.Int32(1))}},
		{"ordering of booleans", storage.Query{Filter: storage.Gt("b", storage.Bool(true))}},
		{"PartitionKey with a number", storage.Query{Filter: storage.Eq(storage.PropPartitionKey, storage.Int32(1))}},
		{"unknown operator", storage.Query{Filter: &storage.Compare{Prop: "n", Op: 99, Value: storage.Int32(1)}}},
		{"garbage token", storage.Query{Continuation: "not a token!"}},
		{"garbage token 2", storage.Query{Continuation: "%%%%"}},
		{"garbage token 3", storage.Query{Continuation: "\x00\x01"}},
	}
	for _, tc := range bad {
		_, err := e.s.Query(e.ctx, e.table, &tc.q)
		expectErr(t, tc.name, err, storage.ErrInvalid)
	}
	// A nil filter and an empty range are fine.
	if got := e.queryAll(e.table, storage.Query{}); len(got) != 30 {
		t.Fatalf("query without filter: %d entities", len(got))
	}
	if got := e.queryAll(e.table, storage.Query{Partition: storage.Exactly("nosuch")}); len(got) != 0 {
		t.Fatalf("query of an empty partition: %d entities", len(got))
	}
}
