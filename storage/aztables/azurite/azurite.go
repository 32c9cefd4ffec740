// Package azurite installs and runs Azurite, the Azure Storage emulator, for
// tests of the Azure Table backend and of the gateway on top of it.
//
// # Installation
//
// The Azurite version is pinned by tools/azurite/package.json and its
// package-lock.json, committed at the repository root. Install runs
// `npm ci` with them into .tools/azurite/<hash>/, where <hash> is derived
// from both files, so a checkout installs once per lock file (about 45 s)
// and reuses the result afterwards. Concurrent test binaries (go test runs
// packages in parallel) serialize on an flock(2) of .tools/azurite/install.lock;
// npm writes into a temporary directory that is renamed into place only when
// complete, so an interrupted install never leaves a half-populated directory
// that a later run would trust.
//
// The pin is azurite 3.35.0: it declares node>=10 and runs cleanly on the
// node 20 of our machines and CI images, while 3.37.0 declares node>=22 and
// warns EBADENGINE on node 20. The Table behaviour this project relies on
// (and works around, see storage/aztables) was measured the same in both.
// To move the pin, edit package.json,
// run `npm install --package-lock-only` in tools/azurite and commit both
// files; the next test run installs the new version beside the old one.
//
// # Running
//
// Launch starts `azurite-table` bound to 127.0.0.1 on a free port with
// --inMemoryPersistence --disableTelemetry --skipApiVersionCheck --silent, waits for its
// "successfully started" line (failing if the process exits first or after
// 30 s), and Stop ends it by its PID (SIGTERM, then SIGKILL). On Linux the
// child also gets SIGTERM if the test binary dies (Pdeathsig).
//
// --silent turns off Azurite's access log, a line on stdout per request,
// which this package kept in memory for the life of the test binary and
// relayed through a pipe: two wake-ups of the test process for each
// request, landing while the next request was in flight. They lengthened
// the measured requests of cmd/sqlgw's BenchmarkGatewayAzure unevenly
// (docs/benchmarks.md, "Azure point select latency"). Errors still reach
// Server.Output; Options.Args can add --debug.
//
// # Tests
//
// Start gives a test its own instance; Shared gives every test of a binary
// one instance, started on first use and stopped by Main, which a package
// wires in its TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(azurite.Main(m)) }
//
//	func TestX(t *testing.T) {
//		connStr := azurite.Shared(t)
//		...
//	}
//
// When Azurite cannot be installed or started (no node/npm, no network), the
// test is skipped with the reason, unless the environment variable CI is
// "true": then it fails, so that continuous integration always exercises the
// Azure backend. Setting SQLGW_AZURE_CONNSTR makes Start and Shared return
// that connection string instead of running Azurite (to run the same tests
// against a real account).
package azurite

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// AccountName and AccountKey are Azurite's well-known development account.
// The key is public (documented by Microsoft for the emulator).
const (
	AccountName = "devstoreaccount1"
	AccountKey  = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// EnvConnStr names the environment variable that, when set, replaces Azurite
// with an existing Table service endpoint in Start and Shared.
const EnvConnStr = "SQLGW_AZURE_CONNSTR"

// StartTimeout bounds how long Launch waits for "successfully started".
const StartTimeout = 30 * time.Second

// Server is a running azurite-table process.
type Server struct {
	// ConnectionString is a Shared Key connection string for the server.
	ConnectionString string
	// Endpoint is the Table endpoint, http://127.0.0.1:PORT/devstoreaccount1.
	Endpoint string
	// Port is the TCP port on 127.0.0.1.
	Port int

	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
	log  *lockedBuffer

	stopOnce sync.Once
	stopErr  error
}

// PID returns the process id of azurite-table.
func (s *Server) PID() int { return s.cmd.Process.Pid }

// Output returns what Azurite printed so far (for failure messages).
func (s *Server) Output() string { return s.log.String() }

// Options configure Launch. The zero value is usable.
type Options struct {
	// Root is the repository root (holding tools/azurite and .tools). Empty:
	// found by walking up from the working directory.
	Root string
	// Args are extra azurite-table arguments (e.g. "--debug", path).
	Args []string
	// Logf receives progress messages (install, start); nil discards them.
	Logf func(format string, args ...any)
}

// ConnectionString returns the Shared Key connection string of the
// development account at a Table endpoint.
func ConnectionString(endpoint string) string {
	return "DefaultEndpointsProtocol=http;AccountName=" + AccountName + ";AccountKey=" + AccountKey +
		";TableEndpoint=" + endpoint + ";"
}

// Launch installs Azurite if needed and starts azurite-table on a free
// loopback port. The caller must Stop the returned server.
func Launch(ctx context.Context, opts *Options) (*Server, error) {
	if opts == nil {
		opts = &Options{}
	}
	bin, err := Install(ctx, opts)
	if err != nil {
		return nil, err
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ { // a free port can be taken between probe and bind
		s, err := launch(ctx, bin, opts)
		if err == nil {
			return s, nil
		}
		lastErr = err
		if !errors.Is(err, errPortInUse) {
			break
		}
	}
	return nil, lastErr
}

var errPortInUse = errors.New("azurite: port already in use")

func launch(ctx context.Context, bin string, opts *Options) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	args := append([]string{
		"--tableHost", "127.0.0.1",
		"--tablePort", strconv.Itoa(port),
		"--inMemoryPersistence",
		"--disableTelemetry",
		"--skipApiVersionCheck",
		"--silent", // no access log line per request (see the package doc)
	}, opts.Args...)
	cmd := exec.Command(bin, args...)
	cmd.Dir = filepath.Dir(bin)
	cmd.SysProcAttr = sysProcAttr()
	log := &lockedBuffer{}
	pr, pw := io.Pipe()
	cmd.Stdout = io.MultiWriter(log, pw)
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("azurite: starting %s: %w", bin, err)
	}
	s := &Server{
		Port:     port,
		Endpoint: fmt.Sprintf("http://127.0.0.1:%d/%s", port, AccountName),
		cmd:      cmd,
		done:     make(chan struct{}),
		log:      log,
	}
	s.ConnectionString = ConnectionString(s.Endpoint)
	go func() {
		cmd.Wait()
		pw.Close()
		close(s.done)
	}()
	started := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(pr)
		signalled := false
		for sc.Scan() {
			if !signalled && strings.Contains(sc.Text(), "successfully started") {
				close(started)
				signalled = true
			}
		}
		io.Copy(io.Discard, pr) // keep draining so Azurite never blocks on stdout
	}()
	timer := time.NewTimer(StartTimeout)
	defer timer.Stop()
	select {
	case <-started:
		if opts.Logf != nil {
			opts.Logf("azurite: table service on %s (pid %d)", s.Endpoint, s.PID())
		}
		return s, nil
	case <-s.done:
		out := log.String()
		if strings.Contains(out, "EADDRINUSE") {
			return nil, fmt.Errorf("%w: %d", errPortInUse, port)
		}
		return nil, fmt.Errorf("azurite: azurite-table exited before it started (%v); output:\n%s", cmd.ProcessState, out)
	case <-timer.C:
		s.Stop()
		return nil, fmt.Errorf("azurite: azurite-table did not report \"successfully started\" within %v; output:\n%s", StartTimeout, log.String())
	case <-ctx.Done():
		s.Stop()
		return nil, ctx.Err()
	}
}

