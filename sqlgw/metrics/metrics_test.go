package metrics

import (
	"bufio"
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/storage"
)

// getStore answers Get with an entity, or ErrNotFound for row key "absent".
type getStore struct{ storage.Store }

func (getStore) Get(_ context.Context, _, pk, rk string, _ *storage.GetOptions) (*storage.Entity, error) {
	if rk == "absent" {
		return nil, storage.ErrNotFound
	}
	return &storage.Entity{PartitionKey: pk, RowKey: rk}, nil
}

// scrape returns every sample of m's export by its name and labels.
func scrape(t *testing.T, m *Metrics) map[string]float64 {
	t.Helper()
	var b strings.Builder
	if _, err := m.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(b.String()))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		name, val, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("bad line %q", line)
		}
		f, err := strconv.ParseFloat(val, 64)
		if err != nil {
			t.Fatalf("bad value in %q", line)
		}
		out[name] = f
	}
	return out
}

// TestStripedCountersConcurrent: concurrent updates of the striped
// counters (store gets, statements, table reads) are each counted once in
// the export, whichever stripe they landed in.
func TestStripedCountersConcurrent(t *testing.T) {
	m := New()
	s := NewStore(getStore{}, m)
	const workers, each = 8, 2000
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				rk := "r"
				if i%4 == 0 {
					rk = "absent"
				}
				_, _ = s.Get(context.Background(), "t", "p", rk, nil)
				m.QueryCompleted(i%5 != 0, 50*time.Microsecond)
				m.ObserveRead(fmt.Sprintf("Path%d", w%3), 2, 3, 2*time.Millisecond)
			}
		}()
	}
	wg.Wait()
	got := scrape(t, m)
	const n = workers * each
	want := map[string]float64{
		`sqlgw_store_requests_total{op="get"}`:                                     n,
		`sqlgw_store_request_errors_total{op="get"}`:                               n / 4,
		`sqlgw_store_request_duration_seconds_count{op="get"}`:                     n,
		`sqlgw_store_entities_read_total`:                                          n - n/4,
		`sqlgw_statements_total{result="ok"}`:                                      n - n/5,
		`sqlgw_statements_total{result="error"}`:                                   n / 5,
		`sqlgw_statement_duration_seconds_count`:                                   n,
		`sqlgw_statement_duration_seconds_bucket{le="0.0001"}`:                     n,
		`sqlgw_statement_duration_seconds_sum`:                                     n * 50e-6,
		`sqlgw_store_requests_total{op="query"}`:                                   0,
		`sqlgw_table_reads_total{path="Path0"}`:                                    3 * each,
		`sqlgw_table_read_store_requests_total{path="Path1"}`:                      2 * 3 * each,
		`sqlgw_table_read_entities_total{path="Path2"}`:                            3 * 2 * each,
		`sqlgw_table_read_duration_seconds_bucket{path="Path0",le="0.001"}`:        0,
		`sqlgw_table_read_duration_seconds_bucket{path="Path0",le="0.0025"}`:       3 * each,
		`sqlgw_table_read_duration_seconds_count{path="Path0"}`:                    3 * each,
		`sqlgw_store_request_duration_seconds_bucket{op="get",le="+Inf"}`:          n,
		`sqlgw_store_request_duration_seconds_bucket{op="insert",le="+Inf"}`:       0,
		`sqlgw_table_read_duration_seconds_bucket{path="Path2",le="+Inf"}`:         2 * each,
		`sqlgw_statement_duration_seconds_bucket{le="+Inf"}`:                       n,
		`sqlgw_store_request_duration_seconds_count{op="table_exists"}`:            0,
		`sqlgw_table_read_store_requests_total{path="Path0"}`:                      2 * 3 * each,
		`sqlgw_table_read_duration_seconds_sum{path="Path1"}`:                      3 * each * 2e-3,
		`sqlgw_store_request_errors_total{op="query"}`:                             0,
		`sqlgw_table_read_entities_total{path="Path0"}`:                            3 * 3 * each,
		`sqlgw_store_entities_written_total`:                                       0,
		`sqlgw_statement_duration_seconds_bucket{le="0.00025"}`:                    n,
		`sqlgw_table_read_duration_seconds_bucket{path="Path1",le="10"}`:           3 * each,
		`sqlgw_store_request_duration_seconds_bucket{op="delete_table",le="+Inf"}`: 0,
	}
	for k, v := range want {
		g, ok := got[k]
		if !ok {
			t.Errorf("%s missing", k)
			continue
		}
		if d := g - v; d > 1e-6*v+1e-9 || d < -(1e-6*v+1e-9) {
			t.Errorf("%s = %v, want %v", k, g, v)
		}
	}
}

// TestBucketAgreesWithSearch: bucket's scan of the bounds in nanoseconds
// picks the bucket sort.SearchFloat64s picks in seconds, bounds included.
func TestBucketAgreesWithSearch(t *testing.T) {
	var ds []time.Duration
	for _, s := range durationBuckets {
		b := time.Duration(s * 1e9)
		ds = append(ds, b-1, b, b+1)
	}
	ds = append(ds, 0, 1, time.Hour)
	for _, d := range ds {
		want := sort.SearchFloat64s(durationBuckets[:], d.Seconds())
		if got := bucket(d); got != want {
			t.Errorf("bucket(%v) = %d, want %d", d, got, want)
		}
	}
}

// TestCounterStripes: every stripe's share is in the sum.
func TestCounterStripes(t *testing.T) {
	var c counter
	for i := range c.s {
		c.s[i].v.Add(int64(i + 1))
	}
	if got, want := c.Load(), int64(stripes*(stripes+1)/2); got != want {
		t.Fatalf("Load = %d, want %d", got, want)
	}
	var h histogram
	for i := range h.s {
		h.observeIn(&h.s[i], time.Duration(i+1)*time.Second)
	}
	if got := h.sum(); got != stripes*(stripes+1)/2*time.Second {
		t.Fatalf("sum = %v", got)
	}
}
