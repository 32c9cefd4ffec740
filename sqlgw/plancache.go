package sqlgw

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"time"

	gms "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/planbuilder"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// Plan cache for prepared point selects (issue 13)
//
// go-mysql-server caches a prepared statement's parse tree only: every
// COM_STMT_EXECUTE binds the parameters into it and runs the whole analyzer
// again (and the analyzer asks sqlgw's planner again), about a third of the
// CPU of sysbench's oltp_point_select. sqlgw therefore caches, per session
// and prepared statement text, the analyzed plan of one statement shape:
//
//	SELECT <columns> FROM <table> WHERE <col> = ? [AND <col> = ? ...]
//
// with plain column references in the select list (aliases allowed), no
// other clause (no GROUP BY, HAVING, ORDER BY, LIMIT, DISTINCT, locking,
// INTO, WITH, hints, comments, index hints or partitions), each parameter
// compared with a different column, and for which the analyzed plan is a
// projection of columns over one IndexedTableAccess whose lookup reads at
// most one row with nothing left to filter (a PointGet, or one Get on a
// unique index). Every other statement takes go-mysql-server's path,
// unchanged.
//
// On an execute of a cached statement, sqlgw builds the parameters'
// literals exactly as go-mysql-server's binder does (planbuilder
// ConvertVal), puts them in place of the old ones in the conjuncts the
// analyzer had passed to LookupForExpressions, re-plans just the lookup
// (sqlgw's planner, no analyzer) and swaps the new IndexedTableAccess into
// the cached plan; go-mysql-server then builds and runs it
// (Engine.PrepQueryPlanForExecution: the session's transaction, read-only
// checks, the transaction-committing and process-tracking iterators) and
// sqlgw spools the row as go-mysql-server's handler does for an
// at-most-one-row plan (resultForMax1RowIter), with the result fields the
// first execution sent.
//
// The cached plan is used only while everything it was derived from is
// unchanged, otherwise the execute goes the general way and the entry is
// rebuilt:
//   - the table's catalog record (ID, version, physical table): DDL from
//     any gateway changes the version, which this gateway sees as soon as
//     it would for an uncached statement (catalog refresh);
//   - the current database and sql_mode;
//   - the type of each parameter's literal: a literal of another type
//     (another integer width, another collation_connection for strings)
//     may compare differently; only integer and string parameters qualify;
//   - the new plan is again at most one row with no residual filter.
//
// Privileges are checked when the entry is built (go-mysql-server's binder
// checks them) and not again per execute; a REVOKE therefore takes effect
// on a cached statement at the next DDL or re-prepare. sqlgw has one
// superuser account today, so this loses nothing yet.
//
// Visible to users: SHOW [SESSION|GLOBAL] STATUS LIKE 'Sqlgw_plan_cache%'
// (Sqlgw_plan_cache_hits, Sqlgw_plan_cache_misses: executes of a
// cacheable statement that had to build the plan) and
// Sqlgw_last_plan_from_cache (1 if the session's last statement ran from
// the cache, as TiDB's @@last_plan_from_cache).
//
// Upstream: go-mysql-server would make this unnecessary by caching the
// analyzed plan of a prepared statement with its bind variables left in
// place and re-running only the index-selection rule per execute (it did
// so before its planbuilder rewrite); and by letting an integrator pass
// query flags to ComExecuteBound, which this code could then call instead of
// replicating the handler's spooling.

// maxPreparedPlans bounds the cached plans per session.
const maxPreparedPlans = 256

// planCache holds one session's cached plans, by statement text, and the
// statements known not to have a cacheable shape.
type planCache struct {
	mu    sync.Mutex
	plans map[string]*cachedPlan
	not   map[string]bool
}

