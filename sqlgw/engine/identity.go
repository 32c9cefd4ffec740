package engine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// @@identity and @@last_insert_id
//
// MySQL's session variable last_insert_id is the value LAST_INSERT_ID()
// returns, and identity is its synonym ("for compatibility with other
// database systems"; SQL Server's drivers and ORMs that speak to both ask
// SELECT @@identity after an INSERT): reading either gives LAST_INSERT_ID(),
// setting either (SET @@identity = 5, SET last_insert_id = 5) sets what
// LAST_INSERT_ID() returns next. Both are session only: @@global.identity
// and SET GLOBAL identity are MySQL's 1238 and 1228. go-mysql-server has
// no identity (SELECT @@identity failed, "Unknown system variable"), and
// keeps last_insert_id as a variable of its own that nothing sets or
// reads (@@last_insert_id was 0 after an INSERT). The session answers
// both names from the value LAST_INSERT_ID() reads (the session's
// LastQueryInfo), and a SET of either stores into it.

// identityVars are the variable's names.
var identityVars = [...]string{"last_insert_id", "identity"}

// isIdentityVar reports whether name is last_insert_id or identity.
func isIdentityVar(name string) bool {
	for _, v := range identityVars {
		if len(name) == len(v) && strings.EqualFold(name, v) {
			return true
		}
	}
	return false
}

// setIdentity stores the value of the session's variable name (last_
// insert_id or identity, just set) as LAST_INSERT_ID()'s.
func (s *Session) setIdentity(ctx *sql.Context, name string) {
	v, err := s.BaseSession.GetSessionVariable(ctx, name)
	if err != nil {
		return
	}
	switch n := v.(type) {
	case int64:
		s.GetLastQueryInfo().LastInsertId.Store(n)
	case uint64:
		s.GetLastQueryInfo().LastInsertId.Store(int64(n))
	case int:
		s.GetLastQueryInfo().LastInsertId.Store(int64(n))
	}
}

func init() {
	if _, _, ok := sql.SystemVariables.GetGlobal(identityVars[1]); ok {
		return
	}
	sql.SystemVariables.AddSystemVariables([]sql.SystemVariable{&sql.MysqlSystemVariable{
		Name:    identityVars[1],
		Scope:   sql.GetMysqlScope(sql.SystemVariableScope_Session),
		Dynamic: true,
		Type:    types.NewSystemIntType(identityVars[1], -9223372036854775808, 9223372036854775807, false),
		Default: int64(0),
	}})
}
