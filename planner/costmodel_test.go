package planner

import (
	"testing"

	"github.com/sqlgw/sqlgw/storage"
)

// TestCostModelPerBackend: the backend's weights decide between an index
// and a scan. A 10-value IN on an indexed column of a 3,000-row table
// whose values hold 30 rows each reads ~310 requests' worth through the
// index against 3 pages of 3,000 entities for a scan. On the Table
// service (requests + entities/10) the scan wins; on Pebble (seeks +
// bytes/2,560) with 20 KB entities the scan's 60 MB lose to the index's
// 600 entities. At the default entity size (256 bytes) the two models
// agree.
func TestCostModelPerBackend(t *testing.T) {
	tb, err := parseTable("table t (id int, n int) primary key (id)")
	if err != nil {
		t.Fatal(err)
	}
	if err := parseIndex(tb, "index ix (n)"); err != nil {
		t.Fatal(err)
	}
	var vals []Datum
	for i := range 10 {
		vals = append(vals, int64(i))
	}
	plan := func(m storage.CostModel, entityBytes float64) *Plan {
		t.Helper()
		p, err := Build(tb, &Query{Where: []Expr{&In{Col: 1, Values: vals}}, Cost: m,
			Stats: &Stats{Rows: 20000, RowsPerValue: map[string]float64{"ix": 300}, EntityBytes: entityBytes}})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if p := plan(storage.AzureCost, 20000); p.Path != TableScan {
		t.Errorf("Azure, 20 KB entities: %v, want TableScan", p.Path)
	}
	if p := plan(storage.CostModel{}, 20000); p.Path != TableScan {
		t.Errorf("zero model (Azure), 20 KB entities: %v, want TableScan", p.Path)
	}
	p := plan(storage.PebbleCost, 20000)
	if p.Path != IndexLookup {
		t.Errorf("Pebble, 20 KB entities: %v, want IndexLookup", p.Path)
	}
	if p.Cost.Bytes != p.Cost.Entities*20000 {
		t.Errorf("Pebble plan reads %v bytes for %v entities", p.Cost.Bytes, p.Cost.Entities)
	}
	for _, eb := range []float64{0, 100, defaultEntityBytes} {
		a, b := plan(storage.AzureCost, eb), plan(storage.PebbleCost, eb)
		if a.Path != b.Path || a.Cost.ScoreFor(storage.AzureCost) != b.Cost.ScoreFor(storage.PebbleCost) {
			t.Errorf("entity size %v: Azure %v (%v), Pebble %v (%v); want the same choice and score", eb,
				a.Path, a.Cost.ScoreFor(storage.AzureCost), b.Path, b.Cost.ScoreFor(storage.PebbleCost))
		}
	}
}
