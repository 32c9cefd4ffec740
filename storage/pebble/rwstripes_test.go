package pebble

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sqlgw/sqlgw/storage"
)

// TestGetRacesDDLAndClose: Gets, under their striped read lock, run
// while other goroutines create and delete tables and the store closes;
// each returns the entity, not found, or ErrClosed, and none reads the
// table map or the database while DDL or Close changes it (run with
// -race: a Get taking no lock is reported).
func TestGetRacesDDLAndClose(t *testing.T) {
	s, err := OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.CreateTable(ctx, "tab"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Insert(ctx, "tab", &storage.Entity{PartitionKey: "p", RowKey: "r", Properties: storage.Properties{"v": storage.Int64(1)}}); err != nil {
		t.Fatal(err)
	}
	// Every reader runs until its Get fails with ErrClosed, which each
	// one must see once the store is closed (a reader that stopped on a
	// flag set after Close could miss it: its last Get had begun before).
	// A failure before Close closes the store in the cleanup, so no
	// reader outlives the test.
	t.Cleanup(func() { _ = s.Close() })
	var found, closed atomic.Int64
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				table := "tab"
				if i%2 == 1 {
					table = fmt.Sprintf("del%d", g%2)
				}
				e, err := s.Get(ctx, table, "p", "r", &storage.GetOptions{Select: []string{"v"}})
				switch {
				case err == nil:
					if e.RowKey != "r" {
						t.Errorf("Get returned %+v", e)
						return
					}
					found.Add(1)
				case errors.Is(err, ErrClosed):
					closed.Add(1)
					return
				case errors.Is(err, storage.ErrNotFound):
				default:
					t.Errorf("Get: %v", err)
					return
				}
			}
		}()
	}
	for i := range 200 {
		name := fmt.Sprintf("del%d", i%2)
		if err := s.CreateTable(ctx, name); err != nil && !errors.Is(err, storage.ErrAlreadyExists) {
			t.Fatal(err)
		}
		if _, err := s.Insert(ctx, name, &storage.Entity{PartitionKey: "p", RowKey: "r"}); err != nil && !errors.Is(err, storage.ErrAlreadyExists) {
			t.Fatal(err)
		}
		if err := s.DeleteTable(ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if found.Load() == 0 || closed.Load() != 4 {
		t.Fatalf("found %d, closed %d (want >0 and 4)", found.Load(), closed.Load())
	}
}
