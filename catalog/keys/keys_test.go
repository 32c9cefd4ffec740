package keys

import (
	"bytes"
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

// codec is one component type under test: how to encode, decode, compare
// in SQL order, and generate random values.
type codec struct {
	name string
	enc  func(b []byte, v any, desc bool) []byte
	dec  func(b []byte, desc bool) ([]byte, any, error)
	cmp  func(a, b any) int
	gen  func(r *rand.Rand) any
	eq   func(a, b any) bool
}

func dirEnc[T any](asc, desc func([]byte, T) []byte) func([]byte, any, bool) []byte {
	return func(b []byte, v any, d bool) []byte {
		if d {
			return desc(b, v.(T))
		}
		return asc(b, v.(T))
	}
}

func dirDec[T any](asc, desc func([]byte) ([]byte, T, error)) func([]byte, bool) ([]byte, any, error) {
	return func(b []byte, d bool) ([]byte, any, error) {
		var rest []byte
		var v T
		var err error
		if d {
			rest, v, err = desc(b)
		} else {
			rest, v, err = asc(b)
		}
		return rest, v, err
	}
}

// awkward are strings that break naive key encodings.
var awkward = []string{"", " ", "a", "a ", "a\x00", "a\x00b", "ab", "a/", "a\\", "#", "?", "/", "\\",
	"\x7f", "\u0080", "\u009f", "\u00a0", "é", "e\u0301", "\uffff", "\U0001F600", "\ue000", "~", "~~",
	"}", "!", "\"", "$", "%", "'", "+", "A", "Z", "[", "`", "{", "|", "\x1f", "\t", "a\"", "a!"}

func genString(r *rand.Rand) any {
	if r.IntN(4) == 0 {
		return awkward[r.IntN(len(awkward))]
	}
	n := r.IntN(8)
	var sb strings.Builder
	for range n {
		switch r.IntN(4) {
		case 0:
			sb.WriteByte(byte(r.IntN(128)))
		case 1:
			sb.WriteByte("aA0/#?\\~ "[r.IntN(9)])
		case 2:
			sb.WriteRune(rune(r.IntN(0x3000)))
		default:
			sb.WriteString(awkward[r.IntN(len(awkward))])
		}
	}
	return sb.String()
}

func genInt(r *rand.Rand) any {
	switch r.IntN(5) {
	case 0:
		return []int64{0, 1, -1, 9, 10, -9, -10, 99, 100, math.MaxInt64, math.MinInt64, math.MinInt64 + 1}[r.IntN(12)]
	case 1:
		return int64(r.IntN(2000) - 1000)
	default:
		return int64(r.Uint64()) >> r.IntN(64)
	}
}

func genUint(r *rand.Rand) any {
	if r.IntN(4) == 0 {
		return []uint64{0, 1, 9, 10, math.MaxUint64, math.MaxInt64, math.MaxInt64 + 1}[r.IntN(7)]
	}
	return r.Uint64() >> r.IntN(64)
}

func genFloat(r *rand.Rand) any {
	switch r.IntN(4) {
	case 0:
		return []float64{0, math.Copysign(0, -1), 1, -1, math.MaxFloat64, -math.MaxFloat64,
			math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 0.1, -0.1}[r.IntN(10)]
	case 1:
		return float64(r.IntN(100) - 50)
	default:
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return 1.5
		}
		return f
	}
}

func genDecimal(r *rand.Rand) any {
	switch r.IntN(4) {
	case 0:
		return decimal.RequireFromString([]string{"0", "1", "-1", "0.1", "-0.1", "10", "1.50", "0.05",
			"99999999999999999999999999999999999.999999999999999999999999999999",
			"-99999999999999999999999999999999999.999999999999999999999999999999",
			"0.000000000000000000000000000001", "-0.000000000000000000000000000001", "100", "0.00"}[r.IntN(14)])
	default:
		var sb strings.Builder
		if r.IntN(2) == 0 {
			sb.WriteByte('-')
		}
		n := 1 + r.IntN(35)
		for range n {
			sb.WriteByte(byte('0' + r.IntN(10)))
		}
		if r.IntN(2) == 0 {
			sb.WriteByte('.')
			for range 1 + r.IntN(30) {
				sb.WriteByte(byte('0' + r.IntN(10)))
			}
		}
		return decimal.RequireFromString(sb.String())
	}
}

