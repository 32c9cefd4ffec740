package accounts

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/vitess/go/mysql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
	"github.com/sirupsen/logrus"

	"github.com/sqlgw/sqlgw/sqlgw/engine"
	"github.com/sqlgw/sqlgw/sqlgw/mysqlerr"
)

// MySQL's privilege errors
//
// go-mysql-server refuses a statement with one generic error ("command
// denied to user 'u'@'%'", 1105). MySQL names the command and the object,
// and clients and tools match on the codes:
//
//	1044 ER_DBACCESS_DENIED_ERROR        Access denied for user 'u'@'h' to database 'd'
//	1142 ER_TABLEACCESS_DENIED_ERROR     INSERT command denied to user 'u'@'h' for table 't'
//	1143 ER_COLUMNACCESS_DENIED_ERROR    SELECT command denied to user 'u'@'h' for column 'c' in table 't'
//	1227 ER_SPECIFIC_ACCESS_DENIED_ERROR Access denied; you need (at least one of) the CREATE USER privilege(s) for this operation
//	1045 ER_ACCESS_DENIED_ERROR          (logins; accounts_auth.go)
//
// authHandler wraps go-mysql-server's authorization handler (installed
// process-wide, as go-mysql-server keeps it) and turns its refusals into
// these, from the statement's authorization information: a global
// privilege is 1227, a database-level statement (CREATE/DROP DATABASE,
// USE, GRANT ... ON d.*) 1044, a table-level one 1142 naming the first
// table refused. 'h' is the client's host as MySQL shows it ("localhost"
// for loopback connections, else the address). The database-level refusals
// go-mysql-server raises outside the handler (USE, a connection's default
// database, a table in a database without privileges) are rewritten by
// accountsHandler.
//
// Also here: SET PASSWORD [FOR account] = 'password' (or PASSWORD('...')),
// which go-mysql-server's parser lacks, runs as ALTER USER ... IDENTIFIED
// BY; SHOW GRANTS for one's own account needs no privilege, as in MySQL;
// SET GLOBAL / SET PERSIST need SUPER or SYSTEM_VARIABLES_ADMIN (1227);
// KILL [QUERY] of one's own connection needs no privilege, of another
// account's is 1095 without SUPER.

// MySQL codes vitess does not name.
const (
	erTableAccessDenied  = 1142
	erColumnAccessDenied = 1143
	erCannotUser         = 1396
	erKillDenied         = 1095
	// ER_CANT_CREATE_USER_WITH_GRANT
	erCantCreateUserWithGrant = 1410
)

func init() {
	sql.SetAuthorizationHandlerFactory(authHandlerFactory{inner: sql.GetAuthorizationHandlerFactory()})
}

type authHandlerFactory struct {
	inner sql.AuthorizationHandlerFactory
}

func (f authHandlerFactory) CreateHandler(cat sql.Catalog) sql.AuthorizationHandler {
	return authHandler{AuthorizationHandler: f.inner.CreateHandler(cat)}
}

type authHandler struct{ sql.AuthorizationHandler }

// denied describes the session's account as MySQL's errors do.
func deniedUser(ctx *sql.Context) (user, host string) {
	host = "localhost"
	if s, ok := ctx.Session.(*engine.Session); ok && s.GW != nil && s.GW.Accounts != nil {
		host = s.GW.Accounts.HostOf(ctx.Session.ID())
	}
	return ctx.Session.Client().User, host
}

func errDBAccess(user, host, db string) error {
	return mysql.NewSQLError(mysql.ERDBAccessDenied, "42000", "Access denied for user '%s'@'%s' to database '%s'", user, host, db)
}

func errTableAccess(cmd, user, host, table string) error {
	return mysql.NewSQLError(erTableAccessDenied, "42000", "%s command denied to user '%s'@'%s' for table '%s'", cmd, user, host, table)
}

func errColumnAccess(cmd, user, host, column, table string) error {
	return mysql.NewSQLError(erColumnAccessDenied, "42000", "%s command denied to user '%s'@'%s' for column '%s' in table '%s'", cmd, user, host, column, table)
}

func errSpecificAccess(privs string) error {
	return mysql.NewSQLError(mysql.ERSpecifiedAccessDenied, "42000", "Access denied; you need (at least one of) the %s privilege(s) for this operation", privs)
}

