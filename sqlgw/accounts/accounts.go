package accounts

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/mysql_db"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/sqlgw/engine"
)

// Accounts and privileges
//
// Accounts, roles and grants are go-mysql-server's mysql database
// (mysql_db.MySQLDb): its CREATE/ALTER/DROP USER, CREATE/DROP ROLE,
// GRANT/REVOKE (global, database, table and routine level, roles, WITH
// GRANT OPTION), SHOW GRANTS, the mysql.user, mysql.db, mysql.tables_priv,
// mysql.role_edges ... tables, and its privilege checks on every statement
// (which also filter SHOW DATABASES, SHOW TABLES and information_schema).
// Granted roles are always active (go-mysql-server has no SET ROLE); there
// are no column privileges and no RENAME USER (1235). sqlgw adds what a
// shared, persistent deployment needs (this file), authentication
// (accounts_auth.go) and MySQL's privilege errors (accounts_errors.go),
// and fills gaps of go-mysql-server here: SET PASSWORD (accounts_errors.go),
// ALTER USER ... ACCOUNT LOCK|UNLOCK, and REVOKE ALL PRIVILEGES, GRANT
// OPTION FROM, which go-mysql-server applies to global privileges only and
// sqlgw to every level, as MySQL.
//
//   - Persistence: every change go-mysql-server makes is serialized (its
//     flatbuffer format) into the catalog's accounts record
//     (catalog/accounts.go), written conditionally on the ETag of the
//     version this gateway last loaded. Passwords are only ever stored as
//     MySQL stores them: mysql_native_password's SHA1(SHA1(pw)) and
//     caching_sha2_password's salted, 5,000-round SHA-256 crypt.
//   - Sharing: every gateway checks the record's version (one Get of one
//     property) before each login (logins arriving during a check share
//     the next one) and every Config.AccountsRefresh (default 1 s), and
//     reloads the record when it moved. So a CREATE USER, GRANT, REVOKE, DROP USER or password
//     change made through one gateway applies at once to new connections
//     to every other gateway, and within that delay to the open sessions
//     there (go-mysql-server recomputes a session's privileges when the
//     accounts change). FLUSH PRIVILEGES reloads at once.
//   - Concurrent changes: a statement that changes accounts (recognised by
//     its leading keywords) first brings this gateway up to date (one Get),
//     and statements of one gateway run one at a time. If another gateway
//     committed in between, the conditional write fails, the gateway
//     reloads the record (undoing its own in-memory change) and runs the
//     statement again, up to 10 times, then reports 1213; so two gateways
//     never lose each other's changes. A statement that fails otherwise
//     reloads too, so it leaves no partial change. Account changes are not
//     transactional (as in MySQL, they commit implicitly).
//   - Bootstrap: on a store without an accounts record, Config.User with
//     Config.Password (--user/--password, default root with an empty
//     password) is created as 'user'@'%' and 'user'@'localhost' with every
//     privilege and GRANT OPTION, and stored. Later starts load the stored
//     accounts and ignore the flags, except that a bootstrap account that
//     still has an empty password gets Config.Password when one is given
//     (securing a deployment that started on loopback is one restart). On a
//     non-loopback listener, NewServer refuses to start while an account
//     that may log in from another host has an empty password.
//   - Failed logins (accounts_auth.go) are logged with the user and the
//     client address, never the password, and slowed down per client
//     address as MySQL's connection_control plugin does.

// accountsRetries bounds how often an account statement is re-run after a
// concurrent change by another gateway.
const accountsRetries = 10

// accounts is one gateway's view of the shared accounts record.
type Accounts struct {
	db  *mysql_db.MySQLDb
	cat *catalog.Catalog
	log *slog.Logger

	// stmtMu serialises this gateway's account statements and reloads
	// that are not polls.
	stmtMu sync.Mutex
	// verMu guards ver, the stored version the in-memory accounts are.
	verMu sync.Mutex
	ver   catalog.AccountsVersion
	// conflicts counts failed conditional writes (Persist).
	conflicts atomic.Uint64
	// syncSem (one slot) serialises version checks; a waiter gives up
	// when its context ends, so logins during a store stall each wait at
	// most their own timeout rather than queueing behind every other
	// login's. syncedAt is when the last successful check started; it is
	// read and written only by the slot's holder.
	syncSem  chan struct{}
	syncedAt time.Time

	throttle *loginThrottle
	Auth     *AuthServer

	// hosts: client host of each connection, for error texts.
	hostsMu sync.Mutex
	hosts   map[uint32]string

	stop chan struct{}
	done chan struct{}
}

