package compat

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// Nullability of outer-joined columns
//
// A column of the inner side of an outer join (the right table of LEFT
// JOIN, the left of RIGHT JOIN, both of FULL JOIN) is NULL for outer rows,
// and MySQL's result metadata says so: no NOT_NULL flag. go-mysql-server
// makes the join's own schema nullable but projects the column through a
// GetField that keeps the table column's NOT NULL, so clients saw NOT_NULL
// on a column that carries NULLs (JDBC's isNullable, ORMs that map it to
// a non-optional field, drivers that skip the null check). The pushdown
// rule (sqlgw/engine, rules.go) calls OuterJoinNullable, which marks such GetFields of
// every projection nullable. Only metadata changes: values and plans are
// the same.

// OuterJoinNullable returns n with the projected GetFields of inner-side
// tables of outer joins nullable (n itself when there are none).
func OuterJoinNullable(ctx *sql.Context, n sql.Node) sql.Node {
	inner := map[string]bool{}
	transform.Inspect(n, func(n sql.Node) bool {
		j, ok := n.(*plan.JoinNode)
		if !ok {
			return true
		}
		if j.Op.IsLeftOuter() || j.Op.IsFullOuter() {
			tableNames(ctx, j.Right(), inner)
		}
		if j.Op.IsRightOuter() || j.Op.IsFullOuter() {
			tableNames(ctx, j.Left(), inner)
		}
		return true
	})
	if len(inner) == 0 {
		return n
	}
	out, _, err := transform.Node(ctx, n, func(ctx *sql.Context, n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		p, ok := n.(*plan.Project)
		if !ok {
			return n, transform.SameTree, nil
		}
		exprs := make([]sql.Expression, len(p.Projections))
		changed := false
		for i, e := range p.Projections {
			ne, same, err := transform.Expr(ctx, e, func(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
				gf, ok := e.(*expression.GetField)
				if !ok || gf.IsNullable(ctx) || !inner[strings.ToLower(gf.Table())] {
					return e, transform.SameTree, nil
				}
				ng := expression.NewGetFieldWithTable(gf.Index(), int(gf.TableId()), gf.Type(ctx), gf.Database(), gf.Table(), gf.Name(), true)
				if id, ok := ng.WithId(gf.Id()).(*expression.GetField); ok {
					ng = id
				}
				return ng, transform.NewTree, nil
			})
			if err != nil {
				return nil, transform.SameTree, err
			}
			exprs[i] = ne
			changed = changed || same == transform.NewTree
		}
		if !changed {
			return n, transform.SameTree, nil
		}
		np, err := p.WithExpressions(ctx, exprs...)
		if err != nil {
			return nil, transform.SameTree, err
		}
		return np, transform.NewTree, nil
	})
	if err != nil {
		return n // metadata only: keep the plan as it was
	}
	return out
}

// tableNames adds the lower-cased names (aliases) of the tables under n.
func tableNames(ctx *sql.Context, n sql.Node, names map[string]bool) {
	transform.Inspect(n, func(n sql.Node) bool {
		switch x := n.(type) {
		case *plan.TableAlias:
			// The alias names the rows, not the table under it (which
			// may also be on the other side: f LEFT JOIN f AS f2).
			names[strings.ToLower(x.Name())] = true
			return false
		case *plan.SubqueryAlias:
			names[strings.ToLower(x.Name())] = true
			return false
		case *plan.ResolvedTable:
			names[strings.ToLower(x.Name())] = true
		case *plan.IndexedTableAccess:
			names[strings.ToLower(x.Name())] = true
		}
		return true
	})
}
