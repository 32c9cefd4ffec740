package mysqlerr

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
)

// TestConflictKeys: a conflict made by ConflictOn names its entity through
// go-mysql-server's cast and any wrapping; other errors name none, and
// the table forgets an error once it is collected.
func TestConflictKeys(t *testing.T) {
	k := ConflictKey{Table: "t1", PartitionKey: "p", RowKey: "r"}
	err := ConflictOn("row 1 of table t changed", k)
	var se *mysql.SQLError
	if se = sql.CastSQLError(err); se.Num != mysql.ERLockDeadlock || se.State != mysql.SSLockDeadlock {
		t.Fatalf("not a 1213: %v", se)
	}
	for _, e := range []error{err, se, fmt.Errorf("commit: %w", err)} {
		if got := ConflictKeys(e); len(got) != 1 || got[0] != k {
			t.Errorf("%v: keys %v", e, got)
		}
	}
	copied := *se
	for _, e := range []error{nil, Conflict("x"), ConflictOn("y"), &copied, fmt.Errorf("plain")} {
		if got := ConflictKeys(e); got != nil {
			t.Errorf("%v: keys %v, want none", e, got)
		}
	}
	runtime.KeepAlive(err)

	conflictKeys.mu.Lock()
	before := len(conflictKeys.m)
	conflictKeys.mu.Unlock()
	for i := range 100 {
		_ = ConflictOn("garbage", ConflictKey{Table: "t", RowKey: fmt.Sprint(i)})
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(time.Millisecond) {
		runtime.GC()
		conflictKeys.mu.Lock()
		n := len(conflictKeys.m)
		conflictKeys.mu.Unlock()
		if n <= before {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d entries left of 100 collected errors", n-before)
		}
	}
}
