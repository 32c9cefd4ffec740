package engine

import "github.com/sqlgw/sqlgw/sqlgw/mysqlerr"

// The engine's errors become MySQL errors in sqlgw/mysqlerr (store.go),
// with go-mysql-server's: these are the engine's short names for them.

// unsupportedKind builds ER_NOT_SUPPORTED_YET (1235) errors.
type unsupportedKind struct{}

// errUnsupported makes "not supported" errors: MySQL 1235, SQLSTATE 42000
// (mysqlerr.Unsupported).
var errUnsupported unsupportedKind

func (unsupportedKind) New(msg string) error { return mysqlerr.Unsupported(msg) }

// errConflict is MySQL's ER_LOCK_DEADLOCK (1213) for a row read by the
// transaction that changed before its commit (mysqlerr.Conflict).
func errConflict(detail string) error { return mysqlerr.Conflict(detail) }

// mapError translates storage and catalog sentinel errors into the MySQL
// error a client expects (mysqlerr.FromStore).
func mapError(err error) error { return mysqlerr.FromStore(err) }
