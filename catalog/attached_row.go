package catalog

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sqlgw/sqlgw/catalog/keys"
	"github.com/sqlgw/sqlgw/storage"
)

// Row mapping of attached tables: see "Attached tables" in attached.go.

func isErr(err, target error) bool { return errors.Is(err, target) }

// odataType is the annotation suffix of the Table service's JSON format.
const odataType = "@odata.type"

// maxExactDouble bounds the integers a float64 holds exactly.
const maxExactDouble = 1 << 53

// edmTimeLayout renders DateTime values as the Table service does (7
// fraction digits, UTC).
const edmTimeLayout = "2006-01-02T15:04:05.0000000Z"

// edmText renders a property value as text (a String column holding a
// value of another type, and the JSON column).
func edmText(v storage.Value) string {
	switch v.Type() {
	case storage.TypeString:
		return v.Str()
	case storage.TypeInt32, storage.TypeInt64:
		return strconv.FormatInt(v.Int(), 10)
	case storage.TypeDouble:
		f := v.Float()
		switch {
		case math.IsNaN(f):
			return "NaN"
		case math.IsInf(f, 1):
			return "Infinity"
		case math.IsInf(f, -1):
			return "-Infinity"
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	case storage.TypeBoolean:
		return strconv.FormatBool(v.BoolValue())
	case storage.TypeDateTime:
		return v.Time().Format(edmTimeLayout)
	case storage.TypeGUID:
		return formatGUID(v.GUIDValue())
	case storage.TypeBinary:
		return base64.StdEncoding.EncodeToString(v.Bytes())
	}
	return ""
}

func formatGUID(g [16]byte) string {
	const hexd = "0123456789abcdef"
	var b strings.Builder
	for i, c := range g {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b.WriteByte('-')
		}
		b.WriteByte(hexd[c>>4])
		b.WriteByte(hexd[c&15])
	}
	return b.String()
}

// parseGUID parses the canonical text of a GUID (either case).
func parseGUID(s string) ([16]byte, bool) {
	var g [16]byte
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return g, false
	}
	h := strings.ReplaceAll(s, "-", "")
	for i := 0; i < 16; i++ {
		hi, ok1 := unhex(h[2*i])
		lo, ok2 := unhex(h[2*i+1])
		if !ok1 || !ok2 {
			return g, false
		}
		g[i] = hi<<4 | lo
	}
	return g, true
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// parseEdmText is edmText's inverse for type typ.
func parseEdmText(s string, typ storage.Type) (storage.Value, bool) {
	switch typ {
	case storage.TypeString:
		return storage.String(s), true
	case storage.TypeInt32:
		i, err := strconv.ParseInt(s, 10, 32)
		return storage.Int32(int32(i)), err == nil
	case storage.TypeInt64:
		i, err := strconv.ParseInt(s, 10, 64)
		return storage.Int64(i), err == nil
	case storage.TypeDouble:
		switch s {
		case "NaN":
			return storage.Double(math.NaN()), true
		case "Infinity", "INF":
			return storage.Double(math.Inf(1)), true
		case "-Infinity", "-INF":
			return storage.Double(math.Inf(-1)), true
		}
		f, err := strconv.ParseFloat(s, 64)
		return storage.Double(f), err == nil && !math.IsInf(f, 0)
	case storage.TypeBoolean:
		b, err := strconv.ParseBool(s)
		return storage.Bool(b), err == nil
	case storage.TypeDateTime:
		t, err := time.Parse(time.RFC3339Nano, s)
		return storage.DateTime(t), err == nil
	case storage.TypeGUID:
		g, ok := parseGUID(s)
		return storage.GUID(g), ok
	case storage.TypeBinary:
		b, err := base64.StdEncoding.DecodeString(s)
		return storage.Binary(b), err == nil
	}
	return storage.Value{}, false
}

