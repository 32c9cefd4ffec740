package engine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"

	"github.com/sqlgw/sqlgw/sqlgw/sqltext"
)

// Affected-row counts of DDL and of DELETE without WHERE
//
// MySQL's OK packet (and ROW_COUNT() after it, sqlgw/wire's row-count
// step) counts, for these statements:
//
//   - DROP DATABASE: the tables it dropped (0 for an empty database);
//     go-mysql-server says 1, and sqlgw leaves it so: go-mysql-server's
//     own DROP DATABASE tests (make enginetest) assert its 1
//     (docs/compatibility.md).
//   - TRUNCATE TABLE: 0 (InnoDB drops and recreates the table);
//     Table.Truncate reports 0.
//   - DELETE FROM t without WHERE: the rows deleted, and it is a DML
//     statement like any other: rolled back with its transaction.
//     go-mysql-server's analyzer turns it into a TRUNCATE (processTruncate,
//     in a batch of rules sqlgw cannot replace) when the table has no
//     AUTO_INCREMENT column, no DELETE trigger and no foreign key naming
//     it; a TRUNCATE commits at once and says nothing of the rows, so
//     BEGIN; DELETE FROM t; ROLLBACK lost the rows. deleteForTruncate
//     runs such a node as the DELETE it was.

// deleteForTruncate builds n, a TRUNCATE the analyzer made of a DELETE
// (the statement's text does not start with TRUNCATE), as that DELETE:
// the table's deleter over a scan of the table, its OK packet counting the
// deleted rows (go-mysql-server's accumulator, as for any DELETE). It
// returns nil for a real TRUNCATE.
func (e explainBuilder) deleteForTruncate(ctx *sql.Context, n *plan.Truncate, row sql.Row) (sql.RowIter, error) {
	if strings.EqualFold(sqltext.FirstWord(ctx.Query()), "TRUNCATE") {
		return nil, nil
	}
	return e.exec.Build(ctx, plan.NewDeleteFrom(n.Child, []sql.Node{n.Child}, false), row)
}
