package catalog

import (
	"context"
	"errors"
	"testing"
)

func TestSetPrimaryKeyVerified(t *testing.T) {
	ctx := context.Background()
	c := openDB(t, newStore(t), "db")
	tbl, err := c.CreateTable(ctx, "db", &TableDef{Name: "t", Columns: []Column{
		{Name: "a", Type: Type{Kind: KindInt32}, Nullable: true},
		{Name: "b", Type: Type{Kind: KindVarchar, Length: 20}, Nullable: true},
		{Name: "c", Type: Type{Kind: KindBlob}, Nullable: true},
	}})
	if err != nil {
		t.Fatal(err)
	}
	pk := []KeyPart{{Column: "b"}, {Column: "A"}}
	if _, err := c.SetPrimaryKeyVerified(ctx, "db", "t", []KeyPart{{Column: "c"}}, tbl.Version); err == nil {
		t.Fatal("a BLOB key column was accepted")
	}
	if _, err := c.SetPrimaryKeyVerified(ctx, "db", "t", []KeyPart{{Column: "x"}}, tbl.Version); !errors.Is(err, ErrNoColumn) {
		t.Fatalf("unknown column: %v", err)
	}
	if _, err := c.SetPrimaryKeyVerified(ctx, "db", "t", nil, tbl.Version); !errors.Is(err, ErrInvalidDef) {
		t.Fatalf("dropping a missing key: %v", err)
	}
	// A change after the verified version: conflict, nothing changed.
	if _, err := c.SetTableComment(ctx, "db", "t", "moved"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetPrimaryKeyVerified(ctx, "db", "t", pk, tbl.Version); !errors.Is(err, ErrConflict) {
		t.Fatalf("stale version: %v, want ErrConflict", err)
	}
	cur, err := c.Table(ctx, "db", "t")
	if err != nil {
		t.Fatal(err)
	}
	nm, err := c.SetPrimaryKeyVerified(ctx, "db", "t", pk, cur.Version)
	if err != nil {
		t.Fatal(err)
	}
	if nm.Keyless() || len(nm.PrimaryKey) != 2 || nm.PrimaryKey[1].Column != "a" || len(nm.PartitionKey) != 1 || nm.PartitionKey[0] != "b" {
		t.Fatalf("key %+v partition %v", nm.PrimaryKey, nm.PartitionKey)
	}
	if nm.Columns[0].Nullable || nm.Columns[1].Nullable || !nm.Columns[2].Nullable {
		t.Fatalf("nullability after ADD PRIMARY KEY: %+v", nm.Columns)
	}
	pkey, rk, err := nm.EncodeKey([]Datum{int64(1), "x", nil})
	if err != nil || pkey == "" || rk == "" {
		t.Fatalf("EncodeKey: %q %q %v", pkey, rk, err)
	}
	if _, err := c.SetPrimaryKeyVerified(ctx, "db", "t", pk, nm.Version); !errors.Is(err, ErrInvalidDef) {
		t.Fatalf("a second key: %v", err)
	}
	// Undo restores key and nullability.
	back, err := c.RevertPrimaryKey(ctx, "db", "t", cur, nm.Version)
	if err != nil {
		t.Fatal(err)
	}
	if !back.Keyless() || len(back.PartitionKey) != 0 || !back.Columns[0].Nullable || !back.Columns[1].Nullable {
		t.Fatalf("after revert: %+v %v", back.PrimaryKey, back.Columns)
	}
	// Refused with a secondary index.
	ix, err := c.CreateTable(ctx, "db", &TableDef{Name: "ix", Columns: []Column{
		{Name: "a", Type: Type{Kind: KindInt32}},
		{Name: "b", Type: Type{Kind: KindInt32}, Nullable: true},
	}, PrimaryKey: []KeyPart{{Column: "a"}}, Indexes: []Index{{Name: "ib", Columns: []KeyPart{{Column: "b"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetPrimaryKeyVerified(ctx, "db", "ix", nil, ix.Version); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("drop with an index: %v, want ErrUnsupported", err)
	}
}
