package engine

import (
	"reflect"
	"strconv"
	"sync/atomic"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/encodings"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"

	"github.com/sqlgw/sqlgw/planner"
	"github.com/sqlgw/sqlgw/sqlgw/engine/exprconv"
)

// Bound access paths of cached plans (issue 13)
//
// A cached plan (plancache.go; a SELECT's, or an UPDATE's or DELETE's,
// directwrite.go) used to re-plan its lookup on every execute: the
// parameters' literals put into the conjuncts, LookupForExpressions
// (conversion to the planner's IR, sqlgw's planner, the overlay filter)
// and the pushdown rule's adjustments: 12% of oltp_point_select's CPU and
// a third of select_random_points'. Now the access path itself is cached:
// when the plan is built, its lookup's conjuncts, as LookupForExpressions
// converted them (planRanges.where), become a planner.Template whose
// holes are the parameters' values (planner/bind.go), and each execute
// only converts the bound values to planner Datums and binds them: the
// keys (point Gets, IN-list key sets, range bounds, salted partitions,
// collation keys) are encoded by the planner's own code, and an index
// lookup is re-costed only as far as needed to prove the planner would
// choose it again. One mechanism for reads and writes: cachedPlan.lookup
// is what the direct read (direct.go), the cached plan run through
// go-mysql-server (rebind) and the cached UPDATE/DELETE (rebindWrite)
// take.
//
// The binding must be exactly what LookupForExpressions would return for
// the same literals; where that is not proven the execute re-plans the
// old way (conjuncts and lookupFor), so the answer is never another one:
//   - the literal of each parameter is built as before (paramSlot.
//     literalFor: the binder's ConvertVal, its comparison-type expansion,
//     the plan's literal types), and its Datum is exprconv.Literal's, the
//     conversion LookupForExpressions applies to it;
//   - the template is made only where every literal of the conjuncts is a
//     parameter's, in the same depth-first order in the engine's
//     expressions (after fixComparisons, which rewrites an IN on a collated
//     column into ORs of equalities) as in the IR, checked value by value
//     when the template is made; where no compared column is temporal
//     (exprconv reads date strings and fixComparisons YYYYMMDD numbers
//     against date columns by value); where the lookup has no ORDER BY or
//     pushed LIMIT to re-apply, no residual and the table has a primary
//     key; and, when it is made and on every execute, where the
//     statement's text has no index hints (hints.go reads them from the
//     text, and a text statement's cached shape is shared with its
//     hinted variants);
//   - per execute, the table is planned with or without secondary indexes
//     as when the template was made (a transaction with writes to the
//     table plans without them: planIn), the planner's Bind must accept
//     the values (planner/bind.go: its answer is Build's, or none), the
//     bound plan must leave nothing residual and read at most one row
//     where the cached plan did;
//   - the overlay filter (rows from the transaction's write buffer) is the
//     cached one with the new literals in place of the cached ones;
//   - when the template is made, the plan rebuilt through it for the
//     build's own values must print as the analyzed one, or no template is
//     kept.
//
// SetVerifyBoundPlans (tests) makes every bound execute also re-plan the
// old way and record any difference; TestBoundPlanDifferential runs
// random and edge-case values through it.

// boundLookup is the cached access path of a cached plan.
type boundLookup struct {
	tmpl *planner.Template
	// pos[i] is the position of p.slots[i]'s value among the template's
	// values.
	pos     []int
	noIndex bool
	index   sql.Index
	cols    []int
	// where are the conjuncts the template was first made from (their
	// shape: remake).
	where []planner.Expr
	// overlay is the cached lookup's overlay filter, with the slots'
	// literals.
	overlay sql.Expression
	// misses counts the executes in a row the template declined.
	misses int
}

