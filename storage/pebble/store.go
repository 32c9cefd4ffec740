// Package pebble is sqlgw's embedded entity store: the storage.Store
// contract on one Pebble database in a data directory (or in memory, for
// tests).
//
// # Decisions
//
// Durability: every write (entity writes, batches, CreateTable, DeleteTable)
// is committed with pebble.Sync unless Options.NoSync is set, so a write that
// returned survives a crash. Restarting on the same directory reopens every
// table. The one exception is a write whose context carries
// storage.WithDeferredSync (the index backfill's pages): it commits without
// waiting for the fsync and becomes durable with the next synced write or
// with MultiBatch's sync barrier (no batches), Pebble's log being ordered.
//
// Tuning: Open sets Pebble's options for a database server rather than
// Pebble's library defaults (a block cache sized from memory, bloom filters on
// every level, L0 and compaction limits); tuning.go lists each choice
// and why. The global indexes' tables get bloom filters over partitions,
// which their exact-partition queries consult (prefix.go).
//
// Keys and order: encoding.go defines the on-disk format. Entity keys are
// ordered by (PartitionKey, RowKey) in UTF-16 ordinal order, so queries are
// bounded Pebble iterations and results come back sorted. A Query page's
// entities share their byte copies and Entity structs (pagearena.go).
//
// Concurrency: a write (or batch) takes the striped mutexes of the entities
// it touches, in increasing stripe order, reads their current records,
// checks its conditions (existence, If-Match) and commits one Pebble batch
// before unlocking. Conditional read-modify-write is therefore linearizable
// per entity, and a Batch is atomic: all its operations are in one Pebble
// batch, which is applied only if every operation's check passed. Table DDL
// takes a store-wide RWMutex exclusively; every other operation holds it
// shared, so an entity write never lands in a table being deleted.
//
// ETags: "W/\"<epoch>.<seq>\"", where epoch is a persisted counter that every
// Open increments (synced) and seq a per-process counter, so no two writes of
// one directory ever get the same ETag, across restarts too.
//
// Queries: the filter is evaluated while scanning, on the encoded record
// through storage.EvalFunc with a property lookup that decodes nothing and
// allocates nothing; only matching entities are decoded (and only the
// selected properties). A page ends at min(Top, 1000) entities, at the end
// of the range, or after Options.MaxScanPerPage examined entities (like the
// Table service's time limit per page), with a continuation token naming the
// next key to examine. QueryRows (storage.RowQuerier, rows.go) reads the
// same page and decodes the selected properties of each entity into a row
// of values by position instead of a property map; GetRow
// (storage.RowGetter, getrow.go) does the same for Get. MultiQuery
// (storage.MultiQuerier) reads several queries' pages as Query reads each,
// in one call: one hold of the store lock, one table lookup and snapshot
// handle, one iterator re-bounded per query, one page arena (an IN list on
// a non-unique global index: a query per value). MultiGet
// (storage.MultiGetter, multiget.go) reads several entities likewise,
// with a prefix seek per key on that one iterator (the rows of an index
// read's hits).
//
// Row cache (rowcache.go, Options.RowCacheSize): Get and GetRow consult a
// bounded cache of the latest records of recently read entities before
// Pebble; every write drops the keys it writes, and reads at a snapshot
// use it only while the snapshot is the store's current state.
//
// Snapshots (storage.Snapshotter, snapshot.go): Pebble snapshots. Those
// taken while no batch commits and none committed since share one, which
// then shows exactly the store's current state, so a read-only load does
// not open and close a Pebble snapshot per statement.
//
// Locking: Store.mu (an RWMutex) is held shared by every operation and
// exclusively by table DDL and Close; Get, the point select's read, takes
// instead one of eight striped read locks that DDL and Close also take
// (rwstripes.go), so concurrent Gets do not all move one reader count.
package pebble

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"log"
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	pebbledb "github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/sqlgw/sqlgw/storage"
)

var _ storage.Store = (*Store)(nil)

// ErrClosed is returned by every method of a closed Store.
var ErrClosed = errors.New("sqlgw/pebble: store is closed")

// DefaultMaxScanPerPage is the default of Options.MaxScanPerPage.
const DefaultMaxScanPerPage = 50_000

// Options configure a Store. The zero value is a durable on-disk store with
// the Table service's limits.
type Options struct {
	// InMemory keeps the whole store in memory (vfs.NewMem); the directory
	// passed to Open is then only a name. Nothing survives Close.
	InMemory bool
	// FS, if set, is the filesystem to use (tests pass a crashable
	// vfs.MemFS). It overrides InMemory.
	FS vfs.FS
	// NoSync lets writes return before they reach stable storage. A crash
	// may then lose recently returned writes (never corrupt the store).
	NoSync bool
	// Limits, if set, replace storage.DefaultLimits.
	Limits *storage.Limits
	// MaxScanPerPage caps the entities one Query call examines; a page that
	// reaches it ends early (possibly empty) with a continuation token.
	// 0 means DefaultMaxScanPerPage; negative means no cap.
	MaxScanPerPage int
	// CacheSize is the block cache in bytes; 0 means DefaultCacheSize()
	// (tuning.go). Ignored when Pebble is set.
	CacheSize int64
	// RowCacheSize is the row cache in bytes (rowcache.go): the latest
	// records of recently read entities, which Get and GetRow consult
	// before Pebble. 0 (or negative) disables it.
	RowCacheSize int64
	// Pebble, if set, is the base for the Pebble options (FS and Logger
	// are filled in when nil) instead of the tuned ones (tuning.go). It is
	// not modified.
	Pebble *pebbledb.Options
	// OneUser: whoever opens the store hands it to a single gateway and
	// to nothing else (cmd/sqlgw serve). Only then may Claim report its
	// claimant alone: a store handed to several users, some through a
	// wrapper that cannot claim (a test's second gateway, a library
	// user's instrumentation), would otherwise look like one claimant's.
	OneUser bool
}

// numStripes is the number of entity lock stripes (a power of two).
const numStripes = 1024

type tableInfo struct {
	id   uint64
	name string // as created
}

