package engine

import (
	"slices"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/sqlgw/sqlgw/planner"
	"github.com/sqlgw/sqlgw/sqlgw/engine/compat"
)

// Analyzer rule: ORDER BY and LIMIT pushdown
//
// go-mysql-server has no table interface for LIMIT and eliminates sorts
// only over MySQLRangeCollection lookups. This rule runs after the engine's
// own rules and, for sqlgw tables:
//
//   - drops a Sort (or turns a TopN into a Limit) above a lookup whose plan
//     delivers rows in the requested order (plan.Order);
//   - pushes a constant LIMIT (plus OFFSET) through projections into the
//     table, where the planner turns it into the store's Top when every
//     entity returned is a result row.
//
// go-mysql-server skips custom rules for the simplest statements (a
// single-table SELECT without LIMIT or ORDER BY); those need neither.

const pushdownRuleID analyzer.RuleId = 10_000

func pushdownRule(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	n, same, err := transform.Node(ctx, compat.OuterJoinNullable(ctx, n), convertStaticRanges) // compat/outer_join_nullable.go
	if err != nil {
		return nil, transform.SameTree, err
	}
	n, sameIn, err := transform.Node(ctx, n, inToEqualities)
	if err != nil {
		return nil, transform.SameTree, err
	}
	n, sameDate, err := transform.Node(ctx, n, dateNumbers)
	if err != nil {
		return nil, transform.SameTree, err
	}
	same = same && sameIn && sameDate
	out, changed, err := rewrite(ctx, n)
	if err != nil {
		return nil, transform.SameTree, err
	}
	if !changed && same == transform.SameTree {
		return n, transform.SameTree, nil
	}
	return out, transform.NewTree, nil
}

// convertStaticRanges replaces a static lookup the engine built itself
// (MySQLRangeCollection on PRIMARY, e.g. for ORDER BY the key) by the
// equivalent plan, so that EXPLAIN names the access path and LIMIT can be
// pushed. The plan keeps key order, so a sort the engine removed stays
// removed correctly.
func convertStaticRanges(ctx *sql.Context, n sql.Node) (sql.Node, transform.TreeIdentity, error) {
	ita, ok := n.(*plan.IndexedTableAccess)
	if !ok || !ita.IsStatic() {
		return n, transform.SameTree, nil
	}
	t, ok := ita.Table.(*Table)
	if !ok {
		return n, transform.SameTree, nil
	}
	lookup, _, err := ita.GetLookup(ctx, nil)
	if err != nil {
		return n, transform.SameTree, nil
	}
	ranges, ok := lookup.Ranges.(sql.MySQLRangeCollection)
	if !ok || lookup.IsReverse {
		return n, transform.SameTree, nil
	}
	if _, sec := lookup.Index.(*secondaryIndex); sec {
		return n, transform.SameTree, nil // index order: rangesToPlanFor
	}
	pr, err := t.rangesToPlan(ctx, ranges)
	if err != nil {
		return nil, transform.SameTree, err
	}
	nl := sql.IndexLookup{Index: lookup.Index, Ranges: pr, IsPointLookup: lookup.IsPointLookup, IsEmptyRange: lookup.IsEmptyRange}
	out, err := plan.NewStaticIndexedAccessForTableNode(ctx, ita.TableNode, nl)
	if err != nil {
		return n, transform.SameTree, nil
	}
	return out, transform.NewTree, nil
}

func rewrite(ctx *sql.Context, n sql.Node) (sql.Node, bool, error) {
	switch x := n.(type) {
	case *plan.Sort:
		if src := findSource(ctx, x.Child, true); src != nil && src.ordered(ctx, x.SortFields) {
			out, _, err := rewrite(ctx, x.Child)
			return out, true, err
		}
	case *plan.TopN:
		if src := findSource(ctx, x.Child, true); !x.CalcFoundRows && src != nil && src.ordered(ctx, x.Fields) {
			out, _, err := rewrite(ctx, plan.NewLimit(x.Limit, x.Child))
			return out, true, err
		}
		if child, ok := orderedAccess(ctx, x); ok {
			out, _, err := rewrite(ctx, plan.NewLimit(x.Limit, child))
			return out, true, err
		}
	case *plan.Limit:
		if lim, ok := constInt(ctx, x.Limit); ok && !x.CalcFoundRows && lim > 0 {
			child := x.Child
			if off, isOff := child.(*plan.Offset); isOff {
				o, ok := constInt(ctx, off.Offset)
				if !ok {
					break
				}
				lim += o
				child = off.Child
			}
			if pushLimit(ctx, child, lim) {
				// The Limit stays: the table only fetches less.
				return n, false, nil
			}
		}
	}
	children := n.Children()
	if len(children) == 0 {
		return n, false, nil
	}
	var changed bool
	newChildren := make([]sql.Node, len(children))
	for i, c := range children {
		nc, ch, err := rewrite(ctx, c)
		if err != nil {
			return nil, false, err
		}
		newChildren[i] = nc
		changed = changed || ch
	}
	if !changed {
		return n, false, nil
	}
	out, err := n.WithChildren(ctx, newChildren...)
	return out, true, err
}

