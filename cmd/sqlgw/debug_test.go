package main

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{
		"1048576": 1 << 20, "512M": 512 << 20, "512MB": 512 << 20, "512MiB": 512 << 20,
		"2g": 2 << 30, "2GiB": 2 << 30, "64k": 64 << 10, " 1T ": 1 << 40,
	} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1M", "12X", "M", "1.5G", "99999999999T"} {
		if got, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) = %d, want an error", in, got)
		}
	}
}

func TestDebugListener(t *testing.T) {
	if _, err := listenDebug("0.0.0.0:0", false); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("listenDebug on 0.0.0.0 without --debug-listen-any: %v, want a loopback error", err)
	}
	ln, err := listenDebug("127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	srv := httptest.NewServer(pprofMux())
	defer srv.Close()
	res, err := srv.Client().Get(srv.URL + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), "goroutine profile") {
		t.Errorf("GET /debug/pprof/goroutine: %d %.100s", res.StatusCode, body)
	}
}
