package sqlgw_test

import (
	"testing"

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
