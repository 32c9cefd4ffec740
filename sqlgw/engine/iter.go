package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/planner"
	"github.com/sqlgw/sqlgw/sqlgw/metrics"
	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/recorder"
)

// Execution of a plan
//
// The row iterator sends the plan's requests with the statement's context
// (carrying the session's counters) and pulls lazily: a query's next page
// is fetched only when the rows of the previous one are consumed, so a LIMIT
// above stops fetching. MultiGet keys are fetched in windows of
// multiGetWindow keys, multiGetParallel at a time (one after another on a
// store in this process, Gateway.each), and emitted in key order.
// Rows are decoded to full rows, checked against the residual range filter
// when the plan left part of a lookup join's ranges to the gateway, and
// then projected.
//
// Inside a transaction with buffered writes to the table, the buffer is
// merged in key order (in reverse key order for a plan read backwards,
// planner.Plan.Reverse): a stored row with a buffered write is replaced by
// it (or dropped, if deleted), and buffered rows the store did not return
// are added; both only if they pass the lookup's whole original filter,
// because the store evaluated the pushed part on the stored values only.

const (
	multiGetWindow   = 64
	multiGetParallel = 16
	// maxTrackedReads caps the ETags a transaction remembers per table;
	// beyond it an UPDATE or DELETE re-reads the row (one more request) and
	// checks it is unchanged.
	maxTrackedReads = 100_000
)

type rowIter struct {
	t    *Table
	ctx  context.Context
	spec *readSpec
	meta *catalog.Table
	sel  []string
	tt   *txTable

	// gets
	gets    []planner.Key
	gi      int
	fetched []*storage.Entity
	fi      int
	// queries
	qi   int
	q    *storage.Query
	page []*storage.Entity
	pi   int
	// merge reads the current query group of a salted table's plan
	// (salt_read.go; gi then counts groups).
	merge *mergeCursor

	// overlay: buffered non-deleted writes in key order
	pend  []entKey
	pendi int
	seen  map[entKey]bool

	scanned int64

	// cols, set by direct execution (direct.go), are the full row's
	// columns Next returns, in out, which the next call reuses; only
	// they are decoded (rowdecode.go). nil: the table's projection.
	cols []int
	out  sql.Row
	one  [1]*storage.Entity // a row's entities without continuations
	// fresh: each row Next returns is a new one (the operators above
	// keep them, directrange.go), cut from slab.
	fresh bool
	slab  []any

	getOpts storage.GetOptions // fetchWindow's
	oneGet  [1]*storage.Entity // fetchWindow's point get

	// keepFull makes Next keep the full row it projected in lastFull.
	keepFull bool
	lastFull sql.Row

	// Index plans (secondary.go): the base entities are loaded once into
	// fetched; synthetic ones (covering reads) carry no row ETag.
	ixLoaded  bool
	synthetic map[*storage.Entity]bool
	// firstPages holds the first page of each of the plan's queries, read
	// in parallel before the first is consumed (prefetchFirstPages).
	firstPages []*storage.Page
	firstErrs  []error

	// single: the statement's one read, made without a snapshot until it
	// needs a second (singleread.go).
	single bool

	// ixTry: read only the first Limit index entries (an ordered index
	// read under LIMIT); ixCut: a read stopped early for it. A stale hit
	// can leave fewer than Limit rows: the index is then read again whole.
	ixTry, ixCut bool

	// Row reads (rowread.go): the plan's query read as rows of the
	// selected properties (storage.RowQuerier), no property maps.
	rowsMode rowsMode
	rq       storage.RowQuerier
	rows     []storage.Row
	ri       int
	pos      []int // it.cols' positions in it.sel (-1: not selected)
	extrasAt int   // PropExtras' position in it.sel
	untimed  bool  // Next is not timing this call (busy)

	// Point rows (pointrow.go): a point get read as the row of the
	// selected properties (storage.RowGetter), into prow.
	prowMode rowsMode
	rg       storage.RowGetter
	prow     storage.Row
	prowBack bool // prow pushed back (unread)
	// Room for a short row's values (catalog/txn's three after the
	// selection) and positions: no allocation.
	prowVals [8]storage.Value
	prowPos  [4]int

	// Index rows (indexrows.go): an index read's rows read as rows of
	// ixSel (the selection, then the index columns it lacks, at
	// ixColPos), into fetchedRows (ixRows), no property maps.
	ixRowsMode  rowsMode
	ixRows      bool
	fetchedRows []*storage.Row
	ixSel       []string
	ixColPos    []int
	ixRow       []catalog.Datum // checkHitRow's
	ixKeyBuf    []byte          // hitKeysMatch's

	// Metrics (metrics.go): the requests this read sent, the time spent in
	// Next, reported once at Close.
	counters recorder.Counters
	busy     time.Duration
	reported bool
	// frame holds the context of the read's first requests (newRowIterIn:
	// the session's counters and counters).
	frame recorder.Frame
}

