package planner

import (
	"reflect"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/sqlgw/sqlgw/storage"
)

// Templates: binding parameters into a prepared plan
//
// A cached statement (sqlgw's plan cache) is planned once; on every
// execute only its parameters' values change. Prepare turns the plan Build
// made for a query into a Template, and Template.Bind returns the plan for
// new values of the query's literals (its "holes": every Cmp value and In
// list value of Where, in depth-first order) without planning the query
// again from scratch. Bind's answer is Build's for the substituted query,
// or ok false (the caller then plans with Build): it never returns another
// plan. Two kinds of template, decided by Prepare:
//
// Key templates (the plan reads no secondary index). Bind substitutes the
// values, rewrites collated literals into the key space (collate.go, with
// the table's collated view made once) and runs the builder's own key
// planning (contradiction, key points and ranges, their encoding, salting,
// filters, order, cost), i.e. Build itself, minus what Prepare proved
// cannot matter for any value: the query's validation (its shape never
// changes) and the secondary indexes. Build tries an index only when the
// key plan is not a PointGet, MultiGet or Empty, and an index yields a plan
// only when a conjunct constrains one of its columns, or under ORDER BY
// with a LIMIT (a whole index read in its order; see planIndex). So a
// query that references no index column, and has no ORDER BY with a LIMIT
// (or a table without indexes, or NoIndex), gets no index plan whatever
// its values, and the key plan is Build's. Duplicate IN values, NULLs,
// values of another kind, out-of-range values (3.5 or 1e30 against an
// integer, -1 against an unsigned column), overlong strings that cannot
// be keys, contradictions: all take the builder's own code.
//
// Index templates (the plan is an IndexLookup on a global index, as
// sysbench's select_random_points: k IN (?, ...) through k_1). Here the
// expensive part of Build is costing the alternatives: the key plan (a
// scan), every index. Prepare accepts only queries whose conjuncts are
// equalities or IN lists (no NOT IN), each on one column, every column
// one of the chosen index's, none a primary-key column and none a column
// of any other index, without LIMIT or ORDER BY; and the statistics the
// costs read must be the template's (row and partition counts, entity
// size, the index's rows per value, and, where ANALYZE TABLE found the
// index's most frequent values, the mean rows of the bound values that
// pointRows derives from them must be the template's). Then the key
// plan is a table scan whose cost does not depend on the values, no other
// index can give a plan (none of its columns is constrained, no LIMIT),
// and the chosen index's cost depends on the values only through the
// number of distinct points per column. Bind runs the builder's
// contradiction check (an Empty plan is Build's answer then, as Build
// checks it first), requires every value to be non-NULL and each column's
// number of distinct points to be the template's, plans the chosen index
// with the builder's planIndex (Build's own call for the winner), and
// requires the result's path, cost and residual to be the template's:
// then every cost Build compares is the template's, so Build chooses the
// same index, and the plan planIndex made is the one it returns. With
// another number of distinct values (a duplicate among them) or other
// most-frequent-value rows, on a table of at least defaultRows rows (no
// small-table rule), the index plan planIndex makes for the values is
// Build's answer when it scores below the plan without the index, whose
// score Prepare kept (it does not depend on the values); otherwise Bind
// declines. Anything else (a value that cannot be encoded, other
// statistics, a NULL) is ok false.
//
// The differential tests (planner/bind_test.go and sqlgw's
// TestBoundPlanDifferential) compare Bind with Build for random and edge
// values.

// Template is a plan prepared for new values of its query's literals.
type Template struct {
	t     Table
	ct    *collatedTable // t's collated view; nil if t has none
	q     Query          // the prepared query (Where holds the prepared values)
	nvals int
	// index is the chosen global index's ordinal (an index template), -1
	// for a key template.
	index     int
	indexName string
	path      AccessPath
	cost      Cost
	// points is the number of distinct points of each constrained column
	// (index templates).
	points map[int]int
	stats  statsKey
	// pointRows is the mean rows per value of the chosen index's
	// leading column from the most frequent values (builder.pointRows),
	// which the index's cost reads: the new values' must be the same.
	pointRows    float64
	hasPointRows bool
	indexDef     Index
	// baseScore, when scored, is the score of the plan without the index
	// (Build with NoIndex), which no value changes (see above): a bound
	// index plan of another cost is Build's answer when it scores below.
	baseScore float64
	scored    bool
	// point, for a key template whose plan is a PointGet from one
	// equality per key column, is that plan, and keyPos the key position
	// of each conjunct's column: Bind encodes the new key into a copy
	// (bindPoint).
	point  *Plan
	keyPos []int
	// indexPlan, for an index template on a one-column index whose plan
	// reads one partition (or gets one key) per value, is that plan: Bind
	// encodes the new values' index keys into a copy (bindIndexKeys).
	indexPlan *Plan
	// inCol, for an index key template whose query is one IN list on the
	// index's column, is that column (Bind binds with bindIn), else -1.
	inCol int
	// variants are index key plans for other numbers of distinct points
	// or other most-frequent-value rows (see Variants below).
	variants atomic.Pointer[map[variantKey]*Plan]
}

