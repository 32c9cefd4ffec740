package engine

import (
	"io"
	"slices"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/iters"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/rowexec"
	"github.com/dolthub/go-mysql-server/sql/transform"

	"github.com/sqlgw/sqlgw/sqlgw/engine/compat"
)

// Direct execution of aggregates, sorts and DISTINCT over one lookup
// (issue 13, sysbench's oltp_read_only)
//
// oltp_read_only runs, besides its point selects, four statements over a
// range of 100 keys:
//
//	SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?                        (direct.go)
//	SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN ? AND ?
//	SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c
//	SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c
//
// The last three are cached by the plan cache (plancache.go) but their
// plans hold a GroupBy, a Sort or a Distinct above the table access, which
// direct.go's shape does not take, so every execute went through
// go-mysql-server's executor: the plan rebuilt around the re-planned
// lookup, PrepQueryPlanForExecution (which prints the projections'
// aliases, each through a new empty session), the exec builder, its spans,
// the partition and table iterators and the tracking and committing
// wrappers.
//
// A cached plan made only of the table access and, above it, these
// operators
//
//   - Project of plain columns (a GetField, or an Alias of one);
//   - GroupBy without grouping expressions whose select list holds only
//     SUM, COUNT, MIN, MAX or AVG (not DISTINCT, not windowed) of one
//     column, or COUNT of a literal (COUNT(*));
//   - Sort by plain columns;
//   - Distinct (without DISTINCT ON) and OrderedDistinct;
//   - Limit by a positive constant (not SQL_CALC_FOUND_ROWS);
//
// with at least one GroupBy, Sort or Distinct among them (the others are
// direct.go's simple shape) is executed directly: the lookup re-planned as
// direct.go does, the table's rows read as there (directIter: the
// session's transaction and snapshot, the buffered writes, the commit of
// an autocommit statement on Close), and each operator evaluated by
// go-mysql-server's own code for it, so results, types, collations, NULL
// handling, overflow and warnings are those of the general path by
// construction, not by imitation (the exceptions below, sortRows and
// projectRows, are compared with that code by their tests):
//
//   - Project: rowexec.ProjectRow (what ProjectIter runs), or the row
//     itself or one reused row where that makes the same values
//     (projectRows);
//   - GroupBy: the aggregation's own buffer (sql.Aggregation.NewBuffer,
//     Update per row, Eval at the end, as go-mysql-server's groupByIter):
//     SUM and AVG of an INT or DECIMAL column are sqlgw's exact DECIMAL
//     ones (compat/exact_sum_avg.go, as MySQL types them), of other
//     columns go-mysql-server's DOUBLE ones; MIN and MAX compare with the
//     column type's Compare, so its collation;
//   - Sort: go-mysql-server's sortIter (a stable sort comparing with each
//     column type's Compare, so its collation) or, by string columns,
//     sortRows, the same sort with StringType.Compare's comparison
//     inlined (sortrows.go);
//   - Distinct: compat.DistinctIter (the collations of its child schema);
//     a Sort right above a Distinct by all its columns of byte-ordered
//     collations (utf8mb4_0900_bin, utf8mb4_bin): both at once, the sort
//     keeping the first row of each run of equal rows (sortrows.go);
//   - OrderedDistinct: iters.NewOrderedDistinctIter with its child's
//     schema;
//   - Limit: at most n rows, as LimitIter.
//
// FOUND_ROWS() is the number of rows the statement returned (as
// TrackedRowIter counts them at the top of the plan) and ROW_COUNT() -1.
// Anything else (GROUP BY with keys, HAVING, expressions, TopN, OFFSET,
// joins, subqueries) is not of this shape and runs from the cached plan
// through go-mysql-server, or, outside the cache's shapes, the general
// way, unchanged. Config.NoDirect turns this off with the rest of direct
// execution; TestDirectRangeDifferential compares both ways.

