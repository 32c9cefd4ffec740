package engine

import (
	"context"
	"encoding/hex"
	"errors"
	"log/slog"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/information_schema"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/rowexec"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/planner"
	"github.com/sqlgw/sqlgw/sqlgw/engine/compat"
	"github.com/sqlgw/sqlgw/sqlgw/engine/statistics"
	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/recorder"
)

// Statistics
//
// ANALYZE TABLE (and OPTIMIZE TABLE, and the automatic refresh below) reads
// every row once (scanRows, check_repair_table.go) into a
// statistics.Analysis, whose package doc says what it computes. The
// statistics are kept per gateway in memory with the row count
// (gateway.rows), like InnoDB's non-persistent statistics, and persisted
// (below).
//
// Persistence: ANALYZE TABLE (and every refresh) also writes the
// statistics, as one JSON entity per table (statistics.Table.Marshal),
// into the store table <catalog prefix>stats (keyed by the table's
// physical name, so a dropped and recreated table starts afresh); a
// gateway that has none in memory for a table loads them from there once
// (a Get billed to no session), so they survive restarts and are shared by
// the gateways of one store, though a gateway does not see another's later
// ANALYZE until it restarts.
//
// Where they show:
//   - SHOW INDEX and information_schema.STATISTICS: CARDINALITY of an
//     index column is the distinct count of the index's prefix up to that
//     column (MySQL's meaning; 0 before the first analysis, as
//     go-mysql-server shows it); COLLATION is 'D' for a DESC key or index
//     column (ascending ones keep go-mysql-server's value: NULL in SHOW
//     INDEX, 'A' in STATISTICS, whose go-mysql-server tests pin them).
//   - SHOW TABLE STATUS and information_schema.TABLES: Rows (RowCount).
//   - The planner (plannerStats, statistics.Table.Planner).
//
// CREATE INDEX on an analysed table re-analyses it in the background once
// the index is ready, so the new index gets its CARDINALITY.
//
// Refresh: every insert and delete counts as a change; once enough changed
// (statistics.Table.StartRefresh: sqlgw_stats_auto_recalc_percent of the
// analysed rows), the next plan of the table starts one background
// re-analysis (never two at a time per table).
//
// go-mysql-server's statistics provider (sql.StatsProvider, used by its
// index choice and join planner) answers from these statistics for an
// analysed table, with a histogram per index (stats_provider.go); the
// join costing specific to the store goes through sqlgw's coster
// (coster.go) with the row counts.

// statValues are the engine's conversions the statistics' histograms use
// (types.go).
var statValues = statistics.Values{Type: gmsType, Value: fromDatum}

// analyzeTable computes t's statistics from a full read and installs them
// with the row count.
func (g *Gateway) analyzeTable(ctx context.Context, t *catalog.Table) error {
	an := statistics.NewAnalysis(t, statValues)
	leftovers := 0
	err := g.scanRows(ctx, t, func(main *storage.Entity, row []catalog.Datum, err error) error {
		var size int64
		if main != nil {
			size = int64(storage.EntitySize(main))
		}
		an.Add(size, row, err) // a row that does not read is counted; CHECK TABLE reports it
		return nil
	}, &leftovers)
	if err != nil {
		return err
	}
	ts := an.Table()
	g.mu.Lock()
	g.stats[t.Physical] = ts
	g.mu.Unlock()
	g.setRowCount(t.Physical, ts.Rows)
	if err := g.saveStats(ctx, t.Physical, ts); err != nil {
		slog.Default().Warn("sqlgw: saving statistics", "table", t.Name, "err", err)
	}
	return nil
}

// hexKey is the PartitionKey of a table's statistics: the hex of its
// lower-cased physical name.
func hexKey(s string) string { return hex.EncodeToString([]byte(strings.ToLower(s))) }

// statsTable is the store table holding the statistics.
func (g *Gateway) statsTable() string {
	return strings.TrimSuffix(g.Catalog.CatalogTable(), "catalog") + "stats"
}

