package sqlgw_test

import (
	"context"
	"crypto/sha1"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/sqlgw"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage"
)

// startAccountsServer starts a server with cfg adjusted by adjust; the
// test server's pool logs in as root with rootPassword.
func startAccountsServer(t *testing.T, store storage.Store, co catalog.Options, rootPassword string, adjust func(*sqlgw.Config)) (*sqltest.Server, *sqltest.SyncBuffer) {
	t.Helper()
	logs := &sqltest.SyncBuffer{}
	cfg := sqlgw.Config{Listen: "127.0.0.1:0", Catalog: co, Store: store,
		Logger: slog.New(slog.NewTextHandler(logs, nil)), AccountsRefresh: 50 * time.Millisecond}
	if adjust != nil {
		adjust(&cfg)
	}
	srv, err := sqlgw.NewServer(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return sqltest.Serve(t, srv, rootPassword), logs
}

// as opens a one-connection pool logging in as user.
func as(t *testing.T, ts *sqltest.Server, user, password, db string) *sql.DB {
	t.Helper()
	d, err := sql.Open("mysql", fmt.Sprintf("%s:%s@tcp(%s)/%s", user, password, ts.Srv.Addr(), db))
	if err != nil {
		t.Fatal(err)
	}
	d.SetMaxOpenConns(1)
	t.Cleanup(func() { d.Close() })
	return d
}

// expectDenied runs q and wants MySQL's error code and exact message.
func expectDenied(t *testing.T, db sqltest.Execer, code uint16, msg, q string) {
	t.Helper()
	_, err := db.ExecContext(context.Background(), q)
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != code || me.Message != msg {
		t.Fatalf("%s: %v, want %d %q", q, err, code, msg)
	}
}

// expectLogin fails t unless a login (loginError's arguments) fails with
// MySQL error want, or succeeds when want is 0; what names the attempt.
func expectLogin(t *testing.T, want uint16, what, user, password, addr, db string) {
	t.Helper()
	err := loginError(user, password, addr, db)
	if want == 0 && err != nil || want != 0 && sqltest.Errno(err) != want {
		t.Fatalf("%s: %v, want %d", what, err, want)
	}
}

// loginError is the error of a login (Ping), or nil.
func loginError(user, password, addr, db string) error {
	d, err := sql.Open("mysql", fmt.Sprintf("%s:%s@tcp(%s)/%s", user, password, addr, db))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Ping()
}

// TestAccountsReadOnly: a read-only account made with CREATE USER and
// GRANT SELECT sees and reads only its database, cannot write or manage
// accounts, and gets MySQL's error codes and texts; SHOW GRANTS, SET
// PASSWORD, REVOKE (on an open session) and DROP USER work as in MySQL.
func TestAccountsReadOnly(t *testing.T) {
	store, co := sqltest.Memory.Open(t)
	ts, _ := startAccountsServer(t, store, co, "", nil)
	root := ts.Conn()
	sqltest.NewRunner(t, root).Script(`
		exec CREATE DATABASE app
		exec CREATE DATABASE secret
		exec CREATE TABLE app.t (id INT PRIMARY KEY, v INT)
		exec INSERT INTO app.t VALUES (1, 10)
		exec CREATE TABLE secret.s (id INT PRIMARY KEY)
		exec CREATE USER 'bi'@'%' IDENTIFIED BY 'bi-pw'
		exec GRANT SELECT ON app.* TO 'bi'@'%'
		query SHOW GRANTS FOR 'bi'@'%'
		= GRANT USAGE ON *.* TO ` + "`bi`@`%`" + `
		= GRANT SELECT ON ` + "`app`.* TO `bi`@`%`" + `
		query SELECT host, db, user, select_priv, insert_priv FROM mysql.db WHERE user = 'bi'
		= % | app | bi | Y | N
	`)
	sqltest.NewRunner(t, root).ExpectRows("SELECT user, host, plugin, authentication_string FROM mysql.user WHERE user = 'bi'",
		"bi\t%\tmysql_native_password\t*"+nativeHashHex("bi-pw"))

	bi := as(t, ts, "bi", "bi-pw", "")
	sqltest.NewRunner(t, bi).Script(`
		query SELECT id, v FROM app.t
		= 1 | 10
		query SELECT CURRENT_USER()
		= bi@%
		query SHOW DATABASES
		= app
		= information_schema
		= mysql
		query SELECT schema_name FROM information_schema.schemata ORDER BY 1
		= app
		= information_schema
		query SELECT table_name FROM information_schema.tables WHERE table_schema IN ('app', 'secret')
		= t
		query SELECT table_name, column_name FROM information_schema.columns WHERE table_schema IN ('app', 'secret') ORDER BY 1, 2
		= t | id
		= t | v
		query SHOW TABLES FROM app
		= t
		query SHOW GRANTS
		= GRANT USAGE ON *.* TO ` + "`bi`@`%`" + `
		= GRANT SELECT ON ` + "`app`.* TO `bi`@`%`" + `

		error 1142 INSERT INTO app.t VALUES (2, 20)
		! INSERT command denied to user 'bi'@'localhost' for table 't'
		error 1142 UPDATE app.t SET v = 11
		! UPDATE command denied to user 'bi'@'localhost' for table 't'
		error 1142 DELETE FROM app.t
		! DELETE command denied to user 'bi'@'localhost' for table 't'
		error 1142 DROP TABLE app.t
		! DROP command denied to user 'bi'@'localhost' for table 't'
		error 1142 ALTER TABLE app.t ADD COLUMN w INT
		! ALTER command denied to user 'bi'@'localhost' for table 't'
		error 1142 CREATE TABLE app.x (id INT PRIMARY KEY)
		! CREATE command denied to user 'bi'@'localhost' for table 'x'
		error 1142 CREATE VIEW app.v AS SELECT 1
		! CREATE VIEW command denied to user 'bi'@'localhost' for table 'v'
		error 1142 SELECT * FROM secret.s
		! SELECT command denied to user 'bi'@'localhost' for table 's'
		error 1044 USE secret
		! Access denied for user 'bi'@'localhost' to database 'secret'
		error 1044 SHOW TABLES FROM secret
		! Access denied for user 'bi'@'localhost' to database 'secret'
		error 1142 SELECT * FROM mysql.user
		! SELECT command denied to user 'bi'@'localhost' for table 'user'
		error 1044 CREATE DATABASE z
		! Access denied for user 'bi'@'localhost' to database 'z'
		error 1044 DROP DATABASE app
		! Access denied for user 'bi'@'localhost' to database 'app'
		error 1227 CREATE USER x
		! Access denied; you need (at least one of) the CREATE USER privilege(s) for this operation
		error 1227 GRANT SELECT ON *.* TO 'bi'@'%'
		! Access denied; you need (at least one of) the GRANT OPTION privilege(s) for this operation
		error 1044 GRANT INSERT ON app.* TO 'bi'@'%'
		! Access denied for user 'bi'@'localhost' to database 'app'
		error 1227 SET GLOBAL max_connections = 10
		! Access denied; you need (at least one of) the SUPER or SYSTEM_VARIABLES_ADMIN privilege(s) for this operation
	`)
	const who = "'bi'@'localhost'"
	// KILL: one's own connection without SUPER, another account's not.
	var own, rootID string
	bi.QueryRow("SELECT CONNECTION_ID()").Scan(&own)
	root.QueryRowContext(context.Background(), "SELECT CONNECTION_ID()").Scan(&rootID)
	bi3 := as(t, ts, "bi", "bi-pw", "")
	sqltest.NewRunner(t, bi3).Exec("KILL QUERY " + own)
	expectDenied(t, bi3, 1095, "You are not owner of thread "+rootID, "KILL QUERY "+rootID)
	sqltest.NewRunner(t, root).ExpectRows("SELECT id, v FROM app.t", "1\t10")
	expectDenied(t, root, 1235, "This version of MySQL doesn't yet support 'column privileges'", "GRANT SELECT (id) ON app.t TO 'bi'@'%'")
	// A failed CREATE USER creates nothing (not even the accounts before
	// the one that exists).
	sqltest.NewRunner(t, root).ExpectErrno(1396, "CREATE USER 'new1'@'%', 'bi'@'%'")
	sqltest.NewRunner(t, root).ExpectRows("SELECT COUNT(*) FROM mysql.user WHERE user = 'new1'", "0")

	addr := ts.Srv.Addr().String()
	expectLogin(t, 1044, "login into secret", "bi", "bi-pw", addr, "secret")
	if err := loginError("bi", "wrong", addr, ""); sqltest.Errno(err) != 1045 || !strings.Contains(err.Error(), "Access denied for user 'bi'@'localhost' (using password: YES)") {
		t.Fatalf("wrong password: %v, want 1045", err)
	}
	if err := loginError("nobody", "", addr, ""); sqltest.Errno(err) != 1045 || !strings.Contains(err.Error(), "Access denied for user 'nobody'@'localhost' (using password: NO)") {
		t.Fatalf("unknown user: %v, want 1045", err)
	}

	// SET PASSWORD for oneself; the old password stops working.
	sqltest.NewRunner(t, bi).Exec("SET PASSWORD = 'bi-pw2'")
	expectLogin(t, 1045, "old password after SET PASSWORD", "bi", "bi-pw", addr, "")
	bi2 := as(t, ts, "bi", "bi-pw2", "app")
	sqltest.NewRunner(t, bi2).ExpectRows("SELECT COUNT(*) FROM t", "1")
	sqltest.NewRunner(t, root).Exec("SET PASSWORD FOR 'bi'@'%' = 'bi-pw3'")
	expectLogin(t, 0, "SET PASSWORD FOR", "bi", "bi-pw3", addr, "")

	// ACCOUNT LOCK / UNLOCK.
	sqltest.NewRunner(t, root).Exec("ALTER USER 'bi'@'%' ACCOUNT LOCK")
	expectLogin(t, 1045, "locked account", "bi", "bi-pw3", addr, "")
	sqltest.NewRunner(t, root).Exec("ALTER USER 'bi'@'%' ACCOUNT UNLOCK")
	expectLogin(t, 0, "unlocked account", "bi", "bi-pw3", addr, "")
	expectDenied(t, bi2, 1227, "Access denied; you need (at least one of) the CREATE USER privilege(s) for this operation", "ALTER USER 'bi'@'%' ACCOUNT LOCK")

	// A database-level grant is not a global one: GRANT ALL ON app.*
	// allows DDL in app, not CREATE DATABASE (while app is current).
	sqltest.NewRunner(t, root).Exec("CREATE USER dev IDENTIFIED BY 'dev-pw'")
	sqltest.NewRunner(t, root).Exec("GRANT ALL ON app.* TO dev")
	dev := as(t, ts, "dev", "dev-pw", "app")
	sqltest.NewRunner(t, dev).Exec("CREATE TABLE t9 (id INT PRIMARY KEY)")
	sqltest.NewRunner(t, dev).Exec("DROP TABLE t9")
	expectDenied(t, dev, 1044, "Access denied for user 'dev'@'localhost' to database 'other'", "CREATE DATABASE other")
	expectDenied(t, dev, 1044, "Access denied for user 'dev'@'localhost' to database 'secret'", "DROP DATABASE secret")

	// WITH GRANT OPTION lets the grantee pass its privileges on.
	sqltest.NewRunner(t, root).Exec("CREATE USER teamlead IDENTIFIED BY 'lead-pw'")
	sqltest.NewRunner(t, root).Exec("GRANT SELECT ON app.* TO teamlead WITH GRANT OPTION")
	sqltest.NewRunner(t, as(t, ts, "teamlead", "lead-pw", "")).Exec("GRANT SELECT ON app.* TO 'bi'@'%'")
	expectDenied(t, root, 1410, "You are not allowed to create a user with GRANT", "GRANT SELECT ON app.* TO nosuchuser")
	expectDenied(t, root, 1235, "This version of MySQL doesn't yet support 'RENAME USER'", "RENAME USER teamlead TO boss")

	// REVOKE reaches the open session; DROP USER ends new logins.
	sqltest.NewRunner(t, root).Exec("REVOKE SELECT ON app.* FROM 'bi'@'%'")
	expectDenied(t, bi2, 1142, "SELECT command denied to user "+who+" for table 't'", "SELECT v FROM app.t")
	sqltest.NewRunner(t, root).Exec("DROP USER 'bi'@'%'")
	expectLogin(t, 1045, "login after DROP USER", "bi", "bi-pw3", addr, "")
}

// TestAccountsCachingSha2: an account IDENTIFIED WITH
// caching_sha2_password logs in over plain TCP (the Go driver fetches the
// gateway's RSA key for the full authentication, then uses the fast path)
// and is refused with a wrong password; roles carry privileges.
func TestAccountsCachingSha2(t *testing.T) {
	store, co := sqltest.Memory.Open(t)
	ts, _ := startAccountsServer(t, store, co, "", nil)
	for _, q := range []string{"CREATE DATABASE app", "CREATE TABLE app.t (id INT PRIMARY KEY)", "INSERT INTO app.t VALUES (1)",
		"CREATE USER 'sha'@'%' IDENTIFIED WITH caching_sha2_password BY 'sha-pw'",
		"CREATE ROLE reader", "GRANT SELECT ON app.* TO reader", "GRANT reader TO 'sha'@'%'"} {
		sqltest.NewRunner(t, ts.DB).Exec(q)
	}
	sqltest.NewRunner(t, ts.DB).ExpectRows("SELECT plugin, authentication_string LIKE '$A$005$%' FROM mysql.user WHERE user = 'sha'", "caching_sha2_password\t1")
	for i := 0; i < 2; i++ { // full authentication, then the cached fast path
		d := as(t, ts, "sha", "sha-pw", "")
		sqltest.NewRunner(t, d).ExpectRows("SELECT CURRENT_USER()", "sha@%")
		sqltest.NewRunner(t, d).ExpectRows("SELECT COUNT(*) FROM app.t", "1")
		d.Close()
	}
	expectLogin(t, 1045, "wrong password", "sha", "nope", ts.Srv.Addr().String(), "")
	sqltest.NewRunner(t, ts.DB).Exec("ALTER USER 'sha'@'%' IDENTIFIED WITH caching_sha2_password BY 'sha-new'")
	expectLogin(t, 1045, "old password after ALTER USER (cached fast path must be dropped)", "sha", "sha-pw", ts.Srv.Addr().String(), "")
	if err := loginError("sha", "sha-new", ts.Srv.Addr().String(), ""); err != nil {
		t.Fatal(err)
	}
}

func nativeHashHex(pw string) string {
	h1 := sha1Sum([]byte(pw))
	h2 := sha1Sum(h1)
	return strings.ToUpper(fmt.Sprintf("%x", h2))
}

// TestAccountsRestart: accounts and grants survive a restart; the
// bootstrap flags only create the administrator on first start (a
// password given later secures an administrator that has none, and never
// replaces one).
func TestAccountsRestart(t *testing.T) {
	dir := t.TempDir()
	ts, _ := startAccountsServer(t, sqltest.OpenDisk(t, dir), catalog.Options{}, "", nil)
	for _, q := range []string{"CREATE DATABASE app", "CREATE TABLE app.t (id INT PRIMARY KEY)", "INSERT INTO app.t VALUES (1)",
		"CREATE USER ro IDENTIFIED BY 'ro-pw'", "GRANT SELECT ON app.t TO ro"} {
		sqltest.NewRunner(t, ts.DB).Exec(q)
	}
	ts.Stop()

	ts, _ = startAccountsServer(t, sqltest.OpenDisk(t, dir), catalog.Options{}, "admin-pw", func(c *sqlgw.Config) { c.Password = "admin-pw" })
	sqltest.NewRunner(t, as(t, ts, "ro", "ro-pw", "")).ExpectRows("SELECT id FROM app.t", "1")
	expectDenied(t, as(t, ts, "ro", "ro-pw", ""), 1142, "INSERT command denied to user 'ro'@'localhost' for table 't'", "INSERT INTO app.t VALUES (2)")
	expectLogin(t, 1045, "root without password after --password secured it", "root", "", ts.Srv.Addr().String(), "")
	sqltest.NewRunner(t, ts.DB).Exec("SELECT 1")
	ts.Stop()

	ts, _ = startAccountsServer(t, sqltest.OpenDisk(t, dir), catalog.Options{}, "admin-pw", func(c *sqlgw.Config) { c.Password = "other" })
	expectLogin(t, 1045, "a later --password replaced the stored one", "root", "other", ts.Srv.Addr().String(), "")
	sqltest.NewRunner(t, ts.DB).ExpectRows("SHOW GRANTS FOR ro", "GRANT USAGE ON *.* TO `ro`@`%`", "GRANT SELECT ON `app`.`t` TO `ro`@`%`")
}

// TestAccountsTwoGateways: grants made through gateway A are enforced by
// gateway B on the same store (Azurite: the same Azure account) within the
// refresh delay, account changes made concurrently through both are all
// kept (conditional writes, no lost update), and a gateway started after
// both stopped enforces the same.
func TestAccountsTwoGateways(t *testing.T) {
	sqltest.ForEachSharedStore(t, func(t *testing.T, store storage.Store, co catalog.Options) {
		a, _ := startAccountsServer(t, store, co, "", nil)
		gb, _ := startAccountsServer(t, store, co, "", nil)
		for _, q := range []string{"CREATE DATABASE app", "CREATE DATABASE secret", "CREATE TABLE app.t (id INT PRIMARY KEY)",
			"INSERT INTO app.t VALUES (1)", "CREATE TABLE secret.s (id INT PRIMARY KEY)",
			"CREATE USER 'bi'@'%' IDENTIFIED BY 'bi-pw'", "GRANT SELECT ON app.* TO 'bi'@'%'"} {
			sqltest.NewRunner(t, a.DB).Exec(q)
		}
		addrB := gb.Srv.Addr().String()
		waitFor(t, "B sees the new account", func() bool { return loginError("bi", "bi-pw", addrB, "") == nil })
		bi := as(t, gb, "bi", "bi-pw", "")
		waitFor(t, "B sees the new database (catalog refresh)", func() bool {
			_, err := bi.Exec("SELECT id FROM app.t")
			return err == nil
		})
		sqltest.NewRunner(t, bi).ExpectRows("SELECT id FROM app.t", "1")
		sqltest.NewRunner(t, bi).ExpectRows("SHOW DATABASES", "app", "information_schema", "mysql")
		expectDenied(t, bi, 1142, "INSERT command denied to user 'bi'@'localhost' for table 't'", "INSERT INTO app.t VALUES (2)")
		expectDenied(t, bi, 1044, "Access denied for user 'bi'@'localhost' to database 'secret'", "USE secret")

		sqltest.NewRunner(t, a.DB).Exec("GRANT INSERT ON app.t TO 'bi'@'%'")
		waitFor(t, "B enforces the GRANT", func() bool {
			_, err := bi.Exec("INSERT INTO app.t VALUES (2)")
			return err == nil
		})
		sqltest.NewRunner(t, a.DB).Exec("REVOKE ALL PRIVILEGES, GRANT OPTION FROM 'bi'@'%'") // every level, as MySQL
		waitFor(t, "B enforces the REVOKE", func() bool {
			_, err := bi.Exec("SELECT id FROM app.t")
			return sqltest.Errno(err) == 1142
		})

		// Concurrent changes through both gateways: none lost.
		var wg sync.WaitGroup
		for g, ts := range []*sqltest.Server{a, gb} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 5; i++ {
					if _, err := ts.DB.Exec(fmt.Sprintf("CREATE USER u%d_%d", g, i)); err != nil {
						t.Errorf("gateway %d: %v", g, err)
					}
				}
			}()
		}
		wg.Wait()
		for _, ts := range []*sqltest.Server{a, gb} {
			waitFor(t, "all 10 users on both gateways", func() bool {
				r := sqltest.NewRunner(t, ts.DB).Rows("SELECT COUNT(*) FROM mysql.user WHERE user LIKE 'u%\\_%'")
				return len(r) == 1 && r[0] == "10"
			})
		}

		// Restart: every gateway stopped, a new one loads the same
		// accounts and grants from the store.
		sqltest.NewRunner(t, a.DB).Exec("GRANT SELECT ON app.* TO 'bi'@'%'")
		a.Stop()
		gb.Stop()
		gc, _ := startAccountsServer(t, store, co, "", nil)
		bc := as(t, gc, "bi", "bi-pw", "")
		sqltest.NewRunner(t, bc).ExpectRows("SELECT id FROM app.t ORDER BY id", "1", "2")
		expectDenied(t, bc, 1142, "INSERT command denied to user 'bi'@'localhost' for table 't'", "INSERT INTO app.t VALUES (3)")
		sqltest.NewRunner(t, gc.DB).ExpectRows("SELECT COUNT(*) FROM mysql.user WHERE user LIKE 'u%\\_%'", "10")
	})
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestLoginBruteForce: a loop of wrong passwords from one address is
// slowed down (connection_control's policy, here with 100 ms steps), each
// failure is logged with user and address, and no password ever appears
// in the log.
func TestLoginBruteForce(t *testing.T) {
	store, co := sqltest.Memory.Open(t)
	ts, logs := startAccountsServer(t, store, co, "", func(c *sqlgw.Config) {
		c.LoginDelay = sqlgw.LoginDelay{Threshold: 3, Step: 100 * time.Millisecond, Max: time.Second}
	})
	sqltest.NewRunner(t, ts.DB).Exec("CREATE USER app IDENTIFIED BY 'Sup3r-S3cret-pw'")
	sqltest.NewRunner(t, ts.DB).Exec("ALTER USER app IDENTIFIED BY 'An0ther-S3cret'")
	addr := ts.Srv.Addr().String()
	var took []time.Duration
	start := time.Now()
	for i := 0; i < 8; i++ {
		t0 := time.Now()
		if err := loginError("app", fmt.Sprintf("guess-%d-pw", i), addr, ""); sqltest.Errno(err) != 1045 {
			t.Fatalf("attempt %d: %v", i, err)
		}
		took = append(took, time.Since(t0))
	}
	total := time.Since(start)
	// Attempts 1-3 are not delayed; attempt 4 waits 100 ms, 5 200 ms, ...
	// 8 500 ms: at least 1.5 s in all.
	for i := 0; i < 3; i++ {
		if took[i] > 90*time.Millisecond {
			t.Errorf("attempt %d took %v before the threshold", i+1, took[i])
		}
	}
	if took[7] < 500*time.Millisecond || total < 1500*time.Millisecond {
		t.Errorf("brute force not slowed down: attempts took %v, %v in all", took, total)
	}
	// The right password still gets in (after the delay) and resets.
	if err := loginError("app", "An0ther-S3cret", addr, ""); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	if err := loginError("app", "wrong-again", addr, ""); sqltest.Errno(err) != 1045 || time.Since(t0) > 90*time.Millisecond {
		t.Fatalf("after a success the count restarts: %v in %v", err, time.Since(t0))
	}
	out := logs.String()
	if n := strings.Count(out, "access denied"); n != 9 {
		t.Errorf("%d failed logins logged, want 9:\n%s", n, out)
	}
	if !strings.Contains(out, "user=app") || !strings.Contains(out, "address=127.0.0.1:") {
		t.Errorf("failures logged without user and address:\n%s", out)
	}
	for _, pw := range []string{"Sup3r-S3cret-pw", "An0ther-S3cret", "guess-", "wrong-again"} {
		if strings.Contains(out, pw) {
			t.Errorf("password %q in the log:\n%s", pw, out)
		}
	}
}

