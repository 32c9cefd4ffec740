//go:build enginetest

package enginetest

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"testing"

	gms "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/enginetest"
	"github.com/dolthub/go-mysql-server/enginetest/scriptgen/setup"
	"github.com/dolthub/go-mysql-server/memory"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/sqlgw"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
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

// runSetup runs setup scripts as enginetest.RunSetupScripts does, except that
// a statement sqlgw rejects as not supported yet (MySQL error 1235: secondary
// indexes, views, triggers, ...; or the engine's "no foreign key support") is
// left out and noted in the test log, and so are the statements that then
// fail because their table or index is missing. The suites' shared setup
// creates such objects next to the plain tables most tests use: this way the
// tests that need them fail on their own (and are in the skip list) instead of
// every test of a suite failing at setup. Any other setup error fails the
// engine.
func runSetup(h *harness, e enginetest.QueryEngine, scripts []setup.SetupScript) error {
	if len(scripts) == 0 {
		scripts = setup.MydbData // as enginetest.NewEngine does
	}
	ctx := enginetest.NewContext(h)
	leftOut := false
	for _, script := range scripts {
		for _, stmt := range script {
			if !h.SupportsNativeIndexCreation() && secondaryIndexDDL.MatchString(stmt) {
				leftOut = true // so a later DROP INDEX of it is left out too
				continue
			}
			qctx := ctx.WithQuery(stmt)
			_, iter, _, err := e.Query(qctx, stmt)
			if err == nil {
				_, err = sql.RowIterToRows(qctx, iter)
			}
			var sqlErr *mysql.SQLError
			switch {
			case err == nil:
			case errors.As(err, &sqlErr) && sqlErr.Num == mysql.ERNotSupportedYet,
				sql.ErrNoForeignKeySupport.Is(err), // the engine's answer for a table without foreign keys
				// A foreign key on columns whose index was left out above.
				!h.SupportsNativeIndexCreation() && sql.ErrForeignKeyMissingReferenceIndex.Is(err):
				h.noteUnsupportedSetup(stmt, err)
				leftOut = true
			case leftOut && (sql.ErrTableNotFound.Is(err) || sql.ErrCantDropFieldOrKey.Is(err)):
				// Writes to a table whose CREATE TABLE was left out above, or
				// dropping an index that was never created.
				h.noteUnsupportedSetup(stmt, err)
			default:
				return fmt.Errorf("setup statement %q: %w", stmt, err)
			}
		}
	}
	return nil
}

// secondaryIndexDDL matches the setup statements that only add a secondary
// index to an existing table. A harness without SupportsNativeIndexCreation
// leaves them out of the shared setup, as enginetest.RunSetupScripts means to
// (its own check, strings.Contains("create index", s), has its arguments
// swapped and never matches); TestIndexes creates the indexes it tests itself.
var secondaryIndexDDL = regexp.MustCompile(`(?is)^\s*(create\s+(unique\s+|fulltext\s+|spatial\s+)?index\b|alter\s+table\s+\S+\s+add\s+(unique\s+|fulltext\s+|spatial\s+)?(index|key)\b)`)

var backends = map[string]backend{
	// sqlgw's own engine (provider, analyzer rules, CREATE TABLE hook,
	// sessions with transactions) over an in-memory Pebble store: the code
	// `sqlgw serve --store memory:` runs, minus the network.
	"sqlgw": {
		newEngine: func(t *testing.T, h *harness, scripts []setup.SetupScript) (*gms.Engine, func(*sql.BaseSession) sql.Session, func(), error) {
			store, co := sqltest.Memory.Open(t) // the end-to-end tests' backend (sqlgw/sqltest)
			eng, err := sqlgw.NewEngine(context.Background(), store, co)
			if err != nil {
				store.Close()
				return nil, nil, nil, err
			}
			release := func() { eng.Close() }
			// As enginetest.NewEngineWithProvider: the suites run as root with
			// every privilege.
			eng.Engine.Analyzer.Catalog.MySQLDb.AddRootAccount()
			h.newSession = eng.NewSession
			if err := runSetup(h, recoveringEngine{eng.Engine}, scripts); err != nil {
				release()
				return nil, nil, nil, err
			}
			return eng.Engine, eng.NewSession, release, nil
		},
		// sqlgw has secondary indexes, but maintaining the shared setup's
		// indexes makes every engine of the big suites several times slower
		// to set up; the suites' results do not depend on them, and
		// TestIndexes tests indexes with the ones its scripts create.
		indexes:     false,
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