// commandNames are the privileges MySQL names for an AuthType.
var commandNames = map[string]string{
	ast.AuthType_ALTER: "ALTER", ast.AuthType_ALTER_ROUTINE: "ALTER ROUTINE", ast.AuthType_CREATE: "CREATE",
	ast.AuthType_CREATE_ROUTINE: "CREATE ROUTINE", ast.AuthType_CREATE_TEMP: "CREATE TEMPORARY TABLES",
	ast.AuthType_CREATE_USER: "CREATE USER", ast.AuthType_CREATE_VIEW: "CREATE VIEW", ast.AuthType_DELETE: "DELETE",
	ast.AuthType_DROP: "DROP", ast.AuthType_EVENT: "EVENT", ast.AuthType_FILE: "FILE", ast.AuthType_FOREIGN_KEY: "REFERENCES",
	ast.AuthType_INDEX: "INDEX", ast.AuthType_INSERT: "INSERT", ast.AuthType_LOCK: "LOCK TABLES", ast.AuthType_PROCESS: "PROCESS",
	ast.AuthType_RELOAD: "RELOAD", ast.AuthType_REPLACE: "INSERT", ast.AuthType_REPLICATION_CLIENT: "REPLICATION CLIENT",
	ast.AuthType_SELECT: "SELECT", ast.AuthType_SUPER: "SUPER", ast.AuthType_TRIGGER: "TRIGGER", ast.AuthType_UPDATE: "UPDATE",
	ast.AuthType_CREATE_ROLE: "CREATE ROLE or CREATE USER", ast.AuthType_DROP_ROLE: "DROP ROLE or CREATE USER",
	ast.AuthType_ALTER_USER: "CREATE USER", ast.AuthType_GRANT_ROLE: "WITH ADMIN, ROLE_ADMIN, SUPER",
	ast.AuthType_REVOKE_ROLE: "WITH ADMIN, ROLE_ADMIN, SUPER", ast.AuthType_REPLICATION: "REPLICATION_SLAVE_ADMIN",
	ast.AuthType_BINLOG: "SUPER, BINLOG_ADMIN", ast.AuthType_GRANT_PROXY: "GRANT OPTION", ast.AuthType_REVOKE_PROXY: "GRANT OPTION",
	ast.AuthType_REVOKE_ALL: "CREATE USER",
}

func commandName(t string) string {
	if n, ok := commandNames[t]; ok {
		return n
	}
	return strings.ReplaceAll(strings.ToUpper(t), "_", " ")
}

// go-mysql-server's privilege errors; the patterns come from the kinds'
// message formats (mysqlerr.KindPattern), the last submatch is the
// database or table.
var (
	reDBDenied    = mysqlerr.KindPattern(sql.ErrDatabaseAccessDeniedForUser, false)
	reTableDenied = mysqlerr.KindPattern(sql.ErrTableAccessDeniedForUser, false)
)

func (h authHandler) HandleAuth(ctx *sql.Context, aqs sql.AuthorizationQueryState, auth ast.AuthInformation) error {
	err := h.AuthorizationHandler.HandleAuth(ctx, aqs, auth)
	if err == nil {
		return checkDatabaseDDL(ctx, auth)
	}
	if isOwnShowGrants(ctx, auth) {
		return nil
	}
	if auth.AuthType == ast.AuthType_PROCESS {
		// SHOW PROCESSLIST without PROCESS: the account's own
		// connections (ownProcessList, accounts_visible.go).
		return nil
	}
	if m := reKill.FindStringSubmatch(ctx.Query()); m != nil && auth.AuthType == ast.AuthType_SUPER {
		// As MySQL: one's own connections may be killed without SUPER.
		if s, ok := ctx.Session.(*engine.Session); ok && s.GW != nil {
			id, _ := strconv.ParseUint(m[1], 10, 32)
			target := s.GW.Session(uint32(id))
			c := ctx.Session.Client()
			if target != nil && target.Client().User == c.User && target.Client().Address == c.Address {
				return nil
			}
			return mysql.NewSQLError(erKillDenied, "HY000", "You are not owner of thread %s", m[1])
		}
	}
	return mysqlPrivilegeError(ctx, auth, err)
}

func (h authHandler) HandleAuthNode(ctx *sql.Context, aqs sql.AuthorizationQueryState, node sql.AuthorizationCheckerNode) error {
	err := h.AuthorizationHandler.HandleAuthNode(ctx, aqs, node)
	if err == nil || !sql.ErrPrivilegeCheckFailed.Is(err) {
		return translateDenied(ctx, err)
	}
	return errSpecificAccess("SUPER")
}

