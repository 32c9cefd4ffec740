package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/sqlgw/sqlgw/sqlgw/mysqlerr"
)

// Strict writes
//
// MySQL in strict mode (sqlgw's default sql_mode) rejects a value that does
// not fit its column: ER_WARN_DATA_OUT_OF_RANGE (1264) and ER_DATA_TOO_LONG
// (1406), "... for column 'c' at row N". go-mysql-server
//
//   - in UPDATE and INSERT ... ON DUPLICATE KEY UPDATE, clamps an
//     out-of-range number to the column's range and stores it without a
//     word (UPDATE t SET tinyint_col = 1000 stored 127): SetField ignores
//     the range its conversion reports;
//   - in INSERT, rejects it with "1000 out of range for tinyint" (1105),
//     naming the type, not the column or the row.
//
// The exec builder (explain.go) builds INSERT and single-table UPDATE
// through the two wrappers below: UPDATE's and ON DUPLICATE KEY UPDATE's
// assignments check the range in strict mode (strictSetField), and both
// statements' iterators find the column and the 1-based row of those
// errors (mysqlerr.WriteError), which the connection handler adds when it reports
// them as MySQL's 1264 and 1406 (mysqlerr.go). UPDATE IGNORE and INSERT
// IGNORE convert as MySQL does there, with its warnings (ignoredValue,
// lenientwrite.go), as does a non-strict sql_mode (lenientwrite.go).

// guardKey holds the *writeGuard of the write being built.
type guardKey struct{}

// writeGuard is the state of one INSERT or UPDATE build: the node built
// through the engine's own builder (not wrapped again), the node its rows
// come from (wrapped to count them), and the count.
type writeGuard struct {
	node, source sql.Node
	building     bool // the source is being built by the engine
	rows         int
	// An INSERT's source rows are converted (lenientIter): if lenient
	// (a non-strict INSERT) as MySQL's non-strict conversions
	// (lenientwrite.go), the dates columns' numbers as dates
	// (numericdate.go); schema is the destination's.
	schema  sql.Schema
	lenient bool
	checked bool // not IGNORE: writeValue's checks (writeconv.go)
	// ignore: INSERT IGNORE, whose values convert as ignoredValue
	// (lenientwrite.go); strict: the session's sql_mode is strict.
	ignore, strict bool
	dates          []bool
	order          []int // lenientIter's
}

