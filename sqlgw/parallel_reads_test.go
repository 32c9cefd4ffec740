package sqlgw_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/aztables"
	"github.com/sqlgw/sqlgw/storage/aztables/azurite"
)

// flightStore counts the Gets in flight on a store with round trips (not
// InProcess, as the Table service): while armed, each Get of a table row
// (not the catalog's, not the transaction record's) waits until `want`
// Gets are in flight (or a generous timeout passes, so
// that a gateway sending them one at a time ends instead of hanging) and
// the highest number in flight is kept.
type flightStore struct {
	storage.Store
	mu       sync.Mutex
	cond     *sync.Cond
	want     int // 0: disarmed
	inflight int
	max      int
	gets     int
}

func (s *flightStore) Capabilities() storage.Capabilities {
	c := s.Store.Capabilities()
	c.InProcess = false
	return c
}

func (s *flightStore) arm(want int) {
	s.mu.Lock()
	s.want, s.max, s.gets = want, 0, 0
	s.mu.Unlock()
}

func (s *flightStore) disarm() (maxInFlight, gets int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.want = 0
	s.cond.Broadcast()
	return s.max, s.gets
}

func (s *flightStore) Get(ctx context.Context, table, pk, rk string, opts *storage.GetOptions) (*storage.Entity, error) {
	if strings.HasSuffix(table, "catalog") || strings.HasSuffix(table, "txn") {
		// The catalog's version checks, the snapshot's clock read.
		return s.Store.Get(ctx, table, pk, rk, opts)
	}
	s.mu.Lock()
	if s.want > 0 {
		s.gets++
		s.inflight++
		s.max = max(s.max, s.inflight)
		s.cond.Broadcast()
		deadline := time.AfterFunc(5*time.Second, func() {
			s.mu.Lock()
			s.cond.Broadcast()
			s.mu.Unlock()
		})
		start := time.Now()
		for s.want > 0 && s.max < s.want && time.Since(start) < 5*time.Second {
			s.cond.Wait()
		}
		deadline.Stop()
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			s.inflight--
			s.mu.Unlock()
		}()
	} else {
		s.mu.Unlock()
	}
	return s.Store.Get(ctx, table, pk, rk, opts)
}

// TestParallelIndependentGets: the independent requests of one statement
// on a store with round trips are sent together, not one after another:
// the Gets of an IN list of primary keys (MultiGet), and the base-row Gets
// of an index read, all 8 in flight at once (the gateway sends up to 16
// at a time, sqlgw/engine/iter.go). On a store in this process
// (InProcess) they are sent one after another instead.
func TestParallelIndependentGets(t *testing.T) {
	store, co := sqltest.Memory.Open(t)
	fs := &flightStore{Store: store}
	fs.cond = sync.NewCond(&fs.mu)
	ts := sqltest.Start(t, fs, sqltest.Options{Catalog: co})
	c := ts.Session("d",
		"CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20), g INT, KEY by_g (g)) COMMENT 'sqlgw: partition_key=(id)'")
	r := sqltest.NewRunner(t, c)
	var vals []string
	for i := range 100 {
		vals = append(vals, fmt.Sprintf("(%d, 'v%d', %d)", i, i, i/10))
	}
	r.Exec("INSERT INTO t VALUES " + strings.Join(vals, ", "))
	for _, tc := range []struct {
		name, q, path string
		rows          int
	}{
		{"IN list of keys", "SELECT id, v FROM t WHERE id IN (3, 14, 25, 36, 47, 58, 69, 80)", "MultiGet", 8},
		{"index read's base rows", "SELECT id, v FROM t WHERE g = 4 AND id < 48", "Index", 8},
	} {
		plan := strings.Join(r.Rows("EXPLAIN PLAN "+tc.q), "\n")
		if !strings.Contains(plan, tc.path) {
			t.Fatalf("%s: the plan is not a %s:\n%s", tc.name, tc.path, plan)
		}
		fs.arm(tc.rows)
		got := r.Rows(tc.q)
		maxIn, gets := fs.disarm()
		t.Logf("%s: %d Gets, at most %d in flight", tc.name, gets, maxIn)
		if len(got) != tc.rows {
			t.Errorf("%s: %d rows, want %d", tc.name, len(got), tc.rows)
		}
		if gets != tc.rows || maxIn != tc.rows {
			t.Errorf("%s: %d Gets, at most %d in flight at once; want all %d in flight together", tc.name, gets, maxIn, tc.rows)
		}
	}
}

