package planner

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"github.com/sqlgw/sqlgw/storage"
)

// fakeTable implements Table with a readable, order-preserving, prefix-free
// key encoding, so that golden files show keys a reviewer can check by eye:
//
//	int  n >= 0   'a'+digits-1, then the digits         5 -> a5, 42 -> b42
//	int  n < 0    'T'-digits, then the 9-complemented digits of -n   -5 -> S4
//	string        the text, '!' escaped as "!~", then the terminator "!!"
//	              (characters below '!' are rejected)
//	bytes         lower-case hex, then '!'
//	time          'T' and the UTC time as 20060102150405.000000
//	float         'F' and 16 hex digits of the order-preserving bits
//	decimal       rejected (exercises the planner's fallback)
//
// A Desc column maps every byte b of its encoding to 0x9f-b, which reverses
// the order of prefix-free ASCII encodings.
type fakeTable struct {
	name      string
	cols      []Column
	part, row []KeyColumn
	rowEnd    string   // RowKeyEnd
	always    []string // SelectAlways
	indexes   []Index
}

var _ IndexedTable = (*fakeTable)(nil)

func (t *fakeTable) Indexes() []Index { return t.indexes }

// EncodeIndexKey encodes index columns like key columns; a NULL is " "
// ascending (below the first character of every encoding above) and
// "\x7f" descending (above), as the catalog's '!' and '~' are.
func (t *fakeTable) EncodeIndexKey(ix, first int, vals []Datum) (string, error) {
	kcs := t.indexes[ix].Columns
	if first+len(vals) > len(kcs) {
		return "", fmt.Errorf("fake: %d values from %d for %d index columns", len(vals), first, len(kcs))
	}
	var sb strings.Builder
	for i, v := range vals {
		kc := kcs[first+i]
		if v == nil {
			if kc.Desc {
				sb.WriteString("\x7f")
			} else {
				sb.WriteString(" ")
			}
			continue
		}
		e, err := fakeEncodeKey(t.cols[kc.Col].Kind, v, kc.Desc)
		if err != nil {
			return "", err
		}
		sb.WriteString(e)
	}
	return sb.String(), nil
}

// fakeEncodeKey is fakeEncode of one key column, its bytes inverted when
// the column is descending.
func fakeEncodeKey(kind Kind, v Datum, desc bool) (string, error) {
	e, err := fakeEncode(kind, v)
	if err != nil || !desc {
		return e, err
	}
	b := []byte(e)
	for j := range b {
		b[j] = 0x9f - b[j]
	}
	return string(b), nil
}

func (t *fakeTable) PhysicalName() string             { return t.name }
func (t *fakeTable) Columns() []Column                { return t.cols }
func (t *fakeTable) PartitionKeyColumns() []KeyColumn { return t.part }
func (t *fakeTable) RowKeyColumns() []KeyColumn       { return t.row }

func (t *fakeTable) EncodeKey(part KeyPart, vals []Datum) (string, error) {
	kcs := t.part
	if part == RowKey {
		kcs = t.row
	}
	if len(vals) > len(kcs) {
		return "", fmt.Errorf("fake: %d values for %d %s columns", len(vals), len(kcs), part)
	}
	var sb strings.Builder
	for i, v := range vals {
		e, err := fakeEncodeKey(t.cols[kcs[i].Col].Kind, v, kcs[i].Desc)
		if err != nil {
			return "", err
		}
		sb.WriteString(e)
	}
	return sb.String(), nil
}

// fakeCollation is a Collation for the fake table: case-insensitive keys
// (the lower-cased string's encoding), or, with pad, keys of the string
// without trailing spaces whose order is not the engine's (exact for
// equality, inexact for order), or, with legacy, keys of the whole string
// under a padded comparison (inexact for equality and order).
type fakeCollation struct{ pad, legacy bool }

// fakeComponent is a key component handed back to the fake's EncodeKey.
type fakeComponent string

func (f fakeCollation) norm(s string) string {
	if f.legacy {
		return s
	}
	if f.pad {
		return strings.TrimRight(s, " ")
	}
	return strings.ToLower(s)
}

func (f fakeCollation) Key(s string) (string, bool) {
	e, err := fakeEncode(KindString, f.norm(s))
	return e, err == nil
}

