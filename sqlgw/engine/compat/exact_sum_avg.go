package compat

import (
	"math"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/shopspring/decimal"
)

// Analyzer rule: exact SUM and AVG
//
// go-mysql-server types SUM and AVG as DOUBLE whatever the argument, and
// sums integers in float64. MySQL sums INT and DECIMAL arguments exactly
// and types the result DECIMAL (NEWDECIMAL on the wire):
//
//	SUM(x): DECIMAL(min(p+22, 65), s)
//	AVG(x): DECIMAL(min(p+d, 65), min(s+d, 30))
//
// where p and s are the argument's decimal precision and scale (an INT has
// precision 10, scale 0) and d is the session's div_precision_increment
// (default 4) when the statement is analyzed; a cached plan is valid only
// under the increment it was made with (engine/plancache.go). SUM and AVG of FLOAT, DOUBLE and strings stay
// DOUBLE. This rule replaces such SUM and AVG aggregations (grouped or
// windowed) by exact ones and retypes every reference to their result
// columns.

// ExactAggRuleID is ExactAggRule's id among the analyzer's rules.
const ExactAggRuleID analyzer.RuleId = 10_001

// ExactAggRule is the post-analyze rule described above.
func ExactAggRule(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	retyped := map[sql.ColumnId]sql.Type{}
	out, same, err := replaceExactAggs(ctx, n, retyped)
	if err != nil {
		return n, transform.SameTree, err
	}
	if same == transform.NewTree {
		if out, _, err = retypeRefs(ctx, out, retyped); err != nil {
			return nil, transform.SameTree, err
		}
	}
	out, moved, err := propagateDecimals(ctx, out)
	if err != nil {
		return nil, transform.SameTree, err
	}
	if same == transform.SameTree && moved == transform.SameTree {
		return n, transform.SameTree, nil
	}
	return out, transform.NewTree, nil
}

// propagateDecimals retypes the column references whose source became a
// DECIMAL after go-mysql-server typed them: a derived table's, CTE's or
// view's column over an exact SUM or AVG (the subquery is finalized, and
// this rule run on it, before the outer query), and the aggregations,
// aliases and window functions over those in turn (MAX(s) of a derived
// SUM). A reference typed DOUBLE to a DECIMAL source only comes from this
// rule's retyping: go-mysql-server types a reference by its source.
func propagateDecimals(ctx *sql.Context, n sql.Node) (sql.Node, transform.TreeIdentity, error) {
	moved := transform.SameTree
	for pass := 0; pass < 8; pass++ {
		src := map[sql.ColumnId]sql.Type{}
		transform.InspectWithOpaque(ctx, n, func(ctx *sql.Context, node sql.Node) bool {
			if sqa, ok := node.(*plan.SubqueryAlias); ok {
				sch := sqa.Schema(ctx)
				if sqa.Columns().Len() == len(sch) {
					i := 0
					sqa.Columns().ForEach(func(id sql.ColumnId) {
						if t := sch[i].Type; types.IsDecimal(t) {
							src[id] = t
						}
						i++
					})
				}
			}
			if ex, ok := node.(sql.Expressioner); ok {
				for _, e := range ex.Expressions() {
					transform.InspectExpr(ctx, e, func(ctx *sql.Context, e sql.Expression) bool {
						if ide, ok := e.(sql.IdExpression); ok && ide.Id() != 0 {
							if _, gf := e.(*expression.GetField); !gf {
								if t := e.Type(ctx); types.IsDecimal(t) {
									src[ide.Id()] = t
								}
							}
						}
						return false
					})
				}
			}
			return true
		})
		if len(src) == 0 {
			break
		}
		out, same, err := transform.NodeWithOpaque(ctx, n, func(ctx *sql.Context, n sql.Node) (sql.Node, transform.TreeIdentity, error) {
			return retypeRefsOne(ctx, n, src)
		})
		if err != nil {
			return nil, transform.SameTree, err
		}
		if same == transform.SameTree {
			break
		}
		n, moved = out, transform.NewTree
	}
	return n, moved, nil
}

