package statistics

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/planner"
	"github.com/sqlgw/sqlgw/storage/pebble"
)

// ints are the conversions of a table of BIGINT columns.
var ints = Values{
	Type:  func(catalog.Type) (sql.Type, error) { return types.Int64, nil },
	Value: func(_ catalog.Type, d catalog.Datum) (any, error) { return d, nil },
}

// analysed returns t (id BIGINT PRIMARY KEY, a BIGINT, KEY ka (a)) with
// its statistics over rows id 1..1000, where a is 0 except every tenth row,
// which has a = id.
func analysed(t *testing.T) (*catalog.Table, *Table) {
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
	bigint := catalog.Type{Kind: catalog.KindInt64}
	tbl, err := cat.CreateTable(ctx, "d", &catalog.TableDef{
		Name:       "t",
		Columns:    []catalog.Column{{Name: "id", Type: bigint}, {Name: "a", Type: bigint, Nullable: true}},
		PrimaryKey: []catalog.KeyPart{{Column: "id"}},
		Indexes:    []catalog.Index{{Name: "ka", Columns: []catalog.KeyPart{{Column: "a"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	an := NewAnalysis(tbl, ints)
	for id := int64(1); id <= 1000; id++ {
		a := int64(0)
		if id%10 == 0 {
			a = id
		}
		an.Add(50, []catalog.Datum{id, a}, nil)
	}
	an.Add(50, nil, fmt.Errorf("unreadable")) // counted, nothing else
	return tbl, an.Table()
}

// TestAnalysis: an analysis's counts, distinct values, top values and
// bounds, as the planner and SHOW INDEX read them, survive the stored
// form.
func TestAnalysis(t *testing.T) {
	tbl, ts := analysed(t)
	if ts.Rows != 1001 {
		t.Errorf("Rows %d, want 1001", ts.Rows)
	}
	for _, c := range []struct {
		index string
		seq   int
		want  int64
		known bool
	}{
		{"PRIMARY", 1, 1000, true},
		{"primary", 1, 1000, true},
		{"KA", 1, 101, true}, // 0 and the 100 tenth rows
		{"ka", 2, 0, false},
		{"kb", 1, 0, false},
	} {
		if n, ok := ts.Cardinality(c.index, c.seq); n != c.want || ok != c.known {
			t.Errorf("Cardinality(%s, %d) = %d, %v; want %d, %v", c.index, c.seq, n, ok, c.want, c.known)
		}
	}
	if _, ok := (*Table)(nil).Cardinality("PRIMARY", 1); ok {
		t.Error("no statistics: a cardinality")
	}
	p := ts.Planner(tbl, 1200)
	if p.Rows != 1200 || p.Partitions != 1000 || p.EntityBytes != 50 {
		t.Errorf("planner rows %v, partitions %v, entity bytes %v; want 1200, 1000, 50", p.Rows, p.Partitions, p.EntityBytes)
	}
	if b := p.Bounds[1]; b != [2]float64{0, 1000} {
		t.Errorf("bounds of a %v, want [0 1000]", b)
	}
	if len(p.TopValues["ka"]) != statTopN || p.RowsPerValue["ka"] != 1001.0/101 {
		t.Errorf("ka: %d top values, %v rows per value; want %d, %v", len(p.TopValues["ka"]), p.RowsPerValue["ka"], statTopN, 1001.0/101)
	}
	if got := (*Table)(nil).Planner(tbl, 7); !reflect.DeepEqual(got, &planner.Stats{Rows: 7}) {
		t.Errorf("no statistics: %+v", got)
	}
	b, err := ts.Marshal(ints)
	if err != nil {
		t.Fatal(err)
	}
	back := Unmarshal(b)
	if back == nil || !reflect.DeepEqual(back.Planner(tbl, 1200), p) {
		t.Errorf("stored and read back: %+v, want %+v", back.Planner(tbl, 1200), p)
	}
	if Unmarshal([]byte("{")) != nil {
		t.Error("Unmarshal of no JSON: statistics")
	}
}

// TestRefresh: a refresh is due once Share of the rows (and RefreshMin)
// changed, one at a time.
func TestRefresh(t *testing.T) {
	_, ts := analysed(t) // 1,001 rows: the default 10% is 100.1
	ts.NoteChanges(60)
	ts.NoteChanges(-40)
	if ts.StartRefresh() {
		t.Fatal("due after 100 changes of 1,001 rows")
	}
	ts.NoteChanges(1)
	if !ts.StartRefresh() {
		t.Fatal("not due after 101 changes")
	}
	if ts.StartRefresh() || ts.StartAnalysis() {
		t.Fatal("a second refresh while one runs")
	}
	ts.AnalysisFailed()
	if !ts.StartAnalysis() {
		t.Fatal("no analysis after a failed one")
	}
}

// TestLookupJoinCost: round trips of lookup joins, one lookup per row or
// batched, through the primary key or a secondary index.
func TestLookupJoinCost(t *testing.T) {
	for _, c := range []struct {
		outer, inner    float64
		batch, parallel int
		secondary       bool
		want            float64
	}{
		{10, 1e6, 0, 16, false, 10 * LookupRoundTripCost},
		{10, 1e6, 0, 16, true, 20 * LookupRoundTripCost},
		{0, 1e6, 0, 16, false, LookupRoundTripCost}, // at least one outer row
		// 1,000 rows in blocks of 100: per block one request plus 100/16
		// rounded up MultiGet rounds.
		{1000, 1e6, 100, 16, false, 10 * (1 + 7) * LookupRoundTripCost},
		{1000, 1e6, 100, 16, true, 10 * (1 + 2*7) * LookupRoundTripCost}, // index read, then base Get
		// A small inner table: each block of a secondary index scans it (3 pages).
		{1000, 2500, 100, 16, true, 10 * (3*LookupRoundTripCost + 2500)},
	} {
		if got := LookupJoinCost(c.outer, c.inner, c.batch, c.parallel, c.secondary); got != c.want {
			t.Errorf("LookupJoinCost(%v, %v, %d, %d, %v) = %v, want %v", c.outer, c.inner, c.batch, c.parallel, c.secondary, got, c.want)
		}
	}
}
