package engine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// FLOAT and DOUBLE compared with DECIMAL
//
// MySQL compares a FLOAT or DOUBLE with a DECIMAL (or with an exact-value
// literal such as 1.1) as DOUBLEs, a FLOAT widened to double first
// ("Type Conversion in Expression Evaluation": "if one of the arguments
// is a decimal value ... as floating-point values if the other argument
// is a floating-point value"). A FLOAT column holding 1.1 holds the
// single-precision 1.10000002384185791015625, so x = 1.1 is false and
// x > 1.1 true. go-mysql-server compares them as DECIMALs instead,
// converting the float32 by its shortest digits ("1.1"), and so finds
// the row for x = 1.1 and x IN (1.1) and loses it for x > 1.1.
//
// floatDecimals rewrites such a comparison (=, <=>, <, <=, >, >=,
// BETWEEN, [NOT] IN) so that go-mysql-server compares doubles: a DECIMAL
// literal becomes the DOUBLE literal it converts to, any other DECIMAL
// operand a CAST(... AS DOUBLE). The planner then bounds keys and store
// filters with the double (planner.convert, KindFloat), as the engine's
// filter compares, and a FLOAT column's stored value is the widened
// float32, so key lookups and filters agree.

// floatDecimalsTree is e with floatDecimals applied to its comparisons, for
// the exec builder (numberCastNode): go-mysql-server analyzes the simplest
// statements (a single-table SELECT, a UNION's branches) without sqlgw's
// rules, so their SELECT lists and filters that no lookup took are
// rewritten where they are built.
func floatDecimalsTree(ctx *sql.Context, e sql.Expression) (sql.Expression, bool) {
	out, same, err := transform.Expr(ctx, e, func(ctx *sql.Context, x sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		if nx, ok := floatDecimals(ctx, x); ok {
			return nx, transform.NewTree, nil
		}
		return x, transform.SameTree, nil
	})
	if err != nil || same == transform.SameTree {
		return e, false
	}
	return out, true
}

// floatDecimals returns e with its DECIMAL operands converted to DOUBLE
// when another operand of the comparison is a FLOAT or DOUBLE; ok false if
// e is no such comparison.
func floatDecimals(ctx *sql.Context, e sql.Expression) (sql.Expression, bool) {
	switch e := e.(type) {
	case *expression.Equals, *expression.NullSafeEquals, *expression.LessThan, *expression.LessThanOrEqual,
		*expression.GreaterThan, *expression.GreaterThanOrEqual, *expression.Between:
		ch := e.Children()
		if !anyFloat(ctx, ch) {
			return e, false
		}
		out, changed := doubleOperands(ctx, ch)
		if !changed {
			return e, false
		}
		ne, err := e.WithChildren(ctx, out...)
		if err != nil {
			return e, false
		}
		return ne, true
	case *expression.InTuple:
		return floatDecimalsList(ctx, e, e.Left(), e.Right(), false)
	case *expression.HashInTuple:
		return floatDecimalsList(ctx, e, e.Left(), e.Right(), true)
	}
	return e, false
}

// floatDecimalsList is floatDecimals on "left [NOT] IN (list)" (NOT IN is a
// Not above it). A HashInTuple is built anew: its hash set was made under
// the list's old compare type.
func floatDecimalsList(ctx *sql.Context, e, left, right sql.Expression, hashed bool) (sql.Expression, bool) {
	tup, ok := right.(expression.Tuple)
	if !ok || len(tup) == 0 || types.NumColumns(left.Type(ctx)) != 1 {
		return e, false
	}
	all := append([]sql.Expression{left}, tup...)
	if !anyFloat(ctx, all) {
		return e, false
	}
	out, changed := doubleOperands(ctx, all)
	if !changed {
		return e, false
	}
	var ne sql.Expression
	var err error
	if hashed {
		ne, err = expression.NewHashInTuple(ctx, out[0], expression.NewTuple(out[1:]...))
	} else {
		ne, err = e.WithChildren(ctx, out[0], expression.NewTuple(out[1:]...))
	}
	if err != nil {
		return e, false
	}
	return ne, true
}

// anyFloat: one of es is a FLOAT or DOUBLE.
func anyFloat(ctx *sql.Context, es []sql.Expression) bool {
	for _, x := range es {
		if types.IsFloat(x.Type(ctx)) {
			return true
		}
	}
	return false
}

// doubleOperands returns es with each DECIMAL one converted to DOUBLE.
func doubleOperands(ctx *sql.Context, es []sql.Expression) ([]sql.Expression, bool) {
	var out []sql.Expression
	for i, x := range es {
		if !types.IsDecimal(x.Type(ctx)) {
			continue
		}
		if out == nil {
			out = append([]sql.Expression(nil), es...)
		}
		out[i] = asDouble(ctx, x)
	}
	return out, out != nil
}

// asDouble is the DECIMAL expression x converted to DOUBLE: a literal
// folded (MySQL converts the exact value to the nearest double), anything
// else a CAST.
func asDouble(ctx *sql.Context, x sql.Expression) sql.Expression {
	if lit, ok := x.(*expression.Literal); ok {
		switch v := lit.Value().(type) {
		case nil:
			return expression.NewLiteral(nil, types.Float64)
		case decimal.Decimal:
			f, _ := v.Float64()
			return expression.NewLiteral(f, types.Float64)
		}
	}
	return expression.NewConvert(x, expression.ConvertToDouble)
}
