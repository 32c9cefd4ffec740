package pebble

import (
	"unsafe"

	"github.com/sqlgw/sqlgw/storage"
)

// Page arenas
//
// A Query page used to allocate, per entity, its PartitionKey, RowKey and
// ETag strings, the Entity, and a copy of each string or binary property
// (Pebble's value is only valid until the iterator moves): seven
// allocations for a sysbench row, a third of the bytes allocated by
// oltp_read_only. pageArena copies these bytes into chunks of arenaChunk
// bytes shared by the page's entities, and cuts the entities from slabs of
// arenaEntities, so that a page of small entities costs a few allocations
// besides its property maps. The pages' entity lists and the queries'
// iterator bounds are cut from the arena too (entityList, cut). The strings point into the chunks (never
// written again once cut: a chunk is only appended to) and a binary value
// is capped at its length, so appending to it copies. A value kept after
// the page keeps its chunk (at most arenaChunk bytes) alive; values of more
// than arenaChunk/4 bytes get their own allocation, as before. The pages
// of one MultiQuery call share one arena (scanState).

const (
	arenaChunk    = 4096
	arenaEntities = 32
)

type pageArena struct {
	buf  []byte
	ents []storage.Entity
	// list is the free part of the slab of entity pointers that pages'
	// entity lists are cut from (entityList).
	list []*storage.Entity
}

// cut returns an empty slice of capacity n cut from the arena, for the
// caller to fill once (cut is not a copy: the bytes are reserved, never
// handed out again). Over arenaChunk/4 bytes get their own allocation.
func (a *pageArena) cut(n int) []byte {
	if n > arenaChunk/4 {
		return make([]byte, 0, n)
	}
	if cap(a.buf)-len(a.buf) < n {
		a.buf = make([]byte, 0, arenaChunk)
	}
	m := len(a.buf)
	a.buf = a.buf[:m+n]
	return a.buf[m : m : m+n]
}

// entityList returns an empty entity list whose capacity is the free
// part of the arena's pointer slab, for one page at a time: the page
// appends its entities, then keepList takes the part it filled out of the
// slab (an IN list's queries return an entity or none each: one slab for
// all their pages instead of a list each). An append past the capacity
// moves the list off the slab, as any append would.
func (a *pageArena) entityList() []*storage.Entity {
	if cap(a.list) == 0 {
		a.list = make([]*storage.Entity, 0, arenaEntities)
	}
	return a.list[:0]
}

// keepList ends the page's use of the list entityList gave it: the
// entities it holds on the slab are taken out of the slab's free part,
// and the page's list is capped at its length, so that appending to it
// copies. A page without entities gets a nil list, as before.
func (a *pageArena) keepList(page *storage.Page) {
	l := page.Entities
	if len(l) == 0 {
		page.Entities = nil
		return
	}
	if cap(a.list) > 0 && &l[:1][0] == &a.list[:1][0] {
		a.list = a.list[len(l):len(l)]
	}
	page.Entities = l[:len(l):len(l)]
}

// bytes returns a copy of b, cut from the arena.
func (a *pageArena) bytes(b []byte) []byte {
	if len(b) > arenaChunk/4 {
		return append([]byte(nil), b...)
	}
	if cap(a.buf)-len(a.buf) < len(b) {
		a.buf = make([]byte, 0, arenaChunk)
	}
	n := len(a.buf)
	a.buf = append(a.buf, b...)
	return a.buf[n:len(a.buf):len(a.buf)]
}

// string returns b as a string, copied into the arena.
func (a *pageArena) string(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	c := a.bytes(b)
	return unsafe.String(&c[0], len(c))
}

// entity returns a new zero Entity.
func (a *pageArena) entity() *storage.Entity {
	if len(a.ents) == 0 {
		a.ents = make([]storage.Entity, arenaEntities)
	}
	e := &a.ents[0]
	a.ents = a.ents[1:]
	return e
}
