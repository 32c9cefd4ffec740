//go:build enginetest

package enginetest

import (
	"testing"

	"github.com/dolthub/go-mysql-server/enginetest"
	_ "github.com/dolthub/go-mysql-server/sql/variables" // system variables the suites read
)

// The suites the gateway issue requires. Each runs go-mysql-server's test
// cases unchanged through the harness; testdata/skips.txt says what is
// skipped and why.

func TestQueries(t *testing.T)     { enginetest.TestQueries(t, newHarness(t)) }
func TestJoinQueries(t *testing.T) { enginetest.TestJoinQueries(t, newHarness(t)) }
func TestInsertInto(t *testing.T)  { enginetest.TestInsertInto(t, newHarness(t)) }
func TestUpdate(t *testing.T)      { enginetest.TestUpdate(t, newHarness(t)) }
func TestDelete(t *testing.T)      { enginetest.TestDelete(t, newHarness(t)) }
func TestScripts(t *testing.T)     { enginetest.TestScripts(t, newHarness(t)) }
func TestIndexes(t *testing.T)     { enginetest.TestIndexes(t, newHarness(t)) }
