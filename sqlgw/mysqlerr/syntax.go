package mysqlerr

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// Syntax errors (1064)
//
// go-mysql-server returns vitess's parse error as 1105 (HY000) "syntax
// error at position 13 near 'fro'"; MySQL's is 1064 (42000) "You have an
// error in your SQL syntax; check the manual that corresponds to your
// MySQL server version for the right syntax to use near 'fro a' at line
// 1": the text from the token the parser stopped at, at most 80
// characters, '' when the statement ended too early, and the line that
// token is on. Clients and test corpora check the code (every ORM maps
// 1064 to its syntax-error exception), tools show the message.
//
// vitess reports the position just after the last token it read and that
// token (lastNonNilToken); when the statement ended too early, that is
// the statement's last token, exactly as when the parser stopped at that
// last token itself ("SELECT 1, 2 frm t": near 't'). nearSyntax tells the
// two apart by parsing the statement again with a token appended: a
// parser that stopped at the last token stops there again, one that
// wanted more reads on.

// syntaxErrorText is MySQL's 1064 message for the text near the error.
func syntaxErrorText(near string, line int) string {
	if utf8.RuneCountInString(near) > 80 {
		near = string([]rune(near)[:80])
	}
	return "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near '" +
		near + "' at line " + strconv.Itoa(line)
}

// syntaxError is the rule for vitess's parse error: m[1] the position,
// m[2] the token.
func syntaxError(m []string, x *context) (int, string, string) {
	pos, _ := strconv.Atoi(m[1])
	near, line := nearSyntax(x.query, pos, m[2])
	return mysql.ERParseError, "42000", syntaxErrorText(near, line)
}

// nearSyntax returns the text of query from where its parse error is
// (vitess's position pos, tok the last named token it read) and its line:
// "" when the statement ended too early. vitess's tokenizer finds the
// token that ends at pos (tok is not always that one: an operator has no
// text, so "c = = 1" names 'c'). A query that is not the text vitess
// parsed (the error is in a later statement of a multi-statement text)
// gives tok.
func nearSyntax(query string, pos int, tok string) (string, int) {
	trimmed := strings.TrimRight(query, " \t\r\n;")
	start, last, found := tokenEndingAt(query, pos)
	switch {
	case !found && query != "" && pos-1 >= len(trimmed):
		return "", 1 + strings.Count(trimmed, "\n")
	case !found:
		return tok, 1
	case last && !stopsAt(query[:pos-1]+" 1", pos, tok):
		// The statement's last token, and the parser wanted more.
		return "", 1 + strings.Count(trimmed, "\n")
	case last:
		return strings.TrimRight(query[start:], " \t\r\n;"), 1 + strings.Count(query[:start], "\n")
	}
	return query[start:], 1 + strings.Count(query[:start], "\n")
}

// tokenEndingAt returns where the token of query that vitess's tokenizer
// ends at position pos starts, and whether only blanks and ';' follow it.
func tokenEndingAt(query string, pos int) (start int, last, found bool) {
	if pos < 2 || pos-1 > len(query) {
		return 0, false, false
	}
	tkn := sqlparser.NewStringTokenizer(query)
	prevEnd := 0
	for {
		typ, _ := tkn.Scan()
		if typ == 0 || typ == sqlparser.LEX_ERROR || tkn.Position > pos {
			return 0, false, false
		}
		if tkn.Position == pos {
			start = prevEnd
			for start < pos-1 && strings.IndexByte(" \t\r\n", query[start]) >= 0 {
				start++
			}
			return start, strings.TrimRight(query[pos-1:], " \t\r\n;") == "", true
		}
		prevEnd = tkn.Position - 1
	}
}

// stopsAt reports whether vitess's parser fails on query at position pos
// near tok.
func stopsAt(query string, pos int, tok string) bool {
	_, err := sqlparser.Parse(query)
	if err == nil {
		return false
	}
	m := syntaxPattern.FindStringSubmatch(err.Error())
	return m != nil && m[1] == strconv.Itoa(pos) && m[2] == tok
}
