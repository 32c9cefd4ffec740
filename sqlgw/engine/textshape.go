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

	"github.com/sqlgw/sqlgw/sqlgw/sqltext"
)

// Text SELECTs without the parser (issue 13)
//
// A text SELECT of a cached shape (sysbench's oltp_point_select with
// --db-ps-mode=disable sends `SELECT c FROM sbtest1 WHERE id=5014`, as
// pymysql, mysqlclient, PDO's emulated prepares and Go's interpolateParams
// do) is found in the plan cache by its normalized statement
// (textcache.go): a parse of the text, a normalization and a rendering of
// the tree, most of the statement's CPU. Here a lexer (scanTextShape)
// finds the text's slots instead, its unsigned integer literals and plain
// single-quoted strings, and the text with their values cut out is its
// shape. A session remembers per shape (under its sql_mode, which the
// parse depends on: ANSI_QUOTES, PIPES_AS_CONCAT, ...) what the parse
// made of each slot: the parameter :vK of the shape's cache key, or a
// literal that stays in the key ("fixed": LIMIT 1, a select-list literal,
// a value the parser folds into an expression). A later text of the shape
// whose fixed slots hold the same values is the same statement with other
// parameters: its bindings are made from its slot values as textParam
// makes them from the parsed literals, and the shape's cached plans run
// with them (FastLane.execute). When none can (the plan is missing or
// stale and must be built from the parse tree), or a fixed slot differs,
// or a value is not one textParam binds (an integer beyond 64 bits), the
// text takes the usual way: parse, normalize, execute.
//
// A shape is learned the second time a session sees it (the first time
// it is only noted, so texts seen once cost nothing more), after its
// usual parse and normalization (learnTextShape): the text is parsed again
// with every slot replaced by a distinct marker value of the same kind,
// whose bindings say which slot became which parameter; then with only
// the parameter slots replaced, which must give the same cache key as the
// text itself, and the text's own slot values must give exactly its
// bindings (names, types, bytes). A shape that fails any of this, or whose
// text the parser's text steps would change (index hints, sqltext), is
// remembered as not fast. A hit does what the parse would have done to
// the session for a SELECT (statementParsed, prepareHints).
//
// The lexer gives up on what it cannot be sure of (a backslash or NUL
// anywhere, a backslash in a double-quoted string, an unterminated quote
// or comment, `//`, `--` not followed by a space, a `?` or `:` outside
// quotes, a quote inside a /*! or /*+ comment): such a text takes the
// usual way. Comments, backquoted identifiers, double-quoted strings,
// numbers other than plain integers (1.5, 1e5, 0x1F, .5, 1abc), words
// (sbtest1), and strings with a doubled quote, an introducer before them
// (_utf8mb4'x', N'x', X'1F'), COLLATE or another string after them are
// kept verbatim in the shape: no slot.

// maxTextShapes bounds the shapes a session remembers.
const maxTextShapes = 1024

// maxShapeText and maxShapeSlots bound the texts the lexer takes.
const (
	maxShapeText  = 4096
	maxShapeSlots = 256
)

// textShapeHits counts the SELECTs run from their shape, without parsing
// them (for tests: TextShapeCount).
var textShapeHits atomic.Int64

// TextShapeCount returns how many text SELECTs the process ran from
// their shape, without parsing them (textshape.go).
func TextShapeCount() int64 { return textShapeHits.Load() }

// textSlot is one slot the lexer found: its value is q[start:end] (a
// string's without its quotes).
type textSlot struct {
	start, end int
	str        bool
}

// textShape is what a session learned of a shape.
type textShape struct {
	// state: shapeSeen (noted once), shapeNot (not fast) or shapeFast.
	state int
	key   string
	// params[i] is the binding name of slot i, "" for a fixed slot whose
	// value is fixed[i].
	params []string
	fixed  []string
}

const (
	shapeSeen = iota
	shapeNot
	shapeFast
)

func shapeIdentChar(ch byte) bool {
	return ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '_' || ch == '$' || ch >= 0x80
}

func shapeDigit(ch byte) bool { return ch >= '0' && ch <= '9' }

