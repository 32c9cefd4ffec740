package sqlgw_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/x509"
	"database/sql"
	"encoding/binary"
	"encoding/pem"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// TestAccountsTableGrantsVisibility: an account with table-level grants
// only sees, in SHOW TABLES and information_schema.TABLES, COLUMNS and STATISTICS,
// the tables and views of that database it has some privilege on, as
// MySQL.
func TestAccountsTableGrantsVisibility(t *testing.T) {
	store, co := sqltest.Memory.Open(t)
	ts, _ := startAccountsServer(t, store, co, "", nil)
	root := sqltest.NewRunner(t, ts.Conn())
	for _, q := range []string{"CREATE DATABASE shop",
		"CREATE TABLE shop.pub (id INT PRIMARY KEY, v INT, KEY kv (v))",
		"CREATE TABLE shop.priv (id INT PRIMARY KEY, w INT, KEY kw (w))",
		"CREATE VIEW shop.vpub AS SELECT id FROM shop.pub",
		"CREATE VIEW shop.vpriv AS SELECT id FROM shop.priv",
		"CREATE USER tl IDENTIFIED BY 'tl-pw'", "GRANT SELECT ON shop.pub TO tl", "GRANT SELECT ON shop.vpub TO tl"} {
		root.Exec(q)
	}
	tl := sqltest.NewRunner(t, as(t, ts, "tl", "tl-pw", ""))
	tl.ExpectRows("SHOW TABLES FROM shop", "pub", "vpub")
	tl.ExpectRows("SELECT table_name FROM information_schema.tables WHERE table_schema = 'shop' ORDER BY 1", "pub", "vpub")
	tl.ExpectRows("SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'shop' AND table_name IN ('pub', 'priv') ORDER BY 1, 2",
		"pub\tid", "pub\tv")
	tl.ExpectRows("SELECT DISTINCT table_name FROM information_schema.statistics WHERE table_schema = 'shop' ORDER BY 1", "pub")
	// root still sees everything.
	root.ExpectRows("SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'shop' ORDER BY 1, 2",
		"priv\tid", "priv\tw", "pub\tid", "pub\tv", "vpriv\tid", "vpub\tid")
	root.ExpectRows("SELECT table_name FROM information_schema.tables WHERE table_schema = 'shop' ORDER BY 1", "priv", "pub", "vpriv", "vpub")
}

