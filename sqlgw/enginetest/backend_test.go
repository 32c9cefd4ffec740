//go:build enginetest

package enginetest

import (
	"testing"

	"github.com/dolthub/go-mysql-server/memory"
	"github.com/dolthub/go-mysql-server/sql"
)

// backend makes what a harness needs: a fresh provider per engine, sessions
// on it, and a statistics provider.
type backend struct {
	newProvider func(t *testing.T) (sql.DatabaseProvider, error)
	newSession  func(base *sql.BaseSession, pro sql.DatabaseProvider) sql.Session
	newStats    func() sql.StatsProvider
	indexes     bool // accepts CREATE INDEX
	foreignKeys bool // stores foreign keys
}

const defaultBackend = "memory"

var backends = map[string]backend{
	// go-mysql-server's reference implementation: the harness's own check.
	"memory": {
		newProvider: func(*testing.T) (sql.DatabaseProvider, error) {
			return memory.NewDBProviderWithOpts(memory.HistoryProvider(true)), nil
		},
		newSession: func(base *sql.BaseSession, pro sql.DatabaseProvider) sql.Session {
			return memory.NewSession(base, pro.(*memory.DbProvider))
		},
		newStats:    func() sql.StatsProvider { return memory.NewStatsProv() },
		indexes:     true,
		foreignKeys: true,
	},
}
