package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"

	"github.com/sqlgw/sqlgw/planner"
	"github.com/sqlgw/sqlgw/sqlgw/engine/exprconv"
)

// Index selection
//
// go-mysql-server hands every filter conjunct on a table to
// LookupForExpressions (for single-table filters, per-table filters inside
// joins, and UPDATE/DELETE WHERE clauses, fast paths included). sqlgw
// converts them to the planner's IR, asks the planner for an access path,
// and returns an IndexLookup on the PRIMARY index whose RangeCollection
// (planRanges) carries the plan: EXPLAIN prints the plan there. The
// conjuncts the plan answers exactly are dropped from the engine's Filter;
// the residual ones stay.
//
// Lookup joins and foreign-key checks do not go through
// LookupForExpressions: the engine builds a MySQLRangeCollection on the
// PRIMARY index or on a secondary index (secondaryIndex.CanSupport) per
// outer row. rangesToPlanFor converts those ranges (per-column intervals
// over the index's columns) to the IR too and plans them, onto the index
// when it is ready and cheapest; whatever the plan leaves residual is
// enforced in the row iterator with the ranges' own filter expression,
// because the engine assumes the lookup is exact (PreciseMatch). Rows of a
// secondary-index lookup come in the index's order (sorted when the plan
// does not deliver it). Lookup joins into sqlgw tables are batched
// (joinbatch.go): the lookups of a block of outer rows are planned and read
// together.
//
// The PRIMARY index lists the key columns in storage order (PartitionKey
// columns, then RowKey columns), which is the order rows come back in; it
// claims ascending order only when no key column is DESC.

// indexExpr is the expression by which an index names column col of
// table: "table.col" in the names' own case. go-mysql-server matches it
// exactly against col.Source+"."+col.Name (plan.GetColumnFromIndexExpr:
// SHOW INDEX, information_schema.STATISTICS and COLUMNS.COLUMN_KEY), and
// case-insensitively everywhere it selects indexes (memo, foreign keys,
// statistics), as for its own memory tables; lower-cased names made
// key columns such as ID vanish from SHOW INDEX (compat finding F14).
func indexExpr(table, col string) string { return table + "." + col }

// primaryIndex is the PRIMARY index of a keyed table.
type primaryIndex struct {
	db, table string
	exprs     []string
	types     []sql.ColumnExpressionType
	ordered   bool
	cols      []int // full-schema ordinals, in expression order
}

var (
	_ sql.Index        = (*primaryIndex)(nil)
	_ sql.OrderedIndex = (*primaryIndex)(nil)
)

func (t *Table) primaryIndex() *primaryIndex {
	ix := &primaryIndex{db: t.db.name, table: t.Name(), ordered: t.info.ordered && !t.gw.unsorted}
	for _, c := range t.info.storageOrder {
		col := t.info.schema.Schema[c]
		e := indexExpr(t.Name(), col.Name)
		ix.exprs = append(ix.exprs, e)
		ix.types = append(ix.types, sql.ColumnExpressionType{Expression: e, Type: col.Type})
		ix.cols = append(ix.cols, c)
	}
	return ix
}

func (ix *primaryIndex) ID() string                   { return "PRIMARY" }
func (ix *primaryIndex) Database() string             { return ix.db }
func (ix *primaryIndex) Table() string                { return ix.table }
func (ix *primaryIndex) Expressions() []string        { return ix.exprs }
func (ix *primaryIndex) IsUnique() bool               { return true }
func (ix *primaryIndex) IsSpatial() bool              { return false }
func (ix *primaryIndex) IsFullText() bool             { return false }
func (ix *primaryIndex) IsVector() bool               { return false }
func (ix *primaryIndex) Comment() string              { return "" }
func (ix *primaryIndex) IndexType() string            { return "BTREE" }
func (ix *primaryIndex) IsGenerated() bool            { return false }
func (ix *primaryIndex) PrefixLengths() []uint16      { return nil }
func (ix *primaryIndex) Reversible(*sql.Context) bool { return false }
func (ix *primaryIndex) CanSupportOrderBy(sql.Expression) bool {
	return false
}
func (ix *primaryIndex) CanSupport(*sql.Context, ...sql.Range) bool { return true }
func (ix *primaryIndex) ColumnExpressionTypes(*sql.Context) []sql.ColumnExpressionType {
	return ix.types
}
func (ix *primaryIndex) Order(*sql.Context) sql.IndexOrder {
	if ix.ordered {
		return sql.IndexOrderAsc
	}
	return sql.IndexOrderNone
}

