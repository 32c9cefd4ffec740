package accounts

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"net"
	"reflect"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/mysql_db"
	"github.com/dolthub/vitess/go/mysql"
)

// Authentication
//
// authServer is the listener's mysql.AuthServer (vitess negotiates the
// method with the client; see vitess's Listener.handle). The greeting
// offers mysql_native_password, which every client speaks; an account
// created IDENTIFIED WITH caching_sha2_password is switched to it, as
// MySQL 8 does; a client that answers the greeting with
// caching_sha2_password (MySQL 8's libraries, Connector/J, PyMySQL) for a
// mysql_native_password account is switched to mysql_native_password.
//
//   - mysql_native_password: the scramble is checked against the stored
//     SHA1(SHA1(password)).
//   - caching_sha2_password, as MySQL 8: fast authentication (the client's
//     SHA-256 scramble) against this gateway's in-memory cache of
//     SHA256(SHA256(password)), filled by the account's last successful
//     full authentication and dropped when its password changes; otherwise
//     full authentication: over TLS the client sends the password, over
//     plain TCP it asks for the gateway's RSA public key (or has it, as
//     --server-public-key-path) and sends the password encrypted with
//     RSA-OAEP. The 2048-bit key pair is generated when first needed and
//     lives as long as the process (MySQL's auto-generated keys). A client
//     that refuses to send a password over plain TCP without the key
//     (mysql --get-server-public-key not given) fails on its side, with
//     its own message (MySQL's 2061). libmariadb's plugin sends the
//     password itself over loopback TCP; that is accepted from loopback
//     addresses only (traffic that never leaves the host, as MySQL trusts
//     a Unix socket).
//   - Every failure answers MySQL's 1045 "Access denied for user
//     'u'@'host' (using password: YES|NO)", whatever went wrong (no
//     account, wrong password, locked account, a TLS requirement not met),
//     and is logged with the user name and client address, never the
//     password.
//   - Failed logins are slowed down per client IP address, as MySQL's
//     connection_control plugin does: after LoginDelay.Threshold (default
//     3) consecutive failures, every further attempt from that address
//     waits Step (default 1 s) times the number of failures beyond the
//     threshold (at most Max, default 30 s) before its password is checked,
//     and attempts from one address are spaced by that delay even when they
//     arrive on parallel connections. A successful login from the address
//     resets its count; an address without failures for an hour is
//     forgotten.

// LoginDelay is the policy for repeated failed logins (see above).
type LoginDelay struct {
	// Threshold is the number of consecutive failures from one address
	// that are not delayed (default 3; negative: never delay).
	Threshold int
	// Step is the delay added per failure beyond Threshold (default 1 s).
	Step time.Duration
	// Max bounds the delay (default 30 s).
	Max time.Duration
}

type AuthServer struct {
	a       *Accounts
	methods []mysql.AuthMethod

	keyOnce sync.Once
	key     *rsa.PrivateKey
	keyPEM  []byte
	keyErr  error

	cacheMu sync.Mutex
	cache   map[mysql_db.UserPrimaryKey]sha2Cached
}

type sha2Cached struct {
	authString string   // the account's stored auth string it was made for
	hash2      [32]byte // SHA256(SHA256(password))
}

func newAuthServer(a *Accounts) *AuthServer {
	s := &AuthServer{a: a, cache: map[mysql_db.UserPrimaryKey]sha2Cached{}}
	s.methods = []mysql.AuthMethod{nativeMethod{s}, sha2Method{s}}
	return s
}

var _ mysql.AuthServer = (*AuthServer)(nil)

func (s *AuthServer) AuthMethods() []mysql.AuthMethod { return s.methods }

func (s *AuthServer) DefaultAuthMethodDescription() mysql.AuthMethodDescription {
	return mysql.MysqlNativePassword
}

