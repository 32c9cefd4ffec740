package engine

import (
	"github.com/dolthub/go-mysql-server/sql"
)

// go-mysql-server's statistics provider
//
// go-mysql-server costs its index choice and its join planner's
// cardinalities from a sql.StatsProvider. statsProvider answers for an
// analysed sqlgw table with its statistics as go-mysql-server's, a
// histogram per index (statistics.Table.GMS, whose package has the
// histograms' doc).
//
// A table sqlgw has not analysed, or whose indexes changed since (an index
// without statistics), is answered by go-mysql-server's own in-memory
// provider, as before: go-mysql-server does not mix real and default
// statistics in one costing anyway. ANALYZE TABLE from a client runs
// sqlgw's analysis (sqlgw/admin); an ANALYZE the engine itself plans
// (ANALYZE TABLE ... UPDATE HISTOGRAM, the in-process enginetest suites)
// still goes to go-mysql-server's provider, which keeps what it computes
// for tables sqlgw has no statistics of.

// statsProvider is go-mysql-server's sql.StatsProvider over sqlgw's
// statistics, falling back to inner (see above).
type statsProvider struct {
	gw    *Gateway
	inner sql.StatsProvider
}

var _ sql.StatsProvider = (*statsProvider)(nil)

// ours returns the statistics of t when it is an analysed sqlgw table
// whose every index has a histogram, as go-mysql-server statistics.
func (p *statsProvider) ours(ctx *sql.Context, db string, table sql.Table) ([]sql.Statistic, bool) {
	t, ok := unwrapTable(table).(*Table)
	if !ok || t.gw != p.gw {
		return nil, false
	}
	meta := t.meta()
	ts := p.gw.tableStatsOf(meta.Physical)
	if ts == nil {
		return nil, false
	}
	idxs, err := t.GetIndexes(ctx)
	if err != nil {
		return nil, false
	}
	// The full schema: histogram columns are full-row ordinals, and the
	// table value may carry a projection (Schema would be the projected
	// one).
	return ts.GMS(ctx, db, t.Name(), meta, t.info.schema.Schema, idxs, statValues)
}

// GetTableStats implements sql.StatsProvider.
func (p *statsProvider) GetTableStats(ctx *sql.Context, db string, table sql.Table) ([]sql.Statistic, error) {
	if st, ok := p.ours(ctx, db, table); ok {
		return st, nil
	}
	return p.inner.GetTableStats(ctx, db, table)
}

// RowCount implements sql.StatsProvider: an analysed sqlgw table's row
// estimate (ANALYZE's count, kept current by writes and scans).
func (p *statsProvider) RowCount(ctx *sql.Context, db string, table sql.Table) (uint64, error) {
	if t, ok := unwrapTable(table).(*Table); ok && t.gw == p.gw && p.gw.tableStatsOf(t.meta().Physical) != nil {
		if n, known := p.gw.rowCount(t.meta().Physical); known {
			return uint64(max(n, 0)), nil
		}
	}
	return p.inner.RowCount(ctx, db, table)
}

// AnalyzeTable implements sql.StatsProvider (the engine's own ANALYZE).
func (p *statsProvider) AnalyzeTable(ctx *sql.Context, table sql.Table, db string) error {
	return p.inner.AnalyzeTable(ctx, table, db)
}

// SetStats implements sql.StatsProvider.
func (p *statsProvider) SetStats(ctx *sql.Context, s sql.Statistic) error {
	return p.inner.SetStats(ctx, s)
}

// GetStats implements sql.StatsProvider.
func (p *statsProvider) GetStats(ctx *sql.Context, qual sql.StatQualifier, cols []string) (sql.Statistic, bool) {
	return p.inner.GetStats(ctx, qual, cols)
}

// DropStats implements sql.StatsProvider.
func (p *statsProvider) DropStats(ctx *sql.Context, qual sql.StatQualifier, cols []string) error {
	return p.inner.DropStats(ctx, qual, cols)
}

// DropDbStats implements sql.StatsProvider.
func (p *statsProvider) DropDbStats(ctx *sql.Context, db string, flush bool) error {
	return p.inner.DropDbStats(ctx, db, flush)
}

// DataLength implements sql.StatsProvider.
func (p *statsProvider) DataLength(ctx *sql.Context, db string, table sql.Table) (uint64, error) {
	return p.inner.DataLength(ctx, db, table)
}
