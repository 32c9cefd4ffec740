package sqlgw

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw/wire"
	"github.com/sqlgw/sqlgw/storage/pebble"
)

// TestLoopbackByAddress: a listen host counts as loopback by what it
// resolves to, not by its spelling: 127.x.example (a name that can point
// anywhere) without a password is refused; IP loopback addresses and
// localhost are not.
func TestLoopbackByAddress(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1": true, "127.1.2.3": true, "::1": true, "[::1]": true, "localhost": true,
		"127.x.example": false, "127.0.0.1.nip.io.invalid": false, "0.0.0.0": false, "": false, "::": false, "10.0.0.1": false,
	} {
		if got := wire.IsLoopback(host); got != want {
			t.Errorf("isLoopback(%q) = %v, want %v", host, got, want)
		}
	}
	for _, listen := range []string{"127.x.example:0", "127.0.0.1.invalid:0", "0.0.0.0:0", ":0"} {
		s, err := pebble.OpenMemory()
		if err != nil {
			t.Fatal(err)
		}
		srv, err := NewServer(context.Background(), Config{Listen: listen, Store: s, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if strings.Contains(listen, ".example") || strings.Contains(listen, ".invalid") {
			// A name that does not resolve cannot be listened on at all
			// (one that resolves is judged by the address bound).
			if err == nil {
				srv.Close(context.Background())
				t.Errorf("NewServer(%q) without a password started", listen)
			}
			continue
		}
		if !errors.Is(err, ErrInsecure) {
			if srv != nil {
				srv.Close(context.Background())
			}
			t.Errorf("NewServer(%q) without a password: %v, want ErrInsecure", listen, err)
		}
	}
	s, err := pebble.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := NewServer(context.Background(), Config{Listen: "localhost:0", Store: s, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatalf("localhost: %v", err)
	}
	srv.Close(context.Background())
}
