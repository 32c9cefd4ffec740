package engine

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/iters"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"

	"github.com/sqlgw/sqlgw/sqlgw/engine/compat"
)

// TestSortRowsSameOrder: sortRows returns the rows in go-mysql-server's
// sortIter's order (the same permutation, ties in read order), for one to
// three sort fields over string columns of several collations and
// character sets (utf8mb4 0900_ai_ci, general_ci, bin, 0900_bin, latin1),
// ascending and descending, NULLs first and last, with many ties, values
// equal under a collation, trailing spaces, invalid UTF-8, and rows with a
// []byte or an integer in a sort column (go-mysql-server's own sort); a
// sort by an integer column is left to sortIter.
func TestSortRowsSameOrder(t *testing.T) {
	ctx := sql.NewEmptyContext()
	rng := rand.New(rand.NewPCG(21, 8))
	typs := []sql.Type{
		types.MustCreateString(sqltypes.VarChar, 50, sql.Collation_utf8mb4_0900_ai_ci),
		types.MustCreateString(sqltypes.Char, 50, sql.Collation_utf8mb4_general_ci),
		types.MustCreateString(sqltypes.VarChar, 50, sql.Collation_utf8mb4_bin),
		types.MustCreateString(sqltypes.Text, 500, sql.Collation_utf8mb4_0900_bin),
		types.MustCreateString(sqltypes.VarChar, 50, sql.Collation_latin1_swedish_ci),
		types.MustCreateString(sqltypes.Char, 50, sql.Collation_latin1_bin),
		types.Int64,
	}
	pieces := []string{"a", "A", "á", "ß", "ss", "Ä", "ä", "z", " ", "-", "0", "1", "€", "\xff", "é", "E", "😀", "\ufffd", "\ud7ff", "\ue000", "\U0010ffff",
		"\x00", "8386864191-"}
	word := func() any {
		if rng.IntN(8) == 0 {
			return nil
		}
		var sb strings.Builder
		for range rng.IntN(4) {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return sb.String()
	}
	fast := 0
	for round := range 3000 {
		ncols := 1 + rng.IntN(3)
		colTypes := make([]sql.Type, ncols)
		for i := range colTypes {
			colTypes[i] = typs[rng.IntN(len(typs)-1)]
		}
		if round%50 == 0 {
			colTypes[0] = types.Int64
		}
		n := rng.IntN(120)
		rows := make([]sql.Row, n)
		for r := range rows {
			row := make(sql.Row, ncols+1)
			row[ncols] = int64(r) // identifies the row
			for c := range ncols {
				if colTypes[c] == types.Int64 {
					row[c] = int64(rng.IntN(5))
				} else {
					row[c] = word()
				}
			}
			if round%40 == 1 && r == n/2 {
				row[0] = []byte("b")
			}
			rows[r] = row
		}
		var fields sql.SortFields
		for c := range ncols {
			f := sql.SortField{Column: expression.NewGetField(c, colTypes[c], fmt.Sprint("c", c), true), Order: sql.Ascending, NullOrdering: sql.NullsFirst}
			if rng.IntN(2) == 0 {
				f.Order, f.NullOrdering = sql.Descending, sql.NullsLast
			}
			if rng.IntN(4) == 0 {
				f.NullOrdering = sql.NullsLast - f.NullOrdering + sql.NullsFirst
			}
			fields = append(fields, f)
		}
		got := newSortRows(ctx, fields, sql.RowsToRowIter(rows...))
		if _, ok := got.(*sortRows); ok {
			fast++
		}
		want := iters.NewSortIter(fields, sql.RowsToRowIter(rows...))
		for i := 0; ; i++ {
			g, gerr := got.Next(ctx)
			w, werr := want.Next(ctx)
			if (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
				t.Fatalf("round %d row %d: sortRows error %v, sortIter error %v", round, i, gerr, werr)
			}
			if werr == io.EOF {
				break
			}
			if werr != nil {
				t.Fatalf("round %d: %v", round, werr)
			}
			if g[ncols] != w[ncols] {
				t.Fatalf("round %d (%v) row %d: sortRows gives row %v, sortIter row %v\nrows: %q", round, fields, i, g, w, rows)
			}
		}
	}
	if fast < 2000 {
		t.Errorf("only %d of 3000 sorts by sortRows", fast)
	}
}

// TestByteOrderedCollations: under the collations byteOrdered names, the
// weight of every code point (surrogates excepted: no valid UTF-8 decodes
// to one) is greater than the previous one's, and the character set's
// encoder reads each code point's UTF-8 as itself; and compareStrings is
// strings.Compare on random valid strings of those code points.
func TestByteOrderedCollations(t *testing.T) {
	for _, coll := range []sql.CollationID{sql.Collation_utf8mb4_0900_bin, sql.Collation_utf8mb4_bin} {
		st := types.MustCreateString(sqltypes.VarChar, 100, coll)
		if !byteOrdered(st.(types.StringType)) {
			t.Fatalf("%s: not byte-ordered", coll.Name())
		}
		weight, enc := coll.Sorter(), st.CharacterSet().Encoder()
		prev := int32(-1 << 31)
		for r := rune(0); r <= utf8.MaxRune; r++ {
			if r >= 0xd800 && r <= 0xdfff {
				continue
			}
			w := weight(r)
			if w <= prev {
				t.Fatalf("%s: weight of %U is %d, not above the previous one's %d", coll.Name(), r, w, prev)
			}
			prev = w
			if got, n := enc.NextRune(string(r)); got != r || n != utf8.RuneLen(r) {
				t.Fatalf("%s: the encoder reads %U as %U (%d bytes)", coll.Name(), r, got, n)
			}
		}
		k := sortKey{enc: enc, weight: weight}
		rng := rand.New(rand.NewPCG(3, uint64(coll)))
		runes := []rune{'a', 'b', ' ', 0x7f, 0x80, 0x7ff, 0x800, 0xd7ff, 0xe000, 0xfffd, 0xffff, 0x10000, 0x10ffff}
		str := func() string {
			var sb strings.Builder
			for range rng.IntN(5) {
				if rng.IntN(3) == 0 {
					sb.WriteRune(rune(rng.IntN(utf8.MaxRune + 1)))
				} else {
					sb.WriteRune(runes[rng.IntN(len(runes))])
				}
			}
			return sb.String()
		}
		for range 100_000 {
			a, b := str(), str()
			failed := false
			if got, want := compareStrings(k, a, b, &failed), strings.Compare(a, b); got != want || failed {
				t.Fatalf("%s: compareStrings(%q, %q) = %d (failed %v), strings.Compare %d", coll.Name(), a, b, got, failed, want)
			}
		}
	}
	for _, coll := range []sql.CollationID{sql.Collation_utf8mb4_0900_ai_ci, sql.Collation_utf8mb4_general_ci, sql.Collation_utf8mb3_bin, sql.Collation_latin1_bin, sql.Collation_binary} {
		if byteOrdered(types.MustCreateString(sqltypes.VarChar, 100, coll).(types.StringType)) {
			t.Errorf("%s: byte-ordered", coll.Name())
		}
	}
}

// TestSortDistinctRowsSame: a Sort right above a Distinct, as one
// operator (newSortDistinctRows), returns the rows go-mysql-server's
// sortIter over compat's Distinct returns, in its order (under the
// byte-ordered collations the rows of a class hold the same bytes, so
// which one is returned is not visible), for one to three columns of
// utf8mb4_0900_bin and (not taken) utf8mb4_bin, which the Distinct pads
// ('a' and 'a ' one row), and other collations, sort
// keys in any order and direction, NULLs first and last, many duplicates,
// and values the Distinct does not hash by their weights (over the
// column's length, invalid UTF-8, []byte, integers), which take the
// Distinct's own iterator.
func TestSortDistinctRowsSame(t *testing.T) {
	ctx := sql.NewEmptyContext()
	rng := rand.New(rand.NewPCG(5, 13))
	typs := []sql.Type{
		types.MustCreateString(sqltypes.VarChar, 6, sql.Collation_utf8mb4_0900_bin),
		types.MustCreateString(sqltypes.Char, 6, sql.Collation_utf8mb4_bin),
		types.MustCreateString(sqltypes.Text, 500, sql.Collation_utf8mb4_0900_bin),
		types.MustCreateString(sqltypes.VarChar, 6, sql.Collation_utf8mb4_0900_ai_ci),
		types.MustCreateString(sqltypes.VarChar, 6, sql.Collation_latin1_bin),
	}
	pieces := []string{"a", "A", "á", "a ", " ", "-", "0", "€", "😀", "\ufffd", "\ue000", "ss", "ß"}
	word := func(long bool) any {
		if rng.IntN(6) == 0 {
			return nil
		}
		var sb strings.Builder
		for range rng.IntN(3) {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		if long {
			switch rng.IntN(3) {
			case 0:
				sb.WriteString("toolongforsix")
			case 1:
				sb.WriteString("\xff")
			case 2:
				return []byte(sb.String())
			}
		}
		return sb.String()
	}
	fused, fast := 0, 0
	for round := range 3000 {
		ncols := 1 + rng.IntN(3)
		schema := make(sql.Schema, ncols)
		for i := range schema {
			typ := typs[rng.IntN(3)]
			if round%10 == 0 {
				typ = typs[rng.IntN(len(typs))]
			}
			schema[i] = &sql.Column{Name: fmt.Sprint("c", i), Type: typ, Nullable: true}
		}
		n := rng.IntN(150)
		rows := make([]sql.Row, n)
		odd := round%7 == 3
		for r := range rows {
			row := make(sql.Row, ncols)
			for c := range ncols {
				row[c] = word(odd && rng.IntN(n) == 0)
			}
			if round%50 == 1 && r == n/2 {
				row[0] = int64(7)
			}
			rows[r] = row
		}
		var fields sql.SortFields
		for _, c := range rng.Perm(ncols) {
			f := sql.SortField{Column: expression.NewGetField(c, schema[c].Type, schema[c].Name, true), Order: sql.Ascending, NullOrdering: sql.NullsFirst}
			if rng.IntN(2) == 0 {
				f.Order, f.NullOrdering = sql.Descending, sql.NullsLast
			}
			if rng.IntN(4) == 0 {
				f.NullOrdering = sql.NullsLast - f.NullOrdering + sql.NullsFirst
			}
			fields = append(fields, f)
		}
		if round%20 == 2 && ncols > 1 {
			fields = fields[1:] // not every column: not fused
		}
		distinct := plan.NewDistinct(plan.NewEmptyTableWithSchema(schema))
		got := newSortDistinctRows(ctx, fields, distinct, sql.RowsToRowIter(rows...))
		if got == nil {
			got = newSortRows(ctx, fields, mustDistinct(ctx, distinct, sql.RowsToRowIter(rows...)))
		} else {
			fused++
		}
		want := iters.NewSortIter(fields, mustDistinct(ctx, distinct, sql.RowsToRowIter(rows...)))
		for i := 0; ; i++ {
			g, gerr := got.Next(ctx)
			w, werr := want.Next(ctx)
			if (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
				t.Fatalf("round %d row %d: error %v, go-mysql-server's %v", round, i, gerr, werr)
			}
			if werr != nil {
				if werr != io.EOF {
					t.Logf("round %d: %v", round, werr)
				}
				break
			}
			if fmt.Sprintf("%#v", g) != fmt.Sprintf("%#v", w) {
				t.Fatalf("round %d (%v) row %d: row %q, go-mysql-server's %q\nrows: %q", round, fields, i, g, w, rows)
			}
		}
		if s, ok := got.(*sortRows); ok && s.distinct != nil && !odd {
			fast++
		}
	}
	if fused < 1000 || fast < 800 {
		t.Errorf("only %d of 3000 fused, %d without odd values", fused, fast)
	}
}

func mustDistinct(ctx *sql.Context, d *plan.Distinct, child sql.RowIter) sql.RowIter {
	it, ok := compat.DistinctIter(ctx, d, child)
	if !ok {
		panic("DISTINCT ON")
	}
	return it
}

// BenchmarkSortRows: oltp_read_only's ORDER BY c over 100 rows (sysbench's
// c: groups of 11 digits and '-', utf8mb4_0900_bin and _ai_ci), by
// go-mysql-server's sortIter and by sortRows.
//
//	go test ./sqlgw/engine -run '^$' -bench SortRows -benchmem
func BenchmarkSortRows(b *testing.B) {
	ctx := sql.NewEmptyContext()
	rng := rand.New(rand.NewPCG(1, 2))
	rows := make([]sql.Row, 100)
	for i := range rows {
		var sb strings.Builder
		for g := range 10 {
			if g > 0 {
				sb.WriteByte('-')
			}
			for range 11 {
				sb.WriteByte(byte('0' + rng.IntN(10)))
			}
		}
		rows[i] = sql.Row{sb.String()}
	}
	for _, coll := range []sql.CollationID{sql.Collation_utf8mb4_0900_bin, sql.Collation_utf8mb4_0900_ai_ci} {
		fields := sql.SortFields{{Column: expression.NewGetField(0, types.MustCreateString(sqltypes.Char, 120, coll), "c", false), Order: sql.Ascending, NullOrdering: sql.NullsFirst}}
		for _, way := range []struct {
			name string
			sort func(sql.RowIter) sql.RowIter
		}{
			{"sortIter", func(c sql.RowIter) sql.RowIter { return iters.NewSortIter(fields, c) }},
			{"sortRows", func(c sql.RowIter) sql.RowIter { return newSortRows(ctx, fields, c) }},
		} {
			b.Run(coll.Name()+"/"+way.name, func(b *testing.B) {
				b.ReportAllocs()
				for range b.N {
					it := way.sort(sql.RowsToRowIter(rows...))
					for {
						if _, err := it.Next(ctx); err != nil {
							break
						}
					}
				}
			})
		}
	}
}
