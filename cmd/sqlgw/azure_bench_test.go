package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	sdk "github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage/aztables"
	"github.com/sqlgw/sqlgw/storage/aztables/azurite"
)

// lastGet is an HTTP transport that remembers the URLs of the GETs it
// sent while recording is on (the gateway's store requests for a query),
// counts every request it sends, and times the GETs since the last reset
// for the wall-clock breakdown: when the first one was handed to the
// transport, and, through net/http's httptrace, when its request was
// written and its response's first byte read, and when the last one's
// body was read. Each side of the benchmark has its own lastGet over its
// own http.Client with the same settings (the store's own, see
// aztables.Options.HTTPClient), so the two keep separate warm connections
// and neither waits for the other's.
type lastGet struct {
	client *http.Client

	mu                       sync.Mutex
	record                   bool
	urls                     []*url.URL
	requests                 int // every request sent since the last span
	reused                   int // requests sent on a kept-alive connection
	inlineChecks             int // catalog version checks made inline in a statement
	start, wrote, first, end time.Time
}

func newLastGet() *lastGet {
	return &lastGet{client: &http.Client{Transport: &http.Transport{
		MaxIdleConns:        16,
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     4 * time.Second, // inside Azurite's 5 s
	}}}
}

func (l *lastGet) Do(req *http.Request) (*http.Response, error) {
	l.mu.Lock()
	l.requests++
	get := req.Method == http.MethodGet
	if get && l.record {
		u := *req.URL
		l.urls = append(l.urls, &u)
	}
	if get && strings.Contains(req.URL.Path, "catalog(PartitionKey='c',RowKey='v')") && inlineCatalogCheck() {
		l.inlineChecks++
	}
	first := get && l.start.IsZero()
	if first {
		l.start = time.Now()
	}
	l.mu.Unlock()
	if first {
		trace := &httptrace.ClientTrace{
			GotConn: func(ci httptrace.GotConnInfo) {
				if ci.Reused {
					l.mu.Lock()
					l.reused++
					l.mu.Unlock()
				}
			},
			WroteRequest: func(httptrace.WroteRequestInfo) {
				l.mu.Lock()
				l.wrote = time.Now()
				l.mu.Unlock()
			},
			GotFirstResponseByte: func() {
				l.mu.Lock()
				l.first = time.Now()
				l.mu.Unlock()
			},
		}
		req = req.WithContext(httptrace.WithClientTrace(req.Context(), trace))
	}
	resp, err := l.client.Do(req)
	if err == nil {
		body, rerr := io.ReadAll(resp.Body)
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		err = rerr
	}
	if get {
		l.mu.Lock()
		l.end = time.Now()
		l.mu.Unlock()
	}
	return resp, err
}

// dial opens a connection for the gateway's store
// (aztables.Options.DialContext) that records what Do records for the
// requests it sends, from the bytes written and read: a request is a
// write that begins with a method and its request-URI (each request's
// head is one write, on the transport's connections and on the lean
// Get's own); the first GET's start and written times are those of that
// write, its first response byte the first read after it that returns
// data, and the end the last such read of a GET's response.
func (l *lastGet) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &tracedConn{Conn: c, l: l}, nil
}

// tracedConn is a connection of the gateway's store, observed by l. Its
// fields are l's (under l.mu): net/http writes and reads a connection on
// two goroutines.
type tracedConn struct {
	net.Conn
	l     *lastGet
	sent  int  // requests written on it
	get   bool // the last request written was a GET
	first bool // ... and the first GET of the span: its response's first byte is awaited
}

// requestHead returns the method and URL of a request's head at the start
// of p, or ok false.
func requestHead(p []byte) (method string, u *url.URL, ok bool) {
	m, rest, ok := bytes.Cut(p, []byte(" "))
	if !ok || len(m) == 0 || len(m) > 7 {
		return "", nil, false
	}
	for _, ch := range m {
		if ch < 'A' || ch > 'Z' {
			return "", nil, false
		}
	}
	uri, _, _ := bytes.Cut(rest, []byte(" "))
	u, err := url.ParseRequestURI(string(uri))
	return string(m), u, err == nil
}

