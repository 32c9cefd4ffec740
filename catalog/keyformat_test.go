package catalog

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestKeyFormatMarker: tables created now record KeyFormatPadSpace and key
// a PAD SPACE weighted value without its trailing spaces; a table record
// without the marker (written by an older build) keeps keying them with the
// spaces, through a reload and ALTERs, until TRUNCATE gives it fresh key
// spaces in the current format.
func TestKeyFormatMarker(t *testing.T) {
	fold := func(r rune) int32 {
		if r >= 'A' && r <= 'Z' {
			r += 'a' - 'A'
		}
		return int32(r)
	}
	RegisterCollation("utf8mb4_test_pad_ci", fold)
	c, ctx := createDB(t)
	padType := Type{Kind: KindVarchar, Length: 9, Collation: "utf8mb4_test_pad_ci"}
	tb, err := c.CreateTable(ctx, "db", &TableDef{Name: "t",
		Columns:    []Column{{Name: "s", Type: padType}, {Name: "u", Type: padType, Nullable: true}, intCol("v")},
		PrimaryKey: []KeyPart{{Column: "s"}},
		Indexes:    []Index{{Name: "u_1", Columns: []KeyPart{{Column: "u"}}, Unique: true, Global: true}}})
	if err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(tb)
	if tb.KeyFormat != KeyFormatCurrent || !strings.Contains(string(js), `"kfmt":1`) {
		t.Fatalf("a new table's key format %d, record %s", tb.KeyFormat, js)
	}
	row := func(tb *Table, d ...Datum) []Datum {
		return append(d, make([]Datum, len(tb.Columns)-len(d))...) // the added column NULL
	}
	rowKey := func(tb *Table, s string) string {
		t.Helper()
		pk, rk, err := tb.EncodeKey(row(tb, s, nil, int64(1)))
		if err != nil {
			t.Fatal(err)
		}
		return pk + "/" + rk
	}
	ixKey := func(tb *Table, s string) string {
		t.Helper()
		pk, rk, err := tb.IndexKeys(tb.Index("u_1"), "p", "r", row(tb, "x", s, int64(1)))
		if err != nil {
			t.Fatal(err)
		}
		return pk + "/" + rk
	}
	padded := func(tb *Table) bool {
		t.Helper()
		rowSame, ixSame := rowKey(tb, "a") == rowKey(tb, "A  "), ixKey(tb, "a") == ixKey(tb, "A  ")
		if rowSame != ixSame {
			t.Fatalf("table %s format %d: row keys padded %v, index keys %v", tb.Name, tb.KeyFormat, rowSame, ixSame)
		}
		if rowKey(tb, "a") != rowKey(tb, "A") || rowKey(tb, "a") == rowKey(tb, "a\t") {
			t.Fatalf("table %s: keys not case-insensitive or tab taken for padding", tb.Name)
		}
		col := tb.Columns[0].Type
		if col.CollationKeyEqualExact() != rowSame || col.CollationKeyExact() {
			t.Fatalf("table %s format %d: equality exact %v, order exact %v", tb.Name, tb.KeyFormat, col.CollationKeyEqualExact(), col.CollationKeyExact())
		}
		if k, _ := col.CollationKey("a "); (k == func() string { k, _ := col.CollationKey("a"); return k }()) != rowSame {
			t.Fatalf("table %s: CollationKey and the row keys disagree on padding", tb.Name)
		}
		return rowSame
	}
	if !padded(tb) {
		t.Fatal("a new table keys 'a' and 'A  ' apart")
	}

	// The record as an older build wrote it: no "kfmt".
	old := tb.clone()
	old.KeyFormat = KeyFormatUnpadded
	tx := &txn{}
	if err := tx.putTable(old); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(tx.ops[0].Entity.Properties[propDef].Str(), "kfmt") {
		t.Fatalf("an unmarked record carries the field: %s", tx.ops[0].Entity.Properties[propDef].Str())
	}
	if _, err := c.Store().Batch(ctx, c.CatalogTable(), tx.ops); err != nil {
		t.Fatal(err)
	}
	c2 := open(t, c.Store(), Options{})
	ot, err := c2.Table(ctx, "db", "t")
	if err != nil {
		t.Fatal(err)
	}
	if ot.KeyFormat != KeyFormatUnpadded || padded(ot) {
		t.Fatalf("an unmarked record (format %d) must keep its keys with trailing spaces", ot.KeyFormat)
	}
	if rowKey(ot, "a ") <= rowKey(ot, "a") {
		t.Fatal("unpadded keys: 'a ' must sort after 'a'")
	}
	// ALTERs keep the table's format: its stored keys do not change.
	ot, err = c2.AddColumn(ctx, "db", "t", Column{Name: "w", Type: padType, Nullable: true}, ColumnPosition{})
	if err != nil {
		t.Fatal(err)
	}
	if ot.KeyFormat != KeyFormatUnpadded || padded(ot) {
		t.Fatalf("ADD COLUMN changed the table's key format to %d", ot.KeyFormat)
	}
	ot, err = c2.ModifyColumn(ctx, "db", "t", "u", Column{Name: "u", Type: Type{Kind: KindVarchar, Length: 12, Collation: "utf8mb4_test_pad_ci"}, Nullable: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ot.KeyFormat != KeyFormatUnpadded || padded(ot) {
		t.Fatalf("after ALTER: format %d", ot.KeyFormat)
	}
	if ot, err = open(t, c.Store(), Options{}).Table(ctx, "db", "t"); err != nil || padded(ot) {
		t.Fatalf("reloaded after ALTER: %v", err)
	}
	// A new table beside it, and the old one once truncated, are padded.
	nt, err := c2.CreateTable(ctx, "db", &TableDef{Name: "n", Columns: []Column{{Name: "s", Type: padType}, {Name: "u", Type: padType, Nullable: true}, intCol("v")},
		PrimaryKey: []KeyPart{{Column: "s"}}, Indexes: []Index{{Name: "u_1", Columns: []KeyPart{{Column: "u"}}, Global: true}}})
	if err != nil || !padded(nt) {
		t.Fatalf("a new table beside an old one: %v", err)
	}
	tt, err := c2.TruncateTable(context.Background(), "db", "t")
	if err != nil {
		t.Fatal(err)
	}
	if tt.KeyFormat != KeyFormatCurrent || !padded(tt) {
		t.Fatalf("after TRUNCATE: format %d", tt.KeyFormat)
	}
}
