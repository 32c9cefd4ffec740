package main

import (
	"syscall"
	"testing"
	"time"
)

// processCPU returns the CPU time (user and system) the process has used
// so far: the server's, the client driver's and the store's background
// work, but not the time spent waiting for a disk sync, which dominates
// the wall time of a synced write and hides what an INSERT path costs.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports cpu-ns/op since start (processCPU) over n operations.
func reportCPU(b *testing.B, start time.Duration, n int) {
	b.ReportMetric(float64(processCPU()-start)/float64(n), "cpu-ns/op")
}
