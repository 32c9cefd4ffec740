package engine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	// sql.SystemVariables is built by this package's init, which must run
	// before the init below wraps it.
	_ "github.com/dolthub/go-mysql-server/sql/variables"
)

// Variables with two names
//
// MySQL 5.7 named two variables twice: tx_read_only is transaction_read_
// only, tx_isolation is transaction_isolation (8.0.3 removed the old
// names; MariaDB has only them, and clients still read and set them:
// Connector/J 5.1 reads @@tx_read_only and @@tx_isolation, MariaDB's
// connectors read @@session.tx_read_only on connect, testdata/compat/
// discovery). go-mysql-server defines each name as a variable of its
// own, so SET tx_isolation = 'READ-COMMITTED' left @@transaction_isolation
// (which sqlgw's transactions read, snapshot.go) unchanged. sqlgw keeps
// each pair one variable, as MySQL 5.7 did: setting either name, in the
// session (Session.SetSessionVariable: SET x, SET @@session.x, = DEFAULT,
// SET SESSION TRANSACTION ...) or globally (aliasRegistry.SetGlobal: SET
// GLOBAL, SET PERSIST), sets the other name to the same value, so each
// reads, in SELECT @@x, @@session.x, @@global.x and SHOW VARIABLES, what
// was set last under either name.

// aliasedVars are the pairs of names of one variable, the current name
// first.
var aliasedVars = [...][2]string{
	{"transaction_read_only", "tx_read_only"},
	{"transaction_isolation", "tx_isolation"},
}

// otherName returns the other name of variable name, "" if it has none.
func otherName(name string) string {
	for _, p := range aliasedVars {
		for i, n := range p {
			if len(name) == len(n) && strings.EqualFold(name, n) {
				return p[1-i]
			}
		}
	}
	return ""
}

// aliasSessionVar sets the session's variable under the other name of
// name (just set) to its value; a no-op for a variable with one name.
func (s *Session) aliasSessionVar(ctx *sql.Context, name string) error {
	other := otherName(name)
	if other == "" {
		return nil
	}
	v, err := s.BaseSession.GetSessionVariable(ctx, name)
	if err != nil {
		return err
	}
	return s.BaseSession.SetSessionVariable(ctx, other, v)
}

// aliasRegistry is go-mysql-server's registry of system variables whose
// SetGlobal sets both names of an aliased variable (see above).
type aliasRegistry struct {
	sql.SystemVariableRegistry
}

func (r aliasRegistry) SetGlobal(ctx *sql.Context, name string, val interface{}) error {
	if err := r.SystemVariableRegistry.SetGlobal(ctx, name, val); err != nil {
		return err
	}
	other := otherName(name)
	if other == "" {
		return nil
	}
	_, v, ok := r.SystemVariableRegistry.GetGlobal(name)
	if !ok {
		return nil
	}
	return r.SystemVariableRegistry.SetGlobal(ctx, other, v)
}

func init() {
	if _, ok := sql.SystemVariables.(aliasRegistry); !ok {
		sql.SystemVariables = aliasRegistry{sql.SystemVariables}
	}
}
