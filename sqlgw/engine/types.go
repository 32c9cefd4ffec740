package engine

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/shopspring/decimal"

	"github.com/sqlgw/sqlgw/catalog"
)

// catalogType converts a go-mysql-server column type to the catalog's type
// model. Types the catalog cannot store (spatial, vector, ...) are a clear
// MySQL error naming the column: never a silent approximation.
func catalogType(col string, t sql.Type) (catalog.Type, error) {
	unsupported := func() (catalog.Type, error) {
		return catalog.Type{}, errUnsupported.New(fmt.Sprintf("column %q: type %s is not supported by sqlgw", col, t.String()))
	}
	switch t.Type() {
	case sqltypes.Int8:
		return catalog.Type{Kind: catalog.KindInt8}, nil
	case sqltypes.Uint8:
		return catalog.Type{Kind: catalog.KindInt8, Unsigned: true}, nil
	case sqltypes.Int16:
		return catalog.Type{Kind: catalog.KindInt16}, nil
	case sqltypes.Uint16:
		return catalog.Type{Kind: catalog.KindInt16, Unsigned: true}, nil
	case sqltypes.Int24:
		return catalog.Type{Kind: catalog.KindInt24}, nil
	case sqltypes.Uint24:
		return catalog.Type{Kind: catalog.KindInt24, Unsigned: true}, nil
	case sqltypes.Int32:
		return catalog.Type{Kind: catalog.KindInt32}, nil
	case sqltypes.Uint32:
		return catalog.Type{Kind: catalog.KindInt32, Unsigned: true}, nil
	case sqltypes.Int64:
		return catalog.Type{Kind: catalog.KindInt64}, nil
	case sqltypes.Uint64:
		return catalog.Type{Kind: catalog.KindInt64, Unsigned: true}, nil
	case sqltypes.Float32:
		return catalog.Type{Kind: catalog.KindFloat}, nil
	case sqltypes.Float64:
		return catalog.Type{Kind: catalog.KindDouble}, nil
	case sqltypes.Decimal:
		dt, ok := t.(sql.DecimalType)
		if !ok {
			return unsupported()
		}
		return catalog.Type{Kind: catalog.KindDecimal, Precision: int(dt.Precision()), Scale: int(dt.Scale())}, nil
	case sqltypes.Char, sqltypes.VarChar, sqltypes.Text, sqltypes.Binary, sqltypes.VarBinary, sqltypes.Blob:
		st, ok := t.(sql.StringType)
		if !ok {
			return unsupported()
		}
		ct := catalog.Type{}
		switch t.Type() {
		case sqltypes.Char:
			ct.Kind, ct.Length = catalog.KindChar, int(st.MaxCharacterLength())
		case sqltypes.VarChar:
			ct.Kind, ct.Length = catalog.KindVarchar, int(st.MaxCharacterLength())
		case sqltypes.Binary:
			ct.Kind, ct.Length = catalog.KindBinary, int(st.MaxByteLength())
		case sqltypes.VarBinary:
			ct.Kind, ct.Length = catalog.KindVarbinary, int(st.MaxByteLength())
		case sqltypes.Text:
			switch n := st.MaxByteLength(); {
			case n <= types.TinyTextBlobMax:
				ct.Kind = catalog.KindTinyText
			case n <= types.TextBlobMax:
				ct.Kind = catalog.KindText
			case n <= types.MediumTextBlobMax:
				ct.Kind = catalog.KindMediumText
			default:
				ct.Kind = catalog.KindLongText
			}
		case sqltypes.Blob:
			switch n := st.MaxByteLength(); {
			case n <= types.TinyTextBlobMax:
				ct.Kind = catalog.KindTinyBlob
			case n <= types.TextBlobMax:
				ct.Kind = catalog.KindBlob
			case n <= types.MediumTextBlobMax:
				ct.Kind = catalog.KindMediumBlob
			default:
				ct.Kind = catalog.KindLongBlob
			}
		}
		if ct.Kind.IsText() {
			ct.Collation = st.Collation().Name()
		}
		return ct, nil
	case sqltypes.Date:
		return catalog.Type{Kind: catalog.KindDate}, nil
	case sqltypes.Datetime, sqltypes.Timestamp:
		dt, ok := t.(sql.DatetimeType)
		if !ok {
			return unsupported()
		}
		k := catalog.KindDatetime
		if t.Type() == sqltypes.Timestamp {
			k = catalog.KindTimestamp
		}
		return catalog.Type{Kind: k, FSP: dt.Precision()}, nil
	case sqltypes.Time:
		// The engine's TIME is TIME(6); the declared precision, which the
		// engine does not keep, is set by applyTimePrecision (time_precision.go).
		fsp := 6
		if tt, ok := t.(interface{ Precision() int }); ok {
			fsp = tt.Precision()
		}
		return catalog.Type{Kind: catalog.KindTime, FSP: fsp, TimeFSP: true}, nil
	case sqltypes.Year:
		return catalog.Type{Kind: catalog.KindYear}, nil
	case sqltypes.Enum:
		et, ok := t.(sql.EnumType)
		if !ok {
			return unsupported()
		}
		return catalog.Type{Kind: catalog.KindEnum, Values: et.Values(), Collation: et.Collation().Name()}, nil
	case sqltypes.Set:
		st, ok := t.(sql.SetType)
		if !ok {
			return unsupported()
		}
		return catalog.Type{Kind: catalog.KindSet, Values: st.Values(), Collation: st.Collation().Name()}, nil
	case sqltypes.Bit:
		bt, ok := t.(types.BitType)
		if !ok {
			return unsupported()
		}
		return catalog.Type{Kind: catalog.KindBit, Length: int(bt.NumberOfBits())}, nil
	case sqltypes.TypeJSON:
		return catalog.Type{Kind: catalog.KindJSON}, nil
	}
	return unsupported()
}