// orderedAccess turns "ORDER BY cols LIMIT n" over a whole sqlgw table
// (through projections and an alias) into a read in that order, when the
// planner has one: the key order (a table scan with Top n, e.g. ORDER BY
// a, b DESC on PRIMARY KEY (a, b DESC), which go-mysql-server does not
// match with an index), or a secondary index whose order is cols (the
// first n entries of the index and their rows, planner.IndexRange). It
// returns the TopN's new child.
func orderedAccess(ctx *sql.Context, x *plan.TopN) (sql.Node, bool) {
	lim, ok := constInt(ctx, x.Limit)
	if !ok || lim <= 0 || x.CalcFoundRows {
		return nil, false
	}
	var rt *plan.ResolvedTable
	alias := ""
	for n := x.Child; rt == nil; {
		switch c := n.(type) {
		case *plan.Project:
			n = c.Child
		case *plan.TableAlias:
			alias = c.Name()
			n = c.Child
		case *plan.ResolvedTable:
			rt = c
		default:
			return nil, false
		}
	}
	t, ok := rt.Table.(*Table)
	if !ok || t.gw.unsorted || (t.meta().Keyless() && len(readyIndexes(t.meta())) == 0) {
		return nil, false
	}
	src := &source{t: t, alias: alias}
	var order []planner.OrderColumn
	for _, f := range x.Fields {
		gf, ok := f.Column.(*expression.GetField)
		if !ok || !src.names(gf.Table()) {
			return nil, false
		}
		col := t.meta().ColumnIndex(gf.Name())
		if col < 0 {
			return nil, false
		}
		order = append(order, planner.OrderColumn{Col: col, Desc: f.Order == sql.Descending})
	}
	q := &planner.Query{Columns: t.proj, OrderBy: order, Limit: lim}
	p, err := t.planIn(ctx, q)
	if err != nil || !p.OrderSatisfied || len(p.Residual) > 0 {
		return nil, false
	}
	var index sql.Index = t.primaryIndex()
	if t.meta().Keyless() {
		if index = t.keylessLookupIndex(p); index == nil {
			return nil, false
		}
	}
	lookup := sql.IndexLookup{Index: index,
		Ranges: &planRanges{plan: p, t: t, cols: t.proj, order: order, noIndex: q.NoIndex}}
	access, err := plan.NewStaticIndexedAccessForTableNode(ctx, rt, lookup)
	if err != nil {
		return nil, false
	}
	out, _, err := transform.Node(ctx, x.Child, func(ctx *sql.Context, n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		if n == rt {
			return access, transform.NewTree, nil
		}
		return n, transform.SameTree, nil
	})
	if err != nil {
		return nil, false
	}
	return out, true
}

func constInt(ctx *sql.Context, e sql.Expression) (int64, bool) {
	lit, ok := e.(*expression.Literal)
	if !ok {
		return 0, false
	}
	switch v := lit.Value().(type) {
	case int8:
		return int64(v), true
	case int16:
		return int64(v), true
	case int32:
		return int64(v), true
	case int64:
		return v, true
	case uint8:
		return int64(v), true
	case uint16:
		return int64(v), true
	case uint32:
		return int64(v), true
	case uint64:
		if v < 1<<62 {
			return int64(v), true
		}
	}
	return 0, false
}

// source is a static lookup on a sqlgw table found under a Sort/TopN.
type source struct {
	ita   *plan.IndexedTableAccess
	t     *Table
	alias string
	pr    *planRanges
}

