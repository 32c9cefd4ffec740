package engine

import (
	"context"
	"errors"
	"io"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	gms "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/mysql_db"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/planbuilder"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/sqlgw/sqlgw/planner"
	"github.com/sqlgw/sqlgw/sqlgw/engine/compat"
)

// Plan cache of prepared statements (issue 13)
//
// go-mysql-server caches a prepared statement's parse tree only: every
// COM_STMT_EXECUTE binds the parameters into it and runs the whole analyzer
// again (and the analyzer asks sqlgw's planner again), about a third of the
// CPU of sysbench's oltp_point_select. sqlgw therefore caches, per session
// and prepared statement text, the analyzed plan of statements of this
// shape:
//
//	SELECT <columns, COUNT(*), or SUM/COUNT/MIN/MAX/AVG(column)> FROM <table>
//	WHERE <pred> [AND <pred> ...] [GROUP BY cols] [ORDER BY cols] [LIMIT n [OFFSET m]]
//
// where each pred compares a column with parameters (col = ?, <, <=, >, >=,
// col BETWEEN ? AND ?, col IN (?, ...)), DISTINCT is allowed, LIMIT and
// OFFSET are constants, and nothing else appears (no HAVING, window, join,
// subquery, locking clause, INTO, WITH, hints, comments, index hints,
// partitions, variables); and whose analyzed plan is one IndexedTableAccess
// on a sqlgw table, under nothing but projections, GROUP BY, sorts, DISTINCT
// and LIMIT/OFFSET, with every conjunct of the WHERE answered by the lookup
// (no residual filter) and each literal of the lookup's conjuncts being
// exactly one parameter's. Every other statement takes go-mysql-server's
// path, unchanged.
//
// On an execute of a cached statement, sqlgw builds the parameters'
// literals exactly as go-mysql-server's binder does (planbuilder
// ConvertVal, and its typeExpandComparisonLiteral where the binder had
// applied it) and binds their values into the cached access path
// (boundplan.go: the planner's decision kept, only the keys encoded, no
// binder, no analyzer, no planning). Where that binding is not proven to
// be the planner's answer for the values (cachedPlan.lookup), it puts the
// literals in place of the old ones in the conjuncts the analyzer had
// passed to LookupForExpressions, re-plans just the lookup (sqlgw's
// planner), re-applies what the pushdown rule did to it (ORDER BY
// satisfied, pushed LIMIT: rules.go); either way it swaps the new
// IndexedTableAccess into the cached plan; go-mysql-server then builds
// and runs it (Engine.PrepQueryPlanForExecution: the session's transaction,
// read-only checks, the transaction-committing and process-tracking
// iterators) and sqlgw spools the rows as go-mysql-server's handler does
// (resultForMax1RowIter for an at-most-one-row plan, else batches of 128
// rows, but on the session's goroutine instead of an errgroup pipeline),
// with the result fields the first execution sent. When the cache is built,
// the plan rebuilt for the same values must print exactly as the analyzed
// one, or nothing is cached.
//
// The cached plan is used only while everything it was derived from is
// unchanged, otherwise the execute goes the general way and the entry is
// rebuilt:
//   - the table's catalog record (ID, version, physical table): DDL from
//     any gateway changes the version, which this gateway sees as soon as
//     it would for an uncached statement (catalog refresh);
//   - the current database, sql_mode, character_set_results (the result
//     fields' charsets and text lengths follow it) and sql_select_limit;
//   - the type of each parameter's literal: a literal of another type
//     (another integer width where the binder keeps it, another
//     collation_connection for strings) may compare differently; only
//     integer and string parameters qualify;
//   - the new lookup again answers every conjunct, and reads at most one
//     row if the cached plan did;
//   - a cursor (COM_STMT_EXECUTE with a cursor) takes the general path for
//     multi-row plans.
//
// A statement of a cacheable shape whose plan does not qualify three times
// (say two parameters with one value, whose literals cannot be told apart)
// is left to go-mysql-server for the rest of the session, so it does not pay
// the extra analysis of a failed build on every execute; so is one whose
// plans are rebuilt too often for their hits (8 builds with fewer than 4
// hits per build: an IN list of integer parameters, whose literal types
// follow each value's width, takes a new plan on most executes).
//
// Privileges: every execute from the cache runs the check go-mysql-server's
// binder runs for the statement's table (the authorization handler's
// HandleAuth with the FROM table's AuthInformation: SELECT on the table,
// its database or globally), against the session's current privileges; if
// it fails, the execute takes the general path, which reports the error.
// A check that passed is not run again while the privilege tables, the
// account and the current database are unchanged (FastLane.authorized,
// privilegeVersion): a GRANT or REVOKE from any session or gateway
// applies at the next execute.
//
// Visible to users: SHOW [SESSION] STATUS LIKE '%plan%cache%'
// (Plan_cache_hits, Plan_cache_misses: executes of a
// cacheable statement that had to build the plan, Plan_cache_direct: hits
// executed directly) and Last_plan_from_cache (1 if the session's previous
// statement ran from the cache), and the read-only session variable
// @@last_plan_from_cache, TiDB's name, with the same flag (session.go). Text
// statements count as executes. Config.NoPlanCache turns the cache off,
// Config.NoDirect its direct execution, Config.NoTextPlanCache its text
// statements (the differential test compares them).
//
// Text statements (COM_QUERY) are cached per normalized shape, their
// literals taken as parameters (textcache.go); cached plans of the
// simplest shapes run without go-mysql-server's executor (direct.go).
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
	mu       sync.Mutex
	plans    map[string][]*cachedPlan
	not      map[string]bool
	notText  map[string]bool // texts whose shape is not cached (textcache.go)
	failures map[string]int
	stats    map[string]*planStats

	// insertTexts maps INSERT text templates to their shapes' keys
	// (directinsert_text.go).
	insertTexts map[string]string

	// shapes maps SELECT text shapes to what the session learned of them,
	// under sql_mode shapesMode (textshape.go).
	shapes     map[string]*textShape
	shapesMode string
}