func genTime(r *rand.Rand, micros bool) time.Time {
	lo := time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	hi := time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC).Unix()
	if r.IntN(3) == 0 {
		lo = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
		hi = lo + 86400*3
	}
	if r.IntN(20) == 0 {
		return ZeroDate // MySQL's zero date, below every other date
	}
	t := time.Unix(lo+r.Int64N(hi-lo+1), 0).UTC()
	if micros {
		t = t.Add(time.Duration(r.IntN(1_000_000)) * time.Microsecond)
	}
	return t
}

var codecs = []codec{
	{name: "int", enc: dirEnc(EncodeIntAscending, EncodeIntDescending), dec: dirDec(DecodeIntAscending, DecodeIntDescending),
		cmp: func(a, b any) int { return cmpOrdered(a.(int64), b.(int64)) }, gen: genInt},
	{name: "uint", enc: dirEnc(EncodeUintAscending, EncodeUintDescending), dec: dirDec(DecodeUintAscending, DecodeUintDescending),
		cmp: func(a, b any) int { return cmpOrdered(a.(uint64), b.(uint64)) }, gen: genUint},
	{name: "float", enc: dirEnc(EncodeFloatAscending, EncodeFloatDescending), dec: dirDec(DecodeFloatAscending, DecodeFloatDescending),
		cmp: func(a, b any) int { return cmpOrdered(a.(float64), b.(float64)) }, gen: genFloat,
		eq: func(a, b any) bool { return a.(float64) == b.(float64) }},
	{name: "decimal", enc: dirEnc(EncodeDecimalAscending, EncodeDecimalDescending), dec: dirDec(DecodeDecimalAscending, DecodeDecimalDescending),
		cmp: func(a, b any) int { return a.(decimal.Decimal).Cmp(b.(decimal.Decimal)) }, gen: genDecimal,
		eq: func(a, b any) bool { return a.(decimal.Decimal).Equal(b.(decimal.Decimal)) }},
	{name: "string", enc: dirEnc(EncodeStringAscending, EncodeStringDescending), dec: dirDec(DecodeStringAscending, DecodeStringDescending),
		cmp: func(a, b any) int { return strings.Compare(a.(string), b.(string)) }, gen: genString},
	{name: "stringpad", enc: dirEnc(EncodeStringPadAscending, EncodeStringPadDescending), dec: dirDec(DecodeStringPadAscending, DecodeStringPadDescending),
		cmp: func(a, b any) int { return padCompare(a.(string), b.(string)) }, gen: genPadString,
		eq: func(a, b any) bool { return TrimPad(a.(string)) == TrimPad(b.(string)) }},
	{name: "weights", enc: dirEnc(EncodeWeightsAscending, EncodeWeightsDescending), dec: dirDec(DecodeWeightsAscending, DecodeWeightsDescending),
		cmp: func(a, b any) int { return slices.Compare(a.([]int32), b.([]int32)) },
		gen: func(r *rand.Rand) any {
			w := make([]int32, r.IntN(5))
			for i := range w {
				w[i] = int32(r.IntN(7)-3) << (r.IntN(4) * 8)
			}
			return w
		},
		eq: func(a, b any) bool { return slices.Equal(a.([]int32), b.([]int32)) }},
	{name: "bytes", enc: dirEnc(EncodeBytesAscending, EncodeBytesDescending), dec: dirDec(DecodeBytesAscending, DecodeBytesDescending),
		cmp: func(a, b any) int { return bytes.Compare(a.([]byte), b.([]byte)) },
		gen: func(r *rand.Rand) any {
			b := make([]byte, r.IntN(10))
			for i := range b {
				b[i] = byte(r.Uint32())
			}
			return b
		},
		eq: func(a, b any) bool { return bytes.Equal(a.([]byte), b.([]byte)) }},
	{name: "date", enc: dirEnc(EncodeDateAscending, EncodeDateDescending), dec: dirDec(DecodeDateAscending, DecodeDateDescending),
		cmp: func(a, b any) int { return a.(time.Time).Compare(b.(time.Time)) },
		gen: func(r *rand.Rand) any {
			t := genTime(r, false)
			if IsZeroDate(t) {
				return t
			}
			return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		},
		eq: func(a, b any) bool { return a.(time.Time).Equal(b.(time.Time)) }},
	{name: "datetime", enc: dirEnc(EncodeDatetimeAscending, EncodeDatetimeDescending), dec: dirDec(DecodeDatetimeAscending, DecodeDatetimeDescending),
		cmp: func(a, b any) int { return a.(time.Time).Compare(b.(time.Time)) },
		gen: func(r *rand.Rand) any { return genTime(r, true) },
		eq:  func(a, b any) bool { return a.(time.Time).Equal(b.(time.Time)) }},
}

