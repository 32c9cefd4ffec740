package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage/aztables/azurite"
)

// TestMain stops the test binary's shared Azurite after the tests. When
// Azurite cannot be installed or started the Azure tests skip with the
// reason, except under CI=true, where they fail (see package azurite).
func TestMain(m *testing.M) {
	code := sqltest.Main(m)
	if built.path != "" {
		os.RemoveAll(filepath.Dir(built.path))
	}
	os.Exit(code)
}

// The sqlgw binary, built once per test binary by sqlgwBinary.
var built struct {
	once sync.Once
	path string
	err  error
	out  []byte
}

// sqlgwBinary builds this command with "go build" (once per test binary,
// into a temporary directory TestMain removes) and returns its path.
func sqlgwBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "sqlgw-bin-")
		if err != nil {
			built.err = err
			return
		}
		built.path = filepath.Join(dir, "sqlgw")
		cmd := exec.Command("go", "build", "-o", built.path, ".")
		built.out, built.err = cmd.CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("go build: %v\n%s", built.err, built.out)
	}
	return built.path
}

// startGateway runs the sqlgw binary (sqlgwBinary) as a "sqlgw serve"
// process through the harness (sqltest.StartProcess: a free loopback port,
// the ready line awaited, stopped by PID when t ends).
func startGateway(t *testing.T, env []string, args ...string) *sqltest.Process {
	t.Helper()
	return sqltest.StartProcess(t, sqlgwBinary(t), env, args...)
}

// The SQL side of these tests goes through the harness of sqlgw/sqltest
// (its Runner); only starting and stopping processes is this package's.

func retryable(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && (me.Number == 1213 || string(me.SQLState[:]) == "40001")
}

