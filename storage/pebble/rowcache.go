package pebble

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"io"
	"sync"
	"sync/atomic"
	"unsafe"

	pebbledb "github.com/cockroachdb/pebble/v2"
)

// Row cache (Options.RowCacheSize; `sqlgw serve --row-cache`)
//
// Like RocksDB's row_cache: the latest committed record of recently read
// entity keys, which Get and GetRow, and MultiGet and MultiGetRows key by
// key (multiget.go: pointReads), consult before Pebble. A Pebble Get
// builds an iterator over the memtables and every level, seeks the
// sstable's index and filter blocks and reads the data block (sysbench's
// oltp_point_select: 13% of the server's CPU in Pebble's Get); a hit is a
// map lookup.
//
// Correctness: a hit returns exactly what a Pebble Get would return at
// that moment, because of two rules.
//
//   - A write (write, MultiBatch) marks the shards of its keys as being
//     written (begin: writing+1, gen+1) before it commits, and after the
//     commit (done: gen+1, the keys dropped, writing-1). While a shard has a
//     write in flight, lookups in it miss and inserts into it are refused:
//     a reader between the commit and done never gets the record the
//     commit replaced from the cache while Pebble already shows the new one
//     (a later reader must not see an older value than an earlier one did).
//     DeleteTable, which holds the store exclusively, clears everything.
//   - A reader that misses takes the shard's generation (gen) before it
//     reads Pebble, and inserts what it read only if the generation is
//     unchanged and no write is in flight: a write that began after the
//     lookup changed gen, one in flight at the lookup either still is
//     (refused) or has finished (gen changed). So a value older than a
//     write that completed before the insert is never inserted.
//
// A write's own records go in when it is done (write-through, as a buffer
// pool keeps the pages a write changed): done replaces each written key's
// entry with the record the committed batch holds (a deleted key's entry
// goes; a record over writeThroughMax only drops it), under the shard's
// lock and before the shard serves again. The record is the key's latest:
// every write of a key holds the key's stripe lock (Store.stripes) from
// before its begin until after its done, so no other write of it is in
// flight, and readers cannot insert while the shard is being written. A
// write that failed drops its keys' entries. So the rows a load or a
// backfill wrote are read from the cache the first time, not from Pebble.
// A bulk write (storage.WithBulkWrite: a multi-row INSERT, LOAD DATA)
// replaces its keys' entries but adds new ones only while the shard has
// room, never evicting for them: a load larger than the cache does not
// flush the rows reads cached (scan resistance). Adding none at all was
// measured and not kept: sysbench prepare's server CPU fell 5-11%, but
// the point selects after the load then missed the cache, read Pebble
// (memtables and L0, not yet compacted) and filled the cache themselves,
// at 1.1-1.6 times the server CPU per query over their first 40,000 to
// 150,000 queries: the cost moved to the reads, and grew (docs/
// benchmarks.md, "Sixteenth session: sysbench prepare (h16prep)").
//
// The same stripe locks make the cache usable for a write's own reads of
// the keys it writes (apply's current record, before its begin; lockedGet):
// an entry of a key no write is in flight for is the key's current record,
// whatever other keys of its shard are being written.
//
// Reads at a snapshot (snapshot.go) use the cache only while their shared
// Pebble snapshot is the store's current state: no batch has committed
// since it was taken (shared.commits, checked after the lookup, and after
// the Pebble read for an insert). A write that changed the key after the
// snapshot finished its commit, and so incremented Store.commits, before
// it left the shard (done), so the check sees it; one that began later
// makes the lookup miss. An older snapshot (a REPEATABLE READ
// transaction's) reads Pebble.
//
// The cache holds entity records only (the keys Get reads), not absent
// keys. Its memory is bounded by bytes, split evenly over the shards,
// each keeping its records in chunks that nothing for the collector to
// scan points into, and evicting by CLOCK (second chance) a chunk at a
// time (see "Memory layout" below): a hit only sets its entry's
// referenced bit, under the shard's read lock, so that lookups in one
// shard run side by side and write nothing shared but the lock's reader
// count (and the bit, once).

