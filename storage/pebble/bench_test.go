package pebble

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	pebbledb "github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/sqlgw/sqlgw/storage"
)

// The benchmarks compare the contract on Pebble (impl=sqlgw) with raw Pebble
// doing the same work on comparable bytes (impl=raw): the same number of
// entities, keys of the same shape and values of the same size, so the ratio
// of the two is the contract's overhead. Both run in memory with Sync
// writes, so they measure CPU, not the disk.
//
//	go test ./storage/pebble -run XXX -bench . -benchtime 2000x -count 3

const (
	benchEntities  = 10_000 // per partition
	scanMatchEvery = 100    // the filtered scan keeps 1 entity in 100
)

func benchProps(i int) storage.Properties {
	return storage.Properties{
		"s": storage.String(fmt.Sprintf("name-%08d-abcdefgh", i)),
		"n": storage.Int64(int64(i)),
		"m": storage.Int32(int32(i % scanMatchEvery)),
		"d": storage.Double(float64(i) * 1.5),
		"b": storage.Bool(i%2 == 0),
		"t": storage.DateTime(time.Date(2024, 1, 1, 0, 0, i, 0, time.UTC)),
	}
}

func benchRowKey(i int) string { return fmt.Sprintf("row%08d", i) }

type benchEnv struct {
	s      *Store
	raw    *pebbledb.DB
	valLen int
}

// newBenchEnv loads partition "p" with benchEntities entities in both the
// store and a raw Pebble database (key pk|0|rk, value of the same size with
// n and m in its first 12 bytes).
func newBenchEnv(b *testing.B) *benchEnv {
	b.Helper()
	ctx := context.Background()
	s, err := OpenMemory()
	if err != nil {
		b.Fatal(err)
	}
	raw, err := pebbledb.Open("raw", &pebbledb.Options{FS: vfs.NewMem(), Logger: quietLogger{}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close(); raw.Close() })
	if err := s.CreateTable(ctx, "bench"); err != nil {
		b.Fatal(err)
	}
	env := &benchEnv{s: s, raw: raw}
	env.valLen = len(encodeEntity(nil, benchProps(0), s.newETag(), 0))
	for start := 0; start < benchEntities; start += storage.MaxBatchOps {
		ops := make([]storage.Operation, storage.MaxBatchOps)
		rb := raw.NewBatch()
		for j := range ops {
			i := start + j
			ops[j] = storage.Operation{Kind: storage.OpInsert, Entity: &storage.Entity{PartitionKey: "p", RowKey: benchRowKey(i), Properties: benchProps(i)}}
			rb.Set(rawKey(nil, "p", benchRowKey(i)), env.rawValue(i), nil)
		}
		if _, err := s.Batch(ctx, "bench", ops); err != nil {
			b.Fatal(err)
		}
		if err := rb.Commit(pebbledb.Sync); err != nil {
			b.Fatal(err)
		}
	}
	return env
}

func rawKey(buf []byte, pk, rk string) []byte {
	buf = append(buf[:0], pk...)
	buf = append(buf, 0)
	return append(buf, rk...)
}

func (e *benchEnv) rawValue(i int) []byte {
	v := make([]byte, e.valLen)
	binary.BigEndian.PutUint64(v, uint64(i))
	binary.BigEndian.PutUint32(v[8:], uint32(i%scanMatchEvery))
	return v
}

// rawEntity is what raw reads hand back: copies of the key and value.
type rawEntity struct{ key, value []byte }