// cachedPlan is the analyzed plan of one prepared statement.
type cachedPlan struct {
	db, sqlMode string
	// charsetResults is character_set_results when the plan was made: the
	// result fields (charset, text lengths) depend on it;
	// selectLimit is sql_select_limit, which the analyzer may apply.
	charsetResults sql.CharacterSetID
	selectLimit    interface{}
	divPrecision   int // div_precision_increment, which types AVG's result
	tableDB        string
	tableName      string
	tableID        uint64
	version        uint64
	phys           string

	root sql.Node                 // the analyzed plan
	ita  *plan.IndexedTableAccess // its one table access
	max1 bool                     // the result has at most one row (QFlagMax1Row)
	// lookupMax1: the lookup reads at most one row (a PointGet); a
	// re-planned lookup must too.
	lookupMax1 bool
	// given are the conjuncts the analyzer passed to LookupForExpressions;
	// slots are the parameter literals in them.
	given  []sql.Expression
	slots  []paramSlot
	fields []*querypb.Field
	// table and nparams are the statement's shape (cacheableShape).
	table   sqlparser.TableName
	nparams int
	// ints converts integer parameters (rawLiteral); used by the session's
	// one running statement at a time.
	ints *planbuilder.Builder
	// auth is the table's privilege check, run on every execute (or
	// remembered in authMemo while the privileges are unchanged:
	// FastLane.authorized).
	auth     sqlparser.AuthInformation
	authMemo atomic.Pointer[authMemo]
	// direct, if set, runs the plan without go-mysql-server's executor
	// (direct.go).
	direct *directPlan
	// write, if set, makes this the plan of an INSERT, UPDATE or DELETE
	// (directwrite.go).
	write *writePlan
	// bound, if set, is the lookup's cached access path, which an
	// execute binds its parameters into instead of re-planning
	// (boundplan.go).
	bound *boundLookup
	// dual makes this the plan of a SELECT without FROM (dualcache.go);
	// collation is collation_connection when it was made (its literals').
	dual      bool
	collation sql.CollationID
}

// authorized runs the privilege check go-mysql-server's binder runs for the
// statement's one table (HandleAuth on the FROM table: SELECT on it), with
// the session's current privileges, so a REVOKE applies to cached plans as
// to any statement. A check that passed is remembered in the plan (memo)
// with the version of the privilege tables it passed at (privilegeVersion)
// and what else it depends on; while they are unchanged the check is not
// run again (see privilegeVersion).
func (f *FastLane) authorized(ctx *sql.Context, p *cachedPlan) bool {
	db := f.Engine.Analyzer.Catalog.MySQLDb
	ver, known := privilegeVersion(db)
	client := ctx.Session.Client()
	cur := ctx.GetCurrentDatabase()
	enabled := known && db.Enabled()
	if m := p.authMemo.Load(); known && m != nil && m.version == ver && m.enabled == enabled && m.db == cur &&
		m.user == client.User && m.address == client.Address {
		return true
	}
	h := f.Engine.Analyzer.Catalog.AuthorizationHandler()
	if h.HandleAuth(ctx, h.NewQueryState(ctx), p.auth) != nil {
		return false
	}
	if known {
		p.authMemo.Store(&authMemo{version: ver, enabled: enabled, db: cur, user: client.User, address: client.Address})
	}
	return true
}

// authMemo is a privilege check that passed (FastLane.authorized): at
// version of the privilege tables (enabled: with privileges checked at
// all), with db the current database and the session's account.
type authMemo struct {
	version           uint64
	enabled           bool
	db, user, address string
}

// privilegeVersion returns the version of go-mysql-server's privilege
// tables (users, roles, grants): MySQLDb's update counter, which every
// change to them (GRANT, REVOKE, CREATE/DROP USER and ROLE, role grants,
// the accounts another gateway changed, sqlgw/accounts) advances when its
// editor closes, and which go-mysql-server's own per-session privilege set
// cache is validated against (UserActivePrivilegeSet). A check of a
// statement's privileges (HandleAuth) is a function of those tables, the
// account, the current database and the statement, so a passed check
// holds while none of them changed. known is false if db is nil or the
// counter cannot be found; then every execute runs the check.
//
// Upstream: MySQLDb does not export the counter; it is read through its
// field offset, found by reflection once (a go-mysql-server without the
// field turns the memo off). An exported MySQLDb.UpdateCounter() would
// remove this.
func privilegeVersion(db *mysql_db.MySQLDb) (v uint64, known bool) {
	if db == nil || privCounterOffset < 0 {
		return 0, false
	}
	return (*atomic.Uint64)(unsafe.Add(unsafe.Pointer(db), privCounterOffset)).Load(), true
}

// privCounterOffset is the offset of MySQLDb's update counter, -1 if it
// has none of type atomic.Uint64.
var privCounterOffset = func() int {
	f, ok := reflect.TypeOf(mysql_db.MySQLDb{}).FieldByName("updateCounter")
	if !ok || f.Type != reflect.TypeOf(atomic.Uint64{}) {
		return -1
	}
	return int(f.Offset)
}()

// paramSlot is one parameter's literal in the cached conjuncts: the bind
// variable, the literal's type and whether the binder had converted it to
// the compared column's type (typeExpandComparisonLiteral).
type paramSlot struct {
	lit      *expression.Literal
	param    string
	typ      sql.Type
	expanded bool
	// int64: typ holds every value as an int64 (int64Typed; intDatum).
	int64 bool
}

// fastLane executes prepared statements from the plan cache.
type FastLane struct {
	GW             *Gateway
	Engine         *gms.Engine
	SessionManager *server.SessionManager
	Statements     interface {
		QueryStarted()
		QueryCompleted(success bool, d time.Duration)
	}
	// NoCache turns the plan cache off: only statements under a
	// sql_select_limit (selectlimit.go) are run here.
	NoCache bool
	// NoDirect turns direct execution (direct.go) off: cached plans run
	// through go-mysql-server's executor.
	NoDirect bool
	// NoText turns the plan cache of text statements (textcache.go) off.
	NoText bool
}

