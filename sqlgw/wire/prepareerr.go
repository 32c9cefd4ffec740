package wire

import (
	"errors"
	"regexp"

	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/sqlgw/mysqlerr"
)

// Syntax errors of COM_STMT_PREPARE
//
// vitess's connection parses a statement to prepare itself, before the
// handler sees it, and answers a parse error with 1105 (HY000) "unknown
// error: Code: INVALID_ARGUMENT\nsyntax error at position 13 near
// 'fro'\n". MySQL's is 1064 (42000), worded as for the same text sent as a
// query (mysqlerr's syntax.go). The connection keeps the text it handed to
// vitess (prepareText) and Write rewrites that one error packet. Upstream,
// the fix is vitess's Conn passing a prepare's parse error through the
// handler (or mapping vterrors' SyntaxError to 1064 itself).

var prepareSyntax = regexp.MustCompile(`(?m)syntax error at position \d+(?: near '.*')?$`)

// prepareError returns p with its ERR packet (sequence 1, the answer to
// COM_STMT_PREPARE) as MySQL's 1064 when it is vitess's parse error of
// the statement text q, else p unchanged.
func prepareError(p []byte, q string) []byte {
	n := int(p[0]) | int(p[1])<<8 | int(p[2])<<16
	if 4+n != len(p) || n < 9 || p[3] != 1 || p[4] != 0xff || int(p[5])|int(p[6])<<8 != mysql.ERUnknownError {
		return p
	}
	msg := string(p[13:])
	m := prepareSyntax.FindString(msg)
	if m == "" {
		return p
	}
	var se *mysql.SQLError
	if !errors.As(mysqlerr.TranslateStatement(mysql.NewSQLError(mysql.ERUnknownError, mysql.SSUnknownSQLState, "%s", m), q, "", nil), &se) || se.Num != mysql.ERParseError {
		return p
	}
	body := make([]byte, 0, 9+len(se.Message))
	body = append(body, 0xff, byte(se.Num), byte(se.Num>>8), '#')
	body = append(body, se.State...)
	body = append(body, se.Message...)
	out := make([]byte, 0, 4+len(body))
	out = append(out, byte(len(body)), byte(len(body)>>8), byte(len(body)>>16), 1)
	return append(out, body...)
}

// writePrepareAnswer writes p, the start of the answer to COM_STMT_PREPARE
// of text q, after the header held back: the error packet as MySQL's.
func (c *rewriteConn) writePrepareAnswer(p []byte, q string) (int, error) {
	c.wmu.Lock()
	hdr := c.prepareHdr
	c.prepareHdr = nil
	c.wmu.Unlock()
	out := p
	if hdr != nil {
		out = append(hdr, p...)
	}
	if q != "" && len(out) > 4 && out[4] == 0xff {
		out = prepareError(out, q)
	}
	if _, err := c.Conn.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}
