package pebble

import (
	"hash/maphash"
	"io"
	"sync"
	"sync/atomic"
	"unsafe"
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
// keys. Its memory is bounded by bytes (keys, records and a fixed
// per-entry overhead), split evenly over the shards, each evicting by
// CLOCK (second chance): a hit only sets its entry's referenced bit,
// under the shard's read lock, so that lookups in one shard run side by
// side and write nothing shared but the lock's reader count (and the bit,
// once); an insert past the bound looks at the oldest entries first,
// evicting one not referenced since it was last looked at, giving a
// referenced one another round (bit cleared, moved to the front). Moving
// each hit to the front of an LRU list, as before, took the shard's lock
// exclusively and wrote the entry's neighbours.
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

// rowEntryOverhead approximates the bytes an entry costs besides its key
// and record: the entry, its map slot and the allocation's rounding.
const rowEntryOverhead = 128

type rowShard struct {
	// mu is held shared by lookups (get), exclusively by everything else.
	mu      sync.RWMutex
	gen     uint64 // incremented by each begin and done of a write
	writing int    // writes in flight over this shard's keys
	m       map[string]*rowEntry
	lru     rowEntry // sentinel: lru.next is the newest (or last given a second chance), lru.prev the oldest
	bytes   int64
	max     int64
	_       [64]byte // keep shards' locks off each other's cache lines
}

type rowEntry struct {
	key        string // aliases buf
	val        []byte // aliases buf; never modified
	prev, next *rowEntry
	size       int64
	// ref: looked up since it was inserted or last given a second
	// chance (set by get under the shared lock, cleared by put under
	// the exclusive one).
	ref atomic.Bool
}

// newRowCache returns a cache of size bytes, nil for size <= 0.
func newRowCache(size int64) *rowCache {
	if size <= 0 {
		return nil
	}
	c := &rowCache{seed: maphash.MakeSeed()}
	for i := range c.shards {
		sh := &c.shards[i]
		sh.m = make(map[string]*rowEntry)
		sh.lru.next, sh.lru.prev = &sh.lru, &sh.lru
		sh.max = size / rowCacheShards
	}
	return c
}

func (c *rowCache) shard(key []byte) *rowShard {
	return &c.shards[maphash.Bytes(c.seed, key)&(rowCacheShards-1)]
}

// noInsert is the token of a lookup whose read must not be inserted.
const noInsert = ^uint64(0)

// get returns the cached record of key and true; on a miss, the token
// for put (noInsert while a write is in flight in key's shard).
func (c *rowCache) get(sh *rowShard, key []byte) (val []byte, token uint64, ok bool) {
	sh.mu.RLock()
	if sh.writing > 0 {
		sh.mu.RUnlock()
		return nil, noInsert, false
	}
	e := sh.m[string(key)]
	if e == nil {
		token = sh.gen
		sh.mu.RUnlock()
		return nil, token, false
	}
	if !e.ref.Load() { // written once per round, not per hit
		e.ref.Store(true)
	}
	sh.mu.RUnlock()
	return e.val, 0, true
}

// put inserts a copy of key's record val, read from Pebble after the
// lookup that returned token, unless a write began since or is in flight.
func (c *rowCache) put(sh *rowShard, key, val []byte, token uint64) {
	size := int64(len(key)+len(val)) + rowEntryOverhead
	if token == noInsert || size > sh.max/4 {
		return
	}
	buf := make([]byte, len(key)+len(val))
	copy(buf, key)
	copy(buf[len(key):], val)
	e := &rowEntry{key: unsafe.String(&buf[0], len(key)), val: buf[len(key):len(buf):len(buf)], size: size}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.gen != token || sh.writing > 0 {
		return
	}
	if old := sh.m[e.key]; old != nil {
		sh.remove(old)
	}
	sh.m[e.key] = e
	sh.pushFront(e)
	sh.bytes += size
	for sh.bytes > sh.max {
		// The oldest entry goes unless it was looked up since it was
		// last here: then it gets a second chance at the front. Each
		// entry passed clears its bit, so this ends within a round.
		// The new entry, oldest once every other has had its second
		// chance, goes round too, behind them (as CLOCK inserts behind
		// its hand), unless it is all there is.
		old := sh.lru.prev
		if (old.ref.Load() || old == e) && sh.lru.next != old {
			old.ref.Store(false)
			old.unlink()
			sh.pushFront(old)
			continue
		}
		sh.remove(old)
	}
}

func (sh *rowShard) pushFront(e *rowEntry) {
	e.prev, e.next = &sh.lru, sh.lru.next
	sh.lru.next.prev = e
	sh.lru.next = e
}

func (e *rowEntry) unlink() {
	e.prev.next = e.next
	e.next.prev = e.prev
}

// remove drops e (sh.mu held).
func (sh *rowShard) remove(e *rowEntry) {
	e.unlink()
	delete(sh.m, e.key)
	sh.bytes -= e.size
}

// rowWrite is a write's hold on the shards of its keys (begin, done).
type rowWrite struct {
	c      *rowCache
	keys   [][]byte
	shards []*rowShard // distinct, each marked once
}

// begin marks the shards of keys as being written, before the write's
// commit; done ends it. The keys must stay unchanged until done. A nil
// cache does nothing.
func (c *rowCache) begin(keys [][]byte) rowWrite {
	if c == nil {
		return rowWrite{}
	}
	var seen [rowCacheShards]bool
	w := rowWrite{c: c, keys: keys}
	for _, k := range keys {
		i := maphash.Bytes(c.seed, k) & (rowCacheShards - 1)
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

// done ends the write, after its commit returned (committed or not):
// the keys' entries are dropped, then the shards serve and take
// entries again.
func (w rowWrite) done() {
	if w.c == nil {
		return
	}
	for _, k := range w.keys {
		sh := w.c.shard(k)
		sh.mu.Lock()
		if e := sh.m[string(k)]; e != nil {
			sh.remove(e)
		}
		sh.mu.Unlock()
	}
	for _, sh := range w.shards {
		sh.mu.Lock()
		sh.gen++
		sh.writing--
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
		clear(sh.m)
		sh.lru.next, sh.lru.prev = &sh.lru, &sh.lru
		sh.bytes = 0
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
		entries += len(sh.m)
		bytes += sh.bytes
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
	shard := c.shard(key)
	v, token, ok := c.get(shard, key)
	if ok {
		if sh == nil || sh.commits == s.commits.Load() {
			return v, rowMiss{}
		}
		token = noInsert // the snapshot is stale (and stays so)
	}
	m := rowMiss{s: s, shard: shard, key: key, token: token}
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
	s.rc.put(m.shard, m.key, v, m.token)
}
