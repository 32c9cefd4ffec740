package compat

import (
	"github.com/dolthub/go-mysql-server/sql"
)

// MySQL80DefaultSQLMode is MySQL 8.0's default @@sql_mode.
const MySQL80DefaultSQLMode = "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"

// The default sql_mode (twelfth session)
//
// go-mysql-server's default sql_mode is
// NO_ENGINE_SUBSTITUTION,ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES; MySQL
// 8.0's also has NO_ZERO_IN_DATE, NO_ZERO_DATE and
// ERROR_FOR_DIVISION_BY_ZERO. sqlgw stores the zero date where the mode
// allows it (engine/zerodate.go), so with go-mysql-server's default
// INSERT ... '0000-00-00' would store a row MySQL rejects with 1292. The
// variable keeps go-mysql-server's definition with MySQL's default value
// (SELECT @@sql_mode, SET sql_mode = DEFAULT, new sessions).
// ERROR_FOR_DIVISION_BY_ZERO is shown as MySQL shows it; go-mysql-server
// does not act on it (division by zero is NULL without an error, as in
// MySQL with the mode off; docs/compatibility.md).
func init() {
	sv, _, ok := sql.SystemVariables.GetGlobal("sql_mode")
	if !ok {
		return
	}
	msv, ok := sv.(*sql.MysqlSystemVariable)
	if !ok {
		return
	}
	def := *msv
	def.Default = MySQL80DefaultSQLMode
	sql.SystemVariables.AddSystemVariables([]sql.SystemVariable{&def})
}
