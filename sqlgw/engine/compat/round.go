package compat

import (
	"math"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/shopspring/decimal"
)

// ROUND and TRUNCATE as MySQL types and computes them
//
// go-mysql-server gives ROUND(x, D) and TRUNCATE(x, D) the type of x
// whatever D, so ROUND(sal, 1) on a DECIMAL(10,2) came out "1000.50" with
// scale 2, and TRUNCATE of a DECIMAL went through a float64. MySQL
// (Item_func_round::resolve_type) types a DECIMAL argument with a
// constant D as DECIMAL(p - (s - d) + c, d), d = max(D, 0) capped at 30,
// c = 1 when ROUND drops digits (the carry of 9.99 -> 10.0), and computes
// it exactly, half away from zero. An integer argument stays an integer
// whatever D (BIGINT, or BIGINT UNSIGNED for an unsigned one, as
// resolve_type's set_data_type(MYSQL_TYPE_LONGLONG) with the argument's
// unsigned_flag; ROUND(150, 2) is 150, the manual's example), a
// DOUBLE (or string) a DOUBLE; with a D that is not constant the type is
// the argument's. ROUND of a DOUBLE rounds to nearest even as the C
// library's rint does (my_double_round): ROUND(2.5e0) = 2, ROUND(4.25e0, 1)
// = 4.2. Everything else (integers, strings, TRUNCATE of doubles) is
// go-mysql-server's evaluation.

// RoundFunction returns sqlgw's ROUND, TRUNCATE or FORMAT for the
// provider's function lookup (engine/provider.go), and false for other
// names. FORMAT is go-mysql-server's, given a division's unrounded value.
func RoundFunction(name string) (sql.Function, bool) {
	switch strings.ToLower(name) {
	case "round":
		return sql.FunctionN{Name: "round", Fn: func(ctx *sql.Context, args ...sql.Expression) (sql.Expression, error) {
			inner, err := function.NewRound(ctx, args...)
			if err != nil {
				return nil, err
			}
			return newRoundExpr(inner, args, false), nil
		}}, true
	case "truncate":
		return sql.Function2{Name: "truncate", Fn: func(ctx *sql.Context, x, d sql.Expression) sql.Expression {
			return newRoundExpr(function.NewTruncate(ctx, x, d), []sql.Expression{x, d}, true)
		}}, true
	case "format":
		return sql.FunctionN{Name: "format", Fn: func(ctx *sql.Context, args ...sql.Expression) (sql.Expression, error) {
			if len(args) > 0 && ChainHasDiv(args[0]) {
				// FORMAT(1/3, 6) formats the quotient's internal digits,
				// '0.333333' (compat/divchain.go).
				args = append([]sql.Expression{NewUnrounded(args[0])}, args[1:]...)
			}
			return function.NewFormat(ctx, args...)
		}}, true
	}
	return nil, false
}

// roundExpr is ROUND (or TRUNCATE) around go-mysql-server's, which it
// leaves the cases above.
type roundExpr struct {
	inner    sql.Expression // *function.Round or *function.Truncate
	num, dec sql.Expression // dec is nil for ROUND(x)
	truncate bool
	// exact is num unrounded when it is an arithmetic chain with a
	// division (compat/divchain.go): MySQL rounds or cuts the quotient's
	// internal digits, ROUND(1/3, 6) = 0.333333, not 1/3 shown (0.3333).
	exact sql.Expression
}

var _ sql.FunctionExpression = (*roundExpr)(nil)
var _ sql.CollationCoercible = (*roundExpr)(nil)

func newRoundExpr(inner sql.Expression, args []sql.Expression, truncate bool) *roundExpr {
	r := &roundExpr{inner: inner, num: args[0], truncate: truncate}
	if ChainHasDiv(r.num) {
		r.exact = NewUnrounded(r.num)
	}
	if len(args) > 1 {
		r.dec = args[1]
	}
	return r
}

func (r *roundExpr) FunctionName() string {
	if r.truncate {
		return "truncate"
	}
	return "round"
}
func (r *roundExpr) Description() string              { return r.inner.(sql.FunctionExpression).Description() }
func (r *roundExpr) String() string                   { return r.inner.String() }
func (r *roundExpr) Resolved() bool                   { return r.inner.Resolved() }
func (r *roundExpr) IsNullable(ctx *sql.Context) bool { return r.inner.IsNullable(ctx) }
func (r *roundExpr) Children() []sql.Expression       { return r.inner.Children() }
func (r *roundExpr) DebugString(ctx *sql.Context) string {
	return sql.DebugString(ctx, r.inner)
}
func (r *roundExpr) CollationCoercibility(*sql.Context) (sql.CollationID, byte) {
	return sql.Collation_binary, 5
}

func (r *roundExpr) WithChildren(ctx *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	inner, err := r.inner.WithChildren(ctx, children...)
	if err != nil {
		return nil, err
	}
	return newRoundExpr(inner, children, r.truncate), nil
}

