// Package metrics holds the server's counters and exports them in
// Prometheus' text format: store requests by operation (Store, a
// storage.Store wrapper), table reads by access path, connections and
// statements.
//
// It imports only the storage contract; every other sqlgw package may
// import it (the engine reports reads, the wire layer statements).
//
// The counters every statement updates are striped over cache lines (see
// Striped counters below), so that concurrent connections do not pass one
// line between the cores on every statement.
package metrics

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sqlgw/sqlgw/storage"
)

// Metrics
//
// The server exports, in Prometheus' text exposition format (version
// 0.0.4, served by Server.MetricsHandler):
//
//   - store requests by operation (get, insert, upsert, update, delete,
//     batch, query, table operations): count, errors, latency histogram,
//     and the entities read and written;
//   - table reads by access path (PointGet, MultiGet, RowRange, ...,
//     IndexLookup, TableScan): count, the store requests and entities they
//     cost, and the time spent fetching (inside the row iterator, not the
//     time the engine spends between rows);
//   - client connections (open and total) and statements (count by
//     outcome, latency histogram, autocommit retries after a conflict).
//
// The registry is a handful of fixed families written by hand rather than
// a client library: the format is small and stable, and the gateway keeps
// no dependency it does not need.

// Striped counters
//
// Every point select adds to a handful of these counters (a store get's
// count and latency, the entities read, the statement's outcome and
// latency) from every connection's goroutine at once. One atomic word per
// counter is one cache line that the cores pass between them on every
// statement: with 4 sysbench threads on 2 cores the contended atomic adds
// were a visible share of the point select's CPU (issue 13, seventh
// round). So each hot counter is kept in stripes copies on cache lines of
// their own; an update adds to a stripe chosen at random (runtime's
// per-thread generator, no shared state) and an export sums the stripes.
// Two concurrent updates then meet on a line one time in stripes. The sum
// an export reads is not a snapshot across counters (it never was: each
// atomic was read on its own), but every update is counted exactly once.

// stripes is the number of copies of a striped counter; cacheLine the
// span each is padded to (two 64-byte lines: the adjacent-line prefetcher
// moves them in pairs).
const (
	stripes   = 8
	cacheLine = 128
)

// stripe picks the stripe of one update.
func stripe() int { return int(rand.Uint32() % stripes) }

// counter is a striped int64 counter.
type counter struct {
	s [stripes]struct {
		v atomic.Int64
		_ [cacheLine - 8]byte
	}
}

// Add adds n to the counter.
func (c *counter) Add(n int64) { c.s[stripe()].v.Add(n) }

// Load returns the counter's value: the sum of its stripes.
func (c *counter) Load() int64 {
	var n int64
	for i := range c.s {
		n += c.s[i].v.Load()
	}
	return n
}

// durationBuckets are the histogram bucket upper bounds, in seconds: from
// a local Pebble get (tens of µs) to a long Azure scan.
var durationBuckets = [len16]float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// bucketNS are durationBuckets as durations (exact: every bound is a
// whole number of nanoseconds).
var bucketNS = func() [len16]time.Duration {
	var b [len16]time.Duration
	for i, s := range durationBuckets {
		b[i] = time.Duration(math.Round(s * 1e9))
	}
	return b
}()

// len16 is len(durationBuckets).
const len16 = 16

// histogram is a cumulative-on-export latency histogram, striped (see
// Striped counters above); each stripe also carries a count and an
// error count for the operation the histogram times (opStats).
type histogram struct {
	s [stripes]histStripe
}

type histStripe struct {
	counts         [len16 + 1]atomic.Int64 // +Inf last
	sumNS          atomic.Int64
	events, errors atomic.Int64 // opStats' requests and errors
	_              [2*cacheLine - (len16+4)*8]byte
}

// bucket returns the index of the first bound >= d (len16: +Inf), as
// sort.SearchFloat64s(durationBuckets, d.Seconds()) does: most
// durations fall in the first buckets, so a scan from the start.
func bucket(d time.Duration) int {
	for i, b := range bucketNS {
		if d <= b {
			return i
		}
	}
	return len16
}

