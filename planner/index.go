package planner

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/sqlgw/sqlgw/storage"
)

// Secondary indexes
//
// A table that implements IndexedTable offers ready secondary indexes. Each
// index's entities are planned as a table of their own (indexView): for a
// global index, PartitionKey = the first index column, RowKey = the other
// index columns, then (non-unique) the base row's PartitionKey and RowKey
// columns; for a local index, PartitionKey = the base PartitionKey, RowKey =
// the index's prefix, the index columns, then (non-unique) the base RowKey
// columns. The base key columns at the end are real key columns: a
// predicate on them narrows the index range too, and the index's order
// (index columns, then base key) is what Plan.Order reports. The index
// columns may be NULL (the builder's nullable columns): a predicate that
// admits NULL does not bound them, and a range unbounded below stays a
// filter or residual too, since NULL sorts first.
//
// The whole index plan is the view's requests (IndexAccess), then, unless
// every needed column is carried by the index entities (covering), one Get
// per hit of the base row, issued in parallel. Paths: IndexLookup when
// every index column is bound by equality, IndexRange otherwise. A local
// index is used only when its queries stay within bound base partitions.
//
// Cost. Without statistics the planner assumes what a user who declares
// an index means: it is selective. An equality on the first column of a
// global index keeps IndexRowsPerValue rows (1 for a one-column unique
// index); an equality on an index column within a partition keeps
// IndexRowsPerValue of the partition's rows. After ANALYZE TABLE,
// Stats.RowsPerValue gives the index's real rows per value instead.
// ORDER BY the index's columns with a LIMIT and no other predicate is the
// whole index read in its order with Top = LIMIT (IndexRange): LIMIT
// entries and LIMIT base gets; the reverse of the index's order is the
// same read backwards where the store can (Query.Reverse, the package
// doc's Order). A table with a
// local index is assumed to have large partitions (LocalIndexRowsPerPartition
// rows each when Stats.Partitions is unknown): that is why one declares a
// local index. Base Gets cost one request and one entity per hit.
// The plan with the lowest Cost.Score wins; ties keep the primary-key plan.
// Below defaultRows rows (Stats.Rows), the choice is made as if the table
// had defaultRows: on a small table a scan is one request, but a table with
// a secondary index is expected to grow, and a plan must not flip from scan
// to index as it does (MySQL likewise prefers ref access on small tables).
// The chosen plan's Cost is still estimated with the real Stats.
//
// Tables without a primary key (keyless). Their rows live in one
// partition under generated RowKeys; their indexes are local to it, and a
// non-unique entity's RowKey (or a unique one's holding a NULL) ends with
// the row's generated RowKey, which the view does not see as a column: an
// equality on every index column is then a key prefix (a range, never a
// Get), and rows equal on the index columns come in that hidden order, so
// an ORDER BY with more columns is not satisfied (builder.openKey,
// openOrder). ORDER BY the index columns with a LIMIT reads the local
// index in its order, as for a global index.
//
// Freshness. Local index entities are written in the base row's batch and
// are always exact. Global ones may lag (see catalog/ixmaint): the executor
// verifies each hit against the base row it fetches (the entity's carried
// values must equal the row's), and a covering plan verifies the entities
// that carry the pending marker; so global index entities are read whole
// (no $select), and the planner may treat the index's keys and filters as
// exact.

// IndexRowsPerValue is the assumed number of rows per value of an index's
// leading column (global) or per value within a partition (local).
const IndexRowsPerValue = 10

// LocalIndexRowsPerPartition is the assumed partition size of a table with
// a local index when Stats.Partitions is unknown.
const LocalIndexRowsPerPartition = 10000

// Index is the planner's view of one ready secondary index.
type Index struct {
	Name string
	// Table is the physical table of the index entities (the base table for
	// a local index).
	Table  string
	Local  bool
	Unique bool
	// Columns are the index columns, in order. Unique means unique among
	// rows whose index columns are all non-NULL: then an entity whose values
	// are all non-NULL has exactly EncodeIndexKey of them as its key.
	Columns []KeyColumn
	// Carried lists the columns whose values every entity carries (index
	// columns and covering columns), under the base row's property names.
	Carried []int
	// LocalPrefix is the RowKey prefix of a local index's entities.
	LocalPrefix string
	// BaseKeys are the bookkeeping properties every index read selects: the
	// base row's keys and the pending marker.
	BaseKeys []string
	// Unsynced: the entries may lag writes made without the gateway (an
	// attached table's index), so no plan on it is covering: every hit's
	// base row is read and verified.
	Unsynced bool
}