func BenchmarkGet(b *testing.B) {
	env := newBenchEnv(b)
	ctx := context.Background()
	b.Run("impl=sqlgw", func(b *testing.B) {
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; b.Loop(); i++ {
			e, err := env.s.Get(ctx, "bench", "p", benchRowKey(i*7919%benchEntities), nil)
			if err != nil || len(e.Properties) != 6 {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=raw", func(b *testing.B) {
		b.ReportAllocs()
		var kb []byte
		b.ResetTimer()
		for i := 0; b.Loop(); i++ {
			kb = rawKey(kb, "p", benchRowKey(i*7919%benchEntities))
			v, closer, err := env.raw.Get(kb)
			if err != nil {
				b.Fatal(err)
			}
			e := &rawEntity{key: bytes.Clone(kb), value: bytes.Clone(v)}
			closer.Close()
			_ = e
		}
	})
}

func BenchmarkRangeQuery100(b *testing.B) {
	env := newBenchEnv(b)
	ctx := context.Background()
	b.Run("impl=sqlgw", func(b *testing.B) {
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; b.Loop(); i++ {
			lo := i * 7919 % (benchEntities - 100)
			page, err := env.s.Query(ctx, "bench", &storage.Query{
				Partition: storage.Exactly("p"),
				Row:       &storage.KeyRange{Low: &storage.Bound{Key: benchRowKey(lo)}, High: &storage.Bound{Key: benchRowKey(lo + 100), Exclusive: true}},
			})
			if err != nil || len(page.Entities) != 100 {
				b.Fatal(err)
			}
		}
	})
	// rows: QueryRows of one property with catalog/txn's marks, as a
	// read by rows of the engine asks for it (rows.go).
	b.Run("impl=rows", func(b *testing.B) {
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; b.Loop(); i++ {
			lo := i * 7919 % (benchEntities - 100)
			page, err := env.s.QueryRows(ctx, "bench", &storage.Query{
				Partition: storage.Exactly("p"),
				Row:       &storage.KeyRange{Low: &storage.Bound{Key: benchRowKey(lo)}, High: &storage.Bound{Key: benchRowKey(lo + 100), Exclusive: true}},
				Select:    []string{"s"},
			}, []string{"_tx", "_v", "_d"})
			if err != nil || len(page.Rows) != 100 {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=raw", func(b *testing.B) {
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; b.Loop(); i++ {
			lo := i * 7919 % (benchEntities - 100)
			it, err := env.raw.NewIter(&pebbledb.IterOptions{LowerBound: rawKey(nil, "p", benchRowKey(lo)), UpperBound: rawKey(nil, "p", benchRowKey(lo+100))})
			if err != nil {
				b.Fatal(err)
			}
			out := make([]*rawEntity, 0, 100)
			for it.First(); it.Valid(); it.Next() {
				out = append(out, &rawEntity{key: bytes.Clone(it.Key()), value: bytes.Clone(it.Value())})
			}
			it.Close()
			if len(out) != 100 {
				b.Fatal(len(out))
			}
		}
	})
}

func BenchmarkFilteredPartitionScan(b *testing.B) {
	env := newBenchEnv(b)
	ctx := context.Background()
	b.Run("impl=sqlgw", func(b *testing.B) {
		b.ReportAllocs()
		q := storage.Query{Partition: storage.Exactly("p"), Filter: storage.Eq("m", storage.Int32(7))}
		b.ResetTimer()
		for b.Loop() {
			n := 0
			for q.Continuation = ""; ; {
				page, err := env.s.Query(ctx, "bench", &q)
				if err != nil {
					b.Fatal(err)
				}
				n += len(page.Entities)
				if q.Continuation = page.Continuation; q.Continuation == "" {
					break
				}
			}
			if n != benchEntities/scanMatchEvery {
				b.Fatal(n)
			}
		}
	})
	b.Run("impl=raw", func(b *testing.B) {
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			it, err := env.raw.NewIter(&pebbledb.IterOptions{LowerBound: []byte("p\x00"), UpperBound: []byte("p\x01")})
			if err != nil {
				b.Fatal(err)
			}
			var out []*rawEntity
			for it.First(); it.Valid(); it.Next() {
				v := it.Value()
				if binary.BigEndian.Uint32(v[8:]) == 7 {
					out = append(out, &rawEntity{key: bytes.Clone(it.Key()), value: bytes.Clone(v)})
				}
			}
			it.Close()
			if len(out) != benchEntities/scanMatchEvery {
				b.Fatal(len(out))
			}
		}
	})
}

func BenchmarkBatch100(b *testing.B) {
	env := newBenchEnv(b)
	ctx := context.Background()
	// Fresh keys on every iteration, across every run of a sub-benchmark.
	seq := 0
	b.Run("impl=sqlgw", func(b *testing.B) {
		b.ReportAllocs()
		ops := make([]storage.Operation, storage.MaxBatchOps)
		b.ResetTimer()
		for b.Loop() {
			seq++
			pk := fmt.Sprintf("b%08d", seq)
			for j := range ops {
				ops[j] = storage.Operation{Kind: storage.OpInsert, Entity: &storage.Entity{PartitionKey: pk, RowKey: benchRowKey(j), Properties: benchProps(j)}}
			}
			if _, err := env.s.Batch(ctx, "bench", ops); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=raw", func(b *testing.B) {
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			seq++
			pk := fmt.Sprintf("b%08d", seq)
			batch := env.raw.NewBatch()
			for j := range storage.MaxBatchOps {
				batch.Set(rawKey(nil, pk, benchRowKey(j)), env.rawValue(j), nil)
			}
			if err := batch.Commit(pebbledb.Sync); err != nil {
				b.Fatal(err)
			}
			batch.Close()
		}
	})
}

func BenchmarkInsert(b *testing.B) {
	env := newBenchEnv(b)
	ctx := context.Background()
	seq := 0
	b.Run("impl=sqlgw", func(b *testing.B) {
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			seq++
			e := &storage.Entity{PartitionKey: "ins", RowKey: benchRowKey(seq), Properties: benchProps(seq)}
			if _, err := env.s.Insert(ctx, "bench", e); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=raw", func(b *testing.B) {
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			seq++
			if err := env.raw.Set(rawKey(nil, "ins", benchRowKey(seq)), env.rawValue(seq), pebbledb.Sync); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkMultiBatchInserts: one MultiBatch of 1,000 new entities, one
// partition each (a sysbench bulk INSERT statement's shape), into a table
// of 100,000, with the current records read by a Get per operation
// (get) or through one iterator per table (iter, multiBatchIterOps); keys
// after the existing ones (seq, an AUTO_INCREMENT key) or spread among
// them (spread, an index's entities).
//
//	go test ./storage/pebble -run '^$' -bench MultiBatchInserts -benchtime 50x -count 3
func BenchmarkMultiBatchInserts(b *testing.B) {
	ctx := context.Background()
	for _, order := range []string{"seq", "spread"} {
		for _, mode := range []string{"get", "iter"} {
			b.Run(order+"/"+mode, func(b *testing.B) {
				s, err := Open(b.TempDir(), &Options{NoSync: true})
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				if err := s.CreateTable(ctx, "bench"); err != nil {
					b.Fatal(err)
				}
				ent := func(i int) *storage.Entity {
					return &storage.Entity{PartitionKey: fmt.Sprintf("%012d", i), RowKey: "",
						Properties: storage.Properties{"c": storage.String(fmt.Sprintf("%0120d", i)), "k": storage.Int64(int64(i))}}
				}
				for i := 0; i < 100_000; i += 1000 {
					var tbs []storage.TableBatch
					for j := i; j < i+1000; j++ {
						tbs = append(tbs, storage.TableBatch{Table: "bench", Ops: []storage.Operation{{Kind: storage.OpInsert, Entity: ent(2 * j)}}})
					}
					if _, err := s.MultiBatch(ctx, tbs); err != nil {
						b.Fatal(err)
					}
				}
				defer func(old int) { multiBatchIterOps = old }(multiBatchIterOps)
				multiBatchIterOps = 16
				if mode == "get" {
					multiBatchIterOps = 1 << 30
				}
				b.ReportAllocs()
				b.ResetTimer()
				for n := range b.N {
					tbs := make([]storage.TableBatch, 1000)
					for j := range tbs {
						k := 200_000 + n*1000 + j // after every existing key
						if order == "spread" {
							k = 2*((n*1000+j)*97%100_000) + 1 // between two existing keys
							k += 200_000 * (n / 100)
						}
						tbs[j] = storage.TableBatch{Table: "bench", Ops: []storage.Operation{{Kind: storage.OpInsert, Entity: ent(k)}}}
					}
					if _, err := s.MultiBatch(ctx, tbs); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkGetParallel is BenchmarkGet's impl=sqlgw from GOMAXPROCS
// goroutines at once, projecting one property as a point select does: the
// cost of what the Gets of concurrent connections share (the store's
// read lock, Pebble's caches).
func BenchmarkGetParallel(b *testing.B) {
	env := newBenchEnv(b)
	ctx := context.Background()
	opts := &storage.GetOptions{Select: []string{"s"}}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for i := 0; pb.Next(); i++ {
			e, err := env.s.Get(ctx, "bench", "p", benchRowKey(i*7919%benchEntities), opts)
			if err != nil || len(e.Properties) != 1 {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkGetRowCache is a point select's read (GetRow of one property)
// of benchEntities entities compacted into sstables, without and with
// the row cache (rowcache.go) large enough to hold them all: what a hit
// saves over Pebble's Get.
func BenchmarkGetRowCache(b *testing.B) {
	ctx := context.Background()
	for _, size := range []int64{0, 64 << 20} {
		s, err := Open("", &Options{InMemory: true, RowCacheSize: size})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.CreateTable(ctx, "bench"); err != nil {
			b.Fatal(err)
		}
		for i := range benchEntities {
			if _, err := s.Insert(ctx, "bench", &storage.Entity{PartitionKey: "p", RowKey: benchRowKey(i), Properties: benchProps(i)}); err != nil {
				b.Fatal(err)
			}
		}
		if err := s.DB().Compact(ctx, []byte{0}, []byte{0xff}, true); err != nil {
			b.Fatal(err)
		}
		sel := []string{"s"}
		name := "rowcache=off"
		if size > 0 {
			name = "rowcache=on"
		}
		b.Run(name, func(b *testing.B) {
			var row storage.Row
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if err := s.GetRow(ctx, "bench", "p", benchRowKey(i*7919%benchEntities), sel, nil, &row); err != nil || len(row.Values) != 1 {
					b.Fatal(err)
				}
			}
		})
		s.Close()
	}
}
