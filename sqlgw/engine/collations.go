package engine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/planner"
)

// Key and index columns with a case- or accent-insensitive collation
// (utf8mb4_0900_ai_ci, MySQL 8's default, utf8mb4_general_ci, MariaDB's,
// utf8mb4_unicode_ci, Doctrine's and Laravel's, and every other collation
// the engine has weights for) are stored under the collation's weight
// string, so that values the engine considers equal ('a' and 'A') are one
// key and keys sort as the engine compares. The catalog cannot import
// go-mysql-server, so the gateway hands it the engine's own per-rune
// weights once, here: keys and the engine then agree by construction rather
// than by a second copy of the tables. The keys of PAD SPACE collations
// (every one but binary and the "_0900_" ones) leave out trailing spaces,
// so 'a' and 'a ' are one key, as they are one value to MySQL
// (catalog.PadSpace); go-mysql-server compares them unpadded
// (sql/types.StringType.Compare), see padspace.go.
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

// The server's default collation stays utf8mb4_0900_bin, although collated
// keys now cost nothing extra (every key and index path works under any
// registered collation, planner/collate.go): tables created without a
// collation have always compared case-sensitively in sqlgw, and a new
// default would change the answers of their non-key columns, and of new
// tables in old schemas, silently. Applications written for MySQL 8's
// case-insensitive default declare it (DEFAULT CHARSET=utf8mb4
// COLLATE=utf8mb4_0900_ai_ci, which MySQL's own dumps print anyway), and
// get the same plans as under a binary collation.

// keyCollation is the planner's view of a collation-keyed text column
// (planner.Collation): literals compared with the column become key
// components computed by the catalog's own encoder, so the planner's key
// ranges are exactly the keys the catalog writes (planner/collate.go).
type keyCollation struct{ t catalog.Type }

var _ planner.Collation = keyCollation{}

func (k keyCollation) Key(s string) (string, bool)          { return k.t.CollationKey(s) }
func (k keyCollation) Prefix(s string) string               { return k.t.CollationKeyPrefix(s) }
func (k keyCollation) Exact() bool                          { return k.t.CollationKeyExact() }
func (k keyCollation) EqualExact() bool                     { return k.t.CollationKeyEqualExact() }
func (k keyCollation) Datum(component string) planner.Datum { return catalog.KeyComponent(component) }

// plannerCollation returns the planner.Collation of a column of type t, or
// nil when its values are not keyed by a collation key.
func plannerCollation(t catalog.Type) planner.Collation {
	if !t.CollationKeyed() {
		return nil
	}
	return keyCollation{t}
}
