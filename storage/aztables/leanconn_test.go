package aztables

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/aztables/azurite"
)

// fakeServer is a scripted HTTP/1.1 server on a raw listener: every
// request it reads is handed to its script with the connection, the
// connection's number and the request's number (both from 0), which
// writes the response bytes itself, or closes or resets the connection.
type fakeServer struct {
	ln     net.Listener
	script func(w net.Conn, conn, n int, req *http.Request) (keep bool)

	mu       sync.Mutex
	conns    int      // connections accepted
	raw      [][]byte // every request's bytes
	peerEOF  int      // connections the client closed while the server waited for a request
	wg       sync.WaitGroup
	accepted []net.Conn
}

func newFakeServer(t *testing.T, script func(w net.Conn, conn, n int, req *http.Request) bool) *fakeServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeServer{ln: ln, script: script}
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			f.mu.Lock()
			id := f.conns
			f.conns++
			f.accepted = append(f.accepted, c)
			f.mu.Unlock()
			f.wg.Add(1)
			go func() {
				defer f.wg.Done()
				f.serve(c, id)
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		f.mu.Lock()
		for _, c := range f.accepted {
			c.Close()
		}
		f.mu.Unlock()
		f.wg.Wait()
	})
	return f
}

func (f *fakeServer) serve(c net.Conn, id int) {
	defer c.Close()
	var buf bytes.Buffer
	br := bufio.NewReader(io.TeeReader(c, &buf))
	for {
		buf.Reset()
		req, err := http.ReadRequest(br)
		if err != nil {
			if errors.Is(err, io.EOF) {
				f.mu.Lock()
				f.peerEOF++
				f.mu.Unlock()
			}
			return
		}
		f.mu.Lock()
		n := len(f.raw)
		f.raw = append(f.raw, bytes.Clone(buf.Bytes()))
		f.mu.Unlock()
		if !f.script(c, id, n, req) {
			return
		}
	}
}

func (f *fakeServer) stats() (conns, requests, peerEOF int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.conns, len(f.raw), f.peerEOF
}

// connString names the fake server as an Azurite account's endpoint.
func (f *fakeServer) connString() string {
	return "DefaultEndpointsProtocol=http;AccountName=" + azurite.AccountName + ";AccountKey=" + azurite.AccountKey +
		";TableEndpoint=http://" + f.ln.Addr().String() + "/" + azurite.AccountName + ";"
}

// reset closes c with a TCP reset (SO_LINGER 0).
func reset(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	c.Close()
}

const fakeEntity = `{"odata.metadata":"http://127.0.0.1/devstoreaccount1/$metadata#t/@Element",` +
	`"odata.etag":"W/\"datetime'2024-01-01T00%3A00%3A00.1234567Z'\"","PartitionKey":"p","RowKey":"r",` +
	`"Timestamp":"2024-01-01T00:00:00.1234567Z","N":7,"S":"value","D@odata.type":"Edm.Double","D":3.0}`

// okResponse is a 200 with the entity, its length given.
func okResponse(extra string) string {
	return "HTTP/1.1 200 OK\r\nContent-Type: application/json;odata=minimalmetadata\r\n" +
		"ETag: W/\"datetime'2024-01-01T00%3A00%3A00.1234567Z'\"\r\n" + extra +
		fmt.Sprintf("Content-Length: %d\r\n\r\n", len(fakeEntity)) + fakeEntity
}

// chunkedResponse is the 200 with its body in chunks of 7 bytes.
func chunkedResponse() string {
	var sb strings.Builder
	sb.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json;odata=minimalmetadata\r\nTransfer-Encoding: chunked\r\n" +
		"ETag: W/\"datetime'2024-01-01T00%3A00%3A00.1234567Z'\"\r\n\r\n")
	for b := fakeEntity; b != ""; {
		k := min(7, len(b))
		fmt.Fprintf(&sb, "%x\r\n%s\r\n", k, b[:k])
		b = b[k:]
	}
	sb.WriteString("0\r\n\r\n")
	return sb.String()
}

