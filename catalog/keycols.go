package catalog

import (
	"fmt"
	"math"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"
	"github.com/sqlgw/sqlgw/catalog/keys"
	"github.com/sqlgw/sqlgw/storage"
)

// keyable reports whether values of t can be key components, and why not.
func (t Type) keyable() error {
	switch {
	case t.Kind == KindInvalid || t.Kind >= numKinds:
		return fmt.Errorf("%w: invalid type", ErrInvalidDef)
	case t.Kind.IsLarge():
		return fmt.Errorf("%w: %s columns cannot be key columns", ErrUnsupported, t.Kind)
	case t.Kind.IsText() && !t.BinaryCollation() && !t.padBin() && t.weigher() == nil:
		return fmt.Errorf("%w: key columns need a binary collation (%s, a _bin collation, or binary) or a collation with registered weights, not %s", ErrUnsupported, CollationUTF8MB4Bin, t.collation())
	}
	return nil
}

// appendKey appends d's key component (ascending or descending).
func (t Type) appendKey(b []byte, d Datum, desc bool) ([]byte, error) {
	if d == nil {
		if desc {
			return keys.EncodeNullDescending(b), nil
		}
		return keys.EncodeNullAscending(b), nil
	}
	n := len(b)
	var err error
	b, err = t.appendKeyAsc(b, d)
	if err != nil {
		return b[:n], err
	}
	if desc {
		keys.Invert(b[n:])
	}
	return b, nil
}

func (t Type) appendKeyAsc(b []byte, d Datum) ([]byte, error) {
	switch t.Kind {
	case KindInt8, KindInt16, KindInt24, KindInt32, KindInt64:
		if _, err := t.toValue(d); err != nil { // range and Go type check
			return b, err
		}
		if t.Unsigned {
			return keys.EncodeUintAscending(b, d.(uint64)), nil
		}
		return keys.EncodeIntAscending(b, d.(int64)), nil
	case KindYear, KindTime:
		if _, err := t.toValue(d); err != nil {
			return b, err
		}
		return keys.EncodeIntAscending(b, d.(int64)), nil
	case KindEnum, KindSet, KindBit:
		if _, err := t.toValue(d); err != nil {
			return b, err
		}
		return keys.EncodeUintAscending(b, d.(uint64)), nil
	case KindFloat, KindDouble:
		f, ok := d.(float64)
		if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
			return b, badDatum(t, d)
		}
		return keys.EncodeFloatAscending(b, f), nil
	case KindDecimal:
		x, ok := d.(decimal.Decimal)
		if !ok {
			return b, badDatum(t, d)
		}
		return keys.EncodeDecimalAscending(b, x), nil
	case KindDate:
		tm, ok := d.(time.Time)
		if !ok || !keys.DateInRange(tm.UTC()) {
			return b, badDatum(t, d)
		}
		return keys.EncodeDateAscending(b, tm.UTC()), nil
	case KindDatetime, KindTimestamp:
		tm, ok := d.(time.Time)
		if !ok || !keys.DateInRange(tm.UTC()) {
			return b, badDatum(t, d)
		}
		return keys.EncodeDatetimeAscending(b, tm), nil
	case KindChar, KindVarchar:
		if c, ok := d.(KeyComponent); ok && t.CollationKeyed() {
			return append(b, c...), nil // the planner's key-space value (collation.go)
		}
		s, ok := d.(string)
		if !ok || !utf8.ValidString(s) {
			return b, badDatum(t, d)
		}
		switch w := t.weigher(); {
		case w != nil:
			return keys.EncodeWeightsAscending(b, t.keyWeights(w, s)), nil
		case t.padBin():
			return keys.EncodeStringPadAscending(b, s), nil
		case !t.BinaryCollation():
			return b, t.keyable()
		}
		return keys.EncodeStringAscending(b, s), nil
	case KindBinary, KindVarbinary:
		x, ok := d.([]byte)
		if !ok {
			return b, badDatum(t, d)
		}
		return keys.EncodeBytesAscending(b, x), nil
	}
	return b, t.keyable()
}