func (c *tracedConn) Write(p []byte) (int, error) {
	method, u, isReq := requestHead(p)
	l := c.l
	first := false
	if isReq {
		now := time.Now()
		l.mu.Lock()
		l.requests++
		if c.sent > 0 {
			l.reused++
		}
		c.sent++
		c.get, c.first = method == http.MethodGet, false
		if c.get {
			if l.record {
				l.urls = append(l.urls, u)
			}
			if strings.Contains(u.Path, "catalog(PartitionKey='c',RowKey='v')") && inlineCatalogCheck() {
				l.inlineChecks++
			}
			if l.start.IsZero() {
				l.start, first, c.first = now, true, true
			}
		}
		l.mu.Unlock()
	}
	n, err := c.Conn.Write(p)
	if first {
		now := time.Now()
		l.mu.Lock()
		l.wrote = now
		l.mu.Unlock()
	}
	return n, err
}

func (c *tracedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		now := time.Now()
		l := c.l
		l.mu.Lock()
		if c.get {
			if c.first {
				l.first, c.first = now, false
			}
			l.end = now
		}
		l.mu.Unlock()
	}
	return n, err
}

// inlineCatalogCheck reports whether the calling goroutine is a
// statement's catalog lookup checking the catalog version itself (it
// found its cache expired: catalog.Catalog.current), not the catalog's
// background check (catalog/refresh.go) or another caller.
func inlineCatalogCheck() bool {
	st := string(debug.Stack())
	return strings.Contains(st, "catalog.(*Catalog).current(") && !strings.Contains(st, "startRefreshAhead")
}

// reqSpan is one side's store requests in one iteration: when the first
// GET was handed to the transport, its request written and its first
// response byte read, when the last GET's body was read, and how many
// requests were sent (GETs or not) and how many of them on a reused
// connection.
type reqSpan struct {
	start, wrote, first, end     time.Time
	requests, reused, inlineChks int
}

// span returns the requests since the previous call.
func (l *lastGet) span() reqSpan {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := reqSpan{l.start, l.wrote, l.first, l.end, l.requests, l.reused, l.inlineChecks}
	l.start, l.wrote, l.first, l.end = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	l.requests, l.reused, l.inlineChecks = 0, 0, 0
	return s
}

// capture runs f with recording on and returns the GETs it sent.
func (l *lastGet) capture(f func()) []*url.URL {
	l.mu.Lock()
	l.record, l.urls = true, nil
	l.mu.Unlock()
	f()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.record = false
	return l.urls
}

// sdkReplay returns a function that sends the request u (a Get Entity or a
// Query Entities of the gateway) through the raw SDK client: the same
// table, keys, $filter, $select and $top, without decoding the entities.
func sdkReplay(b *testing.B, svc *sdk.ServiceClient, u *url.URL) func(testing.TB) {
	b.Helper()
	path := u.Path
	name := path[strings.LastIndexByte(path, '/')+1:]
	open := strings.IndexByte(name, '(')
	if open < 0 || !strings.HasSuffix(name, ")") {
		b.Fatalf("not an entity request: %s", u)
	}
	table, args := name[:open], name[open+1:len(name)-1]
	client := svc.NewClient(table)
	q := u.Query()
	ctx := context.Background()
	if args == "" { // Query Entities
		opts := &sdk.ListEntitiesOptions{}
		if f := q.Get("$filter"); f != "" {
			opts.Filter = to.Ptr(f)
		}
		if s := q.Get("$select"); s != "" {
			opts.Select = to.Ptr(s)
		}
		if t := q.Get("$top"); t != "" {
			n, err := strconv.Atoi(t)
			if err != nil {
				b.Fatal(err)
			}
			opts.Top = to.Ptr(int32(n))
		}
		return func(tb testing.TB) {
			p, err := client.NewListEntitiesPager(opts).NextPage(ctx)
			if err != nil || len(p.Entities) == 0 {
				tb.Fatalf("SDK query: %d entities, %v", len(p.Entities), err)
			}
		}
	}
	// Get Entity: PartitionKey='...',RowKey='...' with '' for '.
	pk, rest, ok := cutQuoted(strings.TrimPrefix(args, "PartitionKey="))
	rk, _, ok2 := cutQuoted(strings.TrimPrefix(strings.TrimPrefix(rest, ","), "RowKey="))
	if !ok || !ok2 {
		b.Fatalf("cannot parse the keys of %s", u)
	}
	if s := q.Get("$select"); s != "" {
		// The SDK's GetEntity has no $select (the backend adds it to the
		// URL itself); the SDK side then reads every property.
		b.Logf("the SDK's Get Entity reads every property, the gateway's $select=%s", s)
	}
	return func(tb testing.TB) {
		r, err := client.GetEntity(ctx, pk, rk, nil)
		if err != nil || len(r.Value) == 0 {
			tb.Fatalf("SDK get: %v", err)
		}
	}
}

