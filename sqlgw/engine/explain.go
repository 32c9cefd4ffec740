package engine

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/sqlgw/sqlgw/planner"
	"github.com/sqlgw/sqlgw/sqlgw/engine/compat"
	"github.com/sqlgw/sqlgw/sqlgw/sqltext"
	"github.com/sqlgw/sqlgw/storage/recorder"
)

// Plain EXPLAIN
//
// go-mysql-server answers a plain EXPLAIN (MySQL's traditional format) with
// one placeholder row. sqlgw fills it in instead: one row per table access,
// in plan order, with MySQL's access type (const, range, ref, ALL, eq_ref)
// and, in Extra, the access path by its sqlgw name (PointGet, MultiGet,
// RowRange, PartitionScan, PartitionRange, TableScan, Empty) with the store
// requests it sends. EXPLAIN PLAN and EXPLAIN FORMAT=tree show the full
// requests (partition, RowKey bounds, OData filter, projection, top).

// explainBuilder is a priority exec builder: it builds plain EXPLAIN and
// leaves every other node to go-mysql-server (by returning nil).
type explainBuilder struct {
	exec sql.NodeExecBuilder // the engine's builder, to run EXPLAIN ANALYZE
}

func (e explainBuilder) Build(ctx *sql.Context, n sql.Node, row sql.Row) (sql.RowIter, error) {
	if rt, ok := n.(*plan.ResolvedTable); ok && isEmptyHelpTable(rt) {
		return sql.RowsToRowIter(), nil
	}
	// CREATE TABLE IF NOT EXISTS's and DROP VIEW IF EXISTS's notes, a
	// SET's new warning list (warnings.go).
	ddlNotes(ctx, n)
	dropBuilt(ctx, n)                                 // dropabsent.go
	if err := txConflictRefused(ctx, n); err != nil { // txreadonly.go
		return nil, err
	}
	// A one-shot SET TRANSACTION (txreadonly.go).
	if it, err := txOneShotSet(ctx, n); it != nil || err != nil {
		return it, err
	}
	setStarts(ctx, n)
	// The SET_VAR hints, their warnings (setvarhint.go).
	hintsBuilt(ctx)
	if it, err := e.buildStrictWrite(ctx, n, row); it != nil || err != nil { // strictwrite.go
		return it, err
	}
	if tc, ok := n.(*plan.TableCopier); ok {
		if it, err := e.buildCreateSelect(ctx, tc, row); it != nil || err != nil { // ctas.go
			return it, err
		}
	}
	if nn, ok := numberCastNode(ctx, n); ok { // writeconv.go
		return e.exec.Build(ctx, nn, row)
	}
	if d, ok := n.(*plan.Distinct); ok && len(d.DistinctOn()) == 0 {
		child, err := e.exec.Build(ctx, d.Child, row)
		if err != nil {
			return nil, err
		}
		it, _ := compat.DistinctIter(ctx, d, child) // compat/distinct_collation.go
		return it, nil
	}
	if gb, ok := n.(*plan.GroupBy); ok {
		if ngb, ok := compat.PadGroupBy(ctx, gb); ok { // compat/groupby_pad.go
			return e.exec.Build(ctx, ngb, row)
		}
	}
	if so, ok := n.(*plan.SetOp); ok {
		return compat.SetOpIter(ctx, so, row, e.exec.Build) // compat/setop_collation.go
	}
	if rc, ok := n.(*plan.RecursiveCte); ok {
		return compat.RecursiveCteIter(ctx, rc, row, e.exec.Build) // compat/setop_collation.go
	}
	if si, ok := n.(*plan.ShowIndexes); ok {
		return buildShowIndexes(ctx, si, row) // stats.go
	}
	if sc, ok := n.(*plan.ShowCreateTable); ok {
		return buildShowCreateTable(ctx, sc, row) // stats.go
	}
	if tr, ok := n.(*plan.Truncate); ok {
		return e.deleteForTruncate(ctx, tr, row) // okcounts.go
	}
	d, ok := n.(*plan.DescribeQuery)
	if !ok {
		return nil, nil
	}
	if d.Format.Analyze {
		return e.analyze(ctx, d, row)
	}
	if d.Format.Plan {
		return nil, nil
	}
	var rows []sql.Row
	walkAccesses(ctx, d.Child, "", func(table string, row explainRow) {
		rows = append(rows, sql.Row{uint64(1), "SIMPLE", table, nil, nullable(row.typ), nullable(row.keys), nullable(row.key),
			nil, nullable(row.ref), row.rows, float64(100), row.extra})
	})
	if len(rows) == 0 {
		rows = append(rows, sql.Row{uint64(1), "SIMPLE", nil, nil, nil, nil, nil, nil, nil, nil, float64(0), "No tables used"})
	}
	return sql.RowsToRowIter(rows...), nil
}

