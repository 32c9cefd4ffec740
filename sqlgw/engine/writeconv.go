package engine

import (
	"fmt"
	"math"
	"math/big"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/shopspring/decimal"
)

// Conversions and dates (tenth session)
//
// Values a write converts before go-mysql-server's own conversion, where
// go-mysql-server's answer is not MySQL 8.0's:
//
//   - a blank string ('' or spaces) into an integer or DECIMAL column:
//     go-mysql-server stores 0 without a word; MySQL's strict mode
//     rejects it with 1366 "Incorrect integer value: '' for column 'i'
//     at row 1" (decimal value for DECIMAL; FLOAT and DOUBLE: 1265 "Data
//     truncated"), non-strict stores 0 with that warning (lenientValue);
//   - a DATE, DATETIME or TIMESTAMP value that is not a date (20241399,
//     '2024-13-99'): go-mysql-server's 1105 "Incorrect datetime value";
//     MySQL's strict mode: 1292 "Incorrect date value: '20241399' for
//     column 'd' at row 1" (datetime value for DATETIME and TIMESTAMP);
//   - a zero date (0, '0000-00-00'): strict mode with NO_ZERO_DATE (the
//     default sql_mode) rejects it with the same 1292.
//
// Where MySQL stores the zero date instead (a zero date without
// NO_ZERO_DATE or strict mode, an invalid date in non-strict mode),
// sqlgw stores it too (twelfth session, zerodate.go).
//
// Arithmetic in a write's values (UPDATE's and ON DUPLICATE KEY UPDATE's
// assignments, INSERT ... SELECT's source; mysqlArithmetic):
//
//   - a DATE, DATETIME or TIMESTAMP operand of + - * / DIV % is MySQL's
//     number of it: YYYYMMDD for a DATE, YYYYMMDDhhmmss for the others
//     (with their fraction digits); go-mysql-server reads a DATE as
//     YYYYMMDDhhmmss, so d + 1 was the same day again;
//   - integer + - * beyond BIGINT fails as MySQL with 1690 "BIGINT value
//     is out of range in '(`db`.`t`.`b` + 1)'" (BIGINT UNSIGNED when an
//     operand is unsigned); go-mysql-server wraps around.

const erDataOutOfRange = 1690 // ER_DATA_OUT_OF_RANGE

// writeValue is v as a write of the row-th row converts it into col
// before go-mysql-server's conversion: dates written as numbers and
// invalid or zero dates (when date), blank strings into numbers, and in
// non-strict mode MySQL's conversions (lenientValue).
func writeValue(ctx *sql.Context, col *sql.Column, v any, row int, strict, date bool) (any, error) {
	if v == nil {
		return nil, nil
	}
	if date {
		var err error
		if v, err = temporalValue(ctx, col, v, row, strict); err != nil {
			return nil, err
		}
	}
	v, err := charsetValue(ctx, col, v, row, strict) // charsetwrite.go
	if err != nil {
		return nil, err
	}
	if !strict {
		return lenientValue(ctx, col, v, row), nil
	}
	if s, ok := blankNumber(col.Type, v); ok {
		return nil, blankNumberError(col, s, row)
	}
	return v, nil
}

// blankNumber reports a string of only spaces (or none) written into an
// integer, DECIMAL, FLOAT or DOUBLE column, which MySQL does not read as 0.
func blankNumber(typ sql.Type, v any) (string, bool) {
	s, ok := textOf(v)
	if !ok || strings.TrimLeft(s, " \t\n\r\v\f") != "" {
		return "", false
	}
	return s, types.IsInteger(typ) || types.IsDecimal(typ) || types.IsFloat(typ)
}

// textOf is v's text when v is a string or []byte.
func textOf(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case []byte:
		return string(x), true
	}
	return "", false
}

// blankNumberError is strict mode's error for blankNumber.
func blankNumberError(col *sql.Column, s string, row int) error {
	switch {
	case types.IsFloat(col.Type):
		return mysql.NewSQLError(mysql.ERWarnDataTruncated, "01000", "Data truncated for column '%s' at row %d", col.Name, row)
	case types.IsDecimal(col.Type):
		return mysql.NewSQLError(mysql.ERTruncatedWrongValueForField, "HY000", "Incorrect decimal value: '%s' for column '%s' at row %d", s, col.Name, row)
	}
	return mysql.NewSQLError(mysql.ERTruncatedWrongValueForField, "HY000", "Incorrect integer value: '%s' for column '%s' at row %d", s, col.Name, row)
}

