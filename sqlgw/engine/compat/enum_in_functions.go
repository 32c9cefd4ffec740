package compat

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// ENUM and SET columns in IF(), IFNULL(), COALESCE(), STRCMP() and other
// string functions
//
// go-mysql-server evaluates an ENUM column to its index (uint16) and a SET
// column to its bit mask (uint64), and converts them to strings only where
// a column's own type is used (the result set, CASE, comparisons with the
// column's type). IF, IFNULL and COALESCE take the generalized type of
// their branches (LONGTEXT for an ENUM and a string) and convert the
// branch's value to it, so IF(1, t, 'x') gives '1', not 'BASE TABLE';
// STRCMP compares '1' with 'BASE TABLE'; GREATEST and LEAST refuse an
// ENUM argument ("unsupported type"). MySQL uses an ENUM or SET in a
// string function by its string value. MySQL Connector/C++'s getTables
// (IF(STRCMP(TABLE_TYPE,'BASE TABLE'), TABLE_TYPE, 'TABLE'), where
// information_schema.TABLES.TABLE_TYPE is an ENUM) returned no table.
//
// The fix is where the functions are built, not an analyzer rule:
// go-mysql-server runs no custom rule for a simple single-table SELECT, the
// very query that shows the bug. The engine's provider is a sql.FunctionProvider,
// consulted before the built-in registry, that returns these functions and
// the other string functions that misread an ENUM (LOWER gave an error,
// SUBSTRING the whole value, REPLACE/CONCAT_WS/ELT the index, FIELD 0) with
// every ENUM/SET column argument in a string position (enumStringArgs)
// wrapped in enumString, which evaluates to the member's string. Numeric
// contexts (t+0, SUM(t), IF's condition) keep the index, as in MySQL.

// enumStringArgs names the built-in string functions whose ENUM/SET column
// arguments are wrapped, each with the argument positions MySQL reads as
// strings (IF's condition, ELT's index, SUBSTRING's position and length
// are numbers: an ENUM there is its index, as in MySQL).
var enumStringArgs = func() map[string]func(i int) bool {
	all := func(int) bool { return true }
	first := func(i int) bool { return i == 0 }
	from1 := func(i int) bool { return i >= 1 }
	m := map[string]func(i int) bool{
		"if": from1, "elt": from1,
		"lpad": func(i int) bool { return i != 1 }, "rpad": func(i int) bool { return i != 1 },
		"insert":          func(i int) bool { return i == 0 || i == 3 },
		"locate":          func(i int) bool { return i < 2 },
		"substring_index": func(i int) bool { return i < 2 },
	}
	for _, n := range []string{"ifnull", "coalesce", "nullif", "strcmp", "greatest", "least", "concat", "concat_ws",
		"field", "find_in_set", "replace", "instr"} {
		m[n] = all
	}
	for _, n := range []string{"lower", "lcase", "upper", "ucase", "trim", "ltrim", "rtrim", "reverse", "char_length",
		"character_length", "length", "octet_length", "bit_length", "hex", "quote", "soundex", "ascii", "ord",
		"substring", "substr", "mid", "left", "right", "repeat"} {
		m[n] = first
	}
	return m
}()

// builtins looks up the functions wrapped.
var builtins = function.NewRegistry()

// EnumStringFunction returns the built-in function name (any case) with its
// ENUM/SET column arguments in string positions read as strings, or false
// when name is not one of enumStringArgs. The engine's database provider
// answers sql.FunctionProvider's Function with it: the analyzer's catalog
// asks the provider before its built-in registry.
func EnumStringFunction(ctx *sql.Context, name string) (sql.Function, bool) {
	name = strings.ToLower(name)
	strArg, ok := enumStringArgs[name]
	if !ok {
		return nil, false
	}
	f, ok := builtins.Function(ctx, name)
	if !ok {
		return nil, false
	}
	return enumStringFunc{Function: f, strArg: strArg}, true
}

// enumStringFunc is a built-in function whose ENUM/SET column arguments in
// string positions are their strings.
type enumStringFunc struct {
	sql.Function
	strArg func(i int) bool
}

func (f enumStringFunc) NewInstance(ctx *sql.Context, args []sql.Expression) (sql.Expression, error) {
	wrapped := make([]sql.Expression, len(args))
	for i, a := range args {
		wrapped[i] = a
		if f.strArg(i) {
			wrapped[i] = enumAsString(a)
		}
	}
	return f.Function.NewInstance(ctx, wrapped)
}

// enumAsString wraps e in enumString if e is a column of ENUM or SET type.
// Only column references are considered: the planner builds functions with
// a nil context, and a column's Type needs none.
func enumAsString(e sql.Expression) sql.Expression {
	gf, ok := e.(*expression.GetField)
	if !ok {
		return e
	}
	switch gf.Type(nil).(type) {
	case sql.EnumType, sql.SetType:
		return &enumString{child: e}
	}
	return e
}

// enumString is an ENUM or SET value as its string (MySQL's string
// context): the member for an index, the comma-separated members for a
// bit mask.
type enumString struct {
	child sql.Expression
}

var (
	_ sql.Expression         = (*enumString)(nil)
	_ sql.CollationCoercible = (*enumString)(nil)
	_ sql.DebugStringer      = (*enumString)(nil)
)

func (e *enumString) Resolved() bool { return e.child.Resolved() }
func (e *enumString) String() string { return e.child.String() }
func (e *enumString) DebugString(ctx *sql.Context) string {
	return fmt.Sprintf("enum_string(%s)", sql.DebugString(ctx, e.child))
}
func (e *enumString) IsNullable(ctx *sql.Context) bool { return e.child.IsNullable(ctx) }
func (e *enumString) Children() []sql.Expression       { return []sql.Expression{e.child} }
func (e *enumString) IsNonDeterministic() bool         { return false }

func (e *enumString) WithChildren(_ *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(e, len(children), 1)
	}
	return &enumString{child: children[0]}, nil
}

// Type is a VARCHAR as long as the longest member (SET: all of them).
func (e *enumString) Type(ctx *sql.Context) sql.Type {
	var coll sql.CollationID
	n := 0
	switch t := e.child.Type(ctx).(type) {
	case sql.EnumType:
		coll = t.Collation()
		for _, v := range t.Values() {
			n = max(n, len([]rune(v)))
		}
	case sql.SetType:
		coll = t.Collation()
		for _, v := range t.Values() {
			n += len([]rune(v)) + 1
		}
	default:
		return e.child.Type(ctx)
	}
	return types.MustCreateString(sqltypes.VarChar, int64(max(n, 1)), coll)
}

func (e *enumString) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return sql.GetCoercibility(ctx, e.child)
}

func (e *enumString) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := e.child.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	switch t := e.child.Type(ctx).(type) {
	case sql.EnumType:
		if i, ok := enumIndex(v); ok {
			s, _ := t.At(i) // index 0 (the error value) is ''
			return s, nil
		}
	case sql.SetType:
		if bits, ok := v.(uint64); ok {
			return t.BitsToString(bits)
		}
	}
	return v, nil // already a string
}

func enumIndex(v any) (int, bool) {
	switch x := v.(type) {
	case uint16:
		return int(x), true
	case uint8:
		return int(x), true
	case int:
		return x, true
	case int64:
		return int(x), true
	case uint64:
		return int(x), true
	}
	return 0, false
}