func replaceExactAggs(ctx *sql.Context, n sql.Node, retyped map[sql.ColumnId]sql.Type) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprs(ctx, n, func(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		switch e := e.(type) {
		case *plan.Subquery:
			q, same, err := replaceExactAggs(ctx, e.Query, retyped)
			if err != nil || same == transform.SameTree {
				return e, transform.SameTree, err
			}
			return e.WithQuery(q), transform.NewTree, nil
		case *aggregation.Sum:
			t, ok := exactAggType(ctx, e.Child, false)
			if !ok {
				return e, transform.SameTree, nil
			}
			retyped[e.Id()] = t
			return &exactAgg{Aggregation: e, child: e.Child, typ: t}, transform.NewTree, nil
		case *aggregation.Avg:
			t, ok := exactAggType(ctx, e.Child, true)
			if !ok {
				return e, transform.SameTree, nil
			}
			retyped[e.Id()] = t
			return &exactAgg{Aggregation: e, child: e.Child, typ: t, avg: true}, transform.NewTree, nil
		}
		return e, transform.SameTree, nil
	})
}

// retypeRefs gives the column references to retyped aggregation results
// their new type.
func retypeRefs(ctx *sql.Context, n sql.Node, retyped map[sql.ColumnId]sql.Type) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprs(ctx, n, retypeRef(retyped))
}

// retypeRefsOne is retypeRefs on one node's expressions.
func retypeRefsOne(ctx *sql.Context, n sql.Node, retyped map[sql.ColumnId]sql.Type) (sql.Node, transform.TreeIdentity, error) {
	return transform.OneNodeExprsWithNode(ctx, n, func(ctx *sql.Context, _ sql.Node, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		return retypeRef(retyped)(ctx, e)
	})
}

func retypeRef(retyped map[sql.ColumnId]sql.Type) transform.ExprFunc {
	return func(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		switch e := e.(type) {
		case *plan.Subquery:
			q, same, err := retypeRefs(ctx, e.Query, retyped)
			if err != nil || same == transform.SameTree {
				return e, transform.SameTree, err
			}
			return e.WithQuery(q), transform.NewTree, nil
		case *expression.GetField:
			t, ok := retyped[e.Id()]
			if !ok || e.Id() == 0 {
				return e, transform.SameTree, nil
			}
			if types.IsDecimal(e.Type(ctx)) {
				return e, transform.SameTree, nil
			}
			gf := expression.NewGetFieldWithTable(e.Index(), int(e.TableId()), t, e.Database(), e.Table(), e.Name(), true).WithId(e.Id())
			return gf.(*expression.GetField), transform.NewTree, nil
		}
		return e, transform.SameTree, nil
	}
}

// exactAggType returns the MySQL result type of SUM (or AVG) over child,
// and false when the result stays DOUBLE.
func exactAggType(ctx *sql.Context, child sql.Expression, avg bool) (sql.Type, bool) {
	ct := child.Type(ctx)
	if d, ok := child.(*expression.DistinctExpression); ok {
		ct = d.Child.Type(ctx)
	}
	var p, s int
	switch {
	case types.IsDecimal(ct):
		dt, ok := ct.(sql.DecimalType)
		if !ok {
			return nil, false
		}
		p, s = int(dt.Precision()), int(dt.Scale())
	case types.IsInteger(ct):
		switch ct.Type() {
		case query.Type_INT8, query.Type_UINT8:
			p = 3
		case query.Type_INT16, query.Type_UINT16:
			p = 5
		case query.Type_INT24:
			p = 7
		case query.Type_UINT24:
			p = 8
		case query.Type_INT32, query.Type_UINT32:
			p = 10
		case query.Type_INT64:
			p = 19
		default:
			p = 20
		}
	default:
		return nil, false
	}
	if avg {
		d := DivPrecisionIncrement(ctx)
		p, s = p+d, s+d
	} else {
		p += 22
	}
	if p > 65 {
		p = 65
	}
	if s > 30 {
		s = 30
	}
	t, err := types.CreateDecimalType(uint8(p), uint8(s))
	if err != nil {
		return nil, false
	}
	return t, true
}

