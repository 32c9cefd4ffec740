// Package recorder wraps any storage.Store to count and trace the requests
// sent through it. The gateway uses it for EXPLAIN ANALYZE figures and
// per-session counters; tests use its trace as golden text ("this query sent
// one point get" becomes a checked fact).
//
// Every method of the Store interface except Capabilities and Close is one
// request, whether it succeeds or fails. Entities read are the entities
// returned by Get and Query; entities written are the operations of
// successful writes and batches.
//
// Counts go to the recorder's own totals and to every Counters attached to
// the request's context with WithCounters (a session's, a statement's). A
// trace is one line per request, written to the recorder's trace writer and
// to every writer attached to the context with WithTrace (the recorder's
// own trace writer leaves out the requests of contexts marked Background):
//
//	Query t1 partition=[p1] rows=[a,b) filter=(x gt 5) select=[a,b] top=10 -> 10 entities, more
//
// Keys are printed bare when they are plain ASCII words and quoted (Go
// syntax) otherwise; filters are rendered with storage.FormatOData; ETags,
// which differ from run to run, are printed as "etag" (or "*").
package recorder

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sqlgw/sqlgw/storage"
)

// Counters count requests. All fields may be read and updated concurrently.
type Counters struct {
	Requests        atomic.Int64 // requests sent to the store
	EntitiesRead    atomic.Int64 // entities returned by Get and Query
	EntitiesWritten atomic.Int64 // operations of successful writes and batches
	Errors          atomic.Int64 // requests that returned an error
}

// Snapshot is a copy of Counters at one moment.
type Snapshot struct {
	Requests, EntitiesRead, EntitiesWritten, Errors int64
}

// Snapshot returns the current values.
func (c *Counters) Snapshot() Snapshot {
	return Snapshot{
		Requests:        c.Requests.Load(),
		EntitiesRead:    c.EntitiesRead.Load(),
		EntitiesWritten: c.EntitiesWritten.Load(),
		Errors:          c.Errors.Load(),
	}
}

// Reset sets every counter to zero.
func (c *Counters) Reset() {
	c.Requests.Store(0)
	c.EntitiesRead.Store(0)
	c.EntitiesWritten.Store(0)
	c.Errors.Store(0)
}

// Sub returns s - t, the requests made between two snapshots.
func (s Snapshot) Sub(t Snapshot) Snapshot {
	return Snapshot{s.Requests - t.Requests, s.EntitiesRead - t.EntitiesRead, s.EntitiesWritten - t.EntitiesWritten, s.Errors - t.Errors}
}

func (s Snapshot) String() string {
	return fmt.Sprintf("requests=%d read=%d written=%d errors=%d", s.Requests, s.EntitiesRead, s.EntitiesWritten, s.Errors)
}

type ctxKey struct{}

// attached is what a context carries: the counters and trace writers of
// every enclosing WithCounters and WithTrace.
type attached struct {
	counters []*Counters
	traces   []*syncWriter
	// inline holds counters when they are few (a statement's read: the
	// session's and the read's own), so that attaching them is one
	// allocation besides the context's.
	inline [3]*Counters
}

func from(ctx context.Context) *attached {
	a, _ := ctx.Value(ctxKey{}).(*attached)
	return a
}

// with returns ctx carrying the attachments of ctx plus counters cs and
// trace w (if not nil).
func with(ctx context.Context, cs []*Counters, w *syncWriter) context.Context {
	a := &attached{}
	a.fill(ctx, cs, w)
	return context.WithValue(ctx, ctxKey{}, a)
}

// fill sets a to the attachments of ctx plus counters cs and trace w (if
// not nil).
func (a *attached) fill(ctx context.Context, cs []*Counters, w *syncWriter) {
	*a = attached{}
	a.counters = a.inline[:0]
	old := from(ctx)
	if old != nil {
		a.counters = append(a.counters, old.counters...)
		a.traces = old.traces // never appended to in place: copied below
	}
	a.counters = append(a.counters, cs...)
	if w != nil {
		a.traces = append(append([]*syncWriter(nil), a.traces...), w)
	}
}

