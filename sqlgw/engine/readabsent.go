package engine

import (
	"fmt"

	"github.com/sqlgw/sqlgw/sqlgw/mysqlerr"
)

// A row inserted by another session between a read and the commit
//
// INSERT IGNORE, REPLACE and INSERT ... ON DUPLICATE KEY UPDATE decide
// what to do with a row on a read of it (editor.go): absent, they insert
// it. When another session inserts the same key before the commit, the
// commit's conditional insert finds the row stored. MySQL never reports
// that as 1062 for these statements: InnoDB makes the insert wait for the
// other session's row lock, and the statement then ignores, replaces or
// updates the row. In sqlgw the transaction's read is what went stale: a
// write conflict, as when a row read for an UPDATE changed. So a commit
// that failed because a row it had read as absent now exists, having
// applied nothing, fails with 1213 naming that row (mysqlerr.ConflictOn),
// and an autocommit statement is run again (sqlgw/wire's autoretry.go),
// where its read finds the row. A plain autocommit INSERT does not read
// (skipExistenceCheck) and keeps the commit's 1062; a row the transaction
// never read, or a commit that applied batches before the failure
// (errPartialCommit), keeps the 1062 too.
// TestInsertIgnoreRacesInsert fails without this.

// dupOnInsert is applyError's 1062 for a row's conditional insert that
// found the row stored. It lives only inside commit, which turns it into
// either a conflict (staleAbsence) or the plain 1062 it carries: code
// above the commit type-asserts *mysql.SQLError (sql.CastSQLError).
type dupOnInsert struct {
	err    error // the 1062 (errDuplicate)
	table  string
	pk, rk string
}

func (d *dupOnInsert) Error() string { return d.err.Error() }
func (d *dupOnInsert) Unwrap() error { return d.err }

// plainDup returns the 1062 a dupOnInsert carries, or err.
func plainDup(err error) error {
	if d, ok := err.(*dupOnInsert); ok {
		return d.err
	}
	return err
}

// staleAbsence is the error a failed commit of t returns: a conflict
// when err is a duplicate of a row t read as absent (see above), err's
// plain 1062 otherwise.
func staleAbsence(t *txn, err error) error {
	d, ok := err.(*dupOnInsert)
	if !ok {
		return err
	}
	tt := t.peek(d.table)
	if tt == nil {
		return d.err
	}
	if r, read := tt.readOf(entKey{d.pk, d.rk}); !read || r.exists {
		return d.err
	}
	return mysqlerr.ConflictOn(fmt.Sprintf("a row of table %s that this transaction read as absent was inserted by another session (%s)", tt.meta.Name, d.err),
		mysqlerr.ConflictKey{Table: d.table, PartitionKey: d.pk, RowKey: d.rk})
}
