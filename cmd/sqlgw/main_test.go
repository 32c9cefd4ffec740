package main

import (
	"bytes"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

func TestHelp(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"--help"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"--listen", "--store", "pebble:DIR", "memory:", "azure:", "--user", "--password",
		"SQLGW_STORE", "SQLGW_LISTEN", "SQLGW_USER", "SQLGW_PASSWORD", "SIGTERM"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--help does not mention %s", want)
		}
	}
}

func TestNonLoopbackNeedsPassword(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"serve", "--listen", "0.0.0.0:0", "--store", "memory:"}, &out, &errb)
	if code == 0 || !strings.Contains(errb.String(), "password") {
		t.Fatalf("exit %d, stderr %q: want a refusal naming the password", code, errb.String())
	}
}

func TestUnknownStore(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"serve", "--store", "nosuch:AccountKey=secret", "--listen", "127.0.0.1:0"}, &out, &errb)
	if code == 0 || strings.Contains(errb.String(), "secret") {
		t.Fatalf("exit %d, stderr %q: want an error that does not echo the key", code, errb.String())
	}
}

// startServe runs "sqlgw serve" in-process and waits until it answers.
func startServe(t *testing.T, env map[string]string, args ...string) (addr string, logs *sqltest.SyncBuffer, done chan int) {
	t.Helper()
	for k, v := range env {
		t.Setenv(k, v)
	}
	addr = sqltest.FreePort(t)
	logs = &sqltest.SyncBuffer{}
	done = make(chan int, 1)
	go func() { done <- run(append([]string{"serve", "--listen", addr}, args...), logs, logs) }()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(logs.String(), "sqlgw ready") {
		if time.Now().After(deadline) {
			t.Fatalf("server not ready: %s", logs.String())
		}
		select {
		case code := <-done:
			t.Fatalf("server exited %d: %s", code, logs.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	return addr, logs, done
}

// TestServeShutdownKeepsWrites: SIGTERM stops the server cleanly and every
// acknowledged write is there after a restart on the same directory.
func TestServeShutdownKeepsWrites(t *testing.T) {
	dir := t.TempDir()
	addr, logs, done := startServe(t, map[string]string{"SQLGW_STORE": "pebble:" + dir})
	if !strings.Contains(logs.String(), "sqlgw ready: listening on "+addr+" store pebble:"+dir) {
		t.Errorf("ready line: %s", logs.String())
	}
	db := sqltest.Client(t, "root", addr, "")
	r := sqltest.NewRunner(t, db)
	r.ExecAll("CREATE DATABASE d", "CREATE TABLE d.t (id INT PRIMARY KEY, v INT)")
	for i := 0; i < 50; i++ {
		r.Exec("INSERT INTO d.t VALUES (?, ?)", i, i*i)
	}
	db.Close()
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d: %s", code, logs.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no shutdown after SIGTERM")
	}

	addr, _, done = startServe(t, nil, "--store", "pebble:"+dir)
	db = sqltest.Client(t, "root", addr, "")
	// After the restart: 50 rows, sum 40425.
	sqltest.NewRunner(t, db).ExpectRows("SELECT COUNT(*), SUM(v) FROM d.t", "50\t40425")
	db.Close()
	syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	<-done
}

// TestPassword: a configured password is required.
func TestPassword(t *testing.T) {
	addr, _, done := startServe(t, map[string]string{"SQLGW_USER": "app", "SQLGW_PASSWORD": "s3cret"}, "--store", "memory:")
	defer func() {
		syscall.Kill(syscall.Getpid(), syscall.SIGINT)
		<-done
	}()
	good := sqltest.Client(t, "app:s3cret", addr, "")
	defer good.Close()
	if err := good.Ping(); err != nil {
		t.Fatalf("right password: %v", err)
	}
	bad := sqltest.Client(t, "app:wrong", addr, "")
	defer bad.Close()
	if err := bad.Ping(); err == nil {
		t.Fatal("wrong password accepted")
	}
	root := sqltest.Client(t, "root", addr, "")
	defer root.Close()
	if err := root.Ping(); err == nil {
		t.Fatal("root without password accepted although --user app --password is set")
	}
}
