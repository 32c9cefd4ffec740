package planner

import "fmt"

// MaxKeys caps the number of keys (Gets) or partitions one plan enumerates
// from IN lists and ORs; beyond it the planner uses fewer key columns.
const MaxKeys = 1000

// Build plans reading t under q. It is pure (no I/O) and safe for
// concurrent use as long as t is not modified. It fails only on malformed
// input (an ordinal out of range, an unknown Expr type such as *Or instead
// of Or); a value that cannot be a key or a property only makes the plan
// use less of it. The result is never nil on success; Path Empty means no
// row can match and nothing is to be read.
func Build(t Table, q *Query) (*Plan, error) {
	cols := t.Columns()
	if err := checkQuery(q, len(cols)); err != nil {
		return nil, err
	}
	where := q.Where
	t, q = collate(t, q)
	b := &builder{t: t, q: q, cols: t.Columns()}
	p, err := b.build()
	if p != nil {
		p.where = where // EXPLAIN shows the conjuncts as written
	}
	return p, err
}

func checkQuery(q *Query, n int) error {
	if q == nil {
		return fmt.Errorf("planner: nil query")
	}
	for _, c := range q.Columns {
		if c < 0 || c >= n {
			return fmt.Errorf("planner: column ordinal %d out of range (%d columns)", c, n)
		}
	}
	for _, o := range q.OrderBy {
		if o.Col < 0 || o.Col >= n {
			return fmt.Errorf("planner: ORDER BY column ordinal %d out of range (%d columns)", o.Col, n)
		}
	}
	for i, x := range q.Where {
		if err := checkExpr(x, n); err != nil {
			return fmt.Errorf("planner: conjunct %d: %w", i, err)
		}
	}
	return nil
}

func checkExpr(x Expr, n int) error {
	col := func(c int) error {
		if c < 0 || c >= n {
			return fmt.Errorf("column ordinal %d out of range (%d columns)", c, n)
		}
		return nil
	}
	switch x := x.(type) {
	case *Cmp:
		if x.Op < Eq || x.Op > NullSafeEq {
			return fmt.Errorf("bad operator %v", x.Op)
		}
		return col(x.Col)
	case *In:
		return col(x.Col)
	case *IsNull:
		return col(x.Col)
	case *Prefix:
		return col(x.Col)
	case And:
		for _, y := range x {
			if err := checkExpr(y, n); err != nil {
				return err
			}
		}
	case Or:
		for _, y := range x {
			if err := checkExpr(y, n); err != nil {
				return err
			}
		}
	case *Not:
		if x.X == nil {
			return fmt.Errorf("NOT without operand")
		}
		return checkExpr(x.X, n)
	case *Const:
	case *Opaque:
		for _, c := range x.Cols {
			if err := col(c); err != nil {
				return err
			}
		}
	case nil:
		return fmt.Errorf("nil expression")
	default:
		return fmt.Errorf("unknown expression %T", x)
	}
	return nil
}
