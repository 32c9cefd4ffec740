package sqlgw

import (
	"github.com/dolthub/go-mysql-server/sql"

	"github.com/sqlgw/sqlgw/catalog"
)

// Key and index columns with a case- or accent-insensitive NO PAD collation
// (utf8mb4_0900_ai_ci, MySQL 8's default, and the other _0900_ ones) are
// stored under the collation's weight string, so that values the engine
// considers equal ('a' and 'A') are one key and keys sort as the engine
// compares. The catalog cannot import go-mysql-server, so the gateway hands
// it the engine's own per-rune weights once, here: keys and the engine then
// agree by construction rather than by a second copy of the tables.
func init() {
	it := sql.NewCollationsIterator()
	for c, ok := it.Next(); ok; c, ok = it.Next() {
		if c.Sorter != nil {
			catalog.RegisterCollation(c.Name, catalog.RuneWeigher(c.Sorter))
		}
	}
}
