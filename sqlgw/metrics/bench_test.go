package metrics

import (
	"context"
	"testing"
	"time"
)

// BenchmarkStoreGetParallel: the metrics a store Get and a statement add
// (Store.Get's count, latency and entities, QueryCompleted, ObserveRead),
// from GOMAXPROCS goroutines at once, over a store that answers at once:
// what the counters cost when every connection updates them.
func BenchmarkStoreGetParallel(b *testing.B) {
	m := New()
	s := NewStore(getStore{}, m)
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.Get(ctx, "t", "p", "r", nil); err != nil {
				b.Fatal(err)
			}
			m.ObserveRead("PointGet", 1, 1, time.Microsecond)
			m.QueryCompleted(true, 20*time.Microsecond)
		}
	})
}
