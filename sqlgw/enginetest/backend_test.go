//go:build enginetest

package enginetest

import (
	"context"
	"testing"

	gms "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/enginetest"
	"github.com/dolthub/go-mysql-server/enginetest/scriptgen/setup"
	"github.com/dolthub/go-mysql-server/memory"
	"github.com/dolthub/go-mysql-server/sql"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/sqlgw"
	"github.com/sqlgw/sqlgw/storage/pebble"
)

// backend makes the engines a harness hands to the suites. newEngine returns
// a fresh engine holding exactly the setup scripts' data, a function making
// sessions on it, and a function releasing it (called before the next engine
// is made and when the top-level test ends).
type backend struct {
	newEngine   func(t *testing.T, h *harness, scripts []setup.SetupScript) (*gms.Engine, func(*sql.BaseSession) sql.Session, func(), error)
	indexes     bool // accepts CREATE INDEX
	foreignKeys bool // stores foreign keys
}

const defaultBackend = "sqlgw"

var backends = map[string]backend{
	// sqlgw's own engine (provider, analyzer rules, CREATE TABLE hook,
	// sessions with transactions) over an in-memory Pebble store: the code
	// `sqlgw serve --store memory:` runs, minus the network.
	"sqlgw": {
		newEngine: func(t *testing.T, h *harness, scripts []setup.SetupScript) (*gms.Engine, func(*sql.BaseSession) sql.Session, func(), error) {
			store, err := pebble.OpenMemory()
			if err != nil {
				return nil, nil, nil, err
			}
			eng, err := sqlgw.NewEngine(context.Background(), store, catalog.Options{})
			if err != nil {
				store.Close()
				return nil, nil, nil, err
			}
			release := func() { eng.Close() }
			// As enginetest.NewEngineWithProvider: the suites run as root with
			// every privilege.
			eng.Engine.Analyzer.Catalog.MySQLDb.AddRootAccount()
			h.newSession = eng.NewSession
			e, err := enginetest.RunSetupScripts(enginetest.NewContext(h), eng.Engine, scripts, h.SupportsNativeIndexCreation())
			if err != nil {
				release()
				return nil, nil, nil, err
			}
			return e, eng.NewSession, release, nil
		},
		indexes:     false, // secondary indexes are a later issue (DESIGN.md)
		foreignKeys: false,
	},

	// go-mysql-server's reference implementation: the harness's own check.
	"memory": {
		newEngine: func(t *testing.T, h *harness, scripts []setup.SetupScript) (*gms.Engine, func(*sql.BaseSession) sql.Session, func(), error) {
			pro := memory.NewDBProviderWithOpts(memory.HistoryProvider(true))
			newSession := func(base *sql.BaseSession) sql.Session { return memory.NewSession(base, pro) }
			h.newSession = newSession
			e, err := enginetest.NewEngine(t, h, pro, scripts, memory.NewStatsProv())
			return e, newSession, func() {}, err
		},
		indexes:     true,
		foreignKeys: true,
	},
}
