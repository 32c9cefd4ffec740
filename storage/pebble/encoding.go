package pebble

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/sqlgw/sqlgw/storage"
)

// On-disk format. Everything in this file is part of the persistent format
// of a sqlgw data directory and MUST NOT CHANGE: a changed constant or layout
// makes existing directories unreadable. New kinds of records get new tags;
// new value layouts get a new version byte.
//
// The store uses one Pebble keyspace. The first byte of every key is a tag:
//
//	tagSystem 0x00 | name                        system record (counters)
//	tagTable  0x01 | lower(table name)           table metadata record
//	tagEntity 0x02 | tableID (8 bytes BE) | ekey(PartitionKey) | 0x00 | ekey(RowKey)
//
// Table names are case-insensitive: the metadata key holds the lower-cased
// name and the record keeps the spelling the table was created with. Every
// table gets a fresh ID from a persisted counter when it is created, so a
// table recreated under an old name never sees the old entities, and
// DeleteTable is one range deletion over [tagEntity|id, tagEntity|id+1).
//
// ekey maps a key's UTF-8 bytes one by one so that the byte order of the
// result is the ordinal UTF-16 order of the keys (storage.CompareKeys). UTF-8
// byte order already agrees with UTF-16 order except that characters above
// U+FFFF (lead bytes 0xF0..0xF4) must sort below U+E000..U+FFFF (lead bytes
// 0xEE, 0xEF) and above U+D000..U+D7FF (lead byte 0xED). Lead bytes are
// never continuation bytes (0x80..0xBF), so remapping the five-plus-two lead
// bytes is a bijection on valid UTF-8 that keeps every other comparison:
//
//	0xF0..0xF4 -> 0xEE..0xF2   (above U+FFFF)
//	0xEE, 0xEF -> 0xF3, 0xF4   (U+E000..U+FFFF)
//
// Keys never contain U+0000 (storage.ValidateKey forbids U+0000..U+001F), so
// the 0x00 separating PartitionKey from RowKey sorts a partition before any
// longer PartitionKey it prefixes, and ekey(pk)|0x01 is above every key of
// partition pk and below every key of the next partition.
const (
	tagSystem byte = 0x00
	tagTable  byte = 0x01
	tagEntity byte = 0x02

	// keySep separates the encoded PartitionKey from the encoded RowKey.
	keySep byte = 0x00
	// partitionEnd follows an encoded PartitionKey to bound its partition.
	partitionEnd byte = 0x01
)

// System record names (after tagSystem).
const (
	sysNextTableID = "next-table-id" // uint64 BE: the next table ID to hand out
	sysOpenEpoch   = "open-epoch"    // uint64 BE: incremented by every Open; prefixes ETags
)

// Record versions: the first byte of every value.
const (
	tableRecordV1  byte = 1 // tableID (8 bytes BE) | created name
	entityRecordV1 byte = 1 // see encodeEntity
)

// Property type codes in an entity record. They equal storage.Type today but
// are spelled out because the contract's numbering is not a disk format.
const (
	codeString   byte = 1 // uvarint length | UTF-8 bytes
	codeInt32    byte = 2 // 4 bytes BE (two's complement)
	codeInt64    byte = 3 // 8 bytes BE (two's complement)
	codeDouble   byte = 4 // 8 bytes BE IEEE 754 bits
	codeBoolean  byte = 5 // 1 byte, 0 or 1
	codeDateTime byte = 6 // 8 bytes BE ticks of 100 ns since 0001-01-01 UTC
	codeBinary   byte = 7 // uvarint length | bytes
	codeGUID     byte = 8 // 16 bytes
)

// tokenV1 is the first byte of a decoded continuation token: tokenV1 |
// PartitionKey | 0x00 | RowKey (plain UTF-8), then base64url without padding.
const tokenV1 byte = 'c'

// ekeyMap is the lead-byte remapping described above.
var ekeyMap, ekeyUnmap [256]byte

func init() {
	for i := range 256 {
		ekeyMap[i], ekeyUnmap[i] = byte(i), byte(i)
	}
	for b := 0xF0; b <= 0xF4; b++ {
		ekeyMap[b] = byte(b - 2)
		ekeyUnmap[b-2] = byte(b)
	}
	ekeyMap[0xEE], ekeyMap[0xEF] = 0xF3, 0xF4
	ekeyUnmap[0xF3], ekeyUnmap[0xF4] = 0xEE, 0xEF
}

// appendEKey appends the order-preserving encoding of key.
func appendEKey(b []byte, key string) []byte {
	for i := 0; i < len(key); i++ {
		b = append(b, ekeyMap[key[i]])
	}
	return b
}

