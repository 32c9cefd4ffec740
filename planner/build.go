package planner

import (
	"cmp"
	"errors"
	"math"
	"slices"
	"time"

	"github.com/sqlgw/sqlgw/storage"
)

// Cost model constants (see the package documentation).
const (
	defaultRows          = 10000
	defaultRowsPerPart   = 100
	eqSelectivity        = 0.1
	rangeSelectivity     = 1.0 / 3
	maxTupleBranchPoints = MaxKeys
)

type builder struct {
	t    Table
	q    *Query
	cols []Column

	keys  []keyCol // partition key columns, then RowKey columns
	nPart int      // number of partition key columns in keys

	sets     map[int]valSet // per constrainable column: values that can satisfy every conjunct
	consumed map[int]bool   // columns whose constraints the key ranges apply exactly

	tuple     *tupleCons // the OR-of-equalities conjunct for the key prefix, if any
	tupleUsed bool       // the access path applies tuple

	// keySel[i] is the estimated fraction of rows one query keeps through
	// key column i's constraint (1: unconstrained), for the cost.
	keySel []float64

	// nullable holds the key columns that may be NULL: the columns of a
	// secondary index (see index.go) that are not primary-key columns. A
	// NULL sorts below every value in their encoding; a key column whose
	// allowed set holds NULL is not used for key ranges, and a range
	// unbounded below is not exact (it would also read the NULLs).
	nullable map[int]bool
	// eqSel, when set, is the selectivity of an equality on a nullable
	// (index) key column.
	eqSel float64
	// openKey: the entities' keys end with a component the planner does
	// not see (the generated RowKey of a table without a primary key, in
	// its non-unique index entities, index.go): binding every key column
	// is a key prefix, not a Get. openOrder: that component also orders
	// entities equal on every key column, so the key columns do not order
	// rows uniquely.
	openKey, openOrder bool
	// noIndexPlans: no secondary index can give a plan for this query
	// (Template.Bind proved it once for every value of its parameters),
	// so they are not tried.
	noIndexPlans bool
}

type keyCol struct {
	KeyColumn
	part KeyPart
	kind Kind
	ok   bool // constrainable
}

// tupleCons is a conjunct that binds the first n key columns to a finite
// set of tuples: (a = 1 AND b = 2) OR (a = 3 AND b = 4).
type tupleCons struct {
	conjunct int
	n        int
	tuples   [][]Datum
	exact    bool
}

// errNoKey reports that a key value could not be encoded; the planner then
// uses fewer key columns.
type errNoKey struct {
	col int
	err error
}

func (e *errNoKey) Error() string { return e.err.Error() }

func (b *builder) build() (*Plan, error) {
	p := &Plan{Table: b.t.PhysicalName(), columns: b.cols, where: b.q.Where, Limit: b.q.Limit}
	if err := b.setupKeys(); err != nil {
		return nil, err
	}
	if b.contradiction() {
		return b.empty(p), nil
	}
	b.findTuple()

	// Plan with every usable key column; when that fans out into several
	// queries, plans using fewer key columns may read a little more in far
	// fewer requests: keep the cheapest.
	best, err := b.planWith(len(b.keys))
	if err != nil {
		return nil, err
	}
	// Partition-point plans keep the partition key bound: the Table
	// service turns anything else into a scan of the table.
	floor := -1
	switch best.Path {
	case RowRange, PartitionScan:
		floor = b.nPart
	case PartitionRange:
		floor = 0
	}
	if floor >= 0 && len(best.Queries) >= 2 {
		for limit := len(b.keys) - 1; limit >= floor; limit-- {
			alt, err := b.planWith(limit)
			if err != nil {
				return nil, err
			}
			if alt.Path != MultiGet && alt.Cost.ScoreFor(b.q.Cost) < best.Cost.ScoreFor(b.q.Cost) {
				best = alt
			}
		}
	}
	// Whole-key equalities stay PointGet and MultiGet (docs/architecture.md);
	// otherwise a secondary index may be cheaper.
	if best.Path != PointGet && best.Path != MultiGet && best.Path != Empty && !b.q.NoIndex && !b.noIndexPlans {
		if rows, _ := b.rowsEstimate(); rows < defaultRows && b.hasIndexes() {
			// Decide as if the table had defaultRows rows (index.go, Cost).
			qd := *b.q
			qd.Stats = &Stats{Rows: defaultRows}
			if b.q.Stats != nil {
				qd.Stats.RowsPerValue = b.q.Stats.RowsPerValue
				qd.Stats.Bounds = b.q.Stats.Bounds
				qd.Stats.TopValues, qd.Stats.RestPerValue = b.q.Stats.TopValues, b.q.Stats.RestPerValue
			}
			dp, err := (&builder{t: b.t, q: &qd, cols: b.cols}).build()
			if err != nil {
				return nil, err
			}
			if dp.Index == nil {
				return best, nil
			}
			// planIndex declines (nil) where the index path it finds
			// under the real statistics is not one it reads (d NOT IN
			// ('2024-01-02') on a small table: a scan of the index):
			// then the base plan stands. Build's result is never nil.
			ip, err := b.planIndex(b.t.(IndexedTable), dp.Index.Ordinal)
			if err != nil || ip == nil {
				return best, err
			}
			return ip, nil
		}
		ip, err := b.indexPlan(best)
		if err != nil {
			return nil, err
		}
		if ip != nil {
			best = ip
		}
	}
	return best, nil
}