// statsKey is what an index template's costs read of the statistics.
type statsKey struct {
	rows, partitions, entityBytes, rowsPerValue float64
}

func statsKeyOf(st *Stats, index string) (statsKey, bool) {
	if st == nil {
		return statsKey{}, true
	}
	k := statsKey{rows: st.Rows, partitions: st.Partitions, entityBytes: st.EntityBytes}
	name := strings.ToLower(index)
	k.rowsPerValue = st.RowsPerValue[name]
	return k, true
}

// Prepare returns the template of query q on table t, or nil when its
// plan cannot be bound without planning (see above). q.Where may hold only
// Cmp, In, And and Or nodes. Prepare plans q with Build (the template's
// plan and costs are those of q's Stats) and does not keep q.
func Prepare(t Table, q *Query) *Template {
	if keyless(t) {
		return nil
	}
	p, err := Build(t, q)
	if err != nil {
		return nil
	}
	n := 0
	for _, w := range q.Where {
		c, ok := holes(w)
		if !ok {
			return nil
		}
		n += c
	}
	tp := &Template{t: t, ct: collatedView(t), q: *q, nvals: n, index: -1, inCol: -1, path: p.Path, cost: p.Cost}
	tp.q.Where = cloneWhere(q.Where)
	tp.q.inexact = nil
	refd := map[int]bool{}
	for _, w := range q.Where {
		for _, c := range refs(w) {
			refd[c] = true
		}
	}
	var ixs []Index
	if it, ok := t.(IndexedTable); ok {
		ixs = it.Indexes()
	}
	if p.Index == nil {
		tp.preparePoint(p)
		if q.NoIndex || len(ixs) == 0 {
			return tp
		}
		if q.Limit > 0 && len(q.OrderBy) > 0 {
			return nil
		}
		for _, ix := range ixs {
			for _, c := range ix.Columns {
				if refd[c.Col] {
					return nil
				}
			}
		}
		return tp
	}
	return tp.prepareIndex(p, ixs, refd)
}

// prepareIndex makes tp an index template (see above), or returns nil.
func (tp *Template) prepareIndex(p *Plan, ixs []Index, refd map[int]bool) *Template {
	q := &tp.q
	if p.Path != IndexLookup || p.Index.Local || q.NoIndex || q.Limit > 0 || len(q.OrderBy) > 0 ||
		p.Index.Ordinal < 0 || p.Index.Ordinal >= len(ixs) || len(p.Residual) > 0 {
		return nil
	}
	tp.index = p.Index.Ordinal
	chosen := ixs[tp.index]
	tp.indexName = chosen.Name
	inIndex := map[int]bool{}
	for _, c := range chosen.Columns {
		inIndex[c.Col] = true
	}
	for _, kc := range append(tp.t.PartitionKeyColumns(), tp.t.RowKeyColumns()...) {
		if refd[kc.Col] {
			return nil
		}
	}
	for c := range refd {
		if !inIndex[c] {
			return nil
		}
	}
	for i, ix := range ixs {
		if i == tp.index {
			continue
		}
		for _, c := range ix.Columns {
			if refd[c.Col] {
				return nil
			}
		}
	}
	seen := map[int]bool{}
	for _, w := range q.Where {
		col, ok := pointsConjunct(w)
		if !ok || seen[col] {
			return nil
		}
		seen[col] = true
	}
	var ok bool
	if tp.stats, ok = statsKeyOf(q.Stats, chosen.Name); !ok {
		return nil
	}
	b, empty := tp.start(q)
	if b == nil || empty {
		return nil
	}
	tp.points = map[int]int{}
	for c := range refd {
		n, ok := b.pointCount(c)
		if !ok {
			return nil
		}
		tp.points[c] = n
	}
	tp.indexDef = chosen
	tp.pointRows, tp.hasPointRows = b.pointRows(b.t.(IndexedTable), tp.index, chosen)
	tp.prepareIndexKeys(p, chosen)
	tp.prepareIn()
	if rows, _ := b.rowsEstimate(); rows >= defaultRows {
		nq := *q
		nq.Where, nq.NoIndex = cloneWhere(q.Where), true
		if bp, err := Build(tp.t, &nq); err == nil && bp.Index == nil {
			tp.baseScore, tp.scored = bp.Cost.ScoreFor(q.Cost), true
		}
	}
	q.Stats = nil // Bind takes the current ones
	return tp
}

