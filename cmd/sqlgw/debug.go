package main

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"strconv"
	"strings"
)

// The debug listener (--debug-listen): Go's net/http/pprof handlers on
// their own mux (never http.DefaultServeMux, never the metrics listener),
// so that a CPU profile of a running server under load is one command away
// (`make profile`, docs/benchmarks.md):
//
//	go tool pprof -top http://127.0.0.1:6060/debug/pprof/profile?seconds=20
//
// Profiles expose the process's memory and code paths, not data a client
// could not see, but they are no business of remote clients either: the
// address must be a loopback one unless --debug-listen-any says otherwise.

// pprofMux serves /debug/pprof/.
func pprofMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// listenDebug listens on addr, which must be a loopback address unless any.
func listenDebug(addr string, any bool) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if !any {
		ip := net.ParseIP(host)
		if host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return nil, fmt.Errorf("%s is not a loopback address (add --debug-listen-any to serve profiles on it)", addr)
		}
	}
	return net.Listen("tcp", addr)
}

// parseSize parses a byte size: a number of bytes, or a number with one of
// the suffixes K, M, G, T (optionally followed by B or iB), all powers of
// 1024 as in MySQL's size options (innodb_buffer_pool_size=1G).
func parseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "IB"), "B")
	shift := 0
	if t != "" {
		switch t[len(t)-1] {
		case 'K':
			shift = 10
		case 'M':
			shift = 20
		case 'G':
			shift = 30
		case 'T':
			shift = 40
		}
		if shift > 0 {
			t = t[:len(t)-1]
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(t), 10, 64)
	if err != nil || n <= 0 || n > (1<<62)>>shift {
		return 0, errors.New("size " + strconv.Quote(s) + ": want a positive number of bytes, optionally with K, M, G or T (e.g. 512M, 2GiB)")
	}
	return n << shift, nil
}
