package pebble

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sqlgw/sqlgw/storage"
)

// keySamples are keys around every boundary the encoding cares about.
var keySamples = []string{
	"", " ", "a", "aa", "a b", "~", "\u00a0", "\u00ff", "\u07ff", "\u0800", "\ucfff", "\ud000", "\ud7ff",
	"\ue000", "\uefff", "\uf000", "\uffff", "\U00010000", "\U0001F600", "\U0003FFFF", "\U00040000",
	"\U000FFFFF", "\U00100000", "\U0010FFFF", "a\U0001F600", "a\ue000", "\U0001F600\U0001F600",
}

func randomKey(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(6) {
		switch r.IntN(6) {
		case 0:
			b.WriteRune(rune(0x20 + r.IntN(0x5f)))
		case 1:
			b.WriteRune(rune(0xa0 + r.IntN(0x700)))
		case 2:
			b.WriteRune(rune(0xd000 + r.IntN(0x800)))
		case 3:
			b.WriteRune(rune(0xe000 + r.IntN(0x2000)))
		case 4:
			b.WriteRune(rune(0x10000 + r.IntN(0x100000)))
		default:
			b.WriteString(keySamples[r.IntN(len(keySamples))])
		}
	}
	return b.String()
}

func TestEKeyOrderMatchesCompareKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	keys := slices.Clone(keySamples)
	for range 3000 {
		keys = append(keys, randomKey(r))
	}
	for i := range 20000 {
		a, b := keys[r.IntN(len(keys))], keys[r.IntN(len(keys))]
		if i < len(keySamples)*len(keySamples) {
			a, b = keySamples[i/len(keySamples)], keySamples[i%len(keySamples)]
		}
		checkOrder(t, a, b)
	}
}

func checkOrder(t *testing.T, a, b string) {
	t.Helper()
	want := storage.CompareKeys(a, b)
	if got := bytes.Compare(appendEKey(nil, a), appendEKey(nil, b)); got != want {
		t.Fatalf("ekey order of %+q, %+q = %d, CompareKeys = %d", a, b, got, want)
	}
	// Whole entity keys: the partition decides first, then the row.
	ka := appendEntityKey(nil, 7, a, b)
	kb := appendEntityKey(nil, 7, b, a)
	wantEntity := want
	if want == 0 {
		wantEntity = storage.CompareKeys(b, a)
	}
	if got := bytes.Compare(ka, kb); got != wantEntity {
		t.Fatalf("entity key order of (%+q,%+q), (%+q,%+q) = %d, want %d", a, b, b, a, got, wantEntity)
	}
}

func TestEKeyRoundTrip(t *testing.T) {
	for _, k := range keySamples {
		ek := appendEKey(nil, k)
		if got := string(appendDecodedEKey(nil, ek)); got != k {
			t.Fatalf("round trip of %+q gave %+q", k, got)
		}
		if bytes.IndexByte(ek, keySep) >= 0 || bytes.IndexByte(ek, partitionEnd) >= 0 {
			t.Fatalf("ekey(%+q) = %x contains a separator", k, ek)
		}
		full := appendEntityKey(nil, 3, k, k+"x")
		epk, erk, ok := splitEntityKey(full)
		if !ok || string(appendDecodedEKey(nil, epk)) != k || string(appendDecodedEKey(nil, erk)) != k+"x" {
			t.Fatalf("splitEntityKey(%x) = %x, %x, %v", full, epk, erk, ok)
		}
	}
}

// TestEKeyExact pins the on-disk bytes: these must never change.
func TestEKeyExact(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want []byte
	}{
		{"", nil},
		{"Az", []byte{'A', 'z'}},
		{"\u00e9", []byte{0xc3, 0xa9}},
		{"\ud7ff", []byte{0xed, 0x9f, 0xbf}},
		{"\ue000", []byte{0xf3, 0x80, 0x80}},
		{"\uffff", []byte{0xf4, 0xbf, 0xbf}},
		{"\U00010000", []byte{0xee, 0x90, 0x80, 0x80}},
		{"\U0001F600", []byte{0xee, 0x9f, 0x98, 0x80}},
		{"\U0010FFFF", []byte{0xf2, 0x8f, 0xbf, 0xbf}},
	} {
		if got := appendEKey(nil, tc.key); !bytes.Equal(got, tc.want) {
			t.Errorf("ekey(%+q) = %x, want %x", tc.key, got, tc.want)
		}
	}
	got := appendEntityKey(nil, 0x0102, "p", "r")
	want := []byte{tagEntity, 0, 0, 0, 0, 0, 0, 1, 2, 'p', 0, 'r'}
	if !bytes.Equal(got, want) {
		t.Errorf("entity key = %x, want %x", got, want)
	}
	if got := tableKey("MyTable"); !bytes.Equal(got, []byte("\x01mytable")) {
		t.Errorf("table key = %q", got)
	}
	rec := encodeEntity(nil, storage.Properties{"b": storage.Bool(true), "a": storage.Int32(-2)}, `W/"1.2"`, 0x0102030405060708)
	wantRec := []byte{entityRecordV1, 7, 'W', '/', '"', '1', '.', '2', '"', 1, 2, 3, 4, 5, 6, 7, 8, 2,
		1, 'a', codeInt32, 0xff, 0xff, 0xff, 0xfe,
		1, 'b', codeBoolean, 1}
	if !bytes.Equal(rec, wantRec) {
		t.Errorf("entity record = %x\nwant            %x", rec, wantRec)
	}
	if tok := encodeToken([]byte("p"), []byte("r")); tok != "Y3AAcg" {
		t.Errorf("token = %q", tok)
	}
}