// attachedDatum converts a stored property value to the Datum of an
// attached column; ok is false when the value does not fit the column (it
// is then shown in the JSON column instead).
func attachedDatum(c *Column, v storage.Value) (Datum, bool) {
	switch c.Edm {
	case storage.TypeInt32:
		if v.Type() == storage.TypeInt32 {
			return v.Int(), true
		}
	case storage.TypeInt64:
		if v.Type() == storage.TypeInt32 || v.Type() == storage.TypeInt64 {
			return v.Int(), true
		}
	case storage.TypeDouble:
		switch v.Type() {
		case storage.TypeDouble:
			if f := v.Float(); !math.IsNaN(f) && !math.IsInf(f, 0) {
				return f, true
			}
		case storage.TypeInt32:
			return float64(v.Int()), true
		case storage.TypeInt64:
			if i := v.Int(); i >= -maxExactDouble && i <= maxExactDouble {
				return float64(i), true
			}
		}
	case storage.TypeBoolean:
		if v.Type() == storage.TypeBoolean {
			return v.Int(), true
		}
	case storage.TypeDateTime:
		if v.Type() == storage.TypeDateTime {
			return v.Time(), true
		}
	case storage.TypeGUID:
		if v.Type() == storage.TypeGUID {
			return formatGUID(v.GUIDValue()), true
		}
	case storage.TypeBinary:
		if v.Type() == storage.TypeBinary && (c.Type.Kind != KindVarbinary || len(v.Bytes()) <= c.Type.Length) {
			return v.Bytes(), true
		}
	case storage.TypeString:
		s := edmText(v)
		if c.Type.Kind == KindVarchar && utf8.RuneCountInString(s) > c.Type.Length {
			return nil, false // a column pinned to VARCHAR(n) (pinnedColumnType)
		}
		return s, true
	}
	return nil, false
}

// attachedValue converts a column's Datum to a property value of EDM type
// typ (the column's, or the one an annotation keeps for this entity).
func attachedValue(c *Column, d Datum, typ storage.Type) (storage.Value, error) {
	bad := func() (storage.Value, error) {
		return storage.Value{}, fmt.Errorf("%w: column %q: %v does not fit its property type %s", ErrValue, c.Name, d, typ)
	}
	switch x := d.(type) {
	case int64:
		switch typ {
		case storage.TypeInt32:
			if x >= math.MinInt32 && x <= math.MaxInt32 {
				return storage.Int32(int32(x)), nil
			}
		case storage.TypeInt64:
			return storage.Int64(x), nil
		case storage.TypeDouble:
			if x >= -maxExactDouble && x <= maxExactDouble {
				return storage.Double(float64(x)), nil
			}
		case storage.TypeBoolean:
			if x == 0 || x == 1 {
				return storage.Bool(x == 1), nil
			}
		case storage.TypeString:
			return storage.String(strconv.FormatInt(x, 10)), nil
		}
	case uint64:
		if x <= math.MaxInt64 {
			return attachedValue(c, int64(x), typ)
		}
	case float64:
		switch typ {
		case storage.TypeDouble:
			return storage.Double(x), nil
		case storage.TypeInt32, storage.TypeInt64:
			if x == math.Trunc(x) && math.Abs(x) <= maxExactDouble {
				return attachedValue(c, int64(x), typ)
			}
		case storage.TypeString:
			return storage.String(edmText(storage.Double(x))), nil
		}
	case time.Time:
		if keys.IsZeroDate(x) {
			// Edm.DateTime holds 1601-01-01..9999-12-31, and other
			// applications read the property as a DateTime: the zero date
			// has no faithful value in an attached table.
			return storage.Value{}, fmt.Errorf("%w: column %q: the zero date '0000-00-00' has no Table service DateTime value (1601-01-01..9999-12-31)", ErrValue, c.Name)
		}
		switch typ {
		case storage.TypeDateTime:
			return storage.DateTime(x), nil
		case storage.TypeString:
			return storage.String(x.UTC().Format(edmTimeLayout)), nil
		}
	case []byte:
		switch typ {
		case storage.TypeBinary:
			return storage.Binary(x), nil
		case storage.TypeString:
			if utf8.Valid(x) {
				return storage.String(string(x)), nil
			}
		}
	case string:
		if typ == storage.TypeGUID && c.Role == RoleProperty && c.Edm == storage.TypeGUID {
			if g, ok := parseGUID(x); ok {
				return storage.GUID(g), nil
			}
			return bad()
		}
		if v, ok := parseEdmText(x, typ); ok {
			return v, nil
		}
	}
	return bad()
}

