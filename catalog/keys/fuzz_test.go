package keys

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/sqlgw/sqlgw/storage"
)

// Run with e.g.
//
//	go test ./catalog/keys -run '^$' -fuzz '^FuzzStringOrder$' -fuzztime 60s
//
// Every target checks legality of the keys (alphabet, Table-service rules),
// exact round trips, and order against the SQL comparison, in both
// directions and as leading components of composite keys.

func legal(t *testing.T, k []byte) {
	t.Helper()
	if !Valid(string(k)) {
		t.Fatalf("%q: character outside the key alphabet", k)
	}
	lim := storage.Limits{MaxKeyUTF16: len(k) + 1}
	if err := lim.ValidateKey("key", string(k)); err != nil {
		t.Fatalf("%q: %v", k, err)
	}
}

// checkPair checks encodings ea, eb of values whose SQL comparison is sqlCmp.
func checkPair(t *testing.T, ea, eb []byte, sqlCmp int, desc bool) {
	t.Helper()
	legal(t, ea)
	legal(t, eb)
	want := sqlCmp
	if desc {
		want = -want
	}
	if got := storage.CompareKeys(string(ea), string(eb)); got != want {
		t.Fatalf("encodings %q, %q compare %d, want %d", ea, eb, got, want)
	}
	if want != 0 {
		// Composite: the first component decides whatever follows.
		var ca, cb []byte
		if want < 0 {
			ca, cb = append(bytes.Clone(ea), '~', '~'), append(bytes.Clone(eb), '!')
		} else {
			ca, cb = append(bytes.Clone(ea), '!'), append(bytes.Clone(eb), '~', '~')
		}
		if got := storage.CompareKeys(string(ca), string(cb)); got != want {
			t.Fatalf("composites %q, %q compare %d, want %d", ca, cb, got, want)
		}
		if bytes.HasPrefix(ea, eb) || bytes.HasPrefix(eb, ea) {
			t.Fatalf("encodings %q, %q are not prefix-free", ea, eb)
		}
	}
}

func FuzzStringOrder(f *testing.F) {
	for i, a := range awkward {
		f.Add(a, awkward[(i*7+3)%len(awkward)], i%2 == 0)
	}
	f.Add("a", "a\x00", false)
	f.Add("ab", "a", true)
	f.Fuzz(func(t *testing.T, a, b string, desc bool) {
		enc, dec := EncodeStringAscending, DecodeStringAscending
		if desc {
			enc, dec = EncodeStringDescending, DecodeStringDescending
		}
		ea, eb := enc(nil, a), enc(nil, b)
		checkPair(t, ea, eb, strings.Compare(a, b), desc)
		for _, x := range []struct {
			e []byte
			v string
		}{{ea, a}, {eb, b}} {
			rest, got, err := dec(append(bytes.Clone(x.e), "b1"...))
			if err != nil || got != x.v || string(rest) != "b1" {
				t.Fatalf("round trip of %q via %q: %q rest %q err %v", x.v, x.e, got, rest, err)
			}
		}
	})
}

func FuzzIntOrder(f *testing.F) {
	for _, v := range []int64{0, 1, -1, 9, 10, -10, math.MaxInt64, math.MinInt64} {
		f.Add(v, -v, uint64(v), false)
	}
	f.Fuzz(func(t *testing.T, a, b int64, u uint64, desc bool) {
		encI, decI := EncodeIntAscending, DecodeIntAscending
		encU, decU := EncodeUintAscending, DecodeUintAscending
		if desc {
			encI, decI = EncodeIntDescending, DecodeIntDescending
			encU, decU = EncodeUintDescending, DecodeUintDescending
		}
		ea, eb, eu := encI(nil, a), encI(nil, b), encU(nil, u)
		checkPair(t, ea, eb, cmpOrdered(a, b), desc)
		// Signed and unsigned share one order.
		su := 1
		if a >= 0 {
			su = cmpOrdered(uint64(a), u)
		} else {
			su = -1
		}
		checkPair(t, ea, eu, su, desc)
		if _, got, err := decI(ea); err != nil || got != a {
			t.Fatalf("int round trip %d via %q: %d %v", a, ea, got, err)
		}
		if _, got, err := decU(eu); err != nil || got != u {
			t.Fatalf("uint round trip %d via %q: %d %v", u, eu, got, err)
		}
	})
}

func FuzzFloatOrder(f *testing.F) {
	f.Add(0.0, math.Copysign(0, -1), false)
	f.Add(1.5, -2.25, true)
	f.Add(math.MaxFloat64, math.SmallestNonzeroFloat64, false)
	f.Fuzz(func(t *testing.T, a, b float64, desc bool) {
		if math.IsNaN(a) || math.IsNaN(b) || math.IsInf(a, 0) || math.IsInf(b, 0) {
			return // not SQL values
		}
		enc, dec := EncodeFloatAscending, DecodeFloatAscending
		if desc {
			enc, dec = EncodeFloatDescending, DecodeFloatDescending
		}
		ea, eb := enc(nil, a), enc(nil, b)
		checkPair(t, ea, eb, cmpOrdered(a, b), desc)
		if _, got, err := dec(ea); err != nil || got != a {
			t.Fatalf("float round trip %v via %q: %v %v", a, ea, got, err)
		}
	})
}

