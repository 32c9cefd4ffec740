package catalog

import (
	"errors"
	"testing"
)

func TestRenameIndex(t *testing.T) {
	c, ctx := createDB(t)
	def := &TableDef{Name: "t", Columns: []Column{intCol("id"), intCol("a"), intCol("b")}, PrimaryKey: []KeyPart{{Column: "id"}}}
	if _, err := c.CreateTable(ctx, "db", def); err != nil {
		t.Fatal(err)
	}
	before, err := c.AddIndex(ctx, "db", "t", Index{Name: "ia", Columns: []KeyPart{{Column: "a"}}, Global: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddIndex(ctx, "db", "t", Index{Name: "ib", Columns: []KeyPart{{Column: "b"}}}); err != nil {
		t.Fatal(err)
	}
	old := *before.Index("ia")
	tbl, err := c.RenameIndex(ctx, "db", "t", "IA", "by_a")
	if err != nil {
		t.Fatal(err)
	}
	ix := tbl.Index("by_a")
	if ix == nil || tbl.Index("ia") != nil {
		t.Fatalf("after the rename: %+v", tbl.Indexes)
	}
	if ix.ID != old.ID || ix.Physical != old.Physical || !ix.Global {
		t.Fatalf("rename changed the index's identity: %+v, was %+v", ix, old)
	}
	if _, err := c.RenameIndex(ctx, "db", "t", "by_a", "IB"); !errors.Is(err, ErrIndexExists) {
		t.Fatalf("rename onto another index: %v", err)
	}
	if _, err := c.RenameIndex(ctx, "db", "t", "nope", "x"); !errors.Is(err, ErrNoIndex) {
		t.Fatalf("rename of a missing index: %v", err)
	}
	if _, err := c.RenameIndex(ctx, "db", "t", "by_a", "primary"); !errors.Is(err, ErrInvalidDef) {
		t.Fatalf("rename to PRIMARY: %v", err)
	}
	if tbl, err = c.RenameIndex(ctx, "db", "t", "by_a", "BY_A"); err != nil || tbl.Indexes[0].Name != "BY_A" {
		t.Fatalf("case-only rename: %v", err)
	}
	// Another catalog on the store sees it.
	other := open(t, c.Store(), Options{})
	got, err := other.Table(ctx, "db", "t")
	if err != nil || got.Index("BY_A") == nil {
		t.Fatalf("seen from another catalog: %v %+v", err, got)
	}
}