// cacheableShape reports whether stmt has a shape the plan cache takes (see
// above) and returns its table and number of parameters.
func cacheableShape(stmt sqlparser.Statement) (table sqlparser.TableName, auth sqlparser.AuthInformation, nparams int, ok bool) {
	sel, isSel := stmt.(*sqlparser.Select)
	if !isSel || sel.Into != nil || sel.With != nil || sel.Having != nil || sel.Where == nil ||
		(sel.Lock != nil && (sel.Lock.Type != "" || len(sel.Lock.Tables) > 0)) ||
		len(sel.Comments) > 0 || len(sel.Window) > 0 || len(sel.From) != 1 ||
		sel.QueryOpts.All || len(sel.QueryOpts.DistinctOn) > 0 || sel.QueryOpts.StraightJoinHint ||
		sel.QueryOpts.SQLCalcFoundRows || sel.QueryOpts.SQLCache || sel.QueryOpts.SQLNoCache {
		return table, auth, 0, false
	}
	from, isAliased := sel.From[0].(*sqlparser.AliasedTableExpr)
	if !isAliased || from.Hints != nil || from.AsOf != nil || len(from.Partitions) > 0 || from.Lateral || !from.As.IsEmpty() {
		return table, auth, 0, false
	}
	table, isName := from.Expr.(sqlparser.TableName)
	if !isName {
		return table, auth, 0, false
	}
	for _, se := range sel.SelectExprs {
		switch se := se.(type) {
		case *sqlparser.StarExpr:
		case *sqlparser.AliasedExpr:
			if !plainColumn(se.Expr) && !plainAggregate(se.Expr) {
				return table, auth, 0, false
			}
		default:
			return table, auth, 0, false
		}
	}
	for _, g := range sel.GroupBy {
		if !plainColumn(g) {
			return table, auth, 0, false
		}
	}
	for _, o := range sel.OrderBy {
		if !plainColumn(o.Expr) {
			return table, auth, 0, false
		}
	}
	if sel.Limit != nil && (!intLiteral(sel.Limit.Rowcount) || (sel.Limit.Offset != nil && !intLiteral(sel.Limit.Offset))) {
		return table, auth, 0, false
	}
	var walk func(e sqlparser.Expr) bool
	walk = func(e sqlparser.Expr) bool {
		switch e := e.(type) {
		case *sqlparser.AndExpr:
			return walk(e.Left) && walk(e.Right)
		case *sqlparser.ComparisonExpr:
			if e.Escape != nil {
				return false
			}
			switch e.Operator {
			case sqlparser.EqualStr, sqlparser.LessThanStr, sqlparser.LessEqualStr, sqlparser.GreaterThanStr, sqlparser.GreaterEqualStr:
				if plainColumn(e.Left) && valArg(e.Right) || plainColumn(e.Right) && valArg(e.Left) {
					nparams++
					return true
				}
			case sqlparser.InStr:
				tuple, isTuple := e.Right.(sqlparser.ValTuple)
				if !plainColumn(e.Left) || !isTuple || len(tuple) == 0 {
					return false
				}
				for _, v := range tuple {
					if !valArg(v) {
						return false
					}
				}
				nparams += len(tuple)
				return true
			}
		case *sqlparser.RangeCond:
			if e.Operator == sqlparser.BetweenStr && plainColumn(e.Left) && valArg(e.From) && valArg(e.To) {
				nparams += 2
				return true
			}
		}
		return false
	}
	if !walk(sel.Where.Expr) {
		return table, auth, 0, false
	}
	return table, from.Auth, nparams, true
}

func plainColumn(e sqlparser.Expr) bool {
	c, ok := e.(*sqlparser.ColName)
	return ok && c.StoredProcVal == nil && !strings.HasPrefix(c.Name.String(), "@")
}

func plainAggregate(e sqlparser.Expr) bool {
	f, ok := e.(*sqlparser.FuncExpr)
	if !ok || f.Over != nil || !f.Qualifier.IsEmpty() || len(f.Exprs) != 1 {
		return false
	}
	switch f.Name.Lowered() {
	case "sum", "count", "min", "max", "avg":
	default:
		return false
	}
	switch a := f.Exprs[0].(type) {
	case *sqlparser.StarExpr:
		return f.Name.Lowered() == "count" && a.TableName.IsEmpty()
	case *sqlparser.AliasedExpr:
		return plainColumn(a.Expr)
	}
	return false
}

func valArg(e sqlparser.Expr) bool {
	v, ok := e.(*sqlparser.SQLVal)
	return ok && v.Type == sqlparser.ValArg
}

func intLiteral(e sqlparser.Expr) bool {
	v, ok := e.(*sqlparser.SQLVal)
	return ok && v.Type == sqlparser.IntVal
}

// rawLiteral builds the literal of a bind variable as go-mysql-server's
// binder does (ConvertVal); ok is false for types the cache does not take.
// ints, if not nil, converts integers: ConvertVal's integer conversion
// (convertInt) does not depend on the builder's context, its string
// conversion (the connection's collation) does.
func rawLiteral(ctx *sql.Context, bv *querypb.BindVariable, ints *planbuilder.Builder) (*expression.Literal, bool) {
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
	b := ints
	if b == nil || sv.Type != sqlparser.IntVal {
		b = planbuilder.New(ctx, nil, nil)
	}
	lit, isLit := b.ConvertVal(sv).(*expression.Literal)
	return lit, isLit
}

// expandLiteral is planbuilder's typeExpandComparisonLiteral for a literal
// compared with a column of type col: a literal of a congruent type that
// fits takes the column's type; ok is false if it would not.
func expandLiteral(ctx *sql.Context, col sql.Type, lit *expression.Literal) (*expression.Literal, bool) {
	lt, rt := col, lit.Type(ctx)
	if !(types.IsSigned(lt) && types.IsSigned(rt) || types.IsUnsigned(lt) && types.IsUnsigned(rt) ||
		types.IsFloat(lt) && types.IsFloat(rt) || types.IsDecimal(lt) && types.IsDecimal(rt) ||
		types.IsText(lt) && types.IsText(rt)) || lt.MaxTextResponseByteLength(ctx) < rt.MaxTextResponseByteLength(ctx) {
		return nil, false
	}
	val, _, err := lt.Convert(ctx, lit.Value())
	if err != nil {
		return nil, false
	}
	return expression.NewLiteral(val, lt), true
}

// int64Typed reports whether t is an integer type whose values are all
// int64 values: every integer type but BIGINT UNSIGNED.
func int64Typed(t sql.Type) bool {
	return types.IsInteger(t) && !t.Equals(types.Uint64)
}

// literalFor returns the literal of slot sl for the bind variable bv.
func (sl *paramSlot) literalFor(ctx *sql.Context, bv *querypb.BindVariable, ints *planbuilder.Builder) (*expression.Literal, bool) {
	raw, ok := rawLiteral(ctx, bv, ints)
	if !ok {
		return nil, false
	}
	if !sl.expanded {
		rt := raw.Type(ctx)
		// An integer of another width (the binder types an integer by
		// its value's width, TINYINT, TINYINT UNSIGNED, SMALLINT, ...,
		// where it does not convert it to the column's type, as in an IN
		// list) compares as the cached one when both hold any value
		// exactly as an int64 (not BIGINT UNSIGNED): the literal is taken
		// as the binder built it, and the lookup is re-planned with it, as
		// the analyzer would.
		return raw, rt.Equals(sl.typ) || int64Typed(rt) && int64Typed(sl.typ)
	}
	if raw.Type(ctx).Equals(sl.typ) {
		// The binder converts a congruent literal to the column's type, a
		// no-op for one of that type already.
		return raw, true
	}
	return expandLiteral(ctx, sl.typ, raw)
}

