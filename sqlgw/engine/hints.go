package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/planner"
	"github.com/sqlgw/sqlgw/sqlgw/sqltext"
)

// Index hints
//
// MySQL's index hints on a table reference (SELECT, UPDATE, multi-table
// DELETE) restrict the secondary indexes sqlgw's planner may use for it:
//
//	USE INDEX (a, b)    only a or b (USE INDEX () : none)
//	IGNORE INDEX (a)    not a
//	FORCE INDEX (a)     like USE, and a table scan counts as very
//	                    expensive: a forced index that can answer any
//	                    conjunct is used instead of a scan
//
// KEY is a synonym of INDEX; several hints may follow one reference (the
// allowed set is the USE/FORCE lists' union minus the IGNORE lists). A
// name that is not an index of the table is MySQL's error 1176 (Key 'x'
// doesn't exist in table 't', SQLSTATE 42000), checked when the
// statement is parsed.
// FOR JOIN has the plain form's effect. FOR ORDER BY and FOR GROUP BY
// are accepted and validated but change nothing: sqlgw never chooses a
// secondary index for ordering or grouping, only to find rows.
//
// PRIMARY may be named (error 1176 on a keyless table). It does not
// restrict the primary key's paths (PointGet, MultiGet, RowRange,
// PartitionScan): a table is stored clustered on its key, so those are
// reads of the table itself, never worse than the scan MySQL would fall
// back to; IGNORE INDEX (PRIMARY) is accepted and has no effect, and
// USE INDEX (PRIMARY) keeps every secondary index out. A FORCE INDEX
// plan keeps whole-key equalities on PointGet/MultiGet (docs/architecture.md).
//
// go-mysql-server's parser knows only one USE/IGNORE/FORCE INDEX (list)
// per reference (no KEY, no FOR, no empty list) and ignores what it
// parses. sqlgw's parser wrapper (dump_generated_values.go) therefore blanks
// every hint clause out of the text it parses (same length, so positions
// hold) after checking the names against the catalog. The check's 1176
// reaches the client as is: from PREPARE and the binary protocol's
// prepare as the parser's error, from the statement builder (which would
// turn any parse error into a syntax error) as a SIGNAL statement raising
// it (prepareHintsSignal).
//
// Reads find the hints again in the statement text, ctx.Query() (for a
// prepared statement, its text when it executes): hintsOf scans it
// (sqltext.ScanHints), cached by text in a small bounded map; a text
// without "index" or "key" after "use", "ignore" or "force" costs byte
// scans and nothing else (sqltext.MayHaveHints). A table value resolves the hints once (resolveHints:
// LookupForExpressions with the alias its conjuncts use, planIn
// otherwise), and every plan of that value (filters, lookups the engine
// builds, batched lookup joins, UPDATE/DELETE, the LIMIT and ORDER BY
// re-plans of rules.go) is built on the allowed indexes (buildPlan).
//
// The same table referenced twice with different hints: a filter on one
// reference (LookupForExpressions) gets that reference's hints, matched
// by alias; a lookup the engine builds (joins, batched joins) does not
// say which reference it serves, so it gets the least restrictive
// combination: an index any reference allows, FORCE only if all force.
//
// Not covered: hints stored in a view's definition or a trigger's or
// routine's body (their statement text at execution is the caller's, so
// they have no effect); in a multi-statement text, the hints of every
// statement apply to same-named references of the others.
//
// The engine chooses lookup joins (and index scans for sorting) itself,
// from GetIndexes: in a SELECT (or EXPLAIN of one) GetIndexes leaves out
// the indexes the hints exclude (hintedIndexes), so EXPLAIN's key and
// possible_keys do not name them either. In UPDATE and DELETE it shows
// every index, since the engine's foreign-key checks and cascades look
// their indexes up there: an engine lookup join in a hinted multi-table
// UPDATE/DELETE may still be "on" an excluded index, but sqlgw's reads
// for it do not use the index (a key path or a scan). FORCE INDEX does
// not make the engine prefer a lookup join. While a SELECT with hints
// runs, information_schema reads of the hinted table within it miss the
// excluded indexes too.

// The hint clauses and their references are found by sqltext's
// IndexHints step (sqltext.HintRef, HintClause).

// tableHint is the effect of a reference's hints on its access paths.
type tableHint struct {
	use    map[string]bool // nil: no USE/FORCE list; lower-case names
	ignore map[string]bool
	force  bool
}

// allows reports whether secondary index name may be used.
func (h *tableHint) allows(name string) bool {
	n := lower(name)
	return (h.use == nil || h.use[n]) && !h.ignore[n]
}