// extrasJSON renders properties (outside the columns) and type
// annotations of column properties as the JSON column's object, keys in
// order; nil when there are none.
func extrasJSON(props storage.Properties, ann map[string]storage.Type) (Datum, error) {
	if len(props) == 0 && len(ann) == 0 {
		return nil, nil
	}
	type kv struct {
		k string
		v any
	}
	var out []kv
	for n, v := range props {
		switch v.Type() {
		case storage.TypeString:
			out = append(out, kv{n, v.Str()})
		case storage.TypeInt32:
			out = append(out, kv{n, v.Int()})
		case storage.TypeBoolean:
			out = append(out, kv{n, v.BoolValue()})
		case storage.TypeDouble:
			f := v.Float()
			if math.IsNaN(f) || math.IsInf(f, 0) {
				out = append(out, kv{n, edmText(v)})
			} else {
				out = append(out, kv{n, json.Number(strconv.FormatFloat(f, 'g', -1, 64))})
			}
			out = append(out, kv{n + odataType, v.Type().String()})
		default:
			out = append(out, kv{n, edmText(v)}, kv{n + odataType, v.Type().String()})
		}
	}
	for n, t := range ann {
		out = append(out, kv{n + odataType, t.String()})
	}
	slices.SortFunc(out, func(a, b kv) int { return strings.Compare(a.k, b.k) })
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, e := range out {
		if i > 0 {
			buf.WriteString(", ")
		}
		k, _ := json.Marshal(e.k)
		v, err := json.Marshal(e.v)
		if err != nil {
			return nil, fmt.Errorf("%w: property %q: %v", ErrValue, e.k, err)
		}
		buf.Write(k)
		buf.WriteString(": ")
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.String(), nil
}

// edmTypeByName parses an annotation's type name ("Edm.Int64").
func edmTypeByName(s string) (storage.Type, bool) {
	for t := storage.TypeString; t <= storage.TypeGUID; t++ {
		if t.String() == s {
			return t, true
		}
	}
	return 0, false
}

// parseExtras parses the JSON column of a row being written: the
// properties it sets and the type annotations it carries for column
// properties (keys of columns' properties are in colProps).
func parseExtras(c *Column, text string, colProps map[string]bool) (storage.Properties, map[string]storage.Type, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: column %q: %s", ErrValue, c.Name, fmt.Sprintf(format, args...))
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, nil, bad("must be a JSON object of property names and values: %v", err)
	}
	types := map[string]storage.Type{}
	for k, v := range obj {
		if n, ok := strings.CutSuffix(k, odataType); ok {
			s, isStr := v.(string)
			t, known := edmTypeByName(s)
			if !isStr || !known {
				return nil, nil, bad("%s must name an EDM type (Edm.String, Edm.Int32, Edm.Int64, Edm.Double, Edm.Boolean, Edm.DateTime, Edm.Guid, Edm.Binary)", k)
			}
			types[n] = t
		}
	}
	props := storage.Properties{}
	ann := map[string]storage.Type{}
	for k, v := range obj {
		if strings.HasSuffix(k, odataType) {
			continue
		}
		if reservedFold(k) {
			return nil, nil, bad("%s is a system property, not a property of the JSON column", k)
		}
		if err := storage.ValidatePropertyName(k); err != nil {
			return nil, nil, bad("%q is not a valid property name", k)
		}
		t, typed := types[k]
		var val storage.Value
		switch x := v.(type) {
		case nil:
			continue // null: no property
		case string:
			if !typed {
				t = storage.TypeString
			}
			var ok bool
			if val, ok = parseEdmText(x, t); !ok {
				return nil, nil, bad("%s: %q is not an %s value", k, x, t)
			}
		case bool:
			if typed && t != storage.TypeBoolean {
				return nil, nil, bad("%s: a boolean is not an %s value", k, t)
			}
			val = storage.Bool(x)
		case json.Number:
			s := x.String()
			if !typed {
				if i, err := strconv.ParseInt(s, 10, 64); err == nil {
					t = storage.TypeInt64
					if i >= math.MinInt32 && i <= math.MaxInt32 {
						t = storage.TypeInt32
					}
				} else {
					t = storage.TypeDouble
				}
			}
			var ok bool
			if val, ok = parseEdmText(s, t); !ok || t == storage.TypeString || t == storage.TypeBinary || t == storage.TypeGUID || t == storage.TypeDateTime {
				return nil, nil, bad("%s: %s is not an %s value", k, s, t)
			}
		default:
			return nil, nil, bad("%s: nested objects and arrays are not entity property values", k)
		}
		props[k] = val
	}
	for n, t := range types {
		if _, ok := obj[n]; ok {
			continue
		}
		if !colProps[n] {
			return nil, nil, bad("%s%s annotates no property", n, odataType)
		}
		ann[n] = t
	}
	return props, ann, nil
}

