package sqlgw_test

import (
	"context"
	"crypto/md5"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/sqlgw/sqlgw/sqlgw"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// startConfigured starts a server on a fresh in-memory store with the
// config adjusted by set; it is closed when t ends.
func startConfigured(t *testing.T, set func(*sqlgw.Config)) *sqlgw.Server {
	t.Helper()
	store, _ := sqltest.Memory.Open(t)
	cfg := sqlgw.Config{Listen: "127.0.0.1:0", Store: store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if set != nil {
		set(&cfg)
	}
	srv, err := sqlgw.NewServer(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve()
	t.Cleanup(func() { srv.Close(context.Background()) })
	return srv
}

// readErrPacket reads one packet and returns its error code (0 if it is
// not an error packet) and text.
func readErrPacket(t *testing.T, c net.Conn) (uint16, string) {
	t.Helper()
	hdr := make([]byte, 4)
	if _, err := io.ReadFull(c, hdr); err != nil {
		t.Fatalf("reading a packet: %v", err)
	}
	b := make([]byte, int(hdr[0])|int(hdr[1])<<8|int(hdr[2])<<16)
	if _, err := io.ReadFull(c, b); err != nil {
		t.Fatal(err)
	}
	if len(b) < 3 || b[0] != 0xff {
		return 0, string(b)
	}
	return uint16(b[1]) | uint16(b[2])<<8, string(b[3:])
}

// expectClosed waits up to d for the server to close c.
func expectClosed(t *testing.T, c net.Conn, d time.Duration) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(d))
	buf := make([]byte, 4096)
	for {
		_, err := c.Read(buf)
		if err == nil {
			continue
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("connection still open after %v", d)
		}
		return
	}
}

// TestMaxConnections: past max_connections a client gets MySQL's 1040
// "Too many connections" instead of the greeting; a slot freed is reused.
func TestMaxConnections(t *testing.T) {
	srv := startConfigured(t, func(c *sqlgw.Config) { c.MaxConnections = 3 })
	db, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/", srv.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var conns []*sql.Conn
	for i := 0; i < 3; i++ {
		c, err := db.Conn(context.Background())
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		conns = append(conns, c)
	}
	_, err = db.Conn(context.Background())
	if me := (*mysql.MySQLError)(nil); !errors.As(err, &me) || me.Number != 1040 || me.Message != "Too many connections" {
		t.Fatalf("4th connection: %v, want 1040 Too many connections", err)
	}
	sqltest.NewRunner(t, conns[0]).ExpectRows("SELECT @@max_connections", "3")
	conns[0].Close()
	conns[0].Raw(func(any) error { return nil })
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := db.Conn(context.Background())
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after closing one: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestConnectTimeout: a connection that does not log in is closed after
// connect_timeout (it was kept forever), and one that announces a 16 MiB
// packet before logging in gets 1043 at once, without the server reading
// or allocating it.
func TestConnectTimeout(t *testing.T) {
	srv := startConfigured(t, func(c *sqlgw.Config) { c.ConnectTimeout = 300 * time.Millisecond })
	c, err := net.Dial("tcp", srv.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	if code, _ := readErrPacket(t, c); code != 0 {
		t.Fatalf("greeting: error %d", code)
	}
	expectClosed(t, c, 5*time.Second)
	if d := time.Since(start); d < 250*time.Millisecond {
		t.Fatalf("closed after %v, before the timeout", d)
	}

	c2, err := net.Dial("tcp", srv.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	readErrPacket(t, c2) // greeting
	c2.Write([]byte{0xff, 0xff, 0xff, 1})
	c2.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	if code, msg := readErrPacket(t, c2); code != 1043 || !strings.Contains(msg, "Bad handshake") {
		t.Fatalf("16 MiB handshake: %d %q, want 1043 Bad handshake", code, msg)
	}
	expectClosed(t, c2, time.Second)

	// A client that logs in is not affected by connect_timeout.
	r := dialRaw(t, srv.Addr().String(), "root", "")
	time.Sleep(500 * time.Millisecond)
	if got, msg := r.query("SELECT 1"); msg != "" || len(got) != 1 {
		t.Fatalf("logged-in connection after connect_timeout: %q %q", got, msg)
	}
}

// TestWaitTimeout: an idle logged-in connection is closed after
// wait_timeout with MySQL 8's 4031; a statement running longer than that is
// not interrupted.
func TestWaitTimeout(t *testing.T) {
	srv := startConfigured(t, func(c *sqlgw.Config) { c.WaitTimeout = 400 * time.Millisecond })
	r := dialRaw(t, srv.Addr().String(), "root", "")
	if got, msg := r.query("SELECT SLEEP(0.8)"); msg != "" || len(got) != 1 {
		t.Fatalf("statement longer than wait_timeout: %q %q", got, msg)
	}
	if got, msg := r.query("SELECT @@wait_timeout"); msg != "" || len(got) != 1 || got[0] != "1" {
		t.Fatalf("@@wait_timeout: %q %q", got, msg)
	}
	time.Sleep(700 * time.Millisecond)
	code, msg := readErrPacket(t, r.c)
	if code != 4031 || !strings.Contains(msg, "inactivity") {
		t.Fatalf("idle connection: %d %q, want 4031", code, msg)
	}
	expectClosed(t, r.c, time.Second)

	// SET SESSION wait_timeout applies to the connection, as in MySQL.
	r2 := dialRaw(t, srv.Addr().String(), "root", "")
	if _, msg := r2.query("SET SESSION wait_timeout = 5"); msg != "" {
		t.Fatal(msg)
	}
	time.Sleep(700 * time.Millisecond)
	if got, msg := r2.query("SELECT @@wait_timeout"); msg != "" || len(got) != 1 || got[0] != "5" {
		t.Fatalf("after SET SESSION wait_timeout = 5, idle 0.7 s: %q %q", got, msg)
	}
}

// TestWaitTimeoutLazyDeadline: the wait_timeout deadline is armed lazily
// (sqlgw/wire/connlimits.go), so a deadline armed for an earlier wait
// passes while the connection is idle for less than wait_timeout, or while
// it reads a command's body: neither may end the connection; an idle
// stretch of wait_timeout still does.
func TestWaitTimeoutLazyDeadline(t *testing.T) {
	const wait = 900 * time.Millisecond
	srv := startConfigured(t, func(c *sqlgw.Config) { c.WaitTimeout = wait })
	one := func(r *rawConn, what string) {
		t.Helper()
		if got, msg := r.query("SELECT 1"); msg != "" || len(got) != 1 || got[0] != "1" {
			t.Fatalf("%s: %q %q", what, got, msg)
		}
	}

	// A wait that starts shortly after the deadline was armed keeps it;
	// the deadline passes after less idleness than wait_timeout.
	r := dialRaw(t, srv.Addr().String(), "root", "")
	one(r, "first command")
	armed := time.Now() // about when the server armed the deadline
	time.Sleep(wait / 3)
	one(r, "second command")
	idle := time.Now()
	time.Sleep(time.Until(armed.Add(wait + wait/6)))
	if time.Since(idle) >= wait-wait/12 || time.Since(armed) < wait+wait/12 {
		t.Skip("the machine is too slow for this test's timing")
	}
	one(r, "idle less than wait_timeout, across the first wait's deadline")

	// A command whose body arrives after the deadline armed for its wait.
	r2 := dialRaw(t, srv.Addr().String(), "root", "")
	one(r2, "first command")
	q := append([]byte{0x03}, "SELECT 2"...)
	pkt := append([]byte{byte(len(q)), 0, 0, 0}, q...)
	if _, err := r2.c.Write(pkt[:4]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(wait + wait/3)
	if _, err := r2.c.Write(pkt[4:]); err != nil {
		t.Fatal(err)
	}
	r2.seq = 1
	if b := r2.read(); len(b) == 0 || b[0] == 0xff {
		t.Fatalf("a command whose body came after the wait's deadline: %q", b)
	}
	for eofs := 0; eofs < 2; { // the columns' EOF, then the rows'
		if b := r2.read(); len(b) > 0 && b[0] == 0xfe && len(b) < 9 {
			eofs++
		}
	}
	one(r2, "after the slow command")

	// Idle for wait_timeout: 4031 and closed, as before.
	time.Sleep(wait + wait/3)
	code, msg := readErrPacket(t, r2.c)
	if code != 4031 || !strings.Contains(msg, "inactivity") {
		t.Fatalf("idle connection: %d %q, want 4031", code, msg)
	}
	expectClosed(t, r2.c, time.Second)
}

// TestPacketBufferReuse: a connection reuses its packet buffer for the
// next packet that fits (sqlgw/wire/conn.go, up to 4 KiB): commands of
// growing, shrinking and larger-than-kept sizes each arrive intact.
func TestPacketBufferReuse(t *testing.T) {
	srv := startConfigured(t, nil)
	r := dialRaw(t, srv.Addr().String(), "root", "")
	for i, n := range []int{10, 3000, 5, 4000, 100, 9000, 3, 4090, 4091, 20, 70000, 7} {
		pad := make([]byte, n)
		for j := range pad {
			pad[j] = byte('a' + (i*7+j*13)%26)
		}
		got, msg := r.query(fmt.Sprintf("SELECT LENGTH('%s'), MD5('%s')", pad, pad))
		want := fmt.Sprintf("%d\t%x", n, md5.Sum(pad))
		if msg != "" || len(got) != 1 || got[0] != want {
			t.Fatalf("command %d (%d bytes of text): %q %q, want %q", i, n, got, msg, want)
		}
	}
}

// TestMaxAllowedPacket: a statement over max_allowed_packet gets 1153 and
// the connection is closed (MySQL's behaviour); one under it runs. The
// default is MySQL 8's 64 MiB.
func TestMaxAllowedPacket(t *testing.T) {
	def := startConfigured(t, nil)
	rd := dialRaw(t, def.Addr().String(), "root", "")
	if got, msg := rd.query("SELECT @@max_allowed_packet"); msg != "" || len(got) != 1 || got[0] != "67108864" {
		t.Fatalf("default @@max_allowed_packet: %q %q", got, msg)
	}

	srv := startConfigured(t, func(c *sqlgw.Config) { c.MaxAllowedPacket = 1 << 20 })
	r := dialRaw(t, srv.Addr().String(), "root", "")
	ok := "SELECT LENGTH('" + strings.Repeat("a", 1<<19) + "')"
	if got, msg := r.query(ok); msg != "" || len(got) != 1 || got[0] != "524288" {
		t.Fatalf("512 KiB statement: %q %q", got, msg)
	}
	r.command(append([]byte{0x03}, "SELECT LENGTH('"+strings.Repeat("a", 2<<20)+"')"...)...)
	code, msg := readErrPacket(t, r.c)
	if code != 1153 || !strings.Contains(msg, "max_allowed_packet") {
		t.Fatalf("2 MiB statement: %d %q, want 1153", code, msg)
	}
	expectClosed(t, r.c, time.Second)
	// Over several 16 MiB packets, too, without buffering them.
	r2 := dialRaw(t, srv.Addr().String(), "root", "")
	big := append([]byte{0x03}, strings.Repeat("b", 20<<20)...)
	go func() {
		for p, seq := 0, byte(0); ; seq++ {
			n := min(len(big)-p, 0xffffff)
			r2.c.Write(append([]byte{byte(n), byte(n >> 8), byte(n >> 16), seq}, big[p:p+n]...))
			p += n
			if n < 0xffffff {
				return
			}
		}
	}()
	if code, _ := readErrPacket(t, r2.c); code != 1153 {
		t.Fatalf("20 MiB statement: %d, want 1153", code)
	}
}

// flakyListener fails Accept with the errors in errs first.
type flakyListener struct {
	net.Listener
	errs  []error
	calls atomic.Int32
}

func (l *flakyListener) Accept() (net.Conn, error) {
	if i := int(l.calls.Add(1)) - 1; i < len(l.errs) {
		return nil, l.errs[i]
	}
	return l.Listener.Accept()
}

// TestAcceptErrors: temporary accept errors (EMFILE) are waited out, as
// net/http does; any other error ends Serve with that error instead of nil
// (cmd/sqlgw then exits 1).
func TestAcceptErrors(t *testing.T) {
	emfile := &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fl := &flakyListener{Listener: ln, errs: []error{emfile, emfile, emfile}}
	srv := startConfigured(t, func(c *sqlgw.Config) { c.Listener = fl })
	r := dialRaw(t, srv.Addr().String(), "root", "")
	if got, msg := r.query("SELECT 1"); msg != "" || len(got) != 1 {
		t.Fatalf("after EMFILE: %q %q", got, msg)
	}

	ln2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("accept: the network went away")
	store, _ := sqltest.Memory.Open(t)
	srv2, err := sqlgw.NewServer(context.Background(), sqlgw.Config{Listener: &flakyListener{Listener: ln2, errs: []error{boom}}, Store: store,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer srv2.Close(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv2.Serve() }()
	select {
	case err := <-done:
		if !errors.Is(err, boom) {
			t.Fatalf("Serve: %v, want the accept error", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return on a fatal accept error")
	}
}
