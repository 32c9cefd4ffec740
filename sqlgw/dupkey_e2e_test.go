package sqlgw_test

import (
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// TestDuplicateEntryCollatedKey: a duplicate on a key column keyed by a
// collation's weights names the value, not its weights, over the wire.
func TestDuplicateEntryCollatedKey(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		db := ts.DB
		sqltest.NewRunner(t, db).Script(`
			exec CREATE DATABASE dk
			exec CREATE TABLE dk.u (r INT, k VARCHAR(16) COLLATE utf8mb4_unicode_ci, PRIMARY KEY (r, k))
			exec INSERT INTO dk.u VALUES (1, 'abc')
		`)
		_, err := db.Exec("INSERT INTO dk.u VALUES (1, 'ABC')")
		if sqltest.Errno(err) != 1062 || !strings.Contains(err.Error(), "'1-ABC'") {
			t.Errorf("duplicate: %v, want 1062 naming '1-ABC'", err)
		}
	})
}
