package engine

import (
	"fmt"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/shopspring/decimal"
)

// Non-strict writes
//
// With a sql_mode without STRICT_TRANS_TABLES and STRICT_ALL_TABLES (for
// example sql_mode=''), MySQL stores the closest value a column can hold
// and warns, where strict mode rejects the statement:
//
//   - a string longer than a CHAR, VARCHAR, TEXT, BINARY or VARBINARY
//     column is cut to the column's length: 1265 "Data truncated for
//     column 'c' at row N";
//   - a number outside an integer, DECIMAL, FLOAT or DOUBLE column's range
//     is stored as the nearest end of the range: 1264 "Out of range value
//     for column 'c' at row N";
//   - a string that is not a number, into a numeric column, is stored as
//     its leading number: 1265 "Data truncated ..." ('12abc' stores 12),
//     or as 0 when it has none: 1366 "Incorrect integer value: 'x' for
//     column 'c' at row N" (decimal value for DECIMAL; FLOAT and DOUBLE
//     say 1265, as MySQL).
//
// go-mysql-server has no non-strict mode: its insert rejects all of these
// (1406, 1366, 1264) whatever sql_mode says, and its UPDATE clamps
// numbers without a word. sqlgw converts each value as above before
// go-mysql-server's own conversion (which then accepts it unchanged):
// INSERT (VALUES, INSERT ... SELECT, LOAD DATA, prepared or text) through
// a row iterator over the insert's source (lenientIter), UPDATE and
// INSERT ... ON DUPLICATE KEY UPDATE through their assignments
// (lenientSetField); strictwrite.go puts them in place when the session's
// sql_mode is not strict, and for INSERT IGNORE and UPDATE IGNORE in any
// mode (ignoredValue). The direct INSERT and
// UPDATE (directinsert.go, directupdate.go) leave a non-strict statement
// to the general path. Upstream, this belongs in rowexec's insertIter and
// SetField (their "TODO: check mysql strict sql_mode").
//
// Values of other types (dates, enums, JSON...) keep go-mysql-server's
// conversion and its errors.

// lenientValue returns v as a non-strict write stores it into col (the
// row-th row of the statement), warning as MySQL; v itself when it
// converts as it is or is not a case above.
func lenientValue(ctx *sql.Context, col *sql.Column, v any, row int) any {
	return convertLenient(ctx, col, v, row, false)
}

// ignoredValue is v as INSERT IGNORE and UPDATE IGNORE store it into col:
// MySQL converts as a non-strict write does, with the same warnings,
// except that in strict mode a string too long for its column is the
// strict error's 1406 "Data too long for column 'c' at row N" as a
// warning (non-strict mode's is 1265 "Data truncated"). go-mysql-server's
// IGNORE made each a Note, mostly 1105, in its own words ("string
// '[97 98 99]' is too large for column 'char(2)'"), stored a DECIMAL out
// of range as 0 and cut strings by bytes.
func ignoredValue(ctx *sql.Context, col *sql.Column, v any, row int, strict bool) any {
	return convertLenient(ctx, col, v, row, strict)
}

