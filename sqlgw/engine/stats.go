package engine

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"sort"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/information_schema"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/rowexec"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/planner"
	"github.com/sqlgw/sqlgw/sqlgw/engine/compat"
	"github.com/sqlgw/sqlgw/storage"
)

// Statistics
//
// ANALYZE TABLE (and OPTIMIZE TABLE, and the automatic refresh below) reads
// every row once and computes, for the PRIMARY key (its columns in storage
// order) and for every secondary index: the number of rows, the number of
// distinct values of each prefix of the index's columns (compared as the
// keys compare them, i.e. under each column's collation: 'a' and 'A' are
// one value under utf8mb4_0900_ai_ci), and the most frequent values of the
// leading column (top statTopN, with their counts) and, when it is numeric
// or temporal, its smallest and largest values. They are kept per
// gateway in memory with the row count (gateway.rows), like InnoDB's
// non-persistent statistics, and persisted (below).
//
// Persistence: ANALYZE TABLE (and every refresh) also writes the
// statistics, as one JSON entity per table, into the store table
// <catalog prefix>stats (keyed by the table's physical name, so a dropped
// and recreated table starts afresh); a gateway that has none in memory for
// a table loads them from there once (a Get billed to no session), so they
// survive restarts and are shared by the gateways of one store, though a
// gateway does not see another's later ANALYZE until it restarts.
//
// Where they show:
//   - SHOW INDEX and information_schema.STATISTICS: CARDINALITY of an
//     index column is the distinct count of the index's prefix up to that
//     column (MySQL's meaning; 0 before the first analysis, as
//     go-mysql-server shows it); COLLATION is 'D' for a DESC key or index
//     column (ascending ones keep go-mysql-server's value: NULL in SHOW
//     INDEX, 'A' in STATISTICS, whose go-mysql-server tests pin them).
//   - SHOW TABLE STATUS and information_schema.TABLES: Rows (RowCount).
//   - The planner (planner.Stats): the partition count of the primary key
//     (distinct values of the partition-key columns), per index the rows
//     per value of its leading column (planner.Stats.RowsPerValue), and
//     the bounds of numeric and temporal leading columns
//     (planner.Stats.Bounds, for ranges), which replace its fixed guesses
//     (planner package doc, Cost).
//
// CREATE INDEX on an analysed table re-analyses it in the background once
// the index is ready, so the new index gets its CARDINALITY.
//
// Refresh: every insert and delete counts as a change; once the changes
// since the last analysis exceed statsRefreshShare of the analysed row
// count (and at least statsRefreshMin rows), the next plan of the table
// starts one background re-analysis (never two at a time per table).
// The share is the global variable sqlgw_stats_auto_recalc_percent
// (default 10, as InnoDB's innodb_stats_auto_recalc threshold; 0: never).
//
// go-mysql-server's statistics provider (sql.StatsProvider, used by its
// index choice and join planner) answers from these statistics for an
// analysed table, with a histogram per index (stats_provider.go); the
// join costing specific to the store goes through sqlgw's coster
// (coster.go) with the row counts.

const (
	statTopN        = 8
	statsRefreshMin = 100
	// statsRecalcVar is the global variable holding the refresh share.
	statsRecalcVar     = "sqlgw_stats_auto_recalc_percent"
	statsRecalcDefault = 10
)

func init() {
	sql.SystemVariables.AddSystemVariables([]sql.SystemVariable{&sql.MysqlSystemVariable{
		Name:    statsRecalcVar,
		Scope:   sql.GetMysqlScope(sql.SystemVariableScope_Global),
		Dynamic: true,
		Type:    types.NewSystemIntType(statsRecalcVar, 0, 100, false),
		Default: int64(statsRecalcDefault),
	}})
}

