package wire

import (
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
)

// ROW_COUNT() after any statement
//
// MySQL's ROW_COUNT() is what the previous statement's OK packet said it
// affected (my_ok sets both), and -1 after a statement that returned a
// result set: 1 after CREATE DATABASE, the OK packet's count after DROP
// DATABASE (go-mysql-server's 1, sqlgw/engine/okcounts.go), 0 after SET, BEGIN, COMMIT, USE, CREATE TABLE, DROP TABLE,
// TRUNCATE, CREATE INDEX. go-mysql-server keeps its own value, right for
// INSERT, UPDATE and DELETE but -1 after SET, BEGIN and USE, 0 after
// CREATE DATABASE. The row-count step (result_steps.go) and stmtExecution
// set it from the answer the client is sent, over both protocols.

// rowCounter notes the ROW_COUNT() of the statement whose results pass
// it: the OK packet's affected rows, or -1 once a result set passed.
type rowCounter struct {
	resultSet bool
}

// note sets the ROW_COUNT() of c's session from res.
func (r *rowCounter) note(h *Handler, c *mysql.Conn, res *sqltypes.Result) {
	if res == nil || r.resultSet {
		return
	}
	s := h.GW.Session(c.ConnectionID)
	if s == nil {
		return
	}
	if len(res.Fields) > 0 {
		r.resultSet = true
		s.GetLastQueryInfo().RowCount.Store(-1)
		return
	}
	s.GetLastQueryInfo().RowCount.Store(int64(res.RowsAffected))
}

// rowCountResults is the row-count step's callback in front of next.
func (h *Handler) rowCountResults(c *mysql.Conn, next mysql.ResultSpoolFn) mysql.ResultSpoolFn {
	var r rowCounter
	return func(res *sqltypes.Result, more bool) error {
		r.note(h, c, res)
		return next(res, more)
	}
}