// TestAccountsProcessListOwn: without the PROCESS privilege, SHOW
// PROCESSLIST and information_schema.PROCESSLIST show the account its own
// connections only, as MySQL; with it, every connection.
func TestAccountsProcessListOwn(t *testing.T) {
	store, co := sqltest.Memory.Open(t)
	ts, _ := startAccountsServer(t, store, co, "", nil)
	root := sqltest.NewRunner(t, ts.Conn())
	root.Script(`
		exec CREATE USER pl IDENTIFIED BY 'pl-pw'
		exec CREATE USER ops IDENTIFIED BY 'ops-pw'
		exec GRANT PROCESS ON *.* TO ops
	`)
	pl := as(t, ts, "pl", "pl-pw", "")
	pl.SetMaxOpenConns(2)
	c1, err := pl.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close()
	c2, err := pl.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	sqltest.NewRunner(t, c1).ExpectRows("SELECT COUNT(*), MIN(user), MAX(user) FROM information_schema.processlist", "2\tpl\tpl")
	rows, err := c1.QueryContext(t.Context(), "SHOW PROCESSLIST")
	if err != nil {
		t.Fatalf("SHOW PROCESSLIST without PROCESS: %v", err)
	}
	n := 0
	for rows.Next() {
		var id int64
		var user string
		var rest [6]sql.RawBytes
		if err := rows.Scan(&id, &user, &rest[0], &rest[1], &rest[2], &rest[3], &rest[4], &rest[5]); err != nil {
			t.Fatal(err)
		}
		if user != "pl" {
			t.Fatalf("SHOW PROCESSLIST shows user %q to pl", user)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if n != 2 {
		t.Fatalf("SHOW PROCESSLIST shows %d connections to pl, want 2", n)
	}
	ops := as(t, ts, "ops", "ops-pw", "")
	var total int
	if err := ops.QueryRow("SELECT COUNT(*) FROM information_schema.processlist WHERE user IN ('root', 'pl', 'ops')").Scan(&total); err != nil || total < 4 {
		t.Fatalf("PROCESS sees %d connections (%v), want >= 4", total, err)
	}
}

// TestAccountsStatementsInMultiStatementText: SET PASSWORD, ALTER USER
// ... ACCOUNT LOCK|UNLOCK and REVOKE ALL PRIVILEGES, GRANT OPTION work as
// one statement of a multi-statement text too (a ';' in a password does
// not end the statement).
func TestAccountsStatementsInMultiStatementText(t *testing.T) {
	store, co := sqltest.Memory.Open(t)
	ts, _ := startAccountsServer(t, store, co, "", nil)
	root := sqltest.NewRunner(t, ts.Conn())
	for _, q := range []string{"CREATE DATABASE m", "CREATE TABLE m.t (id INT PRIMARY KEY)",
		"CREATE USER mu IDENTIFIED BY 'mu-pw'", "GRANT SELECT ON m.* TO mu", "GRANT SELECT ON m.t TO mu"} {
		root.Exec(q)
	}
	multi, err := sql.Open("mysql", ts.DSN+"?multiStatements=true")
	if err != nil {
		t.Fatal(err)
	}
	defer multi.Close()
	multi.SetMaxOpenConns(1)
	addr := ts.Srv.Addr().String()

	sqltest.NewRunner(t, multi).Exec("SET PASSWORD FOR mu = 'mu;pw2'; SELECT 1")
	if err := loginError("mu", "mu;pw2", addr, ""); err != nil {
		t.Fatalf("after SET PASSWORD in a multi-statement text: %v", err)
	}
	sqltest.NewRunner(t, multi).Exec("SELECT 1; ALTER USER mu ACCOUNT LOCK; SELECT 2")
	if err := loginError("mu", "mu;pw2", addr, ""); sqltest.Errno(err) != 1045 {
		t.Fatalf("after ACCOUNT LOCK in a multi-statement text: %v, want 1045", err)
	}
	sqltest.NewRunner(t, multi).Exec("ALTER USER mu ACCOUNT UNLOCK; REVOKE ALL PRIVILEGES, GRANT OPTION FROM mu; SELECT 3")
	if err := loginError("mu", "mu;pw2", addr, ""); err != nil {
		t.Fatalf("after ACCOUNT UNLOCK in a multi-statement text: %v", err)
	}
	root.ExpectRows("SHOW GRANTS FOR mu", "GRANT USAGE ON *.* TO `mu`@`%`")
	// A failing statement stops the text, as in MySQL.
	_, err = multi.Exec("ALTER USER nobody ACCOUNT LOCK; CREATE USER never")
	if sqltest.Errno(err) != 1396 {
		t.Fatalf("ALTER USER of an unknown account: %v, want 1396", err)
	}
	root.ExpectRows("SELECT COUNT(*) FROM mysql.user WHERE user = 'never'", "0")
}

// sha2Scramble is caching_sha2_password's answer: XOR(SHA256(pw),
// SHA256(SHA256(SHA256(pw)) + scramble)).
func sha2Scramble(password string, scramble []byte) []byte {
	h1 := sha256.Sum256([]byte(password))
	h2 := sha256.Sum256(h1[:])
	h3 := sha256.Sum256(append(h2[:], scramble...))
	for i := range h3 {
		h3[i] ^= h1[i]
	}
	return h3[:]
}

// changeUserSha2 sends COM_CHANGE_USER as a client of plugin (answering
// an auth switch to caching_sha2_password) and goes through
// caching_sha2_password's exchange as libmysqlclient does over plain TCP:
// on "perform full authentication" it asks for the server's RSA key and
// sends the password encrypted with it. It returns the final packet and
// the path taken ("fast", "full").
func (r *rawConn) changeUserSha2(user, password, db, plugin string) ([]byte, string) {
	r.t.Helper()
	scramble := r.scramble
	auth := sha2Scramble(password, scramble)
	if plugin != "caching_sha2_password" {
		auth = nativeScramble(password, scramble)
	}
	b := append([]byte{0x11}, user...)
	b = append(append(append(b, 0, byte(len(auth))), auth...), db...)
	b = append(b, 0, 33, 0)
	b = append(append(b, plugin...), 0)
	r.command(b...)
	resp := r.read()
	if resp[0] == 0xfe {
		name, data, _ := strings.Cut(string(resp[1:]), "\x00")
		if name != "caching_sha2_password" {
			r.t.Fatalf("auth switch to %q", name)
		}
		scramble = []byte(strings.TrimSuffix(data, "\x00"))
		r.write(sha2Scramble(password, scramble))
		resp = r.read()
	}
	if resp[0] != 0x01 || len(resp) != 2 {
		return resp, ""
	}
	switch resp[1] {
	case 0x03: // fast auth OK
		return r.read(), "fast"
	case 0x04: // perform full authentication
	default:
		r.t.Fatalf("caching_sha2_password state %#x", resp[1])
	}
	r.write([]byte{0x02}) // request the public key
	keyPkt := r.read()
	if keyPkt[0] != 0x01 {
		r.t.Fatalf("public key packet: %q", keyPkt)
	}
	blk, _ := pem.Decode(keyPkt[1:])
	if blk == nil {
		r.t.Fatalf("no PEM key: %q", keyPkt)
	}
	k, err := x509.ParsePKIXPublicKey(blk.Bytes)
	if err != nil {
		r.t.Fatal(err)
	}
	plain := append([]byte(password), 0)
	for i := range plain {
		plain[i] ^= scramble[i%len(scramble)]
	}
	enc, err := rsa.EncryptOAEP(sha1.New(), rand.Reader, k.(*rsa.PublicKey), plain, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	r.write(enc)
	return r.read(), "full"
}

// TestAccountsChangeUserCachingSha2: COM_CHANGE_USER to a
// caching_sha2_password account authenticates as MySQL does over plain
// TCP: full authentication with the gateway's RSA key the first time, the
// fast path from the cache afterwards, an auth switch for a client of
// another plugin, and 1045 with a wrong password (the session kept).
func TestAccountsChangeUserCachingSha2(t *testing.T) {
	store, co := sqltest.Memory.Open(t)
	ts, _ := startAccountsServer(t, store, co, "root-pw", func(c *sqlgw.Config) { c.Password = "root-pw" })
	root := sqltest.NewRunner(t, ts.Conn())
	root.Script(`
		exec CREATE DATABASE cs
		exec CREATE USER s2 IDENTIFIED WITH caching_sha2_password BY 's2-pw'
		exec GRANT SELECT ON cs.* TO s2
	`)
	r := dialRaw(t, ts.Srv.Addr().String(), "root", "root-pw")
	who := func() string {
		t.Helper()
		got, e := r.query("SELECT CURRENT_USER(), DATABASE()")
		if e != "" || len(got) != 1 {
			t.Fatalf("CURRENT_USER(): %q %q", got, e)
		}
		return got[0]
	}
	isOK := func(b []byte) bool { return len(b) > 0 && b[0] == 0 }
	errno := func(b []byte) uint16 {
		if len(b) < 3 || b[0] != 0xff {
			return 0
		}
		return binary.LittleEndian.Uint16(b[1:])
	}

	if b, path := r.changeUserSha2("s2", "s2-pw", "cs", "caching_sha2_password"); !isOK(b) || path != "full" {
		t.Fatalf("first change user to s2: %q (%s)", b, path)
	}
	if got := who(); got != "s2@%\tcs" {
		t.Fatalf("after change user: %q", got)
	}
	if b, sw := r.changeUser("root", "root-pw", "", "mysql_native_password"); !isOK(b) || sw {
		t.Fatalf("back to root: %q", b)
	}
	// Cached now: the fast path.
	if b, path := r.changeUserSha2("s2", "s2-pw", "", "caching_sha2_password"); !isOK(b) || path != "fast" {
		t.Fatalf("second change user to s2: %q (%s)", b, path)
	}
	if got := who(); got != "s2@%\tNULL" {
		t.Fatalf("after fast change user: %q", got)
	}
	// Wrong password: the fast path fails, then the full one: 1045,
	// the session stays s2's.
	if b, path := r.changeUserSha2("s2", "wrong", "", "caching_sha2_password"); errno(b) != 1045 || path != "full" ||
		!strings.Contains(string(b), "Access denied for user 's2'@'localhost' (using password: YES)") {
		t.Fatalf("wrong password: %q (%s)", b, path)
	}
	if got := who(); got != "s2@%\tNULL" {
		t.Fatalf("after failed change user: %q", got)
	}
	// A mysql_native_password client is switched to caching_sha2_password.
	if b, path := r.changeUserSha2("s2", "s2-pw", "cs", "mysql_native_password"); !isOK(b) || path != "fast" {
		t.Fatalf("change user from a mysql_native_password client: %q (%s)", b, path)
	}
	if got := who(); got != "s2@%\tcs" {
		t.Fatalf("after switched change user: %q", got)
	}
	// And to a mysql_native_password account from a caching_sha2_password
	// client, as before.
	if b, sw := r.changeUser("root", "root-pw", "", "caching_sha2_password"); !isOK(b) || !sw {
		t.Fatalf("back to root from a caching_sha2_password client: %q (switch %v)", b, sw)
	}
	if got := who(); got != "root@%\tNULL" && got != "root@localhost\tNULL" {
		t.Fatalf("after change user to root: %q", got)
	}
}
