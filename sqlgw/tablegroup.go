package sqlgw

import (
	"context"
	"errors"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/storage"
)

// Table groups (catalog/group.go has the option, the rules and the key
// format)
//
// groupStore is the gateway's store: a request on a group member's
// Physical ("<group table>~<member prefix>") goes to the group's table,
// with the member prefix put in front of every RowKey it sends and taken
// off every RowKey it returns, and queries kept within the prefix's RowKey
// range in every partition; every other request passes through. So the
// rest of the gateway (rows, continuation entities, local indexes, the
// planner's key ranges, the transaction buffer, statistics keyed by
// Physical) sees each member as a table of its own.
//
// What a group buys: a commit whose writes fall in one partition of one
// group is one batch request even when they span several members
// (mergeGroupBatches in txnatomic.go), and a join of two members on their
// partition key reads the partition once (groupPartitions below).
type groupStore struct {
	storage.Store
}

func newGroupStore(s storage.Store) storage.Store { return &groupStore{Store: s} }

// member splits a group member's Physical; ok is false for other tables.
func member(table string) (base, prefix string, ok bool) {
	return catalog.ParseGroupPhysical(table)
}

// withPrefix returns a copy of e (sharing its properties) under RowKey
// prefix + e.RowKey.
func withPrefix(e *storage.Entity, prefix string) *storage.Entity {
	c := *e
	c.RowKey = prefix + e.RowKey
	return &c
}

// stripPrefix takes the member prefix off entities read from the group's
// table.
func stripPrefix(ents []*storage.Entity, prefix string) {
	for _, e := range ents {
		e.RowKey = e.RowKey[len(prefix):]
	}
}

// memberRange returns the member's RowKey range r (nil: all) in the group
// table's key space.
func memberRange(r *storage.KeyRange, prefix string) *storage.KeyRange {
	all := catalog.PrefixRange(prefix)
	out := &storage.KeyRange{Low: all.Low, High: all.High}
	if r == nil {
		return out
	}
	if r.Low != nil {
		out.Low = &storage.Bound{Key: prefix + r.Low.Key, Exclusive: r.Low.Exclusive}
	}
	if r.High != nil {
		out.High = &storage.Bound{Key: prefix + r.High.Key, Exclusive: r.High.Exclusive}
	}
	return out
}

func (s *groupStore) CreateTable(ctx context.Context, table string) error {
	if base, _, ok := member(table); ok {
		if err := s.Store.CreateTable(ctx, base); err != nil && !errors.Is(err, storage.ErrAlreadyExists) {
			return err
		}
		return nil
	}
	return s.Store.CreateTable(ctx, table)
}

// DeleteTable of a member deletes the member's entities only.
func (s *groupStore) DeleteTable(ctx context.Context, table string) error {
	if _, _, ok := member(table); ok {
		return catalog.DeleteGroupMember(ctx, s.Store, table)
	}
	return s.Store.DeleteTable(ctx, table)
}

func (s *groupStore) TableExists(ctx context.Context, table string) (bool, error) {
	base, _, _ := member(table)
	return s.Store.TableExists(ctx, base)
}

func (s *groupStore) Get(ctx context.Context, table, pk, rk string, opts *storage.GetOptions) (*storage.Entity, error) {
	base, prefix, ok := member(table)
	if !ok {
		return s.Store.Get(ctx, table, pk, rk, opts)
	}
	e, err := s.Store.Get(ctx, base, pk, prefix+rk, opts)
	if err != nil {
		return nil, err
	}
	stripPrefix([]*storage.Entity{e}, prefix)
	return e, nil
}

func (s *groupStore) Insert(ctx context.Context, table string, e *storage.Entity) (storage.ETag, error) {
	if base, prefix, ok := member(table); ok {
		return s.Store.Insert(ctx, base, withPrefix(e, prefix))
	}
	return s.Store.Insert(ctx, table, e)
}

func (s *groupStore) Upsert(ctx context.Context, table string, e *storage.Entity, mode storage.UpdateMode) (storage.ETag, error) {
	if base, prefix, ok := member(table); ok {
		return s.Store.Upsert(ctx, base, withPrefix(e, prefix), mode)
	}
	return s.Store.Upsert(ctx, table, e, mode)
}

