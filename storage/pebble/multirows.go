package pebble

import (
	"context"
	"slices"

	"github.com/sqlgw/sqlgw/storage"
)

// MultiQueryRows implements storage.MultiRowQuerier: MultiQuery's read
// (one hold of the store lock, one table lookup, one iterator re-bounded
// per query: iterSource) with each page answered as QueryRows answers it
// (scan's rows, rows.go). The rows of all pages are decoded into one
// scratch buffer (iterSource.rows) and cut at the end from one slab of
// rows and one of values for the call: an IN list's queries of an entity
// or none each allocate per call, not per query. Queries whose Select
// differs from the previous one read start another buffer. The queries
// are read in seekOrder's order, as MultiQuery reads them (an IN list's
// index lookups from the greatest key down); the slab holds the rows in
// read order and each query's page is cut for its own slot.
func (s *Store) MultiQueryRows(ctx context.Context, table string, qs []*storage.Query, marks []string, pages []storage.RowPage) error {
	if len(pages) != len(qs) {
		panic("pebble: MultiQueryRows: len(pages) != len(qs)")
	}
	for _, q := range qs {
		if q.Select == nil {
			return storage.ErrRowsUnsupported
		}
	}
	clear(pages)
	if len(qs) == 0 {
		return nil
	}
	if err := s.limits.ValidateQuery(qs[0]); err != nil {
		return err
	}
	if err := s.rlock(ctx); err != nil {
		return err
	}
	defer s.mu.RUnlock()
	t, err := s.table(table)
	if err != nil {
		return err
	}
	var buf [16]int
	order, sorted := seekOrder(qs, buf[:0])
	if sorted {
		// Validated in the caller's order before any read, as MultiQuery
		// does: the error is the one a loop of QueryRows calls returns.
		for _, q := range qs[1:] {
			if err := s.limits.ValidateQuery(q); err != nil {
				return err
			}
		}
	}
	var src iterSource
	defer src.close()
	var cols rowCols
	var endsBuf [16]int
	ends := endsBuf[:0]
	from := 0 // the read position of cols' first page
	defer func() {
		if cols.sc != nil {
			cols.finish(nil) // an error: the buffer back to the pool
		}
	}()
	var page storage.Page
	for n, i := range order {
		q := qs[i]
		if n > 0 {
			if !sorted {
				if err := s.limits.ValidateQuery(q); err != nil {
					return err
				}
			}
			if err := ctx.Err(); err != nil { // Query's rlock checks it
				return err
			}
		}
		if cols.sc != nil && !slices.Equal(q.Select, cols.sel) {
			cols.finishPages(pages, order[from:n], ends)
			cols, ends, from = rowCols{}, ends[:0], n
		}
		if cols.sc == nil {
			cols.init(q.Select, marks)
			src.rows = &cols
		}
		page = storage.Page{}
		if _, err := s.queryIn(ctx, t, q, &pages[i], marks, &src, &page); err != nil {
			return err
		}
		pages[i].Continuation = page.Continuation
		ends = append(ends, len(cols.sc.rows))
	}
	cols.finishPages(pages, order[from:], ends)
	return nil
}
