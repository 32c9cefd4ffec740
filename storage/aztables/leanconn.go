package aztables

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sqlgw/sqlgw/storage"
)

// directPool sends the lean Get's request on the calling goroutine: its
// own HTTP/1.1 connections, kept alive, the request written and the
// response read by the goroutine that asked for the entity (issue 13,
// eighth round). net/http's transport hands every request to a
// connection's writer goroutine and every response from its reader
// goroutine back to the caller: two goroutine wake-ups each way, which on
// a loaded machine with few cores are most of what a point select through
// the gateway adds to a raw GetEntity beyond its CPU (docs/benchmarks.md,
// sixth and eighth rounds). Here the caller's write and read are direct
// syscalls on a connection it holds alone for the exchange.
//
// It is the default transport's behaviour, kept where it matters:
//
//   - Idle connections are closed before the server closes them, after the
//     same idle time as the default transport (transport.go: 4 s for
//     Azurite, which closes after 5 s; 30 s for the service), by a timer
//     while any is idle, and on Store.Close. A kept-alive connection that
//     fails before any byte of the response was read (the server closed
//     it as the request left) is retried once on a fresh connection, as
//     net/http retries a replayable request: a Get Entity is idempotent.
//     Writes never take these connections: every other operation goes
//     through the transport, whose own pool keeps its own rules.
//   - A response with "Connection: close" (or HTTP/1.0 without
//     keep-alive), a body not read to its end, bytes past the response,
//     and any error close the connection instead of keeping it.
//   - The caller's context bounds the exchange: its deadline is the
//     connection's, and its cancellation (from another goroutine) sets a
//     deadline in the past, which unblocks a write or read at once; the
//     connection is then closed.
//   - https endpoints are dialled with crypto/tls and the default
//     transport's settings (TLS 1.2 or later), offering only http/1.1 by
//     ALPN. A service that negotiates anything else, or answers with a
//     protocol other than HTTP/1.x, turns the direct path off for the
//     store: that request and every later one go through the transport.
//   - The response's headers (1 MiB) and body (directMaxBody) are
//     limited (the transport reads any body in full); a response over
//     them fails the Get with ErrInvalid, not retried.
//   - The request is the lean Get's http.Request written by
//     Request.Write, as the transport writes it (TestDirectGetRequestBytes
//     compares the bytes) except for the transport's "Accept-Encoding:
//     gzip", which is not sent: a body is never compressed, so none needs
//     to be decompressed.
//   - Errors are those of an http.Client: a *url.Error around the network
//     error, or the context's error when the context ended, so that
//     mapError classifies them as before, and a response is turned into
//     an *azcore.ResponseError exactly as on the transport path
//     (TestDirectGetAgreesWithTransport runs every scripted failure both
//     ways).
//
// A proxy from the environment (http.ProxyFromEnvironment) or
// Options.HTTPClient leaves the lean Get on the transport (newLeanGet).
type directPool struct {
	addr string      // host:port dialled
	tls  *tls.Config // nil: plain http
	dial func(ctx context.Context, network, addr string) (net.Conn, error)
	idle time.Duration // idle connections are closed after this long

	off atomic.Bool // the service does not speak HTTP/1.1 here: use the transport

	mu       sync.Mutex
	conns    []*directConn // idle, the most recently used last
	sweeping bool          // a sweep timer is pending
	closed   bool
}

const (
	directMaxIdle    = 128     // idle connections kept, as the transport's MaxIdleConnsPerHost
	directMaxHeaders = 1 << 20 // bytes of a response's status line and headers
	// directMaxBody bounds a response's body. An entity is at most 1 MiB
	// of UTF-16 data, whose JSON is at most 3 MiB (\u escapes of control
	// characters, 12 bytes for a surrogate pair).
	directMaxBody = 8 << 20
)

// errDirectUnsupported: the service does not speak HTTP/1.1 on the direct
// connection; the request goes through the transport instead.
var errDirectUnsupported = errors.New("aztables: the service did not answer in HTTP/1.1")

// errResponseTooLarge is returned for a response over the limits.
var errResponseTooLarge = errors.New("aztables: response too large")

// aLongTimeAgo is a deadline in the past: it unblocks a connection's read
// or write at once.
var aLongTimeAgo = time.Unix(1, 0)

