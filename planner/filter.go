package planner

import (
	"time"

	"github.com/shopspring/decimal"
	"github.com/sqlgw/sqlgw/storage"
)

// cond is a store filter derived from a predicate: nil x with !never keeps
// every entity; never keeps none. exact says the filter keeps exactly the
// rows it should (see derive), not a superset.
type cond struct {
	x     storage.Expr
	never bool
	exact bool
}

var (
	condAll   = cond{}                         // no restriction, inexact
	condTrue  = cond{exact: true}              // no restriction, exact: the predicate is always TRUE
	condNever = cond{never: true, exact: true} // the predicate is never TRUE
)

func (c cond) comparisons() int { return storage.CountComparisons(c.x) }

// filters is the pair of store filters derived from one predicate: t keeps
// (at least) every row where the predicate is TRUE, f every row where it is
// FALSE. NOT swaps them.
type filters struct{ t, f cond }

// deriver derives filters for one table.
type deriver struct {
	t     Table
	cols  []Column
	noNot bool // Query.NoNot: never send Not
}

// derive returns the filters of x.
func (d *deriver) derive(x Expr) filters {
	switch x := x.(type) {
	case *Cmp:
		return d.cmp(x)
	case *In:
		return d.in(x)
	case *Prefix:
		return d.prefix(x)
	case *IsNull:
		t, f := d.isNull(x.Col)
		if x.Not {
			t, f = f, t
		}
		return filters{t, f}
	case And:
		ts := make([]cond, len(x))
		fs := make([]cond, len(x))
		for i, y := range x {
			r := d.derive(y)
			ts[i], fs[i] = r.t, r.f
		}
		return filters{andConds(ts), orConds(fs)}
	case Or:
		ts := make([]cond, len(x))
		fs := make([]cond, len(x))
		for i, y := range x {
			r := d.derive(y)
			ts[i], fs[i] = r.t, r.f
		}
		return filters{orConds(ts), andConds(fs)}
	case *Not:
		r := d.derive(x.X)
		return filters{r.f, r.t}
	case *Const:
		switch truth(x.Value) {
		case truthTrue:
			return filters{condTrue, condNever}
		case truthFalse:
			return filters{condNever, condTrue}
		case truthNull:
			return filters{condNever, condNever}
		}
	}
	return filters{condAll, condAll}
}

// andConds is the conjunction; an inexact or unknown operand only weakens it.
func andConds(cs []cond) cond {
	out := cond{exact: true}
	var xs storage.And
	for _, c := range cs {
		if c.never {
			return condNever
		}
		out.exact = out.exact && c.exact
		if c.x != nil {
			if a, ok := c.x.(storage.And); ok {
				xs = append(xs, a...)
			} else {
				xs = append(xs, c.x)
			}
		}
	}
	switch len(xs) {
	case 0:
	case 1:
		out.x = xs[0]
	default:
		out.x = xs
	}
	return out
}

// orConds is the disjunction; one unrestricted operand makes it unrestricted.
func orConds(cs []cond) cond {
	out := cond{exact: true}
	var xs storage.Or
	for _, c := range cs {
		if c.never {
			continue
		}
		if c.x == nil {
			return cond{exact: out.exact && c.exact && allExact(cs)}
		}
		out.exact = out.exact && c.exact
		if o, ok := c.x.(storage.Or); ok {
			xs = append(xs, o...)
		} else {
			xs = append(xs, c.x)
		}
	}
	switch len(xs) {
	case 0:
		return condNever
	case 1:
		out.x = xs[0]
	default:
		out.x = xs
	}
	return out
}

func allExact(cs []cond) bool {
	for _, c := range cs {
		if !c.exact {
			return false
		}
	}
	return true
}

// prop returns the property of col, its column, and whether the store can
// evaluate comparisons of kind need on it exactly.
func (d *deriver) prop(col int, need Pushdown) (Column, bool) {
	c := d.cols[col]
	if c.Prop == "" || c.Collated || c.Pushdown < need {
		return c, false
	}
	switch c.Kind {
	case KindOther, KindJSON, KindDuration:
		return c, false
	}
	return c, true
}

// value converts a Datum of the column's kind to the property's value.
func (d *deriver) value(col int, v Datum) (storage.Value, bool) {
	sv, err := d.t.PropertyValue(col, v)
	if err != nil || !sv.IsValid() {
		return storage.Value{}, false
	}
	return sv, true
}

var negOp = map[CmpOp]storage.Op{Eq: storage.OpNe, Ne: storage.OpEq, Lt: storage.OpGe, Le: storage.OpGt, Gt: storage.OpLe, Ge: storage.OpLt}
var posOp = map[CmpOp]storage.Op{Eq: storage.OpEq, Ne: storage.OpNe, Lt: storage.OpLt, Le: storage.OpLe, Gt: storage.OpGt, Ge: storage.OpGe}

