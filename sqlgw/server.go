// Package sqlgw is the MySQL-facing server: the Server facade that puts
// sqlgw's engine (go-mysql-server over the catalog, the planner and the
// store) behind a MySQL listener with accounts, TLS and connection limits.
//
// # Building a server
//
//	srv, err := sqlgw.NewServer(ctx, sqlgw.Config{Listen: "127.0.0.1:3306", Store: store, StoreName: "pebble:./data"})
//	go srv.Serve()            // logs "sqlgw ready: ...", blocks until Close
//	...
//	srv.Close(ctx)            // stop accepting, drain running statements, close the store
//
// NewEngine builds the same engine without a listener (enginetest, tools).
//
// # Layers
//
// Each package imports only the ones below it (scripts/layering.sh checks
// it; docs/architecture.md has the whole module's layers):
//
//	sqlgw            Config, Server, NewServer: wires the layers below
//	                 (server.go); Engine, NewEngine, AttachConfig,
//	                 LoginDelay and ErrInsecure are the lower packages'
//	sqlgw/admin      statement interceptors for table maintenance (CHECK,
//	                 REPAIR, OPTIMIZE, ANALYZE, REFRESH TABLE) and session
//	                 commands (FLUSH, DESCRIBE t col, COM_RESET_CONNECTION)
//	sqlgw/wire       the mysql.Handler with its ordered, named interceptor
//	                 list, the connection wrapper (prepared statements, OK
//	                 info, COM_CHANGE_USER), TLS, connection limits,
//	                 autocommit retries
//	sqlgw/accounts   users, grants and logins stored in the catalog; the
//	                 "accounts" interceptor
//	sqlgw/engine     go-mysql-server integration: provider, databases,
//	                 Table, sessions, transactions, read path, secondary
//	                 indexes, joins, DDL features, stats, plan cache,
//	                 attached tables, analyzer rules
//	sqlgw/engine/... below the engine, importing nothing of it:
//	  compat         MySQL-compatibility adjustments of go-mysql-server that
//	                 need no engine object (analyzer rules, functions,
//	                 system variables)
//	  statistics     table statistics (ANALYZE TABLE's results, histograms)
//	                 and the store cost of lookup joins
//	  ddldecl        what DDL statements declare that go-mysql-server drops
//	                 (PARTITION BY, DESC key columns, LIKE's source)
//	  exprconv       go-mysql-server filter expressions as the planner's IR
//	  groupjoin      the analyzer rule binding joined table-group members'
//	                 partition key
//	  views          view definitions kept in the store
//	  typedstore     the store wrapper for attached tables' entity types
//	sqlgw/mysqlerr   go-mysql-server's, the catalog's and the store's errors
//	                 as MySQL's codes and texts
//	sqlgw/metrics    counters and their Prometheus export
//	sqlgw/sqltext    the statement text lexer and the rewrite pipelines run
//	                 before go-mysql-server parses (MariaDB-only comments,
//	                 := in SELECT, TIME(n), index hints)
//
// Test harnesses: sqlgw/sqltest (servers over each backend for end-to-end
// tests) and sqlgw/enginetest (go-mysql-server's engine tests).
//
// # Decisions
//
//   - Accounts: go-mysql-server's users, roles and grants, persisted in
//     the catalog's accounts record with conditional writes and polled by
//     every gateway (Config.AccountsRefresh, default 1 s); the configured
//     user (default root) is the bootstrap administrator created on a store
//     without accounts; an empty password only on a loopback listener
//     (ErrInsecure otherwise; loopback is decided by the address bound,
//     net.IP.IsLoopback, loopback.go). Failed logins are logged (never the
//     password) and delayed per address. See accounts.go.
//   - Limits (connlimits.go): MySQL's max_connections, connect_timeout,
//     wait_timeout and max_allowed_packet with MySQL's defaults and error
//     codes; temporary accept errors (EMFILE) are waited out, a fatal one
//     ends Serve with an error. Write conflicts of autocommit statements
//     are retried by the server (autoretry.go); a write the store may have
//     applied without confirming it is 1180 "outcome unknown" (sqlgw/mysqlerr, store.go).
//   - TLS: with Config.TLSConfig, clients may upgrade in the handshake (the
//     mysql CLI's --ssl, drivers' sslMode/tls options); with
//     RequireSecureTransport, plain connections are refused (error 3159).
//   - Metrics: store requests and latency by operation, table reads by
//     access path, connections and statements, in Prometheus' text format
//     (metrics.go, Server.Metrics().Handler()).
package sqlgw

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	gms "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/server"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/sqlgw/accounts"
	"github.com/sqlgw/sqlgw/sqlgw/admin"
	"github.com/sqlgw/sqlgw/sqlgw/engine"
	"github.com/sqlgw/sqlgw/sqlgw/engine/compat"
	"github.com/sqlgw/sqlgw/sqlgw/metrics"
	"github.com/sqlgw/sqlgw/sqlgw/sqltext"
	"github.com/sqlgw/sqlgw/sqlgw/wire"
	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/recorder"
)