func (p *cachedPlan) valid(ctx *sql.Context, g *Gateway, db string, vars *stmtVars) bool {
	if p.db != db || p.sqlMode != vars.mode || ctx.GetCharacterSetResults() != p.charsetResults {
		return false
	}
	if vars.selectLimitErr != nil || vars.selectLimit != p.selectLimit {
		return false
	}
	if vars.divPrecision != p.divPrecision { // AVG's result type (compat/exact_sum_avg.go)
		return false
	}
	t, err := g.Catalog.Table(context.Background(), p.tableDB, p.tableName) // the catalog cache; no session counters
	return err == nil && t.ID == p.tableID && t.Version == p.version && t.Physical == p.phys
}

// rebind returns the cached plan with the lookup for bindings (bound or
// re-planned: cachedPlan.lookup), or ok false if this execute must take
// the general path.
func (p *cachedPlan) rebind(ctx *sql.Context, bindings map[string]*querypb.BindVariable) (sql.Node, bool) {
	lookup, ok := p.lookup(ctx, bindings)
	if !ok {
		return nil, false
	}
	return p.withLookup(ctx, lookup)
}

// conjuncts returns the cached conjuncts with the literals of bindings.
func (p *cachedPlan) conjuncts(ctx *sql.Context, bindings map[string]*querypb.BindVariable) ([]sql.Expression, bool) {
	if len(bindings) != p.nparams {
		return nil, false
	}
	repl := make(map[*expression.Literal]*expression.Literal, len(p.slots))
	for i := range p.slots {
		sl := &p.slots[i]
		lit, ok := sl.literalFor(ctx, bindings[sl.param], p.ints)
		if !ok {
			return nil, false
		}
		repl[sl.lit] = lit
	}
	exprs := make([]sql.Expression, len(p.given))
	for i, e := range p.given {
		ne, _, err := transform.Expr(ctx, e, func(_ *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
			if l, ok := e.(*expression.Literal); ok {
				if n, ok := repl[l]; ok {
					return n, transform.NewTree, nil
				}
			}
			return e, transform.SameTree, nil
		})
		if err != nil {
			return nil, false
		}
		exprs[i] = ne
	}
	return exprs, true
}

// withLookup swaps lookup into the plan.
func (p *cachedPlan) withLookup(ctx *sql.Context, lookup sql.IndexLookup) (sql.Node, bool) {
	nita, err := plan.NewStaticIndexedAccessForTableNode(ctx, p.ita.TableNode, lookup)
	if err != nil {
		return nil, false
	}
	if nt, ok := nita.Table.(*Table); ok {
		nt.limit = p.ita.Table.(*Table).limit
	} else {
		return nil, false
	}
	var n sql.Node = nita.WithId(p.ita.Id()).WithColumns(p.ita.Columns())
	if p.root == sql.Node(p.ita) {
		return n, true
	}
	out, _, err := transform.Node(ctx, p.root, func(_ *sql.Context, c sql.Node) (sql.Node, transform.TreeIdentity, error) {
		if c == sql.Node(p.ita) {
			return n, transform.NewTree, nil
		}
		return c, transform.SameTree, nil
	})
	return out, err == nil
}

// lookupFor re-plans the cached plan's lookup for exprs, with what the
// pushdown rule did to the cached one; ok is false if the new lookup does
// not answer every conjunct or, where the cached one did, read at most one
// row.
func (p *cachedPlan) lookupFor(ctx *sql.Context, exprs []sql.Expression) (sql.IndexLookup, bool) {
	is, ok := p.ita.TableNode.UnderlyingTable().(sql.IndexSearchableTable)
	if !ok {
		return sql.IndexLookup{}, false
	}
	lookup, fds, rest, ok, err := is.LookupForExpressions(ctx, exprs...)
	if err != nil || !ok || rest != nil || lookup.IsEmpty() {
		return sql.IndexLookup{}, false
	}
	if p.lookupMax1 && (fds == nil || !fds.HasMax1Row()) {
		return sql.IndexLookup{}, false
	}
	// What the pushdown rule (rules.go) did to the cached lookup: the
	// ORDER BY the plan satisfies, the pushed LIMIT.
	tpl := p.ita.Table.(*Table)
	tplRanges := tpl.lookup.Ranges.(*planRanges)
	pr, ok := lookup.Ranges.(*planRanges)
	if !ok || pr.noIndex != tplRanges.noIndex && (pr.plan.Index != nil || tplRanges.plan.Index != nil) {
		// A transaction with writes to the table plans without secondary
		// indexes (planIn), and the analyzer shapes the plan around the
		// lookup it gets (a sort kept or not, and so the order of ties):
		// a plan that reads an index, or would read one now, is reused
		// only where it was made with or without them. A plan that
		// reads none is the planner's choice either way.
		return sql.IndexLookup{}, false
	}
	if tplRanges.order != nil {
		// The cached plan has no sort: its rows must come in the ORDER
		// BY's order, and the re-planned lookup must deliver it as the
		// rule found (rules.go, source.ordered), reversed where it was.
		p, err := pr.t.plan(&planner.Query{Where: pr.where, Columns: pr.cols, OrderBy: tplRanges.order, Limit: tplRanges.plan.Limit, NoIndex: pr.noIndex})
		if err != nil || !p.OrderSatisfied || p.Path != pr.plan.Path || len(p.Residual) != len(pr.plan.Residual) {
			return sql.IndexLookup{}, false
		}
		pr.plan, pr.order = p, tplRanges.order
	} else if tplRanges.plan.Limit > 0 && !pr.setLimit(tplRanges.plan.Limit) {
		return sql.IndexLookup{}, false
	}
	return lookup, true
}

