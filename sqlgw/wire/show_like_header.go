package wire

import (
	"context"
	"strings"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/sqlgw/sqlgw/sqlgw/sqltext"
)

// SHOW ... LIKE headers
//
// MySQL names the first column of SHOW DATABASES LIKE 'p' "Database (p)"
// and of SHOW [FULL] TABLES LIKE 'p' "Tables_in_db (p)"; go-mysql-server
// leaves out the pattern. Scripts and tools that read the column by name
// (mysqlshow, some GUI loaders) expect MySQL's.

// fixShowLikeHeader renames the first column of a SHOW DATABASES/TABLES
// ... LIKE result (cb unchanged for any other statement).
func fixShowLikeHeader(ctx context.Context, query string, cb mysql.ResultSpoolFn) mysql.ResultSpoolFn {
	w := sqltext.LeadingWords(query, 3)
	if len(w) < 2 || w[0] != "show" || !strings.Contains(strings.ToLower(query), "like") {
		return cb
	}
	switch {
	case w[1] == "databases" || w[1] == "schemas":
	case w[1] == "tables" || w[1] == "full" && len(w) > 2 && w[2] == "tables":
	default:
		return cb
	}
	stmt, _, err := sqlparser.ParseOne(ctx, query)
	if err != nil {
		return cb
	}
	sh, ok := stmt.(*sqlparser.Show)
	if !ok {
		return cb
	}
	filter := sh.Filter
	if filter == nil && sh.ShowTablesOpt != nil {
		filter = sh.ShowTablesOpt.Filter
	}
	if filter == nil || filter.Filter != nil {
		return cb // no LIKE (or a WHERE): the header is the plain name
	}
	pattern := filter.Like
	return func(res *sqltypes.Result, more bool) error {
		if res != nil && len(res.Fields) > 0 && !strings.HasSuffix(res.Fields[0].Name, ")") {
			f := copyField(res.Fields[0])
			f.Name = f.Name + " (" + pattern + ")"
			fields := append([]*querypb.Field{f}, res.Fields[1:]...)
			r := *res
			r.Fields = fields
			res = &r
		}
		return cb(res, more)
	}
}