// planRanges is the RangeCollection of a lookup made by
// LookupForExpressions: it carries the plan, and EXPLAIN shows the plan.
type planRanges struct {
	plan *planner.Plan
	// t, where and cols rebuild the plan with a LIMIT (rules.go).
	t     *Table
	where []planner.Expr
	cols  []int
	order []planner.OrderColumn // ORDER BY the plan satisfies (rules.go)
	// residual, if set, is applied to every row (full-row ordinals): the
	// part of converted engine ranges the plan leaves to the gateway.
	residual sql.Expression
	// given are the conjuncts the engine passed to LookupForExpressions,
	// as it passed them: the plan cache (plancache.go) re-plans them with
	// new parameter values.
	given []sql.Expression
	// cache holds the rows of the first complete execution, for the
	// engine's nested loops that re-run a static lookup per outer row.
	cache *lookupCache
	// overlay is the whole original filter with column references bound to
	// full-row ordinals; rows from the transaction's write buffer must pass
	// it (the store evaluated the pushed part only on stored rows).
	overlay sql.Expression
	// noIndex: planned without secondary indexes (planIn); re-plans too.
	noIndex bool
	// sortBy: see readSpec.sortBy (engine ranges on a secondary index).
	sortBy []int
}

var (
	_ sql.RangeCollection = (*planRanges)(nil)
	_ sql.Range           = planRange{}
)

func (r *planRanges) String() string {
	return strings.ReplaceAll(r.plan.String(), "\n", "; ")
}
func (r *planRanges) DebugString(*sql.Context) string { return r.String() }
func (r *planRanges) Len() int                        { return 1 }
func (r *planRanges) ToRanges() []sql.Range           { return []sql.Range{planRange{r}} }
func (r *planRanges) Equals(other sql.RangeCollection) (bool, error) {
	o, ok := other.(*planRanges)
	return ok && o.plan.String() == r.plan.String(), nil
}

// planRange is the single Range of a planRanges.
type planRange struct{ r *planRanges }

func (p planRange) String() string                  { return p.r.String() }
func (p planRange) DebugString(*sql.Context) string { return p.r.String() }
func (p planRange) Equals(other sql.Range) (bool, error) {
	o, ok := other.(planRange)
	return ok && o.r.plan.String() == p.r.plan.String(), nil
}

// SkipIndexCosting implements sql.IndexSearchable: false, so that when
// LookupForExpressions declines (keyless tables) the engine may still
// cost the PRIMARY index itself, and so that sort elimination stays on.
func (t *Table) SkipIndexCosting() bool { return false }