// DefaultRowCacheSize is the row cache `sqlgw serve` gives the embedded
// store without --row-cache: a quarter of the default block cache
// (DefaultCacheSize, itself a quarter of the memory available), between
// 16 MiB and 256 MiB. On a quiet 2-core machine, sysbench's
// oltp_point_select ran 1.19 and 1.16 times as fast with a 64 MiB cache
// as without, the same binary alternated (docs/benchmarks.md, "Row cache
// (tenth session)"); the helper's earlier windows, at load 18-27, could
// not tell. Each lookup takes its shard's lock shared (the reader count's
// cache line is still passed between the cores); a lookup that writes
// nothing shared is what would make it pay more.
func DefaultRowCacheSize() int64 {
	return max(16<<20, min(DefaultCacheSize()/4, 256<<20))
}

type rowCache struct {
	seed   maphash.Seed
	shards [rowCacheShards]rowShard
}

// rowCacheShards is the number of shards (a power of two): a write in
// flight makes its shards miss, so more shards keep more of the cache
// usable under writes.
const rowCacheShards = 64

// Memory layout: nothing for the garbage collector to scan.
//
// A shard's records live in chunks, byte slices of chunkSize filled one
// entry after another and never written again once an entry is in (the
// reference bit aside), and its index maps a key's 64-bit hash to the
// entry's location (chunk sequence << rowLocBits | offset). Neither holds
// a pointer per entry: the chunks are pointer-free ("noscan") objects and
// the index a map of integers, so a collection marks a handful of objects
// per shard however many rows are cached. The first version (a map of
// string keys to entries linked in a list, each entry its own allocation)
// had three pointer-holding objects per row: the cache was 60% of the
// server's live heap under oltp_point_select, and its marking most of the
// collector's work.
//
// An entry is a header (hash, key and value lengths, reference bit) and
// its key and value bytes, at an 8-byte aligned offset. A lookup verifies
// the key (two keys of one hash share an index slot; the later insert
// wins). A record handed out aliases its chunk, which is never rewritten:
// eviction drops whole chunks from the shard, and a chunk some reader
// still holds a record of stays alive until that reader lets go.
//
// Eviction is CLOCK over chunks (second chance): when the shard needs a
// chunk beyond its bound (chunks of a quarter of it, at most 64 KiB), its
// oldest chunk goes, and each entry of it that is still indexed and was
// looked up since it was written is first copied into the new chunk
// (while room is left for the insert), with its bit cleared. Deleted and
// replaced entries are dead bytes until their chunk goes.
//
// Chunks are at most 64 KiB (maxRowChunk), so a record over 64 KiB is not
// cached. With chunks of up to 1 MiB, sysbench's prepare (whose 100,000
// rows are written through) took 1.24 times as long as without the cache
// change; with 64 KiB chunks 1.09 times (interleaved A/B, quiet machine;
// most likely the heap reuses the freed pages of a load's garbage for
// small chunks, where a large one takes fresh pages).
const (
	rowHeaderSize = 24 // hash 8, key length 4, value length 4, ref 4, pad 4
	rowLocBits    = 24 // offset bits of a location: chunks of at most 16 MiB
	maxRowChunk   = 64 << 10
	minRowChunk   = 256
)

type rowShard struct {
	// mu is held shared by lookups (get), exclusively by everything else.
	mu      sync.RWMutex
	gen     uint64 // incremented by each begin and done of a write
	writing int    // writes in flight over this shard's keys
	idx     map[uint64]uint64
	chunks  [][]byte // oldest first; the last is being filled
	used    []int    // bytes filled of each chunk
	first   uint64   // sequence number of chunks[0]
	// chunkSize and maxChunks bound the shard: at most maxChunks chunks
	// of chunkSize bytes.
	chunkSize int
	maxChunks int
	_         [64]byte // keep shards' locks off each other's cache lines
}