// user returns the account user@host logs in as, or nil.
func (s *AuthServer) user(user string, addr net.Addr) *mysql_db.User {
	host := "localhost"
	if addr != nil && addr.Network() != "unix" {
		if h, _, err := net.SplitHostPort(addr.String()); err == nil {
			host = h
		}
	}
	rd := s.a.db.Reader()
	defer rd.Close()
	return s.a.db.GetUser(rd, user, host, false)
}

// plugin returns the auth plugin of user's account; unknown users get
// mysql_native_password (MySQL's decoy user: the exchange completes, then
// fails as a wrong password would).
func (s *AuthServer) Plugin(user string, addr net.Addr) string {
	if u := s.user(user, addr); u != nil {
		return u.Plugin
	}
	return string(mysql.MysqlNativePassword)
}

// begin waits out the address's login delay.
func (s *AuthServer) begin(c *mysql.Conn) {
	s.a.throttle.wait(throttleKey(c.RemoteAddr()))
}

// deny logs a failed login, counts it against the address and returns
// MySQL's 1045.
func (s *AuthServer) deny(c *mysql.Conn, user string, usedPassword bool, reason string) error {
	return s.denyAddr(c.RemoteAddr(), user, usedPassword, reason)
}

func (s *AuthServer) denyAddr(addr net.Addr, user string, usedPassword bool, reason string) error {
	n := s.a.throttle.fail(throttleKey(addr))
	using := "NO"
	if usedPassword {
		using = "YES"
	}
	s.a.log.Warn("sqlgw: access denied", "user", user, "address", addrString(addr), "using_password", using,
		"reason", reason, "consecutive_failures", n)
	return mysql.NewSQLError(mysql.ERAccessDeniedError, mysql.SSAccessDeniedError,
		"Access denied for user '%s'@'%s' (using password: %s)", user, clientHost(addr), using)
}

// accept checks the connection requirements of the account and resets
// the address's failures.
func (s *AuthServer) accept(c *mysql.Conn, u *mysql_db.User, user string, usedPassword bool) (mysql.Getter, error) {
	if u.SslType != "" && !c.TLSEnabled() {
		return nil, s.deny(c, user, usedPassword, "the account requires TLS")
	}
	s.a.throttle.success(throttleKey(c.RemoteAddr()))
	return sql.MysqlConnectionUser{User: u.User, Host: u.Host}, nil
}

// changeUserSha2 authenticates a COM_CHANGE_USER (protocol.go) to a
// caching_sha2_password account: resp is the client's answer to salt, the
// rest of the exchange goes through write and read (sha2Exchange). It
// returns the account's host.
func (s *AuthServer) ChangeUserSha2(user string, addr net.Addr, salt, resp []byte,
	write func([]byte) error, read func() ([]byte, error)) (string, error) {
	s.a.throttle.wait(throttleKey(addr))
	if len(resp) == 1 && resp[0] == 0 {
		resp = nil
	}
	used := len(resp) > 0
	u, err := s.changeUserAccount(user, addr, used, mysql.CachingSha2Password)
	if err != nil {
		return "", err
	}
	reason, err := s.sha2Exchange(u, addr, addr != nil && addr.Network() == "unix", salt, resp, write, read)
	if err != nil {
		return "", err
	}
	if reason == "" && u.SslType != "" {
		reason = "the account requires TLS" // COM_CHANGE_USER is answered here on plain connections only
	}
	if reason != "" {
		return "", s.denyAddr(addr, user, used, reason)
	}
	s.a.throttle.success(throttleKey(addr))
	return u.Host, nil
}

// changeUser authenticates a COM_CHANGE_USER (protocol.go) to a
// mysql_native_password account: the answer over the connection's
// scramble. It returns the account's host.
func (s *AuthServer) ChangeUser(user string, addr net.Addr, tls bool, scramble, resp []byte) (string, error) {
	s.a.throttle.wait(throttleKey(addr))
	used := len(resp) > 0
	u, err := s.changeUserAccount(user, addr, used, mysql.MysqlNativePassword)
	if err != nil {
		return "", err
	}
	switch {
	case u.AuthString == "" && used, u.AuthString != "" && !nativeScrambleOK(u.AuthString, scramble, resp):
		return "", s.denyAddr(addr, user, used, "wrong password")
	case u.SslType != "" && !tls:
		return "", s.denyAddr(addr, user, used, "the account requires TLS")
	}
	s.a.throttle.success(throttleKey(addr))
	return u.Host, nil
}