// directOp is one operator above the table access of a directly executed
// plan.
type directOp struct {
	node sql.Node // *plan.Project, GroupBy, Sort, Distinct, OrderedDistinct or Limit
	// exprs are a Project's projections or a GroupBy's aggregations;
	// schema an OrderedDistinct's child schema; limit a Limit's count.
	exprs  []sql.Expression
	schema sql.Schema
	limit  int64
	// fields are a Sort's fields over the pruned columns (pruneColumns);
	// nil: the node's.
	fields sql.SortFields
}

// evalShape returns the direct form of an analyzed plan whose one table
// access is ita and which has the shape described above, or nil.
func evalShape(ctx *sql.Context, root sql.Node, ita *plan.IndexedTableAccess) *directPlan {
	if _, ok := ita.Table.(*Table); !ok {
		return nil
	}
	// The operators from the top down to the table access.
	var chain []sql.Node
	for n := root; n != sql.Node(ita); n = n.Children()[0] {
		switch n.(type) {
		case *plan.Project, *plan.GroupBy, *plan.Sort, *plan.Distinct, *plan.OrderedDistinct, *plan.Limit:
		default:
			return nil
		}
		chain = append(chain, n)
	}
	if len(chain) == 0 {
		return nil // the table access alone: direct.go's simple shape
	}
	d := &directPlan{schema: root.Schema(ctx)}
	width := len(ita.Schema(ctx))
	evaluates := false
	// The row iterator decodes the table's columns the operators read,
	// alone (rowdecode.go): those of a Project right above the table
	// access, which is then not evaluated (its plain columns are the
	// decoded row), or else the table's projected schema.
	t := ita.Table.(*Table)
	bottom := len(chain) - 1
	if p, ok := chain[bottom].(*plan.Project); ok && bottom > 0 && plainColumns(p.Projections, width) {
		for _, e := range p.Projections {
			c := fieldIndex(e)
			if t.proj != nil {
				c = t.proj[c]
			}
			d.cols = append(d.cols, c)
		}
		width = len(p.Projections)
		bottom--
	} else if t.proj != nil {
		d.cols = t.proj
	} else {
		d.cols = ordinals(len(t.meta().Columns))
	}
	for i := bottom; i >= 0; i-- {
		op := directOp{node: chain[i]}
		switch c := chain[i].(type) {
		case *plan.Project:
			if !plainColumns(c.Projections, width) {
				return nil
			}
			op.exprs = c.Projections
			width = len(c.Projections)
		case *plan.GroupBy:
			if len(c.GroupByExprs) > 0 || len(c.SelectDeps) == 0 {
				return nil
			}
			for _, e := range c.SelectDeps {
				if !plainAggregation(e, width) {
					return nil
				}
			}
			op.exprs = c.SelectDeps
			width = len(c.SelectDeps)
			evaluates = true
		case *plan.Sort:
			for _, f := range c.SortFields {
				if !columnOf(f.Column, width) {
					return nil
				}
			}
			evaluates, d.keep = true, true
		case *plan.Distinct:
			if len(c.DistinctOn()) > 0 {
				return nil
			}
			evaluates, d.keep = true, true
		case *plan.OrderedDistinct:
			op.schema = c.Child.Schema(ctx)
			evaluates, d.keep = true, true
		case *plan.Limit:
			lit, isLit := c.Limit.(*expression.Literal)
			if !isLit || c.CalcFoundRows {
				return nil
			}
			v, isInt := lit.Value().(int64)
			if !isInt || v <= 0 {
				return nil
			}
			op.limit = v
		}
		d.ops = append(d.ops, op)
	}
	if !evaluates || width != len(d.schema) {
		return nil
	}
	if err := d.pruneColumns(ctx); err != nil {
		return nil
	}
	return d
}

