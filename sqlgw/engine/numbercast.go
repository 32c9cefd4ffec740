package engine

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// CAST(number AS DATE) before go-mysql-server folds it (eleventh session)
//
// MySQL reads the number of CAST(20240229 AS DATE) (or DATETIME, or a
// TIME of a date-time's size) as a date: number_to_datetime; go-mysql-server
// gives NULL. numberCast (writeconv.go) evaluates it MySQL's way where the
// exec builder sees the CAST, but go-mysql-server folds a constant one
// before that: simplifyFilters turns the CAST in a WHERE into a NULL
// literal (so a key or index lookup found nothing), and an INSERT's VALUES
// and an UPDATE's SET evaluate go-mysql-server's Convert. A prepared
// CAST(? AS DATE) is the same once its parameter is bound.
//
// So the parser (genValuesParser, dump_generated_values.go) rewrites the
// argument of every CAST/CONVERT to DATE, DATETIME or TIME that is not a
// string literal into sqlgw_number_date(arg, 'date'|'datetime'|'time'): a
// number becomes the date-time text MySQL reads it as (numericDate), which
// go-mysql-server's Convert then parses, folded or not; any other value
// passes unchanged. Since the twelfth session a column's CAST is rewritten
// too (numberCast reached it only in a SELECT list and a filter: an
// UPDATE's SET d = CAST(i AS DATE) and a trigger's SET NEW.d stored
// NULL), and so is every statement, DDL included (numberDates). The
// wrapper prints as its argument, so plans, SHOW CREATE TABLE and the
// catalog's texts keep the user's words.

const numberDateFunc = "sqlgw_number_date"

// NumberDateFunction is sqlgw_number_date(expr, kind), registered by the
// engine.
var NumberDateFunction = sql.Function2{Name: numberDateFunc, Fn: func(_ *sql.Context, e, kind sql.Expression) sql.Expression {
	return &numberDateArg{child: e, kind: kind}
}}

// numberDates applies this file's rewrites to st, whatever the statement
// (twelfth session: every statement that holds expressions, DDL included):
// casts of values to dates (see above), the operands of date arithmetic
// (temporalOperands) and the arithmetic of SELECT lists
// (unsignedResults). The parse trees of CREATE VIEW, CREATE TRIGGER and
// CREATE PROCEDURE bodies and of column DEFAULT, generated and CHECK
// expressions are rewritten like a SELECT's: a view's or a trigger's
// stored text is the statement's own text, not its tree, and a column
// expression's stored text is its String, which each sqlgw function
// prints as its argument, so SHOW CREATE and information_schema show
// what the user wrote. Those texts are parsed again by this parser when
// they are used (a view's query, a trigger's body, a default as SELECT
// expr), and rewritten then.
func numberDates(st ast.Statement) {
	switch x := st.(type) {
	case nil:
		return
	case *ast.Explain: // EXPLAIN plans the statement as it runs
		numberDates(x.Statement)
		return
	case *ast.AlterTable:
		for _, d := range x.Statements {
			numberDates(d)
		}
		return
	case *ast.DDL:
		// ast.Walk of a DDL reaches only a view's query and CREATE
		// TABLE ... SELECT.
		if x.TriggerSpec != nil {
			numberDates(x.TriggerSpec.Body)
		}
		if x.ProcedureSpec != nil {
			numberDates(x.ProcedureSpec.Body)
		}
		if x.DefaultSpec != nil && x.DefaultSpec.Value != nil {
			numberDateExprs(x.DefaultSpec.Value)
		}
		if ts := x.TableSpec; ts != nil {
			for _, c := range ts.Columns {
				numberDateExprs(c.Type.Default, c.Type.OnUpdate, c.Type.GeneratedExpr)
				if c.Type.Constraint != nil {
					if ch, ok := c.Type.Constraint.Details.(*ast.CheckConstraintDefinition); ok {
						numberDateExprs(ch.Expr)
					}
				}
			}
			for _, c := range ts.Constraints {
				if ch, ok := c.Details.(*ast.CheckConstraintDefinition); ok {
					numberDateExprs(ch.Expr)
				}
			}
		}
	}
	numberDateNodes(st)
}

// numberDateExprs applies numberDates to expressions (nil ones skipped).
func numberDateExprs(es ...ast.Expr) {
	for _, e := range es {
		if e != nil {
			numberDateNodes(e)
		}
	}
}

