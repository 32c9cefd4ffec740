package compat

import (
	"strings"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// FixLockClauseNames gives the last select expression of a SELECT with a
// locking clause and no FROM its name without the clause's FOR (SELECT 1
// FOR UPDATE: the column is "1" in MySQL, "1 for" in go-mysql-server).
// Vitess's tokenizer reads the token after FOR to tell FOR UPDATE from
// FOR SYSTEM_TIME; the position it notes as the expression's end is then
// after FOR, and the column's name, the text between the positions, ends
// in it, and the parser keeps the quotes of a string literal's name
// ('a' for update). (LOCK IN SHARE MODE has no look-ahead; with FROM, the name ends
// before FROM.)
func FixLockClauseNames(st ast.Statement) {
	if st == nil {
		return
	}
	_ = ast.Walk(func(node ast.SQLNode) (bool, error) {
		s, ok := node.(*ast.Select)
		if !ok || s == nil || s.Lock == nil || len(s.SelectExprs) == 0 {
			return true, nil
		}
		ae, ok := s.SelectExprs[len(s.SelectExprs)-1].(*ast.AliasedExpr)
		if !ok || ae == nil || ae.InputExpression == "" {
			return true, nil
		}
		in := ae.InputExpression
		const kw = "for"
		if len(in) > len(kw) && strings.EqualFold(in[len(in)-len(kw):], kw) {
			rest := in[:len(in)-len(kw)]
			if trimmed := strings.TrimRight(rest, " \t\r\n"); trimmed != rest && trimmed != "" {
				ae.InputExpression = trimQuotes(trimmed)
			}
		}
		return true, nil
	}, st)
}

// trimQuotes is the parser's own (vitess ast.go, unexported): a name that
// is one quoted string loses its quotes.
func trimQuotes(s string) string {
	q := s[0]
	if len(s) < 2 || s[len(s)-1] != q || q != '`' && q != '"' && q != '\'' {
		return s
	}
	quotes, escapes := 0, 0
	for _, c := range []byte(s[1 : len(s)-1]) {
		if c == q && escapes%2 == 0 {
			quotes++
		} else {
			if quotes%2 != 0 {
				return s
			}
			quotes = 0
		}
		if c == '\\' {
			escapes++
		} else {
			escapes = 0
		}
	}
	return s[1 : len(s)-1]
}