func (t *Table) newRowIter(ctx *sql.Context, spec *readSpec) (*rowIter, error) {
	return t.newRowIterFor(ctx, spec, false)
}

// newRowIterFor is newRowIter; stmtTxn says the statement's transaction
// ends with the statement, read-only (direct execution's autocommit
// SELECT, direct.go): unless it buffered writes to the table before, the
// read neither overlays a buffer nor remembers the ETags it read for a
// commit that will write nothing, and skips the transaction's table
// state altogether.
func (t *Table) newRowIterFor(ctx *sql.Context, spec *readSpec, stmtTxn bool) (*rowIter, error) {
	return t.newRowIterIn(ctx, new(rowIter), spec, stmtTxn)
}

// newRowIterIn is newRowIterFor with the iterator made in it, which the
// caller allocated (direct.go: with the rest of the execute's state).
func (t *Table) newRowIterIn(ctx *sql.Context, it *rowIter, spec *readSpec, stmtTxn bool) (*rowIter, error) {
	*it = rowIter{t: t, spec: spec, meta: t.meta()}
	// The statement's context with the session's counters and the
	// read's own (metrics), and its snapshot unless a current read or a
	// single read (singleread.go).
	var rctx context.Context
	if t.current || spec.single {
		rctx = storeCtxCountingIn(ctx, &it.frame, &it.counters)
	} else {
		rctx = readCtxCountingIn(ctx, &it.frame, &it.counters)
	}
	it.single = spec.single && !t.current
	it.ctx = rctx
	if spec.plan.Path != planner.PointGet || isMember(spec.plan.Table) || isMember(it.meta.Physical) {
		// The statement's reads of group partitions (tablegroup.go); a
		// point get of a table outside every group never uses them.
		it.ctx = withGroupReads(rctx, ctx)
	}
	// A table replaced or rewritten after the snapshot: 1412 (snapshot.go).
	if err := checkTableSnapshot(it.ctx, it.meta); err != nil {
		return nil, err
	}
	need := t.proj
	if need != nil && spec.residual != nil {
		need = append(append([]int(nil), need...), t.info.storageOrder...)
	}
	switch {
	case need != nil && spec.residual == nil && t.projSelSet:
		it.sel = t.projSel // made with the projection; read, never written
	case need != nil:
		it.sel = t.meta().Select(need) // nil (everything) when a needed column may be split
	}
	if tx := currentTxn(ctx); tx != nil {
		if tt := tx.peek(it.meta.Physical); !stmtTxn || tt != nil && len(tt.writes) > 0 {
			it.tt = tx.table(it.meta)
			for k, w := range it.tt.writes {
				if !w.deleted {
					it.pend = append(it.pend, k)
				}
			}
			if len(it.pend) > 1 {
				sort.Slice(it.pend, func(i, j int) bool { return it.less(it.pend[i], it.pend[j]) })
			}
			it.seen = map[entKey]bool{}
		}
	}
	if spec.plan.Path == planner.PointGet || spec.plan.Path == planner.MultiGet {
		it.gets = spec.plan.Gets
	}
	return it, nil
}

func keyLess(a, b entKey) bool {
	if c := storage.CompareKeys(a.pk, b.pk); c != 0 {
		return c < 0
	}
	return storage.CompareKeys(a.rk, b.rk) < 0
}

// Next implements sql.RowIter.
func (it *rowIter) Next(ctx *sql.Context) (sql.Row, error) {
	if it.rowsMode == rowsOn && it.ri < len(it.rows) && it.rows[it.ri].Values[it.extrasAt].Type() == 0 {
		// The next row is in the page read: decoding it is not time
		// spent fetching (the metric), and two clock reads per row were
		// a twentieth of a range's CPU. A page read while the row is
		// skipped times itself (nextStoredRow).
		it.untimed = true
		row, err := it.next(ctx)
		it.untimed = false
		return row, err
	}
	if it.prowMode == rowsOn && it.gi >= len(it.gets) {
		// The point row was read (pointrow.go): what is left (the end,
		// buffered rows) sends nothing: two of the thirteen clock reads
		// of a point select.
		return it.next(ctx)
	}
	start := time.Now()
	row, err := it.next(ctx)
	it.busy += time.Since(start)
	return row, err
}

