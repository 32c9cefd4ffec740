package sqlgw_test

import (
	"context"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// TestAdmin2Flush: the FLUSH statements mysqladmin and migration scripts
// send answer OK (FLUSH PRIVILEGES panicked in go-mysql-server and dropped
// the connection; LOGS, HOSTS, STATUS were "not supported"), and FLUSH
// STATUS resets the session's sqlgw counters.
func TestAdmin2Flush(t *testing.T) {
	store, _ := sqltest.Memory.Open(t)
	ts := sqltest.Start(t, store, sqltest.Options{})
	c := ts.Conn()
	r := sqltest.NewRunner(t, c)
	r.Exec("CREATE DATABASE d")
	r.Exec("CREATE TABLE d.t (k INT PRIMARY KEY)")
	for _, q := range []string{"FLUSH PRIVILEGES", "flush tables", "FLUSH LOGS", "FLUSH HOSTS", "FLUSH LOCAL PRIVILEGES",
		"FLUSH NO_WRITE_TO_BINLOG BINARY LOGS, ENGINE LOGS, ERROR LOGS, GENERAL LOGS, SLOW LOGS, RELAY LOGS FOR CHANNEL c",
		"FLUSH USER_RESOURCES; ", "FLUSH OPTIMIZER_COSTS /* x */"} {
		r.Exec(q)
	}
	r.ExpectRows("SELECT 1", "1") // the connection is still there
	r.Rows("SELECT * FROM d.t")
	status := func() string {
		return strings.Join(r.Rows("SHOW SESSION STATUS LIKE 'Sqlgw_store_requests'"), "")
	}
	if s := status(); s == "Sqlgw_store_requests\t0" {
		t.Fatalf("no store request counted before FLUSH STATUS: %q", s)
	}
	questions := func() int {
		var name string
		var n int
		if err := c.QueryRowContext(context.Background(), "SHOW SESSION STATUS LIKE 'Questions'").Scan(&name, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := questions(); n < 5 {
		t.Fatalf("Questions before FLUSH STATUS: %d", n)
	}
	r.Exec("FLUSH STATUS")
	if s := status(); s != "Sqlgw_store_requests\t0" {
		t.Fatalf("after FLUSH STATUS: %q", s)
	}
	if n := questions(); n > 2 {
		t.Fatalf("Questions after FLUSH STATUS: %d", n)
	}
	// FLUSH commits the open transaction (MySQL's implicit commit).
	r.Script(`
		exec BEGIN
		exec INSERT INTO d.t VALUES (1)
		exec FLUSH PRIVILEGES
		exec ROLLBACK
		query SELECT k FROM d.t
		= 1
	`)
	// Not a FLUSH admin2 answers: still go-mysql-server's.
	if _, err := c.ExecContext(context.Background(), "FLUSH NOTHING"); err == nil {
		t.Fatal("FLUSH NOTHING: no error")
	}
}

// TestAdmin2Describe: DESCRIBE tbl pattern (Perl DBI column_info sends
// DESCRIBE `db`.`t` '%') gives the matching columns, as SHOW COLUMNS ...
// LIKE does.
func TestAdmin2Describe(t *testing.T) {
	store, _ := sqltest.Memory.Open(t)
	ts := sqltest.Start(t, store, sqltest.Options{})
	c := ts.Session("d",
		"CREATE TABLE t (k INT PRIMARY KEY, q INT, qq VARCHAR(5))")
	all := []string{"k\tint\tNO\tPRI\tNULL\t", "q\tint\tYES\t\tNULL\t", "qq\tvarchar(5)\tYES\t\tNULL\t"}
	for q, want := range map[string][]string{
		"DESCRIBE `d`.`t` '%'":          all,
		"describe t 'q%'":               all[1:],
		"DESC t k":                      all[:1],
		"EXPLAIN d.t 'qq'":              all[2:],
		"DESCRIBE t `q`":                all[1:2],
		"DESCRIBE t \"k\";":             all[:1],
		"DESCRIBE t 'nothing'":          nil,
		"SHOW COLUMNS FROM t LIKE 'q_'": all[2:],
		"DESCRIBE t":                    all,
	} {
		if got := sqltest.NewRunner(t, c).Rows(q); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", q, got, want)
		}
	}
	// Prepared (COM_STMT_PREPARE, as DBD::MariaDB's column_info sends it
	// with mariadb_server_prepare): rewritten in the packet (conn.go).
	st, err := c.PrepareContext(context.Background(), "DESCRIBE `d`.`t` 'q%'")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got := sqltest.NewRunner(t, st2execer{st}).Rows(""); strings.Join(got, "\n") != strings.Join(all[1:], "\n") {
		t.Errorf("prepared DESCRIBE: got %q", got)
	}
}

// rawConn is a minimal MySQL protocol client for the commands
// database/sql cannot send (COM_STATISTICS, COM_CHANGE_USER).
type rawConn struct {
	t        *testing.T
	c        net.Conn
	seq      byte
	scramble []byte // the greeting's
}

func (r *rawConn) read() []byte {
	r.t.Helper()
	hdr := make([]byte, 4)
	if _, err := io.ReadFull(r.c, hdr); err != nil {
		r.t.Fatal(err)
	}
	b := make([]byte, int(hdr[0])|int(hdr[1])<<8|int(hdr[2])<<16)
	if _, err := io.ReadFull(r.c, b); err != nil {
		r.t.Fatal(err)
	}
	r.seq = hdr[3] + 1
	return b
}

func (r *rawConn) write(b []byte) {
	r.t.Helper()
	out := append([]byte{byte(len(b)), byte(len(b) >> 8), byte(len(b) >> 16), r.seq}, b...)
	if _, err := r.c.Write(out); err != nil {
		r.t.Fatal(err)
	}
	r.seq++
}

func (r *rawConn) command(b ...byte) {
	r.seq = 0
	r.write(b)
}

func nativeScramble(password string, scramble []byte) []byte {
	if password == "" {
		return nil
	}
	h1 := sha1.Sum([]byte(password))
	h2 := sha1.Sum(h1[:])
	h3 := sha1.Sum(append(append([]byte(nil), scramble...), h2[:]...))
	for i := range h3 {
		h3[i] ^= h1[i]
	}
	return h3[:]
}

// dialRaw logs in with mysql_native_password.
func dialRaw(t *testing.T, addr, user, password string) *rawConn {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(20 * time.Second))
	r := &rawConn{t: t, c: c}
	g := r.read()
	p := 1 + strings.IndexByte(string(g[1:]), 0) + 1 + 4
	scramble := append([]byte(nil), g[p:p+8]...)
	p += 8 + 1 + 2 + 1 + 2 + 2 + 1 + 10
	scramble = append(scramble, g[p:p+12]...)
	r.scramble = scramble
	const caps = 0x200 | 0x8000 | 0x80000 // PROTOCOL_41, SECURE_CONNECTION, PLUGIN_AUTH
	hs := binary.LittleEndian.AppendUint32(nil, caps)
	hs = binary.LittleEndian.AppendUint32(hs, 1<<24)
	hs = append(hs, 33)
	hs = append(hs, make([]byte, 23)...)
	hs = append(append(hs, user...), 0)
	auth := nativeScramble(password, scramble)
	hs = append(append(hs, byte(len(auth))), auth...)
	hs = append(append(hs, "mysql_native_password"...), 0)
	r.write(hs)
	if b := r.read(); b[0] != 0 {
		t.Fatalf("login: %q", b)
	}
	return r
}

// query runs a text query and returns its rows (cells joined by tabs,
// NULL as "NULL"), or the error packet's text.
func (r *rawConn) query(q string) ([]string, string) {
	r.t.Helper()
	r.command(append([]byte{0x03}, q...)...)
	b := r.read()
	switch b[0] {
	case 0x00:
		return nil, ""
	case 0xff:
		return nil, string(b[3:])
	}
	n := int(b[0])
	for i := 0; i < n; i++ {
		r.read()
	}
	r.read() // EOF
	var out []string
	for {
		b := r.read()
		if b[0] == 0xfe && len(b) < 9 {
			return out, ""
		}
		var cells []string
		for p := 0; p < len(b); {
			if b[p] == 0xfb {
				cells = append(cells, "NULL")
				p++
				continue
			}
			l := int(b[p]) // short values only
			cells = append(cells, string(b[p+1:p+1+l]))
			p += 1 + l
		}
		out = append(out, strings.Join(cells, "\t"))
	}
}

// changeUser sends COM_CHANGE_USER as a client of plugin does (with
// mysql_native_password, the auth data over the greeting's scramble) and
// answers an auth switch; it returns the final packet and whether the
// server asked for a switch.
func (r *rawConn) changeUser(user, password, db, plugin string) ([]byte, bool) {
	r.t.Helper()
	auth := nativeScramble(password, r.scramble)
	if plugin != "mysql_native_password" {
		auth = []byte(strings.Repeat("x", 32)) // another plugin's answer
	}
	b := append([]byte{0x11}, user...)
	b = append(append(append(b, 0, byte(len(auth))), auth...), db...)
	b = append(b, 0, 33, 0)
	b = append(append(b, plugin...), 0)
	r.command(b...)
	resp := r.read()
	if resp[0] != 0xfe {
		return resp, false
	}
	plugin, scramble, _ := strings.Cut(string(resp[1:]), "\x00")
	if plugin != "mysql_native_password" || strings.TrimSuffix(scramble, "\x00") != string(r.scramble) {
		r.t.Fatalf("auth switch to %q, scramble %q (greeting's %q)", plugin, scramble, r.scramble)
	}
	r.write(nativeScramble(password, r.scramble))
	return r.read(), true
}

// startServerPassword starts a server on an in-memory store whose root
// account has the password, and returns its address.
func startServerPassword(t *testing.T, password string) string {
	return sqltest.StartBackend(t, sqltest.Memory, sqltest.Options{Password: password}).Addr()
}

// TestAdmin2Statistics: COM_STATISTICS is answered with MySQL's string,
// not vitess's 1047.
func TestAdmin2Statistics(t *testing.T) {
	addr := startServerPassword(t, "")
	r := dialRaw(t, addr, "root", "")
	r.query("SELECT 1")
	r.command(0x09)
	got := string(r.read())
	re := regexp.MustCompile(`^Uptime: \d+  Threads: [1-9]\d*  Questions: [1-9]\d*  Slow queries: 0  Opens: 0  Flush tables: 1  Open tables: 0  Queries per second avg: \d+\.\d{3}$`)
	if !re.MatchString(got) {
		t.Fatalf("COM_STATISTICS: %q", got)
	}
	r.command(0x07, 0x01) // COM_REFRESH (grant)
	if b := r.read(); b[0] != 0 {
		t.Fatalf("COM_REFRESH: %q", b)
	}
	if rows, e := r.query("SELECT 2"); e != "" || len(rows) != 1 || rows[0] != "2" {
		t.Fatalf("after: %q %q", rows, e)
	}
}

// TestAdmin2ChangeUser: COM_CHANGE_USER re-authenticates and resets the
// session as MySQL does (user variables gone, transaction rolled back,
// database as given), keeping the connection.
func TestAdmin2ChangeUser(t *testing.T) {
	addr := startServerPassword(t, "pw")
	r := dialRaw(t, addr, "root", "pw")
	for _, q := range []string{"CREATE DATABASE cu", "CREATE TABLE cu.t (k INT PRIMARY KEY)", "SET @v = 42",
		"SET autocommit = 0", "INSERT INTO cu.t VALUES (1)", "PREPARE s FROM 'SELECT 1'"} {
		if _, e := r.query(q); e != "" {
			t.Fatalf("%s: %s", q, e)
		}
	}
	id, _ := r.query("SELECT CONNECTION_ID()")
	if b, sw := r.changeUser("root", "pw", "cu", "mysql_native_password"); b[0] != 0 || b[3]&0x02 == 0 || sw {
		t.Fatalf("change user: %q (auth switch %v)", b, sw)
	}
	q := "SELECT @v, DATABASE(), CURRENT_USER(), CONNECTION_ID(), @@autocommit, (SELECT COUNT(*) FROM cu.t)"
	got, e := r.query(q)
	if want := fmt.Sprintf("NULL\tcu\troot@localhost\t%s\t1\t0", id[0]); e != "" || len(got) != 1 || got[0] != want {
		t.Fatalf("after change user: %q %q, want %q", got, e, want)
	}
	if _, e := r.query("EXECUTE s"); e == "" {
		t.Fatal("prepared statement survived the change of user")
	}

	// Wrong password, unknown database: MySQL's errors, the session kept.
	mustQuery := func(q string) {
		if _, e := r.query(q); e != "" {
			t.Fatalf("%s: %s", q, e)
		}
	}
	mustQuery("SET @w = 1")
	if b, _ := r.changeUser("root", "wrong", "cu", "mysql_native_password"); b[0] != 0xff || binary.LittleEndian.Uint16(b[1:]) != 1045 {
		t.Fatalf("wrong password: %q", b)
	}
	if b, _ := r.changeUser("nobody", "pw", "", "mysql_native_password"); b[0] != 0xff || binary.LittleEndian.Uint16(b[1:]) != 1045 {
		t.Fatalf("unknown user: %q", b)
	}
	if b, _ := r.changeUser("root", "pw", "nosuch", "caching_sha2_password"); b[0] != 0xff || binary.LittleEndian.Uint16(b[1:]) != 1049 {
		t.Fatalf("unknown database: %q", b)
	}
	if got, e := r.query("SELECT @w, DATABASE()"); e != "" || len(got) != 1 || got[0] != "1\tcu" {
		t.Fatalf("after failed change user: %q %q", got, e)
	}
	// No database; a client of another plugin (MySQL 8's default) is
	// switched to mysql_native_password.
	if b, sw := r.changeUser("root", "pw", "", "caching_sha2_password"); b[0] != 0 || !sw {
		t.Fatalf("change user: %q (auth switch %v)", b, sw)
	}
	if got, _ := r.query("SELECT DATABASE(), @w"); len(got) != 1 || got[0] != "NULL\tNULL" {
		t.Fatalf("after change user without database: %q", got)
	}
}

// TestAdmin2ViewWithoutDatabase: a view named with its database works
// without a current database (go-mysql-server said "no database
// selected"); an unqualified table still needs one, DATABASE() stays NULL.
func TestAdmin2ViewWithoutDatabase(t *testing.T) {
	store, _ := sqltest.Memory.Open(t)
	ts := sqltest.Start(t, store, sqltest.Options{})
	c := ts.Conn()
	r := sqltest.NewRunner(t, c)
	r.Script(`
		exec CREATE DATABASE c1
		exec CREATE DATABASE c2
		exec CREATE TABLE c1.t (k INT PRIMARY KEY, v INT)
		exec CREATE TABLE c2.u (k INT PRIMARY KEY)
		exec INSERT INTO c1.t VALUES (1, 10), (2, 20)
		exec INSERT INTO c2.u VALUES (2)
		exec CREATE VIEW c1.v AS SELECT k, v FROM c1.t
		query SELECT * FROM c1.v ORDER BY k
		= 1 | 10
		= 2 | 20
	`)
	c2 := sqltest.NewRunner(t, ts.Conn())
	c2.Exec("USE c1")
	c2.Exec("CREATE VIEW w AS SELECT k FROM t WHERE v > 10")
	r.ExpectRows("SELECT * FROM c1.w", "2")
	r.ExpectRows("select x.k from `c2`.`u` join c1.v x on x.k = u.k", "2")
	r.ExpectRows("SELECT k FROM c1.v WHERE k = 1 UNION SELECT k FROM c2.u ORDER BY k", "1", "2")
	r.ExpectRows("SELECT DATABASE()", "NULL")
	if _, err := c.QueryContext(context.Background(), "SELECT * FROM c1.v, u"); err == nil {
		t.Fatal("unqualified table without a current database: no error")
	}
	r.Script(`
		query SELECT DATABASE()
		= NULL
		# Writes reading a view.
		exec CREATE TABLE c2.w2 (k INT PRIMARY KEY)
		exec INSERT INTO c2.w2 SELECT k FROM c1.v
		exec UPDATE c2.w2 SET k = k + 10 WHERE k IN (SELECT k FROM c1.v WHERE v = 10)
		exec DELETE FROM c2.w2 WHERE k IN (SELECT k FROM c1.v)
		query SELECT k FROM c2.w2
		= 11
	`)
	if _, err := c.ExecContext(context.Background(), "INSERT INTO w2 SELECT k FROM c1.v"); err == nil {
		t.Fatal("unqualified INSERT target without a current database: no error")
	}
	r.ExpectRows("SELECT DATABASE()", "NULL")
	// Prepared (binary protocol).
	st, err := c.PrepareContext(context.Background(), "SELECT v FROM c1.v WHERE k = ?")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var v int
	if err := st.QueryRowContext(context.Background(), 2).Scan(&v); err != nil || v != 20 {
		t.Fatalf("prepared SELECT from a view: %v %d", err, v)
	}
	// With a current database nothing changes.
	r.Exec("USE c2")
	r.ExpectRows("SELECT v.k, DATABASE() FROM c1.v v JOIN u ON u.k = v.k", "2\tc2")
}
