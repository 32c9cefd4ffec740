package engine

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync/atomic"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/planner"
	"github.com/sqlgw/sqlgw/storage"
)

// Index rows: the verified hits' rows decoded without property maps
//
// A direct read of columns (directCols) through a secondary index whose
// rows it reads (an IndexLookup or IndexRange, not covering: sysbench's
// select_random_points, `WHERE k IN (10 values)` on a global index) asks
// the store for the hits' rows of the selected properties in one call
// (storage.MultiRowGetter) instead of their entities (hitRows'
// storage.MultiGet): the embedded store decodes them from the records
// straight into the rows' values by position, catalog/txn finishes each as
// its GetRow does (a locked entity resolved), and the engine checks each
// row against its hit from the index columns' values (checkHitRow, as
// checkHit does from the entity) and converts the selected columns from
// their positions (decodeRowValues, as point and range row reads do).
// The selection is the read's (it.sel) followed by the index columns it
// lacks, which the check needs. The requests are hitRows' (one Get per
// candidate row for the metrics and the recorder, whose trace shows the
// selection); everything else (the index read, stale hits and their
// repair, a handed-over entity's second row, the order, the
// transaction's buffered writes and remembered reads) is loadIndex's,
// unchanged. A row with continuation entities (a wide row) is turned back
// into its entity for the check and the decoding; a store chain that
// cannot answer rows (the Table service, a typed or grouped table, a
// store without native snapshots) answers ErrRowsUnsupported having sent
// nothing, and the read continues with the hits already read as
// entities. TestIndexRowsDifferential compares both ways.

// noIndexRows turns index rows off (SetIndexRows, tests).
var noIndexRows atomic.Bool

// indexRowReads counts the index reads whose rows were read as rows
// (IndexRowReads, tests).
var indexRowReads atomic.Int64

// ixRowsOn reports whether the iterator's index read goes by rows,
// deciding on first use (it sets it.pos, it.extrasAt, it.ixSel and
// it.ixColPos).
func (it *rowIter) ixRowsOn() bool {
	switch it.ixRowsMode {
	case rowsOn:
		return true
	case rowsOff:
		return false
	}
	it.ixRowsMode = rowsOff
	p := it.spec.plan
	if noIndexRows.Load() || noIndexMultiQuery.Load() || !it.t.gw.serial {
		return false
	}
	if p.Path != planner.IndexLookup && p.Path != planner.IndexRange || p.Index == nil || p.Index.Covering {
		return false
	}
	if !it.directCols() || it.sel == nil {
		return false
	}
	if _, ok := it.t.gw.store.(storage.MultiRowGetter); !ok {
		return false
	}
	ix := it.meta.Index(p.Index.Name)
	if ix == nil || !it.rowPositions(make([]int, 0, len(it.cols))) {
		return false
	}
	sel := it.sel
	if ix.Global {
		cols, err := it.meta.IndexColumns(ix)
		if err != nil {
			return false
		}
		pos := make([]int, len(cols))
		for j, kc := range cols {
			c := &it.meta.Columns[kc.Index]
			if c.Type.Kind.IsLarge() {
				return false
			}
			i := slices.Index(sel, c.Property)
			if i < 0 {
				if len(sel) == len(it.sel) {
					sel = slices.Clip(sel)
				}
				sel = append(sel, c.Property)
				i = len(sel) - 1
			}
			pos[j] = i
		}
		it.ixColPos = pos
	}
	it.ixSel = sel
	it.ixRowsMode = rowsOn
	return true
}

// nextIndexRow is nextEntity for an index read by rows: the next row, nil
// at the end, or errRowsOff when the index's rows were read as entities
// (the store could not answer rows); nextEntity then returns them.
func (it *rowIter) nextIndexRow() (*storage.Row, error) {
	if !it.ixLoaded {
		if err := it.ensureIndex(); err != nil {
			return nil, err
		}
	}
	if !it.ixRows {
		return nil, errRowsOff
	}
	if it.fi >= len(it.fetchedRows) {
		return nil, nil
	}
	r := it.fetchedRows[it.fi]
	it.fi++
	return r, nil
}

// hitRowsAsRows is hitRows by rows: the rows of hits[gets]' candidates in
// one storage.MultiGetRows call, each checked against its hit (outR and
// alsoR as hitRows fills out and also). It reports false, having sent
// nothing, when the store cannot answer rows.
func (it *rowIter) hitRowsAsRows(ix *catalog.Index, cols indexCols, hits []indexHit, gets []int, outR, alsoR []*storage.Row) (bool, error) {
	keys := make([]storage.EntityKey, 0, len(gets))
	owner := make([]int, 0, len(gets))
	for _, i := range gets {
		for _, cand := range hits[i].candidates() {
			keys = append(keys, storage.EntityKey{PK: cand[0], RK: cand[1]})
			owner = append(owner, i)
		}
	}
	// The rows' values come from the store (the embedded one cuts them
	// from one slab for the call, wide enough for the properties the
	// wrappers add to the selection).
	rows := make([]storage.Row, len(keys))
	found := make([]bool, len(keys))
	err := it.t.gw.store.(storage.MultiRowGetter).MultiGetRows(it.ctx, it.meta.Physical, keys, it.ixSel, nil, rows, found)
	if errors.Is(err, storage.ErrRowsUnsupported) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	indexRowReads.Add(1)
	for j := range rows {
		if !found[j] {
			continue
		}
		i := owner[j]
		r := &rows[j]
		ok, err := it.checkHitRow(ix, cols, &hits[i], r)
		if err != nil {
			return false, err
		}
		if ok && outR[i] == nil {
			outR[i] = r
		} else if ok {
			alsoR[i] = r
		}
	}
	return true, nil
}

