package compat

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// Analyzer rule: BIGINT UNSIGNED beside a signed integer in UNION
//
// A column of a set operation (UNION, INTERSECT, EXCEPT) whose two sides
// have different types is converted, on each side, to one type
// (planbuilder mergeSetOpSchemas, expression.GetConvertToType): an
// unsigned integer beside a signed one goes to SIGNED (BIGINT), which
// clamps every BIGINT UNSIGNED value above 9223372036854775807 to it
// (18446744073709551615 UNION -1 answered 9223372036854775807 and -1).
// MySQL 8.0 gives the column a type that holds both sides' values: BIGINT
// UNSIGNED with a signed integer is DECIMAL(20,0) (an INT UNSIGNED with a
// signed one fits BIGINT, which go-mysql-server's SIGNED already is). This
// rule rewrites such a column, found where the planbuilder puts the
// conversions (the projection of each side, directly below the set
// operation; the signed side's is elided), as a conversion of each side
// to DECIMAL(20,0); the set operation's
// schema (plan.SetOp.Schema, its sides' types generalized) follows.
//
// Upstream fix: GetConvertToType (or the set operation's own type
// aggregation) choosing DECIMAL(20,0) for BIGINT UNSIGNED beside a signed
// integer.

// SetOpUnsignedRuleID is SetOpUnsignedRule's id among the analyzer's rules.
const SetOpUnsignedRuleID analyzer.RuleId = 10_003

// SetOpUnsignedRule is the post-analyze rule described above.
func SetOpUnsignedRule(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeWithOpaque(ctx, n, func(ctx *sql.Context, n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		s, ok := n.(*plan.SetOp)
		if !ok {
			return n, transform.SameTree, nil
		}
		out, same, err := decimalSides(ctx, s)
		if err != nil {
			return nil, transform.SameTree, err
		}
		if out2, ok, err := followDecimalSide(ctx, out); err != nil {
			return nil, transform.SameTree, err
		} else if ok {
			out, same = out2, transform.NewTree
		}
		if sorted, ok := retypeSetOpSort(ctx, out); ok {
			out, same = sorted, transform.NewTree
		}
		return out, same, nil
	})
}

// decimalSides converts both sides of each BIGINT UNSIGNED / signed column
// of s to DECIMAL(20,0).
func decimalSides(ctx *sql.Context, s *plan.SetOp) (*plan.SetOp, transform.TreeIdentity, error) {
	lp, lok := s.Left().(*plan.Project)
	rp, rok := s.Right().(*plan.Project)
	if !lok || !rok || len(lp.Projections) != len(rp.Projections) {
		return s, transform.SameTree, nil
	}
	var lx, rx []sql.Expression
	for i := range lp.Projections {
		lc, lok := signedConvert(ctx, lp.Projections[i])
		rc, rok := signedConvert(ctx, rp.Projections[i])
		if !(lok && isUint64(ctx, lc.Child)) && !(rok && isUint64(ctx, rc.Child)) {
			continue
		}
		if lx == nil {
			lx, rx = append([]sql.Expression(nil), lp.Projections...), append([]sql.Expression(nil), rp.Projections...)
		}
		var err error
		if lx[i], err = toDecimal20(ctx, lp.Projections[i]); err != nil {
			return nil, transform.SameTree, err
		}
		if rx[i], err = toDecimal20(ctx, rp.Projections[i]); err != nil {
			return nil, transform.SameTree, err
		}
	}
	if lx == nil {
		return s, transform.SameTree, nil
	}
	left, err := lp.WithExpressions(ctx, lx...)
	if err != nil {
		return nil, transform.SameTree, err
	}
	right, err := rp.WithExpressions(ctx, rx...)
	if err != nil {
		return nil, transform.SameTree, err
	}
	out, err := s.WithChildren(ctx, left, right)
	if err != nil {
		return nil, transform.SameTree, err
	}
	return out.(*plan.SetOp), transform.NewTree, nil
}

// followDecimalSide converts to DECIMAL(20,0) the other side of a column
// one side of which a nested set operation made DECIMAL(20,0) (ub UNION sb
// UNION 1: the outer UNION was typed when the inner one was BIGINT, and
// go-mysql-server refuses sides of different types).
func followDecimalSide(ctx *sql.Context, s *plan.SetOp) (*plan.SetOp, bool, error) {
	ls, rs := s.Left().Schema(ctx), s.Right().Schema(ctx)
	if len(ls) != len(rs) {
		return s, false, nil
	}
	left, right := s.Left(), s.Right()
	changed := false
	for i := range ls {
		ld, rd := ls[i].Type.Equals(decimal20Type), rs[i].Type.Equals(decimal20Type)
		if ld == rd || !types.IsInteger(ls[i].Type) && !ld || !types.IsInteger(rs[i].Type) && !rd {
			continue
		}
		var err error
		if ld {
			right, err = decimalColumn(ctx, right, i)
		} else {
			left, err = decimalColumn(ctx, left, i)
		}
		if err != nil {
			return nil, false, err
		}
		changed = true
	}
	if !changed {
		return s, false, nil
	}
	out, err := s.WithChildren(ctx, left, right)
	if err != nil {
		return nil, false, err
	}
	return out.(*plan.SetOp), true, nil
}