// isEmptyHelpTable reports the mysql.help_* tables, which go-mysql-server
// declares empty but scans as one row of no columns, so that any query
// naming a column failed ("unable to find field with index 1 in row of 0
// columns"; mycli's completion refresher reads mysql.help_topic). They are
// scanned as empty (MySQL without the help tables loaded).
func isEmptyHelpTable(rt *plan.ResolvedTable) bool {
	if rt.Database() == nil || !strings.EqualFold(rt.Database().Name(), "mysql") {
		return false
	}
	switch strings.ToLower(rt.Name()) {
	case "help_topic", "help_keyword", "help_category", "help_relation":
		return true
	}
	return false
}

// analyze runs EXPLAIN ANALYZE: the statement is executed (read-only ones
// only, as go-mysql-server requires) with its own request counters, and the
// plan is followed by the store requests and entities it really cost.
func (e explainBuilder) analyze(ctx *sql.Context, d *plan.DescribeQuery, row sql.Row) (sql.RowIter, error) {
	if !d.IsReadOnly() {
		return nil, errUnsupported.New("EXPLAIN ANALYZE of a statement that writes")
	}
	var c recorder.Counters
	sctx := ctx.WithContext(recorder.WithCounters(ctx.Context, &c))
	it, err := e.exec.Build(sctx, d.Child, row)
	if err != nil {
		return nil, err
	}
	n := 0
	for {
		_, err := it.Next(sctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			it.Close(sctx)
			return nil, err
		}
		n++
	}
	if err := it.Close(sctx); err != nil {
		return nil, err
	}
	var rows []sql.Row
	for _, l := range strings.Split(sql.Describe(ctx, d.Child, d.Format), "\n") {
		if strings.TrimSpace(l) != "" {
			rows = append(rows, sql.NewRow(l))
		}
	}
	snap := c.Snapshot()
	rows = append(rows, sql.NewRow(fmt.Sprintf("sqlgw: %d rows, %d store requests, %d entities read", n, snap.Requests, snap.EntitiesRead)))
	return sql.RowsToRowIter(rows...), nil
}

func nullable(s string) interface{} {
	if s == "" {
		return nil
	}
	return s
}

type explainRow struct {
	typ, keys, key, ref, extra string
	rows                       interface{}
}

// walkAccesses calls f for every table access under n, in order.
func walkAccesses(ctx *sql.Context, n sql.Node, alias string, f func(table string, row explainRow)) {
	name := func(def string) string {
		if alias != "" {
			return alias
		}
		return def
	}
	switch x := n.(type) {
	case *batchedJoin: // joinbatch.go
		walkBatched(ctx, x, f)
		return
	case *plan.TableAlias:
		walkAccesses(ctx, x.Child, x.Name(), f)
		return
	case *plan.IndexedTableAccess:
		t, ok := unwrapTable(x.Table).(*Table)
		if !ok {
			f(name(x.Name()), explainRow{typ: "ref", keys: "PRIMARY", key: "PRIMARY"})
			return
		}
		if !x.IsStatic() {
			// A lookup join: one lookup per outer row.
			row := explainRow{typ: "eq_ref", keys: "PRIMARY", key: "PRIMARY", ref: "func", rows: uint64(1),
				extra: "sqlgw: lookup per outer row (PointGet/RowRange on the join key)"}
			f(name(t.Name()), row)
			return
		}
		lookup, _, err := x.GetLookup(ctx, nil)
		if err != nil {
			return
		}
		var p *planner.Plan
		switch r := lookup.Ranges.(type) {
		case *planRanges:
			p = r.plan
		case sql.MySQLRangeCollection:
			if pr, err := t.rangesToPlanFor(ctx, lookup.Index, r); err == nil {
				p = pr.plan
			}
		}
		f(name(t.Name()), planRow(p))
		return
	case *plan.ResolvedTable:
		if x.Name() == "" || strings.EqualFold(x.Name(), "dual") {
			return
		}
		if t, ok := unwrapTable(x.Table).(*Table); ok {
			p, err := t.plan(&planner.Query{Columns: t.proj, Limit: t.limit})
			if err == nil {
				f(name(t.Name()), planRow(p))
				return
			}
		}
		f(name(x.Name()), explainRow{typ: "ALL"})
		return
	}
	for _, c := range n.Children() {
		walkAccesses(ctx, c, "", f)
	}
}

