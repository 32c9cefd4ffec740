package ixmaint

import (
	"context"
	"errors"
	"slices"
	"strings"

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

// backfillAtomic writes the global index entities of a page of rows (items:
// each entity with the ETag of its row as the page read it) in one write
// of the store's atomic batch across partitions, unmarked, together with
// a check (storage.OpCheck) of every row against that ETag: either no row
// changed since the page was read and every entity is exactly what its
// row implies at the moment of the write, or nothing is written. A page of
// 1,000 rows costs one write instead of three requests per row (a marked
// write, then a read and a write to resolve it), and the rows are not
// rewritten (until the sixth round of issue 13 each row got an empty
// Merge, which changed its ETag: the whole table rewritten, and
// compacted, for every index built).
//
// Why a check is enough. An entity written so is current when written;
// it goes stale only when a writer later changes its row, and every such
// writer runs the index protocol (GlobalOps declines an index being
// built): Begin before its row's commit, Finish after it. Its Begin
// either marks the entity (written before Begin: Finish deletes it or,
// its ETag having changed, resolves it from the row), or, finding none,
// writes a marked copy of it (markOld, an index being built), which a
// page written between Begin and the commit merges into: the copy's ETag
// changed, so Finish resolves the entity from the committed row and
// deletes it. A page read before the commit and written after it fails
// its check. The empty Merge made such writers fail their commit (a
// conflict, retried) instead. The page's entities are merged (Upsert in
// Merge mode), not replaced, so that a writer's mark survives them: a
// SIGKILL after that writer's commit and before its Finish leaves the
// entity marked, for Recover, never unmarked and stale. (The merge reads
// each entity's key, a seek, which costs the backfill about a fifth of
// its CPU; the rows are no longer rewritten, which cost more.)
// TestBackfillPageAmidWrite walks each order, with and without the crash.
//
// The page is written without waiting for its sync
// (storage.WithDeferredSync): nobody relies on a page before Backfill
// returns, and Backfill ends with a sync barrier, so a page costs a write
// into the log and no fsync of its own. A crash before the barrier loses
// a suffix of the pages (the log is ordered), which leaves the index as a
// crash during the backfill always did: building, not ready.
//
// done is false, with nothing written, when the store has no such batch,
// or when the write failed (a row changed, an entity exists already: a
// writer's, or a duplicate): the caller then backfills the page entity by
// entity, which settles each of those cases.
func (m *Maintainer) backfillAtomic(ctx context.Context, t *catalog.Table, ix *catalog.Index, items []*touch) (done bool, err error) {
	if m.MultiBatch == nil || len(items) == 0 || !ix.Global || t.IsAttached() {
		return false, nil
	}
	// One check per row and one write per entity, in two arrays whose
	// runs of one partition are the batches (no map, no allocation per
	// row: the page's rows mostly each have their own partition, and so
	// do their entities).
	checks := make([]storage.Operation, len(items))
	writes := make([]storage.Operation, len(items))
	for i, tc := range items {
		bpk, brk := tc.e.Properties[catalog.PropBasePK].Str(), tc.e.Properties[catalog.PropBaseRK].Str()
		checks[i] = storage.Operation{Kind: storage.OpCheck, IfMatch: tc.etag,
			Entity: &storage.Entity{PartitionKey: bpk, RowKey: brk}}
		// Merged, not replaced: an entity a writer marked (or the marked
		// copy its Begin wrote) keeps its mark, so that the writer's
		// Finish or, after a crash before it, Recover settles it.
		kind := storage.OpUpsert
		if keyed(ix, t, tc.e) {
			kind = storage.OpInsert
		}
		writes[i] = storage.Operation{Kind: kind, Mode: storage.Merge, Entity: tc.e}
	}
	tbs := make([]storage.TableBatch, 0, 2*len(items))
	tbs = appendBatches(tbs, t.Physical, checks)
	tbs = appendBatches(tbs, ix.Physical, writes)
	// Unsynced: Backfill ends with a sync barrier (see there).
	_, err = m.MultiBatch(storage.WithDeferredSync(ctx), tbs)
	var me *storage.MultiBatchError
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, storage.ErrMultiBatchUnsupported), errors.As(err, &me):
		return false, nil
	}
	return false, err
}

