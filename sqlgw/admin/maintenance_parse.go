package admin

import (
	"strings"

	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/sqlgw/engine"
	"github.com/sqlgw/sqlgw/sqlgw/sqltext"
)

// Parsing of the table maintenance statements (maintenance.go), which
// go-mysql-server's parser lacks (CHECK, REPAIR, OPTIMIZE, CHECKSUM) or
// runs in a way sqlgw replaces (ANALYZE TABLE: see maintenance.go):
//
//	CHECK TABLE|TABLES tbl [, tbl] ... [FOR UPGRADE | QUICK | FAST | MEDIUM | EXTENDED | CHANGED] ...
//	REPAIR [NO_WRITE_TO_BINLOG | LOCAL] TABLE|TABLES tbl [, tbl] ... [QUICK] [EXTENDED] [USE_FRM]
//	OPTIMIZE [NO_WRITE_TO_BINLOG | LOCAL] TABLE|TABLES tbl [, tbl] ...
//	ANALYZE [NO_WRITE_TO_BINLOG | LOCAL] TABLE|TABLES tbl [, tbl] ...
//	CHECKSUM TABLE|TABLES tbl [, tbl] ... [QUICK | EXTENDED]
//	REFRESH TABLE|TABLES tbl [, tbl] ...       (sqlgw's: attached.go)
//	REFRESH TABLE tbl TYPES BY prop | TYPES BY ROWKEY PREFIX 'sep'
//
// tbl is name or db.name, each bare or `quoted`. ANALYZE TABLE ... UPDATE
// HISTOGRAM / DROP HISTOGRAM is not taken (go-mysql-server runs it), nor is
// any statement that does not start with one of these keywords followed by
// TABLE or TABLES (those go to go-mysql-server unchanged). A statement that
// does is parsed to its end or to the first ';' (the rest is returned for
// multi-statement queries); anything else is MySQL's 1064.

// adminStmt is a parsed table maintenance statement.
type adminStmt struct {
	op      engine.AdminOp
	tables  []engine.AdminTable
	options []string // upper-cased option words (QUICK, EXTENDED, FOR UPGRADE, ...)
	// typesBy is REFRESH TABLE ... TYPES BY's discriminator (attached.go).
	typesBy *catalog.TypesBy
}

// adminLexer reads the tokens of one statement, with sqltext's rules for
// blanks, comments, identifiers and quotes.
type adminLexer struct {
	s   string
	pos int
}

// skipSpace skips white space and comments.
func (l *adminLexer) skipSpace() { l.pos = sqltext.SkipSpace(l.s, l.pos) }

// word reads a bare word (keyword or unquoted identifier); "" if none.
func (l *adminLexer) word() string {
	l.skipSpace()
	start := l.pos
	for l.pos < len(l.s) && sqltext.IsIdentByte(l.s[l.pos]) {
		l.pos++
	}
	return l.s[start:l.pos]
}

// peekWord returns the next bare word without consuming it.
func (l *adminLexer) peekWord() string {
	save := l.pos
	w := l.word()
	l.pos = save
	return w
}

// keyword consumes the next word if it is kw (case-insensitive).
func (l *adminLexer) keyword(kw string) bool {
	save := l.pos
	if strings.EqualFold(l.word(), kw) {
		return true
	}
	l.pos = save
	return false
}

// punct consumes byte c if it comes next.
func (l *adminLexer) punct(c byte) bool {
	l.skipSpace()
	if l.pos < len(l.s) && l.s[l.pos] == c {
		l.pos++
		return true
	}
	return false
}

// literal reads a literal quoted with one of quotes (sqltext.Unquote's
// value); false if none comes next or it is not closed.
func (l *adminLexer) literal(quotes string) (string, bool) {
	l.skipSpace()
	if l.pos >= len(l.s) || strings.IndexByte(quotes, l.s[l.pos]) < 0 {
		return "", false
	}
	end, closed := sqltext.Quoted(l.s, l.pos)
	if !closed {
		return "", false
	}
	v := sqltext.Unquote(l.s[l.pos:end])
	l.pos = end
	return v, true
}

// ident reads an identifier, bare or `quoted` (a doubled backquote inside
// is one).
func (l *adminLexer) ident() (string, bool) {
	l.skipSpace()
	if l.pos < len(l.s) && l.s[l.pos] == '`' {
		save := l.pos
		name, ok := l.literal("`")
		if !ok || name == "" {
			l.pos = save
			return "", false
		}
		return name, true
	}
	w := l.word()
	return w, w != ""
}