// ErrAccountsChanged is the error of an account statement that lost to
// concurrent changes by other gateways accountsRetries times.
var errAccountsChanged = mysql.NewSQLError(mysql.ERLockDeadlock, mysql.SSLockDeadlock,
	"Accounts were changed concurrently by another gateway; try again")

// openAccounts loads the accounts from the catalog, or creates the
// bootstrap administrator on first start.
// ErrInsecure is returned by NewServer for a non-loopback listener without
// a password.
var ErrInsecure = errors.New("sqlgw: refusing to listen on a non-loopback address without a password (set --password or SQLGW_PASSWORD, or listen on 127.0.0.1)")

// accountOptions are the server's settings the accounts use: the bootstrap
// administrator (User, Password), the log and the failed-login delays.
type Options struct {
	User, Password string
	Logger         *slog.Logger
	LoginDelay     LoginDelay
}

func Open(ctx context.Context, db *mysql_db.MySQLDb, cat *catalog.Catalog, cfg Options, loopback bool) (*Accounts, error) {
	a := &Accounts{db: db, cat: cat, log: cfg.Logger, hosts: map[uint32]string{}, syncSem: make(chan struct{}, 1),
		throttle: newLoginThrottle(cfg.LoginDelay), stop: make(chan struct{}), done: make(chan struct{})}
	a.Auth = newAuthServer(a)
	db.SetPersister(a)
	db.SetEnabled(true)
	sctx := sql.NewContext(ctx)
	for attempt := 0; ; attempt++ {
		data, v, err := cat.Accounts(ctx)
		if err != nil {
			return nil, err
		}
		if v.Exists() {
			if err := a.install(sctx, data, v); err != nil {
				return nil, err
			}
			break
		}
		// First start: the bootstrap administrator.
		if cfg.Password == "" && !loopback {
			return nil, ErrInsecure
		}
		ed := db.Editor()
		for _, host := range []string{"%", "localhost"} {
			db.AddSuperUser(ed, cfg.User, host, cfg.Password) // every privilege, WITH GRANT OPTION
		}
		err = db.Persist(sctx, ed)
		ed.Close()
		if err == nil {
			a.log.Info(fmt.Sprintf("sqlgw: created the administrator account '%s' (no accounts in the store yet)", cfg.User))
			break
		}
		if attempt >= accountsRetries || a.conflicts.Load() == 0 {
			return nil, err
		}
		// Another gateway bootstrapped at the same moment: load its.
	}
	if cfg.Password != "" {
		if err := a.securePassword(sctx, cfg.User, cfg.Password); err != nil {
			return nil, err
		}
	}
	if name := a.insecureAccount(); name != "" && !loopback {
		return nil, fmt.Errorf("%w: the account %s has no password (set one with ALTER USER through a loopback listener)", ErrInsecure, name)
	}
	return a, nil
}

// securePassword gives the bootstrap accounts that still have an empty
// password the configured one.
func (a *Accounts) securePassword(ctx *sql.Context, user, password string) error {
	for attempt := 0; attempt < accountsRetries; attempt++ {
		ed := a.db.Editor()
		changed := false
		for _, host := range []string{"%", "localhost"} {
			u, ok := ed.GetUser(mysql_db.UserPrimaryKey{User: user, Host: host})
			if !ok || u.AuthString != "" || u.Plugin != string(mysql.MysqlNativePassword) {
				continue
			}
			cp := *u
			cp.AuthString = nativeHash(password)
			cp.PasswordLastChanged = time.Now().UTC()
			// PutUser replaces only an entry equal in every field.
			ed.RemoveUser(mysql_db.UserPrimaryKey{User: user, Host: host})
			ed.PutUser(&cp)
			changed = true
		}
		if !changed {
			ed.Close()
			return nil
		}
		before := a.conflicts.Load()
		err := a.db.Persist(ctx, ed)
		ed.Close()
		if err == nil {
			a.log.Info(fmt.Sprintf("sqlgw: set the configured password on the account '%s', which had none", user))
			return nil
		}
		if a.conflicts.Load() == before {
			return err
		}
		if err := a.reload(ctx); err != nil {
			return err
		}
	}
	return errAccountsChanged
}

