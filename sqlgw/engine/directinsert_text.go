package engine

import (
	"bytes"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// Text INSERTs without the parser (issue 13)
//
// A text INSERT of a cached shape (sysbench's oltp_insert sends
// `INSERT INTO sbtest1 (id, k, c, pad) VALUES (0, 5014, '...', '...')`,
// each with other values) is found in the plan cache by its normalized
// statement (textcache.go), which takes a parse of the text and a
// rendering of the parse tree: about a tenth of the statement's CPU. Here
// a scan of the text (scanInsertText) finds its literals instead and
// makes the rest, with the literals taken out, the text's template; the
// first time a template is seen, after the usual parse and normalization,
// the template is remembered with the shape's cache key if its literals
// are exactly the parameters the normalization made, in order, with the
// same types and bytes (noteInsertText). A later text with the same
// template and sql_mode is then the same statement with other literals:
// its bindings are made from the scanned literals as textParam makes them
// from the parsed ones, and the cached plans of the key run with them;
// when none can (a miss: the plan must be built, which needs the parse
// tree), the text takes the usual way.
//
// The scan is conservative: a literal is a decimal integer not touching a
// letter, digit, underscore, dollar sign or dot, or a single-quoted
// string with no backslash or doubled quote in it and no letter, digit
// or underscore before it (no introducer, N'', X'' or B''); a text with a
// double quote, a comment, a backslash or a NUL outside a string is not
// scanned. Backquoted identifiers are kept whole.

// insertTexts counts the INSERTs run without their parse (for tests:
// InsertTextCount).
var insertTexts atomic.Int64

// InsertTextCount returns how many text INSERTs the process ran from
// their template, without parsing them (directinsert_text.go).
func InsertTextCount() int64 { return insertTexts.Load() }

// maxInsertTexts bounds the templates a session remembers.
const maxInsertTexts = 256

// textLit is one literal the scan found: its bytes, and whether it is a
// string (or an integer).
type textLit struct {
	val []byte
	str bool
}

// scanInsertText returns the template of an INSERT text and its literals
// (see above), ok false if the text is not one it takes.
func scanInsertText(q string) (template string, lits []textLit, ok bool) {
	t := strings.TrimLeft(q, " \t\r\n")
	if len(q) > maxWriteText || len(t) < 7 || !strings.EqualFold(t[:6], "insert") || !isSpace(t[6]) {
		return "", nil, false
	}
	ident := func(ch byte) bool {
		return ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '_' || ch == '$' || ch >= 0x80
	}
	var sb strings.Builder
	sb.Grow(len(q))
	for i := 0; i < len(q); i++ {
		ch := q[i]
		switch {
		case ch == '\'':
			if i > 0 && ident(q[i-1]) {
				return "", nil, false
			}
			j := i + 1
			for ; j < len(q) && q[j] != '\''; j++ {
				if q[j] == '\\' {
					return "", nil, false
				}
			}
			if j >= len(q) || j+1 < len(q) && q[j+1] == '\'' {
				return "", nil, false
			}
			lits = append(lits, textLit{val: []byte(q[i+1 : j]), str: true})
			sb.WriteString("\x00s")
			i = j
		case ch == '`':
			j := strings.IndexByte(q[i+1:], '`')
			if j < 0 {
				return "", nil, false
			}
			sb.WriteString(q[i : i+j+2])
			i += j + 1
		case ch >= '0' && ch <= '9':
			if i > 0 && ident(q[i-1]) {
				sb.WriteByte(ch) // in an identifier
				continue
			}
			j := i
			for j < len(q) && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			if j < len(q) && (ident(q[j]) || q[j] == '.') {
				return "", nil, false
			}
			lits = append(lits, textLit{val: []byte(q[i:j])})
			sb.WriteString("\x00i")
			i = j - 1
		case ch == '"' || ch == '#' || ch == '\\' || ch == 0:
			return "", nil, false
		case ch == '/' && i+1 < len(q) && q[i+1] == '*', ch == '-' && i+1 < len(q) && q[i+1] == '-':
			return "", nil, false
		default:
			sb.WriteByte(ch)
		}
	}
	if len(lits) == 0 || len(lits) > maxWriteParams {
		return "", nil, false
	}
	return sb.String(), lits, true
}

// bindVar is textParam's binding of a literal: nil if textParam leaves
// it a literal (an integer beyond 64 bits).
func (l textLit) bindVar() *querypb.BindVariable {
	if l.str {
		return &querypb.BindVariable{Type: sqltypes.VarChar, Value: l.val}
	}
	text := string(l.val)
	if _, err := strconv.ParseInt(text, 10, 64); err == nil {
		return &querypb.BindVariable{Type: sqltypes.Int64, Value: l.val}
	}
	if _, err := strconv.ParseUint(text, 10, 64); err == nil {
		return &querypb.BindVariable{Type: sqltypes.Uint64, Value: l.val}
	}
	return nil
}

// insertTextKey is the key of a template under sql_mode mode.
func insertTextKey(mode, template string) string { return mode + "\x00" + template }

// noteInsertText remembers the template of the text INSERT query, just
// parsed to stmt and normalized to key and bindings, if its scanned
// literals are exactly the normalization's parameters.
func (f *FastLane) noteInsertText(ctx *sql.Context, s *Session, query string, stmt sqlparser.Statement, key string, bindings map[string]*querypb.BindVariable) {
	if _, isInsert := stmt.(*sqlparser.Insert); !isInsert || f.NoDirect {
		return
	}
	template, lits, ok := scanInsertText(query)
	if !ok || len(lits) != len(bindings) {
		return
	}
	for i, l := range lits {
		want, have := l.bindVar(), bindings["v"+strconv.Itoa(i+1)]
		if want == nil || have == nil || want.Type != have.Type || !bytes.Equal(want.Value, have.Value) {
			return
		}
	}
	pc := &s.plans
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.insertTexts == nil || len(pc.insertTexts) >= maxInsertTexts {
		pc.insertTexts = map[string]string{}
	}
	pc.insertTexts[insertTextKey(sql.LoadSqlMode(ctx).String(), template)] = key
}

// insertText runs the text INSERT query from the plans cached for its
// template (see above); ok is false if the caller must parse it and go on
// the usual way.
func (f *FastLane) insertText(ctx *sql.Context, c *mysql.Conn, s *Session, query string, callback func(*sqltypes.Result) error) (ok bool, err error) {
	if f.NoDirect {
		return false, nil
	}
	template, lits, scanned := scanInsertText(query)
	if !scanned {
		return false, nil
	}
	pc := &s.plans
	pc.mu.Lock()
	key, known := pc.insertTexts[insertTextKey(sql.LoadSqlMode(ctx).String(), template)]
	pc.mu.Unlock()
	if !known {
		return false, nil
	}
	variants, notCacheable := pc.get(key)
	if notCacheable || len(variants) == 0 {
		return false, nil
	}
	bindings := make(map[string]*querypb.BindVariable, len(lits))
	for i, l := range lits {
		bv := l.bindVar()
		if bv == nil {
			return false, nil
		}
		bindings["v"+strconv.Itoa(i+1)] = bv
	}
	// No parse tree: execute declines a miss, which needs one to build
	// the plan (plancache.go).
	handled, _, _, err := f.execute(ctx, c, s, key, query, nil, variants, bindings, false, callback)
	if !handled {
		return false, nil
	}
	insertTexts.Add(1)
	return true, err
}
