package engine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"

	"github.com/sqlgw/sqlgw/sqlgw/engine/compat"
)

// The session variables the plan cache reads on every execute
//
// An execute served from the plan cache (plancache.go, direct.go) reads
// four session variables: sql_mode (the cached plan's mode, which
// LoadSqlMode parses from the variable's text), sql_select_limit and
// div_precision_increment (cachedPlan.valid) and autocommit (direct.go:
// whether the statement is its own transaction). Each read is a lower-
// casing of the name and a lookup in the session's map of some 600
// variables (BaseSession.GetSessionVariable), and sql_mode's also turns
// its bits into a string: about 2% of oltp_point_select's CPU (issue 13,
// tenth session). The session keeps the four values as read, with the
// generation of its variables they were read at (varsGen), and reads them
// again only when a session variable was set since: every change to a
// session's variables goes through the session's SetSessionVariable,
// InitSessionVariable or InitSessionVariableDefault (go-mysql-server's
// BaseSession has no other writer of its map; SET, SET NAMES, a
// SET_VAR hint and the values a session starts with all call them), and
// the Session's own versions of the three count the generation up after
// the base's. Used by the connection's goroutine only, as ctxOpts.

// stmtVars are the session variables an execute reads, as read at gen.
type stmtVars struct {
	gen uint64 // varsGen+1 when read (0: never read)
	// mode is sql.LoadSqlMode(ctx).String().
	mode string
	// selectLimit is sql_select_limit's value, selectLimitErr the error
	// reading it.
	selectLimit    any
	selectLimitErr error
	// divPrecision is compat.DivPrecisionIncrement(ctx).
	divPrecision int
	// autoCommit is plan.IsSessionAutocommit(ctx).
	autoCommit    bool
	autoCommitErr error
}

// stmtVars returns the session variables of ctx's session s (see above).
func (s *Session) stmtVars(ctx *sql.Context) *stmtVars {
	gen := s.varsGen.Load() + 1 // (loaded before the values are read)
	v := &s.vars
	if v.gen == gen {
		return v
	}
	v.mode = sql.LoadSqlMode(ctx).String()
	v.selectLimit, v.selectLimitErr = ctx.GetSessionVariable(ctx, "sql_select_limit")
	v.divPrecision = compat.DivPrecisionIncrement(ctx)
	v.autoCommit, v.autoCommitErr = plan.IsSessionAutocommit(ctx)
	v.gen = gen
	return v
}

// InitSessionVariable is the base's; the variables' generation counts up
// (stmtVars).
func (s *Session) InitSessionVariable(ctx *sql.Context, name string, value interface{}) error {
	err := s.BaseSession.InitSessionVariable(ctx, name, value)
	s.varsGen.Add(1)
	return err
}

// InitSessionVariableDefault is the base's; the variables' generation
// counts up (stmtVars).
func (s *Session) InitSessionVariableDefault(ctx *sql.Context, name string, value interface{}) error {
	err := s.BaseSession.InitSessionVariableDefault(ctx, name, value)
	s.varsGen.Add(1)
	return err
}

// sessionAutocommit is plan.IsSessionAutocommit(ctx), from the session's
// stmtVars.
func sessionAutocommit(ctx *sql.Context) (bool, error) {
	if s, ok := ctx.Session.(*Session); ok {
		v := s.stmtVars(ctx)
		return v.autoCommit, v.autoCommitErr
	}
	return plan.IsSessionAutocommit(ctx)
}

// KeptAutocommit is autocommit as the session last read it for the plan
// cache (stmtVars), for the wire's per-statement check (wire's
// autocommitStatement), without the name's lower-casing and map lookup:
// ok is false when a session variable was set since, or the read failed,
// and the caller reads the variable itself. The connection's goroutine
// only, as stmtVars.
func (s *Session) KeptAutocommit() (on, ok bool) {
	v := &s.vars
	if v.gen != s.varsGen.Load()+1 || v.autoCommitErr != nil {
		return false, false
	}
	return v.autoCommit, true
}

// selectLimitSet is sessionSelectLimit(nil, s)'s second result, from the
// kept sql_select_limit while it is current (stmtVars).
func (s *Session) selectLimitSet() bool {
	v := &s.vars
	if v.gen != s.varsGen.Load()+1 {
		_, on := sessionSelectLimit(nil, s)
		return on
	}
	if v.selectLimitErr != nil || v.selectLimit == selectLimitDefault() {
		return false
	}
	n, ok := v.selectLimit.(int64)
	return ok && n >= 0
}