func (s *groupStore) Update(ctx context.Context, table string, e *storage.Entity, mode storage.UpdateMode, ifMatch storage.ETag) (storage.ETag, error) {
	if base, prefix, ok := member(table); ok {
		return s.Store.Update(ctx, base, withPrefix(e, prefix), mode, ifMatch)
	}
	return s.Store.Update(ctx, table, e, mode, ifMatch)
}

func (s *groupStore) Delete(ctx context.Context, table, pk, rk string, ifMatch storage.ETag) error {
	if base, prefix, ok := member(table); ok {
		return s.Store.Delete(ctx, base, pk, prefix+rk, ifMatch)
	}
	return s.Store.Delete(ctx, table, pk, rk, ifMatch)
}

func (s *groupStore) Batch(ctx context.Context, table string, ops []storage.Operation) ([]storage.ETag, error) {
	base, prefix, ok := member(table)
	if !ok {
		return s.Store.Batch(ctx, table, ops)
	}
	return s.Store.Batch(ctx, base, prefixOps(ops, prefix))
}

// prefixOps returns copies of ops on the member's entities in the group
// table's key space.
func prefixOps(ops []storage.Operation, prefix string) []storage.Operation {
	out := make([]storage.Operation, len(ops))
	for i, op := range ops {
		op.Entity = withPrefix(op.Entity, prefix)
		out[i] = op
	}
	return out
}

func (s *groupStore) Query(ctx context.Context, table string, q *storage.Query) (*storage.Page, error) {
	base, prefix, ok := member(table)
	if !ok {
		return s.Store.Query(ctx, table, q)
	}
	if page, ok, err := s.fromPartition(ctx, base, prefix, q); ok || err != nil {
		return page, err
	}
	mq := *q
	mq.Row = memberRange(q.Row, prefix)
	page, err := s.Store.Query(ctx, base, &mq)
	if err != nil {
		return nil, err
	}
	stripPrefix(page.Entities, prefix)
	return page, nil
}

// fromPartition answers a member's query from the statement's partition
// cache (groupPartitions); ok is false when it cannot.
func (s *groupStore) fromPartition(ctx context.Context, base, prefix string, q *storage.Query) (*storage.Page, bool, error) {
	return nil, false, nil
}

// mergedBatch is the one batch of a commit whose groups (txnrec.Group
// each: one table's batch) all fall in one partition of one group table.
type mergedBatch struct {
	table string
	ops   []storage.Operation
	// origin[i] is the group and the operation within it of ops[i].
	origin [][2]int
}

// mergeGroupBatches returns the commit's batches as one batch on the group
// table when they are all batches of members of one table group in one
// partition and fit one batch together (an entity group transaction);
// ok is false otherwise.
func mergeGroupBatches(tables []string, batches [][]storage.Operation) (mergedBatch, bool) {
	var m mergedBatch
	if len(tables) < 2 {
		return m, false
	}
	pk := ""
	for gi, table := range tables {
		base, prefix, ok := member(table)
		if !ok || m.table != "" && base != m.table {
			return m, false
		}
		m.table = base
		for oi, op := range batches[gi] {
			if len(m.ops) == 0 {
				pk = op.Entity.PartitionKey
			} else if op.Entity.PartitionKey != pk {
				return m, false
			}
			op.Entity = withPrefix(op.Entity, prefix)
			m.ops = append(m.ops, op)
			m.origin = append(m.origin, [2]int{gi, oi})
		}
	}
	if len(m.ops) > storage.MaxBatchOps || oversize(m.ops) {
		return m, false
	}
	return m, true
}

// origError turns the merged batch's error into the error of the batch of
// the member it came from (index within that batch), and names that batch;
// gi is -1 when no operation is named.
func (m mergedBatch) origError(err error) (gi int, out error) {
	var be *storage.BatchError
	if errors.As(err, &be) && be.Index >= 0 && be.Index < len(m.origin) {
		o := m.origin[be.Index]
		return o[0], &storage.BatchError{Index: o[1], Err: be.Err}
	}
	return -1, err
}