// pointsConjunct reports the column of a conjunct that is an equality, an
// IN list (not NOT IN), or an OR of equalities, on one column.
func pointsConjunct(w Expr) (int, bool) {
	switch w := w.(type) {
	case *Cmp:
		return w.Col, w.Op == Eq
	case *In:
		return w.Col, !w.Not
	case Or:
		col := -1
		for _, y := range w {
			c, ok := pointsConjunct(y)
			if !ok || (col >= 0 && c != col) {
				return 0, false
			}
			col = c
		}
		return col, col >= 0
	}
	return 0, false
}

// pointCount is the number of distinct non-NULL points column c may take.
func (b *builder) pointCount(c int) (int, bool) {
	s, ok := b.sets[c]
	if !ok || s.null {
		return 0, false
	}
	pts, ok := s.points(b.cols[c].Kind)
	return len(pts), ok
}

// holes counts the values of x a Template binds; false for a node it
// does not take.
func holes(x Expr) (int, bool) {
	switch x := x.(type) {
	case *Cmp:
		return 1, true
	case *In:
		return len(x.Values), true
	case And:
		return holesList(x)
	case Or:
		return holesList(x)
	}
	return 0, false
}

func holesList(xs []Expr) (int, bool) {
	n := 0
	for _, y := range xs {
		c, ok := holes(y)
		if !ok {
			return 0, false
		}
		n += c
	}
	return n, true
}

// cloneWhere copies conjuncts of Cmp, In, And and Or nodes.
func cloneWhere(where []Expr) []Expr {
	out := make([]Expr, len(where))
	for i, w := range where {
		out[i], _ = substitute(w, nil)
	}
	return out
}

// substitute returns a copy of x with its values taken from vals in
// depth-first order (nil vals: x's own), and the values left.
func substitute(x Expr, vals []Datum) (Expr, []Datum) {
	switch x := x.(type) {
	case *Cmp:
		c := *x
		if vals != nil {
			c.Value, vals = vals[0], vals[1:]
		}
		return &c, vals
	case *In:
		in := *x
		in.Values = make([]Datum, len(x.Values))
		if vals != nil {
			copy(in.Values, vals)
			vals = vals[len(x.Values):]
		} else {
			copy(in.Values, x.Values)
		}
		return &in, vals
	case And:
		out := make(And, len(x))
		for i, y := range x {
			out[i], vals = substitute(y, vals)
		}
		return out, vals
	case Or:
		out := make(Or, len(x))
		for i, y := range x {
			out[i], vals = substitute(y, vals)
		}
		return out, vals
	}
	return x, vals
}

// Values returns the number of values Bind takes.
func (tp *Template) Values() int { return tp.nvals }

// Index reports whether tp is an index template.
func (tp *Template) Index() bool { return tp.index >= 0 }

// start substitutes nothing: it makes the builder of query q (with q's
// values) on the collated view, sets up its keys and runs the
// contradiction check; nil on malformed input.
func (tp *Template) start(q *Query) (b *builder, empty bool) {
	var t Table = tp.t
	if tp.ct != nil {
		t, q = tp.ct, tp.ct.rewrite(q)
	}
	b = &builder{t: t, q: q, cols: t.Columns(), noIndexPlans: tp.index < 0}
	if err := b.setupKeys(); err != nil {
		return nil, false
	}
	return b, b.contradiction()
}