// IndexedTable is a Table with secondary indexes; Build considers them when
// its table implements this interface.
type IndexedTable interface {
	Table
	// Indexes lists the ready indexes (never one still being built).
	Indexes() []Index
	// EncodeIndexKey returns the concatenated key components of index ix's
	// columns first, first+1, ..., for vals (a NULL Datum allowed); the same
	// order-preserving, prefix-free contract as EncodeKey.
	EncodeIndexKey(ix, first int, vals []Datum) (string, error)
}

// indexView presents the entities of one index as a table.
type indexView struct {
	base   Table
	it     IndexedTable
	n      int // index ordinal
	ix     Index
	cols   []Column
	part   []KeyColumn
	row    []KeyColumn
	nIdxRK int // index columns in the RowKey
}

func newIndexView(t IndexedTable, n int) *indexView {
	ix := t.Indexes()[n]
	v := &indexView{base: t, it: t, n: n, ix: ix}
	carried := map[int]bool{}
	for _, c := range ix.Carried {
		carried[c] = true
	}
	for _, c := range ix.Columns {
		carried[c.Col] = true
	}
	// A global index's covered values may lag behind a row being written
	// (the reader then takes the row's), so filters on them stay with the
	// engine; index columns are exact wherever the entity's key is.
	indexCol := map[int]bool{}
	for _, c := range ix.Columns {
		indexCol[c.Col] = true
	}
	for i, c := range t.Columns() {
		if !carried[i] || (!ix.Local && !indexCol[i]) {
			c.Prop, c.Pushdown, c.Stored = "", PushNone, []string{}
		}
		v.cols = append(v.cols, c)
	}
	if ix.Local {
		v.part = t.PartitionKeyColumns()
		v.row = slices.Clone(ix.Columns)
		v.nIdxRK = len(ix.Columns)
		if !ix.Unique {
			v.row = append(v.row, t.RowKeyColumns()...)
		}
	} else {
		v.part = ix.Columns[:1]
		v.row = slices.Clone(ix.Columns[1:])
		v.nIdxRK = len(ix.Columns) - 1
		if !ix.Unique {
			v.row = append(v.row, t.PartitionKeyColumns()...)
			v.row = append(v.row, t.RowKeyColumns()...)
		}
	}
	return v
}

func (v *indexView) PhysicalName() string { return v.ix.Table }

// SaltBuckets implements Salted: a local index lives in the base table's
// (salted) partitions; a global one has its own keys.
func (v *indexView) SaltBuckets() int {
	if s, ok := v.base.(Salted); ok && v.ix.Local {
		return s.SaltBuckets()
	}
	return 0
}
func (v *indexView) Salt(pk string) string        { return v.base.(Salted).Salt(pk) }
func (v *indexView) SaltPrefix(bucket int) string { return v.base.(Salted).SaltPrefix(bucket) }

func (v *indexView) Columns() []Column                { return v.cols }
func (v *indexView) PartitionKeyColumns() []KeyColumn { return v.part }
func (v *indexView) RowKeyColumns() []KeyColumn       { return v.row }
func (v *indexView) PrefixEnd(p string) string        { return v.base.PrefixEnd(p) }
func (v *indexView) RowKeyEnd() string                { return "" }
func (v *indexView) SelectAlways() []string           { return v.ix.BaseKeys }
func (v *indexView) PropertyValue(col int, d Datum) (storage.Value, error) {
	return v.base.PropertyValue(col, d)
}

