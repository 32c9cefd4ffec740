package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/catalog/ixmaint"
	txnrec "github.com/sqlgw/sqlgw/catalog/txn"
	"github.com/sqlgw/sqlgw/storage"
)

// Global index entries committed with their rows
//
// A commit that writes rows of a table with global indexes makes the index
// entities ordinary writes of the same atomic commit as the rows
// (ixmaint.GlobalOps: new entities inserted, old ones deleted, unmarked),
// whenever the store or the transaction record can take them all:
//
//   - On the embedded store (storage.MultiBatcher) every such commit, a
//     single-row INSERT included, is one Pebble batch holding the rows,
//     their local and their global index entities: one synced write, where
//     the index protocol (ixmaint Begin, the row, Finish) took three, each
//     after a read. Pebble groups the syncs of concurrent commits.
//   - On the Table service a commit that already needs a transaction
//     record (more than one batch of rows) gives the record the index
//     entities as groups too: they are locked, committed by the record's
//     commit point and resolved like the rows, by the committer, by any
//     reader that meets a lock, and by the sweep. No mark has to outlive
//     the record's lease, so a transaction of thousands of indexed rows is
//     not refused as "index writes took too long". A new entity's group
//     holds only inserts (conditional), and deletes and updates of existing
//     entities are in groups of their own, so that catalog/txn makes them
//     conditional on a read: a lock never takes over another's.
//     Since snapshot reads on the Table service (catalog/txn,
//     "Isolation"), a commit that fits one batch takes the record too (7
//     requests for a one-row INSERT with one global index: 2 groups, 2P+3,
//     where the index protocol took 3): the index marks of a single-batch
//     write fold into the record, and the write gets the commit timestamp
//     snapshot reads need.
//
// The atomic form fails, with nothing applied, when a new entity exists
// already (a duplicate unique value, or a stale entity an interrupted
// index protocol write left) or an old one is missing: the commit then
// takes the index protocol's path (commitAtomic, commitTable), which
// resolves stale entities and reports duplicates as it always did, so
// those outcomes cost more requests, never a different answer. The same
// path keeps the cases the atomic form does not cover: an index being
// built, an attached table, a row larger than one batch, and an entity
// written more than a release and a take (two rows taking one unique
// value, which the protocol reports as 1062). A unique value handed from
// one row of the transaction to another (a swap, a shift, a delete then an
// insert) is one write of its entity, an update to the taker's: one
// atomic unit has no order between the release and the take.
func (g *Gateway) commitIndexed(ctx context.Context, t *txn, phys []string, prep []*preparedTable, log *commitLog) (done bool, err error) {
	if g.txs == nil {
		return false, nil
	}
	indexed := false
	for i, p := range prep {
		meta := t.tables[phys[i]].meta
		if len(p.big) > 0 || meta.IsAttached() {
			return false, nil
		}
		for j := range meta.Indexes {
			if meta.Indexes[j].State == catalog.IndexBuilding {
				return false, nil
			}
		}
		if ixmaint.HasGlobal(meta) {
			for _, b := range p.batches {
				indexed = indexed || len(b.ws) > 0
			}
		}
	}
	if !indexed {
		return false, nil
	}
	type gmeta struct {
		meta *catalog.Table
		row  bool // a batch of rows (else of global index entities)
		b    txBatch
	}
	var (
		groups []txnrec.Group
		gm     []gmeta
		rows   int
	)
	seen := map[[3]string]bool{}
	distinct := func(table string, op storage.Operation) bool {
		k := [3]string{table, op.Entity.PartitionKey, op.Entity.RowKey}
		if seen[k] || op.Mode == storage.Merge && (op.Kind == storage.OpUpdate || op.Kind == storage.OpUpsert) {
			return false
		}
		seen[k] = true
		return true
	}
	for i, p := range prep {
		meta := t.tables[phys[i]].meta
		type part struct {
			table, pk string
			insert    bool
		}
		// The table's index entity writes, each entity once: a unique
		// value one row releases (a delete) and another takes (an insert)
		// is one update of the entity to the taker's.
		var ixops []storage.Operation
		var ixtables []string
		at := map[[2]string]int{}
		merged := map[[2]string]bool{}
		for _, b := range p.batches {
			ops := b.ops
			if len(meta.Indexes) > 0 {
				if ops, err = mergeIndexOps(meta, ops); err != nil {
					return true, err
				}
			}
			for _, op := range ops {
				if !distinct(meta.Physical, op) {
					return false, nil
				}
			}
			groups = append(groups, txnrec.Group{Table: meta.Physical, Ops: ops})
			gm = append(gm, gmeta{meta: meta, row: true, b: b})
			rows++
			for _, w := range b.ws {
				ios, ok, err := ixmaint.GlobalOps(meta, w)
				if err != nil {
					return true, mapError(err)
				}
				if !ok {
					return false, nil
				}
				for _, io := range ios {
					ek := [2]string{io.Index.Physical, io.Op.Entity.PartitionKey + "\x00" + io.Op.Entity.RowKey}
					j, twice := at[ek]
					if merged[ek] {
						return false, nil // a third write of one entity: the index protocol
					}
					if !twice {
						at[ek] = len(ixops)
						ixops = append(ixops, io.Op)
						ixtables = append(ixtables, io.Index.Physical)
						continue
					}
					prev := ixops[j]
					switch {
					case prev.Kind == storage.OpDelete && io.Op.Kind == storage.OpInsert:
						ixops[j] = storage.Operation{Kind: storage.OpUpdate, Mode: storage.Replace, IfMatch: storage.ETagAny, Entity: io.Op.Entity}
					case prev.Kind == storage.OpInsert && io.Op.Kind == storage.OpDelete:
						ixops[j] = storage.Operation{Kind: storage.OpUpdate, Mode: storage.Replace, IfMatch: storage.ETagAny, Entity: prev.Entity}
					default:
						return false, nil // two rows taking one value: the index protocol reports it
					}
					merged[ek] = true
				}
			}
		}
		byPart := map[part][]storage.Operation{}
		var order []part
		for j, op := range ixops {
			if !distinct(ixtables[j], op) {
				return false, nil
			}
			k := part{ixtables[j], op.Entity.PartitionKey, op.Kind == storage.OpInsert}
			if _, ok := byPart[k]; !ok {
				order = append(order, k)
			}
			byPart[k] = append(byPart[k], op)
		}
		for _, k := range order {
			for _, ops := range storage.SplitBatches(byPart[k], batchBytes) {
				groups = append(groups, txnrec.Group{Table: k.table, Ops: ops})
				gm = append(gm, gmeta{meta: meta})
			}
		}
	}
	sent := groupTables(groups) // table group members: below the wrapper (tablegroup.go)
	done, err = g.txs.CommitAtomic(ctx, sent)
	if !done {
		if rows <= 1 && !g.txs.Versioned(ctx) {
			return false, nil
		}
		err = g.txs.Commit(ctx, sent, nil)
	}
	var ge *txnrec.GroupError
	switch {
	case !done && rows <= 1 && errors.Is(err, storage.ErrTooLarge):
		// A single batch through the record on the Table service (for its
		// commit timestamp) with an entity at the property limit, which
		// cannot take the lock and the version (catalog/txn, "Limits"):
		// nothing was applied; the index protocol writes it.
		return false, nil
	case err == nil:
		log.batches += rows
		log.other = true
		for _, x := range gm {
			if x.row {
				g.addRowCount(x.meta.Physical, x.b.delta)
			}
		}
		return true, nil
	case errors.As(err, &ge) && ge.Group >= 0 && ge.Group < len(groups):
		if !gm[ge.Group].row {
			// An index entity was not as the rows imply (a duplicate, or a
			// stale entity): nothing was applied; the index protocol
			// settles it.
			return false, nil
		}
		return true, g.applyError(gm[ge.Group].meta, groups[ge.Group].Ops, ge.Err)
	case errors.Is(err, txnrec.ErrStoreFailed):
		return true, errStoreFailedBeforeCommit(ctx, err)
	case errors.Is(err, txnrec.ErrAborted):
		return true, errConflict(fmt.Sprintf("the transaction was aborted by another gateway before its commit point (its lease of %s expired); nothing was applied", txnLease))
	case errors.Is(err, txnrec.ErrUnknownOutcome):
		return true, errCommitUnknown(err)
	}
	return true, mapError(err)
}
