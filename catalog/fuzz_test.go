package catalog

import (
	"bytes"
	"math"
	"testing"
	"unicode/utf8"

	"github.com/sqlgw/sqlgw/storage"
)

// FuzzRowRoundTrip encodes rows of a table with a composite key (a DESC
// PAD SPACE string, a byte string) and several value kinds, checks every
// entity against the store's limits, and decodes the row and its key back.
func FuzzRowRoundTrip(f *testing.F) {
	f.Add("a", []byte{0}, int64(1), uint64(math.MaxUint64), 1.5, "text", 3)
	f.Add("", []byte{}, int64(math.MinInt64), uint64(0), math.Copysign(0, -1), "", 1000)
	f.Add("a  ", []byte("/#?\\"), int64(-1), uint64(1<<63), math.MaxFloat64, "é\U0001F600", 40000)
	limits := storage.DefaultLimits
	def := &TableDef{Name: "fuzz", Columns: []Column{
		{Name: "k1", Type: Type{Kind: KindVarchar, Length: 100, Collation: "utf8mb4_bin"}},
		{Name: "k2", Type: Type{Kind: KindVarbinary, Length: 100}},
		{Name: "i", Type: Type{Kind: KindInt64}, Nullable: true},
		{Name: "u", Type: Type{Kind: KindInt64, Unsigned: true}, Nullable: true},
		{Name: "f", Type: Type{Kind: KindDouble}, Nullable: true},
		{Name: "t", Type: Type{Kind: KindLongText}, Nullable: true},
	}, PrimaryKey: []KeyPart{{Column: "k1", Desc: true}, {Column: "k2"}}, PartitionKey: []string{"k2"}}
	tbl, err := newTable(def, limits)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, k1 string, k2 []byte, i int64, u uint64, fl float64, text string, repeat int) {
		if !utf8.ValidString(k1) || !utf8.ValidString(text) || math.IsNaN(fl) || math.IsInf(fl, 0) || len(k1) > 100 || len(k2) > 100 {
			return
		}
		if repeat < 0 || repeat > 50000 {
			repeat = 0
		}
		big := string(bytes.Repeat([]byte(text), repeat%(1+1_000_000/(len(text)+1))))
		row := []Datum{k1, k2, i, u, fl, big}
		pk, rk, ents, err := tbl.EncodeRow(row)
		if err != nil {
			t.Fatalf("encode: %v", err)
		}
		for _, e := range ents {
			if err := limits.ValidateEntity(e); err != nil {
				t.Fatalf("entity %q: %v", e.RowKey, err)
			}
			if e.PartitionKey != pk {
				t.Fatalf("entity in partition %q, row in %q", e.PartitionKey, pk)
			}
		}
		for j, e := range ents {
			if tbl.IsContinuation(e) != (j > 0) {
				t.Fatalf("entity %d (%q): IsContinuation %t", j, e.RowKey, !(j > 0))
			}
		}
		got, err := tbl.DecodeRow(ents...)
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		if fl == 0 {
			fl = 0 // -0 is stored as 0
		}
		want := []Datum{k1, k2, i, u, fl, big}
		for j := range want {
			if !datumEqual(got[j], want[j]) {
				t.Fatalf("column %d: got %v, want %v", j, short(got[j]), short(want[j]))
			}
		}
		key, err := tbl.DecodeKey(pk, rk)
		if err != nil || key[0] != trimSpaces(k1) || !bytes.Equal(key[1].([]byte), k2) {
			t.Fatalf("DecodeKey(%q, %q) = %v, %v", pk, rk, key, err)
		}
	})
}

func trimSpaces(s string) string {
	for len(s) > 0 && s[len(s)-1] == ' ' {
		s = s[:len(s)-1]
	}
	return s
}
