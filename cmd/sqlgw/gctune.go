package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"

	"github.com/sqlgw/sqlgw/storage/pebble"
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
// grown by at least the headroom (GOGC = headroom / live heap, between
// 100 and gcMaxPercent), so a small heap is collected about as often as
// one of the headroom's size would be, and a large heap (a large
// statement's values, big result sets) exactly as with GOGC=100. The
// process's peak heap grows by at most the headroom over GOGC=100's.
//
// The headroom is a sixty-fourth of the memory available to the process
// (pebble.AvailableMemory: the cgroup limit or RAM), between 64 MiB and
// 512 MiB: 384 MiB on a 24 GiB machine, where 64 MiB had the collector
// run three times a second under sysbench's oltp_point_select (its mark
// workers and sweeping about 4% of the server's CPU), 64 MiB at 4 GiB
// and below. Memory is traded for CPU as the block cache does, in a
// smaller proportion.
//
// GOGC or GOMEMLIMIT in the environment turn this off: the operator's
// setting applies as is.
const (
	gcMinHeadroom = 64 << 20
	gcMaxHeadroom = 512 << 20
	gcMaxPercent  = 5000
)

// gcHeadroom is the headroom for mem bytes of available memory (0:
// unknown, the minimum).
func gcHeadroom(mem int64) uint64 {
	return uint64(max(gcMinHeadroom, min(mem/64, gcMaxHeadroom)))
}

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
	p := &gcPacer{sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}, percent: 100,
		headroom: gcHeadroom(pebble.AvailableMemory())}
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
	sample   []metrics.Sample
	percent  int    // the GOGC set last (only the finalizer goroutine writes it)
	headroom uint64 // bytes (gcHeadroom)
	stopped  atomic.Bool
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
	percent := gcPercentFor(p.sample[0].Value.Uint64(), p.headroom)
	if percent != p.percent && !p.stopped.Load() {
		p.percent = percent
		debug.SetGCPercent(percent)
	}
}

// gcPercentFor is the GOGC that puts the next collection headroom bytes
// above a live heap of live bytes, within [100, gcMaxPercent], in steps
// of 50 (so that small changes of the live heap do not re-set it).
func gcPercentFor(live, headroom uint64) int {
	if live == 0 {
		return gcMaxPercent
	}
	pc := int(min(headroom*100/live, gcMaxPercent))
	pc -= pc % 50
	return max(100, pc)
}