// cachedPlan is the analyzed plan of one prepared statement.
type cachedPlan struct {
	db, sqlMode string
	tableDB     string
	tableName   string
	tableID     uint64
	version     uint64
	phys        string

	root sql.Node                 // the analyzed plan: root or Project(ita)
	ita  *plan.IndexedTableAccess // its table access
	// conjuncts are what the analyzer passed to LookupForExpressions;
	// params[i] is the bind variable whose literal is in conjuncts[i]
	// (at literalLeft[i] ? Left : Right), of type litTypes[i].
	conjuncts   []*expression.Equals
	fields0     []*expression.GetField // the column of each conjunct
	params      []string
	literalLeft []bool
	litTypes    []sql.Type
	fields      []*querypb.Field
	// table and paramsByCol are the statement's shape (cacheableShape).
	table       sqlparser.TableName
	paramsByCol map[string]string
}

// fastLane executes prepared statements from the plan cache.
type fastLane struct {
	gw  *gateway
	eng *gms.Engine
	sm  *server.SessionManager
	sel interface {
		QueryStarted()
		QueryCompleted(success bool, d time.Duration)
	}
}

// cacheableShape reports whether stmt has the shape above, and returns the
// bind variable compared with each column (lower-cased column names).
func cacheableShape(stmt sqlparser.Statement) (table sqlparser.TableName, params map[string]string, ok bool) {
	sel, isSel := stmt.(*sqlparser.Select)
	if !isSel || sel.Into != nil || sel.With != nil || sel.Limit != nil || sel.Having != nil ||
		sel.Where == nil || (sel.Lock != nil && (sel.Lock.Type != "" || len(sel.Lock.Tables) > 0)) || len(sel.GroupBy) > 0 || len(sel.Comments) > 0 ||
		len(sel.Window) > 0 || len(sel.OrderBy) > 0 || len(sel.From) != 1 ||
		sel.QueryOpts.All || sel.QueryOpts.Distinct || len(sel.QueryOpts.DistinctOn) > 0 ||
		sel.QueryOpts.StraightJoinHint || sel.QueryOpts.SQLCalcFoundRows || sel.QueryOpts.SQLCache || sel.QueryOpts.SQLNoCache {
		return table, nil, false
	}
	from, isAliased := sel.From[0].(*sqlparser.AliasedTableExpr)
	if !isAliased || from.Hints != nil || from.AsOf != nil || len(from.Partitions) > 0 || from.Lateral || !from.As.IsEmpty() {
		return table, nil, false
	}
	table, isName := from.Expr.(sqlparser.TableName)
	if !isName {
		return table, nil, false
	}
	for _, se := range sel.SelectExprs {
		ae, isAE := se.(*sqlparser.AliasedExpr)
		if !isAE {
			return table, nil, false
		}
		if _, isCol := ae.Expr.(*sqlparser.ColName); !isCol {
			return table, nil, false
		}
	}
	params = map[string]string{}
	var walk func(e sqlparser.Expr) bool
	walk = func(e sqlparser.Expr) bool {
		switch e := e.(type) {
		case *sqlparser.AndExpr:
			return walk(e.Left) && walk(e.Right)
		case *sqlparser.ComparisonExpr:
			if e.Operator != sqlparser.EqualStr || e.Escape != nil {
				return false
			}
			col, isCol := e.Left.(*sqlparser.ColName)
			val, isVal := e.Right.(*sqlparser.SQLVal)
			if !isCol {
				col, isCol = e.Right.(*sqlparser.ColName)
				val, isVal = e.Left.(*sqlparser.SQLVal)
			}
			if !isCol || !isVal || val.Type != sqlparser.ValArg || col.StoredProcVal != nil {
				return false
			}
			name := strings.ToLower(col.Name.String())
			if _, dup := params[name]; dup {
				return false
			}
			params[name] = strings.TrimPrefix(string(val.Val), ":")
			return true
		}
		return false
	}
	if !walk(sel.Where.Expr) {
		return table, nil, false
	}
	return table, params, true
}

