package engine

import (
	"context"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/sqlgw/sqlgw/sqlgw/engine/compat"
)

// Plan cache of SELECTs without FROM (issue 13)
//
// Connection pools and BI tools ping with SELECT 1, and drivers read
// @@variables when they connect: go-mysql-server binds and analyzes each
// such statement in full, and two of its analyzer rules (pruneTableCols,
// the exec-index finalizer) ask plan.IsDualTable of the dual table, which
// builds a whole new session (sql.NewEmptyContext: copies of every system
// and status variable, ~200 kB) each time. That made SELECT 1 cost two to
// four primary-key lookups, about a third of its CPU in those copies.
//
// sqlgw therefore caches, per session and exact statement text, the
// analyzed plan of a SELECT without FROM (or FROM DUAL) whose select
// expressions are literals and system variables only, optionally aliased,
// with no WHERE, GROUP BY, HAVING, ORDER BY, LIMIT, locking clause, INTO,
// WITH, window, DISTINCT or comment (optimizer hints, SET_VAR), and whose
// analyzed plan is a projection of those expressions over the dual table.
// The first execution of a text runs through go-mysql-server as before;
// its result fields are kept with the plan, and later executions of the
// same text run the cached plan as a cached SELECT runs
// (FastLane.run: the session's transaction, process list, counters): no
// parse, bind or analysis. System variables are read when the plan runs
// (expression.SystemVar.Eval), so a SET between two executions is seen.
// The plan is used only while what it was derived from is unchanged:
// current database, sql_mode (ANSI_QUOTES makes "x" an identifier),
// character_set_results (the result fields), collation_connection (a string
// literal's collation, sent as such when character_set_results is NULL),
// sql_select_limit and div_precision_increment (cachedPlan.dualValid). @@warning_count and
// @@error_count, which describe the previous statement, are left to
// go-mysql-server's path. Hits count in Plan_cache_hits and
// Last_plan_from_cache like any plan cache hit.
//
// Upstream: plan.IsDualTable would not need a context to compare the dual
// table's schema (memory.DualTableSchema is context-free).

// dualKeyPrefix separates the texts of SELECTs without FROM from other keys
// in a session's plan cache.
const dualKeyPrefix = "\x00dual\x00"

// maybeDualText is a cheap look at a text before it is parsed: SELECT
// followed by a blank, and no FROM, WHERE or comment anywhere.
func maybeDualText(q string) bool {
	q = strings.TrimLeft(q, " \t\r\n")
	if len(q) < 8 || !strings.EqualFold(q[:6], "select") || (q[6] != ' ' && q[6] != '\t' && q[6] != '\n' && q[6] != '\r') {
		return false
	}
	return !containsFold(q, "from") && !containsFold(q, "where") && !strings.Contains(q, "/*") &&
		!strings.Contains(q, "--") && !strings.Contains(q, "#")
}

// dualQuery runs a text SELECT without FROM from the session's plan cache,
// or lets go-mysql-server run it and caches its plan; the return values
// are FastLane.Query's.
func (f *FastLane) dualQuery(ctx context.Context, c *mysql.Conn, s *Session, query string, callback func(*sqltypes.Result) error) (handled bool, capture func(func(*sqltypes.Result) error) func(*sqltypes.Result) error, done func(error), err error) {
	uncached := s.notFromCache()
	key := dualKeyPrefix + query
	variants, notCacheable := s.plans.get(key)
	if notCacheable {
		s.plans.putTextNot(query)
		return false, noCapture, uncached, nil
	}
	sqlCtx := f.queryContext(ctx, c, s, query) // (querycontext.go)
	db := sqlCtx.GetCurrentDatabase()
	vars := s.stmtVars(sqlCtx) // the session's sql_mode, ... (stmtvars.go)
	for _, p := range variants {
		if !p.dualValid(sqlCtx, db, vars) {
			s.plans.drop(key, p)
			continue
		}
		// As go-mysql-server clears the previous statement's warnings
		// before it binds (QueryWithBindings).
		sqlCtx.ClearWarnings()
		s.planHits.Add(1)
		s.plans.hit(key)
		err := f.run(sqlCtx, c, query, p.root, p.max1, p.fields, callback)
		s.lastFromCache.Store(true)
		return true, noCapture, nil, err
	}
	stmt, _, rest, err := f.Engine.Parser.Parse(sqlCtx, query, true)
	if err != nil || strings.TrimSpace(rest) != "" || !dualShape(stmt) {
		s.plans.putTextNot(query)
		return false, noCapture, uncached, nil
	}
	s.planMisses.Add(1)
	return s.cacheBuilt(key, f.buildDual(sqlCtx, query, stmt, db, vars.mode), uncached) // plancache.go
}

