package engine

import (
	"context"
	"strconv"
	"strings"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// Plan cache of text statements (issue 13)
//
// A text statement (COM_QUERY) is served from the same per-session plan
// cache as prepared statements (plancache.go), per normalized shape, as
// TiDB's non-prepared plan cache and Vitess's plan cache do: the statement
// is parsed with the session's parser options, and the literals its WHERE
// compares with columns (col = 5, 'a' < col, col IN (1, 2), col BETWEEN 1
// AND 9: integer and string literals only) become parameters :v1, :v2, ...
// bound to exactly those literals. The normalized statement, rendered, is
// the shape's cache key, together with the text of each select expression
// as written (the result columns' names); the shape's plan is built,
// checked and cached as for a prepared statement whose parameters carry
// the literals, and later statements of the shape run from it, directly
// where the plan allows (direct.go). A literal gives the binder the same
// input either way: go-mysql-server's binder turns a parameter's value
// into the expression the parser makes of the literal (sqlparser
// ExprFromValue: an integer stays an IntVal with the same digits, a string
// a StrVal with the same bytes), and the plan cache converts it as the
// binder does (planbuilder ConvertVal). Literals of other kinds (hex, bit,
// floats, decimals, dates, NULL, introducers, COLLATE, negative numbers)
// stay literals, and a statement with one in a compared position is not of
// a cacheable shape: it runs through go-mysql-server as before.
//
// Only a text that holds one statement is taken; a statement the cache
// does not take is parsed twice (here and by go-mysql-server), so texts
// that do not start with SELECT or have no WHERE are not parsed here, and
// a text whose shape did not qualify is remembered as such per session.
//
// A SELECT text of a shape the session has seen before skips that parse:
// a lexer finds its integer and string literals, the text without their
// values is its shape, and the session remembers which literal became
// which parameter of the shape's key (textshape.go). Such a text binds
// its literals and runs the cached plans of the key; when they cannot run
// (the plan must be built or was made stale by DDL), or the text does not
// fit the shape exactly, it takes the parse below, unchanged.
//
// The status counters and Last_plan_from_cache count text statements as
// they count executes (session.go).

// textKeyPrefix separates text shapes from prepared statement texts in a
// session's plan cache.
const textKeyPrefix = "\x00text\x00"

// maxTextNot bounds the texts a session remembers as not cacheable.
const maxTextNot = 1024

// Query runs the text statement query through the plan cache if its shape
// qualifies, as StmtExecute does for an execute: handled is false if the
// caller must run it the usual way, then with the returned capture
// callback, and must call done with the outcome.
func (f *FastLane) Query(ctx context.Context, c *mysql.Conn, query string, callback func(*sqltypes.Result) error) (handled bool, capture func(func(*sqltypes.Result) error) func(*sqltypes.Result) error, done func(error), err error) {
	if f == nil || f.SessionManager == nil {
		return false, noCapture, func(error) {}, nil
	}
	s := f.GW.Session(c.ConnectionID)
	if s == nil {
		return false, noCapture, func(error) {}, nil
	}
	uncached := s.notFromCache()
	// SET_VAR hints (setvarhint.go).
	s.earlyHints(ctx, query)
	if handled, err := f.selectLimit(ctx, c, s, query, nil, nil, callback); handled { // selectlimit.go
		return true, noCapture, nil, err
	}
	if handled, err := f.bulkInsert(ctx, c, s, query, callback); handled { // directinsert_bulk.go
		return true, noCapture, nil, err
	}
	if f.NoCache || f.NoText || s.plans.textNot(query) {
		return false, noCapture, uncached, nil
	}
	if maybeDualText(query) {
		return f.dualQuery(ctx, c, s, query, callback) // dualcache.go
	}
	if !maybeCacheableText(query) {
		return false, noCapture, uncached, nil
	}
	// (querycontext.go)
	sqlCtx := f.queryContext(ctx, c, s, query)
	if ok, err := f.insertText(sqlCtx, c, s, query, callback); ok { // directinsert_text.go
		return true, noCapture, nil, err
	}
	// A SELECT of a shape the session knows runs without the parse
	// (textshape.go).
	shape, slots, lexed := scanTextShape(query)
	var mode string
	if lexed {
		mode = s.stmtVars(sqlCtx).mode
		if handled, capture, done, err := f.queryShape(sqlCtx, c, s, query, mode, shape, slots, callback); handled {
			return true, capture, done, err
		}
	}
	stmt, _, rest, err := f.Engine.Parser.Parse(sqlCtx, query, true)
	if err != nil || strings.TrimSpace(rest) != "" {
		s.plans.putTextNot(query)
		return false, noCapture, uncached, nil
	}
	bindings, key, ok := normalizeText(stmt)
	if !ok {
		s.plans.putTextNot(query)
		return false, noCapture, uncached, nil
	}
	f.noteInsertText(sqlCtx, s, query, stmt, key, bindings) // directinsert_text.go
	variants, notCacheable := s.plans.get(key)
	if notCacheable {
		s.plans.putTextNot(query)
		return false, noCapture, uncached, nil
	}
	if lexed {
		f.noteTextShape(sqlCtx, s, query, mode, shape, slots, stmt, key, bindings) // textshape.go
	}
	return f.execute(sqlCtx, c, s, key, query, stmt, variants, bindings, false, callback)
}

// maybeCacheableText is a cheap look at a text before it is parsed: a
// SELECT with a WHERE.
func maybeCacheableText(q string) bool {
	q = strings.TrimLeft(q, " \t\r\n")
	if maybeCacheableWriteText(q) { // directwrite.go
		return true
	}
	return len(q) > 7 && strings.EqualFold(q[:6], "select") && (q[6] == ' ' || q[6] == '\t' || q[6] == '\n' || q[6] == '\r') &&
		containsFold(q, "where")
}

func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// normalizeText replaces, in place, the literals a SELECT's WHERE compares
// with plain columns by parameters and returns their bindings and the
// shape's cache key; ok is false for any other statement or if no literal
// was replaced.
func normalizeText(stmt sqlparser.Statement) (map[string]*querypb.BindVariable, string, bool) {
	sel, isSel := stmt.(*sqlparser.Select)
	if !isSel || sel.Where == nil {
		return normalizeWriteText(stmt) // directwrite.go
	}
	bindings := map[string]*querypb.BindVariable{}
	param := textParam(bindings)
	var walk func(e sqlparser.Expr)
	walk = func(e sqlparser.Expr) {
		switch e := e.(type) {
		case *sqlparser.AndExpr:
			walk(e.Left)
			walk(e.Right)
		case *sqlparser.ComparisonExpr:
			switch e.Operator {
			case sqlparser.EqualStr, sqlparser.LessThanStr, sqlparser.LessEqualStr, sqlparser.GreaterThanStr, sqlparser.GreaterEqualStr:
				if plainColumn(e.Left) {
					param(&e.Right)
				} else if plainColumn(e.Right) {
					param(&e.Left)
				}
			case sqlparser.InStr:
				if tuple, ok := e.Right.(sqlparser.ValTuple); ok && plainColumn(e.Left) {
					for i := range tuple {
						param(&tuple[i])
					}
				}
			}
		case *sqlparser.RangeCond:
			if e.Operator == sqlparser.BetweenStr && plainColumn(e.Left) {
				param(&e.From)
				param(&e.To)
			}
		}
	}
	walk(sel.Where.Expr)
	if len(bindings) == 0 {
		return nil, "", false
	}
	// The result columns are named by their text as written, which the
	// rendering may not keep (spaces, case of function names).
	var sb strings.Builder
	sb.WriteString(textKeyPrefix)
	sb.WriteString(sqlparser.String(sel))
	for _, se := range sel.SelectExprs {
		sb.WriteByte(0)
		if ae, ok := se.(*sqlparser.AliasedExpr); ok {
			sb.WriteString(ae.InputExpression)
			sb.WriteByte(0)
			sb.WriteString(ae.As.String())
		} else {
			sb.WriteString(sqlparser.String(se))
		}
	}
	return bindings, sb.String(), true
}

// textParam returns the function that makes a literal of a text statement
// a parameter (integer and string literals; others are left) bound in
// bindings as :v1, :v2, ...
func textParam(bindings map[string]*querypb.BindVariable) func(e *sqlparser.Expr) {
	return func(e *sqlparser.Expr) {
		v, ok := (*e).(*sqlparser.SQLVal)
		if !ok {
			return
		}
		var bv *querypb.BindVariable
		switch v.Type {
		case sqlparser.IntVal:
			text := string(v.Val)
			if _, err := strconv.ParseInt(text, 10, 64); err == nil {
				bv = &querypb.BindVariable{Type: sqltypes.Int64, Value: v.Val}
			} else if _, err := strconv.ParseUint(text, 10, 64); err == nil {
				bv = &querypb.BindVariable{Type: sqltypes.Uint64, Value: v.Val}
			}
		case sqlparser.StrVal:
			bv = &querypb.BindVariable{Type: sqltypes.VarChar, Value: v.Val}
		}
		if bv == nil {
			return
		}
		name := "v" + strconv.Itoa(len(bindings)+1)
		bindings[name] = bv
		*e = sqlparser.NewValArg([]byte(":" + name))
	}
}

// textNot reports whether the session found text query not cacheable.
func (pc *planCache) textNot(query string) bool {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return pc.notText[query]
}

func (pc *planCache) putTextNot(query string) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.notText == nil || len(pc.notText) >= maxTextNot {
		pc.notText = map[string]bool{}
	}
	pc.notText[query] = true
}
