package wire

import (
	"strconv"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/sqlgw/sqlgw/internal/gcvt"
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
// in the exponent (1e20, 1.2345678901234568e16, 1e-300): internal/gcvt.
// fixFloatText rewrites the values of FLOAT and DOUBLE fields with no
// fixed scale in text rows; the binary protocol sends the IEEE value,
// which the client formats itself.

// notFixedDec is the Decimals MySQL gives a FLOAT or DOUBLE field with no
// scale (DECIMAL_NOT_SPECIFIED); go-mysql-server gives 0 (sqlgw's FLOAT and
// DOUBLE columns have no scale), so both mean "no scale" here, and
// floatFields sends 31.
const notFixedDec = 31

// floatFields returns fields with Decimals 31 for the FLOAT and DOUBLE
// fields go-mysql-server gives 0 (thirteenth session): MySQL describes a
// FLOAT or DOUBLE column without (M,D), and an expression of type DOUBLE
// (1e0 + 1, AVG(double), CAST(x AS DOUBLE)), with Decimals 31 in the text
// and the binary protocol and in COM_STMT_PREPARE's column definitions;
// clients read it as "no fixed scale" (Connector/J and pymysql's
// description, mysql --column-type-info). The fields are copied: the
// engine may share them between results. fields is returned as it is
// when it has none to change.
func floatFields(fields []*querypb.Field) []*querypb.Field {
	var out []*querypb.Field
	for i, f := range fields {
		if (f.Type != querypb.Type_FLOAT64 && f.Type != querypb.Type_FLOAT32) || f.Decimals != 0 {
			continue
		}
		if out == nil {
			out = make([]*querypb.Field, len(fields))
			copy(out, fields)
		}
		c := copyField(f) // time_precision.go
		c.Decimals = notFixedDec
		out[i] = c
	}
	if out == nil {
		return fields
	}
	return out
}

// fixFloatText rewrites FLOAT and DOUBLE values of text rows as MySQL
// writes them (see above).
func fixFloatText(cb mysql.ResultSpoolFn) mysql.ResultSpoolFn {
	var cols []int
	return func(res *sqltypes.Result, more bool) error {
		if res != nil && len(res.Fields) > 0 {
			res.Fields = floatFields(res.Fields)
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
					row[i] = sqltypes.MakeTrusted(typ, gcvt.Append(nil, x, res.Fields[i].Type == querypb.Type_FLOAT32))
				}
			}
		}
		return cb(res, more)
	}
}
