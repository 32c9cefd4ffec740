package storage

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonBody renders e as the Azure Table backend sends it (storage/aztables
// encodeEntity: encoding/json of a map, Int64 as a string, Binary base64,
// an @odata.type annotation for every type but String and Boolean).
func jsonBody(t *testing.T, e *Entity) []byte {
	m := map[string]any{"PartitionKey": e.PartitionKey, "RowKey": e.RowKey}
	if e.PartitionKey == "" {
		m["PartitionKey"] = "#sqlgw-empty-pk#"
	}
	for name, v := range e.Properties {
		var val any
		typ := ""
		switch v.Type() {
		case TypeString:
			val = v.Str()
		case TypeBoolean:
			val = v.BoolValue()
		case TypeInt32:
			val, typ = int32(v.Int()), "Edm.Int32"
		case TypeInt64:
			val, typ = strconv.FormatInt(v.Int(), 10), "Edm.Int64"
		case TypeDouble:
			f := v.Float()
			switch {
			case math.IsNaN(f):
				val = "NaN"
			case math.IsInf(f, 0):
				val = "-Infinity"
			default:
				val = f
			}
			typ = "Edm.Double"
		case TypeDateTime:
			val, typ = v.Time().Format("2006-01-02T15:04:05.0000000Z"), "Edm.DateTime"
		case TypeBinary:
			val, typ = base64.StdEncoding.EncodeToString(v.Bytes()), "Edm.Binary"
		case TypeGUID:
			val, typ = FormatGUID(v.GUIDValue()), "Edm.Guid"
		}
		m[name] = val
		if typ != "" {
			m[name+"@odata.type"] = typ
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	// The backend then escapes every non-ASCII character for Azurite.
	var out []byte
	for _, r := range string(b) {
		if r < utf8.RuneSelf {
			out = append(out, byte(r))
			continue
		}
		for _, u := range utf16.Encode([]rune{r}) {
			out = fmt.Appendf(out, "\\u%04x", u)
		}
	}
	return out
}

// TestEntitySizeCoversJSON: EntitySize is never below the UTF-8 length of
// the entity's JSON body (what Azurite checks against 1 MiB), for values
// at their longest renderings and strings full of escapes.
func TestEntitySizeCoversJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "<", ">", "&", "\"", "\\", "\n", "\x01", "\x7f", "\u00e9", "\u4e2d", "\u2028", "\U0001F600", "'"}
	randString := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	doubles := []float64{0, 1, -1.2345678901234567e-308, math.MaxFloat64, -math.SmallestNonzeroFloat64, -123456789012345678901.5,
		-0.0000012345678901234567, math.Inf(1), math.Inf(-1), math.NaN(), 1.0 / 3}
	times := []time.Time{time.Date(1601, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 999999900, time.UTC)}
	for i := 0; i < 300; i++ {
		e := &Entity{PartitionKey: randString(rng.IntN(5)), RowKey: randString(rng.IntN(5)), Properties: Properties{}}
		for j := 0; j < 1+rng.IntN(12); j++ {
			name := "p" + strconv.Itoa(j) + strings.Repeat("_", rng.IntN(20))
			var v Value
			switch rng.IntN(9) {
			case 0:
				v = String(randString(rng.IntN(200)))
			case 1:
				b := make([]byte, rng.IntN(200))
				for k := range b {
					b[k] = byte(rng.Uint32())
				}
				v = Binary(b)
			case 2:
				v = Int32(math.MinInt32 + int32(rng.IntN(2)))
			case 3:
				v = Int64(math.MinInt64 + int64(rng.IntN(2)))
			case 4:
				v = Double(doubles[rng.IntN(len(doubles))])
			case 5:
				v = DateTime(times[rng.IntN(len(times))])
			case 6:
				v = Bool(rng.IntN(2) == 0)
			case 7:
				var g [16]byte
				g[0] = byte(rng.Uint32())
				v = GUID(g)
			default:
				v = String(strings.Repeat("\u2028<", rng.IntN(50)))
			}
			e.Properties[name] = v
		}
		body := jsonBody(t, e)
		if !utf8.Valid(body) {
			t.Fatalf("test bug: body is not UTF-8")
		}
		if n := EntitySize(e); n < len(body) {
			t.Fatalf("EntitySize %d < JSON body %d bytes: %s", n, len(body), body)
		}
	}
}

// TestEntitySizeBinaryMeasure: 64 KiB Binary values are measured as base64,
// so eleven fit an entity and twelve do not (by the service's formula,
// which counts raw bytes, fifteen would).
func TestEntitySizeBinaryMeasure(t *testing.T) {
	props := Properties{}
	for i := 0; i < 12; i++ {
		props["b"+strconv.Itoa(i)] = Binary(make([]byte, MaxValueBytes))
		err := DefaultLimits.ValidateEntity(&Entity{PartitionKey: "p", RowKey: "r", Properties: props})
		if i < 11 && err != nil {
			t.Fatalf("%d binary values: %v", i+1, err)
		}
		if i == 11 && err == nil {
			t.Fatalf("12 binary values of 64 KiB (%d bytes of base64) accepted", 12*base64.StdEncoding.EncodedLen(MaxValueBytes))
		}
	}
}

func TestSplitBatches(t *testing.T) {
	op := func(n int) Operation {
		return Operation{Kind: OpUpsert, Entity: &Entity{PartitionKey: "p", RowKey: fmt.Sprint(n),
			Properties: Properties{"v": String(strings.Repeat("x", 1000))}}}
	}
	var ops []Operation
	for i := 0; i < 250; i++ {
		ops = append(ops, op(i))
	}
	// By count: 100 + 100 + 50, order kept.
	bs := SplitBatches(ops, MaxBatchBytes)
	if len(bs) != 3 || len(bs[0]) != MaxBatchOps || len(bs[1]) != MaxBatchOps || len(bs[2]) != 50 {
		t.Fatalf("by count: got %d batches", len(bs))
	}
	if bs[1][0].Entity.RowKey != "100" || bs[2][49].Entity.RowKey != "249" {
		t.Fatalf("order not kept: %s, %s", bs[1][0].Entity.RowKey, bs[2][49].Entity.RowKey)
	}
	// By size: each op is over 1000 bytes, so at most 4 fit in 5000.
	size := EntitySize(ops[0].Entity)
	bs = SplitBatches(ops[:10], 5000)
	for _, b := range bs {
		if len(b)*size > 5000 {
			t.Fatalf("batch of %d ops of %d bytes exceeds 5000", len(b), size)
		}
	}
	if len(bs) != (10+5000/size-1)/(5000/size) {
		t.Fatalf("by size: got %d batches", len(bs))
	}
	// One op larger than the limit is a batch of its own; nothing is empty.
	bs = SplitBatches(ops[:3], 10)
	if len(bs) != 3 {
		t.Fatalf("oversize ops: got %d batches, want 3", len(bs))
	}
	if got := SplitBatches(nil, 10); len(got) != 0 {
		t.Fatalf("nil ops: got %d batches", len(got))
	}
}

// TestStringSizes: stringSizes measures as utf16Len and jsonStringLen do,
// and validateEntity's one pass over a string property gives
// validateValue's errors and EntitySize's size.
func TestStringSizes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{"a", "Z", "0", "-", " ", "\"", "\\", "\n", "\t", "\x01", "<", "&", "é", "€", "😀", "\xff", "\xe2\x82", strings.Repeat("x", 40)}
	strs := []string{"", "plain", "12345678901-23456789012", "é", "\xff", "a\xffb"}
	for range 2000 {
		var sb strings.Builder
		for range rng.IntN(12) {
			sb.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		strs = append(strs, sb.String())
	}
	strs = append(strs, strings.Repeat("a", MaxStringUTF16+1), strings.Repeat("é", MaxStringUTF16/2+1)+"\xff")
	l := DefaultLimits
	for _, s := range strs {
		units, js, ascii := stringSizes(s)
		wantASCII := true
		for i := 0; i < len(s); i++ {
			wantASCII = wantASCII && s[i] < utf8.RuneSelf
		}
		if units != utf16Len(s) || js != jsonStringLen(s) || ascii != wantASCII {
			t.Errorf("stringSizes(%q) = %d, %d, %v; want %d, %d, %v", s, units, js, ascii, utf16Len(s), jsonStringLen(s), wantASCII)
		}
		e := &Entity{PartitionKey: "p", RowKey: "r", Properties: map[string]Value{"c": String(s)}}
		size, err := l.validateEntity(e)
		wantErr := validateValue("c", String(s))
		if wantErr == nil && EntitySize(e) > MaxEntityBytes {
			wantErr = fmt.Errorf("%w: entity of %d bytes, the limit is %d", ErrTooLarge, EntitySize(e), MaxEntityBytes)
		}
		if fmt.Sprint(err) != fmt.Sprint(wantErr) || err == nil && size != EntitySize(e) {
			t.Errorf("validateEntity(%.40q) = %d, %v; want %d, %v", s, size, err, EntitySize(e), wantErr)
		}
	}
}
