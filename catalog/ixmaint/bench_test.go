package ixmaint

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/faultstore"
)

// TestWriteAmplification counts the store requests of one INSERT, one
// UPDATE changing every indexed value, one UPDATE changing none, and one
// DELETE, with 0, 1 and 3 indexes of each kind (the row read an UPDATE
// needs is not counted: the gateway has it from the statement's read).
func TestWriteAmplification(t *testing.T) {
	ctx := context.Background()
	mk := func(n int, global bool) *catalog.TableDef {
		def := testDef()
		def.Indexes = nil
		for i, col := range []string{"a", "b", "c"}[:n] {
			def.Indexes = append(def.Indexes, catalog.Index{Name: fmt.Sprintf("i%d", i),
				Columns: []catalog.KeyPart{{Column: col}}, Global: global, State: catalog.IndexReady})
		}
		return def
	}
	type want struct{ ins, upd, updSame, del int }
	cases := []struct {
		name   string
		n      int
		global bool
		want   want
	}{
		{"0 indexes", 0, false, want{1, 1, 1, 1}},
		{"1 local", 1, false, want{1, 1, 1, 1}},
		{"3 local", 3, false, want{1, 1, 1, 1}},
		{"1 global", 1, true, want{3, 5, 1, 3}},
		{"3 global", 3, true, want{7, 13, 1, 7}},
	}
	var sb strings.Builder
	sb.WriteString("| indexes | INSERT | UPDATE (indexed values change) | UPDATE (no indexed value changes) | DELETE |\n|---|---|---|---|---|\n")
	for _, c := range cases {
		f := setup(t, mk(c.n, c.global), initialRows())
		fs := faultstore.New(f.inner)
		m := &Maintainer{Store: fs}
		count := func(fn func() error) int {
			fs.CrashAt(0, false)
			if err := fn(); err != nil {
				t.Fatal(err)
			}
			return fs.Requests()
		}
		var got want
		got.ins = count(func() error { return insertRow(ctx, m, f.tbl, row(1, 9, int64(1), "q", int64(2), nil)) })
		got.upd = count(func() error {
			return updateRow(ctx, m, f.tbl, 1, 9, func(r []catalog.Datum) { r[2], r[3], r[4] = int64(5), "r", int64(6) })
		}) - 1 // the read
		got.updSame = count(func() error {
			return updateRow(ctx, m, f.tbl, 1, 9, func(r []catalog.Datum) { r[5] = int64(7) })
		}) - 1
		got.del = count(func() error { return deleteRow(ctx, m, f.tbl, 1, 9) }) - 1
		if got != c.want {
			t.Errorf("%s: requests %+v, want %+v", c.name, got, c.want)
		}
		if mm, err := Check(ctx, f.inner, f.tbl); err != nil || len(mm) > 0 {
			t.Fatalf("%s: %v %v", c.name, mm, err)
		}
		fmt.Fprintf(&sb, "| %s | %d | %d | %d | %d |\n", c.name, got.ins, got.upd, got.updSame, got.del)
	}
	t.Log("\n" + sb.String())
}

// BenchmarkLookup compares, on a table of -rows rows (100k by default
// when -bench is given), an equality lookup through a global index (with
// the base gets), a covering lookup, and the table scan with the filter
// pushed that the same query costs without the index.
func BenchmarkLookup(b *testing.B) {
	ctx := context.Background()
	const rows = 100_000
	def := testDef()
	def.Indexes = []catalog.Index{
		{Name: "ga", Columns: []catalog.KeyPart{{Column: "a"}}, Global: true, Covering: []string{"c"}, State: catalog.IndexReady},
	}
	f := setup(b, def, nil)
	// Bulk load: 100 rows per partition, one batch each; a in 0..9999
	// (10 rows per value).
	for p := range rows / 100 {
		var ops []storage.Operation
		for i := range 100 {
			id := int64(p*100 + i)
			_, _, ents, err := f.tbl.EncodeRow(row(int64(p), id, id%10000, nil, id, nil))
			if err != nil {
				b.Fatal(err)
			}
			ops = append(ops, storage.Operation{Kind: storage.OpInsert, Entity: ents[0]})
		}
		if _, err := f.inner.Batch(ctx, f.tbl.Physical, ops); err != nil {
			b.Fatal(err)
		}
	}
	start := time.Now()
	if err := (&Maintainer{Store: f.inner}).Backfill(ctx, f.tbl, &f.tbl.Indexes[0], nil); err != nil {
		b.Fatal(err)
	}
	b.Logf("backfill of %d rows: %v", rows, time.Since(start))
	ix := &f.tbl.Indexes[0]
	fs := faultstore.New(f.inner)
	m := &Maintainer{Store: fs}
	lookupReqs := func(covering bool, v int64) (int, int) {
		pk, _, err := f.tbl.IndexPrefix(ix, []catalog.Datum{v})
		if err != nil {
			b.Fatal(err)
		}
		var hits []*storage.Entity
		if err := ScanAll(ctx, fs, ix.Physical, &storage.Query{Partition: storage.Exactly(pk)}, func(e *storage.Entity) error {
			hits = append(hits, e)
			return nil
		}); err != nil {
			b.Fatal(err)
		}
		got, _, err := m.Fetch(ctx, f.tbl, ix, hits, covering)
		if err != nil {
			b.Fatal(err)
		}
		return len(got), fs.Requests()
	}
	for _, covering := range []bool{false, true} {
		b.Run(fmt.Sprintf("index covering=%v", covering), func(b *testing.B) {
			n, reqs := 0, 0
			for i := 0; b.Loop(); i++ {
				fs.CrashAt(0, false)
				n, reqs = lookupReqs(covering, int64(i%10000))
			}
			b.ReportMetric(float64(reqs), "requests/op")
			b.ReportMetric(float64(n), "rows/op")
		})
	}
	b.Run("scan", func(b *testing.B) {
		n, reqs := 0, 0
		for i := 0; b.Loop(); i++ {
			fs.CrashAt(0, false)
			n = 0
			q := &storage.Query{Row: &storage.KeyRange{High: &storage.Bound{Key: f.tbl.RowKeyEnd(), Exclusive: true}},
				Filter: storage.Eq(f.tbl.Columns[2].Property, storage.Int64(int64(i%10000)))}
			if err := ScanAll(ctx, fs, f.tbl.Physical, q, func(*storage.Entity) error { n++; return nil }); err != nil {
				b.Fatal(err)
			}
			reqs = fs.Requests()
		}
		b.ReportMetric(float64(reqs), "requests/op")
		b.ReportMetric(float64(n), "rows/op")
	})
}