// TestAccountsClients: a read-only account through the mariadb CLI,
// PyMySQL and Connector/J (when installed), with mysql_native_password and
// caching_sha2_password, cannot write or see ungranted databases.
func TestAccountsClients(t *testing.T) {
	store, co := sqltest.Memory.Open(t)
	ts, _ := startAccountsServer(t, store, co, "", nil)
	for _, q := range []string{"CREATE DATABASE app", "CREATE DATABASE secret", "CREATE TABLE app.t (id INT PRIMARY KEY)",
		"INSERT INTO app.t VALUES (1)", "CREATE USER 'bi'@'%' IDENTIFIED BY 'bi-pw'", "GRANT SELECT ON app.* TO 'bi'@'%'",
		"CREATE USER 'bi2'@'%' IDENTIFIED WITH caching_sha2_password BY 'bi2-pw'", "GRANT SELECT ON app.* TO 'bi2'@'%'"} {
		sqltest.NewRunner(t, ts.DB).Exec(q)
	}
	host, port, _ := strings.Cut(ts.Srv.Addr().String(), ":")
	t.Run("mariadb", func(t *testing.T) {
		cli, err := exec.LookPath("mariadb")
		if err != nil {
			t.Skip("no mariadb client")
		}
		for _, user := range []string{"bi", "bi2"} {
			run := func(q string) (string, error) {
				out, err := exec.Command(cli, "--protocol=tcp", "-h", host, "-P", port, "-u", user, "-p"+user+"-pw",
					"--batch", "--skip-column-names", "-e", q).CombinedOutput()
				return strings.TrimSpace(string(out)), err
			}
			if out, err := run("SELECT id FROM app.t; SHOW DATABASES"); err != nil || out != "1\napp\ninformation_schema\nmysql" {
				t.Fatalf("%s: %q %v", user, out, err)
			}
			if out, _ := run("INSERT INTO app.t VALUES (2)"); !strings.Contains(out, "ERROR 1142 (42000)") {
				t.Fatalf("%s insert: %q", user, out)
			}
			if out, _ := run("USE secret"); !strings.Contains(out, "ERROR 1044 (42000)") {
				t.Fatalf("%s use: %q", user, out)
			}
		}
		// The statements sqlgw runs itself, sent by the CLI (with
		// multi-statements on): SET PASSWORD, ACCOUNT LOCK, REVOKE ALL.
		root := func(q string) {
			if out, err := exec.Command(cli, "--protocol=tcp", "-h", host, "-P", port, "-u", "root", "-e", q).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v %s", q, err, out)
			}
		}
		login := func(pw string) error {
			return exec.Command(cli, "--protocol=tcp", "-h", host, "-P", port, "-u", "bi", "-p"+pw, "-e", "SELECT 1").Run()
		}
		if out, err := exec.Command(cli, "--protocol=tcp", "-h", host, "-P", port, "-u", "bi", "-pbi-pw", "-e", "SET PASSWORD = 'bi-new'").CombinedOutput(); err != nil {
			t.Fatalf("SET PASSWORD: %v %s", err, out)
		}
		if login("bi-pw") == nil || login("bi-new") != nil {
			t.Fatal("SET PASSWORD through the CLI did not change the password")
		}
		root("ALTER USER 'bi'@'%' ACCOUNT LOCK")
		if login("bi-new") == nil {
			t.Fatal("locked account logged in")
		}
		root("ALTER USER 'bi'@'%' ACCOUNT UNLOCK")
		root("GRANT INSERT ON app.t TO 'bi'@'%'")
		root("REVOKE ALL PRIVILEGES, GRANT OPTION FROM 'bi'@'%'")
		if out, _ := exec.Command(cli, "--protocol=tcp", "-h", host, "-P", port, "-u", "bi", "-pbi-new", "-e", "SELECT id FROM app.t").CombinedOutput(); !strings.Contains(string(out), "ERROR 1142 (42000)") {
			t.Fatalf("after REVOKE ALL: %s", out)
		}
		root("GRANT SELECT ON app.* TO 'bi'@'%'")
		root("ALTER USER 'bi'@'%' IDENTIFIED BY 'bi-pw'")
	})
	t.Run("pymysql", func(t *testing.T) {
		py := "/usr/bin/python3"
		if exec.Command(py, "-c", "import pymysql").Run() != nil {
			t.Skip("no PyMySQL")
		}
		script := filepath.Join(t.TempDir(), "ro.py")
		os.WriteFile(script, []byte(`
import sys, pymysql
host, port, user, pw = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
c = pymysql.connect(host=host, port=port, user=user, password=pw)
cur = c.cursor()
cur.execute("SELECT id FROM app.t")
print("rows", cur.fetchall())
cur.execute("SHOW DATABASES")
print("dbs", [r[0] for r in cur.fetchall()])
for q in ("INSERT INTO app.t VALUES (2)", "USE secret"):
    try:
        cur.execute(q)
        print("ok", q)
    except pymysql.err.MySQLError as e:
        print("err", e.args[0])
`), 0o644)
		for _, user := range []string{"bi", "bi2"} {
			out, err := exec.Command(py, script, host, port, user, user+"-pw").CombinedOutput()
			want := "rows ((1,),)\ndbs ['app', 'information_schema', 'mysql']\nerr 1142\nerr 1044"
			if err != nil || strings.TrimSpace(string(out)) != want {
				t.Fatalf("%s: %v\n%s\nwant\n%s", user, err, out, want)
			}
		}
	})
	t.Run("jdbc", func(t *testing.T) {
		jar := "/usr/share/java/mariadb-java-client.jar"
		javac, err := exec.LookPath("javac")
		if _, serr := os.Stat(jar); err != nil || serr != nil {
			t.Skip("no javac or MariaDB Connector/J (Debian libmariadb-java)")
		}
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "RO.java"), []byte(`
import java.sql.*;
public class RO {
  public static void main(String[] a) throws Exception {
    String url = "jdbc:mariadb://" + a[0] + ":" + a[1] + "/?allowPublicKeyRetrieval=true";
    try (Connection c = DriverManager.getConnection(url, a[2], a[3]); Statement s = c.createStatement()) {
      try (ResultSet r = s.executeQuery("SELECT id FROM app.t")) { while (r.next()) System.out.println("row " + r.getInt(1)); }
      try (ResultSet r = s.executeQuery("SHOW DATABASES")) { while (r.next()) System.out.println("db " + r.getString(1)); }
      for (String q : new String[]{"INSERT INTO app.t VALUES (2)", "USE secret"}) {
        try { s.execute(q); System.out.println("ok " + q); } catch (SQLException e) { System.out.println("err " + e.getErrorCode()); }
      }
    }
  }
}
`), 0o644)
		if out, err := exec.Command(javac, "-cp", jar, "-d", dir, filepath.Join(dir, "RO.java")).CombinedOutput(); err != nil {
			t.Fatalf("javac: %v\n%s", err, out)
		}
		for _, user := range []string{"bi", "bi2"} { // bi2: caching_sha2_password, RSA key exchange
			out, err := exec.Command("java", "-cp", jar+":"+dir, "RO", host, port, user, user+"-pw").CombinedOutput()
			want := "row 1\ndb app\ndb information_schema\ndb mysql\nerr 1142\nerr 1044"
			if err != nil || strings.TrimSpace(string(out)) != want {
				t.Fatalf("%s: %v\n%s\nwant\n%s", user, err, out, want)
			}
		}
	})
	sqltest.NewRunner(t, ts.DB).ExpectRows("SELECT id FROM app.t", "1")
}