// temporalValue is v written into a DATE, DATETIME or TIMESTAMP column
// (zerodate.go has the rules): a number in one of MySQL's date formats as
// the string go-mysql-server parses (numericDate); the zero date as the
// session's sql_mode allows it (zeroDateValue); for a value that is not a
// date, MySQL's 1292 in strict mode, the zero date with MySQL's warning
// otherwise; 1235 for a date with a zero month or day that MySQL would
// store as it is (sqlgw has no value for it).
func temporalValue(ctx *sql.Context, col *sql.Column, v any, row int, strict bool) (any, error) {
	nv := numericDate(v)
	conv, _, err := col.Type.Convert(ctx, nv)
	if err == nil {
		t, ok := conv.(time.Time)
		if !ok || !t.Equal(types.ZeroTime) {
			return nv, nil
		}
		return zeroDateValue(ctx, col, v, nv, row, strict)
	}
	if !isNumber(v) {
		if _, isStr := v.(string); !isStr {
			return v, nil // go-mysql-server's error for other values
		}
	}
	text := valueText(v)
	parts, parsed := parseDateParts(dateText(v, nv))
	if parsed && parts.zero() {
		// '0000/00/00', '00000000': MySQL's zero date in a form
		// go-mysql-server does not read.
		return zeroDateValue(ctx, col, v, types.ZeroTime, row, strict)
	}
	zeroPart := parsed && parts.zeroPart()
	if zeroPart && !noZeroInDate(ctx) {
		return nil, mysql.NewSQLError(mysql.ERNotSupportedYet, "42000",
			"sqlgw: dates with a zero month or day are not supported: MySQL stores '%s' as it is in column '%s' at row %d when sql_mode has no NO_ZERO_IN_DATE", text, col.Name, row)
	}
	if parsed && parts.inRange() && !parts.calendar() && allowInvalidDates(ctx) && !isTimestamp(col.Type) {
		return nil, mysql.NewSQLError(mysql.ERNotSupportedYet, "42000",
			"sqlgw: invalid dates are not supported: MySQL stores '%s' as it is in column '%s' at row %d with ALLOW_INVALID_DATES", text, col.Name, row)
	}
	if strict {
		return nil, incorrectDate(col, text, row)
	}
	// Non-strict: the zero date, with MySQL's warning: 1264 for a date
	// whose parts are numbers of the right size but no day of the calendar
	// (a zero month or day under NO_ZERO_IN_DATE, February 30), 1265 for
	// anything else.
	code, msg := mysql.ERWarnDataTruncated, "Data truncated for column '%s' at row %d"
	if parsed && (zeroPart || parts.inRange()) {
		code, msg = mysql.ERWarnDataOutOfRange, "Out of range value for column '%s' at row %d"
	}
	ctx.Session.Warn(&sql.Warning{Level: "Warning", Code: code, Message: fmt.Sprintf(msg, col.Name, row)})
	return types.ZeroTime, nil
}

// isNumber reports a numeric Go value.
func isNumber(v any) bool {
	switch v.(type) {
	case int8, int16, int32, int64, int, uint8, uint16, uint32, uint64, uint, float32, float64, decimal.Decimal:
		return true
	}
	return false
}

// valueText is v as MySQL quotes a written value in its messages.
func valueText(v any) string {
	switch x := v.(type) {
	case []byte:
		return string(x)
	case decimal.Decimal:
		return x.String()
	case float64:
		return fmt.Sprint(x)
	case time.Time:
		if x.Equal(types.ZeroTime) {
			return types.ZeroDateStr
		}
		return x.Format(sql.TimestampDatetimeLayout)
	}
	return fmt.Sprint(v)
}

// mysqlArithmetic returns e with its arithmetic as MySQL computes it (see
// above): DATE/DATETIME/TIMESTAMP operands as numbers, integer + - *
// checked against BIGINT's range.
func mysqlArithmetic(ctx *sql.Context, e sql.Expression) (sql.Expression, bool) {
	out, same, err := transform.Expr(ctx, e, func(ctx *sql.Context, x sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		a, ok := x.(expression.ArithmeticOp)
		if !ok {
			return x, transform.SameTree, nil
		}
		l, r := a.Left(), a.Right()
		_, li := l.(*expression.Interval)
		_, ri := r.(*expression.Interval)
		changed := false
		if !li && !ri {
			if dateOperand(ctx, l) {
				l, changed = &temporalNumber{UnaryExpressionStub: expression.UnaryExpressionStub{Child: l}}, true
			}
			if dateOperand(ctx, r) {
				r, changed = &temporalNumber{UnaryExpressionStub: expression.UnaryExpressionStub{Child: r}}, true
			}
		}
		var nx sql.Expression = a
		if changed {
			var err error
			if nx, err = a.WithChildren(ctx, l, r); err != nil {
				return nil, transform.SameTree, err
			}
		}
		if ar, ok := nx.(*expression.Arithmetic); ok && !li && !ri {
			switch ar.Op {
			case "+", "-", "*":
				if types.IsInteger(l.Type(ctx)) && types.IsInteger(r.Type(ctx)) {
					return &checkedArith{Arithmetic: ar}, transform.NewTree, nil
				}
			}
		}
		if changed {
			return nx, transform.NewTree, nil
		}
		return x, transform.SameTree, nil
	})
	if err != nil || same == transform.SameTree {
		return e, false
	}
	return out, true
}