// setupKeys lists the table's key columns in b.keys.
func (b *builder) setupKeys() error {
	for _, kc := range b.t.PartitionKeyColumns() {
		b.keys = append(b.keys, b.keyCol(kc, PartitionKey))
	}
	b.nPart = len(b.keys)
	for _, kc := range b.t.RowKeyColumns() {
		b.keys = append(b.keys, b.keyCol(kc, RowKey))
	}
	for _, k := range b.keys {
		if k.Col < 0 || k.Col >= len(b.cols) {
			return errors.New("planner: table key column ordinal out of range")
		}
	}
	return nil
}

// planWith builds the plan that uses at most limit key columns (fewer when
// a key value cannot be encoded).
func (b *builder) planWith(limit int) (*Plan, error) {
	p := &Plan{Table: b.t.PhysicalName(), columns: b.cols, where: b.q.Where, Limit: b.q.Limit}
	for {
		b.consumed, b.tupleUsed = map[int]bool{}, false
		b.keySel = make([]float64, len(b.keys))
		for i := range b.keySel {
			b.keySel[i] = 1
		}
		err := b.access(p, limit)
		var nk *errNoKey
		if errors.As(err, &nk) && nk.col < limit {
			limit = nk.col
			p.Gets, p.Queries = nil, nil
			continue
		}
		if err != nil {
			return nil, err
		}
		break
	}
	if p.Path == Empty {
		return b.empty(p), nil
	}
	b.capRows(p)
	if b.pushFilters(p) {
		return b.empty(p), nil
	}
	b.project(p)
	b.order(p)
	if p.Limit > 0 && len(b.q.OrderBy) > 0 && !p.OrderSatisfied {
		p.Limit = 0 // every row must be read to sort
	}
	if p.Limit > 0 && len(p.Residual) == 0 {
		top := int(min(p.Limit, storage.MaxPageSize))
		for _, q := range p.Queries {
			q.Top = top
		}
	}
	b.cost(p)
	p.Cost.Bytes = p.Cost.Entities * b.entityBytes()
	b.salt(p) // salt.go
	return p, nil
}

// entityBytes is the entity size for Cost.Bytes: the average size, at
// least defaultEntityBytes (a small entity still costs its share of
// per-entity decoding and of the block read).
func (b *builder) entityBytes() float64 {
	if st := b.q.Stats; st != nil && st.EntityBytes > defaultEntityBytes {
		return st.EntityBytes
	}
	return defaultEntityBytes
}

func (b *builder) keyCol(kc KeyColumn, part KeyPart) keyCol {
	k := keyCol{KeyColumn: kc, part: part}
	if kc.Col >= 0 && kc.Col < len(b.cols) {
		k.kind = b.cols[kc.Col].Kind
		k.ok = constrainable(b.cols[kc.Col])
	}
	return k
}

func (b *builder) isKey(col int) bool {
	for _, k := range b.keys {
		if k.Col == col {
			return true
		}
	}
	return false
}

func (b *builder) empty(p *Plan) *Plan {
	*p = Plan{Path: Empty, Table: p.Table, columns: p.columns, where: p.where}
	return p
}

