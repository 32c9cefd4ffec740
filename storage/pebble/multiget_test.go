package pebble

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"syscall"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/storage"
)

// TestMultiGetDifferential: MultiGet's entities are those of a loop of Get
// calls (storage.GetEach), for random keys (present, absent, repeated),
// projections (none, short, empty, longer than Get's scanned list), with
// and without a snapshot that later writes do not reach; and its errors
// are the loop's (an invalid key after valid ones, a bad projection, a
// missing table, a cancelled context, a released snapshot).
func TestMultiGetDifferential(t *testing.T) {
	for _, rc := range []int64{0, 1 << 20} {
		t.Run(fmt.Sprintf("rowcache=%d", rc), func(t *testing.T) { testMultiGetDifferential(t, rc) })
	}
}

// testMultiGetDifferential is TestMultiGetDifferential with a row cache
// of rc bytes (0: none).
func testMultiGetDifferential(t *testing.T, rc int64) {
	ctx := context.Background()
	s, err := Open("", &Options{InMemory: true, RowCacheSize: rc})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateTable(ctx, "mgt"); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 8))
	long := make([]string, 0, maxSelectScan+3)
	for i := range maxSelectScan + 3 {
		long = append(long, fmt.Sprintf("x%d", i))
	}
	write := func() {
		for range 40 {
			e := &storage.Entity{PartitionKey: fmt.Sprintf("p%02d", r.IntN(10)), RowKey: fmt.Sprintf("r%02d", r.IntN(10)),
				Properties: storage.Properties{"v": storage.Int64(int64(r.IntN(5))), "w": storage.String(fmt.Sprint("w", r.IntN(100))),
					"b": storage.Binary([]byte{byte(r.IntN(256))}), "x3": storage.Double(r.Float64())}}
			if r.IntN(6) == 0 {
				_ = s.Delete(ctx, "mgt", e.PartitionKey, e.RowKey, "*")
				continue
			}
			if _, err := s.Upsert(ctx, "mgt", e, storage.Replace); err != nil {
				t.Fatal(err)
			}
		}
	}
	write()
	run := func(ctx context.Context, keys []storage.EntityKey, opts *storage.GetOptions) error {
		t.Helper()
		want, werr := storage.GetEach(ctx, s, "mgt", keys, opts)
		got, gerr := s.MultiGet(ctx, "mgt", keys, opts)
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Fatalf("keys %v: errors: MultiGet %v, Get %v", keys, gerr, werr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("keys %v opts %v:\nMultiGet %v\nGet      %v", keys, opts, got, want)
		}
		if opts != nil && opts.Select != nil {
			// MultiGetRows against a loop of GetRow, with and without
			// properties after the selection.
			for _, more := range [][]string{nil, {"v", "nosuch"}} {
				wantRows, wantFound, werr := getRowEach(ctx, s, keys, opts.Select, more)
				rows, found := make([]storage.Row, len(keys)), make([]bool, len(keys))
				gerr := s.MultiGetRows(ctx, "mgt", keys, opts.Select, more, rows, found)
				if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
					t.Fatalf("keys %v: errors: MultiGetRows %v, GetRow %v", keys, gerr, werr)
				}
				if gerr != nil {
					continue
				}
				for i := range rows {
					if !found[i] {
						rows[i] = storage.Row{}
					}
				}
				if !reflect.DeepEqual(found, wantFound) || !reflect.DeepEqual(rows, wantRows) {
					t.Fatalf("keys %v sel %v more %v:\nMultiGetRows %v %v\nGetRow       %v %v", keys, opts.Select, more, found, rows, wantFound, wantRows)
				}
			}
		}
		return gerr
	}
	mustFail := func(err error) {
		t.Helper()
		if err == nil {
			t.Fatal("no error")
		}
	}
	optsOf := []*storage.GetOptions{nil, {}, {Select: []string{"v"}}, {Select: []string{}}, {Select: []string{"w", "b", "nosuch"}}, {Select: long}}
	found := 0
	for i := range 300 {
		qctx := ctx
		var sn storage.Snapshot
		if i%2 == 1 {
			if sn, err = s.Snapshot(ctx); err != nil {
				t.Fatal(err)
			}
			qctx = storage.WithSnapshot(ctx, sn)
		}
		keys := make([]storage.EntityKey, r.IntN(12))
		for j := range keys {
			keys[j] = storage.EntityKey{PK: fmt.Sprintf("p%02d", r.IntN(12)), RK: fmt.Sprintf("r%02d", r.IntN(12))}
		}
		opts := optsOf[r.IntN(len(optsOf))]
		if sn != nil && i%4 == 1 {
			// Writes after the snapshot: neither read sees them.
			before, err := s.MultiGet(qctx, "mgt", keys, opts)
			if err != nil {
				t.Fatal(err)
			}
			write()
			after, err := s.MultiGet(qctx, "mgt", keys, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(before, after) {
				t.Fatalf("a snapshot's MultiGet changed with later writes")
			}
		}
		run(qctx, keys, opts)
		got, _ := s.MultiGet(qctx, "mgt", keys, opts)
		for _, e := range got {
			if e != nil {
				found++
			}
		}
		if sn != nil {
			sn.Release()
		}
	}
	if found < 300 {
		t.Fatalf("only %d entities found: the keys miss the table", found)
	}
	ok := storage.EntityKey{PK: "p01", RK: "r01"}
	mustFail(run(ctx, []storage.EntityKey{ok, {PK: "p02", RK: "bad/key"}}, nil))
	mustFail(run(ctx, []storage.EntityKey{{PK: "bad#", RK: "r"}, ok}, nil))
	mustFail(run(ctx, []storage.EntityKey{ok}, &storage.GetOptions{Select: []string{"bad name!"}}))
	if _, err := s.MultiGet(ctx, "nosuch", []storage.EntityKey{ok}, nil); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("missing table: %v", err)
	}
	run(ctx, nil, nil)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	mustFail(run(cctx, []storage.EntityKey{ok}, nil))
	sn, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sn.Release()
	mustFail(run(storage.WithSnapshot(ctx, sn), []storage.EntityKey{ok, ok}, nil))
}