// numberDateNodes applies numberDates's rewrites to the nodes ast.Walk
// reaches from n.
func numberDateNodes(n ast.SQLNode) {
	_ = ast.Walk(func(node ast.SQLNode) (bool, error) {
		if sel, ok := node.(*ast.Select); ok {
			unsignedResults(sel)
			return true, nil
		}
		if b, ok := node.(*ast.BinaryExpr); ok {
			temporalOperands(b)
			return true, nil
		}
		if floatTextNode(node) { // floattext.go
			return true, nil
		}
		c, ok := node.(*ast.ConvertExpr)
		if !ok || c.Type == nil {
			return true, nil
		}
		kind := strings.ToLower(c.Type.Type)
		switch kind {
		case "date", "datetime", "time":
		default:
			return true, nil
		}
		switch x := c.Expr.(type) {
		case *ast.SQLVal:
			if x.Type != ast.IntVal && x.Type != ast.FloatVal && x.Type != ast.ValArg {
				return true, nil
			}
		case *ast.FuncExpr:
			if x.Name.EqualString(numberDateFunc) {
				return true, nil
			}
		}
		c.Expr = &ast.FuncExpr{Name: ast.NewColIdent(numberDateFunc),
			Exprs: ast.SelectExprs{&ast.AliasedExpr{Expr: c.Expr}, &ast.AliasedExpr{Expr: ast.NewStrVal([]byte(kind))}}}
		return true, nil
	}, n)
}

// numberDateArg is a CAST's argument as MySQL reads a number cast to a date
// (numberCast's reading): the date-time text of a number in one of
// MySQL's date formats (for TIME, the time of day of a date-time sized
// number); every other value unchanged.
type numberDateArg struct {
	child sql.Expression
	kind  sql.Expression // a string literal: date, datetime or time
}

var _ sql.FunctionExpression = (*numberDateArg)(nil)

func (n *numberDateArg) FunctionName() string { return numberDateFunc }
func (n *numberDateArg) Description() string {
	return "reads a number cast to a date as MySQL does"
}

// Type is LONGTEXT for a number (the value may become the date's text),
// else the argument's.
func (n *numberDateArg) Type(ctx *sql.Context) sql.Type {
	if t := n.child.Type(ctx); !types.IsNumber(t) {
		return t
	}
	return types.LongText
}

func (n *numberDateArg) IsNullable(ctx *sql.Context) bool { return n.child.IsNullable(ctx) }

// String is the argument's: plans print the user's CAST.
func (n *numberDateArg) String() string                      { return n.child.String() }
func (n *numberDateArg) DebugString(ctx *sql.Context) string { return sql.DebugString(ctx, n.child) }
func (n *numberDateArg) Children() []sql.Expression          { return []sql.Expression{n.child, n.kind} }
func (n *numberDateArg) Resolved() bool                      { return n.child.Resolved() && n.kind.Resolved() }
func (n *numberDateArg) IsNonDeterministic() bool            { return false }

func (n *numberDateArg) WithChildren(_ *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 2 {
		return nil, sql.ErrInvalidChildrenNumber.New(n, len(children), 2)
	}
	return &numberDateArg{child: children[0], kind: children[1]}, nil
}

func (n *numberDateArg) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := n.child.Eval(ctx, row)
	if err != nil || v == nil || !isNumber(v) {
		return v, err
	}
	k, err := n.kind.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	kind, ok := k.(string)
	if !ok {
		return nil, fmt.Errorf("%s: the kind must be a string", numberDateFunc)
	}
	ds, ok := numericDate(v).(string)
	if !ok {
		return v, nil // not a date: go-mysql-server's conversion (NULL)
	}
	if strings.EqualFold(kind, "time") {
		if !bigNumber(v) {
			return v, nil // hhmmss: go-mysql-server's
		}
		return ds[strings.IndexByte(ds, ' ')+1:], nil
	}
	return ds, nil
}