// convertLenient is lenientValue; dataTooLong: a string too long for col
// warns 1406 rather than 1265 (ignoredValue in strict mode).
func convertLenient(ctx *sql.Context, col *sql.Column, v any, row int, dataTooLong bool) any {
	if v == nil {
		return nil
	}
	typ := col.Type
	if s, ok := blankNumber(typ, v); ok { // writeconv.go
		code, format := mysql.ERTruncatedWrongValueForField, "Incorrect integer value: '%[1]s' for column '%[2]s' at row %[3]d"
		switch {
		case types.IsFloat(typ):
			code, format = mysql.ERWarnDataTruncated, "Data truncated for column '%[2]s' at row %[3]d"
		case types.IsDecimal(typ):
			format = "Incorrect decimal value: '%[1]s' for column '%[2]s' at row %[3]d"
		}
		ctx.Session.Warn(&sql.Warning{Level: "Warning", Code: code, Message: fmt.Sprintf(format, s, col.Name, row)})
		return typ.Zero()
	}
	var conv any
	var inRange sql.ConvertInRange
	var err error
	if rt, ok := typ.(sql.RoundingNumberType); ok {
		conv, inRange, err = rt.ConvertRound(ctx, v)
	} else {
		conv, inRange, err = typ.Convert(ctx, v)
	}
	if err == nil && inRange == sql.InRange {
		if types.IsFloat(typ) {
			// go-mysql-server reads '1.5e' as 1.5 without a word.
			if str, ok := v.(string); ok {
				if p := numericPrefix(str); p != "" && p != strings.TrimSpace(str) {
					ctx.Session.Warn(&sql.Warning{Level: "Warning", Code: mysql.ERWarnDataTruncated,
						Message: fmt.Sprintf("Data truncated for column '%s' at row %d", col.Name, row)})
					return convertLenient(ctx, col, p, row, dataTooLong)
				}
			}
		}
		return v
	}
	warn := func(code int, format string, args ...any) {
		ctx.Session.Warn(&sql.Warning{Level: "Warning", Code: code, Message: fmt.Sprintf(format, args...)})
	}
	truncated := func() {
		warn(mysql.ERWarnDataTruncated, "Data truncated for column '%s' at row %d", col.Name, row)
	}
	outOfRange := func() {
		warn(mysql.ERWarnDataOutOfRange, "Out of range value for column '%s' at row %d", col.Name, row)
	}
	switch {
	case types.IsText(typ) || types.IsBinaryType(typ):
		st, ok := typ.(sql.StringType)
		if !ok || !types.ErrLengthBeyondLimit.Is(err) {
			return v
		}
		s, ok := textOf(v)
		if !ok {
			return v
		}
		var cut string
		if types.IsBinaryType(typ) {
			cut = s[:min(int64(len(s)), st.MaxByteLength())]
		} else {
			cut = cutRunes(s, st.MaxCharacterLength(), st.MaxByteLength())
		}
		if dataTooLong {
			warn(mysql.ERDataTooLong, "Data too long for column '%s' at row %d", col.Name, row)
		} else {
			truncated()
		}
		if _, isBytes := v.([]byte); isBytes {
			return []byte(cut)
		}
		return cut
	case types.IsInteger(typ) || types.IsFloat(typ) || types.IsDecimal(typ):
		if err == nil {
			// Out of range: go-mysql-server's conversion clamps.
			if types.IsDecimal(typ) {
				break
			}
			outOfRange()
			if inRange == sql.Underflow && types.IsUnsigned(typ) {
				return typ.Zero() // go-mysql-server wraps around
			}
			return conv
		}
		if types.IsDecimal(typ) && types.ErrConvertToDecimalLimit.Is(err) {
			break
		}
		s, isStr := v.(string)
		if !isStr {
			if b, ok := v.([]byte); ok {
				s, isStr = string(b), true
			}
		}
		if !isStr {
			return v
		}
		prefix := numericPrefix(s)
		switch {
		case prefix == "" && !types.IsFloat(typ):
			kind := "integer"
			if types.IsDecimal(typ) {
				kind = "decimal"
			}
			warn(mysql.ERTruncatedWrongValueForField, "Incorrect %s value: '%s' for column '%s' at row %d", kind, s, col.Name, row)
			return typ.Zero()
		case prefix == "":
			truncated()
			return typ.Zero()
		}
		truncated()
		return convertLenient(ctx, col, prefix, row, dataTooLong)
	default:
		return v
	}
	// A DECIMAL out of its range: the nearest end of it.
	dt, ok := typ.(sql.DecimalType)
	if !ok {
		return v
	}
	d, derr := decimal.NewFromString(strings.TrimSpace(fmt.Sprint(v)))
	if derr != nil {
		if s, isStr := v.(string); isStr {
			if p := numericPrefix(s); p != "" {
				truncated()
				return convertLenient(ctx, col, p, row, dataTooLong)
			}
			warn(mysql.ERTruncatedWrongValueForField, "Incorrect decimal value: '%s' for column '%s' at row %d", s, col.Name, row)
			return typ.Zero()
		}
		return v
	}
	p, sc := int32(dt.Precision()), int32(dt.Scale())
	limit := decimal.New(1, p-sc).Sub(decimal.New(1, -sc))
	outOfRange()
	if d.IsNegative() {
		return limit.Neg()
	}
	return limit
}

// cutRunes returns s cut to n characters and at most maxBytes bytes.
func cutRunes(s string, n, maxBytes int64) string {
	i, count := 0, int64(0)
	for i < len(s) && count < n {
		_, size := utf8.DecodeRuneInString(s[i:])
		if int64(i+size) > maxBytes {
			break
		}
		i += size
		count++
	}
	return s[:i]
}

