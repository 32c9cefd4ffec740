package pebble

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/storage"
)

// TestQueryPageArena: the entities of a Query page, whose keys, ETags and
// string and binary values share the page's arena (pagearena.go), read
// back what was stored, in chunks and slabs of several entities, large
// values included; appending to or changing one entity's binary value
// leaves the others' intact, and a later page does not change an earlier
// one.
func TestQueryPageArena(t *testing.T) {
	ctx := context.Background()
	s, err := OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateTable(ctx, "arena"); err != nil {
		t.Fatal(err)
	}
	const n = 150 // several entity slabs and arena chunks
	want := map[string]storage.Properties{}
	etags := map[string]storage.ETag{}
	for i := range n {
		rk := fmt.Sprintf("r%04d", i)
		p := storage.Properties{
			"s": storage.String(strings.Repeat(string(rune('a'+i%26)), i%50)),
			"b": storage.Binary(bytes.Repeat([]byte{byte(i)}, 1+i%7)),
			"n": storage.Int64(int64(i)),
		}
		if i%40 == 0 {
			p["big"] = storage.String(strings.Repeat("x", 3000+i))
		}
		want[rk] = p
		etag, err := s.Insert(ctx, "arena", &storage.Entity{PartitionKey: fmt.Sprintf("p%d", i/60), RowKey: rk, Properties: p})
		if err != nil {
			t.Fatal(err)
		}
		etags[rk] = etag
	}
	q := &storage.Query{Top: 70}
	var all []*storage.Entity
	for {
		page, err := s.Query(ctx, "arena", q)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Entities {
			// Writing into and appending to a binary value must not
			// reach a neighbour's bytes.
			b := e.Properties["b"].Bytes()
			_ = append(b, 0xEE, 0xEE, 0xEE)
			if len(b) > 0 {
				b[0] ^= 0xFF
				b[0] ^= 0xFF
			}
		}
		all = append(all, page.Entities...)
		if page.Continuation == "" {
			break
		}
		q.Continuation = page.Continuation
	}
	if len(all) != n {
		t.Fatalf("%d entities, want %d", len(all), n)
	}
	for i, e := range all {
		rk := fmt.Sprintf("r%04d", i)
		if e.RowKey != rk || e.PartitionKey != fmt.Sprintf("p%d", i/60) || e.ETag != etags[rk] {
			t.Fatalf("entity %d: %q/%q etag %q, want p%d/%q etag %q", i, e.PartitionKey, e.RowKey, e.ETag, i/60, rk, etags[rk])
		}
		w := want[rk]
		if len(e.Properties) != len(w) {
			t.Fatalf("%s: %d properties, want %d", rk, len(e.Properties), len(w))
		}
		for name, v := range w {
			got := e.Properties[name]
			if got.Type() != v.Type() || got.Str() != v.Str() || !bytes.Equal(got.Bytes(), v.Bytes()) || got.Int() != v.Int() {
				t.Fatalf("%s.%s = %v, want %v", rk, name, got, v)
			}
		}
	}
}