func (it *rowIter) next(ctx *sql.Context) (sql.Row, error) {
	if it.fresh {
		it.out = it.newRow()
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var e *storage.Entity
		var r *storage.Row
		var err error
		if it.rowsOn() {
			if r, err = it.nextStoredRow(); err == errRowsOff {
				it.rowsMode = rowsOff
				e, err = it.nextEntity()
			} else if r != nil && r.Values[it.extrasAt].Type() != 0 {
				// A row with continuation entities: the entity path.
				e, r = r.Entity(it.sel), nil
			}
		} else if it.ixRowsOn() {
			if r, err = it.nextIndexRow(); err == errRowsOff {
				it.ixRowsMode = rowsOff
				e, err = it.nextEntity()
			} else if r != nil && r.Values[it.extrasAt].Type() != 0 {
				// A row with continuation entities: the entity path.
				e, r = r.Entity(it.ixSel), nil
			}
		} else if it.pointRowsOn() {
			if r, err = it.nextPointRow(); err == errRowsOff {
				it.prowMode = rowsOff
				e, err = it.nextEntity()
			} else if r != nil && r.Values[it.extrasAt].Type() != 0 {
				// A row with continuation entities: the entity path.
				e, r = r.Entity(it.sel), nil
			}
		} else {
			e, err = it.nextEntity()
		}
		if err != nil {
			return nil, err
		}
		if e == nil && r == nil {
			// Store exhausted: the remaining buffered rows.
			for it.pendi < len(it.pend) {
				k := it.pend[it.pendi]
				it.pendi++
				if row, ok, err := it.overlayRow(ctx, k); err != nil || ok {
					return row, err
				}
			}
			return nil, io.EOF
		}
		if e != nil && it.single && it.meta.Extras(e) > 0 {
			// A second read: at the snapshot (singleread.go).
			if e, err = it.rereadAtSnapshot(ctx, e); err != nil {
				return nil, err
			}
			if e == nil {
				continue
			}
		}
		var k entKey
		if r != nil {
			k = entKey{r.PartitionKey, r.RowKey}
		} else {
			k = entKey{e.PartitionKey, e.RowKey}
		}
		// Buffered rows that sort before this one.
		for it.pendi < len(it.pend) && it.less(it.pend[it.pendi], k) {
			pk := it.pend[it.pendi]
			it.pendi++
			if row, ok, err := it.overlayRow(ctx, pk); err != nil || ok {
				it.unread(e)
				return row, err
			}
		}
		var ents []*storage.Entity
		if e != nil {
			it.one[0] = e
			ents = it.one[:1:1]
			if n := it.meta.Extras(e); n > 0 {
				more, err := it.continuations(e)
				if err != nil {
					return nil, err
				}
				ents = append(ents, more...)
			}
		}
		if it.tt != nil {
			if r != nil && it.ri > 0 && &it.rows[it.ri-1] == r {
				it.tt.noteScannedRow(it.rows[it.ri-1:]) // r, nextStoredRow's
			} else if r != nil {
				it.tt.noteScanned(k, read{etag: r.ETag, exists: true})
			} else if !it.synthetic[e] {
				r := read{etag: e.ETag, exists: true}
				for _, x := range ents[1:] {
					r.extras = append(r.extras, x.RowKey)
				}
				it.tt.noteScanned(k, r) // noted up to maxTrackedReads
			}
			if w, ok := it.tt.writes[k]; ok {
				if it.pendi < len(it.pend) && it.pend[it.pendi] == k {
					it.pendi++
				}
				if w.deleted {
					continue
				}
				row, ok, err := it.overlayRow(ctx, k)
				if err != nil || ok {
					return row, err
				}
				continue
			}
		}
		if r != nil {
			// A row read (rowread.go): its values by position.
			if err := decodeRowValues(it.meta, r.Values, it.pos, it.cols, it.out); err != nil {
				return nil, err
			}
			return it.out, nil
		}
		if it.directCols() {
			// Direct execution: only the columns it returns (rowdecode.go).
			if err := decodeColumns(it.meta, ents, it.cols, it.out); err != nil {
				return nil, err
			}
			return it.out, nil
		}
		full, err := it.t.decode(ents)
		if err != nil {
			return nil, err
		}
		if it.spec.residual != nil {
			ok, err := sql.EvaluateCondition(ctx, it.spec.residual, full)
			if err != nil {
				return nil, err
			}
			if !sql.IsTrue(ok) {
				continue
			}
		}
		if it.keepFull {
			it.lastFull = full
		}
		if it.tt != nil && it.meta.Keyless() {
			it.tt.noteKeyless(k, full)
		}
		return it.emit(full), nil
	}
}

