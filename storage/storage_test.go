package storage

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
)

// compareUTF16 is the definition CompareKeys implements: ordinal comparison
// of the UTF-16 code units.
func compareUTF16(a, b string) int {
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}

func TestCompareKeys(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "a", -1},
		{"a", "", 1},
		{"a", "b", -1},
		{"A", "a", -1},
		{"a", "aa", -1},
		{"ab", "b", -1},
		{"a b", "ab", -1},
		{"\u00e9", "z", 1},
		{"\u4e2d", "\u00ff", 1},
		{"\ud7ff", "\U00010000", -1},     // below the surrogates
		{"\U00010000", "\ue000", -1},     // surrogates sort below U+E000
		{"\U0001F600", "\uffff", -1},     // UTF-8 byte order says the opposite
		{"\U0010FFFF", "\ue000", -1},     // the largest character, still below
		{"\U0001F600", "\U0001F601", -1}, // two supplementary characters
		{"\U0001F600", "\U00010000", 1},
		{"a\U0001F600b", "a\uE000", -1}, // decided in the middle
		{"a\uE000", "a\U0001F600b", 1},
		{"x\U0001F600", "x\U0001F600", 0},
		{"\U0001F600", "\U0001F600a", -1},
	}
	for _, tc := range cases {
		if got := CompareKeys(tc.a, tc.b); got != tc.want {
			t.Errorf("CompareKeys(%+q, %+q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := compareUTF16(tc.a, tc.b); got != tc.want {
			t.Errorf("test bug: UTF-16 order of %+q, %+q is %d", tc.a, tc.b, got)
		}
	}
	// Random strings from the interesting ranges agree with the definition.
	ranges := [][2]rune{{0x20, 0x7f}, {0xa0, 0x800}, {0xd000, 0xd800}, {0xe000, 0x10000}, {0x10000, 0x110000}}
	r := rand.New(rand.NewPCG(3, 4))
	gen := func() string {
		var b strings.Builder
		for range r.IntN(5) {
			rg := ranges[r.IntN(len(ranges))]
			b.WriteRune(rg[0] + rune(r.IntN(int(rg[1]-rg[0]))))
		}
		return b.String()
	}
	for range 50000 {
		a, b := gen(), gen()
		if r.IntN(4) == 0 {
			b = a + b
		}
		if got, want := CompareKeys(a, b), compareUTF16(a, b); got != want {
			t.Fatalf("CompareKeys(%+q, %+q) = %d, UTF-16 order %d", a, b, got, want)
		}
	}
}

func TestKeyRange(t *testing.T) {
	b := func(k string, x bool) *Bound { return &Bound{Key: k, Exclusive: x} }
	r := &KeyRange{Low: b("b", false), High: b("d", true)}
	for k, want := range map[string]bool{"a": false, "b": true, "c": true, "czz": true, "d": false, "e": false} {
		if got := r.Contains(k); got != want {
			t.Errorf("[b,d).Contains(%q) = %v", k, got)
		}
	}
	r = &KeyRange{Low: b("\uE000", true)}
	if r.Contains("\U0001F600") || !r.Contains("\uE001") || r.Contains("\uE000") {
		t.Error("(U+E000,) is ordered by UTF-16 units")
	}
	var all *KeyRange
	if !all.Contains("anything") || !(&KeyRange{}).Contains("") {
		t.Error("nil and zero ranges hold everything")
	}
	if k, ok := Exactly("k").Single(); !ok || k != "k" {
		t.Error("Exactly is single")
	}
	for _, r := range []*KeyRange{nil, {}, {Low: b("a", false), High: b("a", true)}, {Low: b("a", false), High: b("b", false)}, {Low: b("a", false)}} {
		if _, ok := r.Single(); ok {
			t.Errorf("%+v is not single", r)
		}
	}
}

