package engine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/sqlgw/sqlgw/sqlgw/engine/compat"
)

// A division written into a FLOAT, DOUBLE or DECIMAL column
//
// MySQL computes 1/3 as a DECIMAL whose value carries the fraction digits
// of its internal division, whole words of 9 digits beyond the operands'
// (decimal_div with div_precision_increment = 4): 0.333333333, 2/3 is
// 0.666666666 (truncated, not rounded). The result's declared scale
// (the operands' plus div_precision_increment, 4) only rounds what a
// SELECT shows (0.3333) and what a DECIMAL or string column receives
// through the item's type; a FLOAT or DOUBLE column receives the value
// itself, so INSERT INTO t(d) VALUES (1/3) stores 0.333333333, and
// 1/3 + 1/3 + 1/3 stores 0.999999999 (SELECT shows 1.0000).
// go-mysql-server computes the same internal digits (expression.Div) but
// rounds the outermost operation of an arithmetic chain to the declared
// scale, so the column received 0.3333.
//
// The same holds for a DECIMAL column, which rounds the quotient to its
// own scale: 2/3 into DECIMAL(20,5) is 0.66667, into DECIMAL(20,12)
// 0.666666666000.
//
// floatDivRule gives the value of an INSERT (its VALUES or the SELECT
// list of INSERT ... SELECT) or UPDATE assignment whose column is FLOAT,
// DOUBLE or DECIMAL, when it is an arithmetic chain with a division, a
// copy of that chain without the final rounding (go-mysql-server's own
// switch for it, the operation count -1 that comparisons use), held by
// an unrounded node; assignedArithmetic (strictwrite.go) does the same
// for the UPDATE paths that are not analyzed. Other targets (a string
// column) and SELECT keep the rounded value. Not covered: ON DUPLICATE
// KEY UPDATE's assignments, UPDATE with a JOIN. ROUND, TRUNCATE and
// FORMAT read the unrounded value too (compat/divchain.go, compat/round.go).

// floatDivRuleID is floatDivRule's id among the analyzer's rules.
const floatDivRuleID analyzer.RuleId = 10_004

func floatDivRule(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(ctx, n, func(ctx *sql.Context, n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		switch x := n.(type) {
		case *plan.InsertInto:
			src, ok := floatDivSource(ctx, x.Source, insertTargets(ctx, x))
			if !ok {
				return n, transform.SameTree, nil
			}
			return x.WithSource(src), transform.NewTree, nil
		case *plan.UpdateSource:
			exprs := x.Expressions()
			var out []sql.Expression
			for i, e := range exprs {
				sf, ok := e.(*expression.SetField)
				if !ok {
					continue
				}
				gf, ok := sf.LeftChild.(*expression.GetField)
				if !ok {
					continue
				}
				v, ok := unroundedDivision(ctx, sf.RightChild, gf.Type(ctx))
				if !ok {
					continue
				}
				nsf, err := sf.WithChildren(ctx, sf.LeftChild, v)
				if err != nil {
					return nil, transform.SameTree, err
				}
				if out == nil {
					out = append([]sql.Expression(nil), exprs...)
				}
				out[i] = nsf
			}
			if out == nil {
				return n, transform.SameTree, nil
			}
			nn, err := x.WithExpressions(ctx, out...)
			if err != nil {
				return nil, transform.SameTree, err
			}
			return nn, transform.NewTree, nil
		}
		return n, transform.SameTree, nil
	})
}

// insertTargets is the column type each value of ii's source rows goes
// into: the named columns in order, else the table's.
func insertTargets(ctx *sql.Context, ii *plan.InsertInto) []sql.Type {
	dest := ii.Destination.Schema(ctx)
	if len(ii.ColumnNames) == 0 {
		out := make([]sql.Type, len(dest))
		for i, c := range dest {
			out[i] = c.Type
		}
		return out
	}
	out := make([]sql.Type, len(ii.ColumnNames))
	for i, name := range ii.ColumnNames {
		for _, c := range dest {
			if strings.EqualFold(c.Name, name) {
				out[i] = c.Type
			}
		}
	}
	return out
}

// floatDivSource is src (an INSERT's source) with its values for FLOAT and
// DOUBLE columns unrounded (unroundedDivision): the tuples of a VALUES
// list (under the analyzer's projection, if any) or the SELECT list of
// INSERT ... SELECT (under ORDER BY / LIMIT).
func floatDivSource(ctx *sql.Context, src sql.Node, targets []sql.Type) (sql.Node, bool) {
	switch x := src.(type) {
	case *plan.Values:
		var tuples [][]sql.Expression
		for r, tuple := range x.ExpressionTuples {
			out, ok := unroundedList(ctx, tuple, targets)
			if !ok {
				continue
			}
			if tuples == nil {
				tuples = append([][]sql.Expression(nil), x.ExpressionTuples...)
			}
			tuples[r] = out
		}
		if tuples == nil {
			return src, false
		}
		nv := *x
		nv.ExpressionTuples = tuples
		return &nv, true
	case *plan.Project:
		if v, ok := x.Child.(*plan.Values); ok {
			nv, ok := floatDivSource(ctx, v, targets)
			if !ok {
				return src, false
			}
			np, err := x.WithChildren(ctx, nv)
			return np, err == nil
		}
		out, ok := unroundedList(ctx, x.Projections, targets)
		if !ok {
			return src, false
		}
		np, err := x.WithExpressions(ctx, out...)
		return np, err == nil
	case *plan.Sort, *plan.Limit, *plan.TopN:
		child, ok := floatDivSource(ctx, src.Children()[0], targets)
		if !ok {
			return src, false
		}
		nn, err := src.WithChildren(ctx, child)
		return nn, err == nil
	}
	return src, false
}

// unroundedList is exprs with unroundedDivision applied to each for the
// target at its position; false if none changed.
func unroundedList(ctx *sql.Context, exprs []sql.Expression, targets []sql.Type) ([]sql.Expression, bool) {
	if len(exprs) != len(targets) {
		return exprs, false
	}
	var out []sql.Expression
	for i, e := range exprs {
		x, ok := unroundedDivision(ctx, e, targets[i])
		if !ok {
			continue
		}
		if out == nil {
			out = append([]sql.Expression(nil), exprs...)
		}
		out[i] = x
	}
	return out, out != nil
}

// unroundedDivision returns e, a value written into a column of type
// target, as a fresh copy of its arithmetic chain with the final rounding
// turned off, when target is FLOAT or DOUBLE and the chain (e's + - * /
// operations, from e down) has a division. The copy is new: the plan's
// expressions may be shared (cached plans).
func unroundedDivision(ctx *sql.Context, e sql.Expression, target sql.Type) (sql.Expression, bool) {
	if _, done := e.(*compat.Unrounded); done || target == nil || !(types.IsFloat(target) || types.IsDecimal(target)) {
		return e, false
	}
	if a, ok := e.(*expression.Alias); ok { // INSERT ... SELECT's list
		x, ok := unroundedDivision(ctx, a.Child, target)
		if !ok {
			return e, false
		}
		na, err := a.WithChildren(ctx, x)
		return na, err == nil
	}
	if !compat.ChainHasDiv(e) {
		return e, false
	}
	return compat.NewUnrounded(e), true
}