// build analyzes the statement for the cache (before go-mysql-server runs
// it the usual way, which clears any warning this analysis left), or
// returns nil if the plan does not qualify.
func (f *FastLane) build(ctx *sql.Context, query string, stmt sqlparser.Statement, tname sqlparser.TableName, nparams int, bindings map[string]*querypb.BindVariable, db, mode string) *cachedPlan {
	if len(bindings) != nparams {
		return nil
	}
	bexprs, ok := bindingExprs(bindings)
	if !ok {
		return nil
	}
	analyzed, qFlags, ok := f.bindAnalyze(ctx, query, stmt, bexprs)
	if !ok {
		return nil
	}
	p := &cachedPlan{db: db, sqlMode: mode, root: analyzed, max1: qFlags.IsSet(sql.QFlagMax1Row), table: tname, nparams: nparams,
		ints: planbuilder.New(ctx, nil, nil), charsetResults: ctx.GetCharacterSetResults()}
	p.divPrecision = compat.DivPrecisionIncrement(ctx)
	var err error
	if p.selectLimit, err = ctx.GetSessionVariable(ctx, "sql_select_limit"); err != nil {
		return nil
	}
	// One table access and nothing that could hold a parameter elsewhere.
	okPlan := true
	transform.Inspect(analyzed, func(n sql.Node) bool {
		switch n := n.(type) {
		case *plan.IndexedTableAccess:
			if p.ita != nil {
				okPlan = false
			}
			p.ita = n
		case *plan.Filter, *plan.ResolvedTable, *plan.TableAlias, *plan.SubqueryAlias, *plan.Having, *plan.Window:
			okPlan = false
		case *plan.Project, *plan.GroupBy, *plan.Sort, *plan.TopN, *plan.Limit, *plan.Offset, *plan.Distinct, *plan.OrderedDistinct:
		default:
			okPlan = false
		}
		return okPlan
	})
	if !okPlan || p.ita == nil {
		return nil
	}
	t, ok := p.ita.Table.(*Table)
	if !ok || t.lookup == nil {
		return nil
	}
	pr, ok := t.lookup.Ranges.(*planRanges)
	if !ok || len(pr.given) == 0 || len(pr.plan.Residual) > 0 {
		return nil
	}
	p.given = pr.given
	p.lookupMax1 = atMostOneRow(pr.plan)
	// Each literal of the conjuncts is exactly one parameter's.
	raws := map[string]*expression.Literal{}
	for name, bv := range bindings {
		if raw, ok := rawLiteral(ctx, bv, nil); ok {
			raws[name] = raw
		}
	}
	okPlan = p.lookupSlots(ctx, raws, map[string]bool{})
	if !okPlan || len(p.slots) != nparams {
		return nil
	}
	// The rebuilt plan for the same values must be the analyzed one.
	again, ok := p.rebind(ctx, bindings)
	if !ok || sql.DebugString(ctx, again) != sql.DebugString(ctx, analyzed) {
		return nil
	}
	if !f.pinTable(ctx, p, tname, db, t) {
		return nil
	}
	p.prepareBound(ctx, analyzed, bindings)
	p.direct = directShape(ctx, analyzed, p.ita)
	return p
}

// bindAnalyze binds stmt (with bexprs for its parameters, if any) and
// analyzes it, as go-mysql-server would run it; ok is false if either
// fails.
func (f *FastLane) bindAnalyze(ctx *sql.Context, query string, stmt sqlparser.Statement, bexprs map[string]sqlparser.Expr) (analyzed sql.Node, qFlags *sql.QueryFlags, ok bool) {
	binder := planbuilder.New(ctx, f.Engine.Analyzer.Catalog, f.Engine.EventScheduler)
	if bexprs != nil {
		binder.SetBindings(bexprs)
	}
	bound, qFlags, err := binder.BindOnly(stmt, query, &sql.QueryFlags{})
	if err != nil {
		return nil, nil, false
	}
	if analyzed, err = f.Engine.Analyzer.Analyze(ctx, bound, nil, qFlags); err != nil {
		return nil, nil, false
	}
	return analyzed, qFlags, true
}

// lookupSlots finds the parameter of each literal of the lookup's
// conjuncts (p.given) among raws, the bound values by parameter name:
// exactly one, not used before (used records them), or false. A value
// of another type than the literal matches when it widens to it
// (expandLiteral).
func (p *cachedPlan) lookupSlots(ctx *sql.Context, raws map[string]*expression.Literal, used map[string]bool) bool {
	okPlan := true
	for _, e := range p.given {
		sql.Inspect(ctx, e, func(_ *sql.Context, e sql.Expression) bool {
			lit, isLit := e.(*expression.Literal)
			if !isLit || !okPlan {
				return okPlan
			}
			var match *paramSlot
			for name, raw := range raws {
				sl := &paramSlot{lit: lit, param: name, typ: lit.Type(ctx)}
				cand := raw
				if !raw.Type(ctx).Equals(sl.typ) {
					var ok bool
					if cand, ok = expandLiteral(ctx, sl.typ, raw); !ok {
						continue
					}
					sl.expanded = true
				}
				if !cand.Type(ctx).Equals(sl.typ) || !reflect.DeepEqual(cand.Value(), lit.Value()) {
					continue
				}
				if match != nil { // two parameters with this literal: ambiguous
					okPlan = false
					return false
				}
				match = sl
			}
			if match == nil || used[match.param] {
				okPlan = false
				return false
			}
			used[match.param] = true
			match.int64 = int64Typed(match.typ)
			p.slots = append(p.slots, *match)
			return true
		})
	}
	return okPlan
}

// bindingExprs returns a statement's bound values as the expressions
// go-mysql-server's binder takes (false: a value it cannot take).
func bindingExprs(bindings map[string]*querypb.BindVariable) (map[string]sqlparser.Expr, bool) {
	bexprs := make(map[string]sqlparser.Expr, len(bindings))
	for name, bv := range bindings {
		v, err := sqltypes.BindVariableToValue(bv)
		if err != nil {
			return nil, false
		}
		e, err := sqlparser.ExprFromValue(v)
		if err != nil {
			return nil, false
		}
		bexprs[name] = e
	}
	return bexprs, true
}

// pinTable records in p the table its plan was analyzed with (t, named
// tname, in db unless qualified): its database, name, catalog id, version
// and physical table, which later executes check. False when the catalog's
// current record is not that table any more (dropped, altered meanwhile).
func (f *FastLane) pinTable(ctx *sql.Context, p *cachedPlan, tname sqlparser.TableName, db string, t *Table) bool {
	tdb := tname.DbQualifier.String()
	if tdb == "" {
		tdb = db
	}
	rec, err := f.GW.Catalog.Table(MetaCtx(ctx), tdb, tname.Name.String())
	if err != nil || rec.ID != t.meta().ID || rec.Version != t.meta().Version {
		return false
	}
	p.tableDB, p.tableName, p.tableID, p.version, p.phys = tdb, tname.Name.String(), rec.ID, rec.Version, rec.Physical
	return true
}