func errorResponse(status int, code string) string {
	body := `{"odata.error":{"code":"` + code + `","message":{"lang":"en-US","value":"scripted ` + code + `\nRequestId:x"}}}`
	return fmt.Sprintf("HTTP/1.1 %d %s\r\nx-ms-error-code: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		status, http.StatusText(status), code, len(body), body)
}

// openFake opens a store on f with fast retries; direct false takes the
// lean Get through the transport (the path before the direct one).
func openFake(t *testing.T, f *fakeServer, direct bool) *Store {
	t.Helper()
	s, err := Open(context.Background(), f.connString(), &Options{
		MaxRetries: 2, RetryDelay: time.Millisecond, MaxRetryDelay: 5 * time.Millisecond, RequestTimeout: 5 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if s.lean == nil || s.lean.direct == nil {
		t.Fatal("a Shared Key store on an http endpoint does not take the direct Get")
	}
	if !direct {
		s.lean.direct = nil
	}
	return s
}

// outcome is what a Get returned, comparably.
type outcome struct {
	entity                         *storage.Entity
	sentinel                       error
	status                         int
	code, message                  string
	canceled, deadline             bool
	conns, requests                int
	errText                        string // for the log
	notFound, unavailable, invalid bool
	outcomeUnknown, other          bool
}

func getOutcome(s *Store, f *fakeServer, ctx context.Context) outcome {
	e, err := s.Get(ctx, "tbl", "p", "r", nil)
	var o outcome
	o.entity = e
	if err != nil {
		o.errText = err.Error()
		var se *ServiceError
		if errors.As(err, &se) {
			o.sentinel, o.status, o.code, o.message = se.Sentinel, se.Status, se.Code, se.Message
		} else {
			o.other = true
		}
		o.canceled = errors.Is(err, context.Canceled)
		o.deadline = errors.Is(err, context.DeadlineExceeded)
		o.notFound = errors.Is(err, storage.ErrNotFound)
		o.unavailable = errors.Is(err, storage.ErrUnavailable)
		o.invalid = errors.Is(err, storage.ErrInvalid)
		o.outcomeUnknown = errors.Is(err, storage.ErrOutcomeUnknown)
	}
	o.conns, o.requests, _ = f.stats()
	return o
}

// TestDirectGetAgreesWithTransport runs Get Entity against scripted
// servers through the direct exchange (leanconn.go) and through the
// transport, and requires the same entity or the same error (sentinel,
// status, code, message, context error) after the same number of
// requests: chunked and Content-Length bodies, a 404, a 503 then a 200, a
// 500 every time, a malformed status line, a connection closed or reset
// before the response (on a fresh connection: the store's retry), a
// response cut short, Connection: close, an interim 100 response, and a
// server slower than the caller's deadline or than a cancellation from
// another goroutine.
func TestDirectGetAgreesWithTransport(t *testing.T) {
	type scenario struct {
		name   string
		script func(w net.Conn, conn, n int, req *http.Request) bool
		ctx    func() (context.Context, context.CancelFunc)
		check  func(t *testing.T, o outcome)
		idle   int // connections the direct Get keeps after the scenario
	}
	write := func(w net.Conn, s string) bool { _, err := io.WriteString(w, s); return err == nil }
	ok := func(t *testing.T, o outcome) {
		if o.entity == nil || !reflect.DeepEqual(o.entity.Properties["N"], storage.Int32(7)) || !reflect.DeepEqual(o.entity.Properties["D"], storage.Double(3)) {
			t.Fatalf("entity %+v, error %s", o.entity, o.errText)
		}
	}
	scenarios := []scenario{
		{name: "content-length", idle: 1, script: func(w net.Conn, _, _ int, _ *http.Request) bool { return write(w, okResponse("")) }, check: ok},
		{name: "chunked", idle: 1, script: func(w net.Conn, _, _ int, _ *http.Request) bool { return write(w, chunkedResponse()) }, check: ok},
		{name: "interim-100", idle: 1, script: func(w net.Conn, _, _ int, _ *http.Request) bool {
			return write(w, "HTTP/1.1 100 Continue\r\n\r\n"+okResponse(""))
		}, check: ok},
		{name: "connection-close", script: func(w net.Conn, _, _ int, _ *http.Request) bool {
			write(w, okResponse("Connection: close\r\n"))
			return false
		}, check: ok},
		{name: "404", idle: 1, script: func(w net.Conn, _, _ int, _ *http.Request) bool {
			return write(w, errorResponse(404, "ResourceNotFound"))
		}, check: func(t *testing.T, o outcome) {
			if !o.notFound || o.code != "ResourceNotFound" || o.message != "scripted ResourceNotFound" || o.requests != 1 {
				t.Fatalf("%+v", o)
			}
		}},
		{name: "503-then-200", idle: 1, script: func(w net.Conn, _, n int, _ *http.Request) bool {
			if n == 0 {
				return write(w, errorResponse(503, "ServerBusy"))
			}
			return write(w, okResponse(""))
		}, check: func(t *testing.T, o outcome) {
			ok(t, o)
			if o.requests != 2 {
				t.Fatalf("%d requests, want 2 (the 503 retried)", o.requests)
			}
		}},
		{name: "500-always", idle: 1, script: func(w net.Conn, _, _ int, _ *http.Request) bool {
			return write(w, errorResponse(500, "InternalError"))
		}, check: func(t *testing.T, o outcome) {
			if !o.unavailable || o.status != 500 || o.requests != 3 {
				t.Fatalf("%+v", o)
			}
		}},
		{name: "malformed-status-line", script: func(w net.Conn, _, _ int, _ *http.Request) bool {
			write(w, "HTTP/1.1 two hundred OK\r\nContent-Length: 0\r\n\r\n")
			return false
		}, check: func(t *testing.T, o outcome) {
			if o.entity != nil || o.sentinel == nil {
				t.Fatalf("%+v", o)
			}
		}},
		{name: "garbage", script: func(w net.Conn, _, _ int, _ *http.Request) bool {
			write(w, "SSH-2.0-OpenSSH\r\n\r\n")
			return false
		}, check: func(t *testing.T, o outcome) {
			if o.entity != nil || o.sentinel == nil {
				t.Fatalf("%+v", o)
			}
		}},
		{name: "reset-before-response-then-ok", idle: 1, script: func(w net.Conn, _, n int, _ *http.Request) bool {
			if n == 0 {
				reset(w)
				return false
			}
			return write(w, okResponse(""))
		}, check: func(t *testing.T, o outcome) {
			ok(t, o)
			if o.requests != 2 || o.conns != 2 {
				t.Fatalf("%d requests on %d connections, want 2 on 2", o.requests, o.conns)
			}
		}},
		{name: "closed-before-response-always", script: func(w net.Conn, _, _ int, _ *http.Request) bool {
			return false
		}, check: func(t *testing.T, o outcome) {
			if !o.unavailable || o.requests != 3 {
				t.Fatalf("%+v", o)
			}
		}},
		{name: "body-cut-short", script: func(w net.Conn, _, _ int, _ *http.Request) bool {
			r := okResponse("")
			write(w, r[:len(r)-10])
			return false
		}, check: func(t *testing.T, o outcome) {
			if !o.unavailable || o.requests != 3 {
				t.Fatalf("%+v", o)
			}
		}},
		{name: "slow-server-deadline", script: func(w net.Conn, _, _ int, _ *http.Request) bool {
			time.Sleep(600 * time.Millisecond)
			return write(w, okResponse(""))
		}, ctx: func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 150*time.Millisecond)
		}, check: func(t *testing.T, o outcome) {
			if !o.deadline || !o.unavailable || o.requests != 1 {
				t.Fatalf("%+v", o)
			}
		}},
		{name: "slow-server-cancel", script: func(w net.Conn, _, _ int, _ *http.Request) bool {
			time.Sleep(600 * time.Millisecond)
			return write(w, okResponse(""))
		}, ctx: func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(150*time.Millisecond, cancel)
			return ctx, cancel
		}, check: func(t *testing.T, o outcome) {
			if !o.canceled || !o.unavailable || o.requests != 1 {
				t.Fatalf("%+v", o)
			}
		}},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			var got [2]outcome
			var took [2]time.Duration
			for i, direct := range []bool{true, false} {
				f := newFakeServer(t, sc.script)
				s := openFake(t, f, direct)
				ctx, cancel := context.Background(), context.CancelFunc(func() {})
				if sc.ctx != nil {
					ctx, cancel = sc.ctx()
				}
				t0 := time.Now()
				got[i] = getOutcome(s, f, ctx)
				took[i] = time.Since(t0)
				cancel()
				if direct && s.lean.direct.off.Load() {
					t.Fatal("the direct path turned itself off")
				}
				if direct && s.lean.direct.idleConns() != sc.idle {
					t.Fatalf("%d idle connections kept, want %d", s.lean.direct.idleConns(), sc.idle)
				}
			}
			d, tr := got[0], got[1]
			t.Logf("direct: %s (%v); transport: %s (%v)", d.errText, took[0], tr.errText, took[1])
			sc.check(t, d)
			d.errText, tr.errText = "", ""
			if !reflect.DeepEqual(d, tr) {
				t.Fatalf("direct %+v\ntransport %+v", d, tr)
			}
			if sc.ctx != nil && took[0] > 450*time.Millisecond {
				t.Fatalf("the direct Get returned after %v: the context did not unblock its read", took[0])
			}
		})
	}
}

