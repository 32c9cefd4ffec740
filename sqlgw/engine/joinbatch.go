package engine

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	_ "github.com/dolthub/go-mysql-server/sql/variables" // sql.SystemVariables before init below
	"github.com/shopspring/decimal"

	"github.com/sqlgw/sqlgw/planner"
	"github.com/sqlgw/sqlgw/sqlgw/engine/statistics"
	"github.com/sqlgw/sqlgw/storage"
)

// Batched lookup joins
//
// go-mysql-server runs a lookup join (JoinTypeLookup, LeftOuterLookup) by
// building the inner IndexedTableAccess once per outer row: against a store
// that is one sequential round trip (two through a secondary index) per
// outer row. The rule joinBatchRule, run after join planning, wraps every
// such join whose inner side is a sqlgw table in a batchedJoin node. Its
// iterator pulls the outer rows in blocks of up to sqlgw_join_batch rows
// (session variable, default joinBatchDefault; 0 leaves every join to the
// engine), asks the engine's own lookup builder for each outer row's ranges
// (IndexedTableAccess.GetLookup, so key conversion is the engine's),
// deduplicates them, and plans the union of the block's ranges as one read
// (rangesToPlanFor): whole-key equalities become one MultiGet (parallel
// Gets), equalities on a secondary index one IndexLookup/IndexRange (the
// index reads issued in parallel, then one parallel MultiGet of the base
// rows of the whole block). The read runs through the normal row iterator,
// so the transaction's buffered writes are merged and filtered as for any
// read. Each inner row is then given to the outer rows whose own range it
// lies in (bucketed by a hash of the key values, verified with the range's
// filter expression), and the join condition is evaluated per pair exactly
// as the engine's join iterator does: inner join, left outer join with
// NULL-extended rows, outer-row order kept.
//
// Outer rows whose lookup is not a point on every key column (a NULL key,
// a null-safe <=> key) are looked up by the engine's own path, one by one.
// Semi, anti, full outer and every other join type are left to the engine.
//
// Exec indexes: go-mysql-server assigns column indexes after the analyzer
// rules (assignExecIndexes), with a special case for *plan.JoinNode. The
// wrapper therefore keeps the JoinNode as its only child, and the indexes
// the engine assigns to it (join filter, lookup keys, children) are the ones
// the batched iterator evaluates.

const (
	joinBatchRuleID analyzer.RuleId = 10_002
	// joinBatchDefault is the default number of outer rows per block.
	joinBatchDefault = 256
	// joinBatchFirst is the first block of a join under a LIMIT.
	joinBatchFirst = 16
	// joinBatchMax bounds sqlgw_join_batch.
	joinBatchMax = 4096
	// joinBatchVar is the session variable holding the block size.
	joinBatchVar = "sqlgw_join_batch"
)

func init() {
	sql.SystemVariables.AddSystemVariables([]sql.SystemVariable{&sql.MysqlSystemVariable{
		Name:              joinBatchVar,
		Scope:             sql.GetMysqlScope(sql.SystemVariableScope_Both),
		Dynamic:           true,
		SetVarHintApplies: true,
		Type:              types.NewSystemIntType(joinBatchVar, 0, joinBatchMax, false),
		Default:           int64(joinBatchDefault),
	}})
}

// joinBatchSize returns the session's block size (0: batching off).
func joinBatchSize(ctx *sql.Context) int {
	v, err := ctx.GetSessionVariable(ctx, joinBatchVar)
	if err != nil {
		return joinBatchDefault
	}
	n, ok := intValue(v)
	if !ok {
		return joinBatchDefault
	}
	return int(min(max(n, 0), joinBatchMax))
}

// joinBatchRule wraps the batchable lookup joins of n in batchedJoin nodes.
func joinBatchRule(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	size := joinBatchSize(ctx)
	if size == 0 {
		return n, transform.SameTree, nil
	}
	out, changed, err := wrapLookupJoins(ctx, n, size, false)
	if err != nil || !changed {
		return n, transform.SameTree, err
	}
	return out, transform.NewTree, nil
}

