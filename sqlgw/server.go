// Package sqlgw is the MySQL-facing server: go-mysql-server integration
// (database provider, databases, tables, sessions and transactions), auth,
// and the execution of the planner's access paths against the store.
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
// # Files
//
//	server.go     Config, Server, Engine; engine wiring
//	accounts.go   users and grants stored in the catalog, shared by every
//	              gateway; account statements; bootstrap administrator
//	accounts_auth.go    logins: mysql_native_password, caching_sha2_password
//	              (RSA key exchange), failed-login delays
//	accounts_errors.go  MySQL's privilege errors (1044, 1142, 1143, 1227),
//	              SET PASSWORD, SET GLOBAL privilege check
//	accounts_visible.go  tables and views an account sees (SHOW TABLES,
//	              information_schema), SHOW PROCESSLIST without PROCESS
//	handler.go    mysql.Handler wrapper: handshake autocommit flag, drain on
//	              shutdown, valid OK packets, MySQL error wording
//	provider.go   databases, CREATE/DROP/RENAME TABLE, CREATE TABLE checks
//	table.go      the engine's Table: projections, stats, TRUNCATE, ALTER,
//	              AUTO_INCREMENT
//	index.go      PRIMARY index, LookupForExpressions -> planner, ranges
//	rules.go      analyzer rule: LIMIT pushdown, sort elimination, ORDER BY
//	              ... LIMIT through the key or an index
//	iter.go       plan execution: lazy pages, parallel MultiGet, overlay of
//	              the transaction's writes
//	cache.go      per-statement caches for lookups re-run by nested loops
//	plancache.go  plan cache of prepared SELECTs over one table lookup:
//	              re-plans the lookup only, runs without the analyzer
//	editor.go     INSERT/UPDATE/DELETE/REPLACE into the transaction buffer
//	txn.go        transactions, commit in per-partition batches
//	session.go    sessions, savepoints, Sqlgw_* status variables
//	explain.go    plain EXPLAIN rows naming the access path
//	views.go      view definitions kept in the store
//	partition.go  PARTITION BY KEY and DESC key columns from the statement
//	attached.go   store tables sqlgw did not create, as SQL tables
//	              (Config.Attach, REFRESH TABLE; mapping in catalog/attached.go)
//	attached_index.go  secondary indexes on attached tables: their
//	              freshness contract, REPAIR/REFRESH TABLE rebuilds
//	tablegroup.go table groups: the store wrapper for members, one batch per
//	              commit in one partition, the statement's partition reads
//	tablegroup_rule.go  analyzer rule: the bound partition key of joined
//	              group members
//	types.go      engine types and values <-> catalog types and Datums
//	exprconv.go   engine expressions -> planner IR
//	collations.go collation weights for keys; collated columns for the planner
//	stats.go      ANALYZE TABLE statistics, their refresh, CARDINALITY and
//	              DESC in SHOW INDEX / STATISTICS / SHOW CREATE TABLE
//	errors.go, mysqlerr.go  error mapping to MySQL codes and texts
//	connlimits.go accept loop backoff, max_connections, connect/wait
//	              timeouts, max_allowed_packet, the large-command budget
//	autoretry.go  autocommit statements run again after a write conflict
//	clienterrs.go 1065 empty query, 1317/1927 KILL, 1043 bad handshake
//	sysvars.go    MySQL 8 system variables go-mysql-server lacks
//	loopback.go   loopback listeners by resolved address
//
// # Decisions
//
//   - Access paths: every table filter goes through LookupForExpressions
//     (index.go); the planner picks the path and EXPLAIN (plain, PLAN,
//     FORMAT=tree) shows it. Engine lookups (lookup joins, foreign keys)
//     on the PRIMARY or a secondary index are converted to the planner IR
//     and planned the same way; lookup joins into sqlgw tables are batched
//     per block of outer rows (joinbatch.go).
//   - Transactions: buffered in the session, applied at COMMIT in atomic
//     per-partition batches, conditional on ETags; a conflict is 1213.
//     txn.go documents what is atomic and isolated across partitions:
//     per-partition batches only (a failed multi-partition INSERT undoes its
//     inserts; updates and deletes across partitions are not atomic).
//   - Plan cache (plancache.go): a prepared SELECT over one table whose
//     parameters all land in the table's lookup is analyzed once per session;
//     each execute re-plans the lookup with the new values and runs the
//     cached plan. DDL (catalog version), another database or sql_mode, or
//     a parameter of another type sends the execute the general way.
//     Plan_cache_hits / _misses / Last_plan_from_cache show it.
//   - At most one row: a PointGet tells the engine so (index.go,
//     max1RowFDs), which then spools the row without its goroutines.
//   - Counters: every store request a session makes goes through
//     storage/recorder with the session's Counters; SHOW SESSION STATUS LIKE
//     'Sqlgw%' reports Sqlgw_store_requests and Sqlgw_entities_read. Catalog
//     and view-definition reads are not counted.
//   - Unsupported features are MySQL errors (1235, ER_NOT_SUPPORTED_YET),
//     never silently ignored: stored procedures and events (provider.go);
//     PARTITION BY other than KEY(columns), changing a table's partition key,
//     RENAME TABLE into another database (partition.go, table.go); ALTER TABLE
//     ADD/DROP PRIMARY KEY on a table that holds rows or has indexes or
//     foreign keys (pkalter.go); secondary indexes and foreign keys on a table
//     without a primary key, FULLTEXT/SPATIAL/VECTOR indexes, index prefix
//     lengths (provider.go, secondary.go, foreignkeys.go); spatial and vector
//     column types (types.go); table options other than the ones dumps carry
//     (provider.go); indexes on VIRTUAL generated columns, CHECK constraints
//     on a table with VIRTUAL columns, a STORED generated column added to a
//     table with rows (schemafeat.go); triggers on another database's table
//     and renaming a table that has triggers (schemafeat_triggers.go);
//     CHECKSUM TABLE (admin.go); EXPLAIN ANALYZE of a write (explain.go);
//     column changes that need the stored values rewritten and key columns in
//     collations without registered weights (catalog, ErrUnsupported, mapped
//     in errors.go; collations.go registers the engine's). CREATE TEMPORARY
//     TABLE is go-mysql-server's own error (temporary.go). Supported, and
//     where: secondary indexes (secondary.go), foreign keys (foreignkeys*.go),
//     CHECK constraints, generated columns and ON UPDATE (schemafeat*.go),
//     triggers (schemafeat_triggers.go), views (views.go), TIME(n)
//     (timeprec.go), verified narrowing ALTER ... MODIFY (ddl2_narrow.go),
//     ADD/DROP PRIMARY KEY on an empty table (pkalter.go).
//   - PARTITION BY KEY(a,b) declares the partition key, like COMMENT
//     'sqlgw: partition_key=(a,b)'; go-mysql-server drops the clause (and
//     DESC in PRIMARY KEY), so the connection handler reads them from the
//     statement (partition.go).
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
//     applied without confirming it is 1180 "outcome unknown" (errors.go).
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
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/sirupsen/logrus"

	"github.com/sqlgw/sqlgw/catalog"
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
	gw      *gateway
	engine  *gms.Engine
	srv     *server.Server
	h       *handler
	ln      net.Listener
	rl      *rewriteListener
	log     *slog.Logger
	closed  chan struct{}
	serveOK chan struct{}
	// stopIndexes stops the index recovery loop (secondary.go).
	stopIndexes context.CancelFunc
}

