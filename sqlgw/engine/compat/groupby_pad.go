package compat

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// GROUP BY under a PAD SPACE collation
//
// Under a PAD SPACE collation (utf8mb4_bin, the *_general_ci and
// *_unicode_ci collations, latin1_*: PAD_ATTRIBUTE in
// information_schema.COLLATIONS) MySQL compares strings as if the shorter
// were padded with spaces, so 'a' and 'a ' are equal: one group of GROUP
// BY, whose value is the group's first row's. The 0900 collations are NO
// PAD: two groups. go-mysql-server hashes the grouping key with the
// collation but with the trailing spaces, so 'a' and 'a ' were two
// groups under every collation. PadGroupBy gives GROUP BY a grouping key
// without the trailing spaces of its PAD SPACE text expressions (the key
// only: the selected values are the rows' own, as MySQL shows them).
// DISTINCT and UNION already compare so (distinct_collation.go,
// setop_collation.go). COUNT(DISTINCT x) of such an x gets its values
// without trailing spaces too (its buffer hashes their text); it still
// does not compare by collation otherwise ('a' and 'A' under a _ci
// collation count twice).

// PadGroupBy returns gb with its PAD SPACE text grouping expressions
// keyed without trailing spaces; ok false if it has none (or they are
// keyed so already).
func PadGroupBy(ctx *sql.Context, gb *plan.GroupBy) (*plan.GroupBy, bool) {
	var out []sql.Expression
	for i, e := range gb.GroupByExprs {
		if _, done := e.(*padKey); done || !padSpaceText(e.Type(ctx)) {
			continue
		}
		if out == nil {
			out = append([]sql.Expression(nil), gb.GroupByExprs...)
		}
		out[i] = &padKey{UnaryExpressionStub: expression.UnaryExpressionStub{Child: e}}
	}
	var deps []sql.Expression
	for i, e := range gb.SelectDeps {
		x, same, err := transform.Expr(ctx, e, padCountDistinct)
		if err != nil || same == transform.SameTree {
			continue
		}
		if deps == nil {
			deps = append([]sql.Expression(nil), gb.SelectDeps...)
		}
		deps[i] = x
	}
	if out == nil && deps == nil {
		return gb, false
	}
	ngb := *gb
	if out != nil {
		ngb.GroupByExprs = out
	}
	if deps != nil {
		ngb.SelectDeps = deps
	}
	return &ngb, true
}

// padCountDistinct gives COUNT(DISTINCT x) the values of its PAD SPACE
// text arguments without trailing spaces (its buffer hashes their text).
func padCountDistinct(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
	cd, ok := e.(*aggregation.CountDistinct)
	if !ok {
		return e, transform.SameTree, nil
	}
	ch := cd.Children()
	var out []sql.Expression
	for i, c := range ch {
		if _, done := c.(*padKey); done || !padSpaceText(c.Type(ctx)) {
			continue
		}
		if out == nil {
			out = append([]sql.Expression(nil), ch...)
		}
		out[i] = &padKey{UnaryExpressionStub: expression.UnaryExpressionStub{Child: c}}
	}
	if out == nil {
		return e, transform.SameTree, nil
	}
	ne, err := cd.WithChildren(ctx, out...)
	if err != nil {
		return e, transform.SameTree, nil
	}
	return ne, transform.NewTree, nil
}

// padSpaceText: t is a text type under a PAD SPACE collation.
func padSpaceText(t sql.Type) bool {
	if _, ext := t.(sql.ExtendedType); ext {
		return false
	}
	st, ok := t.(sql.StringType)
	return ok && types.IsTextOnly(st) && st.Collation().PadAttribute() == "PAD SPACE"
}

// padKey is a grouping expression's value without its trailing spaces,
// of the expression's type (its collation hashes the key).
type padKey struct {
	expression.UnaryExpressionStub
}

var _ sql.Expression = (*padKey)(nil)

func (p *padKey) Type(ctx *sql.Context) sql.Type { return p.Child.Type(ctx) }

func (p *padKey) IsNullable(ctx *sql.Context) bool { return p.Child.IsNullable(ctx) }

func (p *padKey) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := p.Child.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	v, err = sql.UnwrapAny(ctx, v)
	if err != nil {
		return nil, err
	}
	switch s := v.(type) {
	case string:
		return strings.TrimRight(s, " "), nil
	case []byte:
		return strings.TrimRight(string(s), " "), nil
	}
	return v, nil
}

func (p *padKey) String() string { return p.Child.String() }

func (p *padKey) DebugString(ctx *sql.Context) string {
	return fmt.Sprintf("padKey(%s)", sql.DebugString(ctx, p.Child))
}

func (p *padKey) WithChildren(ctx *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(p, len(children), 1)
	}
	return &padKey{UnaryExpressionStub: expression.UnaryExpressionStub{Child: children[0]}}, nil
}
