package engine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/sqlgw/sqltext"
)

// CREATE TABLE ... LIKE
//
// MySQL's CREATE TABLE t2 LIKE t1 copies t1's table options, its comment
// among them. go-mysql-server hands CreateTable the comment of t1's table
// reference in the statement (always empty) instead, and drops the DESC
// of primary-key columns as it does for every CREATE TABLE. sqlgw keeps
// its table options in the comment (salt_buckets, partition_key: catalog
// ParseTableOptions), so the copy would silently be unsalted and keyed
// differently: likeSource finds the source table of the statement, and
// CreateTable takes its comment (when the statement gives none) and its
// key columns' order.

// likeSource returns the catalog table a CREATE TABLE ... LIKE statement
// copies, or nil for any other statement.
func (d *Database) likeSource(ctx *sql.Context) *catalog.Table {
	q := strings.TrimSpace(ctx.Query())
	if len(q) < 6 || !strings.EqualFold(q[:6], "create") || !strings.Contains(strings.ToLower(q), "like") {
		return nil
	}
	_, src, ok := sqltext.CreateLike(q)
	if !ok {
		return nil
	}
	db := d.name
	if src.DB != "" {
		db = src.DB
	}
	t, err := d.gw.Catalog.Table(MetaCtx(ctx), db, src.Table)
	if err != nil {
		return nil
	}
	return t
}
