//go:build enginetest

package enginetest

import (
	"testing"

	"github.com/dolthub/go-mysql-server/enginetest"
	"github.com/dolthub/go-mysql-server/enginetest/queries"
	"github.com/dolthub/go-mysql-server/enginetest/scriptgen/setup"
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

// Beyond the required suites: the statements sqlgw implements itself
// (writes, DDL, transactions) and the ones clients lean on.

func TestInsertIgnoreInto(t *testing.T)   { enginetest.TestInsertIgnoreInto(t, newHarness(t)) }
func TestInsertIntoErrors(t *testing.T)   { enginetest.TestInsertIntoErrors(t, newHarness(t)) }
func TestReplaceInto(t *testing.T)        { enginetest.TestReplaceInto(t, newHarness(t)) }
func TestUpdateIgnore(t *testing.T)       { enginetest.TestUpdateIgnore(t, newHarness(t)) }
func TestUpdateErrors(t *testing.T)       { enginetest.TestUpdateErrors(t, newHarness(t)) }
func TestDeleteErrors(t *testing.T)       { enginetest.TestDeleteErrors(t, newHarness(t)) }
func TestDropTable(t *testing.T)          { enginetest.TestDropTable(t, newHarness(t)) }
func TestRenameTable(t *testing.T)        { enginetest.TestRenameTable(t, newHarness(t)) }
func TestModifyColumn(t *testing.T)       { enginetest.TestModifyColumn(t, newHarness(t)) }
func TestDropColumn(t *testing.T)         { enginetest.TestDropColumn(t, newHarness(t)) }
func TestCreateDatabase(t *testing.T)     { enginetest.TestCreateDatabase(t, newHarness(t)) }
func TestDropDatabase(t *testing.T)       { enginetest.TestDropDatabase(t, newHarness(t)) }
func TestInfoSchema(t *testing.T)         { enginetest.TestInfoSchema(t, newHarness(t)) }
func TestOrderByGroupBy(t *testing.T)     { enginetest.TestOrderByGroupBy(t, newHarness(t)) }
func TestWindowFunctions(t *testing.T)    { enginetest.TestWindowFunctions(t, newHarness(t)) }
func TestNullRanges(t *testing.T)         { enginetest.TestNullRanges(t, newHarness(t)) }
func TestBlobs(t *testing.T)              { enginetest.TestBlobs(t, newHarness(t)) }
func TestPreparedStatements(t *testing.T) { enginetest.TestPreparedStatements(t, newHarness(t)) }
func TestQueriesPrepared(t *testing.T)    { enginetest.TestQueriesPrepared(t, newHarness(t)) }

// TestTransactionScripts is enginetest.TestTransactionScripts, except that
// the skip list can name a whole script: go-mysql-server asks
// SkippingHarness only about a transaction script's statements.
func TestTransactionScripts(t *testing.T) {
	h := newHarness(t)
	for _, script := range queries.TransactionTests {
		if reason := h.skips.match(h.top, script.Name); reason != "" {
			t.Run(script.Name, func(t *testing.T) { t.Skip(reason) })
			continue
		}
		enginetest.TestTransactionScript(t, h, script)
	}
}

// Some go-mysql-server suites mix scripts with hand-written subtests that do
// not consult SkippingHarness, so a failing one could not be skipped with a
// reason. These run the suites' script lists only, through scripts below;
// the hand-written parts (TestTruncate, TestPkOrdinalsDML, the rest of
// TestCreateTable, TestAddColumn and TestColumnDefaults) are not run.

func TestCreateTable(t *testing.T) {
	h := newHarness(t)
	h.Setup(setup.MydbData, setup.MytableData, setup.FooData)
	for _, tt := range queries.CreateTableQueries {
		t.Run(tt.WriteQuery, func(t *testing.T) {
			if reason := h.skips.match(h.top, tt.WriteQuery); reason != "" {
				t.Skip(reason)
			}
			enginetest.RunWriteQueryTest(t, h, tt)
		})
	}
	scripts(t, h, queries.CreateTableScriptTests)
	scripts(t, h, queries.CreateTableInSubroutineTests)
	scripts(t, h, queries.CreateTableAutoIncrementTests)
}

// TestAddColumn's scripts build on each other: one engine runs them all.
func TestAddColumn(t *testing.T) {
	h := newHarness(t)
	h.Setup(setup.MydbData, setup.MytableData)
	e, err := h.NewEngine(t)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, script := range queries.AddColumnScripts {
		if reason := h.skips.match(h.top, script.Name); reason != "" {
			t.Run(script.Name, func(t *testing.T) { t.Skip(reason) })
			continue
		}
		enginetest.TestScriptWithEngine(t, e, h, script)
	}
}

func TestColumnDefaults(t *testing.T) {
	h := newHarness(t)
	h.Setup(setup.MydbData)
	scripts(t, h, queries.ColumnDefaultTests)
}

// scripts runs script tests on fresh engines from the harness's current
// setup, skipping whole scripts the skip list names.
func scripts(t *testing.T, h *harness, list []queries.ScriptTest) {
	for _, script := range list {
		if reason := h.skips.match(h.top, script.Name); reason != "" {
			t.Run(script.Name, func(t *testing.T) { t.Skip(reason) })
			continue
		}
		enginetest.TestScript(t, h, script)
	}
}
