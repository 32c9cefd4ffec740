// Package exprconv turns go-mysql-server filter expressions over one table
// into the planner's predicate IR (planner.Expr): the read path's
// translation from what go-mysql-server hands a table
// (LookupForExpressions, the engine's index.go) to what sqlgw's planner
// plans.
//
// It imports go-mysql-server, vitess, decimal and the planner only: never
// the engine or anything above it, nor the catalog or the store
// (scripts/layering.sh checks it).
package exprconv

import (
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/shopspring/decimal"

	"github.com/sqlgw/sqlgw/planner"
)

// A Converter turns go-mysql-server filter expressions over one table into
// the planner's predicate IR. Only "column op literal" shapes (and AND, OR,
// NOT, IN, IS NULL over them) become IR nodes; everything else becomes an
// Opaque node that the planner keeps residual, so the engine evaluates it.
// A conversion never changes what a conjunct means: when in doubt, Opaque.
type Converter struct {
	ctx *sql.Context
	// cols maps a lower-cased column name to its ordinal.
	cols map[string]int
}

// New returns a Converter for a table whose columns, in ordinal order, are
// names.
func New(ctx *sql.Context, names []string) *Converter {
	c := &Converter{ctx: ctx, cols: make(map[string]int, len(names))}
	for i, n := range names {
		c.cols[strings.ToLower(n)] = i
	}
	return c
}

// Convert converts one conjunct.
func (c *Converter) Convert(e sql.Expression) planner.Expr {
	if x := c.tryConvert(e); x != nil {
		return x
	}
	return c.Opaque(e)
}

// Opaque is e as a conjunct the planner keeps residual, over the columns
// it reads.
func (c *Converter) Opaque(e sql.Expression) planner.Expr {
	var cols []int
	seen := map[int]bool{}
	sql.Inspect(c.ctx, e, func(_ *sql.Context, e sql.Expression) bool {
		if gf, ok := e.(*expression.GetField); ok {
			if i, ok := c.cols[strings.ToLower(gf.Name())]; ok && !seen[i] {
				seen[i] = true
				cols = append(cols, i)
			}
		}
		return true
	})
	return &planner.Opaque{Text: e.String(), Cols: cols}
}

// tryConvert returns nil when e is not expressible in the IR.
func (c *Converter) tryConvert(e sql.Expression) planner.Expr {
	switch e := e.(type) {
	case *expression.And:
		l, r := c.Convert(e.LeftChild), c.Convert(e.RightChild)
		return planner.And{l, r}
	case *expression.Or:
		l, r := c.Convert(e.LeftChild), c.Convert(e.RightChild)
		return planner.Or{l, r}
	case *expression.Not:
		x := c.tryConvert(e.Child)
		if x == nil {
			return nil
		}
		return &planner.Not{X: x}
	case *expression.IsNull:
		if col, ok := c.column(e.Child); ok {
			return &planner.IsNull{Col: col}
		}
		return nil
	case *expression.Literal:
		d, ok := Literal(c.ctx, e)
		if !ok {
			return nil
		}
		switch v := d.(type) {
		case nil:
			return &planner.Const{Value: nil}
		case int64:
			return &planner.Const{Value: v != 0}
		case bool:
			return &planner.Const{Value: v}
		}
		return nil
	case *expression.Equals:
		if x := c.tupleEq(e.Left(), e.Right()); x != nil {
			return x
		}
		return c.cmp(e.Left(), e.Right(), planner.Eq)
	case *expression.NullSafeEquals:
		return c.cmp(e.Left(), e.Right(), planner.NullSafeEq)
	case *expression.LessThan:
		return c.cmp(e.Left(), e.Right(), planner.Lt)
	case *expression.LessThanOrEqual:
		return c.cmp(e.Left(), e.Right(), planner.Le)
	case *expression.GreaterThan:
		return c.cmp(e.Left(), e.Right(), planner.Gt)
	case *expression.GreaterThanOrEqual:
		return c.cmp(e.Left(), e.Right(), planner.Ge)
	case *expression.InTuple:
		return c.in(e.Left(), e.Right())
	case *expression.HashInTuple:
		return c.in(e.Left(), e.Right())
	case *expression.Like:
		return c.like(e)
	}
	return nil
}

// like converts "col LIKE 'abc%'" (a literal pattern whose only wildcard is
// one final '%', no escape character in it, no ESCAPE clause) to
// Prefix: the planner treats it as exact for a binary column and, for a
// collated key column, as a widened key range the engine rechecks
// (planner/collate.go). go-mysql-server rewrites such LIKEs on utf8mb4
// columns into a range itself; this reaches the other character sets
// (latin1) and binary strings.
func (c *Converter) like(e *expression.Like) planner.Expr {
	if e.Escape != nil {
		return nil
	}
	col, ok := c.column(e.LeftChild)
	if !ok {
		return nil
	}
	lit, ok := e.RightChild.(*expression.Literal)
	if !ok {
		return nil
	}
	pat, ok := lit.Value().(string)
	if !ok {
		return nil
	}
	i := strings.IndexAny(pat, "%_\\")
	if i < 0 || pat[i:] != "%" {
		return nil
	}
	return &planner.Prefix{Col: col, Prefix: pat[:i]}
}

func (c *Converter) cmp(l, r sql.Expression, op planner.CmpOp) planner.Expr {
	if col, ok := c.column(l); ok {
		if lit, ok := r.(*expression.Literal); ok {
			if d, ok := Literal(c.ctx, lit); ok {
				return &planner.Cmp{Col: col, Op: op, Value: temporalLiteral(c.ctx, l, d)}
			}
		}
		return nil
	}
	if col, ok := c.column(r); ok {
		if lit, ok := l.(*expression.Literal); ok {
			if d, ok := Literal(c.ctx, lit); ok {
				return &planner.Cmp{Col: col, Op: op.Commute(), Value: temporalLiteral(c.ctx, r, d)}
			}
		}
	}
	return nil
}

