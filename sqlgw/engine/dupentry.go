package engine

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/catalog"
)

// The text of ER_DUP_ENTRY (1062), MySQL 8.0's:
//
//	Duplicate entry '<value>' for key '<table>.<key>'
//
//   - The key is named after its table since 8.0.19 ('t.PRIMARY',
//     't.uk_name'): the table's own name, not an alias nor the database.
//   - The value is the key's columns as MySQL writes them as text (an
//     integer in decimal, a DATETIME as '2020-01-02 03:04:05', a DECIMAL
//     at its column's scale, NULL as NULL), joined with '-' for a key of
//     several columns.
//   - The message is ER_DUP_ENTRY_WITH_KEY_NAME, "Duplicate entry
//     '%-.64s' for key '%-.192s'": the value is cut to its first 64 bytes
//     (on a character boundary, with no ellipsis), the key name to 192.
//
// Every 1062 of the engine is made here: an INSERT's primary key (editor.go,
// which go-mysql-server wraps and sqlgw/mysqlerr passes on unchanged), a
// unique secondary index (secondary.go), a commit's duplicate (txn.go), a
// unique index built over existing rows (CREATE UNIQUE INDEX, ALTER TABLE
// ADD UNIQUE). INSERT IGNORE's and UPDATE IGNORE's warnings carry the same
// text.

// dupValueBytes and dupKeyBytes are the precisions of MySQL's message.
const (
	dupValueBytes = 64
	dupKeyBytes   = 192
)

// dupEntryText is MySQL's 1062 text for value v of key key of table table.
func dupEntryText(table, key, v string) string {
	return fmt.Sprintf("Duplicate entry '%s' for key '%s'", cutBytes(v, dupValueBytes), cutBytes(table+"."+key, dupKeyBytes))
}

// dupEntryError is dupEntryText as the error a client receives.
func dupEntryError(table, key, v string) error {
	return mysql.NewSQLError(mysql.ERDupEntry, "23000", "%s", dupEntryText(table, key, v))
}

// cutBytes returns s cut to at most n bytes, not inside a UTF-8 character,
// as MySQL's printf precision does.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// primaryKeyName is MySQL's name of a primary key in 1062 messages.
const primaryKeyName = "PRIMARY"

// datumText renders datum d of a column of type ct as MySQL writes the
// value as text (through the engine's type, as a result set would show it).
// ctx is the statement's, or nil where there is none (engineValueText).
func datumText(ctx *sql.Context, ct catalog.Type, d catalog.Datum) string {
	if d == nil {
		return "NULL"
	}
	// Integers and strings, the usual keys, directly (a conflict's
	// message names its key too, with no statement context).
	switch ct.Kind {
	case catalog.KindInt8, catalog.KindInt16, catalog.KindInt24, catalog.KindInt32, catalog.KindInt64:
		switch x := d.(type) {
		case int64:
			return strconv.FormatInt(x, 10)
		case uint64:
			return strconv.FormatUint(x, 10)
		}
	case catalog.KindVarchar, catalog.KindTinyText, catalog.KindText, catalog.KindMediumText, catalog.KindLongText:
		if x, ok := d.(string); ok { // (CHAR goes through charValue: its trailing spaces)
			return x
		}
	}
	if v, err := fromDatum(ct, d); err == nil {
		if s, ok := engineValueText(ctx, ct, v); ok {
			return s
		}
	}
	if b, ok := d.([]byte); ok {
		return string(b)
	}
	return fmt.Sprint(d)
}

// engineValueText renders the engine's value v of a column of type ct as
// MySQL's text. ctx is the statement's; nil (a commit's error, with no
// statement context at hand) makes a new one, which costs tens of
// microseconds: the per-row paths (INSERT IGNORE's duplicates) pass theirs.
func engineValueText(ctx *sql.Context, ct catalog.Type, v any) (string, bool) {
	if v == nil {
		return "NULL", true
	}
	gt, err := gmsType(ct)
	if err != nil {
		return "", false
	}
	if ctx == nil {
		ctx = sql.NewEmptyContext()
	}
	sv, err := gt.SQL(ctx, nil, v)
	if err != nil || sv.IsNull() {
		return "", false
	}
	return sv.ToString(), true
}

// keyDatumsText renders the values of the columns of a key (cols, by
// name) in row, a catalog row, joined with '-'.
func keyDatumsText(ctx *sql.Context, meta *catalog.Table, cols []catalog.KeyPart, row []catalog.Datum) string {
	parts := make([]string, 0, len(cols))
	for _, kp := range cols {
		c := meta.ColumnIndex(kp.Column)
		if c < 0 || c >= len(row) {
			continue
		}
		parts = append(parts, datumText(ctx, meta.Columns[c].Type, row[c]))
	}
	return strings.Join(parts, "-")
}

// primaryKeyText renders the primary key of row, an engine row, joined with
// '-'.
func primaryKeyText(ctx *sql.Context, meta *catalog.Table, row sql.Row) string {
	parts := make([]string, 0, len(meta.PrimaryKey))
	for _, kp := range meta.PrimaryKey {
		c := meta.ColumnIndex(kp.Column)
		if c < 0 || c >= len(row) {
			continue
		}
		s, ok := engineValueText(ctx, meta.Columns[c].Type, row[c])
		if !ok {
			s = fmt.Sprint(row[c])
			if b, isBytes := row[c].([]byte); isBytes {
				s = string(b)
			}
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "-")
}
