package engine

import (
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/planbuilder"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/sqlgw/sqlgw/sqlgw/engine/compat"
)

// Cached plans of writes (issue 13)
//
// The OLTP writes are served from the session's plan cache (plancache.go)
// as SELECTs are, prepared or as text (textcache.go):
//
//	UPDATE <table> SET col = <v>[, ...] WHERE col = <v> [AND col = <v> ...]
//	DELETE FROM <table> WHERE col = <v> [AND col = <v> ...]
//	INSERT [INTO] <table> [(col, ...)] VALUES (<v>, ...)[, (<v>, ...) ...]
//
// where <v> is a parameter, an integer or string literal or NULL, and a SET value
// is <v>, a column, or a column plus or minus <v> (sysbench's `SET k=k+1`,
// `SET c=?`); no IGNORE, ON DUPLICATE KEY UPDATE, REPLACE, ORDER BY, LIMIT,
// RETURNING, WITH, comments, partitions, aliases or index hints. The
// analyzed plan must be an UPDATE or DELETE whose rows come from one
// IndexedTableAccess on a sqlgw table answering every conjunct of the
// WHERE (the primary key or a unique index: at most one row, or any other
// index), or an INSERT from a VALUES list into a sqlgw table; a plan with
// triggers (QFlagTrigger, TriggerExecutor), foreign keys (a
// ForeignKeyHandler), a residual filter, a subquery or a join is not
// cached, nor is a table with foreign keys on either side.
//
// What an execute skips is go-mysql-server's binder and analyzer (about a
// fifth of the CPU of sysbench's oltp_update_index): the parameters'
// literals are built as the binder builds them (planbuilder ConvertVal,
// rawLiteral) and put in place of the cached ones, the lookup of an
// UPDATE or DELETE is bound (or re-planned) as a cached SELECT's
// (cachedPlan.lookup, boundplan.go), and the plan is then executed by go-mysql-server
// exactly as an uncached statement's: Engine.PrepQueryPlanForExecution
// (the session's transaction, the read-only check, the exec builder, the
// accumulator that counts matched and changed rows, the
// transaction-committing and process-tracking iterators) and the OK result
// built as the handler's resultForOkIter does. So every write semantic is
// the general path's own, not a copy: the table editor (editor.go) and the
// transaction's buffered writes and commit (txn.go, txnindex.go), unique
// and global index maintenance, strict-mode conversions and their warnings
// (strictwrite.go), AUTO_INCREMENT and LAST_INSERT_ID, ROW_COUNT(), the
// OK packet's info ("Rows matched: 1  Changed: 1  Warnings: 0") and the
// status flags. The row pipeline of a write is not a goroutine pipeline
// (the handler spools an OK result on its own goroutine); an INSERT ...
// VALUES is nevertheless executed without go-mysql-server's exec builder
// and iterators (directinsert.go: one loop reproducing them, into the same
// editor), UPDATE and DELETE through them.
//
// Which literal of the plan is which parameter is found as for a SELECT:
// each parameter's literal must appear exactly once in the lookup's
// conjuncts, the SET expressions or the VALUES tuples, with the type and
// value the binder gave it, and no other literal there may equal one of
// them (a constant such as the 1 of `k=k+1` equal to a parameter's value
// makes the build fail, and the statement is tried again at the next
// execute, up to the plan cache's limit of failures). Literals elsewhere
// in the plan (column defaults, CHECK constraints) are the schema's and
// are never replaced. SET and VALUES literals are reused only for
// parameters whose literal has exactly the cached type (an integer of
// another width makes another plan variant). After a rebind no literal of
// the cached parameters may be left in the plan. What the analyzer
// derives from the values themselves is derived again per execute: an
// INSERT's FirstGeneratedAutoIncRowIdx (which row's generated
// AUTO_INCREMENT value LAST_INSERT_ID() takes), the lookup.
//
// Unlike a SELECT, whose first execute runs through go-mysql-server to
// record the result fields, a write runs from its plan on the execute
// that built it (runBuiltWrite): it needs nothing from a general run, and
// every write of a cacheable shape is then executed the cached way (which
// the differential tests compare with the general path).
//
// The plan is valid while the catalog version it was built at is current
// (any DDL of any table, a trigger or foreign key created anywhere, makes
// it stale; writes are planned again then), besides the SELECT's rules
// (database, sql_mode, the table's record). Privileges: the table's
// AuthInformation (INSERT, UPDATE, DELETE on it) is checked on every
// execute, as the binder does; the counters the binder increments
// (Com_insert, Com_update, Com_delete) and the engine's Questions are
// incremented here, and the build's own binding takes its increment back.
//
// Upstream: go-mysql-server would make this unnecessary by caching the
// analyzed plans of prepared DML with bind variables left in place.