// paramLiteral builds the literal of a bind variable compared with column
// gf as go-mysql-server's binder does (ConvertVal, then
// typeExpandComparisonLiteral); ok is false for types the cache does not
// take and for values the binder would reject.
func paramLiteral(ctx *sql.Context, gf *expression.GetField, bv *querypb.BindVariable) (*expression.Literal, bool) {
	if bv == nil {
		return nil, false
	}
	v, err := sqltypes.BindVariableToValue(bv)
	if err != nil {
		return nil, false
	}
	e, err := sqlparser.ExprFromValue(v)
	if err != nil {
		return nil, false
	}
	sv, isVal := e.(*sqlparser.SQLVal)
	if !isVal || (sv.Type != sqlparser.IntVal && sv.Type != sqlparser.StrVal) {
		return nil, false
	}
	lit, isLit := planbuilder.New(ctx, nil, nil).ConvertVal(sv).(*expression.Literal)
	if !isLit {
		return nil, false
	}
	// planbuilder's typeExpandComparisonLiteral: a literal of a congruent
	// type that fits takes the column's type.
	lt, rt := gf.Type(ctx), lit.Type(ctx)
	if types.IsSigned(lt) && types.IsSigned(rt) || types.IsUnsigned(lt) && types.IsUnsigned(rt) ||
		types.IsFloat(lt) && types.IsFloat(rt) || types.IsDecimal(lt) && types.IsDecimal(rt) ||
		types.IsText(lt) && types.IsText(rt) {
		if lt.MaxTextResponseByteLength(ctx) >= rt.MaxTextResponseByteLength(ctx) {
			val, _, err := lt.Convert(ctx, lit.Value())
			if err != nil {
				return nil, false
			}
			return expression.NewLiteral(val, lt), true
		}
	}
	return lit, true
}

func (p *cachedPlan) valid(ctx *sql.Context, g *gateway, db, mode string) bool {
	if p.db != db || p.sqlMode != mode {
		return false
	}
	t, err := g.cat.Table(context.Background(), p.tableDB, p.tableName) // the catalog cache; no session counters
	return err == nil && t.ID == p.tableID && t.Version == p.version && t.Physical == p.phys
}

// rebind returns the cached plan with the lookup re-planned for bindings,
// or ok false if this execute must take the general path.
func (p *cachedPlan) rebind(ctx *sql.Context, bindings map[string]*querypb.BindVariable) (sql.Node, bool) {
	if len(bindings) != len(p.params) {
		return nil, false
	}
	exprs := make([]sql.Expression, len(p.conjuncts))
	for i, c := range p.conjuncts {
		lit, ok := paramLiteral(ctx, p.fields0[i], bindings[p.params[i]])
		if !ok || !lit.Type(ctx).Equals(p.litTypes[i]) {
			return nil, false
		}
		var eq sql.Expression
		var err error
		if p.literalLeft[i] {
			eq, err = c.WithChildren(ctx, lit, c.Right())
		} else {
			eq, err = c.WithChildren(ctx, c.Left(), lit)
		}
		if err != nil {
			return nil, false
		}
		exprs[i] = eq
	}
	return p.withConjuncts(ctx, exprs)
}

// withConjuncts re-plans the lookup for exprs and swaps it into the plan.
func (p *cachedPlan) withConjuncts(ctx *sql.Context, exprs []sql.Expression) (sql.Node, bool) {
	is, ok := p.ita.TableNode.UnderlyingTable().(sql.IndexSearchableTable)
	if !ok {
		return nil, false
	}
	lookup, fds, rest, ok, err := is.LookupForExpressions(ctx, exprs...)
	if err != nil || !ok || rest != nil || fds == nil || !fds.HasMax1Row() || lookup.IsEmpty() {
		return nil, false
	}
	nita, err := plan.NewStaticIndexedAccessForTableNode(ctx, p.ita.TableNode, lookup)
	if err != nil {
		return nil, false
	}
	var n sql.Node = nita.WithId(p.ita.Id()).WithColumns(p.ita.Columns())
	if p.root != sql.Node(p.ita) {
		if n, err = p.root.WithChildren(ctx, n); err != nil {
			return nil, false
		}
	}
	return n, true
}

