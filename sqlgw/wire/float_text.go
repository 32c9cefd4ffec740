package wire

import (
	"strconv"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// FLOAT and DOUBLE in text rows
//
// go-mysql-server writes a DOUBLE as Go's strconv 'g' (1234567 as
// "1.234567e+06", 1e20 as "1e+20") and a FLOAT as the shortest digits of
// the float32 (1/3 as "0.33333334", 123456.789 as "123456.79"). MySQL
// (and MariaDB) write them with my_gcvt (strings/dtoa.cc): a DOUBLE's
// shortest round-trip digits, a FLOAT's rounded to FLT_DIG (6) significant
// digits, in the fixed notation when the decimal point is within 15 digits
// of the first one on either side (1234567, 123456789012345, 0.00001,
// 0.000000000000001), else as d.ddde[-]N with no '+' and no leading zeros
// in the exponent (1e20, 1.2345678901234568e16, 1e-300). fixFloatText
// rewrites the values of FLOAT and DOUBLE fields with no fixed scale in
// text rows; the binary protocol sends the IEEE value, which the client
// formats itself.

// gcvtWidth is the field width MySQL converts an unscaled FLOAT or DOUBLE
// with for a result (MY_GCVT_MAX_FIELD_WIDTH: DBL_DIG + 4 + DBL_DIG).
const gcvtWidth = 34

// notFixedDec is the Decimals MySQL gives a FLOAT or DOUBLE field with no
// scale; go-mysql-server gives 0 (sqlgw's FLOAT and DOUBLE columns have no
// scale), so both mean "no scale" here.
const notFixedDec = 31

// fixFloatText rewrites FLOAT and DOUBLE values of text rows as MySQL
// writes them (see above).
func fixFloatText(cb mysql.ResultSpoolFn) mysql.ResultSpoolFn {
	var cols []int
	return func(res *sqltypes.Result, more bool) error {
		if res != nil && len(res.Fields) > 0 {
			cols = cols[:0]
			for i, f := range res.Fields {
				if (f.Type == querypb.Type_FLOAT64 || f.Type == querypb.Type_FLOAT32) && (f.Decimals == 0 || f.Decimals >= notFixedDec) {
					cols = append(cols, i)
				}
			}
		}
		if res != nil && len(cols) > 0 {
			for _, row := range res.Rows {
				for _, i := range cols {
					if i >= len(row) || row[i].IsNull() {
						continue
					}
					typ := row[i].Type()
					x, err := strconv.ParseFloat(string(row[i].Raw()), 64)
					if err != nil {
						continue // not a number go-mysql-server wrote: leave it
					}
					row[i] = sqltypes.MakeTrusted(typ, AppendGcvt(nil, x, res.Fields[i].Type == querypb.Type_FLOAT32))
				}
			}
		}
		return cb(res, more)
	}
}

// AppendGcvt appends x as MySQL's my_gcvt writes a DOUBLE (float false)
// or a FLOAT (float true) for a result: see above.
func AppendGcvt(dst []byte, x float64, float bool) []byte {
	if x == 0 {
		return append(dst, '0') // -0 too
	}
	if x != x || x > 1.7976931348623157e308 || x < -1.7976931348623157e308 {
		return strconv.AppendFloat(dst, x, 'g', -1, 64) // not storable; as it was
	}
	width := gcvtWidth
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
