package sqlgw_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"testing"

	sdk "github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/sqlgw/sqlgw/sqlgw"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/aztables/azurite"
)

// TestAttachedForeignSystemProperties: an attached table's entities are
// another application's data, whatever their property names and keys.
// Properties named like catalog/txn's versioning (_v a commit timestamp,
// _d a tombstone) and RowKeys in its history namespace (U+00FF 'h'), or
// above it (CJK), are read as they are, by a statement and inside a
// REPEATABLE READ transaction's snapshot. They were hidden (taken for a
// tombstone or a history entity), unreadable at a snapshot (a _v above it
// sent the read to a history that does not exist: 1213), stripped, and
// once a scan met the history-namespace key, every later scan was cut
// below it (the CJK row vanished).
func TestAttachedForeignSystemProperties(t *testing.T) {
	for _, b := range sqltest.Backends {
		t.Run(b.Name, func(t *testing.T) {
			store, co := b.Open(t)
			var seed seeder = storeSeeder{store}
			if b.Name == sqltest.Azurite.Name {
				svc, err := sdk.NewServiceClientFromConnectionString(azurite.Shared(t), nil)
				if err != nil {
					t.Fatal(err)
				}
				seed = sdkSeeder{svc}
			}
			tbl := fmt.Sprintf("Sys%08x", rand.Uint32())
			hist := "\u00ffhd 7fffffffffffffff 0000000000000001"
			seed.create(t, tbl)
			seed.put(t, tbl, "p", "d", storage.Properties{"_d": storage.Bool(true), "_v": storage.Int64(1), "Bal": storage.Int32(1)})
			seed.put(t, tbl, "p", "v", storage.Properties{"_d": storage.Bool(false), "_v": storage.Int64(1 << 40), "Bal": storage.Int32(2)})
			seed.put(t, tbl, "p", hist, storage.Properties{"_d": storage.Bool(true), "_v": storage.Int64(5), "Bal": storage.Int32(3)})
			seed.put(t, tbl, "p", "漢字", storage.Properties{"_d": storage.Bool(false), "_v": storage.Int64(0), "Bal": storage.Int32(4)})

			srv, err := sqlgw.NewServer(context.Background(), sqlgw.Config{
				Listen: "127.0.0.1:0", Catalog: co, Store: store,
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
				Attach: sqlgw.AttachConfig{Database: "azure", Scan: 10, Tables: []string{tbl}},
			})
			if err != nil {
				t.Fatal(err)
			}
			ts := sqltest.Serve(t, srv, "")
			c := sqltest.NewRunner(t, ts.Conn())
			c.Exec("USE azure")
			want := []string{"d\t1\t1\t1", "v\t0\t1099511627776\t2", hist + "\t1\t5\t3", "漢字\t0\t0\t4"}
			q := "SELECT RowKey, _d, _v, Bal FROM " + tbl + " ORDER BY Bal"
			for i := range 2 { // the second scan follows one that met the history-namespace key
				c.ExpectRows(q, want...)
				c.ExpectRows(fmt.Sprintf("SELECT Bal FROM %s WHERE PartitionKey = 'p' AND RowKey = '%s'", tbl, []string{"d", "v", hist, "漢字"}[i]), fmt.Sprint(i+1))
			}
			c.Exec("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ")
			c.Exec("START TRANSACTION WITH CONSISTENT SNAPSHOT")
			c.ExpectRows(q, want...)
			for i, rk := range []string{"d", "v", hist, "漢字"} {
				c.ExpectRows(fmt.Sprintf("SELECT _d, _v, Bal FROM %s WHERE PartitionKey = 'p' AND RowKey = '%s'", tbl, rk), want[i][len(rk)+1:])
			}
			c.ExpectRows("SELECT COUNT(*), SUM(Bal) FROM "+tbl+" WHERE RowKey >= '\u00ff'", "2\t7")
			c.Exec("COMMIT")
		})
	}
}
