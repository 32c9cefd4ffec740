package catalog

import (
	"fmt"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/sqlgw/sqlgw/storage"
)

// benchTable is a typical OLTP table: composite key, ten value columns.
func benchTable(b *testing.B) (*Table, []Datum) {
	def := &TableDef{Name: "orders", Columns: []Column{
		{Name: "tenant", Type: Type{Kind: KindVarchar, Length: 40}},
		{Name: "id", Type: Type{Kind: KindInt64}},
		{Name: "created", Type: Type{Kind: KindDatetime, FSP: 6}},
		{Name: "amount", Type: Type{Kind: KindDecimal, Precision: 12, Scale: 2}, Nullable: true},
	}, PrimaryKey: []KeyPart{{Column: "tenant"}, {Column: "created", Desc: true}, {Column: "id"}}}
	row := []Datum{"acme/eu", int64(42), time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC), decimal.RequireFromString("1234.50")}
	for i := range 10 {
		def.Columns = append(def.Columns, Column{Name: fmt.Sprintf("c%d", i), Type: Type{Kind: KindVarchar, Length: 100}, Nullable: true})
		row = append(row, fmt.Sprintf("value %d of the row", i))
	}
	t, err := newTable(def, storage.DefaultLimits)
	if err != nil {
		b.Fatal(err)
	}
	return t, row
}

func BenchmarkEncodeRow(b *testing.B) {
	t, row := benchTable(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, _, err := t.EncodeRow(row); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeRow(b *testing.B) {
	t, row := benchTable(b)
	_, _, ents, err := t.EncodeRow(row)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if t.IsContinuation(ents[0]) {
			b.Fatal("main entity seen as continuation")
		}
		if _, err := t.DecodeRow(ents...); err != nil {
			b.Fatal(err)
		}
	}
}
