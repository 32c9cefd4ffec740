package pebble

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/sqlgw/sqlgw/storage"
)

func mustOpen(t *testing.T, dir string, opts *Options) *Store {
	t.Helper()
	s, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestReopenKeepsTablesAndEntities(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := mustOpen(t, dir, nil)
	if err := s.CreateTable(ctx, "KeptTable"); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateTable(ctx, "gone"+"Table"); err != nil {
		t.Fatal(err)
	}
	etag, err := s.Insert(ctx, "keptTABLE", &storage.Entity{PartitionKey: "p", RowKey: "r", Properties: storage.Properties{"v": storage.String("x")}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteTable(ctx, "goneTable"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "KeptTable", "p", "r", nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Get after Close: %v, want ErrClosed", err)
	}

	s = mustOpen(t, dir, nil)
	defer s.Close()
	tables, err := s.ListTables(ctx)
	if err != nil || len(tables) != 1 || tables[0] != "KeptTable" {
		t.Fatalf("tables after reopen: %q, %v", tables, err)
	}
	got, err := s.Get(ctx, "kepttable", "p", "r", nil)
	if err != nil || got.ETag != etag || !got.Properties["v"].Equal(storage.String("x")) {
		t.Fatalf("entity after reopen: %+v, %v", got, err)
	}
	// ETags stay unique across restarts, and table IDs are not reused.
	etag2, err := s.Update(ctx, "KeptTable", &storage.Entity{PartitionKey: "p", RowKey: "r"}, storage.Merge, etag)
	if err != nil || etag2 == etag {
		t.Fatalf("update after reopen: %q, %v", etag2, err)
	}
	if err := s.CreateTable(ctx, "goneTable"); err != nil {
		t.Fatal(err)
	}
	if s.tables["gonetable"].id <= s.tables["kepttable"].id+1 {
		t.Fatalf("table ID reused: %+v", s.tables)
	}
}

// crashAfterWrites writes n entities, simulates a crash (only synced data
// survives) and returns how many entities the reopened store holds.
func crashAfterWrites(t *testing.T, noSync bool, n int) int {
	ctx := context.Background()
	fs := vfs.NewCrashableMem()
	s := mustOpen(t, "db", &Options{FS: fs, NoSync: noSync})
	if err := s.CreateTable(ctx, "crash"); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if i%2 == 0 {
			if _, err := s.Insert(ctx, "crash", &storage.Entity{PartitionKey: "p", RowKey: fmt.Sprint(i)}); err != nil {
				t.Fatal(err)
			}
			continue
		}
		ops := []storage.Operation{{Kind: storage.OpUpsert, Entity: &storage.Entity{PartitionKey: "p", RowKey: fmt.Sprint(i)}}}
		if _, err := s.Batch(ctx, "crash", ops); err != nil {
			t.Fatal(err)
		}
	}
	crashed := fs.CrashClone(vfs.CrashCloneCfg{}) // nothing unsynced survives
	s.Close()

	s = mustOpen(t, "db", &Options{FS: crashed})
	defer s.Close()
	page, err := s.Query(ctx, "crash", &storage.Query{})
	if errors.Is(err, storage.ErrNotFound) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return len(page.Entities)
}

func TestWritesSurviveCrash(t *testing.T) {
	const n = 50
	if got := crashAfterWrites(t, false, n); got != n {
		t.Fatalf("%d of %d synced writes survived a crash", got, n)
	}
	// Control: the same writes without sync are lost, so the crash is real.
	if got := crashAfterWrites(t, true, n); got == n {
		t.Fatalf("all %d unsynced writes survived the simulated crash: the test cannot tell", n)
	}
}

func TestMergeOverLimits(t *testing.T) {
	ctx := context.Background()
	s, err := OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateTable(ctx, "merge"); err != nil {
		t.Fatal(err)
	}
	props := storage.Properties{}
	for i := range storage.MaxProperties {
		props[fmt.Sprintf("a%d", i)] = storage.Int32(1)
	}
	if _, err := s.Insert(ctx, "merge", &storage.Entity{PartitionKey: "p", RowKey: "r", Properties: props}); err != nil {
		t.Fatal(err)
	}
	_, err = s.Update(ctx, "merge", &storage.Entity{PartitionKey: "p", RowKey: "r", Properties: storage.Properties{"b": storage.Int32(1)}}, storage.Merge, "")
	if !errors.Is(err, storage.ErrTooLarge) {
		t.Fatalf("merge to 253 properties: %v, want ErrTooLarge", err)
	}
	// Overwriting existing properties by merge is fine.
	if _, err := s.Update(ctx, "merge", &storage.Entity{PartitionKey: "p", RowKey: "r", Properties: storage.Properties{"a1": storage.Int32(2)}}, storage.Merge, ""); err != nil {
		t.Fatal(err)
	}
}

func TestDeleteTableIsOneRangeDeletion(t *testing.T) {
	ctx := context.Background()
	s, err := OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, name := range []string{"big", "neighbour"} {
		if err := s.CreateTable(ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	for b := range 30 {
		ops := make([]storage.Operation, 100)
		for i := range ops {
			ops[i] = storage.Operation{Kind: storage.OpInsert, Entity: &storage.Entity{PartitionKey: "p", RowKey: fmt.Sprintf("%02d-%03d", b, i)}}
		}
		if _, err := s.Batch(ctx, "big", ops); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Insert(ctx, "neighbour", &storage.Entity{PartitionKey: "p", RowKey: "r"}); err != nil {
		t.Fatal(err)
	}
	id := s.tables["big"].id
	before := s.db.Metrics().WAL.BytesIn
	if err := s.DeleteTable(ctx, "big"); err != nil {
		t.Fatal(err)
	}
	// One range deletion and one point deletion: a few dozen WAL bytes,
	// where deleting 3,000 entities one by one would log tens of KiB.
	if n := s.db.Metrics().WAL.BytesIn - before; n == 0 || n > 200 {
		t.Fatalf("DeleteTable logged %d WAL bytes, want one small batch", n)
	}
	it, err := s.db.NewIter(nil)
	if err != nil {
		t.Fatal(err)
	}
	left := 0
	for it.First(); it.Valid(); it.Next() {
		if k := it.Key(); len(k) >= tablePrefixLen && k[0] == tagEntity && beU64(k[1:9]) == id {
			left++
		}
	}
	it.Close()
	if left != 0 {
		t.Fatalf("%d keys of the deleted table are still visible", left)
	}
	if _, err := s.Get(ctx, "neighbour", "p", "r", nil); err != nil {
		t.Fatalf("neighbour table lost its entity: %v", err)
	}
}

// TestFilteredScanDoesNotAllocatePerEntity checks that entities the filter
// drops are evaluated on their encoded bytes: the allocations of a query
// that examines 2,000 entities and returns none do not grow with them.
func TestFilteredScanDoesNotAllocatePerEntity(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under -race (race_on_test.go)")
	}
	ctx := context.Background()
	s, err := OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateTable(ctx, "scan"); err != nil {
		t.Fatal(err)
	}
	for b := range 20 {
		ops := make([]storage.Operation, 100)
		for i := range ops {
			ops[i] = storage.Operation{Kind: storage.OpInsert, Entity: &storage.Entity{PartitionKey: "p", RowKey: fmt.Sprintf("%02d-%03d", b, i),
				Properties: storage.Properties{"s": storage.String(fmt.Sprint("name", i)), "n": storage.Int64(int64(i)), "b": storage.Binary([]byte{1, 2, 3})}}}
		}
		if _, err := s.Batch(ctx, "scan", ops); err != nil {
			t.Fatal(err)
		}
	}
	q := &storage.Query{Partition: storage.Exactly("p"), Filter: storage.Or{
		storage.Eq("s", storage.String("nobody")),
		storage.And{storage.Gt("n", storage.Int64(1000)), storage.Ne(storage.PropRowKey, storage.String("x"))},
		storage.Eq("b", storage.Binary([]byte{9})),
	}}
	allocs := testing.AllocsPerRun(20, func() {
		page, err := s.Query(ctx, "scan", q)
		if err != nil || len(page.Entities) != 0 || page.Continuation != "" {
			t.Fatalf("query = %v, %v", page, err)
		}
	})
	if allocs > 40 {
		t.Fatalf("a filtered scan of 2,000 entities allocated %.0f times; filtered-out entities must not allocate", allocs)
	}
	t.Logf("%.0f allocations for a filtered scan of 2,000 entities", allocs)
}

// TestTokenSurvivesRestart resumes a query with a token stored before the
// store was closed and reopened.
func TestTokenSurvivesRestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := mustOpen(t, dir, nil)
	if err := s.CreateTable(ctx, "paged"); err != nil {
		t.Fatal(err)
	}
	ops := make([]storage.Operation, 50)
	for i := range ops {
		ops[i] = storage.Operation{Kind: storage.OpInsert, Entity: &storage.Entity{PartitionKey: "p", RowKey: fmt.Sprintf("r%02d", i)}}
	}
	if _, err := s.Batch(ctx, "paged", ops); err != nil {
		t.Fatal(err)
	}
	page, err := s.Query(ctx, "paged", &storage.Query{Top: 20})
	if err != nil || len(page.Entities) != 20 || page.Continuation == "" {
		t.Fatalf("first page: %v, %v", page, err)
	}
	token := page.Continuation
	s.Close()

	s = mustOpen(t, dir, nil)
	defer s.Close()
	page, err = s.Query(ctx, "paged", &storage.Query{Top: 100, Continuation: token})
	if err != nil || len(page.Entities) != 30 || page.Entities[0].RowKey != "r20" || page.Continuation != "" {
		t.Fatalf("resumed after restart: %d entities, first %v, token %q, %v", len(page.Entities), page.Entities[0].RowKey, page.Continuation, err)
	}
}