// waitFor polls check until it returns nil, for at most limit, and returns
// how long that took; it fails t with check's last error otherwise.
func waitFor(t *testing.T, what string, limit time.Duration, check func() error) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		err := check()
		if err == nil {
			return time.Since(start)
		}
		if time.Since(start) > limit {
			t.Fatalf("%s: not seen after %v: %v", what, limit, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// uniqueDB returns a database name not used before in the shared Azurite
// (tests may run more than once per test binary: -count).
func uniqueDB(prefix string) string {
	return fmt.Sprintf("%s%x", prefix, time.Now().UnixNano()&0xffffffffff)
}

// azureStore returns the --store value for the shared Azurite.
func azureStore(t *testing.T) string {
	t.Helper()
	if testing.Short() && !azurite.InCI() {
		t.Skip("skipping the Azurite gateway processes in -short mode (they run under CI=true)")
	}
	return "azure:" + azurite.Shared(t)
}

// twoGateways starts two gateway processes over the shared Azurite and
// returns a client pool on each.
func twoGateways(t *testing.T) (dbA, dbB *sql.DB) {
	t.Helper()
	store := azureStore(t)
	a := startGateway(t, nil, "--store", store)
	b := startGateway(t, nil, "--store", store)
	if !a.Ready() || !b.Ready() {
		t.Fatalf("gateways not ready:\nA: %s\nB: %s", a.Out.String(), b.Out.String())
	}
	return a.Client(t), b.Client(t)
}

// TestTwoGatewaysDDL: two gateway processes over one storage account see
// each other's DDL within the catalog cache's refresh interval (250 ms).
func TestTwoGatewaysDDL(t *testing.T) {
	dbA, dbB := twoGateways(t)
	const limit = 5 * time.Second
	d2 := uniqueDB("ddl")

	sqltest.NewRunner(t, dbA).Exec("CREATE DATABASE " + d2)
	sqltest.NewRunner(t, dbA).Exec("CREATE TABLE " + d2 + ".t (id INT PRIMARY KEY, v VARCHAR(20))")
	d := waitFor(t, "CREATE TABLE on A, INSERT on B", limit, func() error {
		_, err := dbB.Exec("INSERT INTO " + d2 + ".t VALUES (1, 'from B')")
		return err
	})
	t.Logf("CREATE TABLE on A visible on B after %v", d)
	var v string
	if err := dbB.QueryRow("SELECT v FROM " + d2 + ".t WHERE id = 1").Scan(&v); err != nil || v != "from B" {
		t.Fatalf("SELECT on B: %q, %v", v, err)
	}
	if err := dbA.QueryRow("SELECT v FROM " + d2 + ".t WHERE id = 1").Scan(&v); err != nil || v != "from B" {
		t.Fatalf("SELECT on A of B's row: %q, %v", v, err)
	}

	sqltest.NewRunner(t, dbB).Exec("ALTER TABLE " + d2 + ".t ADD COLUMN n INT")
	sqltest.NewRunner(t, dbB).Exec("UPDATE " + d2 + ".t SET n = 7 WHERE id = 1")
	d = waitFor(t, "ALTER TABLE on B, SELECT of the new column on A", limit, func() error {
		var n sql.NullInt64
		if err := dbA.QueryRow("SELECT n FROM " + d2 + ".t WHERE id = 1").Scan(&n); err != nil {
			return err
		}
		if !n.Valid || n.Int64 != 7 {
			return fmt.Errorf("n = %v", n)
		}
		return nil
	})
	t.Logf("ALTER TABLE on B visible on A after %v", d)

	sqltest.NewRunner(t, dbA).Exec("DROP TABLE " + d2 + ".t")
	// Until B's catalog cache refreshes, B may still plan against the
	// dropped table: it then answers from it until it reaches the store,
	// which says the table is gone, and fails with 1146 as MySQL would.
	// Any other error fails.
	d = waitFor(t, "DROP TABLE on A, SELECT on B fails with 1146", limit, func() error {
		var n int
		err := dbB.QueryRow("SELECT COUNT(*) FROM " + d2 + ".t").Scan(&n)
		switch {
		case err == nil:
			return fmt.Errorf("table still there on B (%d rows)", n)
		case sqltest.Errno(err) != 1146:
			t.Fatalf("SELECT on B after DROP: %v, want error 1146", err)
		}
		return nil
	})
	t.Logf("DROP TABLE on A visible on B after %v", d)
	// The name is free again through B, and A sees B's new table.
	sqltest.NewRunner(t, dbB).Exec("CREATE TABLE " + d2 + ".t (id INT PRIMARY KEY, w INT)")
	waitFor(t, "re-CREATE on B, INSERT of the new shape on A", limit, func() error {
		_, err := dbA.Exec("INSERT INTO " + d2 + ".t (id, w) VALUES (1, 2)")
		return err
	})
}

// TestTwoGatewaysIncrement races "UPDATE t SET n = n + 1" through two
// gateway processes over one account, 4 connections each, retrying on the
// errors a client retries (1213 deadlock / SQLSTATE 40001): the final n is
// the number of updates that succeeded.
func TestTwoGatewaysIncrement(t *testing.T) {
	dbA, dbB := twoGateways(t)
	inc2 := uniqueDB("inc")
	sqltest.NewRunner(t, dbA).Exec("CREATE DATABASE " + inc2)
	sqltest.NewRunner(t, dbA).Exec("CREATE TABLE " + inc2 + ".t (id INT PRIMARY KEY, n INT)")
	sqltest.NewRunner(t, dbA).Exec("INSERT INTO " + inc2 + ".t VALUES (1, 0)")
	waitFor(t, "table on B", 5*time.Second, func() error {
		var n int
		return dbB.QueryRow("SELECT n FROM " + inc2 + ".t WHERE id = 1").Scan(&n)
	})

	const conns, perConn = 4, 25
	var mu sync.Mutex
	succeeded, retries := 0, 0
	var wg sync.WaitGroup
	errc := make(chan error, 2*conns)
	start := time.Now()
	for _, db := range []*sql.DB{dbA, dbB} {
		db.SetMaxOpenConns(conns)
		for c := 0; c < conns; c++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				conn, err := db.Conn(context.Background())
				if err != nil {
					errc <- err
					return
				}
				defer conn.Close()
				for i := 0; i < perConn; i++ {
					for attempt := 0; ; attempt++ {
						res, err := conn.ExecContext(context.Background(), "UPDATE "+inc2+".t SET n = n + 1 WHERE id = 1")
						if err == nil {
							if n, _ := res.RowsAffected(); n != 1 {
								errc <- fmt.Errorf("update affected %d rows", n)
								return
							}
							mu.Lock()
							succeeded++
							mu.Unlock()
							break
						}
						if !retryable(err) || attempt == 200 {
							errc <- fmt.Errorf("update (attempt %d): %w", attempt, err)
							return
						}
						mu.Lock()
						retries++
						mu.Unlock()
						time.Sleep(time.Duration(attempt%8+1) * time.Millisecond)
					}
				}
			}()
		}
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
	var nA, nB int
	if err := dbA.QueryRow("SELECT n FROM " + inc2 + ".t WHERE id = 1").Scan(&nA); err != nil {
		t.Fatal(err)
	}
	if err := dbB.QueryRow("SELECT n FROM " + inc2 + ".t WHERE id = 1").Scan(&nB); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d updates succeeded, %d retried, in %v; n = %d (A), %d (B)", succeeded, retries, time.Since(start), nA, nB)
	if nA != succeeded || nB != succeeded {
		t.Fatalf("n = %d through A, %d through B; %d updates succeeded: lost updates", nA, nB, succeeded)
	}
	if succeeded != 2*conns*perConn {
		t.Fatalf("%d updates succeeded, want %d", succeeded, 2*conns*perConn)
	}
}

// sasConnString returns a TableEndpoint + SharedAccessSignature connection
// string for Azurite's account, and the SAS signature (the secret in it).
func sasConnString(t *testing.T, shared string) (cs, sig string) {
	t.Helper()
	i := strings.Index(shared, "TableEndpoint=")
	if i < 0 || !strings.Contains(shared, azurite.AccountKey) {
		t.Skip("skipping: the connection string is not Azurite's")
	}
	ep := strings.TrimSuffix(shared[i+len("TableEndpoint="):], ";")
	qp, sig := azurite.AccountSAS(t)
	return "TableEndpoint=" + ep + ";SharedAccessSignature=" + qp, sig
}

// secrets are the strings that must never appear in a gateway's output:
// the account key, its base64 body without padding and a distinctive part
// of it, and the SAS signature in its raw and URL-encoded forms.
func secrets(sig string) []string {
	key := azurite.AccountKey
	s := []string{key, strings.TrimRight(key, "="), key[10:40]}
	if sig != "" {
		s = append(s, sig, url.QueryEscape(sig), sig[5:25])
	}
	return s
}

func checkNoSecrets(t *testing.T, what, out string, sig string) {
	t.Helper()
	for _, s := range secrets(sig) {
		if strings.Contains(out, s) {
			t.Errorf("%s contains a secret (%.8s...):\n%s", what, s, out)
		}
	}
}

// TestServeAzureConnectionStrings: "sqlgw serve" runs on Azurite with a
// Shared Key connection string from SQLGW_STORE and with a SAS connection
// string from --store; neither the account key nor the SAS signature
// appears in its output, nor in the errors of a connection that fails
// (a closed port), nor in what a client sees.
func TestServeAzureConnectionStrings(t *testing.T) {
	shared := azureStore(t)
	shared = strings.TrimPrefix(shared, "azure:")
	sas, sig := sasConnString(t, shared)

	use := func(t *testing.T, g *sqltest.Process, db string) {
		t.Helper()
		c := g.Client(t)
		r := sqltest.NewRunner(t, c)
		r.Exec("CREATE DATABASE " + db)
		r.Exec("CREATE TABLE " + db + ".t (id INT PRIMARY KEY, v VARCHAR(10))")
		r.Exec("INSERT INTO " + db + ".t VALUES (1, 'a'), (2, 'b')")
		var n int
		if err := c.QueryRow("SELECT COUNT(*) FROM " + db + ".t WHERE id >= 1").Scan(&n); err != nil || n != 2 {
			t.Fatalf("count %d, %v", n, err)
		}
	}

	t.Run("sharedkey-env", func(t *testing.T) {
		g := startGateway(t, []string{"SQLGW_STORE=azure:" + shared})
		g.MustBeReady(t, "not ready")
		if !strings.Contains(g.Out.String(), "store azure:AccountName="+azurite.AccountName) {
			t.Errorf("ready line does not name the account: %s", g.Out.String())
		}
		use(t, g, uniqueDB("cskey"))
		g.Stop(t)
		checkNoSecrets(t, "output", g.Out.String(), "")
	})
	t.Run("sas-flag", func(t *testing.T) {
		g := startGateway(t, nil, "--store", "azure:"+sas)
		g.MustBeReady(t, "not ready")
		use(t, g, uniqueDB("cssas"))
		g.Stop(t)
		checkNoSecrets(t, "output", g.Out.String(), sig)
	})

	// A closed port: the gateway either refuses to start or starts and
	// fails every statement; either way nothing it prints or answers
	// holds a secret.
	closed := "http://" + sqltest.FreePort(t) + "/" + azurite.AccountName
	for _, tc := range []struct{ name, cs, sig string }{
		{"sharedkey-closed-port", azurite.ConnectionString(closed), ""},
		{"sas-closed-port", "TableEndpoint=" + closed + ";SharedAccessSignature=" + sas[strings.Index(sas, "SharedAccessSignature=")+len("SharedAccessSignature="):], sig},
		{"sharedkey-malformed", strings.Replace(azurite.ConnectionString(closed), "TableEndpoint=http://", "TableEndpoint=ftp://", 1), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := startGateway(t, []string{"SQLGW_STORE=azure:" + tc.cs})
			var clientErr string
			if g.Ready() {
				c := g.Client(t)
				_, err := c.Exec("CREATE DATABASE nowhere")
				if err == nil {
					t.Fatalf("CREATE DATABASE on a closed port succeeded")
				}
				clientErr = err.Error()
				g.Stop(t)
			} else {
				<-g.Done()
				if g.Cmd.ProcessState.ExitCode() == 0 {
					t.Errorf("gateway exited 0 on an unreachable store: %s", g.Out.String())
				}
			}
			out := g.Out.String()
			t.Logf("output: %s", strings.TrimSpace(out))
			if clientErr != "" {
				t.Logf("client error: %s", clientErr)
			}
			if strings.TrimSpace(out) == "" {
				t.Errorf("no output explaining the failure")
			}
			checkNoSecrets(t, "output", out, tc.sig)
			checkNoSecrets(t, "client error", clientErr, tc.sig)
		})
	}
}