// newRowCache returns a cache of size bytes, nil for size <= 0.
func newRowCache(size int64) *rowCache {
	if size <= 0 {
		return nil
	}
	c := &rowCache{seed: maphash.MakeSeed()}
	perShard := size / rowCacheShards
	chunk := int(min(max(perShard/4, minRowChunk), maxRowChunk)) &^ 7
	for i := range c.shards {
		sh := &c.shards[i]
		sh.idx = make(map[uint64]uint64)
		sh.chunkSize = chunk
		sh.maxChunks = max(2, int(perShard/int64(chunk)))
	}
	return c
}

func (c *rowCache) hash(key []byte) uint64 { return maphash.Bytes(c.seed, key) }

func (c *rowCache) shard(key []byte) *rowShard {
	sh, _ := c.locate(key)
	return sh
}

// locate returns key's shard and hash.
func (c *rowCache) locate(key []byte) (*rowShard, uint64) {
	h := c.hash(key)
	return &c.shards[h&(rowCacheShards-1)], h
}

// noInsert is the token of a lookup whose read must not be inserted.
const noInsert = ^uint64(0)

// entry returns the chunk and offset of location loc, nil if its chunk
// is gone.
func (sh *rowShard) entry(loc uint64) ([]byte, int) {
	seq := loc >> rowLocBits
	if seq < sh.first || seq-sh.first >= uint64(len(sh.chunks)) {
		return nil, 0
	}
	return sh.chunks[seq-sh.first], int(loc & (1<<rowLocBits - 1))
}

// find returns the chunk, offset and location of key's entry (h its
// hash), nil if it has none (sh.mu held).
func (sh *rowShard) find(h uint64, key []byte) ([]byte, int, uint64) {
	loc, ok := sh.idx[h]
	if !ok {
		return nil, 0, 0
	}
	ch, off := sh.entry(loc)
	if ch == nil {
		return nil, 0, 0
	}
	kl := int(binary.LittleEndian.Uint32(ch[off+8:]))
	if !bytes.Equal(ch[off+rowHeaderSize:off+rowHeaderSize+kl], key) {
		return nil, 0, 0
	}
	return ch, off, loc
}

// value returns the record of the entry at off of ch; it aliases ch.
func value(ch []byte, off int) []byte {
	kl := int(binary.LittleEndian.Uint32(ch[off+8:]))
	vl := int(binary.LittleEndian.Uint32(ch[off+12:]))
	start := off + rowHeaderSize + kl
	return ch[start : start+vl : start+vl]
}

// refBit is the reference bit of the entry at off of ch (accessed
// atomically: get sets it under the shared lock).
func refBit(ch []byte, off int) *uint32 {
	return (*uint32)(unsafe.Pointer(&ch[off+16]))
}

// get returns the cached record of key (in shard sh, of hash h: locate)
// and true; on a miss, the token for put (noInsert while a write is in
// flight in key's shard).
func (c *rowCache) get(sh *rowShard, h uint64, key []byte) (val []byte, token uint64, ok bool) {
	sh.mu.RLock()
	if sh.writing > 0 {
		sh.mu.RUnlock()
		return nil, noInsert, false
	}
	ch, off, _ := sh.find(h, key)
	if ch == nil {
		token = sh.gen
		sh.mu.RUnlock()
		return nil, token, false
	}
	if ref := refBit(ch, off); atomic.LoadUint32(ref) == 0 { // written once per round, not per hit
		atomic.StoreUint32(ref, 1)
	}
	val = value(ch, off)
	sh.mu.RUnlock()
	return val, 0, true
}

// lockedGet returns the cached record of key, for a writer holding key's
// stripe lock (see above): no write of key is in flight, so an entry is
// its current record even while other keys of its shard are written.
func (c *rowCache) lockedGet(key []byte) ([]byte, bool) {
	sh, h := c.locate(key)
	sh.mu.RLock()
	ch, off, _ := sh.find(h, key)
	if ch == nil {
		sh.mu.RUnlock()
		return nil, false
	}
	if ref := refBit(ch, off); atomic.LoadUint32(ref) == 0 {
		atomic.StoreUint32(ref, 1)
	}
	val := value(ch, off)
	sh.mu.RUnlock()
	return val, true
}

// entrySize is the bytes an entry of key and val takes in a chunk.
func entrySize(key, val []byte) int {
	return (rowHeaderSize + len(key) + len(val) + 7) &^ 7
}

