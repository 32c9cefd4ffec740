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
	hasher := distinctHasher{schema: schema}
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
			dl := iters.NewDistinctIter(ctx, left, hasher)
			s.AddDispose(dl.DisposeFunc)
			dr := iters.NewDistinctIter(ctx, right, hasher)
			s.AddDispose(dr.DisposeFunc)
			left, right = dl, dr
		}
		it = &multisetIter{left: left, right: right, schema: schema, except: s.SetOpType == plan.ExceptType}
	default:
		left.Close(ctx)
		return nil, sql.ErrUnsupportedFeature.New(s.SetOpType)
	}
	if s.Distinct && s.SetOpType != plan.ExceptType {
		d := iters.NewDistinctIter(ctx, it, hasher)
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
// hashes over schema are, as go-mysql-server's IntersectIter and
// ExceptIter but with the schema.
type multisetIter struct {
	left, right sql.RowIter
	schema      sql.Schema
	except      bool
	counts      map[uint64]int
}

func (m *multisetIter) Next(ctx *sql.Context) (sql.Row, error) {
	if m.counts == nil {
		m.counts = map[uint64]int{}
		for {
			r, err := m.right.Next(ctx)
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, err
			}
			h, err := hash.HashOf(ctx, m.schema, r)
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
		h, err := hash.HashOf(ctx, m.schema, r)
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
