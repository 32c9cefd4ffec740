package catalog

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/sqlgw/sqlgw/storage"
)

// allTypes has one column of every kind, with its random Datum generator.
var allTypes = []struct {
	typ Type
	gen func(r *rand.Rand) Datum
}{
	{Type{Kind: KindInt8}, func(r *rand.Rand) Datum { return int64(r.IntN(256) - 128) }},
	{Type{Kind: KindInt8, Unsigned: true}, func(r *rand.Rand) Datum { return uint64(r.IntN(256)) }},
	{Type{Kind: KindInt16}, func(r *rand.Rand) Datum { return int64(r.IntN(65536) - 32768) }},
	{Type{Kind: KindInt24, Unsigned: true}, func(r *rand.Rand) Datum { return uint64(r.IntN(1 << 24)) }},
	{Type{Kind: KindInt32}, func(r *rand.Rand) Datum { return int64(int32(r.Uint32())) }},
	{Type{Kind: KindInt32, Unsigned: true}, func(r *rand.Rand) Datum { return uint64(r.Uint32()) }},
	{Type{Kind: KindInt64}, func(r *rand.Rand) Datum { return int64(r.Uint64()) }},
	{Type{Kind: KindInt64, Unsigned: true}, func(r *rand.Rand) Datum {
		return []uint64{0, math.MaxUint64, 1 << 63, r.Uint64()}[r.IntN(4)]
	}},
	{Type{Kind: KindDecimal, Precision: 65, Scale: 30}, func(r *rand.Rand) Datum {
		s := fmt.Sprintf("%d.%030d", r.Int64N(1e17), r.Int64N(1e17))
		if r.IntN(2) == 0 {
			s = "-" + s
		}
		if r.IntN(5) == 0 {
			s = "-99999999999999999999999999999999999.999999999999999999999999999999"
		}
		return decimal.RequireFromString(s)
	}},
	{Type{Kind: KindFloat}, func(r *rand.Rand) Datum { return float64(float32(r.NormFloat64() * 1e6)) }},
	{Type{Kind: KindDouble}, func(r *rand.Rand) Datum { return r.NormFloat64() * math.Pow(10, float64(r.IntN(600)-300)) }},
	{Type{Kind: KindChar, Length: 10}, func(r *rand.Rand) Datum { return randText(r, 10) }},
	{Type{Kind: KindVarchar, Length: 100}, func(r *rand.Rand) Datum { return randText(r, 100) }},
	{Type{Kind: KindText}, func(r *rand.Rand) Datum { return randText(r, 300) }},
	{Type{Kind: KindLongText}, func(r *rand.Rand) Datum {
		// Beyond one property (32 Ki UTF-16 units), with surrogate pairs
		// straddling chunk boundaries.
		return strings.Repeat("a\U0001F600é", 20000+r.IntN(100))
	}},
	{Type{Kind: KindBinary, Length: 4}, func(r *rand.Rand) Datum { return randBytes(r, 4) }},
	{Type{Kind: KindVarbinary, Length: 50}, func(r *rand.Rand) Datum { return randBytes(r, 50) }},
	{Type{Kind: KindMediumBlob}, func(r *rand.Rand) Datum { return randBytes(r, 200<<10) }},
	{Type{Kind: KindDate}, func(r *rand.Rand) Datum {
		return time.Date(1000+r.IntN(9000), time.Month(1+r.IntN(12)), 1+r.IntN(28), 0, 0, 0, 0, time.UTC)
	}},
	{Type{Kind: KindDatetime, FSP: 6}, func(r *rand.Rand) Datum {
		return time.Date(1000+r.IntN(9000), 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r.Int64N(365*86400*1e6)) * time.Microsecond)
	}},
	{Type{Kind: KindTimestamp, FSP: 3}, func(r *rand.Rand) Datum {
		return time.Unix(r.Int64N(1<<31), int64(r.IntN(1000))*1e6).UTC()
	}},
	{Type{Kind: KindTime, FSP: 6}, func(r *rand.Rand) Datum { return r.Int64N(2*maxTimeMicros+1) - maxTimeMicros }},
	{Type{Kind: KindYear}, func(r *rand.Rand) Datum { return []int64{0, 1901, 2155, 2024}[r.IntN(4)] }},
	{Type{Kind: KindEnum, Values: []string{"x", "y", "z"}}, func(r *rand.Rand) Datum { return uint64(r.IntN(4)) }},
	{Type{Kind: KindSet, Values: []string{"a", "b", "c"}}, func(r *rand.Rand) Datum { return uint64(r.IntN(8)) }},
	{Type{Kind: KindBit, Length: 64}, func(r *rand.Rand) Datum { return r.Uint64() }},
	{Type{Kind: KindBit, Length: 3}, func(r *rand.Rand) Datum { return uint64(r.IntN(8)) }},
	{Type{Kind: KindJSON}, func(r *rand.Rand) Datum { return fmt.Sprintf(`{"k": %q}`, randText(r, 20)) }},
}

