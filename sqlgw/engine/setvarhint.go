package engine

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/sqlgw/sqltext"
)

// The SET_VAR optimizer hint
//
// MySQL 8.0 sets a variable for one statement by SET_VAR(name = value) in
// the optimizer hint comment after SELECT, INSERT, REPLACE, UPDATE or
// DELETE (SELECT /*+ SET_VAR(sql_mode = '') */ ...): the session's value
// is the hint's while the statement runs, and the old one again after it,
// whether it succeeded or failed. go-mysql-server parses the comment and
// ignores it. sqlgw applies it (applySetVarHints):
//
//   - a variable the hint can set (MySQL's list, go-mysql-server's
//     SetVarHintApplies: sql_mode, foreign_key_checks, unique_checks,
//     sql_select_limit, div_precision_increment, max_execution_time,
//     sort_buffer_size, optimizer_switch, ...) is set in the session with
//     SET's conversion; a value it refuses is MySQL's Warning 1231
//     "Variable 'x' can't be set to the value of 'v'", and the statement
//     runs with the session's value;
//   - a variable SET_VAR cannot set (transaction_read_only, autocommit,
//     time_zone, ...): Warning 4537 ER_NOT_HINT_UPDATABLE_VARIABLE
//     "Variable x cannot be set using SET_VAR hint." (MySQL's);
//   - a variable that does not exist: Warning 1193 "Unknown system
//     variable 'x'".
//
// The hint is applied when a query or execute starts, before the plan
// cache looks at the session's variables (earlyHints: FastLane.Query,
// FastLane.StmtExecute), again when the statement is parsed
// (statementParsed, so that the analysis sees it: ONLY_FULL_GROUP_BY,
// sql_select_limit), and, if neither did, when its plan is first built
// (the exec builder, explain.go). The old values are put back when the statement ends:
// Gateway.EndStatement (the wire handler calls it after every query and
// execute, failed or not), Session.CommandEnd, and before the next
// statement's hints are applied. Setting goes through the session's
// SetSessionVariable, which counts the generation of the session's
// variables up (stmtvars.go): a plan the plan cache keeps checks the
// session's sql_mode, sql_select_limit and div_precision_increment before
// it runs, so it neither serves a statement under the hint's values nor
// keeps a plan built under them. A statement with a hint is never cached
// itself (its comment: cacheableShape, the dual and direct-write paths).
//
// Not covered: max_execution_time set by the hint bounds nothing (the
// wire layer takes the statement's deadline before it is parsed; the
// MAX_EXECUTION_TIME(n) hint does); a duplicate SET_VAR of one variable
// sets the first one's value without MySQL's warning 3126; a hint inside
// a statement run by EXECUTE (text PREPARE) is not applied.

// erNotHintUpdatableVariable is MySQL's ER_NOT_HINT_UPDATABLE_VARIABLE.
const erNotHintUpdatableVariable = 4537

// erWrongValueForVar is MySQL's ER_WRONG_VALUE_FOR_VAR.
const erWrongValueForVar = 1231

// hintVerbs are the statements whose first keyword may carry optimizer
// hints.
var hintVerbs = [...]string{"select", "insert", "replace", "update", "delete"}

// setVarHint is one SET_VAR(name = value) of a statement; value is the
// value's text (a quoted string with its quotes), "" if none was found.
type setVarHint struct {
	name, value string
}

// setVarHints returns the SET_VAR hints of statement q; nil when it has
// none.
func setVarHints(q string) []setVarHint {
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
	var hs []setVarHint
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
		h := setVarHint{name: body[p:e]}
		v := sqltext.SkipBlanks(body, e)
		if v < len(body) && body[v] == '=' {
			v = sqltext.SkipBlanks(body, v+1)
			end := hintValueEnd(body, v)
			h.value = strings.TrimRight(body[v:end], " \t\r\n")
			e = end
		}
		hs = append(hs, h)
		k = e - 1
	}
	return hs
}

// hintValueEnd is where the value starting at body[v] ends: at the ')'
// closing the SET_VAR, outside quotes.
func hintValueEnd(body string, v int) int {
	for i := v; i < len(body); i++ {
		switch c := body[i]; c {
		case '\'', '"':
			for i++; i < len(body); i++ {
				if body[i] == '\\' {
					i++
					continue
				}
				if body[i] == c {
					if i+1 < len(body) && body[i+1] == c {
						i++
						continue
					}
					break
				}
			}
		case ')':
			return i
		}
	}
	return len(body)
}