// Bind returns the plan Build makes for the template's query with vals
// (depth-first, see above) as its values and stats as its statistics,
// and the query's conjuncts with vals; ok is false when Bind cannot tell
// (the caller then plans with Build).
func (tp *Template) Bind(vals []Datum, stats *Stats) (p *Plan, where []Expr, ok bool) {
	if len(vals) != tp.nvals {
		return nil, nil, false
	}
	var pb *pointBind
	var ib *inBind
	var q *Query
	if tp.point != nil && len(tp.q.Where) <= len(pb.cmps) {
		// A point template's conjuncts are one equality each
		// (preparePoint): the query and substitute's copies, in the one
		// allocation bindPoint's plan comes from.
		pb = new(pointBind)
		q = &pb.q
	} else if tp.inCol >= 0 && len(vals) <= len(ib.vals) {
		// An IN-list template's one conjunct is its IN list
		// (prepareIn): the query and substitute's copy in one piece.
		ib = new(inBind)
		q = &ib.q
	} else {
		q = new(Query)
	}
	*q = tp.q
	q.Stats = stats
	if pb != nil {
		n := len(tp.q.Where)
		q.Where = pb.where[:n:n]
		for i, w := range tp.q.Where {
			pb.cmps[i] = *w.(*Cmp)
			pb.cmps[i].Value = vals[i]
			q.Where[i] = &pb.cmps[i]
		}
	} else if ib != nil {
		// substitute's copy of the IN list (its values are all of vals:
		// the template's one conjunct holds every hole).
		ib.in = *tp.q.Where[0].(*In)
		ib.in.Values = ib.vals[:len(vals):len(vals)]
		copy(ib.in.Values, vals)
		ib.where[0] = &ib.in
		q.Where = ib.where[:1:1]
	} else {
		q.Where = make([]Expr, len(tp.q.Where))
		rest := vals
		for i, w := range tp.q.Where {
			q.Where[i], rest = substitute(w, rest)
		}
	}
	if tp.point != nil {
		if p, ok := tp.bindPoint(q, pb); ok {
			return p, q.Where, true
		}
	}
	if tp.index < 0 {
		var t Table = tp.t
		cq := q
		if tp.ct != nil {
			t, cq = tp.ct, tp.ct.rewrite(q)
		}
		b := &builder{t: t, q: cq, cols: t.Columns(), noIndexPlans: true}
		p, err := b.build()
		if err != nil {
			return nil, nil, false
		}
		p.where = q.Where
		return p, q.Where, true
	}
	// An index template.
	for _, v := range vals {
		if v == nil {
			return nil, nil, false
		}
	}
	if sk, ok := statsKeyOf(stats, tp.indexName); !ok || sk != tp.stats {
		return nil, nil, false
	}
	if tp.inCol >= 0 && !noBindIn {
		var scratch []Datum
		if ib != nil {
			scratch = ib.conv[:0]
		}
		if p, done := tp.bindInTo(q, scratch); done {
			return p, q.Where, true
		}
	}
	b, empty := tp.start(q)
	if b == nil {
		return nil, nil, false
	}
	if empty {
		p := b.empty(&Plan{Table: b.t.PhysicalName()})
		p.columns, p.where = b.cols, q.Where
		return p, q.Where, true
	}
	same := true
	for c, n := range tp.points {
		m, ok := b.pointCount(c)
		if !ok {
			return nil, nil, false
		}
		same = same && m == n
	}
	it, isIndexed := b.t.(IndexedTable)
	if !isIndexed {
		return nil, nil, false
	}
	if pr, ok := b.pointRows(it, tp.index, tp.indexDef); ok != tp.hasPointRows || pr != tp.pointRows {
		same = false
	}
	if !same {
		// Another number of distinct values, or other most frequent
		// values among them: the index's cost differs from the
		// template's, and Build takes the index plan iff it scores below
		// the plan without it (the only other candidate).
		if !tp.scored {
			return nil, nil, false
		}
		vk, keyed := tp.variantKeyOf(b, it)
		if keyed {
			if vp := tp.variant(vk); vp != nil {
				if p, ok := tp.bindIndexKeys(vp, b, it); ok {
					p.where = q.Where
					return p, q.Where, true
				}
			}
		}
		b.findTuple()
		p, err := b.planIndex(it, tp.index)
		if err != nil || p == nil || len(p.Residual) > 0 || !(p.Cost.ScoreFor(tp.q.Cost) < tp.baseScore) {
			return nil, nil, false
		}
		if keyed && indexKeysShape(p, tp.indexDef, vk.points) {
			tp.keepVariant(vk, p)
		}
		p.where = q.Where
		return p, q.Where, true
	}
	if tp.indexPlan != nil {
		if p, ok := tp.bindIndexKeys(tp.indexPlan, b, it); ok {
			p.where = q.Where
			return p, q.Where, true
		}
	}
	b.findTuple()
	p, err := b.planIndex(it, tp.index)
	if err != nil || p == nil || p.Path != tp.path || p.Cost != tp.cost || len(p.Residual) > 0 {
		return nil, nil, false
	}
	p.where = q.Where
	return p, q.Where, true
}

