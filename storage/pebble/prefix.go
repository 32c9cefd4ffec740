package pebble

import (
	pebbledb "github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"

	"github.com/sqlgw/sqlgw/storage"
)

// Partition bloom filters (issue 13)
//
// A global index's entities are read by partition: one exact-partition
// query per value of an IN list (select_random_points reads ten index
// partitions per statement), most of them for a value no row has. With
// Pebble's default comparer a key's prefix, which the bloom filters hash,
// is the whole key, so a partition query could not consult them: it ran
// a plain SeekGE through every level's file that overlaps the key.
//
// Tables created after the store's user named them through
// ReadByPartition (storage.PartitionReads; the sqlgw server names its
// global index tables: catalog.IsIndexPhysical) get a table ID with the
// top bit set (partitionFlag), and the comparer's Split (entitySplit) ends the
// prefix of such a table's entity keys after the PartitionKey's
// separator: tagEntity | id | ekey(PartitionKey) | 0x00. Every other key
// (other tables' entities, table records, system records) keeps the whole
// key as its prefix, so a row's Get stays as selective as before: a
// table whose partitions hold many rows (a composite primary key, a
// table without one) would otherwise find its Gets of absent rows
// passing the filter of every file holding the partition. An exact-
// partition query on a flagged table then seeks with SeekPrefixGE (scan),
// which skips the files whose filter rules the partition out, as Gets
// do; a Get on it (a unique index's entities, index maintenance) hashes
// its partition: one entity per partition for a unique index, a few for
// a non-unique one.
//
// Split is a function of the key's bytes alone, fixed forever: the
// filters written with it are read back with it. It meets Pebble's rules
// (base.Split): a flagged key's prefix ends with the separator, which no
// encoded PartitionKey holds (keys exclude U+0000), so of two keys with
// different prefixes neither prefix is a prefix of the other and the
// first differing byte lies inside both prefixes; equal prefixes leave
// the order to the suffixes (the encoded RowKeys), compared bytewise as
// the whole keys are. The comparer keeps the default comparer's name
// (Pebble refuses to open a store made with another name); only Split
// differs.
//
// The filters are written under a new policy name (filterName), so that
// a filter's hashing is known from its name: Pebble reads a table's filter
// only through a policy of the same name (Options.Filters). A filter of
// the old name (rocksdb.BuiltinBloomFilter: tables written before this
// change, or by an older sqlgw opening a newer store) hashed whole keys;
// legacyFilter still reads it for unflagged tables, whose prefixes are
// whole keys either way, and answers "maybe" for a flagged table's
// partition prefix, which such a filter cannot answer. An older sqlgw
// ignores the new name's filters (it knows no policy of that name) and
// reads such tables without filters. A store opened with Options.Pebble
// keeps that configuration's comparer and filters, and its queries seek
// as before.

// partitionFlag marks the table IDs whose entity keys split at the
// partition (see above). Table IDs count up from 1 and never reach it.
const partitionFlag uint64 = 1 << 63

// filterName names the bloom filter policy whose filters hash the
// prefixes entitySplit gives (see above).
const filterName = "sqlgw.PartitionBloomFilter.v1"

// entitySplit is the comparer's Split (see above).
func entitySplit(k []byte) int {
	if len(k) <= tablePrefixLen || k[0] != tagEntity || k[1]&0x80 == 0 {
		return len(k)
	}
	for i := tablePrefixLen; i < len(k); i++ {
		if k[i] == keySep {
			return i + 1
		}
	}
	return len(k)
}

// partitionComparer is Pebble's default comparer with entitySplit.
var partitionComparer = func() *pebbledb.Comparer {
	c := *pebbledb.DefaultComparer
	c.Split = entitySplit
	return &c
}()

// partitionFilter is the bloom filter policy of the tuned options: 10
// bits per key, under filterName.
type partitionFilter struct{ bloom.FilterPolicy }

func (partitionFilter) Name() string { return filterName }

// legacyFilter reads the filters of Pebble's default bloom policy (whole
// keys hashed): for a flagged table's partition prefix it cannot tell,
// and says the table may hold it.
type legacyFilter struct{ bloom.FilterPolicy }

func (f legacyFilter) MayContain(ftype pebbledb.FilterType, filter, key []byte) bool {
	if partitionKey(key) {
		return true
	}
	return f.FilterPolicy.MayContain(ftype, filter, key)
}

// flagged reports whether table ID id splits at the partition.
func flagged(id uint64) bool { return id&partitionFlag != 0 }

// noPrefixSeek turns the prefix seek off (tests compare it with SeekGE).
var noPrefixSeek bool

var _ storage.PartitionReads = (*Store)(nil)

// ReadByPartition implements storage.PartitionReads: the tables
// byPartition names, created from now on, get partition bloom filters
// (see above); none when the store runs with Options.Pebble's comparer.
func (s *Store) ReadByPartition(byPartition func(table string) bool) {
	s.lockAll()
	defer s.unlockAll()
	if s.prefixSeek {
		s.partitionFilters = byPartition
	}
}