// writePlan is what a cached write plan adds to cachedPlan.
type writePlan struct {
	counter string         // Com_insert, Com_update or Com_delete
	qFlags  sql.QueryFlags // the flags binding and analysis set
	version uint64         // the catalog version at the build
	// slots are the parameters' literals outside the lookup: SET
	// expressions, VALUES tuples.
	slots []writeSlot
	// ii and values are an INSERT's node and its VALUES list; sets are
	// an UPDATE's SET expressions.
	ii     *plan.InsertInto
	values *plan.Values
	sets   []sql.Expression
	// aiCol is the index in an INSERT's column list of the
	// AUTO_INCREMENT column, -1 if it is not listed (or there is none).
	aiCol int
	// rows, if not nil, is an INSERT's evaluated VALUES list, which its
	// plan's VALUES node does not hold (directinsert_values.go).
	rows []sql.Row
}

// firstGenerated is the analyzer's FirstGeneratedAutoIncRowIdx for the
// VALUES list values whose AUTO_INCREMENT column is col (analyzer
// wrapRowSource): the first row that leaves the value to the sequence
// (DEFAULT, NULL, or 0 unless NO_AUTO_VALUE_ON_ZERO), whose value
// LAST_INSERT_ID() takes; -1 if none does.
func firstGenerated(ctx *sql.Context, values *plan.Values, col int) int {
	for i, tup := range values.ExpressionTuples {
		e := tup[col]
		if w, ok := e.(*expression.Wrapper); ok {
			e = w.Unwrap()
		}
		if _, ok := e.(*sql.ColumnDefaultValue); ok {
			return i
		}
		if lit, ok := e.(*expression.Literal); ok {
			if types.Null.Equals(lit.Type(ctx)) || !sql.LoadSqlMode(ctx).ModeEnabled(sql.NoAutoValueOnZero) && zeroLiteral(ctx, lit) {
				return i
			}
		}
	}
	return -1
}

// zeroLiteral is the analyzer's isZero.
func zeroLiteral(ctx *sql.Context, lit *expression.Literal) bool {
	if !types.IsNumber(lit.Type(ctx)) {
		return false
	}
	v, inRange, err := types.Int8.Convert(ctx, lit.Value())
	return err == nil && inRange == sql.InRange && v == int8(0)
}

// writeSlot is one parameter's literal in a SET expression or a VALUES
// tuple (tuple >= 0: its tuple and column).
type writeSlot struct {
	lit        *expression.Literal
	param      string
	typ        sql.Type
	tuple, col int
}

