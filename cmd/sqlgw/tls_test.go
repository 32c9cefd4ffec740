package main

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// writeSelfSigned writes a self-signed certificate for 127.0.0.1 and its
// key as PEM files in dir.
func writeSelfSigned(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "sqlgw test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}

func stopServe(t *testing.T, done chan int) {
	t.Helper()
	syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Error("no shutdown after SIGINT")
	}
}

// TestTLS: with a certificate, clients connect over TLS; with
// --require-secure-transport a plain connection gets MySQL's error 3159.
func TestTLS(t *testing.T) {
	certFile, keyFile := writeSelfSigned(t, t.TempDir())
	addr, _, done := startServe(t, nil, "--store", "memory:", "--tls-cert", certFile, "--tls-key", keyFile,
		"--require-secure-transport")
	defer stopServe(t, done)

	secure := sqltest.Client(t, "root", addr, "?tls=skip-verify")
	defer secure.Close()
	var one int
	if err := secure.QueryRow("SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("over TLS: %v %d", err, one)
	}
	// The connection's packet fixes apply over TLS too: a server-side
	// prepared statement with an @var := assignment (MariaDB ODBC's catalog
	// queries), which go-mysql-server's parser cannot prepare as sent.
	var x int
	if err := secure.QueryRow("SELECT @x := ?", 7).Scan(&x); err != nil || x != 7 {
		t.Fatalf("prepared @x := ? over TLS: %v %d", err, x)
	}

	plain := sqltest.Client(t, "root", addr, "?tls=false")
	defer plain.Close()
	err := plain.Ping()
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 3159 {
		t.Fatalf("plain connection with --require-secure-transport: %v, want error 3159", err)
	}

	// The mysql CLI negotiates TLS and reports the cipher.
	cli, err := exec.LookPath("mariadb")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("mariadb (Debian mariadb-client) is required in CI")
		}
		t.Skip("mariadb client not installed (Debian mariadb-client)")
	}
	host, port, _ := net.SplitHostPort(addr)
	out, err := exec.Command(cli, "-h", host, "-P", port, "-u", "root", "--ssl", "--ssl-verify-server-cert=0", "-e", "status").CombinedOutput()
	if err != nil {
		t.Fatalf("mariadb --ssl: %v\n%s", err, out)
	}
	if !regexp.MustCompile(`SSL:\s+Cipher in use is \S+`).Match(out) {
		t.Errorf("mariadb --ssl status does not show a cipher:\n%s", out)
	}
	// Protocol commands the gateway answers below vitess work over TLS
	// too (COM_STATISTICS: mariadb-admin status).
	if admin, err := exec.LookPath("mariadb-admin"); err == nil {
		out, err := exec.Command(admin, "-h", host, "-P", port, "-u", "root", "--ssl", "--ssl-verify-server-cert=0", "status").CombinedOutput()
		if err != nil || !strings.Contains(string(out), "Uptime:") {
			t.Errorf("mariadb-admin --ssl status: %v\n%s", err, out)
		}
	}
}

func TestTLSFlagsNeedEachOther(t *testing.T) {
	for _, args := range [][]string{
		{"--tls-cert", "x.pem"},
		{"--require-secure-transport"},
	} {
		var out, errb bytes.Buffer
		code := run(append([]string{"serve", "--listen", "127.0.0.1:0", "--store", "memory:"}, args...), &out, &errb)
		if code == 0 || !strings.Contains(errb.String(), "--tls-") {
			t.Errorf("%v: exit %d, stderr %q: want a refusal naming the TLS flags", args, code, errb.String())
		}
	}
}

// TestMetrics: the Prometheus endpoint counts connections, statements,
// store requests by operation and table reads by access path.
func TestMetrics(t *testing.T) {
	maddr := sqltest.FreePort(t)
	addr, logs, done := startServe(t, nil, "--store", "memory:", "--metrics-listen", maddr)
	defer stopServe(t, done)
	if !strings.Contains(logs.String(), "metrics on http://"+maddr+"/metrics") {
		t.Errorf("no metrics log line: %s", logs.String())
	}
	scrape := func() map[string]float64 {
		t.Helper()
		resp, err := http.Get("http://" + maddr + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
			t.Errorf("Content-Type %q", ct)
		}
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]float64{}
		for _, line := range strings.Split(string(body), "\n") {
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			name, val, ok := strings.Cut(line, "\t")
			if !ok {
				t.Fatalf("malformed line %q", line)
			}
			f, err := strconv.ParseFloat(val, 64)
			if err != nil {
				t.Fatalf("line %q: %v", line, err)
			}
			out[name] = f
		}
		return out
	}
	before := scrape()

	db := sqltest.Client(t, "root", addr, "")
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, q := range []string{
		"CREATE DATABASE m", "CREATE TABLE m.t (id INT PRIMARY KEY, v INT)",
		"INSERT INTO m.t VALUES (1, 10), (2, 20), (3, 30)",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	var v int
	for i := 0; i < 5; i++ {
		if err := db.QueryRow("SELECT v FROM m.t WHERE id = 2").Scan(&v); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec("SELECT nosuchcolumn FROM m.t"); err == nil {
		t.Fatal("want an error")
	}
	after := scrape()
	diff := func(name string) float64 { return after[name] - before[name] }

	if got := diff(`sqlgw_table_reads_total{path="PointGet"}`); got < 5 {
		t.Errorf("PointGet reads: %v, want >= 5", got)
	}
	if got := diff(`sqlgw_table_read_store_requests_total{path="PointGet"}`); got < 5 {
		t.Errorf("PointGet requests: %v, want >= 5", got)
	}
	if got := diff(`sqlgw_table_read_duration_seconds_count{path="PointGet"}`); got < 5 {
		t.Errorf("PointGet latency observations: %v, want >= 5", got)
	}
	if got := diff(`sqlgw_store_requests_total{op="get"}`); got < 5 {
		t.Errorf("store gets: %v, want >= 5", got)
	}
	if got := diff(`sqlgw_store_requests_total{op="batch"}`) + diff(`sqlgw_store_requests_total{op="insert"}`); got < 1 {
		t.Errorf("store writes: %v, want >= 1", got)
	}
	if got := diff(`sqlgw_store_entities_written_total`); got < 3 {
		t.Errorf("entities written: %v, want >= 3", got)
	}
	if got := diff(`sqlgw_statements_total{result="error"}`); got < 1 {
		t.Errorf("failed statements: %v, want >= 1", got)
	}
	if got := diff(`sqlgw_statements_total{result="ok"}`); got < 8 {
		t.Errorf("statements: %v, want >= 8", got)
	}
	if after[`sqlgw_connections`] < 1 || diff(`sqlgw_connections_total`) < 1 {
		t.Errorf("connections: open %v, total +%v", after[`sqlgw_connections`], diff(`sqlgw_connections_total`))
	}
	// Histogram buckets are cumulative and end with the count.
	if b, c := after[`sqlgw_store_request_duration_seconds_bucket{op="get",le="+Inf"}`], after[`sqlgw_store_request_duration_seconds_count{op="get"}`]; b != c || c == 0 {
		t.Errorf("get histogram: +Inf bucket %v, count %v", b, c)
	}
}
