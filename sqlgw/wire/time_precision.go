package wire

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/sqlgw/engine"
	"github.com/sqlgw/sqlgw/sqlgw/sqltext"
)

// TIME(n) in results
//
// go-mysql-server has one TIME type, with six fractional digits; sqlgw
// keeps a column's declared precision in the catalog (the engine's
// time_precision.go: catalog.Type.FSP with TimeFSP set, values rounded
// when written). The result steps here show it, as MySQL does:
//
//   - Results show n digits: text rows of a TIME column are cut to n
//     digits (they are rounded already) and the column's Decimals is n, in
//     the text and the binary protocol (fixTimeResults, fixTimeFields).
//     Columns the result metadata does not name (expressions) keep the
//     engine's behaviour (a zero fraction dropped, trimTimeFractions).
//   - SHOW CREATE TABLE, SHOW COLUMNS and DESCRIBE print time(n), time for
//     n = 0, as MySQL (the engine prints time(6) for every TIME column;
//     fixTimeDDL), and so does information_schema.COLUMNS (COLUMN_TYPE,
//     DATETIME_PRECISION) in rows that name the column (TABLE_SCHEMA,
//     TABLE_NAME and COLUMN_NAME selected).
//
// They read the declared precisions from the engine's catalog
// (Gateway.Catalog, uncounted) and nothing else of the engine.

// timeColumn is the precision of one result column that is a TIME(n)
// column of a table.
type timeColumn struct {
	idx, fsp int
}

// resultTimeColumns returns the TIME(n) table columns among a result's
// fields (those with TimeFSP in the catalog), with their precision.
func resultTimeColumns(g *engine.Gateway, ctx context.Context, fields []*querypb.Field) []timeColumn {
	var out []timeColumn
	for i, f := range fields {
		if f.Type != querypb.Type_TIME || f.OrgTable == "" || f.Database == "" {
			continue
		}
		ct, ok := columnType(g, ctx, f.Database, f.OrgTable, f.OrgName)
		if !ok || ct.Kind != catalog.KindTime || !ct.TimeFSP {
			continue
		}
		out = append(out, timeColumn{idx: i, fsp: ct.FSP})
	}
	return out
}

// columnType looks a column up in the (cached) catalog.
func columnType(g *engine.Gateway, ctx context.Context, db, table, col string) (catalog.Type, bool) {
	t, err := g.Catalog.Table(engine.MetaCtx(ctx), db, table)
	if err != nil {
		return catalog.Type{}, false
	}
	for _, c := range t.Columns {
		if strings.EqualFold(c.Name, col) {
			return c.Type, true
		}
	}
	return catalog.Type{}, false
}

// fixTimeResults gives TIME(n) columns of text results n fractional digits
// and Decimals n. It runs before trimTimeFractions, which then leaves
// them alone (Decimals > 0) or finds no fraction (n = 0).
func fixTimeResults(g *engine.Gateway, ctx context.Context, cb mysql.ResultSpoolFn) mysql.ResultSpoolFn {
	var cols []timeColumn
	var isc *infoSchemaColumns
	return func(res *sqltypes.Result, more bool) error {
		if res != nil && len(res.Fields) > 0 {
			cols = resultTimeColumns(g, ctx, res.Fields)
			if len(cols) > 0 {
				res.Fields = withTimeDecimals(res.Fields, cols)
			}
			isc = infoSchemaColumnsOf(res.Fields)
		}
		if res != nil && isc != nil {
			fixInfoSchemaTimes(g, ctx, isc, res.Rows)
		}
		if res != nil && len(cols) > 0 {
			for _, row := range res.Rows {
				for _, c := range cols {
					if c.idx < len(row) && !row[c.idx].IsNull() {
						row[c.idx] = sqltypes.MakeTrusted(sqltypes.Time, cutTimeFraction(row[c.idx].Raw(), c.fsp))
					}
				}
			}
		}
		return cb(res, more)
	}
}

// infoSchemaColumns locates, in a result of information_schema.COLUMNS,
// the columns that name a column and those that describe its TIME type.
type infoSchemaColumns struct {
	schema, table, column int
	columnType, precision int // -1 when not selected
}

func infoSchemaColumnsOf(fields []*querypb.Field) *infoSchemaColumns {
	isc := &infoSchemaColumns{schema: -1, table: -1, column: -1, columnType: -1, precision: -1}
	for i, f := range fields {
		if !strings.EqualFold(f.Database, "information_schema") || !strings.EqualFold(f.OrgTable, "columns") {
			continue
		}
		switch strings.ToUpper(f.OrgName) {
		case "TABLE_SCHEMA":
			isc.schema = i
		case "TABLE_NAME":
			isc.table = i
		case "COLUMN_NAME":
			isc.column = i
		case "COLUMN_TYPE":
			isc.columnType = i
		case "DATETIME_PRECISION":
			isc.precision = i
		}
	}
	if isc.schema < 0 || isc.table < 0 || isc.column < 0 || isc.columnType < 0 && isc.precision < 0 {
		return nil
	}
	return isc
}

