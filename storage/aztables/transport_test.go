package aztables_test

import (
	"context"
	"net"
	"net/http/httptrace"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/aztables"
	"github.com/sqlgw/sqlgw/storage/aztables/azurite"
)

// TestIdleConnectionClosedBeforeAzurite: Azurite closes a kept-alive
// connection after 5 s of idleness; a batch sent on it as it closes is reset
// after being written, and the store can only report it as "outcome
// unknown" (a CI run failed an UPDATE with 1180 this way). The store's
// transport must give up an idle connection before the emulator does, so a
// request after 4.5 s of quiet dials afresh instead of reusing one that is
// about to be closed. The same holds for the Gets' own connections
// (leanconn.go).
func TestIdleConnectionClosedBeforeAzurite(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: -short (the test idles for 4.5 s)")
	}
	if os.Getenv(azurite.EnvConnStr) != "" {
		t.Skipf("skipping: %s points at another service, whose idle timeout is not Azurite's", azurite.EnvConnStr)
	}
	type getKey struct{}
	var dials atomic.Int64 // the Gets' connections (leanconn.go)
	s := open(t, &aztables.Options{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		if ctx.Value(getKey{}) != nil {
			dials.Add(1)
		}
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}})
	table := newTable(t, s)
	getCtx := context.WithValue(context.Background(), getKey{}, true)
	get := func() {
		t.Helper()
		if _, err := s.Get(getCtx, table, "p", "a", nil); err != nil {
			t.Fatalf("Get: %v", err)
		}
	}
	reused := func(rk string) bool {
		var got bool
		ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
			GotConn: func(info httptrace.GotConnInfo) { got = info.Reused },
		})
		op := storage.Operation{Kind: storage.OpInsert, Entity: &storage.Entity{PartitionKey: "p", RowKey: rk}}
		if _, err := s.Batch(ctx, table, []storage.Operation{op}); err != nil {
			t.Fatalf("Batch: %v", err)
		}
		return got
	}
	reused("a")
	if !reused("b") {
		t.Fatalf("a batch right after another dialled a new connection: the transport keeps none idle")
	}
	get()
	get()
	if n := dials.Load(); n != 1 {
		t.Fatalf("two Gets dialled %d connections, want 1 (kept alive)", n)
	}
	time.Sleep(4500 * time.Millisecond)
	if reused("c") {
		t.Fatalf("a batch after 4.5 s idle reused the old connection, which Azurite closes at 5 s: a request racing that close is reset and its outcome unknown")
	}
	get()
	if n := dials.Load(); n != 2 {
		t.Fatalf("a Get after 4.5 s idle dialled %d connections in all, want 2: it reused the one Azurite closes at 5 s", n)
	}
}
