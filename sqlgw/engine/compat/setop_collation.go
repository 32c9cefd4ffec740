package compat

import (
	"io"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/hash"
	"github.com/dolthub/go-mysql-server/sql/iters"
	"github.com/dolthub/go-mysql-server/sql/plan"
)

// UNION, INTERSECT and EXCEPT compare rows as SELECT DISTINCT does: by
// the result column's collation ('a' UNION 'A' is one row under
// utf8mb4_general_ci). go-mysql-server's set operations hash rows without
// a schema (rowexec buildSetOp's DistinctHasher{}, and IntersectIter and
// ExceptIter call hash.HashOf with a nil schema), so they compare the
// strings' bytes, as its Distinct did (distinct_collation.go). SetOpIter
// is buildSetOp with every hash taken over the set operation's schema
// (the two sides' generalised types, plan.SetOp.Schema), nothing else
// changed: the same iterators for UNION, the same multiset semantics for
// INTERSECT / EXCEPT [ALL], offset, limit and ORDER BY applied as there.
//
// Upstream fix: buildSetOp passing s.Schema to its DistinctHasher, and
// IntersectIter / ExceptIter taking a schema for hash.HashOf.

// SetOpIter builds s's iterator; build builds a child node's.
func SetOpIter(ctx *sql.Context, s *plan.SetOp, row sql.Row, build func(*sql.Context, sql.Node, sql.Row) (sql.RowIter, error)) (sql.RowIter, error) {
	schema := s.Schema(ctx)
	left, err := build(ctx, s.Left(), row)
	if err != nil {
		return nil, err
	}
	var it sql.RowIter
	switch s.SetOpType {
	case plan.UnionType:
		it = &iters.UnionIter{Cur: left, NextIter: func(ctx *sql.Context) (sql.RowIter, error) {
			return build(ctx, s.Right(), row)
		}}
	case plan.IntersectType, plan.ExceptType:
		right, err := build(ctx, s.Right(), row)
		if err != nil {
			left.Close(ctx)
			return nil, err
		}
		if s.SetOpType == plan.ExceptType && s.Distinct {
			dl := iters.NewDistinctIter(ctx, left, newDistinctHasher(schema))
			s.AddDispose(dl.DisposeFunc)
			dr := iters.NewDistinctIter(ctx, right, newDistinctHasher(schema))
			s.AddDispose(dr.DisposeFunc)
			left, right = dl, dr
		}
		it = &multisetIter{left: left, right: right, schema: schema, except: s.SetOpType == plan.ExceptType}
	default:
		left.Close(ctx)
		return nil, sql.ErrUnsupportedFeature.New(s.SetOpType)
	}
	if s.Distinct && s.SetOpType != plan.ExceptType {
		d := iters.NewDistinctIter(ctx, it, newDistinctHasher(schema))
		s.AddDispose(d.DisposeFunc)
		it = d
	}
	// LIMIT wraps OFFSET, so skipped rows do not count towards the limit.
	if s.Offset != nil {
		skip, err := iters.GetInt64Value(ctx, s.Offset)
		if err != nil {
			it.Close(ctx)
			return nil, err
		}
		it = &offsetIter{child: it, skip: skip}
	}
	switch {
	case s.Limit != nil && len(s.SortFields) > 0:
		limit, err := iters.GetInt64Value(ctx, s.Limit)
		if err != nil {
			it.Close(ctx)
			return nil, err
		}
		it = iters.NewTopRowsIter(s.SortFields, limit, false, it, len(schema))
	case s.Limit != nil:
		limit, err := iters.GetInt64Value(ctx, s.Limit)
		if err != nil {
			it.Close(ctx)
			return nil, err
		}
		it = &iters.LimitIter{Limit: limit, ChildIter: it}
	case len(s.SortFields) > 0:
		it = iters.NewSortIter(s.SortFields, it)
	}
	return it, nil
}

// multisetIter is INTERSECT (rows of left matched one for one by rows of
// right) or EXCEPT (rows of left not so matched), rows equal when their
// hashes over schema are (distinctHasher: by collation, PAD SPACE text
// without trailing spaces), as go-mysql-server's IntersectIter and
// ExceptIter but with the schema.
type multisetIter struct {
	left, right sql.RowIter
	schema      sql.Schema
	except      bool
	counts      map[uint64]int
	hasher      *distinctHasher // over schema: collations and PAD SPACE as DISTINCT
}

func (m *multisetIter) Next(ctx *sql.Context) (sql.Row, error) {
	if m.counts == nil {
		m.counts = map[uint64]int{}
		m.hasher = newDistinctHasher(m.schema)
		for {
			r, err := m.right.Next(ctx)
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, err
			}
			h, err := m.hasher.HashOf(ctx, r)
			if err != nil {
				return nil, err
			}
			m.counts[h]++
		}
	}
	for {
		r, err := m.left.Next(ctx)
		if err != nil {
			return nil, err
		}
		h, err := m.hasher.HashOf(ctx, r)
		if err != nil {
			return nil, err
		}
		matched := m.counts[h] > 0
		if matched {
			m.counts[h]--
		}
		if matched != m.except {
			return r, nil
		}
	}
}

