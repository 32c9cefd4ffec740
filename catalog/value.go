package catalog

import (
	"fmt"
	"math"
	"math/big"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"
	"github.com/sqlgw/sqlgw/catalog/keys"
	"github.com/sqlgw/sqlgw/storage"
)

// maxTimeMicros is MySQL's TIME range, 838:59:59, in microseconds.
const maxTimeMicros = (838*3600 + 59*60 + 59) * 1_000_000

// flipBit maps uint64 to int64 preserving order (BIGINT UNSIGNED, BIT(64)).
const flipBit = uint64(1) << 63

// wideUnsigned reports whether t's uint64 values can exceed MaxInt64 and
// are stored with the sign bit flipped.
func (t Type) wideUnsigned() bool {
	return t.Kind == KindInt64 && t.Unsigned || t.Kind == KindBit && (t.Length == 0 || t.Length >= 64)
}

// StorageType returns the property type the column's values are stored as.
func (c *Column) StorageType() storage.Type { return c.Type.storageType() }

func (t Type) storageType() storage.Type {
	switch t.Kind {
	case KindInt8, KindInt16, KindInt24, KindYear, KindEnum:
		return storage.TypeInt32
	case KindInt32:
		if t.Unsigned {
			return storage.TypeInt64
		}
		return storage.TypeInt32
	case KindInt64, KindTime, KindSet, KindBit:
		return storage.TypeInt64
	case KindFloat, KindDouble:
		return storage.TypeDouble
	case KindBinary, KindVarbinary, KindTinyBlob, KindBlob, KindMediumBlob, KindLongBlob:
		return storage.TypeBinary
	case KindInvalid:
		return 0
	}
	// DECIMAL, dates, text kinds, JSON.
	return storage.TypeString
}

// Pushdown reports whether a comparison "column op literal" evaluated by the
// store on the stored property, with the literal from Literal, gives exactly
// SQL's result (NULL is an absent property, false for every op, as SQL's
// NULL comparisons are not true). See the table in the package doc.
func (c *Column) Pushdown(op storage.Op) bool {
	if c.Role != RoleProperty || c.Edm != 0 {
		return c.attachedPushdown(op)
	}
	return c.Type.pushdown(op)
}

func (t Type) pushdown(op storage.Op) bool {
	eqOnly := op == storage.OpEq || op == storage.OpNe
	switch t.Kind {
	case KindInt8, KindInt16, KindInt24, KindInt32, KindInt64, KindYear, KindTime,
		KindFloat, KindDouble, KindDecimal, KindDate, KindDatetime, KindTimestamp, KindBit:
		return op >= storage.OpEq && op <= storage.OpLe
	case KindEnum, KindSet, KindBinary, KindVarbinary:
		return eqOnly
	case KindChar, KindVarchar:
		return eqOnly && t.BinaryCollation()
	}
	return false // large kinds (split values), invalid
}

// Literal converts a Datum of the column's type into the property value it
// is stored as, for building pushed-down filters: with Pushdown(op) true,
// storage.Compare{c.Property, op, lit} keeps exactly the rows where
// "column op d" is true in SQL. Large kinds (whose values may be split)
// have no literal: ErrUnsupported.
func (c *Column) Literal(d Datum) (storage.Value, error) {
	if c.Role != RoleProperty || c.Edm != 0 {
		return c.attachedLiteral(d)
	}
	if c.Type.Kind.IsLarge() {
		return storage.Value{}, fmt.Errorf("%w: column %q: %s values are not compared by the store", ErrUnsupported, c.Name, c.Type.Kind)
	}
	// A literal must be a value of the column's domain exactly: a DATE with
	// a time of day, or a time below microseconds, would be truncated into
	// a different value and compare wrongly.
	if tm, ok := d.(time.Time); ok {
		tm = tm.UTC()
		if tm.Nanosecond()%1000 != 0 || c.Type.Kind == KindDate && (tm.Hour() != 0 || tm.Minute() != 0 || tm.Second() != 0 || tm.Nanosecond() != 0) {
			return storage.Value{}, fmt.Errorf("column %q: %w", c.Name, badDatum(c.Type, d))
		}
	}
	v, err := c.Type.toValue(d)
	if err != nil {
		return storage.Value{}, fmt.Errorf("column %q: %w", c.Name, err)
	}
	return v, nil
}

