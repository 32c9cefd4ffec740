package exprconv

import (
	"context"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/sqlgw/sqlgw/planner"
)

func TestExprConverter(t *testing.T) {
	ctx := sql.NewContext(context.Background())
	a := expression.NewGetFieldWithTable(0, 0, types.Int32, "d", "t", "a", false)
	b := expression.NewGetFieldWithTable(1, 0, types.Text, "d", "t", "B", true)
	lit := func(v any, typ sql.Type) sql.Expression { return expression.NewLiteral(v, typ) }
	conv := New(ctx, []string{"a", "b"})
	for _, tc := range []struct {
		e    sql.Expression
		want string
	}{
		{expression.NewEquals(a, lit(int8(5), types.Int8)), "a = 5"},
		{expression.NewLessThan(lit(int64(5), types.Int64), a), "a > 5"},
		{expression.NewInTuple(a, expression.NewTuple(lit(int8(1), types.Int8), lit(nil, types.Null))), "a IN (1, NULL)"},
		{expression.NewNot(expression.NewIsNull(b)), "NOT (B IS NULL)"},
		{expression.NewOr(expression.NewEquals(b, lit("x", types.Text)), expression.NewGreaterThanOrEqual(a, lit(int32(2), types.Int32))), "(B = 'x' OR a >= 2)"},
		{expression.NewEquals(function.NewLower(ctx, b), lit("x", types.Text)), "opaque"},
		{expression.NewEquals(a, b), "opaque"},
	} {
		x := conv.Convert(tc.e)
		names := func(i int) string { return []string{"a", "B"}[i] }
		got := planner.FormatExpr(x, names)
		if _, ok := x.(*planner.Opaque); ok {
			got = "opaque"
		}
		if got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.e, got, tc.want)
		}
	}
}
