package aztables

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/storage"
)

// show renders entities for comparison (NaN equals NaN there).
func show(es []*storage.Entity) []string {
	var out []string
	for _, e := range es {
		out = append(out, fmt.Sprintf("%+v", *e))
	}
	return out
}

func same(a, b *storage.Entity) bool {
	if a == nil || b == nil {
		return a == b
	}
	return fmt.Sprintf("%+v", *a) == fmt.Sprintf("%+v", *b)
}

// TestFastDecoderAgrees: the fast decoder (fastjson.go) returns what
// encoding/json's path returns, entity and error alike, for every kind of
// value the service sends and for bodies it gives up on (nested values,
// escaped names, invalid UTF-8, malformed JSON), which then take the slow
// path.
func TestFastDecoderAgrees(t *testing.T) {
	entities := []string{
		`{}`,
		`{"odata.etag":"W/\"datetime'2026-11-21T16%3A29%3A28.2787463Z'\"","PartitionKey":"p","RowKey":"r1","Timestamp":"2026-11-21T16:29:28.2787463Z","S":"text"}`,
		`{"PartitionKey":"p","RowKey":"r","I":42,"D":3.0,"D2":-1.5e3,"Big@odata.type":"Edm.Int64","Big":"9223372036854775807","B":true,"F":false,"N":null}`,
		`{"PartitionKey":"p","RowKey":"r","X":2147483648,"Y":-2147483648,"Z":1E2,"W":0.0,"V":-0}`,
		`{"PartitionKey":"p","RowKey":"r","D@odata.type":"Edm.Double","D":"NaN","E@odata.type":"Edm.Double","E":"-Infinity","I@odata.type":"Edm.Int32","I":"7"}`,
		`{"PartitionKey":"p","RowKey":"r","Bin@odata.type":"Edm.Binary","Bin":"MDEyMzQ1Njc4OQ==","G@odata.type":"Edm.Guid","G":"01000000-0000-0000-0000-00000000000A","T@odata.type":"Edm.DateTime","T":"2026-01-02T03:04:05.1234567Z"}`,
		`{"PartitionKey":"p","RowKey":"r","Esc":"a\"b\\c\/d\n\u00e9\ud83d\ude00","Uni":"日本語 ünïcödé"}`,
		`{"PartitionKey":"p","RowKey":"r","Late":"5","Late@odata.type":"Edm.Int64"}`,
		`  { "PartitionKey" : "p" , "RowKey" : "r" , "A" : 1 }  `,
		`{"PartitionKey":"p","RowKey":"r","A":1,"A":"again"}`,
		`{"PartitionKey":"p","RowKey":"r","A":1,"A":null}`,
		`{"PartitionKey":"p","RowKey":"r","Bad@odata.type":"Edm.Int64","Bad":"x"}`,
		`{"PartitionKey":"p","RowKey":"r","U@odata.type":"Edm.Unknown","U":"x"}`,
		`{"PartitionKey":"p","RowKey":"r","Timestamp":"not a time"}`,
		// The fast decoder gives up on these.
		`{"PartitionKey":"p","RowKey":"r","Nested":{"a":1}}`,
		`{"PartitionKey":"p","RowKey":"r","Arr":[1,2]}`,
		`{"Part\u0069tionKey":"p","RowKey":"r"}`,
		"{\"PartitionKey\":\"p\",\"RowKey\":\"r\",\"S\":\"bad \xff utf8\"}",
		`{"PartitionKey":"p","RowKey":"r","A":01}`,
		`{"PartitionKey":"p","RowKey":"r","A":1.}`,
		`{"PartitionKey":"p","RowKey":"r","A":tru}`,
		`{"PartitionKey":"p","RowKey":"r",}`,
		`{"PartitionKey":"p","RowKey":"r"} x`,
		`{"PartitionKey":"p","RowKey":"r","S":"ctl` + "\x01" + `"}`,
		`{"PartitionKey":"p","RowKey":"r","S":"\x"}`,
		`{"PartitionKey":"p","RowKey":"r","S":"unterminated`,
		``,
	}
	// The service's bodies take the fast path.
	for _, body := range entities[1:9] {
		if _, ok, _ := fastEntity([]byte(body), nil); !ok {
			t.Errorf("the fast decoder gave up on %s", body)
		}
		if _, ok, _ := fastQuery([]byte(`{"odata.metadata":"m","value":[`+body+`,`+body+`]}`), nil); !ok {
			t.Errorf("the fast decoder gave up on a query of %s", body)
		}
	}
	sels := []map[string]struct{}{nil, {"A": {}, "S": {}}, {}}
	check := func(body string, sel map[string]struct{}) {
		t.Helper()
		fe, ferr := decodeEntity([]byte(body), sel)
		se, serr := decodeEntitySlow([]byte(body), sel)
		if (ferr == nil) != (serr == nil) || !same(fe, se) {
			t.Errorf("entity %q, select %v:\nfast %+v, %v\nslow %+v, %v", body, sel, fe, ferr, se, serr)
		}
	}
	checkQuery := func(body string, sel map[string]struct{}) {
		t.Helper()
		fe, ferr := decodeQuery([]byte(body), sel)
		se, serr := decodeQuerySlow([]byte(body), sel)
		if (ferr == nil) != (serr == nil) || (serr == nil && !reflect.DeepEqual(show(fe), show(se))) {
			t.Errorf("query %q, select %v:\nfast %+v, %v\nslow %+v, %v", body, sel, fe, ferr, se, serr)
		}
	}
	for _, body := range entities {
		for _, sel := range sels {
			check(body, sel)
			checkQuery(`{"odata.metadata":"m","value":[`+body+`]}`, sel)
			checkQuery(`{"value":[`+body+`,`+body+`],"odata.metadata":"m"}`, sel)
		}
	}
	for _, body := range []string{`{"value":[]}`, `{"odata.metadata":"m","value":[]}`, `{}`, `{"value":[],"value":[]}`, `{"value":{}}`, `[]`, `{"value":[{"A":1}]`, `{"value":[{"A":1}],}`, `{"other":[1],"value":[]}`} {
		checkQuery(body, nil)
	}
	// Random entities of every type, whitespace and member orders.
	rng := rand.New(rand.NewSource(1))
	vals := []string{`"s"`, `""`, `"a\"b"`, `12`, `-7`, `3.25`, `1e300`, `true`, `false`, `null`, `"\u0041"`, `"é"`}
	types := []string{"", "Edm.String", "Edm.Int32", "Edm.Int64", "Edm.Double", "Edm.Boolean"}
	for n := 0; n < 2000; n++ {
		var parts []string
		parts = append(parts, `"PartitionKey":"p"`, `"RowKey":"r`+fmt.Sprint(n)+`"`)
		for k := 0; k < rng.Intn(6); k++ {
			name := fmt.Sprintf("P%d", rng.Intn(4))
			if ty := types[rng.Intn(len(types))]; ty != "" {
				parts = append(parts, fmt.Sprintf(`"%s@odata.type":"%s"`, name, ty))
			}
			parts = append(parts, fmt.Sprintf(`"%s":%s`, name, vals[rng.Intn(len(vals))]))
		}
		rng.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
		sep := []string{",", " , ", ",\n"}[rng.Intn(3)]
		body := "{" + strings.Join(parts, sep) + "}"
		check(body, nil)
		checkQuery(`{"value":[`+body+`]}`, nil)
	}
}

// TestUnquoteAgrees: unquote (its own unescaping of two-character escapes,
// the ETags' \") returns what encoding/json returns for every JSON string,
// or the same failure.
func TestUnquoteAgrees(t *testing.T) {
	inputs := []string{
		`""`, `"plain"`, `"W/\"datetime'2026-11-26T10%3A00%3A00.0000000Z'\""`,
		`"a\\b"`, `"a\/b"`, `"\b\f\n\r\t"`, `"\"\""`, `"end\\"`, `"\u00fc"`, `"x\u0041\"y"`,
		`"\ud83d\ude00"`, `"\ud83d"`, `"ü ñ 😀 \" q"`, "\"ctl\x01\\\"\"", "\"bad\xff\\\"\"", `"\x"`, `"\q"`,
		"\"tab\t\\n\"",
	}
	for _, in := range inputs {
		got, gerr := unquote(json.RawMessage(in))
		var want string
		werr := json.Unmarshal([]byte(in), &want)
		if (gerr == nil) != (werr == nil) || got != want {
			t.Errorf("unquote(%q) = %q, %v; encoding/json: %q, %v", in, got, gerr, want, werr)
		}
	}
}
