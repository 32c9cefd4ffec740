package aztables

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/sqlgw/sqlgw/storage"
)

// canned answers every request with one entity, without a network.
type canned struct{ body []byte }

func (c canned) Do(req *http.Request) (*http.Response, error) {
	h := http.Header{}
	h.Set("Content-Type", "application/json;odata=minimalmetadata;streaming=true;charset=utf-8")
	h.Set("ETag", `W/"datetime'2026-11-26T10%3A00%3A00.0000000Z'"`)
	return &http.Response{StatusCode: 200, Status: "200 OK", Header: h, Body: io.NopCloser(bytes.NewReader(c.body)), Request: req, ContentLength: int64(len(c.body))}, nil
}

const cannedEntity = `{"odata.metadata":"http://127.0.0.1:10002/devstoreaccount1/$metadata#t/@Element","odata.etag":"W/\"datetime'2026-11-26T10%3A00%3A00.0000000Z'\"","PartitionKey":"a1","RowKey":"b42","Timestamp":"2026-11-26T10:00:00.0000000Z","c1":"name 42","c2":42,"c3@odata.type":"Edm.Int64","c3":"46179488366592","c4":14.0,"c5":true,"c6@odata.type":"Edm.Binary","c6":"MDEyMzQ1Njc4OQ==","c7":"some longer text value for the row"}`

// BenchmarkGetCPU measures the CPU and allocations of one Get without the
// network (a transport that answers at once), through the lean Get
// (leanget.go) and through the SDK's pipeline:
//
//	go test ./storage/aztables -run '^$' -bench GetCPU -benchmem -count 5
func BenchmarkGetCPU(b *testing.B) {
	for _, impl := range []string{"lean", "sdk"} {
		b.Run("impl="+impl, func(b *testing.B) {
			s, err := Open(context.Background(), "UseDevelopmentStorage=true", &Options{HTTPClient: canned{[]byte(cannedEntity)}})
			if err != nil {
				b.Fatal(err)
			}
			if impl == "sdk" {
				s.lean = nil
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				e, err := s.Get(ctx, "tbl", "a1", "b42", &storage.GetOptions{})
				if err != nil || len(e.Properties) != 7 {
					b.Fatal(e, err)
				}
			}
		})
	}
}