// Date arithmetic folded (eleventh session)
//
// A DATE operand of + - * / DIV % is the number YYYYMMDD in MySQL
// (DATETIME and TIMESTAMP YYYYMMDDhhmmss: temporalNumber, writeconv.go);
// go-mysql-server reads a DATE as YYYYMMDDhhmmss. mysqlArithmetic fixes a
// column's arithmetic where the exec builder sees it, but a constant one
// (DATE('2024-01-01') + 1 in a WHERE) is folded by simplifyFilters first.
// So the parser wraps each operand of those operators that is a function
// call or a CAST (not a column, a literal, a subquery or an INTERVAL, whose
// + and - are date arithmetic) in sqlgw_temporal_number(x): a DATE,
// DATETIME or TIMESTAMP value becomes MySQL's number, any other passes.

const temporalNumberFunc = "sqlgw_temporal_number"

// TemporalNumberFunction is sqlgw_temporal_number(expr), registered by the
// engine.
var TemporalNumberFunction = sql.Function1{Name: temporalNumberFunc, Fn: func(_ *sql.Context, e sql.Expression) sql.Expression {
	return &temporalArg{child: e}
}}

// temporalOperands wraps b's operands (see above).
func temporalOperands(b *ast.BinaryExpr) {
	switch strings.ToLower(b.Operator) {
	case ast.PlusStr, ast.MinusStr, ast.MultStr, ast.DivStr, ast.IntDivStr, ast.ModStr, "mod":
	default:
		return
	}
	if _, ok := b.Left.(*ast.IntervalExpr); ok {
		return
	}
	if _, ok := b.Right.(*ast.IntervalExpr); ok {
		return
	}
	b.Left, b.Right = temporalOperand(b.Left), temporalOperand(b.Right)
}

func temporalOperand(e ast.Expr) ast.Expr {
	switch x := e.(type) {
	case *ast.FuncExpr:
		if x.Name.EqualString(temporalNumberFunc) || x.Name.EqualString(numberDateFunc) || x.Name.EqualString(unsignedArithFunc) {
			return e
		}
	case *ast.ConvertExpr:
	default:
		return e
	}
	return &ast.FuncExpr{Name: ast.NewColIdent(temporalNumberFunc), Exprs: ast.SelectExprs{&ast.AliasedExpr{Expr: e}}}
}

// temporalArg is an arithmetic operand as MySQL reads it: a DATE,
// DATETIME or TIMESTAMP as its number (temporalNumber), anything else
// unchanged.
type temporalArg struct {
	child sql.Expression
}

var _ sql.FunctionExpression = (*temporalArg)(nil)

func (t *temporalArg) FunctionName() string { return temporalNumberFunc }
func (t *temporalArg) Description() string {
	return "reads a date in arithmetic as MySQL does"
}

func (t *temporalArg) number() *temporalNumber {
	return &temporalNumber{UnaryExpressionStub: expression.UnaryExpressionStub{Child: t.child}}
}

func (t *temporalArg) Type(ctx *sql.Context) sql.Type {
	if dateOperand(ctx, t.child) {
		return t.number().Type(ctx)
	}
	return t.child.Type(ctx)
}

func (t *temporalArg) IsNullable(ctx *sql.Context) bool { return t.child.IsNullable(ctx) }

// String is the operand's: plans print the user's expression.
func (t *temporalArg) String() string                      { return t.child.String() }
func (t *temporalArg) DebugString(ctx *sql.Context) string { return sql.DebugString(ctx, t.child) }
func (t *temporalArg) Children() []sql.Expression          { return []sql.Expression{t.child} }
func (t *temporalArg) Resolved() bool                      { return t.child.Resolved() }
func (t *temporalArg) IsNonDeterministic() bool            { return false }

func (t *temporalArg) WithChildren(_ *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(t, len(children), 1)
	}
	return &temporalArg{child: children[0]}, nil
}

func (t *temporalArg) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	if dateOperand(ctx, t.child) {
		return t.number().Eval(ctx, row)
	}
	return t.child.Eval(ctx, row)
}

// Unsigned arithmetic in a SELECT list (eleventh session)
//
// MySQL's integer + - * is BIGINT UNSIGNED when either operand is
// unsigned; go-mysql-server's only when both are, and a SELECT's result
// column takes its type from the analyzed plan, where no sqlgw rule runs
// for a simple SELECT: checkedArith's unsigned 9223372036854775808 for
// u + 1 (u BIGINT UNSIGNED at 2^63-1) was sent as a BIGINT, clamped to
// 9223372036854775807. So the parser wraps each + - * of a SELECT list
// in sqlgw_unsigned_arith(a + b), which is BIGINT UNSIGNED where MySQL's
// is and computes as checkedArith. In a SELECT with GROUP BY (twelfth
// session) the GROUP BY's expressions are wrapped the same way, so that
// u + 1 in the list is still the grouped u + 1: go-mysql-server matches
// them by their text, and each wrapper prints as its operation.