// syntaxError is MySQL's 1064 for the text from the lexer's position.
func (l *adminLexer) syntaxError() error {
	near := l.s[min(l.pos, len(l.s)):]
	near = strings.TrimLeft(near, " \t\r\n")
	if len(near) > 80 {
		near = near[:80]
	}
	return mysql.NewSQLError(mysql.ERParseError, "42000",
		"You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near '%s' at line 1", near)
}

// parseAdmin recognizes a table maintenance statement at the start of
// query. ok is false for any other statement (query then goes to the
// engine unchanged). rest is the text after the statement's ';' (for a
// multi-statement query; "" when nothing but space and comments follows).
func parseAdmin(query string) (st *adminStmt, rest string, ok bool, err error) {
	l := &adminLexer{s: query}
	var op engine.AdminOp
	switch w := strings.ToUpper(l.word()); w {
	case "CHECK":
		op = engine.OpCheck
	case "REPAIR":
		op = engine.OpRepair
	case "OPTIMIZE":
		op = engine.OpOptimize
	case "ANALYZE":
		op = engine.OpAnalyze
	case "CHECKSUM":
		op = engine.OpChecksum
	case "REFRESH":
		op = engine.OpRefresh
	default:
		return nil, "", false, nil
	}
	if op == engine.OpRepair || op == engine.OpOptimize || op == engine.OpAnalyze {
		if !l.keyword("NO_WRITE_TO_BINLOG") {
			l.keyword("LOCAL")
		}
	}
	if !l.keyword("TABLE") && !l.keyword("TABLES") {
		return nil, "", false, nil
	}
	st = &adminStmt{op: op}
	for {
		name, ok := l.ident()
		if !ok {
			return nil, "", true, l.syntaxError()
		}
		t := engine.AdminTable{Name: name}
		if l.punct('.') {
			if t.Name, ok = l.ident(); !ok {
				return nil, "", true, l.syntaxError()
			}
			t.DB = name
		}
		st.tables = append(st.tables, t)
		if !l.punct(',') {
			break
		}
	}
	if op == engine.OpAnalyze {
		switch strings.ToUpper(l.peekWord()) {
		case "UPDATE", "DROP":
			return nil, "", false, nil // histograms: go-mysql-server's
		}
	}
	for {
		save := l.pos
		w := strings.ToUpper(l.word())
		if w == "" {
			l.pos = save
			break
		}
		switch {
		case op == engine.OpCheck && (w == "QUICK" || w == "FAST" || w == "MEDIUM" || w == "EXTENDED" || w == "CHANGED"):
		case op == engine.OpCheck && w == "FOR":
			if !l.keyword("UPGRADE") {
				return nil, "", true, l.syntaxError()
			}
			w = "FOR UPGRADE"
		case op == engine.OpRepair && (w == "QUICK" || w == "EXTENDED" || w == "USE_FRM"):
		case op == engine.OpChecksum && (w == "QUICK" || w == "EXTENDED") && len(st.options) == 0:
		case op == engine.OpRefresh && w == "TYPES" && st.typesBy == nil && len(st.tables) == 1:
			by, ok := parseTypesBy(l)
			if !ok {
				return nil, "", true, l.syntaxError()
			}
			st.typesBy = by
			continue
		default:
			l.pos = save
			return nil, "", true, l.syntaxError()
		}
		st.options = append(st.options, w)
	}
	if l.punct(';') {
		rest = l.s[l.pos:]
		if probe := (&adminLexer{s: rest}); true {
			probe.skipSpace()
			if probe.pos == len(rest) {
				rest = ""
			}
		}
		return st, rest, true, nil
	}
	l.skipSpace()
	if l.pos != len(l.s) {
		return nil, "", true, l.syntaxError()
	}
	return st, "", true, nil
}

// parseTypesBy parses the rest of REFRESH TABLE tbl TYPES BY: a property
// name (bare or `quoted`), or ROWKEY PREFIX 'separator'.
func parseTypesBy(l *adminLexer) (*catalog.TypesBy, bool) {
	if !l.keyword("BY") {
		return nil, false
	}
	save := l.pos
	if l.keyword("ROWKEY") && l.keyword("PREFIX") {
		sep, ok := l.literal("'")
		if !ok || sep == "" {
			return nil, false
		}
		return &catalog.TypesBy{RowKeySep: sep}, true
	}
	l.pos = save
	prop, ok := l.ident()
	if !ok {
		return nil, false
	}
	return &catalog.TypesBy{Prop: prop}, true
}
