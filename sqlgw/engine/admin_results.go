package engine

import (
	"fmt"

	"github.com/dolthub/vitess/go/sqltypes"
)

// Table maintenance results
//
// CHECK, REPAIR, ANALYZE and REFRESH TABLE run in the engine (check_repair_table.go,
// attached.go) and answer with MySQL's Table/Op/Msg_type/Msg_text rows; the
// statement interceptor parses the statement and writes the rows.

// adminOp is one table maintenance statement kind; its string is MySQL's
// Op column.
type AdminOp string

const (
	OpCheck    AdminOp = "check"
	OpRepair   AdminOp = "repair"
	OpOptimize AdminOp = "optimize"
	OpAnalyze  AdminOp = "analyze"
	OpChecksum AdminOp = "checksum"
	// opRefresh is sqlgw's REFRESH TABLE: infer an attached table's
	// columns again, or attach a store table (attached.go).
	OpRefresh AdminOp = "refresh"
)

// adminTable is one table named by a statement; db is "" when unqualified.
type AdminTable struct{ DB, Name string }

// adminResult accumulates the rows of a result set.
type AdminResult struct {
	Rows [][]sqltypes.Value
}

func (r *AdminResult) Add(table string, op AdminOp, typ, text string) {
	r.Rows = append(r.Rows, []sqltypes.Value{sqltypes.NewVarChar(table), sqltypes.NewVarChar(string(op)),
		sqltypes.NewVarChar(typ), sqltypes.NewVarChar(text)})
}

// Qualified is "db.name" as MySQL's Table column shows it.
func (t AdminTable) Qualified() string { return fmt.Sprintf("%s.%s", t.DB, t.Name) }
