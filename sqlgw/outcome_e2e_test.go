package sqlgw_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage/aztables"
	"github.com/sqlgw/sqlgw/storage/aztables/azurite"
)

// stallWrites is an HTTP transport to Azurite that, while stalled,
// delivers write requests (POST, PUT, MERGE, DELETE) but holds their
// responses back until the request's context ends: the write is applied,
// its acknowledgement never arrives (a stalled Azure, as the hostile probe
// saw it).
type stallWrites struct {
	stalled atomic.Bool
	held    atomic.Int64
}

func (s *stallWrites) Do(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultClient.Do(req)
	if err != nil || !s.stalled.Load() || req.Method == http.MethodGet || req.Method == http.MethodHead {
		return resp, err
	}
	s.held.Add(1)
	resp.Body.Close()
	<-req.Context().Done()
	return nil, req.Context().Err()
}

// TestAmbiguousWriteOutcome: a write whose acknowledgement the store never
// sent used to fail with 1205 (lock wait timeout), which clients retry,
// although it had been applied. It now fails with 1180 saying the outcome
// is unknown, and the server does not retry it. On the Table service every
// write commits through a transaction record (catalog/txn: its commit
// timestamp is what snapshot reads decide by), whose first write (the
// record) is the one that stalls here: the commit never reaches its commit
// point, so once the store answers again no row is there, and none twice.
func TestAmbiguousWriteOutcome(t *testing.T) {
	if testing.Short() {
		t.Skip("Azurite")
	}
	tr := &stallWrites{}
	store, err := aztables.Open(context.Background(), azurite.Shared(t), &aztables.Options{HTTPClient: tr, RequestTimeout: 400 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ts := sqltest.Start(t, store, sqltest.Options{Catalog: catalog.Options{Prefix: fmt.Sprintf("o%x", time.Now().UnixNano()&0xffffffffff)}})
	c := ts.Conn()
	r := sqltest.NewRunner(t, c)
	r.Script(`
		exec CREATE DATABASE d
		exec USE d
		exec CREATE TABLE t (id INT PRIMARY KEY, v INT)
		exec CREATE TABLE k (id INT, v INT)
	`)

	tr.stalled.Store(true)
	for i := 1; i <= 5; i++ {
		_, err := c.ExecContext(context.Background(), "INSERT INTO t VALUES (?, ?)", i, i*10)
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Number != 1180 || !strings.Contains(me.Message, "outcome unknown") {
			t.Fatalf("insert %d into a stalled store: %v, want 1180 outcome unknown", i, err)
		}
	}
	_, err = c.ExecContext(context.Background(), "INSERT INTO k VALUES (1, 1)")
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1180 {
		t.Fatalf("keyless insert into a stalled store: %v, want 1180", err)
	}
	tr.stalled.Store(false)
	if tr.held.Load() < 6 {
		t.Fatalf("%d responses held back: the test stalled nothing", tr.held.Load())
	}
	r.ExpectRows("SELECT COUNT(*), SUM(v) FROM t", "0\tNULL")
	r.ExpectRows("SELECT COUNT(*) FROM k", "0")
	// And the statements apply once retried.
	r.Exec("INSERT INTO t VALUES (1, 10), (2, 20)")
	r.Exec("INSERT INTO k VALUES (1, 1)")
	r.ExpectRows("SELECT COUNT(*), SUM(v) FROM t", "2\t30")
	r.ExpectRows("SELECT COUNT(*) FROM k", "1")
}
