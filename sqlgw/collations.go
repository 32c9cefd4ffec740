package sqlgw

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/sqlgw/sqlgw/catalog"
)

// Key and index columns with a case- or accent-insensitive collation
// (utf8mb4_0900_ai_ci, MySQL 8's default, utf8mb4_general_ci, MariaDB's,
// utf8mb4_unicode_ci, Doctrine's and Laravel's, and every other collation
// the engine has weights for) are stored under the collation's weight
// string, so that values the engine considers equal ('a' and 'A') are one
// key and keys sort as the engine compares. The catalog cannot import
// go-mysql-server, so the gateway hands it the engine's own per-rune
// weights once, here: keys and the engine then agree by construction rather
// than by a second copy of the tables. go-mysql-server compares PAD SPACE
// collations without padding (sql/types.StringType.Compare), and so do
// their keys: 'a' and 'a ' are two keys, as they are two values to the
// engine (MySQL would call them equal).
func init() {
	it := sql.NewCollationsIterator()
	for c, ok := it.Next(); ok; c, ok = it.Next() {
		if c.Sorter == nil {
			continue
		}
		catalog.RegisterCollation(c.Name, catalog.RuneWeigher(c.Sorter))
		// utf8_general_ci and the other utf8_ spellings name the
		// utf8mb3_ collations.
		if rest, ok := strings.CutPrefix(c.Name, "utf8mb3_"); ok {
			catalog.RegisterCollation("utf8_"+rest, catalog.RuneWeigher(c.Sorter))
		}
	}
}
