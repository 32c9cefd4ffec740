package compat

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/hash"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"

	"github.com/sqlgw/sqlgw/catalog"
)

// TestDistinctHasherSameHash: the DISTINCT hasher gives the number (or
// the error) hash.HashOf gives for the same schema and row, for rows of one
// to three columns of string types of every base type and several
// collations (CHAR, VARCHAR, TEXT, BINARY, VARBINARY, BLOB; utf8mb4
// 0900_ai_ci, general_ci, bin, 0900_bin, latin1, binary) and an integer
// column, with values short, long past the type's length, multi-byte,
// invalid UTF-8, NULL, []byte and integers; and hashes most string rows
// itself, not through hash.HashOf.
func TestDistinctHasherSameHash(t *testing.T) {
	ctx := sql.NewEmptyContext()
	rng := rand.New(rand.NewPCG(13, 5))
	colls := []sql.CollationID{sql.Collation_utf8mb4_0900_ai_ci, sql.Collation_utf8mb4_general_ci, sql.Collation_utf8mb4_bin,
		sql.Collation_utf8mb4_0900_bin, sql.Collation_latin1_swedish_ci, sql.Collation_latin1_bin}
	var typs []sql.Type
	for _, c := range colls {
		typs = append(typs,
			types.MustCreateString(sqltypes.Char, 5, c),
			types.MustCreateString(sqltypes.VarChar, 20, c),
			types.MustCreateString(sqltypes.Text, 255, c))
	}
	typs = append(typs, types.MustCreateBinary(sqltypes.Binary, 4), types.MustCreateBinary(sqltypes.VarBinary, 10),
		types.MustCreateBinary(sqltypes.Blob, 255), types.Int64)
	pieces := []string{"a", "A", "á", "ß", "ss", "Ä", "z", " ", "-", "0", "€", "😀", "\xff", "é"}
	value := func() any {
		switch rng.IntN(10) {
		case 0:
			return nil
		case 1:
			return int64(rng.IntN(100))
		case 2:
			return []byte("b" + pieces[rng.IntN(len(pieces))])
		}
		var sb strings.Builder
		for range rng.IntN(8) {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		if rng.IntN(20) == 0 {
			sb.WriteString(strings.Repeat("x", 300))
		}
		return sb.String()
	}
	fast, total := 0, 0
	for range 20000 {
		n := 1 + rng.IntN(3)
		schema := make(sql.Schema, n)
		row := make(sql.Row, n)
		for i := range n {
			schema[i] = &sql.Column{Name: "c", Type: typs[rng.IntN(len(typs))]}
			row[i] = value()
		}
		h := newDistinctHasher(schema)
		got, gotErr := h.HashOf(ctx, row)
		// hash.HashOf of the row with PAD SPACE text trimmed (the padding).
		padded := slices.Clone(row)
		for i, v := range padded {
			if st, ok := schema[i].Type.(sql.StringType); ok && types.IsTextOnly(st) && catalog.PadSpace(st.Collation().Name()) {
				if s, ok := v.(string); ok {
					padded[i] = strings.TrimRight(s, " ")
				}
			}
		}
		want, wantErr := hash.HashOf(ctx, schema, padded)
		if got != want || (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
			t.Fatalf("schema %v row %q: hasher %d, %v; hash.HashOf %d, %v", schema, row, got, gotErr, want, wantErr)
		}
		total++
		if _, ok := h.appendRow(nil, row); ok {
			fast++
		}
	}
	if fast < total/5 {
		t.Errorf("only %d of %d rows hashed by the hasher itself", fast, total)
	}
}

// TestDistinctHasherPadSpace: under a PAD SPACE collation trailing spaces
// are padding ('b' and 'B  ' one value under utf8mb4_general_ci, 'b' and
// 'b ' under utf8mb4_bin and latin1_swedish_ci); under a NO PAD one they
// are not, nor is a tab.
func TestDistinctHasherPadSpace(t *testing.T) {
	ctx := sql.NewEmptyContext()
	for _, tc := range []struct {
		coll     sql.CollationID
		a, b     string
		sameHash bool
	}{
		{sql.Collation_utf8mb4_general_ci, "b", "B  ", true},
		{sql.Collation_utf8mb4_bin, "b", "b ", true},
		{sql.Collation_utf8mb4_bin, "b", "B ", false},
		{sql.Collation_latin1_swedish_ci, "b ", "b", true},
		{sql.Collation_utf8mb4_general_ci, "b", "b\t", false},
		{sql.Collation_utf8mb4_0900_ai_ci, "b", "b ", false},
		{sql.Collation_utf8mb4_0900_bin, "b", "b ", false},
	} {
		typ := types.MustCreateString(sqltypes.VarChar, 20, tc.coll)
		h := newDistinctHasher(sql.Schema{{Name: "s", Type: typ}, {Name: "n", Type: types.Int64}})
		row := sql.Row{tc.a, int64(1)}
		x, err := h.HashOf(ctx, row)
		if err != nil {
			t.Fatal(err)
		}
		y, err := h.HashOf(ctx, sql.Row{tc.b, int64(1)})
		if err != nil {
			t.Fatal(err)
		}
		if (x == y) != tc.sameHash {
			t.Errorf("%s: %q and %q hash equal %v, want %v", tc.coll, tc.a, tc.b, x == y, tc.sameHash)
		}
		if row[0] != tc.a {
			t.Errorf("%s: the hashed row was changed: %q", tc.coll, row[0])
		}
	}
}
