package sqltext

import "strings"

// AssignFunc and VarFunc are the engine functions Assignments writes:
// sqlgw_assign('v', expr) stores expr's value in user variable v and
// returns it (MySQL's := operator); sqlgw_var('v') reads v when the row
// is evaluated.
const (
	AssignFunc = "sqlgw_assign"
	VarFunc    = "sqlgw_var"
)

// Assignments rewrites every `@v := expr` of a SELECT (or WITH, or DO)
// statement into sqlgw_assign('v', expr). := has the lowest precedence
// and is right-associative, so expr extends to the first comma, closing
// parenthesis, semicolon or clause keyword (FROM, AS, WHEN, THEN, ELSE,
// END of an outer CASE, ...) at its own nesting level, or to an implicit
// alias (SELECT @a := 1 a). In a statement that assigns, every other
// read of an assigned variable becomes sqlgw_var('v'). String literals,
// quoted identifiers and comments are copied untouched; SET keeps its :=.
var Assignments = Step{
	Name: "assignments",
	Upstream: "vitess's parser accepts := only in SET (MySQL: in any expression), and go-mysql-server types a " +
		"user variable by its value at planning, so one the statement assigns first would read as NULL",
	Apply: func(t *Text) {
		if !strings.Contains(t.Src, ":=") {
			return
		}
		a := &assigner{t: t, assigned: map[string]bool{}}
		a.scan(0, false)
		if len(a.assigned) > 0 {
			a.replaceReads()
		}
	},
}

// assignEnd lists the keywords that end an assigned expression at its
// nesting level (WHEN, THEN, ELSE and END only outside a CASE opened
// inside the expression).
var assignEnd = map[string]bool{
	"FROM": true, "AS": true, "WHERE": true, "GROUP": true, "HAVING": true, "ORDER": true,
	"LIMIT": true, "INTO": true, "UNION": true, "FOR": true, "LOCK": true, "WINDOW": true,
	"WHEN": true, "THEN": true, "ELSE": true, "END": true, "EXCEPT": true, "INTERSECT": true,
}

// operatorWords are the keywords that may follow an operand inside an
// expression; any other word after an operand is an implicit alias
// (SELECT @a := 1 a) and ends the expression.
var operatorWords = map[string]bool{
	"AND": true, "OR": true, "XOR": true, "NOT": true, "IS": true, "LIKE": true, "IN": true,
	"BETWEEN": true, "DIV": true, "MOD": true, "REGEXP": true, "RLIKE": true, "COLLATE": true,
	"ESCAPE": true, "SOUNDS": true, "MEMBER": true, "OF": true, "INTERVAL": true, "BINARY": true,
	"CASE": true, "WHEN": true, "THEN": true, "ELSE": true,
}

type assigner struct {
	t        *Text
	assigned map[string]bool // lower-cased names of the assigned variables
}