// findSource walks down projections (and, for sorts, filters, which keep
// the order) to a static sqlgw lookup.
func findSource(ctx *sql.Context, n sql.Node, throughFilter bool) *source {
	alias := ""
	for {
		switch x := n.(type) {
		case *plan.Project:
			n = x.Child
			continue
		case *plan.Filter:
			if !throughFilter {
				return nil
			}
			n = x.Child
			continue
		case *plan.TableAlias:
			alias = x.Name()
			n = x.Child
			continue
		case *plan.IndexedTableAccess:
			t, ok := x.Table.(*Table)
			if !ok || !x.IsStatic() {
				return nil
			}
			lookup, _, err := x.GetLookup(ctx, nil)
			if err != nil {
				return nil
			}
			pr, ok := lookup.Ranges.(*planRanges)
			if !ok {
				return nil
			}
			return &source{ita: x, t: t, alias: alias, pr: pr}
		}
		return nil
	}
}

// ordered reports whether the lookup's rows already arrive sorted by
// fields, asking the planner (which knows that key columns bound by
// equality do not matter for the order).
func (s *source) ordered(ctx *sql.Context, fields sql.SortFields) bool {
	r := s.pr
	if r.t == nil || !r.plan.Ordered || s.t.gw.unsorted {
		return false
	}
	var order []planner.OrderColumn
	for _, f := range fields {
		gf, ok := f.Column.(*expression.GetField)
		if !ok || !s.names(gf.Table()) {
			return false
		}
		col := s.t.meta().ColumnIndex(gf.Name())
		if col < 0 {
			return false
		}
		order = append(order, planner.OrderColumn{Col: col, Desc: f.Order == sql.Descending})
	}
	p, err := r.t.plan(&planner.Query{Where: r.where, Columns: r.cols, OrderBy: order, NoIndex: r.noIndex})
	if err != nil || !p.OrderSatisfied || p.Path != r.plan.Path || len(p.Residual) != len(r.plan.Residual) {
		return false
	}
	r.plan = p
	r.order = order
	return true
}

func (s *source) names(table string) bool {
	table = strings.ToLower(table)
	return table == strings.ToLower(s.t.Name()) || (s.alias != "" && table == strings.ToLower(s.alias))
}

// pushLimit hands a row limit to the sqlgw table under n (through
// projections and aliases only: a filter above the table would drop rows
// after the limit). It reports whether it did.
func pushLimit(ctx *sql.Context, n sql.Node, limit int64) bool {
	for {
		switch x := n.(type) {
		case *plan.Project:
			n = x.Child
			continue
		case *plan.TableAlias:
			n = x.Child
			continue
		case *plan.IndexedTableAccess:
			t, ok := x.Table.(*Table)
			if !ok || !x.IsStatic() {
				return false
			}
			lookup, _, err := x.GetLookup(ctx, nil)
			if err != nil {
				return false
			}
			switch r := lookup.Ranges.(type) {
			case *planRanges:
				return r.setLimit(limit)
			case sql.MySQLRangeCollection:
				t.setLimit(limit)
				return true
			}
			return false
		case *plan.ResolvedTable:
			t, ok := x.Table.(*Table)
			if !ok {
				return false
			}
			t.setLimit(limit)
			return true
		}
		return false
	}
}

// setLimit re-plans with a limit. The planRanges belongs to this query's
// plan only (go-mysql-server has no plan cache), so it is updated in place.
func (r *planRanges) setLimit(limit int64) bool {
	if r.where == nil && r.t == nil {
		return false
	}
	p, err := r.t.plan(&planner.Query{Where: r.where, Columns: r.cols, Limit: limit, OrderBy: r.order, NoIndex: r.noIndex})
	if err != nil {
		return false
	}
	// Same path and residual: only Top (and cost) may change.
	if p.Path != r.plan.Path || len(p.Residual) != len(r.plan.Residual) {
		return false
	}
	r.plan = p
	return true
}

// setLimit records a row limit on this table value. Tables reached from a
// query plan are that query's own copies (GetTableInsensitive builds a new
// value per query), so setting it in place affects only that query.
func (t *Table) setLimit(limit int64) { t.limit = limit }