// writeShape reports whether stmt is a write of a shape the plan cache
// takes (see above) and returns its table, the privilege check the binder
// runs for it, its number of parameters and the status counter of its
// kind.
func writeShape(stmt sqlparser.Statement) (table sqlparser.TableName, auth sqlparser.AuthInformation, nparams int, counter string, ok bool) {
	value := func(e sqlparser.Expr) bool {
		if _, isNull := e.(*sqlparser.NullVal); isNull {
			return true
		}
		v, isVal := e.(*sqlparser.SQLVal)
		if !isVal {
			return false
		}
		switch v.Type {
		case sqlparser.ValArg:
			nparams++
			return true
		case sqlparser.IntVal, sqlparser.StrVal:
			return true
		}
		return false
	}
	var where func(e sqlparser.Expr) bool
	where = func(e sqlparser.Expr) bool {
		switch e := e.(type) {
		case *sqlparser.AndExpr:
			return where(e.Left) && where(e.Right)
		case *sqlparser.ComparisonExpr:
			if e.Escape != nil || e.Operator != sqlparser.EqualStr {
				return false
			}
			return plainColumn(e.Left) && value(e.Right) || plainColumn(e.Right) && value(e.Left)
		}
		return false
	}
	oneTable := func(tes sqlparser.TableExprs) (sqlparser.TableName, sqlparser.AuthInformation, bool) {
		if len(tes) != 1 {
			return sqlparser.TableName{}, sqlparser.AuthInformation{}, false
		}
		from, isAliased := tes[0].(*sqlparser.AliasedTableExpr)
		if !isAliased || from.Hints != nil || from.AsOf != nil || len(from.Partitions) > 0 || from.Lateral || !from.As.IsEmpty() {
			return sqlparser.TableName{}, sqlparser.AuthInformation{}, false
		}
		t, isName := from.Expr.(sqlparser.TableName)
		return t, from.Auth, isName
	}
	defer func() {
		if nparams > maxWriteParams {
			ok = false
		}
	}()
	switch s := stmt.(type) {
	case *sqlparser.Update:
		if len(s.Comments) > 0 || s.Ignore != "" || s.With != nil || s.Where == nil || len(s.OrderBy) > 0 || s.Limit != nil ||
			len(s.Returning) > 0 || len(s.Exprs) == 0 {
			return table, auth, 0, "", false
		}
		if table, auth, ok = oneTable(s.TableExprs); !ok {
			return table, auth, 0, "", false
		}
		for _, a := range s.Exprs {
			if a.Name == nil || !plainColumn(a.Name) {
				return table, auth, 0, "", false
			}
			switch e := a.Expr.(type) {
			case *sqlparser.ColName:
				if !plainColumn(e) {
					return table, auth, 0, "", false
				}
			case *sqlparser.BinaryExpr:
				if e.Operator != sqlparser.PlusStr && e.Operator != sqlparser.MinusStr ||
					!(plainColumn(e.Left) && value(e.Right) || plainColumn(e.Right) && value(e.Left)) {
					return table, auth, 0, "", false
				}
			default:
				if !value(e) {
					return table, auth, 0, "", false
				}
			}
		}
		if !where(s.Where.Expr) {
			return table, auth, 0, "", false
		}
		return table, auth, nparams, "Com_update", true
	case *sqlparser.Delete:
		if len(s.Comments) > 0 || len(s.Targets) > 0 || s.With != nil || len(s.Partitions) > 0 || s.Where == nil ||
			len(s.OrderBy) > 0 || s.Limit != nil || len(s.Returning) > 0 {
			return table, auth, 0, "", false
		}
		if table, auth, ok = oneTable(s.TableExprs); !ok || !where(s.Where.Expr) {
			return table, auth, 0, "", false
		}
		return table, auth, nparams, "Com_delete", true
	case *sqlparser.Insert:
		if s.Action != sqlparser.InsertStr || s.Ignore != "" || s.With != nil || len(s.Comments) > 0 || len(s.Partitions) > 0 ||
			len(s.Returning) > 0 || len(s.OnDup) > 0 {
			return table, auth, 0, "", false
		}
		var rows sqlparser.Values
		switch r := s.Rows.(type) {
		case sqlparser.Values:
			rows = r
		case *sqlparser.AliasedValues:
			if !r.As.IsEmpty() || len(r.Columns) > 0 {
				return table, auth, 0, "", false
			}
			rows = r.Values
		default:
			return table, auth, 0, "", false
		}
		if len(rows) == 0 {
			return table, auth, 0, "", false
		}
		for _, tuple := range rows {
			if len(s.Columns) > 0 && len(tuple) != len(s.Columns) {
				return table, auth, 0, "", false
			}
			for _, v := range tuple {
				if !value(v) {
					return table, auth, 0, "", false
				}
			}
		}
		return s.Table, s.Auth, nparams, "Com_insert", true
	}
	return table, auth, 0, "", false
}

