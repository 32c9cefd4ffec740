package planner

import (
	"reflect"
	"slices"
	"strings"

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
	tp := &Template{t: t, ct: collatedView(t), q: *q, nvals: n, index: -1, path: p.Path, cost: p.Cost}
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
	q := tp.q
	q.Stats = stats
	q.Where = make([]Expr, len(tp.q.Where))
	rest := vals
	for i, w := range tp.q.Where {
		q.Where[i], rest = substitute(w, rest)
	}
	if tp.point != nil {
		if p, ok := tp.bindPoint(&q); ok {
			return p, q.Where, true
		}
	}
	if tp.index < 0 {
		var t Table = tp.t
		cq := &q
		if tp.ct != nil {
			t, cq = tp.ct, tp.ct.rewrite(&q)
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
	b, empty := tp.start(&q)
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
		b.findTuple()
		p, err := b.planIndex(it, tp.index)
		if err != nil || p == nil || len(p.Residual) > 0 || !(p.Cost.ScoreFor(tp.q.Cost) < tp.baseScore) {
			return nil, nil, false
		}
		p.where = q.Where
		return p, q.Where, true
	}
	if tp.indexPlan != nil {
		if p, ok := tp.bindIndexKeys(b, it); ok {
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

// bindPoint is Bind for a point template (see above), q holding the new
// values.
func (tp *Template) bindPoint(q *Query) (*Plan, bool) {
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
	vals := make([]Datum, len(tp.keyPos))
	empty := false
	for i, w := range cq.Where {
		c, ok := w.(*Cmp)
		if !ok {
			return nil, false
		}
		k := cols[c.Col].Kind
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
	p := *tp.point
	p.Gets = []Key{{PK: pk, RK: rk}}
	// Shared with the template, never written in place; clipped, so an
	// append copies (no clone per execute).
	p.Select = slices.Clip(p.Select)
	p.Order = slices.Clip(p.Order)
	p.Residual = nil
	p.where = q.Where
	b := builder{q: q}
	p.Cost.Bytes = p.Cost.Entities * b.entityBytes()
	return &p, true
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
	acc := p.Index
	if len(ix.Columns) != 1 || ix.Local || len(tp.points) != 1 || acc == nil || len(p.Residual) > 0 {
		return
	}
	n := 0
	for _, c := range tp.points {
		n = c
	}
	switch {
	case len(acc.Gets) > 0 && len(acc.Queries) == 0:
		if len(acc.Gets) != n {
			return
		}
		for _, g := range acc.Gets {
			if g.RK != acc.Gets[0].RK {
				return
			}
		}
	case len(acc.Queries) > 0 && len(acc.Gets) == 0:
		if len(acc.Queries) != n {
			return
		}
		q0 := *acc.Queries[0]
		for _, q := range acc.Queries {
			c := *q
			if _, ok := c.Partition.Single(); !ok || c.Reverse {
				return
			}
			c.Partition = q0.Partition
			if !reflect.DeepEqual(c, q0) {
				return
			}
		}
	default:
		return
	}
	tp.indexPlan = p
}

// bindIndexKeys is Bind for an index key template (see above); b is the
// builder whose contradiction check ran on the new values.
func (tp *Template) bindIndexKeys(b *builder, it IndexedTable) (*Plan, bool) {
	var pts []Datum
	for c := range tp.points {
		s := b.sets[c]
		var ok bool
		if pts, ok = s.points(b.cols[c].Kind); !ok {
			return nil, false
		}
	}
	keys := make([]string, len(pts))
	for i, v := range pts {
		k, err := it.EncodeIndexKey(tp.index, 0, []Datum{v})
		if err != nil {
			return nil, false
		}
		keys[i] = k
	}
	slices.SortFunc(keys, storage.CompareKeys)
	p := *tp.indexPlan
	acc := *p.Index
	if len(acc.Gets) > 0 {
		gets := make([]Key, len(keys))
		for i, k := range keys {
			gets[i] = Key{PK: k, RK: acc.Gets[0].RK}
		}
		acc.Gets = gets
	} else {
		qs := make([]*storage.Query, len(keys))
		for i, k := range keys {
			q := *acc.Queries[0]
			q.Partition = storage.Exactly(k)
			qs[i] = &q
		}
		acc.Queries = qs
	}
	acc.Select = slices.Clip(acc.Select) // as in bindPoint
	p.Index = &acc
	p.Select = slices.Clip(p.Select)
	p.Order = slices.Clip(p.Order)
	return &p, true
}