const unsignedArithFunc = "sqlgw_unsigned_arith"

// UnsignedArithFunction is sqlgw_unsigned_arith(expr), registered by the
// engine.
var UnsignedArithFunction = sql.Function1{Name: unsignedArithFunc, Fn: func(_ *sql.Context, e sql.Expression) sql.Expression {
	return &unsignedArith{child: e}
}}

// unsignedResults wraps the + - * of sel's list and GROUP BY (see above).
func unsignedResults(sel *ast.Select) {
	var wrap func(e ast.Expr) ast.Expr
	wrap = func(e ast.Expr) ast.Expr {
		switch x := e.(type) {
		case *ast.ParenExpr:
			x.Expr = wrap(x.Expr)
		case *ast.BinaryExpr:
			switch x.Operator {
			case ast.PlusStr, ast.MinusStr, ast.MultStr:
			default:
				return e
			}
			if _, ok := x.Left.(*ast.IntervalExpr); ok {
				return e
			}
			if _, ok := x.Right.(*ast.IntervalExpr); ok {
				return e
			}
			x.Left, x.Right = wrap(x.Left), wrap(x.Right)
			return &ast.FuncExpr{Name: ast.NewColIdent(unsignedArithFunc), Exprs: ast.SelectExprs{&ast.AliasedExpr{Expr: x}}}
		}
		return e
	}
	for _, se := range sel.SelectExprs {
		if ae, ok := se.(*ast.AliasedExpr); ok {
			ae.Expr = wrap(ae.Expr)
		}
	}
	for i, g := range sel.GroupBy {
		sel.GroupBy[i] = wrap(g)
	}
}

// unsignedArith is integer + - * typed as MySQL types it: BIGINT UNSIGNED
// when an operand is unsigned; go-mysql-server's type otherwise.
type unsignedArith struct {
	child sql.Expression
}

var _ sql.FunctionExpression = (*unsignedArith)(nil)

func (u *unsignedArith) FunctionName() string { return unsignedArithFunc }
func (u *unsignedArith) Description() string {
	return "integer arithmetic typed as MySQL types it"
}

// checked is the child as checkedArith, if it is integer + - *.
func (u *unsignedArith) checked(ctx *sql.Context) *checkedArith {
	var a *expression.Arithmetic
	switch x := u.child.(type) {
	case *checkedArith:
		return x
	case *expression.Arithmetic:
		a = x
	default:
		return nil
	}
	switch a.Op {
	case "+", "-", "*":
	default:
		return nil
	}
	if !types.IsInteger(a.LeftChild.Type(ctx)) || !types.IsInteger(a.RightChild.Type(ctx)) {
		return nil
	}
	return &checkedArith{Arithmetic: a}
}

func (u *unsignedArith) Type(ctx *sql.Context) sql.Type {
	if c := u.checked(ctx); c != nil && c.unsigned(ctx) {
		return types.Uint64
	}
	return u.child.Type(ctx)
}

func (u *unsignedArith) IsNullable(ctx *sql.Context) bool { return u.child.IsNullable(ctx) }

// String is the operation's: plans print the user's expression.
func (u *unsignedArith) String() string                      { return u.child.String() }
func (u *unsignedArith) DebugString(ctx *sql.Context) string { return sql.DebugString(ctx, u.child) }
func (u *unsignedArith) Children() []sql.Expression          { return []sql.Expression{u.child} }
func (u *unsignedArith) Resolved() bool                      { return u.child.Resolved() }
func (u *unsignedArith) IsNonDeterministic() bool            { return false }

func (u *unsignedArith) WithChildren(_ *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(u, len(children), 1)
	}
	return &unsignedArith{child: children[0]}, nil
}

func (u *unsignedArith) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	if c := u.checked(ctx); c != nil {
		return c.Eval(ctx, row)
	}
	return u.child.Eval(ctx, row)
}
