package sqltest

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Process is one "sqlgw serve" process: cmd/sqlgw's tests run the real
// binary (crash tests SIGKILL it and start another on the same store).
type Process struct {
	Addr string      // the loopback address it listens on
	Cmd  *exec.Cmd   // the running command
	Out  *SyncBuffer // its stdout and stderr
	done chan struct{}
}

// StartProcess runs "bin serve --listen addr args..." on a free loopback
// port with env added to the environment, waits (up to 60 s) for its
// "sqlgw ready" line, and stops it by its PID (Stop) when t ends. If the
// process exits before it is ready, StartProcess returns it with Done
// closed and does not fail t: the caller reads Out.
func StartProcess(t testing.TB, bin string, env []string, args ...string) *Process {
	t.Helper()
	addr := FreePort(t)
	cmd := exec.Command(bin, append([]string{"serve", "--listen", addr}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	return StartCommand(t, cmd, addr)
}

// StartCommand is StartProcess for a command the test prepared itself (a
// shell that sets limits, then execs "sqlgw serve --listen addr ..."): it
// captures the command's output, starts it and waits for the ready line.
func StartCommand(t testing.TB, cmd *exec.Cmd, addr string) *Process {
	t.Helper()
	p := &Process{Addr: addr, Cmd: cmd, Out: &SyncBuffer{}, done: make(chan struct{})}
	p.Cmd.Stdout, p.Cmd.Stderr = p.Out, p.Out
	if err := p.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.Cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { p.Stop(t) })
	deadline := time.After(60 * time.Second)
	for !strings.Contains(p.Out.String(), "sqlgw ready") {
		select {
		case <-p.done:
			return p
		case <-deadline:
			t.Fatalf("sqlgw serve not ready after 60 s: %s", p.Out.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	return p
}

// Done is closed when the process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Ready reports whether the process runs and has printed its ready line.
func (p *Process) Ready() bool {
	select {
	case <-p.done:
		return false
	default:
		return strings.Contains(p.Out.String(), "sqlgw ready")
	}
}

// Client opens a client pool on the process as root without a password
// (Client), closed when the test ends.
func (p *Process) Client(t testing.TB) *sql.DB {
	t.Helper()
	return Client(t, "root", p.Addr, "")
}

// Stop sends SIGTERM to the process (by its PID) and waits for it to exit,
// killing it (and failing t) after 20 s. Stopping an exited process does
// nothing.
func (p *Process) Stop(t testing.TB) {
	select {
	case <-p.done:
		return
	default:
	}
	if err := syscall.Kill(p.Cmd.Process.Pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		t.Errorf("SIGTERM to %d: %v", p.Cmd.Process.Pid, err)
	}
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		t.Errorf("sqlgw serve %d ignored SIGTERM for 20 s; killing it", p.Cmd.Process.Pid)
		syscall.Kill(p.Cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
}

// Kill sends SIGKILL to the process (a crash: nothing is flushed) and
// waits (up to 20 s) for it to exit.
func (p *Process) Kill(t testing.TB) {
	t.Helper()
	if err := syscall.Kill(p.Cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatalf("SIGKILL %d: %v", p.Cmd.Process.Pid, err)
	}
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		t.Fatalf("sqlgw serve %d still running 20 s after SIGKILL", p.Cmd.Process.Pid)
	}
}

// FreePort returns a loopback address ("127.0.0.1:port") that was free a
// moment ago, for a server that must be told its address up front.
func FreePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// SyncBuffer is a bytes.Buffer safe for concurrent writers (a process's
// stdout and stderr) and readers.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// MustBeReady fails t unless the process runs and has printed its ready
// line (StartProcess returns a process that exited early without failing
// t); the message is format and args, then the process's output.
func (p *Process) MustBeReady(t testing.TB, format string, args ...any) {
	t.Helper()
	if !p.Ready() {
		t.Fatalf("%s: %s", fmt.Sprintf(format, args...), p.Out.String())
	}
}
