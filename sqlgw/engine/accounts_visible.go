package engine

import (
	"context"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/information_schema"
)

// What an account sees of tables and views
//
// MySQL lists to an account only the tables and views it has some
// privilege on (globally, on the database or on the table itself), in
// SHOW TABLES and in every information_schema table. go-mysql-server
// filters table names so (mysql_db.PrivilegedDatabase), but lists every
// view of a visible database (AllViews is not filtered), and
// information_schema.TABLES unwraps the privileged databases, so an
// account with a grant on one table of a database saw every table of it
// there. sqlgw filters its databases' views (Database.AllViews, by
// viewVisible) and has information_schema read the privileged databases
// everywhere (so TABLES, COLUMNS, STATISTICS, VIEWS, ... agree with SHOW
// TABLES). Contexts without a client account (the gateway's own work,
// sqlgw copy) see everything.

func init() {
	orig := information_schema.AllDatabasesWithNames
	information_schema.AllDatabasesWithNames = func(ctx *sql.Context, cat sql.Catalog, _ bool) ([]information_schema.DbWithNames, error) {
		// go-mysql-server's privCheck argument (true for TABLES only)
		// unwraps the privileged databases, whose table names are
		// filtered; always keep them.
		return orig(ctx, cat, false)
	}
}

// viewVisible reports whether the session's account may see view (or
// table) name of database db: it has a privilege globally, on db, or on
// the view, as go-mysql-server's rule for tables.
func viewVisible(ctx *sql.Context, db, name string) bool {
	if ctx == nil || ctx.Session == nil {
		return true
	}
	s, ok := ctx.Session.(*Session)
	if !ok || s.GW == nil || s.GW.Accounts == nil || !s.GW.Accounts.Privileges().Enabled() || ctx.Session.Client().User == "" {
		return true
	}
	if strings.EqualFold(db, "information_schema") {
		return true
	}
	ps := s.GW.Accounts.Privileges().UserActivePrivilegeSet(ctx)
	if ps.Count() > 0 {
		return true
	}
	dbSet := ps.Database(db)
	return dbSet.Count() > 0 || dbSet.Table(name).HasPrivileges()
}

// visibleViews keeps the views the session's account may see.
func visibleViews(ctx *sql.Context, db string, views []sql.ViewDefinition) []sql.ViewDefinition {
	out := views[:0:0]
	for _, v := range views {
		if viewVisible(ctx, db, v.Name) {
			out = append(out, v)
		}
	}
	return out
}

// SHOW PROCESSLIST and information_schema.PROCESSLIST
//
// As MySQL, an account without the PROCESS privilege sees its own
// connections (those of its user name) instead of being refused: the
// authorization check of SHOW PROCESSLIST passes (authHandler.HandleAuth)
// and every client statement's context carries a process list that shows
// the session's account only its user's processes unless it holds
// PROCESS (or SUPER), which both read.

// newClientContext is the server's sql.ContextFactory.
func NewClientContext(ctx context.Context, opts ...sql.ContextOption) *sql.Context {
	c := sql.NewContext(ctx, opts...)
	if c.ProcessList != nil {
		c.ProcessList = ownProcessList{ProcessList: c.ProcessList, ctx: c}
	}
	return c
}

// ownProcessList filters Processes for the account of ctx.
type ownProcessList struct {
	sql.ProcessList
	ctx *sql.Context
}

func (p ownProcessList) Processes() []sql.Process {
	all := p.ProcessList.Processes()
	s, ok := p.ctx.Session.(*Session)
	if !ok || s.GW == nil || s.GW.Accounts == nil || !s.GW.Accounts.Privileges().Enabled() {
		return all
	}
	user := p.ctx.Session.Client().User
	if user == "" {
		return all
	}
	ps := s.GW.Accounts.Privileges().UserActivePrivilegeSet(p.ctx)
	if ps.Has(sql.PrivilegeType_Process) || ps.Has(sql.PrivilegeType_Super) {
		return all
	}
	own := all[:0:0]
	for _, proc := range all {
		if proc.User == user {
			own = append(own, proc)
		}
	}
	return own
}
