package pebble

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	pebbledb "github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/sqlgw/sqlgw/storage"
)

// Attack tests of the reviewer r9 (issue 13, eighth round): a store
// written before a change of the Pebble options (the comparer's Split,
// filter policies) must open with today's options and answer every key
// exactly; and what today's options write must still be read by the
// older ones.

// review13eMainOptions are the Pebble options Open used for an in-memory
// store before the eighth round (main 4d79470's tunedOptions(8 MiB,
// true)): the default comparer (Split is the whole key) and whole-key
// bloom filters named rocksdb.BuiltinBloomFilter on every level.
func review13eMainOptions() *pebbledb.Options {
	var po pebbledb.Options
	po.CacheSize = inMemoryCache
	po.Comparer = pebbledb.DefaultComparer
	for i := range po.Levels {
		po.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
	}
	po.L0CompactionThreshold = 4
	po.L0StopWritesThreshold = 20
	return &po
}

// review13eKeys are partition and row keys of every kind a key can be:
// empty, one another's prefixes, the highest and lowest characters
// allowed, characters whose lead bytes the key encoding remaps, and the
// characters either side of the remapped ranges.
var review13eKeys = []string{
	"", " ", "!", "0", "00", "0 ", "1", "a", "a ", "ab", "abc", "a~", "~", "~~", "é", "é ", "\u00a0", "\u07ff", "\u0800",
	"\ud7ff", "\ue000", "\uefff", "\uf000", "\uffff", "\U00010000", "\U0010ffff", "a\U00010000", "a\uffff", "\U00010000a",
}

type review13eModel map[string]map[string]string // pk -> rk -> property v

func (m review13eModel) set(pk, rk, v string) {
	if m[pk] == nil {
		m[pk] = map[string]string{}
	}
	m[pk][rk] = v
}