func cmpOrdered[T int64 | uint64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (c codec) equal(a, b any) bool {
	if c.eq != nil {
		return c.eq(a, b)
	}
	return a == b
}

// checkKey asserts the Table-service key rules and the key alphabet.
func checkKey(t testing.TB, what string, k []byte) {
	t.Helper()
	if !Valid(string(k)) {
		t.Fatalf("%s: %q has a character outside the key alphabet", what, k)
	}
	if err := storage.DefaultLimits.ValidateKey("RowKey", string(k)); err != nil {
		t.Fatalf("%s: %q: %v", what, k, err)
	}
}

func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range codecs {
		for _, desc := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/desc=%t", c.name, desc), func(t *testing.T) {
				for range 2000 {
					v := c.gen(r)
					k := c.enc([]byte("pre"), v, desc)
					if !bytes.HasPrefix(k, []byte("pre")) {
						t.Fatalf("encoder did not append")
					}
					k = k[3:]
					checkKey(t, c.name, k)
					// A trailing component must be left as the rest.
					in := append(slices.Clip(k), "a1"...)
					rest, got, err := c.dec(in, desc)
					if err != nil {
						t.Fatalf("decode %q (%v): %v", k, v, err)
					}
					if string(rest) != "a1" {
						t.Fatalf("decode %q: rest %q, want \"a1\"", k, rest)
					}
					if !c.equal(got, v) {
						t.Fatalf("decode %q = %v, want %v", k, got, v)
					}
				}
			})
		}
	}
}

// TestOrder sorts random values (with neighbours and duplicates) in SQL
// order and checks that their encodings come out sorted, strictly where
// the values differ, in both directions, also as the first component of a
// composite key followed by another component.
func TestOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range codecs {
		for _, desc := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/desc=%t", c.name, desc), func(t *testing.T) {
				vals := make([]any, 0, 600)
				for range 300 {
					v := c.gen(r)
					vals = append(vals, v, v)
				}
				vals = append(vals, c.gen(r))
				slices.SortStableFunc(vals, c.cmp)
				if desc {
					slices.Reverse(vals)
				}
				var prev []byte
				var prevV any
				for i, v := range vals {
					// The composite suffix is chosen to be as hostile as possible:
					// a large one after a small value and vice versa.
					suffix := "~"
					if i%2 == 0 {
						suffix = "!"
					}
					k := append(c.enc(nil, v, desc), suffix...)
					if prev != nil {
						sqlCmp := c.cmp(prevV, v)
						if desc {
							sqlCmp = -sqlCmp
						}
						kc := storage.CompareKeys(string(prev[:len(prev)-1]), string(k[:len(k)-1]))
						if kc != sqlCmp {
							t.Fatalf("values %v, %v compare %d; encodings %q, %q compare %d", prevV, v, sqlCmp, prev, k, kc)
						}
						if sqlCmp != 0 {
							if got := storage.CompareKeys(string(prev), string(k)); got != sqlCmp {
								t.Fatalf("composite %q vs %q: %d, want %d", prev, k, got, sqlCmp)
							}
						}
					}
					prev, prevV = k, v
				}
			})
		}
	}
}

