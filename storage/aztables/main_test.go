package aztables_test

import (
	"context"
	"os"
	"testing"

	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/aztables"
	"github.com/sqlgw/sqlgw/storage/aztables/azurite"
	"github.com/sqlgw/sqlgw/storage/storagetest"
)

// One Azurite serves every test of this package.
func TestMain(m *testing.M) { os.Exit(azurite.Main(m)) }

// open returns a Store on the shared Azurite, closed when t ends.
func open(t testing.TB, opts *aztables.Options) *aztables.Store {
	t.Helper()
	s, err := aztables.Open(context.Background(), azurite.Shared(t), opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Store { return open(t, nil) })
}
