package sqltext

import "strings"

// Rollup finds GROUP BY ... WITH ROLLUP, which vitess's grammar lacks
// (the parser's 1064 "near 'with rollup'"): Text.Rollup is set, and the
// engine refuses the statement with MySQL's 1235 "not supported" instead
// of a syntax error (sqlgw does not compute super-aggregate rows; see
// docs/compatibility.md). WITH followed by the word ROLLUP and then AS or
// "(" is a common table expression named rollup, left alone.
var Rollup = Step{
	Name:     "rollup",
	Upstream: "vitess's grammar has no GROUP BY ... WITH ROLLUP (1064)",
	Apply: func(t *Text) {
		if !strings.Contains(strings.ToLower(t.Src), "rollup") {
			return
		}
		q := t.Src
		var code []Token
		for _, tok := range t.Tokens() {
			if !tok.Skip() {
				code = append(code, tok)
			}
		}
		for k := 0; k+1 < len(code); k++ {
			if !code[k].Is(q, "with") || !code[k+1].Is(q, "rollup") {
				continue
			}
			if k+2 < len(code) && (code[k+2].Is(q, "as") || code[k+2].IsOp(q, "(")) {
				continue // WITH rollup AS (...): a CTE
			}
			t.Rollup = true
			return
		}
	},
}
