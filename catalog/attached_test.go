package catalog

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/catalog/keys"
	"github.com/sqlgw/sqlgw/storage"
)

func TestAttachedWiden(t *testing.T) {
	S, I32, I64, D, B := storage.TypeString, storage.TypeInt32, storage.TypeInt64, storage.TypeDouble, storage.TypeBoolean
	for _, tc := range []struct{ a, b, want storage.Type }{
		{0, I32, I32}, {I32, I32, I32}, {I32, I64, I64}, {I64, I32, I64}, {I32, D, D}, {D, I64, D},
		{B, I32, S}, {storage.TypeDateTime, S, S}, {storage.TypeGUID, storage.TypeBinary, S},
	} {
		if got := widen(tc.a, tc.b); got != tc.want {
			t.Errorf("widen(%s, %s) = %s, want %s", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestAttachedRoundTrip: inference over a store table (the first 3
// entities in key order: "p 1"/"z" sorts before "p 1"/"é"), then every entity
// decodes to a row that encodes back to the same entity (names and types).
func TestAttachedRoundTrip(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	c := open(t, st, Options{})
	if err := st.CreateTable(ctx, "Events"); err != nil {
		t.Fatal(err)
	}
	when := time.Date(2021, 3, 4, 5, 6, 7, 890123400, time.UTC)
	ents := []*storage.Entity{
		{PartitionKey: "p 1", RowKey: "é", Properties: storage.Properties{"N": storage.Int32(1), "When": storage.DateTime(when), "G": storage.GUID([16]byte{1, 2, 3})}},
		{PartitionKey: "p 1", RowKey: "z", Properties: storage.Properties{"N": storage.Int64(1 << 40), "F": storage.Double(0.5), "Flag": storage.Bool(true)}},
		{PartitionKey: "p 2", RowKey: "a", Properties: storage.Properties{"N": storage.String("many"), "Bin": storage.Binary([]byte{0, 1}), "F": storage.Int32(2)}},
		{PartitionKey: "p 3", RowKey: "a", Properties: storage.Properties{"Late": storage.Double(1.25), "F": storage.String("x")}},
	}
	for _, e := range ents {
		if _, err := st.Insert(ctx, "Events", e); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.SyncAttached(ctx, "azure", 3); err != nil {
		t.Fatal(err)
	}
	tb, err := c.Table(ctx, "azure", "Events")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, col := range tb.Columns {
		got = append(got, col.Name+":"+col.Type.String())
	}
	want := "PartitionKey:varchar(1024) collate utf8mb4_0900_bin RowKey:varchar(1024) collate utf8mb4_0900_bin Timestamp:datetime(6) " +
		"F:double Flag:tinyint N:mediumtext collate utf8mb4_0900_bin G:char(36) collate utf8mb4_0900_bin When:datetime(6) Bin:mediumblob _extra:json"
	if strings.Join(got, " ") != want {
		t.Fatalf("columns\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	for _, e := range ents {
		stored, err := st.Get(ctx, "Events", e.PartitionKey, e.RowKey, nil)
		if err != nil {
			t.Fatal(err)
		}
		row, err := tb.DecodeRow(stored)
		if err != nil {
			t.Fatal(err)
		}
		pk, rk, err := tb.EncodeKey(row)
		if err != nil || pk != e.PartitionKey || rk != e.RowKey {
			t.Fatalf("keys %q %q %v", pk, rk, err)
		}
		back, err := tb.EncodeEntities(pk, rk, row)
		if err != nil {
			t.Fatalf("%s/%s: %v (row %v)", pk, rk, err, row)
		}
		if len(back) != 1 || len(back[0].Properties) != len(e.Properties) {
			t.Fatalf("%s/%s: %v, want %v", pk, rk, back[0].Properties, e.Properties)
		}
		for k, v := range e.Properties {
			if !back[0].Properties[k].Equal(v) {
				t.Errorf("%s/%s %s: %#v, want %#v", pk, rk, k, back[0].Properties[k], v)
			}
		}
	}
	// The JSON column: bad values are errors naming the column.
	row := make([]Datum, len(tb.Columns))
	row[0], row[1] = "p", "r"
	// The zero date has no Edm.DateTime value: an error naming the column.
	row[tb.ColumnIndex("When")] = keys.ZeroDate
	if _, err := tb.EncodeEntities("p", "r", row); !errors.Is(err, ErrValue) || !strings.Contains(err.Error(), `"When"`) {
		t.Errorf("zero date into Edm.DateTime: %v", err)
	}
	row[tb.ColumnIndex("When")] = nil
	for _, bad := range []string{`[1]`, `{"a": {"b": 1}}`, `{"PartitionKey": "x"}`, `{"a@odata.type": "Edm.Nope", "a": 1}`, `{"a@odata.type": "Edm.Int32", "a": "x"}`} {
		row[len(row)-1] = bad
		if _, err := tb.EncodeEntities("p", "r", row); err == nil || !strings.Contains(err.Error(), "_extra") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	row[len(row)-1] = `{"a": 1, "b": 3000000000, "c": 1.5, "d": true, "e": null, "f@odata.type": "Edm.Guid", "f": "01020300-0000-0000-0000-000000000000"}`
	es, err := tb.EncodeEntities("p", "r", row)
	if err != nil {
		t.Fatal(err)
	}
	p := es[0].Properties
	if p["a"].Type() != storage.TypeInt32 || p["b"].Type() != storage.TypeInt64 || p["c"].Type() != storage.TypeDouble || p["d"].Type() != storage.TypeBoolean || p["f"].Type() != storage.TypeGUID || len(p) != 5 {
		t.Fatalf("JSON column typed as %v", p)
	}
}

// TestAttachedRefreshNeverNarrows: a refresh that no longer sees a wider
// type keeps it, and a renamed column keeps its name and property.
func TestAttachedRefreshNeverNarrows(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	c := open(t, st, Options{})
	if err := st.CreateTable(ctx, "Tab1"); err != nil {
		t.Fatal(err)
	}
	put := func(rk string, p storage.Properties) {
		if _, err := st.Upsert(ctx, "Tab1", &storage.Entity{PartitionKey: "p", RowKey: rk, Properties: p}, storage.Replace); err != nil {
			t.Fatal(err)
		}
	}
	put("a", storage.Properties{"N": storage.Int64(1 << 40), "M": storage.Double(0.5), "O": storage.Int32(1)})
	put("b", storage.Properties{"N": storage.Int32(1), "M": storage.Int32(1)})
	put("c", storage.Properties{"O": storage.Int32(2)})
	if _, err := c.SyncAttached(ctx, "azure", 10); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ModifyColumn(ctx, "azure", "Tab1", "N", Column{Name: "Num", Type: Type{Kind: KindInt64}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := st.Delete(ctx, "Tab1", "p", "a", storage.ETagAny); err != nil {
		t.Fatal(err)
	}
	put("b", storage.Properties{"N": storage.Int32(1), "M": storage.Int32(1), "O": storage.Int64(3)})
	if err := st.Delete(ctx, "Tab1", "p", "c", storage.ETagAny); err != nil {
		t.Fatal(err)
	}
	tb, err := c.RefreshAttached(ctx, "azure", "Tab1", 0)
	if err != nil {
		t.Fatal(err)
	}
	col := tb.Columns[tb.ColumnIndex("Num")]
	if tb.ColumnIndex("N") >= 0 || col.Property != "N" || col.Edm != storage.TypeInt64 || !col.Mixed || !col.Pinned {
		t.Fatalf("after refresh: %+v", tb.Columns)
	}
	// Not pinned: M was Double (0.5 and 1 seen); now only Int32 is seen.
	if m := tb.Columns[tb.ColumnIndex("M")]; m.Edm != storage.TypeDouble || !m.Mixed || m.Pinned {
		t.Fatalf("M after refresh: %+v", m)
	}
	// O was Int32 everywhere; now only Int64 is seen: Int64, but Mixed (no
	// pushdown: entities beyond the scan may hold Int32).
	if o := tb.Columns[tb.ColumnIndex("O")]; o.Edm != storage.TypeInt64 || !o.Mixed {
		t.Fatalf("O after refresh: %+v", o)
	}
}