// scanTextShape returns the shape of the SELECT text q and its slots (see
// above); ok is false if the lexer does not take q.
func scanTextShape(q string) (shape []byte, slots []textSlot, ok bool) {
	t := strings.TrimLeft(q, " \t\r\n")
	if len(q) > maxShapeText || len(t) < 7 || !strings.EqualFold(t[:6], "select") || !isSpace(t[6]) ||
		strings.IndexByte(q, 0) >= 0 || strings.IndexByte(q, '\\') >= 0 {
		return nil, nil, false
	}
	shape = make([]byte, 0, len(q)+8)
	n := len(q)
	for i := 0; i < n; {
		ch := q[i]
		switch {
		case ch == '\'':
			j, doubled, closed := scanQuoted(q, i, '\'')
			if !closed {
				return nil, nil, false
			}
			if doubled || stringIntroduced(q, i) || stringContinues(q, j) {
				shape = append(shape, q[i:j]...)
			} else {
				slots = append(slots, textSlot{start: i + 1, end: j - 1, str: true})
				shape = append(shape, 0, 's')
			}
			i = j
		case ch == '"' || ch == '`':
			j, _, closed := scanQuoted(q, i, ch)
			if !closed {
				return nil, nil, false
			}
			shape = append(shape, q[i:j]...)
			i = j
		case ch == '/' && i+1 < n && q[i+1] == '*':
			end := strings.Index(q[i+2:], "*/")
			if end < 0 {
				return nil, nil, false
			}
			j := i + 2 + end + 2
			body := q[i+2 : j-2]
			if (strings.HasPrefix(body, "!") || strings.HasPrefix(body, "+") || strings.HasPrefix(body, "M!")) &&
				strings.ContainsAny(body, "'\"`") {
				return nil, nil, false // executable comment: its text is parsed
			}
			shape = append(shape, q[i:j]...)
			i = j
		case ch == '/' && i+1 < n && q[i+1] == '/':
			return nil, nil, false // a comment to vitess, not to MySQL
		case ch == '#' || ch == '-' && i+1 < n && q[i+1] == '-':
			if ch == '-' && (i+2 >= n || !isSpace(q[i+2])) {
				return nil, nil, false // `--5`: vitess takes a comment, MySQL not
			}
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				j = n
			} else {
				j += i + 1
			}
			shape = append(shape, q[i:j]...)
			i = j
		case ch == '?' || ch == ':':
			return nil, nil, false // placeholders and :name arguments to vitess
		case shapeDigit(ch) || ch == '.' && i+1 < n && shapeDigit(q[i+1]):
			if ch == '.' && i > 0 && (shapeIdentChar(q[i-1]) || q[i-1] == '`' || q[i-1] == '"') {
				// a qualified name's part: t.1col
				j := i + 1
				for j < n && shapeIdentChar(q[j]) {
					j++
				}
				shape = append(shape, q[i:j]...)
				i = j
				continue
			}
			j := i
			for j < n && shapeDigit(q[j]) {
				j++
			}
			k := j
			if k < n && q[k] == '.' {
				k++
				for k < n && shapeDigit(q[k]) {
					k++
				}
			}
			if k < n && (q[k] == 'e' || q[k] == 'E') {
				k++
				if k < n && (q[k] == '+' || q[k] == '-') {
					k++
				}
				for k < n && shapeDigit(q[k]) {
					k++
				}
			}
			for k < n && shapeIdentChar(q[k]) {
				k++
			}
			if ch == '.' || k > j || i > 0 && (q[i-1] == '@' || q[i-1] == '.') {
				shape = append(shape, q[i:k]...) // not a plain integer
				i = k
				continue
			}
			slots = append(slots, textSlot{start: i, end: j})
			shape = append(shape, 0, 'i')
			i = j
		case shapeIdentChar(ch):
			j := i + 1
			for j < n && shapeIdentChar(q[j]) {
				j++
			}
			shape = append(shape, q[i:j]...)
			i = j
		default:
			shape = append(shape, ch)
			i++
		}
		if len(slots) > maxShapeSlots {
			return nil, nil, false
		}
	}
	return shape, slots, true
}

// scanQuoted returns the end (one past the closing quote) of the quoted
// text starting at q[i], whether it holds a doubled quote, and whether it
// is closed.
func scanQuoted(q string, i int, quote byte) (end int, doubled, closed bool) {
	for j := i + 1; j < len(q); j++ {
		if q[j] != quote {
			continue
		}
		if j+1 < len(q) && q[j+1] == quote {
			doubled = true
			j++
			continue
		}
		return j + 1, doubled, true
	}
	return len(q), doubled, false
}

