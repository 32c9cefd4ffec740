package pebble

import (
	"fmt"
	"runtime"
	"testing"
)

// BenchmarkRowCacheGC is a full collection of a heap whose live part is
// a row cache of 100,000 records of 200 bytes (sysbench's 100,000-row
// table, every row read once): what the cache adds to the collector's
// marking, which the server pays a few times a second under load.
func BenchmarkRowCacheGC(b *testing.B) {
	const n = 100_000
	c := newRowCache(256 << 20)
	val := make([]byte, 200)
	for i := range n {
		k := fmt.Appendf(nil, "\x00\x00\x00\x00\x00\x00\x00\x07p\x00r%08d", i)
		_, token, _ := c.testGet(k)
		c.testPut(k, val, token)
	}
	if ents, _ := c.stats(); ents != n {
		b.Fatalf("%d entries cached of %d", ents, n)
	}
	runtime.GC()
	b.ResetTimer()
	for b.Loop() {
		runtime.GC()
	}
	b.StopTimer()
	runtime.KeepAlive(c)
}
