package catalog

import (
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/catalog/keys"
	"github.com/sqlgw/sqlgw/storage"
)

// TestZeroDate: MySQL's zero date ('0000-00-00', go-mysql-server's
// types.ZeroTime) is stored in key columns (ascending and DESC) and in
// properties of DATE, DATETIME and TIMESTAMP columns, reads back as the
// zero date, sorts before every other date (after them in a DESC key
// column), and a pushed-down comparison with it keeps exactly SQL's rows.
func TestZeroDate(t *testing.T) {
	c, ctx := createDB(t)
	tbl, err := c.CreateTable(ctx, "db", &TableDef{Name: "z",
		Columns: []Column{
			{Name: "p", Type: Type{Kind: KindInt32}},
			{Name: "k", Type: Type{Kind: KindDate}},
			{Name: "kd", Type: Type{Kind: KindDatetime, FSP: 6}},
			{Name: "d", Type: Type{Kind: KindDate}},
			{Name: "dt", Type: Type{Kind: KindDatetime}},
			{Name: "ts", Type: Type{Kind: KindTimestamp}},
		},
		PrimaryKey: []KeyPart{{Column: "p"}, {Column: "k"}, {Column: "kd", Desc: true}}})
	if err != nil {
		t.Fatal(err)
	}
	zero := keys.ZeroDate
	y0 := time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC) // year 0: a real date, above the zero date
	y1000 := time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC)
	noon := time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)
	dates := []time.Time{noon, zero, y1000, y0}
	for i, k := range dates {
		writeRow(t, c.Store(), tbl, []Datum{int64(1), k, dates[(i+1)%len(dates)], zero, zero, zero})
		writeRow(t, c.Store(), tbl, []Datum{int64(2), y1000, k, k, k, k})
	}
	rows := scanRows(t, c.Store(), tbl, storage.Query{})
	if len(rows) != 8 {
		t.Fatalf("%d rows, want 8", len(rows))
	}
	// Partition 1: k ascending, zero first; partition 2: kd DESC, zero last.
	wantK := []time.Time{zero, y0, y1000, noon}
	wantKD := []time.Time{noon, y1000, y0, zero}
	for i := range 4 {
		if got := rows[i][1].(time.Time); !got.Equal(wantK[i]) {
			t.Errorf("partition 1 row %d: k = %v, want %v", i, got, wantK[i])
		}
		for j := 3; j <= 5; j++ {
			if got := rows[i][j].(time.Time); !keys.IsZeroDate(got) {
				t.Errorf("partition 1 row %d column %d: %v, want the zero date", i, j, got)
			}
		}
		row := rows[4+i]
		if got := row[2].(time.Time); !got.Equal(wantKD[i]) {
			t.Errorf("partition 2 row %d: kd = %v, want %v", i, got, wantKD[i])
		}
		for j := 3; j <= 5; j++ {
			if got := row[j].(time.Time); !got.Equal(wantKD[i]) {
				t.Errorf("partition 2 row %d column %d: %v, want %v", i, j, got, wantKD[i])
			}
		}
	}
	// The stored property is the documented text.
	for _, tc := range []struct {
		typ  Type
		want string
	}{
		{Type{Kind: KindDate}, "0000-00-00"},
		{Type{Kind: KindDatetime}, "0000-00-00T00:00:00.000000"},
		{Type{Kind: KindTimestamp, FSP: 6}, "0000-00-00T00:00:00.000000"},
	} {
		col := &Column{Name: "c", Property: "c", Type: tc.typ}
		v, err := col.Literal(zero)
		if err != nil || v.Str() != tc.want {
			t.Fatalf("%s: literal %v %v, want %q", tc.typ, v, err, tc.want)
		}
		back, err := tc.typ.Decode(v)
		if err != nil || !keys.IsZeroDate(back.(time.Time)) {
			t.Fatalf("%s: %q decodes to %v %v", tc.typ, tc.want, back, err)
		}
		// Pushed-down comparisons with the zero date and against it.
		for _, other := range []time.Time{zero, y0, y1000, noon} {
			ov, err := col.Literal(other)
			if err != nil {
				t.Fatal(err)
			}
			for _, op := range []storage.Op{storage.OpEq, storage.OpNe, storage.OpLt, storage.OpLe, storage.OpGt, storage.OpGe} {
				e := &storage.Entity{Properties: storage.Properties{"c": ov}}
				got := storage.Eval(&storage.Compare{Prop: "c", Op: op, Value: v}, e)
				cmp := other.Compare(zero)
				want := map[storage.Op]bool{storage.OpEq: cmp == 0, storage.OpNe: cmp != 0, storage.OpLt: cmp < 0,
					storage.OpLe: cmp <= 0, storage.OpGt: cmp > 0, storage.OpGe: cmp >= 0}[op]
				if got != want {
					t.Errorf("%s: %v %v zero: store %t, SQL %t", tc.typ, other, op, got, want)
				}
			}
		}
	}
	// A key range from the zero date: "k <= zero" in partition 1 is the
	// zero-date row alone, "k > zero" the three others.
	pk, _ := tbl.PartitionPrefix([]Datum{int64(1)})
	for op, want := range map[storage.Op]int{storage.OpLe: 1, storage.OpEq: 1, storage.OpGt: 3, storage.OpGe: 4} {
		rng, err := tbl.RowColumns()[0].Range("", op, zero)
		if err != nil {
			t.Fatal(err)
		}
		if got := scanRows(t, c.Store(), tbl, storage.Query{Partition: storage.Exactly(pk), Row: rng}); len(got) != want {
			t.Errorf("k %v zero: %d rows, want %d", op, len(got), want)
		}
	}
	// A time other than midnight on the zero date is no value of any of
	// these types (MySQL's '0000-00-00 10:00:00' is a date with zero parts).
	if _, err := (&Column{Name: "c", Property: "c", Type: Type{Kind: KindDatetime}}).Literal(zero.Add(10 * time.Hour)); err == nil {
		t.Error("the zero date with a time of day was accepted")
	}
}