// buildWrite analyzes a write for the cache (before go-mysql-server runs
// it the usual way), or returns nil if the plan does not qualify.
func (f *FastLane) buildWrite(ctx *sql.Context, query string, stmt sqlparser.Statement, tname sqlparser.TableName, nparams int, counter string, bindings map[string]*querypb.BindVariable, db, mode string) *cachedPlan {
	if len(bindings) != nparams || nparams == 0 {
		return nil
	}
	bexprs, ok := bindingExprs(bindings)
	if !ok {
		return nil
	}
	version := f.GW.Catalog.Version()
	binder := planbuilder.New(ctx, f.Engine.Analyzer.Catalog, f.Engine.EventScheduler)
	binder.SetBindings(bexprs)
	// As QueryWithBindings: the previous statement's warnings are cleared
	// and those of binding kept (the plan runs at once: runBuiltWrite).
	nprev := len(ctx.Session.Warnings())
	bound, qFlags, err := binder.BindOnly(stmt, query, &sql.QueryFlags{})
	// The binder counted the statement (Com_insert, ...); the statement's
	// own run counts it again.
	sql.IncrementStatusVariable(ctx, counter, -1)
	if err != nil || qFlags.IsSet(sql.QFlagTrigger) {
		return nil
	}
	if ws := ctx.Session.Warnings(); len(ws) > nprev {
		// Binding warned (it does not for integer and string literals):
		// left to the general path, which reports it.
		return nil
	}
	ctx.ClearWarnings()
	analyzed, err := f.Engine.Analyzer.Analyze(ctx, bound, nil, qFlags)
	if err != nil || qFlags.IsSet(sql.QFlagTrigger) {
		return nil
	}
	p := &cachedPlan{db: db, sqlMode: mode, root: analyzed, table: tname, nparams: nparams,
		ints: planbuilder.New(ctx, nil, nil), charsetResults: ctx.GetCharacterSetResults(),
		write: &writePlan{counter: counter, qFlags: *qFlags, version: version}}
	// cachedPlan.valid compares the session's div_precision_increment
	// with the build's: without it no write plan was ever valid again.
	p.divPrecision = compat.DivPrecisionIncrement(ctx)
	if p.selectLimit, err = ctx.GetSessionVariable(ctx, "sql_select_limit"); err != nil {
		return nil
	}
	var t *Table
	switch counter {
	case "Com_insert":
		ii, ok := analyzed.(*plan.InsertInto)
		if !ok || ii.IsReplace || ii.Ignore || len(ii.OnDupExprs.AllExpressions()) > 0 || len(ii.Returning) > 0 {
			return nil
		}
		// The VALUES list, under the projection the analyzer puts over it
		// (AutoIncrement, the columns' order).
		values, ok := ii.Source.(*plan.Values)
		if pr, isProj := ii.Source.(*plan.Project); isProj {
			values, ok = pr.Child.(*plan.Values)
		}
		if !ok {
			return nil
		}
		if t = insertTarget(ii.Destination); t == nil {
			return nil
		}
		p.write.ii, p.write.values, p.write.aiCol = ii, values, -1
		for _, col := range ii.Destination.Schema(ctx) {
			if !col.AutoIncrement {
				continue
			}
			for i, name := range ii.ColumnNames {
				if strings.EqualFold(name, col.Name) {
					p.write.aiCol = i
				}
			}
		}
		if p.write.aiCol >= 0 && ii.FirstGeneratedAutoIncRowIdx != firstGenerated(ctx, values, p.write.aiCol) {
			return nil
		}
	default:
		okPlan := true
		transform.Inspect(analyzed, func(n sql.Node) bool {
			switch n := n.(type) {
			case *plan.IndexedTableAccess:
				if p.ita != nil {
					okPlan = false
				}
				p.ita = n
			case *plan.Update:
				okPlan = !n.Ignore && len(n.Returning) == 0 && n == analyzed
			case *plan.DeleteFrom:
				okPlan = !n.HasExplicitTargets() && len(n.Returning) == 0 && n == analyzed
			case *plan.UpdateSource:
				okPlan = !n.Ignore
				p.write.sets = n.UpdateExprs.AllExpressions()
			default:
				okPlan = false
			}
			return okPlan
		})
		if !okPlan || p.ita == nil {
			return nil
		}
		var ok bool
		if t, ok = p.ita.Table.(*Table); !ok || t.lookup == nil {
			return nil
		}
		pr, ok := t.lookup.Ranges.(*planRanges)
		if !ok || len(pr.given) == 0 || len(pr.plan.Residual) > 0 {
			return nil
		}
		p.given = pr.given
		p.lookupMax1 = atMostOneRow(pr.plan)
	}
	if fks, err := t.GetDeclaredForeignKeys(ctx); err != nil || len(fks) > 0 {
		return nil
	}
	if fks, err := t.GetReferencedForeignKeys(ctx); err != nil || len(fks) > 0 {
		return nil
	}
	// Each parameter's literal: in the lookup's conjuncts (as a cached
	// SELECT's), or in a SET expression or VALUES tuple, exactly once.
	used := map[string]bool{}
	raws := map[string]*expression.Literal{}
	for name, bv := range bindings {
		raw, ok := rawLiteral(ctx, bv, nil)
		if !ok {
			return nil
		}
		raws[name] = raw
	}
	okPlan := p.lookupSlots(ctx, raws, used)
	if !okPlan {
		return nil
	}
	// slot finds the parameter of a literal outside the lookup: none (a
	// constant), or exactly one not used elsewhere.
	slot := func(lit *expression.Literal, tuple, col int) bool {
		var match *writeSlot
		for name, raw := range raws {
			if !raw.Type(ctx).Equals(lit.Type(ctx)) || !reflect.DeepEqual(raw.Value(), lit.Value()) {
				continue
			}
			if match != nil || used[name] {
				return false
			}
			match = &writeSlot{lit: lit, param: name, typ: lit.Type(ctx), tuple: tuple, col: col}
		}
		if match != nil {
			used[match.param] = true
			p.write.slots = append(p.write.slots, *match)
		}
		return true
	}
	inspect := func(e sql.Expression, tuple, col int) {
		sql.Inspect(ctx, e, func(_ *sql.Context, e sql.Expression) bool {
			if lit, isLit := e.(*expression.Literal); isLit && okPlan {
				okPlan = slot(lit, tuple, col)
			}
			return okPlan
		})
	}
	if v := p.write.values; v != nil {
		for i, tuple := range v.ExpressionTuples {
			for j, e := range tuple {
				inspect(e, i, j)
			}
		}
	}
	for _, e := range p.write.sets {
		inspect(e, -1, -1)
	}
	if !okPlan || len(used) != nparams {
		return nil
	}
	// The rebuilt plan for the same values must be the analyzed one.
	again, ok := p.rebindWrite(ctx, bindings)
	if !ok || sql.DebugString(ctx, again) != sql.DebugString(ctx, analyzed) {
		return nil
	}
	if !f.pinTable(ctx, p, tname, db, t) {
		return nil
	}
	if p.ita != nil {
		p.prepareBound(ctx, analyzed, bindings) // boundplan.go
	}
	return p
}