// changeUserAccount is the account a COM_CHANGE_USER names, if it exists,
// is not locked and authenticates with plugin; otherwise the denial.
func (s *AuthServer) changeUserAccount(user string, addr net.Addr, used bool, plugin mysql.AuthMethodDescription) (*mysql_db.User, error) {
	u := s.user(user, addr)
	switch {
	case u == nil:
		return nil, s.denyAddr(addr, user, used, "no such account")
	case u.Locked:
		return nil, s.denyAddr(addr, user, used, "account is locked")
	case u.Plugin != string(plugin):
		return nil, s.denyAddr(addr, user, used, "account uses "+u.Plugin)
	}
	return u, nil
}

func isLoopbackAddr(a net.Addr) bool {
	if a == nil {
		return false
	}
	if tcp, ok := a.(*net.TCPAddr); ok {
		return tcp.IP.IsLoopback()
	}
	h, _, err := net.SplitHostPort(a.String())
	ip := net.ParseIP(h)
	return err == nil && ip != nil && ip.IsLoopback()
}

func addrString(a net.Addr) string {
	if a == nil {
		return ""
	}
	return a.String()
}

// nativeMethod is mysql_native_password.
type nativeMethod struct{ s *AuthServer }

func (nativeMethod) Name() mysql.AuthMethodDescription { return mysql.MysqlNativePassword }
func (nativeMethod) AllowClearTextWithoutTLS() bool    { return true }
func (m nativeMethod) HandleUser(c *mysql.Conn, user string) bool {
	return m.s.Plugin(user, c.RemoteAddr()) == string(mysql.MysqlNativePassword)
}
func (nativeMethod) AuthPluginData() ([]byte, error) { return newScramble() }

func (m nativeMethod) HandleAuthPluginData(c *mysql.Conn, user string, serverData, resp []byte, addr net.Addr) (mysql.Getter, error) {
	m.s.begin(c)
	used := len(resp) > 0
	salt := serverData
	if n := len(salt); n > 0 && salt[n-1] == 0 {
		salt = salt[:n-1]
	}
	u := m.s.user(user, addr)
	switch {
	case u == nil:
		return nil, m.s.deny(c, user, used, "no such account")
	case u.Locked:
		return nil, m.s.deny(c, user, used, "account is locked")
	case u.Plugin != string(mysql.MysqlNativePassword):
		return nil, m.s.deny(c, user, used, "account uses "+u.Plugin)
	case u.AuthString == "":
		if used {
			return nil, m.s.deny(c, user, used, "wrong password")
		}
	case !nativeScrambleOK(u.AuthString, salt, resp):
		return nil, m.s.deny(c, user, used, "wrong password")
	}
	return m.s.accept(c, u, user, used)
}

// nativeHash is mysql_native_password's stored form of a password.
func nativeHash(password string) string {
	if password == "" {
		return ""
	}
	h1 := sha1.Sum([]byte(password))
	h2 := sha1.Sum(h1[:])
	return "*" + strings.ToUpper(hex.EncodeToString(h2[:]))
}

// nativeScrambleOK checks a mysql_native_password answer against the
// stored "*HEX(SHA1(SHA1(password)))".
func nativeScrambleOK(authString string, salt, resp []byte) bool {
	h2, err := hex.DecodeString(strings.TrimPrefix(authString, "*"))
	if err != nil || len(h2) != sha1.Size || len(resp) != sha1.Size {
		return false
	}
	h := sha1.New()
	h.Write(salt)
	h.Write(h2)
	x := h.Sum(nil)
	stage1 := make([]byte, sha1.Size)
	for i := range stage1 {
		stage1[i] = resp[i] ^ x[i]
	}
	got := sha1.Sum(stage1)
	return subtle.ConstantTimeCompare(got[:], h2) == 1
}