// build analyzes the statement for the cache (before go-mysql-server runs
// it the usual way, which clears any warning this analysis left), or
// returns nil if the plan does not qualify.
func (f *fastLane) build(ctx *sql.Context, query string, stmt sqlparser.Statement, tname sqlparser.TableName, params map[string]string, bindings map[string]*querypb.BindVariable, db, mode string) *cachedPlan {
	bexprs := make(map[string]sqlparser.Expr, len(bindings))
	for name, bv := range bindings {
		v, err := sqltypes.BindVariableToValue(bv)
		if err != nil {
			return nil
		}
		e, err := sqlparser.ExprFromValue(v)
		if err != nil {
			return nil
		}
		bexprs[name] = e
	}
	binder := planbuilder.New(ctx, f.eng.Analyzer.Catalog, f.eng.EventScheduler)
	binder.SetBindings(bexprs)
	bound, qFlags, err := binder.BindOnly(stmt, query, &sql.QueryFlags{})
	if err != nil {
		return nil
	}
	analyzed, err := f.eng.Analyzer.Analyze(ctx, bound, nil, qFlags)
	if err != nil || !qFlags.IsSet(sql.QFlagMax1Row) {
		return nil
	}
	p := &cachedPlan{db: db, sqlMode: mode, root: analyzed}
	switch n := analyzed.(type) {
	case *plan.IndexedTableAccess:
		p.ita = n
	case *plan.Project:
		ita, ok := n.Child.(*plan.IndexedTableAccess)
		if !ok {
			return nil
		}
		for _, e := range n.Projections {
			if a, isAlias := e.(*expression.Alias); isAlias {
				e = a.Child
			}
			if _, isField := e.(*expression.GetField); !isField {
				return nil
			}
		}
		p.ita = ita
	default:
		return nil
	}
	t, ok := p.ita.Table.(*Table)
	if !ok || t.lookup == nil {
		return nil
	}
	pr, ok := t.lookup.Ranges.(*planRanges)
	if !ok || len(pr.given) != len(params) || !atMostOneRow(pr.plan) || len(pr.plan.Residual) > 0 {
		return nil
	}
	seen := map[string]bool{}
	for _, e := range pr.given {
		eq, ok := e.(*expression.Equals)
		if !ok {
			return nil
		}
		gf, lit, left := eqParts(eq)
		if gf == nil {
			return nil
		}
		param, ok := params[strings.ToLower(gf.Name())]
		if !ok || seen[param] {
			return nil
		}
		seen[param] = true
		want, ok := paramLiteral(ctx, gf, bindings[param])
		if !ok || !want.Type(ctx).Equals(lit.Type(ctx)) {
			return nil
		}
		p.conjuncts = append(p.conjuncts, eq)
		p.fields0 = append(p.fields0, gf)
		p.params = append(p.params, param)
		p.literalLeft = append(p.literalLeft, left)
		p.litTypes = append(p.litTypes, lit.Type(ctx))
	}
	// The rebuilt plan for the same values must be the analyzed one.
	again, ok := p.rebind(ctx, bindings)
	if !ok || sql.DebugString(ctx, again) != sql.DebugString(ctx, analyzed) {
		return nil
	}
	p.table, p.paramsByCol = tname, params
	tdb := tname.DbQualifier.String()
	if tdb == "" {
		tdb = db
	}
	rec, err := f.gw.cat.Table(metaCtx(ctx), tdb, tname.Name.String())
	if err != nil || rec.ID != t.meta().ID || rec.Version != t.meta().Version {
		return nil
	}
	p.tableDB, p.tableName, p.tableID, p.version, p.phys = tdb, tname.Name.String(), rec.ID, rec.Version, rec.Physical
	return p
}

