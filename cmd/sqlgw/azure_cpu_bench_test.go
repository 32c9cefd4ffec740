package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage/aztables"
	"github.com/sqlgw/sqlgw/storage/aztables/azurite"
)

// cannedGets is an HTTP transport that answers the Get Entity requests of
// the paths it was told to from a response recorded once from Azurite
// (status, headers and body), without a network, and sends every other
// request on to next.
type cannedGets struct {
	next *http.Client

	mu     sync.Mutex
	canned map[string]*cannedResp // by URL path
	hits   atomic.Int64
	record string // the path of the GET to record ("": none)
	rec    *cannedResp
}

type cannedResp struct {
	status int
	header http.Header
	body   []byte
}

func (c *cannedGets) Do(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodGet {
		c.mu.Lock()
		r := c.canned[req.URL.Path]
		c.mu.Unlock()
		if r != nil {
			c.hits.Add(1)
			return &http.Response{StatusCode: r.status, Status: http.StatusText(r.status), Header: r.header.Clone(),
				Body: io.NopCloser(bytes.NewReader(r.body)), ContentLength: int64(len(r.body)), Request: req}, nil
		}
	}
	resp, err := c.next.Do(req)
	if err != nil || req.Method != http.MethodGet {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	c.mu.Lock()
	if c.rec == nil && strings.Contains(req.URL.Path, "(PartitionKey=") && !strings.Contains(req.URL.Path, "catalog(") {
		c.record = req.URL.Path
		c.rec = &cannedResp{status: resp.StatusCode, header: resp.Header.Clone(), body: body}
	}
	c.mu.Unlock()
	return resp, nil
}

// cannedDialer opens connections to the service (an
// aztables.Options.DialContext) that answer the GETs of one path with a
// recorded response instead of sending them. A request's head is one
// write; the lean Get reads its response on the goroutine that wrote it
// (storage/aztables/leanconn.go), so the answer is simply the next bytes
// read. Every other request goes to the service.
type cannedDialer struct {
	path string
	resp []byte
	hits atomic.Int64
}

func (d *cannedDialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &cannedConn{Conn: c, d: d}, nil
}

type cannedConn struct {
	net.Conn
	d       *cannedDialer
	pending []byte // the canned answer not read yet
}

func (c *cannedConn) Write(p []byte) (int, error) {
	if method, u, ok := requestHead(p); ok && method == http.MethodGet && u.Path == c.d.path {
		c.d.hits.Add(1)
		c.pending = c.d.resp
		return len(p), nil
	}
	return c.Conn.Write(p)
}

func (c *cannedConn) Read(p []byte) (int, error) {
	if len(c.pending) > 0 {
		n := copy(p, c.pending)
		c.pending = c.pending[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

// BenchmarkGatewayAzureCPU measures the CPU and allocations of a point
// select through the gateway on the Azure backend without the network's
// wait, prepared (side=gateway) and as text (side=gateway_text): the gateway (an in-process server on Azurite) answers it from a
// Get Entity response recorded once from Azurite (cannedGets), so the
// loop is the driver, the MySQL protocol both ways, the engine, the store
// wrappers, aztables building and signing the request and decoding the
// entity. Beside it, in the same process, the raw SDK's GetEntity of the
// same entity through the same canned transport, and a COM_PING (the
// MySQL round trip any statement costs). side=gateway_direct and
// gateway_direct_text are the same statements through a second gateway
// whose store sends Get Entity on its own connections (cannedDialer):
// the path a store without Options.HTTPClient takes.
//
//	go test ./cmd/sqlgw -run '^$' -bench GatewayAzureCPU -benchmem -count 5
//
// cpu-ns/op is the process's CPU (user and system, every goroutine: the
// client's too) per operation; allocs/op and B/op are the whole
// process's. The latency benchmark is BenchmarkGatewayAzure.
func BenchmarkGatewayAzureCPU(b *testing.B) {
	cs := azurite.Shared(b)
	ct := &cannedGets{next: newLastGet().client, canned: map[string]*cannedResp{}}
	store, err := aztables.Open(context.Background(), cs, &aztables.Options{HTTPClient: ct})
	if err != nil {
		b.Fatal(err)
	}
	db := sqltest.Start(b, store, sqltest.Options{}).DB
	db.SetMaxIdleConns(4)
	dbName := fmt.Sprintf("cpu%d", time.Now().UnixNano()%1e9)
	for _, q := range []string{
		"CREATE DATABASE " + dbName,
		"CREATE TABLE " + dbName + ".t (p INT, id INT, name VARCHAR(40), n INT, big BIGINT, f DOUBLE, ok BOOL, bin VARBINARY(16), s2 VARCHAR(100)," +
			" PRIMARY KEY (p, id)) COMMENT 'sqlgw: partition_key=(p)'",
		"INSERT INTO " + dbName + ".t VALUES (1, 42, 'name 42', 42, 46179488366592, 14, true, x'30313233343536373839', 'some longer text value for the row')",
	} {
		if _, err := db.Exec(q); err != nil {
			b.Fatalf("%s: %v", q, err)
		}
	}
	co := &sdk.ClientOptions{}
	co.Retry.MaxRetries = -1
	co.Transport = ct
	svc, err := sdk.NewServiceClientFromConnectionString(cs, co)
	if err != nil {
		b.Fatal(err)
	}
	stmt, err := db.Prepare("SELECT * FROM " + dbName + ".t WHERE p = ? AND id = ?")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { stmt.Close() })
	var r struct {
		p, id, n int
		name, s2 string
		big      int64
		f        float64
		ok       bool
		bin      []byte
	}
	point := func(tb testing.TB) {
		if err := stmt.QueryRow(1, 42).Scan(&r.p, &r.id, &r.name, &r.n, &r.big, &r.f, &r.ok, &r.bin, &r.s2); err != nil {
			tb.Fatal(err)
		}
	}
	text := "SELECT * FROM " + dbName + ".t WHERE p = 1 AND id = 42"
	pointText := func(tb testing.TB) {
		if err := db.QueryRow(text).Scan(&r.p, &r.id, &r.name, &r.n, &r.big, &r.f, &r.ok, &r.bin, &r.s2); err != nil {
			tb.Fatal(err)
		}
	}
	pointText(b) // the text plan cache's first execute of the shape
	pointText(b)
	// Warm the caches (the catalog's, the plan cache: the direct path
	// from the second execute on), then record the Get Entity.
	point(b)
	point(b)
	ct.mu.Lock()
	ct.rec, ct.record = nil, ""
	ct.mu.Unlock()
	point(b)
	ct.mu.Lock()
	path, rec := ct.record, ct.rec
	if rec == nil || rec.status != http.StatusOK {
		ct.mu.Unlock()
		b.Fatalf("no Get Entity recorded")
	}
	ct.canned[path] = rec
	ct.mu.Unlock()

	// A second gateway whose store keeps its default transport, and so
	// sends Get Entity on its own connections on the calling goroutine
	// (storage/aztables/leanconn.go): its connections answer the same
	// recorded response to that path's GETs without sending them
	// (cannedConn), so that the loop is again without the network.
	var wire bytes.Buffer
	(&http.Response{StatusCode: rec.status, ProtoMajor: 1, ProtoMinor: 1, Header: rec.header.Clone(),
		Body: io.NopCloser(bytes.NewReader(rec.body)), ContentLength: int64(len(rec.body))}).Write(&wire)
	dc := &cannedDialer{path: path, resp: wire.Bytes()}
	dstore, err := aztables.Open(context.Background(), cs, &aztables.Options{DialContext: dc.dial})
	if err != nil {
		b.Fatal(err)
	}
	ddb := sqltest.Start(b, dstore, sqltest.Options{}).DB
	ddb.SetMaxIdleConns(4)
	dstmt, err := ddb.Prepare("SELECT * FROM " + dbName + ".t WHERE p = ? AND id = ?")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { dstmt.Close() })
	directPoint := func(tb testing.TB) {
		if err := dstmt.QueryRow(1, 42).Scan(&r.p, &r.id, &r.name, &r.n, &r.big, &r.f, &r.ok, &r.bin, &r.s2); err != nil {
			tb.Fatal(err)
		}
	}
	directText := func(tb testing.TB) {
		if err := ddb.QueryRow(text).Scan(&r.p, &r.id, &r.name, &r.n, &r.big, &r.f, &r.ok, &r.bin, &r.s2); err != nil {
			tb.Fatal(err)
		}
	}
	for range 2 {
		directText(b)
		directPoint(b)
	}
	table := path[strings.LastIndexByte(path, '/')+1 : strings.IndexByte(path, '(')]
	client := svc.NewClient(table)
	pk, rest, _ := cutQuoted(strings.TrimPrefix(path[strings.IndexByte(path, '(')+1:], "PartitionKey="))
	rk, _, _ := cutQuoted(strings.TrimPrefix(strings.TrimPrefix(rest, ","), "RowKey="))
	ctx := context.Background()
	for _, side := range []struct {
		name string
		f    func(testing.TB)
	}{
		{"gateway", point},
		{"gateway_text", pointText},
		{"gateway_direct", directPoint},
		{"gateway_direct_text", directText},
		{"sdk", func(tb testing.TB) {
			if _, err := client.GetEntity(ctx, pk, rk, nil); err != nil {
				tb.Fatal(err)
			}
		}},
		{"ping", func(tb testing.TB) {
			if err := db.PingContext(ctx); err != nil {
				tb.Fatal(err)
			}
		}},
	} {
		b.Run("op=point/side="+side.name, func(b *testing.B) {
			side.f(b)
			hits := &ct.hits
			if strings.HasPrefix(side.name, "gateway_direct") {
				hits = &dc.hits
			}
			h0 := hits.Load()
			b.ReportAllocs()
			cpu := processCPU()
			n := 0
			for b.Loop() {
				side.f(b)
				n++
			}
			reportCPU(b, cpu, n)
			if hits := hits.Load() - h0; side.name != "ping" && hits != int64(n) {
				b.Fatalf("%d canned Gets for %d operations, want one each", hits, n)
			}
		})
	}
}