// stmtExecute runs a prepared statement through the plan cache if it
// qualifies; handled is false if the caller must run it the usual way,
// then with the returned capture callback (it records the result fields
// of a plan to cache) and must call done with the outcome.
func (f *FastLane) StmtExecute(ctx context.Context, c *mysql.Conn, prepare *mysql.PrepareData, callback func(*sqltypes.Result) error) (handled bool, capture func(func(*sqltypes.Result) error) func(*sqltypes.Result) error, done func(error), err error) {
	if f == nil || f.SessionManager == nil {
		return false, noCapture, func(error) {}, nil
	}
	s := f.GW.Session(c.ConnectionID)
	if s == nil {
		return false, noCapture, func(error) {}, nil
	}
	uncached := s.notFromCache()
	query := prepare.PrepareStmt
	// SET_VAR hints (setvarhint.go).
	s.earlyHints(ctx, query)
	if s.selectLimitSet() { // selectlimit.go, stmtvars.go
		if stmt, ok := preparedStatement(s, query); ok {
			if handled, err := f.selectLimit(ctx, c, s, query, stmt, prepare.BindVars, callback); handled {
				return true, noCapture, nil, err
			}
		}
	}
	if f.NoCache {
		return false, noCapture, uncached, nil
	}
	variants, notCacheable := s.plans.get(query)
	if notCacheable {
		// BEGIN and COMMIT are not cached (once marked so, here).
		if handled, err := f.stmtTxControl(ctx, c, s, prepare, callback); handled { // txcontrol.go
			return true, noCapture, nil, err
		}
		return false, noCapture, uncached, nil
	}
	stmt, ok := preparedStatement(s, query)
	if !ok {
		return false, noCapture, uncached, nil
	}
	sqlCtx := f.queryContext(ctx, c, s, query) // querycontext.go
	cursor := c.StatusFlags&uint16(mysql.ServerCursorExists) != 0
	return f.execute(sqlCtx, c, s, query, query, stmt, variants, prepare.BindVars, cursor, callback)
}

// preparedStatement returns the parse tree go-mysql-server keeps for the
// prepared statement query. go-mysql-server keeps it under the text as
// prepared, or (Engine.PrepareQuery, which the handler's ComPrepare calls)
// without its leading and trailing spaces and delimiters: sysbench's
// select_random_points prepares "\n        SELECT id, k, c, pad ...".
func preparedStatement(s *Session, query string) (sqlparser.Statement, bool) {
	if stmt, ok := s.GetPreparedQuery(query); ok {
		return stmt, true
	}
	return s.GetPreparedQuery(sql.RemoveSpaceAndDelimiter(query, ';'))
}

// noCapture is the capture callback of a statement whose fields are not
// recorded.
func noCapture(cb func(*sqltypes.Result) error) func(*sqltypes.Result) error { return cb }

// execute runs statement stmt (text query) with bindings from the plan
// cache's plans under key (variants, the ones cached), or builds the plan
// to cache and tells the caller to run it the usual way (see StmtExecute).
func (f *FastLane) execute(sqlCtx *sql.Context, c *mysql.Conn, s *Session, key, query string, stmt sqlparser.Statement, variants []*cachedPlan, bindings map[string]*querypb.BindVariable, cursor bool, callback func(*sqltypes.Result) error) (handled bool, capture func(func(*sqltypes.Result) error) func(*sqltypes.Result) error, done func(error), err error) {
	none := noCapture
	uncached := s.notFromCache()
	var tname sqlparser.TableName
	var auth sqlparser.AuthInformation
	var nparams int
	var ok bool
	var counter string // a write's (directwrite.go)
	if len(variants) == 0 {
		if tname, auth, nparams, ok = cacheableShape(stmt); !ok {
			if tname, auth, nparams, counter, ok = writeShape(stmt); !ok {
				s.plans.putNot(key)
				return false, none, uncached, nil
			}
		}
	}
	db := sqlCtx.GetCurrentDatabase()
	vars := s.stmtVars(sqlCtx) // the session's sql_mode, ... (stmtvars.go)
	mode := vars.mode
	if len(variants) > 0 {
		// The previous statement's warnings go before the lookup is
		// re-planned, as go-mysql-server clears them before binding
		// and keeps what binding and analysis warn (QueryWithBindings);
		// a statement that then takes the general path clears them too.
		sqlCtx.ClearWarnings()
	}
	for _, p := range variants {
		if !p.valid(sqlCtx, f.GW, db, vars) || !p.validWrite(f.GW) {
			s.plans.drop(key, p)
			continue
		}
		if !p.max1 && cursor {
			continue
		}
		if !f.authorized(sqlCtx, p) {
			break // go-mysql-server's binder reports the privilege error
		}
		if p.write != nil {
			if node, ok := p.rebindWrite(sqlCtx, bindings); ok {
				s.planHits.Add(1)
				s.writeRuns.Add(1)
				s.plans.hit(key)
				err := f.runWrite(sqlCtx, c, query, p, node, callback)
				s.lastFromCache.Store(true)
				return true, none, nil, err
			}
			continue
		}
		if p.direct != nil && !f.NoDirect {
			if lookup, ok := p.lookup(sqlCtx, bindings); ok {
				s.planHits.Add(1)
				s.directRuns.Add(1)
				s.plans.hit(key)
				err := f.runDirect(sqlCtx, c, query, p, lookup, callback)
				s.lastFromCache.Store(true)
				return true, none, nil, err
			}
			continue
		}
		if node, ok := p.rebind(sqlCtx, bindings); ok {
			s.planHits.Add(1)
			s.plans.hit(key)
			err := f.run(sqlCtx, c, query, node, p.max1, p.fields, callback)
			s.lastFromCache.Store(true)
			return true, none, nil, err
		}
	}
	// A miss: build the plan to cache, then let go-mysql-server run the
	// statement and keep the fields it sends.
	if len(variants) > 0 {
		tname, auth, nparams = variants[0].table, variants[0].auth, variants[0].nparams
		if w := variants[0].write; w != nil {
			counter = w.counter
		}
	}
	if stmt == nil {
		return false, none, uncached, nil // a text without its parse (directinsert_text.go)
	}
	s.planMisses.Add(1)
	var np *cachedPlan
	if counter != "" {
		if cursor {
			return false, none, uncached, nil
		}
		np = f.buildWrite(sqlCtx, query, stmt, tname, nparams, counter, bindings, db, mode)
		if np != nil && s.plans.built(key) {
			// A write runs from its plan at once (directwrite.go).
			np.auth = auth
			s.plans.put(key, np)
			return f.runBuiltWrite(sqlCtx, c, s, query, np, bindings, callback)
		}
	} else {
		np = f.build(sqlCtx, query, stmt, tname, nparams, bindings, db, mode)
	}
	if np != nil {
		np.auth = auth
	}
	return s.cacheBuilt(key, np, uncached)
}

