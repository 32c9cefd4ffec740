package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/url"
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
// and when the first GET since the last reset started and the last one's
// response ended (its body read), for the wall-clock breakdown.
type lastGet struct {
	mu         sync.Mutex
	record     bool
	urls       []*url.URL
	start, end time.Time
}

func (l *lastGet) Do(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet {
		return http.DefaultClient.Do(req)
	}
	l.mu.Lock()
	if l.record {
		u := *req.URL
		l.urls = append(l.urls, &u)
	}
	if l.start.IsZero() {
		l.start = time.Now()
	}
	l.mu.Unlock()
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		body, rerr := io.ReadAll(resp.Body)
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		err = rerr
	}
	l.mu.Lock()
	l.end = time.Now()
	l.mu.Unlock()
	return resp, err
}

// span returns the start of the first GET and the end of the last since
// the previous call.
func (l *lastGet) span() (start, end time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	start, end = l.start, l.end
	l.start, l.end = time.Time{}, time.Time{}
	return start, end
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
//	go test ./cmd/sqlgw -run '^$' -bench GatewayAzure -benchtime 300x -count 3
//
// Each iteration runs the SQL query and the SDK requests the gateway sent
// for it (captured once from the wire: table, keys, $filter, $select,
// $top), one after the other, in alternating order, so load from
// elsewhere on the machine hits both alike; the
// benchmark reports each one's mean and their ratio (gateway/sdk). The SDK
// side does not decode entities; the gateway decodes them, evaluates the
// query and sends MySQL rows, which the driver parses. It fails unless a
// point select sends exactly one request (its Get Entity) and a range
// exactly two: the snapshot's clock read and its Query Entities, both
// replayed on the SDK side.
func BenchmarkGatewayAzure(b *testing.B) {
	cs := azurite.Shared(b)
	tr := &lastGet{}
	store, err := aztables.Open(context.Background(), cs, &aztables.Options{HTTPClient: tr})
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
	sdkTr := &lastGet{}
	co.Transport = sdkTr // the same transport as the gateway's store, never recording
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
		b.Run("op="+tc.name+"/impl=ratio", func(b *testing.B) {
			for _, u := range urls {
				b.Logf("store request: %s", u.RequestURI())
			}
			// Wall clock: before is from the call to the first store
			// request sent, http the requests, after from the last
			// response read to the rows returned.
			var tg, ts, tdata, gBefore, gHTTP, gAfter, sBefore, sHTTP, sAfter time.Duration
			n := 0
			tr.span()
			sdkTr.span()
			// The two sides alternate which goes first, so that what one
			// leaves behind (in Azurite, in the Go runtime) falls on both.
			for b.Loop() {
				t0 := time.Now()
				if n%2 == 0 {
					gw(b)
				} else {
					raw(b)
				}
				t1 := time.Now()
				if n%2 == 0 {
					raw(b)
				} else {
					gw(b)
				}
				t2 := time.Now()
				g0, g1, s0, s1 := t0, t1, t1, t2
				if n%2 == 1 {
					g0, g1, s0, s1 = t1, t2, t0, t1
				}
				tg += g1.Sub(g0)
				ts += s1.Sub(s0)
				tdata += lastReplay
				s, e := tr.span()
				gBefore, gHTTP, gAfter = gBefore+s.Sub(g0), gHTTP+e.Sub(s), gAfter+g1.Sub(e)
				s, e = sdkTr.span()
				sBefore, sHTTP, sAfter = sBefore+s.Sub(s0), sHTTP+e.Sub(s), sAfter+s1.Sub(e)
				n++
			}
			per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(n) }
			b.ReportMetric(per(tg), "gateway-ns/op")
			b.ReportMetric(per(ts), "sdk-ns/op")
			b.ReportMetric(float64(tg)/float64(ts), "ratio")
			if len(replays) > 1 {
				// Against the data request alone (without the clock read).
				b.ReportMetric(float64(tg)/float64(tdata), "ratio-to-query")
			}
			b.ReportMetric(per(gBefore), "gw-before-ns/op")
			b.ReportMetric(per(gHTTP), "gw-http-ns/op")
			b.ReportMetric(per(gAfter), "gw-after-ns/op")
			b.ReportMetric(per(sBefore), "sdk-before-ns/op")
			b.ReportMetric(per(sHTTP), "sdk-http-ns/op")
			b.ReportMetric(per(sAfter), "sdk-after-ns/op")
		})
	}
}
