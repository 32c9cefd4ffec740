package mysqlerr

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/storage"
)

// TestFromStore: each catalog and store sentinel error, wrapped as the
// catalog and the store wrap them, becomes its MySQL code and SQLSTATE;
// an OutcomeUnknown write is 1180, never a retryable code; errors it does
// not know pass unchanged.
func TestFromStore(t *testing.T) {
	for _, c := range []struct {
		err   error
		code  int
		state string
	}{
		{catalog.ErrDatabaseExists, mysql.ERDbCreateExists, "HY000"},
		{catalog.ErrNoDatabase, mysql.ERBadDb, "42000"},
		{catalog.ErrTableExists, mysql.ERTableExists, "42S01"},
		{catalog.ErrNoTable, mysql.ERNoSuchTable, "42S02"},
		{catalog.ErrColumnExists, mysql.ERDupFieldName, "42S21"},
		{catalog.ErrNoColumn, mysql.ERBadFieldError, "42S22"},
		{catalog.ErrUnsupported, mysql.ERNotSupportedYet, "42000"},
		{catalog.ErrInvalidDef, mysql.ERWrongValue, "HY000"},
		{catalog.ErrValue, mysql.ERTruncatedWrongValueForField, "22007"},
		{storage.ErrInvalidKey, mysql.ERTruncatedWrongValueForField, "22007"},
		{storage.ErrTooLarge, mysql.ERTooBigRowSize, "42000"},
		{catalog.ErrConflict, mysql.ERLockDeadlock, mysql.SSLockDeadlock},
		{storage.ErrOutcomeUnknown, ErErrorDuringCommit, "HY000"},
		{storage.ErrUnavailable, mysql.ERLockWaitTimeout, "HY000"},
	} {
		wrapped := fmt.Errorf("table t: %w", c.err)
		var se *mysql.SQLError
		if !errors.As(FromStore(wrapped), &se) {
			t.Errorf("%v: not a MySQL error", c.err)
			continue
		}
		if se.Num != c.code || se.State != c.state || !strings.Contains(se.Message, c.err.Error()) {
			t.Errorf("%v: %d (%s) %q, want %d (%s) with the error's text", c.err, se.Num, se.State, se.Message, c.code, c.state)
		}
	}
	other := errors.New("something else")
	if FromStore(other) != other || FromStore(nil) != nil {
		t.Error("an unknown error or nil changed")
	}
	already := Unsupported("x")
	if FromStore(fmt.Errorf("wrapped: %w", already)) != already {
		t.Error("a MySQL error is not returned unwrapped")
	}
}
