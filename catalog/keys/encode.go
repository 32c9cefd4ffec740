package keys

import (
	"math"
	"math/big"
	"strconv"
	"time"

	"github.com/shopspring/decimal"
)

// EncodeNullAscending appends the ascending NULL component.
func EncodeNullAscending(b []byte) []byte { return append(b, Null) }

// EncodeNullDescending appends the descending NULL component.
func EncodeNullDescending(b []byte) []byte { return append(b, NullDesc) }

// DecodeNullAscending reports whether b starts with an ascending NULL
// component, and returns the rest after it if so (b unchanged otherwise).
func DecodeNullAscending(b []byte) ([]byte, bool) {
	if len(b) > 0 && b[0] == Null {
		return b[1:], true
	}
	return b, false
}

// DecodeNullDescending is DecodeNullAscending for descending components.
func DecodeNullDescending(b []byte) ([]byte, bool) {
	if len(b) > 0 && b[0] == NullDesc {
		return b[1:], true
	}
	return b, false
}

// EncodeIntAscending appends the integer component of v.
func EncodeIntAscending(b []byte, v int64) []byte {
	if v >= 0 {
		return EncodeUintAscending(b, uint64(v))
	}
	// Magnitude of v as unsigned, correct for math.MinInt64 too.
	m := uint64(-(v + 1)) + 1
	var buf [20]byte
	d := strconv.AppendUint(buf[:0], m, 10)
	b = append(b, byte(IntNegBase-(len(d)-1)))
	for _, c := range d {
		b = append(b, '9'-(c-'0'))
	}
	return b
}

// EncodeUintAscending appends the integer component of v. Signed and
// unsigned values share one format: EncodeIntAscending(b, 5) equals
// EncodeUintAscending(b, 5).
func EncodeUintAscending(b []byte, v uint64) []byte {
	var buf [20]byte
	d := strconv.AppendUint(buf[:0], v, 10)
	b = append(b, byte(IntPosBase+len(d)-1))
	return append(b, d...)
}

// EncodeIntDescending appends the descending integer component of v.
func EncodeIntDescending(b []byte, v int64) []byte {
	return descend(b, func(b []byte) []byte { return EncodeIntAscending(b, v) })
}

// EncodeUintDescending appends the descending integer component of v.
func EncodeUintDescending(b []byte, v uint64) []byte {
	return descend(b, func(b []byte) []byte { return EncodeUintAscending(b, v) })
}

// decodeInteger decodes an integer component as (negative, magnitude).
func decodeInteger(b []byte) (rest []byte, neg bool, mag uint64, err error) {
	if len(b) == 0 {
		return b, false, 0, malformed("empty integer", b)
	}
	m := b[0]
	var n int
	switch {
	case m >= IntPosBase && m < IntPosBase+20:
		n = int(m-IntPosBase) + 1
	case m <= IntNegBase && m > IntNegBase-20:
		n = int(IntNegBase-m) + 1
		neg = true
	default:
		return b, false, 0, malformed("integer marker", b)
	}
	if len(b) < 1+n {
		return b, false, 0, malformed("short integer", b)
	}
	digits := b[1 : 1+n]
	for _, c := range digits {
		if c < '0' || c > '9' {
			return b, false, 0, malformed("integer digit", b)
		}
		d := uint64(c - '0')
		if neg {
			d = 9 - d
		}
		if mag > (math.MaxUint64-d)/10 {
			return b, false, 0, malformed("integer overflow", b)
		}
		mag = mag*10 + d
	}
	// Canonical form only: no leading zeros (except "0" itself), no -0.
	if n > 1 && digitsLen(mag) != n || neg && mag == 0 {
		return b, false, 0, malformed("non-canonical integer", b)
	}
	return b[1+n:], neg, mag, nil
}

func digitsLen(v uint64) int {
	n := 1
	for v >= 10 {
		v /= 10
		n++
	}
	return n
}