// LookupForExpressions implements sql.IndexSearchable.
func (t *Table) LookupForExpressions(ctx *sql.Context, exprs ...sql.Expression) (sql.IndexLookup, *sql.FuncDepSet, sql.Expression, bool, error) {
	if len(exprs) == 0 {
		return sql.IndexLookup{}, nil, nil, false, nil
	}
	given := exprs
	exprs = slices.Clone(exprs)
	fixedAny := false
	for i, e := range exprs {
		fixed, err := fixComparisons(ctx, e)
		if err != nil {
			return sql.IndexLookup{}, nil, nil, false, err
		}
		exprs[i] = fixed
		fixedAny = fixedAny || fixed != e
	}
	if t.meta().Keyless() && len(readyIndexes(t.meta())) == 0 && !fixedAny {
		return sql.IndexLookup{}, nil, nil, false, nil
	}
	conv := exprconv.New(ctx, t.columnNames())
	self := t.selfName(ctx, exprs)
	t.resolveHints(ctx, self) // index hints (hints.go)
	where := make([]planner.Expr, len(exprs))
	var selfOnly []sql.Expression
	for i, e := range exprs {
		if self == "" || !t.onlySelf(ctx, e, self) {
			// References to other tables (correlated subqueries): opaque,
			// so residual, evaluated by the engine on every row.
			where[i] = conv.Opaque(e)
			continue
		}
		where[i] = conv.Convert(e)
		selfOnly = append(selfOnly, e)
	}
	q := &planner.Query{Where: where, Columns: t.proj}
	p, err := t.planIn(ctx, q)
	if err != nil {
		return sql.IndexLookup{}, nil, nil, false, err
	}
	var residual []sql.Expression
	for _, i := range p.Residual {
		residual = append(residual, exprs[i])
	}
	for i, e := range exprs {
		// An equality that may be a rewritten LIKE stays unpadded
		// (padspace.go): the padded key found a superset, the residual
		// drops what LIKE does not match ('X  ' for LIKE 'x').
		if !slices.Contains(p.Residual, i) && likeEquality(ctx, e) {
			residual = append(residual, e)
		}
	}
	var overlay sql.Expression
	var err2 error
	if len(selfOnly) > 0 {
		overlay, err2 = t.bindFull(ctx, expression.JoinAnd(selfOnly...))
	}
	err = err2
	if err == nil {
		// PAD SPACE comparisons, once the planner has read them (padspace.go).
		overlay, err = padComparisons(ctx, overlay)
	}
	if err != nil {
		return sql.IndexLookup{}, nil, nil, false, err
	}
	var index sql.Index = t.primaryIndex()
	if t.meta().Keyless() {
		// No primary key: only a plan through one of its indexes (or
		// none: Empty) is a lookup; the engine scans otherwise.
		if index = t.keylessLookupIndex(p); index == nil {
			if !fixedAny {
				return sql.IndexLookup{}, nil, nil, false, nil
			}
			// A rewritten comparison (fixComparisons) must replace the
			// engine's filter, which only a lookup's residual does: a
			// scan through the hidden key, which orders nothing.
			index = t.primaryIndex()
		}
	}
	lookup := sql.IndexLookup{
		Index:         index,
		Ranges:        &planRanges{plan: p, overlay: overlay, t: t, where: where, cols: t.proj, noIndex: q.NoIndex, given: given},
		IsPointLookup: p.Path == planner.PointGet,
	}
	var rest sql.Expression
	if len(residual) > 0 {
		if rest, err = padComparisons(ctx, expression.JoinAnd(residual...)); err != nil {
			return sql.IndexLookup{}, nil, nil, false, err
		}
	}
	var fds *sql.FuncDepSet
	if atMostOneRow(p) {
		fds = max1RowFDs
	}
	return lookup, fds, rest, true, nil
}

// keylessLookupIndex is the index a lookup on a table without a primary key
// names: the secondary index its plan reads (the first one for an Empty
// plan), or nil when the plan reads no index.
func (t *Table) keylessLookupIndex(p *planner.Plan) sql.Index {
	six := t.secondaryIndexes()
	switch {
	case p.Index != nil:
		for _, ix := range six {
			if strings.EqualFold(ix.ID(), p.Index.Name) {
				return ix
			}
		}
	case p.Path == planner.Empty && len(six) > 0:
		return six[0]
	}
	return nil
}

// max1RowFDs is the functional-dependency set of a lookup that returns at
// most one row (a strict key over no columns: sql.FuncDepSet.HasMax1Row).
// Returned by LookupForExpressions, it makes go-mysql-server set
// QFlagMax1Row for a query on one table (no join, no subquery), and its
// handler then reads the one row directly (resultForMax1RowIter) instead
// of spooling rows through an errgroup of goroutines, a timer and a
// 512-row channel per query (resultForDefaultIter): about a quarter of the
// CPU of a point select (issue 13). It is never modified.
var max1RowFDs = sql.NewMax1RowFDs(sql.ColSet{}, sql.ColSet{})

// atMostOneRow reports whether plan p reads at most one row: a PointGet
// (the whole primary key bound by one equality); Empty returns none. A
// unique secondary index is not enough: while a unique value moves between
// rows (a swap committed half-way, a crash; TestUniqueSwapHalfCommitted) a
// read through it can see two rows with one value, and the engine fails a
// Max1Row query that gets a second row instead of returning it.
func atMostOneRow(p *planner.Plan) bool {
	switch p.Path {
	case planner.PointGet, planner.Empty:
		return true
	}
	return false
}

// selfName returns the name by which the conjuncts refer to this table: its
// own name if any column reference uses it, else the only table name they
// use; "" if that is ambiguous (then nothing is converted: a reference to
// another table's same-named column must never be taken for ours).
func (t *Table) selfName(ctx *sql.Context, exprs []sql.Expression) string {
	names := map[string]bool{}
	for _, e := range exprs {
		sql.Inspect(ctx, e, func(_ *sql.Context, e sql.Expression) bool {
			if gf, ok := e.(*expression.GetField); ok {
				names[lower(gf.Table())] = true
			}
			return true
		})
	}
	if names[lower(t.Name())] {
		return lower(t.Name())
	}
	if len(names) == 1 {
		for n := range names {
			return n
		}
	}
	return ""
}

