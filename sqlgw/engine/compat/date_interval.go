package compat

import (
	"reflect"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// date + INTERVAL is DATE_ADD
//
// In MySQL, x + INTERVAL n unit, INTERVAL n unit + x and x - INTERVAL n
// unit are DATE_ADD(x, INTERVAL n unit) and DATE_SUB (one Item,
// Item_date_add_interval): a DATE plus a unit without a time part is a
// DATE, '2020-01-25', and a string operand gives a string.
// go-mysql-server types the operator form DATETIME whatever its operand
// ('2020-01-25 00:00:00'), while its DATE_ADD follows MySQL there (but
// not for a DATETIME operand, which it makes DATETIME(6)). DateIntervals
// rewrites the operator form in the parsed statement, before the plan is
// built, into sqlgw_date_interval(x, INTERVAL n unit, '+' or '-'): DATE_ADD
// (DATE_SUB) for a DATE operand and a unit without a time part, and for a
// string operand; go-mysql-server's operator otherwise. So every reference
// to the result (a derived table's column, an alias) has its type, and
// every path (simple SELECTs skip the analyzer's custom rules, prepared
// statements, views) sees the same expression.

// DateIntervals applies the rewrite to st (a SELECT, set operation,
// INSERT, REPLACE, UPDATE or DELETE), parsed from query; texts without
// the word INTERVAL are left at once.
func DateIntervals(st ast.Statement, query string) {
	if st == nil || !containsFold(query, "interval") {
		return
	}
	switch x := st.(type) {
	case *ast.Select, *ast.SetOp, *ast.Insert, *ast.Update, *ast.Delete:
	case *ast.Explain:
		DateIntervals(x.Statement, query)
		return
	case *ast.DDL:
		// A view's query (its stored text is the statement's own); other
		// DDL is left as written: column DEFAULTs, generated columns and
		// trigger bodies keep go-mysql-server's operator.
		if x.ViewSpec != nil && x.ViewSpec.ViewExpr != nil {
			rewriteIntervals(reflect.ValueOf(x.ViewSpec), 0)
		}
		return
	default:
		return
	}
	rewriteIntervals(reflect.ValueOf(st), 0)
}

func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

var exprType = reflect.TypeOf((*ast.Expr)(nil)).Elem()

// rewriteIntervals walks the statement's tree (pointers, structs, slices
// and interfaces), replacing each settable Expr that is date arithmetic.
func rewriteIntervals(v reflect.Value, depth int) {
	if depth > 500 {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			rewriteIntervals(v.Elem(), depth+1)
		}
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		rewriteIntervals(v.Elem(), depth+1)
		if v.CanSet() && v.Type() == exprType {
			if b, ok := v.Interface().(*ast.BinaryExpr); ok {
				if f := dateAddCall(b); f != nil {
					v.Set(reflect.ValueOf(ast.Expr(f)))
				}
			}
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				rewriteIntervals(v.Field(i), depth+1)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			rewriteIntervals(v.Index(i), depth+1)
		}
	}
}

// dateAddCall returns DATE_ADD or DATE_SUB for b, or nil when b is not
// date arithmetic.
func dateAddCall(b *ast.BinaryExpr) *ast.FuncExpr {
	var date, iv ast.Expr
	op := ast.PlusStr
	if _, ok := b.Right.(*ast.IntervalExpr); ok {
		date, iv = b.Left, b.Right
		switch b.Operator {
		case ast.PlusStr:
		case ast.MinusStr:
			op = ast.MinusStr
		default:
			return nil
		}
	} else if _, ok := b.Left.(*ast.IntervalExpr); ok && b.Operator == ast.PlusStr {
		date, iv = b.Right, b.Left
	} else {
		return nil
	}
	if _, ok := date.(*ast.IntervalExpr); ok {
		return nil // INTERVAL + INTERVAL: go-mysql-server's error
	}
	return &ast.FuncExpr{Name: ast.NewColIdent(dateIntervalFunc), Exprs: ast.SelectExprs{
		&ast.AliasedExpr{Expr: date}, &ast.AliasedExpr{Expr: iv}, &ast.AliasedExpr{Expr: ast.NewStrVal([]byte(op))}}}
}

