package storagetest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/storage"
)

func (r *runner) testKeyRules(t *testing.T) {
	e := r.setup(t)
	limits := e.s.Capabilities().Limits
	if limits.MaxKeyUTF16 <= 0 || limits.MaxKeyUTF16 > storage.MaxKeyUTF16 {
		t.Fatalf("Capabilities().Limits.MaxKeyUTF16 = %d, want 1..%d", limits.MaxKeyUTF16, storage.MaxKeyUTF16)
	}
	forbidden := []string{"/", "\\", "#", "?", "\x00", "\x01", "\t", "\n", "\x1f", "\x7f", "\u0080", "\u0085", "\u009f", "\xff", "a\xc3"}
	for _, c := range forbidden {
		bad := "a" + c + "b"
		x := ent(bad, "r", nil)
		y := ent("p", bad, nil)
		for _, what := range []struct {
			name string
			err  func() error
		}{
			{"Insert pk", func() error { _, err := e.s.Insert(e.ctx, e.table, x); return err }},
			{"Insert rk", func() error { _, err := e.s.Insert(e.ctx, e.table, y); return err }},
			{"Upsert rk", func() error { _, err := e.s.Upsert(e.ctx, e.table, y, storage.Merge); return err }},
			{"Update pk", func() error { _, err := e.s.Update(e.ctx, e.table, x, storage.Replace, ""); return err }},
			{"Delete rk", func() error { return e.s.Delete(e.ctx, e.table, "p", bad, "") }},
			{"Get pk", func() error { _, err := e.s.Get(e.ctx, e.table, bad, "r", nil); return err }},
			{"Get rk", func() error { _, err := e.s.Get(e.ctx, e.table, "p", bad, nil); return err }},
		} {
			expectErr(t, what.name+" with key "+strings.ReplaceAll(bad, "\x00", "\\0"), what.err(), storage.ErrInvalidKey)
		}
		_, err := e.s.Batch(e.ctx, e.table, []storage.Operation{
			{Kind: storage.OpInsert, Entity: ent("p", "ok", nil)},
			{Kind: storage.OpUpsert, Entity: y},
		})
		expectBatchErr(t, "Batch with a forbidden key character", err, 1, storage.ErrInvalidKey)
	}
	if got := e.queryAll(e.table, storage.Query{}); len(got) != 0 {
		t.Fatalf("invalid keys wrote %q", keys(got))
	}

	// Characters next to the forbidden ones are fine.
	allowed := []string{" ", "!", "\"", "$", "%", "&", "'", "*", "+", ",", "-", ".", ":", ";", "<", "=", ">", "@", "[", "]", "^", "_", "`", "{", "|", "}", "~", "\u00a0", "\u00ff", "\uFFFD", "\U0001F600"}
	for _, c := range allowed {
		k := "a" + c + "b"
		e.insert(k, k, storage.Properties{"k": storage.String(k)})
		if got := e.get(k, k); !got.Properties["k"].Equal(storage.String(k)) {
			t.Fatalf("key %q read back %v", k, got.Properties)
		}
	}

	// Length: the longest ASCII key, and one character more.
	n := limits.KeyLimit()
	longest := strings.Repeat("k", n)
	e.insert(longest, longest, nil)
	e.get(longest, longest)
	_, err := e.s.Insert(e.ctx, e.table, ent(longest+"k", "r", nil))
	expectErr(t, "PartitionKey one over the limit", err, storage.ErrInvalidKey)
	_, err = e.s.Insert(e.ctx, e.table, ent("p", longest+"k", nil))
	expectErr(t, "RowKey one over the limit", err, storage.ErrInvalidKey)
	_, err = e.s.Get(e.ctx, e.table, "p", longest+"k", nil)
	expectErr(t, "Get with a RowKey over the limit", err, storage.ErrInvalidKey)

	// Characters above U+FFFF count two UTF-16 units.
	if limits.MaxKeyBytes == 0 {
		pairs := strings.Repeat("\U0001F600", limits.MaxKeyUTF16/2)
		e.insert("p", pairs, nil)
		e.get("p", pairs)
		_, err = e.s.Insert(e.ctx, e.table, ent("p", pairs+"x", nil))
		expectErr(t, "RowKey of surrogate pairs one unit over the limit", err, storage.ErrInvalidKey)
	} else {
		long := strings.Repeat("\u00e9", limits.MaxKeyBytes/2) + strings.Repeat("k", limits.MaxKeyBytes%2)
		e.insert("p", long, nil)
		_, err = e.s.Insert(e.ctx, e.table, ent("p", long+"x", nil))
		expectErr(t, "RowKey one byte over the limit", err, storage.ErrInvalidKey)
	}
}