// encodeAttached maps a row of an attached table to its one entity.
func (t *Table) encodeAttached(pk, rk string, row []Datum) ([]*storage.Entity, error) {
	if len(row) != len(t.Columns) {
		return nil, fmt.Errorf("%w: table %q: row of %d values for %d columns", ErrValue, t.Name, len(row), len(t.Columns))
	}
	e := &storage.Entity{PartitionKey: pk, RowKey: rk, Properties: storage.Properties{}}
	colProps := map[string]bool{}
	for i := range t.Columns {
		if t.Columns[i].Role == RoleProperty {
			colProps[t.Columns[i].Property] = true
		}
	}
	var ann map[string]storage.Type
	for i := range t.Columns {
		c := &t.Columns[i]
		if c.Role != RoleExtras || row[i] == nil {
			continue
		}
		s, ok := row[i].(string)
		if !ok {
			return nil, badDatum(c.Type, row[i])
		}
		props, a, err := parseExtras(c, s, colProps)
		if err != nil {
			return nil, fmt.Errorf("table %q: %w", t.Name, err)
		}
		for k, v := range props {
			e.Properties[k] = v
		}
		ann = a
	}
	for i := range t.Columns {
		c := &t.Columns[i]
		if c.Role != RoleProperty || row[i] == nil {
			continue
		}
		// A column's property in the JSON column is a value that did not
		// fit the column: it is written as it is while the column is NULL.
		if _, dup := e.Properties[c.Property]; dup {
			return nil, fmt.Errorf("%w: table %q: property %s is set both in column %q and in the JSON column (remove it from one of them)", ErrValue, t.Name, c.Property, c.Name)
		}
		if typ, ok := ann[c.Property]; ok && typ != c.Edm {
			if v, err := attachedValue(c, row[i], typ); err == nil {
				e.Properties[c.Property] = v
				continue
			}
		}
		v, err := attachedValue(c, row[i], c.Edm)
		if err != nil {
			return nil, fmt.Errorf("table %q: %w", t.Name, err)
		}
		e.Properties[c.Property] = v
	}
	if et := t.entityType(); et != nil {
		// Rows of a typed table carry its discriminator.
		if et.Prop != "" {
			if _, set := e.Properties[et.Prop]; set {
				return nil, fmt.Errorf("%w: table %q: property %s is the entity type's (%s), set by sqlgw", ErrValue, t.Name, et.Prop, et.Name())
			}
			e.Properties[et.Prop] = et.Value
		} else if !strings.HasPrefix(rk, et.RowKeyPrefix) {
			return nil, fmt.Errorf("%w: table %q: RowKey %q does not start with %q, its entity type's prefix", ErrValue, t.Name, rk, et.RowKeyPrefix)
		}
	}
	if err := t.limits.ValidateEntity(e); err != nil {
		return nil, fmt.Errorf("table %q (attached: one entity per row): %w", t.Name, err)
	}
	return []*storage.Entity{e}, nil
}