// Stop terminates the server by its PID: SIGTERM, then SIGKILL after 5 s.
// It is safe to call more than once.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		select {
		case <-s.done:
			return
		default:
		}
		if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			s.stopErr = err
		}
		select {
		case <-s.done:
		case <-time.After(5 * time.Second):
			s.stopErr = s.cmd.Process.Kill()
			<-s.done
		}
	})
	return s.stopErr
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("azurite: finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Install makes sure the pinned Azurite is installed and returns the path
// of its azurite-table executable.
func Install(ctx context.Context, opts *Options) (string, error) {
	root := opts.Root
	if root == "" {
		var err error
		if root, err = FindRoot(); err != nil {
			return "", err
		}
	}
	src := filepath.Join(root, "tools", "azurite")
	pkg, err := os.ReadFile(filepath.Join(src, "package.json"))
	if err != nil {
		return "", fmt.Errorf("azurite: %w", err)
	}
	lock, err := os.ReadFile(filepath.Join(src, "package-lock.json"))
	if err != nil {
		return "", fmt.Errorf("azurite: %w", err)
	}
	h := sha256.New()
	h.Write(pkg)
	h.Write([]byte{0})
	h.Write(lock)
	sum := hex.EncodeToString(h.Sum(nil))[:16]

	base := filepath.Join(root, ".tools", "azurite")
	dir := filepath.Join(base, sum)
	bin := filepath.Join(dir, "node_modules", ".bin", "azurite-table")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", fmt.Errorf("azurite: %w", err)
	}
	unlock, err := lockFile(ctx, filepath.Join(base, "install.lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	if _, err := os.Stat(bin); err == nil { // another process installed it while we waited
		return bin, nil
	}
	// Temporary directories left by an installer that died: holding the
	// lock, we know nobody is writing them.
	if stale, err := filepath.Glob(filepath.Join(base, "tmp-*")); err == nil {
		for _, d := range stale {
			os.RemoveAll(d)
		}
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("azurite: npm is not installed (needed to install Azurite): %w", err)
	}
	tmp, err := os.MkdirTemp(base, "tmp-"+sum+"-")
	if err != nil {
		return "", fmt.Errorf("azurite: %w", err)
	}
	defer os.RemoveAll(tmp) // after a successful rename there is nothing left to remove
	for name, data := range map[string][]byte{"package.json": pkg, "package-lock.json": lock} {
		if err := os.WriteFile(filepath.Join(tmp, name), data, 0o644); err != nil {
			return "", fmt.Errorf("azurite: %w", err)
		}
	}
	if opts.Logf != nil {
		opts.Logf("azurite: npm ci into %s (about a minute, once per lock file)", dir)
	}
	start := time.Now()
	cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = tmp
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("azurite: npm ci failed: %w; output:\n%s", err, out.String())
	}
	if _, err := os.Stat(filepath.Join(tmp, "node_modules", ".bin", "azurite-table")); err != nil {
		return "", fmt.Errorf("azurite: npm ci succeeded but azurite-table is missing: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", fmt.Errorf("azurite: %w", err)
	}
	if opts.Logf != nil {
		opts.Logf("azurite: installed in %v", time.Since(start).Round(time.Second))
	}
	return bin, nil
}

// FindRoot returns the repository root: the nearest directory at or above
// the working directory that holds tools/azurite/package.json.
func FindRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "tools", "azurite", "package.json")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("azurite: tools/azurite/package.json not found above the working directory")
		}
		dir = parent
	}
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Start runs a dedicated Azurite for t, stopped when t's cleanup runs, and
// returns its connection string. See the package doc for skipping and CI.
func Start(t testing.TB) string {
	t.Helper()
	if cs := os.Getenv(EnvConnStr); cs != "" {
		return cs
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s, err := Launch(ctx, &Options{Logf: t.Logf})
	if err != nil {
		unavailable(t, err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Logf("azurite: stop: %v", err)
		}
	})
	return s.ConnectionString
}

