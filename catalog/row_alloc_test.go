package catalog

import (
	"strings"
	"testing"
)

// TestEncodeAllocs bounds the allocations of encoding a sysbench row (a
// bulk INSERT's every row, CREATE INDEX's every index entity): the
// properties are gathered without a heap slice, so a row that fits one
// entity costs the entity, its map (header and group) and the slice of
// entities; an index entity its entity, map, keys and key buffers (the
// value's property no slice of its own).
func TestEncodeAllocs(t *testing.T) {
	c, ctx := createDB(t)
	tbl, err := c.CreateTable(ctx, "db", &TableDef{Name: "sbtest",
		Columns: []Column{intCol("id"), intCol("k"),
			{Name: "c", Type: Type{Kind: KindChar, Length: 120}},
			{Name: "pad", Type: Type{Kind: KindChar, Length: 60}}},
		PrimaryKey: []KeyPart{{Column: "id"}},
		Indexes:    []Index{{Name: "k_1", Columns: []KeyPart{{Column: "k"}}, Global: true}}})
	if err != nil {
		t.Fatal(err)
	}
	row := []Datum{int64(42), int64(7), strings.Repeat("c", 119), strings.Repeat("p", 59)}
	pk, rk, err := tbl.EncodeKey(row)
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() {
		if _, err := tbl.EncodeEntities(pk, rk, row); err != nil {
			t.Fatal(err)
		}
	}); n > 4 {
		t.Errorf("EncodeEntities: %v allocations a row, want at most 4", n)
	}
	ix := tbl.Index("k_1")
	if n := testing.AllocsPerRun(100, func() {
		if _, err = tbl.IndexEntity(ix, pk, rk, row); err != nil {
			t.Fatal(err)
		}
	}); n > 7 {
		t.Errorf("IndexEntity: %v allocations an entity, want at most %d", n, 7)
	}
}