// TestComposite checks two-column keys (string, int) whose first columns
// are prefixes of each other, against a tuple comparison.
func TestComposite(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	type tuple struct {
		s    string
		i    int64
		desc bool
	}
	enc := func(x tuple) string {
		b := EncodeStringAscending(nil, x.s)
		if x.desc {
			return string(EncodeIntDescending(b, x.i))
		}
		return string(EncodeIntAscending(b, x.i))
	}
	for _, desc := range []bool{false, true} {
		var ts []tuple
		for range 500 {
			ts = append(ts, tuple{genString(r).(string), genInt(r).(int64), desc})
		}
		slices.SortFunc(ts, func(a, b tuple) int {
			if c := strings.Compare(a.s, b.s); c != 0 {
				return c
			}
			if desc {
				return cmpOrdered(b.i, a.i)
			}
			return cmpOrdered(a.i, b.i)
		})
		for i := 1; i < len(ts); i++ {
			a, b := enc(ts[i-1]), enc(ts[i])
			if storage.CompareKeys(a, b) > 0 {
				t.Fatalf("%+v < %+v but %q > %q", ts[i-1], ts[i], a, b)
			}
		}
	}
}

func TestGolden(t *testing.T) {
	d := decimal.RequireFromString
	day := time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		got  []byte
		want string
	}{
		{EncodeNullAscending(nil), "!"},
		{EncodeNullDescending(nil), "~"},
		{EncodeIntAscending(nil, 0), "a0"},
		{EncodeIntAscending(nil, 42), "b42"},
		{EncodeIntAscending(nil, -1), "Z8"},
		{EncodeIntAscending(nil, -10), "Y89"},
		{EncodeIntAscending(nil, math.MinInt64), "H0776627963145224191"},
		{EncodeIntAscending(nil, math.MaxInt64), "s9223372036854775807"},
		{EncodeUintAscending(nil, math.MaxUint64), "t18446744073709551615"},
		{EncodeIntDescending(nil, 42), "Cpr"},
		{EncodeStringAscending(nil, ""), `"`},
		{EncodeStringAscending(nil, "ab"), `ab"`},
		{EncodeStringAscending(nil, "a/b"), `a$Vb"`},
		{EncodeStringAscending(nil, "a b"), `a$Gb"`},
		{EncodeStringAscending(nil, "\x00"), `$!"`},
		{EncodeStringAscending(nil, "é"), `{p{U"`},
		{EncodeStringAscending(nil, "\U0001F600?#"), `|E{K{D{):)$J"`},
		{EncodeStringDescending(nil, "ab"), "DC}"},
		{EncodeStringDescending(nil, ""), `}`},
		{EncodeStringPadAscending(nil, "a  "), `a(`},
		{EncodeWeightsAscending(nil, []int32{65, -1}), `b65Z8"`},
		{EncodeWeightsAscending(nil, nil), `"`},
		{EncodeStringPadAscending(nil, "a b"), `a)Dsb(`},
		{EncodeStringPadAscending(nil, "a  \t"), `a&a2$.(`},
		{EncodeStringPadAscending(nil, "a!\x00"), `a*!$!(`},
		{EncodeFloatAscending(nil, 0), "8000000000000000"},
		{EncodeFloatAscending(nil, math.Copysign(0, -1)), "8000000000000000"},
		{EncodeFloatAscending(nil, 1), "bff0000000000000"},
		{EncodeFloatAscending(nil, -1), "400fffffffffffff"},
		{EncodeDecimalAscending(nil, d("0")), "N"},
		{EncodeDecimalAscending(nil, d("0.000")), "N"},
		{EncodeDecimalAscending(nil, d("1.50")), `Oa115"`},
		{EncodeDecimalAscending(nil, d("0.05")), `OZ85"`},
		{EncodeDecimalAscending(nil, d("-1.5")), "MDsso}"},
		{EncodeDateAscending(nil, day), "2024-02-29"},
		{EncodeDatetimeAscending(nil, day.Add(13*time.Hour+4*time.Minute+5*time.Second+6*time.Microsecond)), "2024-02-29T13:04:05.000006"},
		{EncodeDateAscending(nil, ZeroDate), "0000-00-00"},
		{EncodeDatetimeAscending(nil, ZeroDate), "0000-00-00T00:00:00.000000"},
		{EncodeDateAscending(nil, time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)), "0000-01-01"},
	}
	for i, c := range cases {
		if string(c.got) != c.want {
			t.Errorf("case %d: got %q, want %q", i, c.got, c.want)
		}
	}
	// The alphabet itself is part of the format.
	if Alphabet != "!\"$&()*,-.0123456789:;<=>@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`abcdefghijklmnopqrstuvwxyz{|}~" {
		t.Fatal("alphabet changed")
	}
}