func (d *deriver) cmp(x *Cmp) filters {
	if x.Value == nil {
		if x.Op == NullSafeEq {
			return d.derive(&IsNull{Col: x.Col})
		}
		return filters{condNever, condNever}
	}
	need := PushEquality
	switch x.Op {
	case Lt, Le, Gt, Ge:
		need = PushOrdered
	}
	c, ok := d.prop(x.Col, need)
	if !ok {
		return filters{condAll, condAll}
	}
	v, res := convert(c.Kind, x.Value)
	op := x.Op
	switch res {
	case convNone:
		return filters{condAll, condAll}
	case convBelow:
		// The literal lies strictly between v and the next integer.
		present, _ := d.presence(x.Col)
		switch op {
		case Eq:
			return filters{condNever, present}
		case NullSafeEq:
			return filters{condNever, condTrue}
		case Ne:
			return filters{present, condNever}
		case Lt:
			op = Le
		case Ge:
			op = Gt
		}
	}
	sv, ok := d.value(x.Col, v)
	if !ok {
		return filters{condAll, condAll}
	}
	prop := c.Prop
	if op == NullSafeEq {
		eq := storage.Eq(prop, sv)
		f := condAll
		if !d.noNot {
			f = cond{x: &storage.Not{X: eq}, exact: true}
		}
		return filters{cond{x: eq, exact: true}, f}
	}
	return filters{
		cond{x: &storage.Compare{Prop: prop, Op: posOp[op], Value: sv}, exact: true},
		cond{x: &storage.Compare{Prop: prop, Op: negOp[op], Value: sv}, exact: true},
	}
}

func (d *deriver) in(x *In) filters {
	c, ok := d.prop(x.Col, PushEquality)
	if !ok {
		return filters{condAll, condAll}
	}
	var eqs, nes []cond
	hasNull := false
	for _, lit := range x.Values {
		if lit == nil {
			hasNull = true
			continue
		}
		v, res := convert(c.Kind, lit)
		switch res {
		case convNone:
			return filters{condAll, condAll}
		case convBelow:
			continue // equals no value of the column
		}
		sv, ok := d.value(x.Col, v)
		if !ok {
			return filters{condAll, condAll}
		}
		eqs = append(eqs, cond{x: storage.Eq(c.Prop, sv), exact: true})
		nes = append(nes, cond{x: storage.Ne(c.Prop, sv), exact: true})
	}
	t := orConds(eqs) // empty list: never
	var f cond
	switch {
	case hasNull:
		f = condNever // x NOT IN (.., NULL) is never TRUE
	case len(nes) == 0:
		f, _ = d.presence(x.Col)
	default:
		f = andConds(nes)
	}
	if x.Not {
		t, f = f, t
	}
	return filters{t, f}
}

// presence returns the filters "col IS NOT NULL" and "col IS NULL".
func (d *deriver) presence(col int) (present, absent cond) {
	c, ok := d.prop(col, PushEquality)
	if !ok {
		return condAll, condAll
	}
	sv, ok := d.value(col, zeroDatum(c.Kind))
	if !ok {
		return condAll, condAll
	}
	// Every stored value of the property is either eq or ne to sv; an
	// absent property makes both false (storage.Expr).
	eq, ne := storage.Eq(c.Prop, sv), storage.Ne(c.Prop, sv)
	present = cond{x: storage.Or{eq, ne}, exact: true}
	absent = condAll
	if !d.noNot {
		absent = cond{x: storage.And{&storage.Not{X: eq}, &storage.Not{X: ne}}, exact: true}
	}
	return present, absent
}

// isNull returns the filters (t, f) of "col IS NULL".
func (d *deriver) isNull(col int) (t, f cond) {
	present, absent := d.presence(col)
	return absent, present
}

// zeroDatum returns some value of kind k, for presence tests.
func zeroDatum(k Kind) Datum {
	switch k {
	case KindInt, KindDuration:
		return int64(0)
	case KindUint, KindEnum, KindSet, KindBit:
		return uint64(0)
	case KindFloat:
		return float64(0)
	case KindDecimal:
		return decimal.Zero
	case KindString, KindJSON:
		return ""
	case KindBytes:
		return []byte{}
	case KindTime, KindDate:
		return time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	return nil
}

// prefix pushes "col starts with p" as a range of the column's values.
func (d *deriver) prefix(x *Prefix) filters {
	c, ok := d.prop(x.Col, PushOrdered)
	if !ok || (c.Kind != KindString && c.Kind != KindBytes) {
		return filters{condAll, condAll}
	}
	sp := prefixSet(c.Kind, x.Prefix).spans[0]
	var t, f []cond
	if !sp.lo.inf {
		r := d.derive(&Cmp{Col: x.Col, Op: Ge, Value: sp.lo.val})
		t, f = append(t, r.t), append(f, r.f)
	}
	if !sp.hi.inf {
		r := d.derive(&Cmp{Col: x.Col, Op: Lt, Value: sp.hi.val})
		t, f = append(t, r.t), append(f, r.f)
	}
	if len(t) == 0 { // the empty prefix: TRUE for every non-NULL value, never FALSE
		present, _ := d.presence(x.Col)
		return filters{present, condNever}
	}
	return filters{andConds(t), orConds(f)}
}