// cacheBuilt takes a plan just built for key (nil if the statement's plan
// did not qualify) to the general path's run: the returned capture keeps
// the result fields go-mysql-server sends, and done caches the plan if the
// statement succeeded; handled is false.
func (s *Session) cacheBuilt(key string, np *cachedPlan, uncached func(error)) (handled bool, capture func(func(*sqltypes.Result) error) func(*sqltypes.Result) error, done func(error), err error) {
	if np == nil {
		// A shape whose plan does not qualify (a residual filter, a scan)
		// would pay the extra analysis on every execute: after a few
		// failures the statement is left to go-mysql-server for the session.
		s.plans.failed(key)
		return false, noCapture, uncached, nil
	}
	if !s.plans.built(key) {
		// Rebuilt too often for its hits (parameter types that vary with
		// every execute): stop paying the extra analysis.
		s.plans.putNot(key)
		return false, noCapture, uncached, nil
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
		if err == nil && (np.fields != nil || np.write != nil) {
			s.plans.put(key, np)
		}
	}
	return false, capture, done, nil
}

// beginSelect does for a SELECT served from the plan cache what
// go-mysql-server's handler and engine do before running one: the
// statement counters, the process list entry (KILL QUERY), the session's
// command begin, Questions and Com_select. end.done(err) undoes them in
// reverse order once the statement is done.
func (f *FastLane) beginSelect(sqlCtx *sql.Context, query string) (*sql.Context, stmtEnd, error) {
	return f.beginStatement(sqlCtx, query, "Com_select")
}

// beginStatement is beginSelect for a statement counted in counter
// (Com_select, Com_insert, ...; none for "": txcontrol.go). sqlCtx is
// the statement's own (queryContext's): its context is made cancellable
// in place, for KILL, and put back by end.done. The process list entry
// is the session's (fastproc.go); the clock is read once here and once
// in end.done.
func (f *FastLane) beginStatement(sqlCtx *sql.Context, query, counter string) (*sql.Context, stmtEnd, error) {
	start := time.Now()
	if f.Statements != nil {
		f.Statements.QueryStarted()
	}
	s, ok := sqlCtx.Session.(*Session)
	if !ok { // (every session of the server is one)
		err := errors.New("sqlgw: the plan cache's statement has no sqlgw session")
		if f.Statements != nil {
			f.Statements.QueryCompleted(false, time.Since(start))
		}
		return sqlCtx, stmtEnd{}, err
	}
	end := stmtEnd{f: f, ctx: sqlCtx, s: s, parent: sqlCtx.Context, start: start}
	sqlCtx.Context, _ = s.proc.begin(sqlCtx, query, start)
	if err := sql.SessionCommandBegin(sqlCtx.Session); err != nil {
		end.finish(err)
		return sqlCtx, stmtEnd{}, err
	}
	sql.IncrementStatusVariable(sqlCtx, "Questions", 1)
	if counter != "" { // "": none (txcontrol.go)
		sql.IncrementStatusVariable(sqlCtx, counter, 1)
	}
	end.command = true
	return sqlCtx, end, nil
}

// stmtEnd is what ends a statement beginStatement began: a value, not a
// closure, as this runs on every execute.
type stmtEnd struct {
	f       *FastLane
	ctx     *sql.Context
	s       *Session
	parent  context.Context // the context's before beginStatement
	start   time.Time
	command bool // SessionCommandBegin succeeded
}

// done ends the statement, which ended with err.
func (e stmtEnd) done(err error) {
	if e.command {
		sql.SessionCommandEnd(e.ctx.Session)
	}
	e.finish(err)
}

// finish is done after the session's command end: the process list
// entry, the context put back, the statement's metrics.
func (e stmtEnd) finish(err error) {
	elapsed := time.Since(e.start)
	e.s.proc.end(e.ctx, elapsed)
	e.ctx.Context = e.parent
	if e.f.Statements != nil {
		e.f.Statements.QueryCompleted(err == nil, elapsed)
	}
}

// run executes a cached plan the way go-mysql-server's handler runs an
// at-most-one-row SELECT (Handler.doQuery with QFlagMax1Row).
func (f *FastLane) run(sqlCtx *sql.Context, c *mysql.Conn, query string, node sql.Node, max1 bool, fields []*querypb.Field, callback func(*sqltypes.Result) error) (err error) {
	sqlCtx, end, err := f.beginSelect(sqlCtx, query)
	if err != nil {
		return err
	}
	defer func() { end.done(err) }()
	qFlags := &sql.QueryFlags{}
	if max1 {
		qFlags.Set(sql.QFlagDeferProjections)
		qFlags.Set(sql.QFlagMax1Row)
	}
	schema, iter, _, err := f.Engine.PrepQueryPlanForExecution(sqlCtx, query, node, qFlags)
	if err != nil {
		return sql.CastSQLError(err)
	}
	// The rows' values point into buf until the callback has sent them.
	buf := sql.ByteBufPool.Get().(*sql.ByteBuffer)
	defer func() {
		buf.Reset()
		sql.ByteBufPool.Put(buf)
	}()
	if !max1 {
		return rows(sqlCtx, c, schema, iter, fields, buf, callback)
	}
	res, err := max1Row(sqlCtx, schema, iter, fields, buf, nil)
	if err != nil {
		return sql.CastSQLError(err)
	}
	setStatusFlags(sqlCtx, c)
	return callback(res)
}

// rowsBatch is go-mysql-server's: rows per result packet batch.
const rowsBatch = 128

// valueSlab hands out the wire values of result rows (rowToSQL) from
// slabs of 16, 32, ... up to rowsBatch rows' worth, not one allocation
// per row. A slab is never reused: the rows it holds are the result the
// callback was given.
type valueSlab struct {
	free []sqltypes.Value
	rows int // rows per slab: the next slab's size
}

// take returns n values from the slab.
func (s *valueSlab) take(n int) []sqltypes.Value {
	if len(s.free) < n {
		s.rows = min(max(2*s.rows, 16), rowsBatch)
		s.free = make([]sqltypes.Value, n*s.rows)
	}
	out := s.free[:n:n]
	s.free = s.free[n:]
	return out
}