func (r *runner) testPropertyRules(t *testing.T) {
	e := r.setup(t)
	badNames := []string{"", "1a", "a-b", "a b", "a.b", "\u00e9t\u00e9", "PartitionKey", "RowKey", "Timestamp", "ETag", strings.Repeat("n", storage.MaxPropertyNameLen+1)}
	for _, name := range badNames {
		_, err := e.s.Insert(e.ctx, e.table, ent("p", "r", storage.Properties{name: storage.Int32(1)}))
		expectErr(t, "property name "+name, err, storage.ErrInvalid)
		_, err = e.s.Upsert(e.ctx, e.table, ent("p", "r", storage.Properties{name: storage.Int32(1)}), storage.Merge)
		expectErr(t, "Upsert property name "+name, err, storage.ErrInvalid)
	}
	good := storage.Properties{
		"_":                       storage.Int32(1),
		"a1":                      storage.Int32(2),
		"Name_With_Underscores_9": storage.Int32(3),
		strings.Repeat("n", storage.MaxPropertyNameLen): storage.Int32(4),
	}
	e.insert("p", "good", good)
	checkProps(t, "valid property names", e.get("p", "good").Properties, good)

	// DateTime range 1601..9999.
	for _, ts := range []time.Time{time.Date(1600, 12, 31, 23, 59, 59, 0, time.UTC), time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)} {
		_, err := e.s.Insert(e.ctx, e.table, ent("p", "t", storage.Properties{"t": storage.DateTime(ts)}))
		expectErr(t, "DateTime "+ts.String(), err, storage.ErrInvalid)
	}
	_, err := e.s.Insert(e.ctx, e.table, ent("p", "t", storage.Properties{"t": {}}))
	expectErr(t, "zero Value", err, storage.ErrInvalid)
	_, err = e.s.Insert(e.ctx, e.table, ent("p", "t", storage.Properties{"s": storage.String("bad \xff utf8")}))
	expectErr(t, "String that is not UTF-8", err, storage.ErrInvalid)
	_, err = e.s.Insert(e.ctx, e.table, nil)
	expectErr(t, "nil entity", err, storage.ErrInvalid)
	e.mustNotExist("p", "t")
	e.mustNotExist("p", "r")

	// 252 properties, and 253.
	e.insert("p", "max", manyProps(storage.MaxProperties))
	if got := e.get("p", "max"); len(got.Properties) != storage.MaxProperties {
		t.Fatalf("entity with 252 properties read back with %d", len(got.Properties))
	}
	_, err = e.s.Insert(e.ctx, e.table, ent("p", "over", manyProps(storage.MaxProperties+1)))
	expectErr(t, "253 properties", err, storage.ErrTooLarge)
	_, err = e.s.Update(e.ctx, e.table, ent("p", "max", manyProps(storage.MaxProperties+1)), storage.Replace, "")
	expectErr(t, "Update to 253 properties", err, storage.ErrTooLarge)
	e.mustNotExist("p", "over")
}

func (r *runner) testSizeLimits(t *testing.T) {
	e := r.setup(t)
	// Strings: 32 Ki UTF-16 units (64 KiB).
	maxASCII := strings.Repeat("x", storage.MaxStringUTF16)
	maxPairs := strings.Repeat("\U0001F600", storage.MaxStringUTF16/2)
	e.insert("p", "s1", storage.Properties{"s": storage.String(maxASCII)})
	e.insert("p", "s2", storage.Properties{"s": storage.String(maxPairs)})
	if got := e.get("p", "s2"); !got.Properties["s"].Equal(storage.String(maxPairs)) {
		t.Fatalf("64 KiB string of surrogate pairs did not round-trip")
	}
	for what, s := range map[string]string{"ASCII": maxASCII + "x", "pairs": maxPairs + "x", "pairs+pair": maxPairs + "\U0001F600"} {
		_, err := e.s.Insert(e.ctx, e.table, ent("p", "s3", storage.Properties{"s": storage.String(s)}))
		expectErr(t, "String over 64 KiB ("+what+")", err, storage.ErrTooLarge)
		_, err = e.s.Upsert(e.ctx, e.table, ent("p", "s1", storage.Properties{"s": storage.String(s)}), storage.Merge)
		expectErr(t, "Upsert of a String over 64 KiB ("+what+")", err, storage.ErrTooLarge)
	}
	if got := e.get("p", "s1"); !got.Properties["s"].Equal(storage.String(maxASCII)) {
		t.Fatal("failed Upsert changed the entity")
	}

	// Binary: 64 KiB.
	maxBin := make([]byte, storage.MaxValueBytes)
	for i := range maxBin {
		maxBin[i] = byte(i * 7)
	}
	e.insert("p", "b1", storage.Properties{"b": storage.Binary(maxBin)})
	if got := e.get("p", "b1"); !got.Properties["b"].Equal(storage.Binary(maxBin)) {
		t.Fatal("64 KiB binary did not round-trip")
	}
	_, err := e.s.Insert(e.ctx, e.table, ent("p", "b2", storage.Properties{"b": storage.Binary(append(maxBin, 0))}))
	expectErr(t, "Binary over 64 KiB", err, storage.ErrTooLarge)

	// Entity: 1 MiB by EntitySize.
	near := nearMaxEntityProps()
	if n := storage.EntitySize(ent("p", "e1", near)); n > storage.MaxEntityBytes || n < storage.MaxEntityBytes-100<<10 {
		t.Fatalf("test bug: near-limit entity has %d bytes", n)
	}
	e.insert("p", "e1", near)
	checkProps(t, "entity near 1 MiB", e.get("p", "e1").Properties, near)
	over := nearMaxEntityProps()
	over["s15"] = storage.String(strings.Repeat("o", storage.MaxStringUTF16))
	_, err = e.s.Insert(e.ctx, e.table, ent("p", "e2", over))
	expectErr(t, "entity over 1 MiB", err, storage.ErrTooLarge)
	_, err = e.s.Upsert(e.ctx, e.table, ent("p", "e1", over), storage.Replace)
	expectErr(t, "Upsert of an entity over 1 MiB", err, storage.ErrTooLarge)
	e.mustNotExist("p", "e2")
	e.mustNotExist("p", "b2")
	e.mustNotExist("p", "s3")
}

