package mysqlerr

import (
	"errors"

	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/storage"
)

// sqlgw's own errors as MySQL errors
//
// This file is where the engine's errors become MySQL errors: the
// catalog's and the store's sentinel errors (FromStore), "not supported"
// (Unsupported), write conflicts (Conflict) and writes of unknown outcome
// (OutcomeUnknown). go-mysql-server's CastSQLError passes a
// *mysql.SQLError through unchanged (by type assertion, so these are
// returned unwrapped), maps its own error kinds, and reports anything else
// as 1105 (unknown error); the rules of mysqlerr.go then correct its
// wording.

// ErErrorDuringCommit is MySQL's ER_ERROR_DURING_COMMIT.
const ErErrorDuringCommit = 1180

// Unsupported is a "not supported" error: MySQL 1235
// (ER_NOT_SUPPORTED_YET), SQLSTATE 42000, the text prefixed "sqlgw: ".
func Unsupported(msg string) error {
	return mysql.NewSQLError(mysql.ERNotSupportedYet, "42000", "sqlgw: %s", msg)
}

// Conflict is MySQL's ER_LOCK_DEADLOCK (1213, SQLSTATE 40001): clients and
// ORMs retry the transaction on it. sqlgw returns it when a row read by the
// transaction changed before its commit (the conditional write's ETag no
// longer matched).
func Conflict(detail string) error {
	return mysql.NewSQLError(mysql.ERLockDeadlock, mysql.SSLockDeadlock,
		"Deadlock found when trying to get lock; try restarting transaction (sqlgw: %s)", detail)
}

// OutcomeUnknown is the error of a write the store may or may not have
// applied (storage.ErrOutcomeUnknown: a timeout or a lost connection after
// the request was sent). It must not look like 1205 or 1213, which clients
// and ORMs retry blindly: a retried INSERT would then be a duplicate (a
// second row in a table without a primary key) or fail with 1062 for its
// own first attempt. MySQL's ER_ERROR_DURING_COMMIT (1180, HY000) is not
// retried by clients; the text says the outcome is unknown. The server
// itself never retries such a statement (sqlgw/wire's autoretry.go
// retries 1213 only).
func OutcomeUnknown(err error) error {
	return mysql.NewSQLError(ErErrorDuringCommit, "HY000",
		"Got error 1 - 'outcome unknown' during COMMIT (sqlgw: the store did not confirm the write, which may or may not have been applied; check before retrying: %s)", err.Error())
}

// FromStore translates storage and catalog sentinel errors into the MySQL
// error a client expects. Errors it does not know are returned unchanged.
func FromStore(err error) error {
	if err == nil {
		return nil
	}
	var sqlErr *mysql.SQLError
	if errors.As(err, &sqlErr) {
		return sqlErr
	}
	switch {
	case errors.Is(err, catalog.ErrDatabaseExists):
		return mysql.NewSQLError(mysql.ERDbCreateExists, "HY000", "%s", err.Error())
	case errors.Is(err, catalog.ErrNoDatabase):
		return mysql.NewSQLError(mysql.ERBadDb, "42000", "%s", err.Error())
	case errors.Is(err, catalog.ErrTableExists):
		return mysql.NewSQLError(mysql.ERTableExists, "42S01", "%s", err.Error())
	case errors.Is(err, catalog.ErrNoTable):
		return mysql.NewSQLError(mysql.ERNoSuchTable, "42S02", "%s", err.Error())
	case errors.Is(err, catalog.ErrColumnExists):
		return mysql.NewSQLError(mysql.ERDupFieldName, "42S21", "%s", err.Error())
	case errors.Is(err, catalog.ErrNoColumn):
		return mysql.NewSQLError(mysql.ERBadFieldError, "42S22", "%s", err.Error())
	case errors.Is(err, catalog.ErrUnsupported):
		return mysql.NewSQLError(mysql.ERNotSupportedYet, "42000", "%s", err.Error())
	case errors.Is(err, catalog.ErrInvalidDef):
		return mysql.NewSQLError(mysql.ERWrongValue, "HY000", "%s", err.Error())
	case errors.Is(err, catalog.ErrValue), errors.Is(err, storage.ErrInvalidKey):
		return mysql.NewSQLError(mysql.ERTruncatedWrongValueForField, "22007", "%s", err.Error())
	case errors.Is(err, storage.ErrTooLarge):
		return mysql.NewSQLError(mysql.ERTooBigRowSize, "42000", "%s", err.Error())
	case errors.Is(err, catalog.ErrConflict):
		return Conflict(err.Error())
	case errors.Is(err, storage.ErrOutcomeUnknown):
		return OutcomeUnknown(err)
	case errors.Is(err, storage.ErrUnavailable):
		return mysql.NewSQLError(mysql.ERLockWaitTimeout, "HY000", "%s", err.Error())
	}
	return err
}
