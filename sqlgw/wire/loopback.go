package wire

import (
	"context"
	"net"
	"strings"
	"time"
)

// Loopback listeners
//
// Without a password the server only listens on loopback (ErrInsecure
// otherwise, accounts.go). "Loopback" used to be a test of the host's
// spelling (a prefix "127." or "localhost"), so a host name such as
// 127.x.example, which may resolve to any address, opened an
// unauthenticated listener on whatever it resolved to. Now the address the
// listener actually bound decides (server.go), by net.IP.IsLoopback
// (127.0.0.0/8, ::1); a name given to isLoopback is resolved and every
// address it has must be loopback, and one that cannot be resolved is
// not.

// isLoopback reports whether host (an IP address, possibly in brackets or
// with a zone, or a name) stands only for loopback addresses.
func IsLoopback(host string) bool {
	h := strings.Trim(host, "[]")
	if i := strings.IndexByte(h, '%'); i >= 0 {
		h = h[:i]
	}
	if h == "" {
		return false // every interface
	}
	if ip := net.ParseIP(h); ip != nil {
		return ip.IsLoopback()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupIPAddr(ctx, h)
	if err != nil || len(addrs) == 0 {
		return false
	}
	for _, a := range addrs {
		if !a.IP.IsLoopback() {
			return false
		}
	}
	return true
}
