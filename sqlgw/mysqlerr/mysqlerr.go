// Package mysqlerr gives errors MySQL's codes, SQLSTATEs and wording as
// the last step before they reach a client: go-mysql-server reports many
// everyday errors with its own text and code 1105 (ER_UNKNOWN_ERROR).
//
// It owns the translation tables only and imports go-mysql-server,
// vitess and sqlgw/sqltext; the engine (sqlgw/engine) and the server
// (sqlgw) import it, never the other way round. Errors of the engine that
// need a column or row name (a write's range error) carry them in
// WriteError.
package mysqlerr

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/sqlgw/sqltext"
)

// MySQL-compatible error texts
//
// go-mysql-server reports several everyday errors with its own wording and
// without MySQL's SQLSTATE, which clients and scripts compare against.
// Translate rewrites those, as the last step before the error is
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
	// Unknown columns: go-mysql-server's ErrColumnNotFound,
	// ErrTableColumnNotFound and ErrUnknownColumn (INSERT's column list).
	reNoColumn      = regexp.MustCompile(`^column "(.*)" could not be found in any table in scope$`)
	reNoTableColumn = regexp.MustCompile(`^table "(.*)" does not have column "(.*)"$`)
	reUnknownColumn = regexp.MustCompile(`^Unknown column '(.*)' in '.*'$`)
	// types.ErrLengthBeyondLimit, which INSERT and UPDATE fill in with
	// the column name.
	reTooLong = regexp.MustCompile(`(?s)^string '.*' is too large for column '(.*)'$`)
	// sql.ErrValueOutOfRange and types.ErrConvertToDecimalLimit.
	reOutOfRange   = regexp.MustCompile(`(?s)^(.*) out of range for (.*)$`)
	reDecimalRange = regexp.MustCompile(`^Out of range value for column of Decimal type\s*$`)
	// sql.ErrUnknownTable (DROP TEMPORARY TABLE of an ordinary table).
	reUnknownTable = regexp.MustCompile(`^Unknown table '(.*)'$`)
	// sql.ErrViewDoesNotExist (DROP VIEW).
	reNoView = regexp.MustCompile(`^the view (.*) does not exist$`)
	// sql.ErrDatabaseExists and catalog.ErrDatabaseExists.
	reDBExists = regexp.MustCompile(`^can't create database (.*); database exists$|^catalog: database exists: "(.*)"$`)
)

// erReadOnlyTransaction is ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION, which
// vitess does not name.
const erReadOnlyTransaction = 1792

// sqlStates are the SQLSTATEs of MySQL error codes go-mysql-server leaves
// unset.
var sqlStates = map[int]string{
	mysql.ERDupEntry:                "23000",
	mysql.ERBadNullError:            "23000",
	mysql.ERNoSuchTable:             "42S02",
	mysql.ERTableExists:             "42S01",
	mysql.ERBadDb:                   "42000",
	mysql.ERMultiplePriKey:          "42000",
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
	erReadOnlyTransaction:           "25006",
}

// Translate rewrites go-mysql-server's wording of common errors into
// MySQL's. db is the session's current database (for "Table 'db.t'").
// reReadOnlyVar is go-mysql-server's text for SET of a read-only system
// variable (1105 there, 1238 ER_INCORRECT_GLOBAL_LOCAL_VAR in MySQL).
var reReadOnlyVar = regexp.MustCompile(`^Variable '[^']+' is a read only variable$`)

const erIncorrectGlobalLocalVar = 1238

func Translate(err error, db string) error {
	return TranslateStatement(err, "", db, nil)
}

