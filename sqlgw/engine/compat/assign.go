package compat

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/sqlgw/sqlgw/sqlgw/sqltext"
)

// User-variable assignments in expressions: SELECT @v := expr
//
// The parser accepts := only in SET, while MySQL allows it in any
// expression (MariaDB Connector/ODBC builds its SQLColumns query from
// them). sqltext's Assignments step turns every `@v := expr` of a SELECT
// into sqlgw_assign('v', expr), the function below that stores the value
// in the session's user variable and returns it, like MySQL's assignment
// operator, and the statement's other reads of v into sqlgw_var('v').

const assignFuncName = sqltext.AssignFunc

// AssignFunction is sqlgw_assign(name, expr), registered by the engine.
var AssignFunction = sql.Function2{Name: assignFuncName, Fn: func(_ *sql.Context, name, e sql.Expression) sql.Expression {
	return &assignExpr{name: name, child: e}
}}

// assignExpr stores its argument in a user variable and returns it.
type assignExpr struct {
	name  sql.Expression // a string literal
	child sql.Expression
}

var _ sql.FunctionExpression = (*assignExpr)(nil)

func (a *assignExpr) FunctionName() string                { return assignFuncName }
func (a *assignExpr) Description() string                 { return "assigns a user variable and returns the value" }
func (a *assignExpr) Type(ctx *sql.Context) sql.Type      { return a.child.Type(ctx) }
func (a *assignExpr) IsNullable(ctx *sql.Context) bool    { return a.child.IsNullable(ctx) }
func (a *assignExpr) String() string                      { return fmt.Sprintf("%s := %s", a.name, a.child) }
func (a *assignExpr) Children() []sql.Expression          { return []sql.Expression{a.name, a.child} }
func (a *assignExpr) IsNonDeterministic() bool            { return true }
func (a *assignExpr) Resolved() bool                      { return a.name.Resolved() && a.child.Resolved() }
func (a *assignExpr) DebugString(ctx *sql.Context) string { return a.String() }
func (a *assignExpr) WithChildren(_ *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 2 {
		return nil, sql.ErrInvalidChildrenNumber.New(a, len(children), 2)
	}
	return &assignExpr{name: children[0], child: children[1]}, nil
}

func (a *assignExpr) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	n, err := a.name.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	name, ok := n.(string)
	if !ok {
		return nil, fmt.Errorf("%s: the variable name must be a string", assignFuncName)
	}
	v, err := a.child.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	if err := ctx.SetUserVariable(ctx, name, v, a.child.Type(ctx)); err != nil {
		return nil, err
	}
	return v, nil
}

// varFuncName reads a user variable assigned in the same statement:
// go-mysql-server types a user variable by its value when the statement
// is planned, so a variable first assigned by the statement itself would
// be typed NULL and always sent as NULL (SELECT @a := 3, @a).
const varFuncName = sqltext.VarFunc

// VarFunction is sqlgw_var(name), registered by the engine.
var VarFunction = sql.Function1{Name: varFuncName, Fn: func(ctx *sql.Context, name sql.Expression) sql.Expression {
	return &varExpr{name: name}
}}

// varExpr evaluates a user variable when the row is evaluated, typed by
// its value at planning time, or as text when it had none.
type varExpr struct {
	name sql.Expression
	typ  sql.Type
}

var _ sql.FunctionExpression = (*varExpr)(nil)

func (v *varExpr) FunctionName() string { return varFuncName }
func (v *varExpr) Description() string  { return "reads a user variable" }
func (v *varExpr) Type(ctx *sql.Context) sql.Type {
	if v.typ != nil {
		return v.typ
	}
	// Fixed at the first call, during planning, before any row assigns
	// the variable.
	v.typ = types.LongText
	if ctx == nil {
		return v.typ
	}
	if n, err := v.name.Eval(ctx, nil); err == nil {
		if name, ok := n.(string); ok {
			if t, val, err := ctx.GetUserVariable(ctx, name); err == nil && t != nil && val != nil && t != types.Null {
				v.typ = t
			}
		}
	}
	return v.typ
}
func (v *varExpr) IsNullable(*sql.Context) bool        { return true }
func (v *varExpr) String() string                      { return fmt.Sprintf("@%s", v.name) }
func (v *varExpr) DebugString(ctx *sql.Context) string { return v.String() }
func (v *varExpr) Children() []sql.Expression          { return []sql.Expression{v.name} }
func (v *varExpr) IsNonDeterministic() bool            { return true }
func (v *varExpr) Resolved() bool                      { return v.name.Resolved() }
func (v *varExpr) WithChildren(ctx *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(v, len(children), 1)
	}
	return &varExpr{name: children[0], typ: v.Type(ctx)}, nil
}

func (v *varExpr) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	n, err := v.name.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	name, ok := n.(string)
	if !ok {
		return nil, fmt.Errorf("%s: the variable name must be a string", varFuncName)
	}
	_, val, err := ctx.GetUserVariable(ctx, name)
	return val, err
}