// wrapLookupJoins wraps the batchable joins under n. limited reports that
// a LIMIT above n may stop reading early (no sort, grouping or other
// operator that reads everything lies between): such joins start with small
// blocks (joinBatchFirst rows), doubling up to size.
func wrapLookupJoins(ctx *sql.Context, n sql.Node, size int, limited bool) (sql.Node, bool, error) {
	switch n.(type) {
	case *plan.Limit:
		limited = true
	case *plan.Project, *plan.Filter, *plan.TableAlias, *plan.Offset, *plan.JoinNode, *batchedJoin:
	default:
		limited = false
	}
	if b, ok := n.(*batchedJoin); ok {
		// Already wrapped: only its join's children may hold more joins.
		kids := b.join.Children()
		changed := false
		for i, c := range kids {
			nc, ch, err := wrapLookupJoins(ctx, c, size, limited && i == 0)
			if err != nil {
				return nil, false, err
			}
			if ch {
				kids[i], changed = nc, true
			}
		}
		if !changed {
			return n, false, nil
		}
		nj, err := b.join.WithChildren(ctx, kids...)
		if err != nil {
			return nil, false, err
		}
		return b.with(nj.(*plan.JoinNode)), true, nil
	}
	children := n.Children()
	changed := false
	var newKids []sql.Node
	_, isJoin := n.(*plan.JoinNode)
	for i, c := range children {
		nc, ch, err := wrapLookupJoins(ctx, c, size, limited && (!isJoin || i == 0))
		if err != nil {
			return nil, false, err
		}
		if ch {
			if newKids == nil {
				newKids = append([]sql.Node(nil), children...)
			}
			newKids[i], changed = nc, true
		}
	}
	if changed {
		var err error
		if n, err = n.WithChildren(ctx, newKids...); err != nil {
			return nil, false, err
		}
	}
	if j, ok := n.(*plan.JoinNode); ok && batchable(j) {
		first := size
		if limited {
			first = min(size, joinBatchFirst)
		}
		return &batchedJoin{join: j, size: size, first: first, stats: &batchStats{}}, true, nil
	}
	return n, changed, nil
}

// batchable reports whether j is a lookup join (batchableOp) into a sqlgw
// table reached by a MySQLRangeCollection lookup.
func batchable(j *plan.JoinNode) bool {
	if !batchableOp(j.Op) {
		return false
	}
	ita := innerAccess(j.Right())
	if ita == nil || ita.IsStatic() {
		return false
	}
	t, ok := unwrapTable(ita.Table).(*Table)
	return ok && !t.meta().Keyless() && ita.Index() != nil && len(ita.Expressions()) > 0
}

// batchableOp reports the join types a batchedJoin runs: the lookup joins
// (inner, left outer, semi, anti).
func batchableOp(op plan.JoinType) bool {
	switch op {
	case plan.JoinTypeLookup, plan.JoinTypeLeftOuterLookup, plan.JoinTypeSemiLookup,
		plan.JoinTypeAntiLookup, plan.JoinTypeAntiLookupIncludeNulls:
		return true
	}
	return false
}

// innerAccess returns the IndexedTableAccess of a lookup join's inner side
// (under a TableAlias), or nil.
func innerAccess(n sql.Node) *plan.IndexedTableAccess {
	for {
		switch x := n.(type) {
		case *plan.TableAlias:
			n = x.Child
		case *plan.Project:
			n = x.Child
		case *plan.Filter:
			n = x.Child
		case *plan.IndexedTableAccess:
			return x
		default:
			return nil
		}
	}
}

// directAccess reports whether the inner side is the table access itself
// (under a TableAlias at most): its rows are the table's rows.
func directAccess(n sql.Node) bool {
	if ta, ok := n.(*plan.TableAlias); ok {
		n = ta.Child
	}
	_, ok := n.(*plan.IndexedTableAccess)
	return ok
}

// blockRows stands for the inner table access when projections or filters
// lie between it and the join: the engine builds them over it for each outer
// row, and it returns that row's inner rows from the block's read.
type blockRows struct {
	schema sql.Schema
	rows   []sql.Row
}

var _ sql.ExecSourceRel = (*blockRows)(nil)

func (b *blockRows) Resolved() bool                 { return true }
func (b *blockRows) IsReadOnly() bool               { return true }
func (b *blockRows) String() string                 { return "sqlgw block rows" }
func (b *blockRows) Schema(*sql.Context) sql.Schema { return b.schema }
func (b *blockRows) Children() []sql.Node           { return nil }
func (b *blockRows) RowIter(*sql.Context, sql.Row) (sql.RowIter, error) {
	return sql.RowsToRowIter(b.rows...), nil
}
func (b *blockRows) WithChildren(_ *sql.Context, children ...sql.Node) (sql.Node, error) {
	if len(children) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(b, len(children), 0)
	}
	return b, nil
}