// flightHTTP is flightStore on the wire: the HTTP transport of an Azure
// Table store (Azurite) that, while armed, holds each request to a user
// table's entities that hold selects (Get Entity, or Query Entities) until
// `want` of them are in flight (or 5 s pass) and keeps the highest number
// in flight. The catalog's requests and catalog/txn's (the snapshot's
// clock read) pass at once.
type flightHTTP struct {
	next                *http.Client
	mu                  sync.Mutex
	cond                *sync.Cond
	hold                func(path string) bool // nil: disarmed
	want                int
	inflight, max, held int
}

func (f *flightHTTP) Do(req *http.Request) (*http.Response, error) {
	path := req.URL.Path
	name := path[strings.LastIndexByte(path, '/')+1:]
	if i := strings.IndexByte(name, '('); i >= 0 {
		name = name[:i]
	}
	f.mu.Lock()
	if f.hold != nil && req.Method == http.MethodGet && !strings.HasSuffix(name, "catalog") && !strings.HasSuffix(name, "txn") && f.hold(path) {
		f.held++
		f.inflight++
		f.max = max(f.max, f.inflight)
		f.cond.Broadcast()
		deadline := time.AfterFunc(5*time.Second, func() {
			f.mu.Lock()
			f.cond.Broadcast()
			f.mu.Unlock()
		})
		start := time.Now()
		for f.hold != nil && f.max < f.want && time.Since(start) < 5*time.Second {
			f.cond.Wait()
		}
		deadline.Stop()
		f.mu.Unlock()
		defer func() {
			f.mu.Lock()
			f.inflight--
			f.mu.Unlock()
		}()
	} else {
		f.mu.Unlock()
	}
	return f.next.Do(req)
}

func (f *flightHTTP) arm(want int, hold func(path string) bool) {
	f.mu.Lock()
	f.want, f.hold, f.max, f.held = want, hold, 0, 0
	f.mu.Unlock()
}

func (f *flightHTTP) disarm() (maxInFlight, held int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hold = nil
	f.cond.Broadcast()
	return f.max, f.held
}

