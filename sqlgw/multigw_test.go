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

// catalogChecks counts the reads of the catalog's version entity (its
// version checks), those finished, and apart those a statement made inline:
// called from the catalog's cache lookup (Catalog.current), not from its
// background check (catalog/refresh.go).
type catalogChecks struct {
	storage.Store
	table                        string
	n, finished, inline, queries atomic.Int64
}

// Query counts the catalog's loads (a check that found the version moved
// reads the catalog partition, then the version entity again).
func (s *catalogChecks) Query(ctx context.Context, table string, q *storage.Query) (*storage.Page, error) {
	if table == s.table {
		s.queries.Add(1)
	}
	return s.Store.Query(ctx, table, q)
}

func (s *catalogChecks) Get(ctx context.Context, table, pk, rk string, o *storage.GetOptions) (*storage.Entity, error) {
	if table != s.table || pk != "c" || rk != "v" {
		return s.Store.Get(ctx, table, pk, rk, o)
	}
	s.n.Add(1)
	if st := string(debug.Stack()); strings.Contains(st, "catalog.(*Catalog).current(") && !strings.Contains(st, "startRefreshAhead") {
		s.inline.Add(1)
	}
	defer s.finished.Add(1)
	return s.Store.Get(ctx, table, pk, rk, o)
}

// Gateway B, its catalog on a clock the test moves, checks its cached
// catalog in the background (catalog/refresh.go): a statement that finds
// the cache past half the refresh interval is served from it and starts
// the check, so statements that come at least every half interval never
// check inline, and the background check brings gateway A's DDL; and a
// statement B starts one interval after A's DDL always sees it (the
// bound): a new column, a new table, a dropped column.
func TestCatalogRefreshAheadOtherGatewayDDL(t *testing.T) {
	sqltest.ForEachSharedStore(t, func(t *testing.T, store storage.Store, co catalog.Options) {
		const iv = time.Second
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
		checks := &catalogChecks{Store: store, table: prefix + "catalog"}
		var offset atomic.Int64
		epoch := time.Now()
		cob := co
		cob.RefreshInterval = iv
		cob.Now = func() time.Time { return epoch.Add(time.Duration(offset.Load())) }
		cb := sqltest.NewRunner(t, sqltest.Start(t, checks, sqltest.Options{Catalog: cob}).Conn())
		cb.ExpectRows("SELECT n FROM d.t WHERE id = 1", "10")
		// after moves B's clock by d and runs q on B; then it waits
		// for the background check q started to finish (its version
		// read, and if the version moved, its load and second read).
		after := func(d time.Duration, q string, want ...string) {
			t.Helper()
			offset.Add(int64(d))
			n0, q0 := checks.n.Load(), checks.queries.Load()
			cb.ExpectRows(q, want...)
			done := func() bool {
				n := checks.n.Load()
				return n > n0 && checks.finished.Load() == n && (checks.queries.Load() == q0 || n-n0 >= 2)
			}
			for deadline := time.Now().Add(10 * time.Second); !done(); {
				if time.Now().After(deadline) {
					t.Fatalf("%s after %v: no version check finished", q, d)
				}
				time.Sleep(time.Millisecond)
			}
		}

		// Statements every 0.6 intervals: each finds the cache past half
		// its interval and checks in the background.
		inline0, n0 := checks.inline.Load(), checks.n.Load()
		for range 5 {
			after(iv*6/10, "SELECT n FROM d.t WHERE id = 2", "20")
		}
		if n, inline := checks.n.Load()-n0, checks.inline.Load()-inline0; n != 5 || inline != 0 {
			t.Fatalf("5 statements 0.6 refresh intervals apart: %d version checks, %d of them inline; want 5 in the background", n, inline)
		}
		// The background check brings A's new table to the next statement.
		ca.Exec("CREATE TABLE d.u (id INT PRIMARY KEY)")
		after(iv*6/10, "SELECT n FROM d.t WHERE id = 2", "20")
		cb.ExpectRows("SELECT COUNT(*) FROM d.u", "0")
		if inline := checks.inline.Load() - inline0; inline != 0 {
			t.Fatalf("%d inline version checks", inline)
		}

		// The bound: a statement B starts one interval after A's change
		// sees it, whatever B's last check (here it checks inline: no
		// statement in between started a background check).
		ca.Exec("ALTER TABLE d.t ADD COLUMN m INT")
		offset.Add(int64(iv))
		cb.ExpectRows("SELECT n, m FROM d.t WHERE id = 1", "10\tNULL")
		ca.Exec("ALTER TABLE d.t DROP COLUMN m")
		offset.Add(int64(iv))
		cb.ExpectErrno(1054, "SELECT m FROM d.t WHERE id = 1")
	})
}