// remakeAfter is the number of executes in a row a template may decline
// before it is made again from the lookup re-planned for the current
// values and statistics: a template proves an index plan only for the
// statistics and the number of distinct values it was made with (the
// build's values may hold a duplicate, ANALYZE TABLE or the automatic
// statistics refresh may change the statistics since).
const remakeAfter = 3

// boundCounts are the executes whose lookup was bound, and those that fell
// back to re-planning it (process-wide, for tests and benchmarks).
var boundCounts struct{ bound, replanned atomic.Int64 }

// BoundPlanCounts returns how many executes of cached plans bound their
// access path and how many re-planned it.
func BoundPlanCounts() (bound, replanned int64) {
	return boundCounts.bound.Load(), boundCounts.replanned.Load()
}

// searchTable is the table LookupForExpressions is called on.
func (p *cachedPlan) searchTable() (*Table, bool) {
	t, ok := p.ita.TableNode.UnderlyingTable().(*Table)
	return t, ok
}

// prepareBound makes p's bound access path, or leaves it nil (see above).
// p.slots and p.given are set; analyzed is the plan analyzed for bindings,
// which the plan rebuilt through the bound path must print as.
func (p *cachedPlan) prepareBound(ctx *sql.Context, analyzed sql.Node, bindings map[string]*querypb.BindVariable) {
	p.bound = nil
	p.bound = p.makeBound(ctx)
	if p.bound == nil {
		return
	}
	var again sql.Node
	var ok bool
	if p.write != nil {
		again, ok = p.rebindWrite(ctx, bindings)
	} else {
		again, ok = p.rebind(ctx, bindings)
	}
	if !ok || sql.DebugString(ctx, again) != sql.DebugString(ctx, analyzed) {
		p.bound = nil
	}
}

// makeBound returns p's bound access path, or nil.
func (p *cachedPlan) makeBound(ctx *sql.Context) *boundLookup {
	tpl, ok := p.ita.Table.(*Table)
	if !ok || tpl.lookup == nil {
		return nil
	}
	pr, ok := tpl.lookup.Ranges.(*planRanges)
	if !ok || pr.order != nil || pr.plan.Limit > 0 || pr.residual != nil || len(pr.plan.Residual) > 0 || pr.sortBy != nil {
		return nil
	}
	t, ok := p.searchTable()
	if !ok || t.meta().Keyless() || (t.hints != nil && len(t.hints.refs) > 0) || tpl.hints != nil && len(tpl.hints.refs) > 0 {
		return nil
	}
	// Index hints (USE/FORCE/IGNORE INDEX) are read from the statement's
	// text (hints.go), not its parse tree: a statement with any is planned
	// the old way. (They are checked on every execute too: a text
	// statement's cached shape is shared with its hinted variants.)
	if len(hintsOf(ctx.Query())) > 0 {
		return nil
	}
	// The literals of the conjuncts as LookupForExpressions converts them.
	var lits []*expression.Literal
	okExprs := true
	for _, e := range p.given {
		fixed, err := fixComparisons(ctx, e)
		if err != nil {
			return nil
		}
		sql.Inspect(ctx, fixed, func(_ *sql.Context, e sql.Expression) bool {
			switch e := e.(type) {
			case *expression.Literal:
				lits = append(lits, e)
			case *expression.GetField:
				okExprs = okExprs && !types.IsTime(e.Type(ctx)) && !types.IsTimespan(e.Type(ctx)) && !types.IsYear(e.Type(ctx))
			case *expression.Equals, *expression.LessThan, *expression.LessThanOrEqual,
				*expression.GreaterThan, *expression.GreaterThanOrEqual, *expression.InTuple,
				*expression.HashInTuple, expression.Tuple, *expression.And, *expression.Or:
			default:
				okExprs = false
			}
			return okExprs
		})
	}
	if !okExprs {
		return nil
	}
	var vals []planner.Datum
	for _, w := range pr.where {
		if vals, ok = irValues(w, vals); !ok {
			return nil
		}
	}
	if len(vals) != len(lits) || len(lits) != len(p.slots) {
		return nil
	}
	slotOf := make(map[*expression.Literal]int, len(p.slots))
	for i := range p.slots {
		slotOf[p.slots[i].lit] = i
	}
	b := &boundLookup{pos: make([]int, len(p.slots)), noIndex: pr.noIndex, index: tpl.lookup.Index, cols: pr.cols, overlay: pr.overlay, where: pr.where}
	seen := make([]bool, len(p.slots))
	for j, lit := range lits {
		i, ok := slotOf[lit]
		if !ok || seen[i] {
			return nil
		}
		seen[i] = true
		d, ok := exprconv.Literal(ctx, lit)
		if !ok || !reflect.DeepEqual(d, vals[j]) {
			return nil
		}
		b.pos[i] = j
	}
	// The overlay holds each slot's literal (rebound per execute).
	inOverlay := 0
	if b.overlay != nil {
		sql.Inspect(ctx, b.overlay, func(_ *sql.Context, e sql.Expression) bool {
			if l, ok := e.(*expression.Literal); ok {
				if _, ok := slotOf[l]; ok {
					inOverlay++
				}
			}
			return true
		})
	}
	if inOverlay != len(p.slots) {
		return nil
	}
	q := &planner.Query{Where: pr.where, Columns: pr.cols, NoIndex: pr.noIndex,
		Stats: t.gw.plannerStats(t.meta()), Cost: t.gw.store.Capabilities().Cost, Reverse: t.gw.reverse}
	if b.tmpl = planner.Prepare(t.info.pt, q); b.tmpl == nil || b.tmpl.Values() != len(vals) {
		return nil
	}
	return b
}

