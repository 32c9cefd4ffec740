package storage

import "context"

// MultiQuerier is implemented by stores that read the first pages of
// several queries of one table in one call: the embedded Pebble store
// reads them through one iterator (one lock, one table lookup, one
// snapshot handle) instead of a call per query, which is what an IN list
// on a non-unique global index sends (sqlgw's select_random_points: ten
// index partitions per statement). The Table service has no such request:
// its callers send the queries in parallel instead.
type MultiQuerier interface {
	// MultiQuery returns, for each query of qs in order, the page
	// Query(ctx, table, qs[i]) would return (its first page, or the
	// page its Continuation resumes at), reading them one after
	// another. On an error it returns nil and the error of the first
	// query that failed, as a loop of Query calls that stops there.
	MultiQuery(ctx context.Context, table string, qs []*Query) ([]*Page, error)
}

// MultiQuery runs qs on table of s: in one call where s is a
// MultiQuerier, else one Query after another (QueryEach).
func MultiQuery(ctx context.Context, s Store, table string, qs []*Query) ([]*Page, error) {
	if m, ok := s.(MultiQuerier); ok {
		return m.MultiQuery(ctx, table, qs)
	}
	return QueryEach(ctx, s, table, qs)
}

// QueryEach is MultiQuery as a loop of s.Query calls: the reference every
// MultiQuerier answers as, and what a wrapper uses for the tables it
// cannot forward in one call.
func QueryEach(ctx context.Context, s Store, table string, qs []*Query) ([]*Page, error) {
	pages := make([]*Page, len(qs))
	for i, q := range qs {
		p, err := s.Query(ctx, table, q)
		if err != nil {
			return nil, err
		}
		pages[i] = p
	}
	return pages, nil
}

// MultiRowQuerier is implemented by stores that answer MultiQuery as
// rows (RowQuerier's RowPage for each query): an IN list on a global
// index reads a few properties of each index entity (the base row's keys,
// the maintenance marks), not a property map per entity.
//
// Wrappers that look at entities implement MultiQueryRows themselves or
// not at all: a store that cannot answer, or a wrapper that cannot answer
// for the backend below it, returns ErrRowsUnsupported having sent
// nothing, and the reader sends MultiQuery instead.
// ForwardMultiQueryRows forwards to the inner store.
type MultiRowQuerier interface {
	// MultiQueryRows fills pages[i] (len(pages) == len(qs)) with the
	// RowPage QueryRows(ctx, table, qs[i], marks) would return, reading
	// the queries one after another as MultiQuery does; every qs[i].Select
	// must be set. On an error the pages are undefined, and the error is
	// that of the first query that failed.
	MultiQueryRows(ctx context.Context, table string, qs []*Query, marks []string, pages []RowPage) error
}

// ForwardMultiQueryRows is MultiQueryRows for wrappers: it calls inner's,
// or returns ErrRowsUnsupported.
func ForwardMultiQueryRows(ctx context.Context, inner Store, table string, qs []*Query, marks []string, pages []RowPage) error {
	if r, ok := inner.(MultiRowQuerier); ok {
		return r.MultiQueryRows(ctx, table, qs, marks, pages)
	}
	return ErrRowsUnsupported
}