// temporalLiteral converts a string literal compared with a DATE or
// DATETIME column to the time it denotes, as MySQL converts it for the
// comparison ('2024-01-01' = DATE '2024-01-01'; a DATE column against
// '2024-01-01 10:00:00' compares as DATETIME, which the planner handles),
// so that such comparisons use the key. Only the canonical forms are
// converted: 'YYYY-MM-DD' and 'YYYY-MM-DD hh:mm:ss[.ffffff]' with a valid
// date, and the zero date in those forms ('0000-00-00', go-mysql-server's
// types.ZeroTime, which the key encodes below every other date); any
// other string ('2024-1-1', '20240101', '2024-00-15') stays with the
// engine, which knows MySQL's lenient and mode-dependent parsing.
// TIMESTAMP columns are left alone: their literals are read in the
// session's time zone.
func temporalLiteral(ctx *sql.Context, col sql.Expression, d planner.Datum) planner.Datum {
	s, ok := d.(string)
	if !ok {
		return d
	}
	switch col.Type(ctx).Type() {
	case sqltypes.Date, sqltypes.Datetime:
	default:
		return d
	}
	layout := ""
	switch n := len(s); {
	case n == 10:
		layout = "2006-01-02"
	case n == 19:
		layout = "2006-01-02 15:04:05"
	case n > 20 && n <= 26 && s[19] == '.':
		layout = "2006-01-02 15:04:05." + strings.Repeat("0", n-20)
	default:
		return d
	}
	if s == "0000-00-00 00:00:00.000000"[:len(s)] {
		return types.ZeroTime // MySQL's zero date, '0000-00-00' (catalog/keys.ZeroDate)
	}
	t, err := time.ParseInLocation(layout, s, time.UTC)
	if err != nil || t.Year() < 1000 || t.Format(layout) != s {
		return d
	}
	return t
}

func (c *Converter) in(l, r sql.Expression) planner.Expr {
	if cols, ok := l.(expression.Tuple); ok {
		return c.tupleIn(cols, r)
	}
	col, ok := c.column(l)
	if !ok {
		return nil
	}
	tup, ok := r.(expression.Tuple)
	if !ok {
		return nil
	}
	vals := make([]planner.Datum, 0, len(tup))
	for _, x := range tup {
		lit, ok := x.(*expression.Literal)
		if !ok {
			return nil
		}
		d, ok := Literal(c.ctx, lit)
		if !ok {
			return nil
		}
		vals = append(vals, temporalLiteral(c.ctx, l, d))
	}
	return &planner.In{Col: col, Values: vals}
}

// tupleIn converts (a, b) IN ((1, 2), (3, 4)) into the OR of ANDs of
// equalities it means, (a = 1 AND b = 2) OR (a = 3 AND b = 4): SQL
// defines a row comparison as the conjunction of its element comparisons
// (with the same NULL semantics), and IN as the disjunction of equalities.
// On the whole primary key the planner makes that a MultiGet.
func (c *Converter) tupleIn(cols expression.Tuple, r sql.Expression) planner.Expr {
	rows, ok := r.(expression.Tuple)
	if !ok || len(rows) == 0 {
		return nil
	}
	out := make(planner.Or, 0, len(rows))
	for _, row := range rows {
		x := c.tupleEq(cols, row)
		if x == nil {
			return nil
		}
		out = append(out, x)
	}
	if len(out) == 1 {
		return out[0]
	}
	return out
}

// tupleEq converts (a, b) = (1, 2) into a = 1 AND b = 2; nil unless both
// sides are tuples of the same length, columns on the left and literals
// on the right (or the mirror).
func (c *Converter) tupleEq(l, r sql.Expression) planner.Expr {
	lt, ok1 := l.(expression.Tuple)
	rt, ok2 := r.(expression.Tuple)
	if !ok1 || !ok2 || len(lt) != len(rt) || len(lt) < 2 {
		return nil
	}
	out := make(planner.And, 0, len(lt))
	for i := range lt {
		x := c.cmp(lt[i], rt[i], planner.Eq)
		if x == nil {
			return nil
		}
		out = append(out, x)
	}
	return out
}

// column reports the ordinal of a bare column reference of this table.
func (c *Converter) column(e sql.Expression) (int, bool) {
	gf, ok := e.(*expression.GetField)
	if !ok {
		return 0, false
	}
	i, ok := c.cols[strings.ToLower(gf.Name())]
	return i, ok
}

// Literal converts a literal's engine value to a planner Datum. It
// refuses types whose comparison semantics the IR cannot express exactly
// (JSON documents, geometry, enum/set literals typed as such, ...).
func Literal(ctx *sql.Context, lit *expression.Literal) (planner.Datum, bool) {
	v := lit.Value()
	switch lit.Type(ctx).(type) {
	case sql.EnumType, sql.SetType:
		return nil, false
	}
	switch v := v.(type) {
	case nil:
		return nil, true
	case bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
		return planner.Normalize(v), true
	case decimal.Decimal:
		return v, true
	case decimal.NullDecimal:
		if !v.Valid {
			return nil, true
		}
		return v.Decimal, true
	case string:
		return v, true
	case []byte:
		return v, true
	case time.Time:
		return v, true
	case types.Timespan:
		return v.AsMicroseconds(), true
	}
	return nil, false
}