// Frame is a context carrying counters, as WithCounters returns, in
// memory its caller provides (issue 13: WithCounters' two allocations, the
// attachment and the context, were a tenth of a point select's): a
// statement's read keeps one in its own state and sets it with
// WithCountersIn. The zero Frame is not a context; one set is until it is
// set again, so a caller reuses one only when nothing made with it, or
// derived from it, is in use any more.
type Frame struct {
	context.Context
	a attached
}

// WithCountersIn is WithCounters(ctx, cs...) made in f: it returns f,
// carrying the attachments of ctx plus cs.
func WithCountersIn(f *Frame, ctx context.Context, cs ...*Counters) context.Context {
	f.Context = ctx
	f.a.fill(ctx, cs, nil)
	return f
}

// Value implements context.Context: the attachments, or ctx's values.
func (f *Frame) Value(key any) any {
	if _, ok := key.(ctxKey); ok {
		return &f.a
	}
	return f.Context.Value(key)
}

// WithCounters returns a context whose requests, made through any
// recorder, also count in each of cs (in addition to counters attached
// further out).
func WithCounters(ctx context.Context, cs ...*Counters) context.Context {
	return with(ctx, cs, nil)
}

// WithTrace returns a context whose requests, made through any recorder,
// are also traced to w, one line each. Lines are written whole; w need not
// be safe for concurrent use.
func WithTrace(ctx context.Context, w io.Writer) context.Context {
	return with(ctx, nil, &syncWriter{w: w})
}

type backgroundKey struct{}

// Background returns a context whose requests are the server's periodic
// background work (the recovery sweeps), made for no statement: they count
// as every request does, and go to the trace writers ctx carries, but not to
// the recorder's own trace writer (SetTrace), which tests read as the
// requests of the statements they run meanwhile. A sweep that happens to
// run while a statement is traced is not that statement's work; under load
// one may run for seconds. The mark is not an attribution: a request made
// for several callers (storage.OnBehalfOf) is traced as before.
func Background(ctx context.Context) context.Context {
	return context.WithValue(ctx, backgroundKey{}, true)
}

// IsBackground reports whether ctx is marked Background.
func IsBackground(ctx context.Context) bool {
	b, _ := ctx.Value(backgroundKey{}).(bool)
	return b
}

func init() { storage.RegisterAttribution(ctxKey{}, mergeAttached) }

// mergeAttached is the attachment of a request made for several callers
// (storage.OnBehalfOf: one batch writing the commit points of several
// transactions): their counters and trace writers, each once, so that the
// request counts and traces in each caller, and in a counter they share
// (a session's, the gateway's) once.
func mergeAttached(vals []any) any {
	a := &attached{}
	a.counters = a.inline[:0]
	for _, v := range vals {
		old := v.(*attached)
		for _, cs := range old.counters {
			if !slices.Contains(a.counters, cs) {
				a.counters = append(a.counters, cs)
			}
		}
		for _, w := range old.traces {
			if !slices.Contains(a.traces, w) {
				a.traces = append(a.traces, w)
			}
		}
	}
	return a
}

type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) writeLine(line string) {
	s.mu.Lock()
	io.WriteString(s.w, line)
	s.mu.Unlock()
}

// Store records the requests made through it and forwards them to the
// store inside. It is safe for concurrent use.
type Store struct {
	inner  storage.Store
	totals Counters
	trace  atomic.Pointer[syncWriter]
}

var _ storage.Store = (*Store)(nil)

// New wraps inner.
func New(inner storage.Store) *Store { return &Store{inner: inner} }

// Totals returns the recorder's own counters (every request through it).
func (s *Store) Totals() *Counters { return &s.totals }

// SetTrace makes the recorder write a line per request to w (but those of
// Background contexts); nil stops.
func (s *Store) SetTrace(w io.Writer) {
	if w == nil {
		s.trace.Store(nil)
		return
	}
	s.trace.Store(&syncWriter{w: w})
}

// Unwrap returns the store inside.
func (s *Store) Unwrap() storage.Store { return s.inner }

