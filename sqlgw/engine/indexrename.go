package engine

import (
	"errors"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/catalog"
)

// renameSecondaryIndex implements ALTER TABLE ... RENAME INDEX: a catalog
// change only (catalog.RenameIndex: index entities are keyed by the
// index's ID or live in its own physical table, never by its name), so it
// costs no entity writes whatever the table's size. Errors as MySQL's:
// 1176 for a missing index, 1061 for a name another index has, 1280 for
// PRIMARY. A plan built by a gateway whose catalog cache still has the
// old name fails with "index is gone; retry" until the cache refreshes
// (RefreshInterval), as after DROP INDEX.
func (t *Table) renameSecondaryIndex(ctx *sql.Context, from, to string) error {
	_, err := t.gw.Catalog.RenameIndex(MetaCtx(ctx), t.db.name, t.Name(), from, to)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, catalog.ErrNoIndex):
		return mysql.NewSQLError(mysql.ERKeyDoesNotExist, "42000", "Key '%s' doesn't exist in table '%s'", from, t.Name())
	case errors.Is(err, catalog.ErrIndexExists):
		return mysql.NewSQLError(mysql.ERDupKeyName, "42000", "Duplicate key name '%s'", to)
	case errors.Is(err, catalog.ErrInvalidDef):
		return mysql.NewSQLError(mysql.ERWrongNameForIndex, "42000", "Incorrect index name '%s'", to)
	}
	return mapError(err)
}
