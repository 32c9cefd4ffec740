//go:build enginetest

package enginetest

import (
	"testing"

	"github.com/dolthub/go-mysql-server/enginetest"
)

// TestForeignKeys is go-mysql-server's foreign key suite on sqlgw
// (sqlgw/engine/foreignkeys.go). Its shared setup's secondary indexes are created
// (the parent's indexes are what the constraints reference).
func TestForeignKeys(t *testing.T) {
	h := newHarness(t)
	h.be.indexes, h.be.foreignKeys = true, true
	enginetest.TestForeignKeys(t, h)
}