// TestDirectGetKeepAlive: the direct Get keeps its connection for the
// next Get, retries once on a fresh connection when a kept-alive one is
// reset before any response byte (the server closed it as the request
// left), drops a connection the server asked to close, and closes idle
// connections itself before the server's idle timeout, and at Close.
func TestDirectGetKeepAlive(t *testing.T) {
	var mu sync.Mutex
	resetReq := -1 // the request number to reset instead of answering
	f := newFakeServer(t, func(w net.Conn, conn, n int, req *http.Request) bool {
		mu.Lock()
		r := resetReq
		mu.Unlock()
		if n == r {
			reset(w)
			return false
		}
		_, err := io.WriteString(w, okResponse(""))
		return err == nil
	})
	s := openFake(t, f, true)
	s.opts.MaxRetries = 0 // the store's retries would hide the direct path's own
	ctx := context.Background()
	get := func() {
		t.Helper()
		if _, err := s.Get(ctx, "tbl", "p", "r", nil); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		get()
	}
	if conns, reqs, _ := f.stats(); conns != 1 || reqs != 3 {
		t.Fatalf("3 Gets: %d requests on %d connections, want 3 on 1", reqs, conns)
	}
	if s.lean.direct.idleConns() != 1 {
		t.Fatalf("%d idle connections, want 1", s.lean.direct.idleConns())
	}

	// A kept-alive connection reset before the response: one retry on a
	// new connection, and no error.
	mu.Lock()
	resetReq = 3
	mu.Unlock()
	get()
	if conns, reqs, _ := f.stats(); conns != 2 || reqs != 5 {
		t.Fatalf("after a reset: %d requests on %d connections, want 5 on 2", reqs, conns)
	}

	// Idle connections are closed by the client after the idle time: a
	// store whose idle time is 200 ms.
	s.Close()
	s = openFake(t, f, true)
	s.lean.direct.idle = 200 * time.Millisecond
	get()
	if n := s.lean.direct.idleConns(); n != 1 {
		t.Fatalf("%d idle connections, want 1", n)
	}
	time.Sleep(500 * time.Millisecond)
	if n := s.lean.direct.idleConns(); n != 0 {
		t.Fatalf("%d idle connections after twice the idle time, want 0", n)
	}
	if _, _, eof := f.stats(); eof != 2 {
		t.Fatalf("the server saw %d connections closed by the client, want 2 (Close's and the idle one)", eof)
	}
	get()
	if conns, _, _ := f.stats(); conns != 4 {
		t.Fatalf("a Get after the idle close: %d connections, want 4", conns)
	}
	// An idle connection found past its time (before the sweep) is not used.
	s.lean.direct.mu.Lock()
	s.lean.direct.conns[0].used = time.Now().Add(-time.Second)
	s.lean.direct.mu.Unlock()
	get()
	if conns, _, _ := f.stats(); conns != 5 {
		t.Fatalf("a Get after the idle time: %d connections, want 5 (a new one)", conns)
	}
	s.Close()
	if n := s.lean.direct.idleConns(); n != 0 {
		t.Fatalf("%d idle connections after Close", n)
	}
}

