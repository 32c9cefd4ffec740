package statistics

import (
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	// sql.SystemVariables is built by this package's init, which must run
	// before the init below adds to it.
	_ "github.com/dolthub/go-mysql-server/sql/variables"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/planner"
)

const (
	statTopN = 8
	// RefreshMin is the fewest changed rows that start a refresh.
	RefreshMin = 100
	// RecalcVar is the global variable holding the refresh share.
	RecalcVar          = "sqlgw_stats_auto_recalc_percent"
	statsRecalcDefault = 10
)

func init() {
	sql.SystemVariables.AddSystemVariables([]sql.SystemVariable{&sql.MysqlSystemVariable{
		Name:    RecalcVar,
		Scope:   sql.GetMysqlScope(sql.SystemVariableScope_Global),
		Dynamic: true,
		Type:    types.NewSystemIntType(RecalcVar, 0, 100, false),
		Default: int64(statsRecalcDefault),
	}})
}

// Share is the share of changed rows that triggers a refresh (0: never).
func Share() float64 {
	_, v, ok := sql.SystemVariables.GetGlobal(RecalcVar)
	if !ok {
		return statsRecalcDefault / 100.0
	}
	switch x := v.(type) {
	case int64:
		return float64(x) / 100
	case int:
		return float64(x) / 100
	case int8:
		return float64(x) / 100
	case uint64:
		return float64(x) / 100
	}
	return statsRecalcDefault / 100.0
}

// Values converts the catalog's column types and values to
// go-mysql-server's (the engine's conversions, its types.go), for the
// histograms; handed in, so that this package needs nothing of the engine.
type Values struct {
	// Type is the engine's type of a catalog column type.
	Type func(catalog.Type) (sql.Type, error)
	// Value is the engine's value of a catalog Datum of a column type.
	Value func(catalog.Type, catalog.Datum) (any, error)
}

// Table are the statistics of one table. Its counts, distinct values, top
// values and bounds never change once computed (a new analysis makes a new
// Table); what does (the changes since, whether a refresh runs, the
// histograms converted on first use) is guarded by mu.
type Table struct {
	// Rows is the number of rows the analysis read.
	Rows    int64
	bytes   int64             // of the main entities, for the average entity size
	indexes map[string]*index // by lower-cased index name; "primary"

	mu      sync.Mutex
	changed int64 // rows inserted or deleted since
	running bool  // a refresh is under way
}

// index are one index's statistics.
type index struct {
	distinct []int64 // distinct values of columns[:i+1]
	top      []topValue
	lead     int         // ordinal of the leading column
	bounds   *[2]float64 // its smallest and largest value, when numeric or temporal
	// hist is go-mysql-server's histogram of the index (histogram.go),
	// over columns of types histTypes.
	hist      []histBucket
	histTypes []catalog.Type
	savedHist []savedBucket // loaded, not yet converted
}

type topValue struct {
	key   string // the leading column's key component
	count int64
}

// Analysis computes a table's statistics from every one of its rows, in
// any order (ANALYZE TABLE's full read): NewAnalysis, Add for each row,
// then Table.
type Analysis struct {
	accs  map[string]*acc
	rows  int64
	bytes int64
}

type acc struct {
	cols   []catalog.KeyColumn
	sets   []map[string]struct{}
	lead   map[string]int64
	lo, hi float64      // the leading column's bounds, when numeric
	nums   int          // leading values seen as numbers
	hist   *histSampler // go-mysql-server's histogram (histogram.go)
}

// NewAnalysis starts the analysis of t: its primary key (the partition
// and row key columns, in storage order) and every secondary index.
func NewAnalysis(t *catalog.Table, v Values) *Analysis {
	a := &Analysis{accs: map[string]*acc{}}
	newAcc := func(name string, cols []catalog.KeyColumn) {
		ac := &acc{cols: cols, lead: map[string]int64{}}
		if hc := histColumns(t, strings.ToLower(name)); len(hc) > 0 {
			ac.hist = newHistSampler(t, hc, v)
		}
		for range cols {
			ac.sets = append(ac.sets, map[string]struct{}{})
		}
		a.accs[strings.ToLower(name)] = ac
	}
	if !t.Keyless() {
		newAcc("PRIMARY", append(append([]catalog.KeyColumn(nil), t.PartitionColumns()...), t.RowColumns()...))
	}
	for i := range t.Indexes {
		ix := &t.Indexes[i]
		if cols, err := t.IndexColumns(ix); err == nil && len(cols) > 0 {
			newAcc(ix.Name, cols)
		}
	}
	return a
}

// Add counts one row: entityBytes is the size of its main entity (0 when
// there is none), row its values, err why they could not be read (the row
// is then counted and nothing else: CHECK TABLE reports it).
func (a *Analysis) Add(entityBytes int64, row []catalog.Datum, err error) {
	a.rows++
	a.bytes += entityBytes
	if err != nil {
		return
	}
	for _, ac := range a.accs {
		if ac.hist != nil {
			ac.hist.add(row)
		}
		var b []byte
		for i, kc := range ac.cols {
			if kc.Index >= len(row) {
				break
			}
			nb, err := kc.Append(b, row[kc.Index])
			if err != nil {
				break
			}
			b = nb
			ac.sets[i][string(b)] = struct{}{}
			if i == 0 {
				ac.lead[string(b)]++
				if v, ok := planner.DatumNumber(row[kc.Index]); ok {
					if ac.nums == 0 || v < ac.lo {
						ac.lo = v
					}
					if ac.nums == 0 || v > ac.hi {
						ac.hi = v
					}
					ac.nums++
				}
			}
		}
	}
}