// numericPrefix is the number a string starts with, as MySQL reads a
// string into a number: leading spaces, a sign, digits, a fraction, an
// exponent; "" if none.
func numericPrefix(s string) string {
	t := strings.TrimLeft(s, " \t\n\r")
	i := 0
	if i < len(t) && (t[i] == '+' || t[i] == '-') {
		i++
	}
	digits := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
		digits++
	}
	if i < len(t) && t[i] == '.' {
		j := i + 1
		frac := 0
		for j < len(t) && t[j] >= '0' && t[j] <= '9' {
			j++
			frac++
		}
		if digits+frac > 0 {
			i = j
			digits += frac
		}
	}
	if digits == 0 {
		return ""
	}
	if i < len(t) && (t[i] == 'e' || t[i] == 'E') {
		j := i + 1
		if j < len(t) && (t[j] == '+' || t[j] == '-') {
			j++
		}
		k := j
		for k < len(t) && t[k] >= '0' && t[k] <= '9' {
			k++
		}
		if k > j {
			i = k
		}
	}
	return t[:i]
}

// lenientIter converts the rows of an INSERT's source: dates written as
// numbers (numericdate.go) in the columns dates marks, and, if lenient,
// every value as a non-strict write (lenientValue); row is the count of
// rows read (the writeGuard's).
type lenientIter struct {
	sql.RowIter
	schema  sql.Schema
	dates   []bool
	lenient bool
	checked bool // writeValue's checks (writeconv.go): not INSERT IGNORE
	// ignore: INSERT IGNORE's conversions (ignoredValue), strict: the
	// session's sql_mode is strict.
	ignore, strict bool
	row            *int
	// order: the schema positions in the order MySQL stores a row's
	// values, and so raises their warnings: the INSERT's column list,
	// then the other columns (insertOrder); nil: the schema's.
	order []int
}

// insertOrder returns the positions in schema of names (an INSERT's
// column list), then of the columns it does not name; nil when that is
// the schema's own order.
func insertOrder(schema sql.Schema, names []string) []int {
	order := make([]int, 0, len(schema))
	used := make([]bool, len(schema))
	for _, n := range names {
		for i, c := range schema {
			if !used[i] && strings.EqualFold(c.Name, n) {
				order, used[i] = append(order, i), true
				break
			}
		}
	}
	for i := range schema {
		if !used[i] {
			order = append(order, i)
		}
	}
	for i, p := range order {
		if i != p {
			return order
		}
	}
	return nil
}

func (l *lenientIter) Next(ctx *sql.Context) (sql.Row, error) {
	r, err := l.RowIter.Next(ctx)
	if err != nil {
		return r, err
	}
	var out sql.Row
	for k := range l.schema {
		i := k
		if l.order != nil {
			i = l.order[k]
		}
		if i >= len(r) {
			continue
		}
		col := l.schema[i]
		v := r[i]
		if l.checked {
			// writeconv.go; lenientValue when not strict.
			var err error
			if v, err = writeValue(ctx, col, v, *l.row, !l.lenient, l.dates != nil && l.dates[i]); err != nil {
				if l.lenient || !l.earlierFails(ctx, r, k) {
					return nil, err
				}
				// go-mysql-server's insert reports the earlier
				// column's error, as MySQL the first column's.
				v = r[i]
			}
		} else if l.dates != nil && l.dates[i] {
			v = numericDate(v) // INSERT IGNORE: go-mysql-server's conversion
		} else if l.ignore {
			v = ignoredValue(ctx, col, v, *l.row, l.strict)
		}
		if !sameValue(v, r[i]) {
			if out == nil {
				out = r.Copy()
			}
			out[i] = v
		}
	}
	if out != nil {
		return out, nil
	}
	return r, nil
}

// earlierFails reports whether go-mysql-server's conversion rejects the
// value of a column before the k-th (in l's order) of row r.
func (l *lenientIter) earlierFails(ctx *sql.Context, r sql.Row, k int) bool {
	for j := 0; j < k; j++ {
		i := j
		if l.order != nil {
			i = l.order[j]
		}
		if i >= len(r) || r[i] == nil {
			continue
		}
		v := r[i]
		if l.dates != nil && l.dates[i] {
			v = numericDate(v)
		}
		_, inRange, err := l.schema[i].Type.Convert(ctx, v)
		if err != nil || inRange != sql.InRange {
			return true
		}
	}
	return false
}

// sameValue: lenientValue returned its argument.
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case []byte:
		y, ok := b.([]byte)
		return ok && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
	case decimal.Decimal:
		y, ok := b.(decimal.Decimal)
		return ok && x.Equal(y)
	}
	defer func() { _ = recover() }() // uncomparable values: not the same
	return a == b
}

