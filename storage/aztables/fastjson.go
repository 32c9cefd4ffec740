package aztables

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/sqlgw/sqlgw/storage"
)

// A decoder for the Table service's JSON responses (minimal metadata),
// straight from the bytes into storage.Entity: no map[string]json.RawMessage
// per entity, no validation pass of encoding/json over the whole body. An
// entity is a flat object whose members are strings, numbers, booleans and
// nulls; a query response is an object whose "value" member is an array of
// such entities, its other members scalars. Anything else (a nested value,
// an escaped member name, bytes that are not valid UTF-8, malformed JSON)
// makes
// the fast decoder give up, and the body is decoded by encoding/json as
// before (decodeEntity, decodeQuery), so the result is the same for every
// body: TestFastDecoderAgrees compares both on each kind of value.
// String values are unescaped by encoding/json only when they hold a
// backslash (unquote).

// member is one name/value pair of an entity object: the value's raw
// JSON text (quotes included for a string).
type member struct {
	name []byte // unescaped (names with escapes are left to encoding/json)
	raw  []byte
}

// names interns the property names of a page's entities, which repeat
// in every entity: one string each per page (nil: a string per name).
type names map[string]string

func (n names) get(b []byte) string {
	if n == nil {
		return string(b)
	}
	if s, ok := n[string(b)]; ok {
		return s
	}
	s := string(b)
	n[s] = s
	return s
}

type scanner struct {
	b   []byte
	i   int
	bad bool
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// next consumes c after optional whitespace.
func (s *scanner) next(c byte) bool {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// str scans a JSON string and returns its raw text, quotes included. It
// checks what a string must be (no control characters, valid escapes, valid
// UTF-8) so that a body encoding/json would refuse is refused here too.
func (s *scanner) str() []byte {
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		s.bad = true
		return nil
	}
	start := s.i
	s.i++
	ascii := true
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			raw := s.b[start:s.i]
			if !ascii && !utf8.Valid(raw) {
				s.bad = true
				return nil
			}
			return raw
		case c == '\\':
			if s.i+1 >= len(s.b) {
				s.bad = true
				return nil
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.b) || !isHex4(s.b[s.i+2:s.i+6]) {
					s.bad = true
					return nil
				}
				s.i += 6
			default:
				s.bad = true
				return nil
			}
		case c < 0x20:
			s.bad = true
			return nil
		default:
			if c >= utf8.RuneSelf {
				ascii = false
			}
			s.i++
		}
	}
	s.bad = true
	return nil
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// scalar scans a member's value: a string, number, true, false or null.
func (s *scanner) scalar() []byte {
	s.ws()
	if s.i >= len(s.b) {
		s.bad = true
		return nil
	}
	switch c := s.b[s.i]; {
	case c == '"':
		return s.str()
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if len(s.b)-s.i >= len(lit) && string(s.b[s.i:s.i+len(lit)]) == lit {
				s.i += len(lit)
				return s.b[s.i-len(lit) : s.i]
			}
		}
	case c == '-' || '0' <= c && c <= '9':
		start := s.i
		if n := numberLen(s.b[s.i:]); n > 0 {
			s.i += n
			return s.b[start:s.i]
		}
	}
	s.bad = true
	return nil
}

// numberLen returns the length of the JSON number at the start of b (0:
// none), by the JSON grammar.
func numberLen(b []byte) int {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case digits() == 0:
		return 0
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return 0
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return 0
		}
	}
	return i
}

// object scans a flat object into members (reusing buf).
func (s *scanner) object(buf []member) []member {
	buf = buf[:0]
	if !s.next('{') {
		s.bad = true
		return buf
	}
	if s.next('}') {
		return buf
	}
	for !s.bad {
		name := s.str()
		if s.bad || !s.next(':') {
			s.bad = true
			return buf
		}
		v := s.scalar()
		if s.bad {
			return buf
		}
		n, ok := unquoteFast(name)
		if !ok {
			s.bad = true
			return buf
		}
		buf = append(buf, member{name: n, raw: v})
		if s.next(',') {
			continue
		}
		if !s.next('}') {
			s.bad = true
		}
		return buf
	}
	return buf
}

// unquoteFast returns the text of a raw JSON string without escapes.
func unquoteFast(raw []byte) ([]byte, bool) {
	for _, c := range raw[1 : len(raw)-1] {
		if c == '\\' {
			return nil, false
		}
	}
	return raw[1 : len(raw)-1], true
}

const typeSuffix = "@odata.type"