func randText(r *rand.Rand, n int) string {
	var sb strings.Builder
	for range r.IntN(n + 1) {
		switch r.IntN(5) {
		case 0:
			sb.WriteByte(byte(r.IntN(0x7f)))
		case 1:
			sb.WriteString([]string{"/", "\\", "#", "?", "\x00", "~", "é", "\U0001F600", "\uffff", " "}[r.IntN(10)])
		default:
			sb.WriteByte(byte('a' + r.IntN(26)))
		}
	}
	return sb.String()
}

func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, r.IntN(n+1))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func datumEqual(a, b Datum) bool {
	switch x := a.(type) {
	case decimal.Decimal:
		y, ok := b.(decimal.Decimal)
		return ok && x.Equal(y) && x.Exponent() == y.Exponent()
	case time.Time:
		y, ok := b.(time.Time)
		return ok && x.Equal(y)
	case []byte:
		y, ok := b.([]byte)
		return ok && bytes.Equal(x, y)
	}
	return a == b
}

func createDB(t testing.TB) (*Catalog, context.Context) {
	t.Helper()
	ctx := context.Background()
	c := openDB(t, newStore(t), "db")
	return c, ctx
}

// writeRow writes a row's entities in one batch, as the gateway does.
func writeRow(t testing.TB, s storage.Store, tbl *Table, row []Datum) (string, string) {
	t.Helper()
	pk, rk, ents, err := tbl.EncodeRow(row)
	if err != nil {
		t.Fatal(err)
	}
	ops := make([]storage.Operation, len(ents))
	for i, e := range ents {
		ops[i] = storage.Operation{Kind: storage.OpUpsert, Entity: e}
	}
	if _, err := s.Batch(context.Background(), tbl.Physical, ops); err != nil {
		t.Fatalf("writing row: %v", err)
	}
	return pk, rk
}

// scanRows reads every row of a table in store order, grouping
// continuation entities with IsContinuation, as the gateway's scans do.
func scanRows(t testing.TB, s storage.Store, tbl *Table, q storage.Query) [][]Datum {
	t.Helper()
	var ents []*storage.Entity
	for {
		page, err := s.Query(context.Background(), tbl.Physical, &q)
		if err != nil {
			t.Fatal(err)
		}
		ents = append(ents, page.Entities...)
		if page.Continuation == "" {
			break
		}
		q.Continuation = page.Continuation
	}
	var rows [][]Datum
	for i := 0; i < len(ents); {
		j := i + 1
		for j < len(ents) && tbl.IsContinuation(ents[j]) {
			j++
		}
		if tbl.IsContinuation(ents[i]) {
			t.Fatalf("scan starts with a continuation %q", ents[i].RowKey)
		}
		row, err := tbl.DecodeRow(ents[i:j]...)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, row)
		i = j
	}
	return rows
}