// Point templates
//
// A key template whose plan is a PointGet, from one equality per key
// column, every conjunct answered by the key, binds without the builder:
// for such a query the builder's only value-dependent steps are the
// contradiction check (each column's allowed set, which columnSets gives
// per conjunct: empty means the Empty plan), the key columns' points (one
// each, when the comparison is exact), their encoding (EncodeKey; an error
// makes the builder use fewer key columns: bindPoint declines) and the
// salt; the projection, order, limit and filters are the template's
// (every key column bound to one value, nothing residual), and the cost is
// one Get, its bytes the statistics' entity size. Anything else (a value
// whose comparison is not exact, a NULL that is not a contradiction, a
// collated comparison the keys do not answer exactly) declines, and Bind
// runs the builder.

// preparePoint makes tp a point template when p qualifies.
func (tp *Template) preparePoint(p *Plan) {
	if p.Path != PointGet || len(p.Residual) > 0 || p.Filter != nil || len(p.Gets) != 1 || len(p.Queries) > 0 {
		return
	}
	keys := append(tp.t.PartitionKeyColumns(), tp.t.RowKeyColumns()...)
	if len(tp.q.Where) != len(keys) {
		return
	}
	pos := make([]int, len(tp.q.Where))
	used := make([]bool, len(keys))
	for i, w := range tp.q.Where {
		c, ok := w.(*Cmp)
		if !ok || c.Op != Eq {
			return
		}
		j := slices.IndexFunc(keys, func(k KeyColumn) bool { return k.Col == c.Col })
		if j < 0 || used[j] {
			return
		}
		used[j], pos[i] = true, j
	}
	tp.point, tp.keyPos = p, pos
}

// pointBind is what Bind allocates for a point template, in one piece:
// the conjuncts with the new values (Bind), the key's values and the
// plan with its one Get (bindPoint). Up to maxPointKey key columns.
type pointBind struct {
	q     Query
	where [maxPointKey]Expr
	cmps  [maxPointKey]Cmp
	vals  [maxPointKey]Datum
	plan  Plan
	gets  [1]Key
}

const maxPointKey = 4

// bindPoint is Bind for a point template (see above), q holding the new
// values; pb, if not nil, is the allocation to use (pointBind).
func (tp *Template) bindPoint(q *Query, pb *pointBind) (*Plan, bool) {
	var t Table = tp.t
	cq := q
	if tp.ct != nil {
		t, cq = tp.ct, tp.ct.rewrite(q)
		if len(cq.inexact) > 0 {
			return nil, false
		}
	}
	cols := t.Columns()
	nPart := len(t.PartitionKeyColumns())
	var vals []Datum
	if pb != nil && len(tp.keyPos) <= len(pb.vals) {
		vals = pb.vals[:len(tp.keyPos):len(tp.keyPos)]
	} else {
		vals = make([]Datum, len(tp.keyPos))
	}
	empty := false
	for i, w := range cq.Where {
		c, ok := w.(*Cmp)
		if !ok {
			return nil, false
		}
		k := cols[c.Col].Kind
		if c.Op == Eq && c.Value != nil {
			// The common case without the value sets: an equality whose
			// value converts exactly is the point {v} (cmpTrue, cmpSet),
			// all of it non-NULL (intersect), one point (points). Any
			// other outcome takes the general steps below.
			if v, res := convert(k, c.Value); res == convExact && compareDatums(k, v, v) == 0 {
				vals[tp.keyPos[i]] = v
				continue
			}
		}
		t, exact := cmpTrue(k, c) // columnSets(c.Col, k, c)'s TRUE set
		if !exact {
			return nil, false // (columnSets: every value, not a point)
		}
		set := intersect(k, nonNull(), t)
		if set.isEmpty() {
			empty = true
			continue
		}
		pts, ok := set.points(k)
		if !ok || len(pts) != 1 {
			return nil, false
		}
		vals[tp.keyPos[i]] = pts[0]
	}
	if empty {
		p := &Plan{Path: Empty, Table: t.PhysicalName(), columns: cols, where: q.Where}
		return p, true
	}
	pk, err := t.EncodeKey(PartitionKey, vals[:nPart])
	if err != nil {
		return nil, false
	}
	rk, err := t.EncodeKey(RowKey, vals[nPart:])
	if err != nil {
		return nil, false
	}
	if st, ok := t.(Salted); ok && st.SaltBuckets() > 1 {
		pk = st.Salt(pk)
	}
	var p *Plan
	if pb != nil {
		pb.plan = *tp.point
		pb.gets[0] = Key{PK: pk, RK: rk}
		p = &pb.plan
		p.Gets = pb.gets[:]
	} else {
		cp := *tp.point
		p = &cp
		p.Gets = []Key{{PK: pk, RK: rk}}
	}
	// Shared with the template, never written in place; clipped, so an
	// append copies (no clone per execute).
	p.Select = slices.Clip(p.Select)
	p.Order = slices.Clip(p.Order)
	p.Residual = nil
	p.where = q.Where
	b := builder{q: q}
	p.Cost.Bytes = p.Cost.Entities * b.entityBytes()
	return p, true
}

