package engine

import (
	"io"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
)

// Direct execution of cached plans (issue 13)
//
// A cached plan (plancache.go) whose analyzed form is only the table
// access and a projection of its columns, optionally under constant
// LIMITs (the pushdown rule, rules.go, leaves one on each side of the
// projection),
//
//	[Limit n] -> [Project(col, col AS x, ...)] -> [Limit n] -> IndexedTableAccess
//
// (sysbench's point select `SELECT c FROM sbtest1 WHERE id=?`, its
// IN-lists of keys through a global index `WHERE k IN (?, ...)`, its plain
// range `WHERE id BETWEEN ? AND ?`, and the ORDER BY/LIMIT variants whose
// sort the key order satisfies) is executed without go-mysql-server's exec
// builder and row pipeline: each execute binds only the lookup (as the
// plan cache does, boundplan.go), reads it with the table's own row iterator (iter.go:
// the statement's or transaction's snapshot, snapshot.go; the
// transaction's buffered writes overlaid, txn.go; the read recorded for
// the commit's conflict check), projects the columns and converts each row
// once to the wire values (server.RowToSQL, as go-mysql-server's handler),
// with the result fields the first, general execution sent.
//
// What go-mysql-server does around such a plan, and the direct path does
// the same way (each step named after the code it replaces):
//   - Engine.PrepQueryPlanForExecution: Session.ValidateSession, and a
//     transaction begun if none is open (beginTransaction: the session's
//     StartTransaction, ReadWrite); the read-only check has nothing to
//     refuse in a SELECT;
//   - the process list and KILL (the handler's BeginQuery/EndQuery: the
//     read runs under the query's cancellable context, and the row
//     iterator checks it), SessionCommandBegin/End, the Questions and
//     Com_select counters (FastLane.run), the previous statement's
//     warnings cleared before the lookup is re-planned (FastLane.execute);
//   - TransactionCommittingIter.Close: with autocommit on and not inside
//     BEGIN (ignore-autocommit), the statement's transaction is committed
//     through the session's CommitTransaction and cleared, after the rows
//     were read; as there, a failure to close the read skips the commit;
//   - TrackedRowIter.Close: ROW_COUNT() is -1 and FOUND_ROWS() the rows
//     returned;
//   - LimitIter: at most n rows;
//   - the handler's spooling (max1Row and rows in plancache.go: one row
//     for an at-most-one-row plan, batches of 128 otherwise), and the
//     connection's status flags.
//
// Privileges are checked on every execute before (FastLane.authorized).
// Aggregates, sorts and DISTINCT over the access are evaluated directly
// too (directrange.go); any other plan shape (offsets, filters, GROUP BY
// keys, expressions) runs from the cache through go-mysql-server
// (FastLane.run), and every
// statement the cache does not take, as before, through go-mysql-server's
// own path. Config.NoDirect turns direct execution off (the differential
// test compares both ways).
//
// The row iterator decodes only the result's columns (directPlan.cols),
// each once, from its property to the engine value that
// server.RowToSQL's column types encode (rowdecode.go): the wire form
// itself stays go-mysql-server's (each type's formatting and the result
// character set's encoding), so that both paths send the same bytes
// (TestDirectTypesWire). The sql.Row is reused from row to row (RowToSQL
// copies the values out before the next).
//
// Per-statement costs left out where they buy nothing: an autocommit
// SELECT's transaction ends with the statement and writes nothing, so the
// read does not create the transaction's table state nor remember the
// ETags it read (rowIter.newRowIterFor), and the commit does not walk a
// transaction without writes (Session.CommitTransaction).

// directPlan is what direct execution needs of a cached plan.
type directPlan struct {
	schema sql.Schema // the plan's result schema
	proj   []int      // the table row's columns, in result order; nil: all
	limit  int64      // a LIMIT above the access (0: none)
	// cols are the result's columns as ordinals of the table's full row
	// (with ops: the columns of the rows the first operator reads): the
	// row iterator decodes only these, into a row it reuses unless keep.
	cols []int
	// keep: the operators keep the rows they read (a sort, DISTINCT),
	// so each is a new one.
	keep bool
	// ops, if any, are evaluated over the table's rows (directrange.go).
	ops []directOp
}

