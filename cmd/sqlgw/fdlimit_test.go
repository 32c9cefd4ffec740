package main

import (
	"database/sql"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// TestServeSurvivesDescriptorExhaustion: with RLIMIT_NOFILE at 64 and 150
// idle connections, accept fails with EMFILE. The server used to stop
// accepting for good, log "sqlgw: stopped" and exit 0 (so a
// restart-on-failure supervisor left it down). It must back off and go
// on: once the idle connections go away, new clients are served, and the
// existing session kept working throughout.
func TestServeSurvivesDescriptorExhaustion(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("needs bash for ulimit")
	}
	bin := sqlgwBinary(t)
	addr := sqltest.FreePort(t)
	g := sqltest.StartCommand(t, exec.Command("bash", "-c", `ulimit -n 64 && exec "$0" serve --listen "$1" --store memory: --connect-timeout 5m`, bin, addr), addr)
	g.MustBeReady(t, "exited before ready")
	db, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/", g.Addr))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	db.SetConnMaxLifetime(0)
	if _, err := db.Exec("CREATE DATABASE d"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE d.t (id INT PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}

	var idle []net.Conn
	defer func() {
		for _, c := range idle {
			c.Close()
		}
	}()
	for i := 0; i < 150; i++ {
		c, err := net.DialTimeout("tcp", g.Addr, 2*time.Second)
		if err != nil {
			t.Fatalf("dial %d: %v", i, err)
		}
		idle = append(idle, c)
	}
	time.Sleep(500 * time.Millisecond)
	if !strings.Contains(g.Out.String(), "too many open files") {
		t.Fatalf("the test did not exhaust the descriptors; log:\n%s", g.Out.String())
	}
	select {
	case <-g.Done():
		t.Fatalf("server exited (%v) on descriptor exhaustion:\n%s", g.Cmd.ProcessState, g.Out.String())
	default:
	}
	// The open session still works.
	if _, err := db.Exec("INSERT INTO d.t VALUES (1)"); err != nil {
		t.Fatalf("existing session during exhaustion: %v", err)
	}
	for _, c := range idle {
		c.Close()
	}
	idle = nil
	// New clients are served again (the backoff is at most 1 s).
	fresh, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/?timeout=5s", g.Addr))
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	var n int
	deadline := time.Now().Add(20 * time.Second)
	for {
		err = fresh.QueryRow("SELECT COUNT(*) FROM d.t").Scan(&n)
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err != nil || n != 1 {
		t.Fatalf("a new client after the exhaustion: n=%d, %v\n%s", n, err, g.Out.String())
	}
	select {
	case <-g.Done():
		t.Fatalf("server exited: %s", g.Out.String())
	default:
	}
}

// TestServeFatalErrorExitsNonZero: "sqlgw serve" exits 1, not 0, when it
// stops for any reason other than a signal (here the store cannot open).
func TestServeExitStatusOnFailure(t *testing.T) {
	bin := sqlgwBinary(t)
	cmd := exec.Command(bin, "serve", "--listen", sqltest.FreePort(t), "--store", "pebble:/proc/nonexistent/x")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want status 1: %s", err, out)
	}
}