func TestRowRoundTrip(t *testing.T) {
	c, ctx := createDB(t)
	def := &TableDef{Name: "every type", Columns: []Column{intCol("id")}, PrimaryKey: []KeyPart{{Column: "id"}}}
	for i, at := range allTypes {
		def.Columns = append(def.Columns, Column{Name: fmt.Sprintf("c%d %s", i, at.typ), Type: at.typ, Nullable: true})
	}
	tbl, err := c.CreateTable(ctx, "db", def)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	want := map[int64][]Datum{}
	for id := range int64(30) {
		row := []Datum{id}
		for _, at := range allTypes {
			if r.IntN(6) == 0 {
				row = append(row, nil)
			} else {
				row = append(row, at.gen(r))
			}
		}
		// DECIMAL comes back with the column's scale.
		for i, d := range row {
			if x, ok := d.(decimal.Decimal); ok {
				row[i] = rescale(x, tbl.Columns[i].Type.Scale)
			}
		}
		want[id] = row
		writeRow(t, c.Store(), tbl, row)
	}
	rows := scanRows(t, c.Store(), tbl, storage.Query{})
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for _, row := range rows {
		w := want[row[0].(int64)]
		for i := range row {
			if (row[i] == nil) != (w[i] == nil) || row[i] != nil && !datumEqual(row[i], w[i]) {
				t.Fatalf("row %d column %q: got %v (%T), want %v (%T)", row[0], tbl.Columns[i].Name, short(row[i]), row[i], short(w[i]), w[i])
			}
		}
	}
	// Point read with projection of small columns; the row has extras
	// (large values), so the gateway follows ContinuationRange.
	pk, rk, err := tbl.EncodePrimaryKey([]Datum{int64(3)})
	if err != nil {
		t.Fatal(err)
	}
	main, err := c.Store().Get(ctx, tbl.Physical, pk, rk, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := tbl.Extras(main); n > 0 {
		if _, err := tbl.DecodeRow(main); !errors.Is(err, ErrValue) {
			t.Fatalf("decoding a row without its %d continuations: %v", n, err)
		}
	}
	if got, err := tbl.DecodeKey(pk, rk); err != nil || got[0] != int64(3) {
		t.Fatalf("DecodeKey: %v %v", got, err)
	}
}

func short(d Datum) string {
	s := fmt.Sprint(d)
	if len(s) > 60 {
		s = s[:60] + "..."
	}
	return s
}

// TestWideRow: more columns than one entity may hold properties, and more
// bytes than one entity may hold, in a table whose RowKey is empty.
func TestWideRow(t *testing.T) {
	c, ctx := createDB(t)
	def := &TableDef{Name: "wide", Columns: []Column{intCol("id")}, PrimaryKey: []KeyPart{{Column: "id"}}}
	for i := range 600 {
		def.Columns = append(def.Columns, Column{Name: fmt.Sprintf("c%d", i), Type: Type{Kind: KindVarchar, Length: 16000}, Nullable: true})
	}
	tbl, err := c.CreateTable(ctx, "db", def)
	if err != nil {
		t.Fatal(err)
	}
	rows := [][]Datum{}
	for id := range int64(3) {
		row := []Datum{id}
		for i := range 600 {
			switch {
			case id == 1 && i < 100:
				row = append(row, strings.Repeat(string(rune('a'+i%26)), 16000)) // ~3.2 MB in all
			case i%7 == 0:
				row = append(row, nil)
			default:
				row = append(row, fmt.Sprintf("v%d-%d", id, i))
			}
		}
		rows = append(rows, row)
		_, _, ents, err := tbl.EncodeRow(row)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if err := storage.DefaultLimits.ValidateEntity(e); err != nil {
				t.Fatalf("entity %q: %v", e.RowKey, err)
			}
		}
		if len(ents) < 2 {
			t.Fatalf("row %d: %d entities, want a wide row", id, len(ents))
		}
		writeRow(t, c.Store(), tbl, row)
	}
	got := scanRows(t, c.Store(), tbl, storage.Query{})
	if len(got) != 3 {
		t.Fatalf("%d rows", len(got))
	}
	for i := range got {
		for j := range got[i] {
			if got[i][j] != rows[i][j] {
				t.Fatalf("row %d col %d differs", i, j)
			}
		}
	}
	// A point read: main entity, then its continuation range.
	pk, rk, _ := tbl.EncodePrimaryKey([]Datum{int64(1)})
	main, err := c.Store().Get(ctx, tbl.Physical, pk, rk, &storage.GetOptions{Select: tbl.Select([]int{0, 5})})
	if err != nil {
		t.Fatal(err)
	}
	page, err := c.Store().Query(ctx, tbl.Physical, &storage.Query{Partition: storage.Exactly(pk), Row: tbl.ContinuationRange(rk), Select: tbl.Select([]int{0, 5})})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Entities) != tbl.Extras(main) {
		t.Fatalf("continuation range holds %d entities, main says %d", len(page.Entities), tbl.Extras(main))
	}
	row, err := tbl.DecodeRow(append([]*storage.Entity{main}, page.Entities...)...)
	if err != nil {
		t.Fatal(err)
	}
	if row[0] != int64(1) || row[5] != rows[1][5] {
		t.Fatalf("projected row: %v %v", row[0], short(row[5]))
	}
}

