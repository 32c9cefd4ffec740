package catalog

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestParseGroupOption(t *testing.T) {
	o, err := ParseTableOptions("the orders sqlgw: group=sales, partition_key=(cust)")
	if err != nil || o.Group != "sales" || len(o.PartitionKey) != 1 {
		t.Fatalf("%+v %v", o, err)
	}
	if o, err := ParseTableOptions("sqlgw: group=`my group`"); err != nil || o.Group != "my group" {
		t.Fatalf("%+v %v", o, err)
	}
	if _, err := ParseTableOptions("sqlgw: group="); !errors.Is(err, ErrInvalidDef) {
		t.Fatalf("empty group: %v", err)
	}
}

func TestGroupPhysical(t *testing.T) {
	for _, tc := range []struct {
		id   uint64
		want string
	}{{5, "sqlgwtab~a5"}, {42, "sqlgwtab~b42"}, {1234567, "sqlgwtab~g1234567"}} {
		got := GroupPhysical("sqlgwtab", tc.id)
		if got != tc.want {
			t.Errorf("GroupPhysical(%d) = %q, want %q", tc.id, got, tc.want)
		}
		base, prefix, ok := ParseGroupPhysical(got)
		if !ok || base != "sqlgwtab" || "sqlgwtab~"+prefix != got {
			t.Errorf("ParseGroupPhysical(%q) = %q, %q, %v", got, base, prefix, ok)
		}
	}
	for _, bad := range []string{"sqlgwtab", "sqlgwtab~", "sqlgwtab~a5x", "sqlgwtab~zz", "Orders#p=EntityType&t=Edm.String&v=x"} {
		if _, _, ok := ParseGroupPhysical(bad); ok {
			t.Errorf("ParseGroupPhysical(%q) accepted", bad)
		}
	}
}

// TestGroupKeys checks the documented key format with golden bytes and
// the group rules of CreateTable, DropTable and TruncateTable.
func TestGroupKeys(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	c := openDB(t, s, "d")
	orders := &TableDef{Name: "orders", Group: "sales", Columns: []Column{intCol("cust"), intCol("id"), {Name: "total", Type: Type{Kind: KindInt64}, Nullable: true}},
		PrimaryKey: []KeyPart{{Column: "cust"}, {Column: "id"}}}
	lines := &TableDef{Name: "order_lines", Group: "sales", Columns: []Column{intCol("cust"), intCol("id"), intCol("line")},
		PrimaryKey: []KeyPart{{Column: "cust"}, {Column: "id"}, {Column: "line"}}}
	// Table IDs 1 and 2 come first: the golden bytes below use 5 and 6.
	for _, n := range []string{"x1", "x2", "x3", "x4"} {
		if _, err := c.CreateTable(ctx, "d", simpleDef(n)); err != nil {
			t.Fatal(err)
		}
	}
	o, err := c.CreateTable(ctx, "d", orders)
	if err != nil {
		t.Fatal(err)
	}
	l, err := c.CreateTable(ctx, "d", lines)
	if err != nil {
		t.Fatal(err)
	}
	ob, op, _ := ParseGroupPhysical(o.Physical)
	lb, lp, _ := ParseGroupPhysical(l.Physical)
	if o.ID != 5 || l.ID != 6 || ob != lb || !strings.HasPrefix(ob, "sqlgwt") || op != "a5" || lp != "a6" {
		t.Fatalf("orders %d %q, order_lines %d %q", o.ID, o.Physical, l.ID, l.Physical)
	}
	// Customer 7's order 1 and its line 2 (golden bytes, group.go).
	pk, rk, err := o.EncodeKey([]Datum{int64(7), int64(1), nil})
	if err != nil || pk != "a7" || op+rk != "a5a1" {
		t.Errorf("orders (7, 1): %q %q %v", pk, op+rk, err)
	}
	pk, rk, err = l.EncodeKey([]Datum{int64(7), int64(1), int64(2)})
	if err != nil || pk != "a7" || lp+rk != "a6a1a2" {
		t.Errorf("order_lines (7, 1, 2): %q %q %v", pk, lp+rk, err)
	}

	// A partition key of another type, or a keyless table, cannot join.
	bad := &TableDef{Name: "bad", Group: "sales", Columns: []Column{{Name: "cust", Type: Type{Kind: KindInt32}}, intCol("x")},
		PrimaryKey: []KeyPart{{Column: "cust"}, {Column: "x"}}}
	if _, err := c.CreateTable(ctx, "d", bad); !errors.Is(err, ErrInvalidDef) {
		t.Errorf("INT partition key joining a BIGINT group: %v", err)
	}
	salted := *orders
	salted.Name, salted.SaltBuckets = "salted", 4
	if _, err := c.CreateTable(ctx, "d", &salted); !errors.Is(err, ErrInvalidDef) {
		t.Errorf("a salted table joining an unsalted group: %v", err)
	}
	bad = &TableDef{Name: "bad", Group: "sales", Columns: []Column{intCol("cust")}}
	if _, err := c.CreateTable(ctx, "d", bad); !errors.Is(err, ErrInvalidDef) {
		t.Errorf("keyless table joining a group: %v", err)
	}
	// The same group name in another database is another group.
	if err := c.CreateDatabase(ctx, "e"); err != nil {
		t.Fatal(err)
	}
	e, err := c.CreateTable(ctx, "e", orders)
	if err != nil {
		t.Fatal(err)
	}
	if eb, _, _ := ParseGroupPhysical(e.Physical); eb == ob {
		t.Errorf("database e's group shares d's table %q", eb)
	}

	// TRUNCATE: a fresh member prefix, same group table.
	l2, err := c.TruncateTable(ctx, "d", "order_lines")
	if err != nil {
		t.Fatal(err)
	}
	if b2, p2, _ := ParseGroupPhysical(l2.Physical); b2 != ob || p2 == lp {
		t.Errorf("truncated member: %q (was %q)", l2.Physical, l.Physical)
	}
	// DROP of one member keeps the group table; of the last, deletes it.
	if err := c.DropTable(ctx, "d", "order_lines"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.TableExists(ctx, ob); !ok {
		t.Fatal("dropping one member deleted the group's table")
	}
	if err := c.DropTable(ctx, "d", "orders"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.TableExists(ctx, ob); ok {
		t.Fatal("the group's table outlived its members")
	}
	// DROP DATABASE deletes its groups' tables.
	eb, _, _ := ParseGroupPhysical(e.Physical)
	if err := c.DropDatabase(ctx, "e"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.TableExists(ctx, eb); ok {
		t.Fatal("DROP DATABASE left a group's table")
	}
}
