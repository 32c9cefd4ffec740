package compat

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
)

// A division's value before its final rounding
//
// MySQL computes 1/3 as a DECIMAL whose value carries the fraction digits
// of its internal division, whole words of 9 digits beyond the operands'
// (decimal_div with div_precision_increment = 4): 0.333333333. The
// declared scale (4) only rounds what is shown or converted through the
// item's type; every consumer of the value itself sees the 9 digits:
// ROUND(1/3, 6) is 0.333333, TRUNCATE(1/3, 6) 0.333333, FORMAT(1/3, 6)
// '0.333333', and a FLOAT, DOUBLE or DECIMAL column written with it
// (engine/floatdiv.go). go-mysql-server computes the same digits
// (expression.Div) but rounds the outermost operation of an arithmetic
// chain to the declared scale. Unrounded is a copy of such a chain with
// that rounding off (go-mysql-server's own switch for it, the operation
// count -1 that its comparisons use).

// ChainHasDiv: e is an arithmetic chain (+ - * / from e down) with a
// division.
func ChainHasDiv(e sql.Expression) bool {
	switch x := e.(type) {
	case *expression.Div:
		return true
	case *expression.Arithmetic:
		return ChainHasDiv(x.Left()) || ChainHasDiv(x.Right())
	}
	return false
}

// Unrounded is an arithmetic chain with a division whose final rounding is
// off. It holds a fresh copy of the chain (the plan's expressions may be
// shared, cached plans), and copies again whenever the analyzer rebuilds
// its child (assigning execution indexes rebuilds the operations, and
// their constructors reset the count).
type Unrounded struct {
	expression.UnaryExpressionStub
}

var _ sql.Expression = (*Unrounded)(nil)

// NewUnrounded returns chain (an arithmetic chain with a division,
// ChainHasDiv) copied without its final rounding.
func NewUnrounded(chain sql.Expression) *Unrounded {
	c := copyChain(chain)
	setChainOps(c)
	return &Unrounded{UnaryExpressionStub: expression.UnaryExpressionStub{Child: c}}
}

func (u *Unrounded) Type(ctx *sql.Context) sql.Type { return u.Child.Type(ctx) }

func (u *Unrounded) IsNullable(ctx *sql.Context) bool { return u.Child.IsNullable(ctx) }

func (u *Unrounded) Eval(ctx *sql.Context, row sql.Row) (any, error) { return u.Child.Eval(ctx, row) }

func (u *Unrounded) String() string { return u.Child.String() }

func (u *Unrounded) DebugString(ctx *sql.Context) string {
	return fmt.Sprintf("unrounded(%s)", sql.DebugString(ctx, u.Child))
}

func (u *Unrounded) WithChildren(ctx *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(u, len(children), 1)
	}
	return NewUnrounded(children[0]), nil
}

// copyChain rebuilds e's arithmetic chain node by node (the constructors
// reset the nodes' operation counts, only the new nodes' are touched).
func copyChain(e sql.Expression) sql.Expression {
	switch x := e.(type) {
	case *expression.Div:
		return expression.NewDiv(copyChain(x.Left()), copyChain(x.Right()))
	case *expression.Arithmetic:
		return expression.NewArithmetic(copyChain(x.Left()), copyChain(x.Right()), x.Op)
	}
	return e
}

// setChainOps marks every operation of a copied chain as not the
// outermost one (go-mysql-server's count -1, as its comparisons do), so
// none rounds its result to the declared scale.
func setChainOps(e sql.Expression) {
	switch x := e.(type) {
	case *expression.Div:
		x.SetOpCount(-1)
		setChainOps(x.Left())
		setChainOps(x.Right())
	case *expression.Arithmetic:
		x.SetOpCount(-1)
		setChainOps(x.Left())
		setChainOps(x.Right())
	}
}