// fits reports whether an entry of key and val may be cached: at most a
// chunk, a quarter of the shard's bound.
func (sh *rowShard) fits(key, val []byte) bool {
	return entrySize(key, val) <= sh.chunkSize
}

// put inserts a copy of key's record val, read from Pebble after the
// lookup that returned token, unless a write began since or is in flight.
func (c *rowCache) put(sh *rowShard, h uint64, key, val []byte, token uint64) {
	if token == noInsert || !sh.fits(key, val) {
		return
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.gen != token || sh.writing > 0 {
		return
	}
	sh.insert(h, key, val)
}

// room reports whether an entry of key and val, which fits, goes in
// without evicting a chunk (sh.mu held).
func (sh *rowShard) room(key, val []byte) bool {
	return len(sh.chunks) < sh.maxChunks ||
		len(sh.chunks) > 0 && sh.used[len(sh.used)-1]+entrySize(key, val) <= sh.chunkSize
}

// insert writes an entry of key (hash h) and val, which fits, and makes
// it key's (sh.mu held exclusively).
func (sh *rowShard) insert(h uint64, key, val []byte) {
	size := entrySize(key, val)
	if len(sh.chunks) == 0 || sh.used[len(sh.used)-1]+size > sh.chunkSize {
		sh.grow(size)
	}
	sh.write(h, key, val)
}

// write appends an entry to the last chunk, which has room, and indexes
// it, its reference bit clear.
func (sh *rowShard) write(h uint64, key, val []byte) {
	last := len(sh.chunks) - 1
	ch, off := sh.chunks[last], sh.used[last]
	binary.LittleEndian.PutUint64(ch[off:], h)
	binary.LittleEndian.PutUint32(ch[off+8:], uint32(len(key)))
	binary.LittleEndian.PutUint32(ch[off+12:], uint32(len(val)))
	atomic.StoreUint32(refBit(ch, off), 0)
	copy(ch[off+rowHeaderSize:], key)
	copy(ch[off+rowHeaderSize+len(key):], val)
	sh.used[last] = off + entrySize(key, val)
	sh.idx[h] = (sh.first+uint64(last))<<rowLocBits | uint64(off)
}

// grow starts a new chunk; past the bound, the oldest chunk goes, its
// referenced entries copied into the new one while reserve bytes are left.
func (sh *rowShard) grow(reserve int) {
	sh.chunks = append(sh.chunks, make([]byte, sh.chunkSize))
	sh.used = append(sh.used, 0)
	if len(sh.chunks) <= sh.maxChunks {
		return
	}
	old, n := sh.chunks[0], sh.used[0]
	oldFirst := sh.first
	sh.chunks[0] = nil
	sh.chunks, sh.used = sh.chunks[1:], sh.used[1:]
	sh.first++
	last := len(sh.chunks) - 1
	for off := 0; off < n; {
		h := binary.LittleEndian.Uint64(old[off:])
		kl := int(binary.LittleEndian.Uint32(old[off+8:]))
		vl := int(binary.LittleEndian.Uint32(old[off+12:]))
		key := old[off+rowHeaderSize : off+rowHeaderSize+kl]
		val := old[off+rowHeaderSize+kl : off+rowHeaderSize+kl+vl]
		size := entrySize(key, val)
		if loc, ok := sh.idx[h]; ok && loc == oldFirst<<rowLocBits|uint64(off) {
			if atomic.LoadUint32(refBit(old, off)) != 0 && sh.used[last]+size+reserve <= sh.chunkSize {
				sh.write(h, key, val)
			} else {
				delete(sh.idx, h)
			}
		}
		off += size
	}
}

// remove drops key's entry, if any (sh.mu held exclusively).
func (sh *rowShard) remove(h uint64, key []byte) {
	if ch, _, _ := sh.find(h, key); ch != nil {
		delete(sh.idx, h)
	}
}

// bytes is the memory the shard's chunks take (sh.mu held).
func (sh *rowShard) bytes() int64 { return int64(len(sh.chunks)) * int64(sh.chunkSize) }

// rowWrite is a write's hold on the shards of its keys (begin, done).
type rowWrite struct {
	c      *rowCache
	keys   [][]byte
	shards []*rowShard // distinct, each marked once
	bulk   bool        // replace entries, add into free room only (storage.WithBulkWrite)
}

// begin marks the shards of keys as being written, before the write's
// commit; done ends it. The keys must stay unchanged until done. A bulk
// write (storage.WithBulkWrite) replaces the entries its keys have and
// adds new ones only into free room, evicting none (writeThrough). A nil
// cache does nothing.
func (c *rowCache) begin(keys [][]byte, bulk bool) rowWrite {
	if c == nil {
		return rowWrite{}
	}
	var seen [rowCacheShards]bool
	w := rowWrite{c: c, keys: keys, bulk: bulk}
	for _, k := range keys {
		i := c.hash(k) & (rowCacheShards - 1)
		if seen[i] {
			continue
		}
		seen[i] = true
		sh := &c.shards[i]
		w.shards = append(w.shards, sh)
		sh.mu.Lock()
		sh.writing++
		sh.gen++
		sh.mu.Unlock()
	}
	return w
}

// done ends the write, after its commit returned: committed is the
// batch it committed, nil if the commit failed. The records the batch
// wrote become their keys' entries (write-through, see above; a deleted
// key's entry goes); after a failed commit every key's entry goes. Then
// the shards serve and take entries again.
func (w rowWrite) done(committed *pebbledb.Batch) {
	if w.c == nil {
		return
	}
	if committed == nil || !w.writeThrough(committed) {
		for _, k := range w.keys {
			sh, h := w.c.locate(k)
			sh.mu.Lock()
			sh.remove(h, k)
			sh.mu.Unlock()
		}
	}
	for _, sh := range w.shards {
		sh.mu.Lock()
		sh.gen++
		sh.writing--
		sh.mu.Unlock()
	}
}

// writeThroughMax is the largest record a write puts into the cache
// (larger ones only drop the key's entry; a read may cache them). A
// large value is written as continuation entities of up to 1 MiB each,
// which a shard's bound would take: a 20 MiB INSERT copied 20 MiB into
// the cache, and four at once raised the peak RSS by 1.4 times one's
// (cmd/sqlgw TestLargeStatementMemory). OLTP rows are far smaller.
const writeThroughMax = 16 << 10

// writeThrough makes each record of the committed batch b its key's
// entry (a deletion drops it); a bulk write's record replaces its key's
// entry only if there is one. The keys the write did not write (an
// OpCheck's) keep their entries: they did not change. It returns false,
// having maybe done part of it, if b holds anything but sets and
// deletions, for done to drop every key instead.
func (w rowWrite) writeThrough(b *pebbledb.Batch) bool {
	r := b.Reader()
	for {
		kind, k, v, ok, err := r.Next()
		if err != nil {
			return false
		}
		if !ok {
			return true
		}
		sh, h := w.c.locate(k)
		put := false
		switch kind {
		case pebbledb.InternalKeyKindSet:
			put = len(v) <= writeThroughMax && sh.fits(k, v)
		case pebbledb.InternalKeyKindDelete:
		default:
			return false
		}
		sh.mu.Lock()
		switch {
		case !put:
			sh.remove(h, k)
		case partitionKey(k):
			// A global index's entity (prefix.go) is read by partition
			// queries, which do not consult the cache: it replaces its
			// key's entry if there is one (a Get read it), and is not
			// added. sysbench's prepare wrote 100,000 of them, a third
			// of the load's records, which no read then looked up.
			if ch, _, _ := sh.find(h, k); ch != nil {
				sh.insert(h, k, v)
			}
		case w.bulk:
			// A bulk write (a multi-row INSERT, LOAD DATA) replaces its
			// key's entry, and adds one only into free room: it never
			// evicts what reads cached (scan resistance).
			if ch, _, _ := sh.find(h, k); ch != nil || sh.room(k, v) {
				sh.insert(h, k, v)
			}
		default:
			sh.insert(h, k, v)
		}
		sh.mu.Unlock()
	}
}

// clear drops every entry (DeleteTable: the store is held exclusively,
// so no read or write is in flight).
func (c *rowCache) clear() {
	if c == nil {
		return
	}
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		clear(sh.idx)
		sh.first += uint64(len(sh.chunks))
		sh.chunks, sh.used = nil, nil
		sh.gen++
		sh.mu.Unlock()
	}
}

