package sqltest

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql" // the client every test talks through

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/sqlgw"
	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/aztables"
	"github.com/sqlgw/sqlgw/storage/aztables/azurite"
	"github.com/sqlgw/sqlgw/storage/faultstore"
	"github.com/sqlgw/sqlgw/storage/pebble"
	"github.com/sqlgw/sqlgw/storage/recorder"
)

// Backend opens a fresh store for one test, with the catalog options the
// test must use on it (on a shared emulator, a prefix of its own).
type Backend struct {
	Name string
	Open func(t testing.TB) (storage.Store, catalog.Options)
}

// Memory is Pebble in memory: nothing survives the store's Close. It
// has a row cache (storage/pebble/rowcache.go, `sqlgw serve --row-cache`),
// so that the tests on it read through one; Disk has none.
var Memory = Backend{Name: "pebble-memory", Open: func(t testing.TB) (storage.Store, catalog.Options) {
	s, err := pebble.Open("", &pebble.Options{InMemory: true, RowCacheSize: TestRowCacheSize})
	if err != nil {
		t.Fatal(err)
	}
	return s, catalog.Options{}
}}

// Disk is Pebble in a directory of t.TempDir() (durable writes).
var Disk = Backend{Name: "pebble-disk", Open: func(t testing.TB) (storage.Store, catalog.Options) {
	return OpenDisk(t, t.TempDir()), catalog.Options{}
}}

// DiskOneUser is Disk opened as the server opens its store
// (pebble.Options.OneUser: the store is the one gateway's alone, so
// CREATE INDEX waits for that gateway's commits only and backfills pages
// that no commit overlapped without checks, sqlgw/engine commitgate.go).
// A test that writes to the store below the gateway, or shares it
// between gateways without a claim each, must not use it.
var DiskOneUser = Backend{Name: "pebble-disk-oneuser", Open: func(t testing.TB) (storage.Store, catalog.Options) {
	s, err := pebble.Open(t.TempDir(), &pebble.Options{OneUser: true, RowCacheSize: TestRowCacheSize})
	if err != nil {
		t.Fatal(err)
	}
	return s, catalog.Options{}
}}

// MemoryOneUser is Memory opened as DiskOneUser is.
var MemoryOneUser = Backend{Name: "pebble-memory-oneuser", Open: func(t testing.TB) (storage.Store, catalog.Options) {
	s, err := pebble.Open("", &pebble.Options{InMemory: true, OneUser: true, RowCacheSize: TestRowCacheSize})
	if err != nil {
		t.Fatal(err)
	}
	return s, catalog.Options{}
}}

// TestRowCacheSize is the row cache of Memory, DiskOneUser, MemoryOneUser
// and sqlgw's tests' memoryServer (serve's is off unless --row-cache
// sizes it): the e2e tests read through one, small enough that a test's
// rows are evicted too.
const TestRowCacheSize = 1 << 20