// record counts one request and traces it. describe is called only when a
// trace is wanted.
func (s *Store) record(ctx context.Context, read, written int, err error, describe func() string, result func() string) {
	a := from(ctx)
	add := func(c *Counters) {
		c.Requests.Add(1)
		if read > 0 {
			c.EntitiesRead.Add(int64(read))
		}
		if written > 0 {
			c.EntitiesWritten.Add(int64(written))
		}
		if err != nil {
			c.Errors.Add(1)
		}
	}
	add(&s.totals)
	var traces []*syncWriter
	if a != nil {
		for _, c := range a.counters {
			add(c)
		}
		traces = a.traces
	}
	t := s.trace.Load()
	if t != nil && IsBackground(ctx) {
		t = nil
	}
	if t == nil && len(traces) == 0 {
		return
	}
	var line string
	if err != nil {
		line = describe() + " -> " + errorString(err) + "\n"
	} else {
		line = describe() + " -> " + result() + "\n"
	}
	if t != nil {
		t.writeLine(line)
	}
	for _, w := range traces {
		w.writeLine(line)
	}
}

// CreateTable implements storage.Store.
func (s *Store) CreateTable(ctx context.Context, table string) error {
	err := s.inner.CreateTable(ctx, table)
	s.record(ctx, 0, 0, err, func() string { return "CreateTable " + table }, ok)
	return err
}

// DeleteTable implements storage.Store.
func (s *Store) DeleteTable(ctx context.Context, table string) error {
	err := s.inner.DeleteTable(ctx, table)
	s.record(ctx, 0, 0, err, func() string { return "DeleteTable " + table }, ok)
	return err
}

// ListTables implements storage.Store.
func (s *Store) ListTables(ctx context.Context) ([]string, error) {
	names, err := s.inner.ListTables(ctx)
	s.record(ctx, 0, 0, err, func() string { return "ListTables" }, func() string { return plural(len(names), "table") })
	return names, err
}

// TableExists implements storage.Store.
func (s *Store) TableExists(ctx context.Context, table string) (bool, error) {
	ok, err := s.inner.TableExists(ctx, table)
	s.record(ctx, 0, 0, err, func() string { return "TableExists " + table }, func() string { return strconv.FormatBool(ok) })
	return ok, err
}

// Get implements storage.Store.
func (s *Store) Get(ctx context.Context, table, pk, rk string, opts *storage.GetOptions) (*storage.Entity, error) {
	e, err := s.inner.Get(ctx, table, pk, rk, opts)
	n := 0
	if err == nil {
		n = 1
	}
	s.record(ctx, n, 0, err, func() string {
		var b strings.Builder
		b.WriteString("Get " + table + " pk=" + key(pk) + " rk=" + key(rk))
		if opts != nil && opts.Select != nil {
			b.WriteString(" select=" + list(opts.Select))
		}
		return b.String()
	}, func() string { return "1 entity" })
	return e, err
}

// GetRow implements storage.RowGetter when the inner store does: a Get
// answered as a row is recorded as the Get it is, its projection being
// sel then more (what the entity's Get would have selected). A Get the
// store below cannot answer as a row (storage.ErrRowsUnsupported) sent
// nothing and is not recorded.
func (s *Store) GetRow(ctx context.Context, table, pk, rk string, sel, more []string, row *storage.Row) error {
	err := storage.ForwardGetRow(ctx, s.inner, table, pk, rk, sel, more, row)
	if errors.Is(err, storage.ErrRowsUnsupported) {
		return err
	}
	n := 0
	if err == nil {
		n = 1
	}
	s.record(ctx, n, 0, err, func() string {
		return "Get " + table + " pk=" + key(pk) + " rk=" + key(rk) + " select=" + list(append(slices.Clip(sel), more...))
	}, func() string { return "1 entity" })
	return err
}

// Insert implements storage.Store.
func (s *Store) Insert(ctx context.Context, table string, e *storage.Entity) (storage.ETag, error) {
	etag, err := s.inner.Insert(ctx, table, e)
	s.record(ctx, 0, written(err, 1), err, func() string { return "Insert " + table + entityKeys(e) }, ok)
	return etag, err
}