// batchStats are a batched join's execution figures (EXPLAIN ANALYZE).
type batchStats struct {
	blocks, outer, lookups, fallback, inner atomic.Int64

	mu    sync.Mutex
	paths map[planner.AccessPath]int // blocks read by each path
}

func (s *batchStats) path(p planner.AccessPath) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.paths == nil {
		s.paths = map[planner.AccessPath]int{}
	}
	s.paths[p]++
}

func (s *batchStats) pathList() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for p, n := range s.paths {
		out = append(out, fmt.Sprintf("%s x%d", p, n))
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// batchedJoin is a lookup join executed in blocks of outer rows.
type batchedJoin struct {
	join  *plan.JoinNode
	size  int // rows per block
	first int // rows of the first block (doubling up to size)
	stats *batchStats
}

var (
	_ sql.Node            = (*batchedJoin)(nil)
	_ sql.ExecBuilderNode = (*batchedJoin)(nil)
	_ sql.Describable     = (*batchedJoin)(nil)
)

func (b *batchedJoin) with(j *plan.JoinNode) *batchedJoin {
	nb := *b
	nb.join = j
	return &nb
}

func (b *batchedJoin) Resolved() bool                     { return b.join.Resolved() }
func (b *batchedJoin) IsReadOnly() bool                   { return b.join.IsReadOnly() }
func (b *batchedJoin) Schema(ctx *sql.Context) sql.Schema { return b.join.Schema(ctx) }
func (b *batchedJoin) Children() []sql.Node               { return []sql.Node{b.join} }

func (b *batchedJoin) WithChildren(ctx *sql.Context, children ...sql.Node) (sql.Node, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(b, len(children), 1)
	}
	j, ok := children[0].(*plan.JoinNode)
	if !ok {
		return nil, fmt.Errorf("sqlgw: batched lookup join over %T", children[0])
	}
	return b.with(j), nil
}

func (b *batchedJoin) String() string {
	return b.Describe(sql.NewEmptyContext(), sql.DescribeOptions{})
}

// Describe implements sql.Describable: the batched lookup and the store
// requests of one block, then the engine's join below it.
func (b *batchedJoin) Describe(ctx *sql.Context, options sql.DescribeOptions) string {
	pr := sql.NewTreePrinter()
	head := "BatchedLookupJoin (sqlgw: " + b.summary()
	if n := b.stats.blocks.Load(); n > 0 {
		head += fmt.Sprintf("; ran %d blocks, %d outer rows, %d distinct lookups, %d per-row lookups, %d inner rows; block reads: %s",
			n, b.stats.outer.Load(), b.stats.lookups.Load(), b.stats.fallback.Load(), b.stats.inner.Load(), b.stats.pathList())
	}
	_ = pr.WriteNode("%s)", head)
	_ = pr.WriteChildren(sql.Describe(ctx, b.join, options))
	return pr.String()
}

// summary describes one block's store requests.
func (b *batchedJoin) summary() string {
	ita := innerAccess(b.join.Right())
	name, index := "?", "PRIMARY"
	if ita != nil {
		name = ita.Name()
		if ix := ita.Index(); ix != nil {
			index = ix.ID()
		}
	}
	blocks := fmt.Sprintf("blocks of %d outer rows", b.size)
	if b.first > 0 && b.first < b.size {
		blocks = fmt.Sprintf("blocks of %d outer rows doubling up to %d (under a LIMIT)", b.first, b.size)
	}
	return fmt.Sprintf("%s; per block, the distinct lookups into %s on %s as one read: "+
		"whole keys one MultiGet (parallel Gets), secondary index keys the index reads in parallel then one MultiGet of the base rows, "+
		"key prefixes their range queries, or one scan when cheaper", blocks, name, index)
}