// contradiction computes the per-column value sets and reports whether the
// predicate can never be TRUE.
func (b *builder) contradiction() bool {
	b.sets = map[int]valSet{}
	for _, w := range b.q.Where {
		for _, c := range refs(w) {
			col := b.cols[c]
			if _, done := b.sets[c]; done || !constrainable(col) {
				continue
			}
			s := universe()
			if b.isKey(c) && !b.nullable[c] {
				s = nonNull()
			}
			for _, w2 := range b.q.Where {
				s = intersect(col.Kind, s, columnTrue(c, col.Kind, w2))
			}
			b.sets[c] = s
			if s.isEmpty() {
				return true
			}
		}
		if c, ok := w.(*Const); ok && truth(c.Value) != truthTrue && truth(c.Value) != truthUnknown {
			return true
		}
	}
	return false
}

// set returns the values key column k may take.
func (b *builder) set(k keyCol) valSet {
	if s, ok := b.sets[k.Col]; ok {
		return s
	}
	if b.nullable[k.Col] {
		return universe()
	}
	return nonNull()
}

// findTuple looks for a conjunct that is an OR of equalities binding a
// prefix of two or more key columns.
func (b *builder) findTuple() {
	for i, w := range b.q.Where {
		or, ok := w.(Or)
		if !ok || len(or) == 0 {
			continue
		}
		tc := b.tupleOf(or)
		if tc != nil && tc.n >= 2 && (b.tuple == nil || tc.n > b.tuple.n) {
			tc.conjunct = i
			b.tuple = tc
		}
	}
}

func (b *builder) tupleOf(or Or) *tupleCons {
	n := len(b.keys)
	type branch struct{ pts [][]Datum }
	branches := make([]branch, len(or))
	for i, br := range or {
		for j, k := range b.keys {
			if j >= n {
				break
			}
			if !k.ok {
				n = j
				break
			}
			s := intersect(k.kind, columnSets(k.Col, k.kind, br).t, b.set(k))
			pts, ok := s.points(k.kind)
			if !ok || len(pts) > maxTupleBranchPoints || (s.null && b.nullable[k.Col]) {
				n = j
				break
			}
			branches[i].pts = append(branches[i].pts, pts)
		}
	}
	if n < 2 {
		return nil
	}
	tc := &tupleCons{n: n, exact: true}
	for i, br := range branches {
		prods := [][]Datum{{}}
		for _, pts := range br.pts[:n] {
			prods = cross(prods, pts)
			if len(tc.tuples)+len(prods) > MaxKeys {
				return nil
			}
		}
		tc.tuples = append(tc.tuples, prods...)
		tc.exact = tc.exact && b.branchExact(or[i], n)
	}
	// Deduplicate.
	slices.SortFunc(tc.tuples, b.cmpTuple)
	tc.tuples = slices.CompactFunc(tc.tuples, func(x, y []Datum) bool { return b.cmpTuple(x, y) == 0 })
	return tc
}

// branchExact reports whether an OR branch is exactly a conjunction of
// single-column constraints on the first n key columns.
func (b *builder) branchExact(x Expr, n int) bool {
	for _, y := range flattenAnd(x, nil) {
		r := refs(y)
		if len(r) != 1 {
			return false
		}
		j := slices.IndexFunc(b.keys[:n], func(k keyCol) bool { return k.Col == r[0] })
		if j < 0 || !columnSets(r[0], b.keys[j].kind, y).tExact {
			return false
		}
	}
	return true
}

func (b *builder) cmpTuple(x, y []Datum) int {
	for i := range x {
		if c := compareDatums(b.keys[i].kind, x[i], y[i]); c != 0 {
			return c
		}
	}
	return 0
}

func cross(prefixes [][]Datum, pts []Datum) [][]Datum {
	out := make([][]Datum, 0, len(prefixes)*len(pts))
	for _, p := range prefixes {
		for _, v := range pts {
			out = append(out, append(slices.Clip(p), v))
		}
	}
	return out
}