// irValues appends the values of x (Cmp values and In lists, depth
// first) to vals; false for a node a template does not take.
func irValues(x planner.Expr, vals []planner.Datum) ([]planner.Datum, bool) {
	switch x := x.(type) {
	case *planner.Cmp:
		return append(vals, x.Value), true
	case *planner.In:
		return append(vals, x.Values...), true
	case planner.And:
		for _, y := range x {
			var ok bool
			if vals, ok = irValues(y, vals); !ok {
				return nil, false
			}
		}
		return vals, true
	case planner.Or:
		for _, y := range x {
			var ok bool
			if vals, ok = irValues(y, vals); !ok {
				return nil, false
			}
		}
		return vals, true
	}
	return nil, false
}

// lookup returns the cached plan's lookup for bindings: bound (see above),
// or re-planned; ok false if this execute must take the general path.
func (p *cachedPlan) lookup(ctx *sql.Context, bindings map[string]*querypb.BindVariable) (sql.IndexLookup, bool) {
	if p.bound != nil {
		if lookup, ok := p.bound.lookup(ctx, p, bindings); ok {
			boundCounts.bound.Add(1)
			p.bound.misses = 0
			if verifyBound.Load() {
				p.verify(ctx, bindings, lookup)
			}
			return lookup, true
		}
		boundCounts.replanned.Add(1)
		p.bound.misses++
	}
	exprs, ok := p.conjuncts(ctx, bindings)
	if !ok {
		return sql.IndexLookup{}, false
	}
	lookup, ok := p.lookupFor(ctx, exprs)
	if ok && p.bound != nil && p.bound.misses >= remakeAfter {
		p.bound.remake(p, lookup)
	}
	return lookup, ok
}

// remake makes b's template again from lookup, the lookup re-planned for
// the current values (see remakeAfter), if its conjuncts have the shape
// the template's had (so b.pos still places each parameter's value).
func (b *boundLookup) remake(p *cachedPlan, lookup sql.IndexLookup) {
	b.misses = 0
	pr, ok := lookup.Ranges.(*planRanges)
	t, okT := p.searchTable()
	if !ok || !okT || pr.noIndex != b.noIndex || pr.residual != nil || !sameShape(pr.where, b.where) {
		return
	}
	q := &planner.Query{Where: pr.where, Columns: b.cols, NoIndex: b.noIndex,
		Stats: t.gw.plannerStats(t.meta()), Cost: t.gw.store.Capabilities().Cost, Reverse: t.gw.reverse}
	if tmpl := planner.Prepare(t.info.pt, q); tmpl != nil && tmpl.Values() == b.tmpl.Values() {
		b.tmpl = tmpl
	}
}