// Upsert implements storage.Store.
func (s *Store) Upsert(ctx context.Context, table string, e *storage.Entity, mode storage.UpdateMode) (storage.ETag, error) {
	etag, err := s.inner.Upsert(ctx, table, e, mode)
	s.record(ctx, 0, written(err, 1), err, func() string { return "Upsert " + table + entityKeys(e) + " mode=" + mode.String() }, ok)
	return etag, err
}

// Update implements storage.Store.
func (s *Store) Update(ctx context.Context, table string, e *storage.Entity, mode storage.UpdateMode, ifMatch storage.ETag) (storage.ETag, error) {
	etag, err := s.inner.Update(ctx, table, e, mode, ifMatch)
	s.record(ctx, 0, written(err, 1), err, func() string {
		return "Update " + table + entityKeys(e) + " mode=" + mode.String() + ifMatchString(ifMatch)
	}, ok)
	return etag, err
}

// Delete implements storage.Store.
func (s *Store) Delete(ctx context.Context, table, pk, rk string, ifMatch storage.ETag) error {
	err := s.inner.Delete(ctx, table, pk, rk, ifMatch)
	s.record(ctx, 0, written(err, 1), err, func() string {
		return "Delete " + table + " pk=" + key(pk) + " rk=" + key(rk) + ifMatchString(ifMatch)
	}, ok)
	return err
}

// batchListed is the number of operations a trace line lists one by one;
// larger batches are summarized by kind.
const batchListed = 5

// Batch implements storage.Store.
func (s *Store) Batch(ctx context.Context, table string, ops []storage.Operation) ([]storage.ETag, error) {
	etags, err := s.inner.Batch(ctx, table, ops)
	s.record(ctx, 0, written(err, len(ops)), err, func() string {
		var b strings.Builder
		b.WriteString("Batch " + table)
		if len(ops) > 0 && ops[0].Entity != nil {
			b.WriteString(" pk=" + key(ops[0].Entity.PartitionKey))
		}
		fmt.Fprintf(&b, " ops=%d [", len(ops))
		if len(ops) <= batchListed {
			for i, op := range ops {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(op.Kind.String())
				if op.Kind == storage.OpUpsert || op.Kind == storage.OpUpdate {
					b.WriteString("/" + op.Mode.String())
				}
				if op.Entity != nil {
					b.WriteString(" " + key(op.Entity.RowKey))
				}
				if op.Kind == storage.OpUpdate || op.Kind == storage.OpDelete {
					b.WriteString(ifMatchString(op.IfMatch))
				}
			}
		} else {
			var counts [storage.OpDelete + 1]int
			other := 0
			for _, op := range ops {
				if op.Kind >= storage.OpInsert && op.Kind <= storage.OpDelete {
					counts[op.Kind]++
				} else {
					other++
				}
			}
			sep := ""
			for k := storage.OpInsert; k <= storage.OpDelete; k++ {
				if counts[k] > 0 {
					fmt.Fprintf(&b, "%s%v x%d", sep, k, counts[k])
					sep = ", "
				}
			}
			if other > 0 {
				fmt.Fprintf(&b, "%sinvalid x%d", sep, other)
			}
		}
		b.WriteString("]")
		return b.String()
	}, ok)
	return etags, err
}

// MultiBatch implements storage.MultiBatcher when the inner store does
// (one request); otherwise it returns storage.ErrMultiBatchUnsupported and
// records nothing.
func (s *Store) MultiBatch(ctx context.Context, batches []storage.TableBatch) ([][]storage.ETag, error) {
	if _, ok := s.inner.(storage.MultiBatcher); !ok {
		return nil, storage.ErrMultiBatchUnsupported
	}
	etags, err := storage.ForwardMultiBatch(ctx, s.inner, batches)
	if errors.Is(err, storage.ErrMultiBatchUnsupported) {
		return nil, err // a wrapper below has no backend support: nothing sent
	}
	n := 0
	for _, b := range batches {
		n += len(b.Ops)
	}
	s.record(ctx, 0, written(err, storage.Writes(batches)), err, func() string {
		return fmt.Sprintf("MultiBatch batches=%d ops=%d", len(batches), n)
	}, ok)
	return etags, err
}