// DecodeIntAscending decodes an integer component into an int64.
func DecodeIntAscending(b []byte) ([]byte, int64, error) {
	rest, neg, mag, err := decodeInteger(b)
	if err != nil {
		return b, 0, err
	}
	if neg {
		if mag > 1<<63 {
			return b, 0, malformed("int64 overflow", b)
		}
		return rest, int64(-mag), nil // -(1<<63) wraps to MinInt64
	}
	if mag > math.MaxInt64 {
		return b, 0, malformed("int64 overflow", b)
	}
	return rest, int64(mag), nil
}

// DecodeUintAscending decodes an integer component into a uint64; negative
// values are malformed.
func DecodeUintAscending(b []byte) ([]byte, uint64, error) {
	rest, neg, mag, err := decodeInteger(b)
	if err != nil {
		return b, 0, err
	}
	if neg {
		return b, 0, malformed("negative unsigned", b)
	}
	return rest, mag, nil
}

// DecodeIntDescending decodes a descending integer component.
func DecodeIntDescending(b []byte) ([]byte, int64, error) {
	return descending(b, DecodeIntAscending)
}

// DecodeUintDescending decodes a descending integer component.
func DecodeUintDescending(b []byte) ([]byte, uint64, error) {
	return descending(b, DecodeUintAscending)
}

// EncodeBytesAscending appends the string component of s.
func EncodeBytesAscending(b []byte, s []byte) []byte {
	for _, c := range s {
		b = append(b, byteCode[c][:byteCodeN[c]]...)
	}
	return append(b, StringEnd)
}

// EncodeStringAscending appends the string component of s (its UTF-8 bytes).
func EncodeStringAscending(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		b = append(b, byteCode[c][:byteCodeN[c]]...)
	}
	return append(b, StringEnd)
}

// EncodeBytesDescending appends the descending string component of s.
func EncodeBytesDescending(b []byte, s []byte) []byte {
	return descend(b, func(b []byte) []byte { return EncodeBytesAscending(b, s) })
}

// EncodeStringDescending appends the descending string component of s.
func EncodeStringDescending(b []byte, s string) []byte {
	return descend(b, func(b []byte) []byte { return EncodeStringAscending(b, s) })
}

// DecodeBytesAscending decodes a string component. The result is a new
// slice, never nil (the empty string decodes to []byte{}).
func DecodeBytesAscending(b []byte) ([]byte, []byte, error) {
	out := []byte{}
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == StringEnd:
			return b[i+1:], out, nil
		case isAlnum(c):
			out = append(out, c)
		case escIndex[c] >= 0:
			e := stringEscapes[escIndex[c]]
			if i+1 >= len(b) {
				return b, nil, malformed("truncated escape", b)
			}
			j := int(alphaIndex[b[i+1]])
			if j < 0 || e.start+j > e.end {
				return b, nil, malformed("bad escape", b[i:])
			}
			out = append(out, byte(e.start+j))
			i++
		default:
			return b, nil, malformed("bad string character", b[i:])
		}
	}
	return b, nil, malformed("unterminated string", b)
}

// DecodeStringAscending decodes a string component.
func DecodeStringAscending(b []byte) ([]byte, string, error) {
	rest, s, err := DecodeBytesAscending(b)
	return rest, string(s), err
}

// DecodeBytesDescending decodes a descending string component.
func DecodeBytesDescending(b []byte) ([]byte, []byte, error) {
	return descending(b, DecodeBytesAscending)
}

// DecodeStringDescending decodes a descending string component.
func DecodeStringDescending(b []byte) ([]byte, string, error) {
	return descending(b, DecodeStringAscending)
}

const hexDigits = "0123456789abcdef"