// Index key templates
//
// An index template on a one-column global index whose plan reads one
// index partition per value (a non-unique index: one query each, alike
// but for the partition) or gets one entity per value (a unique index)
// binds without planning the index either. Its plan is a function of the
// statistics (which Bind requires to be the template's), the number of
// distinct points (likewise) and the points' encodings: the index view's
// cost, order, filters and projection are what the template's were
// (every value bound by the key, none residual), and only the keys differ:
// EncodeIndexKey of each point, in key order (the builder sorts the
// requests by key; an error, where the builder would use fewer key
// columns, declines).

// prepareIndexKeys makes tp an index key template when p qualifies.
func (tp *Template) prepareIndexKeys(p *Plan, ix Index) {
	if len(tp.points) != 1 {
		return
	}
	n := 0
	for _, c := range tp.points {
		n = c
	}
	if indexKeysShape(p, ix, n) {
		tp.indexPlan = p
	}
}

// indexKeysShape reports whether p, an index plan on the one-column
// global index ix for n distinct points, reads one index partition per
// point (queries alike but for the partition) or gets one entity per
// point (gets alike but for the partition key): then a plan for other
// points of the same number differs from p only in those keys.
func indexKeysShape(p *Plan, ix Index, n int) bool {
	acc := p.Index
	if len(ix.Columns) != 1 || ix.Local || acc == nil || len(p.Residual) > 0 {
		return false
	}
	switch {
	case len(acc.Gets) > 0 && len(acc.Queries) == 0:
		if len(acc.Gets) != n {
			return false
		}
		for _, g := range acc.Gets {
			if g.RK != acc.Gets[0].RK {
				return false
			}
		}
	case len(acc.Queries) > 0 && len(acc.Gets) == 0:
		if len(acc.Queries) != n {
			return false
		}
		q0 := *acc.Queries[0]
		for _, q := range acc.Queries {
			c := *q
			if _, ok := c.Partition.Single(); !ok || c.Reverse {
				return false
			}
			c.Partition = q0.Partition
			if !reflect.DeepEqual(c, q0) {
				return false
			}
		}
	default:
		return false
	}
	return true
}

// Variants of an index key template
//
// Values with a duplicate among them (sysbench's select_random_points
// draws ten values from a skewed distribution: about one statement in
// nine has one), or other most-frequent-value rows, give the index plan
// another cost than the template's, and Bind plans the index again with
// planIndex to compare its score with the scan's. For a given number of
// distinct points and pointRows the index's cost, and so that comparison,
// is the same whatever the values (see Index templates above: nothing
// else of the values reaches the costs), and the plan differs only in
// its keys, as for the template itself. So the first plan planIndex makes
// for such a (points, pointRows) pair that has the index key shape is kept
// as a variant, and the next values with the same pair are bound from it
// by bindIndexKeys, as the template's own values are. At most maxVariants
// are kept (pointRows can take many values when ANALYZE found frequent
// values); a template is shared by the sessions running its cached plan,
// so the variants are a copy-on-write map behind an atomic pointer.

// maxVariants bounds the variants a template keeps.
const maxVariants = 32

// variantKey is what an index key template's plan depends on besides the
// points' keys (see above).
type variantKey struct {
	points    int
	pointRows float64
	hasRows   bool
}

// variantKeyOf is the variant key of b's values, or false when tp is not
// an index key template.
func (tp *Template) variantKeyOf(b *builder, it IndexedTable) (variantKey, bool) {
	if tp.indexPlan == nil || len(tp.points) != 1 {
		return variantKey{}, false
	}
	var vk variantKey
	for c := range tp.points {
		n, ok := b.pointCount(c)
		if !ok {
			return variantKey{}, false
		}
		vk.points = n
	}
	vk.pointRows, vk.hasRows = b.pointRows(it, tp.index, tp.indexDef)
	return vk, true
}

// variant returns the plan kept for vk, or nil.
func (tp *Template) variant(vk variantKey) *Plan {
	if m := tp.variants.Load(); m != nil {
		return (*m)[vk]
	}
	return nil
}