// newRow returns a new row of len(it.cols) columns, cut from a slab
// shared by the next rows (one allocation per rowSlab rows).
func (it *rowIter) newRow() sql.Row {
	w := len(it.cols)
	if len(it.slab) < w {
		it.slab = make([]any, w*rowSlab)
	}
	row := it.slab[:w:w]
	it.slab = it.slab[w:]
	return row
}

// rowSlab is the number of rows newRow allocates at once.
const rowSlab = 64

// unread pushes e (the current row) back so that the next call returns
// it again.
func (it *rowIter) unread(e *storage.Entity) {
	if it.rowsMode == rowsOn {
		it.ri--
		return
	}
	if it.prowMode == rowsOn {
		// The point row (pointrow.go), or the entity of a wide one made
		// from it: nextPointRow returns the row again.
		it.prowBack = true
		return
	}
	if it.gets != nil || it.ixLoaded {
		it.fi--
		return
	}
	if it.merge != nil {
		it.merge.back = e
		return
	}
	it.pi--
}

// overlayRow returns the buffered row under k if it passes the filters.
func (it *rowIter) overlayRow(ctx *sql.Context, k entKey) (sql.Row, bool, error) {
	if it.seen[k] {
		return nil, false, nil
	}
	it.seen[k] = true
	w := it.tt.writes[k]
	if w == nil || w.deleted {
		return nil, false, nil
	}
	for _, f := range []sql.Expression{it.spec.overlay, it.spec.residual} {
		if f == nil {
			continue
		}
		ok, err := sql.EvaluateCondition(ctx, f, w.sqlRow)
		if err != nil {
			return nil, false, err
		}
		if !sql.IsTrue(ok) {
			return nil, false, nil
		}
	}
	if it.keepFull {
		it.lastFull = w.sqlRow
	}
	if it.meta.Keyless() {
		it.tt.noteKeyless(k, w.sqlRow)
	}
	return it.emit(w.sqlRow), true, nil
}

// nextEntity returns the next main entity from the store, or nil at the end.
func (it *rowIter) nextEntity() (*storage.Entity, error) {
	p := it.spec.plan
	switch p.Path {
	case planner.Empty:
		return nil, nil
	case planner.IndexLookup, planner.IndexRange:
		if !it.ixLoaded {
			if err := it.ensureIndex(); err != nil {
				return nil, err
			}
		}
		if it.fi >= len(it.fetched) {
			return nil, nil
		}
		e := it.fetched[it.fi]
		it.fi++
		return e, nil
	case planner.PointGet, planner.MultiGet:
		for it.fi >= len(it.fetched) {
			if it.gi >= len(it.gets) {
				return nil, nil
			}
			if err := it.fetchWindow(); err != nil {
				return nil, err
			}
		}
		e := it.fetched[it.fi]
		it.fi++
		return e, nil
	}
	if len(p.Groups) > 0 {
		return it.nextGrouped() // salt_read.go
	}
	for {
		for it.pi < len(it.page) {
			e := it.page[it.pi]
			it.pi++
			if it.meta.IsContinuation(e) {
				continue
			}
			it.scanned++
			return e, nil
		}
		if it.q != nil && it.q.Continuation == "" {
			it.q = nil
			it.qi++
		}
		if it.q == nil {
			if it.qi >= len(p.Queries) {
				it.finishScan()
				return nil, nil
			}
			it.q = it.query(it.qi)
			if it.qi == 0 {
				it.prefetchFirstPages()
			}
			if it.qi < len(it.firstPages) {
				page, err := it.firstPages[it.qi], it.firstErrs[it.qi]
				it.firstPages[it.qi], it.firstErrs[it.qi] = nil, nil
				if err != nil {
					return nil, it.queryError(err)
				}
				it.page, it.pi = page.Entities, 0
				it.q.Continuation = page.Continuation
				continue
			}
		}
		page, err := it.t.gw.store.Query(it.ctx, p.Table, it.q)
		if err != nil {
			return nil, it.queryError(err)
		}
		it.page, it.pi = page.Entities, 0
		it.q.Continuation = page.Continuation
		if page.Continuation == "" {
			// Mark the query finished once this page is consumed.
			it.q.Continuation = ""
		}
	}
}

