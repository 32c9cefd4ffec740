package engine

import (
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/planner"
	"github.com/sqlgw/sqlgw/storage"
)

// Row reads: a range decoded without property maps
//
// A direct read of columns (rowIter.cols, direct.go and directrange.go)
// over one store query (a key range, a table scan) asks the store for
// rows instead of entities (storage.RowQuerier): the embedded store
// decodes the selected properties of each record straight into the row's
// values, by position, and catalog/txn passes the page through when it
// holds no lock (a page that meets one is resolved through its Query and
// handed back as rows). The engine then converts each value it returns
// (engineValue, rowdecode.go) from its position in the selection: no
// storage.Entity, no property map, no map lookups per column. Everything
// else is the entity path's, unchanged: the transaction's buffered
// writes merged in key order, the reads remembered for its commit, the
// snapshot the context carries, the request counters.
//
// The row read applies when the iterator decodes its columns directly
// (directCols), selects properties (no column split over several), reads
// one query without salt groups, and the store chain answers rows; a
// row with continuation entities (a wide row: its _n property present)
// is turned back into its entity and takes the entity path, and so does
// the whole read when the store cannot answer it as rows (the Table
// service, a typed or grouped table, a store without native snapshots).
// TestDirectRangeRowReads and TestDirectRangeDifferential compare it with
// the general path.
//
// The read-duration metric (time spent fetching from the store) times a
// row read's Next only when the next row is not already in the page read
// (rowIter.Next): decoding a row of a page in memory is not fetching, and
// two clock reads per row were a twentieth of a range's CPU.

type rowsMode uint8

const (
	rowsUndecided rowsMode = iota
	rowsOn
	rowsOff
)

// errRowsOff: the store could not answer the read's query as rows; it
// continues as entities.
var errRowsOff = errors.New("engine: rows unsupported")

// rowReads counts the reads that went by rows (RowReads, for tests).
var rowReads atomic.Int64

// directCols reports whether the iterator decodes only the columns
// direct execution asked for, straight from the stored properties.
func (it *rowIter) directCols() bool {
	return it.cols != nil && it.spec.residual == nil && !it.keepFull && !(it.tt != nil && it.meta.Keyless()) && !it.meta.IsAttached()
}

// rowsOn reports whether the read goes by rows, deciding on first use.
func (it *rowIter) rowsOn() bool {
	switch it.rowsMode {
	case rowsOn:
		return true
	case rowsOff:
		return false
	}
	it.rowsMode = rowsOff
	p := it.spec.plan
	switch p.Path {
	case planner.Empty, planner.IndexLookup, planner.IndexRange, planner.PointGet, planner.MultiGet:
		return false
	}
	if !it.directCols() || it.sel == nil || len(p.Queries) != 1 || len(p.Groups) > 0 || it.gets != nil {
		return false
	}
	rq, ok := it.t.gw.store.(storage.RowQuerier)
	if !ok {
		return false
	}
	extrasAt := slices.Index(it.sel, catalog.PropExtras)
	if extrasAt < 0 {
		return false
	}
	pos := make([]int, len(it.cols))
	for j, c := range it.cols {
		if c < 0 || c >= len(it.meta.Columns) || it.meta.Columns[c].Type.Kind.IsLarge() {
			return false
		}
		pos[j] = slices.Index(it.sel, it.meta.Columns[c].Property)
	}
	it.rq, it.pos, it.extrasAt = rq, pos, extrasAt
	it.rowsMode = rowsOn
	rowReads.Add(1)
	return true
}

// nextStoredRow is nextEntity for a row read: the next main entity's row,
// nil at the end, or errRowsOff before the first page when the store
// cannot answer the query as rows.
func (it *rowIter) nextStoredRow() (*storage.Row, error) {
	p := it.spec.plan
	for {
		for it.ri < len(it.rows) {
			r := &it.rows[it.ri]
			it.ri++
			if probe := (storage.Entity{RowKey: r.RowKey}); it.meta.IsContinuation(&probe) {
				continue
			}
			it.scanned++
			return r, nil
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
		}
		var start time.Time
		if it.untimed {
			start = time.Now()
		}
		page, err := it.rq.QueryRows(it.ctx, p.Table, it.q, nil)
		if it.untimed {
			it.busy += time.Since(start)
		}
		if errors.Is(err, storage.ErrRowsUnsupported) {
			// The entity path sends the query again: from its start
			// (nextEntity takes a query without a continuation for one
			// it finished), or from the page it stopped at.
			if it.q.Continuation == "" {
				it.q = nil
			}
			return nil, errRowsOff
		}
		if err != nil {
			return nil, it.queryError(err)
		}
		it.rows, it.ri = page.Rows, 0
		it.q.Continuation = page.Continuation
	}
}

// decodeRowValues is decodeColumns (rowdecode.go) for a row read: column
// cols[j] is the value at pos[j] of vals (absent: NULL).
func decodeRowValues(meta *catalog.Table, vals []storage.Value, pos, cols []int, out sql.Row) error {
	for j, c := range cols {
		i := pos[j]
		if i < 0 || vals[i].Type() == 0 {
			out[j] = nil
			continue
		}
		x, err := engineValue(meta.Columns[c].Type, vals[i])
		if err != nil {
			if d, isDecode := err.(errDecode); isDecode {
				return mapError(fmt.Errorf("table %q column %q: %w", meta.Name, meta.Columns[c].Name, d.err))
			}
			return err
		}
		out[j] = x
	}
	return nil
}
