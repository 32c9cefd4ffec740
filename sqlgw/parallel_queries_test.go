package sqlgw_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/pebble"
)

// slowQueries is a store whose queries take a while, recording how many
// run at once.
type slowQueries struct {
	storage.Store
	slow          atomic.Bool
	running, peak atomic.Int32
}

// Capabilities: the slow store stands for a store with round trips, whose
// independent queries the gateway sends in parallel (not InProcess, as the
// embedded store below it is).
func (s *slowQueries) Capabilities() storage.Capabilities {
	c := s.Store.Capabilities()
	c.InProcess = false
	return c
}

func (s *slowQueries) Query(ctx context.Context, table string, q *storage.Query) (*storage.Page, error) {
	if s.slow.Load() {
		n := s.running.Add(1)
		defer s.running.Add(-1)
		for {
			p := s.peak.Load()
			if n <= p || s.peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(40 * time.Millisecond)
	}
	return s.Store.Query(ctx, table, q)
}

// startSlowQueries starts a server over an in-memory Pebble store whose
// queries can be slowed, with database d in use.
func startSlowQueries(t *testing.T) (*slowQueries, *sqltest.Runner) {
	inner, err := pebble.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	st := &slowQueries{Store: inner}
	c := sqltest.NewRunner(t, sqltest.Start(t, st, sqltest.Options{}).Conn())
	c.ExecAll("CREATE DATABASE d", "USE d")
	return st, c
}

// TestPartitionQueriesInParallel: the partition queries of an IN list on
// the partition key are sent together, not one after another, and still
// return the rows in key order with one request per partition.
func TestPartitionQueriesInParallel(t *testing.T) {
	st, c := startSlowQueries(t)
	c.Exec("CREATE TABLE ev (dev INT, seq INT, v INT, PRIMARY KEY (dev, seq))")
	c.Exec("INSERT INTO ev VALUES (1,1,11),(1,2,12),(2,1,21),(3,1,31),(4,1,41),(5,1,51),(6,1,61),(7,1,71),(8,1,81)")
	st.slow.Store(true)
	start := time.Now()
	q := "SELECT dev, seq FROM ev WHERE dev IN (8, 1, 3, 5, 7, 2, 4, 6) ORDER BY dev, seq"
	r, _ := c.Cost(q)
	elapsed := time.Since(start)
	st.slow.Store(false)
	if r != 8 {
		t.Errorf("%s: %d requests, want 8", q, r)
	}
	if st.peak.Load() < 2 {
		t.Errorf("%s: at most %d queries at once, %v in all; want them in parallel", q, st.peak.Load(), elapsed)
	}
	c.ExpectRows(q, "1\t1", "1\t2", "2\t1", "3\t1", "4\t1", "5\t1", "6\t1", "7\t1", "8\t1")
}

// TestMultiRangeQueriesInParallel: several key ranges (an OR of ranges on
// the partition key, or on the RowKey within a partition) are sent
// together as the IN list's partition queries are, and an OR of whole-key
// equalities is a MultiGet (parallel Gets), not a scan with an OR filter.
func TestMultiRangeQueriesInParallel(t *testing.T) {
	st, c := startSlowQueries(t)
	c.Exec("CREATE TABLE k (id INT PRIMARY KEY, v INT)")
	c.Exec("CREATE TABLE ev (dev INT, seq INT, v INT, PRIMARY KEY (dev, seq))")
	var vals []string
	for i := range 2000 {
		vals = append(vals, fmt.Sprintf("(%d, %d)", i, i))
	}
	c.Exec("INSERT INTO k VALUES " + strings.Join(vals, ", "))
	c.Exec("INSERT INTO ev SELECT 1, id, v FROM k")
	c.Exec("ANALYZE TABLE k, ev")
	for _, tc := range []struct {
		q       string
		path    string
		queries int
		want    []string
	}{
		{"SELECT id FROM k WHERE id BETWEEN 2 AND 3 OR id BETWEEN 10 AND 11 OR id BETWEEN 20 AND 21 OR id > 1997 ORDER BY id", "PartitionRange", 4,
			[]string{"2", "3", "10", "11", "20", "21", "1998", "1999"}},
		{"SELECT seq FROM ev WHERE dev = 1 AND (seq < 2 OR seq > 1997) ORDER BY seq", "RowRange", 2,
			[]string{"0", "1", "1998", "1999"}},
	} {
		plan := strings.Join(c.Rows("EXPLAIN PLAN "+tc.q), "\n")
		if !strings.Contains(plan, tc.path) || strings.Count(plan, "query ") != tc.queries {
			t.Errorf("%s: want %s with %d queries:\n%s", tc.q, tc.path, tc.queries, plan)
		}
		st.peak.Store(0)
		st.slow.Store(true)
		start := time.Now()
		r, _ := c.Cost(tc.q)
		elapsed := time.Since(start)
		st.slow.Store(false)
		if r != int64(tc.queries) {
			t.Errorf("%s: %d requests, want %d", tc.q, r, tc.queries)
		}
		// Several at once: each slowed query holds its slot for 40 ms, so
		// sent one after another they never overlap. The time is only
		// reported: a loaded machine stretches it, so it proves nothing.
		if st.peak.Load() < 2 {
			t.Errorf("%s: at most %d queries at once, %v in all; want them in parallel", tc.q, st.peak.Load(), elapsed)
		}
		c.ExpectRows(tc.q, tc.want...)
	}
	q := "SELECT seq, v FROM ev WHERE (dev = 1 AND seq = 5) OR (dev = 1 AND seq = 30) OR (dev = 2 AND seq = 1)"
	plan := strings.Join(c.Rows("EXPLAIN PLAN "+q), "\n")
	if !strings.Contains(plan, "MultiGet") || strings.Count(plan, "get pk=") != 3 {
		t.Errorf("%s: want a MultiGet of 3 keys:\n%s", q, plan)
	}
	if r, e := c.Cost(q); r != 3 || e != 2 {
		t.Errorf("%s: %d requests, %d entities; want 3, 2", q, r, e)
	}
	c.ExpectRows(q, "5\t5", "30\t30")
}