// buildStrictWrite builds INSERT and single-table UPDATE with MySQL's
// errors, and counts the rows of the write's source (nil, nil for any
// other node).
func (e explainBuilder) buildStrictWrite(ctx *sql.Context, n sql.Node, row sql.Row) (sql.RowIter, error) {
	if it, ok, err := e.buildTriggerWrite(ctx, n, row); ok { // triggers.go
		return it, err
	}
	if g, ok := ctx.Value(guardKey{}).(*writeGuard); ok {
		switch {
		case n == g.node:
			return nil, nil
		case n == g.source && !g.building:
			g.building = true
			it, err := e.exec.Build(ctx, n, row)
			g.building = false
			if err != nil || it == nil {
				return it, err
			}
			var out sql.RowIter = &countingIter{RowIter: it, n: &g.rows}
			if g.lenient || g.checked || g.ignore || g.dates != nil {
				out = &lenientIter{RowIter: out, schema: g.schema, dates: g.dates, lenient: g.lenient, checked: g.checked,
					ignore: g.ignore, strict: g.strict, row: &g.rows, order: g.order} // lenientwrite.go
			}
			return out, nil
		}
	}
	var schema sql.Schema
	var source sql.Node
	var info *InsertStats
	g := &writeGuard{}
	strict := strictMode(ctx) // lenientwrite.go
	switch x := n.(type) {
	case *plan.InsertInto:
		// INSERT IGNORE too: its errors are warnings, but its rows are
		// counted for the info string (insertinfo.go).
		schema, source = x.Destination.Schema(ctx), x.Source
		if wantsInsertInfo(x) {
			info = &InsertStats{Replace: x.IsReplace, Ignore: x.Ignore}
		}
		if !x.Ignore && x.OnDupExprs.HasUpdates() {
			// ON DUPLICATE KEY UPDATE's assignments, as UPDATE's.
			exprs := x.Expressions()
			var out []sql.Expression
			var changed bool
			if strict {
				out, changed = strictAssignments(ctx, exprs, len(x.OnDupExprs.AllExpressions()), &g.rows)
			} else {
				out, changed = lenientAssignments(ctx, exprs, len(x.OnDupExprs.AllExpressions()), schema, &g.rows)
			}
			if changed {
				nn, err := x.WithExpressions(ctx, out...)
				if err != nil {
					return nil, err
				}
				n = nn
			}
		}
		// Non-strict conversions (lenientwrite.go), dates written as
		// numbers (numericdate.go), blank strings into numbers, invalid
		// and zero dates, MySQL's arithmetic (writeconv.go).
		g.schema, g.lenient, g.dates = schema, !x.Ignore && !strict, dateColumns(schema)
		g.dates = undefaulted(schema, g.dates, x.ColumnNames) // zerodate.go
		g.checked = !x.Ignore
		g.ignore, g.strict = x.Ignore, strict
		if !x.Ignore {
			src, err := nodeMySQLArithmetic(ctx, x.Source)
			if err != nil {
				return nil, err
			}
			if src != x.Source {
				n, source = x.WithSource(src), src
			}
		}
		if g.lenient || g.ignore {
			g.order = insertOrder(schema, x.ColumnNames) // the warnings' order
		}
	case *plan.Update:
		us, ok := x.Child.(*plan.UpdateSource)
		if !ok {
			return nil, nil // UPDATE ... JOIN: left to the engine
		}
		// Rows of the update source are rows of the table: the
		// assignments' GetField indexes point into this schema.
		schema, source = us.Child.Schema(ctx), us.Child
		nn, err := strictUpdate(ctx, x, us, strict, schema, &g.rows)
		if err != nil {
			return nil, err
		}
		n = nn
	default:
		return nil, nil
	}
	g.node, g.source = n, source
	it, err := e.exec.Build(ctx.WithContext(context.WithValue(ctx.Context, guardKey{}, g)), n, row)
	if err != nil || it == nil {
		return it, err
	}
	return &strictIter{RowIter: it, schema: schema, g: g, info: info}, nil
}

// strictAssignments returns exprs with the column assignments among the
// first n made strictSetFields.
func strictAssignments(ctx *sql.Context, exprs []sql.Expression, n int, rows *int) ([]sql.Expression, bool) {
	out := make([]sql.Expression, len(exprs))
	changed := false
	for i, ex := range exprs {
		out[i] = ex
		if i >= n {
			continue
		}
		if sf, ok := ex.(*expression.SetField); ok {
			if _, ok := sf.LeftChild.(*expression.GetField); ok {
				out[i], changed = &strictSetField{SetField: assignedArithmetic(ctx, sf), row: rows}, true
			}
		}
	}
	return out, changed
}

// assignedArithmetic is sf with MySQL's arithmetic in its value
// (mysqlArithmetic, writeconv.go).
func assignedArithmetic(ctx *sql.Context, sf *expression.SetField) *expression.SetField {
	right, ok := mysqlArithmetic(ctx, sf.RightChild)
	// A division into a FLOAT, DOUBLE or DECIMAL column, unrounded
	// (floatdiv.go): the direct UPDATE path (directupdate.go) is not
	// analyzed, floatDivRule does not see it.
	if gf, isGF := sf.LeftChild.(*expression.GetField); isGF {
		if x, unrounded := unroundedDivision(ctx, right, gf.Type(ctx)); unrounded {
			right, ok = x, true
		}
	}
	if !ok {
		return sf
	}
	e, err := sf.WithChildren(ctx, sf.LeftChild, right)
	if nsf, isSF := e.(*expression.SetField); err == nil && isSF {
		return nsf
	}
	return sf
}