// TestDirectGetLimits: a response's body over the limit fails the Get
// (and is not retried: it cannot become smaller), and so do headers
// over theirs.
func TestDirectGetLimits(t *testing.T) {
	big := strings.Repeat("x", directMaxBody+1)
	for _, tc := range []struct {
		name, resp string
	}{
		{"body", fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(big), big)},
		{"chunked-body", fmt.Sprintf("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(big), big)},
		{"headers", "HTTP/1.1 200 OK\r\nX-Big: " + strings.Repeat("y", directMaxHeaders) + "\r\nContent-Length: 0\r\n\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeServer(t, func(w net.Conn, _, _ int, _ *http.Request) bool {
				io.WriteString(w, tc.resp)
				return false
			})
			s := openFake(t, f, true)
			_, err := s.Get(context.Background(), "tbl", "p", "r", nil)
			if !errors.Is(err, errResponseTooLarge) || !errors.Is(err, storage.ErrInvalid) {
				t.Fatalf("Get: %v, want a response too large", err)
			}
			if _, reqs, _ := f.stats(); reqs != 1 {
				t.Fatalf("%d requests, want 1", reqs)
			}
		})
	}
}

// TestDirectGetOtherProtocol: a service that answers in another protocol
// than HTTP/1.x turns the direct path off; the Get goes through the
// transport and succeeds.
func TestDirectGetOtherProtocol(t *testing.T) {
	f := newFakeServer(t, func(w net.Conn, _, n int, _ *http.Request) bool {
		if n == 0 {
			io.WriteString(w, "HTTP/2.0 200 OK\r\nContent-Length: 0\r\n\r\n")
			return false
		}
		_, err := io.WriteString(w, okResponse(""))
		return err == nil
	})
	s := openFake(t, f, true)
	if _, err := s.Get(context.Background(), "tbl", "p", "r", nil); err != nil {
		t.Fatal(err)
	}
	if !s.lean.direct.off.Load() {
		t.Fatal("the direct path is still on")
	}
	if _, reqs, _ := f.stats(); reqs != 2 {
		t.Fatalf("%d requests, want 2", reqs)
	}
}

