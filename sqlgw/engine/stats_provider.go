package engine

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/stats"

	"github.com/sqlgw/sqlgw/catalog"
)

// go-mysql-server's statistics provider
//
// go-mysql-server costs its index choice (costed_index_scan.go: the
// filtered histogram with the fewest rows wins) and its join planner's
// cardinalities from a sql.StatsProvider. sqlgw's statsProvider answers
// for sqlgw tables from ANALYZE TABLE's statistics (stats.go): per index
// (PRIMARY and every secondary index) a sql.Statistic with the row count,
// the distinct count of the index's columns, and a histogram of up to
// statHistBuckets buckets over the index's columns, built from a sample
// of statHistSample index tuples taken during ANALYZE's full read
// (reservoir sampling; counts scaled to the table), so that a filter on a
// skewed or selective column is costed with its real share of the rows.
// The histograms are stored with the other statistics (bound values as
// their SQL text, binary ones as bytes) and converted back with the
// column's type when loaded.
//
// A table sqlgw has not analysed, or whose indexes changed since (an index
// without statistics), is answered by go-mysql-server's own in-memory
// provider, as before: go-mysql-server does not mix real and default
// statistics in one costing anyway. ANALYZE TABLE from a client runs
// sqlgw's analysis (admin.go); an ANALYZE the engine itself plans (ANALYZE
// TABLE ... UPDATE HISTOGRAM, the in-process enginetest suites) still goes
// to go-mysql-server's provider, which keeps what it computes for tables
// sqlgw has no statistics of.

const (
	// statHistSample is how many index tuples ANALYZE samples per index
	// for its histogram.
	statHistSample = 1024
	// statHistBuckets is the most buckets a histogram has.
	statHistBuckets = 16
)

// histBucket is one histogram bucket: the rows whose index tuple sorts
// after the previous bucket's upper bound, up to and including upper.
type histBucket struct {
	upper                       sql.Row // one value per index column (go-mysql-server's values)
	rows, distinct, nulls, same uint64  // same: rows equal to upper
}

// histSampler samples the index tuples of one index during ANALYZE.
type histSampler struct {
	cols   []int // column ordinals, in the engine's index column order
	types  []catalog.Type
	sample []sql.Row
	seen   int64
	rng    *rand.Rand
}

func newHistSampler(t *catalog.Table, cols []int) *histSampler {
	h := &histSampler{cols: cols, rng: rand.New(rand.NewPCG(uint64(len(cols)), 0x5eed))}
	for _, c := range cols {
		h.types = append(h.types, t.Columns[c].Type)
	}
	return h
}

// add offers one row (reservoir sampling, algorithm R).
func (h *histSampler) add(row []catalog.Datum) {
	h.seen++
	slot := len(h.sample)
	if slot >= statHistSample {
		j := h.rng.Int64N(h.seen)
		if j >= statHistSample {
			return
		}
		slot = int(j)
	}
	tuple := make(sql.Row, len(h.cols))
	for i, c := range h.cols {
		if c >= len(row) {
			return
		}
		v, err := fromDatum(h.types[i], row[c])
		if err != nil {
			return
		}
		tuple[i] = v
	}
	if slot == len(h.sample) {
		h.sample = append(h.sample, tuple)
	} else {
		h.sample[slot] = tuple
	}
}

// histogram builds the buckets for a table of rows rows whose index has
// distinct distinct tuples.
func (h *histSampler) histogram(rows, distinct int64) []histBucket {
	if len(h.sample) == 0 || rows <= 0 {
		return nil
	}
	types := make([]sql.Type, len(h.types))
	for i, ct := range h.types {
		t, err := gmsType(ct)
		if err != nil {
			return nil
		}
		types[i] = t
	}
	ctx := context.Background()
	cmpRows := func(a, b sql.Row) int {
		for i, t := range types {
			switch {
			case a[i] == nil && b[i] == nil:
				continue
			case a[i] == nil:
				return -1
			case b[i] == nil:
				return 1
			}
			if c, err := t.Compare(ctx, a[i], b[i]); err == nil && c != 0 {
				return c
			}
		}
		return 0
	}
	s := slices.Clone(h.sample)
	slices.SortStableFunc(s, cmpRows)
	scale := float64(rows) / float64(len(s))
	perRow := float64(max(distinct, 1)) / float64(rows) // distinct tuples per row
	n := min(statHistBuckets, len(s))
	var out []histBucket
	start := 0
	for b := 0; b < n; b++ {
		end := (b + 1) * len(s) / n
		// A bucket ends after the last tuple equal to its bound.
		for end < len(s) && end > start && cmpRows(s[end-1], s[end]) == 0 {
			end++
		}
		if end <= start {
			continue
		}
		part := s[start:end]
		var nulls, same int
		for _, r := range part {
			if r[0] == nil {
				nulls++
			}
			if cmpRows(r, part[len(part)-1]) == 0 {
				same++
			}
		}
		cnt := float64(len(part)) * scale
		out = append(out, histBucket{
			upper:    part[len(part)-1],
			rows:     uint64(max(1, cnt+0.5)),
			distinct: uint64(max(1, min(cnt, cnt*perRow)+0.5)),
			nulls:    uint64(float64(nulls)*scale + 0.5),
			same:     uint64(max(1, float64(same)*scale+0.5)),
		})
		start = end
	}
	return out
}

// savedBucket is the stored form of a histBucket.
type savedBucket struct {
	Upper    []savedValue `json:"u"`
	Rows     uint64       `json:"r"`
	Distinct uint64       `json:"d"`
	Nulls    uint64       `json:"n,omitempty"`
	Same     uint64       `json:"s"`
}

