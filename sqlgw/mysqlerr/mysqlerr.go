// Package mysqlerr gives errors MySQL's codes, SQLSTATEs and wording as
// the last step before they reach a client: go-mysql-server reports many
// everyday errors with its own text and code 1105 (ER_UNKNOWN_ERROR).
//
// It owns the translation tables only: go-mysql-server's errors (the rule
// table below; its foreign key errors, whose MySQL texts describe the
// constraint read from the catalog, in foreignkeys.go) and the catalog's
// and the store's sentinel errors with sqlgw's own (store.go). It imports go-mysql-server, vitess,
// sqlgw/sqltext and, for their sentinel errors, the catalog and the
// storage contract; the engine (sqlgw/engine) and the server (sqlgw)
// import it, never the other way round. Errors of the engine that
// need a column or row name (a write's range error) carry them in
// WriteError.
package mysqlerr

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	kinds "gopkg.in/src-d/go-errors.v1"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/sqlgw/sqltext"
)

// MySQL-compatible error texts
//
// go-mysql-server's handler turns every error into a *mysql.SQLError
// (sql.CastSQLError: a code for the kinds it knows, 1105 for the rest)
// before sqlgw's connection handler sees it, so the kind itself is gone by
// then; what is left is the code and the kind's text. rules is the one
// table of what sqlgw changes: each rule names the go-mysql-server error
// kind it rewrites, and its text pattern is derived from that kind's own
// message format (KindPattern), so no regular expression is written by
// hand for an error that has a kind. Two rules have no kind and spell out
// their pattern: sqlgw's catalog wording of an existing database, and the
// read-only-variable text whose kind would match any variable name. The
// table-driven test (mysqlerr_test.go) gives, for every rule, the exact
// text it matches and what the client gets; TestRulesMatchKinds formats
// every kind and checks its rule matches it, so a change of wording in
// go-mysql-server fails there.
//
// The rules are tried in order and the first that matches wins: the
// statement-specific ones (DROP TABLE of a missing table is 1051, not
// 1146) come before the general ones.

// A rule rewrites one go-mysql-server error into MySQL's.
type rule struct {
	// kind is the go-mysql-server error kind the text comes from; nil
	// when there is none (then re is required).
	kind *kinds.Kind
	// re is the text pattern; nil means KindPattern(kind).
	re *regexp.Regexp
	// codes are the codes the error arrives with (sql.CastSQLError's).
	codes []int
	// stmt, if set, limits the rule to statements it accepts.
	stmt func(query string) bool
	// apply returns MySQL's code, SQLSTATE and text from the submatches
	// of the pattern (m[0] is the whole text).
	apply func(m []string, x *context) (num int, state, msg string)
}

// context is what a rule may use besides the text: the session's current
// database and the column and row of a write's range or length error.
type context struct {
	db string
	// query is the statement's text ("" if not known).
	query string
	we    *WriteError
}

// qualify is "db.t" for an unqualified table name t.
func (x *context) qualify(t string) string {
	if !strings.Contains(t, ".") && x.db != "" {
		return x.db + "." + t
	}
	return t
}

// atRow is text with the write's column and row when the write noted them.
func (x *context) atRow(text, withRow string) string {
	if x.we != nil {
		return fmt.Sprintf(withRow, x.we.Column, x.we.Row)
	}
	return text
}