// checkHitRow is checkHit for a row read by hitRowsAsRows: the index
// columns' values are at it.ixColPos in the row.
func (it *rowIter) checkHitRow(ix *catalog.Index, cols indexCols, h *indexHit, r *storage.Row) (bool, error) {
	if !ix.Global {
		return true, nil
	}
	if r.Values[it.extrasAt].Type() != 0 {
		// A wide row: checked from its entities.
		return it.checkHit(ix, cols, h, r.PartitionKey, r.RowKey, r.Entity(it.ixSel))
	}
	if cols.err != nil {
		return false, cols.err
	}
	// One full-width row for the read's checks (IndexKeys reads only the
	// index columns, which are set or cleared here for each row).
	if len(it.ixRow) != len(it.meta.Columns) {
		it.ixRow = make([]catalog.Datum, len(it.meta.Columns))
	}
	row := it.ixRow
	for j, c := range cols.ords {
		row[c] = nil
		v := r.Values[it.ixColPos[j]]
		if v.Type() == 0 {
			continue
		}
		d, err := it.meta.Columns[c].Type.Decode(v)
		if err != nil {
			// As catalog.Table.DecodeRowColumns names it.
			return false, fmt.Errorf("table %q column %q: %w", it.meta.Name, it.meta.Columns[c].Name, err)
		}
		row[c] = d
	}
	if it.hitKeysMatch(ix, cols, h, r.PartitionKey, r.RowKey, row) {
		return true, nil
	}
	wpk, wrk, err := it.meta.IndexKeys(ix, r.PartitionKey, r.RowKey, row)
	if err != nil {
		return false, err
	}
	return wpk == h.PartitionKey && wrk == h.RowKey, nil
}

// hitKeysMatch reports that catalog.Table.IndexKeys(ix, pk, rk, row), for
// the global index ix, returns hit h's keys and no error, without its
// allocations (the index's columns listed twice, the values, each key
// built as a string, the RowKey concatenated: about seven per hit of a
// select_random_points read). It builds the same keys in one reused
// buffer: the PartitionKey from the first index column (KeyColumn.Append,
// as IndexPrefix), the RowKey prefix from the others, then, for an index
// that is not unique or a NULL among the values, the base PartitionKey
// and RowKey (pk unsalted: Unsalt is the identity on a table that is not
// salted, the only one taken here); every key within the table's key
// limit (checkLen), else IndexKeys's error. false is "not shown": an
// error, a salted table, a key over the limit, or a key that differs
// (a stale hit) each go to IndexKeys, which gives the answer and the
// error. TestHitKeysMatch compares it with IndexKeys.
func (it *rowIter) hitKeysMatch(ix *catalog.Index, cols indexCols, h *indexHit, pk, rk string, row []catalog.Datum) bool {
	if len(cols.keys) == 0 || it.meta.Salted() != 0 || len(row) != len(it.meta.Columns) {
		return false
	}
	buf := it.ixKeyBuf[:0]
	var err error
	hasNull := false
	nP := 0
	for i, kc := range cols.keys {
		d := row[kc.Index]
		hasNull = hasNull || d == nil
		if buf, err = kc.Append(buf, d); err != nil {
			return false
		}
		if i == 0 {
			nP = len(buf)
		}
	}
	it.ixKeyBuf = buf
	p, r := buf[:nP], buf[nP:]
	lim := it.meta.Limits().KeyLimit()
	irk := len(r)
	whole := !ix.Unique || hasNull
	if whole {
		irk += len(pk) + len(rk)
	}
	if lim > 0 && (len(p) > lim || irk > lim) {
		return false
	}
	if string(p) != h.PartitionKey || len(h.RowKey) != irk || h.RowKey[:len(r)] != string(r) {
		return false
	}
	if whole {
		rest := h.RowKey[len(r):]
		return rest[:len(pk)] == pk && rest[len(pk):] == rk
	}
	return true
}

// inIndexOrder appends to dst the hits of out and also (loadIndex's pairs:
// an index value's row, and a second candidate row for the same entry) in
// loadIndex's order: the pair in base key order (reversed for a backwards
// read), then the buffered writes merged in key order. It serves the
// entities of loadIndex and the rows of MultiGetRows alike.
func inIndexOrder[T comparable](it *rowIter, dst, out, also []T, key func(T) entKey) []T {
	var none T
	dst = slices.Grow(dst, len(out)) // also is rarely set
	for i, x := range out {
		if a := also[i]; a != none && it.less(key(a), key(x)) {
			x, also[i] = a, x
		}
		if x != none {
			dst = append(dst, x)
		}
		if also[i] != none {
			dst = append(dst, also[i])
		}
	}
	if it.tt != nil && len(it.tt.writes) > 0 {
		sort.SliceStable(dst, func(i, j int) bool { return it.less(key(dst[i]), key(dst[j])) })
	}
	return dst
}

func rowKeyOf(r *storage.Row) entKey       { return entKey{r.PartitionKey, r.RowKey} }
func entityKeyOf(e *storage.Entity) entKey { return entKey{e.PartitionKey, e.RowKey} }