// access chooses the access path using at most limit key columns and fills
// in the requests.
func (b *builder) access(p *Plan, limit int) error {
	if len(b.keys) == 0 || limit == 0 {
		p.Path = TableScan
		p.Queries = []*storage.Query{{}}
		return b.rowOnly(p, limit)
	}
	// Enumerate the equality prefix.
	prefixes := [][]Datum{{}}
	L := 0
	if b.tuple != nil && b.tuple.n <= limit {
		prefixes = b.tuplesIn()
		if len(prefixes) == 0 {
			p.Path = Empty
			return nil
		}
		L = b.tuple.n
		b.tupleUsed = true
		for i, k := range b.keys[:L] {
			b.consumed[k.Col] = true
			b.keySel[i] = eqSelectivity
		}
	}
	var rng *keyCol
	var spans []span
	for L < limit {
		k := b.keys[L]
		if !k.ok {
			break
		}
		s := b.set(k)
		if s.null && b.nullable[k.Col] {
			break // NULLs are wanted: not a key range
		}
		if pts, ok := s.points(k.kind); ok && len(prefixes)*len(pts) <= MaxKeys {
			prefixes = cross(prefixes, pts)
			b.consumed[k.Col] = true
			b.keySel[L] = math.Min(b.eqSelectivity(k), 1/float64(max(len(pts), 1)))
			L++
			continue
		}
		if s.allNonNull() {
			break
		}
		rng, spans = &b.keys[L], s.spans
		b.consumed[k.Col] = true
		if len(prefixes)*len(spans) > MaxKeys {
			spans = []span{s.hull()}
			b.consumed[k.Col] = false
		}
		b.keySel[L] = b.rangeSelectivity(k, spans)
		if b.nullable[k.Col] && spans[0].lo.inf {
			b.consumed[k.Col] = false // the range also reads the NULLs
		}
		break
	}
	switch {
	case L == len(b.keys) && !b.openKey:
		if len(prefixes) == 1 {
			p.Path = PointGet
		} else {
			p.Path = MultiGet
		}
		for _, vals := range prefixes {
			pk, err := b.encode(PartitionKey, vals[:b.nPart])
			if err != nil {
				return err
			}
			rk, err := b.encode(RowKey, vals[b.nPart:])
			if err != nil {
				return err
			}
			p.Gets = append(p.Gets, Key{PK: pk, RK: rk})
		}
		slices.SortFunc(p.Gets, func(x, y Key) int {
			return cmp.Or(storage.CompareKeys(x.PK, y.PK), storage.CompareKeys(x.RK, y.RK))
		})
		p.Gets = slices.Compact(p.Gets)
		return nil
	case L >= b.nPart:
		p.Path = RowRange
		if L == b.nPart && rng == nil {
			p.Path = PartitionScan
		}
		for _, vals := range prefixes {
			pk, err := b.encode(PartitionKey, vals[:b.nPart])
			if err != nil {
				return err
			}
			rows, err := b.ranges(RowKey, [][]Datum{vals[b.nPart:]}, rng, spans)
			if err != nil {
				return err
			}
			for _, r := range rows {
				if r == nil {
					continue // an empty range
				}
				p.Queries = append(p.Queries, &storage.Query{Partition: storage.Exactly(pk), Row: r.kr})
			}
		}
	case L == 0 && rng == nil:
		p.Path = TableScan
		p.Queries = []*storage.Query{{}}
		if err := b.rowOnly(p, limit); err != nil {
			return err
		}
	default:
		p.Path = PartitionRange
		parts, err := b.ranges(PartitionKey, prefixes, rng, spans)
		if err != nil {
			return err
		}
		for _, r := range parts {
			if r != nil {
				p.Queries = append(p.Queries, &storage.Query{Partition: r.kr})
			}
		}
		if err := b.rowOnly(p, limit); err != nil {
			return err
		}
	}
	if len(p.Queries) == 0 {
		p.Path = Empty
		return nil
	}
	slices.SortStableFunc(p.Queries, func(x, y *storage.Query) int {
		return cmp.Or(cmpLow(x.Partition, y.Partition), cmpLow(x.Row, y.Row))
	})
	return nil
}

// tuplesIn returns the tuple conjunct's tuples that every other conjunct
// allows.
func (b *builder) tuplesIn() [][]Datum {
	var out [][]Datum
next:
	for _, t := range b.tuple.tuples {
		for i, v := range t {
			k := b.keys[i]
			if !containsValue(k.kind, b.set(k), v) {
				continue next
			}
		}
		out = append(out, t)
	}
	return out
}

func containsValue(k Kind, s valSet, v Datum) bool {
	return !intersect(k, s, valSet{spans: []span{point(v)}}).isEmpty()
}