// exactAgg is SUM or AVG over an INT or DECIMAL argument, computed in
// decimals and typed DECIMAL.
type exactAgg struct {
	sql.Aggregation // the engine's Sum or Avg (id, window, name, printing)
	child           sql.Expression
	typ             sql.Type
	avg             bool
}

var _ sql.Aggregation = (*exactAgg)(nil)
var _ sql.FunctionExpression = (*exactAgg)(nil)

func (a *exactAgg) Type(*sql.Context) sql.Type   { return a.typ }
func (a *exactAgg) IsNullable(*sql.Context) bool { return true }
func (a *exactAgg) String() string               { return a.Aggregation.String() }
func (a *exactAgg) FunctionName() string {
	return a.Aggregation.(sql.FunctionExpression).FunctionName()
}
func (a *exactAgg) Description() string                 { return a.Aggregation.(sql.FunctionExpression).Description() }
func (a *exactAgg) Children() []sql.Expression          { return a.Aggregation.Children() }
func (a *exactAgg) DebugString(ctx *sql.Context) string { return sql.DebugString(ctx, a.Aggregation) }

func (a *exactAgg) with(inner sql.Aggregation) *exactAgg {
	na := *a
	na.Aggregation = inner
	switch e := inner.(type) {
	case *aggregation.Sum:
		na.child = e.Child
	case *aggregation.Avg:
		na.child = e.Child
	}
	return &na
}

func (a *exactAgg) WithChildren(ctx *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	inner, err := a.Aggregation.WithChildren(ctx, children...)
	if err != nil {
		return nil, err
	}
	return a.with(inner.(sql.Aggregation)), nil
}

func (a *exactAgg) WithId(id sql.ColumnId) sql.IdExpression {
	return a.with(a.Aggregation.WithId(id).(sql.Aggregation))
}

func (a *exactAgg) WithWindow(ctx *sql.Context, w *sql.WindowDefinition) sql.WindowAdaptableExpression {
	return a.with(a.Aggregation.WithWindow(ctx, w).(sql.Aggregation))
}

func (a *exactAgg) NewBuffer(ctx *sql.Context) (sql.AggregationBuffer, error) {
	child, err := transform.Clone(ctx, a.child)
	if err != nil {
		return nil, err
	}
	return &exactAggBuffer{expr: child, avg: a.avg, scale: int32(a.typ.(sql.DecimalType).Scale())}, nil
}

func (a *exactAgg) NewWindowFunction(ctx *sql.Context) (sql.WindowFunction, error) {
	child, err := transform.Clone(ctx, a.child)
	if err != nil {
		return nil, err
	}
	w := &exactAggWindow{expr: child, avg: a.avg, scale: int32(a.typ.(sql.DecimalType).Scale())}
	if def := a.Window(); def != nil && def.Frame != nil {
		framer, err := def.Frame.NewFramer(def)
		if err != nil {
			return nil, err
		}
		w.framer = framer
	}
	return w, nil
}

// toDecimal converts an argument value; DISTINCT arguments evaluate to
// nil for repeated values, which the caller skips like NULL.
func toDecimal(ctx *sql.Context, v any) (decimal.Decimal, bool, error) {
	if v == nil {
		return decimal.Decimal{}, false, nil
	}
	if d, ok := v.(decimal.Decimal); ok {
		return d, true, nil
	}
	c, _, err := types.InternalDecimalType.Convert(ctx, v)
	if err != nil {
		return decimal.Decimal{}, false, err
	}
	d, ok := c.(decimal.Decimal)
	return d, ok, nil
}

// exactAggBuffer sums integer values in an int64 (isum) while it does not
// overflow, folding it into the decimal sum when it would and at the end:
// a decimal per integer row cost a conversion and a big-number addition
// (allocations) for the same exact sum.
type exactAggBuffer struct {
	expr  sql.Expression
	avg   bool
	scale int32
	sum   decimal.Decimal
	isum  int64
	n     int64
}

