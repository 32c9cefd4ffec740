package wire

import (
	"strconv"
	"strings"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"

	"github.com/sqlgw/sqlgw/sqlgw/engine"
	"github.com/sqlgw/sqlgw/sqlgw/sqltext"
)

// mysqlWarningTexts words the rows of SHOW WARNINGS (Level, Code,
// Message) as MySQL 8.0 words them (engine.MySQLWarningMessage); any
// other statement's results pass unchanged.
func mysqlWarningTexts(query string, next mysql.ResultSpoolFn) mysql.ResultSpoolFn {
	if !strings.EqualFold(sqltext.FirstWord(query), "show") {
		return next
	}
	if w := sqltext.LeadingWords(query, 2); len(w) < 2 || w[1] != "warnings" {
		return next
	}
	return func(res *sqltypes.Result, more bool) error {
		if res != nil && len(res.Fields) == 3 {
			for i, row := range res.Rows {
				if len(row) != 3 {
					continue
				}
				code, err := strconv.Atoi(row[1].ToString())
				if err != nil {
					continue
				}
				msg := row[2].ToString()
				if m := engine.MySQLWarningMessage(code, msg); m != msg {
					res.Rows[i] = []sqltypes.Value{row[0], row[1], sqltypes.MakeTrusted(row[2].Type(), []byte(m))}
				}
			}
		}
		return next(res, more)
	}
}
