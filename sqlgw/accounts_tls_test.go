package sqlgw_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/sqlgw"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

func selfSignedTLS(t *testing.T) *tls.Config {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "sqlgw test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
}

// TestAccountsCachingSha2TLS: caching_sha2_password's full authentication
// over TLS (the client sends the password inside TLS), and an account
// created REQUIRE SSL refused on a plain connection with 1045.
func TestAccountsCachingSha2TLS(t *testing.T) {
	store, co := sqltest.Memory.Open(t)
	ts, _ := startAccountsServer(t, store, co, "", func(c *sqlgw.Config) { c.TLSConfig = selfSignedTLS(t) })
	sqltest.NewRunner(t, ts.DB).Exec("CREATE USER 'sec'@'%' IDENTIFIED WITH caching_sha2_password BY 'sec-pw' REQUIRE SSL")
	addr := ts.Srv.Addr().String()
	expectLogin(t, 0, "over TLS", "sec", "sec-pw", addr, "?tls=skip-verify")
	expectLogin(t, 1045, "REQUIRE SSL account over plain TCP", "sec", "sec-pw", addr, "?tls=false")
	cli, err := exec.LookPath("mariadb")
	if err != nil {
		t.Skip("no mariadb client")
	}
	host, port, _ := net.SplitHostPort(addr)
	out, err := exec.Command(cli, "--protocol=tcp", "-h", host, "-P", port, "-u", "sec", "-psec-pw", "--ssl", "--ssl-verify-server-cert=0",
		"--batch", "--skip-column-names", "-e", "SELECT CURRENT_USER()").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "sec@%" {
		t.Fatalf("mariadb --ssl: %v %s", err, out)
	}
}