// constDec returns D when it is a numeric constant (ROUND(x) is D = 0); a
// string D is read at Eval, with its warning, and keeps the argument's type.
func (r *roundExpr) constDec(ctx *sql.Context) (int64, bool) {
	if r.dec == nil {
		return 0, true
	}
	if !isConstant(r.dec) || !types.IsNumber(r.dec.Type(ctx)) {
		return 0, false
	}
	v, err := r.dec.Eval(ctx, nil)
	if err != nil || v == nil {
		return 0, false
	}
	n, _, err := types.Int64.Convert(ctx, v)
	if err != nil {
		return 0, false
	}
	return n.(int64), true
}

// isConstant: a literal, or a sign or conversion of one.
func isConstant(e sql.Expression) bool {
	switch e := e.(type) {
	case *expression.Literal:
		return true
	case *expression.UnaryMinus:
		return isConstant(e.Child)
	case *expression.Convert:
		return isConstant(e.Child)
	}
	return false
}

// columnDec reports a D that reads a column (ROUND(x, t.d)): MySQL types
// such a ROUND or TRUNCATE by its first argument alone
// (Item_func_round::resolve_type when D is not constant): a DECIMAL keeps
// the argument's scale (the value is rounded to D, at most that scale,
// and shown with it: ROUND(1.2345, d) is 1.2000 for d = 1), anything else
// is a DOUBLE with the argument's decimals (ROUND(i, d) of an INT i).
func (r *roundExpr) columnDec(ctx *sql.Context) bool {
	if r.dec == nil {
		return false
	}
	col := false
	transform.InspectExpr(ctx, r.dec, func(ctx *sql.Context, e sql.Expression) bool {
		if _, ok := e.(*expression.GetField); ok {
			col = true
		}
		return col
	})
	return col
}

func (r *roundExpr) Type(ctx *sql.Context) sql.Type {
	nt := r.num.Type(ctx)
	if types.IsInteger(nt) && r.columnDec(ctx) {
		return types.Float64
	}
	if types.IsUnsigned(nt) {
		// MySQL's INT_RESULT case keeps the argument's sign: BIGINT
		// UNSIGNED (go-mysql-server's BIGINT clamps 18446744073709551615
		// to 9223372036854775807 when the row is sent).
		return types.Uint64
	}
	if !types.IsDecimal(nt) {
		return r.inner.Type(ctx)
	}
	dt, ok := nt.(sql.DecimalType)
	d, isConst := r.constDec(ctx)
	if !ok || !isConst {
		return nt
	}
	if d < 0 {
		d = 0
	}
	if d > types.DecimalTypeMaxScale {
		d = types.DecimalTypeMaxScale
	}
	p, s := int64(dt.Precision()), int64(dt.Scale())
	p -= s - d
	if !r.truncate && s > d {
		p++
	}
	if p < d {
		p = d
	}
	if p < 1 {
		p = 1
	}
	if p > types.DecimalTypeMaxPrecision {
		p = types.DecimalTypeMaxPrecision
	}
	t, err := types.CreateDecimalType(uint8(p), uint8(d))
	if err != nil {
		return nt
	}
	return t
}

func (r *roundExpr) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	nt := r.num.Type(ctx)
	if types.IsInteger(nt) && (r.dec == nil || types.IsNumber(r.dec.Type(ctx))) {
		v, err := r.evalInt(ctx, row, types.IsUnsigned(nt))
		if err != nil || v == nil || !r.columnDec(ctx) {
			return v, err
		}
		f, _, err := types.Float64.Convert(ctx, v) // a DOUBLE (columnDec)
		return f, err
	}
	isDec := types.IsDecimal(nt)
	if !isDec && (r.truncate || !types.IsFloat(nt)) {
		return r.inner.Eval(ctx, row)
	}
	if r.dec != nil && !types.IsNumber(r.dec.Type(ctx)) {
		return r.inner.Eval(ctx, row) // a string D: go-mysql-server's reading and warnings
	}
	num := r.num
	if r.exact != nil && isDec {
		num = r.exact
	}
	v, err := num.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	d := int32(0)
	if r.dec != nil {
		dv, err := r.dec.Eval(ctx, row)
		if err != nil || dv == nil {
			return nil, err
		}
		n, _, err := types.Int32.Convert(ctx, dv) // go-mysql-server's reading and warning
		if err != nil {
			if !sql.ErrTruncatedIncorrect.Is(err) {
				return nil, err
			}
			ctx.Warn(mysql.ERTruncatedWrongValue, "%s", err.Error())
		}
		d = n.(int32)
		if d > types.DecimalTypeMaxPrecision {
			d = types.DecimalTypeMaxPrecision
		}
		if isDec && d > types.DecimalTypeMaxScale {
			// MySQL's Item_func_round::decimal_op: at most the result's
			// decimals, which DECIMAL_MAX_SCALE (30) caps (Type):
			// TRUNCATE(1.223, 100) is 1.223 and 27 zeros.
			d = types.DecimalTypeMaxScale
		}
		if d < -types.DecimalTypeMaxScale {
			d = -types.DecimalTypeMaxScale
		}
	}
	if !isDec {
		f, _, err := types.Float64.Convert(ctx, v)
		if err != nil {
			return nil, err
		}
		return roundDouble(f.(float64), d), nil
	}
	x, ok, err := toDecimal(ctx, v)
	if err != nil || !ok {
		return nil, err
	}
	if dt, ok := nt.(sql.DecimalType); ok && r.columnDec(ctx) {
		// The argument's scale (columnDec): rounded at most to it, and
		// shown with it.
		s := int32(dt.Scale())
		d = min(d, s)
		if r.truncate {
			return truncateDecimal(x, d).Round(s), nil
		}
		return x.Round(d).Round(s), nil
	}
	if r.truncate {
		return truncateDecimal(x, d), nil
	}
	return x.Round(d), nil
}

