// Command sqlgw is a MySQL-wire SQL gateway over partitioned entity stores.
//
//	sqlgw serve [flags]
//
// Run "sqlgw --help" for the flags and environment variables.
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/sqlgw"
	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/aztables"
	"github.com/sqlgw/sqlgw/storage/pebble"
)

const usage = `sqlgw: a MySQL-wire SQL gateway over partitioned entity stores.

Every SQL table is stored as entities (PartitionKey, RowKey, typed
properties) in an embedded Pebble store or in Azure Table Storage, and every
query becomes the cheapest store requests that model allows.

Usage:
  sqlgw serve [flags]     start the server
  sqlgw copy --from STORE --to STORE
                          copy a whole deployment to another store
                          (e.g. pebble:./data to azure:...); see sqlgw copy --help
  sqlgw --help            this text

Flags of "serve" (each can also come from the environment variable shown;
a flag given on the command line wins):

  --listen ADDR        TCP address to listen on              [SQLGW_LISTEN]
                       default 127.0.0.1:3306
  --store STORE        where the data lives                   [SQLGW_STORE]
                         pebble:DIR   embedded store in directory DIR
                                      (created if missing; default pebble:./data)
                         memory:      throw-away in-memory store
                         azure:CONNECTION_STRING
                                      Azure Table Storage, Azurite or the
                                      Cosmos DB Table API, e.g.
                                      azure:DefaultEndpointsProtocol=https;AccountName=...;AccountKey=...
                                      (the account key is never logged)
                         azure:https://ACCOUNT.table.core.windows.net
                                      an endpoint alone: Microsoft Entra ID
                                      through the Azure SDK's default chain
                                      (environment, workload identity, managed
                                      identity, az login, azd; narrowed by
                                      AZURE_TOKEN_CREDENTIALS=prod|dev|<name>);
                                      errors name each credential that failed.
                                      A SAS may follow as the URL's query.
                                      Cosmos DB Table API endpoints
                                      (https://ACCOUNT.table.cosmos.azure.com)
                                      work the same way
  --attach-database DB the database listing the store's tables sqlgw did
                       not create (written by other applications), each
                       with columns inferred from its entities; "" attaches
                       nothing. Default azure; created only when there is
                       a table to attach                [SQLGW_ATTACH_DATABASE]
  --attach-scan N      entities read per table to infer its columns
                       default 1000                     [SQLGW_ATTACH_SCAN]
  --attach-tables T,U  attach only these store tables automatically
                       (REFRESH TABLE db.name attaches others) [SQLGW_ATTACH_TABLES]
  --user NAME          bootstrap administrator, created with every
                       privilege when the store has no accounts yet
                       (more with CREATE USER / GRANT)         [SQLGW_USER]
                       default root
  --password PASS      its password (later starts keep the stored one,
                       except that an administrator without a password
                       gets this one)                          [SQLGW_PASSWORD]
                       default empty, which is allowed only while listening
                       on a loopback address: a non-loopback --listen without
                       a password refuses to start.
  --shutdown-timeout D how long a shutdown waits for running statements
                       default 10s                            [SQLGW_SHUTDOWN_TIMEOUT]
  --tls-cert FILE      PEM certificate (chain) for TLS         [SQLGW_TLS_CERT]
  --tls-key FILE       its PEM private key                     [SQLGW_TLS_KEY]
                       with both, clients may use TLS (mysql --ssl, drivers'
                       sslMode/tls options), as MySQL's ssl_cert/ssl_key
  --require-secure-transport
                       refuse connections without TLS (error 3159), as
                       MySQL's require_secure_transport [SQLGW_REQUIRE_SECURE_TRANSPORT=1]
  --pebble-cache SIZE  block cache of the embedded store, e.g. 512MiB, 2GiB
                       or bytes; default a quarter of the memory available
                       (cgroup limit or RAM), between 64 MiB and 1 GiB
                                                        [SQLGW_PEBBLE_CACHE]
  --row-cache SIZE     row cache of the embedded store: the latest records of
                       recently read rows, which point reads consult before
                       Pebble (storage/pebble/rowcache.go), e.g. 64MiB;
                       0 disables it; default a quarter of the block
                       cache's default, between 16 MiB and 256 MiB
                                                        [SQLGW_ROW_CACHE]
  --debug-listen ADDR  serve Go's net/http/pprof profiles on
                       http://ADDR/debug/pprof/ (CPU, heap, allocations,
                       goroutines, execution trace); for profiling, default
                       off; it must be a loopback address unless
                       --debug-listen-any is given      [SQLGW_DEBUG_LISTEN]
  --max-connections N  connections open at once; more get error 1040
                       (MySQL's max_connections)   default 151 [SQLGW_MAX_CONNECTIONS]
  --connect-timeout D  a connection must log in within D, or it is closed
                       (MySQL's connect_timeout)   default 10s [SQLGW_CONNECT_TIMEOUT]
  --wait-timeout D     an idle logged-in connection is closed after D, with
                       error 4031 (MySQL's wait_timeout) default 8h [SQLGW_WAIT_TIMEOUT]
  --max-allowed-packet SIZE
                       the largest statement or packet, in bytes (suffix K,
                       M or G allowed); larger ones get error 1153 and the
                       connection is closed (MySQL's max_allowed_packet)
                       default 64M                [SQLGW_MAX_ALLOWED_PACKET]
  --metrics-listen ADDR
                       serve Prometheus metrics on http://ADDR/metrics
                       (store requests and latency by operation, table
                       reads by access path, connections, statements);
                       default off                       [SQLGW_METRICS_LISTEN]

Limits are also reported by SELECT @@max_connections, @@connect_timeout,
@@wait_timeout and @@max_allowed_packet; README.md ("Limits") explains them.

The server logs one line when it is ready:
  sqlgw ready: listening on 127.0.0.1:3306 store pebble:./data
SIGINT or SIGTERM shut it down cleanly: it stops accepting connections,
lets running statements finish (up to --shutdown-timeout), and closes the
store, so no acknowledged write is lost; the exit status is then 0. If the
server cannot go on accepting connections (an error other than a temporary
one such as running out of file descriptors, which it waits out), it shuts
down the same way and exits with status 1.

Connect with any MySQL client:
  mysql -h 127.0.0.1 -P 3306 -u root

Partition keys: the leading primary-key column is the partition key unless
the table says otherwise with a comment:
  CREATE TABLE t (tenant INT, id INT, v TEXT, PRIMARY KEY (tenant, id))
    COMMENT 'sqlgw: partition_key=(tenant)';
EXPLAIN PLAN SELECT ... shows the access path (PointGet, MultiGet, RowRange,
PartitionScan, PartitionRange, IndexLookup, IndexRange, TableScan, Empty)
and the store requests;
SHOW SESSION STATUS LIKE 'Sqlgw%' shows the requests your session sent.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	case "serve":
		if err := serve(args[1:], stdout, stderr); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return 0
			}
			fmt.Fprintf(stderr, "sqlgw: %v\n", err)
			return 1
		}
		return 0
	case "copy":
		if err := copyCmd(args[1:], stdout, stderr); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return 0
			}
			fmt.Fprintf(stderr, "sqlgw: %v\n", err)
			return 1
		}
		return 0
	}
	fmt.Fprintf(stderr, "sqlgw: unknown command %q\n\n%s", args[0], usage)
	return 2
}

// envBool reads a boolean environment variable (1/true/on/yes).
func envBool(name string) bool {
	switch strings.ToLower(os.Getenv(name)) {
	case "1", "true", "on", "yes":
		return true
	}
	return false
}

func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

func serve(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stdout, usage) }
	listen := fs.String("listen", env("SQLGW_LISTEN", "127.0.0.1:3306"), "")
	storeSpec := fs.String("store", env("SQLGW_STORE", "pebble:./data"), "")
	user := fs.String("user", env("SQLGW_USER", "root"), "")
	password := fs.String("password", env("SQLGW_PASSWORD", ""), "")
	timeout := fs.Duration("shutdown-timeout", 10*time.Second, "")
	tlsCert := fs.String("tls-cert", env("SQLGW_TLS_CERT", ""), "")
	tlsKey := fs.String("tls-key", env("SQLGW_TLS_KEY", ""), "")
	requireTLS := fs.Bool("require-secure-transport", envBool("SQLGW_REQUIRE_SECURE_TRANSPORT"), "")
	metricsListen := fs.String("metrics-listen", env("SQLGW_METRICS_LISTEN", ""), "")
	pebbleCache := fs.String("pebble-cache", env("SQLGW_PEBBLE_CACHE", ""), "")
	rowCache := fs.String("row-cache", env("SQLGW_ROW_CACHE", ""), "")
	debugListen := fs.String("debug-listen", env("SQLGW_DEBUG_LISTEN", ""), "")
	debugAny := fs.Bool("debug-listen-any", false, "")
	maxConns := fs.Int("max-connections", 0, "")
	connectTimeout := fs.Duration("connect-timeout", 0, "")
	waitTimeout := fs.Duration("wait-timeout", 0, "")
	var maxPacket sizeFlag
	fs.Var(&maxPacket, "max-allowed-packet", "")
	for name, set := range map[string]func(string) error{
		"SQLGW_MAX_CONNECTIONS":    func(v string) (err error) { *maxConns, err = strconv.Atoi(v); return },
		"SQLGW_CONNECT_TIMEOUT":    func(v string) (err error) { *connectTimeout, err = time.ParseDuration(v); return },
		"SQLGW_WAIT_TIMEOUT":       func(v string) (err error) { *waitTimeout, err = time.ParseDuration(v); return },
		"SQLGW_MAX_ALLOWED_PACKET": maxPacket.Set,
	} {
		if v, ok := os.LookupEnv(name); ok {
			if err := set(v); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
	}
	// Attached tables (sqlgw/engine/attached.go): the store's tables sqlgw did
	// not create, as SQL tables of one database.
	attachDB := fs.String("attach-database", env("SQLGW_ATTACH_DATABASE", "azure"), "")
	attachScan := fs.Int("attach-scan", catalog.DefaultAttachScan, "")
	attachTables := fs.String("attach-tables", env("SQLGW_ATTACH_TABLES", ""), "")
	if v, ok := os.LookupEnv("SQLGW_ATTACH_SCAN"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("SQLGW_ATTACH_SCAN: %q is not a positive number", v)
		}
		*attachScan = n
	}
	if v, ok := os.LookupEnv("SQLGW_SHUTDOWN_TIMEOUT"); ok {
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("SQLGW_SHUTDOWN_TIMEOUT: %w", err)
		}
		*timeout = d
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	defer startGCPacing()() // gctune.go

	var tlsConfig *tls.Config
	switch {
	case *tlsCert != "" && *tlsKey != "":
		cert, err := tls.LoadX509KeyPair(*tlsCert, *tlsKey)
		if err != nil {
			return fmt.Errorf("--tls-cert/--tls-key: %w", err)
		}
		tlsConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	case *tlsCert != "" || *tlsKey != "":
		return errors.New("--tls-cert and --tls-key go together")
	case *requireTLS:
		return errors.New("--require-secure-transport needs --tls-cert and --tls-key")
	}

	logger := slog.New(slog.NewTextHandler(stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	// Listen for metrics before opening the store, so a taken port fails
	// fast.
	var metricsLn net.Listener
	if *metricsListen != "" {
		var err error
		if metricsLn, err = net.Listen("tcp", *metricsListen); err != nil {
			return fmt.Errorf("--metrics-listen: %w", err)
		}
		defer metricsLn.Close()
	}

	// The store is this gateway's alone (OneUser: CREATE INDEX then waits
	// for this gateway's commits only, storage.Claimer).
	pebbleOpts := &pebble.Options{OneUser: true}
	if *pebbleCache != "" {
		n, err := parseSize(*pebbleCache)
		if err != nil {
			return fmt.Errorf("--pebble-cache: %w", err)
		}
		pebbleOpts.CacheSize = n
	}
	pebbleOpts.RowCacheSize = pebble.DefaultRowCacheSize()
	if v := strings.TrimSpace(*rowCache); v == "0" {
		pebbleOpts.RowCacheSize = 0
	} else if v != "" {
		n, err := parseSize(v)
		if err != nil {
			return fmt.Errorf("--row-cache: %w", err)
		}
		pebbleOpts.RowCacheSize = n
	}
	if *debugListen != "" {
		ln, err := listenDebug(*debugListen, *debugAny)
		if err != nil {
			return fmt.Errorf("--debug-listen: %w", err)
		}
		hs := &http.Server{Handler: pprofMux(), ReadHeaderTimeout: 10 * time.Second}
		go hs.Serve(ln)
		defer hs.Close()
		logger.Info("sqlgw: pprof on http://" + ln.Addr().String() + "/debug/pprof/")
	}

	store, name, err := openStore(ctx, *storeSpec, pebbleOpts)
	if err != nil {
		return err
	}
	srv, err := sqlgw.NewServer(ctx, sqlgw.Config{
		Listen:          *listen,
		Store:           store,
		StoreName:       name,
		User:            *user,
		Password:        *password,
		ShutdownTimeout: *timeout,
		Logger:          logger,

		TLSConfig:              tlsConfig,
		RequireSecureTransport: *requireTLS,

		MaxConnections:   *maxConns,
		ConnectTimeout:   *connectTimeout,
		WaitTimeout:      *waitTimeout,
		MaxAllowedPacket: int(maxPacket),
		Attach:           attachConfig(*attachDB, *attachScan, *attachTables),
	})
	if err != nil {
		return err
	}
	if metricsLn != nil {
		mux := http.NewServeMux()
		mux.Handle("/metrics", srv.Metrics().Handler())
		hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go hs.Serve(metricsLn)
		defer hs.Close()
		logger.Info("sqlgw: metrics on http://" + metricsLn.Addr().String() + "/metrics")
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve() }()
	select {
	case <-ctx.Done():
		logger.Info("sqlgw: shutting down")
	case err := <-errc:
		// Serve returns only after Close, so this is a failure: the
		// server no longer accepts connections. Shut down cleanly (no
		// acknowledged write is lost) and exit non-zero, so that a
		// restart-on-failure supervisor restarts it.
		if err == nil {
			err = errors.New("the server stopped accepting connections")
		}
		logger.Error("sqlgw: stopping after a fatal error", "error", err)
		srv.Close(context.Background())
		return err
	}
	if err := srv.Close(context.Background()); err != nil {
		return err
	}
	logger.Info("sqlgw: stopped")
	return nil
}

// sizeFlag is a byte size up to 1G, as parseSize reads it; 0 keeps the
// server's default.
type sizeFlag int

func (f *sizeFlag) String() string { return strconv.Itoa(int(*f)) }

func (f *sizeFlag) Set(v string) error {
	if strings.TrimSpace(v) == "0" {
		*f = 0
		return nil
	}
	n, err := parseSize(v)
	if err != nil {
		return err
	}
	if n > 1<<30 {
		return fmt.Errorf("size %q: at most 1G", v)
	}
	*f = sizeFlag(n)
	return nil
}

// attachConfig builds the attached-tables configuration from the flags.
func attachConfig(db string, scan int, tables string) sqlgw.AttachConfig {
	cfg := sqlgw.AttachConfig{Database: db, Scan: scan}
	for _, t := range strings.Split(tables, ",") {
		if t = strings.TrimSpace(t); t != "" {
			cfg.Tables = append(cfg.Tables, t)
		}
	}
	return cfg
}

// openStore opens the store named by spec and returns a description of it
// that is safe to log.
// pebbleOpts, if not nil, are the options of a pebble: store.
func openStore(ctx context.Context, spec string, pebbleOpts *pebble.Options) (storage.Store, string, error) {
	kind, arg, _ := strings.Cut(spec, ":")
	switch kind {
	case "pebble":
		if arg == "" {
			arg = "./data"
		}
		if err := os.MkdirAll(arg, 0o755); err != nil {
			return nil, "", err
		}
		s, err := pebble.Open(arg, pebbleOpts)
		if err != nil {
			return nil, "", fmt.Errorf("opening pebble store %s: %w", arg, err)
		}
		return s, "pebble:" + arg, nil
	case "memory":
		o := &pebble.Options{InMemory: true}
		if pebbleOpts != nil {
			o.OneUser, o.RowCacheSize = pebbleOpts.OneUser, pebbleOpts.RowCacheSize
		}
		s, err := pebble.Open("", o)
		if err != nil {
			return nil, "", err
		}
		return s, "memory:", nil
	case "azure":
		if arg == "" {
			return nil, "", errors.New("--store azure: needs a connection string (azure:DefaultEndpointsProtocol=...;AccountName=...;AccountKey=...) or an endpoint (azure:https://ACCOUNT.table.core.windows.net)")
		}
		s, err := aztables.Open(ctx, arg, nil)
		if err != nil {
			// Never echo the connection string: it holds the account key.
			return nil, "", fmt.Errorf("opening Azure Table store: %w", err)
		}
		return s, "azure:" + accountName(arg), nil
	}
	return nil, "", fmt.Errorf("--store %q: expected pebble:DIR, memory: or azure:CONNECTION_STRING", redactSpec(spec))
}

// accountName extracts a loggable description (account and endpoint, no
// key) from an Azure connection string.
func accountName(cs string) string {
	if l := strings.ToLower(cs); strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "http://") {
		// An endpoint (Microsoft Entra ID, or a SAS in the query).
		if u, err := url.Parse(cs); err == nil {
			return u.Scheme + "://" + u.Host
		}
		return "(endpoint)"
	}
	var out []string
	for _, p := range strings.Split(cs, ";") {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			continue
		}
		switch strings.ToLower(k) {
		case "accountname", "tableendpoint":
			out = append(out, k+"="+v)
		}
	}
	if len(out) == 0 {
		return "(connection string)"
	}
	return strings.Join(out, ";")
}

// redactSpec cuts a store spec at the first secret it may hold (an account
// key, a SAS or a SAS signature), so that it can be quoted in an error.
func redactSpec(spec string) string {
	lower := strings.ToLower(spec)
	cut := len(spec)
	for _, secret := range []string{"accountkey=", "sharedaccesssignature=", "sig="} {
		if i := strings.Index(lower, secret); i >= 0 && i < cut {
			cut = i
		}
	}
	if cut < len(spec) {
		return spec[:cut] + "***"
	}
	return spec
}