// BuildRowIter implements sql.ExecBuilderNode.
func (b *batchedJoin) BuildRowIter(ctx *sql.Context, eb sql.NodeExecBuilder, row sql.Row) (sql.RowIter, error) {
	j := b.join
	if !batchable(j) {
		// A later rule rewrote the join (e.g. the inner side of a
		// recursive CTE): the engine runs it.
		return eb.Build(ctx, j, row)
	}
	ita := innerAccess(j.Right())
	t := unwrapTable(ita.Table).(*Table)
	left, err := eb.Build(ctx, j.Left(), row)
	if err != nil {
		return nil, err
	}
	it := &batchIter{
		b: b, eb: eb, j: j, ita: ita, t: t, left: left,
		parent:    row,
		scopeLen:  j.ScopeLen,
		leftLen:   len(j.Left().Schema(ctx)),
		rightLen:  len(j.Right().Schema(ctx)),
		nkeys:     len(ita.Expressions()),
		cols:      t.indexColumns(ita.Index()),
		leftOuter: j.Op.IsLeftOuter(),
		next:      b.size,
	}
	if b.first > 0 {
		it.next = b.first
	}
	if !directAccess(j.Right()) {
		it.rows = &blockRows{schema: ita.Schema(ctx)}
		it.right, _, err = transform.Node(ctx, j.Right(), func(ctx *sql.Context, n sql.Node) (sql.Node, transform.TreeIdentity, error) {
			if n == ita {
				return it.rows, transform.NewTree, nil
			}
			return n, transform.SameTree, nil
		})
		if err != nil {
			left.Close(ctx)
			return nil, err
		}
	}
	return it, nil
}

// batchIter is the iterator of a batchedJoin.
type batchIter struct {
	b        *batchedJoin
	eb       sql.NodeExecBuilder
	j        *plan.JoinNode
	ita      *plan.IndexedTableAccess
	t        *Table
	left     sql.RowIter
	parent   sql.Row
	scopeLen int
	leftLen  int
	rightLen int
	nkeys    int
	cols     []int // full-row ordinals of the index columns

	leftOuter bool
	leftDone  bool
	next      int // rows of the next block

	out  []sql.Row // joined rows of the current block
	outi int

	plans map[string]*planner.Plan // per distinct lookup, across blocks

	// right and rows, when the inner side has projections or filters over
	// the table access: right is the inner side with the access replaced
	// by rows, which holds the current outer row's inner rows.
	right sql.Node
	rows  *blockRows
}

// outerRow is one outer row of a block and its lookup.
type outerRow struct {
	primary sql.Row // parent columns, then the left row
	lookup  int     // index into the block's distinct lookups; -1: none
	perRow  bool    // looked up by the engine's path
	inRange bool
}

// blockLookup is one distinct lookup of a block.
type blockLookup struct {
	key    string
	rng    sql.MySQLRange
	hash   string
	filter sql.Expression // the range's filter on full inner rows, built lazily
	rows   []int          // matching inner rows (indexes into the block's inner rows)
}

func (it *batchIter) Next(ctx *sql.Context) (sql.Row, error) {
	for it.outi >= len(it.out) {
		if it.leftDone {
			return nil, io.EOF
		}
		if err := it.block(ctx); err != nil {
			return nil, err
		}
	}
	r := it.out[it.outi]
	it.out[it.outi] = nil
	it.outi++
	return r, nil
}

func (it *batchIter) Close(ctx *sql.Context) error {
	return it.left.Close(ctx)
}

