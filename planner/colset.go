package planner

// colSets is what one predicate says about one column: tSet holds every
// value of the column for which the predicate can be TRUE, fSet every value
// for which it can be FALSE. Exact flags say the predicate is TRUE (FALSE)
// for every value in the set, i.e. it depends on this column alone and the
// set is not an over-estimate.
type colSets struct {
	t, f           valSet
	tExact, fExact bool
}

func unknownSets() colSets { return colSets{t: universe(), f: universe()} }

// constrainable reports whether the planner can reason about the values of
// column c (ordered, binary comparison).
func constrainable(c Column) bool { return orderable(c.Kind) && !c.Collated }

// inValues converts an IN list's values to kind k: the exact ones (a
// value no k equals is left out), and whether a NULL is among them; ok is
// false when a value cannot be compared (the list's sets are unknown).
func inValues(k Kind, x *In) (vals []Datum, hasNull, ok bool) {
	return inValuesTo(nil, k, x)
}

// inValuesTo is inValues appending to dst[:0] when it has room for every
// value (else to a new slice).
func inValuesTo(dst []Datum, k Kind, x *In) (vals []Datum, hasNull, ok bool) {
	if cap(dst) >= len(x.Values) {
		vals = dst[:0]
	} else {
		vals = make([]Datum, 0, len(x.Values))
	}
	for _, d := range x.Values {
		if d == nil {
			hasNull = true
			continue
		}
		v, res := convert(k, d)
		switch res {
		case convNone:
			return nil, false, false
		case convExact:
			vals = append(vals, v)
		}
	}
	return vals, hasNull, true
}

// columnTrue is columnSets(col, k, x).t, without the false set where
// that costs (an IN list's complement, intervals between its points; a
// comparison's): the contradiction check reads only the true set.
func columnTrue(col int, k Kind, x Expr) valSet {
	switch x := x.(type) {
	case *In:
		if x.Col == col && !x.Not {
			vals, _, ok := inValues(k, x)
			if !ok {
				return unknownSets().t
			}
			return fromOwnedPoints(k, vals)
		}
	case *Cmp:
		if x.Col == col {
			t, ok := cmpTrue(k, x)
			if !ok {
				return unknownSets().t
			}
			return t
		}
	}
	return columnSets(col, k, x).t
}

// cmpTrue is columnSets' TRUE set of comparison c on its column, always
// exact; ok false where columnSets answers unknownSets (a value that does
// not convert). Template.bindPoint needs only this set: the FALSE one
// (its complement) cost two allocations per execute.
func cmpTrue(k Kind, c *Cmp) (t valSet, ok bool) {
	if c.Value == nil {
		if c.Op == NullSafeEq {
			return nullOnly(), true
		}
		return valSet{}, true // never TRUE
	}
	v, res := convert(k, c.Value)
	if res == convNone {
		return valSet{}, false
	}
	return cmpSet(k, c.Op, v, res), true
}

