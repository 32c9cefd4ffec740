package wire

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/sqlgw/sqltext"
)

// max_execution_time
//
// go-mysql-server accepts the variable max_execution_time and its
// MAX_EXECUTION_TIME(N) optimizer hint and ignores both. sqlgw applies
// them as MySQL 8.0 does: a top-level SELECT (the statement's first
// keyword, after comments and opening parentheses, is SELECT, or WITH
// and the first keyword after its common table expressions is SELECT;
// UNIONs and subqueries are part of it; SELECT ... FOR UPDATE and
// SELECT ... INTO too) runs with a deadline of N milliseconds: N from
// the hint written right after that SELECT (SELECT /*+
// MAX_EXECUTION_TIME(N) */ ...) or, when there is none or N is 0, from
// the session's max_execution_time (0: no limit). INSERT ... SELECT,
// UPDATE, DELETE (WITH ... UPDATE/DELETE too), DDL, SET, SHOW and the
// rest are never limited. The deadline is put on the statement's
// context where the handler starts each text statement (ComQuery,
// ComMultiQuery) and each execution of a prepared statement
// (ComStmtExecute), so it reaches the plan cache's direct paths
// (engine.FastLane) and go-mysql-server's alike, which stop at the next
// check of the context as for KILL QUERY. A statement stopped by its
// deadline fails with 3024 ER_QUERY_TIMEOUT "Query execution was
// interrupted, maximum statement execution time exceeded" (HY000); a
// SELECT has written nothing and the session goes on. A SET_VAR(
// max_execution_time = N) hint is not read.
//
// Cost: the session's value is a field (engine/maxexec.go, kept when SET
// changes it); with no limit a statement reads that field and looks at
// its first bytes for SELECT and a /*+ comment, without allocating or
// reading the clock.

const erQueryTimeout = 3024 // ER_QUERY_TIMEOUT

func errQueryTimeout() error {
	return mysql.NewSQLError(erQueryTimeout, "HY000", "Query execution was interrupted, maximum statement execution time exceeded")
}

// executionLimit returns ctx with the deadline of statement query of
// connection c (see above), and the function releasing it; cancel is nil
// and ctx unchanged when the statement has no limit.
func (h *Handler) executionLimit(ctx context.Context, c *mysql.Conn, query string) (context.Context, context.CancelFunc) {
	end, ok := topSelect(query)
	if !ok {
		return ctx, nil
	}
	ms := selectHintLimit(query, end)
	if ms <= 0 {
		if s := h.GW.Session(c.ConnectionID); s != nil {
			ms = s.MaxExecutionTime()
		}
	}
	if ms <= 0 {
		return ctx, nil
	}
	return context.WithTimeout(ctx, time.Duration(min(ms, int64(1<<62)/int64(time.Millisecond)))*time.Millisecond)
}

// topSelect reports whether query is a SELECT: its first keyword (after
// white space, comments and opening parentheses) is SELECT, or WITH and
// the statement after the WITH clause is a SELECT; and where that SELECT
// keyword ends.
func topSelect(q string) (end int, ok bool) {
	i := 0
	for {
		i = sqltext.SkipSpace(q, i)
		if i < len(q) && q[i] == '(' {
			i++
			continue
		}
		break
	}
	if end, ok := keywordAt(q, i, "select"); ok {
		return end, true
	}
	if end, ok := keywordAt(q, i, "with"); ok {
		return withSelect(q, end)
	}
	return 0, false
}

// keywordAt reports whether the word kw (lower case) is at q[i:], and
// where it ends.
func keywordAt(q string, i int, kw string) (end int, ok bool) {
	if len(q)-i < len(kw) || !strings.EqualFold(q[i:i+len(kw)], kw) {
		return 0, false
	}
	end = i + len(kw)
	if end < len(q) && sqltext.IsIdentByte(q[end]) {
		return 0, false
	}
	return end, true
}

// withVerbs are the statements other than SELECT a WITH clause may
// start.
var withVerbs = [...]string{"update", "delete", "insert", "replace", "table", "values"}

// withSelect finds the statement after a WITH clause (from i, after
// WITH): the first keyword outside parentheses (the common table
// expressions' bodies and column lists) that starts a statement. It
// reports whether that is SELECT, and where it ends.
func withSelect(q string, i int) (end int, ok bool) {
	depth := 0
	for {
		i = sqltext.SkipSpace(q, i)
		if i >= len(q) {
			return 0, false
		}
		switch c := q[i]; {
		case c == '(':
			depth++
			i++
		case c == ')':
			depth--
			i++
		case c == '\'' || c == '"' || c == '`':
			i = sqltext.QuotedEnd(q, i)
		case sqltext.IsIdentByte(c):
			j := i
			for j < len(q) && sqltext.IsIdentByte(q[j]) {
				j++
			}
			if depth == 0 {
				w := q[i:j]
				if strings.EqualFold(w, "select") {
					return j, true
				}
				for _, verb := range withVerbs {
					if strings.EqualFold(w, verb) {
						return 0, false
					}
				}
			}
			i = j
		default:
			i++
		}
	}
}

// selectHintLimit returns N of a MAX_EXECUTION_TIME(N) hint in the
// optimizer hint comment (/*+ ... */) that follows the SELECT keyword
// ending at end, or 0 (none, or malformed: MySQL ignores it with a
// warning).
func selectHintLimit(q string, end int) int64 {
	i := end
	for i < len(q) && sqltext.IsBlank(q[i]) {
		i++
	}
	if !strings.HasPrefix(q[i:], "/*+") {
		return 0
	}
	body := q[i+3:]
	if j := strings.Index(body, "*/"); j >= 0 {
		body = body[:j]
	}
	const name = "max_execution_time"
	for k := 0; k+len(name) <= len(body); k++ {
		if !strings.EqualFold(body[k:k+len(name)], name) || k > 0 && sqltext.IsIdentByte(body[k-1]) {
			continue
		}
		p := sqltext.SkipBlanks(body, k+len(name))
		if p >= len(body) || body[p] != '(' {
			return 0
		}
		p = sqltext.SkipBlanks(body, p+1)
		var n int64
		digits := 0
		for ; p < len(body) && body[p] >= '0' && body[p] <= '9' && digits < 18; p++ {
			n = n*10 + int64(body[p]-'0')
			digits++
		}
		p = sqltext.SkipBlanks(body, p)
		if digits == 0 || p >= len(body) || body[p] != ')' {
			return 0
		}
		return n
	}
	return 0
}

// timedOut returns 3024 if err is the context error of a statement
// whose deadline passed (ctx, from executionLimit), else nil.
func timedOut(ctx context.Context, err error) error {
	if err == nil || ctx == nil || ctx.Err() != context.DeadlineExceeded || !isContextError(err) {
		return nil
	}
	return errQueryTimeout()
}

// isContextError reports whether err is a cancelled or expired context,
// as an error or in the text of go-mysql-server's 1105.
func isContextError(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var se *mysql.SQLError
	return errors.As(err, &se) && se.Num == mysql.ERUnknownError &&
		(strings.Contains(se.Message, context.Canceled.Error()) || strings.Contains(se.Message, context.DeadlineExceeded.Error()))
}
