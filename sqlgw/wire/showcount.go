package wire

import (
	"regexp"
	"strconv"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// SHOW COUNT(*) WARNINGS and SHOW COUNT(*) ERRORS
//
// MySQL's diagnostic statements that count the conditions of the previous
// statement (one row, column @@session.warning_count or
// @@session.error_count), without resetting the list. go-mysql-server's
// binder rejects them ("unsupported feature"); the connection handler
// answers them from the session's list instead (COM_QUERY text of that
// statement alone). Upstream: planbuilder.buildShowWarnings' CountStar.

var reShowCount = regexp.MustCompile(`(?is)^\s*show\s+count\s*\(\s*\*\s*\)\s+(warnings|errors)\s*;?\s*$`)

// showCount answers query if it is SHOW COUNT(*) WARNINGS or ERRORS.
func (h *Handler) showCount(c *mysql.Conn, query string, callback mysql.ResultSpoolFn) (handled bool, err error) {
	if len(query) > 64 {
		return false, nil
	}
	m := reShowCount.FindStringSubmatch(query)
	if m == nil {
		return false, nil
	}
	s := h.GW.Session(c.ConnectionID)
	if s == nil {
		return false, nil
	}
	errors := len(m[1]) == len("errors")
	n := 0
	for _, w := range s.Warnings() {
		if !errors || w.Level == "Error" {
			n++
		}
	}
	name := "@@session.warning_count"
	if errors {
		name = "@@session.error_count"
	}
	res := &sqltypes.Result{
		Fields: []*querypb.Field{{Name: name, Type: querypb.Type_UINT64, Charset: mysql.CharacterSetBinary,
			ColumnLength: 20, Flags: uint32(querypb.MySqlFlag_NOT_NULL_FLAG | querypb.MySqlFlag_UNSIGNED_FLAG | querypb.MySqlFlag_BINARY_FLAG)}},
		Rows: [][]sqltypes.Value{{sqltypes.MakeTrusted(querypb.Type_UINT64, []byte(strconv.Itoa(n)))}},
	}
	return true, callback(res, false)
}
