package aztables

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkDecodeQuery measures the client-side CPU of one 100-entity page,
// without the network: this package's decoding into storage.Entity (the
// fast decoder, fastjson.go, and encoding/json's path it replaced) beside
// what the SDK does with the same body (map[string]any, then one JSON
// re-encoding per entity), which a raw SDK caller pays before decoding
// anything itself.
func BenchmarkDecodeQuery(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"odata.metadata":"x","value":[`)
	for i := 0; i < 100; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"odata.etag":"W/\"datetime'2026-11-21T16%%3A29%%3A28.2787463Z'\"","PartitionKey":"p","RowKey":"r%03d",`+
			`"Timestamp":"2026-11-21T16:29:28.2787463Z","Name":"name %d","N":%d,"Big@odata.type":"Edm.Int64","Big":"%d","F":%d.5,"B":true,`+
			`"Bin@odata.type":"Edm.Binary","Bin":"MDEyMzQ1Njc4OQ==","G@odata.type":"Edm.Guid","G":"01000000-0000-0000-0000-000000000000",`+
			`"S2":"some longer text value for the row"}`, i, i, i, int64(i)<<40, i)
	}
	sb.WriteString(`]}`)
	body := []byte(sb.String())
	b.Run("impl=aztables", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ents, err := decodeQuery(body, nil)
			if err != nil || len(ents) != 100 || len(ents[0].Properties) != 8 {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=aztables-encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ents, err := decodeQuerySlow(body, nil)
			if err != nil || len(ents) != 100 || len(ents[0].Properties) != 8 {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=sdk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var r struct{ Value []map[string]any }
			if err := json.Unmarshal(body, &r); err != nil {
				b.Fatal(err)
			}
			for _, e := range r.Value {
				if _, err := json.Marshal(e); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