// typeOf returns the text of the "name@odata.type" annotation among ms
// (the last one, as encoding/json's map keeps).
func typeOf(ms []member, name []byte) string {
	for j := len(ms) - 1; j >= 0; j-- {
		if a := ms[j].name; len(a) == len(name)+len(typeSuffix) && string(a[len(name):]) == typeSuffix && bytes.Equal(a[:len(name)], name) {
			t, _ := unquote(ms[j].raw)
			return t
		}
	}
	return ""
}

// entityFromMembers is entityFromMap over scanned members, with the same
// rules. A name that repeats keeps its last value, as encoding/json's map
// does (the earlier ones are never decoded): the members are read from
// the last.
func entityFromMembers(ms []member, sel map[string]struct{}, nm names) (*storage.Entity, error) {
	e := &storage.Entity{Properties: make(storage.Properties, len(ms)/2)}
	var haveETag, havePK, haveRK, haveTS bool
	var nulls map[string]bool // properties whose last value is null
	for i := len(ms) - 1; i >= 0; i-- {
		bname, v := ms[i].name, ms[i].raw
		if bytes.IndexByte(bname, '@') >= 0 || bytes.HasPrefix(bname, []byte("odata.")) {
			if string(bname) == "odata.etag" && !haveETag {
				haveETag = true
				s, err := unquote(v)
				if err != nil {
					return nil, fmt.Errorf("aztables: malformed odata.etag: %w", err)
				}
				e.ETag = storage.ETag(s)
			}
			continue
		}
		switch string(bname) {
		case storage.PropPartitionKey, storage.PropRowKey, storage.PropTimestamp:
			var name string // the constant: no copy of bname
			var seen *bool
			switch string(bname) {
			case storage.PropPartitionKey:
				name, seen = storage.PropPartitionKey, &havePK
			case storage.PropRowKey:
				name, seen = storage.PropRowKey, &haveRK
			default:
				name, seen = storage.PropTimestamp, &haveTS
			}
			if *seen {
				continue
			}
			*seen = true
			if err := setKeyProperty(e, name, v); err != nil {
				return nil, err
			}
			continue
		}
		if sel != nil {
			if _, ok := sel[string(bname)]; !ok {
				continue
			}
		}
		if _, done := e.Properties[string(bname)]; done || nulls[string(bname)] {
			continue
		}
		name := nm.get(bname)
		val, ok, err := decodeValue(name, v, typeOf(ms, bname))
		if err != nil {
			return nil, err
		}
		if ok {
			e.Properties[name] = val
		} else {
			if nulls == nil {
				nulls = map[string]bool{}
			}
			nulls[name] = true
		}
	}
	return e, nil
}

// fastEntity decodes one entity body; ok is false when the fast decoder
// gives up (see above).
func fastEntity(body []byte, sel map[string]struct{}) (e *storage.Entity, ok bool, err error) {
	s := scanner{b: body}
	ms := s.object(make([]member, 0, 32))
	s.ws()
	if s.bad || s.i != len(s.b) {
		return nil, false, nil
	}
	e, err = entityFromMembers(ms, sel, nil)
	return e, true, err
}

// fastQuery decodes a Query Entities body: an object whose "value" is an
// array of entities and whose other members are scalars.
func fastQuery(body []byte, sel map[string]struct{}) (ents []*storage.Entity, ok bool, err error) {
	s := scanner{b: body}
	if !s.next('{') {
		return nil, false, nil
	}
	var buf []member
	nm := names{}
	seenValue := false
	ents = []*storage.Entity{}
	for first := true; ; first = false {
		if first && s.next('}') {
			break
		}
		name := s.str()
		if s.bad || !s.next(':') {
			return nil, false, nil
		}
		if string(name) != `"value"` {
			if s.scalar(); s.bad {
				return nil, false, nil
			}
		} else {
			if seenValue || !s.next('[') {
				return nil, false, nil
			}
			seenValue = true
			if !s.next(']') {
				for {
					buf = s.object(buf)
					if s.bad {
						return nil, false, nil
					}
					e, err := entityFromMembers(buf, sel, nm)
					if err != nil {
						return nil, true, err
					}
					ents = append(ents, e)
					if s.next(',') {
						continue
					}
					if !s.next(']') {
						return nil, false, nil
					}
					break
				}
			}
		}
		if s.next(',') {
			continue
		}
		if !s.next('}') {
			return nil, false, nil
		}
		break
	}
	s.ws()
	if s.i != len(s.b) {
		return nil, false, nil
	}
	return ents, true, nil
}
