package sqlgw_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage/aztables"
	"github.com/sqlgw/sqlgw/storage/aztables/azurite"
)

// resetOneWrite is an HTTP transport to Azurite that, once armed, resets
// the connection of the first write of one step of a commit (as Azurite
// did under load: "connection reset by peer"), after delivering it (the
// store applied it, its answer is lost) or before:
//
//   - "lock": a write carrying a lock (catalog/txn's PropLock, "_tx");
//   - "commit": the commit point's batch (the clock partition of the
//     record table, with a commit row).
type resetOneWrite struct {
	mu      sync.Mutex
	step    string // "" when disarmed
	applied bool
	fired   bool
}

func (r *resetOneWrite) arm(step string, applied bool) {
	r.mu.Lock()
	r.step, r.applied, r.fired = step, applied, false
	r.mu.Unlock()
}

func (r *resetOneWrite) hasFired() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fired
}

func (r *resetOneWrite) Do(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodGet || req.Method == http.MethodHead || req.Body == nil {
		return http.DefaultClient.Do(req)
	}
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	b := string(body)
	step := ""
	switch {
	case strings.Contains(b, "clock") && strings.Contains(b, "c-"):
		step = "commit"
	case strings.Contains(b, `"_tx"`):
		step = "lock"
	}
	r.mu.Lock()
	fire := !r.fired && step != "" && step == r.step
	applied := r.applied
	if fire {
		r.fired = true
	}
	r.mu.Unlock()
	if !fire {
		return http.DefaultClient.Do(req)
	}
	if applied {
		if resp, err := http.DefaultClient.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	return nil, &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
}

// TestStoreResetMidCommitAzurite: a COMMIT moving money between two
// partitions (two rows each: every lock write is a batch) whose store
// resets the connection of one write. On a lock batch (before the commit
// point) it answered 1180, "the outcome of this commit is unknown",
// although nothing could be applied; now 1213 (the transaction aborted,
// nothing applied: the client retries), and the rows are writable at
// once (the abort rolled the landed locks back). On the commit point's
// batch the gateway reads the outcome back: committed when it landed (no
// error), else aborted (1213). The balances are all or nothing, and the
// total conserved, every time.
func TestStoreResetMidCommitAzurite(t *testing.T) {
	if testing.Short() {
		t.Skip("Azurite")
	}
	tr := &resetOneWrite{}
	store, err := aztables.Open(context.Background(), azurite.Shared(t), &aztables.Options{HTTPClient: tr, RequestTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ts := sqltest.Start(t, store, sqltest.Options{Catalog: catalog.Options{Prefix: fmt.Sprintf("r%x", time.Now().UnixNano()&0xffffffffff)}})
	c := ts.Conn()
	r := sqltest.NewRunner(t, c)
	r.Script(`
		exec CREATE DATABASE d
		exec USE d
		exec CREATE TABLE acct (p INT, id INT, bal INT, PRIMARY KEY (p, id))
		exec INSERT INTO acct VALUES (0, 0, 100), (0, 1, 100), (1, 0, 100), (1, 1, 100)
	`)
	moved := 0 // the transfers committed
	balances := func() string {
		return fmt.Sprintf("%d\t%d\t400", 200-20*moved, 200+20*moved)
	}
	transfer := func() error {
		tx, err := c.BeginTx(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{"UPDATE acct SET bal = bal - 10 WHERE p = 0", "UPDATE acct SET bal = bal + 10 WHERE p = 1"} {
			if _, err := tx.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		return tx.Commit()
	}
	// Warm up: the record table and the clock exist.
	if err := transfer(); err != nil {
		t.Fatal(err)
	}
	moved++
	for _, tc := range []struct {
		step    string
		applied bool
		want    uint16 // the MySQL error, 0: committed
	}{
		{"lock", false, 1213},
		{"lock", true, 1213},
		{"commit", false, 1213},
		{"commit", true, 0},
	} {
		name := fmt.Sprintf("%s applied=%v", tc.step, tc.applied)
		tr.arm(tc.step, tc.applied)
		err := transfer()
		fired := tr.hasFired()
		tr.arm("", false)
		if !fired {
			t.Fatalf("%s: no write was reset", name)
		}
		if got := sqltest.Errno(err); got != tc.want {
			t.Fatalf("%s: COMMIT: %v (errno %d), want %d", name, err, got, tc.want)
		}
		if err == nil {
			moved++
		}
		r.ExpectRows("SELECT (SELECT SUM(bal) FROM acct WHERE p = 0), (SELECT SUM(bal) FROM acct WHERE p = 1), SUM(bal) FROM acct", balances())
		r.ExpectRows("SELECT COUNT(DISTINCT bal) FROM acct WHERE p = 0", "1")
		// No lock is left in the way: the next transfer commits at once.
		if err := transfer(); err != nil {
			t.Fatalf("%s: the next transfer: %v", name, err)
		}
		moved++
		r.ExpectRows("SELECT (SELECT SUM(bal) FROM acct WHERE p = 0), (SELECT SUM(bal) FROM acct WHERE p = 1), SUM(bal) FROM acct", balances())
	}
}