func sha1Sum(b []byte) []byte {
	h := sha1.Sum(b)
	return h[:]
}

// TestAccountsOtherGatewayAtOnce: with B's periodic refresh practically
// off, an account and grants made through A apply at once to new
// connections to B (each login checks the stored version), and FLUSH
// PRIVILEGES on B applies a REVOKE to B's open sessions at once.
func TestAccountsOtherGatewayAtOnce(t *testing.T) {
	store, co := sqltest.Memory.Open(t)
	t.Cleanup(func() { store.Close() })
	a, _ := startAccountsServer(t, sqltest.NoClose(store), co, "", nil)
	gb, _ := startAccountsServer(t, sqltest.NoClose(store), co, "", func(c *sqlgw.Config) { c.AccountsRefresh = time.Hour })
	for _, q := range []string{"CREATE DATABASE app", "CREATE TABLE app.t (id INT PRIMARY KEY)",
		"CREATE USER 'w'@'%' IDENTIFIED WITH caching_sha2_password BY 'w-pw'", "GRANT SELECT, INSERT ON app.t TO 'w'@'%'"} {
		sqltest.NewRunner(t, a.DB).Exec(q)
	}
	waitFor(t, "B sees the table (catalog refresh)", func() bool {
		_, err := gb.DB.Exec("SELECT id FROM app.t")
		return err == nil
	})
	w := as(t, gb, "w", "w-pw", "")
	sqltest.NewRunner(t, w).Exec("INSERT INTO app.t VALUES (1)")
	sqltest.NewRunner(t, a.DB).Exec("REVOKE INSERT ON app.t FROM 'w'@'%'")
	sqltest.NewRunner(t, gb.DB).Exec("FLUSH PRIVILEGES")
	expectDenied(t, w, 1142, "INSERT command denied to user 'w'@'localhost' for table 't'", "INSERT INTO app.t VALUES (2)")
	sqltest.NewRunner(t, a.DB).Exec("DROP USER 'w'@'%'")
	expectLogin(t, 1045, "login on B right after DROP USER on A", "w", "w-pw", gb.Srv.Addr().String(), "")
}
