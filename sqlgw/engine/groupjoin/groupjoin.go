// Package groupjoin is the analyzer rule that binds the partition key of
// joined table-group members (below). It needs of the engine's tables only
// their table group, which the engine hands it (Rule's groupOf).
//
// It imports go-mysql-server only: never the engine or anything above it,
// nor the catalog or the store (scripts/layering.sh checks it).
package groupjoin

import (
	"maps"
	"slices"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// The rule: the partition key of joined group members
//
// In SELECT ... FROM orders o JOIN order_lines l ON l.cust = o.cust ...
// WHERE o.cust = 7, only o's partition is bound; go-mysql-server does not
// derive l.cust = 7, so it scans order_lines whole (or looks it up per
// order) instead of reading partition 7, which the engine's statement (its tablegroup.go)
// read of the partition would have served for free. This rule, run before
// the engine's own, adds to a WHERE above inner joins the equalities with
// a constant that its conjuncts and the joins' conditions imply through
// column equalities (x = 7 and y = x give y = 7), for columns of tables of
// one table group whose SQL types are identical (so that the comparison
// means the same on both). The added conjuncts are implied by the others
// for every row the inner joins keep, so the result is unchanged; only
// inner and cross joins are looked through (an outer join's NULL rows
// would not satisfy them).

// RuleID is the rule's id among the analyzer's rules.
const RuleID analyzer.RuleId = 10_010

// Rule returns the rule (a pre-analyze rule: it runs before the engine's
// own). groupOf names the table group of a table, "" when it is in none or
// not one of the engine's.
func Rule(groupOf func(sql.Table) string) analyzer.RuleFunc {
	return func(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
		return apply(ctx, n, groupOf)
	}
}

func apply(ctx *sql.Context, n sql.Node, groupOf func(sql.Table) string) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(ctx, n, func(ctx *sql.Context, n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		f, ok := n.(*plan.Filter)
		if !ok {
			return n, transform.SameTree, nil
		}
		groups := map[string]string{} // table name or alias (lower) -> group (lower)
		var conds []sql.Expression
		if !innerJoins(f.Child, groupOf, groups, &conds) || len(conds) == 0 {
			return n, transform.SameTree, nil
		}
		added := impliedConstants(ctx, append(expression.SplitConjunction(ctx, f.Expression), conds...), groups)
		if len(added) == 0 {
			return n, transform.SameTree, nil
		}
		return plan.NewFilter(expression.JoinAnd(append([]sql.Expression{f.Expression}, added...)...), f.Child), transform.NewTree, nil
	})
}

// innerJoins walks inner and cross joins below n, collecting their
// conditions and the table group of each sqlgw table under them; false
// when n is not such a join.
func innerJoins(n sql.Node, groupOf func(sql.Table) string, groups map[string]string, conds *[]sql.Expression) bool {
	switch x := n.(type) {
	case *plan.JoinNode:
		if !x.Op.IsInner() {
			return false
		}
		if x.Filter != nil {
			*conds = append(*conds, x.Filter)
		}
		for _, c := range []sql.Node{x.Left(), x.Right()} {
			if !innerJoins(c, groupOf, groups, conds) {
				noteTable(c, groupOf, groups)
			}
		}
		return true
	}
	return false
}

// noteTable records the group of n when it is a (possibly aliased) group
// member.
func noteTable(n sql.Node, groupOf func(sql.Table) string, groups map[string]string) {
	name := ""
	if a, ok := n.(*plan.TableAlias); ok {
		name, n = a.Name(), a.Child
	}
	rt, ok := n.(*plan.ResolvedTable)
	if !ok {
		return
	}
	t := rt.UnderlyingTable()
	group := groupOf(t)
	if group == "" {
		return
	}
	if name == "" {
		name = t.Name()
	}
	groups[strings.ToLower(name)] = strings.ToLower(group)
}

// impliedConstants returns the equalities column = literal that conjuncts
// imply through column equalities and that they do not hold yet, for
// columns of group members (groups) of one group and one type.
func impliedConstants(ctx *sql.Context, conjuncts []sql.Expression, groups map[string]string) []sql.Expression {
	key := func(g *expression.GetField) string {
		return strings.ToLower(g.Table()) + "." + strings.ToLower(g.Name())
	}
	parent := map[string]string{}
	var find func(string) string
	find = func(k string) string {
		if p, ok := parent[k]; ok && p != k {
			r := find(p)
			parent[k] = r
			return r
		}
		return k
	}
	fields := map[string]*expression.GetField{}
	consts := map[string]*expression.Literal{} // column key -> its constant
	for _, c := range conjuncts {
		for _, sub := range expression.SplitConjunction(ctx, c) {
			eq, ok := sub.(*expression.Equals)
			if !ok {
				continue
			}
			l, lok := eq.Left().(*expression.GetField)
			r, rok := eq.Right().(*expression.GetField)
			switch {
			case lok && rok:
				gl, gr := groups[strings.ToLower(l.Table())], groups[strings.ToLower(r.Table())]
				if gl == "" || gl != gr || !l.Type(ctx).Equals(r.Type(ctx)) {
					continue
				}
				fields[key(l)], fields[key(r)] = l, r
				parent[find(key(l))] = find(key(r))
			case lok:
				if lit, ok := eq.Right().(*expression.Literal); ok && groups[strings.ToLower(l.Table())] != "" {
					fields[key(l)], consts[key(l)] = l, lit
				}
			case rok:
				if lit, ok := eq.Left().(*expression.Literal); ok && groups[strings.ToLower(r.Table())] != "" {
					fields[key(r)], consts[key(r)] = r, lit
				}
			}
		}
	}
	classConst := map[string]*expression.Literal{}
	for k, lit := range consts {
		classConst[find(k)] = lit
	}
	ks := slices.Sorted(maps.Keys(fields)) // a stable plan
	var out []sql.Expression
	for _, k := range ks {
		if _, has := consts[k]; has {
			continue
		}
		if lit, ok := classConst[find(k)]; ok {
			out = append(out, expression.NewEquals(fields[k], lit))
		}
	}
	return out
}
