package admin

import (
	"context"
	"encoding/hex"
	"regexp"
	"strings"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"

	"github.com/sqlgw/sqlgw/sqlgw/sqltext"
)

// Prepared table maintenance statements (maintenance.go).
//
// Binary protocol: vitess parses a COM_STMT_PREPARE's text itself before
// the handler sees it, and its parser lacks CHECK, REPAIR, OPTIMIZE and
// CHECKSUM. The listener's connections (conn.go) therefore pass the
// text through adminPlaceholder, which replaces a table maintenance
// statement by a query vitess parses, carrying the original text:
// SELECT 'sqlgw-admin:<hex of the text>'. adminHandler's ComPrepare and
// ComStmtExecute recognize it and answer for the original statement.
//
// SQL PREPARE name FROM '<statement>': go-mysql-server parses the string
// when preparing, so adminHandler keeps such statements per connection
// itself and answers EXECUTE and DEALLOCATE PREPARE for them.

const adminPlaceholderPrefix = "SELECT 'sqlgw-admin:"

// adminPlaceholder returns the parseable stand-in for q if q is a table
// maintenance statement, else q.
func Placeholder(q string) string {
	if _, _, ok, _ := parseAdmin(q); !ok {
		return q
	}
	return adminPlaceholderPrefix + hex.EncodeToString([]byte(q)) + "'"
}

// adminFromPlaceholder returns the statement a placeholder stands for.
func adminFromPlaceholder(q string) (string, bool) {
	q = strings.TrimRight(strings.TrimSpace(q), ";")
	if !strings.HasPrefix(q, adminPlaceholderPrefix) || !strings.HasSuffix(q, "'") {
		return "", false
	}
	b, err := hex.DecodeString(q[len(adminPlaceholderPrefix) : len(q)-1])
	if err != nil {
		return "", false
	}
	return string(b), true
}

var (
	rePrepareFrom = regexp.MustCompile(`(?is)^\s*PREPARE\s+(` + "`[^`]+`" + `|[A-Za-z0-9_$]+)\s+FROM\s+('(?:[^'\\]|''|\\.)*'|"(?:[^"\\]|""|\\.)*")\s*;?\s*$`)
	reExecute     = regexp.MustCompile(`(?is)^\s*EXECUTE\s+(` + "`[^`]+`" + `|[A-Za-z0-9_$]+)\s*;?\s*$`)
	reDeallocate  = regexp.MustCompile(`(?is)^\s*(?:DEALLOCATE|DROP)\s+PREPARE\s+(` + "`[^`]+`" + `|[A-Za-z0-9_$]+)\s*;?\s*$`)
)

func stmtName(s string) string {
	return strings.ToLower(strings.Trim(s, "`"))
}

// interceptPrepared answers SQL PREPARE, EXECUTE and DEALLOCATE PREPARE of
// table maintenance statements; ok is false for anything else.
func (a *adminHandler) interceptPrepared(ctx context.Context, c *mysql.Conn, query string) (*sqltypes.Result, string, bool, error) {
	if m := rePrepareFrom.FindStringSubmatch(query); m != nil {
		name, text := stmtName(m[1]), sqltext.Unquote(m[2])
		_, _, isAdmin, err := parseAdmin(text)
		a.mu.Lock()
		defer a.mu.Unlock()
		if !isAdmin {
			delete(a.prepared[c.ConnectionID], name)
			return nil, "", false, nil
		}
		if err != nil {
			return nil, "", true, err
		}
		if a.prepared == nil {
			a.prepared = map[uint32]map[string]string{}
		}
		if a.prepared[c.ConnectionID] == nil {
			a.prepared[c.ConnectionID] = map[string]string{}
		}
		a.prepared[c.ConnectionID][name] = text
		return &sqltypes.Result{Info: "Statement prepared"}, "", true, nil
	}
	if m := reExecute.FindStringSubmatch(query); m != nil {
		a.mu.Lock()
		text, ok := a.prepared[c.ConnectionID][stmtName(m[1])]
		a.mu.Unlock()
		if !ok {
			return nil, "", false, nil
		}
		st, _, _, err := parseAdmin(text)
		if err != nil {
			return nil, "", true, err
		}
		res, err := a.run(ctx, c, st)
		return res, "", true, err
	}
	if m := reDeallocate.FindStringSubmatch(query); m != nil {
		name := stmtName(m[1])
		a.mu.Lock()
		_, ok := a.prepared[c.ConnectionID][name]
		delete(a.prepared[c.ConnectionID], name)
		a.mu.Unlock()
		if !ok {
			return nil, "", false, nil
		}
		return &sqltypes.Result{}, "", true, nil
	}
	return nil, "", false, nil
}