// inToEqualities rewrites "col [NOT] IN (literals...)" on a string column of
// a non-binary collation into the equivalent OR of equalities.
// go-mysql-server's HashInTuple hashes the list under the compare type of
// the column and the first literal, i.e. the literal's (binary) collation,
// so name IN ('clara', 'DAVE') on a utf8mb4_general_ci column compared
// case-sensitively; its Equals takes the column's collation (implicit
// coercibility wins), as MySQL does. x IN (a, b) and x = a OR x = b agree
// on TRUE, FALSE and NULL, so the rewrite is exact.
func inToEqualities(ctx *sql.Context, n sql.Node) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprs(ctx, n, inToEqualitiesExpr)
}

// inToEqualitiesExpr is inToEqualities on one expression node.
func inToEqualitiesExpr(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
	var l, r sql.Expression
	switch e := e.(type) {
	case *expression.HashInTuple:
		l, r = e.Left(), e.Right()
	case *expression.InTuple:
		l, r = e.Left(), e.Right()
	default:
		return e, transform.SameTree, nil
	}
	gf, ok := l.(*expression.GetField)
	if !ok || !collatedText(gf.Type(ctx)) {
		return e, transform.SameTree, nil
	}
	tup, ok := r.(expression.Tuple)
	if !ok || len(tup) == 0 {
		return e, transform.SameTree, nil
	}
	var out sql.Expression
	for _, x := range tup {
		if _, ok := x.(*expression.Literal); !ok {
			return e, transform.SameTree, nil
		}
		eq := expression.NewEquals(gf, x)
		if out == nil {
			out = eq
		} else {
			out = expression.NewOr(out, eq)
		}
	}
	return out, transform.NewTree, nil
}

// collatedText reports whether t is a text type whose collation is not
// binary (compares case- or accent-insensitively).
func collatedText(t sql.Type) bool {
	st, ok := t.(sql.StringType)
	if !ok || !types.IsTextOnly(st) {
		return false
	}
	c := st.Collation()
	return c != sql.Collation_binary && !strings.HasSuffix(c.Name(), "_bin")
}

// dateNumbers rewrites a number literal compared with a DATE, DATETIME or
// TIMESTAMP column (=, <=>, <, <=, >, >=, BETWEEN with the column first,
// [NOT] IN: inDateNumbers) into the date-time it denotes, as MySQL
// converts it: 20240102 is '2024-01-02', 20240102103000 '2024-01-02
// 10:30:00' (numberDateTime; DATETIME and TIMESTAMP columns since the
// twelfth session). go-mysql-server compares them as DATETIMEs without
// that conversion and returns wrong rows. Only numbers that name a valid
// date are rewritten; any other literal is left as it is.
func dateNumbers(ctx *sql.Context, n sql.Node) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprs(ctx, n, dateNumbersExpr)
}

// dateNumbersExpr is dateNumbers on one expression node (and
// stringNumbers, stringbounds.go).
func dateNumbersExpr(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
	if ne, ok := stringNumbers(ctx, e); ok {
		return ne, transform.NewTree, nil
	}
	if ne, ok := floatDecimals(ctx, e); ok { // floatcompare.go
		return ne, transform.NewTree, nil
	}
	switch e := e.(type) {
	case *expression.InTuple:
		return inDateNumbers(ctx, e)
	case *expression.Equals, *expression.NullSafeEquals, *expression.LessThan, *expression.LessThanOrEqual,
		*expression.GreaterThan, *expression.GreaterThanOrEqual:
	case *expression.Between:
		if !dateColumn(ctx, e.Children()[0]) {
			return e, transform.SameTree, nil
		}
	default:
		return e, transform.SameTree, nil
	}
	ch := e.Children()
	hasCol := false
	for _, c := range ch {
		hasCol = hasCol || dateColumn(ctx, c)
	}
	if !hasCol {
		return e, transform.SameTree, nil
	}
	out := make([]sql.Expression, len(ch))
	changed := false
	for i, c := range ch {
		out[i] = c
		lit, ok := c.(*expression.Literal)
		if !ok {
			continue
		}
		if !isNumber(lit.Value()) {
			continue
		}
		if d, ok := numberDateTime(ctx, lit.Value()); ok {
			out[i] = d
			changed = true
		}
	}
	if !changed {
		return e, transform.SameTree, nil
	}
	ne, err := e.WithChildren(ctx, out...)
	if err != nil {
		return nil, transform.SameTree, err
	}
	return ne, transform.NewTree, nil
}

