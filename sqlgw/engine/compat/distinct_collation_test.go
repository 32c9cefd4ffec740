package compat

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/hash"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
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
		want, wantErr := hash.HashOf(ctx, schema, row)
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
