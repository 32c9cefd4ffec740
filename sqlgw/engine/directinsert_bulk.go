package engine

import (
	"context"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/planbuilder"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// Bulk INSERT ... VALUES (issue 13)
//
// A text INSERT too large for the plan cache (more than maxWriteText
// bytes: sysbench's prepare sends 1,000 rows a statement, mysqldump
// thousands) is not cached, but of the same shape (writeShape: INSERT
// [INTO] t [(cols)] VALUES of integer and string literals and NULL, no
// IGNORE, ON DUPLICATE KEY UPDATE or REPLACE) it is executed directly
// too: parsed here once (instead of by go-mysql-server), bound and
// analyzed as go-mysql-server does (as a cached write's build,
// buildWrite), and its plan run by runWrite, which executes it
// directly (directinsert.go). What that skips is the exec pipeline per
// row and its allocations; the parse and the binder's work stay. A text
// whose tuples are all plain literals (sysbench's, mysqldump's without
// escapes) is first offered to directinsert_values.go, which parses only
// its first tuple; this path takes what that one declines.
//
// A text is parsed here only if a scan of it (bulkInsertText) finds
// nothing but integers, quoted strings and NULL between the VALUES
// parentheses, so that go-mysql-server rarely parses a text again after
// this path declined it: only when the analyzed plan does not qualify
// (triggers, foreign keys, a table that is not sqlgw's, a binding
// warning or error, which the general path then reports).

// bulkInsert runs the text query directly if it is a large INSERT of the
// shape above; handled is false if the caller must run it the usual way.
func (f *FastLane) bulkInsert(ctx context.Context, c *mysql.Conn, s *Session, query string, callback func(*sqltypes.Result) error) (handled bool, err error) {
	if f.NoCache || f.NoDirect || len(query) <= maxWriteText {
		return false, nil
	}
	if handled, err := f.bulkValuesInsert(ctx, c, s, query, callback); handled { // directinsert_values.go
		return true, err
	}
	if !bulkInsertText(query) {
		return false, nil
	}
	sqlCtx, err := f.SessionManager.NewContextWithQuery(ctx, c, query)
	if err != nil {
		return false, nil
	}
	stmt, _, rest, err := f.Engine.Parser.Parse(sqlCtx, query, true)
	if err != nil || strings.TrimSpace(rest) != "" {
		return false, nil
	}
	ins, ok := stmt.(*sqlparser.Insert)
	if !ok {
		return false, nil
	}
	_, auth, nparams, counter, ok := writeShape(ins)
	if !ok || nparams != 0 || counter != "Com_insert" || !f.authorized(sqlCtx, &cachedPlan{auth: auth}) {
		return false, nil
	}
	analyzed, qFlags := f.bulkPlan(sqlCtx, ins, query, counter)
	if analyzed == nil {
		return false, nil
	}
	ii, ok := analyzed.(*plan.InsertInto)
	if !ok || ii.IsReplace || ii.Ignore || ii.OnDupExprs.HasUpdates() || len(ii.Returning) > 0 || ii.HasAfterTrigger {
		return false, nil
	}
	t := insertTarget(ii.Destination)
	if t == nil {
		return false, nil
	}
	if fks, err := t.GetDeclaredForeignKeys(sqlCtx); err != nil || len(fks) > 0 {
		return false, nil
	}
	if fks, err := t.GetReferencedForeignKeys(sqlCtx); err != nil || len(fks) > 0 {
		return false, nil
	}
	s.lastFromCache.Store(false)
	p := &cachedPlan{write: &writePlan{counter: counter, qFlags: *qFlags}}
	return true, f.runWrite(sqlCtx, c, query, p, ii, callback)
}

// bulkInsertText is a cheap look at a large text before it is parsed:
// INSERT, then, after the word VALUES, nothing outside quotes but digits,
// NULL, commas, parentheses and spaces.
func bulkInsertText(q string) bool {
	q = strings.TrimLeft(q, " \t\r\n")
	if len(q) < 7 || !strings.EqualFold(q[:6], "insert") || !isSpace(q[6]) {
		return false
	}
	// The head up to VALUES: no other quotes (a string there would hide
	// the word), at most a few hundred bytes.
	head := q
	if len(head) > 1024 {
		head = head[:1024]
	}
	v := -1
	for i := 0; i+6 <= len(head); i++ {
		if head[i] == '\'' || head[i] == '"' {
			return false
		}
		if strings.EqualFold(head[i:i+6], "values") {
			v = i + 6
			break
		}
	}
	if v < 0 {
		return false
	}
	for i := v; i < len(q); i++ {
		switch ch := q[i]; {
		case ch == '\'' || ch == '"':
			// A quoted string: '' or \' inside it does not end it.
			j := i + 1
			for ; j < len(q); j++ {
				if q[j] == '\\' {
					j++
					continue
				}
				if q[j] == ch {
					if j+1 < len(q) && q[j+1] == ch {
						j++
						continue
					}
					break
				}
			}
			if j >= len(q) {
				return false
			}
			i = j
		case ch >= '0' && ch <= '9', ch == ',', ch == '(', ch == ')', isSpace(ch), ch == ';':
		case ch == 'N' || ch == 'n':
			if i+4 > len(q) || !strings.EqualFold(q[i:i+4], "null") {
				return false
			}
			i += 3
		default:
			return false
		}
	}
	return true
}

func isSpace(ch byte) bool { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' }

// bulkPlan binds and analyzes the INSERT ins as go-mysql-server does, or
// returns nil if a binding warning or error, or a trigger, leaves it to
// the general path. The statement counter counter is left as it was:
// the binder counts the statement, the analyzer the INSERTs of the
// triggers it binds, and the statement is counted by whichever path
// runs it.
func (f *FastLane) bulkPlan(ctx *sql.Context, ins *sqlparser.Insert, query, counter string) (sql.Node, *sql.QueryFlags) {
	count0 := statusCount(ctx, counter)
	defer func() {
		if n := statusCount(ctx, counter) - count0; n != 0 {
			sql.IncrementStatusVariable(ctx, counter, -n)
		}
	}()
	binder := planbuilder.New(ctx, f.Engine.Analyzer.Catalog, f.Engine.EventScheduler)
	nprev := len(ctx.Session.Warnings())
	bound, qFlags, err := binder.BindOnly(ins, query, &sql.QueryFlags{})
	if err != nil || qFlags.IsSet(sql.QFlagTrigger) || len(ctx.Session.Warnings()) > nprev {
		return nil, nil
	}
	// As QueryWithBindings: the previous statement's warnings go.
	ctx.ClearWarnings()
	analyzed, err := f.Engine.Analyzer.Analyze(ctx, bound, nil, qFlags)
	if err != nil || qFlags.IsSet(sql.QFlagTrigger) {
		return nil, nil
	}
	return analyzed, qFlags
}

// statusCount is the session's value of the status counter name.
func statusCount(ctx *sql.Context, name string) int {
	v, err := ctx.Session.GetStatusVariable(ctx, name)
	if err != nil {
		return 0
	}
	switch n := v.(type) {
	case uint64:
		return int(n)
	case int64:
		return int(n)
	case int:
		return n
	case uint32:
		return int(n)
	case int32:
		return int(n)
	}
	return 0
}