// directShape returns the direct form of an analyzed plan whose one table
// access is ita, or nil if it has another shape.
func directShape(ctx *sql.Context, root sql.Node, ita *plan.IndexedTableAccess) *directPlan {
	if d := evalShape(ctx, root, ita); d != nil { // directrange.go
		return d
	}
	d := &directPlan{schema: root.Schema(ctx)}
	n := root
	// limits takes the LIMITs at n (the pushdown rule leaves one above
	// the projection and one below it: the smaller applies).
	limits := func() bool {
		for {
			l, ok := n.(*plan.Limit)
			if !ok {
				return true
			}
			lit, isLit := l.Limit.(*expression.Literal)
			if !isLit || l.CalcFoundRows {
				return false
			}
			v, isInt := lit.Value().(int64)
			if !isInt || v <= 0 {
				return false
			}
			if d.limit == 0 || v < d.limit {
				d.limit = v
			}
			n = l.Child
		}
	}
	if !limits() {
		return nil
	}
	if p, ok := n.(*plan.Project); ok {
		width := len(ita.Schema(ctx))
		for _, e := range p.Projections {
			if a, isAlias := e.(*expression.Alias); isAlias {
				e = a.Child
			}
			gf, isGF := e.(*expression.GetField)
			if !isGF || gf.Index() < 0 || gf.Index() >= width {
				return nil
			}
			d.proj = append(d.proj, gf.Index())
		}
		n = p.Child
	}
	if !limits() {
		return nil
	}
	if n != sql.Node(ita) {
		return nil
	}
	t, ok := ita.Table.(*Table)
	if !ok {
		return nil
	}
	// The full row's columns the result returns, decoded alone
	// (rowdecode.go).
	switch {
	case d.proj == nil && t.proj == nil:
		d.cols = ordinals(len(t.meta().Columns))
	case d.proj == nil:
		d.cols = t.proj
	default:
		for _, c := range d.proj {
			if t.proj != nil {
				c = t.proj[c]
			}
			d.cols = append(d.cols, c)
		}
	}
	return d
}

// runDirect executes the cached plan p for the lookup re-planned for this
// execute, as described above.
func (f *FastLane) runDirect(sqlCtx *sql.Context, c *mysql.Conn, query string, p *cachedPlan, lookup sql.IndexLookup, callback func(*sqltypes.Result) error) (err error) {
	sqlCtx, end, err := f.beginSelect(sqlCtx, query)
	if err != nil {
		return err
	}
	defer func() { end.done(err) }()

	st, err := f.directIter(sqlCtx, p, lookup)
	if err != nil {
		return sql.CastSQLError(err)
	}
	base := &st.rows
	var iter sql.RowIter = base
	if p.direct.ops != nil {
		iter = p.direct.evaluate(sqlCtx, base) // directrange.go
	}
	buf := sql.ByteBufPool.Get().(*sql.ByteBuffer)
	defer func() {
		buf.Reset()
		sql.ByteBufPool.Put(buf)
	}()
	if !p.max1 {
		if err := rows(sqlCtx, c, p.direct.schema, iter, p.fields, buf, callback); err != nil {
			return err
		}
		st.release(sqlCtx)
		return nil
	}
	res, err := max1Row(sqlCtx, p.direct.schema, iter, p.fields, buf, &st.res)
	if err != nil {
		return sql.CastSQLError(err)
	}
	setStatusFlagsFor(sqlCtx, c, base.autoCommit) // (a SELECT does not change autocommit)
	if err := callback(res); err != nil {
		return err
	}
	st.release(sqlCtx)
	return nil
}

// beginStatement is what go-mysql-server's Engine.PrepQueryPlanForExecution
// does first for every statement: the session's validation, and the
// transaction started if the session has none.
func beginStatement(ctx *sql.Context) error {
	if err := ctx.Session.ValidateSession(ctx); err != nil {
		return err
	}
	if ctx.GetTransaction() == nil {
		if ts, ok := ctx.Session.(sql.TransactionSession); ok {
			tx, err := ts.StartTransaction(ctx, sql.ReadWrite)
			if err != nil {
				return err
			}
			ctx.SetTransaction(tx)
		}
	}
	return nil
}