// KindPattern is the regular expression of a kind's message format: %s and
// %v are any text, %q a double-quoted one, %d a number. wrapped kinds
// (kind.Wrap(cause)) continue with ": cause".
func KindPattern(k *kinds.Kind, wrapped bool) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("(?s)^")
	f := k.Message
	for i := 0; i < len(f); i++ {
		if f[i] == '%' && i+1 < len(f) {
			switch f[i+1] {
			case 's', 'v':
				b.WriteString("(.*)")
				i++
				continue
			case 'q':
				b.WriteString(`"(.*)"`)
				i++
				continue
			case 'd':
				b.WriteString(`(-?[0-9]+)`)
				i++
				continue
			}
		}
		b.WriteString(regexp.QuoteMeta(f[i : i+1]))
	}
	if wrapped {
		b.WriteString(`: \[?(.*?)\]?`)
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

const (
	erUnknownError    = mysql.ERUnknownError
	erNoSuchTable     = mysql.ERNoSuchTable
	erIncorrectGlobal = 1238 // ER_INCORRECT_GLOBAL_LOCAL_VAR
	erCheckViolated   = 3819 // ER_CHECK_CONSTRAINT_VIOLATED
	erGeneratedValue  = 3105 // ER_NON_DEFAULT_VALUE_FOR_GENERATED_COLUMN
	erGeneratedPK     = 3106 // ER_UNSUPPORTED_ACTION_ON_GENERATED_COLUMN
	erCheckColumnUsed = 3959 // ER_DEPENDENT_BY_CHECK_CONSTRAINT
	erNoConstraint    = 3940 // ER_CONSTRAINT_NOT_FOUND
	erNoTrigger       = 1360 // ER_TRG_DOES_NOT_EXIST
	erUnknownStmt     = 1243 // ER_UNKNOWN_STMT_HANDLER
)

// mysqlText is a rule's result with MySQL's text written by format from
// the submatches listed in args (indexes into m).
func mysqlText(num int, state, format string, args ...int) func([]string, *context) (int, string, string) {
	return func(m []string, _ *context) (int, string, string) {
		a := make([]any, len(args))
		for i, j := range args {
			a[i] = m[j]
		}
		return num, state, fmt.Sprintf(format, a...)
	}
}

// unknownTable is 1051 "Unknown table 'db.t'" for the name in m[i] (and
// m[i+1] when the kind names database and table apart).
func unknownTable(i int, split bool) func([]string, *context) (int, string, string) {
	return func(m []string, x *context) (int, string, string) {
		name := m[i]
		if split {
			name = m[i] + "." + m[i+1]
		}
		return mysql.ERBadTable, "42S02", fmt.Sprintf("Unknown table '%s'", x.qualify(name))
	}
}

func dropOf(objects ...string) func(string) bool {
	return func(q string) bool { return isStatement(q, "drop", objects...) }
}

// syntaxPattern is vitess's parse error (sqlparser Tokenizer.Error).
var syntaxPattern = regexp.MustCompile(`^syntax error at position (\d+)(?: near '(.*)')?$`)

var rules = []rule{
	// Statement-specific codes first.
	{kind: sql.ErrTableNotFound, codes: []int{erNoSuchTable}, stmt: dropOf("table", "view"), // MySQL: 1051 for DROP TABLE and DROP VIEW
		apply: unknownTable(1, false)},
	{kind: sql.ErrDatabaseNotFound, codes: []int{mysql.ERBadDb}, stmt: dropOf("database", "schema"),
		apply: mysqlText(mysql.ERDbDropExists, "HY000", "Can't drop database '%s'; database doesn't exist", 1)},
	{kind: sql.ErrDatabaseExists, codes: []int{mysql.ERDbCreateExists},
		apply: mysqlText(mysql.ERDbCreateExists, "", "Can't create database '%s'; database exists", 1)},
	{re: regexp.MustCompile(`^catalog: database exists: "(.*)"$`), codes: []int{mysql.ERDbCreateExists}, // catalog.ErrDatabaseExists
		apply: mysqlText(mysql.ERDbCreateExists, "", "Can't create database '%s'; database exists", 1)},
	// MySQL names the clause ('field list', 'where clause', ...);
	// go-mysql-server does not say which, so it is 'field list'.
	{kind: sql.ErrUnknownColumn, codes: []int{mysql.ERBadFieldError},
		apply: mysqlText(mysql.ERBadFieldError, "", "Unknown column '%s' in 'field list'", 1)},
	{kind: sql.ErrColumnNotFound, codes: []int{erUnknownError},
		apply: mysqlText(mysql.ERBadFieldError, "42S22", "Unknown column '%s' in 'field list'", 1)},
	{kind: sql.ErrTableColumnNotFound, codes: []int{erUnknownError},
		apply: mysqlText(mysql.ERBadFieldError, "42S22", "Unknown column '%s.%s' in 'field list'", 1, 2)},
	{kind: types.ErrLengthBeyondLimit, codes: []int{erUnknownError},
		apply: func(m []string, x *context) (int, string, string) {
			return mysql.ERDataTooLong, "22001", x.atRow(fmt.Sprintf("Data too long for column '%s'", m[2]), "Data too long for column '%s' at row %d")
		}},
	// go-mysql-server names the type, not the column: the write found it
	// (strictwrite.go).
	{kind: sql.ErrValueOutOfRange, codes: []int{erUnknownError},
		apply: func(m []string, x *context) (int, string, string) {
			return mysql.ERWarnDataOutOfRange, "22003", x.atRow(fmt.Sprintf("Out of range value for column of type %s: %s", m[2], m[1]), "Out of range value for column '%s' at row %d")
		}},
	{kind: types.ErrConvertToDecimalLimit, codes: []int{erUnknownError},
		apply: func(m []string, x *context) (int, string, string) {
			return mysql.ERWarnDataOutOfRange, "22003", x.atRow("Out of range value for column of type decimal", "Out of range value for column '%s' at row %d")
		}},
	{kind: sql.ErrViewDoesNotExist, codes: []int{erUnknownError}, apply: unknownTable(1, true)},
	{kind: sql.ErrUnknownTable, codes: []int{erUnknownError}, apply: unknownTable(1, false)},
	{kind: sql.ErrReadOnlyTransaction, codes: []int{erUnknownError, erReadOnlyTransaction},
		apply: mysqlText(erReadOnlyTransaction, "25006", "Cannot execute statement in a READ ONLY transaction.")},
	// sql.ErrSystemVariableReadOnly; its %s would also match a quote, so
	// the pattern is written out: MySQL's code, go-mysql-server's text.
	{re: regexp.MustCompile(`^Variable '[^']+' is a read only variable$`), codes: []int{erUnknownError},
		apply: func(m []string, _ *context) (int, string, string) { return erIncorrectGlobal, "HY000", m[0] }},
	// A name in FOR UPDATE OF / FOR SHARE OF that is no table of the
	// query block: MySQL's code and capital (ER_UNRESOLVED_TABLE_LOCK).
	{kind: sql.ErrUnresolvedTableLock, codes: []int{erUnknownError},
		apply: mysqlText(erUnresolvedTableLock, "HY000", "Unresolved table name `%s` in locking clause.", 1)},
	// vitess's parse error (syntax.go).
	{re: syntaxPattern, codes: []int{erUnknownError}, apply: syntaxError},
	{kind: sql.ErrNoDatabaseSelected, codes: []int{erUnknownError},
		apply: mysqlText(mysql.ERNoDb, "3D000", "No database selected")},
	// An unknown function is a stored function MySQL looked for in the
	// current database: 1305 naming it, 1046 without a database.
	{kind: sql.ErrFunctionNotFound, codes: []int{erUnknownError},
		apply: func(m []string, x *context) (int, string, string) {
			if x.db == "" && !strings.Contains(m[1], ".") {
				return mysql.ERNoDb, "3D000", "No database selected"
			}
			return mysql.ERSPDoesNotExist, "42000", fmt.Sprintf("FUNCTION %s does not exist", x.qualify(m[1]))
		}},
	// General ones: MySQL's wording for the code the error has.
	{kind: sql.ErrPrimaryKeyViolation, codes: []int{mysql.ERDupEntry}, apply: dupEntry},
	{kind: sql.ErrUniqueKeyViolation, codes: []int{mysql.ERDupEntry}, apply: dupEntry},
	{kind: sql.ErrInsertIntoNonNullableProvidedNull, codes: []int{mysql.ERBadNullError},
		apply: mysqlText(mysql.ERBadNullError, "", "Column '%s' cannot be null", 1)},
	{kind: sql.ErrTableNotFound, codes: []int{erNoSuchTable},
		apply: func(m []string, x *context) (int, string, string) {
			return erNoSuchTable, "", fmt.Sprintf("Table '%s' doesn't exist", x.qualify(m[1]))
		}},
	{kind: sql.ErrDatabaseNotFound, codes: []int{mysql.ERBadDb},
		apply: mysqlText(mysql.ERBadDb, "", "Unknown database '%s'", 1)},
	{kind: sql.ErrInsertIntoNonNullableDefaultNullColumn, codes: []int{erUnknownError, mysql.ERTableExists},
		apply: func(m []string, _ *context) (int, string, string) { return mysql.ERNoDefaultForField, "HY000", m[0] }},
	{kind: sql.ErrTableAlreadyExists, codes: []int{erUnknownError, mysql.ERTableExists},
		apply: mysqlText(mysql.ERTableExists, "", "Table '%s' already exists", 1)},
	{kind: plan.ErrNotPrimaryKeyAlterable, codes: []int{erUnknownError, mysql.ERTableExists},
		apply: mysqlText(mysql.ERNotSupportedYet, "42000", "sqlgw: changing the primary key of a table is not supported yet")},
	{kind: sql.ErrNoForeignKeySupport, codes: []int{erUnknownError, mysql.ERTableExists},
		apply: mysqlText(mysql.ERNotSupportedYet, "42000", "sqlgw: foreign keys (on table %s) are not supported yet", 1)},
	{kind: sql.ErrExistingView, codes: []int{erUnknownError, mysql.ERTableExists},
		apply: mysqlText(mysql.ERTableExists, "", "Table '%s' already exists", 2)},
	// Checks and generated columns: go-mysql-server's own kinds, MySQL 8's
	// codes and wording.
	{kind: sql.ErrCheckConstraintViolated, codes: []int{erUnknownError},
		apply: mysqlText(erCheckViolated, "HY000", "Check constraint '%s' is violated.", 1)},
	{kind: sql.ErrGeneratedColumnValue, codes: []int{erUnknownError},
		apply: mysqlText(erGeneratedValue, "HY000", "The value specified for generated column '%s' in table '%s' is not allowed.", 1, 2)},
	{kind: sql.ErrCheckConstraintInvalidatedByColumnAlter, codes: []int{erUnknownError},
		apply: mysqlText(erCheckColumnUsed, "HY000", "Check constraint '%s' uses column '%s', hence column cannot be dropped or renamed.", 2, 1)},
	{kind: sql.ErrUnknownConstraint, codes: []int{erUnknownError},
		apply: mysqlText(erNoConstraint, "HY000", "Constraint '%s' does not exist.", 1)},
	{kind: sql.ErrTriggerDoesNotExist, codes: []int{erUnknownError},
		apply: mysqlText(erNoTrigger, "HY000", "Trigger does not exist")},
	{kind: sql.ErrVirtualColumnPrimaryKey, codes: []int{erUnknownError},
		apply: mysqlText(erGeneratedPK, "HY000", "'Defining a virtual generated column as primary key' is not supported for generated columns.")},
	{kind: sql.ErrGeneratedColumnWithDefault, codes: []int{erUnknownError},
		apply: mysqlText(mysql.ERWrongUsage, "HY000", "Incorrect usage of DEFAULT and generated column")},
	{kind: sql.ErrUnknownPreparedStatement, codes: []int{erUnknownError}, apply: unknownStatement},
}

// unknownStatement is MySQL's 1243 for EXECUTE or DEALLOCATE PREPARE of
// a name no statement was prepared as: go-mysql-server's text says EXECUTE
// for both, and names the statement in lower case (compat/stmt_names.go
// folds the names); MySQL quotes the name as written, taken from the
// statement's text when it is the first one.
func unknownStatement(m []string, x *context) (int, string, string) {
	name, verb := m[1], "EXECUTE"
	if n, dealloc, ok := sqltext.NameOfExecute(x.query); ok && strings.EqualFold(n, name) {
		name = n
		if dealloc {
			verb = "DEALLOCATE PREPARE"
		}
	}
	return erUnknownStmt, "HY000", fmt.Sprintf("Unknown prepared statement handler (%s) given to %s", name, verb)
}

// dupEntry is MySQL's 1062 text for a duplicate key: the text a unique
// secondary key's check wrote (secondary.go, checkUnique) as it is, a
// primary key's values joined with '-'.
func dupEntry(m []string, _ *context) (int, string, string) {
	if strings.HasPrefix(m[1], "Duplicate entry '") {
		return mysql.ERDupEntry, "", m[1]
	}
	return mysql.ERDupEntry, "", fmt.Sprintf("Duplicate entry '%s' for key 'PRIMARY'", strings.ReplaceAll(m[1], ",", "-"))
}

// wrappedKinds are the kinds go-mysql-server raises with Wrap(cause).
var wrappedKinds = map[*kinds.Kind]bool{sql.ErrPrimaryKeyViolation: true, sql.ErrUniqueKeyViolation: true}

func init() {
	for i := range rules {
		if rules[i].re == nil {
			rules[i].re = KindPattern(rules[i].kind, wrappedKinds[rules[i].kind])
		}
	}
}

// erReadOnlyTransaction is ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION, which
// vitess does not name.
const erReadOnlyTransaction = 1792

// erUnresolvedTableLock is MySQL 8.0's ER_UNRESOLVED_TABLE_LOCK.
const erUnresolvedTableLock = 3568

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

// Translate rewrites go-mysql-server's wording of common errors into
// MySQL's. db is the session's current database (for "Table 'db.t'").
func Translate(err error, db string) error {
	return TranslateStatement(err, "", db, nil)
}

// TranslateStatement is Translate for an error of the statement query
// (the first one of a multi-statement text): some errors are MySQL errors
// of their own in some statements only (DROP TABLE of a missing table is
// 1051, not 1146). we, if not nil, names the column and row of a write's
// range or length error (strictwrite.go).
func TranslateStatement(err error, query, db string, we *WriteError) error {
	var se *mysql.SQLError
	if !errors.As(err, &se) {
		return err
	}
	num, state, msg := int(se.Num), se.State, se.Message
	if i, m := ruleFor(num, query, msg); i >= 0 {
		n, s, t := rules[i].apply(m, &context{db: db, query: query, we: we})
		num, msg = n, t
		if s != "" {
			state = s
		}
	}
	switch num {
	case erReadOnlyTransaction:
		msg = "Cannot execute statement in a READ ONLY transaction."
	case mysql.ERMultiplePriKey:
		msg = "Multiple primary key defined"
	}
	if s, ok := sqlStates[num]; ok && (state == "" || state == mysql.SSUnknownSQLState) {
		state = s
	}
	if num == int(se.Num) && state == se.State && msg == se.Message {
		return err
	}
	return mysql.NewSQLError(num, state, "%s", msg)
}

// ruleFor returns the index of the first rule for an error with code num
// and text msg of statement query, and the pattern's submatches; -1 if
// none applies.
func ruleFor(num int, query, msg string) (int, []string) {
	for i := range rules {
		r := &rules[i]
		if !hasCode(r.codes, num) || (r.stmt != nil && !r.stmt(query)) {
			continue
		}
		if m := r.re.FindStringSubmatch(msg); m != nil {
			return i, m
		}
	}
	return -1, nil
}

func hasCode(codes []int, num int) bool {
	for _, c := range codes {
		if c == num {
			return true
		}
	}
	return false
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

// WriteError is the column and the 1-based row of a write's range or
// length error, which go-mysql-server's error does not carry. The error
// itself goes up unchanged (the engine and its tests check its kind and
// text); the connection handler takes this detail when it writes the
// error as MySQL's 1264 or 1406 (TranslateStatement).
type WriteError struct {
	Column string
	Row    int
}