// gmsType converts a catalog type back to the engine's type.
func gmsType(ct catalog.Type) (sql.Type, error) {
	coll := func() (sql.CollationID, error) {
		if ct.Collation == "" {
			return sql.Collation_utf8mb4_0900_bin, nil
		}
		c, err := sql.ParseCollation("", ct.Collation, false)
		if err != nil {
			return 0, err
		}
		return c, nil
	}
	switch ct.Kind {
	case catalog.KindInt8:
		if ct.Unsigned {
			return types.Uint8, nil
		}
		return types.Int8, nil
	case catalog.KindInt16:
		if ct.Unsigned {
			return types.Uint16, nil
		}
		return types.Int16, nil
	case catalog.KindInt24:
		if ct.Unsigned {
			return types.Uint24, nil
		}
		return types.Int24, nil
	case catalog.KindInt32:
		if ct.Unsigned {
			return types.Uint32, nil
		}
		return types.Int32, nil
	case catalog.KindInt64:
		if ct.Unsigned {
			return types.Uint64, nil
		}
		return types.Int64, nil
	case catalog.KindFloat:
		return types.Float32, nil
	case catalog.KindDouble:
		return types.Float64, nil
	case catalog.KindDecimal:
		return types.CreateColumnDecimalType(uint8(ct.Precision), uint8(ct.Scale))
	case catalog.KindChar, catalog.KindVarchar:
		c, err := coll()
		if err != nil {
			return nil, err
		}
		bt := sqltypes.Char
		if ct.Kind == catalog.KindVarchar {
			bt = sqltypes.VarChar
		}
		return types.CreateString(bt, int64(ct.Length), c)
	case catalog.KindTinyText, catalog.KindText, catalog.KindMediumText, catalog.KindLongText:
		c, err := coll()
		if err != nil {
			return nil, err
		}
		switch ct.Kind {
		case catalog.KindTinyText:
			return types.CreateTinyText(c), nil
		case catalog.KindText:
			return types.CreateText(c), nil
		case catalog.KindMediumText:
			return types.CreateMediumText(c), nil
		}
		return types.CreateLongText(c), nil
	case catalog.KindBinary:
		return types.CreateBinary(sqltypes.Binary, int64(ct.Length))
	case catalog.KindVarbinary:
		return types.CreateBinary(sqltypes.VarBinary, int64(ct.Length))
	case catalog.KindTinyBlob:
		return types.TinyBlob, nil
	case catalog.KindBlob:
		return types.Blob, nil
	case catalog.KindMediumBlob:
		return types.MediumBlob, nil
	case catalog.KindLongBlob:
		return types.LongBlob, nil
	case catalog.KindDate:
		return types.Date, nil
	case catalog.KindDatetime:
		return types.CreateDatetimeType(sqltypes.Datetime, ct.FSP)
	case catalog.KindTimestamp:
		return types.CreateDatetimeType(sqltypes.Timestamp, ct.FSP)
	case catalog.KindTime:
		return types.Time, nil
	case catalog.KindYear:
		return types.Year, nil
	case catalog.KindEnum:
		c, err := coll()
		if err != nil {
			return nil, err
		}
		return types.CreateEnumType(ct.Values, c)
	case catalog.KindSet:
		c, err := coll()
		if err != nil {
			return nil, err
		}
		return types.CreateSetType(ct.Values, c)
	case catalog.KindBit:
		return types.CreateBitType(uint8(ct.Length))
	case catalog.KindJSON:
		return types.JSON, nil
	}
	return nil, fmt.Errorf("sqlgw: catalog type %s has no engine type", ct)
}

