package catalog

import (
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/storage"
)

// TestContinuationGenerations: a wide row rewritten under a new
// continuation generation reads back whole while the old generation's
// entities (and a crashed rewrite's) are still in its range; the main
// entity alone decides which ones count.
func TestContinuationGenerations(t *testing.T) {
	c, ctx := createDB(t)
	def := &TableDef{Name: "g", Columns: []Column{intCol("id"), {Name: "body", Type: Type{Kind: KindLongText}, Nullable: true}},
		PrimaryKey: []KeyPart{{Column: "id"}}}
	tbl, err := c.CreateTable(ctx, "db", def)
	if err != nil {
		t.Fatal(err)
	}
	st := c.Store()
	put := func(ents []*storage.Entity) {
		t.Helper()
		for _, e := range ents {
			if _, err := st.Upsert(ctx, tbl.Physical, e, storage.Replace); err != nil {
				t.Fatal(err)
			}
		}
	}
	read := func() []Datum {
		t.Helper()
		pk, rk, _ := tbl.EncodePrimaryKey([]Datum{int64(1)})
		main, err := st.Get(ctx, tbl.Physical, pk, rk, nil)
		if err != nil {
			t.Fatal(err)
		}
		page, err := st.Query(ctx, tbl.Physical, &storage.Query{Partition: storage.Exactly(pk), Row: tbl.ContinuationRange(rk)})
		if err != nil {
			t.Fatal(err)
		}
		row, err := tbl.DecodeRow(append([]*storage.Entity{main}, page.Entities...)...)
		if err != nil {
			t.Fatal(err)
		}
		return row
	}
	v0 := strings.Repeat("a", 3<<20)
	pk, rk, ents0, err := tbl.EncodeRow([]Datum{int64(1), v0})
	if err != nil {
		t.Fatal(err)
	}
	put(ents0)
	var keys0 []string
	for _, e := range ents0[1:] {
		keys0 = append(keys0, e.RowKey)
	}
	if g := tbl.NextGeneration(keys0); g != 1 {
		t.Fatalf("next generation after generation 0: %d", g)
	}
	// Generation 1, larger: written next to generation 0, then the main
	// entity switches.
	v1 := strings.Repeat("b", 4<<20)
	ents1, err := tbl.EncodeEntitiesGen(pk, rk, []Datum{int64(1), v1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents1) < 3 || tbl.ContinuationGen(ents1[0]) != 1 || tbl.Extras(ents1[0]) != len(ents1)-1 {
		t.Fatalf("generation 1: %d entities, main names generation %d with %d", len(ents1), tbl.ContinuationGen(ents1[0]), tbl.Extras(ents1[0]))
	}
	for _, e := range ents1[1:] {
		if !tbl.IsContinuation(e) || !strings.HasPrefix(e.RowKey, rk) || e.RowKey >= tbl.RowKeyEnd() {
			t.Fatalf("continuation key %q", e.RowKey)
		}
		if err := storage.DefaultLimits.ValidateEntity(e); err != nil {
			t.Fatal(err)
		}
	}
	put(ents1[1:])
	if got := read(); got[1] != v0 {
		t.Fatalf("before the main entity switches: %d bytes", len(got[1].(string)))
	}
	put(ents1[:1])
	if got := read(); got[1] != v1 {
		t.Fatalf("after the switch: %d bytes", len(got[1].(string)))
	}
	// A crashed rewrite to generation 2 left part of its entities: no
	// effect on readers; the next generation skips it.
	ents2, err := tbl.EncodeEntitiesGen(pk, rk, []Datum{int64(1), "c"}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents2) != 1 {
		t.Fatalf("a small row has %d entities", len(ents2))
	}
	ents3, err := tbl.EncodeEntitiesGen(pk, rk, []Datum{int64(1), v0}, 2)
	if err != nil {
		t.Fatal(err)
	}
	put(ents3[1:2])
	if got := read(); got[1] != v1 {
		t.Fatal("a stray continuation changed the row")
	}
	page, err := st.Query(ctx, tbl.Physical, &storage.Query{Partition: storage.Exactly(pk), Row: tbl.ContinuationRange(rk)})
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, e := range page.Entities {
		all = append(all, e.RowKey)
	}
	if g := tbl.NextGeneration(all); g != 3 {
		t.Fatalf("next generation: %d, want 3", g)
	}
	// A missing continuation of the named generation is an error.
	if err := st.Delete(ctx, tbl.Physical, pk, ents1[1].RowKey, storage.ETagAny); err != nil {
		t.Fatal(err)
	}
	main, _ := st.Get(ctx, tbl.Physical, pk, rk, nil)
	if _, err := tbl.DecodeRow(append([]*storage.Entity{main}, page.Entities...)...); err == nil {
		// page still holds the deleted entity: read again.
		page, _ = st.Query(ctx, tbl.Physical, &storage.Query{Partition: storage.Exactly(pk), Row: tbl.ContinuationRange(rk)})
		if _, err := tbl.DecodeRow(append([]*storage.Entity{main}, page.Entities...)...); err == nil {
			t.Fatal("decoded a row missing a continuation")
		}
	}
}
