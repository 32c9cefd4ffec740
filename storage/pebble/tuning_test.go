package pebble

import (
	"context"
	"testing"

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
