//go:build enginetest

package enginetest

import (
	"context"
	"os"
	"testing"

	"github.com/dolthub/go-mysql-server/enginetest"
	"github.com/dolthub/go-mysql-server/enginetest/scriptgen/setup"
	"github.com/dolthub/go-mysql-server/sql"
)

// harness implements go-mysql-server's enginetest.Harness over a backend
// (backend_test.go): every NewEngine gets a fresh provider on a fresh store,
// holding exactly the setup scripts' data.
type harness struct {
	t     *testing.T // the top-level test, for skip logging
	top   string     // its name: skips.txt entries are scoped by it
	skips *skipList
	be    backend

	setupData  []setup.SetupScript
	newSession func(*sql.BaseSession) sql.Session // sessions on the current engine
	release    func()                             // releases the current engine's store
	session    sql.Session

	unsupported map[string]bool // setup statements left out, logged once
}

var (
	_ enginetest.Harness             = (*harness)(nil)
	_ enginetest.SkippingHarness     = (*harness)(nil)
	_ enginetest.IndexHarness        = (*harness)(nil)
	_ enginetest.ForeignKeyHarness   = (*harness)(nil)
	_ enginetest.KeylessTableHarness = (*harness)(nil)
	_ enginetest.TransactionHarness  = (*harness)(nil)
	_ enginetest.ClientHarness       = (*harness)(nil)
)

// newHarness makes the harness for one top-level test and logs, when it
// ends, how many subtests each skip reason skipped.
func newHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{t: t, top: t.Name(), be: currentBackend}
	l, err := loadSkips(skipsFile, *noSkip)
	if err != nil {
		t.Fatal(err)
	}
	h.skips = l
	t.Cleanup(func() {
		if h.release != nil {
			h.release()
		}
		if h.skips != nil {
			if s := h.skips.summary(); s != "" {
				t.Logf("%s: skips from %s:\n%s", h.top, skipsFile, s)
			}
		}
	})
	return h
}

// SkipQueryTest implements enginetest.SkippingHarness. go-mysql-server calls
// it with a query, a script name or a script statement before running it.
func (h *harness) SkipQueryTest(q string) bool {
	reason := h.skips.match(h.top, q)
	if reason != "" && testing.Verbose() {
		h.t.Logf("skip (%s): %.200s", reason, q)
	}
	return reason != ""
}

// noteUnsupportedSetup logs, once per top-level test, a setup statement that
// the backend rejected as not supported.
func (h *harness) noteUnsupportedSetup(stmt string, err error) {
	if h.unsupported == nil {
		h.unsupported = map[string]bool{}
	}
	if !h.unsupported[stmt] {
		h.unsupported[stmt] = true
		h.t.Logf("setup statement left out: %.120s: %v", stmt, err)
	}
}

func (h *harness) Setup(scripts ...[]setup.SetupScript) {
	h.setupData = nil
	for _, s := range scripts {
		h.setupData = append(h.setupData, s...)
	}
}

// NewEngine implements enginetest.Harness. The previous engine's store is
// released first: the suites make engines one after another.
func (h *harness) NewEngine(t *testing.T) (enginetest.QueryEngine, error) {
	if h.release != nil {
		h.release()
		h.release = nil
	}
	h.session = nil
	e, newSession, release, err := h.be.newEngine(t, h, h.setupData)
	if err != nil {
		return nil, err
	}
	h.newSession, h.release = newSession, release
	// Tests start from a fresh session, as a new connection would.
	h.session = nil
	return recoveringEngine{e}, nil
}

func (h *harness) NewContext() *sql.Context {
	if h.session == nil {
		h.session = h.newSession(enginetest.NewBaseSession())
	}
	return sql.NewContext(context.Background(), sql.WithSession(h.session))
}

func (h *harness) NewContextWithClient(client sql.Client) *sql.Context {
	base := sql.NewBaseSessionWithClientServer("address", client, 1)
	return sql.NewContext(context.Background(), sql.WithSession(h.newSession(base)))
}

// NewSession implements enginetest.TransactionHarness: a second connection.
func (h *harness) NewSession() *sql.Context {
	h.session = h.newSession(enginetest.NewBaseSession())
	return h.NewContext()
}

func (h *harness) SupportsNativeIndexCreation() bool { return h.be.indexes }
func (h *harness) SupportsForeignKeys() bool         { return h.be.foreignKeys }
func (h *harness) SupportsKeylessTables() bool       { return true }

// currentBackend is the backend the tests run on (backend_test.go); the
// environment variable SQLGW_ENGINETEST_BACKEND=memory runs the same suites
// on go-mysql-server's own memory provider, as a reference for the harness.
var currentBackend = func() backend {
	if name := os.Getenv("SQLGW_ENGINETEST_BACKEND"); name != "" {
		be, ok := backends[name]
		if !ok {
			panic("SQLGW_ENGINETEST_BACKEND: no backend " + name)
		}
		return be
	}
	return backends[defaultBackend]
}()