const dateIntervalFunc = "sqlgw_date_interval"

// DateIntervalFunction is sqlgw_date_interval(x, INTERVAL n unit, op),
// registered by the engine.
var DateIntervalFunction = sql.Function3{Name: dateIntervalFunc, Fn: func(ctx *sql.Context, x, iv, op sql.Expression) sql.Expression {
	return newDateInterval(ctx, x, iv, op)
}}

// dateInterval is x + INTERVAL or x - INTERVAL as described above.
type dateInterval struct {
	x     sql.Expression
	iv    sql.Expression // *expression.Interval, else an error at Eval
	op    sql.Expression // the literal '+' or '-'
	arith *expression.Arithmetic
	fn    sql.Expression // DATE_ADD or DATE_SUB; nil if iv is no interval
}

var _ sql.FunctionExpression = (*dateInterval)(nil)

func newDateInterval(ctx *sql.Context, x, iv, op sql.Expression) *dateInterval {
	d := &dateInterval{x: x, iv: iv, op: op}
	sub := false
	if l, ok := op.(*expression.Literal); ok && l.Value() == ast.MinusStr {
		sub = true
	}
	if sub {
		d.arith = expression.NewMinus(x, iv)
	} else {
		d.arith = expression.NewPlus(x, iv)
	}
	var err error
	if sub {
		d.fn, err = function.NewDateSub(ctx, x, iv)
	} else {
		d.fn, err = function.NewDateAdd(ctx, x, iv)
	}
	if err != nil {
		d.fn = nil
	}
	return d
}

// useFn: a DATE operand and a unit without a time part, or a string.
func (d *dateInterval) useFn(ctx *sql.Context) bool {
	if d.fn == nil {
		return false
	}
	t := d.x.Type(ctx)
	if types.IsText(t) {
		return true
	}
	if t.Type() != sqltypes.Date {
		return false
	}
	switch strings.ToUpper(d.iv.(*expression.Interval).Unit) {
	case "DAY", "WEEK", "MONTH", "QUARTER", "YEAR", "YEAR_MONTH":
		return true
	}
	return false
}

func (d *dateInterval) expr(ctx *sql.Context) sql.Expression {
	if d.useFn(ctx) {
		return d.fn
	}
	return d.arith
}

func (d *dateInterval) FunctionName() string { return dateIntervalFunc }
func (d *dateInterval) Description() string  { return "date + INTERVAL as MySQL types it" }
func (d *dateInterval) String() string       { return d.arith.String() }
func (d *dateInterval) Resolved() bool       { return d.x.Resolved() && d.iv.Resolved() && d.op.Resolved() }

// Children hides the INTERVAL itself (its value stands in for it):
// go-mysql-server's validation rejects an interval under any expression but
// its DATE_ADD, DATE_SUB and + -.
func (d *dateInterval) Children() []sql.Expression {
	if iv, ok := d.iv.(*expression.Interval); ok {
		return []sql.Expression{d.x, iv.Child, d.op}
	}
	return []sql.Expression{d.x, d.iv, d.op}
}
func (d *dateInterval) IsNullable(ctx *sql.Context) bool { return d.expr(ctx).IsNullable(ctx) }
func (d *dateInterval) Type(ctx *sql.Context) sql.Type   { return d.expr(ctx).Type(ctx) }
func (d *dateInterval) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	return d.expr(ctx).Eval(ctx, row)
}
func (d *dateInterval) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return sql.GetCoercibility(ctx, d.expr(ctx))
}

func (d *dateInterval) WithChildren(ctx *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 3 {
		return nil, sql.ErrInvalidChildrenNumber.New(d, len(children), 3)
	}
	iv := children[1]
	if old, ok := d.iv.(*expression.Interval); ok {
		iv = expression.NewInterval(iv, old.Unit)
	}
	return newDateInterval(ctx, children[0], iv, children[2]), nil
}