// keepVariant keeps a copy of p (planIndex's plan for values of key vk)
// as vk's variant.
func (tp *Template) keepVariant(vk variantKey, p *Plan) {
	for {
		old := tp.variants.Load()
		n := 0
		if old != nil {
			if _, ok := (*old)[vk]; ok {
				return
			}
			n = len(*old)
		}
		if n >= maxVariants {
			return
		}
		m := make(map[variantKey]*Plan, n+1)
		if old != nil {
			for k, v := range *old {
				m[k] = v
			}
		}
		// A copy: p goes to the caller, which may keep it.
		vp := *p
		acc := *p.Index
		acc.Gets = slices.Clone(acc.Gets)
		if acc.Queries != nil {
			qs := make([]*storage.Query, len(acc.Queries))
			for i, q := range acc.Queries {
				c := *q
				qs[i] = &c
			}
			acc.Queries = qs
		}
		vp.Index, vp.where = &acc, nil
		m[vk] = &vp
		if tp.variants.CompareAndSwap(old, &m) {
			return
		}
	}
}

// bindIndexKeys is Bind for an index key template (see above) from ip,
// its plan or a variant's (see Variants) for as many points as b's; b is
// the builder whose contradiction check ran on the new values.
func (tp *Template) bindIndexKeys(ip *Plan, b *builder, it IndexedTable) (*Plan, bool) {
	var pts []Datum
	for c := range tp.points {
		s := b.sets[c]
		var ok bool
		if pts, ok = s.points(b.cols[c].Kind); !ok {
			return nil, false
		}
	}
	return tp.bindKeys(ip, pts, it)
}

// boundKeys is what bindKeys allocates for one plan, in one allocation
// for up to inlineKeys points (an IN list of ten: sysbench's).
type boundKeys struct {
	p    Plan
	acc  IndexAccess
	keys [inlineKeys]string
	gets [inlineKeys]Key
	qs   [inlineKeys]*storage.Query
	qv   [inlineKeys]storage.Query
	rv   [inlineKeys]storage.KeyRange
	bv   [2 * inlineKeys]storage.Bound
	one  [1]Datum
}

const inlineKeys = 10

// bindKeys is bindIndexKeys for the points pts of the index's column.
func (tp *Template) bindKeys(ip *Plan, pts []Datum, it IndexedTable) (*Plan, bool) {
	var bk *boundKeys
	var keys []string
	if len(pts) <= inlineKeys {
		bk = &boundKeys{}
		keys = bk.keys[:len(pts)]
	} else {
		keys = make([]string, len(pts))
	}
	var one []Datum // EncodeIndexKey's argument (escapes: bk's if any)
	if bk != nil {
		one = bk.one[:]
	} else {
		one = make([]Datum, 1)
	}
	for i, v := range pts {
		one[0] = v
		k, err := it.EncodeIndexKey(tp.index, 0, one)
		if err != nil {
			return nil, false
		}
		keys[i] = k
	}
	slices.SortFunc(keys, storage.CompareKeys)
	var p *Plan
	var acc *IndexAccess
	if bk != nil {
		p, acc = &bk.p, &bk.acc
	} else {
		p, acc = new(Plan), new(IndexAccess)
	}
	*p = *ip
	*acc = *p.Index
	if len(acc.Gets) > 0 {
		var gets []Key
		if bk != nil {
			gets = bk.gets[:len(keys):len(keys)]
		} else {
			gets = make([]Key, len(keys))
		}
		for i, k := range keys {
			gets[i] = Key{PK: k, RK: acc.Gets[0].RK}
		}
		acc.Gets = gets
	} else {
		// The queries, their ranges and bounds: bk's arrays, or three
		// allocations.
		var (
			qs []*storage.Query
			qv []storage.Query
			rv []storage.KeyRange
			bv []storage.Bound
		)
		if bk != nil {
			n := len(keys)
			qs, qv, rv, bv = bk.qs[:n:n], bk.qv[:n:n], bk.rv[:n:n], bk.bv[:2*n:2*n]
		} else {
			qs = make([]*storage.Query, len(keys))
			qv = make([]storage.Query, len(keys))
			rv = make([]storage.KeyRange, len(keys))
			bv = make([]storage.Bound, 2*len(keys))
		}
		for i, k := range keys {
			bv[2*i], bv[2*i+1] = storage.Bound{Key: k}, storage.Bound{Key: k}
			rv[i] = storage.KeyRange{Low: &bv[2*i], High: &bv[2*i+1]} // storage.Exactly(k)
			qv[i] = *acc.Queries[0]
			qv[i].Partition = &rv[i]
			qs[i] = &qv[i]
		}
		acc.Queries = qs
	}
	acc.Select = slices.Clip(acc.Select) // as in bindPoint
	p.Index = acc
	p.Select = slices.Clip(p.Select)
	p.Order = slices.Clip(p.Order)
	return p, true
}