// TestParallelRequestsOnAzure: on the Table service (Azurite here), the
// independent requests of one statement leave the gateway together,
// counted on the HTTP transport itself: the Get Entity requests of an IN
// list of primary keys (MultiGet) and of an index read's base rows, the
// Query Entities of an IN list on the partition key, and a batched lookup
// join's block reads, by primary key (one MultiGet per block) and by a
// unique global index (the index entries' Gets together, then the base
// rows' Gets together). Each case holds its requests until all of them
// are in flight: a gateway sending them one after another would have at
// most one in flight (and take 5 s a request).
func TestParallelRequestsOnAzure(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping Azurite in -short mode")
	}
	cs := azurite.Shared(t)
	fh := &flightHTTP{next: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, IdleConnTimeout: 4 * time.Second}}}
	fh.cond = sync.NewCond(&fh.mu)
	store, err := aztables.Open(context.Background(), cs, &aztables.Options{HTTPClient: fh})
	if err != nil {
		t.Fatal(err)
	}
	ts := sqltest.Start(t, store, sqltest.Options{Catalog: catalog.Options{Prefix: sqltest.UniquePrefix()}})
	c := ts.Session("d",
		"CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20), g INT, KEY by_g (g)) COMMENT 'sqlgw: partition_key=(id)'",
		"CREATE TABLE q (p INT, id INT, v VARCHAR(20), PRIMARY KEY (p, id)) COMMENT 'sqlgw: partition_key=(p)'",
		"CREATE TABLE big (id INT PRIMARY KEY, v VARCHAR(20), g INT, UNIQUE KEY by_v (v))",
		"CREATE TABLE o (id INT PRIMARY KEY, bid INT, bv VARCHAR(20))")
	r := sqltest.NewRunner(t, c)
	var tv, qv, bigv, ov []string
	for i := range 100 {
		tv = append(tv, fmt.Sprintf("(%d, 'v%d', %d)", i, i, i/10))
		qv = append(qv, fmt.Sprintf("(%d, %d, 'v%d')", i%10, i, i))
		bigv = append(bigv, fmt.Sprintf("(%d, 'v%d', %d)", i, i, i%7))
	}
	for i := range 8 {
		ov = append(ov, fmt.Sprintf("(%d, %d, 'v%d')", i, i*11, i*11))
	}
	r.Exec("INSERT INTO t VALUES " + strings.Join(tv, ", "))
	r.Exec("INSERT INTO q VALUES " + strings.Join(qv, ", "))
	r.Exec("INSERT INTO big VALUES " + strings.Join(bigv, ", "))
	r.Exec("INSERT INTO o VALUES " + strings.Join(ov, ", "))
	r.Rows("SELECT COUNT(*) FROM big") // row counts for the join's costing
	r.Rows("SELECT COUNT(*) FROM o")
	gets := func(path string) bool { return strings.Contains(path, "(PartitionKey=") }
	queries := func(path string) bool { return strings.HasSuffix(path, "()") }
	for _, tc := range []struct {
		name, q, plan string
		hold          func(string) bool
		want, total   int // requests in flight together, held in all
		rows          int
	}{
		{"IN list of keys", "SELECT id, v FROM t WHERE id IN (3, 14, 25, 36, 47, 58, 69, 80)", "MultiGet", gets, 8, 8, 8},
		{"index read's base rows", "SELECT id, v FROM t WHERE g = 4 AND id < 48", "Index", gets, 8, 8, 8},
		{"IN list on the partition key", "SELECT p, id, v FROM q WHERE p IN (1, 3, 5, 7) AND id > 0", "RowRange", queries, 4, 4, 40},
		{"batched lookup join by primary key",
			"SELECT /*+ LOOKUP_JOIN(o,big) JOIN_ORDER(o,big) */ o.id, big.g FROM o JOIN big ON big.id = o.bid", "BatchedLookupJoin", gets, 8, 8, 8},
		{"batched lookup join by a unique global index",
			"SELECT /*+ LOOKUP_JOIN(o,big) JOIN_ORDER(o,big) */ o.id, big.g FROM o JOIN big ON big.v = o.bv", "BatchedLookupJoin", gets, 8, 16, 8},
	} {
		plan := strings.Join(r.Rows("EXPLAIN ANALYZE "+tc.q), "\n")
		if !strings.Contains(plan, tc.plan) {
			t.Fatalf("%s: the plan is not a %s:\n%s", tc.name, tc.plan, plan)
		}
		fh.arm(tc.want, tc.hold)
		start := time.Now()
		got := r.Rows(tc.q)
		maxIn, held := fh.disarm()
		t.Logf("%s: %d requests, at most %d in flight, %v", tc.name, held, maxIn, time.Since(start).Round(time.Millisecond))
		if len(got) != tc.rows {
			t.Errorf("%s: %d rows, want %d", tc.name, len(got), tc.rows)
		}
		if held != tc.total || maxIn != tc.want {
			t.Errorf("%s: %d requests, at most %d in flight at once; want %d, %d in flight together\n%s", tc.name, held, maxIn, tc.total, tc.want, plan)
		}
	}
}