// ErrInsecure is returned by NewServer for a non-loopback listener without
// a password.
var ErrInsecure = errors.New("sqlgw: refusing to listen on a non-loopback address without a password (set --password or SQLGW_PASSWORD, or listen on 127.0.0.1)")

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
	loopback := isLoopback(lnHost)

	eng, err := newEngine(ctx, cfg.Store, cfg.Catalog)
	if err != nil {
		ln.Close()
		return fail(err)
	}
	gw, engine, store := eng.gw, eng.Engine, eng.rec
	if _, err := gw.attachTables(ctx, cfg.Attach); err != nil {
		ln.Close()
		return fail(err)
	}

	// Accounts: stored in the catalog, shared by every gateway; the
	// configured user is the bootstrap administrator (accounts.go).
	accts, err := openAccounts(withoutCounters(ctx), engine.Analyzer.Catalog.MySQLDb, gw.cat, cfg, loopback)
	if err != nil {
		ln.Close()
		engine.Close()
		return fail(err)
	}
	gw.accounts = accts

	h := &handler{gw: gw, conns: &connRegistry{}}
	rl := &rewriteListener{Listener: ln, conns: h.conns, requireTLS: cfg.RequireSecureTransport, limits: cfg.connLimits()}
	rl.loop.log = cfg.Logger
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
			lc.AuthServer = accts.auth
			return server.MySQLProtocolListenerFactory(c, lc, sel)
		},
	}
	srv, err := server.NewServerWithHandler(scfg, engine, newClientContext, gw.sessionBuilder, gw.metrics,
		func(inner mysql.Handler) (mysql.Handler, error) {
			h.Handler = &accountsHandler{a: accts, // accounts.go: account statements, client hosts
				Handler: &adminHandler{Handler: newAdmin2Handler(inner, gw, h.conns, accts.auth, engine.Analyzer.Catalog.HasDatabase), gw: gw}} // admin.go: CHECK, REPAIR, OPTIMIZE, ANALYZE TABLE; admin2.go: FLUSH, DESCRIBE t col, COM_CHANGE_USER
			return h, nil
		})
	if err != nil {
		ln.Close()
		return fail(fmt.Errorf("sqlgw: %w", err))
	}
	if !cfg.NoPlanCache {
		h.fast = &fastLane{gw: gw, eng: engine, sm: srv.SessionManager()} // plancache.go
		if gw.metrics != nil {
			h.fast.sel = gw.metrics
		}
	}
	gw.log = cfg.Logger
	publishLimits(rl.limits)
	publishTLS(cfg.TLSConfig != nil) // sysvars.go
	ictx, stop := context.WithCancel(context.Background())
	gw.startIndexRecovery(ictx)
	go accts.poll(cfg.AccountsRefresh)
	return &Server{rec: store, cfg: cfg, gw: gw, engine: engine, srv: srv, h: h, ln: ln, rl: rl, log: cfg.Logger,
		closed: make(chan struct{}), serveOK: make(chan struct{}), stopIndexes: stop}, nil
}