// directConn is one kept-alive connection.
type directConn struct {
	nc   net.Conn
	lr   limitedConn
	br   *bufio.Reader
	wbuf bytes.Buffer
	used time.Time // when it went idle
}

// limitedConn reads from a connection at most n more bytes and counts
// those read.
type limitedConn struct {
	nc   net.Conn
	n    int64
	read int64
}

func (l *limitedConn) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, errResponseTooLarge
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	k, err := l.nc.Read(p)
	l.n -= int64(k)
	l.read += int64(k)
	return k, err
}

// newDirectPool returns the direct path to the endpoint base, or nil if
// it cannot take it (a scheme other than http and https).
func newDirectPool(base *url.URL, idle time.Duration, dial func(ctx context.Context, network, addr string) (net.Conn, error)) *directPool {
	p := &directPool{idle: idle, dial: dial}
	port := base.Port()
	switch base.Scheme {
	case "http":
		if port == "" {
			port = "80"
		}
	case "https":
		if port == "" {
			port = "443"
		}
		p.tls = &tls.Config{MinVersion: tls.VersionTLS12, ServerName: base.Hostname(), NextProtos: []string{"http/1.1"}}
	default:
		return nil
	}
	if base.Hostname() == "" {
		return nil
	}
	p.addr = net.JoinHostPort(base.Hostname(), port)
	if p.dial == nil {
		p.dial = defaultDialer.DialContext
	}
	return p
}

// defaultDialer is the default transport's.
var defaultDialer = &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}

// roundTrip sends req (a GET without body) and returns its response, the
// body read in full into body (resp.Body is already closed).
func (p *directPool) roundTrip(ctx context.Context, req *http.Request) (resp *http.Response, body []byte, err error) {
	fresh := false
	for {
		c, reused, err := p.conn(ctx, fresh)
		if err == errDirectUnsupported {
			return nil, nil, err
		}
		if err != nil {
			return nil, nil, p.urlError(ctx, req, err)
		}
		resp, body, err, nothingRead := p.exchange(ctx, c, req)
		if err == nil {
			return resp, body, nil
		}
		if err == errDirectUnsupported {
			return nil, nil, err
		}
		if errors.Is(err, errResponseTooLarge) {
			// Not a transient failure: not retried, as a body the
			// transport could not decode would not be.
			return nil, nil, &ServiceError{Op: "GetEntity", Sentinel: storage.ErrInvalid, cause: err}
		}
		if reused && nothingRead && !fresh && ctx.Err() == nil {
			// The server closed the kept-alive connection as the request
			// left: it did not answer it. Once more on a new connection.
			fresh = true
			continue
		}
		return nil, nil, p.urlError(ctx, req, err)
	}
}

// urlError wraps err as http.Client does, or returns the context's error
// if the context ended (the connection's deadline is the context's, and
// the runtime's timer may fire first).
func (p *directPool) urlError(ctx context.Context, req *http.Request, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		err = cerr
	} else if d, ok := ctx.Deadline(); ok && errors.Is(err, os.ErrDeadlineExceeded) && !time.Now().Before(d) {
		err = context.DeadlineExceeded
	}
	return &url.Error{Op: "Get", URL: req.URL.String(), Err: err}
}

// conn returns an idle connection (reused) or a new one (always new with
// fresh).
func (p *directPool) conn(ctx context.Context, fresh bool) (c *directConn, reused bool, err error) {
	if !fresh {
		now := time.Now()
		p.mu.Lock()
		for len(p.conns) > 0 {
			c = p.conns[len(p.conns)-1]
			p.conns[len(p.conns)-1] = nil
			p.conns = p.conns[:len(p.conns)-1]
			if now.Sub(c.used) < p.idle {
				p.mu.Unlock()
				return c, true, nil
			}
			// Past its idle time: the server may be closing it (the
			// older ones below too, closed in turn).
			c.nc.Close()
			c = nil
		}
		p.mu.Unlock()
	}
	nc, err := p.dial(ctx, "tcp", p.addr)
	if err != nil {
		return nil, false, err
	}
	if p.tls != nil {
		tc := tls.Client(nc, p.tls)
		hctx, cancel := context.WithTimeout(ctx, 10*time.Second) // the transport's TLSHandshakeTimeout
		err := tc.HandshakeContext(hctx)
		cancel()
		if err != nil {
			nc.Close()
			return nil, false, err
		}
		if np := tc.ConnectionState().NegotiatedProtocol; np != "" && np != "http/1.1" {
			tc.Close()
			p.off.Store(true)
			return nil, false, errDirectUnsupported
		}
		nc = tc
	}
	c = &directConn{nc: nc}
	c.lr.nc = nc
	c.br = bufio.NewReaderSize(&c.lr, 4096)
	return c, false, nil
}

