package sqlgw

import (
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
	if !ok || s.gw == nil || s.gw.accounts == nil || !s.gw.accounts.db.Enabled() || ctx.Session.Client().User == "" {
		return true
	}
	if strings.EqualFold(db, "information_schema") {
		return true
	}
	ps := s.gw.accounts.db.UserActivePrivilegeSet(ctx)
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
