package engine

import (
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
)

// TestCachedGlobalFollowsChanges: long_query_time, read once per change of
// a global variable (cachedGlobal), follows SET GLOBAL (through the
// registry's SetGlobal) and the values assigned at start (AssignValues).
func TestCachedGlobalFollowsChanges(t *testing.T) {
	if _, ok := sql.SystemVariables.(aliasRegistry); !ok {
		t.Fatal("sql.SystemVariables is not sqlgw's registry")
	}
	ctx := sql.NewEmptyContext()
	_, orig, _ := sql.SystemVariables.GetGlobal("long_query_time")
	t.Cleanup(func() { _ = sql.SystemVariables.SetGlobal(ctx, "long_query_time", orig) })
	for _, want := range []float64{0.25, 0.25, 3, 0} {
		if err := sql.SystemVariables.SetGlobal(ctx, "long_query_time", want); err != nil {
			t.Fatal(err)
		}
		for range 2 { // the second read is the cached one
			if got := longQueryTime(); got != want {
				t.Fatalf("after SET GLOBAL long_query_time = %v: %v", want, got)
			}
		}
	}
	if err := sql.SystemVariables.AssignValues(map[string]interface{}{"long_query_time": 7.5}); err != nil {
		t.Fatal(err)
	}
	if got := longQueryTime(); got != 7.5 {
		t.Fatalf("after AssignValues long_query_time = 7.5: %v", got)
	}
	// Another variable's change re-reads it, unchanged.
	_, maxConns, _ := sql.SystemVariables.GetGlobal("max_connections")
	t.Cleanup(func() { _ = sql.SystemVariables.SetGlobal(ctx, "max_connections", maxConns) })
	if err := sql.SystemVariables.SetGlobal(ctx, "max_connections", int64(200)); err != nil {
		t.Fatal(err)
	}
	if got := longQueryTime(); got != 7.5 {
		t.Fatalf("after another variable's change: %v", got)
	}
}