// block reads the next block of outer rows and joins it.
func (it *batchIter) block(ctx *sql.Context) error {
	it.out, it.outi = it.out[:0], 0
	parentLen := len(it.parent)
	var outer []outerRow
	limit := it.next
	it.next = min(it.next*2, it.b.size)
	for len(outer) < limit {
		if err := ctx.Err(); err != nil {
			return err
		}
		lr, err := it.left.Next(ctx)
		if err == io.EOF {
			it.leftDone = true
			break
		}
		if err != nil {
			return err
		}
		primary := make(sql.Row, parentLen+it.leftLen)
		copy(primary, it.parent)
		copy(primary[parentLen:], lr[len(lr)-it.leftLen:])
		outer = append(outer, outerRow{primary: primary, lookup: -1})
	}
	if len(outer) == 0 {
		return nil
	}
	st := it.b.stats
	st.blocks.Add(1)
	st.outer.Add(int64(len(outer)))

	// Each outer row's lookup, from the engine's lookup builder.
	var lookups []*blockLookup
	byKey := map[string]int{}
	for i := range outer {
		o := &outer[i]
		lookup, inRange, err := it.ita.GetLookup(ctx, o.primary)
		if err != nil {
			return err
		}
		o.inRange = inRange
		if !inRange {
			continue
		}
		ranges, ok := lookup.Ranges.(sql.MySQLRangeCollection)
		if !ok || len(ranges) != 1 {
			o.perRow = true
			continue
		}
		key, hash, ok := it.pointKey(ctx, ranges[0])
		if !ok {
			o.perRow = true
			continue
		}
		n, seen := byKey[key]
		if !seen {
			n = len(lookups)
			byKey[key] = n
			// The builder reuses its range slice: copy it.
			lookups = append(lookups, &blockLookup{rng: ranges[0].Copy(), hash: hash, key: key})
		}
		o.lookup = n
	}
	st.lookups.Add(int64(len(lookups)))

	// One read for the block's distinct lookups: it may return more rows
	// than they match (assign keeps only those in each lookup's range).
	var inner []sql.Row // full rows
	var innerProj []sql.Row
	if len(lookups) > 0 {
		p, err := it.blockPlan(ctx, lookups)
		if err != nil {
			return err
		}
		st.path(p.Path)
		ri, err := it.t.newRowIter(ctx, &readSpec{plan: p})
		if err != nil {
			return err
		}
		ri.keepFull = true
		for {
			row, err := ri.Next(ctx)
			if err == io.EOF {
				break
			}
			if err != nil {
				ri.Close(ctx)
				return err
			}
			inner = append(inner, ri.lastFull)
			innerProj = append(innerProj, row)
		}
		if err := ri.Close(ctx); err != nil {
			return err
		}
		st.inner.Add(int64(len(inner)))
		if err := it.assign(ctx, lookups, inner); err != nil {
			return err
		}
	}

	// Join, in outer-row order.
	fullRow := make(sql.Row, parentLen+it.leftLen+it.rightLen)
	partial := it.j.Op.IsPartial()
	for i := range outer {
		o := &outer[i]
		copy(fullRow, o.primary)
		matched, rejected := false, false
		// visit handles one inner row; false stops the outer row's scan
		// (a semi or anti join has its answer).
		visit := func(right sql.Row) (bool, error) {
			copy(fullRow[parentLen+it.leftLen:], right[len(right)-it.rightLen:])
			var res interface{} = true
			if it.j.Filter != nil {
				var err error
				if res, err = sql.EvaluateCondition(ctx, it.j.Filter, fullRow); err != nil {
					return false, err
				}
			}
			if partial {
				// As go-mysql-server's existsIter.
				if res == nil && it.j.Op.IsExcludeNulls() {
					rejected = it.j.Op.IsAnti()
					return !rejected, nil
				}
				if sql.IsTrue(res) {
					matched = true
					return false, nil
				}
				return true, nil
			}
			if !sql.IsTrue(res) {
				return true, nil
			}
			matched = true
			out := make(sql.Row, it.scopeLen+it.leftLen+it.rightLen)
			copy(out, fullRow[:it.scopeLen])
			copy(out[it.scopeLen:], fullRow[parentLen:])
			it.out = append(it.out, out)
			return true, nil
		}
		switch {
		case o.perRow:
			st.fallback.Add(1)
			ri, err := it.eb.Build(ctx, it.j.Right(), o.primary)
			if err != nil {
				return err
			}
			if err := drainRows(ctx, ri, visit); err != nil {
				return err
			}
		case o.lookup >= 0 && it.right != nil:
			it.rows.rows = it.rows.rows[:0]
			for _, k := range lookups[o.lookup].rows {
				it.rows.rows = append(it.rows.rows, innerProj[k])
			}
			ri, err := it.eb.Build(ctx, it.right, o.primary)
			if err != nil {
				return err
			}
			if err := drainRows(ctx, ri, visit); err != nil {
				return err
			}
		case o.lookup >= 0:
			for _, k := range lookups[o.lookup].rows {
				more, err := visit(innerProj[k])
				if err != nil {
					return err
				}
				if !more {
					break
				}
			}
		}
		switch {
		case partial:
			if (it.j.Op.IsSemi() && matched) || (it.j.Op.IsAnti() && !matched && !rejected) {
				out := make(sql.Row, it.scopeLen+it.leftLen)
				copy(out, fullRow[:it.scopeLen])
				copy(out[it.scopeLen:], o.primary[parentLen:])
				it.out = append(it.out, out)
			}
		case !matched && it.leftOuter:
			out := make(sql.Row, it.scopeLen+it.leftLen+it.rightLen)
			copy(out, fullRow[:it.scopeLen])
			copy(out[it.scopeLen:], o.primary[parentLen:])
			it.out = append(it.out, out)
		}
	}
	return nil
}