// dateOperand: e is a DATE, DATETIME or TIMESTAMP.
func dateOperand(ctx *sql.Context, e sql.Expression) bool {
	return types.IsTime(e.Type(ctx))
}

// temporalNumber is a DATE, DATETIME or TIMESTAMP as MySQL's arithmetic
// reads it: YYYYMMDD (DATE), YYYYMMDDhhmmss (the others), a DECIMAL with
// the type's fraction digits when it has some.
type temporalNumber struct {
	expression.UnaryExpressionStub
}

func (t *temporalNumber) fsp(ctx *sql.Context) int {
	if dt, ok := t.Child.Type(ctx).(sql.DatetimeType); ok && !types.IsDateType(t.Child.Type(ctx)) {
		return dt.Precision()
	}
	return 0
}

func (t *temporalNumber) Type(ctx *sql.Context) sql.Type {
	if p := t.fsp(ctx); p > 0 {
		return types.MustCreateDecimalType(14+uint8(p), uint8(p))
	}
	return types.Int64
}

func (t *temporalNumber) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := t.Child.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	tm, ok := v.(time.Time)
	if !ok {
		c, _, err := t.Child.Type(ctx).Convert(ctx, v)
		if err != nil {
			return nil, err
		}
		if tm, ok = c.(time.Time); !ok {
			return nil, fmt.Errorf("sqlgw: %v is not a date", v)
		}
	}
	var n int64
	zero := tm.Equal(types.ZeroTime) // the zero date is 0; year 0 is a date ('0000-01-01' is 101)
	if !zero {
		n = int64(tm.Year())*10000 + int64(tm.Month())*100 + int64(tm.Day())
	}
	if types.IsDateType(t.Child.Type(ctx)) {
		return n, nil
	}
	if !zero {
		n = n*1000000 + int64(tm.Hour())*10000 + int64(tm.Minute())*100 + int64(tm.Second())
	}
	p := t.fsp(ctx)
	if p == 0 {
		return n, nil
	}
	micros := int64(tm.Nanosecond() / 1000)
	d := decimal.New(n, 0).Add(decimal.New(micros, -6))
	return d.Truncate(int32(p)), nil
}

func (t *temporalNumber) IsNullable(ctx *sql.Context) bool { return t.Child.IsNullable(ctx) }
func (t *temporalNumber) String() string                   { return t.Child.String() }

func (t *temporalNumber) WithChildren(ctx *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(t, len(children), 1)
	}
	return &temporalNumber{UnaryExpressionStub: expression.UnaryExpressionStub{Child: children[0]}}, nil
}

// checkedArith is integer + - * with MySQL's result: unsigned if an
// operand is, 1690 when the result is beyond BIGINT (UNSIGNED).
type checkedArith struct {
	*expression.Arithmetic
}

func (c *checkedArith) unsigned(ctx *sql.Context) bool {
	return types.IsUnsigned(c.LeftChild.Type(ctx)) || types.IsUnsigned(c.RightChild.Type(ctx))
}

// Type is go-mysql-server's (a SELECT's column keeps its type): BIGINT
// UNSIGNED when both operands are unsigned, else BIGINT.

func (c *checkedArith) WithChildren(ctx *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	e, err := c.Arithmetic.WithChildren(ctx, children...)
	if err != nil {
		return nil, err
	}
	if a, ok := e.(*expression.Arithmetic); ok {
		return &checkedArith{Arithmetic: a}, nil
	}
	return e, nil
}