func (b *exactAggBuffer) Update(ctx *sql.Context, row sql.Row) error {
	v, err := b.expr.Eval(ctx, row)
	if err != nil {
		return err
	}
	if i, ok := exactInt(v); ok {
		if s := b.isum + i; (s > b.isum) == (i > 0) {
			b.isum = s
		} else { // overflow
			b.sum = b.sum.Add(decimal.NewFromInt(b.isum))
			b.isum = i
		}
		b.n++
		return nil
	}
	d, ok, err := toDecimal(ctx, v)
	if err != nil || !ok {
		return err
	}
	b.sum = b.sum.Add(d)
	b.n++
	return nil
}

// exactInt returns v as an int64 if it is an integer that fits one.
func exactInt(v any) (int64, bool) {
	switch v := v.(type) {
	case int32:
		return int64(v), true
	case int64:
		return v, true
	case int8:
		return int64(v), true
	case int16:
		return int64(v), true
	case int:
		return int64(v), true
	case uint8:
		return int64(v), true
	case uint16:
		return int64(v), true
	case uint32:
		return int64(v), true
	case uint64:
		return int64(v), v <= math.MaxInt64
	}
	return 0, false
}

func (b *exactAggBuffer) Eval(*sql.Context) (any, error) {
	sum := b.sum
	if b.isum != 0 {
		sum = sum.Add(decimal.NewFromInt(b.isum))
	}
	return exactResult(sum, b.n, b.avg, b.scale), nil
}

func (b *exactAggBuffer) Dispose(ctx *sql.Context) { expression.Dispose(ctx, b.expr) }

func exactResult(sum decimal.Decimal, n int64, avg bool, scale int32) any {
	if n == 0 {
		return nil
	}
	if avg {
		return sum.DivRound(decimal.NewFromInt(n), scale)
	}
	return sum.Round(scale)
}

// exactAggWindow is the window form: prefix sums and counts over the
// partition, so that any frame is answered in constant time.
type exactAggWindow struct {
	expr   sql.Expression
	framer sql.WindowFramer
	avg    bool
	scale  int32
	start  int
	sums   []decimal.Decimal
	counts []int64
}

func (w *exactAggWindow) Dispose(ctx *sql.Context) { expression.Dispose(ctx, w.expr) }

func (w *exactAggWindow) DefaultFramer() sql.WindowFramer {
	if w.framer != nil {
		return w.framer
	}
	return aggregation.NewUnboundedPrecedingToCurrentRowFramer()
}

func (w *exactAggWindow) NewSlidingFrameInterval(_, _ sql.WindowInterval) {}

func (w *exactAggWindow) StartPartition(ctx *sql.Context, interval sql.WindowInterval, buf sql.WindowBuffer) error {
	w.start = interval.Start
	n := interval.End - interval.Start
	w.sums = make([]decimal.Decimal, n+1)
	w.counts = make([]int64, n+1)
	for i := 0; i < n; i++ {
		w.sums[i+1], w.counts[i+1] = w.sums[i], w.counts[i]
		v, err := w.expr.Eval(ctx, buf[interval.Start+i])
		if err != nil {
			return err
		}
		d, ok, err := toDecimal(ctx, v)
		if err != nil {
			return err
		}
		if ok {
			w.sums[i+1] = w.sums[i+1].Add(d)
			w.counts[i+1]++
		}
	}
	return nil
}

func (w *exactAggWindow) Compute(_ *sql.Context, interval sql.WindowInterval, _ sql.WindowBuffer) (any, error) {
	if interval.End-interval.Start < 1 {
		return nil, nil
	}
	lo, hi := interval.Start-w.start, interval.End-w.start
	if lo < 0 || hi >= len(w.sums) || lo > hi {
		return nil, nil
	}
	return exactResult(w.sums[hi].Sub(w.sums[lo]), w.counts[hi]-w.counts[lo], w.avg, w.scale), nil
}

// DivPrecisionIncrement is the session's div_precision_increment (0 to 30;
// MySQL's default, 4, if it cannot be read).
func DivPrecisionIncrement(ctx *sql.Context) int {
	v, err := ctx.GetSessionVariable(ctx, "div_precision_increment")
	if err != nil {
		return 4
	}
	switch n := v.(type) {
	case int64:
		return int(n)
	case int8:
		return int(n)
	case int32:
		return int(n)
	case int:
		return n
	case uint64:
		return int(n)
	}
	return 4
}
