package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/stats"
)

// TestStatsProviderHistograms: after sqlgw's ANALYZE, go-mysql-server's
// statistics provider returns, per index, the row count, the distinct
// count and a histogram whose filtered counts (go-mysql-server's own
// PrefixKey, as its index costing uses it) follow the data's skew; the
// histogram survives a reload from the store; before the analysis the
// engine's own provider answers (nothing).
func TestStatsProviderHistograms(t *testing.T) {
	s := newEngineSession(t)
	s.must(t, "CREATE DATABASE d")
	s.ctx.SetCurrentDatabase("d")
	s.must(t, "CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(10), KEY ka (a), KEY kab (a, b))")
	var vals []string
	for i := 1; i <= 2000; i++ {
		a := 0
		if i%20 == 0 {
			a = i // 100 rows with their own value, 1,900 with 0
		}
		vals = append(vals, fmt.Sprintf("(%d, %d, 'b%d')", i, a, i%7))
	}
	s.must(t, "INSERT INTO t VALUES "+strings.Join(vals, ","))
	db, err := s.e.Provider.Database(s.ctx, "d")
	if err != nil {
		t.Fatal(err)
	}
	tbl, _, err := db.GetTableInsensitive(s.ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	prov := s.e.Engine.Analyzer.Catalog.StatsProvider
	if _, ok := prov.(*statsProvider); !ok {
		t.Fatalf("the engine's statistics provider is %T", prov)
	}
	if st, err := prov.GetTableStats(s.ctx, "d", tbl); err != nil || len(st) != 0 {
		t.Fatalf("before ANALYZE: %d statistics, %v", len(st), err)
	}
	meta, err := s.e.gw.Catalog.Table(context.Background(), "d", "t")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.e.gw.analyzeTable(context.Background(), meta); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		st, err := prov.GetTableStats(s.ctx, "d", tbl)
		if err != nil || len(st) != 3 {
			t.Fatalf("%s: %d statistics, %v", when, len(st), err)
		}
		byIndex := map[string]sql.Statistic{}
		for _, x := range st {
			byIndex[x.Qualifier().Index()] = x
		}
		for name, distinct := range map[string]uint64{"primary": 2000, "ka": 101, "kab": 107} {
			x := byIndex[name]
			if x == nil {
				t.Fatalf("%s: no statistic for %s", when, name)
			}
			var rows uint64
			for _, b := range x.Histogram() {
				rows += b.RowCount()
				if len(b.UpperBound()) != len(x.Columns()) {
					t.Errorf("%s: %s bucket bound %v for columns %v", when, name, b.UpperBound(), x.Columns())
				}
			}
			if x.RowCount() != 2000 || x.DistinctCount() != distinct || rows < 1900 || rows > 2100 {
				t.Errorf("%s: %s rows %d, distinct %d, histogram rows %d; want 2000, %d, ~2000", when, name, x.RowCount(), x.DistinctCount(), rows, distinct)
			}
		}
		ka := byIndex["ka"]
		count := func(v int32) uint64 {
			h, err := stats.PrefixKey(s.ctx, ka.Histogram(), ka.Types(), []interface{}{v})
			if err != nil {
				t.Fatal(err)
			}
			n, _, _ := stats.GetNewCounts(h)
			return n
		}
		if zero, one := count(0), count(40); zero < 1500 || one > 200 {
			t.Errorf("%s: histogram estimates a = 0 at %d rows (1,900), a = 40 at %d (1)", when, zero, one)
		}
		if n, err := prov.RowCount(s.ctx, "d", tbl); err != nil || n != 2000 {
			t.Errorf("%s: RowCount %d, %v", when, n, err)
		}
	}
	check("after ANALYZE")
	// A new gateway loads the statistics from the store.
	s.e.gw.mu.Lock()
	delete(s.e.gw.stats, meta.Physical)
	s.e.gw.mu.Unlock()
	check("reloaded")
}
