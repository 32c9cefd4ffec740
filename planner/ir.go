package planner

import (
	"fmt"
	"strings"
)

// Datum is one SQL value, in the catalog's Go representation:
//
//	nil            NULL
//	int64          signed integers (TINYINT..BIGINT, BOOL), YEAR, and TIME as microseconds
//	uint64         unsigned integers, ENUM (index), SET (bits), BIT
//	float64        FLOAT, DOUBLE
//	decimal.Decimal DECIMAL (github.com/shopspring/decimal)
//	string         CHAR, VARCHAR, TEXT, JSON (its text)
//	[]byte         BINARY, VARBINARY, BLOB
//	time.Time      DATE, DATETIME, TIMESTAMP
//
// A literal in the predicate IR may have any of these types whatever the
// column's type: the planner converts it to the column's type only where the
// conversion is exact, and otherwise leaves the comparison to the gateway.
type Datum = any

// Expr is a node of the predicate IR: the part of a WHERE clause the planner
// reasons about. sqlgw converts each top-level conjunct of the engine's filter
// into one Expr and keeps the original next to it; Plan.Residual names, by
// position, the conjuncts the engine must still evaluate.
//
// The IR only knows "column op literal". Anything else (column op column,
// LIKE, functions, arithmetic, subqueries, casts the planner cannot prove
// exact) is an Opaque node: never pushed, always residual.
type Expr interface {
	isExpr()
	format(sb *strings.Builder, cols func(int) string)
}

// CmpOp is a comparison operator of SQL.
type CmpOp uint8

// The comparison operators. NullSafeEq is MySQL's <=>.
const (
	Eq CmpOp = iota + 1
	Ne
	Lt
	Le
	Gt
	Ge
	NullSafeEq
)

var cmpOpNames = [...]string{"", "=", "<>", "<", "<=", ">", ">=", "<=>"}

func (o CmpOp) String() string {
	if o > 0 && int(o) < len(cmpOpNames) {
		return cmpOpNames[o]
	}
	return fmt.Sprintf("CmpOp(%d)", uint8(o))
}

// Commute returns the operator of the mirrored comparison: a < 5 is 5 > a.
// sqlgw uses it to turn "literal op column" into "column op literal".
func (o CmpOp) Commute() CmpOp {
	switch o {
	case Lt:
		return Gt
	case Le:
		return Ge
	case Gt:
		return Lt
	case Ge:
		return Le
	}
	return o
}

// Cmp is "column Op literal". Col is the column's ordinal in Table.Columns.
// A nil Value is the NULL literal: col = NULL is never true, col <=> NULL
// is col IS NULL.
type Cmp struct {
	Col   int
	Op    CmpOp
	Value Datum
}

// In is "column [NOT] IN (literals...)". NULLs in the list follow SQL: they
// never match, and they make NOT IN never true.
type In struct {
	Col    int
	Values []Datum
	Not    bool
}

// Prefix is "column starts with Prefix", comparing bytes: what
// "column LIKE 'abc%'" means when the pattern has no other wildcard and the
// column's collation is binary (sqlgw converts only such LIKEs; any other
// LIKE is Opaque). NULL never starts with anything.
type Prefix struct {
	Col    int
	Prefix string
}

// IsNull is "column IS [NOT] NULL".
type IsNull struct {
	Col int
	Not bool
}

// And is a conjunction (inside a conjunct; top-level conjuncts are already
// split by the caller, but a caller may also pass one And).
type And []Expr

// Or is a disjunction.
type Or []Expr

// Not is SQL NOT: NOT NULL is NULL.
type Not struct{ X Expr }

// Const is a constant truth value (TRUE, FALSE, or NULL as Value nil),
// for filters the engine has folded.
type Const struct{ Value Datum }

// Opaque is anything the planner does not understand. It is never pushed to
// the store and always stays residual. Text is shown by EXPLAIN; Cols lists
// the ordinals of the columns it reads, so that the projection sent to the
// store still returns them.
type Opaque struct {
	Text string
	Cols []int
}

func (*Cmp) isExpr()    {}
func (*In) isExpr()     {}
func (*IsNull) isExpr() {}
func (*Prefix) isExpr() {}
func (And) isExpr()     {}
func (Or) isExpr()      {}
func (*Not) isExpr()    {}
func (*Const) isExpr()  {}
func (*Opaque) isExpr() {}

// FormatExpr renders x in SQL syntax, naming columns with name (nil: "#ordinal").
func FormatExpr(x Expr, name func(int) string) string {
	if name == nil {
		name = func(i int) string { return fmt.Sprintf("#%d", i) }
	}
	var sb strings.Builder
	x.format(&sb, name)
	return sb.String()
}

func (x *Cmp) format(sb *strings.Builder, name func(int) string) {
	sb.WriteString(name(x.Col))
	sb.WriteByte(' ')
	sb.WriteString(x.Op.String())
	sb.WriteByte(' ')
	sb.WriteString(FormatDatum(x.Value))
}

func (x *In) format(sb *strings.Builder, name func(int) string) {
	sb.WriteString(name(x.Col))
	if x.Not {
		sb.WriteString(" NOT")
	}
	sb.WriteString(" IN (")
	for i, v := range x.Values {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(FormatDatum(v))
	}
	sb.WriteByte(')')
}

func (x *Prefix) format(sb *strings.Builder, name func(int) string) {
	sb.WriteString(name(x.Col))
	sb.WriteString(" LIKE ")
	p := strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(x.Prefix)
	sb.WriteString(FormatDatum(p + "%"))
}

func (x *IsNull) format(sb *strings.Builder, name func(int) string) {
	sb.WriteString(name(x.Col))
	if x.Not {
		sb.WriteString(" IS NOT NULL")
	} else {
		sb.WriteString(" IS NULL")
	}
}

func (x And) format(sb *strings.Builder, name func(int) string) { formatList(sb, " AND ", x, name) }
func (x Or) format(sb *strings.Builder, name func(int) string)  { formatList(sb, " OR ", x, name) }

func formatList(sb *strings.Builder, sep string, xs []Expr, name func(int) string) {
	sb.WriteByte('(')
	for i, y := range xs {
		if i > 0 {
			sb.WriteString(sep)
		}
		y.format(sb, name)
	}
	sb.WriteByte(')')
}

func (x *Not) format(sb *strings.Builder, name func(int) string) {
	sb.WriteString("NOT (")
	x.X.format(sb, name)
	sb.WriteByte(')')
}

func (x *Const) format(sb *strings.Builder, _ func(int) string) {
	sb.WriteString(FormatDatum(x.Value))
}

func (x *Opaque) format(sb *strings.Builder, _ func(int) string) { sb.WriteString(x.Text) }
