package wire

import (
	"context"
	"reflect"
	"testing"

	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/sqlgw/engine"
	"github.com/sqlgw/sqlgw/storage/pebble"
)

// fixTimeResults: Decimals and digits from the catalog's declared
// precision; columns without it (older records, expressions) unchanged.
func TestFixTimeResults(t *testing.T) {
	ctx := context.Background()
	store, err := pebble.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(ctx, store, catalog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.Gateway().Catalog.CreateDatabase(ctx, "d"); err != nil {
		t.Fatal(err)
	}
	_, err = e.Gateway().Catalog.CreateTable(ctx, "d", &catalog.TableDef{Name: "t", PrimaryKey: []catalog.KeyPart{{Column: "k"}}, Columns: []catalog.Column{
		{Name: "k", Type: catalog.Type{Kind: catalog.KindInt32}},
		{Name: "t0", Type: catalog.Type{Kind: catalog.KindTime, TimeFSP: true}, Nullable: true},
		{Name: "t3", Type: catalog.Type{Kind: catalog.KindTime, FSP: 3, TimeFSP: true}, Nullable: true},
		{Name: "old", Type: catalog.Type{Kind: catalog.KindTime}, Nullable: true},
	}})
	if err != nil {
		t.Fatal(err)
	}
	field := func(name string) *querypb.Field {
		return &querypb.Field{Name: name, OrgName: name, Table: "t", OrgTable: "t", Database: "d", Type: querypb.Type_TIME}
	}
	expr := &querypb.Field{Name: "x", Type: querypb.Type_TIME}
	res := &sqltypes.Result{Fields: []*querypb.Field{field("t0"), field("t3"), field("old"), expr}, Rows: [][]sqltypes.Value{{
		sqltypes.MakeTrusted(sqltypes.Time, []byte("-12:00:02.000000")),
		sqltypes.MakeTrusted(sqltypes.Time, []byte("12:00:01.124000")),
		sqltypes.MakeTrusted(sqltypes.Time, []byte("12:00:01.500000")),
		sqltypes.MakeTrusted(sqltypes.Time, []byte("12:00:01.000000")),
	}}}
	var got *sqltypes.Result
	cb := fixTimeResults(e.Gateway(), ctx, func(r *sqltypes.Result, _ bool) error { got = r; return nil })
	if err := cb(res, false); err != nil {
		t.Fatal(err)
	}
	var dec []uint32
	var vals []string
	for i, f := range got.Fields {
		dec = append(dec, f.Decimals)
		vals = append(vals, got.Rows[0][i].ToString())
	}
	if !reflect.DeepEqual(dec, []uint32{0, 3, 0, 0}) || !reflect.DeepEqual(vals, []string{"-12:00:02", "12:00:01.124", "12:00:01.500000", "12:00:01.000000"}) {
		t.Errorf("decimals %v values %q", dec, vals)
	}
	if got.Fields[1].ColumnLength != 14 {
		t.Errorf("TIME(3) length %d, want 14", got.Fields[1].ColumnLength)
	}
}