// decodeKey decodes one key component of type t.
func (t Type) decodeKey(b []byte, desc bool) ([]byte, Datum, error) {
	if desc {
		if rest, ok := keys.DecodeNullDescending(b); ok {
			return rest, nil, nil
		}
		inv := make([]byte, len(b))
		for i, c := range b {
			if m := keys.Mirror(c); m != 0 {
				inv[i] = m
			} else {
				inv[i] = 0xFF
			}
		}
		rest, d, err := t.decodeKeyAsc(inv)
		if err != nil {
			return b, nil, err
		}
		return b[len(b)-len(rest):], d, nil
	}
	if rest, ok := keys.DecodeNullAscending(b); ok {
		return rest, nil, nil
	}
	return t.decodeKeyAsc(b)
}

func (t Type) decodeKeyAsc(b []byte) ([]byte, Datum, error) {
	switch t.Kind {
	case KindInt8, KindInt16, KindInt24, KindInt32, KindInt64:
		if t.Unsigned {
			return wrap(keys.DecodeUintAscending(b))
		}
		return wrap(keys.DecodeIntAscending(b))
	case KindYear, KindTime:
		return wrap(keys.DecodeIntAscending(b))
	case KindEnum, KindSet, KindBit:
		return wrap(keys.DecodeUintAscending(b))
	case KindFloat, KindDouble:
		return wrap(keys.DecodeFloatAscending(b))
	case KindDecimal:
		rest, x, err := keys.DecodeDecimalAscending(b)
		if err != nil {
			return b, nil, err
		}
		return rest, rescale(x, t.Scale), nil
	case KindDate:
		return wrap(keys.DecodeDateAscending(b))
	case KindDatetime, KindTimestamp:
		return wrap(keys.DecodeDatetimeAscending(b))
	case KindChar, KindVarchar:
		if t.weigher() != nil {
			return wrap(keys.DecodeWeightsAscending(b))
		}
		if t.padBin() {
			return wrap(keys.DecodeStringPadAscending(b))
		}
		return wrap(keys.DecodeStringAscending(b))
	case KindBinary, KindVarbinary:
		return wrap(keys.DecodeBytesAscending(b))
	}
	return b, nil, t.keyable()
}

func wrap[T any](rest []byte, v T, err error) ([]byte, Datum, error) {
	if err != nil {
		return rest, nil, err
	}
	return rest, v, nil
}

// Append appends the key component of d for this key column (complemented
// for DESC columns) to b. d may be nil (NULL) only for index columns.
// Errors wrap ErrValue or ErrUnsupported and name the table and column.
func (k KeyColumn) Append(b []byte, d Datum) ([]byte, error) {
	c := k.Column()
	if d == nil && !k.nullable {
		return b, fmt.Errorf("%w: table %q column %q: NULL in a key column", ErrValue, k.table.Name, c.Name)
	}
	if k.raw {
		// Raw keys: one component, the string itself (attached.go).
		s, ok := d.(string)
		if !ok || !utf8.ValidString(s) {
			return b, fmt.Errorf("table %q column %q: %w", k.table.Name, c.Name, badDatum(c.Type, d))
		}
		if err := k.table.limits.ValidateKey(c.Name, s); err != nil {
			return b, fmt.Errorf("table %q column %q: %w", k.table.Name, c.Name, err)
		}
		return append(b, s...), nil
	}
	b, err := c.Type.appendKey(b, d, k.Desc)
	if err != nil {
		return b, fmt.Errorf("table %q column %q: %w", k.table.Name, c.Name, err)
	}
	return b, nil
}