// stringIntroduced reports whether the string starting at q[i] has a
// prefix: a letter or digit before it (N'x', X'1F', _utf8mb4'x') or a word
// starting with an underscore before it and spaces (_utf8mb4 'x'), or
// another string.
func stringIntroduced(q string, i int) bool {
	if i == 0 {
		return false
	}
	if shapeIdentChar(q[i-1]) {
		return true
	}
	j := i
	for j > 0 && isSpace(q[j-1]) {
		j--
	}
	if j > 0 && (q[j-1] == '\'' || q[j-1] == '"') {
		return true // the second of joined strings: 'a' 'b'
	}
	k := j
	for k > 0 && shapeIdentChar(q[k-1]) {
		k--
	}
	return k < j && q[k] == '_'
}

// stringContinues reports whether the string ending before q[j] is
// followed by COLLATE or another string (which the tokenizer joins).
func stringContinues(q string, j int) bool {
	for j < len(q) && isSpace(q[j]) {
		j++
	}
	if j < len(q) && (q[j] == '\'' || q[j] == '"') {
		return true
	}
	return len(q)-j >= 7 && strings.EqualFold(q[j:j+7], "collate")
}

// shapeBindings makes the bindings of text q, whose slots are slots, for
// shape e: ok is false if a fixed slot differs or a value is not one
// textParam binds.
func (e *textShape) bindings(q string, slots []textSlot) (map[string]*querypb.BindVariable, bool) {
	if len(slots) != len(e.params) {
		return nil, false
	}
	bindings := make(map[string]*querypb.BindVariable, len(slots))
	for i, sl := range slots {
		v := q[sl.start:sl.end]
		if e.params[i] == "" {
			if v != e.fixed[i] {
				return nil, false
			}
			continue
		}
		bv := textLit{val: []byte(v), str: sl.str}.bindVar() // directinsert_text.go
		if bv == nil {
			return nil, false
		}
		bindings[e.params[i]] = bv
	}
	return bindings, true
}

// textShape returns what the session knows of shape under sql_mode mode
// (nil if nothing); a change of mode forgets every shape.
func (pc *planCache) textShape(mode string, shape []byte) *textShape {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.shapesMode != mode {
		pc.shapes, pc.shapesMode = nil, mode
		return nil
	}
	return pc.shapes[string(shape)]
}

func (pc *planCache) putTextShape(mode string, shape []byte, e *textShape) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.shapes == nil || len(pc.shapes) >= maxTextShapes || pc.shapesMode != mode {
		pc.shapes, pc.shapesMode = map[string]*textShape{}, mode
	}
	pc.shapes[string(shape)] = e
}

// shapeParsed does to session s what the parse of a SELECT text does
// (prepareHints, statementParsed) for a text run from its shape.
func shapeParsed(ctx *sql.Context, s *Session) {
	s.txConflict = false
	statementParsed(ctx, shapeSelect)
}

// shapeSelect stands for the SELECT a shape's text parses to.
var shapeSelect sqlparser.Statement = &sqlparser.Select{}

// queryShape runs the SELECT text query from the plans of its shape if
// the session knows the shape (see above): handled is false if the caller
// must take the usual way. shape and slots are the lexer's, ok false if it
// did not take the text.
func (f *FastLane) queryShape(sqlCtx *sql.Context, c *mysql.Conn, s *Session, query string, mode string, shape []byte, slots []textSlot, callback func(*sqltypes.Result) error) (handled bool, capture func(func(*sqltypes.Result) error) func(*sqltypes.Result) error, done func(error), err error) {
	e := s.plans.textShape(mode, shape)
	if e == nil || e.state != shapeFast {
		return false, noCapture, nil, nil
	}
	bindings, ok := e.bindings(query, slots)
	if !ok {
		return false, noCapture, nil, nil
	}
	variants, notCacheable := s.plans.get(e.key)
	if notCacheable || len(variants) == 0 {
		// The usual way remembers the text as not cacheable, or builds
		// the plan, which needs the parse tree.
		return false, noCapture, nil, nil
	}
	shapeParsed(sqlCtx, s)
	// No parse tree: execute declines a miss (plancache.go), which takes
	// the usual way then.
	handled, capture, done, err = f.execute(sqlCtx, c, s, e.key, query, nil, variants, bindings, false, callback)
	if handled {
		textShapeHits.Add(1)
	}
	return handled, capture, done, err
}

