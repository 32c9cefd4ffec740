package engine

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// User-variable assignments in expressions: SELECT @v := expr
//
// The parser accepts := only in SET, while MySQL allows it in any
// expression (MariaDB Connector/ODBC builds its SQLColumns query from
// them). rewriteAssignments turns every `@v := expr` of a SELECT into
// sqlgw_assign('v', expr), a function that stores the value in the
// session's user variable and returns it, like MySQL's assignment
// operator. := has the lowest precedence and is right-associative, so expr
// extends to the first comma, closing parenthesis, semicolon or clause
// keyword (FROM, AS, WHEN, THEN, ELSE, END of an outer CASE, ...) at its
// own nesting level. String literals, quoted identifiers and comments are
// copied untouched.

const assignFuncName = "sqlgw_assign"

var assignFunction = sql.Function2{Name: assignFuncName, Fn: func(_ *sql.Context, name, e sql.Expression) sql.Expression {
	return &assignExpr{name: name, child: e}
}}

// assignExpr stores its argument in a user variable and returns it.
type assignExpr struct {
	name  sql.Expression // a string literal
	child sql.Expression
}

var _ sql.FunctionExpression = (*assignExpr)(nil)

func (a *assignExpr) FunctionName() string                { return assignFuncName }
func (a *assignExpr) Description() string                 { return "assigns a user variable and returns the value" }
func (a *assignExpr) Type(ctx *sql.Context) sql.Type      { return a.child.Type(ctx) }
func (a *assignExpr) IsNullable(ctx *sql.Context) bool    { return a.child.IsNullable(ctx) }
func (a *assignExpr) String() string                      { return fmt.Sprintf("%s := %s", a.name, a.child) }
func (a *assignExpr) Children() []sql.Expression          { return []sql.Expression{a.name, a.child} }
func (a *assignExpr) IsNonDeterministic() bool            { return true }
func (a *assignExpr) Resolved() bool                      { return a.name.Resolved() && a.child.Resolved() }
func (a *assignExpr) DebugString(ctx *sql.Context) string { return a.String() }
func (a *assignExpr) WithChildren(_ *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 2 {
		return nil, sql.ErrInvalidChildrenNumber.New(a, len(children), 2)
	}
	return &assignExpr{name: children[0], child: children[1]}, nil
}

func (a *assignExpr) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	n, err := a.name.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	name, ok := n.(string)
	if !ok {
		return nil, fmt.Errorf("%s: the variable name must be a string", assignFuncName)
	}
	v, err := a.child.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	if err := ctx.SetUserVariable(ctx, name, v, a.child.Type(ctx)); err != nil {
		return nil, err
	}
	return v, nil
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

// rewriteAssignments rewrites `@v := expr` in SELECT statements; it
// returns the query unchanged when there is none.
func RewriteAssignments(q string) string {
	if !strings.Contains(q, ":=") {
		return q
	}
	out, _ := rewriteFrom(q, 0, false)
	if out == q {
		return q
	}
	return replaceVarReads(out)
}

// varFuncName reads a user variable assigned in the same statement:
// go-mysql-server types a user variable by its value when the statement
// is planned, so a variable first assigned by the statement itself would
// be typed NULL and always sent as NULL (SELECT @a := 3, @a).
const varFuncName = "sqlgw_var"

var varFunction = sql.Function1{Name: varFuncName, Fn: func(ctx *sql.Context, name sql.Expression) sql.Expression {
	return &varExpr{name: name}
}}

// varExpr evaluates a user variable when the row is evaluated, typed by
// its value at planning time, or as text when it had none.
type varExpr struct {
	name sql.Expression
	typ  sql.Type
}

var _ sql.FunctionExpression = (*varExpr)(nil)

func (v *varExpr) FunctionName() string { return varFuncName }
func (v *varExpr) Description() string  { return "reads a user variable" }
func (v *varExpr) Type(ctx *sql.Context) sql.Type {
	if v.typ != nil {
		return v.typ
	}
	// Fixed at the first call, during planning, before any row assigns
	// the variable.
	v.typ = types.LongText
	if ctx == nil {
		return v.typ
	}
	if n, err := v.name.Eval(ctx, nil); err == nil {
		if name, ok := n.(string); ok {
			if t, val, err := ctx.GetUserVariable(ctx, name); err == nil && t != nil && val != nil && t != types.Null {
				v.typ = t
			}
		}
	}
	return v.typ
}
func (v *varExpr) IsNullable(*sql.Context) bool        { return true }
func (v *varExpr) String() string                      { return fmt.Sprintf("@%s", v.name) }
func (v *varExpr) DebugString(ctx *sql.Context) string { return v.String() }
func (v *varExpr) Children() []sql.Expression          { return []sql.Expression{v.name} }
func (v *varExpr) IsNonDeterministic() bool            { return true }
func (v *varExpr) Resolved() bool                      { return v.name.Resolved() }
func (v *varExpr) WithChildren(ctx *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(v, len(children), 1)
	}
	return &varExpr{name: children[0], typ: v.Type(ctx)}, nil
}