// cutQuoted reads a '...' literal with ” for ' from the start of s.
func cutQuoted(s string) (val, rest string, ok bool) {
	if !strings.HasPrefix(s, "'") {
		return "", "", false
	}
	var sb strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] != '\'' {
			sb.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '\'' {
			sb.WriteByte('\'')
			i++
			continue
		}
		return sb.String(), s[i+1:], true
	}
	return "", "", false
}

// BenchmarkGatewayAzure measures a point select and a 100-row range select
// through the gateway (an in-process sqlgw server on Azurite, queried with
// go-sql-driver/mysql), each as a text statement (COM_QUERY) and as a
// prepared one (COM_STMT_EXECUTE), beside the raw SDK sending the same
// store requests, so that the gateway's overhead reads as a ratio:
//
//	go test ./cmd/sqlgw -run '^$' -bench GatewayAzure -benchtime 1000x -count 5
//
// Each iteration runs the SQL query and the SDK requests the gateway sent
// for it (captured once from the wire: table, keys, $filter, $select,
// $top), one after the other, in alternating order, so load from
// elsewhere on the machine hits both alike. Each side sends through its own
// HTTP client with the same settings (its own warm connection). The
// benchmark reports each side's median time per iteration and the ratio of
// the medians (ratio, gateway/sdk; the ratio of the means too, which the
// machine's outliers move more), and splits each side's median into before
// its first request was handed to the transport, the requests (of which
// -wait is from the request written to the response's first byte: the
// server and the loopback), and after the last response body was read.
// ping is a MySQL round trip that reads nothing (COM_PING, same client),
// the floor of any statement through the gateway; ratio-less-ping is the
// gateway's median less it, against the SDK's. The SDK side does not
// decode entities; the gateway decodes them, evaluates the query and sends
// MySQL rows, which the driver parses. It fails unless every execution of
// a point select sends exactly one request (its Get Entity) and of a
// range exactly two (the snapshot's clock read and its Query Entities,
// both replayed on the SDK side); catalog-checks is the rate of the
// catalog's version check (a read about every half catalog
// RefreshInterval, in the background: catalog/refresh.go), the only other
// request allowed, and catalog-inline the rate of those made inline in a
// statement (which found the cache expired).
func BenchmarkGatewayAzure(b *testing.B) {
	cs := azurite.Shared(b)
	tr := newLastGet()
	// The gateway's store keeps its own transport (and so the lean Get's
	// own connections, storage/aztables/leanconn.go); tr observes its
	// connections instead of sending its requests.
	store, err := aztables.Open(context.Background(), cs, &aztables.Options{DialContext: tr.dial})
	if err != nil {
		b.Fatal(err)
	}
	db := sqltest.Start(b, store, sqltest.Options{}).DB
	db.SetMaxIdleConns(4)
	dbName := fmt.Sprintf("bench%d", time.Now().UnixNano()%1e9)
	for _, q := range []string{
		"CREATE DATABASE " + dbName,
		"CREATE TABLE " + dbName + ".t (p INT, id INT, name VARCHAR(40), n INT, big BIGINT, f DOUBLE, ok BOOL, bin VARBINARY(16), s2 VARCHAR(100)," +
			" PRIMARY KEY (p, id)) COMMENT 'sqlgw: partition_key=(p)'",
	} {
		if _, err := db.Exec(q); err != nil {
			b.Fatalf("%s: %v", q, err)
		}
	}
	var vals []string
	for i := 0; i < 200; i++ {
		vals = append(vals, fmt.Sprintf("(1, %d, 'name %d', %d, %d, %g, %v, x'30313233343536373839', 'some longer text value for the row')",
			i, i, i, int64(i)<<40, float64(i)/3, i%2 == 0))
	}
	if _, err := db.Exec("INSERT INTO " + dbName + ".t VALUES " + strings.Join(vals, ",")); err != nil {
		b.Fatal(err)
	}
	co := &sdk.ClientOptions{}
	co.Retry.MaxRetries = -1
	sdkTr := newLastGet()
	co.Transport = sdkTr // the same settings as the gateway store's transport
	svc, err := sdk.NewServiceClientFromConnectionString(cs, co)
	if err != nil {
		b.Fatal(err)
	}

	type row struct {
		p, id, n int
		name, s2 string
		big      int64
		f        float64
		ok       bool
		bin      []byte
	}
	// query runs q (text, COM_QUERY) or, with args, a statement prepared
	// once (COM_STMT_EXECUTE, as ORMs and sysbench do) and checks the rows.
	query := func(q string, args []any, want int) func(testing.TB) {
		var stmt *sql.Stmt
		if args != nil {
			var err error
			if stmt, err = db.Prepare(q); err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { stmt.Close() })
		}
		return func(tb testing.TB) {
			var rows *sql.Rows
			var err error
			if stmt != nil {
				rows, err = stmt.Query(args...)
			} else {
				rows, err = db.Query(q)
			}
			if err != nil {
				tb.Fatal(err)
			}
			got := 0
			for rows.Next() {
				var r row
				if err := rows.Scan(&r.p, &r.id, &r.name, &r.n, &r.big, &r.f, &r.ok, &r.bin, &r.s2); err != nil {
					tb.Fatal(err)
				}
				got++
			}
			if err := rows.Err(); err != nil {
				tb.Fatal(err)
			}
			rows.Close()
			if got != want {
				tb.Fatalf("%s: %d rows, want %d", q, got, want)
			}
		}
	}
	t := dbName + ".t"
	for _, tc := range []struct {
		name string
		sql  string
		args []any // nil: a text statement
		rows int
		// clock: the statement takes a snapshot, one read of catalog/txn's
		// clock before its query (a range needs one; a point select,
		// its one entity a consistent cut, does not:
		// sqlgw/engine/singleread.go).
		clock bool
	}{
		{"point", "SELECT * FROM " + t + " WHERE p = 1 AND id = 42", nil, 1, false},
		{"point_prepared", "SELECT * FROM " + t + " WHERE p = ? AND id = ?", []any{1, 42}, 1, false},
		{"range100", "SELECT * FROM " + t + " WHERE p = 1 AND id >= 50 AND id < 150", nil, 100, true},
		{"range100_prepared", "SELECT * FROM " + t + " WHERE p = ? AND id >= ? AND id < ?", []any{1, 50, 150}, 100, true},
	} {
		gw := query(tc.sql, tc.args, tc.rows)
		gw(b) // warm the catalog cache and the plan cache
		gw(b)
		want := 1
		if tc.clock {
			want = 2
		}
		var urls []*url.URL
		for attempt := 0; attempt < 5; attempt++ { // a catalog refresh may add requests
			if urls = tr.capture(func() { gw(b) }); len(urls) == want {
				break
			}
		}
		if len(urls) != want || tc.clock && !strings.Contains(urls[0].Path, "(PartitionKey='clock',RowKey='n')") {
			b.Fatalf("%s: the gateway sent %d GETs, want %d (clock read: %v): %v", tc.sql, len(urls), want, tc.clock, urls)
		}
		var replays []func(testing.TB)
		for _, u := range urls {
			replays = append(replays, sdkReplay(b, svc, u))
		}
		var lastReplay time.Duration // the data request's (a range's query)
		raw := func(tb testing.TB) {
			for _, r := range replays {
				t0 := time.Now()
				r(tb)
				lastReplay = time.Since(t0)
			}
		}
		raw(b)
		paths := map[string]bool{}
		for _, u := range urls {
			paths[u.Path] = true
		}
		b.Run("op="+tc.name+"/impl=ratio", func(b *testing.B) {
			for _, u := range urls {
				b.Logf("store request: %s", u.RequestURI())
			}
			var gs, ss sides
			var ping samples
			ctx := context.Background()
			extra, inline := 0, 0
			var gwCPU, sdkCPU time.Duration
			n := 0
			tr.span()
			sdkTr.span()
			tr.mu.Lock()
			tr.record, tr.urls = true, nil
			tr.mu.Unlock()
			defer func() {
				tr.mu.Lock()
				tr.record = false
				tr.mu.Unlock()
			}()
			// The two sides alternate which goes first, so that what one
			// leaves behind (in Azurite, in the Go runtime) falls on both.
			for b.Loop() {
				// The process's CPU around each side too (user and
				// system, every goroutine; the other side is idle then).
				c0 := processCPU()
				t0 := time.Now()
				if n%2 == 0 {
					gw(b)
				} else {
					raw(b)
				}
				t1 := time.Now()
				c1 := processCPU()
				if n%2 == 0 {
					raw(b)
				} else {
					gw(b)
				}
				t2 := time.Now()
				c2 := processCPU()
				if n%2 == 0 {
					gwCPU, sdkCPU = gwCPU+c1-c0, sdkCPU+c2-c1
				} else {
					gwCPU, sdkCPU = gwCPU+c2-c1, sdkCPU+c1-c0
				}
				g0, g1, s0, s1 := t0, t1, t1, t2
				if n%2 == 1 {
					g0, g1, s0, s1 = t1, t2, t0, t1
				}
				gr, sr := tr.span(), sdkTr.span()
				// Every execution sends exactly the captured requests; the
				// catalog's version check (in the background, or inline in
				// a statement that finds its cache expired) is the only
				// other request allowed.
				tr.mu.Lock()
				got := 0
				for _, u := range tr.urls {
					if paths[u.Path] {
						got++
					}
				}
				tr.urls = tr.urls[:0]
				tr.mu.Unlock()
				if got != want || sr.requests != want {
					b.Fatalf("iteration %d: the gateway sent %d of its statement's requests, the SDK %d, want %d", n, got, sr.requests, want)
				}
				extra += gr.requests - want
				inline += gr.inlineChks
				// The floor of any statement through the gateway: a MySQL
				// round trip that reads nothing (COM_PING, the driver and
				// the loopback both ways, the server's reply).
				t3 := time.Now()
				if err := db.PingContext(ctx); err != nil {
					b.Fatal(err)
				}
				ping = append(ping, float64(time.Since(t3).Nanoseconds()))
				gs.add(g0, g1, gr)
				ss.add(s0, s1, sr)
				ss.data = append(ss.data, float64(lastReplay.Nanoseconds()))
				n++
			}
			b.ReportMetric(float64(gwCPU)/float64(n), "gw-cpu-ns/op")
			b.ReportMetric(float64(sdkCPU)/float64(n), "sdk-cpu-ns/op")
			b.ReportMetric(gs.total.median(), "gateway-ns/op")
			b.ReportMetric(ss.total.median(), "sdk-ns/op")
			b.ReportMetric(gs.total.median()/ss.total.median(), "ratio")
			b.ReportMetric(gs.total.mean()/ss.total.mean(), "ratio-of-means")
			b.ReportMetric(ping.median(), "ping-ns/op")
			// The gateway's time less the MySQL round trip's, against the
			// SDK's: what the gateway adds beyond the client protocol.
			b.ReportMetric((gs.total.median()-ping.median())/ss.total.median(), "ratio-less-ping")
			if len(replays) > 1 {
				// Against the data request alone (without the clock read).
				b.ReportMetric(gs.total.median()/ss.data.median(), "ratio-to-query")
			}
			b.ReportMetric(float64(extra)/float64(n), "catalog-checks/op")
			b.ReportMetric(float64(inline)/float64(n), "catalog-inline/op")
			for _, m := range []struct {
				name string
				s    *samples
			}{
				{"gw-before", &gs.before}, {"gw-http", &gs.http}, {"gw-wait", &gs.wait}, {"gw-after", &gs.after},
				{"sdk-before", &ss.before}, {"sdk-http", &ss.http}, {"sdk-wait", &ss.wait}, {"sdk-after", &ss.after},
			} {
				b.ReportMetric(m.s.median(), m.name+"-ns/op")
			}
		})
	}
}