// eqParts splits col = literal (either way round).
func eqParts(eq *expression.Equals) (*expression.GetField, *expression.Literal, bool) {
	if gf, ok := eq.Left().(*expression.GetField); ok {
		if lit, ok := eq.Right().(*expression.Literal); ok {
			return gf, lit, false
		}
	}
	if gf, ok := eq.Right().(*expression.GetField); ok {
		if lit, ok := eq.Left().(*expression.Literal); ok {
			return gf, lit, true
		}
	}
	return nil, nil, false
}

// stmtExecute runs a prepared statement through the plan cache if it
// qualifies; handled is false if the caller must run it the usual way,
// then with the returned capture callback (it records the result fields
// of a plan to cache) and must call done with the outcome.
func (f *fastLane) stmtExecute(ctx context.Context, c *mysql.Conn, prepare *mysql.PrepareData, callback func(*sqltypes.Result) error) (handled bool, err error, capture func(func(*sqltypes.Result) error) func(*sqltypes.Result) error, done func(error)) {
	none := func(cb func(*sqltypes.Result) error) func(*sqltypes.Result) error { return cb }
	if f == nil || f.sm == nil {
		return false, nil, none, func(error) {}
	}
	s := f.gw.session(c.ConnectionID)
	if s == nil {
		return false, nil, none, func(error) {}
	}
	uncached := func(error) { s.lastFromCache.Store(false) }
	query := prepare.PrepareStmt
	p, notCacheable := s.plans.get(query)
	if notCacheable {
		return false, nil, none, uncached
	}
	stmt, ok := s.GetPreparedQuery(query)
	if !ok {
		return false, nil, none, uncached
	}
	var tname sqlparser.TableName
	var params map[string]string
	if p == nil {
		if tname, params, ok = cacheableShape(stmt); !ok {
			s.plans.putNot(query)
			return false, nil, none, uncached
		}
	}
	sqlCtx, err := f.sm.NewContextWithQuery(ctx, c, query)
	if err != nil {
		return false, nil, none, uncached
	}
	db := sqlCtx.GetCurrentDatabase()
	mode := sql.LoadSqlMode(sqlCtx).String()
	if p != nil && p.valid(sqlCtx, f.gw, db, mode) {
		if node, ok := p.rebind(sqlCtx, prepare.BindVars); ok {
			s.planHits.Add(1)
			err := f.run(sqlCtx, c, query, node, p.fields, callback)
			s.lastFromCache.Store(true)
			return true, err, none, nil
		}
	}
	// A miss: build the plan to cache, then let go-mysql-server run the
	// statement and keep the fields it sends.
	if p != nil {
		tname, params = p.table, p.paramsByCol
	}
	s.planMisses.Add(1)
	np := f.build(sqlCtx, query, stmt, tname, params, prepare.BindVars, db, mode)
	if np == nil {
		return false, nil, none, uncached
	}
	capture = func(cb func(*sqltypes.Result) error) func(*sqltypes.Result) error {
		return func(res *sqltypes.Result) error {
			if res != nil && np.fields == nil && len(res.Fields) > 0 {
				np.fields = res.Fields
			}
			return cb(res)
		}
	}
	done = func(err error) {
		s.lastFromCache.Store(false)
		if err == nil && np.fields != nil {
			s.plans.put(query, np)
		}
	}
	return false, nil, capture, done
}