func newScramble() ([]byte, error) {
	salt, err := mysql.NewSalt()
	if err != nil {
		return nil, err
	}
	return append(salt, 0), nil
}

// sha2Method is caching_sha2_password.
type sha2Method struct{ s *AuthServer }

// caching_sha2_password's AuthMoreData payloads.
const (
	sha2RequestPublicKey = 0x02
	sha2FastAuthOK       = 0x03
	sha2FullAuth         = 0x04
)

func (sha2Method) Name() mysql.AuthMethodDescription { return mysql.CachingSha2Password }
func (sha2Method) AllowClearTextWithoutTLS() bool    { return true }
func (m sha2Method) HandleUser(c *mysql.Conn, user string) bool {
	return m.s.Plugin(user, c.RemoteAddr()) == string(mysql.CachingSha2Password)
}
func (sha2Method) AuthPluginData() ([]byte, error) { return newScramble() }

func (m sha2Method) HandleAuthPluginData(c *mysql.Conn, user string, serverData, resp []byte, addr net.Addr) (mysql.Getter, error) {
	s := m.s
	s.begin(c)
	salt := serverData
	if n := len(salt); n > 0 && salt[n-1] == 0 {
		salt = salt[:n-1]
	}
	if len(resp) == 1 && resp[0] == 0 {
		resp = nil
	}
	used := len(resp) > 0
	u := s.user(user, addr)
	switch {
	case u == nil:
		return nil, s.deny(c, user, used, "no such account")
	case u.Locked:
		return nil, s.deny(c, user, used, "account is locked")
	case u.Plugin != string(mysql.CachingSha2Password):
		return nil, s.deny(c, user, used, "account uses "+u.Plugin)
	}
	write := func(p []byte) error { return writeAuthPacket(c, p) }
	read := func() ([]byte, error) { return c.ReadPacket(context.Background()) }
	reason, err := s.sha2Exchange(u, addr, c.TLSEnabled() || c.IsUnixSocket(), salt, resp, write, read)
	if err != nil {
		return nil, err
	}
	if reason != "" {
		return nil, s.deny(c, user, used, reason)
	}
	return s.accept(c, u, user, used)
}