// Store is the Pebble implementation of storage.Store. It is safe for
// concurrent use.
type Store struct {
	claims  atomic.Int64 // users (gateways) of this process: storage.Claimer
	oneUser bool         // Options.OneUser
	db      *pebbledb.DB
	rc      *rowCache // nil: none (Options.RowCacheSize)
	// multiGetIterHook (tests) runs when a multi-get has made its
	// iterator (pointReads.get).
	multiGetIterHook func()
	wo               *pebbledb.WriteOptions
	limits           storage.Limits
	maxScan          int

	// mu is held exclusively by table DDL and Close, and shared by every
	// other operation for its whole duration.
	mu          sync.RWMutex
	getMu       rwStripes // Get's read lock (rwstripes.go): DDL and Close take both
	closed      bool
	tables      map[string]tableInfo // by lower-cased name
	nextTableID uint64
	// prefixSeek: the store runs with partitionComparer (prefix.go), and
	// an exact-partition query on a flagged table seeks by prefix.
	prefixSeek bool
	// partitionFilters is ReadByPartition's function (with prefixSeek;
	// guarded by the locks CreateTable takes).
	partitionFilters func(table string) bool

	epoch uint64
	seq   atomic.Uint64

	seed    maphash.Seed
	stripes [numStripes]sync.Mutex

	// Open snapshots (snapshot.go), closed by Close; cur is the one new
	// snapshots share while no write commits, curIdle whether it has no
	// handle. commits counts the batches committed, committing those
	// committing (Store.commit).
	snapMu     sync.Mutex
	snaps      map[*shared]struct{}
	cur        *shared
	curIdle    atomic.Bool
	commits    atomic.Uint64
	committing atomic.Int64
}

// OpenMemory opens an empty in-memory store with default options, for tests.
func OpenMemory() (*Store, error) { return Open("", &Options{InMemory: true}) }

// Open opens (creating if needed) the store in directory dir.
func Open(dir string, opts *Options) (*Store, error) {
	if opts == nil {
		opts = &Options{}
	}
	var po pebbledb.Options
	if opts.Pebble != nil {
		po = *opts.Pebble
	} else {
		cache := opts.CacheSize
		if cache <= 0 {
			cache = DefaultCacheSize()
			if opts.InMemory || opts.FS != nil {
				// The data is in memory anyway: Pebble's own 8 MiB.
				cache = inMemoryCache
			}
		}
		po = tunedOptions(cache, opts.InMemory || opts.FS != nil)
	}
	switch {
	case opts.FS != nil:
		po.FS = opts.FS
	case opts.InMemory:
		po.FS = vfs.NewMem()
	case po.FS == nil && dir != "":
		// On disk: new logs written with zeros ahead (walfs.go).
		po.FS = walFS{vfs.Default}
	}
	if po.Logger == nil && po.LoggerAndTracer == nil {
		po.Logger = quietLogger{}
	}
	if dir == "" {
		if po.FS == nil {
			return nil, fmt.Errorf("sqlgw/pebble: no data directory given")
		}
		dir = "sqlgw"
	}
	db, err := pebbledb.Open(dir, &po)
	if err != nil {
		return nil, fmt.Errorf("sqlgw/pebble: open %s: %w", dir, err)
	}
	s := &Store{
		db:      db,
		wo:      pebbledb.Sync,
		limits:  storage.DefaultLimits,
		maxScan: opts.MaxScanPerPage,
		tables:  make(map[string]tableInfo),
		seed:    maphash.MakeSeed(),
		oneUser: opts.OneUser,
		rc:      newRowCache(opts.RowCacheSize),
	}
	if po.Comparer == partitionComparer {
		// The tuned options' comparer (prefix.go): flagged tables split
		// at the partition, so their partition queries seek by prefix.
		s.prefixSeek = true
	}
	if opts.NoSync {
		s.wo = pebbledb.NoSync
	}
	if opts.Limits != nil {
		s.limits = *opts.Limits
	}
	if s.maxScan == 0 {
		s.maxScan = DefaultMaxScanPerPage
	}
	if err := s.load(); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// load reads the table records and counters, and starts a new epoch.
func (s *Store) load() error {
	it, err := s.db.NewIter(&pebbledb.IterOptions{LowerBound: []byte{tagTable}, UpperBound: []byte{tagTable + 1}})
	if err != nil {
		return err
	}
	for it.First(); it.Valid(); it.Next() {
		v, err := it.ValueAndErr()
		if err != nil {
			it.Close()
			return err
		}
		id, name, err := decodeTableRecord(v)
		if err != nil {
			it.Close()
			return err
		}
		s.tables[string(it.Key()[1:])] = tableInfo{id: id, name: name}
	}
	if err := it.Close(); err != nil {
		return err
	}
	s.nextTableID, err = s.readCounter(sysNextTableID)
	if err != nil {
		return err
	}
	if s.nextTableID == 0 {
		s.nextTableID = 1
	}
	epoch, err := s.readCounter(sysOpenEpoch)
	if err != nil {
		return err
	}
	s.epoch = epoch + 1
	return s.db.Set(systemKey(sysOpenEpoch), u64(s.epoch), pebbledb.Sync)
}

func (s *Store) readCounter(name string) (uint64, error) {
	v, closer, err := s.db.Get(systemKey(name))
	if errors.Is(err, pebbledb.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer closer.Close()
	if len(v) != 8 {
		return 0, fmt.Errorf("sqlgw/pebble: corrupt counter %s", name)
	}
	return beU64(v), nil
}

func u64(x uint64) []byte {
	b := make([]byte, 8)
	for i := 7; i >= 0; i-- {
		b[i] = byte(x)
		x >>= 8
	}
	return b
}

func beU64(b []byte) uint64 {
	var x uint64
	for _, c := range b[:8] {
		x = x<<8 | uint64(c)
	}
	return x
}

// Close closes the store after the operations in progress. Every write
// that returned is durable (unless Options.NoSync).
func (s *Store) Close() error {
	s.lockAll()
	defer s.unlockAll()
	if s.closed {
		return ErrClosed
	}
	s.closed = true
	s.closeSnapshots()
	return s.db.Close()
}

// Capabilities implements storage.Store.
func (s *Store) Capabilities() storage.Capabilities {
	return storage.Capabilities{Limits: s.limits, Reverse: true, Cost: storage.PebbleCost, InProcess: true}
}

// DB returns the underlying Pebble database, for benchmarks and tools.
// Its reads see the store; writing through it would bypass the row cache
// (rowcache.go), so nothing does.
func (s *Store) DB() *pebbledb.DB { return s.db }

// rlock takes the store lock shared and checks ctx and that the store is
// open. On success the caller must call s.mu.RUnlock.
func (s *Store) rlock(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return ErrClosed
	}
	return nil
}

// table returns a table's info; s.mu must be held.
func (s *Store) table(name string) (tableInfo, error) {
	if err := storage.ValidateTableName(name); err != nil {
		return tableInfo{}, err
	}
	key := name // tables are keyed by their lower-cased name (tableKey)
	if hasUpperASCII(name) {
		key = string(tableKey(name)[1:])
	}
	t, ok := s.tables[key]
	if !ok {
		return tableInfo{}, fmt.Errorf("%w: table %q", storage.ErrNotFound, name)
	}
	return t, nil
}

func hasUpperASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

// CreateTable implements storage.Store.
func (s *Store) CreateTable(ctx context.Context, table string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := storage.ValidateTableName(table); err != nil {
		return err
	}
	s.lockAll()
	defer s.unlockAll()
	if s.closed {
		return ErrClosed
	}
	key := tableKey(table)
	if t, ok := s.tables[string(key[1:])]; ok {
		return fmt.Errorf("%w: table %q (as %q)", storage.ErrAlreadyExists, table, t.name)
	}
	id := s.nextTableID
	if id&partitionFlag != 0 {
		return fmt.Errorf("sqlgw/pebble: create table %q: table IDs exhausted", table)
	}
	next := id + 1
	if s.partitionFilters != nil && s.partitionFilters(table) {
		id |= partitionFlag // prefix.go
	}
	b := s.db.NewBatch()
	defer b.Close()
	b.Set(key, encodeTableRecord(id, table), nil)
	b.Set(systemKey(sysNextTableID), u64(next), nil)
	if err := s.commit(b, s.wo); err != nil {
		return fmt.Errorf("sqlgw/pebble: create table %q: %w", table, err)
	}
	s.nextTableID = next
	s.tables[string(key[1:])] = tableInfo{id: id, name: table}
	return nil
}

// DeleteTable implements storage.Store: one Pebble batch holding a range
// deletion of the table's entities and the deletion of its record.
func (s *Store) DeleteTable(ctx context.Context, table string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.lockAll()
	defer s.unlockAll()
	if s.closed {
		return ErrClosed
	}
	t, err := s.table(table)
	if err != nil {
		return err
	}
	b := s.db.NewBatch()
	defer b.Close()
	b.DeleteRange(appendTablePrefix(nil, t.id), appendTablePrefix(nil, t.id+1), nil)
	key := tableKey(table)
	b.Delete(key, nil)
	// No read or write is in flight (lockAll): the cache's entries of
	// the table go, before and after the commit alike.
	err = s.commit(b, s.wo)
	s.rc.clear()
	if err != nil {
		return fmt.Errorf("sqlgw/pebble: delete table %q: %w", table, err)
	}
	delete(s.tables, string(key[1:]))
	return nil
}

// ListTables implements storage.Store.
func (s *Store) ListTables(ctx context.Context) ([]string, error) {
	if err := s.rlock(ctx); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	keys := slices.Sorted(maps.Keys(s.tables))
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = s.tables[k].name
	}
	return names, nil
}