// Config configures a Server.
type Config struct {
	// Listen is the TCP address, e.g. "127.0.0.1:3306" ("127.0.0.1:0" picks a
	// free port; see Server.Addr). Ignored when Listener is set.
	Listen string
	// Listener, if set, is used instead of listening on Listen.
	Listener net.Listener
	// Store is the entity store. The server owns it from NewServer on and
	// closes it in Close (also when NewServer fails).
	Store storage.Store
	// StoreName describes the store for the ready log line (never a
	// secret: no account key).
	StoreName string
	// User and Password are the bootstrap administrator (default user
	// "root"), created with every privilege when the store holds no
	// accounts yet (accounts.go). An empty password is only allowed on a
	// loopback listener.
	User, Password string
	// AccountsRefresh is how often the gateway checks the store for
	// account and grant changes made through other gateways (default 1 s).
	AccountsRefresh time.Duration
	// LoginDelay slows down repeated failed logins from one address
	// (accounts_auth.go).
	LoginDelay LoginDelay
	// Catalog options (tests shorten the refresh interval).
	Catalog catalog.Options
	// ShutdownTimeout bounds how long Close waits for running statements
	// (default 10 s).
	ShutdownTimeout time.Duration
	// Logger receives the server's few log lines (default slog.Default()).
	Logger *slog.Logger
	// Version is reported by VERSION() (default "8.0.33-sqlgw").
	Version string
	// TLSConfig, if set, lets clients upgrade to TLS (MySQL's SSL request
	// in the handshake), as a MySQL server with ssl_cert/ssl_key does.
	TLSConfig *tls.Config
	// RequireSecureTransport refuses connections that do not use TLS
	// (MySQL's require_secure_transport, error 3159). Needs TLSConfig.
	RequireSecureTransport bool
	// NoPlanCache turns the plan cache of prepared statements off
	// (plancache.go): every execute is analyzed again. For comparisons.
	NoPlanCache bool
	// NoDirect runs cached plans through go-mysql-server's executor
	// instead of directly (engine/direct.go). For comparisons.
	NoDirect bool
	// NoTextPlanCache leaves text statements (COM_QUERY) out of the plan
	// cache (engine/textcache.go). For comparisons.
	NoTextPlanCache bool
	// Attach lists the store's tables sqlgw did not create as SQL tables
	// (attached.go).
	Attach AttachConfig

	// Connection limits, MySQL's system variables of the same names
	// (connlimits.go); zero means MySQL's default, negative means none.
	// MaxConnections: connections open at once (151); more get 1040.
	MaxConnections int
	// ConnectTimeout: time from accept to authentication (10 s).
	ConnectTimeout time.Duration
	// WaitTimeout: idle time between commands before the server closes
	// the connection with 4031 (28800 s).
	WaitTimeout time.Duration
	// MaxAllowedPacket: the largest command in bytes (64 MiB); larger
	// ones get 1153 and the connection is closed.
	MaxAllowedPacket int
	// LargeCommandBudget: bytes of commands of 1 MiB or more read or run
	// at once (MaxAllowedPacket); more wait.
	LargeCommandBudget int64
}

// Server is a running sqlgw MySQL server.
type Server struct {
	rec     *recorder.Store
	cfg     Config
	gw      *engine.Gateway
	engine  *gms.Engine
	srv     *server.Server
	h       *wire.Handler
	ln      net.Listener
	rl      *wire.Listener
	log     *slog.Logger
	closed  chan struct{}
	serveOK chan struct{}
	// stopIndexes stops the index recovery loop (secondary.go).
	stopIndexes context.CancelFunc
	// accts are the server's accounts (accounts.go).
	accts *accounts.Accounts
}

// Engine is sqlgw's go-mysql-server engine over a store, without a
// listener (sqlgw/engine): for go-mysql-server's enginetest harness and
// for tools.
type Engine = engine.Engine

// AttachConfig configures attached tables (sqlgw/engine, attached.go).
type AttachConfig = engine.AttachConfig

// NewEngine opens the catalog in store and builds the engine without a
// listener (engine.New).
func NewEngine(ctx context.Context, store storage.Store, opts catalog.Options) (*Engine, error) {
	return engine.New(ctx, store, opts)
}

