package aztables

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sqlgw/sqlgw/storage"
)

// dateTimeFormat is the service's Edm.DateTime text: UTC, 7 fractional digits.
const dateTimeFormat = "2006-01-02T15:04:05.0000000Z"

// encodeEntity renders e as the JSON body of a write: a map with an
// explicit "@odata.type" for every non-String, non-Boolean property (so a
// whole Double stays Double and an Int64 is exact). The SDK re-decodes this
// body into map[string]any and re-encodes it; every value here survives
// that: strings, booleans and int32s trivially, Int64s because they are
// strings, Doubles because float64 -> JSON -> float64 is exact in Go.
// An empty PartitionKey is sent as the emptyPK placeholder (capture.go).
func encodeEntity(e *storage.Entity) (body []byte, emptyKey bool, err error) {
	m := make(map[string]any, 2+2*len(e.Properties))
	pk := e.PartitionKey
	if pk == "" {
		pk, emptyKey = emptyPK, true
	}
	m["PartitionKey"] = pk
	m["RowKey"] = e.RowKey
	for name, v := range e.Properties {
		var val any
		var typ string
		switch v.Type() {
		case storage.TypeString:
			val = v.Str()
		case storage.TypeBoolean:
			val = v.BoolValue()
		case storage.TypeInt32:
			val, typ = int32(v.Int()), "Edm.Int32"
		case storage.TypeInt64:
			val, typ = strconv.FormatInt(v.Int(), 10), "Edm.Int64"
		case storage.TypeDouble:
			f := v.Float()
			switch {
			case math.IsNaN(f):
				val = "NaN"
			case math.IsInf(f, 1):
				val = "Infinity"
			case math.IsInf(f, -1):
				val = "-Infinity"
			default:
				val = f
			}
			typ = "Edm.Double"
		case storage.TypeDateTime:
			val, typ = v.Time().Format(dateTimeFormat), "Edm.DateTime"
		case storage.TypeBinary:
			val, typ = base64.StdEncoding.EncodeToString(v.Bytes()), "Edm.Binary"
		case storage.TypeGUID:
			val, typ = storage.FormatGUID(v.GUIDValue()), "Edm.Guid"
		default:
			return nil, false, fmt.Errorf("%w: property %q has no value", storage.ErrInvalid, name)
		}
		m[name] = val
		if typ != "" {
			m[name+"@odata.type"] = typ
		}
	}
	body, err = json.Marshal(m)
	if err != nil {
		return nil, false, fmt.Errorf("%w: encoding entity: %v", storage.ErrInvalid, err)
	}
	return body, emptyKey, nil
}

// decodeQuery decodes a Query Entities response body: {"value":[...]},
// with the fast decoder (fastjson.go) unless it gives up.
func decodeQuery(body []byte, sel map[string]struct{}) ([]*storage.Entity, error) {
	if ents, ok, err := fastQuery(body, sel); ok {
		return ents, err
	}
	return decodeQuerySlow(body, sel)
}

// decodeQuerySlow is decodeQuery through encoding/json.
func decodeQuerySlow(body []byte, sel map[string]struct{}) ([]*storage.Entity, error) {
	var r struct {
		Value []map[string]json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("aztables: malformed query response: %w", err)
	}
	out := make([]*storage.Entity, len(r.Value))
	for i, m := range r.Value {
		e, err := entityFromMap(m, sel)
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, nil
}

// decodeEntity decodes one entity of a JSON response (minimal metadata),
// with the fast decoder (fastjson.go) unless it gives up.
func decodeEntity(raw []byte, sel map[string]struct{}) (*storage.Entity, error) {
	if e, ok, err := fastEntity(raw, sel); ok {
		return e, err
	}
	return decodeEntitySlow(raw, sel)
}

// decodeEntitySlow is decodeEntity through encoding/json.
func decodeEntitySlow(raw []byte, sel map[string]struct{}) (*storage.Entity, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("aztables: malformed entity: %w", err)
	}
	return entityFromMap(m, sel)
}

// setKeyProperty sets e's PartitionKey, RowKey or Timestamp (name) from
// the property's JSON value v.
func setKeyProperty(e *storage.Entity, name string, v json.RawMessage) error {
	s, err := unquote(v)
	if err != nil {
		return fmt.Errorf("aztables: malformed %s: %w", name, err)
	}
	switch name {
	case storage.PropPartitionKey:
		e.PartitionKey = s
	case storage.PropRowKey:
		e.RowKey = s
	default:
		if e.Timestamp, err = parseDateTime(s); err != nil {
			return err
		}
	}
	return nil
}

// unquote returns the text of a JSON string; most need no unescaping, and
// most others only the two-character escapes (every ETag the service
// sends, W/\"datetime'...'\", has \"): those are unescaped here, \u
// escapes, control characters and invalid UTF-8 by encoding/json.
func unquote(v json.RawMessage) (string, error) {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		in := v[1 : len(v)-1]
		if bytes.IndexByte(in, '\\') < 0 {
			return string(in), nil
		}
		if s, ok := unescapeSimple(in); ok {
			return s, nil
		}
	}
	var s string
	err := json.Unmarshal(v, &s)
	return s, err
}

