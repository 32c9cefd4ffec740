package planner

import "fmt"

// Collated keys
//
// A text key or index column with a case- or accent-insensitive collation
// (utf8mb4_0900_ai_ci, utf8mb4_general_ci, latin1_swedish_ci, ...) or a
// PAD SPACE "_bin" collation (utf8mb4_bin) is keyed by a collation key:
// the catalog encodes its key component from the collation's weights (or
// from the string without trailing spaces), so that values equal under the
// collation share one key and keys sort in collation order. Such a column
// has a Collation. The planner then reasons about the column in the key
// space: Build rewrites every string literal compared with it into its key
// component (Collation.Key) before anything else, and plans as if the
// column held those components (a KindString column compared bytewise,
// which is the collation's order). Equality, IN, tuple IN, ranges,
// BETWEEN and LIKE 'abc%' (Prefix) so become key ranges, points and
// prefixes of the component, on primary keys, partition keys and index
// keys alike; the key Datums handed back to EncodeKey and EncodeIndexKey
// are Collation.Datum(component), which the table appends verbatim.
//
// Exactness. Where the key order is exactly the engine's comparison
// (Collation.Exact: NO PAD weight keys; go-mysql-server compares strings as
// the same per-rune weight sequences), a rewritten =, IN, <, <=, >, >= is
// answered exactly by the keys and leaves the residual like a binary
// column's. Where only key equality is the engine's (Collation.EqualExact:
// PAD SPACE keys without trailing spaces, weighted or "_bin", which the
// engine compares padded, sqlgw/engine/padspace.go), =, <=>, <> and
// [NOT] IN are exact (point lookups and IN-lists stay cacheable) and
// ranges are widened. Everywhere else the range is widened and the
// conjunct stays residual, so the engine rechecks it and the answer is the
// engine's:
//   - PAD SPACE keys drop trailing spaces (one key holds 'a' or 'a '), and
//     the padded key order differs from the engine's after a shared prefix
//     followed by a rune weighing at most a space ('a\t' sorts below 'a'
//     padded, above it trimmed). A range bound v is cut at its first such
//     rune and becomes a key prefix bound (Collation.Prefix): lower bounds
//     >= P, upper bounds < PrefixEnd(P), which holds every string the
//     engine puts on the right side of v.
//   - PAD SPACE weight keys of a table created before the padded key
//     format (catalog.KeyFormatUnpadded) hold the trailing spaces: neither
//     exact, so an equality or IN value is read as the range of its Prefix.
//   - A literal that is not valid UTF-8 (go-mysql-server rewrites
//     LIKE 'abc%' on utf8mb4 into k >= 'abc' AND k <= 'abc\xff') is cut
//     at its first invalid byte the same way.
//   - Prefix (LIKE 'abc%') always stays residual: LIKE compares rune by
//     rune, without padding, and a widened prefix range holds every match.
//
// Filters. The store compares properties bytewise, so comparisons on a
// collated column are never pushed into a store filter (its Pushdown is
// PushNone); a non-key collated column is not constrained at all. Keeping
// a normalised shadow property (the collation key of the value) would make
// them pushable; sqlgw does not write one today, because every read of the
// column would pay for it while only filters on non-indexed collated
// columns would gain; an index on the column is the way to make such
// predicates cheap.

// Collation maps the string values of a collated key column into its key
// space; see the section above.
type Collation interface {
	// Key returns the key component of s; false if s cannot be a key
	// (invalid UTF-8).
	Key(s string) (string, bool)
	// Prefix returns a prefix P of the key space such that the component
	// of every string starting with s starts with P, every string the
	// engine orders at or above s has a component >= P, and every string
	// it orders at or below s has one below PrefixEnd(P).
	Prefix(s string) string
	// Exact reports that components compare exactly as the engine
	// compares the strings (order and equality).
	Exact() bool
	// EqualExact reports that two strings are equal to the engine exactly
	// when their components are equal (a PAD SPACE key without trailing
	// spaces: equal, not ordered, as the engine compares). =, <=>, <>,
	// [NOT] IN are then answered by the keys; ranges need Exact. When it
	// is false (a key holding trailing spaces the engine pads), an
	// equality is read as the range of its Prefix and stays residual.
	EqualExact() bool
	// Datum is the key Datum of a component for EncodeKey and
	// EncodeIndexKey.
	Datum(component string) Datum
}