// stats returns the entries and bytes held (tests).
func (c *rowCache) stats() (entries int, bytes int64) {
	if c == nil {
		return 0, 0
	}
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		entries += len(sh.idx)
		bytes += sh.bytes()
		sh.mu.Unlock()
	}
	return entries, bytes
}

// getRecord returns the record under entity key as r (the database, or
// the shared snapshot sh) holds it, through the row cache when the read
// is of the store's current state (see above). The closer is nil for a
// cached record, which is never modified.
func (s *Store) getRecord(r reader, sh *shared, key []byte) ([]byte, io.Closer, error) {
	if s.rc == nil {
		return r.Get(key)
	}
	v, miss := s.cached(sh, key)
	if v != nil {
		return v, nil, nil
	}
	v, closer, err := r.Get(key)
	if err == nil {
		s.fill(miss, v)
	}
	return v, closer, err
}

// rowMiss is what a lookup that missed keeps for the insert of what the
// reader then reads (fill).
type rowMiss struct {
	s     *Store
	shard *rowShard
	hash  uint64
	key   []byte
	token uint64
	// pinned: the read is of a fixed state, taken when Store.commits was
	// commits (a snapshot's; a multi-get's iterator, pin), and its record
	// goes in only while nothing has committed since.
	pinned  bool
	commits uint64
}

