package engine

import (
	"fmt"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/shopspring/decimal"
)

// Zero dates (twelfth session)
//
// MySQL's zero date, '0000-00-00' ('0000-00-00 00:00:00', the number 0),
// is a value of DATE, DATETIME and TIMESTAMP columns that sorts before
// every other date. go-mysql-server carries it as types.ZeroTime; the
// catalog stores it as the text 0000-00-00 (catalog/keys.ZeroDate). A
// write of it follows the session's sql_mode as MySQL 8.0's
// Field_temporal::store does:
//
//   - NO_ZERO_DATE (or TRADITIONAL) and strict mode: 1292 "Incorrect date
//     value: '0000-00-00' for column 'd' at row 1" (datetime value for
//     DATETIME and TIMESTAMP);
//   - NO_ZERO_DATE without strict mode: stored, with 1264 "Out of range
//     value for column 'd' at row 1";
//   - without NO_ZERO_DATE: stored without a word.
//
// A date with a zero month or day ('2024-00-15', '2024-01-00', or the
// zero date with a time of day) under NO_ZERO_IN_DATE: 1292 in strict
// mode, the zero date with 1264 otherwise. Without NO_ZERO_IN_DATE MySQL
// stores it as it is; go-mysql-server's time.Time cannot hold it, so
// sqlgw answers 1235 naming the value rather than storing another one.
// Likewise for an invalid date ('2024-02-30') under ALLOW_INVALID_DATES.
// Any other value that is not a date: 1292 in strict mode, the zero date
// with 1265 "Data truncated for column 'd' at row 1" (1264 when its parts
// are numbers of the right size, as '2024-02-30') otherwise.
//
// IGNORE statements keep go-mysql-server's conversion (strictwrite.go).
//
// A column an INSERT does not name takes its DEFAULT, which MySQL stores
// without checking it against the session's sql_mode: a table created
// with DEFAULT '0000-00-00' under mysqldump's sql_mode takes rows under
// the default one (undefaulted).

// zeroDateValue is the zero date v (nv as go-mysql-server converts it)
// written into col as the session's sql_mode allows.
func zeroDateValue(ctx *sql.Context, col *sql.Column, v, nv any, row int, strict bool) (any, error) {
	if !noZeroDate(ctx) {
		return nv, nil
	}
	if strict {
		return nil, incorrectDate(col, valueText(v), row)
	}
	ctx.Session.Warn(&sql.Warning{Level: "Warning", Code: mysql.ERWarnDataOutOfRange,
		Message: fmt.Sprintf("Out of range value for column '%s' at row %d", col.Name, row)})
	return nv, nil
}

// incorrectDate is strict mode's 1292 for text written into col.
func incorrectDate(col *sql.Column, text string, row int) error {
	kind := "datetime"
	if types.IsDateType(col.Type) {
		kind = "date"
	}
	return mysql.NewSQLError(mysql.ERTruncatedWrongValue, "22007", "Incorrect %s value: '%s' for column '%s' at row %d", kind, text, col.Name, row)
}

// noZeroInDate: the session's sql_mode has NO_ZERO_IN_DATE (TRADITIONAL
// includes it).
func noZeroInDate(ctx *sql.Context) bool {
	m := sql.LoadSqlMode(ctx)
	return m.ModeEnabled("NO_ZERO_IN_DATE") || m.ModeEnabled("TRADITIONAL")
}

// allowInvalidDates: the session's sql_mode has ALLOW_INVALID_DATES.
func allowInvalidDates(ctx *sql.Context) bool {
	return sql.LoadSqlMode(ctx).ModeEnabled("ALLOW_INVALID_DATES")
}

// dateText is the text of a written date value v (nv: numericDate's
// rewrite of it) that parseDateParts reads: the string, or an integer's
// digits.
func dateText(v, nv any) string {
	if s, ok := nv.(string); ok {
		return s
	}
	switch x := v.(type) {
	case string:
		return x
	case decimal.Decimal:
		if x.Equal(x.Truncate(0)) {
			return x.Truncate(0).String()
		}
		return ""
	case float64, float32:
		return ""
	}
	if isNumber(v) {
		return fmt.Sprint(v)
	}
	return ""
}

// dateParts are the fields of a date-time written as text, before any
// check of the calendar.
type dateParts struct {
	year, month, day             int
	hour, minute, second, micros int
}

// zero: MySQL's zero date (every part 0).
func (p dateParts) zero() bool { return p == dateParts{} }

// inRange: every part within its field's range (month 1-12, day 1-31,
// hh:mm:ss within a day); the date may still not exist (February 30).
func (p dateParts) inRange() bool {
	return p.month >= 1 && p.month <= 12 && p.day >= 1 && p.day <= 31 && p.timeInRange()
}