// insertTarget returns the sqlgw table an INSERT writes to, or nil.
func insertTarget(n sql.Node) *Table {
	for {
		switch d := n.(type) {
		case *plan.ResolvedTable:
			tbl := d.Table
			if pt, ok := tbl.(*plan.ProcessTable); ok {
				// The analyzer's progress tracking (trackProcess): an
				// INSERT's destination is not read, so its callbacks,
				// made for the build's query, are never called.
				tbl = pt.Underlying()
			}
			t, _ := tbl.(*Table)
			return t
		case *plan.InsertDestination:
			n = d.Child
		case *plan.TableAlias:
			n = d.Child
		default:
			return nil
		}
	}
}

// rebindWrite returns the cached write plan with the literals of bindings,
// or ok false if this execute must take the general path.
func (p *cachedPlan) rebindWrite(ctx *sql.Context, bindings map[string]*querypb.BindVariable) (sql.Node, bool) {
	if len(bindings) != p.nparams {
		return nil, false
	}
	repl := make(map[*expression.Literal]*expression.Literal, len(p.write.slots))
	for i := range p.write.slots {
		sl := &p.write.slots[i]
		lit, ok := rawLiteral(ctx, bindings[sl.param], p.ints)
		if !ok || !lit.Type(ctx).Equals(sl.typ) {
			return nil, false
		}
		repl[sl.lit] = lit
	}
	replace := func(_ *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		if l, ok := e.(*expression.Literal); ok {
			if n, ok := repl[l]; ok {
				return n, transform.NewTree, nil
			}
		}
		return e, transform.SameTree, nil
	}
	var root sql.Node
	if w := p.write; w.ii != nil {
		tuples := make([][]sql.Expression, len(w.values.ExpressionTuples))
		for i, tuple := range w.values.ExpressionTuples {
			tuples[i] = make([]sql.Expression, len(tuple))
			for j, e := range tuple {
				ne, _, err := transform.Expr(ctx, e, replace)
				if err != nil {
					return nil, false
				}
				tuples[i][j] = ne
			}
		}
		nv := *w.values
		nv.ExpressionTuples = tuples
		var src sql.Node = &nv
		if pr, ok := w.ii.Source.(*plan.Project); ok {
			src = plan.NewProject(pr.Projections, &nv)
		}
		ii := w.ii.WithSource(src)
		if w.aiCol >= 0 {
			ii = ii.WithAutoIncrementIdx(firstGenerated(ctx, &nv, w.aiCol))
		}
		root = ii
	} else {
		var ok bool
		if root, ok = p.rebind(ctx, bindings); !ok { // boundplan.go
			return nil, false
		}
		var err error
		if root, _, err = transform.NodeExprs(ctx, root, replace); err != nil {
			return nil, false
		}
	}
	// No cached parameter literal may be left.
	left := false
	check := func(_ *sql.Context, e sql.Expression) bool {
		if l, ok := e.(*expression.Literal); ok {
			if _, ok := repl[l]; ok {
				left = true
			}
		}
		return !left
	}
	transform.InspectExpressions(ctx, root, check)
	if ii, ok := root.(*plan.InsertInto); ok {
		values, _ := ii.Source.(*plan.Values)
		if pr, ok := ii.Source.(*plan.Project); ok {
			values = pr.Child.(*plan.Values)
		}
		for _, tuple := range values.ExpressionTuples {
			for _, e := range tuple {
				sql.Inspect(ctx, e, check)
			}
		}
	}
	return root, !left
}