// TestKeyOrderThroughStore writes rows with awkward composite keys and
// checks that a partition scan returns them in SQL order (ORDER BY pk),
// with a DESC column, and that ranges built by KeyColumn.Range select
// exactly the rows SQL selects.
func TestKeyOrderThroughStore(t *testing.T) {
	c, ctx := createDB(t)
	tbl, err := c.CreateTable(ctx, "db", &TableDef{Name: "k",
		Columns: []Column{
			{Name: "p", Type: Type{Kind: KindVarchar, Length: 50}},
			{Name: "s", Type: Type{Kind: KindVarbinary, Length: 50}},
			{Name: "n", Type: Type{Kind: KindInt64}},
			{Name: "d", Type: Type{Kind: KindDecimal, Precision: 20, Scale: 5}},
		},
		PrimaryKey: []KeyPart{{Column: "p"}, {Column: "s"}, {Column: "n", Desc: true}, {Column: "d"}}})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(2, 2))
	words := []string{"", "a", "a\x00", "a\x00b", "a ", "a/", "a#", "a?", "a\\", "ab", "a~", "b", "\x7f", "é", "\U0001F600", "\uffff", "~", "}"}
	type key struct {
		p string
		s []byte
		n int64
		d decimal.Decimal
	}
	var ks []key
	seen := map[string]bool{}
	for range 400 {
		k := key{words[r.IntN(len(words))], []byte(words[r.IntN(len(words))] + words[r.IntN(len(words))]),
			int64(r.IntN(7) - 3), decimal.New(int64(r.IntN(5)-2), int32(-r.IntN(3)))}
		id := fmt.Sprintf("%q|%q|%d|%s", k.p, k.s, k.n, k.d)
		if seen[id] {
			continue
		}
		seen[id] = true
		ks = append(ks, k)
		writeRow(t, c.Store(), tbl, []Datum{k.p, k.s, k.n, k.d})
	}
	cmp := func(a, b key) int {
		if c := strings.Compare(a.p, b.p); c != 0 {
			return c
		}
		if c := bytes.Compare(a.s, b.s); c != 0 {
			return c
		}
		if a.n != b.n {
			return -cmpInt(a.n, b.n) // DESC
		}
		return a.d.Cmp(b.d)
	}
	slices.SortFunc(ks, cmp)
	rows := scanRows(t, c.Store(), tbl, storage.Query{})
	if len(rows) != len(ks) {
		t.Fatalf("%d rows, want %d", len(rows), len(ks))
	}
	for i, row := range rows {
		got := key{row[0].(string), row[1].([]byte), row[2].(int64), row[3].(decimal.Decimal)}
		if cmp(got, ks[i]) != 0 {
			t.Fatalf("row %d: got %+v, want %+v", i, got, ks[i])
		}
	}
	// Ranges on the second and third key columns within one partition.
	ops := []storage.Op{storage.OpEq, storage.OpLt, storage.OpLe, storage.OpGt, storage.OpGe}
	sqlOp := func(c int, op storage.Op) bool {
		switch op {
		case storage.OpEq:
			return c == 0
		case storage.OpLt:
			return c < 0
		case storage.OpLe:
			return c <= 0
		case storage.OpGt:
			return c > 0
		}
		return c >= 0
	}
	for range 60 {
		probe := ks[r.IntN(len(ks))]
		op := ops[r.IntN(len(ops))]
		pk, _ := tbl.PartitionPrefix([]Datum{probe.p})
		var rng *storage.KeyRange
		var keep func(k key) bool
		if r.IntN(2) == 0 {
			v := []byte(words[r.IntN(len(words))])
			rng, err = tbl.RowColumns()[0].Range("", op, v)
			keep = func(k key) bool { return k.p == probe.p && sqlOp(bytes.Compare(k.s, v), op) }
		} else {
			prefix, _ := tbl.RowPrefix([]Datum{probe.s})
			v := int64(r.IntN(9) - 4)
			rng, err = tbl.RowColumns()[1].Range(prefix, op, v)
			keep = func(k key) bool { return k.p == probe.p && bytes.Equal(k.s, probe.s) && sqlOp(cmpInt(k.n, v), op) }
		}
		if err != nil {
			t.Fatal(err)
		}
		got := scanRows(t, c.Store(), tbl, storage.Query{Partition: storage.Exactly(pk), Row: rng})
		var want []key
		for _, k := range ks {
			if keep(k) {
				want = append(want, k)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("range %v %+v: %d rows, want %d", op, rng, len(got), len(want))
		}
		for i := range got {
			if cmp(key{got[i][0].(string), got[i][1].([]byte), got[i][2].(int64), got[i][3].(decimal.Decimal)}, want[i]) != 0 {
				t.Fatalf("range %v: row %d differs", op, i)
			}
		}
	}
}

func cmpInt(a, b int64) int { return cmp.Compare(a, b) }

func TestKeyTooLong(t *testing.T) {
	c, ctx := createDB(t)
	tbl, err := c.CreateTable(ctx, "db", &TableDef{Name: "Long Keys",
		Columns:    []Column{intCol("a"), {Name: "Name Col", Type: Type{Kind: KindVarchar, Length: 1000}}},
		PrimaryKey: []KeyPart{{Column: "a"}, {Column: "Name Col"}}})
	if err != nil {
		t.Fatal(err)
	}
	_, _, _, err = tbl.EncodeRow([]Datum{int64(1), strings.Repeat("é", 200)}) // 800 key characters
	if !errors.Is(err, storage.ErrInvalidKey) {
		t.Fatalf("long key: %v", err)
	}
	// The message names the table and the column (the user sees it).
	if msg := err.Error(); !strings.Contains(msg, `"Long Keys"`) || !strings.Contains(msg, `"Name Col"`) {
		t.Fatalf("error does not name table and column: %v", err)
	}
	if _, _, _, err := tbl.EncodeRow([]Datum{int64(1), strings.Repeat("x", 500)}); err != nil {
		t.Fatalf("a key within the limit: %v", err)
	}
}

func TestKeylessTable(t *testing.T) {
	c, ctx := createDB(t)
	tbl, err := c.CreateTable(ctx, "db", &TableDef{Name: "heap", Columns: []Column{{Name: "v", Type: Type{Kind: KindText}, Nullable: true}}})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := range 50 {
		v := fmt.Sprintf("row %d %s", i, strings.Repeat("z", i*2000)) // some rows are split
		want = append(want, v)
		writeRow(t, c.Store(), tbl, []Datum{v})
	}
	rows := scanRows(t, c.Store(), tbl, storage.Query{})
	if len(rows) != 50 {
		t.Fatalf("%d rows", len(rows))
	}
	// Generated keys are time-ordered within one process: insertion order.
	for i, row := range rows {
		if row[0] != want[i] {
			t.Fatalf("row %d: %s", i, short(row[0]))
		}
	}
}