// Query implements storage.Store.
func (s *Store) Query(ctx context.Context, table string, q *storage.Query) (*storage.Page, error) {
	page, err := s.inner.Query(ctx, table, q)
	n := 0
	if err == nil && page != nil {
		n = len(page.Entities)
	}
	s.record(ctx, n, 0, err, func() string { return "Query " + table + DescribeQuery(q) }, func() string {
		r := plural(n, "entity")
		if page.Continuation != "" {
			r += ", more"
		}
		return r
	})
	return page, err
}

// MultiQuery implements storage.MultiQuerier: each query is recorded as
// the Query request it stands for (counters and trace lines alike); on an
// error, which query failed is not known here, and the first is recorded
// as one failed request.
func (s *Store) MultiQuery(ctx context.Context, table string, qs []*storage.Query) ([]*storage.Page, error) {
	pages, err := storage.MultiQuery(ctx, s.inner, table, qs)
	if err != nil {
		var q *storage.Query
		if len(qs) > 0 {
			q = qs[0]
		}
		s.record(ctx, 0, 0, err, func() string { return "Query " + table + DescribeQuery(q) }, nil)
		return nil, err
	}
	for i, page := range pages {
		q := qs[i]
		n := len(page.Entities)
		s.record(ctx, n, 0, nil, func() string { return "Query " + table + DescribeQuery(q) }, func() string {
			r := plural(n, "entity")
			if page.Continuation != "" {
				r += ", more"
			}
			return r
		})
	}
	return pages, nil
}

// QueryRows implements storage.RowQuerier when the inner store does: a
// query answered as rows is recorded as the Query it is, with its marks
// (storage.RowQuerier) after the query's parameters. A query the
// store below cannot answer as rows (storage.ErrRowsUnsupported) sent
// nothing and is not recorded.
func (s *Store) QueryRows(ctx context.Context, table string, q *storage.Query, marks []string) (*storage.RowPage, error) {
	page, err := storage.ForwardQueryRows(ctx, s.inner, table, q, marks)
	if errors.Is(err, storage.ErrRowsUnsupported) {
		return nil, err
	}
	n := 0
	if err == nil && page != nil {
		n = len(page.Rows)
	}
	s.record(ctx, n, 0, err, func() string {
		d := "Query " + table + DescribeQuery(q)
		if len(marks) > 0 {
			d += " marks=[" + strings.Join(marks, ",") + "]"
		}
		return d
	}, func() string {
		r := plural(n, "entity")
		if page.Continuation != "" {
			r += ", more"
		}
		return r
	})
	return page, err
}

// MultiQueryRows implements storage.MultiRowQuerier when the inner store
// does: each query is recorded as the Query request it stands for, with
// its marks, as QueryRows records it (MultiQuery's error rule); a call
// the store below cannot answer as rows sent nothing and is not recorded.
func (s *Store) MultiQueryRows(ctx context.Context, table string, qs []*storage.Query, marks []string, pages []storage.RowPage) error {
	err := storage.ForwardMultiQueryRows(ctx, s.inner, table, qs, marks, pages)
	if errors.Is(err, storage.ErrRowsUnsupported) {
		return err
	}
	describe := func(q *storage.Query) func() string {
		return func() string {
			d := "Query " + table + DescribeQuery(q)
			if len(marks) > 0 {
				d += " marks=[" + strings.Join(marks, ",") + "]"
			}
			return d
		}
	}
	if err != nil {
		var q *storage.Query
		if len(qs) > 0 {
			q = qs[0]
		}
		s.record(ctx, 0, 0, err, describe(q), nil)
		return err
	}
	for i := range pages {
		page := &pages[i]
		n := len(page.Rows)
		s.record(ctx, n, 0, nil, describe(qs[i]), func() string {
			r := plural(n, "entity")
			if page.Continuation != "" {
				r += ", more"
			}
			return r
		})
	}
	return nil
}

// Capabilities implements storage.Store; it is not a request.
func (s *Store) Capabilities() storage.Capabilities { return s.inner.Capabilities() }