func TestMalformed(t *testing.T) {
	decoders := map[string]func([]byte) error{
		"int":      func(b []byte) error { _, _, err := DecodeIntAscending(b); return err },
		"uint":     func(b []byte) error { _, _, err := DecodeUintAscending(b); return err },
		"float":    func(b []byte) error { _, _, err := DecodeFloatAscending(b); return err },
		"decimal":  func(b []byte) error { _, _, err := DecodeDecimalAscending(b); return err },
		"string":   func(b []byte) error { _, _, err := DecodeStringAscending(b); return err },
		"date":     func(b []byte) error { _, _, err := DecodeDateAscending(b); return err },
		"datetime": func(b []byte) error { _, _, err := DecodeDatetimeAscending(b); return err },
		"intdesc":  func(b []byte) error { _, _, err := DecodeIntDescending(b); return err },
		"strdesc":  func(b []byte) error { _, _, err := DecodeStringDescending(b); return err },
	}
	bad := map[string][]string{
		"int":      {"", "a", "b4", "b00", "b04", "Z9", "ax", "!", "u123456789012345678901", "t99999999999999999999", "H9999999999999999999"},
		"uint":     {"", "Z8", "u"},
		"float":    {"", "800000000000000", "800000000000000g", "7fffffffffffffff", "fff0000000000000", "0000000000000000"},
		"decimal":  {"", "O", "Oa1", "Oa10\"", "Oa001\"", "Oa\"", "P", "Ma1", "Oax1\""},
		"string":   {"", "a", "$", "$?", "|}", "a/\"", "a b\"", "{"},
		"date":     {"", "2024-02-30", "2024-13-01", "2024/01/01", "20240101xx", "2024-1-01", "2024-00-15", "2024-01-00", "0000-00-01", "0000-01-00"},
		"datetime": {"0000-00-00T00:00:00.000001", "0000-00-00T10:00:00.000000", "2024-00-01T00:00:00.000000", "2024-01-01", "2024-01-01T24:00:00.000000", "2024-01-01T00:60:00.000000", "2024-01-01 00:00:00.000000", "2024-01-01T00:00:00.00000"},
		"intdesc":  {"", "a0", "\x00"},
		"strdesc":  {"", "ab\"", "\x00"},
	}
	for name, inputs := range bad {
		for _, in := range inputs {
			err := decoders[name]([]byte(in))
			if !errors.Is(err, ErrMalformed) {
				t.Errorf("%s(%q): err %v, want ErrMalformed", name, in, err)
			}
		}
	}
	// Uint values above MaxInt64 are not int64s.
	if _, _, err := DecodeIntAscending(EncodeUintAscending(nil, math.MaxInt64+1)); !errors.Is(err, ErrMalformed) {
		t.Errorf("int64 overflow not rejected: %v", err)
	}
}

