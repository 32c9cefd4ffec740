package engine

import (
	"strings"
	"sync/atomic"

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
	err := r.SystemVariableRegistry.SetGlobal(ctx, name, val)
	globalsChanged.Add(1) // after the change (cachedGlobal)
	if err != nil {
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
	err = r.SystemVariableRegistry.SetGlobal(ctx, other, v)
	globalsChanged.Add(1)
	return err
}

func (r aliasRegistry) AssignValues(vals map[string]interface{}) error {
	err := r.SystemVariableRegistry.AssignValues(vals)
	globalsChanged.Add(1) // after the change (cachedGlobal)
	return err
}

// globalsChanged counts the changes of global variables made through
// aliasRegistry (SET GLOBAL, SET PERSIST, the values assigned at start),
// each counted once it is made.
var globalsChanged atomic.Uint64

// cachedGlobal is a global variable's value as of a count of
// globalsChanged, for a variable read on every statement (fastproc.go:
// long_query_time): go-mysql-server's GetGlobal takes the registry's lock
// and lower-cases the name each time.
type cachedGlobal[T any] struct {
	name string
	conv func(any) T
	last atomic.Pointer[globalAt[T]]
}

type globalAt[T any] struct {
	changes uint64
	val     T
}

// get returns the variable's global value (conv of GetGlobal's value;
// conv(nil) if the variable is unknown). A change counted after the
// value was read makes the next get read it again. Without sqlgw's
// registry (a test that replaced sql.SystemVariables) it reads every
// time.
func (c *cachedGlobal[T]) get() T {
	if _, ok := sql.SystemVariables.(aliasRegistry); !ok {
		_, v, _ := sql.SystemVariables.GetGlobal(c.name)
		return c.conv(v)
	}
	n := globalsChanged.Load()
	if last := c.last.Load(); last != nil && last.changes == n {
		return last.val
	}
	_, v, _ := sql.SystemVariables.GetGlobal(c.name)
	val := c.conv(v)
	c.last.Store(&globalAt[T]{changes: n, val: val})
	return val
}

func init() {
	if _, ok := sql.SystemVariables.(aliasRegistry); !ok {
		sql.SystemVariables = aliasRegistry{sql.SystemVariables}
	}
}