// insecureAccount names an account that may log in from a non-local host
// without a password, or "".
func (a *Accounts) insecureAccount() string {
	rd := a.db.Reader()
	defer rd.Close()
	name := ""
	rd.VisitUsers(func(u *mysql_db.User) {
		if name != "" || u.IsRole || u.Locked || u.AuthString != "" {
			return
		}
		switch u.Host {
		case "localhost", "127.0.0.1", "::1":
			return
		}
		name = u.UserHostToString("'")
	})
	return name
}

// Persist implements mysql_db.MySQLDbPersistence: the conditional write of
// the whole record. go-mysql-server calls it with the accounts' write lock
// held, after changing them in memory; on a conflict the caller's reload
// restores the stored state.
func (a *Accounts) Persist(ctx *sql.Context, data []byte) error {
	a.verMu.Lock()
	defer a.verMu.Unlock()
	v, err := a.cat.PutAccounts(engine.WithoutCounters(ctx), data, a.ver)
	if errors.Is(err, catalog.ErrAccountsConflict) {
		a.conflicts.Add(1)
		return errAccountsChanged
	}
	if err != nil {
		return fmt.Errorf("sqlgw: storing accounts: %w", err)
	}
	a.ver = v
	return nil
}

// install replaces the in-memory accounts with a stored version, unless
// a newer one is installed already (a reload racing with this gateway's
// own write; versions grow by one per write, whichever gateway wrote).
func (a *Accounts) install(ctx *sql.Context, data []byte, v catalog.AccountsVersion) error {
	ed := a.db.Editor()
	defer ed.Close()
	a.verMu.Lock()
	cur := a.ver
	a.verMu.Unlock()
	if cur.Exists() && v.Version < cur.Version {
		return nil
	}
	if err := a.db.OverwriteUsersAndGrantData(ctx, ed, data); err != nil {
		return fmt.Errorf("sqlgw: loading accounts (version %d): %w", v.Version, err)
	}
	a.verMu.Lock()
	a.ver = v
	a.verMu.Unlock()
	return nil
}

// reload loads the stored record unconditionally.
func (a *Accounts) reload(ctx context.Context) error {
	data, v, err := a.cat.Accounts(engine.WithoutCounters(ctx))
	if err != nil {
		return err
	}
	if !v.Exists() {
		return errors.New("sqlgw: the accounts record disappeared from the store")
	}
	return a.install(sql.NewContext(ctx), data, v)
}

// sync reloads the record if its stored version is not the loaded one
// (one Get of one property when nothing changed).
func (a *Accounts) sync(ctx context.Context) error {
	v, err := a.cat.AccountsVersion(engine.WithoutCounters(ctx))
	if err != nil {
		return err
	}
	a.verMu.Lock()
	same := v == a.ver
	a.verMu.Unlock()
	if same || !v.Exists() {
		return nil
	}
	return a.reload(ctx)
}

// fresh makes sure the accounts are at least as new as the stored
// version at the time of the call: a check that started after the call
// (while the caller waited for the one before it) serves it, so a burst of
// logins shares checks while every change committed before a login is
// seen by it.
func (a *Accounts) fresh(ctx context.Context) error {
	arrived := time.Now()
	select {
	case a.syncSem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-a.syncSem }()
	if a.syncedAt.After(arrived) {
		return nil
	}
	started := time.Now()
	if err := a.sync(ctx); err != nil {
		return err
	}
	a.syncedAt = started
	return nil
}