// Close closes the store inside; it is not a request.
func (s *Store) Close() error { return s.inner.Close() }

// DescribeQuery renders a query's parameters as a trace line does, with a
// leading space (empty for a nil query): partition, rows, filter, select,
// top, "reverse" for a backwards read, and "continue" for a resumed query.
func DescribeQuery(q *storage.Query) string {
	if q == nil {
		return ""
	}
	var b strings.Builder
	if q.Partition != nil {
		b.WriteString(" partition=" + keyRange(q.Partition))
	}
	if q.Row != nil {
		b.WriteString(" rows=" + keyRange(q.Row))
	}
	if q.Filter != nil {
		b.WriteString(" filter=(" + storage.FormatOData(q.Filter) + ")")
	}
	if q.Select != nil {
		b.WriteString(" select=" + list(q.Select))
	}
	if q.Top != 0 {
		b.WriteString(" top=" + strconv.Itoa(q.Top))
	}
	if q.Reverse {
		b.WriteString(" reverse")
	}
	if q.Continuation != "" {
		b.WriteString(" continue")
	}
	return b.String()
}

func ok() string { return "ok" }

func written(err error, n int) int {
	if err != nil {
		return 0
	}
	return n
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	if what == "entity" {
		return strconv.Itoa(n) + " entities"
	}
	return strconv.Itoa(n) + " " + what + "s"
}

func entityKeys(e *storage.Entity) string {
	if e == nil {
		return " <nil entity>"
	}
	return " pk=" + key(e.PartitionKey) + " rk=" + key(e.RowKey)
}

func ifMatchString(m storage.ETag) string {
	switch m {
	case "":
		return ""
	case storage.ETagAny:
		return " if-match=*"
	}
	return " if-match=etag"
}

// key prints a key bare when it is a non-empty run of ASCII letters,
// digits and - _ . : ~ and quoted otherwise.
func key(k string) string {
	if k == "" {
		return `""`
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_.:~", c) >= 0) {
			return strconv.Quote(k)
		}
	}
	return k
}

func keyRange(r *storage.KeyRange) string {
	if k, ok := r.Single(); ok {
		return "[" + key(k) + "]"
	}
	var b strings.Builder
	switch {
	case r.Low == nil:
		b.WriteString("(")
	case r.Low.Exclusive:
		b.WriteString("(" + key(r.Low.Key))
	default:
		b.WriteString("[" + key(r.Low.Key))
	}
	b.WriteString(",")
	switch {
	case r.High == nil:
		b.WriteString(")")
	case r.High.Exclusive:
		b.WriteString(key(r.High.Key) + ")")
	default:
		b.WriteString(key(r.High.Key) + "]")
	}
	return b.String()
}

func list(names []string) string { return "[" + strings.Join(names, ",") + "]" }

// errorString names the sentinel an error wraps.
func errorString(err error) string {
	var be *storage.BatchError
	if errors.As(err, &be) {
		if be.Index < 0 {
			return "batch rejected: " + sentinel(be.Err)
		}
		return fmt.Sprintf("op %d: %s", be.Index, sentinel(be.Err))
	}
	return sentinel(err)
}

func sentinel(err error) string {
	for _, s := range []struct {
		err  error
		name string
	}{
		{storage.ErrNotFound, "not found"},
		{storage.ErrAlreadyExists, "already exists"},
		{storage.ErrPreconditionFailed, "precondition failed"},
		{storage.ErrTooLarge, "too large"},
		{storage.ErrInvalidKey, "invalid key"},
		{storage.ErrInvalid, "invalid"},
		{storage.ErrUnavailable, "unavailable"},
		{context.Canceled, "canceled"},
		{context.DeadlineExceeded, "deadline exceeded"},
	} {
		if errors.Is(err, s.err) {
			return s.name
		}
	}
	return "error"
}

// Snapshot implements storage.Snapshotter when the inner store does. Taking
// a snapshot sends no request (the embedded store's is local), so it is not
// recorded.
func (s *Store) Snapshot(ctx context.Context) (storage.Snapshot, error) {
	return storage.ForwardSnapshot(ctx, s.inner)
}