func (h *histogram) observe(d time.Duration) { h.observeIn(&h.s[stripe()], d) }

func (h *histogram) observeIn(st *histStripe, d time.Duration) {
	st.counts[bucket(d)].Add(1)
	st.sumNS.Add(int64(d))
}

// count returns bucket i's count, summed over the stripes.
func (h *histogram) count(i int) int64 {
	var n int64
	for s := range h.s {
		n += h.s[s].counts[i].Load()
	}
	return n
}

func (h *histogram) sum() time.Duration {
	var n int64
	for s := range h.s {
		n += h.s[s].sumNS.Load()
	}
	return time.Duration(n)
}

func (h *histogram) write(w io.Writer, name, labels string) {
	var cum int64
	for i, le := range durationBuckets {
		cum += h.count(i)
		fmt.Fprintf(w, "%s_bucket{%s}\t%d\n", name, joinLabels(labels, `le="`+formatFloat(le)+`"`), cum)
	}
	cum += h.count(len(durationBuckets))
	fmt.Fprintf(w, "%s_bucket{%s}\t%d\n", name, joinLabels(labels, `le="+Inf"`), cum)
	fmt.Fprintf(w, "%s_sum%s\t%s\n", name, braces(labels), formatFloat(h.sum().Seconds()))
	fmt.Fprintf(w, "%s_count%s\t%d\n", name, braces(labels), cum)
}

func joinLabels(a, b string) string {
	if a == "" {
		return b
	}
	return a + "," + b
}

func braces(labels string) string {
	if labels == "" {
		return ""
	}
	return "{" + labels + "}"
}