// TestPushdown compares, for every kind whose comparisons may be pushed
// down, the store's evaluation of Compare(prop, op, Literal(v)) with SQL's
// comparison of the values.
func TestPushdown(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	ops := []storage.Op{storage.OpEq, storage.OpNe, storage.OpLt, storage.OpLe, storage.OpGt, storage.OpGe}
	for _, at := range allTypes {
		col := &Column{Name: "c", Property: "c", Type: at.typ}
		for _, op := range ops {
			if !col.Pushdown(op) {
				continue
			}
			for range 300 {
				a, b := at.gen(r), at.gen(r)
				if r.IntN(4) == 0 {
					b = a
				}
				va, err := col.Literal(a)
				if err != nil {
					t.Fatal(err)
				}
				vb, err := col.Literal(b)
				if err != nil {
					t.Fatal(err)
				}
				e := &storage.Entity{Properties: storage.Properties{"c": va}}
				got := storage.Eval(&storage.Compare{Prop: "c", Op: op, Value: vb}, e)
				c := keyCompare(at.typ, a, b)
				want := map[storage.Op]bool{storage.OpEq: c == 0, storage.OpNe: c != 0, storage.OpLt: c < 0,
					storage.OpLe: c <= 0, storage.OpGt: c > 0, storage.OpGe: c >= 0}[op]
				if got != want {
					t.Fatalf("%s: %v %v %v: store %t, SQL %t", at.typ, short(a), op, short(b), got, want)
				}
				// NULL (absent property) is never matched.
				if storage.Eval(&storage.Compare{Prop: "c", Op: op, Value: vb}, &storage.Entity{}) {
					t.Fatalf("%s: NULL matched %v", at.typ, op)
				}
			}
		}
	}
	// Columns that must not push down.
	ci := &Column{Type: Type{Kind: KindVarchar, Length: 5, Collation: "utf8mb4_0900_ai_ci"}}
	padBin := &Column{Type: Type{Kind: KindVarchar, Length: 5, Collation: "utf8mb4_bin"}}
	bin := &Column{Type: Type{Kind: KindVarchar, Length: 5}}
	text := &Column{Type: Type{Kind: KindText}}
	if ci.Pushdown(storage.OpEq) || padBin.Pushdown(storage.OpEq) || text.Pushdown(storage.OpEq) || bin.Pushdown(storage.OpLt) || !bin.Pushdown(storage.OpEq) {
		t.Fatal("string pushdown rules violated")
	}
}

// TestPadSpaceKeys: with a PAD SPACE collation, 'a' and 'a ' are one key
// (a duplicate primary key in MySQL) and rows sort as MySQL pads.
func TestPadSpaceKeys(t *testing.T) {
	c, ctx := createDB(t)
	tbl, err := c.CreateTable(ctx, "db", &TableDef{Name: "pad",
		Columns:    []Column{{Name: "s", Type: Type{Kind: KindVarchar, Length: 20, Collation: "utf8mb4_bin"}}},
		PrimaryKey: []KeyPart{{Column: "s"}}})
	if err != nil {
		t.Fatal(err)
	}
	pk1, _, _ := tbl.EncodePrimaryKey([]Datum{"a"})
	pk2, _, _ := tbl.EncodePrimaryKey([]Datum{"a  "})
	if pk1 != pk2 {
		t.Fatalf("'a' and 'a  ' have keys %q and %q", pk1, pk2)
	}
	in := []string{"a b", "a\t", "a", "a!", "a  \x00", "", "b", " a"}
	for _, v := range in {
		writeRow(t, c.Store(), tbl, []Datum{v})
	}
	rows := scanRows(t, c.Store(), tbl, storage.Query{})
	want := []string{"", " a", "a\t", "a  \x00", "a", "a b", "a!", "b"}
	for i, row := range rows {
		if row[0] != want[i] {
			t.Fatalf("row %d: %q, want %q (all: %q)", i, row[0], want[i], rows)
		}
	}
	// The stored value keeps its trailing spaces.
	writeRow(t, c.Store(), tbl, []Datum{"b   "})
	rows = scanRows(t, c.Store(), tbl, storage.Query{})
	if last := rows[len(rows)-1][0]; last != "b   " || len(rows) != len(want) {
		t.Fatalf("after upserting 'b   ': %d rows, last %q", len(rows), last)
	}
}