// hintSet is what a Table value resolved: the hints of every reference
// it may serve (none: no hints).
type hintSet struct {
	refs []*tableHint
	// readOnly: the statement is a SELECT (or EXPLAIN of one), so the
	// engine's own view of the indexes may be filtered (hintedIndexes).
	readOnly bool
}

var noHints = &hintSet{}

func (hs *hintSet) allows(name string) bool {
	for _, h := range hs.refs {
		if h.allows(name) {
			return true
		}
	}
	return false
}

func (hs *hintSet) force() bool {
	for _, h := range hs.refs {
		if !h.force {
			return false
		}
	}
	return len(hs.refs) > 0
}

func effectOf(r *sqltext.HintRef) *tableHint {
	h := &tableHint{ignore: map[string]bool{}}
	for _, c := range r.Clauses {
		if c.Scoped {
			continue
		}
		switch c.Kind {
		case sqltext.HintIgnore:
			for _, n := range c.Names {
				h.ignore[lower(n)] = true
			}
		case sqltext.HintUse, sqltext.HintForce:
			if h.use == nil {
				h.use = map[string]bool{}
			}
			for _, n := range c.Names {
				h.use[lower(n)] = true
			}
			if c.Kind == sqltext.HintForce {
				h.force = true
			}
		}
	}
	return h
}

// hintCache maps statement texts to their hints.
var hintCache = struct {
	sync.Mutex
	m map[string][]*sqltext.HintRef
}{m: map[string][]*sqltext.HintRef{}}

const maxHintCache = 256

// hintsOf returns the hinted references of statement text q.
func hintsOf(q string) []*sqltext.HintRef {
	if !sqltext.MayHaveHints(q) {
		return nil
	}
	hintCache.Lock()
	refs, ok := hintCache.m[q]
	hintCache.Unlock()
	if ok {
		return refs
	}
	refs = sqltext.ScanHints(q)
	hintCache.Lock()
	if len(hintCache.m) >= maxHintCache {
		clear(hintCache.m)
	}
	hintCache.m[q] = refs
	hintCache.Unlock()
	return refs
}

// resolveHints records on t the hints of the statement's references to
// it. alias, if not "", is the name the caller's expressions use for the
// table: references under that name win.
func (t *Table) resolveHints(ctx *sql.Context, alias string) {
	refs := hintsOf(ctx.Query())
	if len(refs) == 0 {
		t.hints = noHints
		return
	}
	cur := ctx.GetCurrentDatabase()
	var all, named []*tableHint
	for _, r := range refs {
		db := r.DB
		if db == "" {
			db = cur
		}
		if !strings.EqualFold(db, t.db.name) || !strings.EqualFold(r.Table, t.Name()) {
			continue
		}
		h := effectOf(r)
		all = append(all, h)
		as := r.Alias
		if as == "" {
			as = r.Table
		}
		if alias != "" && strings.EqualFold(as, alias) {
			named = append(named, h)
		}
	}
	switch {
	case len(named) > 0:
		t.hints = &hintSet{refs: named}
	case len(all) > 0 && alias != "" && !strings.EqualFold(alias, t.Name()):
		// Another reference's alias: this one has no hints.
		t.hints = noHints
		return
	case len(all) > 0:
		t.hints = &hintSet{refs: all}
	default:
		t.hints = noHints
		return
	}
	t.hints.readOnly = sqltext.ReadOnly(ctx.Query())
}

// hintedIndexes filters the indexes GetIndexes shows the engine by the
// statement's hints, so that the engine's own choices (lookup joins, index
// scans for sorting) do not pick an index the hints exclude. Only in
// read-only statements: in a write, the engine looks up the indexes its
// foreign-key checks and cascades need, which hints must not hide (there
// sqlgw's plans alone honour the hints). PRIMARY is always shown.
func (t *Table) hintedIndexes(ctx *sql.Context, ixs []sql.Index) []sql.Index {
	if ctx == nil || !sqltext.MayHaveHints(ctx.Query()) {
		return ixs
	}
	t.hintsIn(ctx)
	hs := t.hints
	if hs == nil || len(hs.refs) == 0 || !hs.readOnly {
		return ixs
	}
	out := ixs[:0:0]
	for _, ix := range ixs {
		if _, secondary := ix.(*secondaryIndex); !secondary || hs.allows(ix.ID()) {
			out = append(out, ix)
		}
	}
	return out
}

// hintsIn resolves t's hints for a read that does not know its alias.
func (t *Table) hintsIn(ctx *sql.Context) {
	if t.hints == nil {
		t.resolveHints(ctx, "")
	}
}

// hintedTable is the planner's view of a table under index hints: only
// the allowed ready indexes, positions consistent between Indexes and
// EncodeIndexKey.
type hintedTable struct {
	*plannerTable
	ixs []*catalog.Index
}

