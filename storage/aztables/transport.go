package aztables

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"time"
)

// Idle connections are closed by the client before the server can close
// them. A server that closes a kept-alive connection while a request is on
// its way resets it, and a reset after the request was written is ambiguous:
// a batch on it ends as "outcome unknown" although the server never read it.
// Azurite (Node's http server) closes idle connections after 5 s; Go's and
// azcore's transports keep them for 90 s, so a gateway pausing for about 5 s
// between two writes raced the emulator's close (a CI run lost one UPDATE to
// 1180 this way). The Table service's front ends keep idle connections for
// minutes; 30 s stays well inside that.
const (
	azuriteIdleConnTimeout = 4 * time.Second
	serviceIdleConnTimeout = 30 * time.Second
)

// newTransport is the HTTP client of a store opened without
// Options.HTTPClient: azcore's defaults, with idle connections dropped
// before the server drops them and enough of them kept for the gateway's
// concurrent requests (azcore keeps 10 per host; a busy gateway has more in
// flight and would otherwise redial).
func newTransport(idle time.Duration, dial func(ctx context.Context, network, addr string) (net.Conn, error)) *http.Client {
	if dial == nil {
		dial = defaultDialer.DialContext
	}
	return &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dial,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   128,
		IdleConnTimeout:       idle,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: 1 * time.Second,
		TLSClientConfig:       &tls.Config{MinVersion: tls.VersionTLS12},
	}}
}
