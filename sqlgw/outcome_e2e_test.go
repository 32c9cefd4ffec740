package sqlgw_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
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
// saw it). With atCommitPoint, the commit point's batch (the clock
// partition's, with a commit row) is delivered and then the whole store
// stops answering, reads included, until all is cleared: its outcome
// cannot be learnt.
type stallWrites struct {
	stalled       atomic.Bool
	atCommitPoint atomic.Bool
	all           atomic.Bool
	held          atomic.Int64
}

func (s *stallWrites) hold(req *http.Request) (*http.Response, error) {
	s.held.Add(1)
	<-req.Context().Done()
	return nil, req.Context().Err()
}

func (s *stallWrites) Do(req *http.Request) (*http.Response, error) {
	if s.all.Load() {
		return s.hold(req)
	}
	commitPoint := false
	if s.atCommitPoint.Load() && req.Body != nil && req.Method == http.MethodPost {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		commitPoint = strings.Contains(string(body), "'clock'") && strings.Contains(string(body), "c-")
	}
	resp, err := http.DefaultClient.Do(req)
	if commitPoint {
		s.all.Store(true)
	}
	stall := commitPoint || s.stalled.Load() && req.Method != http.MethodGet && req.Method != http.MethodHead
	if err != nil || !stall {
		return resp, err
	}
	resp.Body.Close()
	return s.hold(req)
}

// TestAmbiguousWriteOutcome: a write whose acknowledgement the store never
// sent used to fail with 1205 (lock wait timeout), which clients retry,
// although it had been applied; then with 1180 (outcome unknown) for every
// such write. On the Table service every write commits through catalog/txn
// (its commit timestamp is what snapshot reads decide by), and a write of
// it before the commit point that goes unanswered (here the first one,
// the record table's creation or the locks) leaves the commit point
// unsent: nothing is applied, and COMMIT fails with 1213, the transaction
// aborted (docs/azure-table-service.md, "Store failures during a commit");
// once the store answers again no row is there, and none twice. Only a
// commit point whose batch landed, or not, while the store stopped
// answering altogether is 1180, and the server does not retry it; once the
// store answers, it is applied exactly once.
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
	// In explicit transactions: an autocommit statement that fails with
	// 1213 is run again by the server (sqlgw/wire's autoretry.go), for up
	// to 50 s against a store that does not answer.
	insert := func(q string, args ...any) error {
		tx, err := c.BeginTx(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(q, args...); err != nil {
			tx.Rollback()
			return err
		}
		return tx.Commit()
	}
	tr.stalled.Store(true)
	for i := 1; i <= 5; i++ {
		err := insert("INSERT INTO t VALUES (?, ?)", i, i*10)
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Number != 1213 || !strings.Contains(me.Message, "nothing was applied") {
			t.Fatalf("insert %d into a stalled store: %v, want 1213 nothing applied", i, err)
		}
	}
	err = insert("INSERT INTO k VALUES (1, 1)")
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1213 {
		t.Fatalf("keyless insert into a stalled store: %v, want 1213", err)
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

	// The commit point delivered, then no answer at all: 1180, not
	// retried by the server (an autocommit statement), and applied once
	// the store answers (readers roll it forward).
	tr.atCommitPoint.Store(true)
	_, err = c.ExecContext(context.Background(), "INSERT INTO t VALUES (3, 30)")
	tr.atCommitPoint.Store(false)
	tr.all.Store(false)
	if !errors.As(err, &me) || me.Number != 1180 || !strings.Contains(me.Message, "outcome of this commit is unknown") {
		t.Fatalf("insert whose commit point went unanswered: %v, want 1180 outcome unknown", err)
	}
	r.ExpectRows("SELECT COUNT(*), SUM(v) FROM t", "3\t60")
}
