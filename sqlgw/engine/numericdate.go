package engine

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// Dates written as numbers
//
// MySQL takes a DATE, DATETIME or TIMESTAMP value as a number in the
// YYYYMMDDhhmmss, YYMMDDhhmmss, YYYYMMDD or YYMMDD format (20240229,
// 240229, 20240229123456, with a fraction for microseconds), and as a
// string of digits in the same formats ('20240229', '240229'); a two-digit
// year 00-69 is 20xx, 70-99 19xx. go-mysql-server rejects every number
// ("Incorrect datetime value: '20240229'") and the six- and twelve-digit
// strings. numericDate rewrites such a value as the 'YYYY-MM-DD
// hh:mm:ss[.ffffff]' string go-mysql-server's conversion parses (and
// checks: 20240230 is still rejected). It is applied where a value is
// written into a column of those types: INSERT's rows (the general path's
// lenientIter in lenientwrite.go, directinsert.go's conversion), UPDATE's
// and ON DUPLICATE KEY UPDATE's assignments (strictSetField,
// lenientSetField). Upstream, this belongs in types.datetimeType's
// conversion of integers (MySQL's number_to_datetime).

// numericDate returns v as a date-time string if it is a number (or a
// string of 6, 8, 12 or 14 digits) in one of MySQL's numeric date formats
// (for a DATE, DATETIME or TIMESTAMP column); v itself otherwise.
func numericDate(v any) any {
	var n int64
	var frac string
	switch x := v.(type) {
	case int8:
		n = int64(x)
	case int16:
		n = int64(x)
	case int32:
		n = int64(x)
	case int64:
		n = x
	case int:
		n = int64(x)
	case uint8:
		n = int64(x)
	case uint16:
		n = int64(x)
	case uint32:
		n = int64(x)
	case uint64:
		if x > math.MaxInt64 {
			return v
		}
		n = int64(x)
	case float64:
		if x < 0 || x > 99991231235959.999999 {
			return v
		}
		return numericDate(decimal.NewFromFloat(x))
	case float32:
		return numericDate(float64(x))
	case decimal.Decimal:
		if x.IsNegative() || x.Exponent() < -6 {
			return v
		}
		n = x.IntPart()
		if f := x.Sub(decimal.NewFromInt(n)); !f.IsZero() {
			frac = strings.TrimPrefix(f.StringFixed(6), "0.")
		}
	case string:
		s := strings.TrimSpace(x)
		if len(s) != 6 && len(s) != 12 {
			return v // 8 and 14 digits: go-mysql-server parses them
		}
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return v
			}
		}
		d, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return v
		}
		if r := numberToDatetime(d); r != "" {
			return r
		}
		return v
	default:
		return v
	}
	if n == 0 && frac == "" {
		return v // go-mysql-server's zero date, as MySQL's
	}
	r := numberToDatetime(n)
	if r == "" {
		return v
	}
	if frac != "" {
		r += "." + frac
	}
	return r
}

// numberToDatetime is MySQL's number_to_datetime: n in the formats above
// as "YYYY-MM-DD hh:mm:ss", "" if n is in none of them or not a valid
// date and time.
func numberToDatetime(n int64) string {
	const yyPart = 70 // YY_PART_YEAR
	switch {
	case n < 101:
		return ""
	case n <= (yyPart-1)*10000+1231:
		n = (n + 20000000) * 1000000
	case n < yyPart*10000+101:
		return ""
	case n <= 991231:
		n = (n + 19000000) * 1000000
	case n < 10000101:
		return ""
	case n <= 99991231:
		n *= 1000000
	case n < 101000000:
		return ""
	case n <= (yyPart-1)*10000000000+1231235959:
		n += 20000000000000
	case n < yyPart*10000000000+101000000:
		return ""
	case n <= 991231235959:
		n += 19000000000000
	case n < 10000101000000 || n > 99991231235959:
		return ""
	}
	date, tod := n/1000000, n%1000000
	y, mo, d := int(date/10000), int(date/100%100), int(date%100)
	h, mi, sec := tod/10000, tod/100%100, tod%100
	// Not a date (20241399, 1234 read as 2000-12-34): go-mysql-server's
	// parsing of the string would keep a prefix of it (2000-12-03).
	if mo < 1 || mo > 12 || d < 1 || d > time.Date(y, time.Month(mo)+1, 0, 0, 0, 0, 0, time.UTC).Day() || h > 23 || mi > 59 || sec > 59 {
		return ""
	}
	return fmt.Sprintf("%04d-%02d-%02d %02d:%02d:%02d", y, mo, d, h, mi, sec)
}

// dateColumns returns which columns of schema take numericDate's values
// (DATE, DATETIME, TIMESTAMP), nil if none.
func dateColumns(schema sql.Schema) []bool {
	var out []bool
	for i, c := range schema {
		if types.IsTime(c.Type) {
			if out == nil {
				out = make([]bool, len(schema))
			}
			out[i] = true
		}
	}
	return out
}