// sha2Exchange checks the answer resp to salt of a client of the
// caching_sha2_password account u, as MySQL: an empty password; the fast
// path (the scramble checked against the cache of passwords that logged
// in before, answered "fast auth OK"); else full authentication ("perform
// full authentication"): the password itself over a secure connection
// (TLS, Unix socket) or from libmariadb over loopback TCP, else encrypted
// with the gateway's RSA key, sent on request. write and read exchange
// the packets (login: vitess's connection; COM_CHANGE_USER: the raw
// connection, protocol.go). It returns why the answer is refused ("" if
// not) or an I/O error; a full authentication fills the cache.
func (s *AuthServer) sha2Exchange(u *mysql_db.User, addr net.Addr, secure bool, salt, resp []byte,
	write func([]byte) error, read func() ([]byte, error)) (string, error) {
	used := len(resp) > 0
	if u.AuthString == "" {
		if used {
			return "wrong password", nil
		}
		return "", nil
	}
	if !used {
		return "no password given", nil
	}
	pk := mysql_db.UserPrimaryKey{User: u.User, Host: u.Host}
	if s.fastAuthOK(pk, u.AuthString, salt, resp) {
		return "", write([]byte{mysql.AuthMoreDataPacket, sha2FastAuthOK})
	}
	// Full authentication.
	if err := write([]byte{mysql.AuthMoreDataPacket, sha2FullAuth}); err != nil {
		return "", err
	}
	pkt, err := read()
	if err != nil {
		return "", err
	}
	var password string
	switch {
	case secure:
		password = strings.TrimSuffix(string(pkt), "\x00")
	case isLoopbackAddr(addr) && len(pkt) > 0 && pkt[len(pkt)-1] == 0 && len(pkt) != 256:
		// libmariadb sends the password itself over loopback TCP, which
		// it deems secure (as MySQL deems a Unix socket); a 2048-bit RSA
		// block is 256 bytes.
		password = string(pkt[:len(pkt)-1])
	default:
		if len(pkt) == 1 && pkt[0] == sha2RequestPublicKey {
			pem, err := s.publicKeyPEM()
			if err != nil {
				return "no RSA key: " + err.Error(), nil
			}
			if err := write(append([]byte{mysql.AuthMoreDataPacket}, pem...)); err != nil {
				return "", err
			}
			if pkt, err = read(); err != nil {
				return "", err
			}
		}
		if password, err = s.decryptPassword(pkt, salt); err != nil {
			return "password not encrypted with this gateway's RSA key", nil
		}
	}
	if !sha2PasswordOK(u.AuthString, password) {
		return "wrong password", nil
	}
	stage1 := sha256.Sum256([]byte(password))
	s.cacheMu.Lock()
	s.cache[pk] = sha2Cached{authString: u.AuthString, hash2: sha256.Sum256(stage1[:])}
	s.cacheMu.Unlock()
	return "", nil
}

// fastAuthOK checks a caching_sha2_password scramble, XOR(SHA256(pw),
// SHA256(SHA256(SHA256(pw)) + salt)), against the cached SHA256(SHA256(pw)).
func (s *AuthServer) fastAuthOK(pk mysql_db.UserPrimaryKey, authString string, salt, resp []byte) bool {
	s.cacheMu.Lock()
	e, ok := s.cache[pk]
	s.cacheMu.Unlock()
	if !ok || e.authString != authString || len(resp) != sha256.Size {
		return false
	}
	h := sha256.New()
	h.Write(e.hash2[:])
	h.Write(salt)
	x := h.Sum(nil)
	stage1 := make([]byte, sha256.Size)
	for i := range stage1 {
		stage1[i] = resp[i] ^ x[i]
	}
	got := sha256.Sum256(stage1)
	return subtle.ConstantTimeCompare(got[:], e.hash2[:]) == 1
}

// sha2PasswordOK checks a password against caching_sha2_password's stored
// "$A$005$" salted SHA-256 crypt.
func sha2PasswordOK(authString, password string) bool {
	digest, iterations, salt, _, err := mysql.DeserializeCachingSha2PasswordAuthString([]byte(authString))
	if err != nil || digest != "SHA256" {
		return false
	}
	got, err := mysql.SerializeCachingSha2PasswordAuthString(password, salt, iterations)
	return err == nil && subtle.ConstantTimeCompare(got, []byte(authString)) == 1
}

// publicKeyPEM returns the gateway's RSA public key, generating the pair
// on first use.
func (s *AuthServer) publicKeyPEM() ([]byte, error) {
	s.keyOnce.Do(func() {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			s.keyErr = err
			return
		}
		der, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
		if err != nil {
			s.keyErr = err
			return
		}
		s.key = k
		s.keyPEM = pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	})
	return s.keyPEM, s.keyErr
}

// decryptPassword undoes the client's RSA-OAEP(SHA-1) encryption of
// password+NUL XORed with the salt.
func (s *AuthServer) decryptPassword(b, salt []byte) (string, error) {
	if _, err := s.publicKeyPEM(); err != nil {
		return "", err
	}
	plain, err := rsa.DecryptOAEP(sha1.New(), nil, s.key, b, nil)
	if err != nil {
		return "", err
	}
	if len(salt) == 0 {
		return "", fmt.Errorf("no salt")
	}
	for i := range plain {
		plain[i] ^= salt[i%len(salt)]
	}
	return strings.TrimSuffix(string(plain), "\x00"), nil
}

