package sqlgw_test

// The helpers of this file are thin wrappers over the end-to-end harness,
// sqlgw/sqltest, under the names the tests of this package used before it
// existed (startServer, testServer.conn, mustExec, rows, expectRows,
// expectErrno, cost, forEachBackend, ...). They are kept for the
// transition, so that tests written against the old names still compile;
// new tests use sqltest directly (sqltest.NewRunner, sqltest.ForEachBackend,
// Server.Session, Runner.Script). The file ends with the few helpers the
// package's tests share beyond the harness (index recovery after a crash,
// DDL hook windows, request-count tables).

import (
	"context"
	"database/sql"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/catalog/ixmaint"
	txnrec "github.com/sqlgw/sqlgw/catalog/txn"
	"github.com/sqlgw/sqlgw/sqlgw"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage"
)

func TestMain(m *testing.M) { os.Exit(sqltest.Main(m)) }

// backend opens a fresh store for one test (sqltest.Backend).
type backend struct {
	name string
	open func(t *testing.T) (storage.Store, catalog.Options)
}

func fromHarness(b sqltest.Backend) backend {
	return backend{name: b.Name, open: func(t *testing.T) (storage.Store, catalog.Options) { return b.Open(t) }}
}

var (
	memoryBackend = fromHarness(sqltest.Memory)
	azureBackend  = fromHarness(sqltest.Azurite)
	// backends lists the backends every end-to-end test runs on.
	backends = []backend{memoryBackend, azureBackend}
)

// testServer is a running server and a client pool (sqltest.Server).
type testServer struct {
	*sqltest.Server
	t   *testing.T
	srv *sqlgw.Server
	db  *sql.DB
	dsn string
}

func startServer(t *testing.T, store storage.Store, opts ...catalog.Options) *testServer {
	t.Helper()
	var o sqltest.Options
	if len(opts) > 0 {
		o.Catalog = opts[0]
	}
	return wrapServer(t, sqltest.Start(t, store, o))
}

func wrapServer(t *testing.T, s *sqltest.Server) *testServer {
	return &testServer{Server: s, t: t, srv: s.Srv, db: s.DB, dsn: s.DSN}
}

// harness returns the sqltest.Server behind ts, made from ts's fields when
// a test built ts itself (&testServer{t: t, srv: srv, db: db, dsn: dsn}, as
// tests that configure the server beyond sqltest.Options do).
func (ts *testServer) harness() *sqltest.Server {
	if ts.Server == nil {
		ts.Server = &sqltest.Server{T: ts.t, Srv: ts.srv, DB: ts.db, DSN: ts.dsn, Recorder: ts.srv.Recorder()}
	}
	return ts.Server
}

func (ts *testServer) stop() { ts.harness().Stop() }

// conn returns one dedicated connection (one session).
func (ts *testServer) conn() *sql.Conn { ts.t.Helper(); return ts.harness().Conn() }

type execer = sqltest.Execer

func mustExec(t *testing.T, db execer, q string, args ...any) sql.Result {
	t.Helper()
	return sqltest.NewRunner(t, db).Exec(q, args...)
}

func affected(t *testing.T, db execer, q string, args ...any) int64 {
	t.Helper()
	return sqltest.NewRunner(t, db).Affected(q, args...)
}

// rows returns a query's result as lines of tab-separated values ("NULL"
// for NULL).
func rows(t *testing.T, db execer, q string, args ...any) []string {
	t.Helper()
	return sqltest.NewRunner(t, db).Rows(q, args...)
}

func expectRows(t *testing.T, db execer, q string, want ...string) {
	t.Helper()
	sqltest.NewRunner(t, db).ExpectRows(q, want...)
}

// expectAffected runs a statement that must succeed with want rows
// affected.
func expectAffected(t *testing.T, db execer, want int64, q string, args ...any) {
	t.Helper()
	sqltest.NewRunner(t, db).ExpectAffected(want, q, args...)
}

