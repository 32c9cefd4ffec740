package compat

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
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
// setop_collation.go). Not covered: COUNT(DISTINCT x), whose buffer
// hashes the values' text, neither padded nor by collation.

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
	if out == nil {
		return gb, false
	}
	ngb := *gb
	ngb.GroupByExprs = out
	return &ngb, true
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