func TestValidateTableName(t *testing.T) {
	for _, ok := range []string{"abc", "A12", "Abc", strings.Repeat("a", 63), "tables1", "mytables"} {
		if err := ValidateTableName(ok); err != nil {
			t.Errorf("ValidateTableName(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "ab", "1ab", "a_b", "a-b", "ab ", "\u00e9ab", strings.Repeat("a", 64), "tables", "TABLES", "Tables"} {
		if err := ValidateTableName(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("ValidateTableName(%q) = %v, want ErrInvalid", bad, err)
		}
	}
}

func TestValidateKey(t *testing.T) {
	l := DefaultLimits
	for _, ok := range []string{"", " ", "a b", "~", "\u00a0", "\uFFFD", "\U0001F600", strings.Repeat("k", 512), strings.Repeat("\U0001F600", 256), strings.Repeat("\u00e9", 512)} {
		if err := l.ValidateKey("RowKey", ok); err != nil {
			t.Errorf("ValidateKey(%+q) = %v", ok, err)
		}
	}
	bad := []string{"/", "\\", "#", "?", "\x00", "\x1f", "\x7f", "\u0080", "\u009f", "a\xffb", "\xc3", "\xed\xa0\x80", // a UTF-8 surrogate
		strings.Repeat("k", 513), strings.Repeat("\U0001F600", 256) + "k"}
	for _, k := range bad {
		if err := l.ValidateKey("RowKey", k); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("ValidateKey(%+q) = %v, want ErrInvalidKey", k, err)
		}
	}
	// Cosmos: 255 bytes as well.
	if err := CosmosLimits.ValidateKey("PartitionKey", strings.Repeat("\u00e9", 128)); !errors.Is(err, ErrInvalidKey) {
		t.Errorf("256-byte key under CosmosLimits: %v", err)
	}
	if err := CosmosLimits.ValidateKey("PartitionKey", strings.Repeat("k", 255)); err != nil {
		t.Errorf("255-byte key under CosmosLimits: %v", err)
	}
	if DefaultLimits.KeyLimit() != 512 || CosmosLimits.KeyLimit() != 255 {
		t.Errorf("KeyLimit: %d, %d", DefaultLimits.KeyLimit(), CosmosLimits.KeyLimit())
	}
	if err := l.ValidateKeys("ok", "a/b"); !errors.Is(err, ErrInvalidKey) || !strings.Contains(err.Error(), "RowKey") {
		t.Errorf("ValidateKeys names the bad key: %v", err)
	}
}

func TestValidatePropertyName(t *testing.T) {
	for _, ok := range []string{"a", "_", "_1", "A_b9", strings.Repeat("n", 255), "etag", "partitionKey"} {
		if err := ValidatePropertyName(ok); err != nil {
			t.Errorf("ValidatePropertyName(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "1a", "a b", "a-b", "a.b", "\u00e9", strings.Repeat("n", 256), "PartitionKey", "RowKey", "Timestamp", "ETag"} {
		if err := ValidatePropertyName(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("ValidatePropertyName(%q) = %v, want ErrInvalid", bad, err)
		}
	}
}

func TestEntitySize(t *testing.T) {
	// Each part is the larger of the service's formula and the JSON body
	// (see EntitySize); the comments give formula / JSON.
	e := &Entity{PartitionKey: "pk", RowKey: "\U0001F600", Properties: Properties{ // keys 4+2*(2+2) / 48+2+12
		"s":  String("ab\U0001F600"),  // 8+2 + 4+2*4 / 4+1 + 2+2+12
		"b":  Binary([]byte{1, 2, 3}), // 8+2 + 4+3 / 4+1 + 2+4 + 30+1
		"i":  Int32(1),                // 8+2 + 4 / 4+1 + 11 + 30+1
		"l":  Int64(1),                // 8+2 + 8 / 4+1 + 22 + 30+1
		"d":  Double(1),               // 8+2 + 8 / 4+1 + 32 + 30+1
		"t":  DateTime(time.Now()),    // 8+2 + 8 / 4+1 + 30 + 30+1
		"ok": Bool(true),              // 8+4 + 1 / 4+2 + 5
		"g":  GUID([16]byte{}),        // 8+2 + 16 / 4+1 + 38 + 30+1
	}}
	want := 62 + 22 + 42 + 47 + 58 + 68 + 66 + 13 + 74
	if got := EntitySize(e); got != want {
		t.Fatalf("EntitySize = %d, want %d", got, want)
	}
	if got := EntitySize(&Entity{}); got != 48 {
		t.Fatalf("EntitySize of an empty entity = %d", got)
	}
}

func TestValidateEntity(t *testing.T) {
	l := DefaultLimits
	ok := func(e *Entity) {
		t.Helper()
		if err := l.ValidateEntity(e); err != nil {
			t.Errorf("ValidateEntity: %v", err)
		}
	}
	fails := func(e *Entity, want error) {
		t.Helper()
		if err := l.ValidateEntity(e); !errors.Is(err, want) {
			t.Errorf("ValidateEntity = %v, want %v", err, want)
		}
	}
	props := func(p Properties) *Entity { return &Entity{PartitionKey: "p", RowKey: "r", Properties: p} }
	ok(props(nil))
	ok(props(Properties{"s": String(strings.Repeat("x", MaxStringUTF16))}))
	ok(props(Properties{"s": String(strings.Repeat("\U0001F600", MaxStringUTF16/2))}))
	ok(props(Properties{"b": Binary(make([]byte, MaxValueBytes))}))
	ok(props(Properties{"t": DateTime(time.Date(1601, 1, 1, 0, 0, 0, 0, time.UTC))}))
	ok(props(Properties{"t": DateTime(time.Date(9999, 12, 31, 23, 59, 59, 999_999_999, time.UTC))}))
	fails(nil, ErrInvalid)
	fails(&Entity{PartitionKey: "a#", RowKey: "r"}, ErrInvalidKey)
	fails(props(Properties{"s": String(strings.Repeat("x", MaxStringUTF16+1))}), ErrTooLarge)
	fails(props(Properties{"s": String(strings.Repeat("\U0001F600", MaxStringUTF16/2) + "x")}), ErrTooLarge)
	fails(props(Properties{"s": String("\xff")}), ErrInvalid)
	fails(props(Properties{"b": Binary(make([]byte, MaxValueBytes+1))}), ErrTooLarge)
	fails(props(Properties{"t": DateTime(time.Date(1600, 12, 31, 23, 59, 59, 0, time.UTC))}), ErrInvalid)
	fails(props(Properties{"t": DateTime(time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC))}), ErrInvalid)
	fails(props(Properties{"v": {}}), ErrInvalid)
	fails(props(Properties{"i": {typ: TypeInt32, i: math.MaxInt32 + 1}}), ErrInvalid)
	fails(props(Properties{"g": {typ: TypeGUID, s: string(make([]byte, 15))}}), ErrInvalid)
	fails(props(Properties{"bad name": Int32(1)}), ErrInvalid)
	fails(props(Properties{"ETag": Int32(1)}), ErrInvalid)
	many := Properties{}
	for i := range MaxProperties {
		many[string(rune('a'+i%26))+strings.Repeat("x", i/26)] = Bool(true)
	}
	ok(props(many))
	many["one_more"] = Bool(true)
	fails(props(many), ErrTooLarge)
	big := Properties{}
	for i := range 17 {
		big[string(rune('a'+i))] = Binary(make([]byte, MaxValueBytes))
	}
	fails(props(big), ErrTooLarge)
	for _, k := range []string{"a", "b", "c", "d", "e"} { // 12 Binary values: over 1 MiB in base64
		delete(big, k)
	}
	fails(props(big), ErrTooLarge)
	delete(big, "f")
	ok(props(big)) // 11: 961 KB of base64
}

func TestValidateBatch(t *testing.T) {
	l := DefaultLimits
	op := func(k OpKind, pk, rk string) Operation {
		return Operation{Kind: k, Entity: &Entity{PartitionKey: pk, RowKey: rk}}
	}
	check := func(ops []Operation, index int, want error) {
		t.Helper()
		err := l.ValidateBatch(ops)
		if want == nil {
			if err != nil {
				t.Errorf("ValidateBatch: %v", err)
			}
			return
		}
		var be *BatchError
		if !errors.As(err, &be) || be.Index != index || !errors.Is(err, want) {
			t.Errorf("ValidateBatch = %v, want BatchError{%d, %v}", err, index, want)
		}
	}
	check([]Operation{op(OpInsert, "p", "a"), op(OpDelete, "p", "b"), op(OpUpsert, "p", "c"), op(OpUpdate, "p", "d")}, 0, nil)
	check(nil, -1, ErrInvalid)
	hundred := make([]Operation, MaxBatchOps+1)
	for i := range hundred {
		hundred[i] = op(OpInsert, "p", strconv.Itoa(i))
	}
	check(hundred[:MaxBatchOps], 0, nil)
	check(hundred, -1, ErrTooLarge)
	check([]Operation{op(OpInsert, "p", "a"), op(OpInsert, "q", "b")}, 1, ErrInvalid)
	check([]Operation{op(OpInsert, "p", "a"), op(OpInsert, "p", "b"), op(OpDelete, "p", "a")}, 2, ErrInvalid)
	check([]Operation{op(OpInsert, "p", "a"), {Kind: OpInsert}}, 1, ErrInvalid)
	check([]Operation{op(OpInsert, "p", "a"), op(0, "p", "b")}, 1, ErrInvalid)
	check([]Operation{op(OpDelete, "p", "a?")}, 0, ErrInvalidKey)
	big := Properties{}
	for i := range 11 { // 961 KB by EntitySize (Binary as base64)
		big[string(rune('a'+i))] = Binary(make([]byte, MaxValueBytes))
	}
	var large []Operation
	for i := range 5 {
		large = append(large, Operation{Kind: OpUpsert, Entity: &Entity{PartitionKey: "p", RowKey: string(rune('a' + i)), Properties: big}})
	}
	check(large[:4], 0, nil)
	check(large, -1, ErrTooLarge)
	if s := (&BatchError{Index: 3, Err: ErrNotFound}).Error(); !strings.Contains(s, "3") {
		t.Errorf("BatchError text %q", s)
	}
}

func TestValidateQuery(t *testing.T) {
	l := DefaultLimits
	good := []*Query{
		{},
		{Select: []string{"a", "PartitionKey", "RowKey", "Timestamp", "ETag"}, Top: 5},
		{Filter: And{Eq("a", Int32(1)), &Not{X: Or{Gt(PropTimestamp, DateTime(time.Now())), Eq(PropRowKey, String("r"))}}}},
		{Filter: Eq("b", Bool(true))},
		{Filter: Ne("g", GUID([16]byte{}))},
	}
	for _, q := range good {
		if err := l.ValidateQuery(q); err != nil {
			t.Errorf("ValidateQuery(%s): %v", FormatOData(q.Filter), err)
		}
	}
	bad := []*Query{
		nil,
		{Top: -1},
		{Select: []string{"a-b"}},
		{Filter: And{}},
		{Filter: Or{nil}},
		{Filter: &Not{}},
		{Filter: (*Not)(nil)},
		{Filter: (*Compare)(nil)},
		{Filter: Eq("a", Value{})},
		{Filter: Gt("a", Bool(true))},
		{Filter: Lt("a", Binary([]byte{1}))},
		{Filter: Ge("a", GUID([16]byte{}))},
		{Filter: Eq(PropPartitionKey, Int32(1))},
		{Filter: Eq(PropTimestamp, String("now"))},
		{Filter: Eq("ETag", String("x"))},
		{Filter: &Compare{Prop: "a", Op: 0, Value: Int32(1)}},
		{Filter: &Compare{Prop: "a", Op: OpLe + 1, Value: Int32(1)}},
		{Filter: Eq("a", String("\xff"))},
		{Filter: Eq("a", DateTime(time.Date(1500, 1, 1, 0, 0, 0, 0, time.UTC)))},
	}
	for i, q := range bad {
		if err := l.ValidateQuery(q); !errors.Is(err, ErrInvalid) {
			t.Errorf("bad query %d: %v, want ErrInvalid", i, err)
		}
	}
	if n := CountComparisons(And{Eq("a", Int32(1)), &Not{X: Or{Eq("b", Int32(1)), Eq("c", Int32(2))}}}); n != 3 {
		t.Errorf("CountComparisons = %d", n)
	}
}

func TestFormatOData(t *testing.T) {
	g := [16]byte{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef}
	a, b, c := Eq("a", Int32(1)), Gt("b", Int64(2)), Le("c", String("x"))
	cases := []struct {
		x    Expr
		want string
	}{
		{nil, ""},
		{a, "a eq 1"},
		{Ne("s", String("it's")), "s ne 'it''s'"},
		{Eq("s", String("'); drop --")), "s eq '''); drop --'"},
		{Eq("s", String("")), "s eq ''"},
		{b, "b gt 2L"},
		{Ge("d", Double(3)), "d ge 3.0"},
		{Lt("d", Double(-1.5)), "d lt -1.5"},
		{Lt("d", Double(1e21)), "d lt 1000000000000000000000.0"},
		{Eq("t", DateTime(time.Date(2024, 2, 29, 13, 14, 15, 123_456_700, time.UTC))), "t eq datetime'2024-02-29T13:14:15.1234567Z'"},
		{Eq("t", DateTime(time.Date(2024, 2, 29, 13, 14, 15, 0, time.FixedZone("x", 3600)))), "t eq datetime'2024-02-29T12:14:15.0000000Z'"},
		{Eq("ok", Bool(false)), "ok eq false"},
		{Eq("g", GUID(g)), "g eq guid'12345678-9abc-def0-0123-456789abcdef'"},
		{Eq("bin", Binary([]byte{0, 0xff})), "bin eq X'00ff'"},
		{And{a, b}, "a eq 1 and b gt 2L"},
		{And{a}, "a eq 1"},
		{Or{a, b, c}, "a eq 1 or b gt 2L or c le 'x'"},
		{And{a, Or{b, c}}, "a eq 1 and (b gt 2L or c le 'x')"},
		{Or{And{a, b}, c}, "(a eq 1 and b gt 2L) or c le 'x'"},
		{&Not{X: a}, "not (a eq 1)"},
		{&Not{X: And{a, b}}, "not (a eq 1 and b gt 2L)"},
		{And{&Not{X: a}, b}, "not (a eq 1) and b gt 2L"},
		{Or{And{a, Or{b, c}}, &Not{X: c}}, "(a eq 1 and (b gt 2L or c le 'x')) or not (c le 'x')"},
		{Eq(PropPartitionKey, String("p")), "PartitionKey eq 'p'"},
	}
	for _, tc := range cases {
		if got := FormatOData(tc.x); got != tc.want {
			t.Errorf("FormatOData = %s\n               want %s", got, tc.want)
		}
	}
	if got, err := ParseGUID(FormatGUID(g)); err != nil || got != g {
		t.Errorf("ParseGUID(FormatGUID) = %x, %v", got, err)
	}
	for _, bad := range []string{"", "12345678-9abc-def0-0123-456789abcdeg", "123456789abc-def0-0123-456789abcdef0"} {
		if _, err := ParseGUID(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseGUID(%q) = %v", bad, err)
		}
	}
}

func TestEval(t *testing.T) {
	ts := time.Date(2020, 1, 2, 3, 4, 5, 600, time.UTC)
	e := &Entity{PartitionKey: "p", RowKey: "\U0001F600", Timestamp: ts, Properties: Properties{
		"s": String("b"), "i": Int32(5), "l": Int64(-7), "d": Double(2.5), "nan": Double(math.NaN()),
		"ok": Bool(true), "t": DateTime(ts), "bin": Binary([]byte{1, 2}), "g": GUID([16]byte{1}),
	}}
	cases := []struct {
		x    Expr
		want bool
	}{
		{nil, true},
		{Eq("s", String("b")), true},
		{Gt("s", String("a")), true},
		{Gt("s", String("ab")), true},
		{Lt("s", String("b\u0000")), true},
		{Ge("s", String("c")), false},
		{Eq("i", Int32(5)), true},
		{Ne("i", Int32(5)), false},
		{Lt("i", Int32(6)), true},
		{Le("i", Int32(4)), false},
		{Gt("l", Int64(-8)), true},
		{Lt("l", Int64(-7)), false},
		{Ge("d", Double(2.5)), true},
		{Gt("d", Double(2.5)), false},
		{Eq("nan", Double(math.NaN())), false},
		{Ne("nan", Double(math.NaN())), true},
		{Lt("nan", Double(1)), false},
		{Ge("nan", Double(1)), false},
		{Eq("ok", Bool(true)), true},
		{Ne("ok", Bool(true)), false},
		{Gt("ok", Bool(false)), false}, // booleans have no order
		{Eq("t", DateTime(ts)), true},
		{Lt("t", DateTime(ts.Add(100*time.Nanosecond))), true},
		{Lt("t", DateTime(ts.Add(99*time.Nanosecond))), false}, // truncated to 100 ns
		{Eq("bin", Binary([]byte{1, 2})), true},
		{Ne("bin", Binary([]byte{1})), true},
		{Gt("bin", Binary([]byte{1})), false},
		{Eq("g", GUID([16]byte{1})), true},
		{Ne("g", GUID([16]byte{2})), true},
		// Different types compare false, whatever the operator.
		{Eq("i", Int64(5)), false},
		{Ne("i", Int64(5)), false},
		{Ne("s", Int32(1)), false},
		{Eq("d", Int32(2)), false},
		// Absent properties: every comparison is false; not inverts.
		{Eq("missing", String("x")), false},
		{Ne("missing", String("x")), false},
		{Lt("missing", Int32(0)), false},
		{&Not{X: Eq("missing", String("x"))}, true},
		{&Not{X: Ne("missing", String("x"))}, true},
		{&Not{X: Eq("s", String("b"))}, false},
		{And{Eq("s", String("b")), Eq("i", Int32(5))}, true},
		{And{Eq("s", String("b")), Eq("missing", Int32(5))}, false},
		{Or{Eq("missing", String("b")), Eq("i", Int32(5))}, true},
		{Or{Eq("missing", String("b")), Ne("missing", Int32(5))}, false},
		{&Not{X: Or{Eq("missing", String("b")), Ne("missing", Int32(5))}}, true},
		// Pseudo-properties.
		{Eq(PropPartitionKey, String("p")), true},
		{Lt(PropRowKey, String("\uE000")), true}, // UTF-16 order
		{Gt(PropRowKey, String("\uD7FF")), true},
		{Eq(PropTimestamp, DateTime(ts)), true},
		{Gt(PropTimestamp, DateTime(ts)), false},
	}
	for _, tc := range cases {
		if got := Eval(tc.x, e); got != tc.want {
			t.Errorf("Eval(%s) = %v, want %v", FormatOData(tc.x), got, tc.want)
		}
	}
	// EvalFunc asks only for what it needs and short-circuits.
	var asked []string
	EvalFunc(Or{Eq("a", Int32(1)), And{Eq("b", Int32(1)), Eq("c", Int32(1))}}, func(p string) (Value, bool) {
		asked = append(asked, p)
		return Int32(1), p == "a"
	})
	if !slices.Equal(asked, []string{"a"}) {
		t.Errorf("EvalFunc looked up %q, want [a]", asked)
	}
}

func TestValues(t *testing.T) {
	ts := time.Date(1601, 1, 1, 0, 0, 0, 100, time.UTC)
	if got := DateTime(ts).Time(); !got.Equal(ts) {
		t.Errorf("DateTime round trip %v -> %v", ts, got)
	}
	if got := DateTime(time.Date(1969, 12, 31, 23, 59, 59, 999_999_900, time.UTC)).Time(); got.Nanosecond() != 999_999_900 || got.Year() != 1969 {
		t.Errorf("DateTime before 1970: %v", got)
	}
	if got := DateTimeTicks(0).Time(); !got.Equal(time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("tick 0 = %v", got)
	}
	if DateTime(time.Unix(0, 0)).Ticks() != unixEpochTicks {
		t.Error("Unix epoch ticks")
	}
	if !Double(math.NaN()).Equal(Double(math.NaN())) || Double(0).Equal(Double(math.Copysign(0, -1))) {
		t.Error("Equal is identity on doubles")
	}
	if Int32(1).Equal(Int64(1)) || !Binary(nil).Equal(Binary([]byte{})) || String("a").Equal(String("b")) {
		t.Error("Equal compares types and contents")
	}
	if !Bool(true).BoolValue() || Bool(false).Int() != 0 {
		t.Error("Bool")
	}
	if (Value{}).IsValid() || !Int32(0).IsValid() {
		t.Error("IsValid")
	}
	if Type(0).String() != "invalid" || TypeGUID.String() != "Edm.Guid" || OpGe.String() != "ge" {
		t.Error("names")
	}
}