// hintValue is the value of a SET_VAR's text: a quoted string's text, an
// integer or a decimal number as such, any other word (ON, OFF, a mode
// name) as a string.
func hintValue(s string) any {
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		q := s[0]
		var b strings.Builder
		for i := 1; i < len(s)-1; i++ {
			c := s[i]
			if c == '\\' && i+1 < len(s)-1 {
				i++
				b.WriteByte(s[i])
				continue
			}
			if c == q && i+1 < len(s)-1 && s[i+1] == q {
				i++
			}
			b.WriteByte(c)
		}
		return b.String()
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n
	}
	if n, err := strconv.ParseUint(s, 10, 64); err == nil {
		return n
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f
	}
	return s
}

// hintVarSet is a variable a SET_VAR hint set, with the session's value to
// put back.
type hintVarSet struct {
	name string
	old  any
}

// applySetVarHints applies the SET_VAR hints of statement q (see above)
// to the session, after putting back what an earlier statement's hints
// set, and keeps the warnings for the statement's run (raiseHintWarnings).
func (s *Session) applySetVarHints(ctx *sql.Context, q string) {
	s.restoreHintVars()
	s.hintDone = true
	s.hintWarns = nil
	if !strings.Contains(q, "/*+") {
		return
	}
	for _, h := range setVarHints(q) {
		sv, _, ok := sql.SystemVariables.GetGlobal(h.name)
		if !ok {
			s.hintWarns = append(s.hintWarns, &sql.Warning{Level: "Warning", Code: mysql.ERUnknownSystemVariable,
				Message: fmt.Sprintf("Unknown system variable '%s'", h.name)})
			continue
		}
		if m, isMySQL := sv.(*sql.MysqlSystemVariable); isMySQL && !m.SetVarHintApplies || !isMySQL {
			s.hintWarns = append(s.hintWarns, &sql.Warning{Level: "Warning", Code: erNotHintUpdatableVariable,
				Message: fmt.Sprintf("Variable %s cannot be set using SET_VAR hint.", sv.GetName())})
			continue
		}
		old, err := s.BaseSession.GetSessionVariable(ctx, sv.GetName())
		if err != nil {
			continue
		}
		if err := s.SetSessionVariable(ctx, sv.GetName(), hintValue(h.value)); err != nil {
			s.hintWarns = append(s.hintWarns, hintSetWarning(sv.GetName(), h.value, err))
			continue
		}
		s.hintVars = append(s.hintVars, hintVarSet{name: sv.GetName(), old: old})
	}
}

// hintSetWarning is the warning of a SET_VAR whose value the variable
// refuses: MySQL's 1231, or the error's own number.
func hintSetWarning(name, value string, err error) *sql.Warning {
	var se *mysql.SQLError
	if errors.As(err, &se) {
		return &sql.Warning{Level: "Warning", Code: se.Number(), Message: se.Message}
	}
	v := value
	if x, ok := hintValue(value).(string); ok {
		v = x
	}
	return &sql.Warning{Level: "Warning", Code: erWrongValueForVar,
		Message: fmt.Sprintf("Variable '%s' can't be set to the value of '%s'", name, v)}
}

// restoreHintVars puts back the session's values that a statement's
// SET_VAR hints replaced, the last set first.
func (s *Session) restoreHintVars() {
	s.hintDone = false
	if len(s.hintVars) == 0 {
		return
	}
	vars := s.hintVars
	s.hintVars = nil
	ctx := sql.NewContext(context.Background(), sql.WithSession(s))
	for i := len(vars) - 1; i >= 0; i-- {
		_ = s.SetSessionVariable(ctx, vars[i].name, vars[i].old) // (a value the variable held)
	}
}

// earlyHints applies the SET_VAR hints of statement q as a query or
// execute starts, before the plan cache and the sql_select_limit path
// (selectlimit.go) look at the session's variables (the statement's parse,
// if any, applies them again).
func (s *Session) earlyHints(ctx context.Context, q string) {
	if !strings.Contains(q, "/*+") {
		return
	}
	s.applySetVarHints(sql.NewContext(ctx, sql.WithSession(s)), q)
}

// hintsBuilt applies the SET_VAR hints of the statement whose plan is
// built if its parse did not (a binary-protocol execution), and raises
// their warnings, once.
func hintsBuilt(ctx *sql.Context) {
	s, ok := ctx.Session.(*Session)
	if !ok {
		return
	}
	if !s.hintDone {
		s.applySetVarHints(ctx, ctx.Query())
	}
	if len(s.hintWarns) == 0 {
		return
	}
	ws := s.hintWarns
	s.hintWarns = nil
	for _, w := range ws {
		ctx.Session.Warn(w)
	}
}