// TranslateStatement is Translate for an error of the statement
// query (the first one of a multi-statement text): some errors are MySQL
// errors of their own in some statements only (DROP TABLE of a missing
// table is 1051, not 1146). we, if not nil, names the column and row of
// a write's range or length error (strictwrite.go).
func TranslateStatement(err error, query, db string, we *WriteError) error {
	var se *mysql.SQLError
	if !errors.As(err, &se) {
		return err
	}
	num, state, msg := int(se.Num), se.State, se.Message
	qualify := func(t string) string {
		if !strings.Contains(t, ".") && db != "" {
			return db + "." + t
		}
		return t
	}
	switch {
	case num == mysql.ERNoSuchTable && isStatement(query, "drop", "table", "view"):
		// MySQL: ER_BAD_TABLE_ERROR for DROP TABLE and DROP VIEW.
		if m := reNoTable.FindStringSubmatch(msg); m != nil {
			num, state, msg = mysql.ERBadTable, "42S02", fmt.Sprintf("Unknown table '%s'", qualify(m[1]))
		}
	case num == mysql.ERBadDb && isStatement(query, "drop", "database", "schema"):
		if m := reNoDatabase.FindStringSubmatch(msg); m != nil {
			num, state, msg = mysql.ERDbDropExists, "HY000", fmt.Sprintf("Can't drop database '%s'; database doesn't exist", m[1])
		}
	case num == mysql.ERDbCreateExists:
		if m := reDBExists.FindStringSubmatch(msg); m != nil {
			msg = fmt.Sprintf("Can't create database '%s'; database exists", m[1]+m[2])
		}
	case num == mysql.ERBadFieldError:
		// MySQL names the clause ('field list', 'where clause', ...);
		// go-mysql-server does not say which, so it is 'field list'.
		if m := reUnknownColumn.FindStringSubmatch(msg); m != nil {
			msg = fmt.Sprintf("Unknown column '%s' in 'field list'", m[1])
		}
	case num == mysql.ERUnknownError:
		if m := reNoColumn.FindStringSubmatch(msg); m != nil {
			num, state, msg = mysql.ERBadFieldError, "42S22", fmt.Sprintf("Unknown column '%s' in 'field list'", m[1])
		} else if m := reNoTableColumn.FindStringSubmatch(msg); m != nil {
			num, state, msg = mysql.ERBadFieldError, "42S22", fmt.Sprintf("Unknown column '%s.%s' in 'field list'", m[1], m[2])
		} else if m := reTooLong.FindStringSubmatch(msg); m != nil {
			num, state, msg = mysql.ERDataTooLong, "22001", fmt.Sprintf("Data too long for column '%s'", m[1])
			if we != nil {
				msg = fmt.Sprintf("Data too long for column '%s' at row %d", we.Column, we.Row)
			}
		} else if m := reOutOfRange.FindStringSubmatch(msg); m != nil {
			// go-mysql-server names the type, not the column: the write
			// found it (strictwrite.go).
			num, state, msg = mysql.ERWarnDataOutOfRange, "22003", fmt.Sprintf("Out of range value for column of type %s: %s", m[2], m[1])
			if we != nil {
				msg = fmt.Sprintf("Out of range value for column '%s' at row %d", we.Column, we.Row)
			}
		} else if reDecimalRange.MatchString(msg) {
			num, state, msg = mysql.ERWarnDataOutOfRange, "22003", "Out of range value for column of type decimal"
			if we != nil {
				msg = fmt.Sprintf("Out of range value for column '%s' at row %d", we.Column, we.Row)
			}
		} else if m := reNoView.FindStringSubmatch(msg); m != nil {
			num, state, msg = mysql.ERBadTable, "42S02", fmt.Sprintf("Unknown table '%s'", qualify(m[1]))
		} else if m := reUnknownTable.FindStringSubmatch(msg); m != nil {
			num, state, msg = mysql.ERBadTable, "42S02", fmt.Sprintf("Unknown table '%s'", qualify(m[1]))
		} else if msg == "cannot execute statement in a READ ONLY transaction" {
			num, state, msg = erReadOnlyTransaction, "25006", "Cannot execute statement in a READ ONLY transaction."
		} else if reReadOnlyVar.MatchString(msg) {
			num, state = erIncorrectGlobalLocalVar, "HY000" // MySQL's code for SET of a read-only variable
		}
	}
	switch {
	case num == mysql.ERDupEntry:
		if m := reDupKey.FindStringSubmatch(msg); m != nil && strings.HasPrefix(m[1], "Duplicate entry '") {
			msg = m[1] // a unique secondary key: the editor wrote MySQL's text (secondary.go, checkUnique)
		} else if m != nil {
			msg = fmt.Sprintf("Duplicate entry '%s' for key 'PRIMARY'", strings.ReplaceAll(m[1], ",", "-"))
		}
	case num == mysql.ERBadNullError:
		if m := reNotNull.FindStringSubmatch(msg); m != nil {
			msg = fmt.Sprintf("Column '%s' cannot be null", m[1])
		}
	case num == mysql.ERNoSuchTable:
		if m := reNoTable.FindStringSubmatch(msg); m != nil {
			msg = fmt.Sprintf("Table '%s' doesn't exist", qualify(m[1]))
		}
	case num == mysql.ERBadDb:
		if m := reNoDatabase.FindStringSubmatch(msg); m != nil {
			msg = fmt.Sprintf("Unknown database '%s'", m[1])
		}
	case num == erReadOnlyTransaction:
		msg = "Cannot execute statement in a READ ONLY transaction."
	case num == mysql.ERMultiplePriKey:
		msg = "Multiple primary key defined"
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
	if n, s, m, ok := schemaFeatError(num, msg); ok {
		num, state, msg = n, s, m
	}
	if s, ok := sqlStates[num]; ok && (state == "" || state == mysql.SSUnknownSQLState) {
		state = s
	}
	if num == int(se.Num) && state == se.State && msg == se.Message {
		return err
	}
	return mysql.NewSQLError(num, state, "%s", msg)
}

// isStatement reports that query's first keyword (after blanks and
// comments) is verb and its second one of objects, case-insensitively;
// a TEMPORARY between them is skipped (DROP TEMPORARY TABLE).
func isStatement(query, verb string, objects ...string) bool {
	words := sqltext.LeadingWords(query, 3)
	if len(words) < 2 || words[0] != verb {
		return false
	}
	obj := words[1]
	if obj == "temporary" && len(words) > 2 {
		obj = words[2]
	}
	for _, o := range objects {
		if obj == o {
			return true
		}
	}
	return false
}

// The engine reports these with its own kinds, which reach the client as
// 1105; MySQL 8 has its own numbers and wording for them.
var (
	reCheckViolated   = regexp.MustCompile(`^Check constraint "(.*)" violated$`)
	reGeneratedValue  = regexp.MustCompile(`^The value specified for generated column "(.*)" in table "(.*)" is not allowed\.$`)
	reCheckColumnUsed = regexp.MustCompile(`^can't alter column "(.*)" because it would invalidate check constraint "(.*)"$`)
	reNoConstraint    = regexp.MustCompile(`^Constraint "(.*)" does not exist$`)
	reNoTrigger       = regexp.MustCompile(`^trigger "(.*)" does not exist$`)
)

// schemaFeatError rewrites the engine's errors about checks and generated
// columns into MySQL 8's (called by TranslateStatement).
func schemaFeatError(num int, msg string) (int, string, string, bool) {
	if num != mysql.ERUnknownError {
		return 0, "", "", false
	}
	switch {
	case reCheckViolated.MatchString(msg):
		m := reCheckViolated.FindStringSubmatch(msg)
		return 3819, "HY000", fmt.Sprintf("Check constraint '%s' is violated.", m[1]), true
	case reGeneratedValue.MatchString(msg):
		m := reGeneratedValue.FindStringSubmatch(msg)
		return 3105, "HY000", fmt.Sprintf("The value specified for generated column '%s' in table '%s' is not allowed.", m[1], m[2]), true
	case reCheckColumnUsed.MatchString(msg):
		m := reCheckColumnUsed.FindStringSubmatch(msg)
		return 3959, "HY000", fmt.Sprintf("Check constraint '%s' uses column '%s', hence column cannot be dropped or renamed.", m[2], m[1]), true
	case reNoConstraint.MatchString(msg):
		m := reNoConstraint.FindStringSubmatch(msg)
		return 3940, "HY000", fmt.Sprintf("Constraint '%s' does not exist.", m[1]), true
	case reNoTrigger.MatchString(msg):
		return 1360, "HY000", "Trigger does not exist", true
	case msg == sql.ErrVirtualColumnPrimaryKey.New().Error():
		return 3106, "HY000", "'Defining a virtual generated column as primary key' is not supported for generated columns.", true
	case msg == sql.ErrGeneratedColumnWithDefault.New().Error():
		return mysql.ERWrongUsage, "HY000", "Incorrect usage of DEFAULT and generated column", true
	}
	return 0, "", "", false
}

// WriteError is the column and the 1-based row of a write's range or
// length error, which go-mysql-server's error does not carry. The error
// itself goes up unchanged (the engine and its tests check its kind and
// text); the connection handler takes this detail when it writes the
// error as MySQL's 1264 or 1406 (TranslateStatement).
type WriteError struct {
	Column string
	Row    int
}