// roundDouble is MySQL's my_double_round (not truncating).
func roundDouble(v float64, d int32) float64 {
	abs := d
	if abs < 0 {
		abs = -abs
	}
	tmp := math.Pow(10, float64(abs))
	if d < 0 {
		if math.IsInf(tmp, 0) {
			return 0
		}
		return math.RoundToEven(v/tmp) * tmp
	}
	mul := v * tmp
	if math.IsInf(mul, 0) || math.IsNaN(mul) {
		return v
	}
	return math.RoundToEven(mul) / tmp
}

// truncateDecimal cuts x to d decimals (d < 0: zeroes -d integer digits).
func truncateDecimal(x decimal.Decimal, d int32) decimal.Decimal {
	if d >= 0 {
		// Truncate keeps fewer digits as they are; MySQL shows d of
		// them (TRUNCATE(1.5, 3) is 1.500), as Round rescales.
		return x.Truncate(d).Round(d)
	}
	return x.Shift(d).Truncate(0).Shift(-d)
}

// evalInt is ROUND or TRUNCATE of an integer as MySQL's
// Item_func_round::int_op: the value itself when D >= 0 (an integer has no
// digits after the point), else rounded (half away from zero) or cut to
// a multiple of 10^-D in 64-bit integer arithmetic, unsigned for an
// unsigned argument; 0 when 10^-D exceeds every BIGINT; a result beyond
// the type is MySQL's 1690. (go-mysql-server went through a decimal and
// typed the result BIGINT, clamping 18446744073709551615.)
func (r *roundExpr) evalInt(ctx *sql.Context, row sql.Row, unsigned bool) (any, error) {
	v, err := r.num.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	var u uint64
	var i int64
	if unsigned {
		c, _, err := types.Uint64.Convert(ctx, v)
		if err != nil {
			return nil, err
		}
		u = c.(uint64)
	} else {
		c, _, err := types.Int64.Convert(ctx, v)
		if err != nil {
			return nil, err
		}
		i = c.(int64)
	}
	d := int64(0)
	if r.dec != nil {
		dv, err := r.dec.Eval(ctx, row)
		if err != nil || dv == nil {
			return nil, err
		}
		n, _, err := types.Int64.Convert(ctx, dv)
		if err != nil {
			if !sql.ErrTruncatedIncorrect.Is(err) {
				return nil, err
			}
			ctx.Warn(mysql.ERTruncatedWrongValue, "%s", err.Error())
		}
		d = n.(int64)
	}
	ret := func(u uint64, i int64) any {
		if unsigned {
			return u
		}
		return i
	}
	if d >= 0 {
		return ret(u, i), nil
	}
	if d < -19 { // 10^20 is beyond every BIGINT
		return ret(0, 0), nil
	}
	p := uint64(1)
	for k := int64(0); k < -d; k++ {
		p *= 10
	}
	overflow := func() error {
		kind := "BIGINT"
		if unsigned {
			kind = "BIGINT UNSIGNED"
		}
		return mysql.NewSQLError(mysql.ERDataOutOfRange, "22003", "%s value is out of range in '%s'", kind, r.String())
	}
	roundUp := func(x uint64) (uint64, bool) { // x to a multiple of p, half up
		t := x / p * p
		if x-t < p/2 {
			return t, true
		}
		if t > math.MaxUint64-p {
			return 0, false
		}
		return t + p, true
	}
	switch {
	case r.truncate && unsigned:
		return u / p * p, nil
	case r.truncate:
		return i / int64(p) * int64(p), nil
	case unsigned:
		x, ok := roundUp(u)
		if !ok {
			return nil, overflow()
		}
		return x, nil
	case i >= 0:
		x, ok := roundUp(uint64(i))
		if !ok || x > math.MaxInt64 {
			return nil, overflow()
		}
		return int64(x), nil
	default:
		x, ok := roundUp(uint64(-(i + 1)) + 1) // |i|, MinInt64 included
		if !ok || x > 1<<63 {
			return nil, overflow()
		}
		return -int64(x-1) - 1, nil
	}
}
