package sqltext

import "strings"

// HintKind is the kind of one index hint clause.
type HintKind byte

const (
	HintUse HintKind = iota
	HintIgnore
	HintForce
)

// HintClause is one USE/IGNORE/FORCE {INDEX|KEY} [FOR ...] (names).
type HintClause struct {
	Kind HintKind
	// Scoped: FOR ORDER BY or FOR GROUP BY.
	Scoped bool
	Names  []string // as written, unquoted
}

// HintRef is a table reference with hint clauses.
type HintRef struct {
	DB, Table, Alias string // as written; DB and Alias may be ""
	Clauses          []HintClause
}

// IndexHints blanks every index hint clause (USE/IGNORE/FORCE
// {INDEX|KEY} [FOR JOIN|ORDER BY|GROUP BY] (names)) out of the text, with
// spaces of the same length (newlines kept, so positions and line numbers
// hold), and records the references they belong to in Text.Hints; sqlgw
// applies the hints itself (the engine's index hints notes).
var IndexHints = Step{
	Name: "index-hints",
	Upstream: "go-mysql-server's parser knows one USE/IGNORE/FORCE INDEX (list) per table reference " +
		"(no KEY, no FOR, no empty list) and ignores what it parses",
	Apply: func(t *Text) {
		if !MayHaveHints(t.Src) {
			return
		}
		refs, spans := scanHints(t.Src, t.Tokens())
		for _, s := range spans {
			b := []byte(t.Src[s[0]:s[1]])
			for i := range b {
				if b[i] != '\n' {
					b[i] = ' '
				}
			}
			t.Replace(s[0], s[1], string(b))
		}
		t.Hints = refs
	},
}

// ScanHints returns the hinted references of statement text q (nil
// without any), as IndexHints finds them.
func ScanHints(q string) []*HintRef {
	if !MayHaveHints(q) {
		return nil
	}
	refs, _ := scanHints(q, Lex(q))
	return refs
}

// MayHaveHints reports whether q may hold an index hint: whether "index"
// or "key" follows "use", "ignore" or "force" (or a comment) across
// blanks, in any case. No allocation; texts without those words cost a
// byte scan.
func MayHaveHints(q string) bool {
	for _, w := range [...]string{"index", "key"} {
		for from := 0; ; {
			i := IndexFold(q[from:], w)
			if i < 0 {
				break
			}
			i += from
			j := i
			for j > 0 && IsBlank(q[j-1]) {
				j--
			}
			if j > 0 && q[j-1] == '/' {
				return true // USE /* ... */ INDEX: let the scanner decide
			}
			for _, kw := range [...]string{"use", "ignore", "force"} {
				if j >= len(kw) && j < i && strings.EqualFold(q[j-len(kw):j], kw) {
					return true
				}
			}
			from = i + len(w)
		}
	}
	return false
}

// IndexFold returns the index of the lower-case ASCII word w in s in any
// ASCII case (SQL keywords are ASCII), or -1, without copying s: a bulk
// INSERT's statement text is up to megabytes.
func IndexFold(s, w string) int {
	// Candidates are found by the first letter in either case with
	// strings.IndexByte (vectorized), each case's next position kept until
	// passed: a bulk INSERT's half megabyte of values is scanned at memory
	// speed, not byte by byte.
	lo, up := w[0], w[0]
	if 'a' <= lo && lo <= 'z' {
		up = lo - ('a' - 'A')
	}
	next := func(from int, b byte) int {
		if k := strings.IndexByte(s[from:], b); k >= 0 {
			return from + k
		}
		return -1
	}
	nl, nu := -2, -2 // next candidate of each case at or after i (-1: none left, -2: not looked for)
	for i := 0; i+len(w) <= len(s); {
		if nl != -1 && nl < i {
			nl = next(i, lo)
		}
		if nu != -1 && nu < i {
			nu = next(i, up)
		}
		c := nl
		if c < 0 || (nu >= 0 && nu < c) {
			c = nu
		}
		if c < 0 || c+len(w) > len(s) {
			return -1
		}
		if foldEqual(s[c:c+len(w)], w) {
			return c
		}
		i = c + 1
	}
	return -1
}

// foldEqual reports whether s equals w (lower-case ASCII) in any case.
func foldEqual(s, w string) bool {
	for j := 0; j < len(w); j++ {
		c := s[j]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != w[j] {
			return false
		}
	}
	return true
}

// hintToken is a token as the hint scanner sees it: comments (executable
// ones whole) and blanks dropped, string literals as the punctuation '\”.
type hintToken struct {
	start, end int
	word       string // identifier or keyword, unquoted; "" for punctuation
	quoted     bool
	punct      byte
}

func hintTokens(q string, toks []Token) []hintToken {
	var out []hintToken
	for k := 0; k < len(toks); k++ {
		t := toks[k]
		switch t.Kind {
		case Space, LineComment, Comment, MariaDBComment, HintComment:
		case VersionOpen:
			k = skipVersion(toks, k) - 1
		case String:
			out = append(out, hintToken{start: t.End, end: t.End, punct: '\''})
		case QuotedIdent:
			out = append(out, hintToken{start: t.Start, end: t.End, word: Unquote(t.Text(q)), quoted: true})
		case Word, Number:
			out = append(out, hintToken{start: t.Start, end: t.End, word: t.Text(q)})
		default: // Op, Variable, VersionClose: their first byte
			out = append(out, hintToken{start: t.Start, end: t.Start + 1, punct: q[t.Start]})
		}
	}
	return out
}

