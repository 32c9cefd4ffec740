package engine

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
)

// A string compared with a number column
//
// MySQL converts a string constant compared with a numeric column (id >
// '5x', id BETWEEN '1x' AND 10) to a number once, when the statement is
// optimized, and warns once for a string that is not a number: 1292
// "Truncated incorrect DOUBLE value: '5x'". go-mysql-server converts the
// literal again for every row it compares, with a warning each time: a
// scan of a million rows gave a million warnings (and the list kept only
// the first 65535 of them). stringNumbers (run where dateNumbers runs:
// the analyzer rule and the lookup's residual filter, rules.go) replaces
// such a literal by numberOnce, the number it denotes, which warns once
// per statement. A string that is a number ('5', ' 10') is left as it
// is: it converts without a warning and stays a literal the planner can
// bound a range with. Upstream, the fix is constant folding of the
// conversion in the comparison (the analyzer's or the comparison's own).

// stringNumbers returns e with the not-a-number string literals compared
// with a numeric column replaced by numberOnce; ok false if none.
func stringNumbers(ctx *sql.Context, e sql.Expression) (sql.Expression, bool) {
	switch e.(type) {
	case *expression.Equals, *expression.NullSafeEquals, *expression.LessThan, *expression.LessThanOrEqual,
		*expression.GreaterThan, *expression.GreaterThanOrEqual:
	case *expression.Between:
		if !numberColumn(ctx, e.Children()[0]) {
			return e, false
		}
	default:
		return e, false
	}
	ch := e.Children()
	hasCol := false
	for _, c := range ch {
		hasCol = hasCol || numberColumn(ctx, c)
	}
	if !hasCol {
		return e, false
	}
	var out []sql.Expression
	for i, c := range ch {
		lit, ok := c.(*expression.Literal)
		if !ok || !types.IsText(lit.Type(ctx)) {
			continue
		}
		s, ok := lit.Value().(string)
		if !ok {
			continue
		}
		n, clean := stringDouble(s)
		if clean {
			continue
		}
		if out == nil {
			out = append([]sql.Expression(nil), ch...)
		}
		out[i] = &numberOnce{text: s, value: n}
	}
	if out == nil {
		return e, false
	}
	ne, err := e.WithChildren(ctx, out...)
	if err != nil {
		return e, false
	}
	return ne, true
}

// numberColumn: e is a column of a numeric type (not BIT, YEAR, ENUM or
// SET, whose comparisons with strings are their own).
func numberColumn(ctx *sql.Context, e sql.Expression) bool {
	gf, ok := e.(*expression.GetField)
	if !ok {
		return false
	}
	t := gf.Type(ctx)
	return types.IsInteger(t) || types.IsFloat(t) || types.IsDecimal(t)
}

// stringDouble is MySQL's reading of s as a DOUBLE: its leading number
// (0 if none), and whether s was nothing else (spaces around aside).
func stringDouble(s string) (float64, bool) {
	p := numericPrefix(s) // lenientwrite.go
	if p == "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(p, 64)
	if err != nil {
		return 0, false
	}
	return f, strings.TrimSpace(s) == strings.TrimLeft(p, " \t\n\r")
}

// numberOnce is a string literal that is not a number, compared with a
// numeric column: its value is the number the string starts with (a
// DOUBLE, as MySQL compares them), and its first evaluation in each
// statement warns 1292.
type numberOnce struct {
	text  string
	value float64

	mu   sync.Mutex
	last struct { // the statement that last warned
		s   sql.Session
		pid uint64
		at  time.Time
	}
}

var _ sql.Expression = (*numberOnce)(nil)

func (n *numberOnce) Resolved() bool                  { return true }
func (n *numberOnce) String() string                  { return "'" + n.text + "'" }
func (n *numberOnce) Type(*sql.Context) sql.Type      { return types.Float64 }
func (n *numberOnce) IsNullable(*sql.Context) bool    { return false }
func (n *numberOnce) Children() []sql.Expression      { return nil }
func (n *numberOnce) IsNonDeterministic() bool        { return false }
func (n *numberOnce) Describe() string                { return n.String() }
func (n *numberOnce) DebugString(*sql.Context) string { return fmt.Sprintf("numberOnce(%q)", n.text) }
func (n *numberOnce) CollationCoercibility(*sql.Context) (sql.CollationID, byte) {
	return sql.Collation_binary, 5
}

func (n *numberOnce) WithChildren(_ *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(n, len(children), 0)
	}
	return n, nil
}

func (n *numberOnce) Eval(ctx *sql.Context, _ sql.Row) (interface{}, error) {
	if ctx != nil && ctx.Session != nil {
		pid, at := ctx.Pid(), ctx.QueryTime()
		n.mu.Lock()
		warn := n.last.s != ctx.Session || n.last.pid != pid || !n.last.at.Equal(at)
		if warn {
			n.last.s, n.last.pid, n.last.at = ctx.Session, pid, at
		}
		n.mu.Unlock()
		if warn {
			ctx.Session.Warn(&sql.Warning{Level: "Warning", Code: mysql.ERTruncatedWrongValue,
				Message: fmt.Sprintf("Truncated incorrect DOUBLE value: '%s'", n.text)})
		}
	}
	return n.value, nil
}
