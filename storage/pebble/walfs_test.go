package pebble

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/storage"
)

// TestWALZeroAhead: a store on disk writes its new log with zeros ahead of
// the data (walfs.go), not preallocated with fallocate (whose file keeps
// the size of its data); and a copy of the directory taken while the store
// is open (a crash image: every synced commit in the log, the memtable
// never flushed, zeros after the last record) opens with every entity.
func TestWALZeroAhead(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := mustOpen(t, dir, nil)
	defer s.Close()
	if err := s.CreateTable(ctx, "zeroed"); err != nil {
		t.Fatal(err)
	}
	const n = 300
	for i := range n {
		v := strings.Repeat("v", 4000+i) // 1.3 MB in all: past the first zeroed MiB
		if _, err := s.Insert(ctx, "zeroed", &storage.Entity{PartitionKey: "p", RowKey: fmt.Sprintf("r%04d", i),
			Properties: storage.Properties{"v": storage.String(v)}}); err != nil {
			t.Fatal(err)
		}
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	if len(logs) == 0 {
		t.Fatal("no log file")
	}
	for _, l := range logs {
		fi, err := os.Stat(l)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() < walZeroAhead || fi.Size()%walZeroAhead != 0 {
			t.Errorf("log %s is %d bytes: not written ahead to a multiple of %d", filepath.Base(l), fi.Size(), walZeroAhead)
		}
	}

	img := t.TempDir()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() || e.Name() == "LOCK" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(img, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := mustOpen(t, img, nil)
	defer c.Close()
	for i := range n {
		e, err := c.Get(ctx, "zeroed", "p", fmt.Sprintf("r%04d", i), nil)
		if err != nil {
			t.Fatalf("row %d after reopening the crash image: %v", i, err)
		}
		if got := e.Properties["v"].Str(); got != strings.Repeat("v", 4000+i) {
			t.Fatalf("row %d after reopening the crash image: %d bytes", i, len(got))
		}
	}
	// And it goes on writing.
	if _, err := c.Insert(ctx, "zeroed", &storage.Entity{PartitionKey: "p", RowKey: "after"}); err != nil {
		t.Fatal(err)
	}
}