func (c *checkedArith) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	lv, err := c.LeftChild.Eval(ctx, row)
	if err != nil || lv == nil {
		return nil, err
	}
	rv, err := c.RightChild.Eval(ctx, row)
	if err != nil || rv == nil {
		return nil, err
	}
	l, lok := bigOf(lv)
	r, rok := bigOf(rv)
	if !lok || !rok {
		return c.Arithmetic.Eval(ctx, row) // not integers: go-mysql-server's
	}
	// The common case, both in int64 with no overflow, without big.Int.
	if l.IsInt64() && r.IsInt64() {
		a, b := l.Int64(), r.Int64()
		var s int64
		ok := true
		switch c.Op {
		case "+":
			s = a + b
			ok = (b >= 0) == (s >= a)
		case "-":
			s = a - b
			ok = (b >= 0) == (s <= a)
		case "*":
			s = a * b
			ok = a == 0 || (s/a == b && !(a == -1 && b == math.MinInt64))
		}
		if ok {
			if !c.unsigned(ctx) {
				return s, nil
			}
			if s >= 0 {
				return uint64(s), nil
			}
			return nil, c.outOfRange(ctx)
		}
	}
	var s big.Int
	switch c.Op {
	case "+":
		s.Add(l, r)
	case "-":
		s.Sub(l, r)
	case "*":
		s.Mul(l, r)
	}
	if c.unsigned(ctx) {
		if s.Sign() >= 0 && s.IsUint64() {
			return s.Uint64(), nil
		}
	} else if s.IsInt64() {
		return s.Int64(), nil
	}
	return nil, c.outOfRange(ctx)
}

func (c *checkedArith) outOfRange(ctx *sql.Context) error {
	kind := "BIGINT"
	if c.unsigned(ctx) {
		kind = "BIGINT UNSIGNED"
	}
	return mysql.NewSQLError(erDataOutOfRange, "22003", "%s value is out of range in '%s'", kind, mysqlExprText(c))
}

// bigOf is an integer value as a big.Int.
func bigOf(v any) (*big.Int, bool) {
	switch x := v.(type) {
	case int8:
		return big.NewInt(int64(x)), true
	case int16:
		return big.NewInt(int64(x)), true
	case int32:
		return big.NewInt(int64(x)), true
	case int64:
		return big.NewInt(x), true
	case int:
		return big.NewInt(int64(x)), true
	case uint8:
		return big.NewInt(int64(x)), true
	case uint16:
		return big.NewInt(int64(x)), true
	case uint32:
		return big.NewInt(int64(x)), true
	case uint64:
		return new(big.Int).SetUint64(x), true
	case uint:
		return new(big.Int).SetUint64(uint64(x)), true
	}
	return nil, false
}

// mysqlExprText is e as MySQL prints an expression in its messages:
// columns `db`.`t`.`c`, operations in parentheses.
func mysqlExprText(e sql.Expression) string {
	switch x := e.(type) {
	case *checkedArith:
		return mysqlExprText(x.Arithmetic)
	case *temporalNumber:
		return mysqlExprText(x.Child)
	case *temporalArg: // numbercast.go
		return mysqlExprText(x.child)
	case *numberDateArg:
		return mysqlExprText(x.child)
	case *unsignedArith:
		return mysqlExprText(x.child)
	case expression.ArithmeticOp:
		return "(" + mysqlExprText(x.Left()) + " " + strings.ToLower(x.Operator()) + " " + mysqlExprText(x.Right()) + ")"
	case *expression.GetField:
		name := "`" + x.Name() + "`"
		if x.Table() != "" {
			name = "`" + x.Table() + "`." + name
			if x.Database() != "" {
				name = "`" + x.Database() + "`." + name
			}
		}
		return name
	case *expression.Literal:
		switch v := x.Value().(type) {
		case nil:
			return "NULL"
		case string:
			return "'" + v + "'"
		case []byte:
			return "'" + string(v) + "'"
		case decimal.Decimal:
			return v.String()
		}
		return fmt.Sprint(x.Value())
	}
	return e.String()
}

// numberCasts returns e with its CASTs and CONVERTs of numbers to DATE,
// DATETIME and TIME as MySQL's (numberCast), and whether there were some.
func numberCasts(ctx *sql.Context, e sql.Expression) (sql.Expression, bool) {
	out, same, err := transform.Expr(ctx, e, func(ctx *sql.Context, x sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		c, ok := x.(*expression.Convert)
		if !ok || !numericType(c.Child.Type(ctx)) {
			return x, transform.SameTree, nil
		}
		t := c.Type(ctx)
		if !types.IsTime(t) && !types.IsTimespan(t) {
			return x, transform.SameTree, nil
		}
		return &numberCast{Convert: c}, transform.NewTree, nil
	})
	if err != nil || same == transform.SameTree {
		return e, false
	}
	return out, true
}