// LoginDelay slows down repeated failed logins (sqlgw/accounts).
type LoginDelay = accounts.LoginDelay

// ErrInsecure is returned by NewServer for a non-loopback listener without
// a password.
var ErrInsecure = accounts.ErrInsecure

// NewServer opens the catalog in cfg.Store, builds the engine and starts
// listening. Call Serve to accept connections.
func NewServer(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.Store == nil {
		return nil, errors.New("sqlgw: Config.Store is required")
	}
	fail := func(err error) (*Server, error) {
		cfg.Store.Close()
		return nil, err
	}
	if cfg.User == "" {
		cfg.User = "root"
	}
	if cfg.ShutdownTimeout <= 0 {
		cfg.ShutdownTimeout = 10 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.AccountsRefresh <= 0 {
		cfg.AccountsRefresh = time.Second
	}
	if cfg.Version == "" {
		cfg.Version = "8.0.33-sqlgw"
	}
	if cfg.RequireSecureTransport && cfg.TLSConfig == nil {
		return fail(errors.New("sqlgw: require secure transport needs a TLS certificate and key"))
	}
	ln := cfg.Listener
	if ln == nil {
		if cfg.Listen == "" {
			cfg.Listen = "127.0.0.1:3306"
		}
		if _, _, err := net.SplitHostPort(cfg.Listen); err != nil {
			return fail(fmt.Errorf("sqlgw: listen address %q: %w", cfg.Listen, err))
		}
		var err error
		ln, err = net.Listen("tcp", cfg.Listen)
		if err != nil {
			return fail(fmt.Errorf("sqlgw: %w", err))
		}
	}
	// The address actually bound decides (a name is resolved by then).
	lnHost, _, _ := net.SplitHostPort(ln.Addr().String())
	loopback := wire.IsLoopback(lnHost)

	// Global indexes are read by partition (one per looked-up value): a
	// store that can lay tables out for that (the Pebble backend's
	// partition bloom filters) does so for the index tables the catalog
	// creates from now on.
	if pr, ok := cfg.Store.(storage.PartitionReads); ok {
		pr.ReadByPartition(catalog.IsIndexPhysical)
	}
	eng, err := engine.New(ctx, cfg.Store, cfg.Catalog)
	if err != nil {
		ln.Close()
		return fail(err)
	}
	gw, gmsEngine, store := eng.Gateway(), eng.Engine, eng.Recorder()
	if _, err := gw.AttachTables(ctx, cfg.Attach); err != nil {
		ln.Close()
		return fail(err)
	}

	// Accounts: stored in the catalog, shared by every gateway; the
	// configured user is the bootstrap administrator (accounts.go).
	accts, err := accounts.Open(engine.WithoutCounters(ctx), gmsEngine.Analyzer.Catalog.MySQLDb, gw.Catalog,
		accounts.Options{User: cfg.User, Password: cfg.Password, Logger: cfg.Logger, LoginDelay: cfg.LoginDelay}, loopback)
	if err != nil {
		ln.Close()
		gmsEngine.Close()
		return fail(err)
	}
	gw.Accounts = accts

	h := &wire.Handler{GW: gw, Conns: &wire.ConnRegistry{}}
	lim := wire.LimitsConfig{MaxConnections: cfg.MaxConnections, ConnectTimeout: cfg.ConnectTimeout, WaitTimeout: cfg.WaitTimeout,
		MaxAllowedPacket: cfg.MaxAllowedPacket, LargeCommandBudget: cfg.LargeCommandBudget}
	rl := &wire.Listener{Listener: ln, Conns: h.Conns, RequireTLS: cfg.RequireSecureTransport, Limits: lim.Limits()}
	// COM_STMT_PREPARE's text goes through the rewrites the statement
	// interceptors and the engine need of a prepared statement
	// (conn.go): DESCRIBE t col, table maintenance placeholders,
	// assignments in expressions.
	h.Conns.PrepareRewrite = func(q string) string {
		return admin.Placeholder(sqltext.Run(admin.RewriteDescribe(q), sqltext.Prepare).String())
	}
	rl.Loop.Log = cfg.Logger
	scfg := server.Config{
		Protocol: "tcp",
		Address:  ln.Addr().String(),
		Listener: rl,
		Version:  cfg.Version,

		// The listener refuses plain connections when TLS is required,
		// with MySQL's error 3159 (tlsconn.go).
		TLSConfig: cfg.TLSConfig,

		// Authentication against the stored accounts (accounts_auth.go).
		ProtocolListenerFactory: func(c server.Config, lc mysql.ListenerConfig, sel server.ServerEventListener) (server.ProtocolListener, error) {
			lc.AuthServer = accts.Auth
			return server.MySQLProtocolListenerFactory(c, lc, sel)
		},
	}
	srv, err := server.NewServerWithHandler(scfg, gmsEngine, engine.NewClientContext, gw.SessionBuilder, gw.Metrics,
		func(inner mysql.Handler) (mysql.Handler, error) {
			// The statement interceptors, in the order they see a
			// statement; each answers its own statements and passes the
			// rest on, the last one to go-mysql-server's handler.
			h.Handler = wire.Chain(inner, []wire.Interceptor{
				{Name: "accounts", Wrap: accts.Intercept}, // account statements, client hosts (accounts.go)
				{Name: "table-maintenance", Wrap: func(next mysql.Handler) mysql.Handler { // CHECK, REPAIR, OPTIMIZE, ANALYZE, REFRESH TABLE (maintenance.go)
					return admin.NewMaintenance(next, gw)
				}},
				{Name: "session-commands", Wrap: func(next mysql.Handler) mysql.Handler { // FLUSH, DESCRIBE t col, COM_RESET_CONNECTION, COM_CHANGE_USER (session_commands.go)
					return admin.NewSessionCommands(next, gw, h.Conns, accts.Auth, gmsEngine.Analyzer.Catalog.HasDatabase)
				}},
			})
			return h, nil
		})
	if err != nil {
		ln.Close()
		return fail(fmt.Errorf("sqlgw: %w", err))
	}
	// With NoPlanCache too: engine/selectlimit.go runs simple SELECTs
	// under a sql_select_limit.
	h.Fast = &engine.FastLane{GW: gw, Engine: gmsEngine, SessionManager: srv.SessionManager(), NoCache: cfg.NoPlanCache, NoDirect: cfg.NoDirect, NoText: cfg.NoTextPlanCache} // plancache.go, direct.go, textcache.go
	if gw.Metrics != nil {
		h.Fast.Statements = gw.Metrics
	}
	gw.Log = cfg.Logger
	wire.PublishLimits(rl.Limits)
	compat.PublishTLS(cfg.TLSConfig != nil) // engine/compat/sysvars.go
	ictx, stop := context.WithCancel(context.Background())
	gw.StartIndexRecovery(ictx)
	go accts.Poll(cfg.AccountsRefresh)
	return &Server{rec: store, cfg: cfg, gw: gw, accts: accts, engine: gmsEngine, srv: srv, h: h, ln: ln, rl: rl, log: cfg.Logger,
		closed: make(chan struct{}), serveOK: make(chan struct{}), stopIndexes: stop}, nil
}

// Recorder returns the request recorder every store request of the server
// goes through (totals, tracing).
func (s *Server) Recorder() *recorder.Store { return s.rec }

// Metrics returns the server's metrics; Metrics().Handler() serves them
// to Prometheus.
func (s *Server) Metrics() *metrics.Metrics { return s.gw.Metrics }

// Addr returns the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Serve accepts connections until Close. It logs one line when ready.
// It returns nil after Close; otherwise the accept loop ended on an error
// that retrying could not fix (connlimits.go), and the server no longer
// accepts connections: the caller should Close it and exit with a failure.
func (s *Server) Serve() error {
	name := s.cfg.StoreName
	if name == "" {
		name = "(store)"
	}
	s.log.Info(fmt.Sprintf("sqlgw ready: listening on %s store %s", s.Addr(), name))
	close(s.serveOK)
	err := s.srv.Start()
	select {
	case <-s.closed:
		return nil
	default:
	}
	if ferr := s.rl.Loop.FatalError(); ferr != nil {
		return fmt.Errorf("sqlgw: accepting connections: %w", ferr)
	}
	if err == nil {
		err = errors.New("sqlgw: the accept loop stopped")
	}
	return err
}

// Close shuts the server down without losing an acknowledged write: it
// stops accepting connections and commands, waits up to ShutdownTimeout for
// running statements (whose commits then complete), and closes the store,
// which makes every acknowledged write durable.
func (s *Server) Close(ctx context.Context) error {
	select {
	case <-s.closed:
		return nil
	default:
	}
	close(s.closed)
	s.stopIndexes()
	s.accts.Close()
	s.srv.Close()
	drained := s.h.Drain(s.cfg.ShutdownTimeout)
	if !drained {
		s.log.Warn("sqlgw: shutdown timeout: some statements were still running and were cancelled")
	}
	s.engine.Close()
	if err := s.cfg.Store.Close(); err != nil {
		return fmt.Errorf("sqlgw: closing the store: %w", err)
	}
	return nil
}
