package wire

import (
	"context"
	"strings"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"

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
	w := sqltext.LeadingWords(query, 1)
	if len(w) < 1 || w[0] != "show" || !strings.Contains(strings.ToLower(query), "like") {
		return cb
	}
	pattern, ok := sqltext.ShowLikePattern(query)
	if !ok {
		return cb // no LIKE (or a WHERE): the header is the plain name
	}
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
