package storage

import (
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Expr is a filter expression tree: comparisons of one property with a typed
// literal, combined with And, Or and Not. Its meaning is the Table service's:
//
//   - A comparison whose property is absent from the entity is false, for
//     every operator including Ne. Not inverts that: Not(Eq(p, v)) is true
//     for an entity without p. (So Ne(p, v) and Not(Eq(p, v)) differ exactly
//     on entities that lack p.)
//   - Callers compare a property only with a literal of the property's own
//     type; the result of comparing different types is false on every
//     backend that can tell, and unspecified otherwise.
//   - Strings compare ordinally by UTF-16 code units (CompareKeys), Doubles
//     numerically (IEEE 754: NaN is unequal to everything), DateTimes by
//     instant. Boolean, Binary and GUID support only Eq and Ne.
//   - The pseudo-properties PartitionKey and RowKey (Strings) and Timestamp
//     (a DateTime) can be compared like any property.
type Expr interface {
	isExpr()
}

// Op is a comparison operator.
type Op uint8

const (
	OpEq Op = iota + 1
	OpNe
	OpGt
	OpGe
	OpLt
	OpLe
)

var opNames = [...]string{"", "eq", "ne", "gt", "ge", "lt", "le"}

// String returns the operator's OData name.
func (o Op) String() string {
	if int(o) < len(opNames) && o != 0 {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// Compare is a comparison of property Prop with the literal Value.
type Compare struct {
	Prop  string
	Op    Op
	Value Value
}

// And is true when every operand is; it has at least one operand.
type And []Expr

// Or is true when any operand is; it has at least one operand.
type Or []Expr

// Not inverts its operand.
type Not struct{ X Expr }

func (*Compare) isExpr() {}
func (And) isExpr()      {}
func (Or) isExpr()       {}
func (*Not) isExpr()     {}

// Eq returns the comparison prop eq v; Ne, Gt, Ge, Lt and Le likewise.
func Eq(prop string, v Value) Expr { return &Compare{prop, OpEq, v} }
func Ne(prop string, v Value) Expr { return &Compare{prop, OpNe, v} }
func Gt(prop string, v Value) Expr { return &Compare{prop, OpGt, v} }
func Ge(prop string, v Value) Expr { return &Compare{prop, OpGe, v} }
func Lt(prop string, v Value) Expr { return &Compare{prop, OpLt, v} }
func Le(prop string, v Value) Expr { return &Compare{prop, OpLe, v} }

// Names of the pseudo-properties a filter may compare.
const (
	PropPartitionKey = "PartitionKey"
	PropRowKey       = "RowKey"
	PropTimestamp    = "Timestamp"
)

// PropertyOf returns the value a filter sees for prop in e: a user property,
// or one of the pseudo-properties.
func PropertyOf(e *Entity, prop string) (Value, bool) {
	switch prop {
	case PropPartitionKey:
		return String(e.PartitionKey), true
	case PropRowKey:
		return String(e.RowKey), true
	case PropTimestamp:
		return DateTime(e.Timestamp), true
	}
	v, ok := e.Properties[prop]
	return v, ok
}

// Eval evaluates x against e with the semantics described on Expr. A nil
// filter keeps every entity. It is the reference every backend agrees with.
func Eval(x Expr, e *Entity) bool {
	return EvalFunc(x, func(prop string) (Value, bool) { return PropertyOf(e, prop) })
}

// EvalFunc evaluates x, looking properties up with get; it lets a backend
// evaluate a filter on its own encoding without building an Entity.
func EvalFunc(x Expr, get func(prop string) (Value, bool)) bool {
	switch x := x.(type) {
	case nil:
		return true
	case *Compare:
		v, ok := get(x.Prop)
		return ok && CompareValues(v, x.Op, x.Value)
	case And:
		for _, y := range x {
			if !EvalFunc(y, get) {
				return false
			}
		}
		return true
	case Or:
		for _, y := range x {
			if EvalFunc(y, get) {
				return true
			}
		}
		return false
	case *Not:
		return !EvalFunc(x.X, get)
	}
	panic(fmt.Sprintf("storage: unknown filter expression %T", x))
}

// CompareValues applies op to a stored value v and a literal w. Different
// types compare false; so do orderings of types that support only Eq and Ne.
func CompareValues(v Value, op Op, w Value) bool {
	if v.typ != w.typ {
		return false
	}
	var c int
	switch v.typ {
	case TypeString:
		c = CompareKeys(v.s, w.s)
	case TypeInt32, TypeInt64, TypeDateTime:
		c = cmpInt(v.i, w.i)
	case TypeDouble:
		switch {
		case v.Float() < w.Float():
			c = -1
		case v.Float() > w.Float():
			c = 1
		case v.Float() == w.Float():
			c = 0
		default: // NaN: unordered, so only Ne holds.
			return op == OpNe
		}
	case TypeBoolean:
		c = cmpInt(v.i, w.i)
		if op != OpEq && op != OpNe {
			return false
		}
	case TypeBinary, TypeGUID:
		c = strings.Compare(v.s, w.s)
		if op != OpEq && op != OpNe {
			return false
		}
	default:
		return false
	}
	switch op {
	case OpEq:
		return c == 0
	case OpNe:
		return c != 0
	case OpGt:
		return c > 0
	case OpGe:
		return c >= 0
	case OpLt:
		return c < 0
	case OpLe:
		return c <= 0
	}
	return false
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// CountComparisons returns the number of comparisons in x (the Table service
// accepts at most MaxFilterComparisons in one filter).
func CountComparisons(x Expr) int {
	switch x := x.(type) {
	case *Compare:
		return 1
	case And:
		n := 0
		for _, y := range x {
			n += CountComparisons(y)
		}
		return n
	case Or:
		n := 0
		for _, y := range x {
			n += CountComparisons(y)
		}
		return n
	case *Not:
		return CountComparisons(x.X)
	}
	return 0
}

// ValidateFilter checks that x is well formed: known operators, valid values,
// non-empty And/Or, orderings only on types that have them, and property
// names that are valid or pseudo-properties. Errors wrap ErrInvalid.
func ValidateFilter(x Expr) error {
	switch x := x.(type) {
	case nil:
		return nil
	case *Compare:
		if x == nil {
			return fmt.Errorf("%w: nil comparison", ErrInvalid)
		}
		if x.Op < OpEq || x.Op > OpLe {
			return fmt.Errorf("%w: filter operator %v", ErrInvalid, x.Op)
		}
		if !x.Value.IsValid() {
			return fmt.Errorf("%w: filter on %q compares with an invalid value", ErrInvalid, x.Prop)
		}
		switch x.Prop {
		case PropPartitionKey, PropRowKey:
			if x.Value.typ != TypeString {
				return fmt.Errorf("%w: %s compared with %v", ErrInvalid, x.Prop, x.Value.typ)
			}
		case PropTimestamp:
			if x.Value.typ != TypeDateTime {
				return fmt.Errorf("%w: %s compared with %v", ErrInvalid, x.Prop, x.Value.typ)
			}
		default:
			if err := ValidatePropertyName(x.Prop); err != nil {
				return err
			}
		}
		switch x.Value.typ {
		case TypeBoolean, TypeBinary, TypeGUID:
			if x.Op != OpEq && x.Op != OpNe {
				return fmt.Errorf("%w: %v supports only eq and ne, not %v", ErrInvalid, x.Value.typ, x.Op)
			}
		}
		return validateValue(x.Prop, x.Value)
	case And:
		return validateList("and", x)
	case Or:
		return validateList("or", x)
	case *Not:
		if x == nil || x.X == nil {
			return fmt.Errorf("%w: not without operand", ErrInvalid)
		}
		return ValidateFilter(x.X)
	}
	return fmt.Errorf("%w: unknown filter expression %T", ErrInvalid, x)
}

func validateList(name string, xs []Expr) error {
	if len(xs) == 0 {
		return fmt.Errorf("%w: %s without operands", ErrInvalid, name)
	}
	for _, y := range xs {
		if y == nil {
			return fmt.Errorf("%w: nil operand of %s", ErrInvalid, name)
		}
		if err := ValidateFilter(y); err != nil {
			return err
		}
	}
	return nil
}

// FormatOData renders x in the Table service's $filter syntax. String
// literals are quoted with ” doubled, so any text is data, never syntax.
// It is the one renderer: the Azure backend sends its output, and traces and
// EXPLAIN show it.
func FormatOData(x Expr) string {
	var sb strings.Builder
	formatOData(&sb, x, false)
	return sb.String()
}

func formatOData(sb *strings.Builder, x Expr, nested bool) {
	switch x := x.(type) {
	case nil:
		return
	case *Compare:
		sb.WriteString(x.Prop)
		sb.WriteByte(' ')
		sb.WriteString(x.Op.String())
		sb.WriteByte(' ')
		sb.WriteString(FormatODataLiteral(x.Value))
	case And:
		formatList(sb, " and ", x, nested)
	case Or:
		formatList(sb, " or ", x, nested)
	case *Not:
		sb.WriteString("not (")
		formatOData(sb, x.X, false)
		sb.WriteByte(')')
	}
}

func formatList(sb *strings.Builder, sep string, xs []Expr, nested bool) {
	if len(xs) == 1 {
		formatOData(sb, xs[0], nested)
		return
	}
	if nested {
		sb.WriteByte('(')
	}
	for i, y := range xs {
		if i > 0 {
			sb.WriteString(sep)
		}
		_, isCmp := y.(*Compare)
		if !isCmp {
			if _, isNot := y.(*Not); !isNot {
				sb.WriteByte('(')
				formatOData(sb, y, false)
				sb.WriteByte(')')
				continue
			}
		}
		formatOData(sb, y, true)
	}
	if nested {
		sb.WriteByte(')')
	}
}

// FormatODataLiteral renders one typed literal: 'text', 42, 42L, 1.5,
// true, datetime'…', guid'…', X'…'.
func FormatODataLiteral(v Value) string {
	switch v.typ {
	case TypeString:
		return "'" + strings.ReplaceAll(v.s, "'", "''") + "'"
	case TypeInt32:
		return strconv.FormatInt(v.i, 10)
	case TypeInt64:
		return strconv.FormatInt(v.i, 10) + "L"
	case TypeDouble:
		switch {
		case math.IsNaN(v.Float()):
			return "NaN"
		case math.IsInf(v.Float(), 1):
			return "INF"
		case math.IsInf(v.Float(), -1):
			return "-INF"
		}
		// Plain decimal notation, never an exponent: 1E+21 is valid OData,
		// but Azurite silently matches nothing with it. The shortest digits
		// that round-trip, padded with zeros, are exact in either form.
		s := strconv.FormatFloat(v.Float(), 'f', -1, 64)
		if !strings.Contains(s, ".") { // keep whole numbers Double: 3 -> 3.0
			s += ".0"
		}
		return s
	case TypeBoolean:
		return strconv.FormatBool(v.i != 0)
	case TypeDateTime:
		return "datetime'" + v.Time().Format("2006-01-02T15:04:05.0000000Z") + "'"
	case TypeGUID:
		return "guid'" + FormatGUID(v.GUIDValue()) + "'"
	case TypeBinary:
		return "X'" + hex.EncodeToString(v.Bytes()) + "'"
	}
	return "<invalid>"
}

// FormatGUID renders a GUID in its 8-4-4-4-12 textual form.
func FormatGUID(g [16]byte) string {
	var buf [36]byte
	hex.Encode(buf[0:8], g[0:4])
	buf[8] = '-'
	hex.Encode(buf[9:13], g[4:6])
	buf[13] = '-'
	hex.Encode(buf[14:18], g[6:8])
	buf[18] = '-'
	hex.Encode(buf[19:23], g[8:10])
	buf[23] = '-'
	hex.Encode(buf[24:], g[10:])
	return string(buf[:])
}

// ParseGUID parses the 8-4-4-4-12 textual form of a GUID.
func ParseGUID(s string) ([16]byte, error) {
	var g [16]byte
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return g, fmt.Errorf("%w: malformed GUID %q", ErrInvalid, s)
	}
	h := s[0:8] + s[9:13] + s[14:18] + s[19:23] + s[24:]
	if _, err := hex.Decode(g[:], []byte(h)); err != nil {
		return g, fmt.Errorf("%w: malformed GUID %q", ErrInvalid, s)
	}
	return g, nil
}

// minDateTime and maxDateTime bound the Table service's Edm.DateTime.
var (
	minDateTime = DateTime(time.Date(1601, 1, 1, 0, 0, 0, 0, time.UTC)).i
	maxDateTime = DateTime(time.Date(9999, 12, 31, 23, 59, 59, 999_999_900, time.UTC)).i
)
