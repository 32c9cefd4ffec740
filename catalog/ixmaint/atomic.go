package ixmaint

import (
	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/storage"
)

// IndexOp is one global index entity write of a row write, for a commit
// that applies it atomically with the row (GlobalOps).
type IndexOp struct {
	Index *catalog.Index
	Op    storage.Operation
}

// GlobalOps returns the writes of t's global index entities that w
// implies, for a commit that applies them in the same atomic unit as the
// row: one storage.MultiBatcher batch, or the groups of one transaction
// record (catalog/txn), whose commit point is then the index entities'
// too. Such entities are never marked: they and the row become visible
// together, so the invariant (an unmarked entity matches its row) holds
// without Begin and Finish, and recovery, readers and the sweep treat
// them as any other write of the transaction.
//
// A new entity is an Insert (so a unique value held by another row, and
// a stale entity left by an interrupted marked write, fail the commit
// before anything is applied), an old one a Delete and one whose key
// stays an Update (both fail when the entity is missing). Deletes and
// updates are unconditional (ETagAny): the row's own conditional write in
// the same commit orders the writers of one row. A caller whose atomic
// commit fails on one of these operations applies the transaction with
// Begin and Finish instead, which resolve stale entities and report
// duplicates (DuplicateError).
//
// ok is false when the atomic form does not apply: an index still being
// built (its entities may be missing or written by the backfill
// meanwhile).
func GlobalOps(t *catalog.Table, w Write) (ops []IndexOp, ok bool, err error) {
	for i := range t.Indexes {
		ix := &t.Indexes[i]
		if !ix.Global {
			continue
		}
		if ix.State == catalog.IndexBuilding {
			return nil, false, nil
		}
		oldE, err := entity(t, ix, w.OldPK, w.OldRK, w.Old)
		if err != nil {
			return nil, false, err
		}
		newE, err := entity(t, ix, w.PK, w.RK, w.New)
		if err != nil {
			return nil, false, err
		}
		if sameEntity(oldE, newE) {
			continue
		}
		if oldE != nil && newE != nil && oldE.PartitionKey == newE.PartitionKey && oldE.RowKey == newE.RowKey {
			ops = append(ops, IndexOp{Index: ix, Op: storage.Operation{Kind: storage.OpUpdate, Mode: storage.Replace, IfMatch: storage.ETagAny, Entity: newE}})
			continue
		}
		if oldE != nil {
			ops = append(ops, IndexOp{Index: ix, Op: storage.Operation{Kind: storage.OpDelete, IfMatch: storage.ETagAny,
				Entity: &storage.Entity{PartitionKey: oldE.PartitionKey, RowKey: oldE.RowKey}}})
		}
		if newE != nil {
			ops = append(ops, IndexOp{Index: ix, Op: storage.Operation{Kind: storage.OpInsert, Entity: newE}})
		}
	}
	return ops, true, nil
}