// EncodeFloatAscending appends the float component of f. -0 is encoded
// as 0. It panics on NaN and infinities, which SQL values never are:
// callers check with math.IsNaN/IsInf first.
func EncodeFloatAscending(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		panic("keys: NaN or infinite float")
	}
	if f == 0 {
		f = 0 // -0 -> +0
	}
	u := math.Float64bits(f)
	if u&(1<<63) != 0 {
		u = ^u
	} else {
		u |= 1 << 63
	}
	for shift := 60; shift >= 0; shift -= 4 {
		b = append(b, hexDigits[(u>>uint(shift))&0xF])
	}
	return b
}

// EncodeFloatDescending appends the descending float component of f.
func EncodeFloatDescending(b []byte, f float64) []byte {
	return descend(b, func(b []byte) []byte { return EncodeFloatAscending(b, f) })
}

// DecodeFloatAscending decodes a float component.
func DecodeFloatAscending(b []byte) ([]byte, float64, error) {
	if len(b) < 16 {
		return b, 0, malformed("short float", b)
	}
	var u uint64
	for _, c := range b[:16] {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		default:
			return b, 0, malformed("float digit", b)
		}
		u = u<<4 | uint64(d)
	}
	if u&(1<<63) != 0 {
		u &^= 1 << 63
	} else {
		u = ^u
	}
	f := math.Float64frombits(u)
	if math.IsNaN(f) || math.IsInf(f, 0) || (f == 0 && math.Signbit(f)) {
		return b, 0, malformed("non-canonical float", b)
	}
	return b[16:], f, nil
}

// DecodeFloatDescending decodes a descending float component.
func DecodeFloatDescending(b []byte) ([]byte, float64, error) {
	return descending(b, DecodeFloatAscending)
}

// EncodeDecimalAscending appends the decimal component of d. Equal values
// of different scale (1.5, 1.50) encode identically.
func EncodeDecimalAscending(b []byte, d decimal.Decimal) []byte {
	sign := d.Sign()
	if sign == 0 {
		return append(b, DecimalZero)
	}
	digits, exp := decimalDigits(d)
	if sign > 0 {
		b = append(b, DecimalPos)
		return appendDecimalBody(b, digits, exp)
	}
	b = append(b, DecimalNeg)
	n := len(b)
	b = appendDecimalBody(b, digits, exp)
	Invert(b[n:])
	return b
}

// decimalDigits returns the significant digits of |d| (no leading or
// trailing zeros) and E with |d| = 0.digits x 10^E.
func decimalDigits(d decimal.Decimal) (string, int64) {
	coef := new(big.Int).Abs(d.Coefficient())
	s := coef.String()
	exp := int64(d.Exponent())
	trimmed := len(s)
	for trimmed > 1 && s[trimmed-1] == '0' {
		trimmed--
	}
	exp += int64(len(s) - trimmed)
	s = s[:trimmed]
	// |d| = s x 10^exp = 0.s x 10^(exp+len(s))
	return s, exp + int64(len(s))
}

func appendDecimalBody(b []byte, digits string, exp int64) []byte {
	b = EncodeIntAscending(b, exp)
	b = append(b, digits...)
	return append(b, DecimalEnd)
}

// EncodeDecimalDescending appends the descending decimal component of d.
func EncodeDecimalDescending(b []byte, d decimal.Decimal) []byte {
	return descend(b, func(b []byte) []byte { return EncodeDecimalAscending(b, d) })
}

// DecodeDecimalAscending decodes a decimal component. The result has the
// smallest exponent that represents it exactly (1.50 decodes as 1.5);
// callers rescale to the column's scale.
func DecodeDecimalAscending(b []byte) ([]byte, decimal.Decimal, error) {
	if len(b) == 0 {
		return b, decimal.Decimal{}, malformed("empty decimal", b)
	}
	switch b[0] {
	case DecimalZero:
		return b[1:], decimal.Zero, nil
	case DecimalPos:
		rest, digits, exp, err := decodeDecimalBody(b[1:])
		if err != nil {
			return b, decimal.Decimal{}, err
		}
		return rest, makeDecimal(digits, exp, false), nil
	case DecimalNeg:
		rest, v, err := descending(b[1:], func(x []byte) ([]byte, decimal.Decimal, error) {
			rest, digits, exp, err := decodeDecimalBody(x)
			if err != nil {
				return x, decimal.Decimal{}, err
			}
			return rest, makeDecimal(digits, exp, true), nil
		})
		if err != nil {
			return b, decimal.Decimal{}, err
		}
		return rest, v, nil
	}
	return b, decimal.Decimal{}, malformed("decimal marker", b)
}

