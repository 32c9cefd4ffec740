package engine

import (
	"context"
	"sync"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
)

// The process list entry of a statement the plan cache runs
//
// go-mysql-server's handler registers every statement in the engine's
// ProcessList (BeginQuery, EndQuery): under one mutex that every
// connection takes in turn, twice per statement, it writes the process's
// fields, adds and removes the pid in a map, makes a map for the
// statement's progress, reads the clock three times, reads the global
// long_query_time and counts Threads_running up and down; and it derives a
// cancellable context and then copies the whole sql.Context around it.
// On oltp_point_select that was about 5% of the server's CPU and five of
// its allocations per execute (issue 13, eleventh session).
//
// The statements the plan cache runs itself (FastLane.beginStatement:
// direct reads, cached plans, cached writes, BEGIN/COMMIT) register in
// their session instead (fastProc, under the session's own mutex, which
// only SHOW PROCESSLIST and KILL ever contend for), and the engine's
// process list is wrapped (procList) so that whoever reads or kills
// through it sees them as before:
//
//   - Processes (SHOW PROCESSLIST, information_schema.PROCESSLIST) shows
//     a connection running such a statement as go-mysql-server would:
//     Command Query, Info its text, Time from its start, State running;
//   - Kill (KILL QUERY, KILL CONNECTION, the engine's Close) and
//     RemoveConnection cancel its context, which the store's requests and
//     the row loops watch (the statement then fails with 1317, as before);
//   - Threads_running and Slow_queries are counted as EndQuery counts
//     them, from the one clock read at the statement's start and one at
//     its end.
//
// Upstream: go-mysql-server's ProcessList could keep the per-connection
// state of a running query in the Process itself, updated under a
// per-process lock with the pid map written only for statements that
// report progress, and BeginQuery could take the cancellable context the
// caller already made instead of deriving and copying one; then no
// gateway would need a list of its own.

// fastProc is the running plan-cache statement of a session, if any.
type fastProc struct {
	mu      sync.Mutex
	running bool
	query   string
	pid     uint64
	started time.Time
	cancel  context.CancelFunc
}

// begin registers the statement of ctx (text query, started at start)
// and returns its cancellable context.
func (p *fastProc) begin(ctx *sql.Context, query string, start time.Time) (context.Context, context.CancelFunc) {
	cctx, cancel := context.WithCancel(ctx.Context)
	p.mu.Lock()
	p.running, p.query, p.pid, p.started, p.cancel = true, query, ctx.Pid(), start, cancel
	p.mu.Unlock()
	sql.StatusVariables.IncrementGlobal("Threads_running", 1)
	return cctx, cancel
}

// end unregisters the statement, cancels its context (as EndQuery does)
// and counts it as EndQuery does; elapsed is its running time.
func (p *fastProc) end(ctx *sql.Context, elapsed time.Duration) {
	p.mu.Lock()
	cancel := p.cancel
	p.running, p.query, p.pid, p.cancel = false, "", 0, nil
	p.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	if lqt := longQueryTime(); lqt > 0 && elapsed.Seconds() > lqt {
		sql.IncrementStatusVariable(ctx, "Slow_queries", 1)
	}
	sql.StatusVariables.IncrementGlobal("Threads_running", -1)
}

// kill cancels the running statement's context, if any.
func (p *fastProc) kill() {
	p.mu.Lock()
	cancel := p.cancel
	p.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// show fills proc (a copy of the connection's entry) with the running
// statement, if any and proc shows none.
func (p *fastProc) show(proc *sql.Process) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.running || proc.QueryPid != 0 {
		return
	}
	proc.Command = sql.ProcessCommandQuery
	proc.Query = p.query
	proc.QueryPid = p.pid
	proc.StartedAt = p.started
}

// longQueryTime is go-mysql-server's getLongQueryTime: long_query_time's
// global value, 0 if it cannot be read. It is read once per change of a
// global variable, not per statement (sysvaralias.go: cachedGlobal).
func longQueryTime() float64 {
	return longQueryTimeGlobal.get()
}

var longQueryTimeGlobal = cachedGlobal[float64]{name: "long_query_time", conv: func(v any) float64 {
	f, _ := v.(float64)
	return f
}}

// procList is the engine's process list with the sessions' plan-cache
// statements (see above).
type procList struct {
	sql.ProcessList
	gw *Gateway
}

func (l *procList) Processes() []sql.Process {
	all := l.ProcessList.Processes()
	for i := range all {
		if s := l.gw.Session(all[i].Connection); s != nil {
			s.proc.show(&all[i])
		}
	}
	return all
}

func (l *procList) Kill(connID uint32) {
	l.ProcessList.Kill(connID)
	if s := l.gw.Session(connID); s != nil {
		s.proc.kill()
	}
}

func (l *procList) RemoveConnection(connID uint32) {
	l.ProcessList.RemoveConnection(connID)
	if s := l.gw.Session(connID); s != nil {
		s.proc.kill()
	}
}
