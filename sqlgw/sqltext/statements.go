package sqltext

import (
	"strconv"
	"strings"
)

// The questions below read names out of statements that sqlgw must act
// on before or after go-mysql-server runs them (KILL's target, what a
// RENAME moves, the source of CREATE TABLE ... LIKE, the table a SHOW
// COLUMNS describes). Each answers from the tokens of the one lexer
// instead of a second parse of the whole statement by vitess; a text that
// is not the statement asked about, or that the grammar would reject,
// answers "no" (ok false), and the engine reports any syntax error itself.

// code returns the tokens of q that are code: white space, comments and
// the markers of executable comments (/*! and */, whose content is code)
// left out, and a final ";" too.
func code(q string) []Token {
	var out []Token
	for _, t := range Lex(q) {
		if t.Skip() || t.Kind == VersionOpen || t.Kind == VersionClose {
			continue
		}
		out = append(out, t)
	}
	if n := len(out); n > 0 && out[n-1].IsOp(q, ";") {
		out = out[:n-1]
	}
	return out
}

// cursor walks the code tokens of one statement.
type cursor struct {
	q    string
	toks []Token
	i    int
}

func newCursor(q string) *cursor { return &cursor{q: q, toks: code(q)} }

func (c *cursor) done() bool { return c.i >= len(c.toks) }

// word consumes the next token if it is one of the keywords kws (any
// case) and reports whether it did.
func (c *cursor) word(kws ...string) bool {
	if c.done() {
		return false
	}
	for _, kw := range kws {
		if c.toks[c.i].Is(c.q, kw) {
			c.i++
			return true
		}
	}
	return false
}

// op consumes the next token if it is operator o.
func (c *cursor) op(o string) bool {
	if !c.done() && c.toks[c.i].IsOp(c.q, o) {
		c.i++
		return true
	}
	return false
}

// ident consumes an identifier (a bare word or a `quoted` one) and
// returns its name.
func (c *cursor) ident() (string, bool) {
	if c.done() {
		return "", false
	}
	t := c.toks[c.i]
	switch t.Kind {
	case Word:
		c.i++
		return t.Text(c.q), true
	case QuotedIdent:
		c.i++
		return Unquote(t.Text(c.q)), true
	}
	return "", false
}

// Name is a table name as a statement writes it: DB is empty when the
// name is not qualified.
type Name struct{ DB, Table string }

// name consumes a table name, [db.]table. Lexing "db.t" gives the words
// "db" and "t" around the operator "."; "db.1t"-style names that start
// with a digit after the dot are left to the engine.
func (c *cursor) name() (Name, bool) {
	first, ok := c.ident()
	if !ok {
		return Name{}, false
	}
	if !c.op(".") {
		return Name{Table: first}, true
	}
	second, ok := c.ident()
	if !ok {
		return Name{}, false
	}
	return Name{DB: first, Table: second}, true
}

// KillConnection returns the connection id of a KILL [CONNECTION] id
// statement (not KILL QUERY, which ends the statement only).
func KillConnection(q string) (uint32, bool) {
	if IndexFold(q, "kill") < 0 {
		return 0, false // not lexed: every statement passes here (a bulk INSERT is megabytes)
	}
	c := newCursor(q)
	if !c.word("kill") {
		return 0, false
	}
	c.word("connection")
	if c.done() || c.toks[c.i].Kind != Number || c.i != len(c.toks)-1 {
		return 0, false
	}
	id, err := strconv.ParseUint(c.toks[c.i].Text(q), 10, 32)
	if err != nil {
		return 0, false
	}
	return uint32(id), true
}

// KillTarget returns the connection id of a KILL [CONNECTION | QUERY] id
// statement.
func KillTarget(q string) (uint32, bool) {
	if IndexFold(q, "kill") < 0 {
		return 0, false // not lexed: every statement passes here (a bulk INSERT is megabytes)
	}
	c := newCursor(q)
	if !c.word("kill") {
		return 0, false
	}
	c.word("connection", "query")
	if c.done() || c.toks[c.i].Kind != Number || c.i != len(c.toks)-1 {
		return 0, false
	}
	id, err := strconv.ParseUint(c.toks[c.i].Text(q), 10, 32)
	if err != nil {
		return 0, false
	}
	return uint32(id), true
}

// Renames returns the (from, to) pairs of a RENAME TABLE a TO b [, c TO
// d ...] statement, or nil for any other statement.
func Renames(q string) [][2]Name {
	c := newCursor(q)
	if !c.word("rename") || !c.word("table", "tables") {
		return nil
	}
	var out [][2]Name
	for {
		from, ok := c.name()
		if !ok || !c.word("to") {
			return nil
		}
		to, ok := c.name()
		if !ok {
			return nil
		}
		out = append(out, [2]Name{from, to})
		if c.done() {
			return out
		}
		if !c.op(",") {
			return nil
		}
	}
}

