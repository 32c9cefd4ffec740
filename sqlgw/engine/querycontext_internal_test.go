package engine

import "testing"

// TestQueryContextPids: the plan cache's statement pids (querycontext.go)
// never meet go-mysql-server's (which count from 1) nor another session's
// (the process list refuses a pid already running), across a session's
// sequence wrapping.
func TestQueryContextPids(t *testing.T) {
	seen := map[uint64]uint32{}
	for _, conn := range []uint32{1, 2, 3, 1 << 20, 1<<32 - 1} {
		s := &Session{}
		s.pidSeq = 1<<31 - 3 // wraps within the loop
		for range 6 {
			pid := s.nextPid(conn)
			if pid < 1<<63 {
				t.Fatalf("conn %d: pid %#x in go-mysql-server's range", conn, pid)
			}
			if other, ok := seen[pid]; ok && other != conn {
				t.Fatalf("pid %#x of conn %d already drawn by conn %d", pid, conn, other)
			}
			seen[pid] = conn
		}
	}
}