// saveStats writes ts as the statistics of the physical table phys.
func (g *Gateway) saveStats(ctx context.Context, phys string, ts *statistics.Table) error {
	j, err := ts.Marshal(statValues)
	if err != nil {
		return err
	}
	mctx := MetaCtx(ctx)
	if recorder.IsBackground(ctx) {
		// MetaCtx keeps no value of ctx: a refresh's save stays
		// background work (refreshStats).
		mctx = recorder.Background(mctx)
	}
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
func (g *Gateway) loadStats(ctx context.Context, phys string) *statistics.Table {
	e, err := g.store.Get(MetaCtx(ctx), g.statsTable(), hexKey(phys), "s", nil)
	if err != nil {
		return nil // none (or unreadable: the planner's defaults)
	}
	return statistics.Unmarshal([]byte(e.Properties["J"].Str()))
}

// tableStatsOf returns the statistics of a physical table, or nil: from
// memory, or loaded from the store the first time this gateway asks.
func (g *Gateway) tableStatsOf(phys string) *statistics.Table {
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
			g.rows[phys] = &rowEstimate{n: ts.Rows, known: true}
		}
	}
	return ts
}

// noteChanges counts n inserted or deleted rows towards the refresh.
func (g *Gateway) noteChanges(phys string, n int64) {
	g.mu.Lock()
	ts := g.stats[phys]
	g.mu.Unlock()
	if ts != nil {
		ts.NoteChanges(n)
	}
}

// refreshStats starts a background re-analysis of t (statistics ts) when
// enough of it changed since the last one.
//
// Its scan is the server's background work (recorder.Background, as the
// recovery sweeps in StartIndexRecovery): the statement whose planning
// started it does not wait for it, and a scan of the whole table running
// on under load must not show in the trace of the statements that follow
// (the recorder's own trace, which tests read as theirs:
// TestCollationMatrix's golden traces, sqltest Server.Requests).
func (g *Gateway) refreshStats(t *catalog.Table, ts *statistics.Table) {
	if ts == nil || !ts.StartRefresh() {
		return
	}
	go func() {
		ctx := recorder.Background(WithoutCounters(context.Background()))
		if err := g.analyzeTable(ctx, t); err != nil {
			slog.Default().Warn("sqlgw: statistics refresh failed", "table", t.Name, "err", err)
			ts.AnalysisFailed()
		}
	}()
}

// statsAfterIndex gives a new index of an analysed table its statistics:
// a background re-analysis once the index is ready (the backfill's own read
// is ixmaint's and counts nothing). A table never analysed is not read
// again. Background work, as refreshStats'.
func (g *Gateway) statsAfterIndex(db, table string) {
	ctx := recorder.Background(WithoutCounters(context.Background()))
	t, err := g.Catalog.Table(ctx, db, table)
	if err != nil || t == nil {
		return
	}
	ts := g.tableStatsOf(t.Physical)
	if ts == nil {
		return
	}
	if !ts.StartAnalysis() {
		return
	}
	go func() {
		if err := g.analyzeTable(ctx, t); err != nil {
			slog.Default().Warn("sqlgw: statistics after CREATE INDEX failed", "table", t.Name, "err", err)
			ts.AnalysisFailed()
		}
	}()
}

// plannerStats are the planner's statistics of t.
//
// It runs on every bound lookup of the plan cache (a point select's
// Template.Bind), so the row estimate and the statistics are read in one
// hold of g.mu, not three (issue 13, seventh round: a gateway-wide lock
// every connection takes in turn).
func (g *Gateway) plannerStats(t *catalog.Table) *planner.Stats {
	n := int64(defaultRowEstimate)
	g.mu.Lock()
	if e, ok := g.rows[t.Physical]; ok && e.known {
		n = e.n
	}
	ts, known := g.stats[t.Physical]
	g.mu.Unlock()
	if !known {
		// Not loaded yet: tableStatsOf loads it (and may set the row
		// estimate from it), as before.
		ts = g.tableStatsOf(t.Physical)
		n, _ = g.rowCount(t.Physical)
	}
	if ts != nil {
		g.refreshStats(t, ts)
	}
	return ts.Planner(t, n)
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
	if n, ok := t.gw.tableStatsOf(meta.Physical).Cardinality(index, seq); ok {
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
// then reloads the same key order (sqlgw/engine/ddldecl reads DESC from CREATE
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
