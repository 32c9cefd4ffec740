package statistics

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

// Histograms
//
// go-mysql-server costs its index choice (costed_index_scan.go: the
// filtered histogram with the fewest rows wins) and its join planner's
// cardinalities from a sql.StatsProvider. The engine's provider (its
// stats_provider.go) answers for sqlgw tables from ANALYZE TABLE's
// statistics with Table.GMS: per index (PRIMARY and every secondary index)
// a sql.Statistic with the row count, the distinct count of the index's
// columns, and a histogram of up to statHistBuckets buckets over the
// index's columns, built from a sample of statHistSample index tuples taken
// during ANALYZE's full read (reservoir sampling; counts scaled to the
// table), so that a filter on a skewed or selective column is costed with
// its real share of the rows. The histograms are stored with the other
// statistics (bound values as their SQL text, binary ones as bytes) and
// converted back with the column's type when first used.

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
	values Values
	sample []sql.Row
	seen   int64
	rng    *rand.Rand
}

func newHistSampler(t *catalog.Table, cols []int, v Values) *histSampler {
	h := &histSampler{cols: cols, values: v, rng: rand.New(rand.NewPCG(uint64(len(cols)), 0x5eed))}
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
		v, err := h.values.Value(h.types[i], row[c])
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
		t, err := h.values.Type(ct)
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
func saveHist(hist []histBucket, types []catalog.Type, conv Values) []savedBucket {
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
				t, err := conv.Type(types[i])
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
func loadHist(saved []savedBucket, types []catalog.Type, v Values) []histBucket {
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
				t, err := v.Type(types[i])
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

// GMS returns the statistics of the indexes idxs of table meta (named
// table in database db, full schema sch) as go-mysql-server's, and false
// unless every one of them has a histogram: go-mysql-server does not mix
// real and default statistics in one costing, so the engine's provider
// then answers with go-mysql-server's own.
func (ts *Table) GMS(ctx *sql.Context, db, table string, meta *catalog.Table, sch sql.Schema, idxs []sql.Index, v Values) ([]sql.Statistic, bool) {
	tname := strings.ToLower(table)
	var out []sql.Statistic
	for _, idx := range idxs {
		id := strings.ToLower(idx.ID())
		cols := histColumns(meta, id)
		ts.mu.Lock()
		is := ts.indexes[id]
		var hist []histBucket
		if is != nil {
			if is.savedHist != nil && len(cols) > 0 {
				is.histTypes = nil
				for _, c := range cols {
					is.histTypes = append(is.histTypes, meta.Columns[c].Type)
				}
				is.hist, is.savedHist = loadHist(is.savedHist, is.histTypes, v), nil
			}
			hist = is.hist
		}
		ts.mu.Unlock()
		if is == nil || len(hist) == 0 || len(cols) == 0 || len(cols) != len(idx.Expressions()) {
			return nil, false
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
		distinct := uint64(ts.Rows)
		if n := len(cols); n <= len(is.distinct) {
			distinct = uint64(is.distinct[n-1])
		}
		qual := sql.NewStatQualifier(strings.ToLower(db), "", tname, id)
		st := stats.NewStatistic(uint64(ts.Rows), distinct, nulls, 0, time.Time{}, qual, names, types, buckets, sql.IndexClassDefault, nil)
		fds, colSet, err := stats.IndexFds(ctx, tname, sch, idx)
		if err != nil {
			return nil, false
		}
		out = append(out, st.WithFuncDeps(fds).WithColSet(colSet))
	}
	return out, len(out) > 0
}
