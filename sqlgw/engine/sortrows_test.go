package engine

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/iters"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
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
	pieces := []string{"a", "A", "á", "ß", "ss", "Ä", "ä", "z", " ", "-", "0", "1", "€", "\xff", "é", "E"}
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