func (f fakeCollation) Prefix(s string) string {
	if i := strings.IndexFunc(s, func(r rune) bool { return r <= ' ' }); i >= 0 {
		s = s[:i]
	}
	e, _ := fakeEncode(KindString, f.norm(s))
	return strings.TrimSuffix(e, "!!")
}

func (f fakeCollation) Exact() bool                  { return !f.pad && !f.legacy }
func (f fakeCollation) EqualExact() bool             { return !f.legacy }
func (f fakeCollation) Datum(component string) Datum { return fakeComponent(component) }

func fakeEncode(k Kind, v Datum) (string, error) {
	if c, ok := v.(fakeComponent); ok && k == KindString {
		return string(c), nil
	}
	switch k {
	case KindInt, KindDuration:
		n, ok := v.(int64)
		if !ok {
			return "", fmt.Errorf("fake: %T for int key", v)
		}
		if n >= 0 {
			s := strconv.FormatInt(n, 10)
			return string(rune('a'+len(s)-1)) + s, nil
		}
		s := strconv.FormatUint(uint64(-(n+1))+1, 10)
		c := []byte(s)
		for i := range c {
			c[i] = '9' - c[i] + '0'
		}
		return string(rune('T'-len(s))) + string(c), nil
	case KindUint, KindEnum, KindSet, KindBit:
		n, ok := v.(uint64)
		if !ok {
			return "", fmt.Errorf("fake: %T for uint key", v)
		}
		s := strconv.FormatUint(n, 10)
		return string(rune('a'+len(s)-1)) + s, nil
	case KindString:
		s, ok := v.(string)
		if !ok {
			return "", fmt.Errorf("fake: %T for string key", v)
		}
		for _, r := range s {
			if r < '!' {
				return "", fmt.Errorf("fake: character %U cannot be in a key", r)
			}
		}
		if len(s) > 100 {
			return "", fmt.Errorf("fake: key too long")
		}
		return strings.ReplaceAll(s, "!", "!~") + "!!", nil
	case KindBytes:
		b, ok := v.([]byte)
		if !ok {
			return "", fmt.Errorf("fake: %T for bytes key", v)
		}
		return fmt.Sprintf("%x!", b), nil
	case KindTime, KindDate:
		tm, ok := v.(time.Time)
		if !ok {
			return "", fmt.Errorf("fake: %T for time key", v)
		}
		return "T" + tm.UTC().Format("20060102150405.000000"), nil
	case KindFloat:
		f, ok := v.(float64)
		if !ok {
			return "", fmt.Errorf("fake: %T for float key", v)
		}
		if f == 0 {
			f = 0 // -0 sorts with 0
		}
		bits := math.Float64bits(f)
		if f < 0 {
			bits = ^bits
		} else {
			bits |= 1 << 63
		}
		return fmt.Sprintf("F%016x", bits), nil
	}
	return "", fmt.Errorf("fake: %v cannot be a key", k)
}

func (t *fakeTable) RowKeyEnd() string      { return t.rowEnd }
func (t *fakeTable) SelectAlways() []string { return t.always }

func (t *fakeTable) PrefixEnd(prefix string) string {
	b := []byte(prefix)
	for len(b) > 0 && b[len(b)-1] >= '~' {
		b = b[:len(b)-1]
	}
	if len(b) == 0 {
		return ""
	}
	b[len(b)-1]++
	return string(b)
}

func (t *fakeTable) PropertyValue(col int, d Datum) (storage.Value, error) {
	switch v := d.(type) {
	case int64:
		return storage.Int64(v), nil
	case uint64:
		if v > math.MaxInt64 {
			return storage.Value{}, fmt.Errorf("fake: uint64 %d does not fit Int64", v)
		}
		return storage.Int64(int64(v)), nil
	case float64:
		return storage.Double(v), nil
	case string:
		return storage.String(v), nil
	case []byte:
		return storage.Binary(v), nil
	case time.Time:
		return storage.DateTime(v), nil
	case decimal.Decimal:
		return storage.String(v.String()), nil
	}
	return storage.Value{}, fmt.Errorf("fake: %T has no property value", d)
}
