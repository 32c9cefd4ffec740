package sqlgw_test

import (
	"strings"
	"testing"
)

// TestDuplicateEntryCollatedKey: a duplicate on a key column keyed by a
// collation's weights names the value, not its weights, over the wire.
func TestDuplicateEntryCollatedKey(t *testing.T) {
	forEachBackend(t, func(t *testing.T, ts *testServer) {
		db := ts.db
		mustExec(t, db, "CREATE DATABASE dk")
		mustExec(t, db, "CREATE TABLE dk.u (r INT, k VARCHAR(16) COLLATE utf8mb4_unicode_ci, PRIMARY KEY (r, k))")
		mustExec(t, db, "INSERT INTO dk.u VALUES (1, 'abc')")
		_, err := db.Exec("INSERT INTO dk.u VALUES (1, 'ABC')")
		if mysqlErrno(err) != 1062 || !strings.Contains(err.Error(), "'1-ABC'") {
			t.Errorf("duplicate: %v, want 1062 naming '1-ABC'", err)
		}
	})
}