// ensureIndex runs the index plan's reads (loadIndex): the first Limit
// index entries under a LIMIT (ixTry), all of them when a stale hit left
// fewer rows.
func (it *rowIter) ensureIndex() error {
	p := it.spec.plan
	it.ixTry = p.Limit > 0 && len(p.Residual) == 0 && it.spec.residual == nil && (it.tt == nil || len(it.tt.writes) == 0)
	if err := it.loadIndex(); err != nil {
		return err
	}
	if it.ixTry && it.ixCut && int64(len(it.fetched)+len(it.fetchedRows)) < p.Limit {
		it.ixTry, it.ixCut = false, false
		return it.loadIndex()
	}
	return nil
}

// query returns the store query of the plan's query i as this read sends
// it.
func (it *rowIter) query(i int) *storage.Query {
	q := *it.spec.plan.Queries[i]
	q.Select = it.sel
	if it.tt != nil && len(it.tt.writes) > 0 {
		// Buffered writes may replace or drop stored rows: a
		// Top computed for stored rows alone could stop short.
		q.Top = 0
	}
	return &q
}

// each runs f(0), ..., f(n-1), the independent reads of one statement:
// in parallel, multiGetParallel at a time, on a backend with round trips
// (the Table service: their latencies overlap), one after another on the
// calling goroutine where the backend serves them in this process
// (storage.Capabilities.InProcess, the embedded Pebble store: parallel
// goroutines there only added scheduling and stack growth, a fifth of
// sysbench select_random_points' CPU). f must not depend on the order.
func (g *Gateway) each(n int, f func(i int)) {
	if g.serial || n == 1 {
		for i := 0; i < n; i++ {
			f(i)
		}
		return
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, multiGetParallel)
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			f(i)
		}()
	}
	wg.Wait()
}

// prefetchFirstPages reads the first page of every query of a plan with
// several (an IN list on the partition key, several key ranges) in
// parallel, multiGetParallel at a time, instead of one after another: each
// query needs its first page anyway, so the requests are the same. Not
// under a LIMIT, where the first queries may be all the read needs.
func (it *rowIter) prefetchFirstPages() {
	p := it.spec.plan
	if len(p.Queries) < 2 || p.Limit > 0 {
		return
	}
	it.firstPages = make([]*storage.Page, len(p.Queries))
	it.firstErrs = make([]error, len(p.Queries))
	it.t.gw.each(len(p.Queries), func(i int) {
		it.firstPages[i], it.firstErrs[i] = it.t.gw.store.Query(it.ctx, p.Table, it.query(i))
	})
}

// finishScan records the row count after a complete unfiltered TableScan.
func (it *rowIter) finishScan() {
	p := it.spec.plan
	if p.Path == planner.TableScan && p.Filter == nil && it.tt != nil && len(it.tt.writes) == 0 {
		it.t.gw.setRowCount(it.meta.Physical, it.scanned)
	}
}

// fetchWindow gets the next window of MultiGet keys in parallel.
func (it *rowIter) fetchWindow() error {
	end := min(it.gi+multiGetWindow, len(it.gets))
	keys := it.gets[it.gi:end]
	it.gi = end
	it.getOpts.Select = it.sel
	opts := &it.getOpts
	it.fetched, it.fi = it.fetched[:0], 0
	if len(keys) == 1 {
		// A point get: no window slices, no closure.
		e, err := it.t.gw.store.Get(it.ctx, it.spec.plan.Table, keys[0].PK, keys[0].RK, opts)
		if err != nil {
			if errors.Is(err, storage.ErrNotFound) {
				return nil
			}
			return mapError(err)
		}
		it.fetched = append(it.oneGet[:0:1], e)
		return nil
	}
	res := make([]*storage.Entity, len(keys))
	errs := make([]error, len(keys))
	it.t.gw.each(len(keys), func(i int) {
		res[i], errs[i] = it.t.gw.store.Get(it.ctx, it.spec.plan.Table, keys[i].PK, keys[i].RK, opts)
	})
	for i := range keys {
		if errs[i] != nil {
			if errors.Is(errs[i], storage.ErrNotFound) {
				continue
			}
			return mapError(errs[i])
		}
		it.fetched = append(it.fetched, res[i])
	}
	return nil
}