// sameShape reports whether two lists of conjuncts are the same but for
// their values: node types, columns, operators, IN list lengths.
func sameShape(a, b []planner.Expr) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameExprShape(a[i], b[i]) {
			return false
		}
	}
	return true
}

func sameExprShape(a, b planner.Expr) bool {
	switch x := a.(type) {
	case *planner.Cmp:
		y, ok := b.(*planner.Cmp)
		return ok && x.Col == y.Col && x.Op == y.Op
	case *planner.In:
		y, ok := b.(*planner.In)
		return ok && x.Col == y.Col && x.Not == y.Not && len(x.Values) == len(y.Values)
	case planner.And:
		y, ok := b.(planner.And)
		return ok && sameShape(x, y)
	case planner.Or:
		y, ok := b.(planner.Or)
		return ok && sameShape(x, y)
	}
	return false
}

// lookup binds bindings into b's template; ok false when not proven.
func (b *boundLookup) lookup(ctx *sql.Context, p *cachedPlan, bindings map[string]*querypb.BindVariable) (sql.IndexLookup, bool) {
	if len(bindings) != p.nparams {
		return sql.IndexLookup{}, false
	}
	t, ok := p.searchTable()
	if !ok || len(hintsOf(ctx.Query())) > 0 {
		return sql.IndexLookup{}, false
	}
	noIndex := false
	if tx := currentTxn(ctx); tx != nil {
		if tt := tx.peek(t.meta().Physical); tt != nil && len(tt.writes) > 0 {
			noIndex = true
		}
	}
	if noIndex != b.noIndex {
		return sql.IndexLookup{}, false
	}
	vals := make([]planner.Datum, len(b.pos))
	var lits []*expression.Literal // the slots' new literals, for the overlay
	if noIndex {
		lits = make([]*expression.Literal, len(p.slots))
	}
	for i := range p.slots {
		sl := &p.slots[i]
		if lits == nil {
			if d, ok := sl.intDatum(bindings[sl.param]); ok {
				vals[b.pos[i]] = d
				continue
			}
		}
		lit, ok := sl.literalFor(ctx, bindings[sl.param], p.ints)
		if !ok {
			return sql.IndexLookup{}, false
		}
		d, ok := exprconv.Literal(ctx, lit)
		if !ok {
			return sql.IndexLookup{}, false
		}
		vals[b.pos[i]] = d
		if lits != nil {
			lits[i] = lit
		}
	}
	plan, where, ok := b.tmpl.Bind(vals, t.gw.plannerStats(t.meta()))
	if !ok || len(plan.Residual) > 0 || p.lookupMax1 && !atMostOneRow(plan) {
		return sql.IndexLookup{}, false
	}
	// The overlay (the conjuncts over the transaction's buffered rows,
	// iter.go's overlayRow) is evaluated only over buffered writes to the
	// table, and the transaction has none (noIndex false: the same
	// condition): it is rebound only when it has. A cached plan is a
	// SELECT, which writes nothing before its rows are read.
	var overlay sql.Expression
	if lits != nil {
		var err error
		overlay, _, err = transform.Expr(ctx, b.overlay, func(_ *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
			if l, ok := e.(*expression.Literal); ok {
				for i := range p.slots {
					if p.slots[i].lit == l {
						return lits[i], transform.NewTree, nil
					}
				}
			}
			return e, transform.SameTree, nil
		})
		if err != nil {
			return sql.IndexLookup{}, false
		}
	}
	return sql.IndexLookup{
		Index:         b.index,
		Ranges:        &planRanges{plan: plan, overlay: overlay, t: t, where: where, cols: b.cols, noIndex: noIndex},
		IsPointLookup: plan.Path == planner.PointGet,
	}, true
}

