package sqlgw_test

// The tests of this package use the end-to-end harness, sqlgw/sqltest,
// directly (sqltest.ForEachBackend, sqltest.Start, sqltest.NewRunner,
// Server.Session, Runner.Script). This file holds TestMain and the few
// helpers the package's tests share beyond the harness: index recovery
// after a crash, the catalog record of a table (storeTable) and DDL hook
// windows.

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/catalog/ixmaint"
	txnrec "github.com/sqlgw/sqlgw/catalog/txn"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage"
)

func TestMain(m *testing.M) { os.Exit(sqltest.Main(m)) }

// txnView is store as the gateway reads it: catalog/txn's view, which
// resolves locks and hides the versions, history entities and tombstones
// kept on a store without snapshots (catalog/txn, "Isolation"); index
// checks and recoveries of a test run through it, as the gateway's do.
func txnView(t *testing.T, store storage.Store, co catalog.Options) storage.Store {
	t.Helper()
	cat, err := catalog.Open(context.Background(), store, co)
	if err != nil {
		t.Fatal(err)
	}
	return txnrec.Wrap(store, strings.TrimSuffix(cat.CatalogTable(), "catalog")+"txn", txnrec.Options{})
}

// recoverIndexes runs what a gateway's start-up recovery runs once the
// crashed gateway's leases have expired: transaction recovery (catalog/txn:
// records finished or aborted, their locks resolved, index entities of a
// record included), then index recovery (ixmaint) on table db.name of
// store; it returns what ixmaint.Check then finds wrong with its indexes.
func recoverIndexes(t *testing.T, store storage.Store, db, name string) ([]ixmaint.Mismatch, error) {
	t.Helper()
	ctx := context.Background()
	cat := sqltest.OpenCatalog(t, store, catalog.Options{})
	txs := txnrec.Wrap(store, strings.TrimSuffix(cat.CatalogTable(), "catalog")+"txn",
		txnrec.Options{Now: func() time.Time { return time.Now().Add(time.Hour) }})
	if _, err := txs.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	tbl, err := cat.Table(ctx, db, name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (&ixmaint.Maintainer{Store: txs}).Recover(ctx, tbl, true); err != nil {
		t.Fatal(err)
	}
	return ixmaint.Check(ctx, txs, tbl)
}

// staleGateway starts another gateway on store whose catalog never
// refreshes on its own: it keeps the definitions it has cached, as a
// gateway that has not yet seen another's DDL.
func staleGateway(t *testing.T, store storage.Store, co catalog.Options) *sqltest.Runner {
	t.Helper()
	co.RefreshInterval = 1 << 40
	return sqltest.NewRunner(t, sqltest.Start(t, store, sqltest.Options{Catalog: co}).Conn())
}

// inWindow runs body with a test hook of a DDL statement (set installs it,
// as sqlgw.SetNarrowVerifiedHook does) that runs q on w the first time it
// fires: a write or DDL change landing inside the statement's window. The
// hook is removed when body returns.
func inWindow(t *testing.T, set func(func()) (restore func()), w sqltest.Execer, q string, body func()) {
	t.Helper()
	var once sync.Once
	restore := set(func() { once.Do(func() { sqltest.NewRunner(t, w).Exec(q) }) })
	defer restore()
	body()
}