// toDatum converts an engine value of column type t to the catalog's Datum
// representation (see catalog.Datum).
func toDatum(ctx context.Context, ct catalog.Type, v interface{}) (catalog.Datum, error) {
	if v == nil {
		return nil, nil
	}
	v, err := sql.UnwrapAny(ctx, v)
	if err != nil {
		return nil, err
	}
	bad := func() (catalog.Datum, error) {
		return nil, fmt.Errorf("sqlgw: value %v (%T) does not fit column type %s", v, v, ct)
	}
	switch ct.Kind {
	case catalog.KindInt8, catalog.KindInt16, catalog.KindInt24, catalog.KindInt32, catalog.KindInt64:
		if ct.Unsigned {
			switch x := v.(type) {
			case uint8:
				return uint64(x), nil
			case uint16:
				return uint64(x), nil
			case uint32:
				return uint64(x), nil
			case uint64:
				return x, nil
			case int64:
				if x >= 0 {
					return uint64(x), nil
				}
			}
			return bad()
		}
		switch x := v.(type) {
		case int8:
			return int64(x), nil
		case int16:
			return int64(x), nil
		case int32:
			return int64(x), nil
		case int64:
			return x, nil
		case bool:
			if x {
				return int64(1), nil
			}
			return int64(0), nil
		}
		return bad()
	case catalog.KindFloat, catalog.KindDouble:
		switch x := v.(type) {
		case float32:
			return float64(x), nil
		case float64:
			return x, nil
		}
		return bad()
	case catalog.KindDecimal:
		switch x := v.(type) {
		case decimal.Decimal:
			return x, nil
		case decimal.NullDecimal:
			if !x.Valid {
				return nil, nil
			}
			return x.Decimal, nil
		}
		return bad()
	case catalog.KindChar, catalog.KindVarchar, catalog.KindTinyText, catalog.KindText, catalog.KindMediumText, catalog.KindLongText:
		switch x := v.(type) {
		case string:
			return charValue(ct, x), nil
		case []byte:
			return charValue(ct, string(x)), nil
		}
		return bad()
	case catalog.KindBinary, catalog.KindVarbinary, catalog.KindTinyBlob, catalog.KindBlob, catalog.KindMediumBlob, catalog.KindLongBlob:
		switch x := v.(type) {
		case []byte:
			return x, nil
		case string:
			return []byte(x), nil
		}
		return bad()
	case catalog.KindDate, catalog.KindDatetime, catalog.KindTimestamp:
		if x, ok := v.(time.Time); ok {
			return x.UTC(), nil
		}
		return bad()
	case catalog.KindTime:
		switch x := v.(type) {
		case types.Timespan:
			return timeDatum(ct, x.AsMicroseconds()), nil
		case int64:
			return timeDatum(ct, x), nil
		}
		return bad()
	case catalog.KindYear:
		switch x := v.(type) {
		case int16:
			return int64(x), nil
		case int64:
			return x, nil
		case int32:
			return int64(x), nil
		case int8:
			return int64(x), nil
		}
		return bad()
	case catalog.KindEnum:
		switch x := v.(type) {
		case uint16:
			return uint64(x), nil
		case uint64:
			return x, nil
		}
		return bad()
	case catalog.KindSet, catalog.KindBit:
		switch x := v.(type) {
		case uint64:
			return x, nil
		case uint8:
			return uint64(x), nil
		case uint16:
			return uint64(x), nil
		case uint32:
			return uint64(x), nil
		}
		return bad()
	case catalog.KindJSON:
		switch x := v.(type) {
		case string:
			return x, nil
		case sql.JSONWrapper:
			s, err := types.JsonToMySqlString(ctx, x)
			if err != nil {
				return nil, err
			}
			return s, nil
		}
		return bad()
	}
	return bad()
}

