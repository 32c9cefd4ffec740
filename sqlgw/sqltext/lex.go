package sqltext

import "strings"

// Kind is the kind of a token.
type Kind uint8

const (
	// Space is a run of blanks (space, tab, newline, carriage return,
	// form feed, vertical tab).
	Space Kind = iota + 1
	// LineComment is "# ..." or "-- ..." (two dashes and a blank or a
	// control character), up to and including the newline.
	LineComment
	// Comment is "/* ... */".
	Comment
	// MariaDBComment is MariaDB's executable comment "/*M!NNNNNN ... */":
	// MySQL ignores it, and so does sqlgw (it is MySQL 8 to clients).
	MariaDBComment
	// HintComment is an optimizer hint comment "/*+ ... */".
	HintComment
	// VersionOpen opens a MySQL executable comment, "/*!" and its
	// optional version number: the text up to VersionClose is code.
	VersionOpen
	// VersionClose is the "*/" that closes a VersionOpen.
	VersionClose
	// String is a string literal, '...' or "...": a backslash escapes the
	// next byte and a doubled quote stands for one.
	String
	// QuotedIdent is a `quoted identifier` (a doubled backquote stands
	// for one; no backslash escapes).
	QuotedIdent
	// Word is a bare identifier or keyword: a run of letters, digits, _,
	// $ and bytes >= 0x80 that is not a number.
	Word
	// Number is a numeric literal: digits with an optional fraction and
	// exponent, or 0x... / 0b....
	Number
	// Variable is a user variable (@name, @'name', @"name", @`name`) or a
	// system variable (@@name, @@session.name).
	Variable
	// Op is an operator or punctuation: one of the multi-byte operators
	// (:= <=> <= >= <> != || && << >> -> ->>) or one byte.
	Op
)

var kindNames = [...]string{"", "space", "line-comment", "comment", "mariadb-comment", "hint",
	"version-open", "version-close", "string", "quoted-ident", "word", "number", "variable", "op"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind?"
}

// Token is one token of a statement text: q[Start:End].
type Token struct {
	Kind       Kind
	Start, End int
}

// Text returns the token's text in q.
func (t Token) Text(q string) string { return q[t.Start:t.End] }

// Skip reports whether the token is white space or a comment that is not
// code: Space, LineComment, Comment, MariaDBComment and HintComment.
// VersionOpen and VersionClose are not skipped: their content is code.
func (t Token) Skip() bool {
	switch t.Kind {
	case Space, LineComment, Comment, MariaDBComment, HintComment:
		return true
	}
	return false
}

// Is reports whether the token is the bare word kw, in any case.
func (t Token) Is(q, kw string) bool {
	return t.Kind == Word && strings.EqualFold(q[t.Start:t.End], kw)
}

// IsOp reports whether the token is operator op.
func (t Token) IsOp(q, op string) bool { return t.Kind == Op && q[t.Start:t.End] == op }

// Lex splits statement text q into tokens that cover it entirely, in
// order. It never fails: an unterminated string, identifier or comment
// runs to the end of q.
func Lex(q string) []Token {
	var out []Token
	version := false // inside /*! ... */
	for i := 0; i < len(q); {
		t := next(q, i, version)
		switch t.Kind {
		case VersionOpen:
			version = true
		case VersionClose:
			version = false
		}
		out = append(out, t)
		i = t.End
	}
	return out
}