// exchange writes req on c and reads the response. c is kept for reuse or
// closed. nothingRead reports a failure before any byte of the response.
func (p *directPool) exchange(ctx context.Context, c *directConn, req *http.Request) (resp *http.Response, body []byte, err error, nothingRead bool) {
	keep := false
	defer func() {
		if keep {
			p.put(c)
		} else {
			c.nc.Close()
		}
	}()
	d, _ := ctx.Deadline() // the zero time: none
	if err := c.nc.SetDeadline(d); err != nil {
		return nil, nil, err, true
	}
	stop := context.AfterFunc(ctx, func() { c.nc.SetDeadline(aLongTimeAgo) })
	defer func() {
		if !stop() {
			keep = false // the cancellation's deadline may be set
		}
	}()
	c.wbuf.Reset()
	if err := req.Write(&c.wbuf); err != nil {
		return nil, nil, err, true
	}
	if _, err := c.nc.Write(c.wbuf.Bytes()); err != nil {
		return nil, nil, err, true
	}
	c.lr.n, c.lr.read = directMaxHeaders, 0
	for {
		resp, err = http.ReadResponse(c.br, req)
		if err != nil {
			return nil, nil, err, c.lr.read == 0
		}
		// 1xx other than 101 precede the response, as the transport skips them.
		if resp.StatusCode < 100 || resp.StatusCode >= 200 || resp.StatusCode == http.StatusSwitchingProtocols {
			break
		}
	}
	if resp.ProtoMajor != 1 {
		p.off.Store(true)
		return nil, nil, errDirectUnsupported, false
	}
	c.lr.n = directMaxBody + 64<<10 // the body and its chunks' framing
	body, err = io.ReadAll(io.LimitReader(resp.Body, directMaxBody+1))
	if err == nil && len(body) > directMaxBody {
		err = fmt.Errorf("%w: a body over %d bytes", errResponseTooLarge, directMaxBody)
	}
	if err != nil {
		return nil, nil, err, false
	}
	// The body was read to its end (ReadAll stopped at io.EOF), so Close
	// only marks it closed.
	resp.Body.Close()
	keep = !resp.Close && !req.Close && c.br.Buffered() == 0
	return resp, body, nil, false
}

// put keeps c idle, or closes it.
func (p *directPool) put(c *directConn) {
	c.used = time.Now()
	p.mu.Lock()
	if p.closed || len(p.conns) >= directMaxIdle {
		p.mu.Unlock()
		c.nc.Close()
		return
	}
	p.conns = append(p.conns, c)
	if !p.sweeping {
		p.sweeping = true
		time.AfterFunc(p.idle, p.sweep)
	}
	p.mu.Unlock()
}

// sweep closes the connections idle for p.idle and comes back for the
// others while any is left.
func (p *directPool) sweep() {
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, c := range p.conns {
		if now.Sub(c.used) >= p.idle {
			c.nc.Close()
			continue
		}
		p.conns[n] = c
		n++
	}
	clear(p.conns[n:])
	p.conns = p.conns[:n]
	if n == 0 || p.closed {
		p.sweeping = false
		return
	}
	// conns[0] is the oldest.
	time.AfterFunc(p.conns[0].used.Add(p.idle).Sub(now), p.sweep)
}

// close closes the idle connections; connections in use are closed when
// their exchange ends.
func (p *directPool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for _, c := range p.conns {
		c.nc.Close()
	}
	clear(p.conns)
	p.conns = p.conns[:0]
}

// idleConns returns the number of idle connections (tests).
func (p *directPool) idleConns() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.conns)
}