// pruneColumns narrows d.cols to the columns the operators read. The
// table access returns the columns go-mysql-server pruned its projection
// to, which include the key of the range (SELECT c ... ORDER BY c reads
// id and c, SELECT SUM(k) id and k) though only the lookup used it.
// When the operators up to the first Project or GroupBy are Sorts and
// Limits (a Distinct compares every column), the rows need only the
// columns their sort fields and that Project's or GroupBy's expressions
// name: d.cols keeps those, and those expressions read them at their new
// positions. The row iterator then decodes, boxes and keeps one value per
// row less. Nothing changes when every column is read, or none (COUNT(*)).
func (d *directPlan) pruneColumns(ctx *sql.Context) error {
	width := len(d.cols)
	used := make([]bool, width)
	mark := func(e sql.Expression) {
		transform.InspectExpr(ctx, e, func(_ *sql.Context, e sql.Expression) bool {
			if gf, ok := e.(*expression.GetField); ok && gf.Index() >= 0 && gf.Index() < width {
				used[gf.Index()] = true
			}
			return false
		})
	}
	k := 0 // d.ops[:k] see the table's rows; d.ops[k] narrows them
scan:
	for ; k < len(d.ops); k++ {
		switch n := d.ops[k].node.(type) {
		case *plan.Sort:
			for _, f := range n.SortFields {
				mark(f.Column)
			}
		case *plan.Limit:
		case *plan.Project, *plan.GroupBy:
			for _, e := range d.ops[k].exprs {
				mark(e)
			}
			break scan
		default:
			return nil
		}
	}
	if k == len(d.ops) {
		return nil
	}
	newIdx := make([]int, width)
	var cols []int
	for c, u := range used {
		newIdx[c] = -1
		if u {
			newIdx[c] = len(cols)
			cols = append(cols, d.cols[c])
		}
	}
	if len(cols) == 0 || len(cols) == width {
		return nil
	}
	remap := func(e sql.Expression) (sql.Expression, error) {
		out, _, err := transform.Expr(ctx, e, func(_ *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
			if gf, ok := e.(*expression.GetField); ok {
				return gf.WithIndex(newIdx[gf.Index()]), transform.NewTree, nil
			}
			return e, transform.SameTree, nil
		})
		return out, err
	}
	ops := slices.Clone(d.ops)
	for i := 0; i <= k; i++ {
		switch n := ops[i].node.(type) {
		case *plan.Sort:
			fields := slices.Clone(n.SortFields)
			for j := range fields {
				e, err := remap(fields[j].Column)
				if err != nil {
					return err
				}
				fields[j].Column = e
			}
			ops[i].fields = fields
		case *plan.Project, *plan.GroupBy:
			exprs := make([]sql.Expression, len(ops[i].exprs))
			for j, e := range ops[i].exprs {
				ne, err := remap(e)
				if err != nil {
					return err
				}
				exprs[j] = ne
			}
			ops[i].exprs = exprs
		}
	}
	d.ops, d.cols = ops, cols
	return nil
}

// columnOf reports whether e is a plain column of a row of width
// columns: a GetField, or an Alias of one.
func columnOf(e sql.Expression, width int) bool {
	c := fieldIndex(e)
	return c >= 0 && c < width
}

// fieldIndex returns the column index of a GetField or of an Alias of
// one, or -1.
func fieldIndex(e sql.Expression) int {
	if a, ok := e.(*expression.Alias); ok {
		e = a.Child
	}
	if gf, ok := e.(*expression.GetField); ok {
		return gf.Index()
	}
	return -1
}

// plainColumns reports whether every projection in exprs is a plain
// column of a row of width columns.
func plainColumns(exprs []sql.Expression, width int) bool {
	for _, e := range exprs {
		if !columnOf(e, width) {
			return false
		}
	}
	return true
}

