package engine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/sqlgw/sqlgw/internal/gcvt"
)

// A DOUBLE's or FLOAT's string value (thirteenth session)
//
// MySQL converts a DOUBLE to a string with my_gcvt (String::set_real), as
// it writes one in a result row: CAST(1e20 AS CHAR) is '1e20',
// CAST(0.1e0 + 0.2e0 AS CHAR) '0.30000000000000004', CONCAT(1e16, '')
// '1e16'; a FLOAT column's value with FLT_DIG digits (Field_float::val_str:
// 123456.789 is '123457'). go-mysql-server formats them with Go's strconv
// (CAST(1e20 AS CHAR) was '100000000000000000000', a FLOAT 123456.789
// '123456.79'). So the parser (numberDateNodes) wraps the argument of
// every CAST/CONVERT to CHAR and each argument of CONCAT and CONCAT_WS that
// is not a string literal in sqlgw_float_text(x): a float value becomes
// my_gcvt's text (internal/gcvt, shared with the wire's result rows), any
// other passes unchanged. The wrapper prints as its argument.

const floatTextFunc = "sqlgw_float_text"

// FloatTextFunction is sqlgw_float_text(expr), registered by the engine.
// A column that is not a FLOAT or DOUBLE is left bare: the functions
// around it see the column itself (compat/enum_in_functions.go reads an
// ENUM or SET column argument of CONCAT_WS as its string only then). A
// column's Type needs no context (the planner passes none).
var FloatTextFunction = sql.Function1{Name: floatTextFunc, Fn: func(ctx *sql.Context, e sql.Expression) sql.Expression {
	if gf, ok := e.(*expression.GetField); ok && !types.IsFloat(gf.Type(ctx)) {
		return e
	}
	return &floatTextArg{child: e}
}}

// floatTextNode applies the rewrite above to node, if it is a CAST to CHAR
// or a CONCAT; it reports whether it was one.
func floatTextNode(node ast.SQLNode) bool {
	switch x := node.(type) {
	case *ast.ConvertExpr:
		if x.Type == nil {
			return false
		}
		switch strings.ToLower(x.Type.Type) {
		case "char", "nchar":
			x.Expr = floatTextExpr(x.Expr)
			return true
		}
	case *ast.FuncExpr:
		if x.Qualifier.IsEmpty() && (x.Name.EqualString("concat") || x.Name.EqualString("concat_ws")) {
			for _, se := range x.Exprs {
				if ae, ok := se.(*ast.AliasedExpr); ok {
					ae.Expr = floatTextExpr(ae.Expr)
				}
			}
			return true
		}
	}
	return false
}

// floatTextExpr is e wrapped in sqlgw_float_text, unless it is a string
// literal, NULL or already wrapped.
func floatTextExpr(e ast.Expr) ast.Expr {
	switch x := e.(type) {
	case *ast.SQLVal:
		if x.Type == ast.StrVal || x.Type == ast.HexVal || x.Type == ast.BitVal {
			return e
		}
	case *ast.NullVal:
		return e
	case *ast.FuncExpr:
		if x.Name.EqualString(floatTextFunc) {
			return e
		}
	}
	return &ast.FuncExpr{Name: ast.NewColIdent(floatTextFunc), Exprs: ast.SelectExprs{&ast.AliasedExpr{Expr: e}}}
}

// floatTextArg is a value as MySQL converts it to a string where it is a
// FLOAT or DOUBLE, unchanged otherwise (see above).
type floatTextArg struct {
	child sql.Expression
}

var _ sql.FunctionExpression = (*floatTextArg)(nil)
var _ sql.CollationCoercible = (*floatTextArg)(nil)

func (n *floatTextArg) FunctionName() string { return floatTextFunc }
func (n *floatTextArg) Description() string {
	return "converts a float to a string as MySQL does"
}

// floatTextType is the type of a float's text: a VARCHAR as long as the
// longest (-1.2345678901234567e-308). Not LONGTEXT: go-mysql-server drops
// a CAST to CHAR(n) of a LONGTEXT as redundant (planbuilder buildConvert),
// and its length with it.
var floatTextType = types.MustCreateString(sqltypes.VarChar, 24, sql.Collation_Default)

// Type is floatTextType for a FLOAT or DOUBLE (its value is the text), else
// the argument's.
func (n *floatTextArg) Type(ctx *sql.Context) sql.Type {
	if t := n.child.Type(ctx); !types.IsFloat(t) {
		return t
	}
	return floatTextType
}

// CollationCoercibility is the argument's: the wrapper changes no
// collation a CONCAT derives.
func (n *floatTextArg) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return sql.GetCoercibility(ctx, n.child)
}

func (n *floatTextArg) IsNullable(ctx *sql.Context) bool { return n.child.IsNullable(ctx) }

// String is the argument's: plans print the user's expression.
func (n *floatTextArg) String() string                      { return n.child.String() }
func (n *floatTextArg) DebugString(ctx *sql.Context) string { return sql.DebugString(ctx, n.child) }
func (n *floatTextArg) Children() []sql.Expression          { return []sql.Expression{n.child} }
func (n *floatTextArg) Resolved() bool                      { return n.child.Resolved() }
func (n *floatTextArg) IsNonDeterministic() bool            { return false }

func (n *floatTextArg) WithChildren(_ *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(n, len(children), 1)
	}
	return &floatTextArg{child: children[0]}, nil
}

func (n *floatTextArg) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := n.child.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case float64:
		return string(gcvt.Append(nil, x, false)), nil
	case float32:
		return string(gcvt.Append(nil, float64(x), true)), nil
	}
	return v, nil
}