func (v *indexView) EncodeKey(part KeyPart, vals []Datum) (string, error) {
	if part == PartitionKey {
		if v.ix.Local {
			return v.base.EncodeKey(PartitionKey, vals)
		}
		return v.it.EncodeIndexKey(v.n, 0, vals)
	}
	first := 1
	prefix := ""
	if v.ix.Local {
		first, prefix = 0, v.ix.LocalPrefix
	}
	n := min(len(vals), v.nIdxRK)
	s, err := v.it.EncodeIndexKey(v.n, first, vals[:n])
	if err != nil {
		return "", err
	}
	rest := vals[n:]
	if len(rest) == 0 {
		return prefix + s, nil
	}
	var sb strings.Builder
	sb.WriteString(prefix + s)
	if !v.ix.Local {
		np := min(len(rest), len(v.base.PartitionKeyColumns()))
		pk, err := v.base.EncodeKey(PartitionKey, rest[:np])
		if err != nil {
			return "", err
		}
		sb.WriteString(pk)
		rest = rest[np:]
		if len(rest) == 0 {
			return sb.String(), nil
		}
	}
	rk, err := v.base.EncodeKey(RowKey, rest)
	if err != nil {
		return "", err
	}
	sb.WriteString(rk)
	return sb.String(), nil
}

// IndexAccess describes the index part of IndexLookup and IndexRange: the
// index entities are read with Gets (a unique index bound by equality) or
// Queries, on Table (a local index: the base table, in bound partitions);
// then, unless Covering, the base row of every hit is read with one Get
// (storage.GetOptions{Select: Plan.Select}), in parallel, and the hits the
// base rows contradict are dropped (see the package doc, Freshness).
type IndexAccess struct {
	Name     string
	Table    string // physical table holding the index entities
	Local    bool   // index entities live in the base row's partition
	Unique   bool
	Covering bool // every needed column is in the index entity: no base Gets
	// Ordinal is the index's position in IndexedTable.Indexes.
	Ordinal int
	Gets    []Key
	Queries []*storage.Query
	// Select is the projection of the index reads.
	Select []string
	// Hits is the estimated number of index entities read.
	Hits float64
}

// indexPlans returns the cheapest index plan cheaper than best, or nil.
func (b *builder) indexPlan(best *Plan) (*Plan, error) {
	it, ok := b.t.(IndexedTable)
	if !ok {
		return nil, nil
	}
	var out *Plan
	for n, ix := range it.Indexes() {
		if len(ix.Columns) == 0 || (ix.Local && len(b.t.PartitionKeyColumns()) == 0 && !keyless(b.t)) {
			continue
		}
		p, err := b.planIndex(it, n)
		if err != nil {
			return nil, err
		}
		if p == nil {
			continue
		}
		cur := best
		if out != nil {
			cur = out
		}
		if p.Cost.ScoreFor(b.q.Cost) < cur.Cost.ScoreFor(b.q.Cost) {
			out = p
		}
	}
	return out, nil
}

func (b *builder) rowsEstimate() (rows, parts float64) {
	rows = defaultRows
	if st := b.q.Stats; st != nil {
		if st.Rows > 0 {
			rows = st.Rows
		}
		parts = st.Partitions
	}
	return rows, parts
}

