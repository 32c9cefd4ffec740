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
