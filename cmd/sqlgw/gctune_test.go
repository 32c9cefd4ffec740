package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// TestGCPercentFor: the next collection is due gcHeadroom bytes above a
// small live heap, and at GOGC=100 once the live heap is that large.
func TestGCPercentFor(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int
	}{
		{0, gcMaxPercent},
		{1 << 20, gcMaxPercent},
		{8 << 20, gcMaxPercent},
		{16 << 20, 400},
		{20 << 20, 300}, // 320 rounded down to a step of 50
		{32 << 20, 200},
		{64 << 20, 100},
		{1 << 30, 100},
	} {
		if got := gcPercentFor(c.live); got != c.want {
			t.Errorf("live %d MiB: GOGC %d, want %d", c.live>>20, got, c.want)
		}
	}
}

// TestGCPacing: startGCPacing sets GOGC for the live heap after a
// collection, leaves an operator's GOGC alone, and its stop function
// restores GOGC=100.
func TestGCPacing(t *testing.T) {
	t.Setenv("GOGC", "150")
	old := debug.SetGCPercent(150)
	defer debug.SetGCPercent(old)
	stop := startGCPacing()
	runtime.GC()
	time.Sleep(50 * time.Millisecond)
	if got := readGOGC(); got != 150 {
		t.Errorf("with GOGC=150 in the environment: GOGC %d", got)
	}
	stop()

	// t.Setenv cannot unset: the pacer looks the variable up, so test the
	// running pacer with it removed by hand, restored at the end.
	t.Setenv("GOGC", "")
	if err := os.Unsetenv("GOGC"); err != nil {
		t.Fatal(err)
	}
	debug.SetGCPercent(100)
	stop = startGCPacing()
	defer stop()
	want, got := 0, 0
	for range 50 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // the finalizer runs after the collection
		want, got = gcPercentFor(liveHeap()), readGOGC()
		if got == want && want != 100 {
			stop()
			if got := readGOGC(); got != 100 {
				t.Errorf("after stop: GOGC %d, want 100", got)
			}
			return
		}
	}
	t.Errorf("GOGC %d after collections, want %d (above 100: the test's heap is small)", got, want)
}

func readGOGC() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}

func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