// decimalColumn is n with its column i converted to DECIMAL(20,0): in n's
// projection, or in a projection of n's columns put over it.
func decimalColumn(ctx *sql.Context, n sql.Node, i int) (sql.Node, error) {
	p, ok := n.(*plan.Project)
	if !ok {
		sch := n.Schema(ctx)
		exprs := make([]sql.Expression, len(sch))
		for j, c := range sch {
			exprs[j] = expression.NewAlias(c.Name, expression.NewGetFieldWithTable(0, j, c.Type, c.DatabaseSource, c.Source, c.Name, c.Nullable))
		}
		p = plan.NewProject(exprs, n)
	}
	exprs := append([]sql.Expression(nil), p.Projections...)
	var err error
	if exprs[i], err = toDecimal20(ctx, exprs[i]); err != nil {
		return nil, err
	}
	return p.WithExpressions(ctx, exprs...)
}

// retypeSetOpSort gives the column references of s's ORDER BY the set
// operation's column types: the planbuilder types them by the left side
// (an INT UNSIGNED UNION INT ordered -7 after 4294967295, comparing as
// unsigned).
func retypeSetOpSort(ctx *sql.Context, s *plan.SetOp) (*plan.SetOp, bool) {
	if len(s.SortFields) == 0 {
		return s, false
	}
	sch := s.Schema(ctx)
	var fields sql.SortFields
	for i, sf := range s.SortFields {
		gf, ok := sf.Column.(*expression.GetField)
		if !ok {
			continue
		}
		k := gf.Index()
		if k < 0 || k >= len(sch) || !strings.EqualFold(sch[k].Name, gf.Name()) {
			k = sch.IndexOfColName(gf.Name())
		}
		if k < 0 || gf.Type(ctx).Equals(sch[k].Type) {
			continue
		}
		if fields == nil {
			fields = append(sql.SortFields(nil), s.SortFields...)
		}
		fields[i].Column = expression.NewGetFieldWithTable(int(gf.Id()), gf.Index(), sch[k].Type, gf.Database(), gf.Table(), gf.Name(), gf.IsNullable(ctx))
	}
	if fields == nil {
		return s, false
	}
	ret := *s
	ret.SortFields = fields
	return &ret, true
}

// signedConvert returns the CAST(... AS SIGNED) e is, under its alias.
func signedConvert(ctx *sql.Context, e sql.Expression) (*expression.Convert, bool) {
	if a, ok := e.(*expression.Alias); ok {
		e = a.Child
	}
	c, ok := e.(*expression.Convert)
	if !ok || c.Type(ctx) != types.Int64 {
		return nil, false
	}
	return c, true
}

func isUint64(ctx *sql.Context, e sql.Expression) bool {
	return e.Type(ctx).Type() == sqltypes.Uint64
}

// toDecimal20 is projection p converting its value to DECIMAL(20,0):
// the argument of its CAST(... AS SIGNED), or its expression when the
// planbuilder put no conversion on that side (a signed integer's), under
// its alias.
func toDecimal20(ctx *sql.Context, p sql.Expression) (sql.Expression, error) {
	e := p
	a, aliased := p.(*expression.Alias)
	if aliased {
		e = a.Child
	}
	if c, ok := signedConvert(ctx, e); ok {
		e = c.Child
	}
	var out sql.Expression = &decimal20{expression.NewConvertWithLengthAndScale(e, expression.ConvertToDecimal, 20, 0)}
	if aliased {
		return a.WithChildren(ctx, out)
	}
	return out, nil
}

// decimal20 is CAST(x AS DECIMAL) typed DECIMAL(20,0): go-mysql-server's
// conversion with scale 0 is typed DECIMAL(65,30) (createConvertedDecimalType
// takes only a positive scale), which a client shows with 30 decimals and
// CREATE TABLE ... AS SELECT makes too narrow for 18446744073709551615.
type decimal20 struct{ *expression.Convert }

var decimal20Type = types.MustCreateDecimalType(20, 0)

func (d *decimal20) Type(*sql.Context) sql.Type { return decimal20Type }

func (d *decimal20) WithChildren(ctx *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	c, err := d.Convert.WithChildren(ctx, children...)
	if err != nil {
		return nil, err
	}
	return &decimal20{c.(*expression.Convert)}, nil
}
