package catalog

import (
	"context"
	"errors"
	"testing"
)

func TestNarrows(t *testing.T) {
	vc := func(n int) Type { return Type{Kind: KindVarchar, Length: n} }
	cases := []struct {
		a, b Type
		want bool
	}{
		{vc(128), vc(64), true},
		{vc(64), vc(128), false}, // a widening: ModifyColumn takes it
		{vc(64), Type{Kind: KindVarchar, Length: 32, Collation: "utf8mb4_0900_ai_ci"}, false},
		{Type{Kind: KindChar, Length: 10}, Type{Kind: KindChar, Length: 5}, true},
		{vc(10), Type{Kind: KindChar, Length: 5}, false}, // trailing spaces
		{Type{Kind: KindText}, vc(10), true},
		{Type{Kind: KindText}, Type{Kind: KindChar, Length: 10}, false},
		{Type{Kind: KindMediumText}, Type{Kind: KindTinyText}, true},
		{Type{Kind: KindVarbinary, Length: 10}, Type{Kind: KindVarbinary, Length: 4}, true},
		{Type{Kind: KindBinary, Length: 10}, Type{Kind: KindBinary, Length: 4}, false}, // zero padding
		{Type{Kind: KindBlob}, Type{Kind: KindVarbinary, Length: 4}, true},
		{Type{Kind: KindInt32}, Type{Kind: KindInt16}, true},
		{Type{Kind: KindInt32}, Type{Kind: KindInt8, Unsigned: true}, false},
		{Type{Kind: KindInt64}, Type{Kind: KindInt32}, false}, // Int64 -> Int32 property
		{Type{Kind: KindInt32, Unsigned: true}, Type{Kind: KindInt16, Unsigned: true}, false},
		{Type{Kind: KindDecimal, Precision: 10, Scale: 2}, Type{Kind: KindDecimal, Precision: 8, Scale: 2}, true},
		{Type{Kind: KindDecimal, Precision: 10, Scale: 2}, Type{Kind: KindDecimal, Precision: 9, Scale: 1}, false},
		{Type{Kind: KindEnum, Values: []string{"a", "b", "c"}}, Type{Kind: KindEnum, Values: []string{"a", "b"}}, true},
		{Type{Kind: KindEnum, Values: []string{"a", "b", "c"}}, Type{Kind: KindEnum, Values: []string{"a", "c"}}, false},
		{Type{Kind: KindSet, Values: []string{"a", "b"}}, Type{Kind: KindSet, Values: []string{"a"}}, true},
		{Type{Kind: KindBit, Length: 8}, Type{Kind: KindBit, Length: 4}, true},
		{Type{Kind: KindDouble}, Type{Kind: KindFloat}, false},
		{Type{Kind: KindDatetime, FSP: 6}, Type{Kind: KindDatetime}, false},
	}
	for _, c := range cases {
		if got := Narrows(c.a, c.b); got != c.want {
			t.Errorf("Narrows(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestModifyColumnVerified(t *testing.T) {
	ctx := context.Background()
	c := openDB(t, newStore(t), "db")
	tbl, err := c.CreateTable(ctx, "db", &TableDef{Name: "t", Columns: []Column{
		{Name: "id", Type: Type{Kind: KindInt32}},
		{Name: "s", Type: Type{Kind: KindVarchar, Length: 128}, Nullable: true},
	}, PrimaryKey: []KeyPart{{Column: "id"}}})
	if err != nil {
		t.Fatal(err)
	}
	short := Column{Name: "s", Type: Type{Kind: KindVarchar, Length: 64}, Nullable: true}
	if _, err := c.ModifyColumn(ctx, "db", "t", "s", short, nil); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("unverified narrowing: %v, want ErrUnsupported", err)
	}
	// A change after the verified version: conflict, nothing changed.
	if _, err := c.SetTableComment(ctx, "db", "t", "moved"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ModifyColumnVerified(ctx, "db", "t", "s", short, nil, tbl.Version); !errors.Is(err, ErrConflict) {
		t.Fatalf("narrowing verified at an old version: %v, want ErrConflict", err)
	}
	cur, _ := c.Table(ctx, "db", "t")
	if cur.Columns[1].Type.Length != 128 {
		t.Fatalf("after the conflict: %s", cur.Columns[1].Type)
	}
	nm, err := c.ModifyColumnVerified(ctx, "db", "t", "s", Column{Name: "s", Type: short.Type}, nil, cur.Version)
	if err != nil {
		t.Fatal(err)
	}
	if got := nm.Columns[1]; got.Type.Length != 64 || got.Nullable || got.Property != cur.Columns[1].Property {
		t.Fatalf("after the verified narrowing: %+v", got)
	}
	// What needs a rewrite stays refused even when verified.
	if _, err := c.ModifyColumnVerified(ctx, "db", "t", "s", Column{Name: "s", Type: Type{Kind: KindChar, Length: 10}}, nil, nm.Version); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("verified VARCHAR to CHAR: %v, want ErrUnsupported", err)
	}
}
