package typedstore

import (
	"context"
	"errors"
	"testing"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/pebble"
)

// TestTypedTables: through a typed Physical name a store table shows only
// the entities of its type, by discriminator property or by RowKey
// prefix; a Get of another type's entity is not found; the base name
// passes through unchanged.
func TestTypedTables(t *testing.T) {
	ctx := context.Background()
	raw, err := pebble.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	s := New(raw)
	if err := raw.CreateTable(ctx, "Things"); err != nil {
		t.Fatal(err)
	}
	for _, e := range []struct{ rk, kind string }{{"o1", "order"}, {"o2", "order"}, {"c1", "customer"}} {
		if _, err := raw.Insert(ctx, "Things", &storage.Entity{PartitionKey: "p", RowKey: e.rk,
			Properties: storage.Properties{"Kind": storage.String(e.kind)}}); err != nil {
			t.Fatal(err)
		}
	}
	orders := catalog.TypedPhysical("Things", catalog.EntityType{Prop: "Kind", Value: storage.String("order")})
	customers := catalog.TypedPhysical("Things", catalog.EntityType{RowKeyPrefix: "c"})
	keys := func(table string) []string {
		t.Helper()
		page, err := s.Query(ctx, table, &storage.Query{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range page.Entities {
			out = append(out, e.RowKey)
		}
		return out
	}
	for table, want := range map[string]int{orders: 2, customers: 1, "Things": 3} {
		if got := keys(table); len(got) != want {
			t.Errorf("%s: %v, want %d entities", table, got, want)
		}
	}
	if _, err := s.Get(ctx, orders, "p", "c1", nil); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("a customer through the orders table: %v", err)
	}
	if _, err := s.Get(ctx, customers, "p", "c1", nil); err != nil {
		t.Errorf("a customer through the customers table: %v", err)
	}
	if ok, err := s.TableExists(ctx, orders); !ok || err != nil {
		t.Errorf("the orders table exists: %v, %v", ok, err)
	}
}