// backfillQuiet writes the global index entities of a page of rows
// (items) that was read while no writer of the store's rows ran (token:
// Maintainer.Writers' Idle before the read), if still none has run: it
// holds the writers back (WriterGate.Hold) and writes the entities in one
// unchecked, unsynced write of the store's atomic batch, replacing what
// is there. held is false, with nothing written, when a writer ran
// meanwhile (the caller then writes the page checked, backfillAtomic);
// done is false with held true when the write failed (an entity of a
// unique index without a base-key suffix exists already: a duplicate, or
// a stale one; the caller goes entity by entity).
//
// Why no check is needed. No row changed between the page's read and
// this write: every write of a row is a writer the gate counts from
// before it reads the indexes it maintains until after its Finish, none
// was in flight at the read (Idle), none started or finished since
// (Hold's token) and none starts before the write lands (the hold). So
// each entity is exactly what its row implies when it is written, as the
// checked page's are, and every later writer of the row finds it and
// maintains it (Begin marks it). Nor can a writer's mark be lost by
// replacing instead of merging (backfillAtomic merges for that): no
// writer is between its Begin and its Finish, so a marked entity at one
// of these keys is a dead writer's (a crash, a failed Finish), and the
// row now implies this entity, which is what resolving that mark would
// leave. Replacing reads nothing (the checked page reads every row and
// every entity: about half of its CPU).
//
// Unsynced, as the checked page is: Backfill ends with a sync barrier
// before the index may become ready.
func (m *Maintainer) backfillQuiet(ctx context.Context, t *catalog.Table, ix *catalog.Index, items []*touch, token uint64) (done, held bool, err error) {
	if len(items) == 0 {
		return true, true, nil
	}
	writes := make([]storage.Operation, len(items))
	for i, tc := range items {
		kind := storage.OpUpsert
		if keyed(ix, t, tc.e) {
			kind = storage.OpInsert // a duplicate fails the write
		}
		writes[i] = storage.Operation{Kind: kind, Mode: storage.Replace, Entity: tc.e}
	}
	tbs := appendBatches(make([]storage.TableBatch, 0, len(items)), ix.Physical, writes)
	if backfillQuietHook != nil {
		backfillQuietHook("read")
	}
	release, ok := m.Writers.Hold(token)
	if !ok {
		return false, false, nil
	}
	if backfillQuietHook != nil {
		backfillQuietHook("held")
	}
	_, err = m.MultiBatch(storage.WithDeferredSync(ctx), tbs)
	release()
	var me *storage.MultiBatchError
	switch {
	case err == nil:
		return true, true, nil
	case errors.Is(err, storage.ErrMultiBatchUnsupported), errors.As(err, &me):
		return false, true, nil
	}
	return false, true, err
}

// backfillQuietHook, if set (tests only), runs in backfillQuiet after
// the page's read, before the hold ("read"), and while it holds the
// writers back, before its write ("held").
var backfillQuietHook func(stage string)

// appendBatches appends ops (sorted here by key) to tbs as the batches of
// table: one per partition, split when too large.
func appendBatches(tbs []storage.TableBatch, table string, ops []storage.Operation) []storage.TableBatch {
	if !slices.IsSortedFunc(ops, compareKeys) {
		slices.SortFunc(ops, compareKeys)
	}
	for start := 0; start < len(ops); {
		end := start + 1
		for end < len(ops) && ops[end].Entity.PartitionKey == ops[start].Entity.PartitionKey {
			end++
		}
		if end-start == 1 {
			tbs = append(tbs, storage.TableBatch{Table: table, Ops: ops[start:end:end]})
		} else {
			for _, b := range storage.SplitBatches(ops[start:end:end], storage.MaxBatchBytes/2) {
				tbs = append(tbs, storage.TableBatch{Table: table, Ops: b})
			}
		}
		start = end
	}
	return tbs
}

// compareKeys orders operations by their entities' keys.
func compareKeys(a, b storage.Operation) int {
	if c := strings.Compare(a.Entity.PartitionKey, b.Entity.PartitionKey); c != 0 {
		return c
	}
	return strings.Compare(a.Entity.RowKey, b.Entity.RowKey)
}