// onlySelf reports whether every column reference of e is a column of this
// table under name self.
func (t *Table) onlySelf(ctx *sql.Context, e sql.Expression, self string) bool {
	ok := true
	sql.Inspect(ctx, e, func(_ *sql.Context, e sql.Expression) bool {
		if _, isSub := e.(*plan.Subquery); isSub {
			// Its column references may be into the outer row: leave the
			// whole conjunct to the engine.
			ok = false
			return false
		}
		if gf, isGF := e.(*expression.GetField); isGF {
			if lower(gf.Table()) != self || t.meta().ColumnIndex(gf.Name()) < 0 {
				ok = false
			}
		}
		return ok
	})
	return ok
}

// bindFull rebinds the column references of e to full-row ordinals.
func (t *Table) bindFull(ctx *sql.Context, e sql.Expression) (sql.Expression, error) {
	if e == nil {
		return nil, nil
	}
	out, _, err := transform.Expr(ctx, e, func(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		gf, ok := e.(*expression.GetField)
		if !ok {
			return e, transform.SameTree, nil
		}
		i := t.meta().ColumnIndex(gf.Name())
		if i < 0 {
			return nil, transform.SameTree, fmt.Errorf("sqlgw: column %s is not in table %s", gf.Name(), t.Name())
		}
		return gf.WithIndex(i), transform.NewTree, nil
	})
	return out, err
}

// readSpec is what the row iterator executes.
type readSpec struct {
	plan *planner.Plan
	// residual, if set, is applied to every row (full-row ordinals).
	residual sql.Expression
	// overlay, if set, is applied to rows from the transaction's buffer.
	overlay sql.Expression
	// cache, if set, keeps the results for re-executions of the same
	// lookup within the statement (cache.go).
	cache *lookupCache
	// sortBy, if set, are the full-row ordinals the rows must be sorted by
	// (a secondary index's order, which its plan does not deliver).
	sortBy []int
	// single: the statement's only read, in its own transaction: made
	// without a snapshot (singleread.go).
	single bool
}

// specForLookup returns what to execute for an index lookup.
func (t *Table) specForLookup(ctx *sql.Context, lookup sql.IndexLookup) (*readSpec, error) {
	switch r := lookup.Ranges.(type) {
	case *planRanges:
		if r.cache == nil {
			r.cache = &lookupCache{}
		}
		return &readSpec{plan: r.plan, overlay: r.overlay, residual: r.residual, cache: r.cache}, nil
	case sql.MySQLRangeCollection:
		return t.specForRanges(ctx, lookup, r)
	}
	return nil, fmt.Errorf("sqlgw: unexpected range collection %T", lookup.Ranges)
}

// specForRanges plans a MySQLRangeCollection on the PRIMARY index or a
// secondary index (lookup joins, foreign-key checks, and lookups the engine
// built itself).
func (t *Table) specForRanges(ctx *sql.Context, lookup sql.IndexLookup, ranges sql.MySQLRangeCollection) (*readSpec, error) {
	key := ranges.String()
	if lookup.Index != nil {
		key = lookup.Index.ID() + ":" + key
	}
	if c := t.dyn.lookup(key); c != nil {
		if spec, ok := c.spec.(*readSpec); ok {
			return spec, nil
		}
	}
	pr, err := t.rangesToPlanFor(ctx, lookup.Index, ranges)
	if err != nil {
		return nil, err
	}
	spec := &readSpec{plan: pr.plan, overlay: pr.overlay, residual: pr.residual, sortBy: pr.sortBy}
	spec.cache = t.dyn.add(key, spec)
	return spec, nil
}

// rangesToPlan converts engine ranges on the PRIMARY index into a plan.
func (t *Table) rangesToPlan(ctx *sql.Context, ranges sql.MySQLRangeCollection) (*planRanges, error) {
	return t.rangesToPlanFor(ctx, nil, ranges)
}

// indexColumns returns the full-row ordinals of index idx's columns, in
// expression order: a secondary index's, else the PRIMARY index's.
func (t *Table) indexColumns(idx sql.Index) []int {
	if si, ok := idx.(*secondaryIndex); ok {
		return si.cols
	}
	return t.primaryIndex().cols
}