// plainAggregation reports whether e is SUM, COUNT, MIN, MAX or AVG of a
// plain column of a row of width columns (or COUNT of a literal), not
// windowed.
func plainAggregation(e sql.Expression, width int) bool {
	if inner := compat.ExactAggregation(e); inner != nil {
		// SUM or AVG of an INT or DECIMAL column, exact and DECIMAL as in
		// MySQL (compat/exact_sum_avg.go): its own buffer computes it.
		e = inner
	}
	var child sql.Expression
	switch a := e.(type) {
	case *aggregation.Sum:
		child = a.Child
	case *aggregation.Min:
		child = a.Child
	case *aggregation.Max:
		child = a.Child
	case *aggregation.Avg:
		child = a.Child
	case *aggregation.Count:
		if _, ok := a.Child.(*expression.Literal); ok && a.Window() == nil {
			return true
		}
		child = a.Child
	default:
		return false
	}
	if w, ok := e.(sql.WindowAdaptableExpression); !ok || w.Window() != nil {
		return false
	}
	gf, ok := child.(*expression.GetField)
	return ok && gf.Index() >= 0 && gf.Index() < width
}

// evaluate returns the rows of the plan's operators over base, the table
// rows of one execute (directIter).
func (d *directPlan) evaluate(ctx *sql.Context, base *directRows) sql.RowIter {
	var it sql.RowIter = base
	for i := 0; i < len(d.ops); i++ {
		op := d.ops[i]
		if n, ok := op.node.(*plan.Distinct); ok && i+1 < len(d.ops) {
			// ORDER BY over DISTINCT by every column: one operator
			// (sortrows.go).
			if srt, ok := d.ops[i+1].node.(*plan.Sort); ok {
				if fused := newSortDistinctRows(ctx, srt.SortFields, n, it); fused != nil {
					it = fused
					i++
					continue
				}
			}
		}
		switch n := op.node.(type) {
		case *plan.Project:
			it = newProjectRows(it, op.exprs, i == len(d.ops)-1)
		case *plan.GroupBy:
			it = &aggregateRows{child: it, exprs: op.exprs}
		case *plan.Sort:
			fields := op.fields
			if fields == nil {
				fields = n.SortFields
			}
			it = newSortRows(ctx, fields, it)
		case *plan.Distinct:
			it, _ = compat.DistinctIter(ctx, n, it) // DISTINCT ON never reaches here (directShape)
		case *plan.OrderedDistinct:
			it = iters.NewOrderedDistinctIter(it, op.schema)
		case *plan.Limit:
			it = &limitRows{child: it, limit: op.limit}
		}
	}
	return &evaluatedRows{top: it}
}

// projectRows is go-mysql-server's ProjectIter of plain columns.
//
// rowexec.ProjectRow makes a new row of the columns (GetField.Eval is
// row[i]; an Alias evaluates its child), each float's negative zero made
// positive. Two cases skip that allocation per row: a Project of the
// row's own columns in order (over a Sort or an aggregate of just the
// columns it returns) returns the row itself when it holds no float; and
// the top operator of the plan (SELECT c ... ORDER BY c projects c out of
// the sorted rows) fills one row it reuses, since the statement's
// consumer (plancache.go's rows and max1Row, as for the reused rows of
// direct.go's simple shape) converts each row to the wire before the next
// Next. Rows too short for a column go through ProjectRow, which reports
// the error.
type projectRows struct {
	child sql.RowIter
	exprs []sql.Expression
	cols  []int // the column of each of exprs
	// identity: cols are 0, 1, ... len(exprs)-1.
	identity bool
	// top: the plan's top operator; out is its reused row.
	top bool
	out sql.Row
}

func newProjectRows(child sql.RowIter, exprs []sql.Expression, top bool) *projectRows {
	p := &projectRows{child: child, exprs: exprs, cols: make([]int, len(exprs)), identity: true, top: top}
	for i, e := range exprs {
		p.cols[i] = fieldIndex(e) // >= 0: evalShape took plain columns only
		p.identity = p.identity && p.cols[i] == i
	}
	return p
}

