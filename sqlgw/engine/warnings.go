package engine

import (
	"errors"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/sqlgw/mysqlerr"
)

// Warn implements sql.Session: INSERT IGNORE and UPDATE IGNORE turn a
// foreign key violation into a warning, which MySQL words (and levels)
// like the error.
func (s *Session) Warn(w *sql.Warning) {
	if w != nil && (w.Code == mysql.ErNoReferencedRow2 || w.Code == mysql.ERRowIsReferenced2) {
		db := s.GetCurrentDatabase()
		if err := mysqlerr.ForeignKey(mysql.NewSQLError(w.Code, "23000", "%s", w.Message), db, s.GW.Catalog); err != nil {
			var se *mysql.SQLError
			if errors.As(err, &se) && se.Message != w.Message {
				w = &sql.Warning{Level: "Warning", Code: w.Code, Message: se.Message}
			}
		}
	}
	if w != nil && w.Code == mysql.ERDupEntry {
		w = dupEntryWarning(w) // editor.go
	}
	s.BaseSession.Warn(w)
}
