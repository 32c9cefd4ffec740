package engine

import (
	"io"
	"sort"

	"github.com/dolthub/go-mysql-server/sql"
)

// sortedIter runs spec and returns its rows sorted by spec.sortBy (a
// secondary index's columns, then the primary key), comparing with the
// columns' SQL types (collations, NULL first), as the engine expects of an
// index lookup. The sorted full rows are cached like a static lookup's.
func (t *Table) sortedIter(ctx *sql.Context, spec *readSpec) (sql.RowIter, error) {
	tx, ver := txVersion(ctx, t.meta().Physical)
	if spec.cache != nil {
		if rows, ok := spec.cache.get(tx, ver); ok {
			return t.projectedRows(rows), nil
		}
	}
	it, err := t.newRowIter(ctx, spec)
	if err != nil {
		return nil, err
	}
	it.keepFull = true
	var rows []sql.Row
	for {
		if _, err := it.Next(ctx); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		rows = append(rows, it.lastFull)
	}
	schema := t.info.schema.Schema
	var cmpErr error
	sort.SliceStable(rows, func(i, j int) bool {
		for _, c := range spec.sortBy {
			n, err := schema[c].Type.Compare(ctx, rows[i][c], rows[j][c])
			if err != nil && cmpErr == nil {
				cmpErr = err
			}
			if n != 0 {
				return n < 0
			}
		}
		return false
	})
	if cmpErr != nil {
		return nil, cmpErr
	}
	if spec.cache != nil && len(rows) <= maxCachedRows {
		spec.cache.put(tx, ver, rows)
	}
	return t.projectedRows(rows), nil
}

// projectedRows returns an iterator over the projections of full rows.
func (t *Table) projectedRows(rows []sql.Row) sql.RowIter {
	out := make([]sql.Row, len(rows))
	for i, r := range rows {
		out[i] = t.project(r)
	}
	return sql.RowsToRowIter(out...)
}