func numericType(t sql.Type) bool {
	return types.IsNumber(t)
}

// numberCast is CAST(number AS DATE|DATETIME|TIME): go-mysql-server
// gives NULL for every number but a six-digit TIME; MySQL reads the
// number as a date (number_to_datetime: YYYYMMDD, YYMMDD, YYYYMMDDhhmmss,
// YYMMDDhhmmss, a fraction for microseconds) or, for TIME, as hhmmss
// (number_to_time; beyond TIME's range, a date-time's time of day).
type numberCast struct {
	*expression.Convert
}

func (n *numberCast) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := n.Child.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	if !isNumber(v) {
		return n.Convert.Eval(ctx, row)
	}
	var s string
	if types.IsTimespan(n.Convert.Type(ctx)) {
		ds, ok := numericDate(v).(string)
		if !ok || !bigNumber(v) {
			return n.Convert.Eval(ctx, row) // hhmmss: go-mysql-server's
		}
		s = ds[strings.IndexByte(ds, ' ')+1:]
	} else {
		ds, ok := numericDate(v).(string)
		if !ok {
			return n.Convert.Eval(ctx, row)
		}
		s = ds
	}
	c, err := n.Convert.WithChildren(ctx, expression.NewLiteral(s, types.LongText))
	if err != nil {
		return nil, err
	}
	return c.Eval(ctx, row)
}

// bigNumber: v is at least 10000000000, where MySQL's number_to_time
// reads a date-time.
func bigNumber(v any) bool {
	b, ok := bigOf(v)
	if !ok {
		switch x := v.(type) {
		case decimal.Decimal:
			return x.GreaterThanOrEqual(decimal.New(1, 10))
		case float64:
			return x >= 1e10
		case float32:
			return x >= 1e10
		}
		return false
	}
	return b.Cmp(big.NewInt(10000000000)) >= 0
}

func (n *numberCast) WithChildren(ctx *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	e, err := n.Convert.WithChildren(ctx, children...)
	if err != nil {
		return nil, err
	}
	if c, ok := e.(*expression.Convert); ok {
		return &numberCast{Convert: c}, nil
	}
	return e, nil
}

// nodeArithmetic reports whether mysqlArithmetic changes an expression of
// n (an INSERT's source).
func nodeArithmetic(ctx *sql.Context, n sql.Node) bool {
	found := false
	transform.InspectExpressions(ctx, n, func(ctx *sql.Context, e sql.Expression) bool {
		if !found {
			_, found = mysqlArithmetic(ctx, e)
		}
		return !found
	})
	return found
}

// nodeMySQLArithmetic returns n with mysqlArithmetic applied to its
// expressions.
func nodeMySQLArithmetic(ctx *sql.Context, n sql.Node) (sql.Node, error) {
	out, _, err := transform.NodeExprs(ctx, n, func(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		if x, ok := mysqlArithmetic(ctx, e); ok {
			return x, transform.NewTree, nil
		}
		return e, transform.SameTree, nil
	})
	return out, err
}

// numberCastNode returns a SELECT list or a filter with its CASTs of
// numbers to dates and its arithmetic as MySQL's (numberCasts,
// mysqlArithmetic); false if it has none. The
// exec builder builds that node instead (explain.go), so that every
// statement has them, also those go-mysql-server's analyzer takes through
// its shortened rule set (a single-table SELECT, SELECT without FROM).
func numberCastNode(ctx *sql.Context, n sql.Node) (sql.Node, bool) {
	switch n.(type) {
	case *plan.Project, *plan.Filter:
	default:
		return n, false
	}
	ex := n.(sql.Expressioner)
	exprs := ex.Expressions()
	var out []sql.Expression
	for i, e := range exprs {
		x, casts := numberCasts(ctx, e)
		x, arith := mysqlArithmetic(ctx, x)
		x, floats := floatDecimalsTree(ctx, x) // floatcompare.go
		if casts || arith || floats {
			if out == nil {
				out = append([]sql.Expression(nil), exprs...)
			}
			out[i] = x
		}
	}
	if out == nil {
		return n, false
	}
	nn, err := ex.WithExpressions(ctx, out...)
	if err != nil {
		return n, false
	}
	return nn, true
}

// noZeroDate: the session's sql_mode has NO_ZERO_DATE (TRADITIONAL
// includes it).
func noZeroDate(ctx *sql.Context) bool {
	m := sql.LoadSqlMode(ctx)
	return m.ModeEnabled("NO_ZERO_DATE") || m.ModeEnabled("TRADITIONAL")
}