// rowToSQL is go-mysql-server's server.RowToSQL without projections (the
// values of row by schema's types, NULL for nil, each written into buf),
// its result cut from slab.
func rowToSQL(ctx *sql.Context, schema sql.Schema, row sql.Row, buf *sql.ByteBuffer, slab *valueSlab) ([]sqltypes.Value, error) {
	if len(schema) == 0 {
		return []sqltypes.Value{}, nil
	}
	out := slab.take(len(schema))
	for i, col := range schema {
		if row[i] == nil {
			out[i] = sqltypes.NULL
			continue
		}
		v, err := col.Type.SQL(ctx, buf.Get(), row[i])
		buf.Grow(v.Len())
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// rows spools a result of any size as go-mysql-server's handler does
// (resultForDefaultIter), on this goroutine: batches of rowsBatch rows.
// As there, the iterator is closed (which commits an autocommit
// statement's transaction) before the connection's status flags are set
// and the last batch is sent, and an error closing it fails the statement.
func rows(ctx *sql.Context, c *mysql.Conn, schema sql.Schema, iter sql.RowIter, fields []*querypb.Field, buf *sql.ByteBuffer, callback func(*sqltypes.Result) error) (err error) {
	closed := false
	defer func() {
		if !closed {
			iter.Close(ctx)
		}
	}()
	res := &sqltypes.Result{Fields: fields}
	sent := false
	var slab valueSlab
	for {
		row, err := iter.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return sql.CastSQLError(err)
		}
		out, err := rowToSQL(ctx, schema, row, buf, &slab)
		if err != nil {
			return sql.CastSQLError(err)
		}
		res.Rows = append(res.Rows, out)
		res.RowsAffected++
		if res.RowsAffected == rowsBatch {
			if err := callback(res); err != nil {
				return err
			}
			sent = true
			res = &sqltypes.Result{Fields: fields}
		}
	}
	closed = true
	if err := iter.Close(ctx); err != nil {
		return sql.CastSQLError(err)
	}
	setStatusFlags(ctx, c)
	if sent && res.RowsAffected == 0 {
		return nil
	}
	return callback(res)
}

// max1Row is go-mysql-server's resultForMax1RowIter. A result of one row
// is made in r if r is not nil (a direct execute's, directState), else in
// a new max1Result.
func max1Row(ctx *sql.Context, schema sql.Schema, iter sql.RowIter, fields []*querypb.Field, buf *sql.ByteBuffer, r *max1Result) (*sqltypes.Result, error) {
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
	if r == nil {
		r = new(max1Result)
	}
	r.rows = [1][]sqltypes.Value{out}
	r.res = sqltypes.Result{Fields: fields, Rows: r.rows[:], RowsAffected: 1}
	return &r.res, nil
}

// max1Result is a one-row result and its row list, in one allocation.
type max1Result struct {
	res  sqltypes.Result
	rows [1][]sqltypes.Value
}

var errMoreThanOneRow = errors.New("result max1Row iterator returned more than one row")

// setStatusFlags is go-mysql-server's setConnStatusFlags.
func setStatusFlags(ctx *sql.Context, c *mysql.Conn) {
	v, err := ctx.GetSessionVariable(ctx, sql.AutoCommitSessionVar)
	if err != nil {
		return
	}
	if on, err := sql.ConvertToBool(ctx, v); err == nil {
		setStatusFlagsFor(ctx, c, on)
		return
	}
	setTransactionFlag(ctx, c)
}

// setStatusFlagsFor is setStatusFlags for a statement that read the
// session's autocommit already (direct.go: directIter), as on.
func setStatusFlagsFor(ctx *sql.Context, c *mysql.Conn, on bool) {
	if on {
		c.StatusFlags |= uint16(mysql.ServerStatusAutocommit)
	} else {
		c.StatusFlags &= ^uint16(mysql.ServerStatusAutocommit)
	}
	setTransactionFlag(ctx, c)
}

func setTransactionFlag(ctx *sql.Context, c *mysql.Conn) {
	if ctx.GetTransaction() != nil {
		c.StatusFlags |= uint16(mysql.ServerInTransaction)
	} else {
		c.StatusFlags &= ^uint16(mysql.ServerInTransaction)
	}
}

// maxVariants bounds the plans kept per statement: one per combination of
// parameter literal types seen (the binder types an integer literal by its
// value's width, 5 as TINYINT and 300 as SMALLINT, where it does not
// convert it to the column's type, as in BETWEEN).
const maxVariants = 4

// get returns the cached plans of query, or whether its shape is known not
// to qualify.
func (pc *planCache) get(query string) ([]*cachedPlan, bool) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return pc.plans[query], pc.not[query]
}

// drop forgets one plan of query (invalidated by DDL).
func (pc *planCache) drop(query string, p *cachedPlan) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	vs := pc.plans[query]
	for i, v := range vs {
		if v == p {
			pc.plans[query] = append(vs[:i:i], vs[i+1:]...)
			break
		}
	}
	if len(pc.plans[query]) == 0 {
		delete(pc.plans, query)
	}
}

// A statement whose plan is rebuilt at least minBuildsToJudge times with
// fewer than hitsPerBuild hits per build is left to go-mysql-server: its
// parameters' literal types vary too much for maxVariants plans (an IN list
// of integers of random widths), and every miss pays a second analysis.
const (
	minBuildsToJudge = 8
	hitsPerBuild     = 4
)

// hit counts a hit of query's plans.
func (pc *planCache) hit(query string) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.stats == nil {
		pc.stats = map[string]*planStats{}
	}
	st := pc.stats[query]
	if st == nil {
		st = &planStats{}
		pc.stats[query] = st
	}
	st.hits++
}

// built counts a build of query's plan and reports whether caching it
// still pays.
func (pc *planCache) built(query string) bool {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.stats == nil || len(pc.stats) >= 4*maxPreparedPlans {
		pc.stats = map[string]*planStats{}
	}
	st := pc.stats[query]
	if st == nil {
		st = &planStats{}
		pc.stats[query] = st
	}
	st.builds++
	return st.builds < minBuildsToJudge || st.hits >= hitsPerBuild*st.builds
}

// planStats are one statement's plan cache hits and builds.
type planStats struct{ hits, builds int }

// maxBuildFailures is how many times a statement of a cacheable shape may
// fail to give a cacheable plan before the session stops trying.
const maxBuildFailures = 3

// failed counts a failed build of query's plan.
func (pc *planCache) failed(query string) {
	pc.mu.Lock()
	if pc.failures == nil || len(pc.failures) >= 4*maxPreparedPlans {
		pc.failures = map[string]int{}
	}
	pc.failures[query]++
	n := pc.failures[query]
	pc.mu.Unlock()
	if n >= maxBuildFailures {
		pc.putNot(query)
	}
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
		pc.plans = map[string][]*cachedPlan{}
	}
	if _, ok := pc.plans[query]; !ok && len(pc.plans) >= maxPreparedPlans {
		for k := range pc.plans { // evict one statement at random
			delete(pc.plans, k)
			break
		}
	}
	vs := pc.plans[query]
	if len(vs) >= maxVariants {
		vs = vs[:maxVariants-1]
	}
	pc.plans[query] = append([]*cachedPlan{p}, vs...)
}

// noteUncached records that a connection's last statement did not run from
// the plan cache.
func (g *Gateway) NoteUncached(conn uint32) {
	if s := g.Session(conn); s != nil {
		s.lastFromCache.Store(false)
	}
}