// strictUpdate returns u with strictSetField assignments, or with
// lenientSetField ones (lenientwrite.go) if not strict or UPDATE IGNORE.
func strictUpdate(ctx *sql.Context, u *plan.Update, us *plan.UpdateSource, strict bool, schema sql.Schema, rows *int) (sql.Node, error) {
	exprs := us.Expressions()
	var out []sql.Expression
	var changed bool
	switch {
	case u.Ignore:
		out, changed = ignoreAssignments(exprs, schema, rows, strict) // lenientwrite.go
	case strict:
		out, changed = strictAssignments(ctx, exprs, len(exprs), rows)
	default:
		out, changed = lenientAssignments(ctx, exprs, len(exprs), schema, rows)
	}
	if !changed {
		return u, nil
	}
	nus, err := us.WithExpressions(ctx, out...)
	if err != nil {
		return nil, err
	}
	return u.WithChildren(ctx, nus)
}

// countingIter counts the rows read from a write's source.
type countingIter struct {
	sql.RowIter
	n *int
}

func (c *countingIter) Next(ctx *sql.Context) (sql.Row, error) {
	r, err := c.RowIter.Next(ctx)
	if err == nil {
		*c.n++
	}
	return r, err
}

// strictIter gives a write's range and length errors MySQL's number,
// column and row. It is a sql.MutableRowIter, so that the engine's
// accumulator (which answers the OK packet) still finds the write's
// iterator under it.
type strictIter struct {
	sql.RowIter
	schema sql.Schema
	g      *writeGuard
	info   *InsertStats // for INSERT's info string, nil if none
}

var _ sql.MutableRowIter = (*strictIter)(nil)

func (s *strictIter) GetChildIter() sql.RowIter { return s.RowIter }

func (s *strictIter) WithChildIter(child sql.RowIter) sql.RowIter {
	c := *s
	c.RowIter = child
	return &c
}

func (s *strictIter) Next(ctx *sql.Context) (sql.Row, error) {
	r, err := s.RowIter.Next(ctx)
	if err != nil && err != io.EOF {
		err = s.translate(ctx, err)
	}
	if err == nil && s.info != nil {
		// The statement's result (the accumulator's OK row): every
		// source row has been read.
		st := *s.info
		st.Records = s.g.rows
		noteInsertStats(ctx, st)
		s.info = nil
	}
	return r, err
}

func (s *strictIter) translate(ctx *sql.Context, err error) error {
	// The failing row is the last one read from the source.
	at := max(s.g.rows, 1)
	var oor *outOfRangeError
	if errors.As(err, &oor) {
		noteWriteError(ctx, mysqlerr.WriteError{Column: oor.column, Row: at})
		return sql.ErrValueOutOfRange.New(oor.value, oor.typ)
	}
	var wtce sql.WrappedTypeConversionError
	if errors.As(err, &wtce) && types.ErrLengthBeyondLimit.Is(wtce.Err) && wtce.OffendingIdx >= 0 && wtce.OffendingIdx < len(s.schema) {
		// UPDATE's assignment (SetField) of a too long string.
		noteWriteError(ctx, mysqlerr.WriteError{Column: s.schema[wtce.OffendingIdx].Name, Row: at})
		return err
	}
	var wie sql.WrappedInsertError
	if !errors.As(err, &wie) {
		return err
	}
	cause := wie.Cause
	if !sql.ErrValueOutOfRange.Is(cause) && !types.ErrConvertToDecimalLimit.Is(cause) && !types.ErrLengthBeyondLimit.Is(cause) {
		return err
	}
	// The column is the first one whose value does not convert, as
	// go-mysql-server's insert checks them in schema order.
	for i, c := range s.schema {
		if i >= len(wie.OffendingRow) || wie.OffendingRow[i] == nil {
			continue
		}
		v := wie.OffendingRow[i]
		var inRange sql.ConvertInRange
		var cerr error
		if rt, ok := c.Type.(sql.RoundingNumberType); ok {
			_, inRange, cerr = rt.ConvertRound(ctx, v)
		} else {
			_, inRange, cerr = c.Type.Convert(ctx, v)
		}
		if cerr == nil && inRange == sql.InRange {
			continue
		}
		noteWriteError(ctx, mysqlerr.WriteError{Column: c.Name, Row: at})
		break
	}
	return err
}

var writeErrors struct {
	mu sync.Mutex
	m  map[*Session]mysqlerr.WriteError
}