// lenientSetField is an UPDATE (or ON DUPLICATE KEY UPDATE) assignment of
// a non-strict write: the value is converted by lenientValue before
// go-mysql-server's SetField stores it.
type lenientSetField struct {
	*expression.SetField
	col *sql.Column
	row *int // the rows read by the statement
	// ignore: UPDATE IGNORE's assignment (ignoredValue; a date column's
	// value is left to go-mysql-server's conversion), strict: the
	// session's sql_mode is strict.
	ignore, strict bool
}

func (s *lenientSetField) Eval(ctx *sql.Context, row sql.Row) (interface{}, error) {
	gf := s.LeftChild.(*expression.GetField)
	if gf.Index() < 0 || gf.Index() >= len(row) {
		return s.SetField.Eval(ctx, row) // the engine's error
	}
	val, err := s.RightChild.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	n := 1
	if s.row != nil {
		n = max(*s.row, 1)
	}
	switch {
	case s.ignore:
		if !types.IsTime(s.col.Type) && val != nil {
			val = ignoredValue(ctx, s.col, val, n, s.strict)
		}
	default:
		// lenientValue, dates written as numbers (writeconv.go).
		if val, err = writeValue(ctx, s.col, val, n, false, types.IsTime(s.col.Type)); err != nil {
			return nil, err
		}
	}
	sf, err := s.SetField.WithChildren(ctx, gf, expression.NewLiteral(val, s.RightChild.Type(ctx)))
	if err != nil {
		return nil, err
	}
	return sf.Eval(ctx, row)
}

func (s *lenientSetField) WithChildren(ctx *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	return setFieldWithChildren(ctx, s.SetField, children, func(sf *expression.SetField) sql.Expression { // strictwrite.go
		return &lenientSetField{SetField: sf, col: s.col, row: s.row, ignore: s.ignore, strict: s.strict}
	})
}

// lenientAssignments returns exprs with the column assignments among the
// first n made lenientSetFields (schema: the columns the assignments'
// GetFields index; row: the statement's count of rows read).
func lenientAssignments(ctx *sql.Context, exprs []sql.Expression, n int, schema sql.Schema, row *int) ([]sql.Expression, bool) {
	return setFieldsOf(exprs, n, schema, func(sf *expression.SetField, col *sql.Column) sql.Expression {
		return &lenientSetField{SetField: assignedArithmetic(ctx, sf), col: col, row: row}
	})
}

// ignoreAssignments returns exprs, UPDATE IGNORE's assignments, made
// lenientSetFields that convert as ignoredValue (schema and row as
// lenientAssignments's).
func ignoreAssignments(exprs []sql.Expression, schema sql.Schema, row *int, strict bool) ([]sql.Expression, bool) {
	return setFieldsOf(exprs, len(exprs), schema, func(sf *expression.SetField, col *sql.Column) sql.Expression {
		return &lenientSetField{SetField: sf, col: col, row: row, ignore: true, strict: strict}
	})
}

// setFieldsOf returns exprs with each of the first n that assigns a column
// of schema (a SetField of a GetField) replaced by mk's expression for it,
// and whether any was.
func setFieldsOf(exprs []sql.Expression, n int, schema sql.Schema, mk func(*expression.SetField, *sql.Column) sql.Expression) ([]sql.Expression, bool) {
	out := make([]sql.Expression, len(exprs))
	changed := false
	for i, ex := range exprs {
		out[i] = ex
		if i >= n {
			continue
		}
		sf, ok := ex.(*expression.SetField)
		if !ok {
			continue
		}
		gf, ok := sf.LeftChild.(*expression.GetField)
		if !ok || gf.Index() < 0 || gf.Index() >= len(schema) {
			continue
		}
		out[i], changed = mk(sf, schema[gf.Index()]), true
	}
	return out, changed
}

// strictMode reports whether the session's sql_mode is strict, as
// sql.LoadSqlMode(ctx).Strict(), without parsing the mode string again
// for every write (go-mysql-server parses all but its own default string
// into a new map each time): the last string seen and its answer are
// kept.
func strictMode(ctx *sql.Context) bool {
	v, err := ctx.GetSessionVariable(ctx, sql.SqlModeSessionVar)
	mode, ok := v.(string)
	if err != nil || !ok {
		return sql.LoadSqlMode(ctx).Strict()
	}
	if e := lastStrict.Load(); e != nil && e.mode == mode {
		return e.strict
	}
	strict := sql.NewSqlModeFromString(mode).Strict()
	lastStrict.Store(&strictEntry{mode: mode, strict: strict})
	return strict
}

type strictEntry struct {
	mode   string
	strict bool
}

var lastStrict atomic.Pointer[strictEntry]