// samples are one measure's per-iteration values, in nanoseconds.
type samples []float64

func (s samples) median() float64 {
	if len(s) == 0 {
		return 0
	}
	c := slices.Clone(s)
	slices.Sort(c)
	if len(c)%2 == 1 {
		return c[len(c)/2]
	}
	return (c[len(c)/2-1] + c[len(c)/2]) / 2
}

func (s samples) mean() float64 {
	sum := 0.0
	for _, v := range s {
		sum += v
	}
	return sum / float64(len(s))
}

// sides are one side's (the gateway's or the SDK's) per-iteration times:
// its whole call, before its first store request was handed to the
// transport, the requests (to the last response body read), of that the
// wait from the first request written to its response's first byte (the
// server's time and the loopback), and after the last response until the
// call returned; data is the SDK's last request alone (a range's query
// without the clock read).
type sides struct {
	total, before, http, wait, after, data samples
}

func (s *sides) add(t0, t1 time.Time, r reqSpan) {
	ns := func(a, b time.Time) float64 { return float64(b.Sub(a).Nanoseconds()) }
	s.total = append(s.total, ns(t0, t1))
	s.before = append(s.before, ns(t0, r.start))
	s.http = append(s.http, ns(r.start, r.end))
	s.wait = append(s.wait, ns(r.wrote, r.first))
	s.after = append(s.after, ns(r.end, t1))
}