// fixInfoSchemaTimes gives TIME(n) columns their precision in rows of
// information_schema.COLUMNS (the engine reports time(6) and 6).
func fixInfoSchemaTimes(g *engine.Gateway, ctx context.Context, isc *infoSchemaColumns, rows [][]sqltypes.Value) {
	for _, row := range rows {
		if isc.columnType >= 0 && isc.columnType < len(row) && row[isc.columnType].ToString() != "time(6)" {
			continue
		}
		ct, ok := columnType(g, ctx, row[isc.schema].ToString(), row[isc.table].ToString(), row[isc.column].ToString())
		if !ok || ct.Kind != catalog.KindTime || !ct.TimeFSP || ct.FSP == 6 {
			continue
		}
		if isc.columnType >= 0 {
			row[isc.columnType] = sqltypes.MakeTrusted(row[isc.columnType].Type(), []byte(timeTypeName(ct.FSP)))
		}
		if isc.precision >= 0 && !row[isc.precision].IsNull() {
			row[isc.precision] = sqltypes.MakeTrusted(row[isc.precision].Type(), []byte(strconv.Itoa(ct.FSP)))
		}
	}
}

// fixTimeFields sets Decimals of TIME(n) columns in a binary-protocol
// result (whose values vitess encodes from the text, any digits).
func fixTimeFields(g *engine.Gateway, ctx context.Context, res *sqltypes.Result) {
	if res != nil && len(res.Fields) > 0 {
		if cols := resultTimeColumns(g, ctx, res.Fields); len(cols) > 0 {
			res.Fields = withTimeDecimals(res.Fields, cols)
		}
	}
}

// withTimeDecimals returns fields with Decimals set for cols (copies: the
// engine may share field values between results).
func withTimeDecimals(fields []*querypb.Field, cols []timeColumn) []*querypb.Field {
	out := make([]*querypb.Field, len(fields))
	copy(out, fields)
	for _, c := range cols {
		f := copyField(out[c.idx])
		f.Decimals = uint32(c.fsp)
		f.ColumnLength = uint32(10 + c.fsp)
		if c.fsp > 0 {
			f.ColumnLength++ // the point
		}
		out[c.idx] = f
	}
	return out
}

// cutTimeFraction keeps fsp digits of a TIME text value's fraction
// ("-12:00:01.500000", 3 -> "-12:00:01.500"), adding zeros if it has fewer.
func cutTimeFraction(b []byte, fsp int) []byte {
	whole, frac := b, []byte(nil)
	if i := bytes.IndexByte(b, '.'); i >= 0 {
		whole, frac = b[:i], b[i+1:]
	}
	if fsp == 0 {
		return whole
	}
	out := make([]byte, 0, len(whole)+1+fsp)
	out = append(out, whole...)
	out = append(out, '.')
	for i := 0; i < fsp; i++ {
		if i < len(frac) {
			out = append(out, frac[i])
		} else {
			out = append(out, '0')
		}
	}
	return out
}

// fixTimeDDL makes SHOW CREATE TABLE, SHOW COLUMNS and DESCRIBE name the
// declared TIME precision: the engine prints time(6) for every TIME.
func fixTimeDDL(g *engine.Gateway, ctx context.Context, conn uint32, query string, cb mysql.ResultSpoolFn) mysql.ResultSpoolFn {
	w := sqltext.LeadingWords(query, 4)
	show := len(w) >= 3 && w[0] == "show" && w[1] == "create" && w[2] == "table"
	cols := len(w) >= 2 && (w[0] == "describe" || w[0] == "desc" || w[0] == "explain") ||
		len(w) >= 3 && w[0] == "show" && (w[1] == "columns" || w[1] == "fields" || w[1] == "full" && len(w) > 2 && (w[2] == "columns" || w[2] == "fields"))
	if !show && !cols {
		return cb
	}
	shown, _, ok := sqltext.ShownColumns(query)
	if !ok {
		return cb
	}
	db := shown.DB
	if db == "" {
		db = g.CurrentDB(conn)
	}
	t, err := g.Catalog.Table(engine.MetaCtx(ctx), db, shown.Table)
	if err != nil {
		return cb
	}
	fsp := map[string]int{}
	for _, c := range t.Columns {
		if c.Type.Kind == catalog.KindTime && c.Type.TimeFSP && c.Type.FSP != 6 {
			fsp[strings.ToLower(c.Name)] = c.Type.FSP
		}
	}
	if len(fsp) == 0 {
		return cb
	}
	return func(res *sqltypes.Result, more bool) error {
		if res == nil {
			return cb(res, more)
		}
		for _, row := range res.Rows {
			switch {
			case show && len(row) >= 2:
				text := row[1].ToString()
				for _, c := range t.Columns {
					n, ok := fsp[strings.ToLower(c.Name)]
					if !ok {
						continue
					}
					quoted := "`" + strings.ReplaceAll(c.Name, "`", "``") + "`"
					text = strings.Replace(text, quoted+" time(6)", quoted+" "+timeTypeName(n), 1)
				}
				row[1] = sqltypes.MakeTrusted(row[1].Type(), []byte(text))
			case cols && len(row) >= 2:
				if n, ok := fsp[strings.ToLower(row[0].ToString())]; ok && row[1].ToString() == "time(6)" {
					row[1] = sqltypes.MakeTrusted(row[1].Type(), []byte(timeTypeName(n)))
				}
			}
		}
		return cb(res, more)
	}
}

func timeTypeName(fsp int) string {
	if fsp == 0 {
		return "time"
	}
	return fmt.Sprintf("time(%d)", fsp)
}

// copyField copies a result column definition (the engine may share
// them between results).
func copyField(o *querypb.Field) *querypb.Field {
	return &querypb.Field{Name: o.Name, Type: o.Type, Table: o.Table, OrgTable: o.OrgTable, Database: o.Database,
		OrgName: o.OrgName, ColumnLength: o.ColumnLength, Charset: o.Charset, Decimals: o.Decimals, Flags: o.Flags}
}