// rangesToPlanFor converts engine ranges on index idx (nil or PRIMARY: the
// primary key; a *secondaryIndex: its columns) into a plan. The ranges
// become IR conjuncts on the index's columns and the planner chooses the
// access path as for any filter: a ready secondary index yields IndexLookup
// or IndexRange (hits verified against base rows by the reader), an index
// still building is not offered to the planner (readyIndexes), so the plan
// falls back to a key path or a scan with the same conjuncts. What the plan
// leaves residual is enforced with the ranges' own filter expression.
func (t *Table) rangesToPlanFor(ctx *sql.Context, idx sql.Index, ranges sql.MySQLRangeCollection) (*planRanges, error) {
	cols := t.indexColumns(idx)
	var or planner.Or
	for _, rng := range ranges {
		var and planner.And
		for i, ce := range rng {
			if i >= len(cols) {
				break
			}
			and = append(and, cutsToIR(ctx, cols[i], ce)...)
		}
		or = append(or, and)
	}
	var where []planner.Expr
	switch len(or) {
	case 0:
		where = []planner.Expr{&planner.Const{Value: false}}
	case 1:
		where = []planner.Expr{or[0]}
	default:
		where = []planner.Expr{or}
	}
	si, secondary := idx.(*secondaryIndex)
	q := &planner.Query{Where: where, Columns: t.proj, Limit: t.limit}
	if secondary {
		// Rows may have to be sorted after the fetch: no Top.
		q.Limit = 0
	}
	p, err := t.planIn(ctx, q)
	if err != nil {
		return nil, err
	}
	var sortBy []int
	if secondary && !(p.Index != nil && p.Index.Name == si.ix.Name && p.Ordered && !t.gw.unsorted) {
		// The engine may rely on index order (a range heap join's sorted
		// index scan): rows the plan does not deliver in it are sorted.
		sortBy = append(slices.Clone(si.cols), t.primaryIndex().cols...)
	}
	exprs := make([]sql.Expression, len(cols))
	for i, c := range cols {
		col := t.info.schema.Schema[c]
		exprs[i] = expression.NewGetFieldWithTable(c, 0, col.Type, t.db.name, t.Name(), col.Name, col.Nullable)
	}
	filter, err := expression.NewRangeFilterExpr(ctx, exprs, ranges)
	if err == nil {
		filter, err = padComparisons(ctx, filter) // padspace.go
	}
	if err != nil {
		return nil, err
	}
	pr := &planRanges{plan: p, overlay: filter, t: t, where: where, cols: t.proj, noIndex: q.NoIndex, sortBy: sortBy}
	if len(p.Residual) > 0 {
		pr.residual = filter
	}
	return pr, nil
}

// cutsToIR converts one column's interval to IR conjuncts.
func cutsToIR(ctx *sql.Context, col int, ce sql.MySQLRangeColumnExpr) []planner.Expr {
	var out []planner.Expr
	opaque := func() []planner.Expr {
		return []planner.Expr{&planner.Opaque{Text: "range", Cols: []int{col}}}
	}
	switch c := ce.LowerBound.(type) {
	case sql.Below:
		d, ok := valueDatum(ctx, c.Key)
		if !ok {
			return opaque()
		}
		out = append(out, &planner.Cmp{Col: col, Op: planner.Ge, Value: d})
	case sql.Above:
		d, ok := valueDatum(ctx, c.Key)
		if !ok {
			return opaque()
		}
		out = append(out, &planner.Cmp{Col: col, Op: planner.Gt, Value: d})
	case sql.AboveNull:
		out = append(out, &planner.IsNull{Col: col, Not: true})
	case sql.AboveAll:
		return []planner.Expr{&planner.Const{Value: false}}
	}
	switch c := ce.UpperBound.(type) {
	case sql.Above:
		d, ok := valueDatum(ctx, c.Key)
		if !ok {
			return opaque()
		}
		out = append(out, &planner.Cmp{Col: col, Op: planner.Le, Value: d})
	case sql.Below:
		d, ok := valueDatum(ctx, c.Key)
		if !ok {
			return opaque()
		}
		out = append(out, &planner.Cmp{Col: col, Op: planner.Lt, Value: d})
	case sql.AboveNull:
		out = append(out, &planner.IsNull{Col: col})
	case sql.BelowNull:
		return []planner.Expr{&planner.Const{Value: false}}
	}
	if len(out) == 0 {
		out = append(out, &planner.Const{Value: true})
	}
	return out
}

// valueDatum converts an engine value to a planner Datum.
func valueDatum(ctx *sql.Context, v interface{}) (planner.Datum, bool) {
	return exprconv.Literal(ctx, expression.NewLiteral(v, nil))
}