func (p *projectRows) Next(ctx *sql.Context) (sql.Row, error) {
	row, err := p.child.Next(ctx)
	if err != nil {
		return nil, err
	}
	if p.identity && len(row) == len(p.exprs) && !hasFloat(row) {
		return row, nil
	}
	if p.top && p.fits(row) {
		if p.out == nil {
			p.out = make(sql.Row, len(p.cols))
		}
		for i, c := range p.cols {
			p.out[i] = positiveZero(row[c])
		}
		return p.out, nil
	}
	return rowexec.ProjectRow(ctx, p.exprs, row)
}

// fits reports whether row has every column p reads.
func (p *projectRows) fits(row sql.Row) bool {
	for _, c := range p.cols {
		if c < 0 || c >= len(row) {
			return false
		}
	}
	return true
}

// positiveZero is go-mysql-server's normalizeNegativeZeros (ProjectRow):
// a float's zero, negative or not, as positive zero.
func positiveZero(v any) any {
	if v == float32(0) {
		return float32(0)
	}
	if v == float64(0) {
		return float64(0)
	}
	return v
}

// hasFloat reports whether row holds a float32 or float64.
func hasFloat(row sql.Row) bool {
	for _, v := range row {
		switch v.(type) {
		case float32, float64:
			return true
		}
	}
	return false
}

func (p *projectRows) Close(ctx *sql.Context) error { return p.child.Close(ctx) }

// aggregateRows is go-mysql-server's groupByIter without grouping
// expressions: one row of the aggregations' buffers over all the child's
// rows.
type aggregateRows struct {
	child sql.RowIter
	exprs []sql.Expression
	bufs  []sql.AggregationBuffer
	done  bool
}

func (a *aggregateRows) Next(ctx *sql.Context) (sql.Row, error) {
	if a.done {
		return nil, io.EOF
	}
	a.done = true
	a.bufs = make([]sql.AggregationBuffer, len(a.exprs))
	for i, e := range a.exprs {
		b, err := e.(sql.Aggregation).NewBuffer(ctx)
		if err != nil {
			return nil, err
		}
		a.bufs[i] = b
	}
	for {
		row, err := a.child.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		for _, b := range a.bufs {
			if err := b.Update(ctx, row); err != nil {
				return nil, err
			}
		}
	}
	out := make(sql.Row, len(a.bufs))
	for i, b := range a.bufs {
		v, err := b.Eval(ctx)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func (a *aggregateRows) Close(ctx *sql.Context) error {
	for _, b := range a.bufs {
		if b != nil {
			b.Dispose(ctx)
		}
	}
	a.bufs = nil
	return a.child.Close(ctx)
}

// limitRows is go-mysql-server's LimitIter for a constant limit.
type limitRows struct {
	child sql.RowIter
	limit int64
	n     int64
}

func (l *limitRows) Next(ctx *sql.Context) (sql.Row, error) {
	if l.n >= l.limit {
		return nil, io.EOF
	}
	row, err := l.child.Next(ctx)
	if err != nil {
		return nil, err
	}
	l.n++
	return row, nil
}

func (l *limitRows) Close(ctx *sql.Context) error { return l.child.Close(ctx) }

// evaluatedRows are the result rows of an evaluated plan: Close closes
// the operators and the table's rows (which commits an autocommit
// statement's transaction, directRows.Close), then sets FOUND_ROWS() to
// the rows returned, as TrackedRowIter does at the top of the plan.
type evaluatedRows struct {
	top sql.RowIter
	n   int64
}

func (r *evaluatedRows) Next(ctx *sql.Context) (sql.Row, error) {
	row, err := r.top.Next(ctx)
	if err == nil {
		r.n++
	}
	return row, err
}

func (r *evaluatedRows) Close(ctx *sql.Context) error {
	err := r.top.Close(ctx)
	ctx.GetLastQueryInfo().FoundRows.Store(r.n)
	return err
}