// maxDecimalDigits bounds the significant digits a decimal component may
// have, far above MySQL's 65, so that malformed input cannot make the
// decoder build huge numbers.
const maxDecimalDigits = 1000

func decodeDecimalBody(b []byte) ([]byte, []byte, int64, error) {
	rest, exp, err := DecodeIntAscending(b)
	if err != nil {
		return b, nil, 0, err
	}
	for i, c := range rest {
		if c == DecimalEnd {
			digits := rest[:i]
			if len(digits) == 0 || digits[0] == '0' || digits[len(digits)-1] == '0' || len(digits) > maxDecimalDigits {
				return b, nil, 0, malformed("non-canonical decimal digits", b)
			}
			if exp > 1<<20 || exp < -(1<<20) {
				return b, nil, 0, malformed("decimal exponent out of range", b)
			}
			return rest[i+1:], digits, exp, nil
		}
		if c < '0' || c > '9' {
			return b, nil, 0, malformed("decimal digit", b)
		}
	}
	return b, nil, 0, malformed("unterminated decimal", b)
}

func makeDecimal(digits []byte, exp int64, neg bool) decimal.Decimal {
	coef, _ := new(big.Int).SetString(string(digits), 10)
	if neg {
		coef.Neg(coef)
	}
	return decimal.NewFromBigInt(coef, int32(exp-int64(len(digits))))
}

// DecodeDecimalDescending decodes a descending decimal component.
func DecodeDecimalDescending(b []byte) ([]byte, decimal.Decimal, error) {
	return descending(b, DecodeDecimalAscending)
}

// ZeroDate is MySQL's zero date, '0000-00-00' (and '0000-00-00
// 00:00:00'), as a time.Time: 0000-00-00 normalised by Go, that is
// -0001-11-30 00:00:00 UTC, the value go-mysql-server uses for it
// (types.ZeroTime). It encodes as "0000-00-00" ("0000-00-00T00:00:00.000000"
// for DATETIME), which sorts before every other date as MySQL orders the
// zero date, and those texts decode back to ZeroDate. Part of the format:
// before the twelfth session no stored key or value held "0000-00-00" (the
// encoders rejected year -1), so the extension leaves every existing key
// and value as it was.
var ZeroDate = time.Date(0, 0, 0, 0, 0, 0, 0, time.UTC)

// IsZeroDate reports whether t is ZeroDate (in any location).
func IsZeroDate(t time.Time) bool { return t.Equal(ZeroDate) }

// EncodeDateAscending appends the DATE component of t ("YYYY-MM-DD"; the
// time of day is ignored; ZeroDate is "0000-00-00"). Other years outside
// 0..9999 panic; callers check with DateInRange.
func EncodeDateAscending(b []byte, t time.Time) []byte {
	if IsZeroDate(t) {
		return append(b, "0000-00-00"...)
	}
	y, m, d := t.Date()
	if y < 0 || y > 9999 {
		panic("keys: year out of range")
	}
	b = append4(b, y)
	b = append(b, '-')
	b = append2(b, int(m))
	b = append(b, '-')
	return append2(b, d)
}

// DateInRange reports whether t's year is within 0..9999 (the key format's
// range) or t is ZeroDate.
func DateInRange(t time.Time) bool {
	y := t.Year()
	return y >= 0 && y <= 9999 || IsZeroDate(t)
}

// EncodeDateDescending appends the descending DATE component of t.
func EncodeDateDescending(b []byte, t time.Time) []byte {
	return descend(b, func(b []byte) []byte { return EncodeDateAscending(b, t) })
}

