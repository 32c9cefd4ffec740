package txn

import (
	"encoding/binary"
	"errors"
	"math"
	"sort"

	"github.com/sqlgw/sqlgw/storage"
)

// encodeProps serialises an entity's properties (the new value of an
// intent) into bytes: for each property in name order, the name, the type
// and the value. The format lives only as long as a transaction record.
func encodeProps(p storage.Properties) []byte {
	names := make([]string, 0, len(p))
	for n := range p {
		names = append(names, n)
	}
	sort.Strings(names)
	var b []byte
	b = binary.AppendUvarint(b, uint64(len(names)))
	for _, n := range names {
		v := p[n]
		b = appendStr(b, n)
		b = append(b, byte(v.Type()))
		switch v.Type() {
		case storage.TypeString:
			b = appendStr(b, v.Str())
		case storage.TypeDouble:
			b = binary.BigEndian.AppendUint64(b, math.Float64bits(v.Float()))
		case storage.TypeBinary, storage.TypeGUID:
			b = appendStr(b, string(v.Bytes()))
		default:
			b = binary.AppendVarint(b, v.Int())
		}
	}
	return b
}

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

var errCorrupt = errors.New("txn: corrupt intent value")

func decodeProps(b []byte) (storage.Properties, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > 1<<16 {
		return nil, errCorrupt
	}
	b = b[k:]
	str := func() (string, bool) {
		l, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < l {
			return "", false
		}
		s := string(b[k : k+int(l)])
		b = b[k+int(l):]
		return s, true
	}
	p := make(storage.Properties, n)
	for i := uint64(0); i < n; i++ {
		name, ok := str()
		if !ok || len(b) < 1 {
			return nil, errCorrupt
		}
		t := storage.Type(b[0])
		b = b[1:]
		var v storage.Value
		switch t {
		case storage.TypeString:
			s, ok := str()
			if !ok {
				return nil, errCorrupt
			}
			v = storage.String(s)
		case storage.TypeDouble:
			if len(b) < 8 {
				return nil, errCorrupt
			}
			v = storage.Double(math.Float64frombits(binary.BigEndian.Uint64(b)))
			b = b[8:]
		case storage.TypeBinary, storage.TypeGUID:
			s, ok := str()
			if !ok {
				return nil, errCorrupt
			}
			if t == storage.TypeBinary {
				v = storage.Binary([]byte(s))
			} else {
				var g [16]byte
				copy(g[:], s)
				v = storage.GUID(g)
			}
		default:
			x, k := binary.Varint(b)
			if k <= 0 {
				return nil, errCorrupt
			}
			b = b[k:]
			switch t {
			case storage.TypeInt32:
				v = storage.Int32(int32(x))
			case storage.TypeInt64:
				v = storage.Int64(x)
			case storage.TypeBoolean:
				v = storage.Bool(x != 0)
			case storage.TypeDateTime:
				v = storage.DateTimeTicks(x)
			default:
				return nil, errCorrupt
			}
		}
		p[name] = v
	}
	return p, nil
}