// runBuiltWrite runs the write plan p just built for this execute (a
// write needs nothing of a general run, such as a SELECT's result
// fields): the previous statement's warnings are cleared and the build's
// own kept, as go-mysql-server's QueryWithBindings does around binding.
func (f *FastLane) runBuiltWrite(sqlCtx *sql.Context, c *mysql.Conn, s *Session, query string, p *cachedPlan, bindings map[string]*querypb.BindVariable, callback func(*sqltypes.Result) error) (handled bool, capture func(func(*sqltypes.Result) error) func(*sqltypes.Result) error, done func(error), err error) {
	node, ok := p.rebindWrite(sqlCtx, bindings)
	if !ok {
		return false, noCapture, func(error) { s.lastFromCache.Store(false) }, nil
	}
	s.writeRuns.Add(1)
	s.lastFromCache.Store(false)
	err = f.runWrite(sqlCtx, c, query, p, node, callback)
	return true, noCapture, nil, err
}

// validWrite adds a write plan's rule to cachedPlan.valid: the catalog
// has not changed since the build.
func (p *cachedPlan) validWrite(g *Gateway) bool {
	return p.write == nil || g.Catalog.Version() == p.write.version
}

// runWrite executes a rebound write plan as go-mysql-server's handler
// runs a statement with an OK result (Handler.doQuery, resultForOkIter).
func (f *FastLane) runWrite(sqlCtx *sql.Context, c *mysql.Conn, query string, p *cachedPlan, node sql.Node, callback func(*sqltypes.Result) error) (err error) {
	sqlCtx, end, err := f.beginStatement(sqlCtx, query, p.write.counter)
	if err != nil {
		return err
	}
	defer func() { end.done(err) }()
	if res, handled, err := f.directInsert(sqlCtx, p, node); handled { // directinsert.go
		if err != nil {
			return sql.CastSQLError(err)
		}
		setStatusFlags(sqlCtx, c)
		return callback(res)
	}
	if p.write.counter == "Com_update" {
		if handled, err := f.runDirectUpdate(sqlCtx, c, node, callback); handled { // directupdate.go
			return err
		}
	}
	qFlags := p.write.qFlags
	qFlags.Set(sql.QFlagDeferProjections)
	schema, iter, _, err := f.Engine.PrepQueryPlanForExecution(sqlCtx, query, node, &qFlags)
	if err != nil {
		return sql.CastSQLError(err)
	}
	if !types.IsOkResultSchema(schema) {
		iter.Close(sqlCtx)
		return sql.CastSQLError(fmt.Errorf("sqlgw: cached write plan without an OK result"))
	}
	res, err := okResult(sqlCtx, iter)
	if err != nil {
		return sql.CastSQLError(err)
	}
	setStatusFlags(sqlCtx, c)
	return callback(res)
}