// decodeAttached maps an attached table's entity to its row.
func (t *Table) decodeAttached(e *storage.Entity) ([]Datum, error) {
	row := make([]Datum, len(t.Columns))
	seen := make(map[string]bool, len(t.Columns))
	var ann map[string]storage.Type
	extras := -1
	for i := range t.Columns {
		c := &t.Columns[i]
		switch c.Role {
		case RolePartitionKey:
			row[i] = e.PartitionKey
		case RoleRowKey:
			row[i] = e.RowKey
		case RoleTimestamp:
			if !e.Timestamp.IsZero() {
				row[i] = e.Timestamp.UTC()
			}
		case RoleExtras:
			extras = i
		case RoleProperty:
			v, ok := e.Properties[c.Property]
			if !ok {
				continue
			}
			d, fits := attachedDatum(c, v)
			if !fits {
				continue // shown in the JSON column
			}
			seen[c.Property] = true
			row[i] = d
			if v.Type() != c.Edm {
				if ann == nil {
					ann = map[string]storage.Type{}
				}
				ann[c.Property] = v.Type()
			}
		}
	}
	if extras >= 0 {
		var rest storage.Properties
		et := t.entityType()
		for n, v := range e.Properties {
			if et != nil && n == et.Prop {
				continue // the type's discriminator
			}
			if !seen[n] {
				if rest == nil {
					rest = storage.Properties{}
				}
				rest[n] = v
			}
		}
		d, err := extrasJSON(rest, ann)
		if err != nil {
			return nil, fmt.Errorf("table %q: %w", t.Name, err)
		}
		row[extras] = d
	}
	return row, nil
}

// selectAttached is Select for an attached table.
func (t *Table) selectAttached(cols []int) []string {
	out := []string{}
	for _, i := range cols {
		if i < 0 || i >= len(t.Columns) {
			continue
		}
		switch t.Columns[i].Role {
		case RoleExtras:
			return nil
		case RoleProperty:
			out = append(out, t.Columns[i].Property)
		}
	}
	return out
}

// attachedPushdown is Pushdown for an attached table's column: the store
// compares values of the column's EDM type exactly as SQL does, except
// strings (ordered by UTF-16 unit: equality only) and Mixed columns.
func (c *Column) attachedPushdown(op storage.Op) bool {
	eqOnly := op == storage.OpEq || op == storage.OpNe
	ordered := op >= storage.OpEq && op <= storage.OpLe
	switch c.Role {
	case RolePartitionKey, RoleRowKey:
		return eqOnly
	case RoleTimestamp:
		return ordered
	case RoleExtras:
		return false
	}
	if c.Mixed || c.Type.Kind == KindVarchar || c.Type.Kind == KindVarbinary {
		// A column pinned to VARCHAR(n) or VARBINARY(n) is NULL for the
		// longer values the store still compares (pinnedColumnType).
		return false
	}
	switch c.Edm {
	case storage.TypeInt32, storage.TypeInt64, storage.TypeDouble, storage.TypeDateTime:
		return ordered
	case storage.TypeBoolean, storage.TypeGUID, storage.TypeBinary, storage.TypeString:
		return eqOnly
	}
	return false
}

// attachedLiteral is Literal for an attached table's column.
func (c *Column) attachedLiteral(d Datum) (storage.Value, error) {
	switch c.Role {
	case RolePartitionKey, RoleRowKey:
		s, ok := d.(string)
		if !ok {
			return storage.Value{}, badDatum(c.Type, d)
		}
		return storage.String(s), nil
	case RoleTimestamp:
		tm, ok := d.(time.Time)
		if !ok {
			return storage.Value{}, badDatum(c.Type, d)
		}
		return storage.DateTime(tm), nil
	case RoleExtras:
		return storage.Value{}, fmt.Errorf("%w: column %q: JSON values are not compared by the store", ErrUnsupported, c.Name)
	}
	if c.Edm == storage.TypeGUID {
		// Only the canonical lowercase text equals a stored GUID in SQL.
		if s, ok := d.(string); !ok || strings.ToLower(s) != s {
			return storage.Value{}, fmt.Errorf("%w: column %q: not a canonical GUID", ErrValue, c.Name)
		}
	}
	if tm, ok := d.(time.Time); ok && tm.Nanosecond()%100 != 0 {
		return storage.Value{}, fmt.Errorf("%w: column %q: below the store's 100 ns", ErrValue, c.Name)
	}
	return attachedValue(c, d, c.Edm)
}