// statsShare is the share of changed rows that triggers a refresh (0: never).
func statsShare() float64 {
	_, v, ok := sql.SystemVariables.GetGlobal(statsRecalcVar)
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

// tableStats are the statistics of one table.
type tableStats struct {
	rows    int64
	bytes   int64                  // of the main entities, for the average entity size
	indexes map[string]*indexStats // by lower-cased index name; "primary"
	changed int64                  // rows inserted or deleted since
	running bool                   // a refresh is under way
}

// indexStats are one index's statistics.
type indexStats struct {
	distinct []int64 // distinct values of columns[:i+1]
	top      []topValue
	lead     int         // ordinal of the leading column
	bounds   *[2]float64 // its smallest and largest value, when numeric or temporal
	// hist is go-mysql-server's histogram of the index (stats_provider.go),
	// over columns of types histTypes.
	hist      []histBucket
	histTypes []catalog.Type
	savedHist []savedBucket // loaded, not yet converted
}

type topValue struct {
	key   string // the leading column's key component
	count int64
}

// analyzeTable computes t's statistics from a full read and installs them
// with the row count.
func (g *Gateway) analyzeTable(ctx context.Context, t *catalog.Table) error {
	type acc struct {
		cols   []catalog.KeyColumn
		sets   []map[string]struct{}
		lead   map[string]int64
		lo, hi float64      // the leading column's bounds, when numeric
		nums   int          // leading values seen as numbers
		hist   *histSampler // go-mysql-server's histogram (stats_provider.go)
	}
	accs := map[string]*acc{}
	newAcc := func(name string, cols []catalog.KeyColumn) {
		a := &acc{cols: cols, lead: map[string]int64{}}
		if hc := histColumns(t, strings.ToLower(name)); len(hc) > 0 {
			a.hist = newHistSampler(t, hc)
		}
		for range cols {
			a.sets = append(a.sets, map[string]struct{}{})
		}
		accs[strings.ToLower(name)] = a
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
	var rows int64
	leftovers := 0
	var bytes int64
	err := g.scanRows(ctx, t, func(main *storage.Entity, row []catalog.Datum, err error) error {
		rows++
		if main != nil {
			bytes += int64(storage.EntitySize(main))
		}
		if err != nil {
			return nil // counted; CHECK TABLE reports it
		}
		for _, a := range accs {
			if a.hist != nil {
				a.hist.add(row)
			}
			var b []byte
			for i, kc := range a.cols {
				if kc.Index >= len(row) {
					break
				}
				nb, err := kc.Append(b, row[kc.Index])
				if err != nil {
					break
				}
				b = nb
				a.sets[i][string(b)] = struct{}{}
				if i == 0 {
					a.lead[string(b)]++
					if v, ok := planner.DatumNumber(row[kc.Index]); ok {
						if a.nums == 0 || v < a.lo {
							a.lo = v
						}
						if a.nums == 0 || v > a.hi {
							a.hi = v
						}
						a.nums++
					}
				}
			}
		}
		return nil
	}, &leftovers)
	if err != nil {
		return err
	}
	ts := &tableStats{rows: rows, bytes: bytes, indexes: map[string]*indexStats{}}
	for name, a := range accs {
		is := &indexStats{lead: a.cols[0].Index}
		if a.nums > 0 {
			is.bounds = &[2]float64{a.lo, a.hi}
		}
		for _, s := range a.sets {
			is.distinct = append(is.distinct, int64(len(s)))
		}
		if a.hist != nil {
			d := rows
			if n := len(a.hist.cols); n <= len(is.distinct) {
				d = is.distinct[n-1]
			}
			is.hist, is.histTypes = a.hist.histogram(rows, d), a.hist.types
		}
		for k, n := range a.lead {
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
	g.mu.Lock()
	g.stats[t.Physical] = ts
	g.mu.Unlock()
	g.setRowCount(t.Physical, rows)
	if err := g.saveStats(ctx, t.Physical, ts); err != nil {
		slog.Default().Warn("sqlgw: saving statistics", "table", t.Name, "err", err)
	}
	return nil
}

// savedStats is the stored form of tableStats.
type savedStats struct {
	Rows    int64                 `json:"rows"`
	Bytes   int64                 `json:"bytes,omitempty"` // added later
	Indexes map[string]savedIndex `json:"ix"`
}

type savedIndex struct {
	Distinct []int64     `json:"d"`
	TopKeys  []string    `json:"tk,omitempty"`
	TopCount []int64     `json:"tc,omitempty"`
	Lead     int         `json:"l"`
	Bounds   *[2]float64 `json:"b,omitempty"`
	// Hist is the histogram (stats_provider.go). Added later.
	Hist []savedBucket `json:"h,omitempty"`
}

// statsTable is the store table holding the statistics.
func (g *Gateway) statsTable() string {
	return strings.TrimSuffix(g.Catalog.CatalogTable(), "catalog") + "stats"
}

// saveStats writes ts as the statistics of the physical table phys.
func (g *Gateway) saveStats(ctx context.Context, phys string, ts *tableStats) error {
	sv := savedStats{Rows: ts.rows, Bytes: ts.bytes, Indexes: map[string]savedIndex{}}
	for name, is := range ts.indexes {
		si := savedIndex{Distinct: is.distinct, Lead: is.lead, Bounds: is.bounds, Hist: saveHist(is.hist, is.histTypes)}
		for _, tv := range is.top {
			si.TopKeys = append(si.TopKeys, tv.key)
			si.TopCount = append(si.TopCount, tv.count)
		}
		sv.Indexes[name] = si
	}
	j, err := json.Marshal(sv)
	if err != nil {
		return err
	}
	mctx := MetaCtx(ctx)
	if err := g.store.CreateTable(mctx, g.statsTable()); err != nil && !errors.Is(err, storage.ErrAlreadyExists) {
		return err
	}
	e := &storage.Entity{PartitionKey: hexKey(phys), RowKey: "s", Properties: storage.Properties{"J": storage.String(string(j))}}
	_, err = g.store.Upsert(mctx, g.statsTable(), e, storage.Replace)
	return err
}

// dropStats forgets the statistics of a dropped table, and deletes the
// stored ones when this gateway has them (another gateway's ANALYZE of a
// table this one never planned leaves its small entity behind).
func (g *Gateway) dropStats(ctx context.Context, phys string) {
	g.mu.Lock()
	ts := g.stats[phys]
	delete(g.stats, phys)
	g.mu.Unlock()
	if ts != nil {
		_ = g.store.Delete(MetaCtx(ctx), g.statsTable(), hexKey(phys), "s", "")
	}
}

// loadStats reads the stored statistics of phys, nil when there are none.
func (g *Gateway) loadStats(ctx context.Context, phys string) *tableStats {
	e, err := g.store.Get(MetaCtx(ctx), g.statsTable(), hexKey(phys), "s", nil)
	if err != nil {
		return nil // none (or unreadable: the planner's defaults)
	}
	var sv savedStats
	if json.Unmarshal([]byte(e.Properties["J"].Str()), &sv) != nil {
		return nil
	}
	ts := &tableStats{rows: sv.Rows, bytes: sv.Bytes, indexes: map[string]*indexStats{}}
	for name, si := range sv.Indexes {
		// The histogram is converted when first used (stats_provider.go).
		is := &indexStats{distinct: si.Distinct, lead: si.Lead, bounds: si.Bounds, savedHist: si.Hist}
		for i, k := range si.TopKeys {
			if i < len(si.TopCount) {
				is.top = append(is.top, topValue{k, si.TopCount[i]})
			}
		}
		ts.indexes[name] = is
	}
	return ts
}

// tableStatsOf returns the statistics of a physical table, or nil: from
// memory, or loaded from the store the first time this gateway asks.
func (g *Gateway) tableStatsOf(phys string) *tableStats {
	g.mu.Lock()
	ts, known := g.stats[phys]
	g.mu.Unlock()
	if known {
		return ts
	}
	ts = g.loadStats(context.Background(), phys)
	g.mu.Lock()
	defer g.mu.Unlock()
	if cur, ok := g.stats[phys]; ok {
		return cur // an ANALYZE meanwhile
	}
	g.stats[phys] = ts // nil: none stored, do not ask again
	if ts != nil {
		if e, ok := g.rows[phys]; !ok || !e.known {
			g.rows[phys] = &rowEstimate{n: ts.rows, known: true}
		}
	}
	return ts
}

// noteChanges counts n inserted or deleted rows towards the refresh.
func (g *Gateway) noteChanges(phys string, n int64) {
	if n < 0 {
		n = -n
	}
	g.mu.Lock()
	if ts := g.stats[phys]; ts != nil {
		ts.changed += n
	}
	g.mu.Unlock()
}

// maybeRefreshStats starts a background re-analysis of t when enough of it
// changed since the last one.
func (g *Gateway) maybeRefreshStats(t *catalog.Table) {
	share := statsShare()
	if share <= 0 {
		return
	}
	g.mu.Lock()
	ts := g.stats[t.Physical]
	due := ts != nil && !ts.running && ts.changed >= statsRefreshMin &&
		float64(ts.changed) >= share*float64(max(ts.rows, 1))
	if due {
		ts.running = true
	}
	g.mu.Unlock()
	if !due {
		return
	}
	go func() {
		ctx := WithoutCounters(context.Background())
		if err := g.analyzeTable(ctx, t); err != nil {
			slog.Default().Warn("sqlgw: statistics refresh failed", "table", t.Name, "err", err)
			g.mu.Lock()
			ts.running = false
			g.mu.Unlock()
		}
	}()
}

// statsAfterIndex gives a new index of an analysed table its statistics:
// a background re-analysis once the index is ready (the backfill's own read
// is ixmaint's and counts nothing). A table never analysed is not read
// again.
func (g *Gateway) statsAfterIndex(db, table string) {
	ctx := WithoutCounters(context.Background())
	t, err := g.Catalog.Table(ctx, db, table)
	if err != nil || t == nil {
		return
	}
	ts := g.tableStatsOf(t.Physical)
	if ts == nil {
		return
	}
	g.mu.Lock()
	if ts.running {
		g.mu.Unlock()
		return
	}
	ts.running = true
	g.mu.Unlock()
	go func() {
		if err := g.analyzeTable(ctx, t); err != nil {
			slog.Default().Warn("sqlgw: statistics after CREATE INDEX failed", "table", t.Name, "err", err)
			g.mu.Lock()
			ts.running = false
			g.mu.Unlock()
		}
	}()
}

// plannerStats are the planner's statistics of t.
func (g *Gateway) plannerStats(t *catalog.Table) *planner.Stats {
	n, _ := g.rowCount(t.Physical)
	st := &planner.Stats{Rows: float64(n)}
	ts := g.tableStatsOf(t.Physical)
	if ts == nil {
		return st
	}
	g.maybeRefreshStats(t)
	if ts.rows > 0 && ts.bytes > 0 {
		st.EntityBytes = float64(ts.bytes) / float64(ts.rows)
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
		if name == "primary" || len(is.distinct) == 0 || is.distinct[0] == 0 || ts.rows == 0 {
			continue
		}
		if st.RowsPerValue == nil {
			st.RowsPerValue = map[string]float64{}
			st.TopValues = map[string]map[string]float64{}
			st.RestPerValue = map[string]float64{}
		}
		st.RowsPerValue[name] = math.Max(1, float64(ts.rows)/float64(is.distinct[0]))
		top := map[string]float64{}
		var inTop int64
		for _, tv := range is.top {
			top[tv.key] = float64(tv.count)
			inTop += tv.count
		}
		st.TopValues[name] = top
		if others := is.distinct[0] - int64(len(is.top)); others > 0 {
			st.RestPerValue[name] = math.Max(1, float64(ts.rows-inTop)/float64(others))
		} else {
			st.RestPerValue[name] = 1 // every value is a top value
		}
	}
	return st
}

// cardinality is the CARDINALITY of column seq (1-based) of index name of
// t, and whether it is known.
func (g *Gateway) cardinality(t *catalog.Table, index string, seq int) (int64, bool) {
	ts := g.tableStatsOf(t.Physical)
	if ts == nil {
		return 0, false
	}
	is := ts.indexes[strings.ToLower(index)]
	if is == nil || seq < 1 || seq > len(is.distinct) {
		return 0, false
	}
	return is.distinct[seq-1], true
}

// indexColumnDesc reports whether column seq (1-based) of index name of t
// is stored descending.
func indexColumnDesc(t *catalog.Table, index string, seq int) bool {
	var cols []catalog.KeyColumn
	if strings.EqualFold(index, "PRIMARY") {
		cols = append(append(cols, t.PartitionColumns()...), t.RowColumns()...)
	} else if ix := t.Index(index); ix != nil {
		cols, _ = t.IndexColumns(ix)
	}
	return seq >= 1 && seq <= len(cols) && cols[seq-1].Desc
}

// statsRowFixer fills in CARDINALITY and COLLATION of SHOW INDEX and
// information_schema.STATISTICS rows of sqlgw tables.
type statsRowFixer struct {
	iter sql.RowIter
	fix  func(sql.Row) sql.Row
}

func (s *statsRowFixer) Next(ctx *sql.Context) (sql.Row, error) {
	r, err := s.iter.Next(ctx)
	if err != nil {
		return r, err
	}
	return s.fix(r), nil
}

func (s *statsRowFixer) Close(ctx *sql.Context) error { return s.iter.Close(ctx) }

// statsColumns says where a statistics row holds its fields.
type statsColumns struct {
	schema, table, index, seq, collation, cardinality int // -1: absent
}

// fixStatsRow fills in COLLATION ('D' for a descending column) and the
// analysed CARDINALITY of one SHOW INDEX or information_schema.STATISTICS
// row of a sqlgw table.
func fixStatsRow(ctx *sql.Context, lookup func(schema, table string) *Table, c statsColumns, r sql.Row) sql.Row {
	str := func(i int) string {
		if i < 0 || i >= len(r) {
			return ""
		}
		s, _ := r[i].(string)
		return s
	}
	schema := ""
	if c.schema >= 0 {
		schema = str(c.schema)
	}
	t := lookup(schema, str(c.table))
	if t == nil {
		return r
	}
	seq64, _ := intValue(r[c.seq])
	seq := int(seq64)
	meta := t.meta()
	index := str(c.index)
	out := append(sql.Row(nil), r...)
	if indexColumnDesc(meta, index, seq) {
		out[c.collation] = "D" // ascending ones keep the engine's value
	}
	if n, ok := t.gw.cardinality(meta, index, seq); ok {
		out[c.cardinality] = n
	}
	return out
}

// tableLookup returns a cached resolver of sqlgw tables by name.
func tableLookup(ctx *sql.Context, cat sql.Catalog) func(schema, table string) *Table {
	cache := map[[2]string]*Table{}
	return func(schema, table string) *Table {
		k := [2]string{schema, table}
		if t, ok := cache[k]; ok {
			return t
		}
		var out *Table
		if st, _, err := cat.Table(ctx, schema, table); err == nil && st != nil {
			out, _ = unwrapTable(st).(*Table)
		}
		cache[k] = out
		return out
	}
}

// infoSchema is go-mysql-server's information_schema database with a
// STATISTICS table whose rows of sqlgw tables carry COLLATION and
// CARDINALITY (the engine writes 'A' and 0).
type infoSchema struct {
	sql.Database
	stats sql.Table
}

func newInfoSchema(inner sql.Database) *infoSchema {
	st := information_schema.NewDefaultStats()
	read := st.Reader
	st.Reader = func(ctx *sql.Context, cat sql.Catalog) (sql.RowIter, error) {
		it, err := read(ctx, cat)
		if err != nil {
			return nil, err
		}
		lookup := tableLookup(ctx, cat)
		cols := statsColumns{schema: 1, table: 2, index: 5, seq: 6, collation: 8, cardinality: 9}
		return &statsRowFixer{iter: it, fix: func(r sql.Row) sql.Row { return fixStatsRow(ctx, lookup, cols, r) }}, nil
	}
	return &infoSchema{Database: inner, stats: st}
}

func (d *infoSchema) GetTableInsensitive(ctx *sql.Context, name string) (sql.Table, bool, error) {
	if strings.EqualFold(name, information_schema.StatisticsTableName) {
		return d.stats, true, nil
	}
	return d.Database.GetTableInsensitive(ctx, name)
}

// buildShowIndexes runs SHOW INDEX with the engine's own builder and fills
// in Collation and Cardinality of a sqlgw table's rows.
func buildShowIndexes(ctx *sql.Context, n *plan.ShowIndexes, row sql.Row) (sql.RowIter, error) {
	rt, ok := n.Child.(*plan.ResolvedTable)
	if !ok {
		return nil, nil
	}
	t, ok := unwrapTable(rt.Table).(*Table)
	if !ok {
		return nil, nil
	}
	it, err := rowexec.NewBuilder(nil, sql.EngineOverrides{}).Build(ctx, n, row)
	if err != nil {
		return nil, err
	}
	lookup := func(string, string) *Table { return t }
	cols := statsColumns{schema: -1, table: 0, index: 2, seq: 3, collation: 5, cardinality: 6}
	return &statsRowFixer{iter: it, fix: func(r sql.Row) sql.Row { return fixStatsRow(ctx, lookup, cols, r) }}, nil
}

// buildShowCreateTable runs SHOW CREATE TABLE with the engine's builder and
// puts DESC back on primary-key and index columns stored descending, which
// go-mysql-server's schema drops (sql.IndexColumn has no order): a dump
// then reloads the same key order (partition.go reads DESC from CREATE
// TABLE).
func buildShowCreateTable(ctx *sql.Context, n *plan.ShowCreateTable, row sql.Row) (sql.RowIter, error) {
	if n.IsView {
		return nil, nil
	}
	rt, ok := n.Child.(*plan.ResolvedTable)
	if !ok {
		return nil, nil
	}
	t, ok := unwrapTable(rt.Table).(*Table)
	if !ok {
		return nil, nil
	}
	meta := t.meta()
	anyDesc := false
	for _, kp := range meta.PrimaryKey {
		anyDesc = anyDesc || kp.Desc
	}
	for _, ix := range meta.Indexes {
		for _, kp := range ix.Columns {
			anyDesc = anyDesc || kp.Desc
		}
	}
	if !anyDesc {
		return nil, nil
	}
	it, err := rowexec.NewBuilder(nil, sql.EngineOverrides{SchemaFormatter: compat.NewSchemaFormatter()}).Build(ctx, n, row)
	if err != nil {
		return nil, err
	}
	quote := func(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }
	colList := func(kps []catalog.KeyPart) string {
		var cols []string
		for _, kp := range kps {
			c := quote(kp.Column)
			if kp.Desc {
				c += " DESC"
			}
			cols = append(cols, c)
		}
		return "(" + strings.Join(cols, ",") + ")"
	}
	pk := "  PRIMARY KEY " + colList(meta.PrimaryKey)
	// Index lines: "  [UNIQUE ]KEY `name` (`a`,`b`)[ COMMENT ...]".
	ixCols := map[string]string{}
	for _, ix := range meta.Indexes {
		ixCols["KEY "+quote(ix.Name)+" ("] = colList(ix.Columns)
	}
	return &statsRowFixer{iter: it, fix: func(r sql.Row) sql.Row {
		if len(r) < 2 {
			return r
		}
		text, ok := r[1].(string)
		if !ok {
			return r
		}
		lines := strings.Split(text, "\n")
		for i, l := range lines {
			if strings.HasPrefix(l, "  PRIMARY KEY (") {
				lines[i] = pk + strings.TrimPrefix(l, l[:strings.LastIndex(l, ")")+1])
				continue
			}
			body := strings.TrimPrefix(strings.TrimPrefix(l, "  "), "UNIQUE ")
			for head, list := range ixCols {
				if !strings.HasPrefix(body, head) {
					continue
				}
				rest := body[len(head)-1:] // from "("
				if end := strings.Index(rest, ")"); end >= 0 {
					lines[i] = l[:len(l)-len(rest)] + list + rest[end+1:]
				}
				break
			}
		}
		out := append(sql.Row(nil), r...)
		out[1] = strings.Join(lines, "\n")
		return out
	}}, nil
}
