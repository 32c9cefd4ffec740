package pebble

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	pebbledb "github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/sstable"

	"github.com/sqlgw/sqlgw/storage"
)

// prefixModel is what a test wrote: table -> PartitionKey -> RowKey -> v.
type prefixModel map[string]map[string]map[string]int64

// prefixFill writes n random entities into each of tables (the same
// ones into each), in partitions p000..p199 (a few RowKeys each), flushing
// and compacting part of the way so that the reads below meet memtables,
// L0 and lower levels, and records them in m.
func prefixFill(t *testing.T, s *Store, m prefixModel, r *rand.Rand, n int, tables ...string) {
	t.Helper()
	ctx := context.Background()
	for i := range n {
		pk := fmt.Sprintf("p%03d", r.IntN(100)*2) // odd partitions stay absent
		rk := fmt.Sprintf("r%d", r.IntN(4))
		v := int64(r.IntN(1000))
		for _, tb := range tables {
			e := &storage.Entity{PartitionKey: pk, RowKey: rk, Properties: storage.Properties{"v": storage.Int64(v)}}
			if _, err := s.Upsert(ctx, tb, e, storage.Replace); err != nil {
				t.Fatal(err)
			}
			if m[tb] == nil {
				m[tb] = map[string]map[string]int64{}
			}
			if m[tb][pk] == nil {
				m[tb][pk] = map[string]int64{}
			}
			m[tb][pk][rk] = v
		}
		switch i {
		case n / 3:
			if err := s.DB().Compact(ctx, []byte{0}, []byte{0xff}, true); err != nil {
				t.Fatal(err)
			}
		case 2 * n / 3:
			if err := s.DB().Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// prefixCheck reads every partition of every table of m (the absent ones
// too) by query, with continuations (short pages) and RowKey ranges, and
// every key by Get and MultiGet, and compares them with m.
func prefixCheck(t *testing.T, s *Store, m prefixModel) {
	t.Helper()
	ctx := context.Background()
	for tb, parts := range m {
		for p := range 202 {
			pk := fmt.Sprintf("p%03d", p)
			want := map[string]int64{}
			for rk, v := range parts[pk] {
				want[rk] = v
			}
			got := map[string]int64{}
			q := &storage.Query{Partition: storage.Exactly(pk), Top: 1 + p%3}
			for {
				page, err := s.Query(ctx, tb, q)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range page.Entities {
					got[e.RowKey] = e.Properties["v"].Int()
				}
				if page.Continuation == "" {
					break
				}
				q.Continuation = page.Continuation
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s partition %s: read %v, wrote %v", tb, pk, got, want)
			}
			// A RowKey range inside the partition.
			rq := &storage.Query{Partition: storage.Exactly(pk), Row: &storage.KeyRange{Low: &storage.Bound{Key: "r1"}, High: &storage.Bound{Key: "r2"}}}
			page, err := s.Query(ctx, tb, rq)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for rk := range want {
				if rk == "r1" || rk == "r2" {
					n++
				}
			}
			if len(page.Entities) != n {
				t.Fatalf("%s partition %s rows r1..r2: %d entities, want %d", tb, pk, len(page.Entities), n)
			}
			var keys []storage.EntityKey
			for rk := range 5 {
				keys = append(keys, storage.EntityKey{PK: pk, RK: fmt.Sprintf("r%d", rk)})
			}
			ents, err := s.MultiGet(ctx, tb, keys, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i, k := range keys {
				v, ok := want[k.RK]
				e, err := s.Get(ctx, tb, k.PK, k.RK, nil)
				if ok != (err == nil) || ok != (ents[i] != nil) {
					t.Fatalf("%s %s/%s: Get %v, MultiGet %v, written %v", tb, k.PK, k.RK, err, ents[i], ok)
				}
				if err != nil && !errors.Is(err, storage.ErrNotFound) {
					t.Fatal(err)
				}
				if ok && (e.Properties["v"].Int() != v || ents[i].Properties["v"].Int() != v) {
					t.Fatalf("%s %s/%s: Get %v, MultiGet %v, want %d", tb, k.PK, k.RK, e, ents[i], v)
				}
			}
		}
	}
}

func byIX(table string) bool { return strings.HasPrefix(table, "ix") }

// TestPartitionFilters: a table ReadByPartition names gets a flagged ID
// and its exact-partition queries seek by prefix, which consults the
// bloom filters (Pebble's filter metrics count the files they ruled out,
// where the plain seek of noPrefixSeek counts none); other tables keep
// whole-key filters; and every read of both (queries with continuations
// and RowKey ranges, Gets, MultiGets, present and absent partitions) is
// what was written, with and without the prefix seek; MultiQuery's
// pages on the flagged table are the loop of Query calls' and the
// unflagged table's.
func TestPartitionFilters(t *testing.T) {
	ctx := context.Background()
	s, err := Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.ReadByPartition(byIX)
	for _, tb := range []string{"ixa", "rowa"} {
		if err := s.CreateTable(ctx, tb); err != nil {
			t.Fatal(err)
		}
	}
	ix, _ := s.table("ixa")
	row, _ := s.table("rowa")
	if !flagged(ix.id) || flagged(row.id) {
		t.Fatalf("flags: ixa %x, rowa %x", ix.id, row.id)
	}
	m := prefixModel{}
	prefixFill(t, s, m, rand.New(rand.NewPCG(5, 6)), 600, "ixa", "rowa")
	hits := func() int64 { return s.DB().Metrics().Filter.Hits }
	for _, off := range []bool{true, false} {
		noPrefixSeek = off
		prefixCheck(t, s, prefixModel{"ixa": m["ixa"]})
		// The queries alone, of the partitions no entity has.
		h0 := hits()
		for p := range 100 {
			page, err := s.Query(ctx, "ixa", &storage.Query{Partition: storage.Exactly(fmt.Sprintf("p%03d", 2*p+1))})
			if err != nil || len(page.Entities) > 0 {
				t.Fatal(page, err)
			}
		}
		h := hits() - h0
		if off && h != 0 || !off && h < 50 {
			t.Errorf("noPrefixSeek %v: the reads of 100 absent partitions of ixa ruled out %d files by their filters", off, h)
		}
		t.Logf("noPrefixSeek %v: %d files ruled out", off, h)
	}
	noPrefixSeek = false
	prefixCheck(t, s, m)
	// MultiQuery (one iterator, kept on the table's bounds between prefix
	// seeks, re-bounded for a RowKey range) answers as the loop of
	// Query calls, with and without a snapshot, and on the unflagged
	// twin table with plain seeks.
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 300 {
		qs := make([]*storage.Query, 1+r.IntN(12))
		for j := range qs {
			q := &storage.Query{Partition: storage.Exactly(fmt.Sprintf("p%03d", r.IntN(202))), Top: r.IntN(3)}
			switch r.IntN(5) {
			case 0:
				q.Row = &storage.KeyRange{Low: &storage.Bound{Key: fmt.Sprintf("r%d", r.IntN(4)), Exclusive: r.IntN(2) == 0}}
			case 1:
				q.Row = &storage.KeyRange{High: &storage.Bound{Key: fmt.Sprintf("r%d", r.IntN(4)), Exclusive: r.IntN(2) == 0}}
			case 2:
				q.Reverse = true
			case 3:
				q.Top = 1
				page, err := s.Query(ctx, "ixa", q)
				if err != nil {
					t.Fatal(err)
				}
				q.Continuation = page.Continuation
			}
			qs[j] = q
		}
		qctx := ctx
		if i%2 == 1 {
			sn, err := s.Snapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer sn.Release()
			qctx = storage.WithSnapshot(ctx, sn)
		}
		want, werr := storage.QueryEach(qctx, s, "rowa", qs)
		for _, off := range []bool{false, true} {
			noPrefixSeek = off
			got, gerr := s.MultiQuery(qctx, "ixa", qs)
			each, eerr := storage.QueryEach(qctx, s, "ixa", qs)
			if gerr != nil || eerr != nil || werr != nil {
				t.Fatal(gerr, eerr, werr)
			}
			if !reflect.DeepEqual(got, each) {
				t.Fatalf("queries %v (noPrefixSeek %v):\nMultiQuery %v\nQuery      %v", qs, off, got, each)
			}
			if len(got) != len(want) {
				t.Fatal(len(got), len(want))
			}
			for j := range got {
				if len(got[j].Entities) != len(want[j].Entities) || got[j].Continuation != want[j].Continuation {
					t.Fatalf("query %v: ixa %v, rowa %v", qs[j], got[j], want[j])
				}
				for k, e := range got[j].Entities {
					w := want[j].Entities[k]
					if e.PartitionKey != w.PartitionKey || e.RowKey != w.RowKey || !reflect.DeepEqual(e.Properties, w.Properties) {
						t.Fatalf("query %v: ixa %v, rowa %v", qs[j], e, w)
					}
				}
			}
		}
		noPrefixSeek = false
	}
	// The split itself.
	k := appendEntityKey(nil, ix.id, "p1", "r1")
	if got, want := entitySplit(k), len(k)-2; got != want {
		t.Errorf("flagged key %x: split %d, want %d", k, got, want)
	}
	k = appendEntityKey(nil, row.id, "p1", "r1")
	if got := entitySplit(k); got != len(k) {
		t.Errorf("unflagged key %x: split %d, want the whole key", k, got)
	}
}

// oldOptions are the tuned options before partition filters: Pebble's
// default comparer and bloom policy.
func oldOptions() *pebbledb.Options {
	po := tunedOptions(inMemoryCache, false)
	po.Comparer = nil
	po.Filters = nil
	for i := range po.Levels {
		po.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
	}
	return &po
}

// TestPartitionFiltersOldStore: a store written before partition filters
// opens with them and reads every entity as written; a table created
// after is flagged; the store still opens and reads right with the old
// options (an older sqlgw, whose filters hash whole keys under Pebble's
// default policy name, writing into the flagged table); and with the new
// options again those old-policy filters do not hide a flagged table's
// partitions (legacyFilter), while they still rule out files for the
// unflagged tables' Gets.
func TestPartitionFiltersOldStore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m := prefixModel{}
	r := rand.New(rand.NewPCG(9, 10))
	open := func(old bool) *Store {
		t.Helper()
		o := &Options{}
		if old {
			o.Pebble = oldOptions()
		}
		s, err := Open(dir, o)
		if err != nil {
			t.Fatal(err)
		}
		s.ReadByPartition(byIX)
		return s
	}
	// 1. The old store.
	s := open(true)
	for _, tb := range []string{"ixold", "rowold"} {
		if err := s.CreateTable(ctx, tb); err != nil {
			t.Fatal(err)
		}
	}
	if t0, _ := s.table("ixold"); flagged(t0.id) {
		t.Fatal("a table flagged under the old options")
	}
	prefixFill(t, s, m, r, 400, "ixold", "rowold")
	prefixCheck(t, s, m)
	s.Close()
	// 2. The new options on the old store, and a flagged table.
	s = open(false)
	prefixCheck(t, s, m)
	if err := s.CreateTable(ctx, "ixnew"); err != nil {
		t.Fatal(err)
	}
	if t1, _ := s.table("ixnew"); !flagged(t1.id) {
		t.Fatal("ixnew not flagged")
	}
	prefixFill(t, s, m, r, 400, "ixnew", "rowold")
	prefixCheck(t, s, m)
	s.Close()
	// 3. The old options again: they read everything, and write into the
	// flagged table (their filters hash whole keys). Partitions of their
	// own (odd numbers, absent so far) make the new options' reads meet
	// tables whose old-policy filters know only whole keys.
	s = open(true)
	prefixCheck(t, s, m)
	for i := range 50 {
		pk := fmt.Sprintf("p%03d", 2*i+1)
		e := &storage.Entity{PartitionKey: pk, RowKey: "r0", Properties: storage.Properties{"v": storage.Int64(int64(i))}}
		if _, err := s.Upsert(ctx, "ixnew", e, storage.Replace); err != nil {
			t.Fatal(err)
		}
		m["ixnew"][pk] = map[string]int64{"r0": int64(i)}
	}
	if err := s.DB().Flush(); err != nil {
		t.Fatal(err)
	}
	prefixCheck(t, s, m)
	s.Close()
	// 4. The new options once more.
	s = open(false)
	defer s.Close()
	prefixCheck(t, s, m)
	// The old-policy filters still serve the unflagged tables: Gets of
	// absent rows of rowold are ruled out by them.
	h0 := s.DB().Metrics().Filter.Hits
	for i := range 50 {
		if _, err := s.Get(ctx, "rowold", fmt.Sprintf("p%03d", 2*i+1), "r9", nil); !errors.Is(err, storage.ErrNotFound) {
			t.Fatal(err)
		}
	}
	if s.DB().Metrics().Filter.Hits == h0 {
		t.Error("no file ruled out for absent rows of an unflagged table with old-policy filters")
	}
}

// TestPartitionFiltersLegacyPolicy: legacyFilter answers "maybe" for any
// flagged partition prefix and defers to the bloom filter for other keys.
func TestPartitionFiltersLegacyPolicy(t *testing.T) {
	w := bloom.FilterPolicy(10).NewWriter(sstable.TableFilter)
	plain := appendEntityKey(nil, 3, "p1", "r1")
	w.AddKey(plain)
	filter := w.Finish(nil)
	lf := legacyFilter{bloom.FilterPolicy(10)}
	fp := append(appendEKey(appendTablePrefix(nil, 3|partitionFlag), "p2"), keySep)
	if !lf.MayContain(sstable.TableFilter, filter, fp) {
		t.Error("a flagged partition prefix ruled out by a whole-key filter")
	}
	if !lf.MayContain(sstable.TableFilter, filter, plain) {
		t.Error("a present key ruled out")
	}
	absent := 0
	for i := range 100 {
		if !lf.MayContain(sstable.TableFilter, filter, appendEntityKey(nil, 3, fmt.Sprintf("q%d", i), "r1")) {
			absent++
		}
	}
	if absent < 90 {
		t.Errorf("only %d of 100 absent keys ruled out", absent)
	}
}

// BenchmarkPartitionQuery: the index reads of select_random_points, ten
// exact-partition queries in one MultiQuery at a snapshot, on an index
// table of 100,000 entities (values drawn from 100,000: a third of the
// partitions read are absent), most in the last level after a
// compaction, some in L0 and in the memtable, as after sysbench's
// prepare and a while of updates: a table with partition filters
// (ReadByPartition) seeking by prefix, the same without the prefix seek
// (noPrefixSeek), and a table without them; flagged,rows reads the
// prefixed table's queries as rows (MultiQueryRows, the IN list's path
// since h15rows) of the one property an index entity carries.
//
//	go test ./storage/pebble -run '^$' -bench PartitionQuery -benchmem
func BenchmarkPartitionQuery(b *testing.B) {
	ctx := context.Background()
	s, err := Open(b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	s.ReadByPartition(byIX)
	const n = 100_000
	r := rand.New(rand.NewPCG(3, 4))
	pk := func(i int) string { return fmt.Sprintf("%08d", i) }
	tables := []string{"ixb", "rowb"}
	for _, tb := range tables {
		if err := s.CreateTable(ctx, tb); err != nil {
			b.Fatal(err)
		}
	}
	write := func(from, to int) {
		for start := from; start < to; start += 100 {
			var tbs []storage.TableBatch
			for i := start; i < min(start+100, to); i++ {
				k := r.IntN(n)
				for _, tb := range tables {
					tbs = append(tbs, storage.TableBatch{Table: tb, Ops: []storage.Operation{{Kind: storage.OpUpsert, Mode: storage.Replace, Entity: &storage.Entity{
						PartitionKey: pk(k), RowKey: pk(i), Properties: storage.Properties{"_bpk": storage.String(pk(i))}}}}})
				}
			}
			if _, err := s.MultiBatch(ctx, tbs); err != nil {
				b.Fatal(err)
			}
		}
	}
	write(0, n)
	if err := s.DB().Compact(ctx, []byte{0}, []byte{0xff}, false); err != nil {
		b.Fatal(err)
	}
	write(n, n+3000)
	if err := s.DB().Flush(); err != nil {
		b.Fatal(err)
	}
	write(n+3000, n+4000)
	qs := make([]*storage.Query, 10)
	for _, c := range []struct {
		name, table string
		noPrefix    bool
		rows        bool
	}{
		{"flagged,prefix", "ixb", false, false},
		{"flagged,seekge", "ixb", true, false},
		{"plain", "rowb", false, false},
		{"flagged,rows", "ixb", false, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			noPrefixSeek = c.noPrefix
			defer func() { noPrefixSeek = false }()
			sn, err := s.Snapshot(ctx)
			if err != nil {
				b.Fatal(err)
			}
			defer sn.Release()
			sctx := storage.WithSnapshot(ctx, sn)
			b.ReportAllocs()
			sel := []string{"_bpk"}
			pages := make([]storage.RowPage, len(qs))
			c0, m := processCPU(), 0
			for b.Loop() {
				for i := range qs {
					qs[i] = &storage.Query{Partition: storage.Exactly(pk(r.IntN(n)))}
					if c.rows {
						qs[i].Select = sel
					}
				}
				if c.rows {
					err = s.MultiQueryRows(sctx, c.table, qs, nil, pages)
				} else {
					_, err = s.MultiQuery(sctx, c.table, qs)
				}
				if err != nil {
					b.Fatal(err)
				}
				m++
			}
			b.ReportMetric(float64(processCPU()-c0)/float64(m), "cpu-ns/op")
		})
	}
}
