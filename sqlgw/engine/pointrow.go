package engine

import (
	"errors"
	"slices"
	"sync/atomic"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/planner"
	"github.com/sqlgw/sqlgw/storage"
)

// Point rows: a point get decoded without a property map
//
// A direct read of columns (directCols) by one primary key (a PointGet of
// one key: sysbench's oltp_point_select) asks the store for the row of
// the selected properties (storage.RowGetter) instead of the entity: the
// embedded store decodes them from the record straight into the row's
// values by position, catalog/txn answers from the same read when the
// entity holds no lock (a locked one it resolves as its Get does), and
// the engine converts each column from its position (decodeRowValues, as
// a range's row read does, rowread.go). The row is the iterator's own,
// its values reused: no Entity, no Properties map, no projection copy.
// The request is the entity path's Get, with the same projection (the
// recorder's trace and counters, the metrics' Get count and entities
// read are unchanged), the same snapshot and the same errors (not found:
// no row). Everything after the fetch is the entity path's: the
// transaction's buffered writes and remembered reads, the second read of
// a single read (singleread.go) and the continuation entities of a wide
// row (a row whose _n property is present goes back to its entity).
// A store chain that cannot answer as a row (the Table service, a typed
// or grouped table, a store without native snapshots) answers
// ErrRowsUnsupported having sent nothing, and the iterator continues with
// Get. TestDirectPointRowReads compares both paths.

// pointRowReads counts the point gets answered as rows (PointRowReads,
// for tests).
var pointRowReads atomic.Int64

// PointRowReads returns the number of point gets read as rows so far
// (tests).
func PointRowReads() int64 { return pointRowReads.Load() }

// noPointRows turns point rows off (SetPointRows, tests).
var noPointRows atomic.Bool

// SetPointRows turns point rows on (the default) or off, so that a test
// can run a statement both ways in one server.
func SetPointRows(on bool) { noPointRows.Store(!on) }

// pointRowsOn reports whether the iterator's point get goes by row,
// deciding on first use.
func (it *rowIter) pointRowsOn() bool {
	switch it.prowMode {
	case rowsOn:
		return true
	case rowsOff:
		return false
	}
	it.prowMode = rowsOff
	if noPointRows.Load() || it.spec.plan.Path != planner.PointGet || len(it.gets) != 1 || !it.directCols() || it.sel == nil {
		return false
	}
	rg, ok := it.t.gw.store.(storage.RowGetter)
	if !ok || !it.rowPositions(it.prowPos[:0]) {
		return false
	}
	it.rg = rg
	it.prow.Values = it.prowVals[:0]
	it.prowMode = rowsOn
	return true
}

// rowPositions sets it.pos (appended to buf) and it.extrasAt, the
// selected columns' and the continuation property's positions in it.sel,
// unless a column's value is not one property (a large column may be
// split over several).
func (it *rowIter) rowPositions(buf []int) bool {
	extrasAt := slices.Index(it.sel, catalog.PropExtras)
	if extrasAt < 0 {
		return false
	}
	pos := buf
	for _, c := range it.cols {
		if c < 0 || c >= len(it.meta.Columns) || it.meta.Columns[c].Type.Kind.IsLarge() {
			return false
		}
		pos = append(pos, slices.Index(it.sel, it.meta.Columns[c].Property))
	}
	it.pos, it.extrasAt = pos, extrasAt
	return true
}

// nextPointRow is nextEntity for a point row: the key's row, nil when
// absent or already returned, or errRowsOff (nothing sent) when the
// store cannot answer as a row.
func (it *rowIter) nextPointRow() (*storage.Row, error) {
	if it.prowBack {
		// Pushed back (unread).
		it.prowBack = false
		return &it.prow, nil
	}
	if it.gi >= len(it.gets) {
		return nil, nil
	}
	k := it.gets[it.gi]
	err := it.rg.GetRow(it.ctx, it.spec.plan.Table, k.PK, k.RK, it.sel, nil, &it.prow)
	if errors.Is(err, storage.ErrRowsUnsupported) {
		return nil, errRowsOff
	}
	it.gi++
	if err != nil {
		if errors.Is(err, storage.ErrNotFound) {
			return nil, nil
		}
		return nil, mapError(err)
	}
	pointRowReads.Add(1)
	return &it.prow, nil
}