// fromDatum converts a catalog Datum to the engine's value for column type
// ct (the representation go-mysql-server's type.Convert produces).
func fromDatum(ct catalog.Type, d catalog.Datum) (interface{}, error) {
	if d == nil {
		return nil, nil
	}
	switch ct.Kind {
	case catalog.KindInt8, catalog.KindInt16, catalog.KindInt24, catalog.KindInt32, catalog.KindInt64:
		if ct.Unsigned {
			u, ok := d.(uint64)
			if !ok {
				break
			}
			switch ct.Kind {
			case catalog.KindInt8:
				return uint8(u), nil
			case catalog.KindInt16:
				return uint16(u), nil
			case catalog.KindInt24, catalog.KindInt32:
				return uint32(u), nil
			}
			return u, nil
		}
		i, ok := d.(int64)
		if !ok {
			break
		}
		return signedValue(ct.Kind, i), nil
	case catalog.KindFloat:
		if f, ok := d.(float64); ok {
			return float32(f), nil
		}
	case catalog.KindDouble:
		if f, ok := d.(float64); ok {
			return f, nil
		}
	case catalog.KindDecimal:
		if x, ok := d.(decimal.Decimal); ok {
			// Keep the column's scale (30.50, not 30.5): the engine derives
			// result scales from the values' exponents.
			return x.Round(int32(ct.Scale)), nil
		}
	case catalog.KindChar, catalog.KindVarchar, catalog.KindTinyText, catalog.KindText, catalog.KindMediumText, catalog.KindLongText:
		if s, ok := d.(string); ok {
			return charValue(ct, s), nil
		}
	case catalog.KindBinary, catalog.KindVarbinary, catalog.KindTinyBlob, catalog.KindBlob, catalog.KindMediumBlob, catalog.KindLongBlob:
		if b, ok := d.([]byte); ok {
			return b, nil
		}
	case catalog.KindDate, catalog.KindDatetime, catalog.KindTimestamp:
		if t, ok := d.(time.Time); ok {
			return t, nil
		}
	case catalog.KindTime:
		if i, ok := d.(int64); ok {
			return types.Timespan(i), nil
		}
	case catalog.KindYear:
		if i, ok := d.(int64); ok {
			return int16(i), nil
		}
	case catalog.KindEnum:
		if u, ok := d.(uint64); ok && u <= math.MaxUint16 {
			return uint16(u), nil
		}
	case catalog.KindSet, catalog.KindBit:
		if u, ok := d.(uint64); ok {
			return u, nil
		}
	case catalog.KindJSON:
		if s, ok := d.(string); ok {
			doc, _, err := types.JSON.Convert(context.Background(), s)
			if err != nil {
				return nil, err
			}
			return doc, nil
		}
	}
	return nil, fmt.Errorf("sqlgw: stored value %v (%T) does not decode as %s", d, d, ct)
}

// signedValue is i as the engine holds a signed integer column of kind k:
// int8, int16, int32 (MEDIUMINT too) or int64.
func signedValue(k catalog.Kind, i int64) any {
	switch k {
	case catalog.KindInt8:
		return int8(i)
	case catalog.KindInt16:
		return int16(i)
	case catalog.KindInt24, catalog.KindInt32:
		return int32(i)
	}
	return i
}

// charValue is s as a CHAR column holds it: MySQL pads a CHAR value with
// spaces to its length when it stores it and removes trailing spaces when
// it reads it (sql_mode PAD_CHAR_TO_FULL_LENGTH, deprecated, aside), so
// 'ab  ' reads back as 'ab', LENGTH 2, and keys and comparisons see 'ab'.
// go-mysql-server kept the spaces. Values are stored without them; values
// an older sqlgw stored with them lose them when read. Other kinds: s.
func charValue(ct catalog.Type, s string) string {
	if ct.Kind != catalog.KindChar || len(s) == 0 || s[len(s)-1] != ' ' {
		return s
	}
	return strings.TrimRight(s, " ")
}