// maxCachedPlans bounds the per-lookup plans a batched join keeps.
const maxCachedPlans = 10_000

// blockPlan returns one plan reading (at least) the rows of every lookup of
// a block. Each lookup is planned alone, as the engine's per-row path would
// (cached across blocks), and the plans are merged: point Gets into one
// MultiGet, index reads of one index into one index plan (its reads issued
// in parallel, then one parallel MultiGet of the base rows), key-range
// queries into one list of queries. Where the lookups' requests would cost
// more than a scan of the table (the planner's own comparison), or their
// plans cannot be merged (a scan each: no usable path, or a transaction
// whose buffered writes keep index paths out), the block is one scan.
func (it *batchIter) blockPlan(ctx *sql.Context, lookups []*blockLookup) (*planner.Plan, error) {
	if it.plans == nil {
		it.plans = map[string]*planner.Plan{}
	}
	plans := make([]*planner.Plan, 0, len(lookups))
	for _, l := range lookups {
		p := it.plans[l.key]
		if p == nil {
			var and planner.And
			for i, ce := range l.rng {
				if i < len(it.cols) {
					and = append(and, cutsToIR(ctx, it.cols[i], ce)...)
				}
			}
			var err error
			p, err = it.t.planIn(ctx, &planner.Query{Where: []planner.Expr{and}, Columns: it.t.proj})
			if err != nil {
				return nil, err
			}
			if len(it.plans) < maxCachedPlans {
				it.plans[l.key] = p
			}
		}
		if p.Path != planner.Empty {
			plans = append(plans, p)
		}
	}
	if len(plans) == 0 {
		return &planner.Plan{Path: planner.Empty}, nil
	}
	merged := mergePlans(plans)
	if merged != nil && merged.Path == planner.MultiGet {
		return merged, nil
	}
	if merged != nil {
		// The planner's choice between an index and a scan: a table counts
		// as at least statistics.PlannerDefaultPages pages.
		n, _ := it.t.gw.rowCount(it.t.meta().Physical)
		pages := math.Max(math.Ceil(float64(n)/storage.MaxPageSize), statistics.PlannerDefaultPages)
		if merged.Cost.Requests <= 2*pages {
			return merged, nil
		}
	}
	return it.t.planIn(ctx, &planner.Query{Columns: it.t.proj})
}

// mergePlans merges the plans of a block's lookups into one, or returns
// nil when they are not all point Gets, all index reads of one index, or
// all key-range queries of one table.
func mergePlans(plans []*planner.Plan) *planner.Plan {
	first := plans[0]
	out := *first
	out.Cost = planner.Cost{}
	out.Limit = 0
	out.Residual = nil
	switch first.Path {
	case planner.PointGet, planner.MultiGet:
		seen := map[planner.Key]bool{}
		out.Gets = nil
		for _, p := range plans {
			if p.Path != planner.PointGet && p.Path != planner.MultiGet || p.Table != first.Table {
				return nil
			}
			for _, k := range p.Gets {
				if !seen[k] {
					seen[k] = true
					out.Gets = append(out.Gets, k)
				}
			}
			out.Cost.Requests += p.Cost.Requests
			out.Cost.Entities += p.Cost.Entities
		}
		sort.Slice(out.Gets, func(i, j int) bool {
			return keyLess(entKey{out.Gets[i].PK, out.Gets[i].RK}, entKey{out.Gets[j].PK, out.Gets[j].RK})
		})
		out.Path = planner.MultiGet
		return &out
	case planner.IndexLookup, planner.IndexRange:
		ix := *first.Index
		ix.Gets, ix.Queries, ix.Hits = nil, nil, 0
		for _, p := range plans {
			if p.Index == nil || p.Index.Name != first.Index.Name || p.Index.Covering != first.Index.Covering {
				return nil
			}
			if p.Path == planner.IndexRange {
				out.Path = planner.IndexRange
			}
			// Distinct lookup values can share an index key (values
			// equal under a collation: 'CAFE', 'café'): read it once.
			ix.Gets = appendNewKeys(ix.Gets, p.Index.Gets)
			ix.Queries = appendNewQueries(ix.Queries, p.Index.Queries)
			ix.Hits += p.Index.Hits
			out.Cost.Requests += p.Cost.Requests
			out.Cost.Entities += p.Cost.Entities
		}
		out.Index = &ix
		return &out
	case planner.RowRange, planner.PartitionScan:
		out.Queries = nil
		for _, p := range plans {
			if p.Path != planner.RowRange && p.Path != planner.PartitionScan || p.Table != first.Table {
				return nil
			}
			out.Queries = appendNewQueries(out.Queries, p.Queries)
			out.Cost.Requests += p.Cost.Requests
			out.Cost.Entities += p.Cost.Entities
		}
		return &out
	}
	return nil
}

