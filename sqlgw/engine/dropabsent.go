package engine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
)

// DROP TABLE / DROP VIEW IF EXISTS in a database that does not exist
//
// MySQL 8.0 treats a table of a missing database like any missing table:
// DROP TABLE IF EXISTS nosuchdb.t succeeds with note 1051 "Unknown table
// 'nosuchdb.t'" (MariaDB too), and so does DROP VIEW IF EXISTS. go-mysql-
// server's binder looks the database up first and fails with 1049
// "Unknown database". While such a statement is bound, the provider
// answers for the database it names (statementParsed remembers it,
// warns.dropDB) with absentDatabase, which holds no table and no view: the
// binder then notes the tables as missing (worded as MySQL by mysqlNote),
// ddlNotes the views, and nothing is dropped. Any other statement, and
// the DROP once built to run, still gets 1049.

// absentDatabase is a database that does not exist, seen by a DROP ...
// IF EXISTS (see above): empty, and refusing every change.
type absentDatabase struct{ name string }

var (
	_ sql.Database     = absentDatabase{}
	_ sql.ViewDatabase = absentDatabase{}
)

func (d absentDatabase) Name() string { return d.name }

func (d absentDatabase) GetTableInsensitive(*sql.Context, string) (sql.Table, bool, error) {
	return nil, false, nil
}

func (d absentDatabase) GetTableNames(*sql.Context) ([]string, error) { return nil, nil }

func (d absentDatabase) CreateView(*sql.Context, string, string, string) error {
	return sql.ErrDatabaseNotFound.New(d.name)
}

func (d absentDatabase) DropView(_ *sql.Context, name string) error {
	return sql.ErrViewDoesNotExist.New(d.name, name)
}

func (d absentDatabase) GetViewDefinition(*sql.Context, string) (sql.ViewDefinition, bool, error) {
	return sql.ViewDefinition{}, false, nil
}

func (d absentDatabase) AllViews(*sql.Context) ([]sql.ViewDefinition, error) { return nil, nil }

// dropAbsent returns the absentDatabase for name, a database that does
// not exist, if the statement being bound is a DROP TABLE or DROP VIEW IF
// EXISTS naming it.
func dropAbsent(ctx *sql.Context, name string) (sql.Database, bool) {
	s := sessionOf(ctx)
	if s == nil || !s.warns.dropIfExists || !strings.EqualFold(s.warns.dropDB, name) {
		return nil, false
	}
	return absentDatabase{name: s.warns.dropDB}, true
}

// dropBuilt ends dropAbsent's answer once the DROP node n is built to run.
func dropBuilt(ctx *sql.Context, n sql.Node) {
	switch n.(type) {
	case *plan.DropTable, *plan.DropView:
		if s := sessionOf(ctx); s != nil {
			s.warns.dropIfExists = false
		}
	}
}