func (h authHandler) CheckDatabase(ctx *sql.Context, aqs sql.AuthorizationQueryState, db string) error {
	return translateDenied(ctx, h.AuthorizationHandler.CheckDatabase(ctx, aqs, db))
}

func (h authHandler) CheckSchema(ctx *sql.Context, aqs sql.AuthorizationQueryState, db, schema string) error {
	return translateDenied(ctx, h.AuthorizationHandler.CheckSchema(ctx, aqs, db, schema))
}

func (h authHandler) CheckTable(ctx *sql.Context, aqs sql.AuthorizationQueryState, db, schema, table string) error {
	return translateDenied(ctx, h.AuthorizationHandler.CheckTable(ctx, aqs, db, schema, table))
}

// checkDatabaseDDL: go-mysql-server checks CREATE/DROP DATABASE as a
// global privilege, and a global check falls back to the session's
// current database, so an account with CREATE on app.* could create any
// database while app was current. As MySQL, the privilege must hold for
// the database named (globally or on it).
func checkDatabaseDDL(ctx *sql.Context, auth ast.AuthInformation) error {
	if auth.TargetType != ast.AuthTargetType_Global || (auth.AuthType != ast.AuthType_CREATE && auth.AuthType != ast.AuthType_DROP) {
		return nil
	}
	m := reCreateDropDB.FindStringSubmatch(ctx.Query())
	s, ok := ctx.Session.(*engine.Session)
	if m == nil || !ok || s.GW == nil || s.GW.Accounts == nil || !s.GW.Accounts.Privileges().Enabled() {
		return nil
	}
	priv := sql.PrivilegeType_Create
	if auth.AuthType == ast.AuthType_DROP {
		priv = sql.PrivilegeType_Drop
	}
	name := m[1] + m[2]
	if s.GW.Accounts.Privileges().UserHasPrivileges(ctx, sql.NewPrivilegedOperation(sql.PrivilegeCheckSubject{Database: name}, priv)) {
		return nil
	}
	user, host := deniedUser(ctx)
	return errDBAccess(user, host, name)
}

// translateDenied rewrites go-mysql-server's database and table refusals.
func translateDenied(ctx *sql.Context, err error) error {
	if err == nil {
		return nil
	}
	user, host := deniedUser(ctx)
	msg := err.Error()
	if m := reDBDenied.FindStringSubmatch(msg); m != nil {
		return dbDenied(user, host, m[len(m)-1], ctx.Query())
	}
	if m := reTableDenied.FindStringSubmatch(msg); m != nil {
		return errTableAccess("SELECT", user, host, m[len(m)-1])
	}
	return err
}

// isOwnShowGrants: SHOW GRANTS, SHOW GRANTS FOR CURRENT_USER and SHOW
// GRANTS FOR one's own account need no privilege.
func isOwnShowGrants(ctx *sql.Context, auth ast.AuthInformation) bool {
	if auth.AuthType != ast.AuthType_SELECT || auth.TargetType != ast.AuthTargetType_DatabaseIdentifiers ||
		len(auth.TargetNames) != 1 || auth.TargetNames[0] != "mysql" {
		return false
	}
	m := reShowGrants.FindStringSubmatch(ctx.Query())
	if m == nil {
		return false
	}
	if m[1] == "" || strings.HasPrefix(strings.ToUpper(m[1]), "CURRENT_USER") {
		return true
	}
	c := ctx.Session.Client()
	user, host, ok := parseAccount(m[1])
	return ok && user == c.User && (host == c.Address || host == "" && c.Address == "%")
}

var reKill = regexp.MustCompile(`(?is)^\s*KILL\s+(?:QUERY\s+|CONNECTION\s+)?(\d+)\s*;?\s*$`)

var reShowGrants = regexp.MustCompile(`(?is)^\s*SHOW\s+GRANTS(?:\s+FOR\s+(\S+?))?\s*;?\s*$`)

// parseAccount splits 'user'@'host' (quotes optional).
func parseAccount(s string) (user, host string, ok bool) {
	unq := func(p string) string {
		if len(p) >= 2 && (p[0] == '\'' || p[0] == '`' || p[0] == '"') && p[len(p)-1] == p[0] {
			return p[1 : len(p)-1]
		}
		return p
	}
	u, h, found := strings.Cut(s, "@")
	if !found {
		return unq(u), "", true
	}
	return unq(u), unq(h), true
}

