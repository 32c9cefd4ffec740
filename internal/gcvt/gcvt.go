// Package gcvt writes a FLOAT or DOUBLE as MySQL's my_gcvt
// (strings/dtoa.cc) does for a result row and for a double's string value
// (CAST(d AS CHAR), CONCAT): a DOUBLE's shortest round-trip digits, a
// FLOAT's rounded to FLT_DIG (6) significant digits, in the fixed notation
// when the decimal point is within 15 digits of the first one on either
// side (1234567, 123456789012345, 0.00001, 0.000000000000001), else as
// d.ddde[-]N with no '+' and no leading zeros in the exponent (1e20,
// 1.2345678901234568e16, 1e-300). The wire's text rows
// (sqlgw/wire/float_text.go) and the engine's string conversions
// (sqlgw/engine/floattext.go) share it; it imports nothing of the module.
package gcvt

import "strconv"

// fieldWidth is the field width MySQL converts an unscaled FLOAT or DOUBLE
// with for a result (MY_GCVT_MAX_FIELD_WIDTH: DBL_DIG + 4 + DBL_DIG).
// String::set_real converts a double's string value with a wider buffer
// (FLOATING_POINT_BUFFER); the two give the same text for every double,
// since a fixed-notation text within the 15-digit bounds needs at most
// 17 digits, "0." and 14 zeros (33 characters).
const fieldWidth = 34

// Append appends x as MySQL's my_gcvt writes a DOUBLE (float false) or
// a FLOAT (float true): see the package comment.
func Append(dst []byte, x float64, float bool) []byte {
	if x == 0 {
		return append(dst, '0') // -0 too
	}
	if x != x || x > 1.7976931348623157e308 || x < -1.7976931348623157e308 {
		return strconv.AppendFloat(dst, x, 'g', -1, 64) // not storable; as it was
	}
	width := fieldWidth
	neg := x < 0
	if neg {
		x, width = -x, width-1
	}
	// The significant digits and the decimal point's position (dtoa's
	// decpt: digits d1d2... mean 0.d1d2... * 10^decpt).
	var buf [32]byte
	prec := -1
	if float {
		prec = 5 // FLT_DIG significant digits, as dtoa mode 4 with 6
	}
	e := strconv.AppendFloat(buf[:0], x, 'e', prec, 64)
	mant, exp := e, 0
	for i := range e {
		if e[i] == 'e' {
			mant = e[:i]
			n, _ := strconv.Atoi(string(e[i+1:]))
			exp = n
			break
		}
	}
	var digs [24]byte
	ds := digs[:0]
	for _, c := range mant {
		if c != '.' {
			ds = append(ds, c)
		}
	}
	for len(ds) > 1 && ds[len(ds)-1] == '0' {
		ds = ds[:len(ds)-1]
	}
	n, decpt := len(ds), exp+1
	expLen := 1
	if decpt >= 101 || decpt <= -99 {
		expLen++
	}
	if decpt >= 11 || decpt <= -9 {
		expLen++
	}
	var f int
	switch {
	case decpt <= 0:
		f = n - decpt + 2
	case decpt < n:
		f = n + 1
	default:
		f = decpt
	}
	haveSpace := f <= width
	forceE := decpt <= 0 && width <= 2-decpt && width >= 3+expLen
	const maxDecptForF = 15 // MAX_DECPT_FOR_F_FORMAT = DBL_DIG
	fixed := (haveSpace || (decpt <= width && (decpt >= -1 || (decpt == -2 && (n > 1 || !forceE))) && !forceE)) &&
		(!haveSpace || (decpt >= -maxDecptForF+1 && (decpt <= maxDecptForF || n > decpt)))
	if neg {
		dst = append(dst, '-')
	}
	if fixed {
		if decpt <= 0 {
			dst = append(dst, '0', '.')
			for ; decpt < 0; decpt++ {
				dst = append(dst, '0')
			}
			return append(dst, ds...)
		}
		for i := 0; i < n; i++ {
			dst = append(dst, ds[i])
			if i+1 == decpt && i+1 < n {
				dst = append(dst, '.')
			}
		}
		for i := n; i < decpt; i++ {
			dst = append(dst, '0')
		}
		return dst
	}
	dst = append(dst, ds[0])
	if n > 1 {
		dst = append(dst, '.')
		dst = append(dst, ds[1:]...)
	}
	dst = append(dst, 'e')
	if decpt--; decpt < 0 {
		dst = append(dst, '-')
		decpt = -decpt
	}
	return strconv.AppendInt(dst, int64(decpt), 10)
}