func (b *builder) planIndex(it IndexedTable, n int) (*Plan, error) {
	v := newIndexView(it, n)
	ix := v.ix
	rows, parts := b.rowsEstimate()
	q := *b.q
	vb := &builder{t: v, q: &q, cols: v.cols, nullable: map[int]bool{}}
	if keyless(b.t) {
		// The entities' keys end with the base row's generated RowKey
		// (non-unique, or unique with a NULL): see keyless.
		vb.openKey, vb.openOrder = !ix.Unique, true
	}
	baseKey := map[int]bool{}
	for _, k := range b.keys {
		baseKey[k.Col] = true
	}
	for _, c := range ix.Columns {
		if !baseKey[c.Col] {
			vb.nullable[c.Col] = true
		}
	}
	st := Stats{Rows: rows, EntityBytes: b.entityBytes()}
	if b.q.Stats != nil {
		st.Bounds = b.q.Stats.Bounds
	}
	if ix.Local {
		if parts <= 0 {
			parts = math.Max(1, rows/b.localRowsPerPart())
		}
		st.Partitions = parts
		per := float64(IndexRowsPerValue)
		if known, ok := b.rowsPerValue(ix.Name); ok {
			per = known
		}
		vb.eqSel = math.Min(eqSelectivity, per/math.Max(1, rows/parts))
	} else {
		per := float64(IndexRowsPerValue)
		if known, ok := b.rowsPerValue(ix.Name); ok {
			per = known
		}
		if known, ok := b.pointRows(it, n, ix); ok {
			per = known
		}
		if ix.Unique && len(ix.Columns) == 1 {
			per = 1
		}
		st.Partitions = math.Max(1, rows/per)
	}
	q.Stats = &st
	vp, err := vb.build()
	if err != nil {
		return nil, err
	}
	switch vp.Path {
	case PointGet, MultiGet, RowRange:
	case PartitionScan:
		// A local index of a keyless table (one partition) read whole in
		// its order under a LIMIT, as a global one is below (TableScan).
		if ix.Local && !(keyless(b.t) && b.q.Limit > 0 && len(b.q.OrderBy) > 0 && vp.OrderSatisfied && len(vp.Residual) == 0) {
			return nil, nil // no index column bound
		}
	case PartitionRange:
		if ix.Local {
			return nil, nil // a scan across partitions
		}
	case TableScan:
		// ORDER BY the index's columns with a LIMIT: read the global
		// index in its key order, the first Limit entities (Top), and
		// their base rows; nothing else in the index is needed.
		if ix.Local || b.q.Limit <= 0 || len(b.q.OrderBy) == 0 || !vp.OrderSatisfied || len(vp.Residual) > 0 {
			return nil, nil
		}
	default:
		return nil, nil
	}
	// Every index column bound by equality (or a unique index's Gets)?
	path := IndexLookup
	if vp.Path != PointGet && vp.Path != MultiGet {
		for i, c := range ix.Columns {
			k := vb.keys[i]
			if ix.Local {
				k = vb.keys[vb.nPart+i]
			}
			if k.Col != c.Col {
				return nil, fmt.Errorf("planner: index %q view out of order", ix.Name)
			}
			if !vb.consumed[c.Col] || !isPointSet(vb, k) {
				path = IndexRange
				break
			}
		}
	}
	// Columns needed from each row.
	need := b.q.Columns
	if need == nil {
		need = make([]int, len(b.cols))
		for i := range need {
			need[i] = i
		}
	}
	need = slices.Clone(need)
	for _, r := range vp.Residual {
		need = append(need, refs(b.q.Where[r])...)
	}
	slices.Sort(need)
	need = slices.Compact(need)
	carried := map[int]bool{}
	for _, c := range ix.Carried {
		carried[c] = true
	}
	for _, c := range ix.Columns {
		carried[c.Col] = true
	}
	covering := !ix.Unsynced
	for _, c := range need {
		if !carried[c] {
			covering = false
			break
		}
	}
	// Index select: a global index's entities are read whole (the reader
	// compares every carried value with the base row); a local index's
	// need the base keys and, when covering, the needed columns.
	var sel []string
	if ix.Local {
		selCols := []int{}
		if covering {
			selCols = need
		}
		sel = slices.Clone(ix.BaseKeys)
		for _, c := range selCols {
			props, ok := b.cols[c].storedProps()
			if !ok {
				sel = nil
				break
			}
			sel = append(sel, props...)
		}
	}
	for _, q := range vp.Queries {
		q.Select = sel
	}
	// A column both in the index and the base key appears once.
	var order []OrderColumn
	for _, o := range vp.Order {
		if !slices.ContainsFunc(order, func(x OrderColumn) bool { return x.Col == o.Col }) {
			order = append(order, o)
		}
	}
	vp.Order = order
	acc := &IndexAccess{Name: ix.Name, Table: ix.Table, Local: ix.Local, Unique: ix.Unique,
		Covering: covering, Ordinal: n, Gets: vp.Gets, Queries: vp.Queries, Select: sel,
		Hits: vp.Cost.Entities}
	p := &Plan{Path: path, Table: b.t.PhysicalName(), Index: acc, columns: b.cols, where: b.q.Where,
		Limit: vp.Limit, Filter: vp.Filter, Residual: vp.Residual,
		Ordered: vp.Ordered, Order: vp.Order, OrderSatisfied: vp.OrderSatisfied, Reverse: vp.Reverse, Cost: vp.Cost}
	if !covering {
		bsel := []string{}
		for _, c := range need {
			props, ok := b.cols[c].storedProps()
			if !ok {
				bsel = nil
				break
			}
			bsel = append(bsel, props...)
		}
		if bsel != nil {
			bsel = append(bsel, b.t.SelectAlways()...)
			if b.q.Columns == nil {
				bsel = nil
			}
		}
		p.Select = bsel
		hits := vp.Cost.Entities
		if p.Limit > 0 && len(p.Residual) == 0 {
			hits = math.Min(hits, float64(p.Limit))
		}
		p.Cost.Requests += hits
		p.Cost.Entities += hits
		p.Cost.Bytes += hits * b.entityBytes()
	}
	return p, nil
}