// TestIndexEntities writes local and global index entities for random rows
// and checks that index range scans return exactly the rows SQL selects,
// in index order, with NULLs first, and that unique keys collide.
func TestIndexEntities(t *testing.T) {
	c, ctx := createDB(t)
	tbl, err := c.CreateTable(ctx, "db", &TableDef{Name: "ix",
		Columns: []Column{intCol("tenant"), intCol("id"),
			{Name: "email", Type: Type{Kind: KindVarchar, Length: 50}, Nullable: true},
			{Name: "score", Type: Type{Kind: KindInt32}, Nullable: true},
			{Name: "note", Type: Type{Kind: KindText}, Nullable: true}},
		PrimaryKey: []KeyPart{{Column: "tenant"}, {Column: "id"}},
		Indexes: []Index{
			{Name: "by_score", Columns: []KeyPart{{Column: "score", Desc: true}, {Column: "email"}}, Covering: []string{"note"}},
			{Name: "email", Columns: []KeyPart{{Column: "email"}}, Unique: true, Global: true},
		}})
	if err != nil {
		t.Fatal(err)
	}
	local, global := tbl.Index("by_score"), tbl.Index("email")
	if global.Physical == "" {
		t.Fatal("global index without physical table")
	}
	r := rand.New(rand.NewPCG(4, 4))
	type rec struct {
		id    int64
		email Datum
		score Datum
	}
	var recs []rec
	for id := range int64(120) {
		row := []Datum{int64(7), id, nil, nil, "n"}
		if r.IntN(5) > 0 {
			row[2] = fmt.Sprintf("u%d@x/%c", id, 'a'+r.IntN(3))
		}
		if r.IntN(5) > 0 {
			row[3] = int64(r.IntN(10) - 5)
		}
		recs = append(recs, rec{id, row[2], row[3]})
		pk, rk, ents, err := tbl.EncodeRow(row)
		if err != nil {
			t.Fatal(err)
		}
		le, err := tbl.IndexEntity(local, pk, rk, row)
		if err != nil {
			t.Fatal(err)
		}
		ops := []storage.Operation{{Kind: storage.OpInsert, Entity: ents[0]}, {Kind: storage.OpInsert, Entity: le}}
		if _, err := c.Store().Batch(ctx, tbl.Physical, ops); err != nil {
			t.Fatal(err)
		}
		ge, err := tbl.IndexEntity(global, pk, rk, row)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Store().Insert(ctx, global.Physical, ge); err != nil {
			t.Fatalf("global index entity: %v", err)
		}
	}
	// Row scans stop below RowKeyEnd: index entities are not rows.
	rows := scanRows(t, c.Store(), tbl, storage.Query{Row: &storage.KeyRange{High: &storage.Bound{Key: tbl.RowKeyEnd(), Exclusive: true}}})
	if len(rows) != len(recs) {
		t.Fatalf("%d rows below RowKeyEnd, want %d", len(rows), len(recs))
	}
	// A duplicate email is rejected by the unique global index.
	dup := []Datum{int64(8), int64(1), recs[3].email, nil, nil}
	if recs[3].email != nil {
		pk, rk, _ := tbl.EncodeKey(dup)
		ge, _ := tbl.IndexEntity(global, pk, rk, dup)
		if _, err := c.Store().Insert(ctx, global.Physical, ge); !errors.Is(err, storage.ErrAlreadyExists) {
			t.Fatalf("duplicate unique value: %v", err)
		}
	}
	// Local index: score > v (DESC column), in index order.
	cols, _ := tbl.IndexColumns(local)
	pk, _ := tbl.PartitionPrefix([]Datum{int64(7)})
	_, prefix, err := tbl.IndexPrefix(local, nil)
	if err != nil {
		t.Fatal(err)
	}
	for v := int64(-6); v <= 5; v++ {
		rng, err := cols[0].Range(prefix, storage.OpGt, v)
		if err != nil {
			t.Fatal(err)
		}
		page, err := c.Store().Query(ctx, tbl.Physical, &storage.Query{Partition: storage.Exactly(pk), Row: rng})
		if err != nil {
			t.Fatal(err)
		}
		var want []rec
		for _, x := range recs {
			if x.score != nil && x.score.(int64) > v {
				want = append(want, x)
			}
		}
		if len(page.Entities) != len(want) {
			t.Fatalf("score > %d: %d index entities, want %d", v, len(page.Entities), len(want))
		}
		var prev Datum
		for i, e := range page.Entities {
			_, _, row, err := tbl.DecodeIndexEntity(local, e)
			if err != nil {
				t.Fatal(err)
			}
			if row[4] != "n" {
				t.Fatalf("covering column not carried: %v", row[4])
			}
			if i > 0 && row[3].(int64) > prev.(int64) {
				t.Fatalf("score > %d: not in descending order", v)
			}
			prev = row[3]
		}
	}
	// Global index: a point lookup by email finds the base row.
	for _, x := range recs[:20] {
		if x.email == nil {
			continue
		}
		gpk, grk, err := tbl.IndexPrefix(global, []Datum{x.email})
		if err != nil {
			t.Fatal(err)
		}
		e, err := c.Store().Get(ctx, global.Physical, gpk, grk, &storage.GetOptions{Select: tbl.IndexSelect(global, []int{2})})
		if err != nil {
			t.Fatal(err)
		}
		bpk, brk, row, err := tbl.DecodeIndexEntity(global, e)
		if err != nil || row[2] != x.email {
			t.Fatalf("index entity %v %v", row, err)
		}
		got, err := tbl.DecodeKey(bpk, brk)
		if err != nil || got[1] != x.id {
			t.Fatalf("base key of %v: %v %v", x.email, got, err)
		}
	}
}

