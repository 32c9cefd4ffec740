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
// besides its property maps. The strings point into the chunks (never
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