// pointRows is the mean number of rows of the values an equality or IN
// binds the leading column of index n to, from Stats.TopValues and
// Stats.RestPerValue; false without them or without such a binding.
func (b *builder) pointRows(it IndexedTable, n int, ix Index) (float64, bool) {
	st := b.q.Stats
	if st == nil || st.TopValues == nil || len(ix.Columns) == 0 {
		return 0, false
	}
	col := ix.Columns[0].Col
	s, ok := b.sets[col]
	if !ok || s.null {
		return 0, false
	}
	pts, ok := s.points(b.cols[col].Kind)
	if !ok {
		return 0, false
	}
	return pointRowsOf(st, it, n, ix, pts)
}

// pointRowsOf is pointRows for the points pts of index n's leading
// column (Template.bindIn has them without a builder).
func pointRowsOf(st *Stats, it IndexedTable, n int, ix Index, pts []Datum) (float64, bool) {
	if st == nil || st.TopValues == nil || len(ix.Columns) == 0 {
		return 0, false
	}
	name := strings.ToLower(ix.Name)
	top, rest := st.TopValues[name], st.RestPerValue[name]
	if top == nil || rest <= 0 || len(pts) == 0 {
		return 0, false
	}
	sum := 0.0
	var one [1]Datum
	for _, v := range pts {
		one[0] = v
		key, err := it.EncodeIndexKey(n, 0, one[:])
		if err != nil {
			return 0, false
		}
		if c, ok := top[key]; ok {
			sum += c
		} else {
			sum += rest
		}
	}
	return math.Max(1, sum/float64(len(pts))), true
}

// rowsPerValue is the analysed number of rows per value of the leading
// column of the named index (Stats.RowsPerValue).
func (b *builder) rowsPerValue(name string) (float64, bool) {
	if b.q.Stats == nil || b.q.Stats.RowsPerValue == nil {
		return 0, false
	}
	v, ok := b.q.Stats.RowsPerValue[strings.ToLower(name)]
	return v, ok && v > 0
}

// keyless reports a table without key columns: a table without a primary
// key, whose rows the catalog stores in one partition under generated
// RowKeys. Its indexes are local (in that partition); their entities'
// RowKeys end with the base row's generated RowKey (non-unique indexes,
// and unique ones on a NULL value), which the planner does not see: the
// index view's key is then open (builder.openKey, openOrder).
func keyless(t Table) bool {
	return len(t.PartitionKeyColumns()) == 0 && len(t.RowKeyColumns()) == 0
}

func isPointSet(vb *builder, k keyCol) bool {
	s := vb.set(k)
	if s.null {
		return false
	}
	_, ok := s.points(k.kind)
	return ok
}

// localRowsPerPart is the partition size assumed when Stats.Partitions is
// unknown: large when the table has a local index.
func (b *builder) localRowsPerPart() float64 {
	if it, ok := b.t.(IndexedTable); ok {
		for _, ix := range it.Indexes() {
			if ix.Local {
				return LocalIndexRowsPerPartition
			}
		}
	}
	return defaultRowsPerPart
}

func (b *builder) hasIndexes() bool {
	it, ok := b.t.(IndexedTable)
	return ok && len(it.Indexes()) > 0
}