// review13eFill writes every (pk, rk) of the keys into table, in several
// flushed and compacted generations, deleting and overwriting some, so
// that the keys live in sstables of several levels and in the memtable.
func review13eFill(t *testing.T, s *Store, table string, m review13eModel, gen string) {
	t.Helper()
	ctx := context.Background()
	n := 0
	for i, pk := range review13eKeys {
		for j, rk := range review13eKeys {
			if (i+j)%3 == 0 && gen == "a" {
				continue // some partitions are sparse before the change
			}
			v := fmt.Sprintf("%s-%d-%d", gen, i, j)
			e := &storage.Entity{PartitionKey: pk, RowKey: rk, Properties: storage.Properties{"v": storage.String(v)}}
			if _, err := s.Upsert(ctx, table, e, storage.Replace); err != nil {
				t.Fatal(err)
			}
			m.set(pk, rk, v)
			n++
			if n%97 == 0 {
				if err := s.db.Flush(); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if err := s.db.Compact(ctx, []byte{tagEntity}, []byte{tagEntity + 1}, false); err != nil {
		t.Fatal(err)
	}
	// Tombstones and overwrites above the compacted data.
	for i, pk := range review13eKeys {
		for j, rk := range review13eKeys {
			if _, ok := m[pk][rk]; !ok {
				continue
			}
			switch (i*7 + j) % 5 {
			case 0:
				if err := s.Delete(ctx, table, pk, rk, ""); err != nil {
					t.Fatal(err)
				}
				delete(m[pk], rk)
			case 1:
				v := "re" + gen + m[pk][rk]
				e := &storage.Entity{PartitionKey: pk, RowKey: rk, Properties: storage.Properties{"v": storage.String(v)}}
				if _, err := s.Upsert(ctx, table, e, storage.Replace); err != nil {
					t.Fatal(err)
				}
				m.set(pk, rk, v)
			}
		}
		if i%4 == 0 {
			if err := s.db.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// review13eCheck reads every key, the keys around them, every partition,
// partition and row ranges forwards and backwards, through Get, MultiGet,
// Query, MultiQuery and QueryRows, and compares with the model.
func review13eCheck(t *testing.T, s *Store, table string, m review13eModel) {
	t.Helper()
	ctx := context.Background()
	var probes []storage.EntityKey
	for _, pk := range review13eKeys {
		for _, rk := range review13eKeys {
			probes = append(probes, storage.EntityKey{PK: pk, RK: rk})
		}
		// Keys that are no key written: a partition of another
		// partition's prefix plus a character, a row likewise.
		probes = append(probes, storage.EntityKey{PK: pk + "!", RK: ""}, storage.EntityKey{PK: pk, RK: "zz"})
	}
	for _, k := range probes {
		want, ok := m[k.PK][k.RK]
		e, err := s.Get(ctx, table, k.PK, k.RK, nil)
		switch {
		case ok && err != nil:
			t.Fatalf("Get(%q, %q): %v, want %q", k.PK, k.RK, err, want)
		case !ok && !errors.Is(err, storage.ErrNotFound):
			t.Fatalf("Get(%q, %q) = %v, %v; want not found", k.PK, k.RK, e, err)
		case ok && e.Properties["v"].Str() != want:
			t.Fatalf("Get(%q, %q) = %q, want %q", k.PK, k.RK, e.Properties["v"].Str(), want)
		}
	}
	es, err := storage.MultiGet(ctx, s, table, probes, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range probes {
		want, ok := m[k.PK][k.RK]
		switch {
		case ok != (es[i] != nil):
			t.Fatalf("MultiGet(%q, %q) = %v, want present %v", k.PK, k.RK, es[i], ok)
		case ok && es[i].Properties["v"].Str() != want:
			t.Fatalf("MultiGet(%q, %q) = %q, want %q", k.PK, k.RK, es[i].Properties["v"].Str(), want)
		}
	}
	type kv struct{ pk, rk, v string }
	want := func(pr, rr *storage.KeyRange, reverse bool) []kv {
		var out []kv
		for pk, rows := range m {
			if !pr.Contains(pk) {
				continue
			}
			for rk, v := range rows {
				if rr.Contains(rk) {
					out = append(out, kv{pk, rk, v})
				}
			}
		}
		slices.SortFunc(out, func(a, b kv) int {
			if c := storage.CompareKeys(a.pk, b.pk); c != 0 {
				return c
			}
			return storage.CompareKeys(a.rk, b.rk)
		})
		if reverse {
			slices.Reverse(out)
		}
		return out
	}
	query := func(q storage.Query) []kv {
		var out []kv
		for {
			p, err := s.Query(ctx, table, &q)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range p.Entities {
				out = append(out, kv{e.PartitionKey, e.RowKey, e.Properties["v"].Str()})
			}
			if p.Continuation == "" {
				return out
			}
			q.Continuation = p.Continuation
		}
	}
	queryRows := func(q storage.Query) []kv {
		var out []kv
		q.Select = []string{"v"}
		for {
			p, err := s.QueryRows(ctx, table, &q, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range p.Rows {
				out = append(out, kv{r.PartitionKey, r.RowKey, r.Values[0].Str()})
			}
			if p.Continuation == "" {
				return out
			}
			q.Continuation = p.Continuation
		}
	}
	var ranges []*storage.KeyRange
	ranges = append(ranges, nil)
	for i, k := range review13eKeys {
		ranges = append(ranges, storage.Exactly(k))
		if i%3 == 0 {
			next := review13eKeys[(i+5)%len(review13eKeys)]
			ranges = append(ranges, &storage.KeyRange{Low: &storage.Bound{Key: k}}, &storage.KeyRange{High: &storage.Bound{Key: k, Exclusive: true}},
				&storage.KeyRange{Low: &storage.Bound{Key: k, Exclusive: true}, High: &storage.Bound{Key: next}})
		}
	}
	var qs []*storage.Query
	for _, pr := range ranges {
		for _, rr := range []*storage.KeyRange{nil, storage.Exactly("a"), storage.Exactly(""), {Low: &storage.Bound{Key: "", Exclusive: true}}, {High: &storage.Bound{Key: "", Exclusive: true}}, {Low: &storage.Bound{Key: "a"}, High: &storage.Bound{Key: "\uffff"}}} {
			for _, rev := range []bool{false, true} {
				q := storage.Query{Partition: pr, Row: rr, Reverse: rev}
				w := want(pr, rr, rev)
				if got := query(q); !slices.Equal(got, w) {
					t.Fatalf("Query(%+v, %+v, reverse %v) = %q, want %q", pr, rr, rev, got, w)
				}
				if got := queryRows(q); !slices.Equal(got, w) {
					t.Fatalf("QueryRows(%+v, %+v, reverse %v) = %q, want %q", pr, rr, rev, got, w)
				}
				if !rev {
					qs = append(qs, &storage.Query{Partition: pr, Row: rr})
				}
			}
		}
	}
	pages, err := s.MultiQuery(ctx, table, qs)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range pages {
		var got []kv
		for _, e := range p.Entities {
			got = append(got, kv{e.PartitionKey, e.RowKey, e.Properties["v"].Str()})
		}
		w := want(qs[i].Partition, qs[i].Row, false)
		if p.Continuation == "" && !slices.Equal(got, w) || p.Continuation != "" && (len(got) > len(w) || !slices.Equal(got, w[:len(got)])) {
			t.Fatalf("MultiQuery %d (%+v, %+v) = %q, want %q", i, qs[i].Partition, qs[i].Row, got, w)
		}
	}
}

// TestReview13eStoreOfMainOpens: a store written with main's options
// (whole-key filters, the default comparer) opened with today's answers
// every key, partition and range; after today's writes and a full
// compaction too; and today's store opened again with main's options
// still answers them.
func TestReview13eStoreOfMainOpens(t *testing.T) {
	fs := vfs.NewMem()
	old, err := Open("db", &Options{FS: fs, Pebble: review13eMainOptions()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	m := review13eModel{}
	for _, tb := range []string{"tbone", "tbtwo"} {
		if err := old.CreateTable(ctx, tb); err != nil {
			t.Fatal(err)
		}
	}
	review13eFill(t, old, "tbone", m, "a")
	m2 := review13eModel{}
	review13eFill(t, old, "tbtwo", m2, "a")
	review13eCheck(t, old, "tbone", m)
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}

	// Today's options (Open's defaults for a store on a given FS).
	cur, err := Open("db", &Options{FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	review13eCheck(t, cur, "tbone", m)
	review13eCheck(t, cur, "tbtwo", m2)
	// A table read by partition (prefix.go: flagged, its keys split at
	// the partition, its filters over partitions).
	cur.ReadByPartition(func(name string) bool { return name == "tbthree" })
	if err := cur.CreateTable(ctx, "tbthree"); err != nil {
		t.Fatal(err)
	}
	if err := cur.CreateTable(ctx, "tbfour"); err != nil {
		t.Fatal(err)
	}
	if cur.prefixSeek && !flagged(cur.tables["tbthree"].id) || flagged(cur.tables["tbfour"].id) {
		t.Fatalf("table IDs %x %x", cur.tables["tbthree"].id, cur.tables["tbfour"].id)
	}
	m3, m4 := review13eModel{}, review13eModel{}
	review13eFill(t, cur, "tbthree", m3, "a")
	review13eFill(t, cur, "tbfour", m4, "a")
	review13eCheck(t, cur, "tbthree", m3)
	review13eCheck(t, cur, "tbfour", m4)
	// New writes over the old tables, then everything rewritten by a
	// compaction with today's options.
	review13eFill(t, cur, "tbone", m, "b")
	review13eCheck(t, cur, "tbone", m)
	review13eCheck(t, cur, "tbtwo", m2)
	if err := cur.db.Compact(ctx, []byte{tagSystem}, []byte{0xff}, false); err != nil {
		t.Fatal(err)
	}
	review13eCheck(t, cur, "tbone", m)
	review13eCheck(t, cur, "tbtwo", m2)
	review13eCheck(t, cur, "tbthree", m3)
	review13eCheck(t, cur, "tbfour", m4)
	if err := cur.Close(); err != nil {
		t.Fatal(err)
	}

	// Back to main's options: an older sqlgw reads what today's wrote.
	back, err := Open("db", &Options{FS: fs, Pebble: review13eMainOptions()})
	if err != nil {
		t.Fatal(err)
	}
	review13eCheck(t, back, "tbone", m)
	review13eCheck(t, back, "tbtwo", m2)
	review13eCheck(t, back, "tbthree", m3)
	review13eFill(t, back, "tbtwo", m2, "c")
	review13eCheck(t, back, "tbtwo", m2)
	// The flagged table written by main's options: whole-key filters
	// under the old name over its keys.
	review13eFill(t, back, "tbthree", m3, "c")
	review13eCheck(t, back, "tbthree", m3)
	if err := back.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := Open("db", &Options{FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	review13eCheck(t, again, "tbone", m)
	review13eCheck(t, again, "tbtwo", m2)
	review13eCheck(t, again, "tbthree", m3)
	review13eCheck(t, again, "tbfour", m4)
	review13eFill(t, again, "tbthree", m3, "d")
	review13eCheck(t, again, "tbthree", m3)
	if err := again.db.Compact(ctx, []byte{tagSystem}, []byte{0xff}, false); err != nil {
		t.Fatal(err)
	}
	review13eCheck(t, again, "tbone", m)
	review13eCheck(t, again, "tbthree", m3)
	review13eCheck(t, again, "tbfour", m4)
}

// TestReview13eFlaggedShortPages: tables read by partition (prefix.go)
// answer every key, partition and range through pages cut after a few
// examined entities (continuation tokens resuming a prefix seek), and
// after a full compaction.
func TestReview13eFlaggedShortPages(t *testing.T) {
	s, err := Open("db", &Options{FS: vfs.NewMem(), MaxScanPerPage: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.ReadByPartition(func(string) bool { return true })
	ctx := context.Background()
	if err := s.CreateTable(ctx, "flagged"); err != nil {
		t.Fatal(err)
	}
	if s.prefixSeek && !flagged(s.tables["flagged"].id) {
		t.Fatal("the table is not read by partition")
	}
	m := review13eModel{}
	review13eFill(t, s, "flagged", m, "a")
	review13eCheck(t, s, "flagged", m)
	if err := s.db.Compact(ctx, []byte{tagSystem}, []byte{0xff}, false); err != nil {
		t.Fatal(err)
	}
	review13eCheck(t, s, "flagged", m)
}