func badDatum(t Type, d Datum) error {
	return fmt.Errorf("%w: %T (%v) is not a %s value", ErrValue, d, d, t)
}

// toValue maps a non-nil Datum to its property value (the whole value,
// before any splitting of large kinds).
func (t Type) toValue(d Datum) (storage.Value, error) {
	switch t.Kind {
	case KindInt8, KindInt16, KindInt24, KindInt32, KindInt64:
		if t.Unsigned {
			u, ok := d.(uint64)
			if !ok || u > t.maxUnsigned() {
				return storage.Value{}, badDatum(t, d)
			}
			switch t.storageType() {
			case storage.TypeInt32:
				return storage.Int32(int32(u)), nil
			}
			if t.wideUnsigned() {
				return storage.Int64(int64(u ^ flipBit)), nil
			}
			return storage.Int64(int64(u)), nil
		}
		i, ok := d.(int64)
		if !ok || i < -int64(t.maxUnsigned()/2)-1 || i > int64(t.maxUnsigned()/2) {
			return storage.Value{}, badDatum(t, d)
		}
		if t.storageType() == storage.TypeInt32 {
			return storage.Int32(int32(i)), nil
		}
		return storage.Int64(i), nil
	case KindYear:
		i, ok := d.(int64)
		if !ok || !(i == 0 || i >= 1901 && i <= 2155) {
			return storage.Value{}, badDatum(t, d)
		}
		return storage.Int32(int32(i)), nil
	case KindTime:
		i, ok := d.(int64)
		if !ok || i < -maxTimeMicros || i > maxTimeMicros {
			return storage.Value{}, badDatum(t, d)
		}
		return storage.Int64(i), nil
	case KindEnum:
		u, ok := d.(uint64)
		if !ok || u > uint64(len(t.Values)) {
			return storage.Value{}, badDatum(t, d)
		}
		return storage.Int32(int32(u)), nil
	case KindSet:
		u, ok := d.(uint64)
		if !ok || len(t.Values) < 64 && u>>uint(len(t.Values)) != 0 {
			return storage.Value{}, badDatum(t, d)
		}
		return storage.Int64(int64(u)), nil
	case KindBit:
		u, ok := d.(uint64)
		if !ok || t.Length > 0 && t.Length < 64 && u>>uint(t.Length) != 0 {
			return storage.Value{}, badDatum(t, d)
		}
		if t.wideUnsigned() {
			return storage.Int64(int64(u ^ flipBit)), nil
		}
		return storage.Int64(int64(u)), nil
	case KindFloat, KindDouble:
		f, ok := d.(float64)
		if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
			return storage.Value{}, badDatum(t, d)
		}
		if f == 0 {
			f = 0 // -0 is 0 in SQL
		}
		return storage.Double(f), nil
	case KindDecimal:
		x, ok := d.(decimal.Decimal)
		if !ok {
			return storage.Value{}, badDatum(t, d)
		}
		return storage.String(string(keys.EncodeDecimalAscending(nil, x))), nil
	case KindDate, KindDatetime, KindTimestamp:
		tm, ok := d.(time.Time)
		if !ok || !keys.DateInRange(tm.UTC()) {
			return storage.Value{}, badDatum(t, d)
		}
		if t.Kind == KindDate {
			return storage.String(string(keys.EncodeDateAscending(nil, tm.UTC()))), nil
		}
		return storage.String(string(keys.EncodeDatetimeAscending(nil, tm))), nil
	case KindChar, KindVarchar, KindTinyText, KindText, KindMediumText, KindLongText, KindJSON:
		s, ok := d.(string)
		if !ok || !utf8.ValidString(s) {
			return storage.Value{}, badDatum(t, d)
		}
		return storage.String(s), nil
	case KindBinary, KindVarbinary, KindTinyBlob, KindBlob, KindMediumBlob, KindLongBlob:
		b, ok := d.([]byte)
		if !ok {
			return storage.Value{}, badDatum(t, d)
		}
		return storage.Binary(b), nil
	}
	return storage.Value{}, fmt.Errorf("%w: column type %s", ErrUnsupported, t)
}

