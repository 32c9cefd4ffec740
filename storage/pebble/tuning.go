package pebble

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"

	pebbledb "github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/sstable"
)

// Tuning: Pebble as a database, not a library default (issue 13)
//
// Open sets these Pebble options unless Options.Pebble supplies its own:
//
//   - Block cache: Options.CacheSize bytes, default DefaultCacheSize() =
//     a quarter of the memory available to the process (the cgroup limit
//     when there is one, else physical memory), clamped to [64 MiB, 1 GiB].
//     Pebble's own default is 8 MiB, which on a 100,000-row sysbench table
//     made every point Get re-read and decompress index and data blocks (a
//     512 MiB cache cut the CPU per point select by 14%). `sqlgw serve
//     --pebble-cache SIZE` overrides it. MariaDB's equivalent is
//     innodb_buffer_pool_size (128 MiB by default; sqlgw's benchmark gives
//     it 256 MiB). In-memory stores (memory:, tests) keep Pebble's 8 MiB:
//     their data is in memory anyway, and a larger cache only adds to the
//     process's peak memory (cmd/sqlgw TestLargeStatementMemory).
//   - Bloom filters (10 bits per key) on every level: the existence checks
//     of Insert and of conditional writes on absent keys, and point Gets of
//     absent rows, skip the tables that cannot hold the key; a global
//     index's partition queries skip the tables that cannot hold the
//     partition (prefix.go: the comparer's Split, the filters' name).
//   - Memtable: 64 MiB on disk (diskMemTableSize; Pebble's 4 MiB in
//     memory), 2 queued. sysbench's prepare (100,000 rows, then the
//     backfill's rewrite of them) fits one memtable: fewer flushes and
//     compactions; its server CPU fell to 0.66-0.71 and its time to
//     0.75-0.87 of 4 MiB memtables (sixteenth session). Larger memtables
//     used to cost every single synced write 2-3 times as long on a fresh
//     store (issue 13, fourth round): Pebble preallocates each new WAL to
//     110% of the memtable with fallocate, and until a flush lets it
//     recycle one, every fdatasync also journals the file's size and the
//     extent it wrote into. The logs are written with zeros ahead instead
//     (walfs.go): 321-343 us per synced write against 406-471 us with
//     fallocate (64 MiB memtables, a fresh store, one writer), and
//     oltp_insert after prepare at 0.94-1.26 (one thread) and 1.08-1.15
//     (four) of 4 MiB memtables. Memory: up to three 64 MiB memtables (one
//     filling, two queued for flush).
//   - L0 tables uncompressed (lower levels keep Pebble's Snappy): a flush
//     writes L0 and the next compaction rewrites it soon after, so
//     compressing it is CPU spent on data that lives briefly. It cut the
//     server's CPU for sysbench's prepare by 5-15% (load and CREATE INDEX
//     measured apart). RocksDB's usual advice is the same (no compression
//     for the first levels). Not for a store in memory (memory:, tests):
//     there the files are the memory the store holds, so L0 stays
//     compressed (four concurrent 20 MiB rows of one letter took 300 MiB of
//     RSS uncompressed, 110 MiB compressed; TestLargeStatementMemory).
//   - Index blocks of up to 256 KiB (indexBlockSize; Pebble: the 4 KiB
//     of a data block), so that a table's index is one block: a table
//     whose index outgrows one index block gets a two-level index (a top
//     block over index blocks), and every seek in it then looks up two
//     index blocks in the block cache (each a lookup with its reference
//     count) and runs one iterator level more. sysbench's 3.6 MB L6 tables
//     had two-level indexes (4 KiB index blocks over ~900 data blocks,
//     ~30-40 KB of index each); with 256 KiB one block holds the index of
//     a table up to ~25 MB of such rows. Measured (h15seek, fifteenth
//     session; docs/benchmarks.md) on a compacted store of 100,000 index
//     entities and 100,000 rows, interleaved in one process, median of
//     150 rounds: a 10-query MultiQuery (select_random_points' index
//     reads) 4-5% less CPU, a point Get 8-10% less. Only newly written
//     tables (flushes, compactions) take it: an existing store's tables
//     keep their two-level indexes until compactions rewrite them, and
//     both read as before (no format change). The index block lives in
//     the block cache as any other block: no memory bound changes.
//   - L0: compaction from 4 sublevels (Pebble's default), writes stop only
//     at 20 (Pebble: 12), so a burst of flushes during a bulk load does not
//     stall foreground writes while compactions catch up.
//   - Compactions: up to max(1, min(4, GOMAXPROCS/2)) concurrent (Pebble: 1).
//   - Left at Pebble's defaults, deliberately: the target file sizes
//     (2 MiB for L0, 4 MiB for the base level, doubling below; measured,
//     h15seek: 64 MiB files below L0, one L6 table instead of eight, took
//     1-2% more off the MultiQuery above, within the noise, while every
//     compaction into the level would rewrite one big table), 4 KiB data
//     blocks (point reads dominate; larger blocks decompress more per
//     Get), the default compression below L0, 512 KiB BytesPerSync, 1,000
//     open files, the on-disk format version of an existing store (so an older sqlgw can still read
//     what this one wrote), WALMinSyncInterval 0: Pebble already commits
//     the synced batches of concurrent writers with one WAL fsync (group
//     commit), and a sync delay would add latency to every lone write.
//
// The shape sysbench reads (tenth session, issue 13): after its prepare
// (100,000 rows) and CREATE INDEX k_1's backfill (an ETag bump of every
// row and the index's entities) the load is about 30 MB written; L0 peaks
// at 6 files in 3 sublevels during the load, and the compactions (7, into
// L6) have emptied it by the time the reads start: L0 empty, L1-L5
// empty, 8 non-overlapping L6 tables (a key in exactly one), one memtable
// (Pebble's Metrics sampled every 0.5 s through the load and the reads).
// So a point Get consults the memtable and one sstable; no compaction
// setting or flush after a bulk load would make it consult fewer. What it
// costs is that one table's blocks: the table's index is two-level (4 KiB
// index blocks over ~900 data blocks of a 3.6 MB table), so a Get seeks
// the top index, an index block, the filter and the data block, each a
// block cache lookup with its reference count (the profile's
// twoLevelIterator.SeekPrefixGE calls the inner singleLevelIterator's
// seekPrefixGE: one table, not two; since h15seek a newly written table's
// index is one block, see the index blocks above). The RWMutex read locks of that
// profile are Pebble's block cache and file cache shards and its read
// state, and go-mysql-server's (vitess stats Timings, global system
// variables); the store's getMu stripes (rwstripes.go) took 0.01 s of
// their 0.43 s. The row cache (rowcache.go; `sqlgw serve` turns it on)
// skips all of Pebble for the rows read recently.
//
// Durability is unchanged by all of this: every write is still committed
// with pebble.Sync (Options.NoSync aside).

