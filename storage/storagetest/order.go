package storagetest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sqlgw/sqlgw/storage"
)

// orderKeys are keys whose UTF-16 ordinal order differs from naive
// expectations: case, prefixes, Latin-1, CJK, the private-use area and
// characters above U+FFFF (which sort below U+E000..U+FFFF).
var orderKeys = []string{
	"", " ", "!", "0", "9", "A", "Z", "_", "a", "a b", "a!", "aa", "ab", "abc", "b", "~",
	"\u00a0", "\u00e9", "\u00ff", "\u0100", "\u4e2d", "\u4e2d\u6587", "\uD7FF",
	"\U00010000", "\U0001F600", "\U0001F600a", "\U00020000", "\U0010FFFD",
	"\uE000", "\uF8FF", "\uFF21", "\uFFFD",
	"a\U0001F600", "a\uE000", "a\uFFFD", "a\uD7FF",
}

func (r *runner) testOrder(t *testing.T) {
	e := r.setup(t)
	want := slices.Clone(orderKeys)
	slices.SortFunc(want, storage.CompareKeys)
	// The expected order itself, spelled out for the characters that matter.
	pos := func(k string) int { return slices.Index(want, k) }
	for _, pair := range [][2]string{
		{"\uD7FF", "\U00010000"}, {"\U0010FFFD", "\uE000"}, {"\U0001F600", "\uE000"}, {"\U0001F600a", "\uFF21"},
		{"a\uD7FF", "a\U0001F600"}, {"a\U0001F600", "a\uE000"}, {"a\U0001F600", "a\uFFFD"}, {"A", "a"}, {"a", "a b"}, {"ab", "abc"},
	} {
		if pos(pair[0]) >= pos(pair[1]) {
			t.Fatalf("CompareKeys puts %q after %q", pair[0], pair[1])
		}
	}

	shuffled := slices.Clone(orderKeys)
	rand.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	// As RowKeys in one partition (one batch), and as PartitionKeys.
	ops := make([]storage.Operation, len(shuffled))
	for i, k := range shuffled {
		ops[i] = storage.Operation{Kind: storage.OpInsert, Entity: ent("p", k, storage.Properties{"k": storage.String(k)})}
		if _, err := e.s.Insert(e.ctx, e.table, ent(k, "r", storage.Properties{"k": storage.String(k)})); err != nil {
			t.Fatalf("Insert(%q): %v", k, err)
		}
	}
	if _, err := e.s.Batch(e.ctx, e.table, ops); err != nil {
		t.Fatal(err)
	}
	var wantRows, wantParts []string
	for _, k := range want {
		wantRows = append(wantRows, "p/"+k)
	}
	for _, k := range want {
		if k == "p" {
			continue
		}
		wantParts = append(wantParts, k+"/r")
	}
	got := e.queryAll(e.table, storage.Query{Partition: storage.Exactly("p")})
	expectKeys(t, "RowKeys in UTF-16 order", keys(got), wantRows)
	for _, x := range got {
		if !x.Properties["k"].Equal(storage.String(x.RowKey)) {
			t.Fatalf("entity %q holds %v", x.RowKey, x.Properties["k"])
		}
	}
	all := e.queryAll(e.table, storage.Query{Filter: storage.Eq(storage.PropRowKey, storage.String("r"))})
	expectKeys(t, "PartitionKeys in UTF-16 order", keys(all), wantParts)
	// A table scan interleaves partition "p" (all its rows) at its place.
	all = e.queryAll(e.table, storage.Query{})
	var ents []*storage.Entity
	for _, k := range orderKeys {
		ents = append(ents, ent("p", k, nil), ent(k, "r", nil))
	}
	slices.SortFunc(ents, compareEntityKeys)
	wantAll := keys(ents)
	expectKeys(t, "table scan in (PartitionKey, RowKey) order", keys(all), wantAll)

	// Ranges bounded by the characters that matter.
	for _, rng := range []*storage.KeyRange{
		{Low: &storage.Bound{Key: "\uE000"}},
		{Low: &storage.Bound{Key: "\U00010000"}, High: &storage.Bound{Key: "\uE000", Exclusive: true}},
		{Low: &storage.Bound{Key: "\uD7FF", Exclusive: true}, High: &storage.Bound{Key: "\U0010FFFD"}},
		{High: &storage.Bound{Key: "a\U0001F600"}},
		{Low: &storage.Bound{Key: "a\U0001F600", Exclusive: true}, High: &storage.Bound{Key: "a\uFFFD", Exclusive: true}},
	} {
		var wr, wp []string
		for _, k := range want {
			if rng.Contains(k) {
				wr = append(wr, "p/"+k)
				if k != "p" {
					wp = append(wp, k+"/r")
				}
			}
		}
		got := e.queryAll(e.table, storage.Query{Partition: storage.Exactly("p"), Row: rng})
		expectKeys(t, "RowKey range "+rangeString(rng), keys(got), wr)
		got = e.queryAll(e.table, storage.Query{Partition: rng, Row: storage.Exactly("r")})
		expectKeys(t, "PartitionKey range "+rangeString(rng), keys(got), wp)
	}
}

func (r *runner) testRanges(t *testing.T) {
	e := r.setup(t)
	parts := []string{"a", "b", "ba", "c", "d"}
	rows := make([]string, 20)
	for i := range rows {
		rows[i] = fmt.Sprintf("r%02d", i)
	}
	var everything []string
	for _, p := range parts {
		var ents []*storage.Entity
		for _, rk := range rows {
			ents = append(ents, ent(p, rk, storage.Properties{"n": storage.Int32(1)}))
			everything = append(everything, p+"/"+rk)
		}
		e.batchInsert(ents)
	}
	b := func(k string, excl bool) *storage.Bound { return &storage.Bound{Key: k, Exclusive: excl} }
	rowRanges := []*storage.KeyRange{
		nil,
		{Low: b("r05", false), High: b("r10", false)},
		{Low: b("r05", true), High: b("r10", true)},
		{Low: b("r05", false), High: b("r10", true)},
		{Low: b("r05", true), High: b("r10", false)},
		{Low: b("r1", false)},
		{High: b("r1", false)},
		{Low: b("r1", true), High: b("r15x", false)},
		{Low: b("r19", true)},
		{Low: b("r10", false), High: b("r05", false)}, // empty
		{Low: b("r07", true), High: b("r07", false)},  // empty
		storage.Exactly("r07"),
		storage.Exactly("r7"),
	}
	partRanges := []*storage.KeyRange{
		nil,
		storage.Exactly("b"),
		storage.Exactly("bb"),
		{Low: b("b", false), High: b("c", false)},
		{Low: b("b", true), High: b("c", true)},
		{Low: b("b", false), High: b("c", true)},
		{Low: b("b", true)},
		{High: b("b", false)},
		{High: b("ba", true)},
		{Low: b("ba", false), High: b("b", false)}, // empty
		{Low: b("", false), High: b("bz", false)},
	}
	for _, pr := range partRanges {
		for _, rr := range rowRanges {
			var want []string
			for _, k := range everything {
				p, rk, _ := cut(k)
				if pr.Contains(p) && rr.Contains(rk) {
					want = append(want, k)
				}
			}
			q := storage.Query{Partition: pr, Row: rr}
			got := e.queryAll(e.table, q)
			expectKeys(t, "Query "+describe(&q), e.resultKeys(got), want)
		}
	}
}

func cut(k string) (pk, rk string, ok bool) {
	for i := 0; i < len(k); i++ {
		if k[i] == '/' {
			return k[:i], k[i+1:], true
		}
	}
	return k, "", false
}
