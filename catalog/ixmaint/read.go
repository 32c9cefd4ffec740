package ixmaint

import (
	"context"
	"sync"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/storage"
)

// Row is a base row found through an index.
type Row struct {
	PK, RK string
	Values []catalog.Datum
	// FromIndex: Values hold only the index's carried columns (a covering
	// read of an unmarked entity); the other columns are nil.
	FromIndex bool
}

// FetchStats counts what Fetch did.
type FetchStats struct {
	BaseGets, Stale int
}

// Fetch turns index hits (entities of ix as read, with PropPending and
// the base keys selected) into rows, in hit order. Non-covering: every
// hit's base row is read (in parallel) and kept only if it still implies
// the hit. Covering: unmarked hits are decoded from the entity; marked ones
// are checked like non-covering hits. Local index entities are always
// current and are not checked. Stale hits are resolved before Fetch
// returns (unless their writer may still be running). An attached table's
// hits are always checked like non-covering ones.
func (m *Maintainer) Fetch(ctx context.Context, t *catalog.Table, ix *catalog.Index, hits []*storage.Entity, covering bool) ([]Row, FetchStats, error) {
	var fs FetchStats
	// An attached table's index lags the writes of other applications:
	// no entry is trusted without its base entity (catalog/attached_index.go).
	covering = covering && !t.IsAttached()
	rows := make([]*Row, len(hits))
	var jobs []int
	for i, h := range hits {
		_, marked := h.Properties[PropPending]
		if covering && (!marked || !ix.Global) {
			pk, rk, vals, err := t.DecodeIndexEntity(ix, h)
			if err != nil {
				return nil, fs, err
			}
			if err := fillKey(t, pk, rk, vals); err != nil {
				return nil, fs, err
			}
			rows[i] = &Row{PK: pk, RK: rk, Values: vals, FromIndex: true}
			continue
		}
		jobs = append(jobs, i)
	}
	fs.BaseGets = len(jobs)
	errs := make([]error, len(hits))
	stale := make([]bool, len(hits))
	also := make([]*Row, len(hits)) // a second row of a handed-over entity (Candidates)
	var wg sync.WaitGroup
	sem := make(chan struct{}, m.parallel())
	for _, i := range jobs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			h := hits[i]
			for _, c := range Candidates(h) {
				pk, rk := c[0], c[1]
				row, _, ok, err := GetRow(ctx, m.Store, t, pk, rk)
				if err != nil {
					errs[i] = err
					return
				}
				if ok && ix.Global {
					ok, err = keyMatches(t, ix, h, pk, rk, row)
					if err != nil {
						errs[i] = err
						return
					}
				}
				if ok && rows[i] == nil {
					rows[i] = &Row{PK: pk, RK: rk, Values: row}
				} else if ok {
					also[i] = &Row{PK: pk, RK: rk, Values: row}
				}
			}
			stale[i] = rows[i] == nil
		}()
	}
	wg.Wait()
	var out []Row
	for i := range hits {
		if errs[i] != nil {
			return nil, fs, errs[i]
		}
		if stale[i] {
			fs.Stale++
			if ix.Global {
				if _, err := m.resolve(ctx, t, ix, hits[i], false); err != nil {
					return nil, fs, err
				}
			}
			continue
		}
		if rows[i] != nil {
			out = append(out, *rows[i])
		}
		if also[i] != nil {
			out = append(out, *also[i])
		}
	}
	return out, fs, nil
}

// keyMatches reports whether row (of base keys pk, rk) implies an entity of ix with hit's keys:
// the row has the hit's index values, so it is a right answer for any
// condition on the index columns; its other values are taken from the row
// (a marked entity's covered values may lag).
func keyMatches(t *catalog.Table, ix *catalog.Index, hit *storage.Entity, pk, rk string, row []catalog.Datum) (bool, error) {
	want, err := t.IndexEntity(ix, pk, rk, row)
	if err != nil {
		return false, err
	}
	return want.PartitionKey == hit.PartitionKey && want.RowKey == hit.RowKey, nil
}

// fillKey sets the primary-key columns of a row decoded from an index
// entity from the base keys, where the entity does not carry them. Keys of
// PAD SPACE strings and collation weights do not decode to the exact
// values; the gateway counts only exactly decodable key columns (KeyExact)
// as carried.
func fillKey(t *catalog.Table, pk, rk string, vals []catalog.Datum) error {
	kv, err := t.DecodeKey(pk, rk)
	if err != nil {
		return err
	}
	for i, kp := range t.PrimaryKey {
		c := t.ColumnIndex(kp.Column)
		if c >= 0 && vals[c] == nil && i < len(kv) && KeyExact(t, c) {
			vals[c] = kv[i]
		}
	}
	return nil
}

// KeyExact reports whether primary-key column c decodes from the keys to
// its exact value (numbers, temporal types, binary strings; not PAD SPACE
// or collated strings).
func KeyExact(t *catalog.Table, c int) bool {
	switch t.Columns[c].Type.Kind {
	case catalog.KindInt8, catalog.KindInt16, catalog.KindInt32, catalog.KindInt64:
		return true
	}
	return false
}