// indexBlockSize is the sstable index block size of every level (see
// Tuning above): large enough for a one-level index.
const indexBlockSize = 256 << 10

// Cache size bounds of DefaultCacheSize.
const (
	minDefaultCache = 64 << 20
	maxDefaultCache = 1 << 30
	inMemoryCache   = 8 << 20
)

// DefaultCacheSize is the block cache Open gives a store whose
// Options.CacheSize is 0: a quarter of the memory available to the process,
// clamped to [64 MiB, 1 GiB].
func DefaultCacheSize() int64 {
	return clampCache(availableMemory() / 4)
}

func clampCache(n int64) int64 {
	return max(minDefaultCache, min(n, maxDefaultCache))
}

// availableMemory is the cgroup (v2, then v1) memory limit if one is set,
// else MemTotal of /proc/meminfo; 0 if neither is known.
func availableMemory() int64 {
	total := memTotal()
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err == nil && n > 0 && (total == 0 || n < total) {
			return n
		}
	}
	return total
}

func memTotal() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			return 0
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0
		}
		return kb << 10
	}
	return 0
}

// tunedOptions returns the Pebble options Open uses when Options.Pebble is
// nil (see Tuning above); inMemory for a store whose files live in memory.
// diskMemTableSize is the memtable size of a store on disk: see Tuning above.
const diskMemTableSize = 64 << 20

func tunedOptions(cacheSize int64, inMemory bool) pebbledb.Options {
	var po pebbledb.Options
	po.CacheSize = cacheSize
	// Partition bloom filters: see prefix.go.
	po.Comparer = partitionComparer
	for i := range po.Levels {
		po.Levels[i].FilterPolicy = partitionFilter{bloom.FilterPolicy(10)}
	}
	po.Filters = map[string]pebbledb.FilterPolicy{
		filterName:                    partitionFilter{bloom.FilterPolicy(10)},
		bloom.FilterPolicy(10).Name(): legacyFilter{bloom.FilterPolicy(10)},
	}
	// L0 uncompressed on disk: see Tuning above.
	if !inMemory {
		po.MemTableSize = diskMemTableSize
		po.Levels[0].Compression = func() *sstable.CompressionProfile { return sstable.NoCompression }
	}
	// One-level sstable indexes: see Tuning above.
	for i := range po.Levels {
		po.Levels[i].IndexBlockSize = indexBlockSize
	}
	po.L0CompactionThreshold = 4
	po.L0StopWritesThreshold = 20
	conc := max(1, min(4, runtime.GOMAXPROCS(0)/2))
	po.CompactionConcurrencyRange = func() (int, int) { return 1, conc }
	return po
}
