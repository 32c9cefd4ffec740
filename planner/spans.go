package planner

import "slices"

// A valSet is a set of values of one column: disjoint, ascending intervals of
// non-NULL values, plus whether NULL is in the set. It is how the planner
// reasons about constraints on one column: which values can make a
// predicate TRUE, which can make it FALSE.
type valSet struct {
	spans []span
	null  bool
}

// bound is one end of an interval; unbounded when inf is set.
type bound struct {
	val  Datum
	incl bool
	inf  bool
}

type span struct {
	lo, hi bound
}

func universe() valSet         { return valSet{spans: []span{fullSpan()}, null: true} }
func nonNull() valSet          { return valSet{spans: []span{fullSpan()}} }
func nullOnly() valSet         { return valSet{null: true} }
func emptySet() valSet         { return valSet{} }
func fullSpan() span           { return span{lo: bound{inf: true}, hi: bound{inf: true}} }
func point(v Datum) span       { return span{lo: bound{val: v, incl: true}, hi: bound{val: v, incl: true}} }
func (s valSet) isEmpty() bool { return len(s.spans) == 0 && !s.null }

// isPoint reports whether sp holds exactly one value.
func (sp span) isPoint(k Kind) bool {
	return !sp.lo.inf && !sp.hi.inf && sp.lo.incl && sp.hi.incl && compareDatums(k, sp.lo.val, sp.hi.val) == 0
}

// isFull reports whether sp is every non-NULL value.
func (sp span) isFull() bool { return sp.lo.inf && sp.hi.inf }

// points returns the values of s if every span is a point.
func (s valSet) points(k Kind) ([]Datum, bool) {
	out := make([]Datum, 0, len(s.spans))
	for _, sp := range s.spans {
		if !sp.isPoint(k) {
			return nil, false
		}
		out = append(out, sp.lo.val)
	}
	return out, true
}

// isUniverseNonNull reports whether s holds every non-NULL value.
func (s valSet) allNonNull() bool { return len(s.spans) == 1 && s.spans[0].isFull() }

// cmpLo compares two lower bounds: which starts first.
func cmpLo(k Kind, a, b bound) int {
	switch {
	case a.inf && b.inf:
		return 0
	case a.inf:
		return -1
	case b.inf:
		return 1
	}
	if c := compareDatums(k, a.val, b.val); c != 0 {
		return c
	}
	switch {
	case a.incl == b.incl:
		return 0
	case a.incl:
		return -1
	}
	return 1
}

// cmpHi compares two upper bounds: which ends last.
func cmpHi(k Kind, a, b bound) int {
	switch {
	case a.inf && b.inf:
		return 0
	case a.inf:
		return 1
	case b.inf:
		return -1
	}
	if c := compareDatums(k, a.val, b.val); c != 0 {
		return c
	}
	switch {
	case a.incl == b.incl:
		return 0
	case a.incl:
		return 1
	}
	return -1
}

// nonEmpty reports whether the interval [lo, hi] holds a value. Integer
// kinds could be tighter ((4,5) is empty), but an over-estimate only costs
// a request, never a row.
func nonEmpty(k Kind, lo, hi bound) bool {
	if lo.inf || hi.inf {
		return true
	}
	c := compareDatums(k, lo.val, hi.val)
	if c == 0 {
		return lo.incl && hi.incl
	}
	if c > 0 {
		return false
	}
	// Integers are discrete: (4, 5) and (4, 5] hold nothing, resp. only 5.
	if !lo.incl && !hi.incl {
		switch k {
		case KindInt:
			return lo.val.(int64) < hi.val.(int64)-1 // hi > lo: no overflow
		case KindUint:
			return lo.val.(uint64) < hi.val.(uint64)-1
		}
	}
	return true
}

// touches reports whether an interval ending at hi and one starting at lo
// overlap or are adjacent, so that their union is one interval.
func touches(k Kind, hi, lo bound) bool {
	if hi.inf || lo.inf {
		return true
	}
	c := compareDatums(k, hi.val, lo.val)
	return c > 0 || (c == 0 && (hi.incl || lo.incl))
}

func intersect(k Kind, a, b valSet) valSet {
	out := valSet{null: a.null && b.null}
	i, j := 0, 0
	for i < len(a.spans) && j < len(b.spans) {
		x, y := a.spans[i], b.spans[j]
		lo := x.lo
		if cmpLo(k, y.lo, lo) > 0 {
			lo = y.lo
		}
		hi := x.hi
		if cmpHi(k, y.hi, hi) < 0 {
			hi = y.hi
		}
		if nonEmpty(k, lo, hi) {
			if out.spans == nil { // one allocation: at most len(a)+len(b)-1 spans
				out.spans = make([]span, 0, len(a.spans)+len(b.spans)-1)
			}
			out.spans = append(out.spans, span{lo, hi})
		}
		if cmpHi(k, x.hi, y.hi) < 0 {
			i++
		} else {
			j++
		}
	}
	return out
}

func union(k Kind, a, b valSet) valSet {
	out := valSet{null: a.null || b.null}
	all := make([]span, 0, len(a.spans)+len(b.spans))
	i, j := 0, 0
	for i < len(a.spans) || j < len(b.spans) {
		if j == len(b.spans) || (i < len(a.spans) && cmpLo(k, a.spans[i].lo, b.spans[j].lo) <= 0) {
			all = append(all, a.spans[i])
			i++
		} else {
			all = append(all, b.spans[j])
			j++
		}
	}
	for _, sp := range all {
		if n := len(out.spans); n > 0 && touches(k, out.spans[n-1].hi, sp.lo) {
			if cmpHi(k, sp.hi, out.spans[n-1].hi) > 0 {
				out.spans[n-1].hi = sp.hi
			}
			continue
		}
		out.spans = append(out.spans, sp)
	}
	return out
}

// complementNonNull returns the non-NULL values not in s.
func complementNonNull(k Kind, s valSet) valSet {
	var out valSet
	lo := bound{inf: true}
	for _, sp := range s.spans {
		if !sp.lo.inf {
			hi := bound{val: sp.lo.val, incl: !sp.lo.incl}
			if nonEmpty(k, lo, hi) {
				out.spans = append(out.spans, span{lo, hi})
			}
		}
		if sp.hi.inf {
			return out
		}
		lo = bound{val: sp.hi.val, incl: !sp.hi.incl}
	}
	out.spans = append(out.spans, span{lo, bound{inf: true}})
	return out
}

// fromPoints builds the set of the given values.
func fromPoints(k Kind, vals []Datum) valSet {
	return fromOwnedPoints(k, slices.Clone(vals))
}

// fromOwnedPoints is fromPoints for a slice of the caller's own, which it
// sorts in place.
func fromOwnedPoints(k Kind, sorted []Datum) valSet {
	slices.SortFunc(sorted, func(a, b Datum) int { return compareDatums(k, a, b) })
	sorted = slices.CompactFunc(sorted, func(a, b Datum) bool { return compareDatums(k, a, b) == 0 })
	s := valSet{spans: make([]span, len(sorted))}
	for i, v := range sorted {
		s.spans[i] = point(v)
	}
	return s
}

// hull returns the smallest single interval holding every span of s.
func (s valSet) hull() span {
	return span{lo: s.spans[0].lo, hi: s.spans[len(s.spans)-1].hi}
}
