package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
)

func TestForeignKeys(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	c := open(t, st, Options{RefreshInterval: -1})
	if err := c.CreateDatabase(ctx, "db"); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"parent", "child", "other"} {
		def := simpleDef(n)
		def.Columns = append(def.Columns, Column{Name: "pid", Type: Type{Kind: KindInt64}, Nullable: true})
		if _, err := c.CreateTable(ctx, "db", def); err != nil {
			t.Fatal(err)
		}
	}
	fk := ForeignKey{Name: "fk_p", Columns: []string{"PID"}, ParentDatabase: "db", ParentTable: "parent",
		ParentColumns: []string{"id"}, OnDelete: FKCascade}
	tb, err := c.AddForeignKey(ctx, "db", "child", fk)
	if err != nil {
		t.Fatal(err)
	}
	if got := tb.ForeignKey("FK_P"); got == nil || got.Columns[0] != "pid" || got.OnDelete != FKCascade {
		t.Fatalf("stored %+v", got)
	}
	// Names are unique per database, on any table.
	if _, err := c.AddForeignKey(ctx, "db", "other", fk); !errors.Is(err, ErrForeignKeyExists) {
		t.Fatalf("duplicate name: %v", err)
	}
	bad := fk
	bad.Name, bad.Columns = "fk_x", []string{"nope"}
	if _, err := c.AddForeignKey(ctx, "db", "other", bad); !errors.Is(err, ErrNoColumn) {
		t.Fatalf("unknown column: %v", err)
	}
	bad = fk
	bad.Name, bad.OnUpdate = "fk_y", "EXPLODE"
	if _, err := c.AddForeignKey(ctx, "db", "other", bad); !errors.Is(err, ErrInvalidDef) {
		t.Fatalf("bad action: %v", err)
	}
	fk2 := fk
	fk2.Name, fk2.OnDelete = "fk_o", ""
	if _, err := c.AddForeignKey(ctx, "db", "other", fk2); err != nil {
		t.Fatal(err)
	}

	refs, err := c.ReferencingForeignKeys(ctx, "DB", "Parent")
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 2 || refs[0].Child.Name != "child" || refs[1].FK.Name != "fk_o" {
		t.Fatalf("referencing: %+v", refs)
	}

	// A second catalog on the same store sees the definitions (persisted).
	c2 := open(t, st, Options{RefreshInterval: -1})
	tb2, err := c2.Table(ctx, "db", "child")
	if err != nil {
		t.Fatal(err)
	}
	if len(tb2.ForeignKeys) != 1 || tb2.ForeignKeys[0].ParentTable != "parent" {
		t.Fatalf("reloaded: %+v", tb2.ForeignKeys)
	}

	// Update renames the parent (as a RENAME TABLE of the parent does);
	// the old snapshot is untouched.
	up := tb2.ForeignKeys[0]
	up.ParentTable = "parent2"
	up.Columns = []string{"pid_new"} // renamed before the column: not checked
	tb3, err := c2.UpdateForeignKey(ctx, "db", "child", "fk_p", up)
	if err != nil {
		t.Fatal(err)
	}
	if tb3.ForeignKeys[0].ParentTable != "parent2" || tb2.ForeignKeys[0].ParentTable != "parent" {
		t.Fatalf("update: new %+v old %+v", tb3.ForeignKeys[0], tb2.ForeignKeys[0])
	}
	up.Name = "fk_o"
	if _, err := c2.UpdateForeignKey(ctx, "db", "child", "fk_p", up); !errors.Is(err, ErrForeignKeyExists) {
		t.Fatalf("rename onto a used name: %v", err)
	}
	if _, err := c.DropForeignKey(ctx, "db", "child", "nope"); !errors.Is(err, ErrNoForeignKey) {
		t.Fatalf("drop unknown: %v", err)
	}
	tb4, err := c.DropForeignKey(ctx, "db", "child", "FK_P")
	if err != nil {
		t.Fatal(err)
	}
	if len(tb4.ForeignKeys) != 0 {
		t.Fatalf("after drop: %+v", tb4.ForeignKeys)
	}
	refs, _ = c.ReferencingForeignKeys(ctx, "db", "parent")
	if len(refs) != 1 || refs[0].FK.Name != "fk_o" {
		t.Fatalf("referencing after drop: %+v", refs)
	}
}

// TestForeignKeysOldRecord: a table record written before foreign keys
// existed decodes with none, and one without them encodes without the
// field (the persisted format of such tables does not change).
func TestForeignKeysOldRecord(t *testing.T) {
	var tb Table
	if err := json.Unmarshal([]byte(`{"id":1,"db":"d","name":"t","cols":[{"name":"a","type":{"k":3}}],"phys":"x","gen":1,"ver":1,"nextidx":0}`), &tb); err != nil {
		t.Fatal(err)
	}
	if tb.ForeignKeys != nil {
		t.Fatalf("old record: %+v", tb.ForeignKeys)
	}
	js, err := json.Marshal(&tb)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	if _, ok := m["fks"]; ok {
		t.Fatalf("empty foreign keys encoded: %s", js)
	}
}
