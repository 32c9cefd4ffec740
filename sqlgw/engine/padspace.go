package engine

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/sqlgw/sqlgw/catalog"
)

// PAD SPACE comparisons
//
// MySQL 8.0 compares strings under a PAD SPACE collation (every collation
// but binary and the "_0900_" ones: utf8mb4_bin, utf8mb4_general_ci,
// utf8mb4_unicode_ci, latin1_swedish_ci, ...) as if the shorter were padded
// with spaces: 'a' = 'a ', STRCMP('a', 'a ') is 0. go-mysql-server compares
// them unpadded (types.StringType.Compare: rune weights, then length), and
// the catalog keys them without trailing spaces (catalog.PadSpace), so an
// index lookup found the row its residual filter then dropped.
//
// padComparisons rewrites a comparison (=, <=>, <, <=, >, >=, <> which is
// NOT =, [NOT] IN, BETWEEN, STRCMP) whose operands are text under a PAD
// SPACE collation into the same comparison of the operands without their
// trailing spaces (padTrim): equality is then MySQL's exactly. Order is
// MySQL's except where one trimmed operand is a proper prefix of the other
// and the next character weighs below a space (a tab, a control
// character): padding orders 'a\t' below 'a', trimming above. LIKE is not
// padded in MySQL and is left alone (likeRewritten). It runs as an analyzer rule after all
// others (analyzer.OnceAfterAll, which go-mysql-server's fast paths for
// simple statements run too) and on the residual filter of a lookup (index.go),
// after the planner has read the comparisons for key ranges. The keys of
// PAD SPACE columns (catalog.KeyFormatPadSpace) leave out exactly the
// trailing spaces padTrim trims, so an equality or IN is answered by the
// keys (catalog.Type.CollationKeyEqualExact) and leaves no residual; a
// range is widened and stays residual, compared here. A table of an older
// build (catalog.KeyFormatUnpadded) keeps the spaces in its keys: there the
// planner reads an equality as a key prefix range and this comparison
// decides.

const padSpaceRuleID analyzer.RuleId = 10_001

func init() {
	analyzer.OnceAfterAll = append(analyzer.OnceAfterAll, analyzer.Rule{Id: padSpaceRuleID, Apply: padSpaceRule})
}

func padSpaceRule(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprs(ctx, n, padComparisonsExpr)
}

// padComparisons applies the rewrite to every comparison in e.
func padComparisons(ctx *sql.Context, e sql.Expression) (sql.Expression, error) {
	if e == nil {
		return nil, nil
	}
	out, _, err := transform.Expr(ctx, e, padComparisonsExpr)
	return out, err
}

// likeRewritten reports whether e may be go-mysql-server's rewrite of a
// LIKE: its simplifyFilters, the first rule of every analysis, turns
// "s LIKE 'x'" on a utf8mb4 operand into "s = 'x'" and "s LIKE 'x%'" into
// "s >= 'x' AND s <= 'x\xff'", against a literal. LIKE is not padded in
// MySQL ('x ' LIKE 'x' is 0), and the rewritten comparison cannot be told
// from a written one, so in a statement that contains LIKE those forms
// stay unpadded: as before, never a row LIKE would not match.
func likeRewritten(ctx *sql.Context, e sql.Expression, ch []sql.Expression) bool {
	switch e.(type) {
	case *expression.Equals, *expression.GreaterThanOrEqual, *expression.LessThanOrEqual:
	default:
		return false
	}
	if _, lit := ch[1].(*expression.Literal); !lit {
		return false
	}
	return strings.Contains(strings.ToLower(ctx.Query()), "like")
}

// likeEquality reports whether e is an equality on PAD SPACE text that
// may be a rewritten LIKE (likeRewritten), which keeps MySQL's unpadded
// LIKE semantics: a key lookup answers the padded equality, so the
// lookup keeps e residual (index.go).
func likeEquality(ctx *sql.Context, e sql.Expression) bool {
	eq, ok := e.(*expression.Equals)
	if !ok {
		return false
	}
	ch := eq.Children()
	return len(ch) == 2 && likeRewritten(ctx, e, ch) && padText(ctx, ch[0], ch[1])
}