// poll keeps the accounts current until close.
func (a *Accounts) Poll(every time.Duration) {
	defer close(a.done)
	t := time.NewTicker(every)
	defer t.Stop()
	failing := false
	for {
		select {
		case <-a.stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := a.fresh(ctx)
		cancel()
		if err != nil && !failing {
			a.log.Warn("sqlgw: refreshing accounts from the store failed; retrying", "err", err)
		} else if err == nil && failing {
			a.log.Info("sqlgw: refreshing accounts from the store works again")
		}
		failing = err != nil
	}
}

func (a *Accounts) Close() {
	select {
	case <-a.stop:
	default:
		close(a.stop)
	}
}

// clientHost is the host of a connection as MySQL names it in errors:
// "localhost" for loopback, else the IP address.
func clientHost(addr net.Addr) string {
	if addr == nil {
		return "localhost"
	}
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		host = addr.String()
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() || host == "" {
		return "localhost"
	}
	return host
}

func (a *Accounts) setHost(id uint32, host string) {
	a.hostsMu.Lock()
	a.hosts[id] = host
	a.hostsMu.Unlock()
}

func (a *Accounts) forgetHost(id uint32) {
	a.hostsMu.Lock()
	delete(a.hosts, id)
	a.hostsMu.Unlock()
}

// hostOf returns the client host of connection id ("localhost" if unknown).
// Privileges is go-mysql-server's user and grant database (engine.Accounts).
func (a *Accounts) Privileges() *mysql_db.MySQLDb { return a.db }

// HostOf is hostOf for the engine (engine.Accounts).
func (a *Accounts) HostOf(id uint32) string { return a.hostOf(id) }

func (a *Accounts) hostOf(id uint32) string {
	a.hostsMu.Lock()
	defer a.hostsMu.Unlock()
	if h, ok := a.hosts[id]; ok {
		return h
	}
	return "localhost"
}

// reAccountStatement recognises statements that change accounts.
var reAccountStatement = regexp.MustCompile(`(?is)^(?:\s|/\*.*?\*/|#[^\n]*\n|--\s[^\n]*\n)*` +
	`(?:(?:CREATE|DROP|ALTER|RENAME)\s+(?:USER|ROLE)\b|GRANT\b|REVOKE\b|SET\s+(?:PASSWORD|DEFAULT\s+ROLE)\b|FLUSH\s+PRIVILEGES\b)`)

func isAccountStatement(q string) bool {
	switch firstKeyword(q) {
	case "CREATE", "DROP", "ALTER", "RENAME", "GRANT", "REVOKE", "SET", "FLUSH":
		return reAccountStatement.MatchString(q)
	}
	return false
}

// firstKeyword returns the statement's first word in upper case, after
// blanks and comments; "" if it does not start with a letter. It keeps the
// regular expressions here off the path of ordinary statements.
func firstKeyword(q string) string {
	i := 0
	for i < len(q) {
		switch {
		case q[i] == ' ' || q[i] == '\t' || q[i] == '\n' || q[i] == '\r' || q[i] == ';':
			i++
		case strings.HasPrefix(q[i:], "/*"):
			j := strings.Index(q[i+2:], "*/")
			if j < 0 {
				return ""
			}
			i += j + 4
		case q[i] == '#' || strings.HasPrefix(q[i:], "-- "):
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				return ""
			}
			i += j + 1
		default:
			j := i
			for j < len(q) && (q[j] >= 'a' && q[j] <= 'z' || q[j] >= 'A' && q[j] <= 'Z' || q[j] == '_') {
				j++
			}
			if j-i > 8 {
				return ""
			}
			return strings.ToUpper(q[i:j])
		}
	}
	return ""
}

var reFlushPrivileges = regexp.MustCompile(`(?is)^\s*FLUSH\s+(?:LOCAL\s+|NO_WRITE_TO_BINLOG\s+)?PRIVILEGES\s*;?\s*$`)

// accountsHandler runs account statements one at a time on this gateway,
// up to date with the store, re-running them after a concurrent change
// (see above), and records each connection's client host.
type accountsHandler struct {
	mysql.Handler
	a *Accounts
}

// intercept puts the account statements in front of next.
func (a *Accounts) Intercept(next mysql.Handler) mysql.Handler {
	return &accountsHandler{Handler: next, a: a}
}

// NewConnection runs before the handshake: the login is checked against
// accounts at least as new as the stored ones when the connection came,
// so an account or grant made through another gateway a moment ago
// applies to every new connection.
func (h *accountsHandler) NewConnection(c *mysql.Conn) {
	h.a.setHost(c.ConnectionID, clientHost(c.RemoteAddr()))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	if err := h.a.fresh(ctx); err != nil {
		h.a.log.Warn("sqlgw: checking accounts for a login failed; using the ones loaded", "err", err)
	}
	cancel()
	h.Handler.NewConnection(c)
}

func (h *accountsHandler) ConnectionClosed(c *mysql.Conn) {
	h.Handler.ConnectionClosed(c)
	h.a.forgetHost(c.ConnectionID)
}

