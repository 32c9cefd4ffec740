package engine

import (
	"fmt"
	"math"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/rowexec"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// TestProjectRowsSameAsProjectRow: projectRows (the row itself for its own
// columns in order, a reused row at the top of the plan) returns what
// go-mysql-server's ProjectRow returns, negative zeros of float32 and
// float64 made positive, strings, NULLs and integers as they are, for
// projections in order, reordered, repeated and aliased, and a row too
// short for a column (ProjectRow's error).
func TestProjectRowsSameAsProjectRow(t *testing.T) {
	ctx := sql.NewEmptyContext()
	negZero := math.Copysign(0, -1)
	rows := []sql.Row{
		{"a", int64(1), negZero},
		{nil, float32(negZero), 2.5},
		{"b", int32(-3), nil},
		{negZero, "c", float32(0)},
	}
	gf := func(i int) sql.Expression { return expression.NewGetField(i, types.Float64, fmt.Sprint("c", i), true) }
	projections := [][]sql.Expression{
		{gf(0), gf(1), gf(2)},
		{gf(0), expression.NewAlias("x", gf(1)), gf(2)},
		{gf(2)},
		{gf(1), gf(0)},
		{gf(2), gf(2), gf(0)},
		{gf(0), gf(1), gf(2), gf(3)},
	}
	for pi, exprs := range projections {
		for _, top := range []bool{false, true} {
			p := newProjectRows(sql.RowsToRowIter(rows...), exprs, top)
			for ri, row := range rows {
				got, gerr := p.Next(ctx)
				want, werr := rowexec.ProjectRow(ctx, exprs, row)
				if fmt.Sprint(gerr) != fmt.Sprint(werr) {
					t.Fatalf("projection %d top %v row %d: error %v, ProjectRow's %v", pi, top, ri, gerr, werr)
				}
				if g, w := fmt.Sprintf("%#v", got), fmt.Sprintf("%#v", want); g != w {
					t.Fatalf("projection %d top %v row %d: %s, ProjectRow's %s", pi, top, ri, g, w)
				}
				for i, v := range got {
					if f, ok := v.(float64); ok && math.Signbit(f) {
						t.Fatalf("projection %d top %v row %d: column %d is negative zero", pi, top, ri, i)
					}
					if f, ok := v.(float32); ok && math.Signbit(float64(f)) {
						t.Fatalf("projection %d top %v row %d: column %d is negative zero", pi, top, ri, i)
					}
				}
			}
		}
	}
}