// appendNewKeys appends the keys of add not in dst.
func appendNewKeys(dst, add []planner.Key) []planner.Key {
	for _, k := range add {
		if !slices.Contains(dst, k) {
			dst = append(dst, k)
		}
	}
	return dst
}

// appendNewQueries appends the queries of add that read something no
// query of dst with the same key ranges, filter and projection reads.
func appendNewQueries(dst, add []*storage.Query) []*storage.Query {
	for _, q := range add {
		if !slices.ContainsFunc(dst, func(d *storage.Query) bool { return sameQuery(d, q) }) {
			dst = append(dst, q)
		}
	}
	return dst
}

func sameQuery(a, b *storage.Query) bool {
	rng := func(r *storage.KeyRange) string {
		if r == nil {
			return "*"
		}
		bound := func(b *storage.Bound) string {
			if b == nil {
				return "-"
			}
			return fmt.Sprintf("%q/%v", b.Key, b.Exclusive)
		}
		return bound(r.Low) + ".." + bound(r.High)
	}
	return rng(a.Partition) == rng(b.Partition) && rng(a.Row) == rng(b.Row) && a.Top == b.Top &&
		fmt.Sprint(a.Filter) == fmt.Sprint(b.Filter) && slices.Equal(a.Select, b.Select)
}

// pointKey returns the dedup key and the hash of a range that is a point
// (a non-NULL value) on each of the lookup's key columns and unbounded on
// the others; ok is false for any other range.
func (it *batchIter) pointKey(ctx *sql.Context, r sql.MySQLRange) (key, hash string, ok bool) {
	if len(r) < it.nkeys || it.nkeys > len(it.cols) {
		return "", "", false
	}
	var kb, hb strings.Builder
	schema := it.t.info.schema.Schema
	for i, ce := range r {
		if i >= it.nkeys {
			if _, below := ce.LowerBound.(sql.BelowNull); !below {
				return "", "", false
			}
			if _, all := ce.UpperBound.(sql.AboveAll); !all {
				return "", "", false
			}
			continue
		}
		lo, isLo := ce.LowerBound.(sql.Below)
		hi, isHi := ce.UpperBound.(sql.Above)
		if !isLo || !isHi || lo.Key == nil || hi.Key == nil {
			return "", "", false
		}
		if ce.Typ != nil {
			if c, err := ce.Typ.Compare(ctx, lo.Key, hi.Key); err != nil || c != 0 {
				return "", "", false
			}
		}
		fmt.Fprintf(&kb, "%T:%v|", lo.Key, lo.Key)
		h, ok := keyHash(ctx, schema[it.cols[i]].Type, lo.Key)
		if !ok {
			h = "?"
		}
		hb.WriteString(h)
		hb.WriteByte('|')
	}
	return kb.String(), hb.String(), true
}

// assign gives every inner row to the lookups whose range it lies in.
func (it *batchIter) assign(ctx *sql.Context, lookups []*blockLookup, inner []sql.Row) error {
	schema := it.t.info.schema.Schema
	buckets := map[string][]int{}
	var wild []int // lookups whose key has no hash: checked against every row
	for i, l := range lookups {
		if strings.Contains(l.hash, "?") {
			wild = append(wild, i)
			continue
		}
		buckets[l.hash] = append(buckets[l.hash], i)
	}
	exprs := make([]sql.Expression, len(it.cols))
	for i, c := range it.cols {
		col := schema[c]
		exprs[i] = expression.NewGetFieldWithTable(c, 0, col.Type, it.t.db.name, it.t.Name(), col.Name, col.Nullable)
	}
	check := func(li, ri int) error {
		l := lookups[li]
		if l.filter == nil {
			f, err := expression.NewRangeFilterExpr(ctx, exprs, []sql.MySQLRange{l.rng})
			if err != nil {
				return err
			}
			l.filter = f
		}
		ok, err := sql.EvaluateCondition(ctx, l.filter, inner[ri])
		if err != nil {
			return err
		}
		if sql.IsTrue(ok) {
			l.rows = append(l.rows, ri)
		}
		return nil
	}
	var hb strings.Builder
	for ri, row := range inner {
		hb.Reset()
		hashed := true
		for i := 0; i < it.nkeys; i++ {
			h, ok := keyHash(ctx, schema[it.cols[i]].Type, row[it.cols[i]])
			if !ok {
				hashed = false
				break
			}
			hb.WriteString(h)
			hb.WriteByte('|')
		}
		if hashed {
			for _, li := range buckets[hb.String()] {
				if err := check(li, ri); err != nil {
					return err
				}
			}
		} else {
			for li := range lookups {
				if !strings.Contains(lookups[li].hash, "?") {
					if err := check(li, ri); err != nil {
						return err
					}
				}
			}
		}
		for _, li := range wild {
			if err := check(li, ri); err != nil {
				return err
			}
		}
	}
	return nil
}