// pin makes the miss's insert require that nothing committed since
// Store.commits was commits: its record is read from a state fixed then
// (a Pebble iterator's, which may predate the lookup).
func (m *rowMiss) pin(commits uint64) {
	if !m.pinned || commits < m.commits {
		m.pinned, m.commits = true, commits
	}
}

// cached returns the cached record of key for a read of sh (nil: the
// database), or nil and the miss to fill. s.rc must not be nil.
func (s *Store) cached(sh *shared, key []byte) ([]byte, rowMiss) {
	c := s.rc
	if sh != nil && sh.commits != s.commits.Load() {
		return nil, rowMiss{token: noInsert}
	}
	shard, h := c.locate(key)
	v, token, ok := c.get(shard, h, key)
	if ok {
		if sh == nil || sh.commits == s.commits.Load() {
			return v, rowMiss{}
		}
		token = noInsert // the snapshot is stale (and stays so)
	}
	m := rowMiss{s: s, shard: shard, hash: h, key: key, token: token}
	if sh != nil {
		m.pin(sh.commits)
	}
	return nil, m
}

// fill inserts v, the record the miss's reader read (from its snapshot,
// iterator or the database, after the lookup or pinned), if its read is
// still of the store's current state and no write began since the lookup.
func (s *Store) fill(m rowMiss, v []byte) {
	if m.token == noInsert || m.s == nil || m.pinned && m.commits != s.commits.Load() {
		return
	}
	s.rc.put(m.shard, m.hash, m.key, v, m.token)
}

// partitionKey reports whether k is an entity key of a table that splits
// at the partition (a global index's: prefix.go).
func partitionKey(k []byte) bool {
	return len(k) > tablePrefixLen && k[0] == tagEntity && k[1]&0x80 != 0
}

// committed is b if its commit returned err == nil, else nil (rowWrite.done).
func committed(b *pebbledb.Batch, err error) *pebbledb.Batch {
	if err != nil {
		return nil
	}
	return b
}

// cachedRead returns read (a writer's read of the current record of a
// key whose stripe it holds locked: Store.get or a tableReaders function)
// consulting the row cache first (lockedGet). The record it returns is
// never modified, like read's.
func (s *Store) cachedRead(read func([]byte) ([]byte, bool, error)) func([]byte) ([]byte, bool, error) {
	if s.rc == nil {
		return read
	}
	return func(key []byte) ([]byte, bool, error) {
		if v, ok := s.rc.lockedGet(key); ok {
			return v, true, nil
		}
		return read(key)
	}
}