// calendar: the date is a day of the calendar (not February 30).
func (p dateParts) calendar() bool {
	t := time.Date(p.year, time.Month(p.month), p.day, 0, 0, 0, 0, time.UTC)
	return t.Year() == p.year && int(t.Month()) == p.month && t.Day() == p.day
}

// isTimestamp: t is TIMESTAMP (ALLOW_INVALID_DATES does not apply to it).
func isTimestamp(t sql.Type) bool {
	dt, ok := t.(sql.DatetimeType)
	return ok && dt.Type() == sqltypes.Timestamp
}

func (p dateParts) timeInRange() bool {
	return p.hour <= 23 && p.minute <= 59 && p.second <= 59
}

// zeroPart: not the zero date, but a date with a zero month or day and
// every other part within range ('2024-00-15', '0000-00-00 10:00:00').
func (p dateParts) zeroPart() bool {
	return !p.zero() && (p.month == 0 || p.day == 0) && p.month <= 12 && p.day <= 31 && p.timeInRange()
}

// parseDateParts reads MySQL's date-time text forms: 'YYYY-MM-DD' with
// any punctuation as the delimiter ('2024/00/15'), optionally followed by
// a space or 'T' and hh:mm:ss[.ffffff]; or 8 or 14 digits
// (YYYYMMDD[hhmmss]). False for anything else (two-digit years included,
// which go-mysql-server and numericDate handle).
func parseDateParts(s string) (dateParts, bool) {
	s = strings.TrimSpace(s)
	var p dateParts
	if allDigits(s) {
		if len(s) != 8 && len(s) != 14 {
			return p, false
		}
		p.year, p.month, p.day = atoi(s[0:4]), atoi(s[4:6]), atoi(s[6:8])
		if len(s) == 14 {
			p.hour, p.minute, p.second = atoi(s[8:10]), atoi(s[10:12]), atoi(s[12:14])
		}
		return p, true
	}
	fields := make([]int, 0, 6)
	widths := []int{4, 2, 2}
	i := 0
	for f := range 3 {
		j := i
		for j < len(s) && j-i < widths[f] && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i || f == 0 && j-i != 4 {
			return p, false
		}
		fields = append(fields, atoi(s[i:j]))
		i = j
		if f < 2 {
			if i >= len(s) || !isDatePunct(s[i]) {
				return p, false
			}
			i++
		}
	}
	p.year, p.month, p.day = fields[0], fields[1], fields[2]
	rest := s[i:]
	if rest == "" {
		return p, true
	}
	if rest[0] != ' ' && rest[0] != 'T' {
		return p, false
	}
	rest = strings.TrimLeft(rest[1:], " ")
	t, err := time.Parse("15:04:05.999999", rest)
	if err != nil {
		if t, err = time.Parse("15:04:05", rest); err != nil {
			return p, false
		}
	}
	p.hour, p.minute, p.second, p.micros = t.Hour(), t.Minute(), t.Second(), t.Nanosecond()/1000
	return p, true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func atoi(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// isDatePunct: a delimiter MySQL accepts between a date's parts.
func isDatePunct(c byte) bool {
	return c > ' ' && c < 0x7f && !(c >= '0' && c <= '9') && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z')
}

// undefaulted returns dates (dateColumns of an INSERT's destination
// schema) without the columns the INSERT's column list does not name:
// their values are the columns' defaults, which MySQL does not check
// again (a zero-date DEFAULT under NO_ZERO_DATE is stored).
func undefaulted(schema sql.Schema, dates []bool, names []string) []bool {
	if dates == nil || len(names) == 0 {
		return dates
	}
	for i, c := range schema {
		if !dates[i] {
			continue
		}
		named := false
		for _, n := range names {
			if strings.EqualFold(n, c.Name) {
				named = true
				break
			}
		}
		dates[i] = named
	}
	return dates
}

// zeroDefaultError is MySQL's 1067 "Invalid default value for 'd'" for a
// DATE, DATETIME or TIMESTAMP column (of a CREATE TABLE or ALTER TABLE)
// whose DEFAULT is the zero date, in strict mode with NO_ZERO_DATE; nil
// otherwise (mysqldump's files set a sql_mode without them first).
func zeroDefaultError(ctx *sql.Context, c *sql.Column) error {
	if c.Default == nil || !types.IsTime(c.Type) || !c.Default.IsLiteral() || !noZeroDate(ctx) || !strictMode(ctx) {
		return nil
	}
	v, err := c.Default.Eval(ctx, nil)
	if err != nil || v == nil {
		return nil
	}
	conv, _, err := c.Type.Convert(ctx, v)
	if t, ok := conv.(time.Time); err != nil || !ok || !t.Equal(types.ZeroTime) {
		return nil
	}
	return mysql.NewSQLError(mysql.ERInvalidDefault, "42000", "Invalid default value for '%s'", c.Name)
}