// rowOnly adds to every query of a partition-range or table scan the RowKey
// range that the RowKey columns' own constraints give, when it is a single
// range (Query.Row applies within every partition).
func (b *builder) rowOnly(p *Plan, limit int) error {
	if b.nPart == 0 || b.nPart >= limit || len(p.Queries) == 0 {
		return nil
	}
	var prefix []Datum
	var used []int
	var rng *keyCol
	var spans []span
	sel := map[int]float64{}
	for L := b.nPart; L < limit; L++ {
		k := b.keys[L]
		if !k.ok {
			break
		}
		s := b.set(k)
		if s.null && b.nullable[k.Col] {
			break
		}
		if pts, ok := s.points(k.kind); ok && len(pts) == 1 {
			prefix = append(prefix, pts[0])
			used = append(used, k.Col)
			sel[L] = b.eqSelectivity(k)
			continue
		}
		if !s.allNonNull() && len(s.spans) == 1 {
			rng, spans = &b.keys[L], s.spans
			if !(b.nullable[k.Col] && spans[0].lo.inf) {
				used = append(used, k.Col)
			}
			sel[L] = rangeSelectivity
		}
		break
	}
	if len(used) == 0 {
		return nil
	}
	rows, err := b.ranges(RowKey, [][]Datum{prefix}, rng, spans)
	if err != nil {
		return err
	}
	if len(rows) != 1 {
		return nil
	}
	if rows[0] == nil {
		p.Queries = nil // empty range: nothing to read
		return nil
	}
	for _, q := range p.Queries {
		q.Row = rows[0].kr
	}
	for _, c := range used {
		b.consumed[c] = true
	}
	for i, f := range sel {
		b.keySel[i] = f
	}
	return nil
}

// keyRange is one encoded range; kr nil means unbounded. A nil *keyRange
// in a result list is an empty range.
type keyRange struct{ kr *storage.KeyRange }

func (b *builder) encode(part KeyPart, vals []Datum) (string, error) {
	s, err := b.t.EncodeKey(part, vals)
	if err != nil {
		first := 0
		if part == RowKey {
			first = b.nPart
		}
		return "", &errNoKey{col: first + max(len(vals)-1, 0), err: err}
	}
	return s, nil
}

