package pebble

import (
	"encoding/binary"
	"sync"
	"unsafe"

	"github.com/sqlgw/sqlgw/storage"
)

// Row reads (storage.RowQuerier)
//
// QueryRows reads a page as Query does (the same bounds, filter, Top,
// continuation and snapshot: scan) and decodes each record's selected
// properties straight into the row's values, in Select's order: no
// property map, no interned names. Strings and binary values are copied into the
// page's arena (pagearena.go) exactly as Query's are, so a row's values
// are the entity's values Query returns.

// rowCols decodes the properties sel names of a page's records into a
// scratch buffer reused across queries (rowScratch); finish copies the
// page's rows and values out into two allocations of their exact size
// (a page's row count is known only at its end: grown slices, or slabs,
// cost about twice the bytes).
type rowCols struct {
	sel   []string
	marks []string
	sc    *rowScratch
}

type rowScratch struct {
	rows []storage.Row
	vals []storage.Value
}

var rowScratchPool = sync.Pool{New: func() any { return new(rowScratch) }}

// maxPooledValues bounds the scratch buffer kept for the next query.
const maxPooledValues = 1 << 14

func (c *rowCols) init(sel, marks []string) {
	c.sel, c.marks = sel, marks
	c.sc = rowScratchPool.Get().(*rowScratch)
}

// add appends the row of rec with its keys and ETag (arena strings) and
// the values of its properties named in c.sel, by position (the zero
// Value for an absent one).
func (c *rowCols) add(pk, rk string, etag storage.ETag, rec *record, arena *pageArena) error {
	w := len(c.sel)
	n := len(c.sc.vals)
	c.sc.vals = append(c.sc.vals, make([]storage.Value, w)...)
	vals := c.sc.vals[n : n+w]
	p := rec.props
	marked := false
	for range rec.n {
		name, rest, err := skipProp(p)
		if err != nil {
			return err
		}
		wanted := false
		for _, m := range c.marks {
			if m == string(name) {
				marked = true
			}
		}
		for _, s := range c.sel {
			wanted = wanted || s == string(name)
		}
		if !wanted {
			p = rest // not decoded
			continue
		}
		_, v, rest, err := nextProp(p, true)
		if err != nil {
			return err
		}
		p = rest
		copied := false
		for j, s := range c.sel {
			if s != string(name) {
				continue
			}
			if !copied {
				// Copy what aliases the record, as decodePropsInterned does.
				switch v.Type() {
				case storage.TypeString:
					v = storage.String(arena.string(unsafe.Slice(unsafe.StringData(v.Str()), len(v.Str()))))
				case storage.TypeBinary:
					v = storage.Binary(arena.bytes(v.Bytes()))
				default:
					v = ownedValue(v)
				}
				copied = true
			}
			vals[j] = v
		}
	}
	c.sc.rows = append(c.sc.rows, storage.Row{PartitionKey: pk, RowKey: rk, ETag: etag, Timestamp: ticksTime(rec.ticks), Marked: marked})
	return nil
}

// count is the number of rows added.
func (c *rowCols) count() int { return len(c.sc.rows) }

// finish moves the rows added into out and returns the scratch buffer.
func (c *rowCols) finish(out *storage.RowPage) {
	sc := c.sc
	if sc == nil {
		return
	}
	c.sc = nil
	if len(sc.rows) > 0 {
		w := len(c.sel)
		out.Rows = make([]storage.Row, len(sc.rows))
		copy(out.Rows, sc.rows)
		vals := make([]storage.Value, len(sc.vals))
		copy(vals, sc.vals)
		for i := range out.Rows {
			out.Rows[i].Values = vals[i*w : (i+1)*w : (i+1)*w]
		}
	}
	// Drop the references (the page's arena) before pooling.
	clear(sc.rows)
	clear(sc.vals)
	sc.rows, sc.vals = sc.rows[:0], sc.vals[:0]
	if cap(sc.vals) <= maxPooledValues {
		rowScratchPool.Put(sc)
	}
}

// skipProp returns the name of the property at the start of p and what
// follows the property, without decoding its value.
func skipProp(p []byte) (name, rest []byte, err error) {
	l, k := binary.Uvarint(p)
	if k <= 0 || uint64(len(p)-k) < l+1 {
		return nil, nil, errCorrupt
	}
	name = p[k : k+int(l)]
	p = p[k+int(l):]
	code := p[0]
	p = p[1:]
	n := 0
	switch code {
	case codeString, codeBinary:
		l, k := binary.Uvarint(p)
		if k <= 0 || uint64(len(p)-k) < l {
			return nil, nil, errCorrupt
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
		return nil, nil, errCorrupt
	}
	if len(p) < n {
		return nil, nil, errCorrupt
	}
	return name, p[n:], nil
}
