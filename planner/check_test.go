package planner

import (
	"fmt"
	"slices"

	"github.com/sqlgw/sqlgw/storage"
)

// checkPlan verifies a plan's invariants: the requests match the path, every
// query is valid for the store, filters respect the comparison limit, and
// Residual is a sorted subset of the conjuncts.
func checkPlan(t Table, q *Query, p *Plan) error {
	switch p.Path {
	case PointGet:
		if len(p.Gets) != 1 || len(p.Queries) != 0 {
			return fmt.Errorf("PointGet with %d gets, %d queries", len(p.Gets), len(p.Queries))
		}
	case MultiGet:
		if len(p.Gets) < 2 || len(p.Queries) != 0 || len(p.Gets) > MaxKeys {
			return fmt.Errorf("MultiGet with %d gets, %d queries", len(p.Gets), len(p.Queries))
		}
	case Empty:
		if len(p.Gets)+len(p.Queries)+len(p.Residual) != 0 {
			return fmt.Errorf("Empty plan with requests or residual")
		}
	case RowRange, PartitionScan, PartitionRange, TableScan:
		if len(p.Gets) != 0 || len(p.Queries) == 0 {
			return fmt.Errorf("%v with %d gets, %d queries", p.Path, len(p.Gets), len(p.Queries))
		}
	case IndexLookup, IndexRange:
		ix := p.Index
		if ix == nil || len(p.Gets)+len(p.Queries) != 0 || len(ix.Gets)+len(ix.Queries) == 0 {
			return fmt.Errorf("%v without an index read, or with base requests", p.Path)
		}
		for i, qq := range ix.Queries {
			if qq.Reverse != p.Reverse || (qq.Reverse && !q.Reverse) {
				return fmt.Errorf("index query %d: reverse=%v in a plan with reverse=%v for a store with reverse=%v", i, qq.Reverse, p.Reverse, q.Reverse)
			}
			if err := storage.DefaultLimits.ValidateQuery(qq); err != nil {
				return fmt.Errorf("index query %d: %w", i, err)
			}
			if n := storage.CountComparisons(qq.Filter); n > storage.MaxFilterComparisons {
				return fmt.Errorf("index query %d: %d comparisons", i, n)
			}
			if _, ok := qq.Partition.Single(); ix.Local && !ok {
				return fmt.Errorf("local index query %d without a single partition", i)
			}
			if ix.Local && (qq.Row == nil || qq.Row.Low == nil || qq.Row.High == nil) {
				return fmt.Errorf("local index query %d not bounded to the index's RowKeys", i)
			}
		}
	default:
		return fmt.Errorf("unexpected path %v", p.Path)
	}
	if p.Table != t.PhysicalName() {
		return fmt.Errorf("table %q", p.Table)
	}
	for i, qq := range p.Queries {
		if err := storage.DefaultLimits.ValidateQuery(qq); err != nil {
			return fmt.Errorf("query %d: %w", i, err)
		}
		if q.NoNot && hasNot(qq.Filter) {
			return fmt.Errorf("query %d: Not in a filter despite NoNot", i)
		}
		if n := storage.CountComparisons(qq.Filter); n > storage.MaxFilterComparisons {
			return fmt.Errorf("query %d: %d comparisons", i, n)
		}
		switch p.Path {
		case PointGet, MultiGet, RowRange, PartitionScan:
			if _, ok := qq.Partition.Single(); !ok && p.Path != TableScan {
				return fmt.Errorf("%v query %d without a single partition", p.Path, i)
			}
		}
		if qq.Reverse != p.Reverse || (qq.Reverse && !q.Reverse) {
			return fmt.Errorf("query %d: reverse=%v in a plan with reverse=%v for a store with reverse=%v", i, qq.Reverse, p.Reverse, q.Reverse)
		}
		if i > 0 {
			prev, cur := p.Queries[i-1], qq
			if p.Reverse {
				prev, cur = cur, prev
			}
			if cmpLow(prev.Partition, cur.Partition) > 0 ||
				(cmpLow(prev.Partition, cur.Partition) == 0 && cmpLow(prev.Row, cur.Row) > 0) {
				return fmt.Errorf("queries out of key order at %d", i)
			}
		}
	}
	if !slices.IsSorted(p.Residual) {
		return fmt.Errorf("residual not sorted: %v", p.Residual)
	}
	for _, r := range p.Residual {
		if r < 0 || r >= len(q.Where) {
			return fmt.Errorf("residual index %d out of range", r)
		}
	}
	return nil
}

func hasNot(x storage.Expr) bool {
	switch x := x.(type) {
	case *storage.Not:
		return true
	case storage.And:
		return slices.ContainsFunc(x, hasNot)
	case storage.Or:
		return slices.ContainsFunc(x, hasNot)
	}
	return false
}