// TestRedactSpec: a mistyped store kind is quoted in the error up to its
// first secret.
func TestRedactSpec(t *testing.T) {
	for _, spec := range []string{
		"azur:DefaultEndpointsProtocol=http;AccountName=a;AccountKey=secret;TableEndpoint=http://x",
		"azur:TableEndpoint=http://x;SharedAccessSignature=sv=2020&sig=secret",
		"azur:TableEndpoint=http://x?sv=2020&SIG=secret",
	} {
		var out, errb bytes.Buffer
		code := run([]string{"serve", "--store", spec, "--listen", "127.0.0.1:0"}, &out, &errb)
		if code == 0 || strings.Contains(errb.String(), "secret") || !strings.Contains(errb.String(), "azur:") {
			t.Errorf("exit %d, stderr %q: want an error quoting the spec without its secret", code, errb.String())
		}
	}
}

// TestLargeValuesAzure: a 3 MiB LONGBLOB and a 1 MiB LONGTEXT of non-ASCII
// characters go through a gateway on Azurite and come back whole: the
// catalog splits rows by storage.EntitySize, which measures what Azurite
// checks (the JSON body: base64, \uXXXX escapes), so no entity is refused
// as EntityTooLarge.
func TestLargeValuesAzure(t *testing.T) {
	g := startGateway(t, nil, "--store", azureStore(t))
	g.MustBeReady(t, "not ready")
	db := g.Client(t)
	rdb := sqltest.NewRunner(t, db)
	big := uniqueDB("big")
	rdb.Exec("CREATE DATABASE " + big)
	rdb.Exec("CREATE TABLE " + big + ".blobs (id INT PRIMARY KEY, body LONGTEXT, bin LONGBLOB)")
	bin := []byte(strings.Repeat("\x00\x01\xfe\xff", 3<<20/4))
	text := strings.Repeat("\u4e2d<\U0001F600", 1<<20/8)
	rdb.Exec("INSERT INTO "+big+".blobs VALUES (3, ?, ?)", text, bin)
	var gotBin []byte
	var gotText string
	if err := db.QueryRow("SELECT body, bin FROM "+big+".blobs WHERE id = 3").Scan(&gotText, &gotBin); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(gotBin, bin) || gotText != text {
		t.Fatalf("read back %d bytes of binary and %d of text, want %d and %d", len(gotBin), len(gotText), len(bin), len(text))
	}
	// A row of one entity near the limit can be updated in place.
	rdb.Exec("INSERT INTO "+big+".blobs VALUES (4, NULL, ?)", bin[:700<<10])
	rdb.Exec("UPDATE " + big + ".blobs SET body = 'x' WHERE id = 4")
	rdb.Exec("DELETE FROM " + big + ".blobs WHERE id = 3")
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM " + big + ".blobs").Scan(&n); err != nil || n != 1 {
		t.Fatalf("after delete: %d rows, %v", n, err)
	}
}