// RenamedColumns returns the table of an ALTER TABLE statement and the
// (old, new) names of its RENAME COLUMN old TO new clauses (ok false for
// any other statement).
func RenamedColumns(q string) (table Name, cols [][2]string, ok bool) {
	c := newCursor(q)
	if !c.word("alter") || !c.word("table") {
		return Name{}, nil, false
	}
	if table, ok = c.name(); !ok {
		return Name{}, nil, false
	}
	// Clauses are separated by commas outside parentheses.
	for start := true; !c.done(); {
		if start && c.word("rename") && c.word("column") {
			from, ok1 := c.ident()
			to := ""
			ok2 := c.word("to")
			if ok2 {
				to, ok2 = c.ident()
			}
			if ok1 && ok2 {
				cols = append(cols, [2]string{from, to})
			}
			start = false
			continue
		}
		start = false
		depth := 0
		for ; !c.done(); c.i++ {
			t := c.toks[c.i]
			switch {
			case t.IsOp(q, "("):
				depth++
			case t.IsOp(q, ")"):
				depth--
			case t.IsOp(q, ",") && depth == 0:
				start = true
			}
			if start {
				c.i++
				break
			}
		}
	}
	return table, cols, true
}

// CreateLike returns the new table and the source of a CREATE
// [TEMPORARY] TABLE [IF NOT EXISTS] t LIKE src statement (also written
// "(LIKE src)"); ok is false for any other statement.
func CreateLike(q string) (table, src Name, ok bool) {
	c := newCursor(q)
	if !c.word("create") {
		return Name{}, Name{}, false
	}
	c.word("temporary")
	if !c.word("table") {
		return Name{}, Name{}, false
	}
	if c.word("if") && !(c.word("not") && c.word("exists")) {
		return Name{}, Name{}, false
	}
	if table, ok = c.name(); !ok {
		return Name{}, Name{}, false
	}
	paren := c.op("(")
	if !c.word("like") {
		return Name{}, Name{}, false
	}
	if src, ok = c.name(); !ok || paren && !c.op(")") || !c.done() {
		return Name{}, Name{}, false
	}
	return table, src, true
}

// ShownColumns returns the table whose columns a SHOW CREATE TABLE t,
// SHOW [FULL] {COLUMNS | FIELDS} {FROM | IN} t [{FROM | IN} db] or
// {DESCRIBE | DESC | EXPLAIN} t [column] statement shows, and whether the
// statement is SHOW CREATE TABLE (create) or one listing columns.
func ShownColumns(q string) (table Name, create, ok bool) {
	c := newCursor(q)
	switch {
	case c.word("show"):
		if c.word("create") {
			if !c.word("table") {
				return Name{}, false, false
			}
			table, ok = c.name()
			return table, true, ok && c.done()
		}
		c.word("full")
		if !c.word("columns", "fields") || !c.word("from", "in") {
			return Name{}, false, false
		}
		if table, ok = c.name(); !ok {
			return Name{}, false, false
		}
		if c.word("from", "in") {
			db, ok := c.ident()
			if !ok {
				return Name{}, false, false
			}
			if table.DB == "" {
				table.DB = db
			}
		}
		return table, false, true
	case c.word("describe", "desc", "explain"):
		// EXPLAIN (and DESCRIBE) of a statement, or with options, is not
		// about a table.
		if c.done() || c.toks[c.i].Kind == Word && explainable[strings.ToLower(c.toks[c.i].Text(q))] {
			return Name{}, false, false
		}
		table, ok = c.name()
		return table, false, ok
	}
	return Name{}, false, false
}

// explainable are the words that start what EXPLAIN explains instead of a
// table name (a table so named must be quoted).
var explainable = map[string]bool{"select": true, "insert": true, "update": true, "delete": true,
	"replace": true, "with": true, "table": true, "values": true, "format": true, "analyze": true,
	"extended": true, "partitions": true, "plan": true, "for": true}

// ShowLikePattern returns the pattern of a SHOW DATABASES (SCHEMAS) or
// SHOW [FULL] TABLES [{FROM | IN} db] statement's LIKE 'pattern' clause
// (ok false without one, and for a WHERE filter or any other statement).
func ShowLikePattern(q string) (pattern string, ok bool) {
	c := newCursor(q)
	if !c.word("show") {
		return "", false
	}
	if !c.word("databases", "schemas") {
		c.word("full")
		if !c.word("tables") {
			return "", false
		}
		if c.word("from", "in") {
			if _, ok := c.ident(); !ok {
				return "", false
			}
		}
	}
	if !c.word("like") || c.done() || c.toks[c.i].Kind != String || c.i != len(c.toks)-1 {
		return "", false
	}
	return Unquote(c.toks[c.i].Text(q)), true
}