func (v *varExpr) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	n, err := v.name.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	name, ok := n.(string)
	if !ok {
		return nil, fmt.Errorf("%s: the variable name must be a string", varFuncName)
	}
	_, val, err := ctx.GetUserVariable(ctx, name)
	return val, err
}

// replaceVarReads replaces, in SELECT statements that assign user
// variables (sqlgw_assign), the reads of those variables by sqlgw_var.
func replaceVarReads(q string) string {
	assigned := map[string]bool{}
	for i := 0; ; {
		j := strings.Index(q[i:], assignFuncName+"('")
		if j < 0 {
			break
		}
		start := i + j + len(assignFuncName) + 1
		end := skipQuoted(q, start)
		name := strings.ReplaceAll(strings.ReplaceAll(q[start+1:end-1], "''", "'"), `\\`, `\`)
		assigned[strings.ToLower(name)] = true
		i = end
	}
	var b strings.Builder
	stmtStart, selectStmt := true, false
	for i := 0; i < len(q); {
		c := q[i]
		if j := skipComment(q, i); j > i {
			b.WriteString(q[i:j])
			i = j
			continue
		}
		switch {
		case c == '\'' || c == '"' || c == '`':
			j := skipQuoted(q, i)
			b.WriteString(q[i:j])
			i = j
			stmtStart = false
			continue
		case c == ';':
			stmtStart, selectStmt = true, false
		case c == '@' && i+1 < len(q) && q[i+1] == '@':
			j := i + 2
			for j < len(q) && (isIdentByte(q[j]) || q[j] == '.') {
				j++
			}
			b.WriteString(q[i:j])
			i = j
			continue
		case c == '@':
			j := i + 1
			var name string
			if j < len(q) && (q[j] == '\'' || q[j] == '"' || q[j] == '`') {
				k := skipQuoted(q, j)
				if k-j >= 2 {
					quote := string(q[j])
					name = strings.ReplaceAll(q[j+1:k-1], quote+quote, quote)
				}
				j = k
			} else {
				for j < len(q) && (isIdentByte(q[j]) || q[j] == '.') {
					j++
				}
				name = q[i+1 : j]
			}
			k := j
			for k < len(q) && (q[k] == ' ' || q[k] == '\t' || q[k] == '\n' || q[k] == '\r') {
				k++
			}
			if selectStmt && name != "" && assigned[strings.ToLower(name)] && !strings.HasPrefix(q[k:], ":=") {
				b.WriteString(varFuncName + "('" + strings.ReplaceAll(strings.ReplaceAll(name, `\`, `\\`), "'", "''") + "')")
			} else {
				b.WriteString(q[i:j])
			}
			i = j
			continue
		case isIdentByte(c) && (i == 0 || !isIdentByte(q[i-1])):
			j := i
			for j < len(q) && isIdentByte(q[j]) {
				j++
			}
			if stmtStart {
				word := strings.ToUpper(q[i:j])
				selectStmt = word == "SELECT" || word == "WITH"
				stmtStart = false
			}
			b.WriteString(q[i:j])
			i = j
			continue
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '(':
		default:
			stmtStart = false
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

// lexer helpers over q.

func skipQuoted(q string, i int) int {
	quote := q[i]
	i++
	for i < len(q) {
		switch {
		case q[i] == '\\' && quote != '`':
			i += 2
		case q[i] == quote:
			if i+1 < len(q) && q[i+1] == quote {
				i += 2
				continue
			}
			return i + 1
		default:
			i++
		}
	}
	return len(q)
}

// skipComment returns the end of a comment starting at i, or i.
func skipComment(q string, i int) int {
	switch {
	case q[i] == '#':
		if j := strings.IndexByte(q[i:], '\n'); j >= 0 {
			return i + j + 1
		}
		return len(q)
	case strings.HasPrefix(q[i:], "-- ") || strings.HasPrefix(q[i:], "--\t") || strings.HasPrefix(q[i:], "--\n") || q[i:] == "--":
		if j := strings.IndexByte(q[i:], '\n'); j >= 0 {
			return i + j + 1
		}
		return len(q)
	case strings.HasPrefix(q[i:], "/*") && !strings.HasPrefix(q[i:], "/*!"):
		if j := strings.Index(q[i+2:], "*/"); j >= 0 {
			return i + 2 + j + 2
		}
		return len(q)
	}
	return i
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// rewriteFrom copies q from i, rewriting assignments in SELECT statements.
// With inExpr it stops at the end of an assigned expression and returns
// the position there; otherwise it runs to the end of q.
func rewriteFrom(q string, i int, inExpr bool) (string, int) {
	var b strings.Builder
	depth, caseDepth := 0, 0
	operand := false // the last token at depth 0 ends an operand
	stmtStart, selectStmt := true, false
	for i < len(q) {
		c := q[i]
		if j := skipComment(q, i); j > i {
			b.WriteString(q[i:j])
			i = j
			continue
		}
		switch {
		case c == '\'' || c == '"' || c == '`':
			if inExpr && depth == 0 && caseDepth == 0 && operand {
				return b.String(), i // a quoted alias
			}
			operand = true
			j := skipQuoted(q, i)
			b.WriteString(q[i:j])
			i = j
			stmtStart = false
			continue
		case c == '(':
			depth++
			operand = false
		case c == ')':
			if depth == 0 && inExpr {
				return b.String(), i
			}
			depth--
			operand = true
			b.WriteByte(c)
			i++
			continue
		case c == ',' && depth == 0 && inExpr:
			return b.String(), i
		case c == ';':
			if inExpr {
				return b.String(), i
			}
			stmtStart, selectStmt = true, false
			b.WriteByte(c)
			i++
			continue
		case c == '@' && (inExpr || selectStmt) && i+1 < len(q) && q[i+1] != '@':
			operand = true
			if out, j, ok := rewriteAssignment(q, i); ok {
				b.WriteString(out)
				i = j
				continue
			}
			// @name without := : copy the name whole.
			j := i + 1
			if j < len(q) && (q[j] == '\'' || q[j] == '"' || q[j] == '`') {
				j = skipQuoted(q, j)
			} else {
				for j < len(q) && (isIdentByte(q[j]) || q[j] == '.') {
					j++
				}
			}
			b.WriteString(q[i:j])
			i = j
			continue
		case isIdentByte(c) && (i == 0 || !isIdentByte(q[i-1])):
			j := i
			for j < len(q) && isIdentByte(q[j]) {
				j++
			}
			word := strings.ToUpper(q[i:j])
			if stmtStart && !inExpr {
				selectStmt = word == "SELECT" || word == "WITH"
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
					return b.String(), i
				case operand && caseDepth == 0 && !operatorWords[word]:
					return b.String(), i // an implicit alias
				}
				operand = !operatorWords[word]
			}
			b.WriteString(q[i:j])
			i = j
			continue
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		default:
			operand = false
			if stmtStart && !inExpr && c != '(' {
				stmtStart = false
			}
		}
		b.WriteByte(c)
		i++
	}
	return b.String(), i
}

// rewriteAssignment rewrites `@name := expr` at i (q[i] == '@'), or
// reports false when no := follows the name.
func rewriteAssignment(q string, i int) (string, int, bool) {
	j := i + 1
	var name string
	if j < len(q) && (q[j] == '\'' || q[j] == '"' || q[j] == '`') {
		k := skipQuoted(q, j)
		if k-j < 2 {
			return "", 0, false
		}
		quote := string(q[j])
		name = strings.ReplaceAll(q[j+1:k-1], quote+quote, quote)
		j = k
	} else {
		for j < len(q) && (isIdentByte(q[j]) || q[j] == '.') {
			j++
		}
		name = q[i+1 : j]
	}
	if name == "" {
		return "", 0, false
	}
	k := j
	for k < len(q) && (q[k] == ' ' || q[k] == '\t' || q[k] == '\n' || q[k] == '\r') {
		k++
	}
	if !strings.HasPrefix(q[k:], ":=") {
		return "", 0, false
	}
	expr, end := rewriteFrom(q, k+2, true)
	lit := "'" + strings.ReplaceAll(strings.ReplaceAll(name, `\`, `\\`), "'", "''") + "'"
	return assignFuncName + "(" + lit + "," + expr + ")", end, true
}