// appendDecodedEKey appends the key that ek encodes.
func appendDecodedEKey(b []byte, ek []byte) []byte {
	for _, c := range ek {
		b = append(b, ekeyUnmap[c])
	}
	return b
}

// tableKey returns the metadata key of a table.
func tableKey(name string) []byte {
	b := make([]byte, 0, 1+len(name))
	b = append(b, tagTable)
	for i := 0; i < len(name); i++ {
		c := name[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}

func systemKey(name string) []byte { return append([]byte{tagSystem}, name...) }

// appendTablePrefix appends tagEntity | id.
func appendTablePrefix(b []byte, id uint64) []byte {
	b = append(b, tagEntity)
	return binary.BigEndian.AppendUint64(b, id)
}

const tablePrefixLen = 9

// appendEntityKey appends the key of entity (pk, rk) of table id.
func appendEntityKey(b []byte, id uint64, pk, rk string) []byte {
	b = appendTablePrefix(b, id)
	b = appendEKey(b, pk)
	b = append(b, keySep)
	return appendEKey(b, rk)
}

// splitEntityKey returns the encoded PartitionKey and RowKey of an entity key.
func splitEntityKey(k []byte) (epk, erk []byte, ok bool) {
	if len(k) < tablePrefixLen+1 || k[0] != tagEntity {
		return nil, nil, false
	}
	k = k[tablePrefixLen:]
	for i, c := range k {
		if c == keySep {
			return k[:i], k[i+1:], true
		}
	}
	return nil, nil, false
}

func encodeTableRecord(id uint64, name string) []byte {
	b := []byte{tableRecordV1}
	b = binary.BigEndian.AppendUint64(b, id)
	return append(b, name...)
}

func decodeTableRecord(v []byte) (id uint64, name string, err error) {
	if len(v) < 9 || v[0] != tableRecordV1 {
		return 0, "", fmt.Errorf("sqlgw/pebble: corrupt table record %x", v)
	}
	return binary.BigEndian.Uint64(v[1:9]), string(v[9:]), nil
}

// An entity record:
//
//	entityRecordV1
//	uvarint len(ETag) | ETag
//	8 bytes BE Timestamp ticks (100 ns since 0001-01-01 UTC)
//	uvarint property count
//	per property, sorted by name: uvarint len(name) | name | type code | payload
//
// The keys are not repeated: they are in the Pebble key.

// encodeEntity appends the record of e's properties with the given ETag and
// timestamp.
func encodeEntity(b []byte, props storage.Properties, etag storage.ETag, ticks int64) []byte {
	b = append(b, entityRecordV1)
	b = binary.AppendUvarint(b, uint64(len(etag)))
	b = append(b, etag...)
	b = binary.BigEndian.AppendUint64(b, uint64(ticks))
	b = binary.AppendUvarint(b, uint64(len(props)))
	var arr [16]string // a row's entity has a few properties
	names := arr[:0]
	for name := range props {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		v := props[name]
		b = binary.AppendUvarint(b, uint64(len(name)))
		b = append(b, name...)
		switch v.Type() {
		case storage.TypeString:
			b = append(b, codeString)
			b = binary.AppendUvarint(b, uint64(len(v.Str())))
			b = append(b, v.Str()...)
		case storage.TypeInt32:
			b = append(b, codeInt32)
			b = binary.BigEndian.AppendUint32(b, uint32(int32(v.Int())))
		case storage.TypeInt64:
			b = append(b, codeInt64)
			b = binary.BigEndian.AppendUint64(b, uint64(v.Int()))
		case storage.TypeDouble:
			b = append(b, codeDouble)
			b = binary.BigEndian.AppendUint64(b, math.Float64bits(v.Float()))
		case storage.TypeBoolean:
			b = append(b, codeBoolean)
			if v.BoolValue() {
				b = append(b, 1)
			} else {
				b = append(b, 0)
			}
		case storage.TypeDateTime:
			b = append(b, codeDateTime)
			b = binary.BigEndian.AppendUint64(b, uint64(v.Ticks()))
		case storage.TypeBinary:
			b = append(b, codeBinary)
			b = binary.AppendUvarint(b, uint64(len(v.Bytes())))
			b = append(b, v.Bytes()...)
		case storage.TypeGUID:
			b = append(b, codeGUID)
			b = append(b, v.Bytes()...)
		default:
			panic(fmt.Sprintf("sqlgw/pebble: encoding invalid value of %q", name))
		}
	}
	return b
}

// encodeRecord is encodeEntity for properties already encoded: n of them
// in props (a record's, which it copies).
func encodeRecord(b []byte, etag storage.ETag, ticks int64, n int, props []byte) []byte {
	b = append(b, entityRecordV1)
	b = binary.AppendUvarint(b, uint64(len(etag)))
	b = append(b, etag...)
	b = binary.BigEndian.AppendUint64(b, uint64(ticks))
	b = binary.AppendUvarint(b, uint64(n))
	return append(b, props...)
}

// record is a decoded view of an entity record's header; the properties
// stay encoded in props until decoded.
type record struct {
	etag  []byte
	ticks int64
	n     int    // property count
	props []byte // the encoded properties
}

var errCorrupt = fmt.Errorf("sqlgw/pebble: corrupt entity record")

func parseRecord(v []byte) (record, error) {
	var r record
	if len(v) < 1 || v[0] != entityRecordV1 {
		return r, errCorrupt
	}
	v = v[1:]
	l, k := binary.Uvarint(v)
	if k <= 0 || uint64(len(v)-k) < l+8 {
		return r, errCorrupt
	}
	r.etag = v[k : k+int(l)]
	v = v[k+int(l):]
	r.ticks = int64(binary.BigEndian.Uint64(v))
	v = v[8:]
	n, k := binary.Uvarint(v)
	if k <= 0 || n > storage.MaxProperties*4 {
		return r, errCorrupt
	}
	r.n = int(n)
	r.props = v[k:]
	return r, nil
}

// nextProp decodes the property at the start of p. The returned name and
// any String or Binary payload alias p when alias is set (valid only while p
// is), and are copies otherwise.
func nextProp(p []byte, alias bool) (name []byte, v storage.Value, rest []byte, err error) {
	name, p, err = propName(p)
	if err != nil {
		return nil, v, nil, err
	}
	if v, rest, err = propValue(p, alias); err != nil {
		return nil, v, nil, err
	}
	return name, v, rest, nil
}

// propName splits the property at the start of p into its name and its
// encoded value (type code first, at least that byte present).
func propName(p []byte) (name, val []byte, err error) {
	l, k := binary.Uvarint(p)
	if k <= 0 || uint64(len(p)-k) < l+1 {
		return nil, nil, errCorrupt
	}
	return p[k : k+int(l)], p[k+int(l):], nil
}

// propValue decodes the encoded value at the start of p (propName's val)
// and returns what follows it; String and Binary payloads alias p when
// alias is set, as nextProp's.
func propValue(p []byte, alias bool) (v storage.Value, rest []byte, err error) {
	if len(p) < 1 {
		return v, nil, errCorrupt
	}
	code := p[0]
	p = p[1:]
	fixed := func(n int) ([]byte, error) {
		if len(p) < n {
			return nil, errCorrupt
		}
		x := p[:n]
		p = p[n:]
		return x, nil
	}
	var x []byte
	switch code {
	case codeString, codeBinary:
		l, k := binary.Uvarint(p)
		if k <= 0 || uint64(len(p)-k) < l {
			return v, nil, errCorrupt
		}
		x = p[k : k+int(l)]
		p = p[k+int(l):]
		if code == codeString {
			if alias {
				v = storage.String(unsafe.String(unsafe.SliceData(x), len(x)))
			} else {
				v = storage.String(string(x))
			}
		} else {
			if !alias {
				x = slices.Clone(x)
			}
			v = storage.Binary(x)
		}
		return v, p, nil
	case codeInt32:
		if x, err = fixed(4); err == nil {
			v = storage.Int32(int32(binary.BigEndian.Uint32(x)))
		}
	case codeInt64:
		if x, err = fixed(8); err == nil {
			v = storage.Int64(int64(binary.BigEndian.Uint64(x)))
		}
	case codeDouble:
		if x, err = fixed(8); err == nil {
			v = storage.Double(math.Float64frombits(binary.BigEndian.Uint64(x)))
		}
	case codeBoolean:
		if x, err = fixed(1); err == nil {
			v = storage.Bool(x[0] != 0)
		}
	case codeDateTime:
		if x, err = fixed(8); err == nil {
			v = storage.DateTimeTicks(int64(binary.BigEndian.Uint64(x)))
		}
	case codeGUID:
		if x, err = fixed(16); err == nil {
			v = storage.GUID([16]byte(x))
		}
	default:
		err = errCorrupt
	}
	if err != nil {
		return storage.Value{}, nil, err
	}
	return v, p, nil
}

// skipValue returns what follows the encoded value at the start of p
// (propName's val), without decoding it.
func skipValue(p []byte) (rest []byte, err error) {
	if len(p) < 1 {
		return nil, errCorrupt
	}
	code := p[0]
	p = p[1:]
	n := 0
	switch code {
	case codeString, codeBinary:
		l, k := binary.Uvarint(p)
		if k <= 0 || uint64(len(p)-k) < l {
			return nil, errCorrupt
		}
		n = k + int(l)
	case codeInt32:
		n = 4
	case codeInt64, codeDouble, codeDateTime:
		n = 8
	case codeBoolean:
		n = 1
	case codeGUID:
		n = 16
	default:
		return nil, errCorrupt
	}
	if len(p) < n {
		return nil, errCorrupt
	}
	return p[n:], nil
}

// lookup finds property prop in the record without allocating; String and
// Binary values alias the record and are valid only while it is.
func (r *record) lookup(prop string) (storage.Value, bool) {
	p := r.props
	for range r.n {
		name, val, err := propName(p)
		if err != nil {
			return storage.Value{}, false
		}
		if string(name) == prop {
			v, _, err := propValue(val, true)
			return v, err == nil
		}
		if p, err = skipValue(val); err != nil { // not decoded
			return storage.Value{}, false
		}
	}
	return storage.Value{}, false
}

// decodeProps decodes the record's properties into a new map, keeping only
// the names in sel (nil: all).
func (r *record) decodeProps(sel map[string]struct{}) (storage.Properties, error) {
	return r.decodePropsInterned(sel, nil, nil)
}

// decodePropsInterned is decodeProps with an optional cache of property
// names, so that a scan allocates each name once rather than per entity,
// and an optional arena the copies of string and binary values are cut
// from (pagearena.go).
func (r *record) decodePropsInterned(sel map[string]struct{}, names map[string]string, arena *pageArena) (storage.Properties, error) {
	n := r.n
	if sel != nil {
		n = min(n, len(sel))
	}
	props := make(storage.Properties, n)
	p := r.props
	for range r.n {
		name, v, rest, err := nextProp(p, true)
		if err != nil {
			return nil, err
		}
		p = rest
		if sel != nil {
			if _, ok := sel[string(name)]; !ok {
				continue
			}
		}
		// Copy what aliases the record.
		if arena != nil && (v.Type() == storage.TypeString || v.Type() == storage.TypeBinary) {
			if v.Type() == storage.TypeString {
				v = storage.String(arena.string(unsafe.Slice(unsafe.StringData(v.Str()), len(v.Str()))))
			} else {
				v = storage.Binary(arena.bytes(v.Bytes()))
			}
		} else {
			v = ownedValue(v)
		}
		if names == nil {
			props[string(name)] = v
			continue
		}
		ns, ok := names[string(name)]
		if !ok {
			ns = string(name)
			names[ns] = ns
		}
		props[ns] = v
	}
	return props, nil
}

// decodePropsSelected is decodeProps for the properties named in sel, a
// short list matched by a scan; each property's key is its name's string
// from sel, not a copy of the record's bytes.
func (r *record) decodePropsSelected(sel []string) (storage.Properties, error) {
	props := make(storage.Properties, min(r.n, len(sel)))
	p := r.props
	for range r.n {
		name, v, rest, err := nextProp(p, true)
		if err != nil {
			return nil, err
		}
		p = rest
		key, found := "", false
		for _, s := range sel {
			if s == string(name) {
				key, found = s, true
				break
			}
		}
		if !found {
			continue
		}
		props[key] = ownedValue(v)
	}
	return props, nil
}

// ownedValue returns v, copied where it aliases the record.
func ownedValue(v storage.Value) storage.Value {
	switch v.Type() {
	case storage.TypeString:
		return storage.String(strings.Clone(v.Str()))
	case storage.TypeBinary:
		return storage.Binary(slices.Clone(v.Bytes()))
	case storage.TypeGUID:
		return storage.GUID(v.GUIDValue())
	}
	return v
}

func ticksTime(ticks int64) time.Time { return storage.DateTimeTicks(ticks).Time() }

// encodeToken renders the position (pk, rk) as a continuation token.
func encodeToken(pk, rk []byte) string {
	b := make([]byte, 0, 2+len(pk)+len(rk))
	b = append(b, tokenV1)
	b = append(b, pk...)
	b = append(b, keySep)
	b = append(b, rk...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeToken parses a continuation token; errors wrap storage.ErrInvalid.
func decodeToken(tok string, limits storage.Limits) (pk, rk string, err error) {
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil || len(b) < 2 || b[0] != tokenV1 {
		return "", "", fmt.Errorf("%w: malformed continuation token", storage.ErrInvalid)
	}
	b = b[1:]
	i := 0
	for i < len(b) && b[i] != keySep {
		i++
	}
	if i == len(b) {
		return "", "", fmt.Errorf("%w: malformed continuation token", storage.ErrInvalid)
	}
	pk, rk = string(b[:i]), string(b[i+1:])
	if !utf8.ValidString(pk) || !utf8.ValidString(rk) || limits.ValidateKeys(pk, rk) != nil {
		return "", "", fmt.Errorf("%w: malformed continuation token", storage.ErrInvalid)
	}
	return pk, rk, nil
}

// unsafeString views b as a string without copying; b must not change while
// the string is in use.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