func FuzzDecimalOrder(f *testing.F) {
	f.Add("1.50", "1.5", false)
	f.Add("-0.001", "0.0001", true)
	f.Add("99999999999999999999999999999999999.999999999999999999999999999999", "-1e-30", false)
	f.Fuzz(func(t *testing.T, as, bs string, desc bool) {
		a, err1 := decimal.NewFromString(as)
		b, err2 := decimal.NewFromString(bs)
		if err1 != nil || err2 != nil || len(as) > 100 || len(bs) > 100 {
			return
		}
		if a.Exponent() < -1000 || a.Exponent() > 1000 || b.Exponent() < -1000 || b.Exponent() > 1000 {
			return // far outside DECIMAL(65,30)
		}
		enc, dec := EncodeDecimalAscending, DecodeDecimalAscending
		if desc {
			enc, dec = EncodeDecimalDescending, DecodeDecimalDescending
		}
		ea, eb := enc(nil, a), enc(nil, b)
		checkPair(t, ea, eb, a.Cmp(b), desc)
		if _, got, err := dec(ea); err != nil || !got.Equal(a) {
			t.Fatalf("decimal round trip %v via %q: %v %v", a, ea, got, err)
		}
	})
}

func FuzzDatetimeOrder(f *testing.F) {
	f.Add(int64(0), int64(1), false)
	f.Add(int64(-62167219200000000), int64(253402300799999999), true)
	f.Fuzz(func(t *testing.T, a, b int64, desc bool) {
		// a, b: microseconds since the Unix epoch, clamped to 0000..9999.
		lo, hi := int64(-62167219200000000), int64(253402300799999999)
		clamp := func(v int64) time.Time {
			if v < lo || v > hi {
				v = lo + (v&math.MaxInt64)%(hi-lo)
			}
			return time.UnixMicro(v).UTC()
		}
		ta, tb := clamp(a), clamp(b)
		enc, dec := EncodeDatetimeAscending, DecodeDatetimeAscending
		if desc {
			enc, dec = EncodeDatetimeDescending, DecodeDatetimeDescending
		}
		ea, eb := enc(nil, ta), enc(nil, tb)
		checkPair(t, ea, eb, ta.Compare(tb), desc)
		if _, got, err := dec(ea); err != nil || !got.Equal(ta) {
			t.Fatalf("datetime round trip %v via %q: %v %v", ta, ea, got, err)
		}
	})
}

// FuzzDecode feeds arbitrary input to every decoder: none may panic, every
// error wraps ErrMalformed, and every success re-encodes to exactly the
// input it consumed (the format has one encoding per value).
func FuzzDecode(f *testing.F) {
	f.Add([]byte("b42"), false)
	f.Add([]byte(`a$Vb"`), true)
	f.Add([]byte(`Oa115"`), false)
	f.Add([]byte("MDsso}"), true)
	f.Add([]byte("2024-02-29T13:04:05.000006"), false)
	f.Add([]byte("0000-00-00T00:00:00.000000"), false)
	f.Add([]byte("0000-00-00"), true)
	f.Add([]byte("8000000000000000"), false)
	f.Fuzz(func(t *testing.T, in []byte, desc bool) {
		for _, c := range codecs {
			checkCanonical(t, c, in, desc)
		}
	})
}

// FuzzCompositeOrder checks two-column keys (string with either direction,
// then a signed integer), whose first columns may be prefixes of each
// other, against SQL's column-by-column comparison, and decodes them back.
func FuzzCompositeOrder(f *testing.F) {
	f.Add("a", int64(1), "a\x00", int64(-1), false)
	f.Add("", int64(0), "", int64(1), true)
	f.Add("ab", int64(5), "a", int64(9), true)
	f.Fuzz(func(t *testing.T, s1 string, n1 int64, s2 string, n2 int64, desc bool) {
		enc := func(s string, n int64) []byte {
			var b []byte
			if desc {
				b = EncodeStringDescending(nil, s)
			} else {
				b = EncodeStringAscending(nil, s)
			}
			return EncodeIntAscending(b, n)
		}
		k1, k2 := enc(s1, n1), enc(s2, n2)
		want := strings.Compare(s1, s2)
		if desc {
			want = -want
		}
		if want == 0 {
			want = cmpOrdered(n1, n2)
		}
		legal(t, k1)
		legal(t, k2)
		if got := storage.CompareKeys(string(k1), string(k2)); got != want {
			t.Fatalf("(%q,%d) vs (%q,%d): keys %q, %q compare %d, want %d", s1, n1, s2, n2, k1, k2, got, want)
		}
		dec := DecodeStringAscending
		if desc {
			dec = DecodeStringDescending
		}
		rest, s, err := dec(k1)
		if err != nil || s != s1 {
			t.Fatalf("decoding %q: %q %v", k1, s, err)
		}
		rest, n, err := DecodeIntAscending(rest)
		if err != nil || n != n1 || len(rest) != 0 {
			t.Fatalf("decoding %q: %d rest %q %v", k1, n, rest, err)
		}
	})
}

func FuzzStringPadOrder(f *testing.F) {
	f.Add("a", "a  ", false)
	f.Add("a\t", "a", true)
	f.Add("a  b", "a b", false)
	f.Add(" \x00", "  \x00", true)
	f.Fuzz(func(t *testing.T, a, b string, desc bool) {
		enc, dec := EncodeStringPadAscending, DecodeStringPadAscending
		if desc {
			enc, dec = EncodeStringPadDescending, DecodeStringPadDescending
		}
		ea, eb := enc(nil, a), enc(nil, b)
		checkPair(t, ea, eb, padCompare(a, b), desc)
		rest, got, err := dec(append(bytes.Clone(ea), "b1"...))
		if err != nil || got != TrimPad(a) || string(rest) != "b1" {
			t.Fatalf("round trip of %q via %q: %q rest %q err %v", a, ea, got, rest, err)
		}
	})
}
