package sqltext

import "strings"

// DoStatement recognizes MySQL's DO expr [, expr] ...: it evaluates the
// expressions and discards their values, answering OK (vitess's grammar
// has no DO: a syntax error). sel is the SELECT of the same list, which
// the caller runs and whose rows it discards; rest is the text after the
// statement's ';' in a multi-statement text ("" if only blanks and
// comments follow). ok is false for any other statement, for a DO without
// an expression, and for a text with a MySQL executable comment (/*! ...
// */) before the statement's end, left to the parser as before.
func DoStatement(q string) (sel, rest string, ok bool) {
	toks := Lex(q)
	k := 0
	for k < len(toks) && toks[k].Skip() {
		k++
	}
	if k == len(toks) || !toks[k].Is(q, "do") {
		return "", "", false
	}
	start := toks[k].End
	end := len(q)
	code := false
	for j := k + 1; j < len(toks); j++ {
		t := toks[j]
		if t.Kind == VersionOpen || t.Kind == VersionClose {
			return "", "", false
		}
		if t.IsOp(q, ";") {
			end = t.Start
			rest = q[t.End:]
			if IsEmpty(rest) {
				rest = ""
			}
			break
		}
		if !t.Skip() {
			code = true
		}
	}
	if !code {
		return "", "", false
	}
	return "SELECT" + q[start:end], rest, true
}

// DoPrepared marks a prepared DO (PrepareDo): the statement's text, as
// vitess parses and go-mysql-server prepares and runs it, is the SELECT of
// DO's list with this comment after SELECT.
const DoPrepared = "SELECT /*sqlgw-do*/"

// PrepareDo writes a DO statement prepared with COM_STMT_PREPARE as the
// SELECT of its list, marked (DoPrepared): vitess's parser has no DO, and
// checks a prepared text before any handler sees it. The session handler
// answers the marked statement as MySQL answers DO: no columns when
// prepared, OK when executed, the rows discarded (sqlgw/admin
// session_commands.go).
var PrepareDo = Step{
	Name:     "prepare-do",
	Upstream: "vitess's grammar has no DO (COM_STMT_PREPARE of DO 1 is a syntax error)",
	Apply: func(t *Text) {
		if _, rest, ok := DoStatement(t.Src); !ok || rest != "" {
			return
		}
		for _, tok := range t.Tokens() {
			if !tok.Skip() {
				t.Replace(tok.Start, tok.End, DoPrepared) // the DO keyword
				return
			}
		}
	},
}

// IsDoPrepared reports whether q is a DO written by PrepareDo.
func IsDoPrepared(q string) bool {
	return strings.HasPrefix(strings.TrimLeft(q, " \t\n\r\f\v"), DoPrepared)
}

// leadingCode returns the code tokens (not blanks or comments) of q's
// first statement, up to its ';' or the end; false when the statement
// has a MySQL executable comment (left to the parser).
func leadingCode(q string) ([]Token, bool) {
	var out []Token
	for _, t := range Lex(q) {
		if t.Kind == VersionOpen || t.Kind == VersionClose {
			return nil, false
		}
		if t.IsOp(q, ";") {
			break
		}
		if !t.Skip() {
			out = append(out, t)
		}
	}
	return out, true
}

// stmtName is a prepared statement's name as MySQL compares it: a bare
// or `quoted` identifier, in any case.
func stmtName(q string, t Token) (string, bool) {
	switch t.Kind {
	case Word:
		return strings.ToLower(t.Text(q)), true
	case QuotedIdent:
		return strings.ToLower(Unquote(t.Text(q))), true
	}
	return "", false
}

// PrepareFrom recognizes SQL PREPARE name FROM '<text>' and PREPARE name
// FROM @var as q's first statement. For a text that is a DO statement
// (DoStatement, a single statement), out is q with that string (or the
// variable) replaced by the text's SELECT marked DoPrepared, as the
// Prepare pipeline writes a prepared DO (go-mysql-server parses the text
// with vitess's grammar, which has no DO: 1064); isDo tells which. The
// text of FROM @var is userVar's answer for the variable's name (ok false
// when it holds no string, or userVar is nil): MySQL prepares the
// variable's value. ok is false for any other statement.
func PrepareFrom(q string, userVar func(name string) (string, bool)) (name, out string, isDo, ok bool) {
	if !strings.EqualFold(FirstWord(q), "prepare") {
		return "", "", false, false
	}
	toks, ok := leadingCode(q)
	if !ok || len(toks) != 4 || !toks[0].Is(q, "prepare") || !toks[2].Is(q, "from") {
		return "", "", false, false
	}
	name, ok = stmtName(q, toks[1])
	if !ok {
		return "", "", false, false
	}
	lit := toks[3]
	var text string
	switch v := lit.Text(q); {
	case lit.Kind == String:
		text = Unquote(v)
	case lit.Kind == Variable && !strings.HasPrefix(v, "@@") && userVar != nil:
		v = v[1:]
		if v != "" && (v[0] == '\'' || v[0] == '"' || v[0] == '`') {
			v = Unquote(v)
		}
		var held bool
		if text, held = userVar(v); !held {
			return name, q, false, true
		}
	default:
		return name, q, false, true
	}
	if _, rest, isDo := DoStatement(text); !isDo || rest != "" {
		return name, q, false, true
	}
	// As COM_STMT_PREPARE's text: PrepareDo, then the rewrites of its
	// SELECT (Assignments: DO @x := ?).
	sel := Run(text, Prepare).String()
	return name, q[:lit.Start] + quoteString(sel) + q[lit.End:], true, true
}

// quoteString is s as a single-quoted SQL string literal.
func quoteString(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// ExecuteName returns the statement name of EXECUTE name [USING ...], q's
// first statement.
func ExecuteName(q string) (string, bool) {
	if !strings.EqualFold(FirstWord(q), "execute") {
		return "", false
	}
	toks, ok := leadingCode(q)
	if !ok || len(toks) < 2 || !toks[0].Is(q, "execute") {
		return "", false
	}
	if len(toks) > 2 && !toks[2].Is(q, "using") {
		return "", false
	}
	return stmtName(q, toks[1])
}

// NameOfExecute returns the statement name of q's first statement when it
// is EXECUTE name [USING ...] or {DEALLOCATE | DROP} PREPARE name, as the
// client wrote it (unquoted, its case kept: MySQL's error for an unknown
// name quotes it so), and which statement it is: dealloc for DEALLOCATE
// or DROP PREPARE.
func NameOfExecute(q string) (name string, dealloc, ok bool) {
	first := strings.ToLower(FirstWord(q))
	if first != "execute" && first != "deallocate" && first != "drop" {
		return "", false, false
	}
	toks, ok := leadingCode(q)
	if !ok || len(toks) < 2 {
		return "", false, false
	}
	k := 1
	if first != "execute" {
		if len(toks) != 3 || !toks[1].Is(q, "prepare") {
			return "", false, false
		}
		k, dealloc = 2, true
	}
	switch t := toks[k]; t.Kind {
	case Word:
		return t.Text(q), dealloc, true
	case QuotedIdent:
		return Unquote(t.Text(q)), dealloc, true
	}
	return "", false, false
}