// collatedTable is t with its collated columns seen in the key space.
type collatedTable struct {
	Table
	it    IndexedTable // nil when t has no indexes
	cols  []Column
	colls map[int]Collation
}

func (c *collatedTable) Columns() []Column { return c.cols }

func (c *collatedTable) keyDatums(cols func(i int) int, vals []Datum) []Datum {
	var out []Datum
	for i, d := range vals {
		s, ok := d.(string)
		if !ok {
			continue
		}
		coll := c.colls[cols(i)]
		if coll == nil {
			continue
		}
		if out == nil {
			out = append([]Datum(nil), vals...)
		}
		out[i] = coll.Datum(s)
	}
	if out == nil {
		return vals
	}
	return out
}

func (c *collatedTable) EncodeKey(part KeyPart, vals []Datum) (string, error) {
	kcs := c.Table.RowKeyColumns()
	if part == PartitionKey {
		kcs = c.Table.PartitionKeyColumns()
	}
	if len(vals) > len(kcs) {
		return "", fmt.Errorf("planner: %d values for %d %v columns", len(vals), len(kcs), part)
	}
	return c.Table.EncodeKey(part, c.keyDatums(func(i int) int { return kcs[i].Col }, vals))
}

func (c *collatedTable) Indexes() []Index {
	if c.it == nil {
		return nil
	}
	return c.it.Indexes()
}

func (c *collatedTable) EncodeIndexKey(ix, first int, vals []Datum) (string, error) {
	if c.it == nil {
		return "", fmt.Errorf("planner: table has no indexes")
	}
	ixs := c.it.Indexes()
	if ix < 0 || ix >= len(ixs) || first+len(vals) > len(ixs[ix].Columns) {
		return "", fmt.Errorf("planner: index %d values out of range", ix)
	}
	cols := ixs[ix].Columns
	return c.it.EncodeIndexKey(ix, first, c.keyDatums(func(i int) int { return cols[first+i].Col }, vals))
}

// collate returns t and q with t's collated columns in the key space (see
// above), or t and q unchanged when t has none. The conjuncts whose
// rewritten form the keys do not answer exactly are marked in q.inexact.
func collate(t Table, q *Query) (Table, *Query) {
	ct := collatedView(t)
	if ct == nil {
		return t, q
	}
	return ct, ct.rewrite(q)
}

// collatedView returns t with its collated columns seen in the key space,
// or nil when t has none.
func collatedView(t Table) *collatedTable {
	cols := t.Columns()
	var ct *collatedTable
	for i, c := range cols {
		if !c.Collated || c.Collation == nil || c.Kind != KindString {
			continue
		}
		if ct == nil {
			ct = &collatedTable{Table: t, cols: append([]Column(nil), cols...), colls: map[int]Collation{}}
			ct.it, _ = t.(IndexedTable)
		}
		nc := c
		nc.Collated, nc.Pushdown = false, PushNone
		if nc.Stored == nil {
			// Keep what storedProps said of the original column.
			if props, ok := c.storedProps(); ok {
				nc.Stored = props
			}
		}
		ct.cols[i] = nc
		ct.colls[i] = c.Collation
	}
	return ct
}

// rewrite returns q with the literals compared with collated columns
// rewritten into the key space, and the conjuncts whose rewritten form the
// keys do not answer exactly marked in inexact.
func (ct *collatedTable) rewrite(q *Query) *Query {
	nq := *q
	nq.Where = make([]Expr, len(q.Where))
	for i, w := range q.Where {
		r := &rewriter{t: ct.Table, colls: ct.colls}
		nq.Where[i] = r.expr(w)
		if r.inexact {
			if nq.inexact == nil {
				nq.inexact = map[int]bool{}
			}
			nq.inexact[i] = true
		}
	}
	return &nq
}

type rewriter struct {
	t       Table
	colls   map[int]Collation
	inexact bool
}

