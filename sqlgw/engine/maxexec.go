package engine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
)

// max_execution_time
//
// go-mysql-server accepts the variable and nothing reads it. The wire
// layer (sqlgw/wire, maxexec.go) gives a top-level SELECT a deadline of
// that many milliseconds; it asks the session for the value on every
// statement, so the session keeps it in a field: set when the session is
// made (the global value, which the session's variables copy then) and
// whenever the session variable is set (SetSessionVariable: SET [SESSION]
// max_execution_time, SET @@max_execution_time, = DEFAULT). Reading it is
// a field load, without the variable map or a context.

// maxExecutionTimeVar is the variable's name, lower case.
const maxExecutionTimeVar = "max_execution_time"

// MaxExecutionTime returns the session's max_execution_time in
// milliseconds; 0 (or less) means no limit.
func (s *Session) MaxExecutionTime() int64 { return s.maxExecMS }

// noteMaxExecutionTime reads the session variable into maxExecMS.
func (s *Session) noteMaxExecutionTime() {
	v, err := s.BaseSession.GetSessionVariable(nil, maxExecutionTimeVar)
	if err != nil {
		return
	}
	switch n := v.(type) {
	case int64:
		s.maxExecMS = n
	case uint64:
		s.maxExecMS = int64(min(n, 1<<62))
	case int:
		s.maxExecMS = int64(n)
	}
}

// SetSessionVariable sets a session variable; a change of
// max_execution_time is noted (see above), and the variables' generation
// counts up (stmtvars.go).
func (s *Session) SetSessionVariable(ctx *sql.Context, name string, value interface{}) error {
	err := s.BaseSession.SetSessionVariable(ctx, name, value)
	s.varsGen.Add(1) // the plan cache's copies (stmtvars.go)
	if err == nil && len(name) == len(maxExecutionTimeVar) && strings.EqualFold(name, maxExecutionTimeVar) {
		s.noteMaxExecutionTime()
	}
	if err == nil {
		err = s.aliasSessionVar(ctx, name) // tx_isolation, tx_read_only (sysvaralias.go)
	}
	if err == nil && isTxReadOnlyVar(name) {
		s.noteTxReadOnly(name) // txreadonly.go
	}
	if err == nil && isIdentityVar(name) {
		s.setIdentity(ctx, name) // identity.go
	}
	return err
}