// padText reports whether x is text (not binary) whose own collation, or
// the collation resolved with y, is PAD SPACE.
func padText(ctx *sql.Context, x, y sql.Expression) bool {
	tx, ty := x.Type(ctx), y.Type(ctx)
	if !types.IsTextOnly(tx) || !types.IsTextOnly(ty) {
		return false
	}
	cx, kx := sql.GetCoercibility(ctx, x)
	cy, ky := sql.GetCoercibility(ctx, y)
	c, _ := sql.ResolveCoercibility(cx, kx, cy, ky)
	return catalog.PadSpace(c.Name())
}

func padComparisonsExpr(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
	switch e := e.(type) {
	case *expression.Equals, *expression.NullSafeEquals, *expression.LessThan, *expression.LessThanOrEqual,
		*expression.GreaterThan, *expression.GreaterThanOrEqual, *function.StrCmp:
		ch := e.Children()
		if len(ch) != 2 || !padText(ctx, ch[0], ch[1]) || likeRewritten(ctx, e, ch) {
			return e, transform.SameTree, nil
		}
		return withPadded(ctx, e, ch)
	case *expression.Between:
		ch := e.Children()
		if len(ch) != 3 || !padText(ctx, ch[0], ch[1]) || !padText(ctx, ch[0], ch[2]) {
			return e, transform.SameTree, nil
		}
		return withPadded(ctx, e, ch)
	case *expression.InTuple, *expression.HashInTuple:
		ch := e.Children()
		if len(ch) != 2 {
			return e, transform.SameTree, nil
		}
		tup, ok := ch[1].(expression.Tuple)
		if !ok {
			return e, transform.SameTree, nil
		}
		for _, v := range tup {
			if !padText(ctx, ch[0], v) {
				return e, transform.SameTree, nil
			}
		}
		if isPadTrim(ch[0]) {
			return e, transform.SameTree, nil // already rewritten
		}
		vals := make([]sql.Expression, len(tup))
		for i, v := range tup {
			vals[i] = newPadTrim(v)
		}
		left := newPadTrim(ch[0])
		if _, hashed := e.(*expression.HashInTuple); hashed {
			ne, err := expression.NewHashInTuple(ctx, left, expression.NewTuple(vals...))
			if err != nil {
				return e, transform.SameTree, nil // keep the unpadded form
			}
			return ne, transform.NewTree, nil
		}
		return expression.NewInTuple(left, expression.NewTuple(vals...)), transform.NewTree, nil
	}
	return e, transform.SameTree, nil
}

func withPadded(ctx *sql.Context, e sql.Expression, ch []sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
	for _, c := range ch {
		if isPadTrim(c) {
			return e, transform.SameTree, nil // already rewritten
		}
	}
	out := make([]sql.Expression, len(ch))
	for i, c := range ch {
		out[i] = newPadTrim(c)
	}
	ne, err := e.WithChildren(ctx, out...)
	if err != nil {
		return nil, transform.SameTree, err
	}
	return ne, transform.NewTree, nil
}

func isPadTrim(e sql.Expression) bool {
	_, ok := e.(*padTrim)
	return ok
}

// padTrim is its operand without trailing spaces (U+0020 only), of the
// operand's type, collation and coercibility.
type padTrim struct {
	expression.UnaryExpressionStub
}

var _ sql.CollationCoercible = (*padTrim)(nil)

func newPadTrim(e sql.Expression) sql.Expression {
	if lit, ok := e.(*expression.Literal); ok {
		if s, ok := lit.Value().(string); ok && !strings.HasSuffix(s, " ") {
			return e // nothing to trim: keep the literal
		}
	}
	return &padTrim{expression.UnaryExpressionStub{Child: e}}
}

func (p *padTrim) Type(ctx *sql.Context) sql.Type { return p.Child.Type(ctx) }

func (p *padTrim) IsNullable(ctx *sql.Context) bool { return p.Child.IsNullable(ctx) }

func (p *padTrim) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return sql.GetCoercibility(ctx, p.Child)
}

func (p *padTrim) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := p.Child.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	if s, ok := v.(string); ok {
		return strings.TrimRight(s, " "), nil
	}
	return v, nil
}

func (p *padTrim) String() string { return p.Child.String() }

func (p *padTrim) DebugString(ctx *sql.Context) string {
	return fmt.Sprintf("padtrim(%s)", sql.DebugString(ctx, p.Child))
}

func (p *padTrim) WithChildren(ctx *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(p, len(children), 1)
	}
	return &padTrim{expression.UnaryExpressionStub{Child: children[0]}}, nil
}