func formatFloat(f float64) string {
	if math.IsInf(f, 1) {
		return "+Inf"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// opStats are the metrics of one store operation: its requests and
// errors are counted in the latency histogram's stripes.
type opStats struct {
	latency histogram
}

// done counts n requests of the operation, one of them failed if failed,
// and observes d for each of the observed ones.
func (o *opStats) done(n int64, failed bool, d time.Duration, observed int) {
	st := &o.latency.s[stripe()]
	st.events.Add(n)
	if failed {
		st.errors.Add(1)
	}
	for range observed {
		o.latency.observeIn(st, d)
	}
}

func (o *opStats) requests() int64 {
	var n int64
	for i := range o.latency.s {
		n += o.latency.s[i].events.Load()
	}
	return n
}

func (o *opStats) errors() int64 {
	var n int64
	for i := range o.latency.s {
		n += o.latency.s[i].errors.Load()
	}
	return n
}

// pathStats are the metrics of one access path.
type pathStats struct {
	reads, requests, entities counter
	latency                   histogram
}

// Store operations, in export order; the op constants index them.
var storeOps = [numOps]string{"get", "insert", "upsert", "update", "delete", "batch", "query", "create_table", "delete_table", "list_tables", "table_exists"}

const (
	opGet = iota
	opInsert
	opUpsert
	opUpdate
	opDelete
	opBatch
	opQuery
	opCreateTable
	opDeleteTable
	opListTables
	opTableExists
	numOps
)

// Metrics holds the server's counters. The zero value is not usable; see
// New. All methods are safe for concurrent use.
type Metrics struct {
	ops             [numOps]opStats
	entitiesRead    counter
	entitiesWritten counter

	// paths is copied on write (a new access path, a few in a
	// process's life) so that a read's lookup takes no lock.
	pathMu sync.Mutex
	paths  atomic.Pointer[map[string]*pathStats]

	connsOpen, connsTotal    atomic.Int64
	queriesOK, queriesFailed counter
	queryLatency             histogram
	// statementRetries counts autocommit statements run again after a
	// write conflict (autoretry.go); retryWaits the retries that waited
	// in a row's queue behind another statement, retryBackoffs those that
	// did not know their row and backed off instead, retryGiveUps the
	// statements that got the 1213 after all (the retry window ran out).
	statementRetries, retryWaits, retryBackoffs, retryGiveUps atomic.Int64
}

func New() *Metrics {
	m := &Metrics{}
	m.paths.Store(&map[string]*pathStats{})
	return m
}

func (m *Metrics) path(name string) *pathStats {
	if p := (*m.paths.Load())[name]; p != nil {
		return p
	}
	m.pathMu.Lock()
	defer m.pathMu.Unlock()
	old := *m.paths.Load()
	if p := old[name]; p != nil {
		return p
	}
	p := &pathStats{}
	paths := make(map[string]*pathStats, len(old)+1)
	for n, q := range old {
		paths[n] = q
	}
	paths[name] = p
	m.paths.Store(&paths)
	return p
}

// ObserveRead records one table read by access path: the store requests
// and entities it cost and the time spent fetching.
func (m *Metrics) ObserveRead(path string, requests, entities int64, d time.Duration) {
	if m == nil {
		return
	}
	p := m.path(path)
	p.reads.Add(1)
	p.requests.Add(requests)
	p.entities.Add(entities)
	p.latency.observe(d)
}

// WriteTo writes every metric in Prometheus' text format.
func (m *Metrics) WriteTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: bufio.NewWriter(w)}
	family := func(name, typ, help string) {
		fmt.Fprintf(cw, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
	}
	family("sqlgw_store_requests_total", "counter", "Requests sent to the entity store, by operation.")
	for i, op := range storeOps {
		fmt.Fprintf(cw, "sqlgw_store_requests_total{op=%q}\t%d\n", op, m.ops[i].requests())
	}
	family("sqlgw_store_request_errors_total", "counter", "Store requests that returned an error (including not found and precondition failures), by operation.")
	for i, op := range storeOps {
		fmt.Fprintf(cw, "sqlgw_store_request_errors_total{op=%q}\t%d\n", op, m.ops[i].errors())
	}
	family("sqlgw_store_request_duration_seconds", "histogram", "Latency of store requests, by operation.")
	for i, op := range storeOps {
		m.ops[i].latency.write(cw, "sqlgw_store_request_duration_seconds", fmt.Sprintf("op=%q", op))
	}
	family("sqlgw_store_entities_read_total", "counter", "Entities returned by store gets and queries.")
	fmt.Fprintf(cw, "sqlgw_store_entities_read_total\t%d\n", m.entitiesRead.Load())
	family("sqlgw_store_entities_written_total", "counter", "Entities written by successful store writes and batches.")
	fmt.Fprintf(cw, "sqlgw_store_entities_written_total\t%d\n", m.entitiesWritten.Load())

	all := *m.paths.Load()
	names := make([]string, 0, len(all))
	for n := range all {
		names = append(names, n)
	}
	paths := make([]*pathStats, len(names))
	sort.Strings(names)
	for i, n := range names {
		paths[i] = all[n]
	}
	family("sqlgw_table_reads_total", "counter", "Table reads, by access path.")
	for i, n := range names {
		fmt.Fprintf(cw, "sqlgw_table_reads_total{path=%q}\t%d\n", n, paths[i].reads.Load())
	}
	family("sqlgw_table_read_store_requests_total", "counter", "Store requests sent by table reads, by access path.")
	for i, n := range names {
		fmt.Fprintf(cw, "sqlgw_table_read_store_requests_total{path=%q}\t%d\n", n, paths[i].requests.Load())
	}
	family("sqlgw_table_read_entities_total", "counter", "Entities read by table reads, by access path.")
	for i, n := range names {
		fmt.Fprintf(cw, "sqlgw_table_read_entities_total{path=%q}\t%d\n", n, paths[i].entities.Load())
	}
	family("sqlgw_table_read_duration_seconds", "histogram", "Time table reads spend fetching from the store, by access path.")
	for i, n := range names {
		paths[i].latency.write(cw, "sqlgw_table_read_duration_seconds", fmt.Sprintf("path=%q", n))
	}

	family("sqlgw_connections", "gauge", "Open client connections.")
	fmt.Fprintf(cw, "sqlgw_connections\t%d\n", m.connsOpen.Load())
	family("sqlgw_connections_total", "counter", "Client connections accepted.")
	fmt.Fprintf(cw, "sqlgw_connections_total\t%d\n", m.connsTotal.Load())
	family("sqlgw_statements_total", "counter", "Statements executed, by outcome.")
	fmt.Fprintf(cw, "sqlgw_statements_total{result=\"ok\"}\t%d\n", m.queriesOK.Load())
	fmt.Fprintf(cw, "sqlgw_statements_total{result=\"error\"}\t%d\n", m.queriesFailed.Load())
	family("sqlgw_statement_retries_total", "counter", "Autocommit statements run again after a write conflict.")
	fmt.Fprintf(cw, "sqlgw_statement_retries_total\t%d\n", m.statementRetries.Load())
	family("sqlgw_statement_retry_waits_total", "counter", "Autocommit retries that waited in their row's queue behind another statement.")
	fmt.Fprintf(cw, "sqlgw_statement_retry_waits_total\t%d\n", m.retryWaits.Load())
	family("sqlgw_statement_retry_backoffs_total", "counter", "Autocommit retries after a conflict on an unknown row, after a randomized backoff.")
	fmt.Fprintf(cw, "sqlgw_statement_retry_backoffs_total\t%d\n", m.retryBackoffs.Load())
	family("sqlgw_statement_retry_give_ups_total", "counter", "Autocommit statements that failed with the conflict after the retry window.")
	fmt.Fprintf(cw, "sqlgw_statement_retry_give_ups_total\t%d\n", m.retryGiveUps.Load())
	family("sqlgw_statement_duration_seconds", "histogram", "Statement latency.")
	m.queryLatency.write(cw, "sqlgw_statement_duration_seconds", "")
	if err := cw.w.(*bufio.Writer).Flush(); err != nil && cw.err == nil {
		cw.err = err
	}
	return cw.n, cw.err
}

type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
	return n, err
}