func (t hintToken) is(kw string) bool {
	return !t.quoted && t.word != "" && strings.EqualFold(t.word, kw)
}

func (t hintToken) ident() bool { return t.word != "" }

// scanHints finds the hint clauses of q: the references they belong to
// and the byte ranges of the clauses ([start, end) pairs).
func scanHints(q string, all []Token) (refs []*HintRef, spans [][2]int) {
	toks := hintTokens(q, all)
	for i := 0; i < len(toks); {
		first := i
		var clauses []HintClause
		for {
			c, next, ok := hintClauseAt(toks, i)
			if !ok {
				break
			}
			clauses = append(clauses, c)
			spans = append(spans, [2]int{toks[i].start, toks[next-1].end})
			i = next
		}
		if len(clauses) == 0 {
			i++
			continue
		}
		if r := refBefore(toks, first); r != nil {
			r.Clauses = clauses
			refs = append(refs, r)
		}
	}
	return refs, spans
}

// hintClauseAt parses a hint clause at toks[i]; next is the token after it.
func hintClauseAt(toks []hintToken, i int) (c HintClause, next int, ok bool) {
	at := func(k int) hintToken {
		if k < len(toks) {
			return toks[k]
		}
		return hintToken{}
	}
	switch {
	case at(i).is("use"):
		c.Kind = HintUse
	case at(i).is("ignore"):
		c.Kind = HintIgnore
	case at(i).is("force"):
		c.Kind = HintForce
	default:
		return c, 0, false
	}
	if !at(i+1).is("index") && !at(i+1).is("key") {
		return c, 0, false
	}
	k := i + 2
	if at(k).is("for") {
		switch {
		case at(k + 1).is("join"):
			k += 2
		case (at(k+1).is("order") || at(k+1).is("group")) && at(k+2).is("by"):
			c.Scoped = true
			k += 3
		default:
			return c, 0, false
		}
	}
	if at(k).punct != '(' {
		return c, 0, false
	}
	k++
	for at(k).punct != ')' {
		if len(c.Names) > 0 {
			if at(k).punct != ',' {
				return c, 0, false
			}
			k++
		}
		if !at(k).ident() {
			return c, 0, false
		}
		c.Names = append(c.Names, at(k).word)
		k++
	}
	if len(c.Names) == 0 && c.Kind != HintUse {
		return c, 0, false // MySQL: a syntax error; left to the parser
	}
	return c, k + 1, true
}

// refBefore reads the table reference that ends before toks[i]:
// [db .] table [[AS] alias].
func refBefore(toks []hintToken, i int) *HintRef {
	at := func(k int) hintToken {
		if k >= 0 && k < len(toks) {
			return toks[k]
		}
		return hintToken{}
	}
	name := func(k int) (db, table string, ok bool) {
		if at(k).punct == ')' {
			// table PARTITION (p, ...): skip the partition list.
			for k--; k >= 0 && at(k).punct != '('; k-- {
			}
			if !at(k - 1).is("partition") {
				return "", "", false
			}
			k -= 2
		}
		if !at(k).ident() {
			return "", "", false
		}
		if at(k-1).punct == '.' && at(k-2).ident() {
			return at(k - 2).word, at(k).word, true
		}
		return "", at(k).word, true
	}
	last := i - 1
	if at(last).punct == ')' {
		if db, table, ok := name(last); ok {
			return &HintRef{DB: db, Table: table}
		}
		return nil
	}
	if !at(last).ident() {
		return nil
	}
	if at(last - 1).is("as") {
		db, table, ok := name(last - 2)
		if !ok {
			return nil
		}
		return &HintRef{DB: db, Table: table, Alias: at(last).word}
	}
	if at(last-1).punct == '.' {
		db, table, _ := name(last)
		return &HintRef{DB: db, Table: table}
	}
	prev := at(last - 1)
	if (prev.ident() && !refStarter(prev)) || prev.punct == ')' {
		db, table, ok := name(last - 1)
		if !ok {
			return nil
		}
		return &HintRef{DB: db, Table: table, Alias: at(last).word}
	}
	return &HintRef{Table: at(last).word}
}

// refStarter reports whether t is a keyword a table name follows (so the
// word after it is the table, not an alias).
func refStarter(t hintToken) bool {
	if t.quoted {
		return false
	}
	switch strings.ToLower(t.word) {
	case "from", "join", "straight_join", "update", "ignore", "low_priority", "into", "using", "table", "lateral":
		return true
	}
	return false
}

// ReadOnly reports whether statement text q is a SELECT, a query in
// parentheses, a WITH or TABLE query, or EXPLAIN/DESCRIBE of a SELECT
// (the statements in which the engine's own view of the indexes may
// follow the hints).
func ReadOnly(q string) bool {
	toks := hintTokens(q, Lex(q))
	for i := 0; i < len(toks); i++ {
		tk := toks[i]
		switch {
		case tk.punct == '(':
			continue
		case tk.is("select"), tk.is("with"), tk.is("table"):
			return true
		case tk.is("explain"), tk.is("describe"), tk.is("desc"):
			// EXPLAIN [FORMAT=x | PLAN | ANALYZE] SELECT ...
			for i++; i < len(toks) && !toks[i].is("select") && !toks[i].is("with") && toks[i].punct != '('; i++ {
				if toks[i].is("update") || toks[i].is("delete") || toks[i].is("insert") || toks[i].is("replace") {
					return false
				}
			}
			return i < len(toks)
		default:
			return false
		}
	}
	return false
}