// verifyBound: every bound lookup is compared with the re-planned one
// (SetVerifyBoundPlans).
var verifyBound atomic.Bool

// boundMismatches are the differences verify found.
var boundMismatches struct {
	n    atomic.Int64
	last atomic.Value // string
}

// verify re-plans the lookup of bindings the old way and records a
// difference from the bound one.
func (p *cachedPlan) verify(ctx *sql.Context, bindings map[string]*querypb.BindVariable, bound sql.IndexLookup) {
	mismatch := func(what string) {
		boundMismatches.n.Add(1)
		boundMismatches.last.Store(what)
	}
	exprs, ok := p.conjuncts(ctx, bindings)
	if !ok {
		mismatch("conjuncts refused")
		return
	}
	old, ok := p.lookupFor(ctx, exprs)
	if !ok {
		mismatch("re-planning refused: " + bound.Ranges.(*planRanges).String())
		return
	}
	bp, op := bound.Ranges.(*planRanges), old.Ranges.(*planRanges)
	switch {
	case !reflect.DeepEqual(bp.plan, op.plan):
		mismatch("plan: bound " + bp.String() + " / planned " + op.String())
	case !reflect.DeepEqual(bp.where, op.where):
		mismatch("where: bound " + bp.String() + " / planned " + op.String())
	case (bp.noIndex || bp.overlay != nil) && sql.DebugString(ctx, bp.overlay) != sql.DebugString(ctx, op.overlay):
		// (Without buffered writes the bound lookup leaves the overlay
		// out: nothing evaluates it.)
		mismatch("overlay: bound " + sql.DebugString(ctx, bp.overlay) + " / planned " + sql.DebugString(ctx, op.overlay))
	case bp.noIndex != op.noIndex || bound.IsPointLookup != old.IsPointLookup || bound.Index.ID() != old.Index.ID():
		mismatch("lookup: bound " + bp.String() + " / planned " + op.String())
	}
}

// intDatum is exprconv.Literal of literalFor's literal for the integer
// bind variable bv (a sysbench parameter), without the literal: rawLiteral
// makes an integer's literal with planbuilder's convertInt, which parses
// the value as an int64 and types it by its width (TINYINT for -128..127,
// TINYINT UNSIGNED for 128..255, SMALLINT, SMALLINT UNSIGNED, INT, INT
// UNSIGNED, BIGINT, negative values signed only); literalFor takes that
// literal as it is for a slot that is not expanded and whose type holds
// int64 values (every such literal type does too); exprconv.Literal
// normalizes a signed value to an int64 Datum and an unsigned one to a
// uint64 Datum. ok is false (the caller builds the literal) for anything
// else: another bind variable type, a value that is no int64 (convertInt
// goes on to uint64 and decimal), an expanded slot, a slot of another
// type. TestIntDatumAsLiteral compares it with the literal's Datum.
func (sl *paramSlot) intDatum(bv *querypb.BindVariable) (planner.Datum, bool) {
	if bv == nil || !sqltypes.IsIntegral(bv.Type) || sl.expanded || !sl.int64 {
		return nil, false
	}
	i64, err := strconv.ParseInt(encodings.BytesToString(bv.Value), 10, 64)
	if err != nil {
		return nil, false
	}
	switch {
	case i64 < 0, i64 < 1<<7:
		return i64, true
	case i64 < 1<<8:
		return uint64(i64), true
	case i64 < 1<<15:
		return i64, true
	case i64 < 1<<16:
		return uint64(i64), true
	case i64 < 1<<31:
		return i64, true
	case i64 < 1<<32:
		return uint64(i64), true
	}
	return i64, true
}