// dualShape reports whether stmt is a SELECT without FROM whose select
// expressions are literals and system variables only (see above).
func dualShape(stmt sqlparser.Statement) bool {
	sel, ok := stmt.(*sqlparser.Select)
	if !ok || len(sel.From) != 0 || len(sel.SelectExprs) == 0 {
		return false
	}
	locked := sel.Lock != nil && (sel.Lock.Type != "" || len(sel.Lock.Tables) != 0)
	clauses := sel.Into != nil || sel.With != nil || sel.Where != nil || len(sel.GroupBy) != 0 || sel.Having != nil ||
		len(sel.Window) != 0 || len(sel.OrderBy) != 0 || sel.Limit != nil || locked || len(sel.Comments) != 0
	opts := sel.QueryOpts.Distinct || len(sel.QueryOpts.DistinctOn) != 0 || sel.QueryOpts.SQLCalcFoundRows ||
		sel.QueryOpts.StraightJoinHint
	if clauses || opts {
		return false
	}
	for _, se := range sel.SelectExprs {
		ae, ok := se.(*sqlparser.AliasedExpr)
		if !ok || !dualExpr(ae.Expr) {
			return false
		}
	}
	return true
}

// dualExpr reports whether e is a literal, a negative number or a system
// variable other than the previous statement's diagnostics.
func dualExpr(e sqlparser.Expr) bool {
	switch e := e.(type) {
	case *sqlparser.SQLVal:
		return e.Type != sqlparser.ValArg // a parameter is bound per statement
	case *sqlparser.NullVal, sqlparser.BoolVal:
		return true
	case *sqlparser.UnaryExpr: // a negative number
		v, ok := e.Expr.(*sqlparser.SQLVal)
		return ok && e.Operator == sqlparser.UMinusStr && (v.Type == sqlparser.IntVal || v.Type == sqlparser.FloatVal)
	case *sqlparser.ColName:
		name := strings.ToLower(e.Name.String())
		if !e.Qualifier.IsEmpty() || !strings.HasPrefix(name, "@@") {
			return false
		}
		name = strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(name, "@@"), "session."), "global.")
		return name != "" && name != WarningCountVar && name != "error_count"
	}
	return false
}

// buildDual binds and analyzes a SELECT without FROM of dualShape and
// returns its plan to cache, or nil if the plan is not a projection of
// literals and system variables over the dual table.
func (f *FastLane) buildDual(ctx *sql.Context, query string, stmt sqlparser.Statement, db, mode string) *cachedPlan {
	analyzed, qFlags, ok := f.bindAnalyze(ctx, query, stmt, nil) // plancache.go
	if !ok {
		return nil
	}
	okPlan, tables := true, 0
	transform.Inspect(analyzed, func(n sql.Node) bool {
		switch n := n.(type) {
		case *plan.Project:
			for _, e := range n.Projections {
				sql.Inspect(ctx, e, func(_ *sql.Context, e sql.Expression) bool {
					switch e.(type) {
					case *expression.Literal, *expression.SystemVar, *expression.Alias:
					default:
						okPlan = false
					}
					return okPlan
				})
			}
		case *plan.ResolvedTable:
			tables++
			if !plan.IsDualTable(n.Table) {
				okPlan = false
			}
		default:
			okPlan = false
		}
		return okPlan
	})
	if !okPlan || tables != 1 {
		return nil
	}
	p := &cachedPlan{db: db, sqlMode: mode, root: analyzed, max1: qFlags.IsSet(sql.QFlagMax1Row), dual: true,
		charsetResults: ctx.GetCharacterSetResults(), collation: ctx.GetCollation()}
	p.divPrecision = compat.DivPrecisionIncrement(ctx)
	var err error
	if p.selectLimit, err = ctx.GetSessionVariable(ctx, "sql_select_limit"); err != nil {
		return nil
	}
	return p
}

// dualValid reports whether a cached plan of a SELECT without FROM still
// holds for the session's settings.
func (p *cachedPlan) dualValid(ctx *sql.Context, db string, vars *stmtVars) bool {
	return p.dual && p.db == db && p.sqlMode == vars.mode && ctx.GetCharacterSetResults() == p.charsetResults &&
		ctx.GetCollation() == p.collation &&
		vars.selectLimitErr == nil && vars.selectLimit == p.selectLimit && vars.divPrecision == p.divPrecision
}