func (t Type) maxUnsigned() uint64 {
	switch t.Kind {
	case KindInt8:
		return math.MaxUint8
	case KindInt16:
		return math.MaxUint16
	case KindInt24:
		return 1<<24 - 1
	case KindInt32:
		return math.MaxUint32
	}
	return math.MaxUint64
}

// fromValue maps a stored property value (whole, after reassembly) back to
// its Datum.
// Decode returns the datum of a column of type t stored as v (a value of
// ColumnValue), as DecodeRow decodes it.
func (t Type) Decode(v storage.Value) (Datum, error) { return t.fromValue(v) }

// StorageType returns the property type values of type t are stored as.
func (t Type) StorageType() storage.Type { return t.storageType() }

func (t Type) fromValue(v storage.Value) (Datum, error) {
	want := t.storageType()
	if v.Type() != want {
		return nil, fmt.Errorf("%w: stored %s where %s was expected", ErrValue, v.Type(), want)
	}
	switch t.Kind {
	case KindInt8, KindInt16, KindInt24, KindInt32, KindInt64:
		if t.Unsigned {
			if t.wideUnsigned() {
				return uint64(v.Int()) ^ flipBit, nil
			}
			if v.Int() < 0 {
				return nil, fmt.Errorf("%w: negative stored value for %s", ErrValue, t)
			}
			return uint64(v.Int()), nil
		}
		return v.Int(), nil
	case KindYear, KindTime:
		return v.Int(), nil
	case KindEnum, KindSet:
		return uint64(v.Int()), nil
	case KindBit:
		if t.wideUnsigned() {
			return uint64(v.Int()) ^ flipBit, nil
		}
		return uint64(v.Int()), nil
	case KindFloat, KindDouble:
		return v.Float(), nil
	case KindDecimal:
		rest, x, err := keys.DecodeDecimalAscending([]byte(v.Str()))
		if err != nil || len(rest) != 0 {
			return nil, fmt.Errorf("%w: stored DECIMAL %q does not decode", ErrValue, v.Str())
		}
		return rescale(x, t.Scale), nil
	case KindDate:
		rest, tm, err := keys.DecodeDateAscending([]byte(v.Str()))
		if err != nil || len(rest) != 0 {
			return nil, fmt.Errorf("%w: stored DATE %q does not decode", ErrValue, v.Str())
		}
		return tm, nil
	case KindDatetime, KindTimestamp:
		rest, tm, err := keys.DecodeDatetimeAscending([]byte(v.Str()))
		if err != nil || len(rest) != 0 {
			return nil, fmt.Errorf("%w: stored DATETIME %q does not decode", ErrValue, v.Str())
		}
		return tm, nil
	case KindChar, KindVarchar, KindTinyText, KindText, KindMediumText, KindLongText, KindJSON:
		return v.Str(), nil
	case KindBinary, KindVarbinary, KindTinyBlob, KindBlob, KindMediumBlob, KindLongBlob:
		return v.Bytes(), nil
	}
	return nil, fmt.Errorf("%w: column type %s", ErrUnsupported, t)
}

// rescale returns x with exactly scale fraction digits when that loses
// nothing (x has no more digits than scale), x itself otherwise.
func rescale(x decimal.Decimal, scale int) decimal.Decimal {
	e := int(x.Exponent())
	if e <= -scale {
		return x
	}
	coef := new(big.Int).Mul(x.Coefficient(), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(e+scale)), nil))
	return decimal.NewFromBigInt(coef, int32(-scale))
}