// getRowEach is MultiGetRows as a loop of GetRow calls (absent rows
// zero).
func getRowEach(ctx context.Context, s *Store, keys []storage.EntityKey, sel, more []string) ([]storage.Row, []bool, error) {
	rows, found := make([]storage.Row, len(keys)), make([]bool, len(keys))
	for i, k := range keys {
		err := s.GetRow(ctx, "mgt", k.PK, k.RK, sel, more, &rows[i])
		if errors.Is(err, storage.ErrNotFound) {
			rows[i] = storage.Row{}
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		found[i] = true
	}
	return rows, found, nil
}

// BenchmarkMultiGet: ten random entities of 100,000 (one partition each,
// as sysbench's rows), in sstables, at a snapshot: MultiGet (one prefix
// seek each on one iterator), the loop of Get calls, and the loop of the
// snapshot's own Pebble Gets with the entity decoded (what MultiGet would
// cost reading with Get).
//
//	go test ./storage/pebble -run '^$' -bench MultiGet -benchmem
func BenchmarkMultiGet(b *testing.B) {
	ctx := context.Background()
	s, err := Open(b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const n = sbtRows
	pk := sbtKey
	loadSbt(b, s)
	sn, err := s.Snapshot(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer sn.Release()
	sctx := storage.WithSnapshot(ctx, sn)
	r := rand.New(rand.NewPCG(1, 2))
	keys := make([]storage.EntityKey, 10)
	next := func() {
		for i := range keys {
			keys[i] = storage.EntityKey{PK: pk(r.IntN(n))}
		}
	}
	b.Run("impl=multiget", func(b *testing.B) {
		b.ReportAllocs()
		c0, n := processCPU(), 0
		for b.Loop() {
			next()
			es, err := s.MultiGet(sctx, "sbt", keys, nil)
			if err != nil || es[0] == nil {
				b.Fatal(err)
			}
			n++
		}
		b.ReportMetric(float64(processCPU()-c0)/float64(n), "cpu-ns/op")
	})
	// The rows of three properties (select_random_points' columns), as
	// entities and as rows.
	sel := []string{"k", "c", "pad"}
	b.Run("impl=multiget/select=3", func(b *testing.B) {
		b.ReportAllocs()
		opts := &storage.GetOptions{Select: sel}
		c0, n := processCPU(), 0
		for b.Loop() {
			next()
			es, err := s.MultiGet(sctx, "sbt", keys, opts)
			if err != nil || es[0] == nil {
				b.Fatal(err)
			}
			n++
		}
		b.ReportMetric(float64(processCPU()-c0)/float64(n), "cpu-ns/op")
	})
	b.Run("impl=multigetrows/select=3", func(b *testing.B) {
		b.ReportAllocs()
		rows, found := make([]storage.Row, len(keys)), make([]bool, len(keys))
		c0, n := processCPU(), 0
		for b.Loop() {
			next()
			if err := s.MultiGetRows(sctx, "sbt", keys, sel, nil, rows, found); err != nil || !found[0] {
				b.Fatal(err)
			}
			n++
		}
		b.ReportMetric(float64(processCPU()-c0)/float64(n), "cpu-ns/op")
	})
	b.Run("impl=get", func(b *testing.B) {
		b.ReportAllocs()
		c0, n := processCPU(), 0
		for b.Loop() {
			next()
			es, err := storage.GetEach(sctx, s, "sbt", keys, nil)
			if err != nil || es[0] == nil {
				b.Fatal(err)
			}
			n++
		}
		b.ReportMetric(float64(processCPU()-c0)/float64(n), "cpu-ns/op")
	})
	b.Run("impl=pebbleget", func(b *testing.B) {
		b.ReportAllocs()
		var kb []byte
		c0, n := processCPU(), 0
		for b.Loop() {
			n++
			next()
			if err := s.rlock(sctx); err != nil {
				b.Fatal(err)
			}
			t, _ := s.table("sbt")
			rd, _, done, err := s.reader(sctx)
			if err != nil {
				b.Fatal(err)
			}
			var st scanState
			for _, k := range keys {
				kb = appendEntityKey(kb[:0], t.id, k.PK, k.RK)
				v, closer, err := rd.Get(kb)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := st.entity(k, v, nil, nil); err != nil {
					b.Fatal(err)
				}
				closer.Close()
			}
			done()
			s.mu.RUnlock()
		}
		b.ReportMetric(float64(processCPU()-c0)/float64(n), "cpu-ns/op")
	})
}

// sbtRows is the rows of BenchmarkMultiGet's table "sbt", one partition
// each (sbtKey), as sysbench's.
const sbtRows = 100_000

func sbtKey(i int) string { return fmt.Sprintf("%08d", i) }

// loadSbt creates and loads table "sbt" of sbtRows rows, its sstables
// compacted.
func loadSbt(b *testing.B, s *Store) {
	ctx := context.Background()
	if err := s.CreateTable(ctx, "sbt"); err != nil {
		b.Fatal(err)
	}
	for start := 0; start < sbtRows; start += 100 {
		var tbs []storage.TableBatch
		for i := start; i < start+100; i++ {
			tbs = append(tbs, storage.TableBatch{Table: "sbt", Ops: []storage.Operation{{Kind: storage.OpInsert, Entity: &storage.Entity{
				PartitionKey: sbtKey(i), RowKey: "",
				Properties: storage.Properties{"k": storage.Int64(int64(i % 1000)), "c": storage.String(fmt.Sprintf("%0120d", i)), "pad": storage.String(fmt.Sprintf("%060d", i))}}}}})
		}
		if _, err := s.MultiBatch(ctx, tbs); err != nil {
			b.Fatal(err)
		}
	}
	// Settled: no compaction running while the reads are measured (the
	// process's CPU time counts Pebble's goroutines too).
	if err := s.DB().Compact(ctx, []byte{0}, []byte{0xff}, false); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkMultiGetRowsCache is BenchmarkMultiGet's MultiGetRows of three
// properties of ten random rows at a (current) snapshot, as
// select_random_points reads them after its index scan, without and with
// a row cache (rowcache.go) that holds every row, read once before.
//
//	go test ./storage/pebble -run '^$' -bench MultiGetRowsCache -benchmem
func BenchmarkMultiGetRowsCache(b *testing.B) {
	ctx := context.Background()
	for _, size := range []int64{0, 64 << 20} {
		s, err := Open(b.TempDir(), &Options{RowCacheSize: size})
		if err != nil {
			b.Fatal(err)
		}
		loadSbt(b, s)
		sel := []string{"k", "c", "pad"}
		keys := make([]storage.EntityKey, 10)
		rows, found := make([]storage.Row, len(keys)), make([]bool, len(keys))
		for i := 0; i < sbtRows; i += len(keys) {
			for j := range keys {
				keys[j] = storage.EntityKey{PK: sbtKey(i + j)}
			}
			if err := s.MultiGetRows(ctx, "sbt", keys, sel, nil, rows, found); err != nil {
				b.Fatal(err)
			}
		}
		if ents, _ := s.rc.stats(); size > 0 && ents != sbtRows {
			b.Fatalf("%d rows cached of %d", ents, sbtRows)
		}
		name := "rowcache=off"
		if size > 0 {
			name = "rowcache=on"
		}
		b.Run(name, func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 2))
			b.ReportAllocs()
			c0, n := processCPU(), 0
			for b.Loop() {
				sn, err := s.Snapshot(ctx)
				if err != nil {
					b.Fatal(err)
				}
				for j := range keys {
					keys[j] = storage.EntityKey{PK: sbtKey(r.IntN(sbtRows))}
				}
				if err := s.MultiGetRows(storage.WithSnapshot(ctx, sn), "sbt", keys, sel, nil, rows, found); err != nil || !found[0] {
					b.Fatal(err)
				}
				sn.Release()
				n++
			}
			b.ReportMetric(float64(processCPU()-c0)/float64(n), "cpu-ns/op")
		})
		s.Close()
	}
}

// processCPU is the process's CPU time (user and system).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
