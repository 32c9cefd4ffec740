package engine

import (
	"context"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"

	"github.com/sqlgw/sqlgw/sqlgw/engine/compat"
)

// TestStmtVarsFollowSets: the session variables the plan cache keeps per
// session (stmtvars.go) are the session's after every SetSessionVariable
// and InitSessionVariable, and reading them again without a change reads
// no variable (no allocation, where sql_mode's parse and the map lookups
// ran before).
func TestStmtVarsFollowSets(t *testing.T) {
	s := &Session{BaseSession: sql.NewBaseSessionWithClientServer("test", sql.Client{}, 1)}
	ctx := sql.NewContext(context.Background(), sql.WithSession(s))
	check := func(when string) {
		t.Helper()
		v := s.stmtVars(ctx)
		if want := sql.LoadSqlMode(ctx).String(); v.mode != want {
			t.Errorf("%s: sql_mode %q, want %q", when, v.mode, want)
		}
		if want, err := ctx.GetSessionVariable(ctx, "sql_select_limit"); v.selectLimit != want || (v.selectLimitErr == nil) != (err == nil) {
			t.Errorf("%s: sql_select_limit %v (%v), want %v (%v)", when, v.selectLimit, v.selectLimitErr, want, err)
		}
		if want := compat.DivPrecisionIncrement(ctx); v.divPrecision != want {
			t.Errorf("%s: div_precision_increment %d, want %d", when, v.divPrecision, want)
		}
		if want, err := plan.IsSessionAutocommit(ctx); v.autoCommit != want || (v.autoCommitErr == nil) != (err == nil) {
			t.Errorf("%s: autocommit %v (%v), want %v (%v)", when, v.autoCommit, v.autoCommitErr, want, err)
		}
		if _, want := sessionSelectLimit(nil, s); s.selectLimitSet() != want {
			t.Errorf("%s: sql_select_limit set %v, want %v", when, !want, want)
		}
	}
	check("new session")
	if n := testing.AllocsPerRun(100, func() { s.stmtVars(ctx) }); n != 0 {
		t.Errorf("reading the kept variables allocates %v times", n)
	}
	for _, set := range []struct {
		name string
		val  any
	}{
		{"sql_mode", "ANSI_QUOTES,STRICT_TRANS_TABLES"},
		{"sql_select_limit", int64(7)},
		{"sql_select_limit", int64(0)},
		{"autocommit", int8(0)},
		{"div_precision_increment", int64(9)},
		{"autocommit", int8(1)},
		{"sql_mode", "TRADITIONAL"},
		{"sql_select_limit", int64(18446744073709551615 >> 1)},
	} {
		if err := s.SetSessionVariable(ctx, set.name, set.val); err != nil {
			t.Fatal(err)
		}
		check("SET " + set.name)
	}
	// sql_select_limit set and asked before the kept variables are read
	// again (StmtExecute asks first).
	if err := s.SetSessionVariable(ctx, "sql_select_limit", int64(3)); err != nil {
		t.Fatal(err)
	}
	if !s.selectLimitSet() {
		t.Error("sql_select_limit = 3 not seen before the variables are read again")
	}
	// InitSessionVariable (a session's first values) too.
	s2 := &Session{BaseSession: sql.NewBaseSessionWithClientServer("test", sql.Client{}, 2)}
	ctx2 := sql.NewContext(context.Background(), sql.WithSession(s2))
	if v := s2.stmtVars(ctx2); v.divPrecision != 4 {
		t.Fatalf("div_precision_increment %d, want the default 4", v.divPrecision)
	}
	if err := s2.InitSessionVariable(ctx2, "div_precision_increment", int64(11)); err != nil {
		t.Fatal(err)
	}
	if v := s2.stmtVars(ctx2); v.divPrecision != 11 {
		t.Errorf("after InitSessionVariable: div_precision_increment %d, want 11", v.divPrecision)
	}
}