func (r *rewriter) opaque(x Expr, col int) Expr {
	r.inexact = true
	return &Opaque{Text: FormatExpr(x, func(i int) string { return fmt.Sprintf("col%d", i) }), Cols: []int{col}}
}

// prefixRange is the key range of the components that start with p.
func (r *rewriter) prefixRange(col int, p string) Expr {
	lo := &Cmp{Col: col, Op: Ge, Value: p}
	end := r.t.PrefixEnd(p)
	if end == "" {
		return lo
	}
	return And{lo, &Cmp{Col: col, Op: Lt, Value: end}}
}

func (r *rewriter) expr(x Expr) Expr {
	switch x := x.(type) {
	case *Cmp:
		coll := r.colls[x.Col]
		if coll == nil || x.Value == nil {
			return x
		}
		s, ok := x.Value.(string)
		if !ok {
			return r.opaque(x, x.Col) // a number against text: the engine's affair
		}
		key, ok := coll.Key(s)
		switch x.Op {
		case Eq, NullSafeEq:
			switch {
			case !coll.EqualExact():
				r.inexact = true
				return r.prefixRange(x.Col, coll.Prefix(s))
			case !ok:
				return r.opaque(x, x.Col)
			}
			return &Cmp{Col: x.Col, Op: x.Op, Value: key}
		case Ne:
			if !ok || !coll.EqualExact() {
				return r.opaque(x, x.Col)
			}
			return &Cmp{Col: x.Col, Op: Ne, Value: key}
		case Lt, Le, Gt, Ge:
			if ok && coll.Exact() {
				return &Cmp{Col: x.Col, Op: x.Op, Value: key}
			}
			r.inexact = true
			p := coll.Prefix(s)
			if x.Op == Gt || x.Op == Ge {
				return &Cmp{Col: x.Col, Op: Ge, Value: p}
			}
			end := r.t.PrefixEnd(p)
			if end == "" {
				return r.opaque(x, x.Col)
			}
			return &Cmp{Col: x.Col, Op: Lt, Value: end}
		}
		return r.opaque(x, x.Col)
	case *In:
		coll := r.colls[x.Col]
		if coll == nil {
			return x
		}
		if !coll.EqualExact() {
			// Each value's prefix range (see Cmp above).
			if x.Not {
				return r.opaque(x, x.Col)
			}
			var or Or
			for _, d := range x.Values {
				s, ok := d.(string)
				if d != nil && !ok {
					return r.opaque(x, x.Col)
				}
				if ok {
					or = append(or, r.prefixRange(x.Col, coll.Prefix(s)))
				}
			}
			r.inexact = true
			if len(or) == 0 {
				return x // NULLs only: the engine's affair, no key range
			}
			return or
		}
		vals := make([]Datum, len(x.Values))
		for i, d := range x.Values {
			if d == nil {
				continue
			}
			s, ok := d.(string)
			if !ok {
				return r.opaque(x, x.Col)
			}
			key, ok := coll.Key(s)
			if !ok {
				return r.opaque(x, x.Col)
			}
			vals[i] = key
		}
		return &In{Col: x.Col, Values: vals, Not: x.Not}
	case *Prefix:
		coll := r.colls[x.Col]
		if coll == nil {
			return x
		}
		// The key-space range of the prefix, in the key alphabet (a
		// byte-incremented bound could leave it).
		r.inexact = true
		return r.prefixRange(x.Col, coll.Prefix(x.Prefix))
	case And:
		out := make(And, len(x))
		for i, y := range x {
			out[i] = r.expr(y)
		}
		return out
	case Or:
		out := make(Or, len(x))
		for i, y := range x {
			out[i] = r.expr(y)
		}
		return out
	case *Not:
		// Widened forms are not negatable: NOT of a superset is a subset.
		inner := &rewriter{t: r.t, colls: r.colls}
		y := inner.expr(x.X)
		if inner.inexact {
			r.inexact = true
			cols := refs(x.X)
			return &Opaque{Text: "NOT (...)", Cols: cols}
		}
		return &Not{X: y}
	}
	return x
}