// Handler serves the metrics over HTTP (GET /metrics, or any path).
func (m *Metrics) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		m.WriteTo(w)
	})
}

// The server event listener (go-mysql-server calls these per connection
// and per statement).

// ClientConnected implements server.ServerEventListener.
func (m *Metrics) ClientConnected() { m.connsOpen.Add(1); m.connsTotal.Add(1) }

// ClientDisconnected implements server.ServerEventListener.
func (m *Metrics) ClientDisconnected() { m.connsOpen.Add(-1) }

// QueryStarted implements server.ServerEventListener.
func (m *Metrics) QueryStarted() {}

// QueryCompleted implements server.ServerEventListener.
func (m *Metrics) QueryCompleted(success bool, d time.Duration) {
	if success {
		m.queriesOK.Add(1)
	} else {
		m.queriesFailed.Add(1)
	}
	m.queryLatency.observe(d)
}

// Store times every request to the store below it by operation.
type Store struct {
	inner storage.Store
	m     *Metrics
}

var _ storage.Store = (*Store)(nil)

// NewStore returns inner timed into m.
func NewStore(inner storage.Store, m *Metrics) *Store { return &Store{inner: inner, m: m} }

// StatementRetried counts an autocommit statement run again after a write
// conflict.
func (m *Metrics) StatementRetried() { m.statementRetries.Add(1) }

// RetryWaited counts a retry that waited in its row's queue.
func (m *Metrics) RetryWaited() { m.retryWaits.Add(1) }

// RetryBackedOff counts a retry after a backoff (the row was unknown).
func (m *Metrics) RetryBackedOff() { m.retryBackoffs.Add(1) }

// RetryGaveUp counts a statement that got the conflict after the window.
func (m *Metrics) RetryGaveUp() { m.retryGiveUps.Add(1) }

// RetryStats are the autocommit retry counters (see Metrics).
type RetryStats struct {
	Retries, Waits, Backoffs, GiveUps int64
}