// testEntitySizeMeasure: entities near 1 MiB by the measure every backend
// shares (storage.EntitySize: the larger of the Table service's formula and
// the entity's JSON body, where Binary is base64 and strings are UTF-8 and
// escaped). Azurite checks the body of Insert Or Replace and Update against
// 1 MiB, so an entity of twelve 64 KiB Binary values (786 KB by the
// service's formula, 1.05 MB of base64) is refused there; every backend
// refuses it, and accepts eleven, by Insert, Upsert and Update alike; the
// same for strings of non-ASCII characters (sent as \uXXXX escapes) and of
// characters JSON escapes (< & >).
func (r *runner) testEntitySizeMeasure(t *testing.T) {
	e := r.setup(t)
	binProps := func(n int) storage.Properties {
		p := storage.Properties{}
		for i := 0; i < n; i++ {
			b := make([]byte, storage.MaxValueBytes)
			for j := range b {
				b[j] = byte(i + j*13)
			}
			p[fmt.Sprintf("b%02d", i)] = storage.Binary(b)
		}
		return p
	}
	// Strings of CJK characters: 3 bytes of UTF-8 per UTF-16 unit, 6 as the
	// \uXXXX escapes the Azure backend sends to Azurite.
	cjkProps := func(n int) storage.Properties {
		p := storage.Properties{}
		for i := 0; i < n; i++ {
			p[fmt.Sprintf("s%02d", i)] = storage.String(strings.Repeat(string(rune(0x4e00+i)), storage.MaxStringUTF16))
		}
		return p
	}
	// Strings of characters JSON escapes in 6 bytes (HTML-safe encoding).
	escProps := func(n int) storage.Properties {
		p := storage.Properties{}
		for i := 0; i < n; i++ {
			p[fmt.Sprintf("e%02d", i)] = storage.String(strings.Repeat("<&>", storage.MaxStringUTF16/3))
		}
		return p
	}
	for _, tc := range []struct {
		name     string
		fit, not storage.Properties
	}{
		{"binary", binProps(11), binProps(12)},
		{"cjk", cjkProps(5), cjkProps(6)},
		{"escaped", escProps(5), escProps(6)},
	} {
		fit, not := ent("p", tc.name, tc.fit), ent("p", tc.name, tc.not)
		if n := storage.EntitySize(fit); n > storage.MaxEntityBytes || n < storage.MaxEntityBytes-128<<10 {
			t.Fatalf("test bug: %s entity that fits has %d bytes", tc.name, n)
		}
		if n := storage.EntitySize(not); n <= storage.MaxEntityBytes {
			t.Fatalf("test bug: %s entity that does not fit has %d bytes", tc.name, n)
		}
		e.insert("p", tc.name, tc.fit)
		checkProps(t, tc.name+" entity near 1 MiB", e.get("p", tc.name).Properties, tc.fit)
		if _, err := e.s.Upsert(e.ctx, e.table, fit, storage.Replace); err != nil {
			t.Fatalf("Upsert of the %s entity near 1 MiB: %v", tc.name, err)
		}
		if _, err := e.s.Update(e.ctx, e.table, fit, storage.Replace, ""); err != nil {
			t.Fatalf("Update of the %s entity near 1 MiB: %v", tc.name, err)
		}
		_, err := e.s.Insert(e.ctx, e.table, ent("p", tc.name+"2", tc.not))
		expectErr(t, "Insert of the "+tc.name+" entity over 1 MiB", err, storage.ErrTooLarge)
		_, err = e.s.Upsert(e.ctx, e.table, not, storage.Replace)
		expectErr(t, "Upsert of the "+tc.name+" entity over 1 MiB", err, storage.ErrTooLarge)
		_, err = e.s.Update(e.ctx, e.table, not, storage.Replace, "")
		expectErr(t, "Update of the "+tc.name+" entity over 1 MiB", err, storage.ErrTooLarge)
		_, err = e.s.Batch(e.ctx, e.table, []storage.Operation{{Kind: storage.OpUpsert, Entity: not}})
		expectErr(t, "batch Upsert of the "+tc.name+" entity over 1 MiB", err, storage.ErrTooLarge)
		checkProps(t, tc.name+" entity after the refused writes", e.get("p", tc.name).Properties, tc.fit)
		e.mustNotExist("p", tc.name+"2")
	}
}