// Recorder returns the request recorder every store request of the server
// goes through (totals, tracing).
func (s *Server) Recorder() *recorder.Store { return s.rec }

// Metrics returns the server's metrics; Metrics().Handler() serves them
// to Prometheus.
func (s *Server) Metrics() *Metrics { return s.gw.metrics }

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
	if ferr := s.rl.loop.fatalError(); ferr != nil {
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
	s.gw.accounts.close()
	s.srv.Close()
	drained := s.h.drain(s.cfg.ShutdownTimeout)
	if !drained {
		s.log.Warn("sqlgw: shutdown timeout: some statements were still running and were cancelled")
	}
	s.engine.Close()
	if err := s.cfg.Store.Close(); err != nil {
		return fmt.Errorf("sqlgw: closing the store: %w", err)
	}
	return nil
}

// Engine is sqlgw's go-mysql-server engine over a store, without a
// listener: for go-mysql-server's enginetest harness and for tools. Build
// sessions with NewSession; every store request of a session is counted in
// its Sqlgw_* status variables.
type Engine struct {
	// Engine is the go-mysql-server engine (provider, analyzer with sqlgw's
	// rules, CREATE TABLE hook).
	Engine *gms.Engine
	// Provider is the database provider over the catalog.
	Provider sql.MutableDatabaseProvider
	gw       *gateway
	rec      *recorder.Store
	store    storage.Store
}

// NewEngine opens the catalog in store and builds the engine. Authentication
// is off (go-mysql-server's default) until accounts are added to
// Engine.Analyzer.Catalog.MySQLDb.
func NewEngine(ctx context.Context, store storage.Store, opts catalog.Options) (*Engine, error) {
	return newEngine(ctx, store, opts)
}

func newEngine(ctx context.Context, store storage.Store, opts catalog.Options) (*Engine, error) {
	metrics := newMetrics()
	rec := recorder.New(&metricsStore{inner: store, m: metrics})
	cat, err := catalog.Open(withoutCounters(ctx), rec, opts)
	if err != nil {
		return nil, fmt.Errorf("sqlgw: opening the catalog: %w", err)
	}
	gw := newGateway(rec, cat)
	gw.metrics = metrics
	pro := &provider{gw: gw}
	logrus.SetLevel(logrus.ErrorLevel)
	a := analyzer.NewBuilder(pro).AddPreAnalyzeRule(groupEquivRuleID, groupEquivRule).AddPostAnalyzeRule(pushdownRuleID, pushdownRule).
		AddPostAnalyzeRule(exactAggRuleID, exactAggRule).AddPostAnalyzeRule(joinBatchRuleID, joinBatchRule).AddOverrides(sql.EngineOverrides{
		Hooks:           sql.ExecutionHooks{CreateTable: sql.CreateTable{PreSQLExecution: gw.createTableHook}},
		Builder:         sql.BuilderOverrides{Parser: gw.schemaParser()}, // schemafeat_parser.go
		SchemaFormatter: newSchemaFormatter(),                            // schemafeat_format.go
	}).Build()
	a.ExecBuilder.PriorityBuilder = explainBuilder{exec: a.ExecBuilder}
	a.Catalog.InfoSchema = newInfoSchema(a.Catalog.InfoSchema) // CARDINALITY (stats.go)
	a.Coster = coster{inner: a.Coster}
	engine := gms.New(a, &gms.Config{VersionPostfix: "sqlgw"})
	engine.Analyzer.Catalog.RegisterFunction(sql.NewEmptyContext(), assignFunction, varFunction)
	return &Engine{Engine: engine, Provider: pro, gw: gw, rec: rec, store: store}, nil
}

// IgnoreSecondaryIndexes makes CREATE INDEX and index definitions in
// CREATE TABLE succeed without creating anything, for go-mysql-server's
// enginetest suites, whose setup scripts declare indexes everywhere. Never
// used by the server: there, they are errors (1235) until secondary indexes
// exist.
func (e *Engine) IgnoreSecondaryIndexes() { e.gw.ignoreIndexes = true }

// NewSession returns a sqlgw session (transactions, counters) around base.
func (e *Engine) NewSession(base *sql.BaseSession) sql.Session { return e.gw.newSession(base) }

// Recorder returns the request recorder in front of the store.
func (e *Engine) Recorder() *recorder.Store { return e.rec }

// Close closes the engine and the store.
func (e *Engine) Close() error {
	e.Engine.Close()
	return e.store.Close()
}
