package sqlgw

import (
	"context"
	"net"
	"strings"
	"time"
)

// Loopback listeners
//
// Without a password the server only listens on loopback (ErrInsecure
// otherwise). "Loopback" used to be a test of the host's spelling (a
// prefix "127." or "localhost"), so a host name such as 127.x.example,
// which may resolve to any address, opened an unauthenticated listener on
// it. Now the host is resolved and every address it has must be a
// loopback address (net.IP.IsLoopback: 127.0.0.0/8, ::1); an address
// that cannot be resolved is not loopback. After listening, the address
// actually bound is checked again the same way (a name could resolve
// differently the second time), and so is the address of a listener
// given in Config.Listener.

// isLoopback reports whether host (an IP address, possibly in brackets or
// with a zone, or a name) stands only for loopback addresses.
func isLoopback(host string) bool {
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

// boundLoopback reports whether a listener's own address is loopback.
func boundLoopback(addr net.Addr) bool {
	if ta, ok := addr.(*net.TCPAddr); ok {
		return ta.IP.IsLoopback()
	}
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return false
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}