// Table returns the statistics of the rows added.
func (a *Analysis) Table() *Table {
	rows := a.rows
	ts := &Table{Rows: rows, bytes: a.bytes, indexes: map[string]*index{}}
	for name, ac := range a.accs {
		is := &index{lead: ac.cols[0].Index}
		if ac.nums > 0 {
			is.bounds = &[2]float64{ac.lo, ac.hi}
		}
		for _, s := range ac.sets {
			is.distinct = append(is.distinct, int64(len(s)))
		}
		if ac.hist != nil {
			d := rows
			if n := len(ac.hist.cols); n <= len(is.distinct) {
				d = is.distinct[n-1]
			}
			is.hist, is.histTypes = ac.hist.histogram(rows, d), ac.hist.types
		}
		for k, n := range ac.lead {
			is.top = append(is.top, topValue{k, n})
		}
		sort.Slice(is.top, func(i, j int) bool {
			if is.top[i].count != is.top[j].count {
				return is.top[i].count > is.top[j].count
			}
			return is.top[i].key < is.top[j].key
		})
		if len(is.top) > statTopN {
			is.top = is.top[:statTopN]
		}
		ts.indexes[name] = is
	}
	return ts
}

// NoteChanges counts n inserted or deleted rows towards the refresh.
func (ts *Table) NoteChanges(n int64) {
	if n < 0 {
		n = -n
	}
	ts.mu.Lock()
	ts.changed += n
	ts.mu.Unlock()
}

// StartRefresh reports whether enough of the table changed since the
// analysis for a refresh (Share of the analysed rows, at least RefreshMin)
// and none runs; if so, one is under way from now on.
func (ts *Table) StartRefresh() bool {
	share := Share()
	if share <= 0 {
		return false
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	due := !ts.running && ts.changed >= RefreshMin &&
		float64(ts.changed) >= share*float64(max(ts.Rows, 1))
	if due {
		ts.running = true
	}
	return due
}

// StartAnalysis marks a re-analysis under way, false if one already is.
func (ts *Table) StartAnalysis() bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.running {
		return false
	}
	ts.running = true
	return true
}

// AnalysisFailed ends a re-analysis that failed (one that succeeds
// replaces the Table).
func (ts *Table) AnalysisFailed() {
	ts.mu.Lock()
	ts.running = false
	ts.mu.Unlock()
}

// Planner returns the planner's statistics of t, whose statistics ts are
// (nil: none), with rows the current row estimate.
func (ts *Table) Planner(t *catalog.Table, rows int64) *planner.Stats {
	st := &planner.Stats{Rows: float64(rows)}
	if ts == nil {
		return st
	}
	if ts.Rows > 0 && ts.bytes > 0 {
		st.EntityBytes = float64(ts.bytes) / float64(ts.Rows)
	}
	if pk := ts.indexes["primary"]; pk != nil {
		if np := len(t.PartitionColumns()); np > 0 && np <= len(pk.distinct) && pk.distinct[np-1] > 0 {
			st.Partitions = float64(pk.distinct[np-1])
		}
	}
	for name, is := range ts.indexes {
		if is.bounds != nil && is.lead < len(t.Columns) {
			if st.Bounds == nil {
				st.Bounds = map[int][2]float64{}
			}
			st.Bounds[is.lead] = *is.bounds
		}
		if name == "primary" || len(is.distinct) == 0 || is.distinct[0] == 0 || ts.Rows == 0 {
			continue
		}
		if st.RowsPerValue == nil {
			st.RowsPerValue = map[string]float64{}
			st.TopValues = map[string]map[string]float64{}
			st.RestPerValue = map[string]float64{}
		}
		st.RowsPerValue[name] = math.Max(1, float64(ts.Rows)/float64(is.distinct[0]))
		top := map[string]float64{}
		var inTop int64
		for _, tv := range is.top {
			top[tv.key] = float64(tv.count)
			inTop += tv.count
		}
		st.TopValues[name] = top
		if others := is.distinct[0] - int64(len(is.top)); others > 0 {
			st.RestPerValue[name] = math.Max(1, float64(ts.Rows-inTop)/float64(others))
		} else {
			st.RestPerValue[name] = 1 // every value is a top value
		}
	}
	return st
}

// Cardinality is the CARDINALITY of column seq (1-based) of index name,
// and whether it is known (ts nil: no statistics).
func (ts *Table) Cardinality(index string, seq int) (int64, bool) {
	if ts == nil {
		return 0, false
	}
	is := ts.indexes[strings.ToLower(index)]
	if is == nil || seq < 1 || seq > len(is.distinct) {
		return 0, false
	}
	return is.distinct[seq-1], true
}
