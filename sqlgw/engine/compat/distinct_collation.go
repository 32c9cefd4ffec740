package compat

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/hash"
	"github.com/dolthub/go-mysql-server/sql/iters"
	"github.com/dolthub/go-mysql-server/sql/plan"
)

// SELECT DISTINCT compares strings by their collation in MySQL: under
// utf8mb4_general_ci 'a' and 'A' are one value, under utf8mb4_0900_ai_ci
// 'a', 'A' and 'á'. go-mysql-server's Distinct hashes
// each row without its schema (plan.DistinctHasher calls hash.HashOf with
// a nil schema), so it hashes the strings' bytes and returns every spelling
// as a distinct row. hash.HashOf given the schema hashes a string column by
// its collation's weight string, as GROUP BY already does; the first row of
// each class is returned, as MySQL returns one of them. DISTINCT then groups
// exactly as GROUP BY and = do, trailing spaces included (go-mysql-server
// does not pad PAD SPACE collations; see catalog/collation.go).
//
// Upstream fix: DistinctHasher.HashOf passing the Distinct's child schema
// (or the distinctOn expressions' types) to hash.HashOf.

// DistinctIter is go-mysql-server's Distinct iterator over child with a
// hasher that honours the collations of n's child schema. ok is false for a
// DISTINCT ON (not MySQL), which keeps go-mysql-server's own iterator.
func DistinctIter(ctx *sql.Context, n *plan.Distinct, child sql.RowIter) (it sql.RowIter, ok bool) {
	if len(n.DistinctOn()) > 0 {
		return nil, false
	}
	return iters.NewDistinctIter(ctx, child, distinctHasher{schema: n.Child.Schema(ctx)}), true
}

type distinctHasher struct{ schema sql.Schema }

func (h distinctHasher) HashOf(ctx *sql.Context, row sql.Row) (uint64, error) {
	return hash.HashOf(ctx, h.schema, row)
}
