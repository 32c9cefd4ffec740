package sqltext

import "strings"

// CreateSelectAs writes AS before the query of CREATE TABLE ... SELECT
// when the query is a set operation (UNION, EXCEPT, INTERSECT) and no AS
// precedes it: MySQL's grammar makes AS optional, vitess's accepts a set
// operation only after AS (CREATE TABLE t SELECT 1 a UNION SELECT 2 was
// a 1064). The first statement of the text only.
var CreateSelectAs = Step{
	Name:     "create-select-as",
	Upstream: "vitess's grammar parses CREATE TABLE t SELECT ... UNION SELECT ... only with AS",
	Apply: func(t *Text) {
		if !strings.EqualFold(FirstWord(t.Src), "create") {
			return // (no allocation for every other statement)
		}
		w := LeadingWords(t.Src, 3)
		if len(w) < 2 || w[0] != "create" || (w[1] != "table" && !(len(w) > 2 && w[1] == "temporary" && w[2] == "table")) {
			return
		}
		low := strings.ToLower(t.Src)
		if !strings.Contains(low, "select") || !(strings.Contains(low, "union") || strings.Contains(low, "except") || strings.Contains(low, "intersect")) {
			return
		}
		q, toks := t.Src, t.Tokens()
		depth := 0
		sel := -1  // the query's first token: SELECT, or the '(' around it
		prev := -1 // the code token before it
		setop := false
		for k, tok := range toks {
			if tok.Skip() {
				continue
			}
			if tok.Kind == VersionOpen || tok.Kind == VersionClose {
				return // left to the parser
			}
			switch {
			case tok.IsOp(q, ";"):
				if depth == 0 {
					goto done
				}
			case tok.IsOp(q, "("):
				if depth == 0 && sel < 0 && startsSelect(q, toks, k+1) && prev >= 0 && (toks[prev].Is(q, "as") || toks[prev].Kind != Op) {
					// "(SELECT" after the table's name or options: the
					// query (a column list's '(' follows the name too,
					// but holds no SELECT first).
					sel = k
				}
				depth++
			case tok.IsOp(q, ")"):
				depth--
			case depth == 0 && sel < 0 && tok.Is(q, "select"):
				sel = k
			case depth == 0 && sel >= 0 && (tok.Is(q, "union") || tok.Is(q, "except") || tok.Is(q, "intersect")):
				setop = true
			}
			if sel < 0 {
				prev = k
			}
		}
	done:
		if sel < 0 || !setop || prev < 0 || toks[prev].Is(q, "as") || toks[prev].Is(q, "ignore") || toks[prev].Is(q, "replace") {
			return
		}
		t.Insert(toks[sel].Start, "AS ")
	},
}

// startsSelect: the first code token from k on is SELECT (or another '('
// that starts one).
func startsSelect(q string, toks []Token, k int) bool {
	for ; k < len(toks); k++ {
		if toks[k].Skip() {
			continue
		}
		if toks[k].IsOp(q, "(") {
			continue
		}
		return toks[k].Is(q, "select")
	}
	return false
}
