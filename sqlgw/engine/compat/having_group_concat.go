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
// has no order of its groups in MySQL either). Done in a derived table,
// under EXPLAIN, and in a subquery of an expression (WHERE a IN (SELECT
// ... HAVING GROUP_CONCAT(s) = 'x'), where the key's GROUP_CONCAT has its
// columns qualified by the subquery's one table (qualifiedCopy: there
// go-mysql-server resolved them in the outer query, and failed with 1105
// "unable to find field"). Still 1105: such a subquery over more than one
// table, or over a table of the outer query's name without an alias.
//
// Upstream fix: analyzeHaving recording *ast.GroupConcatExpr as it does
// *ast.FuncExpr aggregates.
func HavingGroupConcat(st ast.Statement) { havingGroupConcatWalk(st, false) }

// havingGroupConcatWalk rewrites the SELECTs of st; sub: st is (inside) a
// subquery of an expression.
func havingGroupConcatWalk(st ast.SQLNode, sub bool) {
	if st == nil {
		return
	}
	_ = ast.Walk(func(node ast.SQLNode) (bool, error) {
		switch x := node.(type) {
		case *ast.Explain:
			havingGroupConcatWalk(x.Statement, sub)
			return false, nil
		case *ast.AliasedTableExpr:
			if sq, ok := x.Expr.(*ast.Subquery); ok && sq != nil {
				havingGroupConcatWalk(sq.Select, sub) // a derived table
				return false, nil
			}
		case *ast.Subquery:
			if x != nil {
				havingGroupConcatWalk(x.Select, true)
			}
			return false, nil
		case *ast.Select:
			if x != nil {
				havingGroupConcat(x, sub)
			}
		}
		return true, nil
	}, st)
}

func havingGroupConcat(s *ast.Select, sub bool) {
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
	var table ast.TableName
	if sub {
		var ok bool
		if table, ok = singleTable(s.From); !ok {
			return
		}
	}
	for _, gc := range gcs {
		k := ast.String(gc)
		if known[k] {
			continue
		}
		known[k] = true
		var agg ast.Expr = gc
		if sub {
			q := qualifiedCopy(gc, table)
			if q == nil {
				continue
			}
			agg = q
		}
		key := &ast.FuncExpr{
			Name: ast.NewColIdent("if"),
			Exprs: ast.SelectExprs{
				&ast.AliasedExpr{Expr: ast.BoolVal(false)},
				&ast.AliasedExpr{Expr: agg},
				&ast.AliasedExpr{Expr: &ast.NullVal{}},
			},
		}
		s.OrderBy = append(s.OrderBy, &ast.Order{Expr: key, Direction: ast.AscScr})
	}
}

// singleTable returns the name a SELECT's only table goes by (its alias,
// else its name), when its FROM is one table.
func singleTable(from ast.TableExprs) (ast.TableName, bool) {
	if len(from) != 1 {
		return ast.TableName{}, false
	}
	at, ok := from[0].(*ast.AliasedTableExpr)
	if !ok || at == nil {
		return ast.TableName{}, false
	}
	tn, ok := at.Expr.(ast.TableName)
	if !ok {
		return ast.TableName{}, false
	}
	if !at.As.IsEmpty() {
		return ast.TableName{Name: at.As}, true
	}
	return ast.TableName{Name: tn.Name, DbQualifier: tn.DbQualifier}, true
}

// qualifiedCopy returns a copy of gc (parsed again from its text) whose
// unqualified columns name table: in a subquery of an expression,
// go-mysql-server's ORDER BY resolves GROUP_CONCAT's unqualified columns
// in the outer query first (GROUP_CONCAT(s) read the outer t.s, and the
// statement failed with 1105 "unable to find field"); MySQL resolves them
// in the subquery's own FROM, here its one table. nil if it does not
// parse back.
func qualifiedCopy(gc *ast.GroupConcatExpr, table ast.TableName) *ast.GroupConcatExpr {
	st, err := ast.Parse("SELECT " + ast.String(gc))
	if err != nil {
		return nil
	}
	sel, ok := st.(*ast.Select)
	if !ok || len(sel.SelectExprs) != 1 {
		return nil
	}
	ae, ok := sel.SelectExprs[0].(*ast.AliasedExpr)
	if !ok {
		return nil
	}
	cp, ok := ae.Expr.(*ast.GroupConcatExpr)
	if !ok {
		return nil
	}
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		switch c := n.(type) {
		case *ast.Subquery:
			return false, nil
		case *ast.ColName:
			if c != nil && c.Qualifier.IsEmpty() {
				c.Qualifier = table
			}
		}
		return true, nil
	}, cp)
	return cp
}
