package views

import (
	"context"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/sqlgw/sqlgw/storage/pebble"
)

// TestStore: definitions are created, found case-insensitively, listed
// per database, refused twice, dropped one by one or with their database,
// and read by a second Store over the same table (another gateway).
func TestStore(t *testing.T) {
	ctx := context.Background()
	st, err := pebble.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	same := func(ctx context.Context) context.Context { return ctx }
	v := New(st, "sqlgwviews", same)
	if _, ok, err := v.Get(ctx, "d", "v1"); ok || err != nil {
		t.Fatalf("before any view (no table yet): %v, %v", ok, err)
	}
	def := func(name string) sql.ViewDefinition {
		return sql.ViewDefinition{Name: name, TextDefinition: "SELECT 1", CreateViewStatement: "CREATE VIEW " + name + " AS SELECT 1", SqlMode: "ANSI"}
	}
	for _, c := range []struct{ db, name string }{{"d", "V1"}, {"d", "v2"}, {"e", "v1"}} {
		if err := v.Create(ctx, c.db, def(c.name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := v.Create(ctx, "D", def("v1")); !sql.ErrExistingView.Is(err) {
		t.Errorf("a second d.v1: %v", err)
	}
	if d, ok, err := v.Get(ctx, "D", "v1"); !ok || err != nil || d != def("V1") {
		t.Errorf("D.v1: %+v, %v, %v", d, ok, err)
	}
	other := New(st, "sqlgwviews", same)
	if list, err := other.List(ctx, "d"); err != nil || len(list) != 2 {
		t.Errorf("another Store lists d: %v, %v", list, err)
	}
	if err := v.Drop(ctx, "d", "v2"); err != nil {
		t.Fatal(err)
	}
	if err := v.Drop(ctx, "d", "v2"); !sql.ErrViewDoesNotExist.Is(err) {
		t.Errorf("dropping d.v2 twice: %v", err)
	}
	if err := v.DropAll(ctx, "d"); err != nil {
		t.Fatal(err)
	}
	if list, err := v.List(ctx, "d"); err != nil || len(list) != 0 {
		t.Errorf("d after DropAll: %v, %v", list, err)
	}
	if _, ok, err := v.Get(ctx, "e", "v1"); !ok || err != nil {
		t.Errorf("e.v1 after dropping d's views: %v, %v", ok, err)
	}
}
