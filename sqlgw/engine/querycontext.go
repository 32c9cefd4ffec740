package engine

import (
	"context"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
)

// The statement context of the plan cache
//
// Every execute the plan cache serves needs a sql.Context, made as
// go-mysql-server's SessionManager.NewContextWithQuery makes one: the
// session, the tracer and a root span, a query pid, the query text, the
// engine's memory manager and process list, and the connection's services
// (KILL's KillConnection, LOAD DATA's LoadInfile). That function looks the
// session up and draws the pid under the manager's mutex, twice per
// statement, one lock every connection takes in turn, and makes the eight
// option closures anew. queryContext makes the same context from the
// session the gateway already holds (Gateway.Session: the same object
// go-mysql-server keeps for the connection), the five options that do not
// change with the statement made once per session (Session.ctxOpts), and
// a pid from the session's own sequence (Session.nextPid), without a lock
// (issue 13, seventh round); since the eleventh session also the process
// list with its account filter (ownProcessList) made once per session and
// the no-op root span without a context around it. The server sets no tracer
// (server.Config.Tracer), so the tracer is go-mysql-server's
// sql.NoopTracer, as in the manager. go-mysql-server's own path (a miss,
// a statement the cache does not take) still uses the manager.
//
// Pids: the process list requires the pid of each running statement to be
// unique (ProcessList.BeginQuery fails with ErrPidAlreadyUsed otherwise).
// The manager counts from 1; queryContext's pids have the top bit set,
// then the connection ID and a per-session sequence, so they meet neither
// the manager's nor another session's. A session runs one statement at a
// time, so its sequence may wrap.

// ctxOpts are a session's statement-independent context options, made
// once.
type ctxOpts struct {
	conn                                    *mysql.Conn
	session, tracer, memory, procs, service sql.ContextOption
}

// queryContext is NewContextWithQuery(ctx, c, query) for session s of
// connection c (see above).
func (f *FastLane) queryContext(ctx context.Context, c *mysql.Conn, s *Session, query string) *sql.Context {
	o := s.ctxOpts
	if o == nil || o.conn != c {
		memory := sql.WithMemoryManager(f.Engine.MemoryManager)
		// The account filter of NewClientContext (accounts_visible.go),
		// made once: it reads only the context's session.
		own := ownProcessList{ProcessList: f.Engine.ProcessList, ctx: sql.NewContext(context.Background(), sql.WithSession(s), memory)}
		o = &ctxOpts{
			conn:    c,
			session: sql.WithSession(s),
			tracer:  sql.WithTracer(sql.NoopTracer),
			memory:  memory,
			procs:   sql.WithProcessList(own),
			service: sql.WithServices(sql.Services{KillConnection: f.SessionManager.KillConnection, LoadInfile: c.LoadInfile}),
		}
		s.ctxOpts = o
	}
	// The root span is the no-op tracer's, which NoopTracer.Start would
	// also have put into ctx (one context.WithValue per statement) for
	// nobody to read: every span the statement starts is a no-op.
	return sql.NewContext(ctx, o.session, o.tracer, sql.WithPid(s.nextPid(c.ConnectionID)), sql.WithQuery(query),
		o.memory, o.procs, rootSpan, o.service)
}

// rootSpan is the no-op tracer's span (see queryContext).
var rootSpan = func() sql.ContextOption {
	_, span := sql.NoopTracer.Start(context.Background(), "query")
	return sql.WithRootSpan(span)
}()

// nextPid returns the pid of the session's next statement (see above).
func (s *Session) nextPid(conn uint32) uint64 {
	s.pidSeq++
	return 1<<63 | uint64(conn)<<31 | uint64(s.pidSeq&(1<<31-1))
}