// IN-list templates
//
// The commonest index key template is one IN list on the index's column
// (sysbench's select_random_points: k IN (?, ... ?) through k_1). For it
// Bind's general path makes a builder, lists the key columns, runs the
// contradiction check over every conjunct (a map of column sets) and then
// derives the points from those sets three times (the point count, the
// most-frequent-value rows, the keys). The builder's answer for such a
// query is a function of one set: the IN list's true set on the column
// (columnTrue: its values converted exactly to the column's kind, sorted,
// duplicates removed), which is also the contradiction check's set (the
// column is no key column, so the check starts from every value, NULL
// included, and intersects it with that one set: the same points).
// bindIn computes that set once, with the builder's own functions
// (inValues, fromOwnedPoints, pointRowsOf), and then follows Bind's index
// branch: an empty set is the Empty plan; the template's point count and
// most-frequent-value rows bind the keys into the template's plan; another
// pair binds them into its kept variant. Everything else (a value that
// cannot be compared, no variant yet, a key that cannot be encoded) goes
// back to the general path, which answers as before (and keeps the
// variant). Prepare sets inCol only when the template's query is exactly
// one IN list (not NOT IN) on a constrainable column that the collated
// view, if any, leaves alone, so the general path's builder would see the
// same conjunct and column.

// prepareIn makes tp an IN-list template when its query qualifies (see
// above); tp must already be an index key template.
func (tp *Template) prepareIn() {
	tp.inCol = -1
	if tp.indexPlan == nil || len(tp.q.Where) != 1 || len(tp.points) != 1 {
		return
	}
	in, ok := tp.q.Where[0].(*In)
	if !ok || in.Not {
		return
	}
	if _, ok := tp.points[in.Col]; !ok {
		return
	}
	var t Table = tp.t
	if tp.ct != nil {
		if _, collated := tp.ct.colls[in.Col]; collated {
			return
		}
		t = tp.ct
	}
	cols := t.Columns()
	if in.Col < 0 || in.Col >= len(cols) || !constrainable(cols[in.Col]) {
		return
	}
	if _, ok := t.(IndexedTable); !ok {
		return
	}
	if _, ok := tp.t.(IndexedTable); !ok {
		return
	}
	if len(tp.indexDef.Columns) != 1 || tp.indexDef.Columns[0].Col != in.Col {
		return
	}
	tp.inCol = in.Col
}

// inBind is what Bind allocates for an IN-list template of up to
// inlineKeys values, in one piece: the query and its IN list with the new
// values.
type inBind struct {
	q     Query
	where [1]Expr
	in    In
	vals  [inlineKeys]Datum
	conv  [inlineKeys]Datum // bindIn's converted values
}

// bindIn is Bind for an IN-list template (see above), q holding the new
// values; done false sends Bind to its general path.
func (tp *Template) bindIn(q *Query) (p *Plan, done bool) { return tp.bindInTo(q, nil) }

// bindInTo is bindIn converting the values into scratch's array when it
// has room (nil: a new one).
func (tp *Template) bindInTo(q *Query, scratch []Datum) (p *Plan, done bool) {
	in, ok := q.Where[0].(*In)
	if !ok {
		return nil, false
	}
	var t Table = tp.t
	if tp.ct != nil {
		t = tp.ct
	}
	cols := t.Columns()
	k := cols[tp.inCol].Kind
	vals, _, ok := inValuesTo(scratch, k, in)
	if !ok {
		return nil, false
	}
	set := fromOwnedPoints(k, vals)
	if set.isEmpty() {
		// The contradiction check's answer.
		return &Plan{Path: Empty, Table: t.PhysicalName(), columns: cols, where: q.Where}, true
	}
	pts, ok := set.points(k)
	if !ok {
		return nil, false
	}
	// The index keys from the table itself: the collated view's
	// EncodeIndexKey gives the same keys for a column it leaves alone
	// (collatedTable.keyDatums), after listing the indexes per key.
	it := tp.t.(IndexedTable)
	pr, hasPR := pointRowsOf(q.Stats, it, tp.index, tp.indexDef, pts)
	ip := tp.indexPlan
	if len(pts) != tp.points[tp.inCol] || hasPR != tp.hasPointRows || pr != tp.pointRows {
		if !tp.scored {
			return nil, false
		}
		if ip = tp.variant(variantKey{points: len(pts), pointRows: pr, hasRows: hasPR}); ip == nil {
			return nil, false
		}
	}
	if p, ok = tp.bindKeys(ip, pts, it); !ok {
		return nil, false
	}
	p.where = q.Where
	return p, true
}

// noBindIn turns bindIn off (tests compare it with the general path).
var noBindIn bool