func TestPrefixEnd(t *testing.T) {
	cases := []struct {
		in, want string
		ok       bool
	}{
		{"", "", false},
		{"~", "", false},
		{"~~", "", false},
		{"a", "b", true},
		{"a~", "b", true},
		{"a~~", "b", true},
		{"b42", "b43", true},
		{"a9", "a:", true},
		{"a.", "a0", true},  // skips '/'
		{"a\"", "a$", true}, // skips '#'
		{"a*", "a,", true},  // skips '+'
		{"a>", "a@", true},  // skips '?'
		{"a[", "a]", true},  // skips '\'
		{"a}", "a~", true},
	}
	for _, c := range cases {
		got, ok := PrefixEnd(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("PrefixEnd(%q) = %q, %t; want %q, %t", c.in, got, ok, c.want, c.ok)
		}
	}
	// Property: for random prefixes p and keys k made of alphabet
	// characters, k has prefix p iff p <= k < PrefixEnd(p).
	r := rand.New(rand.NewPCG(7, 8))
	randKey := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			if r.IntN(3) == 0 {
				b[i] = "!~}"[r.IntN(3)]
			} else {
				b[i] = Alphabet[r.IntN(len(Alphabet))]
			}
		}
		return string(b)
	}
	for range 20000 {
		p := randKey(r.IntN(4))
		k := p[:r.IntN(len(p)+1)] + randKey(r.IntN(4))
		end, ok := PrefixEnd(p)
		in := k >= p && (!ok || k < end)
		if in != strings.HasPrefix(k, p) {
			t.Fatalf("prefix %q end %q (%t), key %q: in range %t", p, end, ok, k, in)
		}
		if ok && !Valid(end) {
			t.Fatalf("PrefixEnd(%q) = %q is not a legal key", p, end)
		}
	}
}

// TestCanonical checks that every successful decode re-encodes to exactly
// the consumed input, on the decoders' own outputs mutated a little.
func TestCanonical(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, c := range codecs {
		for range 3000 {
			desc := r.IntN(2) == 0
			k := c.enc(nil, c.gen(r), desc)
			if len(k) > 0 {
				k[r.IntN(len(k))] = Alphabet[r.IntN(len(Alphabet))]
			}
			checkCanonical(t, c, k, desc)
		}
	}
}

func checkCanonical(t testing.TB, c codec, k []byte, desc bool) {
	t.Helper()
	rest, v, err := c.dec(k, desc)
	if err != nil {
		if !errors.Is(err, ErrMalformed) {
			t.Fatalf("%s: decode %q: error %v does not wrap ErrMalformed", c.name, k, err)
		}
		return
	}
	consumed := k[:len(k)-len(rest)]
	if again := c.enc(nil, v, desc); !bytes.Equal(again, consumed) {
		t.Fatalf("%s desc=%t: %q decodes to %v which encodes to %q", c.name, desc, consumed, v, again)
	}
}

// padCompare is MySQL's PAD SPACE comparison: the shorter string is
// compared as if padded with spaces.
func padCompare(a, b string) int {
	n := max(len(a), len(b))
	for i := range n {
		ca, cb := byte(' '), byte(' ')
		if i < len(a) {
			ca = a[i]
		}
		if i < len(b) {
			cb = b[i]
		}
		if ca != cb {
			if ca < cb {
				return -1
			}
			return 1
		}
	}
	return 0
}

// genPadString favours spaces next to bytes just below and above ' '.
func genPadString(r *rand.Rand) any {
	var sb strings.Builder
	for range r.IntN(8) {
		sb.WriteString([]string{" ", "  ", "\t", "\x1f", "!", "a", "\x00", "~", "é", "/"}[r.IntN(10)])
	}
	return sb.String()
}
