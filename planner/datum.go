package planner

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// FormatDatum renders a Datum as a SQL literal, for EXPLAIN.
func FormatDatum(d Datum) string {
	switch v := d.(type) {
	case nil:
		return "NULL"
	case bool:
		if v {
			return "TRUE"
		}
		return "FALSE"
	case int64:
		return strconv.FormatInt(v, 10)
	case uint64:
		return strconv.FormatUint(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case decimal.Decimal:
		return v.String()
	case string:
		return "'" + strings.ReplaceAll(v, "'", "''") + "'"
	case []byte:
		return fmt.Sprintf("X'%x'", v)
	case time.Time:
		return "'" + v.Format("2006-01-02 15:04:05.999999") + "'"
	}
	return fmt.Sprintf("%v", d)
}

// convResult says how a literal converted to a column's kind relates to it.
type convResult uint8

const (
	convExact convResult = iota // the converted value equals the literal in SQL
	convNone                    // no exact conversion: leave to the engine
	convBelow                   // literal lies strictly between two column values; converted is the one below
)

// convert converts literal d to a Datum of kind k, exactly as SQL compares
// them, or reports convNone. For integer kinds a non-integral number
// converts to its floor with convBelow, so that comparisons can be
// rewritten exactly (a > 5.5 is a > 5; a < 5.5 is a <= 5; a = 5.5 is false).
func convert(k Kind, d Datum) (Datum, convResult) {
	d = Normalize(d)
	if s, ok := d.(string); ok && (k == KindInt || k == KindUint || k == KindFloat) {
		// A number column and a string compare as doubles (MySQL and
		// go-mysql-server alike); only a plainly numeric string has one
		// obvious double ('5', '-2.5e3'; not ' 5', '5abc', '0x10').
		f, ok := plainNumber(s)
		if !ok {
			return nil, convNone
		}
		d = f
	}
	// A value of the column's own type is returned as it is (d, not
	// v: no new interface value, whose boxing allocates).
	switch k {
	case KindInt:
		switch v := d.(type) {
		case int64:
			return d, convExact
		case uint64:
			if v <= math.MaxInt64 {
				return int64(v), convExact
			}
		case decimal.Decimal:
			return decimalToInt(v, true)
		case float64:
			return floatToInt(v, true)
		}
	case KindUint:
		switch v := d.(type) {
		case uint64:
			return d, convExact
		case int64:
			if v >= 0 {
				return uint64(v), convExact
			}
		case decimal.Decimal:
			return decimalToInt(v, false)
		case float64:
			return floatToInt(v, false)
		}
	case KindFloat:
		switch v := d.(type) {
		case float64:
			if !math.IsNaN(v) {
				return d, convExact
			}
		case int64:
			if f := float64(v); v > -1<<53 && v < 1<<53 {
				return f, convExact
			}
		case decimal.Decimal:
			// MySQL compares a float column with a decimal literal as
			// doubles, go-mysql-server as decimals; both agree when the
			// decimal is exactly a double (2.5, not 0.1).
			if f, exact := v.Float64(); exact {
				return f, convExact
			}
		}
	case KindDecimal:
		switch v := d.(type) {
		case decimal.Decimal:
			return d, convExact
		case int64:
			return decimal.NewFromInt(v), convExact
		}
	case KindString, KindJSON:
		if _, ok := d.(string); ok {
			return d, convExact
		}
	case KindBytes:
		if _, ok := d.([]byte); ok {
			return d, convExact
		}
	case KindTime:
		// Stored times have microsecond precision.
		if v, ok := d.(time.Time); ok {
			if t := v.Truncate(time.Microsecond); !t.Equal(v) {
				return t, convBelow
			}
			return d, convExact
		}
	case KindDate:
		// A DATE compares with a DATETIME literal as midnight of its day.
		if v, ok := d.(time.Time); ok {
			u := v.UTC()
			day := time.Date(u.Year(), u.Month(), u.Day(), 0, 0, 0, 0, time.UTC)
			if day.Equal(v) {
				return day, convExact
			}
			return day, convBelow
		}
	case KindDuration:
		// TIME literals reach the planner only as int64 microseconds when
		// the caller has already typed them; a bare integer literal would
		// mean HHMMSS in MySQL, so only exact typed values are accepted.
	case KindEnum, KindSet, KindBit:
		// ENUM and SET compare with strings as text, which the planner
		// leaves to the engine, and with numbers by index or bitmask, which
		// is their Datum.
		switch v := d.(type) {
		case uint64:
			return d, convExact
		case int64:
			if v >= 0 {
				return uint64(v), convExact
			}
		}
	}
	return nil, convNone
}

var (
	minInt64 = decimal.NewFromInt(math.MinInt64)
	maxInt64 = decimal.NewFromInt(math.MaxInt64)
	maxUint  = decimal.NewFromBigInt(new(big.Int).SetUint64(math.MaxUint64), 0)
)

func decimalToInt(v decimal.Decimal, signed bool) (Datum, convResult) {
	fl := v.Floor()
	res := convExact
	if !fl.Equal(v) {
		res = convBelow
	}
	if signed {
		if fl.LessThan(minInt64) || fl.GreaterThan(maxInt64) {
			return nil, convNone
		}
		return fl.IntPart(), res
	}
	if fl.Sign() < 0 || fl.GreaterThan(maxUint) {
		return nil, convNone
	}
	return fl.BigInt().Uint64(), res
}

func floatToInt(v float64, signed bool) (Datum, convResult) {
	// SQL compares an integer column with a double as doubles: exact for
	// integers only while doubles represent every integer around v.
	if math.IsNaN(v) || math.Abs(v) >= 1<<53 {
		return nil, convNone
	}
	return decimalToInt(decimal.NewFromFloat(v), signed)
}

// compareDatums compares two Datums of kind k in SQL order (binary collation
// for strings).
func compareDatums(k Kind, a, b Datum) int {
	switch x := a.(type) {
	case int64:
		return cmp.Compare(x, b.(int64))
	case uint64:
		return cmp.Compare(x, b.(uint64))
	case float64:
		return cmp.Compare(x, b.(float64))
	case decimal.Decimal:
		return x.Cmp(b.(decimal.Decimal))
	case string:
		return strings.Compare(x, b.(string))
	case []byte:
		return bytes.Compare(x, b.([]byte))
	case time.Time:
		return x.Compare(b.(time.Time))
	}
	panic(fmt.Sprintf("planner: cannot compare %T of kind %v", a, k))
}

// orderable reports whether the planner can order values of kind k (and so
// build ranges on a key column of that kind).
func orderable(k Kind) bool {
	switch k {
	case KindInt, KindUint, KindFloat, KindDecimal, KindString, KindBytes, KindTime, KindDate,
		KindEnum, KindSet, KindBit:
		return true
	}
	return false
}

// Normalize maps Go types a caller may pass for convenience to the Datum
// representation: booleans (MySQL's TRUE is 1), and sized integers and
// float32 to int64, uint64 and float64. Other values are returned as they are.
func Normalize(d Datum) Datum {
	switch v := d.(type) {
	case bool:
		if v {
			return int64(1)
		}
		return int64(0)
	case int:
		return int64(v)
	case int8:
		return int64(v)
	case int16:
		return int64(v)
	case int32:
		return int64(v)
	case uint:
		return uint64(v)
	case uint8:
		return uint64(v)
	case uint16:
		return uint64(v)
	case uint32:
		return uint64(v)
	case float32:
		return float64(v)
	}
	return d
}

// plainNumber parses s if it is a plain decimal number: an optional sign,
// digits with an optional fraction, an optional exponent; nothing else.
func plainNumber(s string) (float64, bool) {
	i, digits := 0, 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		digits++
	}
	if i < len(s) && s[i] == '.' {
		for i++; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			digits++
		}
	}
	if digits == 0 {
		return 0, false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			exp++
		}
		if exp == 0 {
			return 0, false
		}
	}
	if i != len(s) {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}