func (h *hintedTable) Indexes() []planner.Index { return plannerIndexes(h.t, h.ixs) }

func (h *hintedTable) EncodeIndexKey(n, first int, vals []planner.Datum) (string, error) {
	return encodeIndexKey(h.t, h.ixs, n, first, vals)
}

// buildPlan is planner.Build under t's index hints.
func (t *Table) buildPlan(q *planner.Query) (*planner.Plan, error) {
	hs := t.hints
	if hs == nil || len(hs.refs) == 0 {
		return planner.Build(t.info.pt, q)
	}
	ht := &hintedTable{plannerTable: t.info.pt}
	for _, ix := range readyIndexes(t.info.pt.t) {
		if hs.allows(ix.Name) {
			ht.ixs = append(ht.ixs, ix)
		}
	}
	p, err := planner.Build(ht, q)
	if err != nil || !hs.force() || q.NoIndex || p.Index != nil || len(ht.ixs) == 0 {
		return p, err
	}
	switch p.Path {
	case planner.PointGet, planner.MultiGet, planner.Empty:
		return p, nil
	}
	var best *planner.Plan
	for n := range ht.ixs {
		fp, err := planner.BuildIndex(ht, q, n)
		if err != nil {
			return nil, err
		}
		if fp != nil && (best == nil || fp.Cost.ScoreFor(q.Cost) < best.Cost.ScoreFor(q.Cost)) {
			best = fp
		}
	}
	if best == nil {
		return p, nil
	}
	return best, nil
}

// prepareHints returns statement text q with its hint clauses blanked
// out for go-mysql-server's parser (same length: positions hold), after
// checking that every index they name exists: a name that does not is
// MySQL's 1176 (Key 'x' doesn't exist in table 't').
func (g *Gateway) prepareHints(ctx context.Context, q string) (string, error) {
	text := sqltext.Run(q, sqltext.Parse) // IndexHints, TxCharacteristics
	if text.Rollup {
		// vitess's grammar has no WITH ROLLUP (sqltext.Rollup): a clear
		// "not supported" rather than its syntax error.
		return q, mysql.NewSQLError(mysql.ERNotSupportedYet, "42000", "sqlgw: GROUP BY ... WITH ROLLUP is not supported yet")
	}
	if sctx, ok := ctx.(*sql.Context); ok && sctx != nil && sctx.Session != nil {
		if s, ok := sctx.Session.(*Session); ok {
			s.txConflict = text.TxConflict // START TRANSACTION READ ONLY, READ WRITE (txreadonly.go)
		}
		for _, r := range text.Hints {
			if err := g.checkHint(sctx, r); err != nil {
				return q, err
			}
		}
	}
	return text.String(), nil
}

// prepareHintsSignal is prepareHints for the parse of the engine's
// statement builder, which turns every parse error into a syntax error
// (1105): a hint's error is returned as the text of a SIGNAL statement
// that raises it with its own number, state and message.
func (g *Gateway) prepareHintsSignal(ctx context.Context, q string) (string, error) {
	out, err := g.prepareHints(ctx, q)
	var se *mysql.SQLError
	if errors.As(err, &se) {
		return fmt.Sprintf("SIGNAL SQLSTATE '%s' SET MYSQL_ERRNO = %d, MESSAGE_TEXT = '%s'",
			se.SQLState(), se.Number(), strings.NewReplacer(`\`, `\\`, `'`, `''`).Replace(se.Message)), nil
	}
	return out, err
}

// checkHint checks that every index r's hints name exists.
func (g *Gateway) checkHint(ctx *sql.Context, r *sqltext.HintRef) error {
	db := r.DB
	if db == "" {
		db = ctx.GetCurrentDatabase()
	}
	if db == "" {
		return nil
	}
	meta, err := g.Catalog.Table(MetaCtx(ctx), db, r.Table)
	if err != nil || meta == nil {
		return nil // not a sqlgw table (a CTE, a view, or none): the engine reports it
	}
	name := r.Alias
	if name == "" {
		name = r.Table
	}
	for _, c := range r.Clauses {
		for _, n := range c.Names {
			if strings.EqualFold(n, "primary") && !meta.Keyless() {
				continue
			}
			if !hasIndex(meta, n) {
				return mysql.NewSQLError(mysql.ERKeyDoesNotExist, "42000", "Key '%s' doesn't exist in table '%s'", n, name)
			}
		}
	}
	return nil
}

func hasIndex(t *catalog.Table, name string) bool {
	for i := range t.Indexes {
		if strings.EqualFold(t.Indexes[i].Name, name) {
			return true
		}
	}
	return false
}
