package ddldecl

import (
	"context"
	"strings"

	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// CREATE TABLE ... LIKE
//
// MySQL's CREATE TABLE t2 LIKE t1 copies t1's table options, its comment
// among them. go-mysql-server hands CreateTable the comment of t1's table
// reference in the statement (always empty) instead, and drops the DESC
// of primary-key columns as it does for every CREATE TABLE. sqlgw keeps
// its table options in the comment (salt_buckets, partition_key: catalog
// ParseTableOptions), so the copy would silently be unsalted and keyed
// differently: LikeSource finds the source table of the statement, and
// the engine's CreateTable takes its comment (when the statement gives
// none) and its key columns' order.

// LikeSource returns the table a CREATE TABLE ... LIKE statement copies,
// its database "" when the statement does not name one, and false for any
// other statement.
func LikeSource(query string) (db, table string, ok bool) {
	q := strings.TrimSpace(query)
	if len(q) < 6 || !strings.EqualFold(q[:6], "create") || !strings.Contains(strings.ToLower(q), "like") {
		return "", "", false
	}
	stmt, _, err := sqlparser.ParseOne(context.Background(), q)
	if err != nil {
		return "", "", false
	}
	ddl, ok := stmt.(*sqlparser.DDL)
	if !ok || ddl.Action != sqlparser.CreateStr || ddl.OptLike == nil || len(ddl.OptLike.LikeTables) != 1 {
		return "", "", false
	}
	src := ddl.OptLike.LikeTables[0]
	return src.DbQualifier.String(), src.Name.String(), true
}
