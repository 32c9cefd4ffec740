package pebble

import (
	"context"
	"fmt"
	"strings"
	"testing"

	pebbledb "github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/sstable"

	"github.com/sqlgw/sqlgw/storage"
)

func TestDefaultCacheSize(t *testing.T) {
	for _, c := range []struct{ in, want int64 }{
		{0, minDefaultCache},
		{16 << 20, minDefaultCache},
		{300 << 20, 300 << 20},
		{8 << 30, maxDefaultCache},
	} {
		if got := clampCache(c.in); got != c.want {
			t.Errorf("clampCache(%d) = %d, want %d", c.in, got, c.want)
		}
	}
	if n := DefaultCacheSize(); n < minDefaultCache || n > maxDefaultCache {
		t.Errorf("DefaultCacheSize() = %d, outside [%d, %d]", n, minDefaultCache, maxDefaultCache)
	}
}

func TestTunedOptions(t *testing.T) {
	po := tunedOptions(128<<20, false)
	if po.CacheSize != 128<<20 {
		t.Errorf("CacheSize = %d", po.CacheSize)
	}
	for i, l := range po.Levels {
		if l.FilterPolicy == nil {
			t.Errorf("level %d has no bloom filter", i)
		}
	}
	if po.Levels[0].Compression == nil || po.Levels[0].Compression() != sstable.NoCompression {
		t.Error("L0 is compressed")
	}
	if po.Levels[1].Compression != nil {
		t.Error("L1 does not keep Pebble's default compression")
	}
	if po.MemTableSize != diskMemTableSize {
		t.Errorf("MemTableSize on disk = %d, want %d", po.MemTableSize, diskMemTableSize)
	}
	if mem := tunedOptions(8<<20, true); mem.MemTableSize != 0 {
		t.Errorf("MemTableSize in memory = %d, want Pebble's default", mem.MemTableSize)
	}
	if mem := tunedOptions(8<<20, true); mem.Levels[0].Compression != nil {
		t.Error("L0 of a store in memory is uncompressed: its files are the store's memory")
	}
	if po.L0StopWritesThreshold != 20 || po.CompactionConcurrencyRange == nil {
		t.Errorf("L0 stop writes %d, compaction concurrency set: %t", po.L0StopWritesThreshold, po.CompactionConcurrencyRange != nil)
	}
	// A store opened with an explicit cache size works end to end.
	s, err := Open(t.TempDir(), &Options{CacheSize: 32 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	if err := s.CreateTable(ctx, "tuned"); err != nil {
		t.Fatal(err)
	}
	e := &storage.Entity{PartitionKey: "p", RowKey: "r", Properties: map[string]storage.Value{"v": storage.Int64(1)}}
	if _, err := s.Insert(ctx, "tuned", e); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, "tuned", "p", "r", nil)
	if err != nil || got.Properties["v"].Int() != 1 {
		t.Fatalf("Get = %v, %v", got, err)
	}
}

// TestOneLevelIndex: the tables Open's tuned options write have one-level
// indexes (indexBlockSize), also those of a few MB whose index Pebble's
// 4 KiB index blocks would split in two levels.
func TestOneLevelIndex(t *testing.T) {
	ctx := context.Background()
	s, err := OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateTable(ctx, "oli"); err != nil {
		t.Fatal(err)
	}
	pad := storage.String(strings.Repeat("p", 200))
	for start := 0; start < 20_000; start += storage.MaxBatchOps {
		ops := make([]storage.Operation, storage.MaxBatchOps)
		for j := range ops {
			ops[j] = storage.Operation{Kind: storage.OpInsert, Entity: &storage.Entity{PartitionKey: "p", RowKey: fmt.Sprintf("r%08d", start+j), Properties: storage.Properties{"c": pad}}}
		}
		if _, err := s.Batch(ctx, "oli", ops); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DB().Compact(ctx, []byte{0}, []byte{0xff}, false); err != nil {
		t.Fatal(err)
	}
	levels, err := s.DB().SSTables(pebbledb.WithProperties())
	if err != nil {
		t.Fatal(err)
	}
	maxBlocks := uint64(0)
	for l, tables := range levels {
		for _, tb := range tables {
			if tb.Properties.IndexPartitions != 0 {
				t.Errorf("L%d table %s (%d bytes, %d data blocks): a two-level index of %d blocks", l, tb.FileNum, tb.Size, tb.Properties.NumDataBlocks, tb.Properties.IndexPartitions)
			}
			maxBlocks = max(maxBlocks, tb.Properties.NumDataBlocks)
		}
	}
	if maxBlocks < 500 {
		t.Errorf("the largest table has %d data blocks: too few to need a second index level", maxBlocks)
	}
}