func TestRecordRoundTrip(t *testing.T) {
	props := storage.Properties{
		"s": storage.String("h\u00e9llo \U0001F600"), "e": storage.String(""),
		"i": storage.Int32(-7), "l": storage.Int64(1 << 60), "d": storage.Double(-0.5),
		"t": storage.DateTimeTicks(638_000_000_000_000_000), "b": storage.Bool(false),
		"x": storage.Binary([]byte{0, 1, 2}), "y": storage.Binary(nil), "g": storage.GUID([16]byte{1, 2, 3}),
	}
	v := encodeEntity(nil, props, "etag", 42)
	rec, err := parseRecord(v)
	if err != nil {
		t.Fatal(err)
	}
	if string(rec.etag) != "etag" || rec.ticks != 42 || rec.n != len(props) {
		t.Fatalf("header: %q %d %d", rec.etag, rec.ticks, rec.n)
	}
	got, err := rec.decodeProps(nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range props {
		if !got[name].Equal(want) {
			t.Errorf("%s = %#v, want %#v", name, got[name], want)
		}
		if l, ok := rec.lookup(name); !ok || !l.Equal(want) {
			t.Errorf("lookup(%s) = %#v, %v", name, l, ok)
		}
	}
	if _, ok := rec.lookup("nosuch"); ok {
		t.Error("lookup of an absent property succeeded")
	}
	sel, err := rec.decodeProps(map[string]struct{}{})
	if err != nil || len(sel) != 0 {
		t.Errorf("empty selection: %v, %v", sel, err)
	}
	// Decoded values do not alias the record.
	for i := range v {
		v[i] = 0xAA
	}
	if !got["s"].Equal(props["s"]) || !got["x"].Equal(props["x"]) {
		t.Error("decoded values alias the record")
	}
}

func TestMalformedRecords(t *testing.T) {
	good := encodeEntity(nil, storage.Properties{"s": storage.String("abc"), "i": storage.Int64(1)}, "e", 1)
	for n := range len(good) {
		rec, err := parseRecord(good[:n])
		if err != nil {
			continue
		}
		if _, err := rec.decodeProps(nil); err == nil {
			t.Errorf("truncated record of %d bytes decoded", n)
		}
	}
	bad := slices.Clone(good)
	bad[0] = 9
	if _, err := parseRecord(bad); err == nil {
		t.Error("unknown record version accepted")
	}
}

func TestTokens(t *testing.T) {
	for _, k := range [][2]string{{"", ""}, {"p", "r"}, {"\U0001F600", "\ue000 x"}} {
		tok := encodeToken([]byte(k[0]), []byte(k[1]))
		for i := 0; i < len(tok); i++ {
			if tok[i] < 0x21 || tok[i] > 0x7e {
				t.Fatalf("token %q not printable", tok)
			}
		}
		pk, rk, err := decodeToken(tok, storage.DefaultLimits)
		if err != nil || pk != k[0] || rk != k[1] {
			t.Fatalf("decodeToken(%q) = %q, %q, %v", tok, pk, rk, err)
		}
	}
	for _, bad := range []string{"", "!", "Y3A", "eHAAcg", "Y3AvAHI", "Y_8AcA", "Y3AAcg=="} {
		if _, _, err := decodeToken(bad, storage.DefaultLimits); !errors.Is(err, storage.ErrInvalid) {
			t.Errorf("decodeToken(%q) = %v, want ErrInvalid", bad, err)
		}
	}
}

// FuzzEKeyOrder checks the encoding's order against CompareKeys and its
// round trip on arbitrary valid keys.
func FuzzEKeyOrder(f *testing.F) {
	for i, a := range keySamples {
		f.Add(a, keySamples[(i+5)%len(keySamples)])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if !utf8.ValidString(a) || !utf8.ValidString(b) || storage.DefaultLimits.ValidateKeys(a, b) != nil {
			// Keys never hold the characters ValidateKey forbids.
			return
		}
		checkOrder(t, a, b)
		if got := string(appendDecodedEKey(nil, appendEKey(nil, a))); got != a {
			t.Fatalf("round trip of %+q gave %+q", a, got)
		}
	})
}
