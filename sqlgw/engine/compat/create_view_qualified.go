package compat

import (
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// FixViewQualifier makes CREATE [OR REPLACE] VIEW db.v ... create the view
// in db. The parser puts the qualified name in ViewSpec.ViewName, while
// go-mysql-server's builder takes the database from DDL.Table, which stays
// empty: without a current database the statement failed with "no database
// selected", and with one the view went to the current database instead
// of db.
func FixViewQualifier(st ast.Statement) {
	d, ok := st.(*ast.DDL)
	if !ok || d == nil || d.ViewSpec == nil || d.Action != ast.CreateStr {
		return
	}
	if d.Table.DbQualifier.IsEmpty() && !d.ViewSpec.ViewName.DbQualifier.IsEmpty() {
		d.Table.DbQualifier = d.ViewSpec.ViewName.DbQualifier
	}
}
