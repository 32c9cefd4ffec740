package sqlgw_test

import (
	"context"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage"
)

// Two gateways over one store. B's cached catalog still holds the table A
// just dropped or truncated: B's next statement reaches the store, finds the
// physical table gone, and must fail as MySQL would (1146 for a dropped
// table, the retryable 1213 for a truncated one), never with an internal
// error; B's following statement sees the change without waiting for the
// cache to expire.
func TestStaleCatalogAfterOtherGatewayDDL(t *testing.T) {
	sqltest.ForEachSharedStore(t, func(t *testing.T, store storage.Store, co catalog.Options) {
		co.RefreshInterval = 1 << 40 // B never refreshes on its own in this test
		a := sqltest.Start(t, store, sqltest.Options{Catalog: co})
		ca := sqltest.NewRunner(t, a.Conn())
		ca.Script(`
			exec CREATE DATABASE d
			exec CREATE TABLE d.t (id INT PRIMARY KEY, n INT)
			exec INSERT INTO d.t VALUES (1, 10), (2, 20)
			exec CREATE TABLE d.u (id INT PRIMARY KEY, n INT)
			exec INSERT INTO d.u VALUES (1, 10)
		`)
		// B starts now and reads the catalog once.
		cb := sqltest.NewRunner(t, sqltest.Start(t, store, sqltest.Options{Catalog: co}).Conn())
		cb.ExpectRows("SELECT COUNT(*) FROM d.t", "2")
		cb.ExpectRows("SELECT COUNT(*) FROM d.u", "1")

		ca.Exec("TRUNCATE TABLE d.t")
		// In a transaction the stale read is 1213 (retry the
		// transaction); the catalog is refreshed meanwhile.
		cb.Script(`
			exec BEGIN
			error 1213 SELECT n FROM d.t WHERE id > 0
			exec ROLLBACK
			query SELECT COUNT(*) FROM d.t WHERE id > 0
			= 0
		`)
		// An autocommit statement is run again by the server after
		// the refresh (autoretry.go): the client sees no error.
		ca.Exec("INSERT INTO d.t VALUES (3, 30)")
		cb.ExpectRows("SELECT n FROM d.t WHERE id > 0", "30")
		ca.Exec("TRUNCATE TABLE d.t")
		cb.ExpectRows("SELECT n FROM d.t WHERE id > 0")

		ca.Exec("DROP TABLE d.u")
		cb.ExpectErrno(1146, "SELECT n FROM d.u WHERE id > 0")
		cb.ExpectErrno(1146, "SELECT n FROM d.u WHERE id > 0")
	})
}

// slowCatalogCheck delays every read of the catalog's version entity (its
// version check) by delay, and counts them, and apart those a statement
// made inline: called from the catalog's cache lookup (Catalog.current),
// not from its background check (catalog/refresh.go).
type slowCatalogCheck struct {
	storage.Store
	table     string
	delay     time.Duration
	n, inline atomic.Int64
}

func (s *slowCatalogCheck) Get(ctx context.Context, table, pk, rk string, o *storage.GetOptions) (*storage.Entity, error) {
	if table == s.table && pk == "c" && rk == "v" {
		s.n.Add(1)
		if st := string(debug.Stack()); strings.Contains(st, "catalog.(*Catalog).current(") && !strings.Contains(st, "startRefreshAhead") {
			s.inline.Add(1)
		}
		time.Sleep(s.delay)
	}
	return s.Store.Get(ctx, table, pk, rk, o)
}

// Gateway B under a steady load of point selects checks its cached
// catalog in the background (catalog/refresh.go): none of its statements
// checks inline, however slow the check is (so long as it takes less than
// half the refresh interval), and a DDL statement of gateway A is still seen by
// every statement B starts one refresh interval after A's commit: a new
// column, a dropped one, a new table.
func TestCatalogRefreshAheadOtherGatewayDDL(t *testing.T) {
	sqltest.ForEachSharedStore(t, func(t *testing.T, store storage.Store, co catalog.Options) {
		// A check that finds a change reads the version entity twice
		// (catalog.load): both delays and the load fit in the half
		// interval left when it starts, with room for the load to stall
		// a few hundred ms on a busy machine (a stall of more than half
		// the interval leaves no statement to start the check in time).
		const iv = time.Second
		const delay = 50 * time.Millisecond
		co.RefreshInterval = iv
		a := sqltest.Start(t, store, sqltest.Options{Catalog: co})
		ca := sqltest.NewRunner(t, a.Conn())
		ca.Script(`
			exec CREATE DATABASE d
			exec CREATE TABLE d.t (id INT PRIMARY KEY, n INT)
			exec INSERT INTO d.t VALUES (1, 10), (2, 20)
		`)
		prefix := co.Prefix
		if prefix == "" {
			prefix = "sqlgw"
		}
		slow := &slowCatalogCheck{Store: store, table: prefix + "catalog", delay: delay}
		b := sqltest.Start(t, slow, sqltest.Options{Catalog: co})
		cb := sqltest.NewRunner(t, b.Conn())
		cb.ExpectRows("SELECT n FROM d.t WHERE id = 1", "10")

		// The steady load on B, one point select after another on its
		// own connection, timing each.
		load := b.Conn()
		stop := make(chan struct{})
		var slowest atomic.Int64
		var stmts atomic.Int64
		var loadErr error
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				select {
				case <-stop:
					return
				default:
				}
				t0 := time.Now()
				var n int
				if err := load.QueryRowContext(context.Background(), "SELECT n FROM d.t WHERE id = 2").Scan(&n); err != nil {
					loadErr = err
					return
				}
				if d := int64(time.Since(t0)); d > slowest.Load() {
					slowest.Store(d)
				}
				stmts.Add(1)
			}
		}()
		checks0, inline0 := slow.n.Load(), slow.inline.Load()

		ca.Exec("ALTER TABLE d.t ADD COLUMN m INT")
		time.Sleep(iv)
		cb.ExpectRows("SELECT n, m FROM d.t WHERE id = 1", "10\tNULL")
		ca.Exec("CREATE TABLE d.u (id INT PRIMARY KEY)")
		time.Sleep(iv)
		cb.ExpectRows("SELECT COUNT(*) FROM d.u", "0")
		ca.Exec("ALTER TABLE d.t DROP COLUMN m")
		time.Sleep(iv)
		cb.ExpectErrno(1054, "SELECT m FROM d.t WHERE id = 1")

		close(stop)
		<-done
		if loadErr != nil {
			t.Fatal(loadErr)
		}
		checks, inline := slow.n.Load()-checks0, slow.inline.Load()-inline0
		t.Logf("%d point selects on B, the slowest %v; %d version checks, %d of them inline", stmts.Load(), time.Duration(slowest.Load()), checks, inline)
		if checks < 3 {
			t.Fatalf("B checked the catalog version %d times in %v with a refresh interval of %v", checks, 3*iv, iv)
		}
		if inline != 0 {
			t.Fatalf("%d of B's statements checked the catalog version inline", inline)
		}
	})
}
