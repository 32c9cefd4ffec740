package compat

import (
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// GROUP_CONCAT in HAVING
//
// MySQL evaluates an aggregate in HAVING whether or not the select list
// has it: SELECT a FROM t GROUP BY a HAVING GROUP_CONCAT(b) = '1,3'.
// go-mysql-server's planbuilder records HAVING's aggregates over the
// FROM clause's columns before it builds the grouping (analyzeHaving),
// but only function calls: GROUP_CONCAT is its own syntax node
// (ast.GroupConcatExpr), so it was built afterwards over the HAVING's
// scope, where a column only GROUP_CONCAT reads is unknown (1054 Unknown
// column 'b'), or, when another HAVING aggregate made it known, as an
// aggregate the grouping does not compute (1105 "unable to find field").
// ORDER BY records GROUP_CONCAT before the grouping is built, as the
// select list does. HavingGroupConcat therefore appends to such a
// SELECT's ORDER BY, for each GROUP_CONCAT of its HAVING, the key
// IF(FALSE, GROUP_CONCAT(...), NULL): the aggregate is recorded, and the
// key is NULL for every group, after the statement's own keys, so the
// order the statement asked for is unchanged (a SELECT without ORDER BY
// has no order of its groups in MySQL either). Not done in a subquery of
// an expression (go-mysql-server fails on ORDER BY GROUP_CONCAT there,
// and on such a HAVING: 1105 "unable to find field"), done in a derived
// table and under EXPLAIN.
//
// Upstream fix: analyzeHaving recording *ast.GroupConcatExpr as it does
// *ast.FuncExpr aggregates.
func HavingGroupConcat(st ast.Statement) {
	if st == nil {
		return
	}
	_ = ast.Walk(func(node ast.SQLNode) (bool, error) {
		switch x := node.(type) {
		case *ast.Explain:
			HavingGroupConcat(x.Statement)
			return false, nil
		case *ast.AliasedTableExpr:
			if sq, ok := x.Expr.(*ast.Subquery); ok && sq != nil {
				HavingGroupConcat(sq.Select) // a derived table
				return false, nil
			}
		case *ast.Subquery:
			// An expression's subquery (IN, EXISTS, a scalar one):
			// go-mysql-server fails on an ORDER BY GROUP_CONCAT there
			// (1105 "unable to find field"); it keeps its 1054.
			return false, nil
		case *ast.Select:
			if x != nil {
				havingGroupConcat(x)
			}
		}
		return true, nil
	}, st)
}

// havingGroupConcat appends s's ORDER BY keys (HavingGroupConcat).
func havingGroupConcat(s *ast.Select) {
	if s.Having == nil || s.Having.Expr == nil {
		return
	}
	var gcs []*ast.GroupConcatExpr
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		switch x := n.(type) {
		case *ast.Subquery:
			return false, nil
		case *ast.GroupConcatExpr:
			gcs = append(gcs, x)
			return false, nil
		}
		return true, nil
	}, s.Having.Expr)
	if len(gcs) == 0 {
		return
	}
	// The GROUP_CONCATs the select list or ORDER BY already has are
	// recorded (a second one of the same text is ambiguous to
	// go-mysql-server).
	known := map[string]bool{}
	record := func(n ast.SQLNode) {
		_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
			switch x := n.(type) {
			case *ast.Subquery:
				return false, nil
			case *ast.GroupConcatExpr:
				known[ast.String(x)] = true
				return false, nil
			}
			return true, nil
		}, n)
	}
	record(s.SelectExprs)
	record(s.OrderBy)
	for _, gc := range gcs {
		k := ast.String(gc)
		if known[k] {
			continue
		}
		known[k] = true
		key := &ast.FuncExpr{
			Name: ast.NewColIdent("if"),
			Exprs: ast.SelectExprs{
				&ast.AliasedExpr{Expr: ast.BoolVal(false)},
				&ast.AliasedExpr{Expr: gc},
				&ast.AliasedExpr{Expr: &ast.NullVal{}},
			},
		}
		s.OrderBy = append(s.OrderBy, &ast.Order{Expr: key, Direction: ast.AscScr})
	}
}
