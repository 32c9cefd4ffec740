package sqltext

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
