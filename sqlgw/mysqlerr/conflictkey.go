package mysqlerr

import (
	"errors"
	"runtime"
	"sync"
	"weak"

	"github.com/dolthub/vitess/go/mysql"
)

// The entity of a write conflict
//
// A write conflict (1213, Conflict) that the engine can pin on one entity
// (the conditional write of that entity failed: its ETag no longer
// matched, or it was gone) names it with ConflictOn, so that the server
// can queue the statements that conflict on one row behind each other
// (sqlgw/wire's autoretry.go) instead of letting them race.
//
// The key cannot travel as a wrapper error: go-mysql-server's handler
// passes a *mysql.SQLError through to sqlgw's connection handler only by
// type assertion (sql.CastSQLError), and anything wrapping it would
// become a 1105. So the error stays a plain *mysql.SQLError and its keys
// sit beside it, in a table keyed by a weak pointer to it: ConflictKeys
// finds them from the very error value the engine made (also when
// wrapped, by errors.As), the entry goes when the error is collected, and
// a copy of the error (a translated or rewritten one) simply has no keys,
// which its users treat as "the entity is unknown".

// ConflictKey names an entity of the store: its physical table, partition
// key and row key. Comparable: a map key.
type ConflictKey struct {
	Table, PartitionKey, RowKey string
}

var conflictKeys = struct {
	mu sync.Mutex
	m  map[weak.Pointer[mysql.SQLError]][]ConflictKey
}{m: map[weak.Pointer[mysql.SQLError]][]ConflictKey{}}

// ConflictOn is Conflict(detail) for a write conflict on keys (the
// entities whose conditional writes failed); ConflictKeys returns them.
func ConflictOn(detail string, keys ...ConflictKey) error {
	err := Conflict(detail)
	if len(keys) == 0 {
		return err
	}
	se := err.(*mysql.SQLError)
	wp := weak.Make(se)
	conflictKeys.mu.Lock()
	conflictKeys.m[wp] = keys
	conflictKeys.mu.Unlock()
	runtime.AddCleanup(se, func(wp weak.Pointer[mysql.SQLError]) {
		conflictKeys.mu.Lock()
		delete(conflictKeys.m, wp)
		conflictKeys.mu.Unlock()
	}, wp)
	return se
}

// ConflictKeys returns the entities of a write conflict made by
// ConflictOn, or nil if err is not one (another error, a conflict whose
// entity is unknown, or a copy of the error).
func ConflictKeys(err error) []ConflictKey {
	var se *mysql.SQLError
	if !errors.As(err, &se) {
		return nil
	}
	conflictKeys.mu.Lock()
	defer conflictKeys.mu.Unlock()
	return conflictKeys.m[weak.Make(se)]
}