// mysqlPrivilegeError turns a refusal of HandleAuth into MySQL's error.
func mysqlPrivilegeError(ctx *sql.Context, auth ast.AuthInformation, err error) error {
	if !sql.ErrPrivilegeCheckFailed.Is(err) {
		return translateDenied(ctx, err)
	}
	user, host := deniedUser(ctx)
	cmd := commandName(auth.AuthType)
	dbName := func(db string) string {
		if db == "" {
			return ctx.GetCurrentDatabase()
		}
		return db
	}
	switch auth.AuthType {
	case ast.AuthType_GRANT_PRIVILEGE, ast.AuthType_REVOKE_PRIVILEGE:
		var level *plan.PrivilegeLevel
		switch n := auth.Extra.(type) {
		case *plan.Grant:
			level = &n.PrivilegeLevel
		case *plan.Revoke:
			level = &n.PrivilegeLevel
		}
		switch {
		case level == nil || level.Database == "*":
			return errSpecificAccess("GRANT OPTION")
		case level.TableRoutine == "*":
			return errDBAccess(user, host, dbName(level.Database))
		default:
			verb := "GRANT"
			if auth.AuthType == ast.AuthType_REVOKE_PRIVILEGE {
				verb = "REVOKE"
			}
			return errTableAccess(verb, user, host, level.TableRoutine)
		}
	}
	if m := reCreateDropDB.FindStringSubmatch(ctx.Query()); m != nil {
		return errDBAccess(user, host, m[1]+m[2])
	}
	switch auth.TargetType {
	case ast.AuthTargetType_DatabaseIdentifiers:
		db := ""
		if len(auth.TargetNames) > 0 {
			db = auth.TargetNames[0]
		}
		return dbDenied(user, host, dbName(db), ctx.Query())
	case ast.AuthTargetType_SingleTableIdentifier, ast.AuthTargetType_MultipleTableIdentifiers:
		table := ""
		if len(auth.TargetNames) >= 2 {
			table = auth.TargetNames[1]
			// The first table refused, as MySQL names it.
			if s, ok := ctx.Session.(*engine.Session); ok && s.GW != nil && s.GW.Accounts != nil {
				for i := 0; i+1 < len(auth.TargetNames); i += 2 {
					subject := sql.PrivilegeCheckSubject{Database: dbName(auth.TargetNames[i]), Table: auth.TargetNames[i+1]}
					if !s.GW.Accounts.Privileges().UserHasPrivileges(ctx, sql.NewPrivilegedOperation(subject, privilegeTypes(auth.AuthType)...)) {
						table = auth.TargetNames[i+1]
						break
					}
				}
			}
		}
		return errTableAccess(cmd, user, host, table)
	case ast.AuthTargetType_TableColumn:
		if len(auth.TargetNames) >= 3 {
			return errColumnAccess(cmd, user, host, auth.TargetNames[2], auth.TargetNames[1])
		}
	}
	return errSpecificAccess(cmd)
}

// privilegeTypes are the privileges go-mysql-server checks for an AuthType
// on tables.
func privilegeTypes(t string) []sql.PrivilegeType {
	switch t {
	case ast.AuthType_REPLACE:
		return []sql.PrivilegeType{sql.PrivilegeType_Insert, sql.PrivilegeType_Delete}
	case ast.AuthType_LOCK:
		return []sql.PrivilegeType{sql.PrivilegeType_Select, sql.PrivilegeType_LockTables}
	}
	if p, ok := sql.PrivilegeTypeFromString(commandName(t)); ok {
		return []sql.PrivilegeType{p}
	}
	return nil
}

// Statement-level parts (accountsHandler).

var (
	reSetPassword = regexp.MustCompile(`(?is)^\s*SET\s+PASSWORD(?:\s+FOR\s+(\S+?))?\s*=\s*(?:PASSWORD\s*\(\s*('(?:[^'\\]|\\.|'')*')\s*\)|('(?:[^'\\]|\\.|'')*'))\s*;?\s*$`)
	reSetGlobal   = regexp.MustCompile(`(?is)^\s*SET\s+(?:.*,\s*)?(?:GLOBAL\s|PERSIST\s|PERSIST_ONLY\s|@@GLOBAL\.|@@PERSIST\.|@@PERSIST_ONLY\.)`)
)

