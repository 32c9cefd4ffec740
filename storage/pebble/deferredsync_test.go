package pebble

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/sqlgw/sqlgw/storage"
)

// crashAfterDeferred writes n entities under storage.WithDeferredSync
// (half by Batch, half by MultiBatch), then optionally a sync barrier,
// simulates a crash and returns how many entities survived.
func crashAfterDeferred(t *testing.T, barrier bool, n int) int {
	ctx := context.Background()
	dctx := storage.WithDeferredSync(ctx)
	fs := vfs.NewCrashableMem()
	s := mustOpen(t, "db", &Options{FS: fs})
	if err := s.CreateTable(ctx, "deferred"); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		op := storage.Operation{Kind: storage.OpInsert, Entity: &storage.Entity{PartitionKey: fmt.Sprint(i), RowKey: "r"}}
		var err error
		if i%2 == 0 {
			_, err = s.Batch(dctx, "deferred", []storage.Operation{op})
		} else {
			_, err = s.MultiBatch(dctx, []storage.TableBatch{{Table: "deferred", Ops: []storage.Operation{op}}})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if barrier {
		if _, err := s.MultiBatch(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	crashed := fs.CrashClone(vfs.CrashCloneCfg{}) // nothing unsynced survives
	s.Close()
	s = mustOpen(t, "db", &Options{FS: crashed})
	defer s.Close()
	page, err := s.Query(ctx, "deferred", &storage.Query{})
	if errors.Is(err, storage.ErrNotFound) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return len(page.Entities)
}

// TestDeferredSyncBarrier: writes under WithDeferredSync are not synced
// by themselves (a crash loses them), and MultiBatch with no batches makes
// every one of them durable.
func TestDeferredSyncBarrier(t *testing.T) {
	const n = 40
	if got := crashAfterDeferred(t, false, n); got == n {
		t.Fatalf("all %d deferred writes survived a crash without a barrier: they were synced", n)
	}
	if got := crashAfterDeferred(t, true, n); got != n {
		t.Fatalf("%d of %d deferred writes survived a crash after the barrier", got, n)
	}
}