// TestDirectGetFallback: a proxy from the environment or a caller's
// transport leaves the lean Get on the transport.
func TestDirectGetFallback(t *testing.T) {
	f := newFakeServer(t, func(w net.Conn, _, _ int, _ *http.Request) bool { return false })
	s, err := Open(context.Background(), f.connString(), &Options{HTTPClient: http.DefaultClient})
	if err != nil {
		t.Fatal(err)
	}
	if s.lean == nil || s.lean.direct != nil {
		t.Fatal("a store with Options.HTTPClient takes the direct Get")
	}
	old := proxyFunc
	t.Cleanup(func() { proxyFunc = old })
	proxyFunc = func(req *http.Request) (*url.URL, error) { return url.Parse("http://proxy.test:3128") }
	if s, err = Open(context.Background(), f.connString(), nil); err != nil {
		t.Fatal(err)
	}
	if s.lean == nil || s.lean.direct != nil {
		t.Fatal("a store with a proxy in the environment takes the direct Get")
	}
}

var (
	dateLine = regexp.MustCompile(`(?m)^X-Ms-Date: [^\r]*\r\n`)
	authLine = regexp.MustCompile(`(?m)^Authorization: [^\r]*\r\n`)
	gzipLine = regexp.MustCompile(`(?m)^Accept-Encoding: gzip\r\n`)
)