// ranges returns the key ranges of part for each prefix (values of the
// part's leading columns) and, if rng is set, each span of the next column.
func (b *builder) ranges(part KeyPart, prefixes [][]Datum, rng *keyCol, spans []span) ([]*keyRange, error) {
	whole := len(b.keys) - b.nPart
	if part == PartitionKey {
		whole = b.nPart
	}
	var out []*keyRange
	for _, pre := range prefixes {
		P, err := b.encode(part, pre)
		if err != nil {
			return nil, err
		}
		if rng == nil {
			switch {
			case len(pre) == 0 && P == "":
				out = append(out, &keyRange{})
			case len(pre) == whole && !b.openKey:
				out = append(out, &keyRange{storage.Exactly(P)})
			default:
				out = append(out, &keyRange{b.prefixRange(P)})
			}
			continue
		}
		for _, sp := range spans {
			r, err := b.spanRange(part, pre, P, rng, sp)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
	}
	return out, nil
}

func (b *builder) prefixRange(P string) *storage.KeyRange {
	r := &storage.KeyRange{Low: &storage.Bound{Key: P}}
	if end := b.t.PrefixEnd(P); end != "" {
		r.High = &storage.Bound{Key: end, Exclusive: true}
	}
	return r
}

// spanRange converts one span of the range column (after prefix pre, whose
// encoding is P) to a key range, flipping bounds for a Desc column.
func (b *builder) spanRange(part KeyPart, pre []Datum, P string, k *keyCol, sp span) (*keyRange, error) {
	lo, hi := sp.lo, sp.hi
	if k.Desc {
		lo, hi = hi, lo
	}
	enc := func(v Datum) (string, error) {
		return b.encode(part, append(slices.Clip(pre), v))
	}
	r := &storage.KeyRange{}
	// Low end: keys whose column encodes at or above lo.
	switch {
	case lo.inf:
		if P != "" {
			r.Low = &storage.Bound{Key: P}
		}
	default:
		e, err := enc(lo.val)
		if err != nil {
			return nil, err
		}
		if lo.incl {
			r.Low = &storage.Bound{Key: e}
		} else {
			end := b.t.PrefixEnd(e)
			if end == "" {
				return nil, nil // nothing sorts above
			}
			r.Low = &storage.Bound{Key: end}
		}
	}
	// High end.
	switch {
	case hi.inf:
		if P != "" {
			if end := b.t.PrefixEnd(P); end != "" {
				r.High = &storage.Bound{Key: end, Exclusive: true}
			}
		}
	default:
		e, err := enc(hi.val)
		if err != nil {
			return nil, err
		}
		if hi.incl {
			if end := b.t.PrefixEnd(e); end != "" {
				r.High = &storage.Bound{Key: end, Exclusive: true}
			}
		} else {
			r.High = &storage.Bound{Key: e, Exclusive: true}
		}
	}
	if r.Low == nil && r.High == nil {
		return &keyRange{}, nil
	}
	if r.Low != nil && r.High != nil {
		if c := storage.CompareKeys(r.Low.Key, r.High.Key); c > 0 || (c == 0 && (r.Low.Exclusive || r.High.Exclusive)) {
			return nil, nil // holds no key
		}
	}
	return &keyRange{r}, nil
}

func cmpLow(x, y *storage.KeyRange) int {
	lx, ly := "", ""
	if x != nil && x.Low != nil {
		lx = x.Low.Key
	}
	if y != nil && y.Low != nil {
		ly = y.Low.Key
	}
	return storage.CompareKeys(lx, ly)
}

// capRows keeps every query below Table.RowKeyEnd, away from the entities
// that share partitions with the rows.
func (b *builder) capRows(p *Plan) {
	end := b.t.RowKeyEnd()
	if end == "" {
		return
	}
	for _, q := range p.Queries {
		if q.Row == nil {
			q.Row = &storage.KeyRange{High: &storage.Bound{Key: end, Exclusive: true}}
			continue
		}
		if q.Row.High == nil || storage.CompareKeys(q.Row.High.Key, end) > 0 {
			r := *q.Row
			r.High = &storage.Bound{Key: end, Exclusive: true}
			q.Row = &r
		}
	}
}

// pushFilters decides, conjunct by conjunct, what the key ranges already
// answer, what goes into the store filter and what stays residual. It
// reports a contradiction.
func (b *builder) pushFilters(p *Plan) bool {
	d := &deriver{t: b.t, cols: b.cols, noNot: b.q.NoNot}
	type cand struct {
		i int
		c cond
	}
	var cands []cand
	for i, w := range b.q.Where {
		if b.handledByKeys(i, w) {
			continue
		}
		t := d.derive(w).t
		if t.never {
			return true
		}
		if t.x == nil {
			if !t.exact {
				p.Residual = append(p.Residual, i)
			}
			continue
		}
		cands = append(cands, cand{i, t})
	}
	canFilter := len(p.Queries) > 0
	var pushed []storage.Expr
	n := 0
	residual := map[int]bool{}
	// Exact conjuncts first: they remove work from the engine; then the
	// others, which only save transfer.
	for _, exactPass := range []bool{true, false} {
		for _, c := range cands {
			if c.c.exact != exactPass {
				continue
			}
			k := c.c.comparisons()
			if canFilter && n+k > storage.MaxFilterComparisons {
				// Too many comparisons: push the conjunct's bounds instead,
				// a weaker filter it implies.
				if w, ok := b.weaken(d, b.q.Where[c.i]); ok && n+w.comparisons() <= storage.MaxFilterComparisons {
					c.c, k = w, w.comparisons()
				}
			}
			if !canFilter || n+k > storage.MaxFilterComparisons {
				residual[c.i] = true
				continue
			}
			n += k
			if a, ok := c.c.x.(storage.And); ok {
				pushed = append(pushed, a...)
			} else {
				pushed = append(pushed, c.c.x)
			}
			if !c.c.exact {
				residual[c.i] = true
			}
		}
	}
	for i := range residual {
		p.Residual = append(p.Residual, i)
	}
	slices.Sort(p.Residual)
	switch len(pushed) {
	case 0:
	case 1:
		p.Filter = pushed[0]
	default:
		p.Filter = storage.And(pushed)
	}
	for _, q := range p.Queries {
		q.Filter = p.Filter
	}
	return false
}

// weaken returns a filter implied by a single-column conjunct with at most
// two comparisons: the bounds of the values it allows (x IN (1, ..., 20)
// becomes x ge 1 and x le 20). It is never exact.
func (b *builder) weaken(d *deriver, w Expr) (cond, bool) {
	r := refs(w)
	if len(r) != 1 {
		return cond{}, false
	}
	col := b.cols[r[0]]
	if !constrainable(col) {
		return cond{}, false
	}
	if _, ok := d.prop(r[0], PushOrdered); !ok {
		return cond{}, false
	}
	s := columnSets(r[0], col.Kind, w).t
	if s.null || len(s.spans) == 0 {
		return cond{}, false // TRUE for NULL: bounds would drop those rows
	}
	h := s.hull()
	var parts []cond
	if !h.lo.inf {
		op := Gt
		if h.lo.incl {
			op = Ge
		}
		parts = append(parts, d.derive(&Cmp{Col: r[0], Op: op, Value: h.lo.val}).t)
	}
	if !h.hi.inf {
		op := Lt
		if h.hi.incl {
			op = Le
		}
		parts = append(parts, d.derive(&Cmp{Col: r[0], Op: op, Value: h.hi.val}).t)
	}
	c := andConds(parts)
	if c.x == nil || c.never {
		return cond{}, false
	}
	c.exact = false
	return c, true
}

// handledByKeys reports whether conjunct i is answered exactly by the key
// ranges (or is always true on NOT NULL key columns).
func (b *builder) handledByKeys(i int, w Expr) bool {
	if b.q.inexact[i] {
		return false // a widened collation range (collate.go)
	}
	if b.tuple != nil && b.tuple.conjunct == i {
		if !b.tupleUsed || !b.tuple.exact {
			return false
		}
		for _, k := range b.keys[:b.tuple.n] {
			if !b.consumed[k.Col] {
				return false
			}
		}
		return true
	}
	r := refs(w)
	if len(r) != 1 || !b.isKey(r[0]) || !constrainable(b.cols[r[0]]) {
		return false
	}
	c := r[0]
	s := columnSets(c, b.cols[c].Kind, w)
	if !s.tExact {
		return false
	}
	if b.consumed[c] {
		return true
	}
	if b.nullable[c] {
		return false
	}
	return intersect(b.cols[c].Kind, s.t, nonNull()).allNonNull()
}

// project computes the $select list.
func (b *builder) project(p *Plan) {
	if b.q.Columns == nil {
		return
	}
	need := slices.Clone(b.q.Columns)
	for _, i := range p.Residual {
		need = append(need, refs(b.q.Where[i])...)
	}
	slices.Sort(need)
	need = slices.Compact(need)
	sel := []string{}
	for _, c := range need {
		props, ok := b.cols[c].storedProps()
		if !ok {
			return // the column's properties cannot be named: select all
		}
		sel = append(sel, props...)
	}
	sel = append(sel, b.t.SelectAlways()...)
	if len(sel) == 0 {
		// Nil would select every property; RowKey is always returned anyway.
		sel = []string{storage.PropRowKey}
	}
	p.Select = sel
	for _, q := range p.Queries {
		q.Select = sel
	}
}

// order fills in the order rows arrive in and whether it satisfies ORDER BY.
func (b *builder) order(p *Plan) {
	if len(b.keys) == 0 {
		return
	}
	p.Ordered = true
	for _, k := range b.keys {
		p.Order = append(p.Order, OrderColumn{Col: k.Col, Desc: k.Desc})
	}
	constant := func(col int) bool {
		if s, ok := b.sets[col]; ok && !s.null {
			pts, ok := s.points(b.cols[col].Kind)
			return ok && len(pts) == 1
		}
		return false
	}
	if len(b.q.OrderBy) == 0 {
		return
	}
	satisfies := func(order []OrderColumn) bool {
		j := 0
		for _, o := range b.q.OrderBy {
			if constant(o.Col) {
				continue
			}
			for j < len(order) && constant(order[j].Col) {
				j++
			}
			if j == len(order) {
				if b.openOrder {
					return false // rows equal on the key come in hidden order
				}
				break // the whole key is ordered: rows are unique on it
			}
			if order[j] != o {
				return false
			}
			j++
		}
		return true
	}
	if satisfies(p.Order) {
		p.OrderSatisfied = true
		return
	}
	// The reverse of the key order: Gets listed backwards (any store),
	// or queries read backwards where the store can (Query.Reverse).
	back := make([]OrderColumn, len(p.Order))
	for i, o := range p.Order {
		back[i] = OrderColumn{Col: o.Col, Desc: !o.Desc}
	}
	if !satisfies(back) || (len(p.Queries) > 0 && !b.q.Reverse) {
		return
	}
	slices.Reverse(p.Gets)
	slices.Reverse(p.Queries)
	for _, q := range p.Queries {
		q.Reverse = true
	}
	p.Order, p.Reverse, p.OrderSatisfied = back, true, true
}

// cost estimates requests and entities read.
func (b *builder) cost(p *Plan) {
	rows := float64(defaultRows)
	parts := 0.0
	if st := b.q.Stats; st != nil {
		if st.Rows > 0 {
			rows = st.Rows
		}
		parts = st.Partitions
	}
	if parts <= 0 {
		if len(b.keys) == b.nPart {
			parts = rows
		} else {
			parts = math.Max(1, rows/b.localRowsPerPart())
		}
	}
	if len(p.Gets) > 0 {
		n := float64(len(p.Gets))
		p.Cost = Cost{Requests: n, Entities: n}
		return
	}
	// Top caps what is read only when every entity read is returned.
	limited := p.Limit > 0 && len(p.Residual) == 0 && p.Filter == nil
	for range p.Queries {
		var e float64
		// A RowKey range is contiguous only within one partition; across
		// partitions the store still visits every partition in range.
		switch p.Path {
		case RowRange, PartitionScan:
			e = rows / parts * b.rowSelectivity()
		case PartitionRange:
			e = rows * b.partSelectivity()
		default:
			e = rows
		}
		if limited {
			e = math.Min(e, float64(p.Limit))
		}
		e = math.Ceil(e)
		p.Cost.Entities += e
		p.Cost.Requests += math.Max(1, math.Ceil(e/storage.MaxPageSize))
	}
}

// rangeSelectivity is the fraction of rows the spans of key column k
// keep: the share of the column's analysed [min, max] they cover
// (Stats.Bounds), at least one value's worth, or a fixed third (split
// among several spans) without bounds.
func (b *builder) rangeSelectivity(k keyCol, spans []span) float64 {
	def := math.Min(rangeSelectivity, 1/float64(len(spans)))
	st := b.q.Stats
	if st == nil || st.Bounds == nil {
		return def
	}
	bd, ok := st.Bounds[k.Col]
	if !ok || !(bd[1] >= bd[0]) {
		return def
	}
	width := bd[1] - bd[0]
	integral := k.kind == KindInt || k.kind == KindUint
	if integral {
		width++ // values are whole: [min, max] holds max-min+1 of them
	}
	if width <= 0 {
		return def
	}
	covered := 0.0
	for _, sp := range spans {
		lo, hi := bd[0], bd[1]
		if !sp.lo.inf {
			v, ok := DatumNumber(sp.lo.val)
			if !ok {
				return def
			}
			lo = math.Max(lo, v)
		}
		if !sp.hi.inf {
			v, ok := DatumNumber(sp.hi.val)
			if !ok {
				return def
			}
			hi = math.Min(hi, v)
		}
		if hi < lo {
			continue
		}
		w := hi - lo
		if integral {
			w++
		}
		covered += w
	}
	one := 1 / width // one value (a second for times)
	if k.kind == KindDate {
		one = 86400 / width // one day
	}
	return math.Max(math.Min(covered/width, 1), math.Min(one, 1))
}

// DatumNumber is d as a number for Stats.Bounds and the statistics that
// fill them: integers and floats as themselves, times as Unix seconds.
func DatumNumber(d Datum) (float64, bool) {
	switch v := d.(type) {
	case int64:
		return float64(v), true
	case uint64:
		return float64(v), true
	case float64:
		return v, true
	case time.Time:
		return float64(v.Unix()), true
	}
	return 0, false
}

// eqSelectivity is the fraction of rows an equality on key column k keeps.
func (b *builder) eqSelectivity(k keyCol) float64 {
	if b.eqSel > 0 && b.nullable[k.Col] {
		return b.eqSel
	}
	return eqSelectivity
}

// rowSelectivity is the fraction of a partition the RowKey constraints of
// one query keep.
func (b *builder) rowSelectivity() float64 {
	return product(b.keySel[min(b.nPart, len(b.keys)):])
}

// partSelectivity is the fraction of the table the PartitionKey
// constraints of one query keep.
func (b *builder) partSelectivity() float64 { return product(b.keySel[:b.nPart]) }

func product(fs []float64) float64 {
	p := 1.0
	for _, f := range fs {
		p *= f
	}
	return p
}

// refs returns the sorted column ordinals x reads.
func refs(x Expr) []int {
	var out []int
	var walk func(Expr)
	walk = func(x Expr) {
		switch x := x.(type) {
		case *Cmp:
			out = append(out, x.Col)
		case *In:
			out = append(out, x.Col)
		case *IsNull:
			out = append(out, x.Col)
		case *Prefix:
			out = append(out, x.Col)
		case And:
			for _, y := range x {
				walk(y)
			}
		case Or:
			for _, y := range x {
				walk(y)
			}
		case *Not:
			walk(x.X)
		case *Opaque:
			out = append(out, x.Cols...)
		}
	}
	walk(x)
	slices.Sort(out)
	return slices.Compact(out)
}

// flattenAnd appends the conjuncts of x, through nested Ands, to out.
func flattenAnd(x Expr, out []Expr) []Expr {
	if a, ok := x.(And); ok {
		for _, y := range a {
			out = flattenAnd(y, out)
		}
		return out
	}
	return append(out, x)
}
