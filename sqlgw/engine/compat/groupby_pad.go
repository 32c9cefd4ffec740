package compat

import (
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
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
// setop_collation.go). COUNT(DISTINCT x) of a text x counts its values'
// collation keys (collKey: weights, without the trailing spaces under PAD
// SPACE), so 'a', 'A' and 'a ' count once under utf8mb4_general_ci and
// latin1_swedish_ci, 'a' and 'á' once under utf8mb4_0900_ai_ci; the
// collation is the expression's by MySQL's coercibility rules, so an
// expression over a column compares by the column's.
// GROUP_CONCAT(DISTINCT ...) compares its rows so too (groupConcat).

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

// padCountDistinct gives COUNT(DISTINCT x) of text arguments their
// collation keys (collKey): its buffer hashes the values' text, so 'a',
// 'A' and 'a ' were three values under utf8mb4_general_ci. It gives
// GROUP_CONCAT(DISTINCT ...) the same comparison (groupConcat).
func padCountDistinct(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
	if gc, ok := e.(*aggregation.GroupConcat); ok {
		return groupConcat(ctx, gc)
	}
	cd, ok := e.(*aggregation.CountDistinct)
	if !ok {
		return e, transform.SameTree, nil
	}
	ch := cd.Children()
	var out []sql.Expression
	for i, c := range ch {
		if _, done := c.(*collKey); done || !collatedText(c.Type(ctx)) {
			continue
		}
		if out == nil {
			out = append([]sql.Expression(nil), ch...)
		}
		out[i] = newCollKey(ctx, c)
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

// groupConcat returns GROUP_CONCAT as MySQL computes it where
// go-mysql-server does not: its buffer reads the first argument only, so
// GROUP_CONCAT(a, b) was a's values alone (MySQL concatenates the
// arguments of each row: the arguments become one CONCAT); and
// GROUP_CONCAT(DISTINCT ...) with a text argument, or more than one,
// compares the rows' arguments by their collations (collGroupConcat).
func groupConcat(ctx *sql.Context, gc *aggregation.GroupConcat) (sql.Expression, transform.TreeIdentity, error) {
	args := gc.OutputExpressions()
	var out sql.Expression = gc
	same := transform.SameTree
	if len(args) > 1 {
		concat, err := function.NewConcat(ctx, args...)
		if err != nil {
			return gc, transform.SameTree, nil
		}
		ch := gc.Children() // the ORDER BY keys, then the arguments
		ne, err := gc.WithChildren(ctx, append(append([]sql.Expression(nil), ch[:len(ch)-len(args)]...), concat)...)
		if err != nil {
			return gc, transform.SameTree, nil
		}
		out, same = ne, transform.NewTree
	}
	// The DISTINCT keyword is kept unexported; String() shows it.
	if !strings.HasPrefix(strings.ToLower(gc.String()), "group_concat(distinct") {
		return out, same, nil
	}
	keys := make([]sql.Expression, len(args))
	text := false
	for i, a := range args {
		keys[i] = a
		if collatedText(a.Type(ctx)) {
			keys[i], text = newCollKey(ctx, a), true
		}
	}
	if !text && len(args) == 1 {
		return out, same, nil
	}
	return &collGroupConcat{GroupConcat: out.(*aggregation.GroupConcat), keys: keys}, transform.NewTree, nil
}

// collGroupConcat is GROUP_CONCAT(DISTINCT ...) comparing its values as
// MySQL does, by their collation: go-mysql-server's buffer keeps the
// values whose text differs, so under utf8mb4_general_ci 'a', 'A', 'á'
// and 'a ' were four values (MySQL: one, the first row's). A row whose
// arguments' collation keys (collKey; other values as text) were seen
// before in the group is not handed to the buffer beneath, which keeps
// the rest as before (its own DISTINCT then sees distinct texts only).
type collGroupConcat struct {
	*aggregation.GroupConcat
	keys []sql.Expression
}

var _ sql.Aggregation = (*collGroupConcat)(nil)

func (g *collGroupConcat) NewBuffer(ctx *sql.Context) (sql.AggregationBuffer, error) {
	inner, err := g.GroupConcat.NewBuffer(ctx)
	if err != nil {
		return nil, err
	}
	return &collConcatBuffer{inner: inner, keys: g.keys, seen: map[string]struct{}{}}, nil
}

func (g *collGroupConcat) DebugString(ctx *sql.Context) string {
	return "collGroupConcat(" + g.GroupConcat.DebugString(ctx) + ")"
}

type collConcatBuffer struct {
	inner sql.AggregationBuffer
	keys  []sql.Expression
	seen  map[string]struct{}
}

func (b *collConcatBuffer) Update(ctx *sql.Context, row sql.Row) error {
	var key strings.Builder
	for _, k := range b.keys {
		v, err := k.Eval(ctx, row)
		if err != nil {
			return err
		}
		if v == nil {
			return nil // GROUP_CONCAT skips a row with a NULL argument
		}
		if _, isKey := k.(*collKey); !isKey {
			c, _, err := types.LongText.Convert(ctx, v)
			if err != nil {
				return err
			}
			v = hex.EncodeToString([]byte(fmt.Sprint(c)))
		}
		key.WriteString(v.(string))
		key.WriteByte(',')
	}
	if _, dup := b.seen[key.String()]; dup {
		return nil
	}
	b.seen[key.String()] = struct{}{}
	return b.inner.Update(ctx, row)
}

func (b *collConcatBuffer) Eval(ctx *sql.Context) (any, error) { return b.inner.Eval(ctx) }

func (b *collConcatBuffer) Dispose(ctx *sql.Context) { b.inner.Dispose(ctx) }

// collatedText: t is a text type (not a binary string).
func collatedText(t sql.Type) bool {
	if _, ext := t.(sql.ExtendedType); ext {
		return false
	}
	st, ok := t.(sql.StringType)
	return ok && types.IsTextOnly(st) && st.Collation() != sql.Collation_binary
}

// collKey is a text value's key under its collation, for COUNT
// (DISTINCT) and GROUP_CONCAT(DISTINCT): the hex of its collation weights
// (sql.CollationID.WriteWeightString, the weights DISTINCT and GROUP BY
// hash: 'a', 'A' and 'á' weigh the same under utf8mb4_0900_ai_ci), after
// dropping the trailing spaces under a PAD SPACE collation. Hex keeps
// the buffer's "," between the values of COUNT(DISTINCT a, b) out of the
// keys.
type collKey struct {
	expression.UnaryExpressionStub
	// coll is the expression's collation by MySQL's coercibility rules
	// (sql.GetCoercibility): a column's, or the one CONCAT(g, 'x') takes
	// from its column g, where the type of such an expression carries
	// go-mysql-server's default (utf8mb4_0900_bin).
	coll sql.CollationID
}

// newCollKey is the collation key of the text expression e.
func newCollKey(ctx *sql.Context, e sql.Expression) *collKey {
	coll := e.Type(ctx).(sql.StringType).Collation()
	if c, _ := sql.GetCoercibility(ctx, e); c != sql.Collation_Unspecified {
		coll = c
	}
	return &collKey{UnaryExpressionStub: expression.UnaryExpressionStub{Child: e}, coll: coll}
}

var _ sql.Expression = (*collKey)(nil)

func (k *collKey) Type(ctx *sql.Context) sql.Type { return types.LongText }

func (k *collKey) IsNullable(ctx *sql.Context) bool { return k.Child.IsNullable(ctx) }

func (k *collKey) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := k.Child.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	v, err = sql.UnwrapAny(ctx, v)
	if err != nil {
		return nil, err
	}
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case []byte:
		s = string(x)
	default:
		c, _, err := types.LongText.Convert(ctx, v)
		if err != nil {
			return nil, err
		}
		s = c.(string)
	}
	coll := k.coll
	if coll.PadAttribute() == "PAD SPACE" {
		s = strings.TrimRight(s, " ")
	}
	var w strings.Builder
	if err := coll.WriteWeightString(&w, s); err != nil {
		return nil, err
	}
	return hex.EncodeToString([]byte(w.String())), nil
}

func (k *collKey) String() string { return k.Child.String() }

func (k *collKey) DebugString(ctx *sql.Context) string {
	return fmt.Sprintf("collKey(%s)", sql.DebugString(ctx, k.Child))
}

func (k *collKey) WithChildren(ctx *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(k, len(children), 1)
	}
	return &collKey{UnaryExpressionStub: expression.UnaryExpressionStub{Child: children[0]}, coll: k.coll}, nil
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