func noteWriteError(ctx *sql.Context, we mysqlerr.WriteError) {
	s, ok := ctx.Session.(*Session)
	if !ok {
		return
	}
	writeErrors.mu.Lock()
	if writeErrors.m == nil {
		writeErrors.m = map[*Session]mysqlerr.WriteError{}
	}
	writeErrors.m[s] = we
	writeErrors.mu.Unlock()
}

// takeWriteError returns and forgets the detail of the connection's last
// failed write.
func (g *Gateway) TakeWriteError(conn uint32) *mysqlerr.WriteError {
	s := g.Session(conn)
	if s == nil {
		return nil
	}
	writeErrors.mu.Lock()
	defer writeErrors.mu.Unlock()
	we, ok := writeErrors.m[s]
	if !ok {
		return nil
	}
	delete(writeErrors.m, s)
	return &we
}

// outOfRangeError is strictSetField's error, made the engine's
// ErrValueOutOfRange by strictIter (which knows the row).
type outOfRangeError struct {
	column string
	value  interface{}
	typ    sql.Type
}

func (e *outOfRangeError) Error() string {
	return fmt.Sprintf("Out of range value for column '%s'", e.column)
}

// strictSetField is an UPDATE assignment that fails, instead of clamping,
// when the value is out of the column's range (go-mysql-server's SetField
// with that one check added; everything else is SetField's own code).
type strictSetField struct {
	*expression.SetField
	row *int // the rows read by the statement, nil: 1
}

func (s *strictSetField) Eval(ctx *sql.Context, row sql.Row) (interface{}, error) {
	gf := s.LeftChild.(*expression.GetField)
	if gf.Index() < 0 || gf.Index() >= len(row) {
		return s.SetField.Eval(ctx, row) // the engine's error
	}
	val, err := s.RightChild.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	if val != nil {
		typ := gf.Type(ctx)
		if types.IsTime(typ) || types.IsNumber(typ) || types.IsText(typ) {
			// Dates written as numbers, invalid and zero dates,
			// blank strings into numbers, strings the column's
			// character set cannot hold (writeconv.go).
			n := 1
			if s.row != nil {
				n = max(*s.row, 1)
			}
			val, err = writeValue(ctx, &sql.Column{Name: gf.Name(), Type: typ}, val, n, true, types.IsTime(typ))
			if err != nil {
				return nil, err
			}
		}
		converted, inRange, err := typ.Convert(ctx, val)
		if err != nil {
			// SetField's errors, as it reports them.
			if types.ErrLengthBeyondLimit.Is(err) {
				return nil, sql.NewWrappedTypeConversionError(val, gf.Index(), types.ErrLengthBeyondLimit.New(val, gf.Name()))
			}
			if sql.ErrTruncatedIncorrect.Is(err) {
				err = sql.ErrInvalidValue.New(val, typ)
			}
			return nil, sql.NewWrappedTypeConversionError(val, gf.Index(), err)
		}
		if inRange != sql.InRange {
			return nil, &outOfRangeError{column: gf.Name(), value: val, typ: typ}
		}
		val = converted
	}
	updated := row.Copy()
	updated[gf.Index()] = val
	return updated, nil
}

func (s *strictSetField) WithChildren(ctx *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	return setFieldWithChildren(ctx, s.SetField, children, func(sf *expression.SetField) sql.Expression {
		return &strictSetField{SetField: sf, row: s.row}
	})
}

// setFieldWithChildren is WithChildren of a wrapper of sf: the new
// SetField wrapped again by wrap while it still assigns a column (a
// GetField), else as go-mysql-server made it.
func setFieldWithChildren(ctx *sql.Context, sf *expression.SetField, children []sql.Expression, wrap func(*expression.SetField) sql.Expression) (sql.Expression, error) {
	e, err := sf.WithChildren(ctx, children...)
	if err != nil {
		return nil, err
	}
	nsf, ok := e.(*expression.SetField)
	if !ok {
		return e, nil
	}
	if _, ok := nsf.LeftChild.(*expression.GetField); !ok {
		return nsf, nil
	}
	return wrap(nsf), nil
}