// run runs an account statement (see above).
func (h *accountsHandler) run(ctx context.Context, query string, f func() error) error {
	h.a.stmtMu.Lock()
	defer h.a.stmtMu.Unlock()
	if reFlushPrivileges.MatchString(query) {
		if err := h.a.reload(ctx); err != nil {
			return err
		}
		return f()
	}
	if err := h.a.sync(ctx); err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		before := h.a.conflicts.Load()
		err := f()
		if err == nil {
			return nil
		}
		if h.a.conflicts.Load() == before {
			// A failed statement may have changed accounts in memory
			// without storing them (CREATE USER a, b with b existing
			// adds a, then fails): back to the stored state, so the
			// statement has no effect, as in MySQL.
			if rerr := h.a.reload(ctx); rerr != nil {
				h.a.log.Warn("sqlgw: reloading accounts after a failed statement", "err", rerr)
			}
			return err
		}
		// Lost to another gateway: this gateway's in-memory change was
		// not stored; load the stored state and run the statement again.
		if rerr := h.a.reload(ctx); rerr != nil {
			return rerr
		}
		if attempt+1 >= accountsRetries {
			return errAccountsChanged
		}
	}
}

func (h *accountsHandler) ComQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) error {
	if firstKeyword(query) == "SET" {
		if q, ok := rewriteSetPassword(c, query); ok {
			query = q
		}
		if err := h.a.checkSetGlobal(c, query); err != nil {
			return err
		}
	}
	if !isAccountStatement(query) {
		return h.a.translateConnError(c, query, h.Handler.ComQuery(ctx, c, query, callback))
	}
	if m := reAccountLock.FindStringSubmatch(query); m != nil {
		return h.a.translateConnError(c, query, h.run(ctx, query, func() error { return h.accountLock(ctx, c, m[1], m[2], callback) }))
	}
	if reSetRole.MatchString(query) {
		return mysql.NewSQLError(mysql.ERNotSupportedYet, "42000", "This version of MySQL doesn't yet support 'SET ROLE and SET DEFAULT ROLE (granted roles are always active)'")
	}
	if m := reRevokeAll.FindStringSubmatch(query); m != nil {
		return h.a.translateConnError(c, query, h.run(ctx, query, func() error { return h.revokeAll(ctx, c, query, m[1], callback) }))
	}
	return h.a.translateConnError(c, query, h.run(ctx, query, func() error { return h.Handler.ComQuery(ctx, c, query, callback) }))
}

var (
	// ALTER USER accounts ACCOUNT LOCK|UNLOCK, which go-mysql-server's
	// parser lacks.
	reAccountLock = regexp.MustCompile(`(?is)^\s*ALTER\s+USER\s+(?:IF\s+EXISTS\s+)?(.+?)\s+ACCOUNT\s+(LOCK|UNLOCK)\s*;?\s*$`)
	reSetRole     = regexp.MustCompile(`(?is)^\s*SET\s+(?:DEFAULT\s+)?ROLE\b`)
)

// accountLock runs ALTER USER ... ACCOUNT LOCK|UNLOCK: a locked account
// cannot log in (1045), as in MySQL (whose 3118 "Access denied for user;
// account is locked" the gateway does not reveal before the password is
// checked).
func (h *accountsHandler) accountLock(ctx context.Context, c *mysql.Conn, list, mode string, callback mysql.ResultSpoolFn) error {
	if err := h.a.checkCreateUser(c); err != nil {
		return err
	}
	ed := h.a.db.Editor()
	var pks []mysql_db.UserPrimaryKey
	for _, acct := range strings.Split(list, ",") {
		user, host, _ := parseAccount(strings.TrimSpace(acct))
		if host == "" {
			host = "%"
		}
		pk := mysql_db.UserPrimaryKey{User: user, Host: host}
		if _, ok := ed.GetUser(pk); !ok {
			ed.Close()
			return mysql.NewSQLError(erCannotUser, "HY000", "Operation ALTER USER failed for '%s'@'%s'", user, host)
		}
		pks = append(pks, pk)
	}
	for _, pk := range pks {
		u, _ := ed.GetUser(pk)
		cp := *u
		cp.Locked = strings.EqualFold(mode, "LOCK")
		ed.RemoveUser(pk)
		ed.PutUser(&cp)
	}
	err := h.a.db.Persist(sql.NewContext(ctx), ed)
	ed.Close()
	if err != nil {
		return err
	}
	return callback(&sqltypes.Result{}, false)
}

