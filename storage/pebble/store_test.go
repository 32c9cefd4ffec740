package pebble

import (
	"testing"

	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/storagetest"
)

func TestConformanceMemory(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Store {
		s, err := OpenMemory()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

func TestConformanceDisk(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Store {
		s, err := Open(t.TempDir(), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// TestConformanceShortPages runs the suite with pages cut after a few
// examined entities, as the Table service cuts them after 5 seconds: pages
// are short or empty while a continuation token is returned.
func TestConformanceShortPages(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Store {
		s, err := Open("", &Options{InMemory: true, MaxScanPerPage: 7})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// TestConformanceCosmosLimits runs the suite with the Cosmos DB Table API's
// stricter key limits (255 bytes), as a store configured for it would.
func TestConformanceCosmosLimits(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Store {
		s, err := Open("", &Options{InMemory: true, Limits: &storage.CosmosLimits})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}