// keyHash returns a hash of v as a value of column type typ such that
// values the type compares equal hash equal (different values may share a
// hash: matches are verified). ok is false when no such hash is known.
func keyHash(ctx *sql.Context, typ sql.Type, v interface{}) (string, bool) {
	if v == nil {
		return "N", true
	}
	cv, _, err := typ.Convert(ctx, v)
	if err != nil || cv == nil {
		return "", false
	}
	switch x := cv.(type) {
	case string:
		x = strings.TrimRight(x, " ")
		if st, ok := typ.(sql.StringType); ok && types.IsTextOnly(st) {
			if c := st.Collation(); c != sql.Collation_binary && !strings.HasSuffix(c.Name(), "_bin") {
				h, err := c.HashToUint(x)
				if err != nil {
					return "", false
				}
				return "c" + strconv.FormatUint(h, 16), true
			}
		}
		return "s" + x, true
	case []byte:
		return "s" + strings.TrimRight(string(x), " \x00"), true
	case int8:
		return numHash(float64(x)), true
	case int16:
		return numHash(float64(x)), true
	case int32:
		return numHash(float64(x)), true
	case int64:
		return numHash(float64(x)), true
	case int:
		return numHash(float64(x)), true
	case uint8:
		return numHash(float64(x)), true
	case uint16:
		return numHash(float64(x)), true
	case uint32:
		return numHash(float64(x)), true
	case uint64:
		return numHash(float64(x)), true
	case float32:
		return numHash(float64(x)), true
	case float64:
		return numHash(x), true
	case decimal.Decimal:
		return numHash(x.InexactFloat64()), true
	case time.Time:
		return "t" + strconv.FormatInt(x.UTC().UnixNano(), 10), true
	}
	return "", false
}

func numHash(f float64) string { return "n" + strconv.FormatFloat(f, 'g', -1, 64) }

// batchedWalk lets EXPLAIN's table rows name the batched lookup: it returns
// the Extra text for the inner table of a batched join.
func batchedExtra(b *batchedJoin) string {
	return "sqlgw: batched lookup join, " + b.summary()
}

// walkBatched reports the table accesses of a batched join to EXPLAIN's
// traditional format: the outer side's, then the inner table's batched
// lookup.
func walkBatched(ctx *sql.Context, b *batchedJoin, f func(table string, row explainRow)) {
	walkAccesses(ctx, b.join.Left(), "", f)
	ita := innerAccess(b.join.Right())
	if ita == nil {
		return
	}
	name := ita.Name()
	if ta, ok := b.join.Right().(*plan.TableAlias); ok {
		name = ta.Name()
	}
	key := "PRIMARY"
	typ := "eq_ref"
	if ix := ita.Index(); ix != nil {
		key = ix.ID()
		if !ix.IsUnique() || len(ita.Expressions()) < len(ix.Expressions()) {
			typ = "ref"
		}
	}
	f(name, explainRow{typ: typ, keys: key, key: key, ref: "func", rows: uint64(1), extra: batchedExtra(b)})
}

// drainRows feeds ri's rows to visit until it returns false or ri ends,
// and closes ri.
func drainRows(ctx *sql.Context, ri sql.RowIter, visit func(sql.Row) (bool, error)) error {
	for {
		r, err := ri.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			ri.Close(ctx)
			return err
		}
		more, err := visit(r)
		if err != nil {
			ri.Close(ctx)
			return err
		}
		if !more {
			break
		}
	}
	return ri.Close(ctx)
}