// Retries returns the autocommit retry counters.
func (m *Metrics) Retries() RetryStats {
	return RetryStats{Retries: m.statementRetries.Load(), Waits: m.retryWaits.Load(),
		Backoffs: m.retryBackoffs.Load(), GiveUps: m.retryGiveUps.Load()}
}

func (s *Store) done(op int, start time.Time, err error) {
	s.m.ops[op].done(1, err != nil, time.Since(start), 1)
}

func (s *Store) written(n int, err error) {
	if err == nil {
		s.m.entitiesWritten.Add(int64(n))
	}
}

func (s *Store) CreateTable(ctx context.Context, table string) error {
	t := time.Now()
	err := s.inner.CreateTable(ctx, table)
	s.done(opCreateTable, t, err)
	return err
}

func (s *Store) DeleteTable(ctx context.Context, table string) error {
	t := time.Now()
	err := s.inner.DeleteTable(ctx, table)
	s.done(opDeleteTable, t, err)
	return err
}

func (s *Store) ListTables(ctx context.Context) ([]string, error) {
	t := time.Now()
	out, err := s.inner.ListTables(ctx)
	s.done(opListTables, t, err)
	return out, err
}

func (s *Store) TableExists(ctx context.Context, table string) (bool, error) {
	t := time.Now()
	ok, err := s.inner.TableExists(ctx, table)
	s.done(opTableExists, t, err)
	return ok, err
}

func (s *Store) Get(ctx context.Context, table, pk, rk string, opts *storage.GetOptions) (*storage.Entity, error) {
	t := time.Now()
	e, err := s.inner.Get(ctx, table, pk, rk, opts)
	s.done(opGet, t, err)
	if err == nil {
		s.m.entitiesRead.Add(1)
	}
	return e, err
}

// GetRow forwards to the backend's storage.RowGetter, if any, and counts
// it as the Get it is.
func (s *Store) GetRow(ctx context.Context, table, pk, rk string, sel, more []string, row *storage.Row) error {
	if _, ok := s.inner.(storage.RowGetter); !ok {
		return storage.ErrRowsUnsupported
	}
	t := time.Now()
	err := storage.ForwardGetRow(ctx, s.inner, table, pk, rk, sel, more, row)
	if errors.Is(err, storage.ErrRowsUnsupported) {
		return err
	}
	s.done(opGet, t, err)
	if err == nil {
		s.m.entitiesRead.Add(1)
	}
	return err
}

func (s *Store) Insert(ctx context.Context, table string, e *storage.Entity) (storage.ETag, error) {
	t := time.Now()
	tag, err := s.inner.Insert(ctx, table, e)
	s.done(opInsert, t, err)
	s.written(1, err)
	return tag, err
}

func (s *Store) Upsert(ctx context.Context, table string, e *storage.Entity, mode storage.UpdateMode) (storage.ETag, error) {
	t := time.Now()
	tag, err := s.inner.Upsert(ctx, table, e, mode)
	s.done(opUpsert, t, err)
	s.written(1, err)
	return tag, err
}

func (s *Store) Update(ctx context.Context, table string, e *storage.Entity, mode storage.UpdateMode, ifMatch storage.ETag) (storage.ETag, error) {
	t := time.Now()
	tag, err := s.inner.Update(ctx, table, e, mode, ifMatch)
	s.done(opUpdate, t, err)
	s.written(1, err)
	return tag, err
}

func (s *Store) Delete(ctx context.Context, table, pk, rk string, ifMatch storage.ETag) error {
	t := time.Now()
	err := s.inner.Delete(ctx, table, pk, rk, ifMatch)
	s.done(opDelete, t, err)
	s.written(1, err)
	return err
}

func (s *Store) Batch(ctx context.Context, table string, ops []storage.Operation) ([]storage.ETag, error) {
	t := time.Now()
	tags, err := s.inner.Batch(ctx, table, ops)
	s.done(opBatch, t, err)
	s.written(len(ops), err)
	return tags, err
}