// savedValue is one bound value: SQL text, bytes, or NULL (neither).
type savedValue struct {
	S *string `json:"s,omitempty"`
	B []byte  `json:"b,omitempty"`
}

// saveHist renders buckets for storage.
func saveHist(hist []histBucket, types []catalog.Type) []savedBucket {
	ctx := sql.NewEmptyContext()
	var out []savedBucket
	for _, hb := range hist {
		sb := savedBucket{Rows: hb.rows, Distinct: hb.distinct, Nulls: hb.nulls, Same: hb.same}
		for i, v := range hb.upper {
			var sv savedValue
			switch x := v.(type) {
			case nil:
			case []byte:
				sv.B = x
				if sv.B == nil {
					sv.B = []byte{}
				}
			default:
				t, err := gmsType(types[i])
				if err != nil {
					return nil
				}
				q, err := t.SQL(ctx, nil, v)
				if err != nil {
					return nil
				}
				s := q.ToString()
				sv.S = &s
			}
			sb.Upper = append(sb.Upper, sv)
		}
		out = append(out, sb)
	}
	return out
}

// loadHist converts stored buckets back; nil if a value does not convert.
func loadHist(saved []savedBucket, types []catalog.Type) []histBucket {
	ctx := context.Background()
	var out []histBucket
	for _, sb := range saved {
		if len(sb.Upper) != len(types) {
			return nil
		}
		hb := histBucket{rows: sb.Rows, distinct: sb.Distinct, nulls: sb.Nulls, same: sb.Same}
		for i, sv := range sb.Upper {
			switch {
			case sv.B != nil:
				hb.upper = append(hb.upper, sv.B)
			case sv.S != nil:
				t, err := gmsType(types[i])
				if err != nil {
					return nil
				}
				v, _, err := t.Convert(ctx, *sv.S)
				if err != nil {
					return nil
				}
				hb.upper = append(hb.upper, v)
			default:
				hb.upper = append(hb.upper, nil)
			}
		}
		out = append(out, hb)
	}
	return out
}

// histColumns returns the column ordinals of an index in the engine's
// order ("primary": the primary key's), or nil.
func histColumns(t *catalog.Table, name string) []int {
	var parts []catalog.KeyPart
	if name == "primary" {
		parts = t.PrimaryKey
	} else if ix := t.Index(name); ix != nil {
		parts = ix.Columns
	}
	var out []int
	for _, p := range parts {
		c := t.ColumnIndex(p.Column)
		if c < 0 {
			return nil
		}
		out = append(out, c)
	}
	return out
}

// statsProvider is go-mysql-server's sql.StatsProvider over sqlgw's
// statistics, falling back to inner (see above).
type statsProvider struct {
	gw    *Gateway
	inner sql.StatsProvider
}

var _ sql.StatsProvider = (*statsProvider)(nil)

// ours returns the statistics of t when it is an analysed sqlgw table
// whose every index has a histogram, as go-mysql-server statistics.
func (p *statsProvider) ours(ctx *sql.Context, db string, table sql.Table) ([]sql.Statistic, uint64, bool) {
	t, ok := unwrapTable(table).(*Table)
	if !ok || t.gw != p.gw {
		return nil, 0, false
	}
	meta := t.meta()
	ts := p.gw.tableStatsOf(meta.Physical)
	if ts == nil {
		return nil, 0, false
	}
	idxs, err := t.GetIndexes(ctx)
	if err != nil {
		return nil, 0, false
	}
	sch := t.Schema(ctx)
	tname := strings.ToLower(t.Name())
	var out []sql.Statistic
	for _, idx := range idxs {
		id := strings.ToLower(idx.ID())
		cols := histColumns(meta, id)
		p.gw.mu.Lock()
		is := ts.indexes[id]
		var hist []histBucket
		if is != nil {
			if is.savedHist != nil && len(cols) > 0 {
				is.histTypes = nil
				for _, c := range cols {
					is.histTypes = append(is.histTypes, meta.Columns[c].Type)
				}
				is.hist, is.savedHist = loadHist(is.savedHist, is.histTypes), nil
			}
			hist = is.hist
		}
		p.gw.mu.Unlock()
		if is == nil || len(hist) == 0 || len(cols) == 0 || len(cols) != len(idx.Expressions()) {
			return nil, 0, false
		}
		var names []string
		var types []sql.Type
		for _, c := range cols {
			names = append(names, strings.ToLower(meta.Columns[c].Name))
			types = append(types, sch[c].Type)
		}
		var buckets []sql.HistogramBucket
		var nulls uint64
		for _, hb := range hist {
			buckets = append(buckets, stats.NewHistogramBucket(hb.rows, hb.distinct, hb.nulls, hb.same, hb.upper, nil, nil))
			nulls += hb.nulls
		}
		distinct := uint64(ts.rows)
		if n := len(cols); n <= len(is.distinct) {
			distinct = uint64(is.distinct[n-1])
		}
		qual := sql.NewStatQualifier(strings.ToLower(db), "", tname, id)
		st := stats.NewStatistic(uint64(ts.rows), distinct, nulls, 0, time.Time{}, qual, names, types, buckets, sql.IndexClassDefault, nil)
		fds, colSet, err := stats.IndexFds(ctx, tname, sch, idx)
		if err != nil {
			return nil, 0, false
		}
		out = append(out, st.WithFuncDeps(fds).WithColSet(colSet))
	}
	return out, uint64(ts.rows), len(out) > 0
}

// GetTableStats implements sql.StatsProvider.
func (p *statsProvider) GetTableStats(ctx *sql.Context, db string, table sql.Table) ([]sql.Statistic, error) {
	if st, _, ok := p.ours(ctx, db, table); ok {
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
