package aztables_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	sdk "github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/aztables/azurite"
)

// BenchmarkRequests measures this backend against the raw SDK sending the
// same request to Azurite, so that the backend's overhead reads as a ratio:
//
//	go test ./storage/aztables -run '^$' -bench Requests -benchtime 2s -count 3
//
// op=get is a point Get of an entity with 8 properties; op=range100 one
// Query page of 100 such entities (a PartitionKey and a RowKey range).
// The SDK side does not decode entities (it returns raw JSON per entity);
// the backend returns typed storage.Entity values.
func BenchmarkRequests(b *testing.B) {
	s := open(b, nil)
	table := newTable(b, s)
	ctx := context.Background()
	var ops []storage.Operation
	for i := 0; i < 100; i++ {
		ops = append(ops, storage.Operation{Kind: storage.OpInsert, Entity: &storage.Entity{
			PartitionKey: "p", RowKey: fmt.Sprintf("r%03d", i), Properties: storage.Properties{
				"Name": storage.String(fmt.Sprint("name ", i)), "N": storage.Int32(int32(i)), "Big": storage.Int64(int64(i) << 40),
				"F": storage.Double(float64(i) / 3), "B": storage.Bool(i%2 == 0), "Bin": storage.Binary([]byte("0123456789")),
				"G": storage.GUID([16]byte{byte(i)}), "S2": storage.String("some longer text value for the row"),
			}}})
	}
	if _, err := s.Batch(ctx, table, ops); err != nil {
		b.Fatal(err)
	}
	co := &sdk.ClientOptions{}
	co.Retry.MaxRetries = -1
	svc, err := sdk.NewServiceClientFromConnectionString(azurite.Shared(b), co)
	if err != nil {
		b.Fatal(err)
	}
	raw := svc.NewClient(table)
	q := &storage.Query{Partition: storage.Exactly("p"), Row: &storage.KeyRange{Low: &storage.Bound{Key: "r000"}, High: &storage.Bound{Key: "r099"}}}
	filter := "PartitionKey eq 'p' and RowKey ge 'r000' and RowKey le 'r099'"

	getStore := func() {
		e, err := s.Get(ctx, table, "p", "r042", nil)
		if err != nil || len(e.Properties) != 8 {
			b.Fatal(e, err)
		}
	}
	getSDK := func() {
		r, err := raw.GetEntity(ctx, "p", "r042", nil)
		if err != nil || len(r.Value) == 0 {
			b.Fatal(err)
		}
	}
	rangeStore := func() {
		p, err := s.Query(ctx, table, q)
		if err != nil || len(p.Entities) != 100 {
			b.Fatal(err)
		}
	}
	rangeSDK := func() {
		p, err := raw.NewListEntitiesPager(&sdk.ListEntitiesOptions{Filter: to.Ptr(filter)}).NextPage(ctx)
		if err != nil || len(p.Entities) != 100 {
			b.Fatal(err)
		}
	}
	// impl=ratio alternates the two in every iteration, so that load from
	// elsewhere on the machine hits both alike, and reports each one's mean
	// and their ratio (aztables/sdk).
	for _, tc := range []struct {
		name       string
		store, raw func()
	}{{"get", getStore, getSDK}, {"range100", rangeStore, rangeSDK}} {
		b.Run("op="+tc.name+"/impl=ratio", func(b *testing.B) {
			var ts, tr time.Duration
			n := 0
			for b.Loop() {
				t0 := time.Now()
				tc.store()
				t1 := time.Now()
				tc.raw()
				ts += t1.Sub(t0)
				tr += time.Since(t1)
				n++
			}
			b.ReportMetric(float64(ts.Nanoseconds())/float64(n), "aztables-ns/op")
			b.ReportMetric(float64(tr.Nanoseconds())/float64(n), "sdk-ns/op")
			b.ReportMetric(float64(ts)/float64(tr), "ratio")
		})
	}
	b.Run("op=get/impl=aztables", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			e, err := s.Get(ctx, table, "p", "r042", nil)
			if err != nil || len(e.Properties) != 8 {
				b.Fatal(e, err)
			}
		}
	})
	b.Run("op=get/impl=sdk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r, err := raw.GetEntity(ctx, "p", "r042", nil)
			if err != nil || len(r.Value) == 0 {
				b.Fatal(err)
			}
		}
	})
	b.Run("op=range100/impl=aztables", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p, err := s.Query(ctx, table, q)
			if err != nil || len(p.Entities) != 100 {
				b.Fatal(err)
			}
		}
	})
	b.Run("op=range100/impl=sdk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p, err := raw.NewListEntitiesPager(&sdk.ListEntitiesOptions{Filter: to.Ptr(filter)}).NextPage(ctx)
			if err != nil || len(p.Entities) != 100 {
				b.Fatal(err)
			}
		}
	})
}