// TestDirectGetRequestBytes compares the bytes of the direct Get's
// request with those net/http's transport writes for the lean Get and for
// the SDK's GetEntity, for keys the URL escapes, with and without
// $select: the same request line, headers and order, except the
// transport's Accept-Encoding, with the date and signature in place and
// the signature the SDK's for its date.
func TestDirectGetRequestBytes(t *testing.T) {
	f := newFakeServer(t, func(w net.Conn, _, _ int, _ *http.Request) bool {
		_, err := io.WriteString(w, okResponse(""))
		return err == nil
	})
	ctx := context.Background()
	direct, lean, sdk := openFake(t, f, true), openFake(t, f, false), openFake(t, f, false)
	sdk.lean = nil
	type call struct {
		pk, rk string
		sel    []string
	}
	calls := []call{{"p", "r", nil}, {"it's", "a b%+(x)ü", nil}, {"", "plain", []string{"S", "N"}}, {"x=y&z", "$select", []string{"D"}}}
	last := func() []byte {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.raw[len(f.raw)-1]
	}
	for _, c := range calls {
		var opts *storage.GetOptions
		if c.sel != nil {
			opts = &storage.GetOptions{Select: c.sel}
		}
		var raws [3][]byte
		for i, s := range []*Store{direct, lean, sdk} {
			if _, err := s.Get(ctx, "tbl", c.pk, c.rk, opts); err != nil {
				t.Fatalf("%v: %v", c, err)
			}
			raws[i] = last()
		}
		if bytes.Contains(raws[0], []byte("Accept-Encoding")) {
			t.Errorf("%v: the direct request asks for an encoding:\n%s", c, raws[0])
		}
		norm := func(b []byte) string {
			b = dateLine.ReplaceAll(b, []byte("X-Ms-Date: D\r\n"))
			b = authLine.ReplaceAll(b, []byte("Authorization: A\r\n"))
			return string(gzipLine.ReplaceAll(b, nil))
		}
		if norm(raws[0]) != norm(raws[1]) || norm(raws[0]) != norm(raws[2]) {
			t.Errorf("%v: direct request\n%q\nlean through the transport\n%q\nSDK\n%q", c, raws[0], raws[1], raws[2])
		}
		// The signature of the SDK's request, recomputed at its date by
		// the lean Get, is the SDK's.
		sreq, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(raws[2])))
		if err != nil {
			t.Fatal(err)
		}
		date, err := http.ParseTime(sreq.Header.Get("X-Ms-Date"))
		if err != nil {
			t.Fatal(err)
		}
		var sel string
		if c.sel != nil {
			sel = selectList(c.sel, nil)
		}
		again, err := direct.lean.request(ctx, "tbl", c.pk, c.rk, sel, date)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		again.Write(&buf)
		if buf.String() != string(gzipLine.ReplaceAll(raws[2], nil)) {
			t.Errorf("%v: the direct request at the SDK's date\n%q\nSDK\n%q", c, buf.String(), raws[2])
		}
	}
}

// TestDirectGetTLS: an https endpoint's Gets take the direct path over
// crypto/tls, HTTP/1.1 negotiated by ALPN (the server offers h2 too), on
// one kept-alive connection.
func TestDirectGetTLS(t *testing.T) {
	var mu sync.Mutex
	var protos []string
	conns := 0
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		protos = append(protos, r.Proto)
		mu.Unlock()
		w.Header().Set("ETag", `W/"datetime'2024-01-01T00%3A00%3A00.1234567Z'"`)
		io.WriteString(w, fakeEntity)
	}))
	srv.EnableHTTP2 = true
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			mu.Lock()
			conns++
			mu.Unlock()
		}
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	cs := "AccountName=" + azurite.AccountName + ";AccountKey=" + azurite.AccountKey + ";TableEndpoint=" + srv.URL + "/" + azurite.AccountName + ";"
	s, err := Open(context.Background(), cs, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if s.lean == nil || s.lean.direct == nil || s.lean.direct.tls == nil {
		t.Fatal("an https store does not take the direct Get over TLS")
	}
	s.lean.direct.tls.RootCAs = srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	for range 3 {
		e, err := s.Get(context.Background(), "tbl", "p", "r", nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(e.Properties["N"], storage.Int32(7)) {
			t.Fatalf("entity %+v", e)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if conns != 1 || !reflect.DeepEqual(protos, []string{"HTTP/1.1", "HTTP/1.1", "HTTP/1.1"}) {
		t.Fatalf("%d connections, requests %v: want 3 HTTP/1.1 requests on 1", conns, protos)
	}
	if s.lean.direct.off.Load() {
		t.Fatal("the direct path turned itself off")
	}
}