// writeAuthPacket writes one packet of the authentication exchange on a
// vitess connection, numbered after the last packet read, and advances the
// connection's sequence number as vitess's own writes do. vitess keeps both
// its writer and the sequence number unexported; during authentication
// nothing is buffered, so the packet goes straight to the connection.
func writeAuthPacket(c *mysql.Conn, payload []byte) error {
	seq := connSequence(c)
	if seq == nil {
		return fmt.Errorf("sqlgw: this vitess has no connection sequence number")
	}
	n := len(payload)
	pkt := append([]byte{byte(n), byte(n >> 8), byte(n >> 16), *seq}, payload...)
	if _, err := c.Conn.Write(pkt); err != nil {
		return err
	}
	*seq++
	return nil
}

// connSequence returns a pointer to the vitess connection's packet
// sequence number, nil if the field is not there.
func connSequence(c *mysql.Conn) *uint8 {
	f := reflect.ValueOf(c).Elem().FieldByName("sequence")
	if !f.IsValid() || f.Kind() != reflect.Uint8 {
		return nil
	}
	return (*uint8)(unsafe.Pointer(f.UnsafeAddr()))
}

// loginThrottle implements the failed-login delays (see above).
type loginThrottle struct {
	policy LoginDelay
	mu     sync.Mutex
	m      map[string]*throttleEntry
	now    func() time.Time
	sleep  func(time.Duration)
}

type throttleEntry struct {
	failures int
	next     time.Time // attempts wait until then
	last     time.Time // last failure
}

func newLoginThrottle(p LoginDelay) *loginThrottle {
	if p.Threshold == 0 {
		p.Threshold = 3
	}
	if p.Step <= 0 {
		p.Step = time.Second
	}
	if p.Max <= 0 {
		p.Max = 30 * time.Second
	}
	return &loginThrottle{policy: p, m: map[string]*throttleEntry{}, now: time.Now, sleep: time.Sleep}
}

func throttleKey(a net.Addr) string {
	if a == nil {
		return ""
	}
	if h, _, err := net.SplitHostPort(a.String()); err == nil {
		return h
	}
	return a.String()
}

// delay is the wait for an address with n consecutive failures.
func (t *loginThrottle) delay(n int) time.Duration {
	if t.policy.Threshold < 0 || n < t.policy.Threshold {
		return 0
	}
	d := time.Duration(n-t.policy.Threshold+1) * t.policy.Step
	if d > t.policy.Max {
		d = t.policy.Max
	}
	return d
}

// wait blocks an attempt from key for its delay; attempts arriving
// together are spaced by the delay.
func (t *loginThrottle) wait(key string) {
	t.mu.Lock()
	e := t.m[key]
	now := t.now()
	if e != nil && now.Sub(e.last) > time.Hour {
		delete(t.m, key) // forgotten
		e = nil
	}
	if e == nil {
		t.mu.Unlock()
		return
	}
	d := t.delay(e.failures)
	if d == 0 {
		t.mu.Unlock()
		return
	}
	start := e.next
	if start.Before(now) {
		start = now
	}
	start = start.Add(d)
	e.next = start
	t.mu.Unlock()
	t.sleep(start.Sub(now))
}

// fail counts a failure and returns the address's consecutive failures.
func (t *loginThrottle) fail(key string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	if len(t.m) > 100000 {
		for k, e := range t.m {
			if now.Sub(e.last) > time.Hour {
				delete(t.m, k)
			}
		}
	}
	e := t.m[key]
	if e == nil || now.Sub(e.last) > time.Hour {
		e = &throttleEntry{}
		t.m[key] = e
	}
	e.failures++
	e.last = now
	return e.failures
}

func (t *loginThrottle) success(key string) {
	t.mu.Lock()
	delete(t.m, key)
	t.mu.Unlock()
}
