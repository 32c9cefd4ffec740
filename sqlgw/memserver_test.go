package sqlgw_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/pebble"
)

// memoryServer starts a gateway configured as cfg says (the plan cache and
// direct execution switches, typically) on a new in-memory Pebble store
// with a row cache (sqltest.TestRowCacheSize), and a loopback
// port, logging nothing, and stops it when the test ends.
func memoryServer(t testing.TB, cfg sqlgw.Config) *sqlgw.Server {
	t.Helper()
	st, err := pebble.Open("", &pebble.Options{InMemory: true, RowCacheSize: sqltest.TestRowCacheSize})
	if err != nil {
		t.Fatal(err)
	}
	return memoryServerOn(t, st, cfg)
}

// memoryServerOn is memoryServer on the store st.
func memoryServerOn(t testing.TB, st storage.Store, cfg sqlgw.Config) *sqlgw.Server {
	t.Helper()
	cfg.Listen, cfg.Store = "127.0.0.1:0", st
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	srv, err := sqlgw.NewServer(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve()
	t.Cleanup(func() { srv.Close(context.Background()) })
	return srv
}