// MultiBatch forwards to the backend's storage.MultiBatcher, if any.
func (s *Store) MultiBatch(ctx context.Context, batches []storage.TableBatch) ([][]storage.ETag, error) {
	if _, ok := s.inner.(storage.MultiBatcher); !ok {
		return nil, storage.ErrMultiBatchUnsupported
	}
	t := time.Now()
	etags, err := storage.ForwardMultiBatch(ctx, s.inner, batches)
	s.done(opBatch, t, err)
	s.written(storage.Writes(batches), err)
	return etags, err
}

func (s *Store) Query(ctx context.Context, table string, q *storage.Query) (*storage.Page, error) {
	t := time.Now()
	p, err := s.inner.Query(ctx, table, q)
	s.done(opQuery, t, err)
	if err == nil && p != nil {
		s.m.entitiesRead.Add(int64(len(p.Entities)))
	}
	return p, err
}

// MultiQuery implements storage.MultiQuerier: each query counts as one
// query request, as the loop of Query calls it stands for (each observes
// the mean latency of the call's queries); on an error, the queries up to
// the one that failed are unknown here, and one failed request is
// counted.
func (s *Store) MultiQuery(ctx context.Context, table string, qs []*storage.Query) ([]*storage.Page, error) {
	t := time.Now()
	pages, err := storage.MultiQuery(ctx, s.inner, table, qs)
	if err != nil {
		s.done(opQuery, t, err)
		return nil, err
	}
	if len(qs) == 0 {
		return pages, nil
	}
	mean := time.Since(t) / time.Duration(len(qs))
	s.m.ops[opQuery].done(int64(len(qs)), false, mean, len(pages))
	n := 0
	for _, p := range pages {
		n += len(p.Entities)
	}
	s.m.entitiesRead.Add(int64(n))
	return pages, nil
}

// QueryRows forwards to the backend's storage.RowQuerier, if any, and
// counts it as the query it is.
func (s *Store) QueryRows(ctx context.Context, table string, q *storage.Query, marks []string) (*storage.RowPage, error) {
	if _, ok := s.inner.(storage.RowQuerier); !ok {
		return nil, storage.ErrRowsUnsupported
	}
	t := time.Now()
	p, err := storage.ForwardQueryRows(ctx, s.inner, table, q, marks)
	if errors.Is(err, storage.ErrRowsUnsupported) {
		return nil, err
	}
	s.done(opQuery, t, err)
	if err == nil && p != nil {
		s.m.entitiesRead.Add(int64(len(p.Rows)))
	}
	return p, err
}

// MultiQueryRows forwards to the backend's storage.MultiRowQuerier, if
// any, and counts each query as MultiQuery does.
func (s *Store) MultiQueryRows(ctx context.Context, table string, qs []*storage.Query, marks []string, pages []storage.RowPage) error {
	if _, ok := s.inner.(storage.MultiRowQuerier); !ok {
		return storage.ErrRowsUnsupported
	}
	t := time.Now()
	err := storage.ForwardMultiQueryRows(ctx, s.inner, table, qs, marks, pages)
	if errors.Is(err, storage.ErrRowsUnsupported) {
		return err
	}
	if err != nil {
		s.done(opQuery, t, err)
		return err
	}
	if len(qs) == 0 {
		return nil
	}
	mean := time.Since(t) / time.Duration(len(qs))
	s.m.ops[opQuery].done(int64(len(qs)), false, mean, len(pages))
	n := 0
	for i := range pages {
		n += len(pages[i].Rows)
	}
	s.m.entitiesRead.Add(int64(n))
	return nil
}

func (s *Store) Capabilities() storage.Capabilities { return s.inner.Capabilities() }
func (s *Store) Close() error                       { return s.inner.Close() }

// Unwrap returns the store below (for tests and tools that need the
// backend).
func (s *Store) Unwrap() storage.Store { return s.inner }

// PathName is the metric label of an access path.
func PathName(p fmt.Stringer) string { return strings.TrimSpace(p.String()) }

// Snapshot forwards to the backend's storage.Snapshotter, if any.
func (s *Store) Snapshot(ctx context.Context) (storage.Snapshot, error) {
	return storage.ForwardSnapshot(ctx, s.inner)
}
