package engine

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/sqlgw/sqlgw/catalog"
	txnrec "github.com/sqlgw/sqlgw/catalog/txn"
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

// isMember reports whether table is a group member's physical name.
func isMember(table string) bool {
	_, _, ok := member(table)
	return ok
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
	if e, ok := s.getFromPartition(ctx, base, prefix, pk, rk, opts); ok {
		if e == nil {
			return nil, storage.ErrNotFound
		}
		return e, nil
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

// MultiQuery implements storage.MultiQuerier: forwarded in one call for
// a table outside groups; a member's queries (answered from the group's
// partitions, or rewritten into the group table's key space, by Query) are
// Query calls.
func (s *groupStore) MultiQuery(ctx context.Context, table string, qs []*storage.Query) ([]*storage.Page, error) {
	if _, _, ok := member(table); ok {
		return storage.QueryEach(ctx, s, table, qs)
	}
	return storage.MultiQuery(ctx, s.Store, table, qs)
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

// Joins of group members: one partition read serves every member
//
// When a statement names two or more members of one group (noteGroupTable,
// as the engine resolves its tables), a member's query of a single
// partition reads the whole partition of the group's table once: every
// member's entities of that partition come back in that one request (at
// most one page, storage.MaxPageSize entities; a larger partition is read
// per member as usual). The statement keeps them (groupReads, per session
// and statement), and the other members' queries of that partition are
// answered from them (RowKey range, filter, projection and top applied
// here), with no request. So a join of orders and order_lines on the
// partition key, bound to one customer, costs one request whatever the join
// strategy, where each table alone costs one. The entities are the
// statement's own read of the partition: one consistent view, no staler
// than a second read moments later; nothing is kept past the statement,
// and at most groupReadsMax entities in all.

// groupReads is a session's record of the group members its current
// statement names, and the partitions it has read whole.
type groupReads struct {
	mu    sync.Mutex
	pid   uint64                     // the statement (sql.Context.Pid)
	names map[string]map[string]bool // group table -> member Physicals named
	parts map[partRead][]*storage.Entity
	big   map[partRead]bool // partitions over one page: not kept
	kept  int               // entities in parts (at most groupReadsMax)
}

// partRead names a partition read whole: the group table, the partition
// and the view it was read in (the snapshot the read's context carried,
// nil for the current rows). One statement may read both views: a
// foreign key check or a duplicate check is a current read
// (Table.current, snapshot.go) while the statement's other reads see the
// transaction's snapshot, so a partition read in one view must never
// answer a read in the other (TestCrossGroupCurrentReads: a parent
// deleted after the snapshot was found by the child's check in the
// snapshot's read of the partition). Snapshots are pointers (a store
// honours only the ones it took), so they compare by identity.
type partRead struct {
	table, pk string
	snap      storage.Snapshot
}

// groupReadsMax bounds the entities a statement keeps (a join over many
// partitions keeps the first ones; the others are read per member).
const groupReadsMax = 20_000

// forStatement resets g for statement pid if it is a new one.
func (g *groupReads) forStatement(pid uint64) {
	if g.pid != pid {
		g.pid, g.names, g.parts, g.big, g.kept = pid, nil, nil, nil, 0
	}
}

// noteGroupTable records that the statement of ctx names group member
// meta.
func (s *Session) noteGroupTable(ctx *sql.Context, meta *catalog.Table) {
	base, _, ok := member(meta.Physical)
	if !ok || s == nil {
		return
	}
	g := &s.groups
	g.mu.Lock()
	defer g.mu.Unlock()
	g.forStatement(ctx.Pid())
	if g.names == nil {
		g.names = map[string]map[string]bool{}
	}
	if g.names[base] == nil {
		g.names[base] = map[string]bool{}
	}
	g.names[base][meta.Physical] = true
}

type groupReadsKey struct{}

// withGroupReads returns ctx carrying the session's group reads for the
// statement of sctx (rowIter's reads).
func withGroupReads(ctx context.Context, sctx *sql.Context) context.Context {
	s := sessionOf(sctx)
	if s == nil {
		return ctx
	}
	s.groups.mu.Lock()
	s.groups.forStatement(sctx.Pid())
	s.groups.mu.Unlock()
	return context.WithValue(ctx, groupReadsKey{}, &s.groups)
}

// getFromPartition answers a member's Get from the statement's read of
// the whole partition, if it has one: ok is false when it has not, e is
// nil for an entity the partition does not hold.
func (s *groupStore) getFromPartition(ctx context.Context, base, prefix, pk, rk string, opts *storage.GetOptions) (e *storage.Entity, ok bool) {
	g, _ := ctx.Value(groupReadsKey{}).(*groupReads)
	if g == nil {
		return nil, false
	}
	g.mu.Lock()
	ents, have := g.parts[partRead{base, pk, storage.SnapshotOf(ctx)}]
	g.mu.Unlock()
	if !have {
		return nil, false
	}
	q := &storage.Query{Row: storage.Exactly(rk)}
	if opts != nil {
		q.Select = opts.Select
	}
	page := project(ents, prefix, q)
	if len(page) == 0 {
		return nil, true
	}
	return page[0], true
}

// fromPartition answers a member's query from the statement's read of the
// whole partition (see above); ok is false when it cannot.
func (s *groupStore) fromPartition(ctx context.Context, base, prefix string, q *storage.Query) (*storage.Page, bool, error) {
	g, _ := ctx.Value(groupReadsKey{}).(*groupReads)
	pk, single := q.Partition.Single()
	if g == nil || !single || q.Continuation != "" || q.Reverse {
		return nil, false, nil // (the kept read is in key order only)
	}
	key := partRead{base, pk, storage.SnapshotOf(ctx)}
	g.mu.Lock()
	joined := len(g.names[base]) >= 2
	ents, have := g.parts[key]
	big := g.big[key]
	pid := g.pid
	g.mu.Unlock()
	if !joined || big {
		return nil, false, nil
	}
	if !have {
		page, err := s.Store.Query(ctx, base, &storage.Query{Partition: storage.Exactly(pk)})
		if err != nil {
			return nil, false, err
		}
		g.mu.Lock()
		if g.pid == pid {
			if page.Continuation != "" {
				if g.big == nil {
					g.big = map[partRead]bool{}
				}
				g.big[key] = true
			} else if g.kept+len(page.Entities) <= groupReadsMax {
				if g.parts == nil {
					g.parts = map[partRead][]*storage.Entity{}
				}
				g.parts[key] = page.Entities
				g.kept += len(page.Entities)
			}
		}
		g.mu.Unlock()
		if page.Continuation != "" {
			return nil, false, nil
		}
		ents = page.Entities
	}
	out := &storage.Page{Entities: project(ents, prefix, q)}
	if q.Top > 0 && len(out.Entities) > q.Top {
		return nil, false, nil // (a continuation of the store's own is needed)
	}
	return out, true, nil
}

// project returns copies of the member's entities among ents (the group
// table's, in key order) that q's RowKey range and filter select, under
// their member RowKeys, with q's projection.
func project(ents []*storage.Entity, prefix string, q *storage.Query) []*storage.Entity {
	r := memberRange(q.Row, prefix)
	var out []*storage.Entity
	for _, e := range ents {
		if !r.Contains(e.RowKey) {
			continue
		}
		c := *e
		c.RowKey = e.RowKey[len(prefix):]
		if q.Filter != nil && !storage.Eval(q.Filter, &c) {
			continue
		}
		if q.Select != nil {
			c.Properties = make(storage.Properties, len(q.Select))
			for _, p := range q.Select {
				if v, ok := e.Properties[p]; ok {
					c.Properties[p] = v
				}
			}
		} else {
			c.Properties = maps.Clone(e.Properties)
		}
		out = append(out, &c)
	}
	return out
}

// groupTables returns groups (nil when none is a member's) with every
// member's batch on the group's table, its RowKeys prefixed: for the
// stores below the group wrapper (the transaction record's, the embedded
// store's multi-batch).
func groupTables(groups []txnrec.Group) []txnrec.Group {
	out := groups
	for i, gr := range groups {
		if base, prefix, ok := member(gr.Table); ok {
			if len(out) > 0 && &out[0] == &groups[0] {
				out = slices.Clone(groups)
			}
			out[i] = txnrec.Group{Table: base, Ops: prefixOps(gr.Ops, prefix)}
		}
	}
	return out
}

// groupTableBatches is groupTables for storage.TableBatch.
func groupTableBatches(bs []storage.TableBatch) []storage.TableBatch {
	out := bs
	for i, b := range bs {
		if base, prefix, ok := member(b.Table); ok {
			if len(out) > 0 && &out[0] == &bs[0] {
				out = slices.Clone(bs)
			}
			out[i] = storage.TableBatch{Table: base, Ops: prefixOps(b.Ops, prefix)}
		}
	}
	return out
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

// GetRow forwards a Get of a table outside every group to the wrapped
// store's storage.RowGetter, if any; a member's entities are rewritten
// here (Get), so its Gets are not answered as rows.
func (s *groupStore) GetRow(ctx context.Context, table, pk, rk string, sel, more []string, row *storage.Row) error {
	if _, _, ok := member(table); ok {
		return storage.ErrRowsUnsupported
	}
	return storage.ForwardGetRow(ctx, s.Store, table, pk, rk, sel, more, row)
}

// MultiQueryRows forwards the queries of a table outside every group to
// the wrapped store's storage.MultiRowQuerier, if any; a member's are not
// answered as rows (QueryRows).
func (s *groupStore) MultiQueryRows(ctx context.Context, table string, qs []*storage.Query, marks []string, pages []storage.RowPage) error {
	if _, _, ok := member(table); ok {
		return storage.ErrRowsUnsupported
	}
	return storage.ForwardMultiQueryRows(ctx, s.Store, table, qs, marks, pages)
}

// QueryRows forwards a query of a table outside every group to the
// wrapped store's storage.RowQuerier, if any; a member's entities are
// rewritten here (Query), so its queries are not answered as rows.
func (s *groupStore) QueryRows(ctx context.Context, table string, q *storage.Query, marks []string) (*storage.RowPage, error) {
	if _, _, ok := member(table); ok {
		return nil, storage.ErrRowsUnsupported
	}
	return storage.ForwardQueryRows(ctx, s.Store, table, q, marks)
}

// Snapshot forwards to the wrapped store's storage.Snapshotter, if any:
// without it every session would read the current rows (snapshot.go).
func (s *groupStore) Snapshot(ctx context.Context) (storage.Snapshot, error) {
	return storage.ForwardSnapshot(ctx, s.Store)
}