// unescapeSimple unescapes the inside of a JSON string whose escapes are
// all two-character ones (\" \\ \/ \b \f \n \r \t); false for anything
// else (\u, a control character, invalid UTF-8), which encoding/json
// decodes or rejects.
func unescapeSimple(in []byte) (string, bool) {
	if !utf8.Valid(in) {
		return "", false
	}
	var out strings.Builder
	out.Grow(len(in))
	for i := 0; i < len(in); i++ {
		c := in[i]
		if c < 0x20 {
			return "", false
		}
		if c != '\\' {
			out.WriteByte(c)
			continue
		}
		if i++; i == len(in) {
			return "", false
		}
		switch in[i] {
		case '"', '\\', '/':
			out.WriteByte(in[i])
		case 'b':
			out.WriteByte('\b')
		case 'f':
			out.WriteByte('\f')
		case 'n':
			out.WriteByte('\n')
		case 'r':
			out.WriteByte('\r')
		case 't':
			out.WriteByte('\t')
		default:
			return "", false
		}
	}
	return out.String(), true
}

// entityFromMap builds an entity from its JSON members. The raw members
// keep each number's text, which tells a whole Double (3.0) from an Int32.
// Types come from "name@odata.type" annotations; without one, a JSON
// string is a String, true/false a Boolean, and a number an Int32 unless
// it is written with a fraction or exponent (the service writes a whole
// Double as 3.0) or lies outside the Int32 range, when it is a Double.
// Null values (selected properties the entity lacks) are absent. sel, if
// non-nil, keeps only those user properties.
func entityFromMap(m map[string]json.RawMessage, sel map[string]struct{}) (*storage.Entity, error) {
	e := &storage.Entity{Properties: make(storage.Properties, len(m)/2)}
	for name, v := range m {
		if strings.IndexByte(name, '@') >= 0 || strings.HasPrefix(name, "odata.") {
			if name == "odata.etag" {
				s, err := unquote(v)
				if err != nil {
					return nil, fmt.Errorf("aztables: malformed odata.etag: %w", err)
				}
				e.ETag = storage.ETag(s)
			}
			continue
		}
		switch name {
		case storage.PropPartitionKey, storage.PropRowKey, storage.PropTimestamp:
			if err := setKeyProperty(e, name, v); err != nil {
				return nil, err
			}
			continue
		}
		if sel != nil {
			if _, ok := sel[name]; !ok {
				continue
			}
		}
		var typ string
		if t, ok := m[name+"@odata.type"]; ok {
			typ, _ = unquote(t)
		}
		val, ok, err := decodeValue(name, v, typ)
		if err != nil {
			return nil, err
		}
		if ok {
			e.Properties[name] = val
		}
	}
	return e, nil
}

func decodeValue(name string, v json.RawMessage, typ string) (storage.Value, bool, error) {
	bad := func(err error) (storage.Value, bool, error) {
		return storage.Value{}, false, fmt.Errorf("aztables: property %q (%s): %v", name, typ, err)
	}
	if len(v) == 0 || string(v) == "null" {
		return storage.Value{}, false, nil
	}
	var s string
	isString := v[0] == '"'
	if isString {
		var err error
		if s, err = unquote(v); err != nil {
			return bad(err)
		}
	}
	switch typ {
	case "", "Edm.String", "Edm.Boolean", "Edm.Int32", "Edm.Double":
		switch {
		case isString && (typ == "" || typ == "Edm.String"):
			return storage.String(s), true, nil
		case string(v) == "true":
			return storage.Bool(true), true, nil
		case string(v) == "false":
			return storage.Bool(false), true, nil
		case isString: // Double as "NaN", "Infinity", "-Infinity", or a number in a string
			f, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return bad(err)
			}
			if typ == "Edm.Int32" {
				return storage.Int32(int32(f)), true, nil
			}
			return storage.Double(f), true, nil
		}
		num := string(v)
		if typ != "Edm.Double" && !strings.ContainsAny(num, ".eE") {
			if i, err := strconv.ParseInt(num, 10, 32); err == nil {
				return storage.Int32(int32(i)), true, nil
			}
		}
		f, err := strconv.ParseFloat(num, 64)
		if err != nil {
			return bad(err)
		}
		return storage.Double(f), true, nil
	case "Edm.Int64":
		if !isString {
			s = string(v)
		}
		i, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return bad(err)
		}
		return storage.Int64(i), true, nil
	case "Edm.DateTime":
		t, err := parseDateTime(s)
		if err != nil {
			return bad(err)
		}
		return storage.DateTime(t), true, nil
	case "Edm.Binary":
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return bad(err)
		}
		return storage.Binary(b), true, nil
	case "Edm.Guid":
		g, err := storage.ParseGUID(strings.ToLower(s))
		if err != nil {
			return bad(err)
		}
		return storage.GUID(g), true, nil
	}
	return bad(fmt.Errorf("unknown type"))
}

// parseDateTime parses the service's DateTime text (RFC 3339, up to 7
// fractional digits, UTC).
func parseDateTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("aztables: malformed DateTime %q: %w", s, err)
	}
	return t.UTC(), nil
}
