package txn_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/catalog/txn"
	"github.com/sqlgw/sqlgw/storage"
)

// TestIntentValuesRoundTrip: a row committed through the record protocol
// reads back with every property of every type as written (large values
// spread over several intent entities included), and one without
// properties (every column NULL) stays without.
func TestIntentValuesRoundTrip(t *testing.T) {
	ctx := context.Background()
	inner := setup(t)
	s := txn.Wrap(inner, "txns", txn.Options{})
	big := bytes.Repeat([]byte{0, 1, 2, 0xff}, 16<<10) // 64 KiB
	props := storage.Properties{
		"s":   storage.String("héllo ☃ \x00 <&>"),
		"e":   storage.String(""),
		"i32": storage.Int32(-7),
		"i64": storage.Int64(-1 << 62),
		"d":   storage.Double(-0.5),
		"b":   storage.Bool(true),
		"f":   storage.Bool(false),
		"t":   storage.DateTime(time.Date(2026, 11, 26, 1, 2, 3, 400, time.UTC)),
		"g":   storage.GUID([16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}),
		"bin": storage.Binary(big),
		"nil": storage.Binary(nil),
	}
	for i := 0; i < 10; i++ {
		props["big"+string(rune('a'+i))] = storage.String(strings.Repeat("x", 30000))
	}
	old, err := s.Get(ctx, table, "p1", "r", nil)
	if err != nil {
		t.Fatal(err)
	}
	gs := []txn.Group{
		{Table: table, Ops: []storage.Operation{{Kind: storage.OpUpdate, IfMatch: old.ETag, Entity: &storage.Entity{PartitionKey: "p1", RowKey: "r", Properties: props}}}},
		{Table: table, Ops: []storage.Operation{{Kind: storage.OpInsert, Entity: &storage.Entity{PartitionKey: "p20", RowKey: "r", Properties: storage.Properties{}}}}},
	}
	if err := s.Commit(ctx, gs, nil); err != nil {
		t.Fatal(err)
	}
	e, err := inner.Get(ctx, table, "p1", "r", nil)
	if err != nil {
		t.Fatal(err)
	}
	delete(e.Properties, txn.PropVersion) // the commit timestamp (mvcc.go)
	if len(e.Properties) != len(props) {
		t.Fatalf("%d properties, want %d", len(e.Properties), len(props))
	}
	for n, v := range props {
		if !e.Properties[n].Equal(v) {
			t.Errorf("property %s: %#v, want %#v", n, e.Properties[n], v)
		}
	}
	e, err = inner.Get(ctx, table, "p20", "r", nil)
	if err == nil {
		delete(e.Properties, txn.PropVersion)
	}
	if err != nil || len(e.Properties) != 0 {
		t.Fatalf("empty row: %v %v", e, err)
	}
}
