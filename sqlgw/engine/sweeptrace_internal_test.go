package engine

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/storage/recorder"
)

// lockedBuffer is a bytes.Buffer safe to read while a recorder writes it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestRecoverySweepNotInStatementTrace: the index recovery sweep's
// requests (StartIndexRecovery) are background work, out of the recorder's
// own trace, which tests read as the requests of the statements they run
// (sqltest Server.Requests); a trace attached to the sweep's context still
// sees them. Before, a sweep running on under load showed in the trace of
// a later statement (TestCollationMatrix/azurite).
func TestRecoverySweepNotInStatementTrace(t *testing.T) {
	s := newEngineSession(t)
	s.must(t, "CREATE DATABASE d")
	s.must(t, "CREATE TABLE d.t (id INT PRIMARY KEY, a INT, KEY ga (a) COMMENT 'sqlgw: global')")
	s.must(t, "INSERT INTO d.t VALUES (1, 1), (2, 2)")
	var own, sweep lockedBuffer
	s.e.Recorder().SetTrace(&own)
	defer s.e.Recorder().SetTrace(nil)
	ctx, cancel := context.WithCancel(recorder.WithTrace(context.Background(), &sweep))
	defer cancel()
	s.e.Gateway().StartIndexRecovery(ctx)
	var swept []string
	for deadline := time.Now().Add(20 * time.Second); len(swept) == 0; {
		if time.Now().After(deadline) {
			t.Fatalf("no index sweep within 20 s; its trace:\n%s", sweep.String())
		}
		time.Sleep(20 * time.Millisecond)
		for _, l := range strings.Split(sweep.String(), "\n") {
			if strings.HasPrefix(l, "Query ") && strings.Contains(l, "filter=") && !strings.Contains(l, "catalog") {
				swept = append(swept, l)
			}
		}
	}
	cancel()
	time.Sleep(100 * time.Millisecond)
	got := own.String()
	for _, l := range swept {
		if strings.Contains(got, l) {
			t.Errorf("the recorder's own trace has the sweep's request %q:\n%s", l, got)
		}
	}
}

// TestStatsRefreshNotInStatementTrace: the statistics refresh a
// statement's planning starts (refreshStats, once enough of an analysed
// table changed) scans the table and saves its statistics as background
// work, out of the recorder's own trace, as the recovery sweeps. Before,
// its scan, running on under load, could show in the trace of the
// statements that follow (TestCollationMatrix's golden traces).
func TestStatsRefreshNotInStatementTrace(t *testing.T) {
	s := newEngineSession(t)
	s.must(t, "CREATE DATABASE d")
	s.must(t, "CREATE TABLE d.t (id INT PRIMARY KEY, a INT)")
	s.must(t, "INSERT INTO d.t VALUES (1, 1), (2, 2), (3, 3)")
	g := s.e.Gateway()
	meta, err := g.Catalog.Table(context.Background(), "d", "t")
	if err != nil || meta == nil {
		t.Fatal(meta, err)
	}
	if err := g.analyzeTable(context.Background(), meta); err != nil { // ANALYZE TABLE's
		t.Fatal(err)
	}
	ts := g.tableStatsOf(meta.Physical)
	if ts == nil {
		t.Fatal("no statistics after the analysis")
	}
	ts.NoteChanges(1000) // well past the refresh's share
	var own lockedBuffer
	s.e.Recorder().SetTrace(&own)
	defer s.e.Recorder().SetTrace(nil)
	g.plannerStats(meta) // a statement's planning: starts the refresh
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		g.mu.Lock()
		cur := g.stats[meta.Physical]
		g.mu.Unlock()
		if cur != ts {
			break // analysed again
		}
		if time.Now().After(deadline) {
			t.Fatal("no statistics refresh within 20 s")
		}
	}
	time.Sleep(100 * time.Millisecond) // the statistics' save, after
	for _, l := range strings.Split(own.String(), "\n") {
		if strings.Contains(l, meta.Physical) || strings.Contains(l, g.statsTable()) {
			t.Errorf("the recorder's own trace has the refresh's request %q:\n%s", l, own.String())
		}
	}
}