// Range returns the range of keys that start with prefix (the encoded
// components before this one) and whose component for this column
// compares op with d in SQL order: OpEq, OpGt, OpGe, OpLt, OpLe (OpNe is
// not a range: ErrInvalidDef). For DESC columns the range is mirrored
// (Gt becomes the keys before the value's component). Both bounds are legal
// keys; a nil bound is unbounded.
func (k KeyColumn) Range(prefix string, op storage.Op, d Datum) (*storage.KeyRange, error) {
	enc, err := k.Append([]byte(prefix), d)
	if err != nil {
		return nil, err
	}
	v := string(enc)
	if k.Desc {
		switch op {
		case storage.OpGt:
			op = storage.OpLt
		case storage.OpGe:
			op = storage.OpLe
		case storage.OpLt:
			op = storage.OpGt
		case storage.OpLe:
			op = storage.OpGe
		}
	}
	all := PrefixRange(prefix)
	r := &storage.KeyRange{}
	if all != nil {
		r.Low, r.High = all.Low, all.High
	}
	switch op {
	case storage.OpEq:
		return PrefixRange(v), nil
	case storage.OpGe:
		r.Low = &storage.Bound{Key: v}
	case storage.OpGt:
		end, ok := keys.PrefixEnd(v)
		if !ok {
			// Cannot happen for a non-empty component; be conservative.
			return nil, fmt.Errorf("%w: no key follows %q", ErrValue, v)
		}
		r.Low = &storage.Bound{Key: end}
	case storage.OpLt:
		r.High = &storage.Bound{Key: v, Exclusive: true}
	case storage.OpLe:
		end, ok := keys.PrefixEnd(v)
		if ok {
			r.High = &storage.Bound{Key: end, Exclusive: true}
		}
	default:
		return nil, fmt.Errorf("%w: %v is not a key range operator", ErrInvalidDef, op)
	}
	return r, nil
}

// PrefixRange returns the range of all keys starting with prefix (nil for
// the empty prefix: everything).
func PrefixRange(prefix string) *storage.KeyRange {
	if prefix == "" {
		return nil
	}
	r := &storage.KeyRange{Low: &storage.Bound{Key: prefix}}
	if end, ok := keys.PrefixEnd(prefix); ok {
		r.High = &storage.Bound{Key: end, Exclusive: true}
	}
	return r
}

// PrefixEnd returns the smallest legal key greater than every key starting
// with prefix, or "" when there is none (prefix empty or all '~'): the
// exclusive upper bound of a prefix scan, for the planner.
func PrefixEnd(prefix string) string {
	end, _ := keys.PrefixEnd(prefix)
	return end
}

// PartitionPrefix encodes the first len(vals) partition-key components.
func (t *Table) PartitionPrefix(vals []Datum) (string, error) {
	return t.encodeComponents(t.partCols, vals, "PartitionKey")
}

// RowPrefix encodes the first len(vals) RowKey components.
func (t *Table) RowPrefix(vals []Datum) (string, error) {
	return t.encodeComponents(t.rowCols, vals, "RowKey")
}

func (t *Table) encodeComponents(cols []KeyColumn, vals []Datum, which string) (string, error) {
	if len(vals) > len(cols) {
		return "", fmt.Errorf("%w: table %q: %d values for %d %s columns", ErrValue, t.Name, len(vals), len(cols), which)
	}
	var b []byte
	limit := t.limits.KeyLimit()
	for i, d := range vals {
		var err error
		if b, err = cols[i].Append(b, d); err != nil {
			return "", err
		}
		if limit > 0 && len(b) > limit {
			return "", fmt.Errorf("key of table %q column %q: %s of %d characters exceeds the store's limit of %d: %w",
				t.Name, cols[i].Column().Name, which, len(b), limit, storage.ErrInvalidKey)
		}
	}
	return string(b), nil
}

// decodeComponents decodes len(cols) components from the start of b and
// appends their values to out.
func (t *Table) decodeComponents(cols []KeyColumn, b []byte, out []Datum) ([]byte, []Datum, error) {
	if len(cols) == 1 && cols[0].raw {
		return nil, append(out, string(b)), nil
	}
	for _, kc := range cols {
		rest, d, err := t.Columns[kc.Index].Type.decodeKey(b, kc.Desc)
		if err != nil {
			return b, out, fmt.Errorf("%w: table %q column %q: %w", ErrValue, t.Name, t.Columns[kc.Index].Name, err)
		}
		out = append(out, d)
		b = rest
	}
	return b, out, nil
}
