package engine

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/storage/pebble"
)

// memCatalog returns a catalog on a store in memory, with database "d".
func memCatalog(t testing.TB) *catalog.Catalog {
	t.Helper()
	ctx := context.Background()
	st, err := pebble.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	cat, err := catalog.Open(ctx, st, catalog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.CreateDatabase(ctx, "d"); err != nil {
		t.Fatal(err)
	}
	return cat
}

// TestRowOperationsAllParallel: a commit of more than parallelEncodeRows
// rows, encoded on several goroutines (rowOperationsAll), gives every row
// exactly the operations one loop over the rows gives (inserts, updates of
// stored rows, deletes, a local index), in the commit's order; and when
// two rows cannot be encoded, the error is the first of them in that order,
// whichever goroutine met it.
func TestRowOperationsAllParallel(t *testing.T) {
	ctx := context.Background()
	cat := memCatalog(t)
	bigint := catalog.Type{Kind: catalog.KindInt64}
	tbl, err := cat.CreateTable(ctx, "d", &catalog.TableDef{
		Name: "t",
		Columns: []catalog.Column{
			{Name: "p", Type: bigint},
			{Name: "id", Type: bigint},
			{Name: "a", Type: bigint, Nullable: true},
			{Name: "b", Type: catalog.Type{Kind: catalog.KindVarchar, Length: 200}, Nullable: true},
		},
		PrimaryKey: []catalog.KeyPart{{Column: "p"}, {Column: "id"}},
		Indexes:    []catalog.Index{{Name: "la", Columns: []catalog.KeyPart{{Column: "p"}, {Column: "a"}}, State: catalog.IndexReady}},
	})
	if err != nil {
		t.Fatal(err)
	}
	const n = 1000
	tt := &txTable{meta: tbl, reads: map[entKey]read{}, writes: map[entKey]*pending{}}
	for i := range n {
		row := []catalog.Datum{int64(i % 7), int64(i), int64(i * 3), strings.Repeat("x", i%50)}
		if i%11 == 0 {
			row[2], row[3] = nil, nil
		}
		pk, rk, _, err := tbl.EncodeRow(row)
		if err != nil {
			t.Fatal(err)
		}
		p := &pending{row: row}
		switch i % 5 {
		case 1: // an update of a stored row
			old := append([]catalog.Datum(nil), row...)
			old[2] = int64(-i)
			p.stored, p.old, p.base = true, old, read{exists: true, etag: "W/\"old\""}
		case 2: // a delete of a stored row
			p.row, p.deleted, p.stored, p.old, p.base = nil, true, true, row, read{exists: true, etag: "W/\"old\""}
		}
		tt.put(entKey{pk: pk, rk: rk}, p)
	}
	keys := tt.order
	one := func(k entKey) (rowOps, error) {
		w := tt.writes[k]
		ro, err := rowOperations(tt.meta, k, w)
		if err != nil || len(ro.ops) == 0 {
			return ro, err
		}
		if err := addIndexOps(tt.meta, k, w, &ro); err != nil {
			return ro, err
		}
		ro.size = opsSize(ro.ops)
		return ro, nil
	}
	got, err := rowOperationsAll(tt, keys)
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range keys {
		want, err := one(k)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got[i], want) {
			t.Fatalf("row %d (%s/%s): parallel %+v, one by one %+v", i, k.pk, k.rk, got[i], want)
		}
	}

	// Two rows that cannot be encoded (a row of the wrong width), one in
	// each half: the first one's error, every time.
	tt.writes[keys[300]] = &pending{row: []catalog.Datum{int64(1)}}
	tt.writes[keys[900]] = &pending{row: []catalog.Datum{int64(1), int64(2)}}
	for range 20 {
		_, err := rowOperationsAll(tt, keys)
		if err == nil || !strings.Contains(err.Error(), "row of 1 values") {
			t.Fatalf("error %v, want row 300's (row of 1 values)", err)
		}
	}
}