// TableExists implements storage.Store.
func (s *Store) TableExists(ctx context.Context, table string) (bool, error) {
	if err := s.rlock(ctx); err != nil {
		return false, err
	}
	defer s.mu.RUnlock()
	_, err := s.table(table)
	if errors.Is(err, storage.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// Get implements storage.Store.
func (s *Store) Get(ctx context.Context, table, pk, rk string, opts *storage.GetOptions) (*storage.Entity, error) {
	if err := s.limits.ValidateKeys(pk, rk); err != nil {
		return nil, err
	}
	mu, err := s.rlockGet(ctx)
	if err != nil {
		return nil, err
	}
	defer mu.RUnlock()
	t, err := s.table(table)
	if err != nil {
		return nil, err
	}
	var sel []string
	if opts != nil {
		if err := s.limits.ValidateQuery(&storage.Query{Select: opts.Select}); err != nil {
			return nil, err
		}
		sel = opts.Select
	}
	r, sh, done, err := s.reader(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	v, closer, err := s.getRecord(r, sh, appendEntityKey(make([]byte, 0, tablePrefixLen+len(pk)+1+len(rk)), t.id, pk, rk))
	if errors.Is(err, pebbledb.ErrNotFound) {
		return nil, fmt.Errorf("%w: entity (%q, %q) in table %q", storage.ErrNotFound, pk, rk, table)
	}
	if err != nil {
		return nil, err
	}
	if closer != nil {
		defer closer.Close()
	}
	rec, err := parseRecord(v)
	if err != nil {
		return nil, err
	}
	if sel != nil && len(sel) <= maxSelectScan {
		// A Get's few selected names are matched by a scan, and the
		// entity's property names are the caller's strings: no set, no
		// name copies (issue 13: a point select's Get).
		props, err := rec.decodePropsSelected(sel)
		if err != nil {
			return nil, err
		}
		return rec.entityWith(pk, rk, props), nil
	}
	return rec.entity(pk, rk, selectSet(sel))
}

// maxSelectScan is the largest projection Get matches by a scan of its
// names rather than a set.
const maxSelectScan = 16

// selectSet returns the set of user properties a projection keeps (nil: all).
func selectSet(sel []string) map[string]struct{} {
	if sel == nil {
		return nil
	}
	m := make(map[string]struct{}, len(sel))
	for _, n := range sel {
		m[n] = struct{}{}
	}
	return m
}

func (r *record) entity(pk, rk string, sel map[string]struct{}) (*storage.Entity, error) {
	props, err := r.decodeProps(sel)
	if err != nil {
		return nil, err
	}
	return r.entityWith(pk, rk, props), nil
}

// entityWith is the entity (pk, rk) of the record with properties props.
func (r *record) entityWith(pk, rk string, props storage.Properties) *storage.Entity {
	return &storage.Entity{
		PartitionKey: pk,
		RowKey:       rk,
		Properties:   props,
		ETag:         storage.ETag(r.etag),
		Timestamp:    ticksTime(r.ticks),
	}
}

// Insert implements storage.Store.
func (s *Store) Insert(ctx context.Context, table string, e *storage.Entity) (storage.ETag, error) {
	return s.writeOne(ctx, table, storage.Operation{Kind: storage.OpInsert, Entity: e})
}

// Upsert implements storage.Store.
func (s *Store) Upsert(ctx context.Context, table string, e *storage.Entity, mode storage.UpdateMode) (storage.ETag, error) {
	return s.writeOne(ctx, table, storage.Operation{Kind: storage.OpUpsert, Mode: mode, Entity: e})
}

// Update implements storage.Store.
func (s *Store) Update(ctx context.Context, table string, e *storage.Entity, mode storage.UpdateMode, ifMatch storage.ETag) (storage.ETag, error) {
	return s.writeOne(ctx, table, storage.Operation{Kind: storage.OpUpdate, Mode: mode, Entity: e, IfMatch: ifMatch})
}

// Delete implements storage.Store.
func (s *Store) Delete(ctx context.Context, table, pk, rk string, ifMatch storage.ETag) error {
	_, err := s.writeOne(ctx, table, storage.Operation{Kind: storage.OpDelete,
		Entity: &storage.Entity{PartitionKey: pk, RowKey: rk}, IfMatch: ifMatch})
	return err
}

func (s *Store) validateOp(op storage.Operation) error {
	switch op.Kind {
	case storage.OpInsert, storage.OpUpsert, storage.OpUpdate:
		return s.limits.ValidateEntity(op.Entity)
	case storage.OpDelete:
		return s.limits.ValidateKeys(op.Entity.PartitionKey, op.Entity.RowKey)
	}
	return fmt.Errorf("%w: unknown operation kind %v", storage.ErrInvalid, op.Kind)
}

func (s *Store) writeOne(ctx context.Context, table string, op storage.Operation) (storage.ETag, error) {
	if err := s.validateOp(op); err != nil {
		return "", err
	}
	etags, err := s.write(ctx, table, []storage.Operation{op})
	if err != nil {
		var be *storage.BatchError
		if errors.As(err, &be) {
			return "", be.Err
		}
		return "", err
	}
	return etags[0], nil
}

// Batch implements storage.Store.
func (s *Store) Batch(ctx context.Context, table string, ops []storage.Operation) ([]storage.ETag, error) {
	if err := s.limits.ValidateBatch(ops); err != nil {
		return nil, err
	}
	return s.write(ctx, table, ops)
}

// write applies validated operations atomically (see the package doc).
func (s *Store) write(ctx context.Context, table string, ops []storage.Operation) ([]storage.ETag, error) {
	if err := s.rlock(ctx); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	t, err := s.table(table)
	if err != nil {
		return nil, &storage.BatchError{Index: -1, Err: err}
	}
	keys := make([][]byte, len(ops))
	stripes := make([]int, 0, len(ops))
	for i, op := range ops {
		keys[i] = appendEntityKey(nil, t.id, op.Entity.PartitionKey, op.Entity.RowKey)
		stripes = append(stripes, int(maphash.Bytes(s.seed, keys[i])&(numStripes-1)))
	}
	slices.Sort(stripes)
	stripes = slices.Compact(stripes)
	for _, i := range stripes {
		s.stripes[i].Lock()
	}
	defer func() {
		for _, i := range stripes {
			s.stripes[i].Unlock()
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	// A batch reads its current records through one iterator over its
	// partition, cheaper than a Get per operation.
	read := s.get
	if len(ops) > 1 {
		pk := ops[0].Entity.PartitionKey
		lower := append(appendEKey(appendTablePrefix(nil, t.id), pk), keySep)
		upper := append(appendEKey(appendTablePrefix(nil, t.id), pk), partitionEnd)
		it, err := s.db.NewIter(&pebbledb.IterOptions{LowerBound: lower, UpperBound: upper})
		if err != nil {
			return nil, err
		}
		defer it.Close()
		read = func(key []byte) ([]byte, bool, error) {
			if !it.SeekGE(key) || !bytes.Equal(it.Key(), key) {
				return nil, false, it.Error()
			}
			v, err := it.ValueAndErr()
			return v, err == nil, err
		}
	}
	read = s.cachedRead(read) // the keys' stripes are locked (rowcache.go)

	ticks := storage.DateTime(time.Now()).Ticks()
	b := s.db.NewBatch()
	defer b.Close()
	etags := make([]storage.ETag, len(ops))
	var buf []byte // each record, copied by Set
	for i, op := range ops {
		etag, val, err := s.apply(op, keys[i], ticks, read, buf)
		if err != nil {
			return nil, &storage.BatchError{Index: i, Err: err}
		}
		if val == nil {
			b.Delete(keys[i], nil)
		} else {
			b.Set(keys[i], val, nil)
			buf = val[:0]
		}
		etags[i] = etag
	}
	// The row cache's entries of the keys become the records written,
	// or go if the commit failed (rowcache.go).
	w := s.rc.begin(keys, storage.BulkWrite(ctx))
	err = s.commit(b, s.writeOptions(ctx))
	w.done(committed(b, err))
	if err != nil {
		return nil, fmt.Errorf("sqlgw/pebble: commit: %w", err)
	}
	return etags, nil
}

// get returns the current record under key; the slice is valid until the
// next get (it is a copy).
func (s *Store) get(key []byte) ([]byte, bool, error) {
	v, closer, err := s.db.Get(key)
	if errors.Is(err, pebbledb.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	v = bytes.Clone(v)
	closer.Close()
	return v, true, nil
}

// apply checks one operation against the current record under key (its
// stripe locked) and returns the new ETag and record (nil: delete). The
// record is encoded into buf's array when it is large enough: the callers
// hand it to a pebble.Batch's Set, which copies it, and reuse the array
// for the next operation (a bulk INSERT's thousand records).
func (s *Store) apply(op storage.Operation, key []byte, ticks int64, read func([]byte) ([]byte, bool, error), buf []byte) (storage.ETag, []byte, error) {
	e := op.Entity
	if op.Kind == storage.OpUpsert && op.Mode != storage.Merge {
		// Replaces whatever is there: nothing to read (a backfill page's
		// index entities, continuation entities).
		etag := s.newETag()
		return etag, encodeEntity(buf[:0], e.Properties, etag, ticks), nil
	}
	cur, found, err := read(key)
	if err != nil {
		return "", nil, err
	}
	var rec record
	if found {
		if rec, err = parseRecord(cur); err != nil {
			return "", nil, err
		}
	}
	switch op.Kind {
	case storage.OpInsert:
		if found {
			return "", nil, fmt.Errorf("%w: entity (%q, %q)", storage.ErrAlreadyExists, e.PartitionKey, e.RowKey)
		}
	case storage.OpUpdate, storage.OpDelete:
		if !found {
			return "", nil, fmt.Errorf("%w: entity (%q, %q)", storage.ErrNotFound, e.PartitionKey, e.RowKey)
		}
		if op.IfMatch != "" && op.IfMatch != storage.ETagAny && string(op.IfMatch) != string(rec.etag) {
			return "", nil, fmt.Errorf("%w: entity (%q, %q)", storage.ErrPreconditionFailed, e.PartitionKey, e.RowKey)
		}
		if op.Kind == storage.OpDelete {
			return "", nil, nil
		}
	}
	if found && op.Kind != storage.OpInsert && op.Mode == storage.Merge && len(e.Properties) == 0 {
		// An empty Merge (a local index backfill's ETag bump of a row,
		// catalog/ixmaint): the stored properties byte for byte, under a
		// new ETag and timestamp, without decoding and encoding them.
		etag := s.newETag()
		return etag, encodeRecord(buf[:0], etag, ticks, rec.n, rec.props), nil
	}
	props := e.Properties
	if found && op.Kind != storage.OpInsert && op.Mode == storage.Merge {
		old, err := rec.decodeProps(nil)
		if err != nil {
			return "", nil, err
		}
		maps.Copy(old, e.Properties)
		props = old
		if len(props) > storage.MaxProperties {
			return "", nil, fmt.Errorf("%w: merge gives %d properties, the limit is %d", storage.ErrTooLarge, len(props), storage.MaxProperties)
		}
		merged := &storage.Entity{PartitionKey: e.PartitionKey, RowKey: e.RowKey, Properties: props}
		if n := storage.EntitySize(merged); n > storage.MaxEntityBytes {
			return "", nil, fmt.Errorf("%w: merge gives an entity of %d bytes, the limit is %d", storage.ErrTooLarge, n, storage.MaxEntityBytes)
		}
	}
	etag := s.newETag()
	return etag, encodeEntity(buf[:0], props, etag, ticks), nil
}

func (s *Store) newETag() storage.ETag {
	n := s.seq.Add(1)
	b := make([]byte, 0, 32)
	b = append(b, `W/"`...)
	b = strconv.AppendUint(b, s.epoch, 10)
	b = append(b, '.')
	b = strconv.AppendUint(b, n, 10)
	b = append(b, '"')
	return storage.ETag(b)
}

// Query implements storage.Store.
func (s *Store) Query(ctx context.Context, table string, q *storage.Query) (*storage.Page, error) {
	return s.query(ctx, table, q, nil, nil)
}

// QueryRows implements storage.RowQuerier: Query's page as rows, the
// selected properties decoded from each record straight into the row's
// values (scanRows), with no property map.
func (s *Store) QueryRows(ctx context.Context, table string, q *storage.Query, marks []string) (*storage.RowPage, error) {
	if q.Select == nil {
		return nil, storage.ErrRowsUnsupported
	}
	rows := &storage.RowPage{}
	page, err := s.query(ctx, table, q, rows, marks)
	if err != nil {
		return nil, err
	}
	rows.Continuation = page.Continuation
	return rows, nil
}

// query is Query; with rows set, the page's entities are appended to
// rows.Rows instead (QueryRows), and the returned page carries only the
// continuation.
func (s *Store) query(ctx context.Context, table string, q *storage.Query, rows *storage.RowPage, marks []string) (*storage.Page, error) {
	if err := s.limits.ValidateQuery(q); err != nil {
		return nil, err
	}
	if err := s.rlock(ctx); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	t, err := s.table(table)
	if err != nil {
		return nil, err
	}
	var src iterSource
	defer src.close()
	return s.queryIn(ctx, t, q, rows, marks, &src, &storage.Page{})
}

// MultiQuery implements storage.MultiQuerier: the queries are read one
// after another as Query reads each, under one hold of the store lock,
// one table lookup and one snapshot handle, through one iterator
// re-bounded per query (iterSource), where a loop of Query calls takes
// each of these per query. An error ends the read as it would end the
// loop. The pages are cut from one slab, their bounds and entity lists
// from the call's arena (scanState): an IN list's queries of an entity or
// none each allocate per call, not per query.
func (s *Store) MultiQuery(ctx context.Context, table string, qs []*storage.Query) ([]*storage.Page, error) {
	pages := make([]*storage.Page, len(qs))
	if len(qs) == 0 {
		return pages, nil
	}
	slab := make([]storage.Page, len(qs))
	if err := s.limits.ValidateQuery(qs[0]); err != nil {
		return nil, err
	}
	if err := s.rlock(ctx); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	t, err := s.table(table)
	if err != nil {
		return nil, err
	}
	var buf [16]int
	order, sorted := seekOrder(qs, buf[:0])
	if sorted {
		// Validated in the caller's order, before any read: the reads
		// of these queries fail only as the store does, so the error
		// is the one a loop of Query calls would return.
		for _, q := range qs[1:] {
			if err := s.limits.ValidateQuery(q); err != nil {
				return nil, err
			}
		}
	}
	var src iterSource
	defer src.close()
	for n, i := range order {
		q := qs[i]
		if n > 0 {
			if !sorted {
				if err := s.limits.ValidateQuery(q); err != nil {
					return nil, err
				}
			}
			if err := ctx.Err(); err != nil { // Query's rlock checks it
				return nil, err
			}
		}
		page, err := s.queryIn(ctx, t, q, nil, nil, &src, &slab[i])
		if err != nil {
			return nil, err
		}
		pages[i] = page
	}
	return pages, nil
}

// seekOrder returns the order in which MultiQuery reads qs (indices into
// qs, appended to buf): by partition, from the greatest down, when every
// query is a forward read of one partition from its start (an IN list's
// index lookups; sorted reports it), else as given. Any order reads the same pages (one
// iterator at one snapshot; each page goes to its query's slot). In key
// order, consecutive seeks of a multi-file level stay in one loaded file
// while their keys are in it (Pebble's levelIter reuses it). Descending,
// not ascending: after a prefix seek that found nothing, Pebble's
// Iterator.SeekPrefixGE to a greater prefix enables TrySeekUsingNext, and
// the memtable and sstable iterators then step forward a few keys before
// they seek; an IN list's values are far apart in an index of many
// entities, so the steps are wasted (ascending measured no better than the
// caller's order, descending 3-5% less CPU per 10-query MultiQuery on a
// compacted store of 100,000 index entities; docs/benchmarks.md, h15seek).
func seekOrder(qs []*storage.Query, buf []int) (order []int, sorted bool) {
	sorted = len(qs) > 1
	for i, q := range qs {
		buf = append(buf, i)
		if _, single := q.Partition.Single(); !single || q.Reverse || q.Continuation != "" {
			sorted = false
		}
	}
	if sorted {
		slices.SortStableFunc(buf, func(a, b int) int {
			pa, _ := qs[a].Partition.Single()
			pb, _ := qs[b].Partition.Single()
			return compareEKeys(pb, pa)
		})
	}
	return buf, sorted
}

// compareEKeys compares the keys of partitions a and b: their encodings
// (appendEKey) byte by byte, a prefix first (a partition's keys go on with
// keySep, below every encoded byte).
func compareEKeys(a, b string) int {
	for i := range min(len(a), len(b)) {
		if x, y := ekeyMap[a[i]], ekeyMap[b[i]]; x != y {
			return int(x) - int(y)
		}
	}
	return len(a) - len(b)
}

// queryIn is query's read of q's page on table t (s.mu held shared), from
// src's iterator, into page (empty).
func (s *Store) queryIn(ctx context.Context, t tableInfo, q *storage.Query, rows *storage.RowPage, marks []string, src *iterSource, page *storage.Page) (*storage.Page, error) {
	lower, upper := queryBounds(&src.scan.arena, t.id, q)
	// A forward read starts at start; a reverse one (Query.Reverse) at
	// the last key below end.
	start, end := lower, upper
	if q.Continuation != "" {
		pk, rk, err := decodeToken(q.Continuation, s.limits)
		if err != nil {
			return nil, err
		}
		tok := appendEntityKey(nil, t.id, pk, rk)
		if q.Reverse {
			if bytes.Compare(tok, upper) >= 0 {
				return nil, fmt.Errorf("%w: continuation token outside the query's range", storage.ErrInvalid)
			}
			// Keys hold no 0x00: tok|0x00 is tok's immediate successor,
			// so the read resumes at tok itself.
			end = append(tok, 0)
		} else {
			start = tok
			if bytes.Compare(start, lower) < 0 {
				return nil, fmt.Errorf("%w: continuation token outside the query's range", storage.ErrInvalid)
			}
		}
	}
	if bytes.Compare(start, end) >= 0 {
		return page, nil
	}
	// A forward read of one partition of a flagged table seeks by prefix:
	// the bloom filters rule out the files without the partition
	// (prefix.go). The prefix seek stops at the partition's end as the
	// partition's upper bound would: without a RowKey range the iterator
	// keeps the table's bounds, so that the queries of a MultiQuery do not
	// re-bound it each (Pebble's SetBounds with unchanged bounds is a
	// no-op; new ones reach every level's iterator).
	_, single := q.Partition.Single()
	src.prefix = s.prefixSeek && flagged(t.id) && single && !q.Reverse && !noPrefixSeek
	il, iu := lower, upper
	if src.prefix && q.Row == nil {
		if src.tableLow == nil || src.tableID != t.id {
			buf := make([]byte, 0, 2*tablePrefixLen)
			src.tableLow = appendTablePrefix(buf[:0:tablePrefixLen], t.id)
			src.tableHigh = appendTablePrefix(buf[tablePrefixLen:tablePrefixLen], t.id+1)
			src.tableID = t.id
		}
		il, iu = src.tableLow, src.tableHigh
	}
	it, err := src.iter(ctx, s, il, iu)
	if err != nil {
		return nil, err
	}
	page, err = s.scan(ctx, src, it, q, page, rows, marks, start, end)
	if err != nil {
		src.bad = true
	}
	return page, err
}

// iterSource is the iterator of a Query or MultiQuery: made for the
// first query that reads, at the snapshot ctx carries (an iterator the
// snapshot kept: shared.iter) or of the database, and re-bounded for each
// next one. close puts an iterator of a snapshot back for the next read
// when every read ended well (shared.putIter), else closes it, then ends
// the read (reader).
type iterSource struct {
	r    reader // the read's (start)
	sh   *shared
	done func()
	it   *pebbledb.Iterator
	bad  bool
	// prefix: the current query seeks by prefix (queryIn).
	prefix bool
	// tableLow and tableHigh bound table tableID's entities (queryIn).
	tableLow, tableHigh []byte
	tableID             uint64
	scan                scanState
	// rows are a MultiQueryRows call's rows (rows.go), shared by the
	// pages of its queries; nil elsewhere.
	rows *rowCols
}

// scanState is what scan keeps across the queries of one call: the page
// arena (pagearena.go), whose chunks the pages of a MultiQuery share (an
// IN list's queries return an entity or none each: a chunk and an entity
// slab per query were most of the bytes select_random_points allocated),
// the interned property names, and the projection's set, made again only
// for another Select.
type scanState struct {
	arena pageArena
	names map[string]string
	sel   map[string]struct{}
	selOf []string
	made  bool
	// pkBuf and rkBuf are scan's scratch buffers of decoded keys, kept
	// for the next query; lastEPK is the encoded PartitionKey of the
	// last entity a scan returned, lastPK its string (in the arena).
	pkBuf, rkBuf, lastEPK []byte
	lastPK                string
}

// selectSet is selectSet(sel), made once for equal projections (nil and
// empty told apart: all properties, none).
func (st *scanState) selectSet(sel []string) map[string]struct{} {
	if !st.made || (sel == nil) != (st.selOf == nil) || !slices.Equal(sel, st.selOf) {
		st.sel, st.selOf, st.made = selectSet(sel), sel, true
	}
	return st.sel
}

// namesMap returns the interned property names (made on first use).
func (st *scanState) namesMap() map[string]string {
	if st.names == nil {
		st.names = make(map[string]string)
	}
	return st.names
}

// iter returns the iterator bounded by lower and upper.
func (src *iterSource) iter(ctx context.Context, s *Store, lower, upper []byte) (*pebbledb.Iterator, error) {
	if src.it != nil {
		src.it.SetBounds(lower, upper)
		return src.it, nil
	}
	if err := src.start(ctx, s); err != nil {
		return nil, err
	}
	var err error
	if src.sh != nil {
		src.it, err = src.sh.iter(ctx, lower, upper)
	} else {
		src.it, err = src.r.NewIterWithContext(ctx, &pebbledb.IterOptions{LowerBound: lower, UpperBound: upper})
	}
	return src.it, err
}

// start begins the read (its reader, snapshot and release) before any
// iterator is made; again, it does nothing.
func (src *iterSource) start(ctx context.Context, s *Store) error {
	if src.done != nil {
		return nil
	}
	r, sh, done, err := s.reader(ctx)
	if err != nil {
		return err
	}
	src.r, src.sh, src.done = r, sh, done
	return nil
}

// close releases the iterator and ends the read.
func (src *iterSource) close() {
	if src.it != nil {
		if src.sh != nil && !src.bad {
			src.sh.putIter(src.it)
		} else {
			src.it.Close()
		}
	}
	if src.done != nil {
		src.done()
	}
}

// scan is Query's read of its page from it, positioned at start (end for
// a reverse read).
func (s *Store) scan(ctx context.Context, src *iterSource, it *pebbledb.Iterator, q *storage.Query, page *storage.Page, rows *storage.RowPage, marks []string, start, end []byte) (*storage.Page, error) {

	limit := storage.MaxPageSize
	if q.Top > 0 && q.Top < limit {
		limit = q.Top
	}
	// Encoded RowKey bounds; an empty RowKey encodes as nil, so whether
	// a bound is set is read from q.Row, never from these.
	var rowLow, rowHigh []byte
	if q.Row != nil {
		if q.Row.Low != nil {
			rowLow = appendEKey(nil, q.Row.Low.Key)
		}
		if q.Row.High != nil {
			rowHigh = appendEKey(nil, q.Row.High.Key)
		}
	}
	var sel map[string]struct{}
	var own rowCols // rows.go
	cols := src.rows
	switch {
	case rows == nil:
		sel = src.scan.selectSet(q.Select)
	case cols == nil:
		cols = &own
		cols.init(q.Select, marks)
		defer cols.finish(rows)
	default:
		// A MultiQueryRows call's rows, shared by its queries.
		cols.startPage()
	}

	// The filter's property lookup works on the current record and keys,
	// decoded into reused buffers: no allocation per examined entity.
	st := &src.scan
	var (
		rec      record
		epk, erk []byte
	)
	get := func(prop string) (storage.Value, bool) {
		pkBuf, rkBuf := &st.pkBuf, &st.rkBuf
		switch prop {
		case storage.PropPartitionKey:
			*pkBuf = appendDecodedEKey((*pkBuf)[:0], epk)
			return storage.String(unsafeString(*pkBuf)), true
		case storage.PropRowKey:
			*rkBuf = appendDecodedEKey((*rkBuf)[:0], erk)
			return storage.String(unsafeString(*rkBuf)), true
		case storage.PropTimestamp:
			return storage.DateTimeTicks(rec.ticks), true
		}
		return rec.lookup(prop)
	}

	scanned := 0
	var seekBuf []byte
	var names map[string]string
	if rows == nil {
		names = src.scan.namesMap()
	}
	arena := &src.scan.arena // pagearena.go
	if rows == nil {
		page.Entities = arena.entityList()
		defer arena.keepList(page)
	}
	var valid bool
	switch {
	case q.Reverse:
		valid = it.SeekLT(end)
	case src.prefix:
		// start's prefix is its partition's (queryIn): the iterator
		// stops at the partition's end, as its upper bound does.
		valid = it.SeekPrefixGE(start)
	default:
		valid = it.SeekGE(start)
	}
	for valid {
		key := it.Key()
		var ok bool
		epk, erk, ok = splitEntityKey(key)
		if !ok {
			return nil, fmt.Errorf("sqlgw/pebble: corrupt key %x", key)
		}
		if q.Row != nil && q.Reverse {
			// Backwards: below the RowKey range, go to the previous
			// partition; above it, to its high end in this partition.
			if q.Row.Low != nil {
				c := bytes.Compare(erk, rowLow)
				if c < 0 || (c == 0 && q.Row.Low.Exclusive) {
					seekBuf = append(append(append(seekBuf[:0], key[:tablePrefixLen]...), epk...), keySep)
					valid = it.SeekLT(seekBuf)
					continue
				}
			}
			if q.Row.High != nil {
				c := bytes.Compare(erk, rowHigh)
				if c > 0 || (c == 0 && q.Row.High.Exclusive) {
					seekBuf = append(append(append(seekBuf[:0], key[:tablePrefixLen]...), epk...), keySep)
					seekBuf = append(seekBuf, rowHigh...)
					if !q.Row.High.Exclusive {
						seekBuf = append(seekBuf, 0) // rowHigh's successor
					}
					valid = it.SeekLT(seekBuf)
					continue
				}
			}
		} else if q.Row != nil {
			if q.Row.Low != nil {
				c := bytes.Compare(erk, rowLow)
				if c < 0 || (c == 0 && q.Row.Low.Exclusive) {
					seekBuf = append(append(append(seekBuf[:0], key[:tablePrefixLen]...), epk...), keySep)
					seekBuf = append(seekBuf, rowLow...)
					if q.Row.Low.Exclusive {
						seekBuf = append(seekBuf, 0) // the successor of rowLow
					}
					valid = it.SeekGE(seekBuf)
					continue
				}
			}
			if q.Row.High != nil {
				c := bytes.Compare(erk, rowHigh)
				if c > 0 || (c == 0 && q.Row.High.Exclusive) {
					seekBuf = append(append(seekBuf[:0], key[:tablePrefixLen]...), epk...)
					seekBuf = append(seekBuf, partitionEnd)
					valid = it.SeekGE(seekBuf)
					continue
				}
			}
		}
		if len(page.Entities) == limit || rows != nil && cols.count() == limit || (s.maxScan > 0 && scanned == s.maxScan) {
			page.Continuation = encodeToken(appendDecodedEKey(nil, epk), appendDecodedEKey(nil, erk))
			break
		}
		if scanned&63 == 63 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		scanned++
		v, err := it.ValueAndErr()
		if err != nil {
			return nil, err
		}
		if rec, err = parseRecord(v); err != nil {
			return nil, err
		}
		if q.Filter == nil || storage.EvalFunc(q.Filter, get) {
			// Entities of one partition share their PartitionKey string.
			if st.lastPK == "" || !bytes.Equal(epk, st.lastEPK) {
				st.lastEPK = append(st.lastEPK[:0], epk...)
				st.pkBuf = appendDecodedEKey(st.pkBuf[:0], epk)
				st.lastPK = arena.string(st.pkBuf)
			}
			st.rkBuf = appendDecodedEKey(st.rkBuf[:0], erk)
			if rows != nil {
				if err := cols.add(st.lastPK, arena.string(st.rkBuf), storage.ETag(arena.string(rec.etag)), &rec, arena); err != nil {
					return nil, err
				}
				if q.Reverse {
					valid = it.Prev()
				} else {
					valid = it.Next()
				}
				continue
			}
			props, err := rec.decodePropsInterned(sel, names, arena)
			if err != nil {
				return nil, err
			}
			e := arena.entity()
			*e = storage.Entity{
				PartitionKey: st.lastPK,
				RowKey:       arena.string(st.rkBuf),
				Properties:   props,
				ETag:         storage.ETag(arena.string(rec.etag)),
				Timestamp:    ticksTime(rec.ticks),
			}
			page.Entities = append(page.Entities, e)
		}
		if q.Reverse {
			valid = it.Prev()
		} else {
			valid = it.Next()
		}
	}
	if err := it.Error(); err != nil {
		return nil, err
	}
	return page, nil
}

// queryBounds returns the iteration bounds of a query on table id; those
// of one partition are cut from arena (never written again: the iterator
// may keep them as its bounds).
func queryBounds(arena *pageArena, id uint64, q *storage.Query) (lower, upper []byte) {
	p := q.Partition
	if pk, ok := p.Single(); ok {
		// One partition: bound by the RowKey range too. Both bounds in
		// one cut of the arena (an IN list of a non-unique index runs a
		// query per value).
		nl, nu := tablePrefixLen+len(pk)+2, tablePrefixLen+len(pk)+2
		if r := q.Row; r != nil && r.Low != nil {
			nl += len(r.Low.Key)
		}
		if r := q.Row; r != nil && r.High != nil {
			nu += len(r.High.Key)
		}
		buf := arena.cut(nl + nu)
		lower = append(appendEKey(appendTablePrefix(buf[:0:nl], id), pk), keySep)
		upper = append(appendEKey(appendTablePrefix(buf[nl:nl:nl+nu], id), pk), keySep)
		if r := q.Row; r != nil && r.Low != nil {
			lower = appendEKey(lower, r.Low.Key)
			if r.Low.Exclusive {
				lower = append(lower, 0)
			}
		}
		if r := q.Row; r != nil && r.High != nil {
			upper = appendEKey(upper, r.High.Key)
			if !r.High.Exclusive {
				upper = append(upper, 0)
			}
		} else {
			upper[len(upper)-1] = partitionEnd
		}
		return lower, upper
	}
	nl, nu := tablePrefixLen, tablePrefixLen
	if p != nil && p.Low != nil {
		nl += len(p.Low.Key) + 1
	}
	if p != nil && p.High != nil {
		nu += len(p.High.Key) + 1
	}
	buf := arena.cut(nl + nu)
	lower = appendTablePrefix(buf[:0:nl], id)
	upper = appendTablePrefix(buf[nl:nl:nl+nu], id+1)
	if p == nil {
		return lower, upper
	}
	if p.Low != nil {
		lower = appendEKey(lower, p.Low.Key)
		if p.Low.Exclusive {
			lower = append(lower, partitionEnd)
		}
	}
	if p.High != nil {
		upper = appendEKey(appendTablePrefix(buf[nl:nl:nl+nu], id), p.High.Key)
		if !p.High.Exclusive {
			upper = append(upper, partitionEnd)
		}
	}
	return lower, upper
}

// quietLogger drops Pebble's informational messages.
type quietLogger struct{}

func (quietLogger) Infof(string, ...any)              {}
func (quietLogger) Errorf(format string, args ...any) { log.Printf("pebble: "+format, args...) }
func (quietLogger) Fatalf(format string, args ...any) { log.Fatalf("pebble: "+format, args...) }

var _ storage.Claimer = (*Store)(nil)

// Claim implements storage.Claimer: no other process can open the store
// (Pebble locks its directory; an in-memory store is this process's
// alone), so, when its opener hands it to one gateway only
// (Options.OneUser), its users are the claims held on this Store.
// Without OneUser alone is always false.
func (s *Store) Claim() (alone func() bool, release func()) {
	s.claims.Add(1)
	var once sync.Once
	return func() bool { return s.oneUser && s.claims.Load() == 1 }, func() { once.Do(func() { s.claims.Add(-1) }) }
}