// continuations reads the continuation entities of a wide row.
func (it *rowIter) continuations(e *storage.Entity) ([]*storage.Entity, error) {
	q := &storage.Query{Partition: storage.Exactly(e.PartitionKey), Row: it.meta.ContinuationRange(e.RowKey)}
	var out []*storage.Entity
	for {
		page, err := it.t.gw.store.Query(it.ctx, it.meta.Physical, q)
		if err != nil {
			return nil, it.queryError(err)
		}
		out = append(out, page.Entities...)
		if page.Continuation == "" {
			return out, nil
		}
		q.Continuation = page.Continuation
	}
}

// queryError maps a failed store query. A query answers not found only when
// its physical table is gone: another gateway dropped or truncated the table
// while this one still trusted its cached catalog (refreshed every
// RefreshInterval). The catalog is refreshed at once, so the next statement
// sees the change, and the statement fails as MySQL would: 1146 if the table
// no longer exists, or 1213 (which clients retry) if it was truncated or
// recreated under the same name.
func (it *rowIter) queryError(err error) error {
	if !errors.Is(err, storage.ErrNotFound) {
		return mapError(err)
	}
	g, db, name := it.t.gw, it.t.db.name, it.meta.Name
	if rerr := g.Catalog.Refresh(MetaCtx(it.ctx)); rerr != nil {
		return mapError(rerr)
	}
	if _, terr := g.Catalog.Table(MetaCtx(it.ctx), db, name); errors.Is(terr, catalog.ErrNoTable) || errors.Is(terr, catalog.ErrNoDatabase) {
		return mysql.NewSQLError(mysql.ERNoSuchTable, "42S02", "Table '%s.%s' doesn't exist", db, name)
	}
	if it.meta.IsAttached() {
		// Not sqlgw's to recreate: a retry would meet the same absence.
		return mysql.NewSQLError(mysql.ERNoSuchTable, "42S02", "Table '%s.%s' doesn't exist: its store table %s is gone (DROP TABLE forgets the mapping)", db, name, it.meta.Physical)
	}
	return errConflict(fmt.Sprintf("table %s.%s was truncated or recreated by another gateway", db, name))
}

// Close implements sql.RowIter. It reports the read to the metrics.
func (it *rowIter) Close(*sql.Context) error {
	if !it.reported {
		it.reported = true
		c := it.counters.Snapshot()
		it.t.gw.Metrics.ObserveRead(metrics.PathName(it.spec.plan.Path), c.Requests, c.EntitiesRead, it.busy)
	}
	return nil
}

// decode rebuilds a full engine row from a row's entities: the catalog's
// datums, then the engine's values. Direct execution decodes its columns
// in one step instead (rowdecode.go); this path stays the reference the
// differential tests compare it with.
func (t *Table) decode(ents []*storage.Entity) (sql.Row, error) {
	datums, err := t.meta().DecodeRow(ents...)
	if err != nil {
		return nil, mapError(err)
	}
	cols := t.meta().Columns
	row := make(sql.Row, len(cols))
	for i := range cols {
		if i >= len(datums) {
			break
		}
		v, err := fromDatum(cols[i].Type, datums[i])
		if err != nil {
			return nil, err
		}
		row[i] = v
	}
	return row, nil
}

// firstOrdinals is 0, 1, 2, ... for ordinals.
var firstOrdinals = func() []int {
	o := make([]int, 1024)
	for i := range o {
		o[i] = i
	}
	return o
}()

// ordinals returns 0, 1, ..., n-1 (shared: not to be modified).
func ordinals(n int) []int {
	if n <= len(firstOrdinals) {
		return firstOrdinals[:n:n]
	}
	o := make([]int, n)
	for i := range o {
		o[i] = i
	}
	return o
}

// emit returns the row the iterator hands out for the full row full: the
// columns cols, in the reused row out, when direct execution asked for
// them; the table's projection otherwise.
func (it *rowIter) emit(full sql.Row) sql.Row {
	if it.cols == nil {
		return it.t.project(full)
	}
	for j, c := range it.cols {
		it.out[j] = full[c]
	}
	return it.out
}

// project reduces a full row to the projected columns.
func (t *Table) project(full sql.Row) sql.Row {
	if t.proj == nil {
		return full
	}
	out := make(sql.Row, len(t.proj))
	for i, c := range t.proj {
		out[i] = full[c]
	}
	return out
}
