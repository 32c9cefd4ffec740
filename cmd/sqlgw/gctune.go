package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// Garbage collector pacing (issue 13)
//
// With Go's default GOGC=100 the collector runs whenever the heap has
// grown by the live heap's size. A gateway's live heap is small (Pebble's
// block cache is not on the Go heap) while every statement allocates a
// few kilobytes, so under sysbench's oltp_point_select the collector ran
// many times a second: its mark workers and the allocation assists were
// about 10% of the server's CPU. serve therefore paces it by headroom
// instead: after each collection the next one is due when the heap has
// grown by at least gcHeadroom bytes (GOGC = gcHeadroom / live heap,
// between 100 and gcMaxPercent), so a small heap is collected about as
// often as one of gcHeadroom bytes would be, and a large heap (a large
// statement's values, big result sets) exactly as with GOGC=100. The
// process's peak heap grows by at most gcHeadroom over GOGC=100's.
//
// GOGC or GOMEMLIMIT in the environment turn this off: the operator's
// setting applies as is.
const (
	gcHeadroom   = 64 << 20
	gcMaxPercent = 800
)

// startGCPacing starts the pacing described above unless GOGC or
// GOMEMLIMIT is set; it returns a function that stops it and restores
// GOGC=100.
func startGCPacing() (stop func()) {
	if _, ok := os.LookupEnv("GOGC"); ok {
		return func() {}
	}
	if _, ok := os.LookupEnv("GOMEMLIMIT"); ok {
		return func() {}
	}
	p := &gcPacer{sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}, percent: 100}
	p.tune()
	p.arm()
	return func() {
		if p.stopped.CompareAndSwap(false, true) {
			debug.SetGCPercent(100)
		}
	}
}

// gcPacer re-tunes GOGC after every collection: a sentinel object's
// finalizer runs once the collection that found it unreachable is done,
// and allocates the next sentinel.
type gcPacer struct {
	sample  []metrics.Sample
	percent int // the GOGC set last (only the finalizer goroutine writes it)
	stopped atomic.Bool
}

type gcSentinel struct{ p *gcPacer }

func (p *gcPacer) arm() {
	s := &gcSentinel{p: p}
	runtime.SetFinalizer(s, func(s *gcSentinel) {
		if s.p.stopped.Load() {
			return
		}
		s.p.tune()
		s.p.arm()
	})
}

// tune sets GOGC for the live heap measured by the last collection.
func (p *gcPacer) tune() {
	metrics.Read(p.sample)
	if p.sample[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	percent := gcPercentFor(p.sample[0].Value.Uint64())
	if percent != p.percent && !p.stopped.Load() {
		p.percent = percent
		debug.SetGCPercent(percent)
	}
}

// gcPercentFor is the GOGC that puts the next collection gcHeadroom bytes
// above a live heap of live bytes, within [100, gcMaxPercent], in steps
// of 50 (so that small changes of the live heap do not re-set it).
func gcPercentFor(live uint64) int {
	if live == 0 {
		return gcMaxPercent
	}
	pc := int(min(uint64(gcHeadroom)*100/live, gcMaxPercent))
	pc -= pc % 50
	return max(100, pc)
}
