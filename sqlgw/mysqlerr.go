package sqlgw

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/dolthub/vitess/go/mysql"
)

// MySQL-compatible error texts
//
// go-mysql-server reports several everyday errors with its own wording and
// without MySQL's SQLSTATE, which clients and scripts compare against.
// translateError rewrites those, as the last step before the error is
// written to the client: the code stays, the message and SQLSTATE become
// MySQL's.

var (
	reDupKey      = regexp.MustCompile(`^duplicate (?:primary|unique) key given: \[?(.*?)\]?$`)
	reNotNull     = regexp.MustCompile(`^column name '(.*)' is non-nullable but attempted to set a value of null$`)
	reNoTable     = regexp.MustCompile(`^table not found: (.*)$`)
	reNoDefault   = regexp.MustCompile(`^Field '(.*)' doesn't have a default value$`)
	reNoDatabase  = regexp.MustCompile(`^database not found: (.*)$`)
	reTableExists = regexp.MustCompile(`^table with name (.*) already exists$`)
	reViewExists  = regexp.MustCompile(`^the view [^.]*\.(.*) already exists$`)
	reNoFK        = regexp.MustCompile(`^the table does not support foreign key operations: (.*)$`)
	reNoPKAlter   = regexp.MustCompile(`^error: table is not primary key alterable`)
)

// sqlStates are the SQLSTATEs of MySQL error codes go-mysql-server leaves
// unset.
var sqlStates = map[int]string{
	mysql.ERDupEntry:                "23000",
	mysql.ERBadNullError:            "23000",
	mysql.ERNoSuchTable:             "42S02",
	mysql.ERTableExists:             "42S01",
	mysql.ERBadDb:                   "42000",
	mysql.ERBadFieldError:           "42S22",
	mysql.ERParseError:              "42000",
	mysql.ERLockDeadlock:            "40001",
	mysql.ERNotSupportedYet:         "42000",
	mysql.ERDupFieldName:            "42S21",
	mysql.ErNoReferencedRow2:        "23000",
	mysql.ERRowIsReferenced2:        "23000",
	mysql.ERDbCreateExists:          "HY000",
	mysql.ERDbDropExists:            "HY000",
	mysql.ERWrongValueCountOnRow:    "21S01",
	mysql.ERDataTooLong:             "22001",
	mysql.ERWarnDataOutOfRange:      "22003",
	mysql.ERTruncatedWrongValue:     "22007",
	mysql.ERSubqueryNo1Row:          "21000",
	mysql.ERNonUniq:                 "23000",
	mysql.ERUnknownTable:            "42S02",
	mysql.ERCantDropFieldOrKey:      "42000",
	mysql.ERMixOfGroupFuncAndFields: "42000",
}

// translateError rewrites go-mysql-server's wording of common errors into
// MySQL's. db is the session's current database (for "Table 'db.t'").
func translateError(err error, db string) error {
	var se *mysql.SQLError
	if !errors.As(err, &se) {
		return err
	}
	num, state, msg := int(se.Num), se.State, se.Message
	switch {
	case num == mysql.ERDupEntry:
		if m := reDupKey.FindStringSubmatch(msg); m != nil {
			msg = fmt.Sprintf("Duplicate entry '%s' for key 'PRIMARY'", strings.ReplaceAll(m[1], ",", "-"))
		}
	case num == mysql.ERBadNullError:
		if m := reNotNull.FindStringSubmatch(msg); m != nil {
			msg = fmt.Sprintf("Column '%s' cannot be null", m[1])
		}
	case num == mysql.ERNoSuchTable:
		if m := reNoTable.FindStringSubmatch(msg); m != nil {
			t := m[1]
			if !strings.Contains(t, ".") && db != "" {
				t = db + "." + t
			}
			msg = fmt.Sprintf("Table '%s' doesn't exist", t)
		}
	case num == mysql.ERBadDb:
		if m := reNoDatabase.FindStringSubmatch(msg); m != nil {
			msg = fmt.Sprintf("Unknown database '%s'", m[1])
		}
	case num == mysql.ERUnknownError || num == mysql.ERTableExists:
		if m := reNoDefault.FindStringSubmatch(msg); m != nil {
			num, state = mysql.ERNoDefaultForField, "HY000"
		} else if m := reTableExists.FindStringSubmatch(msg); m != nil {
			num, msg = mysql.ERTableExists, fmt.Sprintf("Table '%s' already exists", m[1])
		} else if reNoPKAlter.MatchString(msg) {
			num, state, msg = mysql.ERNotSupportedYet, "42000", "sqlgw: changing the primary key of a table is not supported yet"
		} else if m := reNoFK.FindStringSubmatch(msg); m != nil {
			num, state, msg = mysql.ERNotSupportedYet, "42000", fmt.Sprintf("sqlgw: foreign keys (on table %s) are not supported yet", m[1])
		} else if m := reViewExists.FindStringSubmatch(msg); m != nil {
			num, msg = mysql.ERTableExists, fmt.Sprintf("Table '%s' already exists", m[1])
		}
	}
	if s, ok := sqlStates[num]; ok && (state == "" || state == mysql.SSUnknownSQLState) {
		state = s
	}
	if num == int(se.Num) && state == se.State && msg == se.Message {
		return err
	}
	return mysql.NewSQLError(num, state, "%s", msg)
}