var shared struct {
	once   sync.Once
	server *Server
	err    error
	mu     sync.Mutex
	main   bool
}

// Shared returns the connection string of the test binary's one Azurite,
// starting it on first use. Main stops it when the tests are done; without
// Main it lives until the test binary exits (on Linux it is then signalled).
func Shared(t testing.TB) string {
	t.Helper()
	if cs := os.Getenv(EnvConnStr); cs != "" {
		return cs
	}
	shared.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		shared.server, shared.err = Launch(ctx, &Options{Logf: t.Logf})
	})
	if shared.err != nil {
		unavailable(t, shared.err)
	}
	return shared.server.ConnectionString
}

// SharedServer is Shared returning the Server itself (its endpoint and PID).
func SharedServer(t testing.TB) *Server {
	t.Helper()
	Shared(t)
	if shared.server == nil {
		t.Fatalf("azurite: %s is set; there is no local server", EnvConnStr)
	}
	return shared.server
}

// Main runs m and then stops the shared Azurite, if one was started. Use it
// as the body of TestMain: os.Exit(azurite.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	if shared.server != nil {
		shared.server.Stop()
	}
	return code
}

// InCI reports whether the environment variable CI is "true".
func InCI() bool { return os.Getenv("CI") == "true" }

func unavailable(t testing.TB, err error) {
	t.Helper()
	if InCI() {
		t.Fatalf("azurite is required under CI=true but is unavailable: %v", err)
	}
	t.Skipf("skipping: Azurite is unavailable (set CI=true to make this a failure): %v", err)
}
