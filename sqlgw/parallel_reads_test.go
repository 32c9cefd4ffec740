package sqlgw_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage"
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