// rewriteSetPassword returns the ALTER USER for a SET PASSWORD statement.
func rewriteSetPassword(c *mysql.Conn, query string) (string, bool) {
	m := reSetPassword.FindStringSubmatch(query)
	if m == nil {
		return "", false
	}
	pw := m[2] + m[3]
	account := m[1]
	if account == "" {
		u, ok := c.UserData.(sql.MysqlConnectionUser)
		if !ok {
			return "", false
		}
		account = fmt.Sprintf("'%s'@'%s'", strings.ReplaceAll(u.User, "'", "''"), strings.ReplaceAll(u.Host, "'", "''"))
	}
	return "ALTER USER " + account + " IDENTIFIED BY " + pw, true
}

// checkSetGlobal refuses SET GLOBAL/PERSIST without SUPER or
// SYSTEM_VARIABLES_ADMIN.
func (a *Accounts) checkSetGlobal(c *mysql.Conn, query string) error {
	if !reSetGlobal.MatchString(query) {
		return nil
	}
	u, ok := c.UserData.(sql.MysqlConnectionUser)
	if !ok {
		return nil
	}
	rd := a.db.Reader()
	user := a.db.GetUser(rd, u.User, u.Host, false)
	rd.Close()
	if user == nil {
		return errSpecificAccess("SUPER or SYSTEM_VARIABLES_ADMIN")
	}
	ps := user.PrivilegeSet
	if ps.Has(sql.PrivilegeType_Super) || ps.HasDynamic("system_variables_admin") {
		return nil
	}
	// Roles granted to the account count too.
	sctx := sql.NewContext(context.Background(), sql.WithSession(sql.NewBaseSessionWithClientServer("", sql.Client{User: u.User, Address: u.Host}, 0)))
	if a.db.UserHasPrivileges(sctx, sql.NewPrivilegedOperation(sql.PrivilegeCheckSubject{}, sql.PrivilegeType_Super)) ||
		a.db.UserHasPrivileges(sctx, sql.NewDynamicPrivilegedOperation("system_variables_admin")) {
		return nil
	}
	return errSpecificAccess("SUPER or SYSTEM_VARIABLES_ADMIN")
}

var (
	reCreateDropDB = regexp.MustCompile("(?is)^\\s*(?:CREATE|DROP)\\s+(?:DATABASE|SCHEMA)\\s+(?:IF\\s+(?:NOT\\s+)?EXISTS\\s+)?(?:`([^`]+)`|(\\w+))")
	reDMLVerb      = regexp.MustCompile(`(?is)^\s*(SELECT|INSERT|UPDATE|DELETE|REPLACE)\b`)
	// CREATE [OR REPLACE] [options] TABLE|VIEW [IF NOT EXISTS] [db.]name
	reCreateTableView = regexp.MustCompile("(?is)^\\s*CREATE\\s+(?:OR\\s+REPLACE\\s+)?(?:[A-Z_]+(?:\\s*=\\s*\\S+)?\\s+)*?(TABLE|VIEW)\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?(?:(?:`[^`]+`|\\w+)\\s*\\.\\s*)?(?:`([^`]+)`|(\\w+))")
	reColumnPrivs     = regexp.MustCompile(`has not yet implemented column privileges`)
	// go-mysql-server's ErrUserCreationFailure and friends, MySQL's
	// ER_CANNOT_USER (1396) with the same text; the patterns come from
	// the kinds' message formats (mysqlerr.KindPattern). RENAME USER has
	// no such kind: go-mysql-server answers it "not yet implemented"
	// (below).
	reOperationFailed = []*regexp.Regexp{
		mysqlerr.KindPattern(sql.ErrUserCreationFailure, false),
		mysqlerr.KindPattern(sql.ErrUserAlterFailure, false),
		mysqlerr.KindPattern(sql.ErrUserDeletionFailure, false),
		mysqlerr.KindPattern(sql.ErrRoleCreationFailure, false),
		mysqlerr.KindPattern(sql.ErrRoleDeletionFailure, false),
	}
)

// operationFailed reports whether msg is one of go-mysql-server's
// "Operation ... failed for ..." errors.
func operationFailed(msg string) bool {
	for _, re := range reOperationFailed {
		if re.MatchString(msg) {
			return true
		}
	}
	return false
}