// okResult is go-mysql-server's resultForOkIter and resultFromOkResult.
func okResult(ctx *sql.Context, iter sql.RowIter) (*sqltypes.Result, error) {
	row, err := iter.Next(ctx)
	if err != nil {
		return nil, err
	}
	if _, err = iter.Next(ctx); err != io.EOF {
		return nil, fmt.Errorf("result schema iterator returned more than one row")
	}
	if err := iter.Close(ctx); err != nil {
		return nil, err
	}
	ok := row[0].(types.OkResult)
	info := ""
	if ok.Info != nil {
		info = ok.Info.String()
	}
	return &sqltypes.Result{RowsAffected: ok.RowsAffected, InsertID: ok.InsertID, Info: info}, nil
}

// maxWriteParams bounds the parameters of a cached write: a bulk INSERT of
// thousands of rows (sysbench's prepare, a dump) is neither repeated with
// the same number of rows nor worth a second analysis.
const maxWriteParams = 64

// maxWriteText bounds the text of a write statement the text plan cache
// parses (the engine parses it again when the cache does not take it).
const maxWriteText = 4096

// maybeCacheableWriteText is a cheap look at a text before it is parsed:
// a short INSERT, UPDATE or DELETE without the words of the shapes the
// cache never takes (INSERT IGNORE, ON DUPLICATE KEY UPDATE, INSERT ...
// SELECT, subqueries), which would otherwise be parsed twice.
func maybeCacheableWriteText(q string) bool {
	q = strings.TrimLeft(q, " \t\r\n")
	if len(q) > maxWriteText || len(q) < 8 || containsFold(q, "select") || containsFold(q, "duplicate") || containsFold(q, "ignore") {
		return false
	}
	for _, w := range []string{"insert", "update", "delete"} {
		if strings.EqualFold(q[:6], w) && (q[6] == ' ' || q[6] == '\t' || q[6] == '\n' || q[6] == '\r') {
			return true
		}
	}
	return false
}

// normalizeWriteText is normalizeText for the writes above: the integer
// and string literals of a VALUES list, of SET values and of the WHERE's
// comparisons become parameters.
func normalizeWriteText(stmt sqlparser.Statement) (map[string]*querypb.BindVariable, string, bool) {
	if _, _, _, _, ok := writeShape(stmt); !ok {
		return nil, "", false
	}
	bindings := map[string]*querypb.BindVariable{}
	param := textParam(bindings)
	var where func(e sqlparser.Expr)
	where = func(e sqlparser.Expr) {
		switch e := e.(type) {
		case *sqlparser.AndExpr:
			where(e.Left)
			where(e.Right)
		case *sqlparser.ComparisonExpr:
			param(&e.Left)
			param(&e.Right)
		}
	}
	switch s := stmt.(type) {
	case *sqlparser.Update:
		for _, a := range s.Exprs {
			if b, ok := a.Expr.(*sqlparser.BinaryExpr); ok {
				param(&b.Left)
				param(&b.Right)
			} else {
				param(&a.Expr)
			}
		}
		where(s.Where.Expr)
	case *sqlparser.Delete:
		where(s.Where.Expr)
	case *sqlparser.Insert:
		rows, ok := s.Rows.(sqlparser.Values)
		if !ok {
			rows = s.Rows.(*sqlparser.AliasedValues).Values
		}
		for _, tuple := range rows {
			for i := range tuple {
				param(&tuple[i])
			}
		}
	}
	if len(bindings) == 0 || len(bindings) > maxWriteParams {
		return nil, "", false
	}
	return bindings, textKeyPrefix + sqlparser.String(stmt), true
}