// noteTextShape learns shape (see above) after the usual parse and
// normalization of query gave key and bindings; the second sighting of a
// shape learns it.
func (f *FastLane) noteTextShape(sqlCtx *sql.Context, s *Session, query, mode string, shape []byte, slots []textSlot, stmt sqlparser.Statement, key string, bindings map[string]*querypb.BindVariable) {
	if _, isSel := stmt.(*sqlparser.Select); !isSel {
		return
	}
	e := s.plans.textShape(mode, shape)
	switch {
	case e == nil:
		s.plans.putTextShape(mode, shape, &textShape{state: shapeSeen})
	case e.state == shapeSeen:
		parse := func(text string) (sqlparser.Statement, bool) {
			stmt, _, rest, err := f.Engine.Parser.Parse(sqlCtx, text, true)
			return stmt, err == nil && strings.TrimSpace(rest) == ""
		}
		s.plans.putTextShape(mode, shape, learnTextShape(parse, query, slots, key, bindings))
	}
}

// textMarker is the marker value of slot i of a text.
func textMarker(i int, str bool) string {
	if str {
		return "\x01sqlgw" + strconv.Itoa(i) + "\x01"
	}
	return strconv.Itoa(3000000000 + i)
}

// withMarkers returns query with the value of each slot i for which
// mark(i) holds replaced by its marker.
func withMarkers(query string, slots []textSlot, mark func(i int) bool) string {
	var sb strings.Builder
	sb.Grow(len(query) + 12*len(slots))
	at := 0
	for i, sl := range slots {
		if !mark(i) {
			continue
		}
		sb.WriteString(query[at:sl.start])
		sb.WriteString(textMarker(i, sl.str))
		at = sl.end
	}
	sb.WriteString(query[at:])
	return sb.String()
}

// learnTextShape learns the shape of query, whose slots are slots and
// whose parse normalized to key and bindings (see above); parseText is the
// session's parse of a text (ok false if it failed or left a rest).
func learnTextShape(parseText func(string) (sqlparser.Statement, bool), query string, slots []textSlot, key string, bindings map[string]*querypb.BindVariable) *textShape {
	not := &textShape{state: shapeNot}
	if len(slots) == 0 {
		return not
	}
	if t := sqltext.Run(query, sqltext.Parse); t.String() != query || len(t.Hints) > 0 || t.TxConflict || t.Rollup {
		return not
	}
	bySlot := map[string]int{}
	for i, sl := range slots {
		m := textMarker(i, sl.str)
		if strings.Contains(query, m) {
			return not
		}
		bySlot[m] = i
	}
	parse := func(text string) (map[string]*querypb.BindVariable, string, bool) {
		stmt, ok := parseText(text)
		if !ok {
			return nil, "", false
		}
		if _, isSel := stmt.(*sqlparser.Select); !isSel {
			return nil, "", false
		}
		return normalizeText(stmt)
	}
	// Which slot became which parameter.
	marked, markedKey, ok := parse(withMarkers(query, slots, func(int) bool { return true }))
	if !ok || len(marked) != len(bindings) {
		return not
	}
	e := &textShape{state: shapeFast, key: key, params: make([]string, len(slots)), fixed: make([]string, len(slots))}
	for name, bv := range marked {
		i, found := bySlot[string(bv.Value)]
		if !found || e.params[i] != "" {
			return not
		}
		if want := (textLit{val: bv.Value, str: slots[i].str}).bindVar(); want == nil || want.Type != bv.Type {
			return not
		}
		e.params[i] = name
	}
	fixed := false
	for i, sl := range slots {
		if e.params[i] == "" {
			e.fixed[i] = query[sl.start:sl.end]
			fixed = true
		}
	}
	// The parameters alone replaced: the same key as the text's.
	if fixed {
		var marked2 map[string]*querypb.BindVariable
		marked2, markedKey, ok = parse(withMarkers(query, slots, func(i int) bool { return e.params[i] != "" }))
		if !ok || len(marked2) != len(marked) {
			return not
		}
		for name, bv := range marked {
			if b2 := marked2[name]; b2 == nil || b2.Type != bv.Type || !bytes.Equal(b2.Value, bv.Value) {
				return not
			}
		}
	}
	if markedKey != key {
		return not
	}
	// The text's own values give its bindings.
	own, ok := e.bindings(query, slots)
	if !ok || len(own) != len(bindings) {
		return not
	}
	for name, bv := range bindings {
		if o := own[name]; o == nil || o.Type != bv.Type || !bytes.Equal(o.Value, bv.Value) {
			return not
		}
	}
	return e
}
