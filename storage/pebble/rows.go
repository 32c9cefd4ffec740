package pebble

import (
	"slices"
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
	// selFirst and markFirst hold the first bytes of the names in sel and
	// marks: a property whose name starts with none of them is skipped
	// without comparing it with each name.
	selFirst, markFirst byteSet
	// base is the number of rows added before the current page's
	// (startPage: the pages of a MultiQueryRows call share the buffer).
	base int
}

// byteSet is a set of bytes.
type byteSet [4]uint64

func (s *byteSet) add(b byte)      { s[b>>6] |= 1 << (b & 63) }
func (s *byteSet) has(b byte) bool { return s[b>>6]&(1<<(b&63)) != 0 }
func (s *byteSet) addFirst(n []string) {
	for _, x := range n {
		if x != "" {
			s.add(x[0])
		}
	}
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
	c.selFirst.addFirst(sel)
	c.markFirst.addFirst(marks)
	c.sc = rowScratchPool.Get().(*rowScratch)
}

// add appends the row of rec with its keys and ETag (arena strings) and
// the values of its properties named in c.sel, by position (the zero
// Value for an absent one). Each property's name is read once; a value
// not selected is skipped, not decoded.
func (c *rowCols) add(pk, rk string, etag storage.ETag, rec *record, arena *pageArena) error {
	w := len(c.sel)
	n := len(c.sc.vals)
	c.sc.vals = append(c.sc.vals, make([]storage.Value, w)...)
	vals := c.sc.vals[n : n+w]
	p := rec.props
	marked := false
	for range rec.n {
		name, val, err := propName(p)
		if err != nil {
			return err
		}
		j := -1 // the first position selecting name
		if len(name) > 0 {
			if c.markFirst.has(name[0]) && !marked {
				for _, m := range c.marks {
					if m == string(name) {
						marked = true
						break
					}
				}
			}
			if c.selFirst.has(name[0]) {
				for i, s := range c.sel {
					if s == string(name) {
						j = i
						break
					}
				}
			}
		} else {
			// The empty name (never written by the engine) the slow way.
			marked = marked || slices.Contains(c.marks, "")
			j = slices.Index(c.sel, "")
		}
		if j < 0 {
			if p, err = skipValue(val); err != nil {
				return err
			}
			continue
		}
		v, rest, err := propValue(val, true)
		if err != nil {
			return err
		}
		p = rest
		// Copy what aliases the record, as decodePropsInterned does (a
		// GUID is already a copy; other types hold no reference).
		switch v.Type() {
		case storage.TypeString:
			v = storage.String(arena.string(unsafe.Slice(unsafe.StringData(v.Str()), len(v.Str()))))
		case storage.TypeBinary:
			v = storage.Binary(arena.bytes(v.Bytes()))
		}
		vals[j] = v
		for k := j + 1; k < w; k++ {
			if c.sel[k] == string(name) {
				vals[k] = v
			}
		}
	}
	c.sc.rows = append(c.sc.rows, storage.Row{PartitionKey: pk, RowKey: rk, ETag: etag, Timestamp: ticksTime(rec.ticks), Marked: marked})
	return nil
}

// count is the number of rows added to the current page.
func (c *rowCols) count() int { return len(c.sc.rows) - c.base }

// startPage starts a page: the rows added so far are the previous pages'.
func (c *rowCols) startPage() { c.base = len(c.sc.rows) }

// finishPages is finish for the pages of a MultiQueryRows call that
// share c, read in the order of slots (indices into pages):
// pages[slots[n]] gets the rows up to ends[n] from ends[n-1] (from 0 for
// the first), cut from one slab of rows and one of values for all. c's
// scratch buffer goes back as finish's does.
func (c *rowCols) finishPages(pages []storage.RowPage, slots, ends []int) {
	sc := c.sc
	if sc == nil {
		return
	}
	if len(sc.rows) > 0 {
		w := len(c.sel)
		rows := make([]storage.Row, len(sc.rows))
		copy(rows, sc.rows)
		vals := make([]storage.Value, len(sc.vals))
		copy(vals, sc.vals)
		for i := range rows {
			rows[i].Values = vals[i*w : (i+1)*w : (i+1)*w]
		}
		from := 0
		for n, end := range ends {
			if end > from {
				pages[slots[n]].Rows = rows[from:end:end]
			}
			from = end
		}
	}
	c.base = 0
	c.finish(nil) // the scratch buffer, cleared, back to the pool
}

// finish moves the rows added into out (none with out nil) and returns
// the scratch buffer.
func (c *rowCols) finish(out *storage.RowPage) {
	sc := c.sc
	if sc == nil {
		return
	}
	c.sc = nil
	if len(sc.rows) > 0 && out != nil {
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
