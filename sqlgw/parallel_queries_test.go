package sqlgw_test

import (
	"context"
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

// TestPartitionQueriesInParallel: the partition queries of an IN list on
// the partition key are sent together, not one after another, and still
// return the rows in key order with one request per partition.
func TestPartitionQueriesInParallel(t *testing.T) {
	inner, err := pebble.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	st := &slowQueries{Store: inner}
	ts := sqltest.Start(t, st, sqltest.Options{})
	c := sqltest.NewRunner(t, ts.Conn())
	c.Exec("CREATE DATABASE d")
	c.Exec("USE d")
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
	if st.peak.Load() < 2 || elapsed > 6*40*time.Millisecond {
		t.Errorf("%s: at most %d queries at once, %v in all; want them in parallel", q, st.peak.Load(), elapsed)
	}
	c.ExpectRows(q, "1\t1", "1\t2", "2\t1", "3\t1", "4\t1", "5\t1", "6\t1", "7\t1", "8\t1")
}