// columnSets derives the colSets of x for column col (of kind k).
func columnSets(col int, k Kind, x Expr) colSets {
	switch x := x.(type) {
	case *Cmp:
		if x.Col != col {
			return unknownSets()
		}
		t, ok := cmpTrue(k, x)
		if !ok {
			return unknownSets()
		}
		if x.Value == nil {
			if x.Op == NullSafeEq {
				return colSets{t: t, f: nonNull(), tExact: true, fExact: true}
			}
			return colSets{t: t, tExact: true, fExact: true} // never TRUE, never FALSE
		}
		f := complementNonNull(k, t)
		if x.Op == NullSafeEq {
			f.null = true
		}
		return colSets{t: t, f: f, tExact: true, fExact: true}
	case *In:
		if x.Col != col {
			return unknownSets()
		}
		vals, hasNull, ok := inValues(k, x)
		if !ok {
			return unknownSets()
		}
		t := fromOwnedPoints(k, vals)
		f := complementNonNull(k, t)
		if hasNull {
			f = emptySet()
		}
		if x.Not {
			t, f = f, t
		}
		return colSets{t: t, f: f, tExact: true, fExact: true}
	case *Prefix:
		if x.Col != col || (k != KindString && k != KindBytes) {
			return unknownSets()
		}
		t := prefixSet(k, x.Prefix)
		return colSets{t: t, f: complementNonNull(k, t), tExact: true, fExact: true}
	case *IsNull:
		if x.Col != col {
			return unknownSets()
		}
		if x.Not {
			return colSets{t: nonNull(), f: nullOnly(), tExact: true, fExact: true}
		}
		return colSets{t: nullOnly(), f: nonNull(), tExact: true, fExact: true}
	case And:
		out := colSets{t: universe(), f: emptySet(), tExact: true, fExact: true}
		for _, y := range x {
			s := columnSets(col, k, y)
			out.t = intersect(k, out.t, s.t)
			out.f = union(k, out.f, s.f)
			out.tExact = out.tExact && s.tExact
			out.fExact = out.fExact && s.fExact
		}
		return out
	case Or:
		out := colSets{t: emptySet(), f: universe(), tExact: true, fExact: true}
		for _, y := range x {
			s := columnSets(col, k, y)
			out.t = union(k, out.t, s.t)
			out.f = intersect(k, out.f, s.f)
			out.tExact = out.tExact && s.tExact
			out.fExact = out.fExact && s.fExact
		}
		return out
	case *Not:
		s := columnSets(col, k, x.X)
		return colSets{t: s.f, f: s.t, tExact: s.fExact, fExact: s.tExact}
	case *Const:
		switch truth(x.Value) {
		case truthTrue:
			return colSets{t: universe(), f: emptySet(), tExact: true, fExact: true}
		case truthFalse:
			return colSets{t: emptySet(), f: universe(), tExact: true, fExact: true}
		case truthNull:
			return colSets{tExact: true, fExact: true}
		}
	}
	return unknownSets()
}

// cmpSet is the set of non-NULL values v' with "v' op v" TRUE, where v is the
// converted literal (res says whether it is exact or the floor of a value
// strictly between two integers).
func cmpSet(k Kind, op CmpOp, v Datum, res convResult) valSet {
	inf := bound{inf: true}
	one := func(lo, hi bound) valSet { return valSet{spans: []span{{lo, hi}}} }
	if res == convBelow {
		// The literal lies strictly between v and its successor.
		switch op {
		case Eq, NullSafeEq:
			return emptySet()
		case Ne:
			return nonNull()
		case Lt, Le:
			return one(inf, bound{val: v, incl: true})
		default: // Gt, Ge
			return one(bound{val: v}, inf)
		}
	}
	switch op {
	case Eq, NullSafeEq:
		return valSet{spans: []span{point(v)}}
	case Ne:
		return complementNonNull(k, valSet{spans: []span{point(v)}})
	case Lt:
		return one(inf, bound{val: v})
	case Le:
		return one(inf, bound{val: v, incl: true})
	case Gt:
		return one(bound{val: v}, inf)
	default: // Ge
		return one(bound{val: v, incl: true}, inf)
	}
}

type truthValue uint8

const (
	truthUnknown truthValue = iota // not a constant the planner understands
	truthTrue
	truthFalse
	truthNull
)

// truth evaluates a Const's value as MySQL would in a WHERE clause.
func truth(d Datum) truthValue {
	switch v := d.(type) {
	case nil:
		return truthNull
	case bool:
		if v {
			return truthTrue
		}
		return truthFalse
	case int64:
		if v != 0 {
			return truthTrue
		}
		return truthFalse
	case uint64:
		if v != 0 {
			return truthTrue
		}
		return truthFalse
	}
	return truthUnknown
}

// prefixSet is the set of strings (or byte strings) starting with p:
// [p, successor) where the successor increments the last byte below 0xff.
func prefixSet(k Kind, p string) valSet {
	lit := func(s string) Datum {
		if k == KindBytes {
			return []byte(s)
		}
		return s
	}
	sp := span{lo: bound{val: lit(p), incl: true}, hi: bound{inf: true}}
	if p == "" {
		sp.lo = bound{inf: true}
	}
	b := []byte(p)
	for len(b) > 0 && b[len(b)-1] == 0xff {
		b = b[:len(b)-1]
	}
	if len(b) > 0 {
		b[len(b)-1]++
		sp.hi = bound{val: lit(string(b))}
	}
	return valSet{spans: []span{sp}}
}
