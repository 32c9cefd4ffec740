package wire

import (
	"bytes"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// zeroMicros is the fraction go-mysql-server appends to every TIME value
// in text rows: its TIME type always has six fractional digits.
var zeroMicros = []byte(".000000")

// trimTimeFractions drops a zero fraction from TIME values in text rows,
// as MySQL shows TIME with the column's precision: sqlgw's TIME columns
// have precision 0 (TIME(n) is not supported), and the fields say so
// (Decimals 0). A non-zero fraction, which only expressions produce, is
// kept rather than lost.
func trimTimeFractions(cb mysql.ResultSpoolFn) mysql.ResultSpoolFn {
	var timeCols []int
	return func(res *sqltypes.Result, more bool) error {
		if res != nil && len(res.Fields) > 0 {
			timeCols = timeCols[:0]
			for i, f := range res.Fields {
				if f.Type == querypb.Type_TIME && f.Decimals == 0 {
					timeCols = append(timeCols, i)
				}
			}
		}
		if res != nil && len(timeCols) > 0 {
			for _, row := range res.Rows {
				for _, i := range timeCols {
					if i >= len(row) || row[i].IsNull() {
						continue
					}
					b := row[i].Raw()
					if bytes.HasSuffix(b, zeroMicros) {
						row[i] = sqltypes.MakeTrusted(sqltypes.Time, b[:len(b)-len(zeroMicros)])
					}
				}
			}
		}
		return cb(res, more)
	}
}