// OpenDisk opens the Pebble store in dir (failing t if it cannot): a test
// that restarts a server calls it again on the same dir once the previous
// server has stopped (and so closed the store).
func OpenDisk(t testing.TB, dir string) storage.Store {
	t.Helper()
	s, err := pebble.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Azurite is the Azure Table backend on the shared Azurite emulator
// (skipped with the reason when Azurite cannot run here, and in -short
// mode; failed under CI=true: see storage/aztables/azurite). Every test
// gets its own catalog prefix in the shared emulator.
var Azurite = Backend{Name: "azurite", Open: func(t testing.TB) (storage.Store, catalog.Options) {
	if testing.Short() {
		t.Skip("skipping Azurite in -short mode")
	}
	cs := azurite.Shared(t)
	s, err := aztables.Open(context.Background(), cs, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s, catalog.Options{Prefix: UniquePrefix()}
}}

var prefixMu sync.Mutex
var lastPrefix string

// UniquePrefix returns a catalog prefix no other call of this process
// returns (tables of tests sharing one emulator never meet).
func UniquePrefix() string {
	prefixMu.Lock()
	defer prefixMu.Unlock()
	for {
		p := fmt.Sprintf("t%x", time.Now().UnixNano()&0xffffffffff)
		if p != lastPrefix {
			lastPrefix = p
			return p
		}
	}
}

// Backends lists the backends every end-to-end test runs on.
var Backends = []Backend{Memory, Azurite}

// Main runs a test binary's tests with Azurite available to them (it stops
// the shared emulator at the end); call it from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(sqltest.Main(m)) }
func Main(m *testing.M) int { return azurite.Main(m) }

// Options configure a test server.
type Options struct {
	// Password the clients log in with as root (empty: none).
	Password string
	// Catalog options; ForEachBackend sets the backend's prefix when this
	// one has none.
	Catalog catalog.Options
	// Fault wraps the store in storage/faultstore (Server.Fault), which
	// crashes at a chosen request.
	Fault bool
	// Config, if set, adjusts the server's configuration last (TLS, a
	// version string, ...).
	Config func(*sqlgw.Config)
}

// Server is a running server and a client pool.
type Server struct {
	T        testing.TB
	Srv      *sqlgw.Server
	DB       *sql.DB
	DSN      string            // "root[:password]@tcp(addr)/": append a database and parameters
	Store    storage.Store     // the store given to Start (below the wrappers)
	Catalog  catalog.Options   // the catalog options the server runs with
	Fault    *faultstore.Store // with Options.Fault
	Recorder *recorder.Store   // the server's own request recorder (Srv.Recorder())

	traceMu  sync.Mutex
	password string
}

// Start starts a server over store (which it closes when it stops; wrap the
// store in NoClose to keep it) and stops it when the test ends.
func Start(t testing.TB, store storage.Store, o Options) *Server {
	t.Helper()
	s := &Server{T: t, Store: store, Catalog: o.Catalog, password: o.Password}
	st := store
	if o.Fault {
		s.Fault = faultstore.New(st)
		st = s.Fault
	}
	cfg := sqlgw.Config{
		Listen:   "127.0.0.1:0",
		Catalog:  o.Catalog,
		Store:    st,
		Password: o.Password,
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	if o.Config != nil {
		o.Config(&cfg)
	}
	srv, err := sqlgw.NewServer(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.serve(srv)
	return s
}

// Serve serves srv, a server the test configured itself (its own logger,
// accounts, ...), with a client pool logged in as root with password
// (empty: none), and stops both when the test ends.
func Serve(t testing.TB, srv *sqlgw.Server, password string) *Server {
	t.Helper()
	s := &Server{T: t, password: password}
	s.serve(srv)
	return s
}

func (s *Server) serve(srv *sqlgw.Server) {
	s.T.Helper()
	go srv.Serve()
	user := "root"
	if s.password != "" {
		user += ":" + s.password
	}
	s.Srv = srv
	s.Recorder = srv.Recorder()
	s.DSN = fmt.Sprintf("%s@tcp(%s)/", user, srv.Addr())
	var err error
	s.DB, err = sql.Open("mysql", s.DSN)
	if err != nil {
		s.T.Fatal(err)
	}
	s.T.Cleanup(s.Stop)
}

// StartBackend starts a server over a fresh store of backend b, with b's
// catalog prefix unless o names one.
func StartBackend(t testing.TB, b Backend, o Options) *Server {
	t.Helper()
	st, co := b.Open(t)
	if o.Catalog.Prefix == "" {
		o.Catalog.Prefix = co.Prefix
	}
	return Start(t, st, o)
}

// ForEachBackend runs f as a subtest on every backend of Backends, each
// with a fresh store and server.
func ForEachBackend(t *testing.T, o Options, f func(t *testing.T, s *Server)) {
	for _, b := range Backends {
		t.Run(b.Name, func(t *testing.T) {
			f(t, StartBackend(t, b, o))
		})
	}
}

// Addr is the server's address (host:port).
func (s *Server) Addr() string { return s.Srv.Addr().String() }

// Stop closes the client pool and the server (and so its store); a test
// may call it early, for example to restart on the same store.
func (s *Server) Stop() {
	if s.DB != nil {
		s.DB.Close()
		s.DB = nil
	}
	if s.Srv != nil {
		if err := s.Srv.Close(context.Background()); err != nil {
			s.T.Error(err)
		}
		s.Srv = nil
	}
}

// Conn returns one dedicated connection (one session), closed when the
// test ends.
func (s *Server) Conn() *sql.Conn {
	s.T.Helper()
	c, err := s.DB.Conn(context.Background())
	if err != nil {
		s.T.Fatal(err)
	}
	s.T.Cleanup(func() { c.Close() })
	return c
}

// Runner returns a Runner on a new dedicated connection (one session).
func (s *Server) Runner() *Runner { return NewRunner(s.T, s.Conn()) }

// Open opens another client pool on the server with a database and DSN
// parameters (e.g. "d?multiStatements=true"), closed when the test ends.
func (s *Server) Open(dbAndParams string) *sql.DB {
	s.T.Helper()
	user := "root"
	if s.password != "" {
		user += ":" + s.password
	}
	return Client(s.T, user, s.Addr(), dbAndParams)
}

// Client opens a client pool on a server at addr that the test started
// some other way (a "sqlgw serve" process), as user ("name" or
// "name:password") with a database and DSN parameters ("", "c1",
// "?tls=false"); it is closed when the test ends (closing it earlier is
// fine).
func Client(t testing.TB, user, addr, dbAndParams string) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", fmt.Sprintf("%s@tcp(%s)/%s", user, addr, dbAndParams))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Requests runs f and returns the trace lines (storage/recorder's format)
// of the store requests the server sent meanwhile: f's and any background
// request (catalog refreshes), but those of the recovery sweeps, marked
// recorder.Background (engine.StartIndexRecovery). It traces through the server's own
// recorder: a second recorder below it would count every request twice in
// the session counters (both add to the counters of the request's context).
func (s *Server) Requests(f func()) []string {
	s.T.Helper()
	s.traceMu.Lock()
	defer s.traceMu.Unlock()
	var buf bytes.Buffer
	s.Recorder.SetTrace(&buf)
	f()
	s.Recorder.SetTrace(nil)
	if buf.Len() == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
}

// NoClose keeps a store open when a server closes it, so that a stopped (or
// "crashed") server's store can be served again by the next one.
func NoClose(s storage.Store) storage.Store { return noClose{s} }

type noClose struct{ storage.Store }

func (noClose) Close() error { return nil }

// Session returns one dedicated connection (one session) whose current
// database is db, newly created, after the setup statements have run on it
// in order (each must succeed). A setup string holds one statement a line
// (blank lines are skipped), so a raw string can list them:
//
//	c := s.Session("d", `
//		CREATE TABLE t (id INT PRIMARY KEY)
//		INSERT INTO t VALUES (1)`)
func (s *Server) Session(db string, setup ...string) *sql.Conn {
	s.T.Helper()
	c := s.Conn()
	r := NewRunner(s.T, c)
	r.Exec("CREATE DATABASE " + db)
	r.Exec("USE " + db)
	for _, text := range setup {
		for _, q := range Lines(text) {
			r.Exec(q)
		}
	}
	return c
}

// Lines returns the lines of text, trimmed, without the blank ones: a
// list of statements or queries written one a line in a raw string.
func Lines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// Use returns a runner on a new session (Session) whose current database
// is db, newly created, after the setup statements have run on it.
func (s *Server) Use(db string, setup ...string) *Runner {
	s.T.Helper()
	return NewRunner(s.T, s.Session(db, setup...))
}

// Sessions returns a runner for each of names, each on a dedicated
// connection whose current database is db: the first is Session(db), the
// others USE db. ScriptSessions runs a script over them.
func (s *Server) Sessions(db string, names ...string) map[string]*Runner {
	s.T.Helper()
	m := map[string]*Runner{}
	for i, n := range names {
		if i == 0 {
			m[n] = NewRunner(s.T, s.Session(db))
			continue
		}
		m[n] = NewRunner(s.T, s.Conn())
		m[n].Exec("USE " + db)
	}
	return m
}

// Pair returns two sessions on db (Sessions): a, which created db and ran
// setup, and b.
func (s *Server) Pair(db string, setup ...string) (a, b *Runner) {
	s.T.Helper()
	a = NewRunner(s.T, s.Session(db, setup...))
	b = NewRunner(s.T, s.Conn())
	b.Exec("USE " + db)
	return a, b
}

// Session starts a server over a fresh store of backend b and returns a
// session on it as Server.Session does.
func Session(t testing.TB, b Backend, db string, setup ...string) *sql.Conn {
	t.Helper()
	return StartBackend(t, b, Options{}).Session(db, setup...)
}

// ForEachSharedStore runs f as a subtest on every backend of Backends with
// a fresh store that the test's servers share (several gateways over one
// store): the store f gets is wrapped in NoClose, so a server stopping
// leaves it open, and it is closed when the subtest ends. co holds the
// backend's catalog options.
func ForEachSharedStore(t *testing.T, f func(t *testing.T, store storage.Store, co catalog.Options)) {
	for _, b := range Backends {
		t.Run(b.Name, func(t *testing.T) {
			store, co := b.Open(t)
			t.Cleanup(func() { store.Close() })
			f(t, NoClose(store), co)
		})
	}
}

// OpenCatalog opens a catalog (options co) on store st, as a gateway
// does, to read or change table records beside the servers of a test.
func OpenCatalog(t testing.TB, st storage.Store, co catalog.Options) *catalog.Catalog {
	t.Helper()
	c, err := catalog.Open(context.Background(), st, co)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// StoreTable returns the catalog record of table db.name in store st
// (catalog options co), read as a gateway would.
func StoreTable(t testing.TB, st storage.Store, co catalog.Options, db, name string) *catalog.Table {
	t.Helper()
	tbl, err := OpenCatalog(t, st, co).Table(context.Background(), db, name)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}
