package sqlgw_test

import (
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// errOf parses an error packet's payload: code and message.
func errOf(b []byte) (uint16, string) {
	if len(b) < 3 || b[0] != 0xff {
		return 0, ""
	}
	msg := string(b[3:])
	if strings.HasPrefix(msg, "#") && len(msg) >= 6 {
		msg = msg[6:]
	}
	return uint16(b[1]) | uint16(b[2])<<8, msg
}

// rawErr runs q and returns the error packet's code and text.
func rawErr(t *testing.T, r *rawConn, q string) (uint16, string) {
	t.Helper()
	r.command(append([]byte{0x03}, q...)...)
	b := r.read()
	if b[0] != 0xff {
		for b[0] != 0x00 && !(b[0] == 0xfe && len(b) < 9) { // skip a result set
			b = r.read()
			if b[0] == 0xfe && len(b) < 9 {
				b = r.read()
				for !(b[0] == 0xfe && len(b) < 9) {
					b = r.read()
				}
				break
			}
		}
		return 0, ""
	}
	return errOf(b)
}

// TestEmptyQuery: a statement of only blanks and comments is MySQL's 1065;
// it was an OK.
func TestEmptyQuery(t *testing.T) {
	srv := startConfigured(t, nil)
	r := dialRaw(t, srv.Addr().String(), "root", "")
	for _, q := range []string{"", "   ", "/* nothing */", "-- nothing\n", "# x"} {
		if code, msg := rawErr(t, r, q); code != 1065 || msg != "Query was empty" {
			t.Errorf("%q: %d %q, want 1065 Query was empty", q, code, msg)
		}
	}
	if code, msg := rawErr(t, r, "/*!40101 SET NAMES utf8mb4 */"); code != 0 {
		t.Errorf("an executable comment: %d %q", code, msg)
	}
	if got, msg := r.query("SELECT 7"); msg != "" || len(got) != 1 || got[0] != "7" {
		t.Errorf("after: %q %q", got, msg)
	}
}

// TestKillCodes: KILL QUERY interrupts with MySQL's 1317 (it was 1105
// "context canceled") and leaves the connection usable; KILL CONNECTION
// ends the connection with 1927 or, if the close wins, no packet (the
// client's 2013).
func TestKillCodes(t *testing.T) {
	srv := startConfigured(t, nil)
	admin := dialRaw(t, srv.Addr().String(), "root", "")
	a := dialRaw(t, srv.Addr().String(), "root", "")
	ids, _ := a.query("SELECT CONNECTION_ID()")
	done := make(chan [2]any, 1)
	go func() {
		a.command(append([]byte{0x03}, "SELECT SLEEP(20)"...)...)
		code, msg := errOf(a.read())
		done <- [2]any{code, msg}
	}()
	time.Sleep(300 * time.Millisecond)
	if _, msg := admin.query("KILL QUERY " + ids[0]); msg != "" {
		t.Fatalf("KILL QUERY: %s", msg)
	}
	select {
	case got := <-done:
		if got[0].(uint16) != 1317 || got[1].(string) != "Query execution was interrupted" {
			t.Fatalf("killed query: %v %q, want 1317", got[0], got[1])
		}
	case <-time.After(10 * time.Second):
		t.Fatal("KILL QUERY did not interrupt")
	}
	if got, msg := a.query("SELECT 1"); msg != "" || len(got) != 1 {
		t.Fatalf("connection after KILL QUERY: %q %q", got, msg)
	}

	b := dialRaw(t, srv.Addr().String(), "root", "")
	ids, _ = b.query("SELECT CONNECTION_ID()")
	got := make(chan string, 1)
	go func() {
		b.command(append([]byte{0x03}, "SELECT SLEEP(20)"...)...)
		hdr := make([]byte, 4)
		if _, err := io.ReadFull(b.c, hdr); err != nil {
			got <- "closed"
			return
		}
		p := make([]byte, int(hdr[0])|int(hdr[1])<<8|int(hdr[2])<<16)
		io.ReadFull(b.c, p)
		code, msg := errOf(p)
		got <- fmt.Sprintf("%d %s", code, msg)
	}()
	time.Sleep(300 * time.Millisecond)
	if _, msg := admin.query("KILL " + ids[0]); msg != "" {
		t.Fatalf("KILL: %s", msg)
	}
	select {
	case g := <-got:
		if g != "closed" && g != "1927 Connection was killed" {
			t.Fatalf("killed connection: %s, want 1927 or a closed connection", g)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("KILL did not end the connection")
	}
	expectClosed(t, b.c, 5*time.Second)
}

// TestBadHandshake: a handshake response vitess cannot parse is answered
// 1043 Bad handshake before the connection closes (it was closed
// silently).
func TestBadHandshake(t *testing.T) {
	srv := startConfigured(t, nil)
	for _, pkt := range [][]byte{
		{5, 0, 0, 1, 'h', 'e', 'l', 'l', 'o'},            // not a HandshakeResponse41
		{4, 0, 0, 7, 0, 0, 0, 0},                         // out of sequence
		append([]byte{40, 0, 0, 1}, make([]byte, 40)...), // no capabilities, no user
	} {
		c, err := net.Dial("tcp", srv.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		readErrPacket(t, c) // greeting
		c.Write(pkt)
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if code, msg := readErrPacket(t, c); code != 1043 || msg != "#08S01Bad handshake" {
			t.Errorf("handshake % x: %d %q, want 1043", pkt[:8], code, msg)
		}
		expectClosed(t, c, 2*time.Second)
		c.Close()
	}
}

// TestCommonSystemVariables: the variables tools read on connect exist
// with MySQL 8's values; optimizer_switch can be set for a session.
func TestCommonSystemVariables(t *testing.T) {
	store, _ := sqltest.Memory.Open(t)
	ts := sqltest.Start(t, store, sqltest.Options{})
	c := sqltest.NewRunner(t, ts.Conn())
	c.ExpectRows("SELECT @@optimizer_switch LIKE 'index_merge=on,%hash_join=on%', @@session.optimizer_switch = @@global.optimizer_switch", "1\t1")
	c.ExpectRows("SELECT @@have_ssl, @@have_openssl, @@innodb_version, @@innodb_file_per_table, @@innodb_page_size, @@profiling",
		"DISABLED\tDISABLED\t8.0.33\t1\t16384\t0")
	c.Script(`
		exec SET SESSION optimizer_switch = 'mrr=off'
		query SELECT @@optimizer_switch
		= mrr=off
		error 1238 SET GLOBAL innodb_file_per_table = OFF
		query SELECT @@max_allowed_packet, @@connect_timeout, @@max_connections
		= 67108864 | 10 | 151
	`)
}