// fixComparisons applies the expression rewrites of inToEqualities and
// dateNumbers to one filter expression. The analyzer rule reaches only the
// statements that run sqlgw's rules; go-mysql-server's fast paths for simple
// SELECT, UPDATE and DELETE skip them but still hand their WHERE conjuncts
// to LookupForExpressions, whose residual replaces the filter: applying the
// rewrites there keeps those statements from selecting (and deleting or
// updating) the wrong rows.
func fixComparisons(ctx *sql.Context, e sql.Expression) (sql.Expression, error) {
	e, _, err := transform.Expr(ctx, e, inToEqualitiesExpr)
	if err != nil {
		return nil, err
	}
	e, _, err = transform.Expr(ctx, e, dateNumbersExpr)
	return e, err
}

// inDateNumbers rewrites the number literals of "col [NOT] IN (...)" on
// a DATE, DATETIME or TIMESTAMP column into the date-times they denote
// (twelfth session): MySQL compares them as date-times, reading 20240102
// as '2024-01-02' and 20240102103000 as '2024-01-02 10:30:00'
// (number_to_datetime, numericDate). go-mysql-server hashes the list under
// the column's type and fails with 1105 "Incorrect datetime value:
// '20240102'" (applyHashIn), or, in a list mixing numbers and strings,
// never matches the numbers. A number that is no date is left as it is.
// A DATE column compared with a date-time that has a time of day stays a
// DATETIME comparison (d IN (20240102103000) is false for 2024-01-02), as
// in MySQL.
func inDateNumbers(ctx *sql.Context, in *expression.InTuple) (sql.Expression, transform.TreeIdentity, error) {
	tup, ok := in.Right().(expression.Tuple)
	if !ok {
		return in, transform.SameTree, nil
	}
	var out expression.Tuple
	set := func(i int, x sql.Expression) {
		if out == nil {
			out = slices.Clone(tup)
		}
		out[i] = x
	}
	switch l := in.Left().(type) {
	case *expression.GetField:
		if !types.IsTime(l.Type(ctx)) {
			return in, transform.SameTree, nil
		}
		for i, x := range tup {
			if d, ok := dateNumberLiteral(ctx, x); ok {
				set(i, d)
			}
		}
	case expression.Tuple: // (id, d) IN ((1, 20240102), ...)
		for i, x := range tup {
			row, ok := x.(expression.Tuple)
			if !ok || len(row) != len(l) {
				continue
			}
			var nrow expression.Tuple
			for j, v := range row {
				if !dateColumn(ctx, l[j]) {
					continue
				}
				if d, ok := dateNumberLiteral(ctx, v); ok {
					if nrow == nil {
						nrow = slices.Clone(row)
					}
					nrow[j] = d
				}
			}
			if nrow != nil {
				set(i, nrow)
			}
		}
	}
	if out == nil {
		return in, transform.SameTree, nil
	}
	ne, err := in.WithChildren(ctx, in.Left(), out)
	if err != nil {
		return nil, transform.SameTree, err
	}
	return ne, transform.NewTree, nil
}

// dateNumberLiteral is x as numberDateTime's literal when x is a number
// literal that is a date.
func dateNumberLiteral(ctx *sql.Context, x sql.Expression) (*expression.Literal, bool) {
	lit, ok := x.(*expression.Literal)
	if !ok || !isNumber(lit.Value()) {
		return nil, false
	}
	return numberDateTime(ctx, lit.Value())
}

// numberDateTime is the DATE (a number without a time of day) or
// DATETIME(6) literal of a number in one of MySQL's numeric date formats.
func numberDateTime(ctx *sql.Context, v any) (*expression.Literal, bool) {
	s, ok := numericDate(v).(string)
	if !ok {
		return nil, false
	}
	c, _, err := types.DatetimeMaxPrecision.Convert(ctx, s)
	t, ok := c.(time.Time)
	if err != nil || !ok || t.Year() <= 0 {
		return nil, false
	}
	if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
		return expression.NewLiteral(t, types.Date), true
	}
	return expression.NewLiteral(t, types.DatetimeMaxPrecision), true
}

// dateColumn: e is a DATE, DATETIME or TIMESTAMP column.
func dateColumn(ctx *sql.Context, e sql.Expression) bool {
	gf, ok := e.(*expression.GetField)
	return ok && types.IsTime(gf.Type(ctx))
}