// EncodeDatetimeAscending appends the DATETIME component of t
// ("YYYY-MM-DDThh:mm:ss.ffffff", t in UTC, truncated to microseconds).
func EncodeDatetimeAscending(b []byte, t time.Time) []byte {
	t = t.UTC()
	if IsZeroDate(t) {
		return append(b, "0000-00-00T00:00:00.000000"...)
	}
	b = EncodeDateAscending(b, t)
	b = append(b, 'T')
	b = append2(b, t.Hour())
	b = append(b, ':')
	b = append2(b, t.Minute())
	b = append(b, ':')
	b = append2(b, t.Second())
	b = append(b, '.')
	us := t.Nanosecond() / 1000
	b = append2(b, us/10000)
	b = append2(b, us/100%100)
	return append2(b, us%100)
}

// EncodeDatetimeDescending appends the descending DATETIME component of t.
func EncodeDatetimeDescending(b []byte, t time.Time) []byte {
	return descend(b, func(b []byte) []byte { return EncodeDatetimeAscending(b, t) })
}

func append2(b []byte, v int) []byte { return append(b, byte('0'+v/10), byte('0'+v%10)) }
func append4(b []byte, v int) []byte { return append2(append2(b, v/100), v%100) }

func digitsAt(b []byte, i, n int) (int, bool) {
	v := 0
	for _, c := range b[i : i+n] {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}

// DecodeDateAscending decodes a DATE component into midnight UTC.
func DecodeDateAscending(b []byte) ([]byte, time.Time, error) {
	if len(b) < 10 || b[4] != '-' || b[7] != '-' {
		return b, time.Time{}, malformed("date", b)
	}
	y, ok1 := digitsAt(b, 0, 4)
	m, ok2 := digitsAt(b, 5, 2)
	d, ok3 := digitsAt(b, 8, 2)
	if !ok1 || !ok2 || !ok3 {
		return b, time.Time{}, malformed("date digits", b)
	}
	if y == 0 && m == 0 && d == 0 {
		return b[10:], ZeroDate, nil
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if t.Year() != y || int(t.Month()) != m || t.Day() != d {
		return b, time.Time{}, malformed("invalid date", b)
	}
	return b[10:], t, nil
}

// DecodeDatetimeAscending decodes a DATETIME component into a UTC time.
func DecodeDatetimeAscending(b []byte) ([]byte, time.Time, error) {
	rest, t, err := DecodeDateAscending(b)
	if err != nil {
		return b, t, err
	}
	r := rest
	if len(r) < 16 || r[0] != 'T' || r[3] != ':' || r[6] != ':' || r[9] != '.' {
		return b, time.Time{}, malformed("datetime", b)
	}
	h, ok1 := digitsAt(r, 1, 2)
	mi, ok2 := digitsAt(r, 4, 2)
	s, ok3 := digitsAt(r, 7, 2)
	us, ok4 := digitsAt(r, 10, 6)
	if !ok1 || !ok2 || !ok3 || !ok4 || h > 23 || mi > 59 || s > 59 {
		return b, time.Time{}, malformed("datetime digits", b)
	}
	if IsZeroDate(t) {
		if h != 0 || mi != 0 || s != 0 || us != 0 {
			return b, time.Time{}, malformed("zero date with a time", b) // never encoded
		}
		return r[16:], ZeroDate, nil
	}
	return r[16:], t.Add(time.Duration(h)*time.Hour + time.Duration(mi)*time.Minute +
		time.Duration(s)*time.Second + time.Duration(us)*time.Microsecond), nil
}

// DecodeDateDescending decodes a descending DATE component.
func DecodeDateDescending(b []byte) ([]byte, time.Time, error) {
	return descending(b, DecodeDateAscending)
}

// DecodeDatetimeDescending decodes a descending DATETIME component.
func DecodeDatetimeDescending(b []byte) ([]byte, time.Time, error) {
	return descending(b, DecodeDatetimeAscending)
}
