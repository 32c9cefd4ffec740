package engine

import (
	"io"
	"slices"
	"sort"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/encodings"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/iters"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// Sorting by string columns (directrange.go's Sort)
//
// go-mysql-server's sortIter sorts with expression.Sorter: for every
// comparison, each sort field's column is evaluated on both rows, its type
// asked for, and the type's Compare called through the sql.Type interface,
// which looks up the collation's encoder and weight function again. For
// oltp_read_only's ORDER BY c over 100 rows that overhead was half the
// sort's time. sortRows is the same sort when every sort field is a
// column of a string type (types.StringType) and every value of them is a
// string or NULL: the rows collected through the context's rows cache as
// sortIter collects them, then a stable sort of their ordinals (moving no
// pointers) in Sorter's order (Descending swaps the values, NULLs first or
// last as NullOrdering says, the next field on a tie) with
// StringType.Compare's comparison of two strings written out with the
// column's encoder and weight function fetched once (rune by rune, the
// lower weight first, then the shorter string first). Both are stable
// sorts by the same order, so the rows come out in the same order, ties
// in their read order.
//
// StringType.Compare fails on a string its encoder cannot read a rune
// from (none of go-mysql-server's encoders does that on a non-empty
// string); should it happen, the rows are sorted, from their read order,
// by go-mysql-server's Sorter, which then reports the error as
// sortIter does. A value that is neither a string nor NULL (a type's
// Compare would convert it) sorts by go-mysql-server's Sorter from the
// start. TestSortRowsSameOrder compares the two sorts.

// sortKey is one sort field of sortRows.
type sortKey struct {
	idx        int // the column in the row
	desc       bool
	nullsFirst bool
	enc        encodings.Encoder
	weight     sql.CollationSorter
}

// sortRows sorts its child's rows as iters.NewSortIter(fields, child)
// does; see above.
type sortRows struct {
	fields sql.SortFields
	keys   []sortKey // nil: go-mysql-server's sortIter
	child  sql.RowIter
	rows   []sql.Row
	i      int
	sorted bool
}

// newSortRows returns the sort of child's rows by fields.
func newSortRows(ctx *sql.Context, fields sql.SortFields, child sql.RowIter) sql.RowIter {
	keys := make([]sortKey, len(fields))
	for i, f := range fields {
		idx := fieldIndex(f.Column)
		typ := f.Column.Type(ctx)
		st, isString := typ.(types.StringType)
		if _, ext := typ.(sql.ExtendedType); ext || !isString || idx < 0 {
			return iters.NewSortIter(fields, child)
		}
		keys[i] = sortKey{idx: idx, desc: f.Order == sql.Descending, nullsFirst: f.NullOrdering == sql.NullsFirst,
			enc: st.CharacterSet().Encoder(), weight: st.Collation().Sorter()}
	}
	return &sortRows{fields: fields, keys: keys, child: child}
}

func (s *sortRows) Next(ctx *sql.Context) (sql.Row, error) {
	if !s.sorted {
		if err := s.sort(ctx); err != nil {
			return nil, err
		}
		s.sorted = true
	}
	if s.i >= len(s.rows) {
		return nil, io.EOF
	}
	row := s.rows[s.i]
	s.i++
	return row, nil
}

// sort reads the child's rows and sorts them, as sortIter's
// computeSortedRows does.
func (s *sortRows) sort(ctx *sql.Context) error {
	cache, dispose := ctx.Memory.NewRowsCache(ctx)
	defer dispose()
	for {
		row, err := s.child.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if err := cache.Add(row); err != nil {
			return err
		}
	}
	rows := cache.Get()
	if sorted, ok := s.sortStrings(rows); ok {
		s.rows = sorted
		return nil
	}
	sorter := &expression.Sorter{SortFields: s.fields, Rows: rows, Ctx: ctx}
	sort.Stable(sorter)
	if sorter.LastError != nil {
		return sorter.LastError
	}
	s.rows = rows
	return nil
}

// sortStrings returns rows sorted, or false if a sort value is neither a
// string nor NULL or a string could not be read. The sort is a stable sort
// of the rows' ordinals (no pointer moved, so no write barrier), by the
// sort values taken out of the rows once.
func (s *sortRows) sortStrings(rows []sql.Row) ([]sql.Row, bool) {
	vals := make([][]string, len(s.keys))
	nulls := make([][]bool, len(s.keys))
	for f, k := range s.keys {
		vals[f], nulls[f] = make([]string, len(rows)), make([]bool, len(rows))
		for r, row := range rows {
			switch v := row[k.idx].(type) {
			case nil:
				nulls[f][r] = true
			case string:
				vals[f][r] = v
			default:
				return nil, false
			}
		}
	}
	perm := make([]int32, len(rows))
	for i := range perm {
		perm[i] = int32(i)
	}
	failed := false
	slices.SortStableFunc(perm, func(a, b int32) int {
		for f, k := range s.keys {
			if k.desc {
				a, b = b, a
			}
			an, bn := nulls[f][a], nulls[f][b]
			if k.desc {
				a, b = b, a
			}
			switch {
			case an && bn:
				continue
			case an:
				if k.nullsFirst {
					return -1
				}
				return 1
			case bn:
				if k.nullsFirst {
					return 1
				}
				return -1
			}
			var c int
			if k.desc {
				c = compareStrings(k, vals[f][b], vals[f][a], &failed)
			} else {
				c = compareStrings(k, vals[f][a], vals[f][b], &failed)
			}
			if c != 0 {
				return c
			}
		}
		return 0
	})
	if failed {
		return nil, false
	}
	out := make([]sql.Row, len(rows))
	for i, p := range perm {
		out[i] = rows[p]
	}
	return out, true
}

func (s *sortRows) Close(ctx *sql.Context) error {
	s.rows = nil
	return s.child.Close(ctx)
}

// compareStrings is types.StringType.Compare of two strings by k's
// encoder and weights; *failed is set if a string could not be read.
func compareStrings(k sortKey, as, bs string, failed *bool) int {
	for len(as) > 0 && len(bs) > 0 {
		ar, aRead := k.enc.NextRune(as)
		br, bRead := k.enc.NextRune(bs)
		if aRead == 0 || bRead == 0 || aRead == utf8.RuneError || bRead == utf8.RuneError {
			*failed = true
			return 0
		}
		aWeight := k.weight(ar)
		bWeight := k.weight(br)
		if aWeight < bWeight {
			return -1
		} else if aWeight > bWeight {
			return 1
		}
		as = as[aRead:]
		bs = bs[bRead:]
	}
	if len(as) < len(bs) {
		return -1
	} else if len(as) > len(bs) {
		return 1
	}
	return 0
}