// costCase is a statement and what it must cost its session: store
// requests and entities read.
type costCase struct {
	q              string
	reqs, entities int64
}

// expectCosts runs each case on c (one session) and reports every case
// whose cost differs (t.Errorf: the other cases still run).
func expectCosts(t *testing.T, c execer, cases []costCase) {
	t.Helper()
	for _, tc := range cases {
		reqs, ents := cost(t, c, tc.q)
		if reqs != tc.reqs || ents != tc.entities {
			t.Errorf("%s: %d requests, %d entities; want %d, %d", tc.q, reqs, ents, tc.reqs, tc.entities)
		}
	}
}

// expectRequests runs q on c (one session) and reports (t.Errorf) a cost
// other than want store requests; what names the case.
func expectRequests(t *testing.T, c execer, want int64, q, what string) {
	t.Helper()
	if r, _ := cost(t, c, q); r != want {
		t.Errorf("%s: %d requests, want %d", what, r, want)
	}
}

func mysqlErrno(err error) uint16 { return sqltest.Errno(err) }

func expectErrno(t *testing.T, db execer, want uint16, q string, args ...any) {
	t.Helper()
	sqltest.NewRunner(t, db).ExpectErrno(want, q, args...)
}

// status returns the session's sqlgw counters.
func status(t *testing.T, c execer) (requests, entities int64) {
	t.Helper()
	return sqltest.NewRunner(t, c).Status()
}

// cost runs q on c and returns the store requests and entities it cost.
func cost(t *testing.T, c execer, q string) (requests, entities int64) {
	t.Helper()
	return sqltest.NewRunner(t, c).Cost(q)
}

func forEachBackend(t *testing.T, f func(t *testing.T, ts *testServer)) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, s *sqltest.Server) {
		f(t, wrapServer(t, s))
	})
}

// forEachBackendStore is forEachBackend with the server's store and
// catalog options, for tests that look at the entities.
func forEachBackendStore(t *testing.T, f func(t *testing.T, ts *testServer, st storage.Store, co catalog.Options)) {
	forEachBackend(t, func(t *testing.T, ts *testServer) { f(t, ts, ts.Store, ts.Catalog) })
}

// recoverIndexes runs what a gateway's start-up recovery runs once the
// crashed gateway's leases have expired: transaction recovery (catalog/txn:
// records finished or aborted, their locks resolved, index entities of a
// record included), then index recovery (ixmaint) on table db.name of
// store; it returns what ixmaint.Check then finds wrong with its indexes.
func recoverIndexes(t *testing.T, store storage.Store, db, name string) ([]ixmaint.Mismatch, error) {
	t.Helper()
	ctx := context.Background()
	cat, err := catalog.Open(ctx, store, catalog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	txs := txnrec.Wrap(store, strings.TrimSuffix(cat.CatalogTable(), "catalog")+"txn",
		txnrec.Options{Now: func() time.Time { return time.Now().Add(time.Hour) }})
	if _, err := txs.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	tbl, err := cat.Table(ctx, db, name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (&ixmaint.Maintainer{Store: store}).Recover(ctx, tbl, true); err != nil {
		t.Fatal(err)
	}
	return ixmaint.Check(ctx, store, tbl)
}

// runScript runs a sqltest script (Runner.Script) on c: the straight-line
// statements of a test and the results they must give.
func runScript(t *testing.T, c execer, script string) {
	t.Helper()
	sqltest.NewRunner(t, c).Script(script)
}

// inWindow runs body with a test hook of a DDL statement (set installs it,
// as sqlgw.SetNarrowVerifiedHook does) that runs q on w the first time it
// fires: a write or DDL change landing inside the statement's window. The
// hook is removed when body returns.
func inWindow(t *testing.T, set func(func()) (restore func()), w execer, q string, body func()) {
	t.Helper()
	var once sync.Once
	restore := set(func() { once.Do(func() { mustExec(t, w, q) }) })
	defer restore()
	body()
}