// scan walks the tokens from k, rewriting assignments in SELECT
// statements. With inExpr it stops at the end of an assigned expression
// and returns the index of the token there; otherwise it runs to the end.
func (a *assigner) scan(k int, inExpr bool) int {
	q, toks := a.t.Src, a.t.Tokens()
	depth, caseDepth := 0, 0
	operand := false // the last token at depth 0 ends an operand
	stmtStart, selectStmt := true, false
	for k < len(toks) {
		tok := toks[k]
		switch tok.Kind {
		case Space, LineComment, Comment, MariaDBComment, HintComment:
		case String, QuotedIdent:
			if inExpr && depth == 0 && caseDepth == 0 && operand {
				return k // a quoted alias
			}
			operand = true
			stmtStart = false
		case Variable:
			if sys := strings.HasPrefix(tok.Text(q), "@@"); sys || !inExpr && !selectStmt {
				operand = sys && (inExpr || selectStmt)
				if !inExpr {
					stmtStart = false
				}
				break
			}
			operand = true
			if end, ok := a.assignment(k); ok {
				k = end
				continue
			}
		case Word, Number:
			word := strings.ToUpper(tok.Text(q))
			if stmtStart && !inExpr {
				selectStmt = word == "SELECT" || word == "WITH" || word == "DO" // DO's list is a SELECT's (do.go)
				stmtStart = false
			}
			if inExpr && depth == 0 {
				switch {
				case word == "CASE":
					caseDepth++
				case word == "END" && caseDepth > 0:
					caseDepth--
				case (word == "WHEN" || word == "THEN" || word == "ELSE") && caseDepth > 0:
				case assignEnd[word]:
					return k
				case operand && caseDepth == 0 && !operatorWords[word]:
					return k // an implicit alias
				}
				operand = !operatorWords[word]
			}
		default: // Op, VersionOpen, VersionClose
			switch text := tok.Text(q); {
			case text == "(":
				depth++
				operand = false
			case text == ")":
				if depth == 0 && inExpr {
					return k
				}
				depth--
				operand = true
			case text == "," && depth == 0 && inExpr:
				return k
			case text == ";":
				if inExpr {
					return k
				}
				stmtStart, selectStmt = true, false
			default:
				// (An executable comment's version number reads as an
				// operand, as the digits always did here.)
				operand = tok.Kind == VersionOpen && len(text) > len("/*!")
				if !inExpr {
					stmtStart = false
				}
			}
		}
		k++
	}
	return k
}

// varName returns the name of a Variable token's text (@name, @'name',
// @"name", @`name`), "" if it has none.
func varName(text string) string {
	if len(text) < 2 {
		return ""
	}
	if c := text[1]; c == '\'' || c == '"' || c == '`' {
		if len(text) < 4 {
			return ""
		}
		quote := string(c)
		return strings.ReplaceAll(text[2:len(text)-1], quote+quote, quote)
	}
	return text[1:]
}

// literal is name as a SQL string literal.
func literal(name string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(name, `\`, `\\`), "'", "''") + "'"
}

// assignment rewrites `@name := expr` at toks[k] (a Variable), or reports
// false when no := follows the name. end is the token after expr.
func (a *assigner) assignment(k int) (end int, ok bool) {
	q, toks := a.t.Src, a.t.Tokens()
	name := varName(toks[k].Text(q))
	if name == "" {
		return 0, false
	}
	op := k + 1
	if op < len(toks) && toks[op].Kind == Space {
		op++
	}
	if op >= len(toks) || !toks[op].IsOp(q, ":=") {
		return 0, false
	}
	a.assigned[strings.ToLower(name)] = true
	a.t.Replace(toks[k].Start, toks[op].End, AssignFunc+"("+literal(name)+",")
	end = a.scan(op+1, true)
	at := len(q)
	if end < len(toks) {
		at = toks[end].Start
	}
	a.t.Insert(at, ")")
	return end, true
}

// replaceReads replaces, in SELECT statements, the reads of the assigned
// variables (a Variable not followed by :=) by sqlgw_var.
func (a *assigner) replaceReads() {
	q, toks := a.t.Src, a.t.Tokens()
	stmtStart, selectStmt := true, false
	for k, tok := range toks {
		switch tok.Kind {
		case Space, LineComment, Comment, MariaDBComment, HintComment:
		case String, QuotedIdent:
			stmtStart = false
		case Word, Number:
			if stmtStart {
				word := strings.ToUpper(tok.Text(q))
				selectStmt = word == "SELECT" || word == "WITH" || word == "DO" // DO's list is a SELECT's (do.go)
				stmtStart = false
			}
		case Variable:
			text := tok.Text(q)
			if strings.HasPrefix(text, "@@") || !selectStmt {
				break
			}
			name := varName(text)
			next := k + 1
			if next < len(toks) && toks[next].Kind == Space {
				next++
			}
			if name != "" && a.assigned[strings.ToLower(name)] && (next >= len(toks) || !toks[next].IsOp(q, ":=")) {
				a.t.Replace(tok.Start, tok.End, VarFunc+"("+literal(name)+")")
			}
		default:
			switch tok.Text(q) {
			case ";":
				stmtStart, selectStmt = true, false
			case "(":
			default:
				stmtStart = false
			}
		}
	}
}