func (m *multisetIter) Close(ctx *sql.Context) error {
	err := m.left.Close(ctx)
	if rerr := m.right.Close(ctx); err == nil {
		err = rerr
	}
	return err
}

// offsetIter skips the first skip rows of child (rowexec's is unexported).
type offsetIter struct {
	child sql.RowIter
	skip  int64
}

func (o *offsetIter) Next(ctx *sql.Context) (sql.Row, error) {
	for ; o.skip > 0; o.skip-- {
		if _, err := o.child.Next(ctx); err != nil {
			return nil, err
		}
	}
	return o.child.Next(ctx)
}

func (o *offsetIter) Close(ctx *sql.Context) error { return o.child.Close(ctx) }

// RecursiveCteIter builds a recursive common table expression's iterator
// as rowexec's buildRecursiveCte does, its UNION [DISTINCT] deduplicating
// rows by a hash over the union's schema (rowexec's hashes without one).
func RecursiveCteIter(ctx *sql.Context, n *plan.RecursiveCte, row sql.Row, build func(*sql.Context, sql.Node, sql.Row) (sql.RowIter, error)) (sql.RowIter, error) {
	u := n.Union()
	var it sql.RowIter = &recursiveCteIter{init: n.Left(), rec: n.Right(), row: row, working: n.Working,
		build: build, schema: u.Schema(ctx), distinct: u.Distinct}
	switch {
	case u.Limit != nil && len(u.SortFields) > 0:
		limit, err := iters.GetInt64Value(ctx, u.Limit)
		if err != nil {
			return nil, err
		}
		it = iters.NewTopRowsIter(u.SortFields, limit, false, it, len(u.Schema(ctx)))
	case u.Limit != nil:
		limit, err := iters.GetInt64Value(ctx, u.Limit)
		if err != nil {
			return nil, err
		}
		it = &iters.LimitIter{Limit: limit, ChildIter: it}
	case len(u.SortFields) > 0:
		it = iters.NewSortIter(u.SortFields, it)
	}
	return it, nil
}

// cteRecursionLimit is go-mysql-server's (rowexec) limit of recursive
// steps, after which it returns ErrCteRecursionLimitExceeded.
const cteRecursionLimit = 10001

// recursiveCteIter runs init, then rec over the rows the previous step
// produced (working's buffer) until a step produces none; with distinct,
// a row equal to one already produced is dropped.
type recursiveCteIter struct {
	init, rec sql.Node
	row       sql.Row
	working   *plan.RecursiveTable
	build     func(*sql.Context, sql.Node, sql.Row) (sql.RowIter, error)
	schema    sql.Schema
	distinct  bool

	iter  sql.RowIter
	seen  map[uint64]struct{}
	temp  []sql.Row
	cycle int
}

func (r *recursiveCteIter) Next(ctx *sql.Context) (sql.Row, error) {
	if r.iter == nil {
		if r.distinct {
			r.seen = map[uint64]struct{}{}
		}
		it, err := r.build(ctx, r.init, r.row)
		if err != nil {
			return nil, err
		}
		r.iter = it
	}
	for {
		row, err := r.iter.Next(ctx)
		if err == io.EOF && len(r.temp) > 0 {
			if err := r.nextStep(ctx); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		if r.distinct {
			h, err := hash.HashOf(ctx, r.schema, row)
			if err != nil {
				return nil, err
			}
			if _, dup := r.seen[h]; dup {
				continue
			}
			r.seen[h] = struct{}{}
		}
		r.temp = append(r.temp, row)
		return row, nil
	}
}

// nextStep hands the rows of the step just finished to the working table
// and starts the recursive part over them.
func (r *recursiveCteIter) nextStep(ctx *sql.Context) error {
	r.cycle++
	if r.cycle > cteRecursionLimit {
		return sql.ErrCteRecursionLimitExceeded.New()
	}
	if r.working != nil {
		r.working.Buf, r.temp = r.temp, nil
	}
	if err := r.iter.Close(ctx); err != nil {
		return err
	}
	it, err := r.build(ctx, r.rec, r.row)
	if err != nil {
		r.iter = nil
		return err
	}
	r.iter = it
	return nil
}

func (r *recursiveCteIter) Close(ctx *sql.Context) error {
	if r.working != nil {
		r.working.Buf = nil
	}
	r.temp = nil
	if r.iter != nil {
		return r.iter.Close(ctx)
	}
	return nil
}