// reRevokeAll matches REVOKE ALL [PRIVILEGES], GRANT OPTION FROM accounts.
var reRevokeAll = regexp.MustCompile(`(?is)^\s*REVOKE\s+(?:IF\s+EXISTS\s+)?ALL(?:\s+PRIVILEGES)?\s*,\s*GRANT\s+OPTION\s+FROM\s+(.*?)(?:\s+IGNORE\s+UNKNOWN\s+USER)?\s*;?\s*$`)

// revokeAll runs REVOKE ALL PRIVILEGES, GRANT OPTION, which
// go-mysql-server applies to global privileges only, and then removes the
// accounts' database, table and routine privileges too, as MySQL does; the
// client's OK waits for both.
func (h *accountsHandler) revokeAll(ctx context.Context, c *mysql.Conn, query, list string, callback mysql.ResultSpoolFn) error {
	var res *sqltypes.Result
	var more bool
	err := h.Handler.ComQuery(ctx, c, query, func(r *sqltypes.Result, m bool) error {
		res, more = r, m
		return nil
	})
	if err != nil {
		return err
	}
	ed := h.a.db.Editor()
	for _, acct := range strings.Split(list, ",") {
		user, host, _ := parseAccount(strings.TrimSpace(acct))
		if host == "" {
			host = "%"
		}
		pk := mysql_db.UserPrimaryKey{User: user, Host: host}
		u, ok := ed.GetUser(pk)
		if !ok {
			continue
		}
		cp := *u
		cp.PrivilegeSet = mysql_db.NewPrivilegeSet()
		ed.RemoveUser(pk)
		ed.PutUser(&cp)
	}
	err = h.a.db.Persist(sql.NewContext(ctx), ed)
	ed.Close()
	if err != nil {
		return err
	}
	if res == nil {
		return nil
	}
	return callback(res, more)
}

func (h *accountsHandler) ComMultiQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) (string, error) {
	switch firstKeyword(query) {
	case "SET", "ALTER", "REVOKE":
		// The statements ComQuery handles itself (SET PASSWORD, ACCOUNT
		// LOCK, SET ROLE, REVOKE ALL), which go-mysql-server cannot
		// parse or runs only in part: the text's first statement, found
		// by the tokenizer (no grammar needed), runs as in ComQuery, and
		// the rest goes back to vitess, which runs it next (clients with
		// multi-statements on, such as the mysql CLI, send every text
		// so).
		if first, rest, err := sqlparser.SplitStatement(query); err == nil &&
			(reSetPassword.MatchString(first) || reAccountLock.MatchString(first) || reSetRole.MatchString(first) || reRevokeAll.MatchString(first)) {
			if strings.TrimSpace(rest) == "" {
				rest = ""
			}
			more := rest != ""
			err := h.ComQuery(ctx, c, first, func(r *sqltypes.Result, m bool) error { return callback(r, m || more) })
			if err != nil {
				return "", err
			}
			return rest, nil
		}
	}
	if firstKeyword(query) == "SET" {
		if err := h.a.checkSetGlobal(c, query); err != nil {
			return "", err
		}
	}
	if !isAccountStatement(query) {
		rest, err := h.Handler.ComMultiQuery(ctx, c, query, callback)
		return rest, h.a.translateConnError(c, query, err)
	}
	var rest string
	err := h.run(ctx, query, func() error {
		var err error
		rest, err = h.Handler.ComMultiQuery(ctx, c, query, callback)
		return err
	})
	return rest, h.a.translateConnError(c, query, err)
}

func (h *accountsHandler) ComInitDB(c *mysql.Conn, db string) error {
	return h.a.translateConnError(c, "", h.Handler.ComInitDB(c, db))
}

func (h *accountsHandler) ComPrepare(ctx context.Context, c *mysql.Conn, query string, prepare *mysql.PrepareData) ([]*querypb.Field, error) {
	f, err := h.Handler.ComPrepare(ctx, c, query, prepare)
	return f, h.a.translateConnError(c, query, err)
}

func (h *accountsHandler) ComStmtExecute(ctx context.Context, c *mysql.Conn, prepare *mysql.PrepareData, callback func(*sqltypes.Result) error) error {
	return h.a.translateConnError(c, prepare.PrepareStmt, h.Handler.ComStmtExecute(ctx, c, prepare, callback))
}
