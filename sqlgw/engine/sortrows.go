package engine

import (
	"cmp"
	"io"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/encodings"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/iters"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/sqlgw/engine/compat"
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
//
// Byte-ordered collations. Under utf8mb4_0900_bin (go-mysql-server's and
// so sqlgw's default collation, sysbench's c column) and utf8mb4_bin, a
// character's weight strictly increases with its code point
// (TestByteOrderedCollations checks every code point), and the utf8mb4
// encoder reads runes as utf8.DecodeRuneInString does. For two valid
// UTF-8 strings StringType.Compare is then strings.Compare: the first
// differing rune decides by code point, which UTF-8 orders as its bytes,
// and a proper prefix (fewer runes, so fewer bytes) sorts first. When
// every sort key is such a column and every sort value is NULL or valid
// UTF-8, the rows are ordered by strings.Compare, ties by read position:
// that order is total, so the unstable pattern-defeating sort (fewer
// comparisons than the stable merge) gives the one permutation the stable
// sort gives. Under the other collations StringType.Compare is not always
// a strict weak order (under utf8mb4_0900_ai_ci 'á' equals both 'aa' and
// 'ab', which differ), so those keep the stable sort, which is the one
// sort.Stable runs.
//
// ORDER BY over DISTINCT (SELECT DISTINCT c ... ORDER BY c: a Sort right
// above a Distinct) is one operator when the sort keys name every column
// of the Distinct's rows and all are byte-ordered string columns
// (newSortDistinctRows): the child's rows are read and sorted as above,
// and of each run of rows with equal values (string bytes, NULL equal to
// NULL) the first is kept. go-mysql-server's Distinct keeps the first row
// read of each class of rows with equal hashes of their weight strings
// (compat.DistinctIter); weights that strictly increase are one-to-one, so
// for values it hashes by their weights (compat.HashesAsWeights: valid
// UTF-8 within the type's length) the classes are the rows with equal
// bytes, which the total order above makes runs, each led by its row read
// first; and the stable sort of the classes' first rows is the order of
// the runs. Neither a hash nor a set of seen hashes is built. Should a
// value not qualify, the Distinct's own iterator runs over the rows read
// and its rows are sorted as without this. TestSortDistinctRowsSame
// compares both with go-mysql-server's iterators.

// sortKey is one sort field of sortRows.
type sortKey struct {
	idx        int // the column in the row
	desc       bool
	nullsFirst bool
	enc        encodings.Encoder
	weight     sql.CollationSorter
	// bytewise: the column's collation orders valid UTF-8 as
	// strings.Compare does (byteOrdered).
	bytewise bool
}

// sortRows sorts its child's rows as iters.NewSortIter(fields, child)
// does; see above.
type sortRows struct {
	fields sql.SortFields
	keys   []sortKey // nil: go-mysql-server's sortIter
	// bytewise: every key is (sortKey.bytewise).
	bytewise bool
	child    sql.RowIter
	// distinct, if set, is the Distinct below the sort whose child is
	// child (newSortDistinctRows); schema is its child's schema.
	distinct *plan.Distinct
	schema   sql.Schema
	rows     []sql.Row
	i        int
	sorted   bool
}

// newSortRows returns the sort of child's rows by fields.
func newSortRows(ctx *sql.Context, fields sql.SortFields, child sql.RowIter) sql.RowIter {
	if s := stringSort(ctx, fields); s != nil {
		s.child = child
		return s
	}
	return iters.NewSortIter(fields, child)
}

// stringSort returns a sortRows by fields without its child, or nil if a
// field is not a column of a string type.
func stringSort(ctx *sql.Context, fields sql.SortFields) *sortRows {
	keys := make([]sortKey, len(fields))
	bytewise := true
	for i, f := range fields {
		idx := fieldIndex(f.Column)
		typ := f.Column.Type(ctx)
		st, isString := typ.(types.StringType)
		if _, ext := typ.(sql.ExtendedType); ext || !isString || idx < 0 {
			return nil
		}
		keys[i] = sortKey{idx: idx, desc: f.Order == sql.Descending, nullsFirst: f.NullOrdering == sql.NullsFirst,
			enc: st.CharacterSet().Encoder(), weight: st.Collation().Sorter(), bytewise: byteOrdered(st)}
		bytewise = bytewise && keys[i].bytewise
	}
	return &sortRows{fields: fields, keys: keys, bytewise: bytewise}
}

// newSortDistinctRows returns the sort by fields of the rows of distinct
// over child (a Sort right above a Distinct), or nil if the sort keys do
// not name every column of the Distinct's rows or one of them is not of a
// byte-ordered string type (see above).
func newSortDistinctRows(ctx *sql.Context, fields sql.SortFields, distinct *plan.Distinct, child sql.RowIter) sql.RowIter {
	if len(distinct.DistinctOn()) > 0 {
		return nil
	}
	s := stringSort(ctx, fields)
	if s == nil || !s.bytewise {
		return nil
	}
	schema := distinct.Child.Schema(ctx)
	covered := make([]bool, len(schema))
	for _, k := range s.keys {
		if k.idx >= len(schema) {
			return nil
		}
		covered[k.idx] = true
	}
	for i, c := range schema {
		st, isString := c.Type.(types.StringType)
		if _, ext := c.Type.(sql.ExtendedType); ext || !isString || !byteOrdered(st) || !covered[i] {
			return nil
		}
		if catalog.PadSpace(st.Collation().Name()) {
			// utf8mb4_bin: the Distinct pads ('a' and 'a ' one row,
			// compat/distinct_collation.go), adjacent sorted rows do not.
			return nil
		}
	}
	s.child, s.distinct, s.schema = child, distinct, schema
	return s
}

// byteOrdered reports whether st's strings sort as strings.Compare sorts
// them when valid UTF-8 (see above): the utf8mb4 character set under a
// collation whose weights strictly increase with the code point.
func byteOrdered(st types.StringType) bool {
	if st.CharacterSet() != sql.CharacterSet_utf8mb4 {
		return false
	}
	switch st.Collation() {
	case sql.Collation_utf8mb4_0900_bin, sql.Collation_utf8mb4_bin:
		return true
	}
	return false
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
// computeSortedRows does (with the Distinct between, if any).
func (s *sortRows) sort(ctx *sql.Context) error {
	cache, dispose := ctx.Memory.NewRowsCache(ctx)
	defer dispose()
	for {
		row, err := s.child.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			if s.distinct != nil {
				// The Distinct would have failed on a row before this
				// one first.
				if _, derr := s.distinctRows(ctx, cache.Get()); derr != nil {
					return derr
				}
			}
			return err
		}
		if err := cache.Add(row); err != nil {
			return err
		}
	}
	rows := cache.Get()
	if s.distinct != nil {
		if out, ok := s.sortDistinct(rows); ok {
			sortedDistincts.Add(1)
			s.rows = out
			return nil
		}
		var err error
		if rows, err = s.distinctRows(ctx, rows); err != nil {
			return err
		}
	}
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

// sortedDistincts counts the sorts that removed the Distinct's duplicates
// themselves (SortedDistincts, for tests).
var sortedDistincts atomic.Int64

// distinctRows returns the rows of go-mysql-server's Distinct (with
// compat's hasher) over rows.
func (s *sortRows) distinctRows(ctx *sql.Context, rows []sql.Row) ([]sql.Row, error) {
	it, _ := compat.DistinctIter(ctx, s.distinct, sql.RowsToRowIter(rows...))
	var out []sql.Row
	for {
		row, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			it.Close(ctx)
			return nil, err
		}
		out = append(out, row)
	}
	return out, it.Close(ctx)
}

// sortDistinct returns the first row of each run of equal rows of rows
// sorted by the byte-ordered keys, or false if a value is neither NULL
// nor a string the Distinct hashes by its weights.
func (s *sortRows) sortDistinct(rows []sql.Row) ([]sql.Row, bool) {
	for _, row := range rows {
		if len(row) != len(s.schema) {
			return nil, false
		}
		for c, v := range row {
			switch v := v.(type) {
			case nil:
			case string:
				if !compat.HashesAsWeights(s.schema[c].Type.(types.StringType), v) {
					return nil, false
				}
			default:
				return nil, false
			}
		}
	}
	sorted, ok := s.sortStrings(rows)
	if !ok {
		return nil, false
	}
	out := sorted[:0]
	for i, row := range sorted {
		if i > 0 && sameValues(row, out[len(out)-1]) {
			continue
		}
		out = append(out, row)
	}
	return out, true
}

// sameValues reports whether two rows of NULLs and strings hold the same
// values.
func sameValues(a, b sql.Row) bool {
	for i, v := range a {
		if v == nil || b[i] == nil {
			if v != nil || b[i] != nil {
				return false
			}
			continue
		}
		if v.(string) != b[i].(string) {
			return false
		}
	}
	return true
}

// sortStrings returns rows sorted, or false if a sort value is neither a
// string nor NULL or a string could not be read. The sort is a sort of
// the rows' ordinals (no pointer moved, so no write barrier), by the sort
// values taken out of the rows once: by strings.Compare, ties by ordinal,
// when every key is byte-ordered and every value valid UTF-8, else the
// stable sort by the collations' weights.
func (s *sortRows) sortStrings(rows []sql.Row) ([]sql.Row, bool) {
	vals := make([][]string, len(s.keys))
	nulls := make([][]bool, len(s.keys))
	bytewise := s.bytewise
	for f, k := range s.keys {
		vals[f], nulls[f] = make([]string, len(rows)), make([]bool, len(rows))
		for r, row := range rows {
			switch v := row[k.idx].(type) {
			case nil:
				nulls[f][r] = true
			case string:
				vals[f][r] = v
				if bytewise && !utf8.ValidString(v) {
					bytewise = false
				}
			default:
				return nil, false
			}
		}
	}
	if bytewise && len(s.keys) == 1 {
		return sortOneKey(s.keys[0], rows, vals[0], nulls[0]), true
	}
	perm := make([]int32, len(rows))
	for i := range perm {
		perm[i] = int32(i)
	}
	failed := false
	compare := func(a, b int32) int {
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
			x, y := vals[f][a], vals[f][b]
			if k.desc {
				x, y = y, x
			}
			var c int
			if bytewise {
				c = strings.Compare(x, y)
			} else {
				c = compareStrings(k, x, y, &failed)
			}
			if c != 0 {
				return c
			}
		}
		return 0
	}
	if bytewise {
		slices.SortFunc(perm, func(a, b int32) int {
			if c := compare(a, b); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
	} else {
		slices.SortStableFunc(perm, compare)
	}
	if failed {
		return nil, false
	}
	out := make([]sql.Row, len(rows))
	for i, p := range perm {
		out[i] = rows[p]
	}
	return out, true
}

// oneKey is a row's sort value and ordinal for sortOneKey.
type oneKey struct {
	// p is v's first eight bytes, big-endian, zero bytes past its end
	// (prefix8).
	p    uint64
	v    string
	null bool
	i    int32
}

// prefix8 is the first eight bytes of s as a big-endian number, s padded
// with zero bytes. For two strings whose prefix8 differ, the lower one's
// string sorts first under strings.Compare: they first differ at a byte
// among the first eight, either two bytes of the strings (the same order
// as the numbers) or a byte of the longer string against the shorter's
// end (padded with zero: the shorter sorts first unless that byte is zero
// too, and then the numbers do not differ there). Equal prefix8 decide
// nothing.
func prefix8(s string) uint64 {
	if len(s) >= 8 {
		_ = s[7]
		return uint64(s[0])<<56 | uint64(s[1])<<48 | uint64(s[2])<<40 | uint64(s[3])<<32 |
			uint64(s[4])<<24 | uint64(s[5])<<16 | uint64(s[6])<<8 | uint64(s[7])
	}
	var p uint64
	for i := range 8 {
		p <<= 8
		if i < len(s) {
			p |= uint64(s[i])
		}
	}
	return p
}

// sortOneKey returns rows sorted by one byte-ordered key k whose values
// (valid UTF-8) are vals and nulls: sortStrings's order, without its loop
// over keys and with each row's value next to its ordinal and its first
// eight bytes, which decide most comparisons (sysbench's c values differ
// in their first digits) without reading the string.
func sortOneKey(k sortKey, rows []sql.Row, vals []string, nulls []bool) []sql.Row {
	ents := make([]oneKey, len(rows))
	for r := range ents {
		ents[r] = oneKey{p: prefix8(vals[r]), v: vals[r], null: nulls[r], i: int32(r)}
	}
	slices.SortFunc(ents, func(a, b oneKey) int {
		x, y := &a, &b
		if k.desc {
			x, y = y, x
		}
		switch {
		case x.null && y.null:
		case x.null:
			if k.nullsFirst {
				return -1
			}
			return 1
		case y.null:
			if k.nullsFirst {
				return 1
			}
			return -1
		default:
			if x.p != y.p {
				if x.p < y.p {
					return -1
				}
				return 1
			}
			if c := strings.Compare(x.v, y.v); c != 0 {
				return c
			}
		}
		return cmp.Compare(a.i, b.i)
	})
	out := make([]sql.Row, len(rows))
	for i, e := range ents {
		out[i] = rows[e.i]
	}
	return out
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