// TestKeyRangesAllTypes checks KeyColumn.Range for every keyable type in
// both directions: a key whose component is w (after a fixed prefix, and
// followed by more components) is in Range(prefix, op, v) exactly when
// "w op v" holds in SQL; keys with another prefix never are.
func TestKeyRangesAllTypes(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	types := append([]struct {
		typ Type
		gen func(r *rand.Rand) Datum
	}{}, allTypes...)
	types = append(types, struct {
		typ Type
		gen func(r *rand.Rand) Datum
	}{Type{Kind: KindVarchar, Length: 20, Collation: "latin1_bin"}, func(r *rand.Rand) Datum {
		return []string{"", " ", "a", "a ", "a\t", "a b", "a  b", "b", "a\x00"}[r.IntN(9)]
	}})
	ops := []storage.Op{storage.OpEq, storage.OpLt, storage.OpLe, storage.OpGt, storage.OpGe}
	for _, at := range types {
		if at.typ.keyable() != nil {
			continue
		}
		for _, desc := range []bool{false, true} {
			def := &TableDef{Name: "r", Columns: []Column{intCol("p"), {Name: "k", Type: at.typ}, intCol("z")},
				PrimaryKey: []KeyPart{{Column: "p"}, {Column: "k", Desc: desc}, {Column: "z"}}}
			tbl, err := newTable(def, storage.DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			kc := tbl.RowColumns()[0]
			prefix := "" // the RowKey starts with k; test a prefix via the partition below
			for range 200 {
				v, w := at.gen(r), at.gen(r)
				if r.IntN(4) == 0 {
					w = v
				}
				if at.typ.Kind == KindDecimal {
					v, w = rescale(v.(decimal.Decimal), at.typ.Scale), rescale(w.(decimal.Decimal), at.typ.Scale)
				}
				op := ops[r.IntN(len(ops))]
				rng, err := kc.Range(prefix, op, v)
				if err != nil {
					t.Fatalf("%s: %v", at.typ, err)
				}
				rk, err := tbl.RowPrefix([]Datum{w, int64(r.IntN(3) - 1)})
				if err != nil {
					t.Fatal(err)
				}
				c := keyCompare(at.typ, w, v)
				want := map[storage.Op]bool{storage.OpEq: c == 0, storage.OpLt: c < 0, storage.OpLe: c <= 0, storage.OpGt: c > 0, storage.OpGe: c >= 0}[op]
				if got := rng.Contains(rk); got != want {
					t.Fatalf("%s desc=%t: key of %v in Range(%v %v) = %t, SQL says %t (key %q, range %+v %+v)",
						at.typ, desc, short(w), op, short(v), got, want, rk, rng.Low, rng.High)
				}
			}
			// With a prefix: keys under another prefix are outside.
			pre, _ := tbl.PartitionPrefix([]Datum{int64(5)})
			other, _ := tbl.PartitionPrefix([]Datum{int64(6)})
			pc := KeyColumn{Index: 1, Desc: desc, table: tbl}
			v := at.gen(r)
			for _, op := range ops {
				rng, err := pc.Range(pre, op, v)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := pc.Append([]byte(other), v)
				if rng.Contains(string(b)) {
					t.Fatalf("%s: Range under prefix %q contains a key under %q", at.typ, pre, other)
				}
			}
		}
	}
}

// keyCompare is SQL's comparison of two values of a key column's type.
func keyCompare(typ Type, a, b Datum) int {
	switch x := a.(type) {
	case int64:
		return cmpInt(x, b.(int64))
	case uint64:
		return cmp.Compare(x, b.(uint64))
	case float64:
		return cmp.Compare(x, b.(float64)) // key values are never NaN
	case decimal.Decimal:
		return x.Cmp(b.(decimal.Decimal))
	case time.Time:
		if typ.Kind == KindDate {
			x, y := x.Truncate(24*time.Hour), b.(time.Time).Truncate(24*time.Hour)
			return x.Compare(y)
		}
		return x.Compare(b.(time.Time))
	case string:
		y := b.(string)
		if typ.padBin() {
			x, y = strings.TrimRight(x, " "), strings.TrimRight(y, " ")
			n := max(len(x), len(y))
			for i := range n {
				cx, cy := byte(' '), byte(' ')
				if i < len(x) {
					cx = x[i]
				}
				if i < len(y) {
					cy = y[i]
				}
				if cx != cy {
					return cmpInt(int64(cx), int64(cy))
				}
			}
			return 0
		}
		return strings.Compare(x, y)
	case []byte:
		return bytes.Compare(x, b.([]byte))
	}
	panic(fmt.Sprintf("%T", a))
}

// TestWeightedCollationKeys registers a case- and accent-folding NO PAD
// collation, as the gateway registers go-mysql-server's, and checks that
// its key column deduplicates and orders by weights.
func TestWeightedCollationKeys(t *testing.T) {
	fold := func(r rune) int32 {
		switch r {
		case 'é', 'è', 'É':
			r = 'e'
		}
		if r >= 'A' && r <= 'Z' {
			r += 'a' - 'A'
		}
		return int32(r)
	}
	RegisterCollation("utf8mb4_0900_test_ci", fold)
	RegisterCollation("utf8mb4_test_pad_ci", fold) // PAD SPACE: weights without trailing spaces
	RegisterCollation("utf8mb4_test_bin", fold)    // _bin: ignored, keyed by bytes
	RegisterCollation("binary", fold)              // ignored
	c, ctx := createDB(t)
	if _, err := c.CreateTable(ctx, "db", &TableDef{Name: "unreg", Columns: []Column{{Name: "s", Type: Type{Kind: KindVarchar, Length: 9, Collation: "utf8mb4_unregistered_ci"}}},
		PrimaryKey: []KeyPart{{Column: "s"}}}); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("unregistered _ci key column: %v", err)
	}
	pad, err := c.CreateTable(ctx, "db", &TableDef{Name: "pad", Columns: []Column{{Name: "s", Type: Type{Kind: KindVarchar, Length: 9, Collation: "utf8mb4_test_pad_ci"}}},
		PrimaryKey: []KeyPart{{Column: "s"}}})
	if err != nil {
		t.Fatalf("PAD SPACE _ci key column: %v", err)
	}
	padKey := func(s string) string {
		t.Helper()
		pk, rk, err := pad.EncodeKey([]Datum{s})
		if err != nil {
			t.Fatal(err)
		}
		return pk + "/" + rk
	}
	// MySQL compares PAD SPACE collations padded: 'a' = 'A' = 'a ' = 'A  '
	// (one key), but a tab or an inner space is not padding.
	if padKey("a") != padKey("A") || padKey("a") != padKey("a ") || padKey("a") != padKey("A   ") ||
		padKey("a") == padKey("a\t") || padKey("a b") == padKey("ab") || padKey("a b") != padKey("A b ") || !(padKey("a ") < padKey("ab")) {
		t.Fatalf("PAD SPACE _ci keys: a %q A %q 'a ' %q 'a\\t' %q", padKey("a"), padKey("A"), padKey("a "), padKey("a\t"))
	}
	for c, want := range map[string]bool{"utf8mb4_general_ci": true, "UTF8MB4_BIN": true, "latin1_swedish_ci": true, "ascii_bin": true,
		"utf8mb3_unicode_ci": true, "utf8mb4_0900_ai_ci": false, "utf8mb4_0900_bin": false, "utf8mb4_ja_0900_as_cs": false, "binary": false} {
		if PadSpace(c) != want {
			t.Errorf("PadSpace(%q) = %v, want %v", c, !want, want)
		}
	}
	// The key of a padded value is not exact, and the widening prefix stops
	// before the first rune that weighs at most a space.
	pt := Type{Kind: KindVarchar, Length: 9, Collation: "utf8mb4_test_pad_ci"}
	if pt.CollationKeyExact() || !(Type{Kind: KindVarchar, Length: 9, Collation: "utf8mb4_0900_test_ci"}).CollationKeyExact() {
		t.Fatal("CollationKeyExact: PAD SPACE weights must be inexact, NO PAD exact")
	}
	if a, _ := pt.CollationKey("a"); !strings.HasPrefix(a, pt.CollationKeyPrefix("a\tb")) || !strings.HasPrefix(a, pt.CollationKeyPrefix("a b")) {
		t.Fatalf("PAD SPACE prefix of 'a\\tb' %q must prefix the key of 'a' %q", pt.CollationKeyPrefix("a\tb"), a)
	}
	bin, err := c.CreateTable(ctx, "db", &TableDef{Name: "bin", Columns: []Column{{Name: "s", Type: Type{Kind: KindVarchar, Length: 9, Collation: "utf8mb4_test_bin"}}},
		PrimaryKey: []KeyPart{{Column: "s"}}})
	if err != nil {
		t.Fatal(err)
	}
	binKey := func(s string) string {
		t.Helper()
		pk, rk, err := bin.EncodeKey([]Datum{s})
		if err != nil {
			t.Fatal(err)
		}
		return pk + "/" + rk
	}
	if binKey("Ab") != binKey("Ab ") || binKey("Ab") == binKey("ab") {
		t.Fatalf("_bin keys after RegisterCollation: Ab %q, 'Ab ' %q, ab %q", binKey("Ab"), binKey("Ab "), binKey("ab"))
	}
	tbl, err := c.CreateTable(ctx, "db", &TableDef{Name: "ci",
		Columns:    []Column{intCol("p"), {Name: "s", Type: Type{Kind: KindVarchar, Length: 20, Collation: "utf8mb4_0900_test_ci"}}, {Name: "w", Type: Type{Kind: KindLongText}, Nullable: true}},
		PrimaryKey: []KeyPart{{Column: "p"}, {Column: "s", Desc: true}}})
	if err != nil {
		t.Fatal(err)
	}
	k1, _ := tbl.RowPrefix([]Datum{"Éclair"})
	k2, _ := tbl.RowPrefix([]Datum{"eclair"})
	if k1 != k2 {
		t.Fatalf("'Éclair' and 'eclair' have keys %q, %q", k1, k2)
	}
	big := strings.Repeat("x", 40000) // continuation entities after a weights component
	for _, s := range []string{"b", "A", "ab", "a", "B\x00", "Éclair", ""} {
		writeRow(t, c.Store(), tbl, []Datum{int64(1), s, big})
	}
	rows := scanRows(t, c.Store(), tbl, storage.Query{})
	var got []string
	for _, r := range rows {
		got = append(got, r[1].(string))
	}
	// DESC by folded weights; "a" overwrote "A", and "B\x00" > "b".
	if want := []string{"Éclair", "B\x00", "b", "ab", "a", ""}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("order %q, want %q", got, want)
	}
	pk, rk, _ := tbl.EncodeKey([]Datum{int64(1), "AB", nil})
	key, err := tbl.DecodeKey(pk, rk)
	if err != nil || fmt.Sprint(key[1]) != "[97 98]" {
		t.Fatalf("DecodeKey: %v %v", key, err)
	}
}