// run executes a cached plan the way go-mysql-server's handler runs an
// at-most-one-row SELECT (Handler.doQuery with QFlagMax1Row).
func (f *fastLane) run(sqlCtx *sql.Context, c *mysql.Conn, query string, node sql.Node, fields []*querypb.Field, callback func(*sqltypes.Result) error) (err error) {
	start := time.Now()
	if f.sel != nil {
		f.sel.QueryStarted()
		defer func() { f.sel.QueryCompleted(err == nil, time.Since(start)) }()
	}
	sqlCtx, err = sqlCtx.ProcessList.BeginQuery(sqlCtx, query)
	if err != nil {
		return err
	}
	defer sqlCtx.ProcessList.EndQuery(sqlCtx)
	if err := sql.SessionCommandBegin(sqlCtx.Session); err != nil {
		return err
	}
	defer sql.SessionCommandEnd(sqlCtx.Session)
	sql.IncrementStatusVariable(sqlCtx, "Questions", 1)
	sqlCtx.ClearWarnings()
	sql.IncrementStatusVariable(sqlCtx, "Com_select", 1)
	qFlags := &sql.QueryFlags{}
	qFlags.Set(sql.QFlagDeferProjections)
	qFlags.Set(sql.QFlagMax1Row)
	schema, iter, _, err := f.eng.PrepQueryPlanForExecution(sqlCtx, query, node, qFlags)
	if err != nil {
		return sql.CastSQLError(err)
	}
	// The row's values point into buf until the callback has sent them.
	buf := sql.ByteBufPool.Get().(*sql.ByteBuffer)
	defer func() {
		buf.Reset()
		sql.ByteBufPool.Put(buf)
	}()
	res, err := max1Row(sqlCtx, schema, iter, fields, buf)
	if err != nil {
		return sql.CastSQLError(err)
	}
	setStatusFlags(sqlCtx, c)
	return callback(res)
}

// max1Row is go-mysql-server's resultForMax1RowIter.
func max1Row(ctx *sql.Context, schema sql.Schema, iter sql.RowIter, fields []*querypb.Field, buf *sql.ByteBuffer) (*sqltypes.Result, error) {
	defer iter.Close(ctx)
	row, err := iter.Next(ctx)
	if err == io.EOF {
		return &sqltypes.Result{Fields: fields}, nil
	} else if err != nil {
		return nil, err
	}
	if _, err = iter.Next(ctx); err != io.EOF {
		if err == nil {
			return nil, errMoreThanOneRow
		}
		return nil, err
	}
	out, err := server.RowToSQL(ctx, schema, row, nil, buf)
	if err != nil {
		return nil, err
	}
	return &sqltypes.Result{Fields: fields, Rows: [][]sqltypes.Value{out}, RowsAffected: 1}, nil
}

var errMoreThanOneRow = errors.New("result max1Row iterator returned more than one row")

// setStatusFlags is go-mysql-server's setConnStatusFlags.
func setStatusFlags(ctx *sql.Context, c *mysql.Conn) {
	v, err := ctx.GetSessionVariable(ctx, sql.AutoCommitSessionVar)
	if err != nil {
		return
	}
	if on, err := sql.ConvertToBool(ctx, v); err == nil && on {
		c.StatusFlags |= uint16(mysql.ServerStatusAutocommit)
	} else if err == nil {
		c.StatusFlags &= ^uint16(mysql.ServerStatusAutocommit)
	}
	if ctx.GetTransaction() != nil {
		c.StatusFlags |= uint16(mysql.ServerInTransaction)
	} else {
		c.StatusFlags &= ^uint16(mysql.ServerInTransaction)
	}
}

// get returns the cached plan of query, or whether its shape is known not
// to qualify.
func (pc *planCache) get(query string) (*cachedPlan, bool) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return pc.plans[query], pc.not[query]
}

func (pc *planCache) putNot(query string) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.not == nil || len(pc.not) >= 4*maxPreparedPlans {
		pc.not = map[string]bool{}
	}
	pc.not[query] = true
}

func (pc *planCache) put(query string, p *cachedPlan) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.plans == nil {
		pc.plans = map[string]*cachedPlan{}
	}
	if _, ok := pc.plans[query]; !ok && len(pc.plans) >= maxPreparedPlans {
		for k := range pc.plans { // evict one at random
			delete(pc.plans, k)
			break
		}
	}
	pc.plans[query] = p
}

// noteUncached records that a connection's last statement did not run from
// the plan cache.
func (g *gateway) noteUncached(conn uint32) {
	if s := g.session(conn); s != nil {
		s.lastFromCache.Store(false)
	}
}