// directIter starts the statement's read: PrepQueryPlanForExecution's
// session validation and transaction (beginStatement), then the table's
// row iterator.
func (f *FastLane) directIter(ctx *sql.Context, p *cachedPlan, lookup sql.IndexLookup) (*directState, error) {
	if err := beginStatement(ctx); err != nil {
		return nil, err
	}
	autoCommit, err := sessionAutocommit(ctx) // stmtvars.go
	if err != nil {
		return nil, err
	}
	t := p.ita.Table.(*Table)
	pr := lookup.Ranges.(*planRanges)
	// The rows, the read's spec, the table's row iterator and a short
	// result row: one allocation, or the session's spare (release).
	st := takeDirectState(ctx)
	st.spec = readSpec{plan: pr.plan, overlay: pr.overlay, residual: pr.residual}
	spec := &st.spec
	// The statement is its own transaction (committed at its end, Close,
	// read-only): one entity read without a snapshot (singleread.go), and
	// no transaction state for the read (newRowIterFor).
	stmtTxn := autoCommit && !ctx.GetIgnoreAutoCommit()
	spec.single = stmtTxn && t.gw.singleRead(ctx, pr.plan)
	it, err := t.newRowIterIn(ctx, &st.it, spec, stmtTxn)
	if err != nil {
		return nil, err
	}
	if n := len(p.direct.cols); p.direct.cols != nil && n <= len(st.out) {
		it.cols, it.out = p.direct.cols, st.out[:n:n]
	} else if p.direct.cols != nil {
		it.cols, it.out = p.direct.cols, make(sql.Row, n)
	}
	if p.direct.cols != nil {
		it.fresh = p.direct.keep // directrange.go: the operators keep the rows
	}
	st.rows = directRows{it: it, d: p.direct, autoCommit: autoCommit}
	return st, nil
}

// directState is what directIter allocates per execute, in one piece.
type directState struct {
	rows directRows
	spec readSpec
	it   rowIter
	out  [8]any // the result row of up to 8 columns (rowIter.out)
	// res is an at-most-one-row plan's result (max1Row), which the
	// callback has sent by the time runDirect releases the state.
	res max1Result
}

// takeDirectState returns the session's spare directState, cleared, or a
// new one. The spare is the last execute's, handed back by release once
// that execute was done with it (issue 13: at 1.75 KiB, a point select's
// directState was half of the bytes it allocated, and so half of the
// collector's work under oltp_point_select).
func takeDirectState(ctx *sql.Context) *directState {
	if s := sessionOf(ctx); s != nil && s.spareDirect != nil {
		st := s.spareDirect
		s.spareDirect = nil
		*st = directState{}
		return st
	}
	return new(directState)
}

// release makes st the session's spare. runDirect calls it only after the
// execute succeeded, its rows closed and its results sent (the callback
// returned): nothing made for the execute refers to st any more (the rows
// went out as wire values, converted from st.out by the callback's time;
// the read's contexts, rowIter.frame, served storage calls that returned).
// An execute that failed keeps its state to itself: its error may carry
// what it read.
func (st *directState) release(ctx *sql.Context) {
	if s := sessionOf(ctx); s != nil {
		s.spareDirect = st
	}
}

// directRows are the rows of a direct execution: the table's rows
// projected, at most limit of them; Close ends the statement's
// transaction as go-mysql-server's TransactionCommittingIter and
// TrackedRowIter do.
type directRows struct {
	it         *rowIter
	d          *directPlan
	autoCommit bool
	n          int64
	closed     bool
}

func (r *directRows) Next(ctx *sql.Context) (sql.Row, error) {
	if r.d.limit > 0 && r.n >= r.d.limit {
		return nil, io.EOF
	}
	row, err := r.it.Next(ctx)
	if err != nil {
		return nil, err
	}
	r.n++
	if r.it.cols != nil || r.d.proj == nil {
		return row, nil // the projected columns (rowIter.cols), or all
	}
	out := make(sql.Row, len(r.d.proj))
	for i, c := range r.d.proj {
		out[i] = row[c]
	}
	return out, nil
}

func (r *directRows) Close(ctx *sql.Context) error {
	if r.closed {
		return nil
	}
	r.closed = true
	err := r.it.Close(ctx)
	if err == nil {
		err = r.commit(ctx)
	}
	ctx.GetLastQueryInfo().RowCount.Store(-1)
	ctx.GetLastQueryInfo().FoundRows.Store(r.n)
	return err
}

// commit is TransactionCommittingIter.Close for a SELECT.
func (r *directRows) commit(ctx *sql.Context) error {
	tx := ctx.GetTransaction()
	if tx == nil || ctx.GetIgnoreAutoCommit() || !r.autoCommit {
		return nil
	}
	ts, ok := ctx.Session.(sql.TransactionSession)
	if !ok {
		return nil
	}
	if err := ts.CommitTransaction(ctx, tx); err != nil {
		return err
	}
	ctx.SetTransaction(nil)
	return nil
}
