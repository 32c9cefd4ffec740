package aztables

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"

	"github.com/sqlgw/sqlgw/storage"
)

func TestParseConnectionString(t *testing.T) {
	const key = "a2V5a2V5a2V5a2V5"
	for _, tc := range []struct {
		in                string
		endpoint, acct, k string
		sas               string
		wantErr           bool
	}{
		{in: "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" + key + ";EndpointSuffix=core.windows.net",
			endpoint: "https://acct.table.core.windows.net", acct: "acct", k: key},
		{in: "AccountName=acct;AccountKey=" + key, endpoint: "https://acct.table.core.windows.net", acct: "acct", k: key},
		{in: "DefaultEndpointsProtocol=http;AccountName=acct;AccountKey=" + key + ";EndpointSuffix=core.chinacloudapi.cn;",
			endpoint: "http://acct.table.core.chinacloudapi.cn", acct: "acct", k: key},
		{in: "AccountName=devstoreaccount1;AccountKey=" + key + ";TableEndpoint=http://127.0.0.1:10002/devstoreaccount1/;",
			endpoint: "http://127.0.0.1:10002/devstoreaccount1", acct: "devstoreaccount1", k: key},
		{in: "accountname=acct;accountkey=" + key + "==", endpoint: "https://acct.table.core.windows.net", acct: "acct", k: key + "=="},
		{in: "TableEndpoint=https://acct.table.core.windows.net;SharedAccessSignature=sv=2019-02-02&sig=abc%3D",
			endpoint: "https://acct.table.core.windows.net", sas: "sv=2019-02-02&sig=abc%3D"},
		{in: "AccountName=acct;SharedAccessSignature=?sv=1&sig=x", endpoint: "https://acct.table.core.windows.net", acct: "acct", sas: "sv=1&sig=x"},
		{in: "UseDevelopmentStorage=true", endpoint: "http://127.0.0.1:10002/devstoreaccount1", acct: "devstoreaccount1",
			k: "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="},
		{in: "", wantErr: true},
		{in: "AccountName=acct", wantErr: true},
		{in: "AccountKey=" + key, wantErr: true},
		{in: "AccountName=acct;AccountKey=" + key + ";SharedAccessSignature=sig=x", wantErr: true},
		{in: "AccountName=acct;AccountKey=" + key + ";TableEndpoint=ftp://x", wantErr: true},
		{in: "AccountName=acct;AccountKey=" + key + ";TableEndpoint=https://x?sig=1", wantErr: true},
		{in: "AccountName=acct;AccountKey=" + key + ";DefaultEndpointsProtocol=gopher", wantErr: true},
		{in: "garbage;AccountKey=" + key, wantErr: true},
	} {
		c, err := parseConnectionString(tc.in)
		if tc.wantErr {
			if !errors.Is(err, storage.ErrInvalid) {
				t.Errorf("%q: %v, want ErrInvalid", tc.in, err)
			}
			if err != nil && strings.Contains(err.Error(), key) {
				t.Errorf("%q: error quotes the key: %v", tc.in, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if c.endpoint != tc.endpoint || c.accountName != tc.acct || c.accountKey != tc.k || c.sas != tc.sas {
			t.Errorf("%q: got %+v", tc.in, *c)
		}
	}
}

func TestContinuationToken(t *testing.T) {
	for _, tc := range []struct{ pk, rk *string }{
		{to.Ptr("1!8!cGsx"), to.Ptr("1!8!cmsx")},
		{to.Ptr("pk with spaces/and ü"), nil},
		{nil, to.Ptr("rk")},
		{to.Ptr("x"), to.Ptr("")},
	} {
		tok := encodeToken(tc.pk, tc.rk)
		for _, c := range []byte(tok) {
			if c < 0x21 || c > 0x7e {
				t.Fatalf("token %q is not printable", tok)
			}
		}
		pk, rk, err := decodeToken(tok)
		if err != nil {
			t.Fatalf("decodeToken(%q): %v", tok, err)
		}
		wantPK := tc.pk
		if wantPK == nil && tc.rk != nil {
			// Resumed in the partition "": the SDK drops an empty
			// NextPartitionKey, and Azurite needs it back (query.go).
			wantPK = to.Ptr("")
		}
		if (pk == nil) != (wantPK == nil) || (pk != nil && *pk != *wantPK) {
			t.Errorf("%q: pk %v, want %v", tok, pk, wantPK)
		}
		wantRK := tc.rk
		if wantRK != nil && *wantRK == "" {
			wantRK = nil
		}
		if (rk == nil) != (wantRK == nil) || (rk != nil && *rk != *wantRK) {
			t.Errorf("%q: rk %v, want %v", tok, rk, wantRK)
		}
	}
	if tok := encodeToken(nil, nil); tok != "" {
		t.Errorf("end of query: token %q", tok)
	}
	if tok := encodeToken(to.Ptr(""), to.Ptr("")); tok != "" {
		t.Errorf("empty next keys: token %q", tok)
	}
	for _, bad := range []string{"x", "1.", "1.-.", "1.@@.x", "1.eA", "0.eA.eA"} {
		if _, _, err := decodeToken(bad); !errors.Is(err, storage.ErrInvalid) {
			t.Errorf("decodeToken(%q) = %v, want ErrInvalid", bad, err)
		}
	}
}

// TestPlanQuery checks the filter sent: at most 15 comparisons, and implied
// by the query (every entity the query matches passes the sent filter),
// on random filters evaluated against random entities.
func TestPlanQuery(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	base := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	randValue := func(prop string) storage.Value {
		switch prop {
		case "I":
			return storage.Int32(int32(rng.IntN(10)))
		case "D":
			return storage.Double([]float64{0, 1.5, 3, math.NaN(), math.Inf(1), -2}[rng.IntN(6)])
		case "T", storage.PropTimestamp:
			return storage.DateTimeTicks(storage.DateTime(base).Ticks() + int64(rng.IntN(40000)))
		default:
			return storage.String(string(rune('a' + rng.IntN(5))))
		}
	}
	props := []string{"I", "D", "T", "S", storage.PropRowKey, storage.PropTimestamp}
	var randExpr func(depth int) storage.Expr
	randExpr = func(depth int) storage.Expr {
		if depth == 0 || rng.IntN(3) == 0 {
			p := props[rng.IntN(len(props))]
			return &storage.Compare{Prop: p, Op: storage.Op(1 + rng.IntN(6)), Value: randValue(p)}
		}
		n := 1 + rng.IntN(6)
		xs := make([]storage.Expr, n)
		for i := range xs {
			xs[i] = randExpr(depth - 1)
		}
		switch rng.IntN(3) {
		case 0:
			return storage.And(xs)
		case 1:
			return storage.Or(xs)
		}
		return &storage.Not{X: xs[0]}
	}
	ents := make([]*storage.Entity, 300)
	for i := range ents {
		e := &storage.Entity{PartitionKey: "p", RowKey: randValue("S").Str(), Properties: storage.Properties{},
			Timestamp: randValue("T").Time()}
		for _, p := range []string{"I", "D", "T", "S"} {
			if rng.IntN(4) > 0 {
				e.Properties[p] = randValue(p)
			}
		}
		ents[i] = e
	}
	for i := 0; i < 2000; i++ {
		q := &storage.Query{Filter: randExpr(3)}
		if rng.IntN(2) == 0 {
			q.Row = &storage.KeyRange{Low: &storage.Bound{Key: "b", Exclusive: rng.IntN(2) == 0}}
		}
		p := planQuery(q)
		sent := parseSent(t, q, p)
		if n := storage.CountComparisons(sent); n > storage.MaxFilterComparisons {
			t.Fatalf("%s: sent %d comparisons: %s", storage.FormatOData(q.Filter), n, p.filter)
		}
		if sent != nil {
			if err := storage.ValidateFilter(sent); err != nil {
				t.Fatalf("sent filter %s: %v", p.filter, err)
			}
		}
		msSent := truncExpr(sent)
		for _, e := range ents {
			if !storage.Eval(q.Filter, e) || !q.Row.Contains(e.RowKey) {
				continue
			}
			if !storage.Eval(sent, e) {
				t.Fatalf("filter %s\nsent %s\nloses entity %+v", storage.FormatOData(q.Filter), p.filter, e)
			}
			// Azurite compares DateTimes at millisecond precision.
			if !storage.Eval(msSent, truncEntity(e)) {
				t.Fatalf("filter %s\nsent %s\nloses entity %+v on a service with millisecond DateTimes", storage.FormatOData(q.Filter), p.filter, e)
			}
		}
		if p.local == nil && storage.FormatOData(sent) != p.filter {
			t.Fatalf("no local filter, but the sent filter is not the query's")
		}
	}
}

func truncTicks(v storage.Value) storage.Value {
	if v.Type() != storage.TypeDateTime {
		return v
	}
	return storage.DateTimeTicks(v.Ticks() - v.Ticks()%10_000)
}

// truncExpr and truncEntity model Azurite: DateTimes cut to milliseconds.
func truncExpr(x storage.Expr) storage.Expr {
	switch x := x.(type) {
	case *storage.Compare:
		return &storage.Compare{Prop: x.Prop, Op: x.Op, Value: truncTicks(x.Value)}
	case storage.And:
		out := make(storage.And, len(x))
		for i, y := range x {
			out[i] = truncExpr(y)
		}
		return out
	case storage.Or:
		out := make(storage.Or, len(x))
		for i, y := range x {
			out[i] = truncExpr(y)
		}
		return out
	case *storage.Not:
		return &storage.Not{X: truncExpr(x.X)}
	}
	return x
}

func truncEntity(e *storage.Entity) *storage.Entity {
	c := *e
	c.Timestamp = e.Timestamp.Truncate(time.Millisecond)
	c.Properties = storage.Properties{}
	for k, v := range e.Properties {
		c.Properties[k] = truncTicks(v)
	}
	return &c
}

// parseSent rebuilds the sent filter as an Expr: planQuery renders it, so
// the test re-plans and keeps the Expr by rendering each candidate.
func parseSent(t *testing.T, q *storage.Query, p queryPlan) storage.Expr {
	t.Helper()
	x := p.sentExpr
	if got := storage.FormatOData(x); got != p.filter {
		t.Fatalf("sentExpr renders as %q, filter is %q", got, p.filter)
	}
	return x
}

func TestDecodeValues(t *testing.T) {
	body := `{"odata.etag":"W/\"x\"","PartitionKey":"p","RowKey":"r","Timestamp":"2024-01-02T03:04:05.1234567Z",
	"Whole":3.0,"Int":3,"BigInt":3000000000,"Exp":1E+21,"Neg":-0.5,
	"NaN@odata.type":"Edm.Double","NaN":"NaN","Inf@odata.type":"Edm.Double","Inf":"Infinity",
	"WholeAnnotated@odata.type":"Edm.Double","WholeAnnotated":4,
	"L@odata.type":"Edm.Int64","L":"9007199254740993",
	"G@odata.type":"Edm.Guid","G":"DEADBEEF-0102-0304-0506-0708090A0B0C",
	"B@odata.type":"Edm.Binary","B":"AAEC",
	"S":"it's","T":true,"Null":null}`
	e, err := decodeEntity([]byte(body), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := storage.Properties{
		"Whole": storage.Double(3), "Int": storage.Int32(3), "BigInt": storage.Double(3e9), "Exp": storage.Double(1e21),
		"Neg": storage.Double(-0.5), "NaN": storage.Double(math.NaN()), "Inf": storage.Double(math.Inf(1)),
		"WholeAnnotated": storage.Double(4), "L": storage.Int64(9007199254740993),
		"G": storage.GUID([16]byte{0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}),
		"B": storage.Binary([]byte{0, 1, 2}), "S": storage.String("it's"), "T": storage.Bool(true),
	}
	if len(e.Properties) != len(want) {
		t.Errorf("decoded %d properties, want %d: %v", len(e.Properties), len(want), e.Properties)
	}
	for k, w := range want {
		if g := e.Properties[k]; !g.Equal(w) {
			t.Errorf("%s = %#v, want %#v", k, g, w)
		}
	}
	if e.ETag != `W/"x"` || e.PartitionKey != "p" || e.RowKey != "r" || e.Timestamp.Nanosecond() != 123456700 {
		t.Errorf("system properties: %+v", e)
	}
}

// TestEncodeValues checks the body: explicit types, and quotes kept as
// they are (the SDK's EDMEntity doubles them).
func TestEncodeValues(t *testing.T) {
	e := &storage.Entity{PartitionKey: "", RowKey: "r", Properties: storage.Properties{
		"S": storage.String("it's"), "D": storage.Double(3), "L": storage.Int64(1 << 60), "N": storage.Double(math.Inf(-1)),
		"T": storage.DateTime(time.Date(2024, 1, 2, 3, 4, 5, 100, time.UTC)),
	}}
	body, empty, err := encodeEntity(e)
	if err != nil || !empty {
		t.Fatal(err, empty)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{
		"PartitionKey": emptyPK, "S": "it's", "D@odata.type": "Edm.Double", "D": 3.0, "L": "1152921504606846976",
		"L@odata.type": "Edm.Int64", "N": "-Infinity", "T": "2024-01-02T03:04:05.0000001Z", "T@odata.type": "Edm.DateTime",
	} {
		if m[k] != want {
			t.Errorf("%s = %#v, want %#v", k, m[k], want)
		}
	}
}

func TestAppendASCII(t *testing.T) {
	in := `{"s":"é😀x\"y"}`
	out := string(appendASCII(nil, []byte(in)))
	if out != `{"s":"\u00e9\ud83d\ude00x\"y"}` {
		t.Fatalf("appendASCII = %s", out)
	}
	var a, b map[string]string
	json.Unmarshal([]byte(in), &a)
	json.Unmarshal([]byte(out), &b)
	if a["s"] != b["s"] {
		t.Fatalf("escaped body means %q, want %q", b["s"], a["s"])
	}
}

func TestScrub(t *testing.T) {
	s := &Store{secrets: []string{"S3CR3T", "", "a%2Fb"}}
	for in, want := range map[string]string{
		`Get "https://acct.table.core.windows.net/t()?sv=1&sig=abc": EOF`: `Get "https://acct.table.core.windows.net/t()": EOF`,
		"key S3CR3T and a%2Fb":                "key REDACTED and REDACTED",
		"Is the name valid? yes":              "Is the name valid? yes",
		"dial tcp http://h:1/x?sig=1 refused": "dial tcp http://h:1/x refused",
	} {
		if got := s.scrub(in); got != want {
			t.Errorf("scrub(%q) = %q, want %q", in, got, want)
		}
	}
}
