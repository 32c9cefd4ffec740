package engine

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/sqlgw/sqltext"
)

// The SET_VAR optimizer hint
//
// MySQL 8.0 sets a variable for one statement by SET_VAR(name = value) in
// the optimizer hint comment after SELECT, INSERT, REPLACE, UPDATE or
// DELETE (SELECT /*+ SET_VAR(sql_mode = '') */ ...). go-mysql-server
// parses the comment and ignores it, silently. sqlgw does not apply it
// either, but says so, as MySQL warns for a hint it cannot apply: each
// SET_VAR of the statement raises a warning when the statement runs
//
//   - a variable SET_VAR cannot set (go-mysql-server's table of
//     variables, SetVarHintApplies): Warning 4537 ER_NOT_HINT_UPDATABLE_
//     VARIABLE "Variable x cannot be set using SET_VAR hint." (MySQL's);
//   - a variable that does not exist: Warning 1193 "Unknown system
//     variable 'x'";
//   - any other (sql_mode, max_execution_time, ...): Warning 1235 that
//     sqlgw does not apply the hint: the statement runs with the
//     session's value.
//
// statementParsed finds them in the statement's text (setVarHintWarnings)
// and the exec builder raises them when the statement runs (explain.go).
// Not covered: statements the plan cache serves without go-mysql-server's
// executor do not warn; the hint in a statement run by EXECUTE.

// erNotHintUpdatableVariable is MySQL's ER_NOT_HINT_UPDATABLE_VARIABLE.
const erNotHintUpdatableVariable = 4537

// hintVerbs are the statements whose first keyword may carry optimizer
// hints.
var hintVerbs = [...]string{"select", "insert", "replace", "update", "delete"}

// setVarHintWarnings returns the warnings of the SET_VAR hints of
// statement q (see above); nil when it has none.
func setVarHintWarnings(q string) []*sql.Warning {
	i := sqltext.SkipSpace(q, 0)
	for i < len(q) && q[i] == '(' {
		i = sqltext.SkipSpace(q, i+1)
	}
	j := i
	for j < len(q) && sqltext.IsIdentByte(q[j]) {
		j++
	}
	verb := false
	for _, v := range hintVerbs {
		if strings.EqualFold(q[i:j], v) {
			verb = true
		}
	}
	if !verb {
		return nil
	}
	j = sqltext.SkipBlanks(q, j)
	if !strings.HasPrefix(q[j:], "/*+") {
		return nil
	}
	body := q[j+3:]
	if k := strings.Index(body, "*/"); k >= 0 {
		body = body[:k]
	}
	var ws []*sql.Warning
	const name = "set_var"
	for k := 0; k+len(name) <= len(body); k++ {
		if !strings.EqualFold(body[k:k+len(name)], name) || k > 0 && sqltext.IsIdentByte(body[k-1]) ||
			k+len(name) < len(body) && sqltext.IsIdentByte(body[k+len(name)]) {
			continue
		}
		p := sqltext.SkipBlanks(body, k+len(name))
		if p >= len(body) || body[p] != '(' {
			continue
		}
		p = sqltext.SkipBlanks(body, p+1)
		e := p
		for e < len(body) && sqltext.IsIdentByte(body[e]) {
			e++
		}
		if e == p {
			continue
		}
		ws = append(ws, setVarWarning(body[p:e]))
		k = e - 1
	}
	return ws
}

// setVarWarning is the warning of SET_VAR(v = ...).
func setVarWarning(v string) *sql.Warning {
	sv, _, ok := sql.SystemVariables.GetGlobal(v)
	if !ok {
		return &sql.Warning{Level: "Warning", Code: mysql.ERUnknownSystemVariable,
			Message: fmt.Sprintf("Unknown system variable '%s'", v)}
	}
	if m, isMySQL := sv.(*sql.MysqlSystemVariable); isMySQL && !m.SetVarHintApplies {
		return &sql.Warning{Level: "Warning", Code: erNotHintUpdatableVariable,
			Message: fmt.Sprintf("Variable %s cannot be set using SET_VAR hint.", m.Name)}
	}
	return &sql.Warning{Level: "Warning", Code: mysql.ERNotSupportedYet,
		Message: fmt.Sprintf("This version of sqlgw doesn't yet support 'the SET_VAR hint (%s)': the statement runs with the session's value", strings.ToLower(v))}
}

// raiseHintWarnings raises the SET_VAR warnings statementParsed found for
// the statement now running, once.
func raiseHintWarnings(ctx *sql.Context) {
	s, ok := ctx.Session.(*Session)
	if !ok || len(s.hintWarns) == 0 {
		return
	}
	ws := s.hintWarns
	s.hintWarns = nil
	for _, w := range ws {
		ctx.Session.Warn(w)
	}
}