// planRow describes a plan in EXPLAIN's traditional columns.
func planRow(p *planner.Plan) explainRow {
	if p == nil {
		return explainRow{typ: "ALL"}
	}
	row := explainRow{keys: "PRIMARY", key: "PRIMARY", rows: uint64(p.Cost.Entities + 0.5)}
	switch p.Path {
	case planner.PointGet:
		row.typ, row.ref = "const", "const"
	case planner.MultiGet, planner.RowRange, planner.PartitionRange:
		row.typ = "range"
	case planner.PartitionScan:
		row.typ, row.ref = "ref", "const"
	case planner.TableScan:
		row.typ, row.key = "ALL", ""
	case planner.Empty:
		row.typ, row.keys, row.key, row.rows = "", "", "", nil
	}
	var extra []string
	extra = append(extra, fmt.Sprintf("sqlgw: %s, %s store requests", p.Path, formatCost(p.Cost.Requests)))
	if ix := p.Index; ix != nil {
		// Secondary index (secondary.go): both requests named.
		row.keys, row.key = "PRIMARY,"+ix.Name, ix.Name
		row.typ = "ref"
		if p.Path == planner.IndexRange {
			row.typ = "range"
		}
		extra = append(extra, indexExplain(p))
	}
	if p.Filter != nil {
		extra = append(extra, "filter pushed")
	}
	if p.Limit > 0 {
		extra = append(extra, fmt.Sprintf("top %d", p.Limit))
	}
	if len(p.Residual) > 0 {
		extra = append(extra, "Using where")
	}
	if p.Path == planner.Empty {
		extra = append(extra, "Impossible WHERE")
	}
	row.extra = strings.Join(extra, "; ")
	return row
}

func formatCost(f float64) string {
	if f == float64(int64(f)) {
		return fmt.Sprint(int64(f))
	}
	return fmt.Sprintf("%.1f", f)
}

// unwrapTable removes the engine's wrappers (process tracking, ...).
func unwrapTable(t sql.Table) sql.Table {
	for {
		w, ok := t.(sql.TableWrapper)
		if !ok {
			return t
		}
		t = w.Underlying()
	}
}

// Prepared EXPLAIN
//
// vitess counts a COM_STMT_PREPARE statement's parameters by walking its
// syntax tree, and its walk does not enter the statement an EXPLAIN
// describes, so `EXPLAIN SELECT ... WHERE k = ?` was prepared with 0
// parameters: pyodbc refused to bind any, and mysql2's values were
// dropped by COM_STMT_EXECUTE (which reads only ParamsCount values), so
// the execution failed with "bind variable not provided: 'v1'". The
// handler counts them itself (explainParamCount) before the answer to the
// prepare is written; execution then binds them like any statement's.

// explainParamCount returns the number of parameters of a prepared EXPLAIN
// (DESCRIBE/DESC of a statement, EXPLAIN ANALYZE), or 0 for any other
// statement or text that does not parse.
func ExplainParamCount(ctx context.Context, query string, opts sqlparser.ParserOptions) uint16 {
	if !mayBeExplain(query) {
		return 0
	}
	stmt, err := sqlparser.ParseWithOptions(ctx, query, opts)
	if err != nil {
		return 0
	}
	ex, ok := stmt.(*sqlparser.Explain)
	if !ok || ex.Statement == nil {
		return 0
	}
	// The same count vitess makes for other statements: each ? is a
	// SQLVal named :vN.
	n := uint16(0)
	_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
		if v, ok := node.(*sqlparser.SQLVal); ok && strings.HasPrefix(string(v.Val), ":v") {
			n++
		}
		return true, nil
	}, ex.Statement)
	return n
}

// mayBeExplain is a cheap filter in front of the parse: a parameter marker
// and a leading EXPLAIN or DESC[RIBE] keyword (after comments and blanks).
func mayBeExplain(q string) bool {
	if !strings.Contains(q, "?") {
		return false
	}
	w := sqltext.LeadingWords(q, 1)
	return len(w) == 1 && (w[0] == "explain" || w[0] == "describe" || w[0] == "desc")
}