// IsBlank reports whether c is white space.
func IsBlank(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// SkipBlanks returns the position of the first byte at or after i that is
// not white space (comments are not skipped: see SkipSpace).
func SkipBlanks(q string, i int) int {
	for i < len(q) && IsBlank(q[i]) {
		i++
	}
	return i
}

// IsIdentByte reports whether c may be part of a bare identifier.
func IsIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

var multiOps = [...]string{"<=>", "->>", ":=", "<=", ">=", "<>", "!=", "||", "&&", "<<", ">>", "->"}

// next returns the token at q[i:].
func next(q string, i int, version bool) Token {
	c := q[i]
	tok := func(k Kind, end int) Token { return Token{Kind: k, Start: i, End: min(end, len(q))} }
	switch {
	case IsBlank(c):
		j := i + 1
		for j < len(q) && IsBlank(q[j]) {
			j++
		}
		return tok(Space, j)
	case c == '#' || c == '-' && isDashComment(q, i):
		end := len(q)
		if j := strings.IndexByte(q[i:], '\n'); j >= 0 {
			end = i + j + 1
		}
		if j := strings.Index(q[i:end], "*/"); version && j >= 0 {
			end = i + j // the executable comment ends first
		}
		return tok(LineComment, end)
	case c == '/' && !version && strings.HasPrefix(q[i:], "/*"):
		// (Inside /*! ... */ a "/*" is code: comments do not nest, and
		// the first "*/" closes the executable comment.)
		switch {
		case strings.HasPrefix(q[i:], "/*!"):
			j := i + 3
			for j < len(q) && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			return tok(VersionOpen, j)
		case strings.HasPrefix(q[i:], "/*M!"):
			return tok(MariaDBComment, commentEnd(q, i))
		case strings.HasPrefix(q[i:], "/*+"):
			return tok(HintComment, commentEnd(q, i))
		}
		return tok(Comment, commentEnd(q, i))
	case c == '*' && version && strings.HasPrefix(q[i:], "*/"):
		return tok(VersionClose, i+2)
	case c == '\'' || c == '"':
		return tok(String, QuotedEnd(q, i))
	case c == '`':
		return tok(QuotedIdent, QuotedEnd(q, i))
	case c == '@':
		j := i + 1
		switch {
		case j < len(q) && q[j] == '@':
			j++
			for j < len(q) && (IsIdentByte(q[j]) || q[j] == '.') {
				j++
			}
		case j < len(q) && (q[j] == '\'' || q[j] == '"' || q[j] == '`'):
			j = QuotedEnd(q, j)
		default:
			for j < len(q) && (IsIdentByte(q[j]) || q[j] == '.') {
				j++
			}
		}
		if j == i+1 {
			return tok(Op, j)
		}
		return tok(Variable, j)
	case IsIdentByte(c):
		j := i
		for j < len(q) && IsIdentByte(q[j]) {
			j++
		}
		if n := numberEnd(q, i); n > i && (n >= len(q) || !IsIdentByte(q[n])) && n >= j {
			return tok(Number, n)
		}
		return tok(Word, j)
	}
	for _, op := range multiOps {
		if strings.HasPrefix(q[i:], op) {
			return tok(Op, i+len(op))
		}
	}
	return tok(Op, i+1)
}

// isDashComment reports whether "--" at q[i] starts a comment: MySQL
// wants a blank or control character (or the end) after the dashes.
func isDashComment(q string, i int) bool {
	if !strings.HasPrefix(q[i:], "--") {
		return false
	}
	return i+2 == len(q) || q[i+2] <= ' '
}

// commentEnd returns the end of the /* comment at q[i] (after its */),
// or len(q).
func commentEnd(q string, i int) int {
	if j := strings.Index(q[i+2:], "*/"); j >= 0 {
		return i + 2 + j + 2
	}
	return len(q)
}

// QuotedEnd returns the end (after the closing quote) of the string
// literal or quoted identifier opening at q[i], or len(q) if it is not
// closed. In '...' and "..." a backslash escapes the next byte; in all
// three a doubled quote stands for one.
func QuotedEnd(q string, i int) int {
	end, _ := Quoted(q, i)
	return end
}

// Quoted is QuotedEnd that also reports whether the quote is closed.
func Quoted(q string, i int) (end int, closed bool) {
	quote := q[i]
	j := i + 1
	for j < len(q) {
		switch {
		case q[j] == '\\' && quote != '`':
			j += 2
		case q[j] == quote:
			if j+1 < len(q) && q[j+1] == quote {
				j += 2
				continue
			}
			return j + 1, true
		default:
			j++
		}
	}
	return len(q), false
}

// numberEnd returns the end of the numeric literal at q[i], or i.
func numberEnd(q string, i int) int {
	isDigit := func(j int) bool { return j < len(q) && q[j] >= '0' && q[j] <= '9' }
	if !isDigit(i) {
		return i
	}
	if q[i] == '0' && i+1 < len(q) && (q[i+1] == 'x' || q[i+1] == 'X' || q[i+1] == 'b' || q[i+1] == 'B') {
		hex := q[i+1] == 'x' || q[i+1] == 'X'
		j := i + 2
		for j < len(q) && (q[j] == '0' || q[j] == '1' || hex && strings.IndexByte("0123456789abcdefABCDEF", q[j]) >= 0) {
			j++
		}
		if j > i+2 {
			return j
		}
	}
	j := i
	for isDigit(j) {
		j++
	}
	if j < len(q) && q[j] == '.' {
		j++
		for isDigit(j) {
			j++
		}
	}
	if j < len(q) && (q[j] == 'e' || q[j] == 'E') {
		k := j + 1
		if k < len(q) && (q[k] == '+' || q[k] == '-') {
			k++
		}
		if isDigit(k) {
			for isDigit(k) {
				k++
			}
			j = k
		}
	}
	return j
}

// Unquote returns the value of a String or QuotedIdent token's text:
// doubled quotes stand for one, and in strings a backslash escapes the
// next byte (\n, \t, \r, \0, \b, \Z as MySQL; \% and \_ keep the
// backslash; any other byte stands for itself).
func Unquote(lit string) string {
	if len(lit) < 2 {
		return ""
	}
	quote := lit[0]
	body := lit[1:]
	if body[len(body)-1] == quote {
		body = body[:len(body)-1]
	}
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == quote && i+1 < len(body) && body[i+1] == quote:
			b.WriteByte(quote)
			i++
		case c == '\\' && quote != '`' && i+1 < len(body):
			i++
			switch body[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '0':
				b.WriteByte(0)
			case 'b':
				b.WriteByte('\b')
			case 'Z':
				b.WriteByte(26)
			case '%', '_':
				b.WriteByte('\\')
				b.WriteByte(body[i])
			default:
				b.WriteByte(body[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// SkipSpace returns the position of the first byte at or after i that is
// not white space or a comment of any kind (/*! ... */, /*M! ... */ and
// /*+ ... */ included, skipped whole).
func SkipSpace(q string, i int) int {
	for i < len(q) {
		c := q[i]
		switch {
		case IsBlank(c):
			i++
		case c == '#' || c == '-' && isDashComment(q, i):
			if j := strings.IndexByte(q[i:], '\n'); j >= 0 {
				i += j + 1
			} else {
				i = len(q)
			}
		case c == '/' && strings.HasPrefix(q[i:], "/*"):
			i = commentEnd(q, i)
		default:
			return i
		}
	}
	return len(q)
}

// IsEmpty reports whether q holds no statement: only white space and
// plain comments. Executable comments (/*! */, /*M! */), optimizer hints
// (/*+ */) and an unterminated comment (the parser's error) count as
// text. It reads only as far as the first such text.
func IsEmpty(q string) bool {
	for i := 0; i < len(q); {
		switch c := q[i]; {
		case IsBlank(c):
			i++
		case c == '#' || c == '-' && isDashComment(q, i):
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				return true
			}
			i += j + 1
		case strings.HasPrefix(q[i:], "/*!"), strings.HasPrefix(q[i:], "/*M!"), strings.HasPrefix(q[i:], "/*+"):
			return false
		case strings.HasPrefix(q[i:], "/*"):
			j := strings.Index(q[i+2:], "*/")
			if j < 0 {
				return false
			}
			i += 2 + j + 2
		default:
			return false
		}
	}
	return true
}

// FirstWord returns LeadingWords(q, 1)'s word as it is spelled in q (not
// lower-cased: compare it with strings.EqualFold), or "": a part of q, for
// the per-statement paths, which must not allocate.
func FirstWord(q string) string {
	i := 0
	for {
		i = SkipSpace(q, i)
		if i < len(q) && q[i] == '(' {
			i++
			continue
		}
		break
	}
	j := i
	for j < len(q) && (q[j] >= 'a' && q[j] <= 'z' || q[j] >= 'A' && q[j] <= 'Z' || q[j] == '_') {
		j++
	}
	return q[i:j]
}

// LeadingWords returns up to n leading keywords of q, lower-cased,
// skipping white space, comments (executable ones whole) and opening
// parentheses; a word is a run of ASCII letters and underscores, and a
// byte that starts none ends the list.
func LeadingWords(q string, n int) []string {
	var words []string
	for i := 0; len(words) < n; {
		i = SkipSpace(q, i)
		if i < len(q) && q[i] == '(' {
			i++
			continue
		}
		j := i
		for j < len(q) && (q[j] >= 'a' && q[j] <= 'z' || q[j] >= 'A' && q[j] <= 'Z' || q[j] == '_') {
			j++
		}
		if j == i {
			break
		}
		words = append(words, strings.ToLower(q[i:j]))
		i = j
	}
	return words
}