// checkCreateUser refuses an account statement the gateway runs itself
// to an account without CREATE USER (1227).
func (a *Accounts) checkCreateUser(c *mysql.Conn) error {
	u, ok := c.UserData.(sql.MysqlConnectionUser)
	if !ok {
		return errSpecificAccess("CREATE USER")
	}
	sctx := sql.NewContext(context.Background(), sql.WithSession(sql.NewBaseSessionWithClientServer("", sql.Client{User: u.User, Address: u.Host}, 0)))
	if a.db.UserHasPrivileges(sctx, sql.NewPrivilegedOperation(sql.PrivilegeCheckSubject{}, sql.PrivilegeType_CreateUser)) {
		return nil
	}
	return errSpecificAccess("CREATE USER")
}

// translateConnError rewrites the database refusals go-mysql-server raises
// outside the authorization handler (already cast to 1105).
//
// A statement that reads or writes db.table in a database the account has
// no privilege on is MySQL's 1142 naming the table (the first table of
// that database the statement names), anything else 1044.
func (a *Accounts) translateConnError(c *mysql.Conn, query string, err error) error {
	var se *mysql.SQLError
	if err == nil || !errors.As(err, &se) || se.Num != mysql.ERUnknownError {
		return err
	}
	if operationFailed(se.Message) {
		return mysql.NewSQLError(erCannotUser, "HY000", "%s", se.Message)
	}
	if se.Message == "You are not allowed to create a user with GRANT" {
		return mysql.NewSQLError(erCantCreateUserWithGrant, "42000", "%s", se.Message)
	}
	if se.Message == "not yet implemented" && firstKeyword(query) == "RENAME" {
		return mysql.NewSQLError(mysql.ERNotSupportedYet, "42000", "This version of MySQL doesn't yet support 'RENAME USER'")
	}
	if reColumnPrivs.MatchString(se.Message) {
		return mysql.NewSQLError(mysql.ERNotSupportedYet, "42000", "This version of MySQL doesn't yet support 'column privileges'")
	}
	m := reDBDenied.FindStringSubmatch(se.Message)
	if m == nil {
		return err
	}
	return dbDenied(c.User, clientHost(c.RemoteAddr()), m[len(m)-1], query)
}

// dbDenied is the error for a statement refused because the account has
// no privilege on database db: 1142 naming the table for CREATE TABLE,
// CREATE VIEW and a statement that reads or writes db.table, else 1044.
func dbDenied(user, host, db, query string) error {
	if m := reCreateTableView.FindStringSubmatch(query); m != nil {
		// MySQL checks CREATE TABLE / CREATE VIEW on the new table.
		verb := "CREATE"
		if strings.EqualFold(m[1], "VIEW") {
			verb = "CREATE VIEW"
		}
		return errTableAccess(verb, user, host, m[2]+m[3])
	}
	if v := reDMLVerb.FindStringSubmatch(query); v != nil {
		re, err := regexp.Compile("(?i)`?" + regexp.QuoteMeta(db) + "`?\\s*\\.\\s*(?:`([^`]+)`|(\\w+))")
		if err == nil {
			if t := re.FindStringSubmatch(query); t != nil {
				verb := strings.ToUpper(v[1])
				if verb == "REPLACE" {
					verb = "INSERT"
				}
				return errTableAccess(verb, user, host, t[1]+t[2])
			}
		}
	}
	return errDBAccess(user, host, db)
}

// Passwords in go-mysql-server's log lines
//
// go-mysql-server logs some failing statements with their text through
// logrus (e.g. "unable to prepare query"); a hook replaces every quoted
// password in them (IDENTIFIED BY '...', SET PASSWORD = '...',
// PASSWORD('...')) with '<redacted>' before any line is written.

var rePasswordLiteral = regexp.MustCompile(`(?is)((?:IDENTIFIED\s+(?:WITH\s+\S+\s+)?(?:BY|AS)|PASSWORD(?:\s+FOR\s+\S+?)?\s*=\s*(?:PASSWORD\s*\()?|PASSWORD\s*\()\s*)'(?:[^'\\]|\\.|'')*'`)

func redactPasswords(s string) string {
	if !strings.Contains(strings.ToUpper(s), "PASSWORD") && !strings.Contains(strings.ToUpper(s), "IDENTIFIED") {
		return s
	}
	return rePasswordLiteral.ReplaceAllString(s, "$1'<redacted>'")
}

type redactHook struct{}

func (redactHook) Levels() []logrus.Level { return logrus.AllLevels }

func (redactHook) Fire(e *logrus.Entry) error {
	e.Message = redactPasswords(e.Message)
	for k, v := range e.Data {
		if s, ok := v.(string); ok {
			e.Data[k] = redactPasswords(s)
		}
	}
	return nil
}

func init() { logrus.AddHook(redactHook{}) }
