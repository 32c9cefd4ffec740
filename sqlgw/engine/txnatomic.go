package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/catalog/ixmaint"
	txnrec "github.com/sqlgw/sqlgw/catalog/txn"
	"github.com/sqlgw/sqlgw/internal/ordered"
	"github.com/sqlgw/sqlgw/storage"
)

// Atomic commit across partitions (catalog/txn)
//
// A commit whose writes need more than one store batch (several
// partitions, several tables, more than storage.MaxBatchOps operations)
// is one atomic Pebble batch on the embedded store (storage.MultiBatcher),
// and goes through a transaction record on the Table service: catalog/txn writes the record and the
// new values, locks every entity (conditional on the ETag the transaction
// read, as the single-batch path does), and commits with one conditional
// write of the record; readers resolve the locks. A COMMIT that returns an
// error has applied nothing (1213 for a conflict, 1062 for a duplicate,
// as before; 1213 too when the store failed before the commit point:
// errStoreFailedBeforeCommit); one whose commit point could not be
// confirmed returns 1180 (ER_ERROR_DURING_COMMIT, SQLSTATE HY000), never
// 1213, because a retry could apply it twice. On the embedded store a commit that fits one batch
// keeps the single-batch path and costs what it did. On the Table service
// every commit goes through catalog/txn, one batch included (2P+3
// requests for P groups through the record; 3 for groups in one partition
// that fit one batch, catalog/txn's inline path): the commit timestamp is
// what snapshot reads decide by (snapshot.go, catalog/txn "Isolation"); a
// write outside it would be visible to every snapshot at once. The cases below that keep
// the batch-by-batch path are such writes.
//
// Global index entities are ordinary writes of the same commit whenever
// they can be (txnindex.go: one Pebble batch with the rows; groups of the
// record on the Table service). Otherwise (an entity found stale or taken,
// the cases listed below) global indexes keep their own protocol around
// the commit (ixmaint: marked entities before the record is written,
// settled after it); the marks outlive the transaction's lease
// (catalog/txnrec.DefaultLease is half of ixmaint.DefaultLease), so a
// resolver never settles a mark against a row whose transaction may still
// commit.
//
// Writes to a table whose indexes are being built (CREATE INDEX or ALTER
// TABLE ADD INDEX on a live table, by any gateway, for as long as the
// backfill runs) take this path too: a global index being built keeps
// the index protocol around the commit (ixmaint Begin rewrites even
// unchanged entities while building); a local one's entities are
// operations of the row's group, with the deletes of entities its
// backfill has not written yet left out beforehand
// (withoutMissingLocalDeletes: a failed Commit cannot simply be sent
// again, as the batch path's retry does), and the backfill, meeting a
// row whose ETag a lock changed, reads it again rather than skip it
// (ixmaint, backfillPage) in case the lock's transaction aborts
// (TestSnapshotWritesDuringIndexBuild).
//
// The cases below are those that neither this path nor txnindex.go's
// takes.
//
// Not (yet) atomic, and committed batch by batch as before: a transaction
// holding a row larger than one batch (applyBig: its continuations are
// written in batches of their own before the main entity, which no group
// of one record can hold), one that inserts a value of a unique global
// index another of its rows releases, in another batch (uniquePhases,
// handsUniqueValues: the protocol settles the release before the take,
// which one atomic commit, with no order inside, cannot), and one that
// writes one entity in two of its batches (a local unique value moved
// across batches of one partition), and one that writes an attached table
// (attached.go: a table other applications own; a lock would show them
// sqlgw's lock property, and an entity they already filled to the
// property limit could not take one), on both backends alike. On the
// Table service, a single-batch commit whose entity is at the property
// limit (no room for the version property, catalog/txn "Limits") is
// written without the record. These commits carry no commit timestamp
// there: every snapshot sees them once they land (snapshot.go).

// txnLease is the lease of this gateway's transaction records.
const txnLease = txnrec.DefaultLease

// txnRecordTable names the table of transaction records next to the
// catalog's.
func txnRecordTable(cat *catalog.Catalog) string {
	return trimCatalogSuffix(cat.CatalogTable()) + "txn"
}

func trimCatalogSuffix(s string) string {
	const suf = "catalog"
	if len(s) >= len(suf) && s[len(s)-len(suf):] == suf {
		return s[:len(s)-len(suf)]
	}
	return s
}

// wrapTxn puts catalog/txn's view in front of store. The store tables
// the catalog did not create (attached tables, attached.go: their
// entities are other applications' data) are foreign to it: read and
// written as they are, never versioned (an entity's own _v, _d or _tx
// property, or a RowKey in the history namespace, is data).
func wrapTxn(store storage.Store, cat *catalog.Catalog) *txnrec.Store {
	host, _ := os.Hostname()
	return txnrec.Wrap(store, txnRecordTable(cat), txnrec.Options{Owner: fmt.Sprintf("%s/%d", host, os.Getpid()), Lease: txnLease,
		Foreign: func(table string) bool { return !cat.IsOwnPhysical(table) }})
}

// erErrorDuringCommit is MySQL's ER_ERROR_DURING_COMMIT.
const erErrorDuringCommit = 1180

// errCommitUnknown is MySQL's 1180 for a commit whose outcome is unknown.
func errCommitUnknown(err error) error {
	return mysql.NewSQLError(erErrorDuringCommit, "HY000",
		"Got error %d during COMMIT (sqlgw: the outcome of this commit is unknown: it is applied entirely or not at all, and every gateway will agree which once the store answers; check before retrying: %v)", 1180, err)
}

// errStoreFailedBeforeCommit is the error of a commit that failed on the
// store without an answer before its commit point (txnrec.ErrStoreFailed:
// a connection reset on an intent or lock batch). The transaction was
// aborted and nothing was applied, so it is 1213, which the client may
// retry, not 1180: before, the store's "outcome unknown" reached the client
// as it was, for a commit that certainly had not been applied. A
// statement stopped meanwhile (KILL, max_execution_time) reports that
// instead (the server's 1317 or 3024).
func errStoreFailedBeforeCommit(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("%w (stopped before the commit point, nothing was applied: %v)", cerr, err)
	}
	return errConflict(fmt.Sprintf("%s, the transaction was aborted and nothing was applied: %v", StoreFailedNote, err))
}

// StoreFailedNote marks the 1213 of errStoreFailedBeforeCommit: the wire's
// automatic retry of an autocommit statement (sqlgw/wire autoretry.go)
// tries such a statement a few times only, so that a store that stays
// unreachable answers 1213 at once rather than after the whole retry
// window.
const StoreFailedNote = "the store failed before the commit point"

// commitAtomic commits t through a transaction record when its writes
// need more than one batch and the atomic path covers them (see above).
// done reports that it took the commit; err is then its result.
func (g *Gateway) commitAtomic(ctx context.Context, t *txn, phys []string, prep []*preparedTable, log *commitLog) (done bool, err error) {
	if g.txs == nil {
		return false, nil
	}
	n := 0
	building := false
	for i, p := range prep {
		if len(p.big) > 0 {
			return false, nil
		}
		n += len(p.batches)
		meta := t.tables[phys[i]].meta
		if meta.IsAttached() {
			return false, nil
		}
		building = building || buildingLocal(meta)
		releases := func(b txBatch) bool {
			for _, w := range b.ws {
				if w.Old != nil {
					return true
				}
			}
			return false
		}
		if ph := uniquePhases(meta, p.batches, releases); len(ph) > 1 && handsUniqueValues(meta, ph[0], ph[1]) {
			return false, nil
		}
	}
	// On a store without snapshots every commit takes the record, one
	// batch included: its commit timestamp is what snapshot reads decide
	// by (catalog/txn, "Isolation"; snapshot.go).
	versioned := g.txs.Versioned(ctx)
	if n == 0 || n == 1 && !versioned {
		return false, nil
	}
	type gmeta struct {
		meta *catalog.Table
		b    txBatch
	}
	// Sized for the batches (a bulk INSERT's rows are a thousand
	// partitions: a thousand batches, each growing these).
	nops := 0
	for _, p := range prep {
		for _, b := range p.batches {
			nops += len(b.ops)
		}
	}
	groups := make([]txnrec.Group, 0, n)
	gm := make([]gmeta, 0, n)
	seen := make(map[[3]string]bool, nops)
	handoffs := make([]*ixmaint.Handoffs, len(prep))
	for i, p := range prep {
		meta := t.tables[phys[i]].meta
		if ixmaint.HasGlobal(meta) {
			var all []ixmaint.Write
			for _, b := range p.batches {
				all = append(all, b.ws...)
			}
			h, err := ixmaint.NewHandoffs(meta, all)
			if err != nil {
				return true, mapError(err)
			}
			handoffs[i] = h
		}
		for _, b := range p.batches {
			ops := b.ops
			if len(meta.Indexes) > 0 {
				if ops, err = mergeIndexOps(meta, ops); err != nil {
					return true, err
				}
			}
			if buildingLocal(meta) {
				if ops, err = g.withoutMissingLocalDeletes(ctx, meta, ops); err != nil {
					return true, mapError(err)
				}
			}
			for _, op := range ops {
				k := [3]string{meta.Physical, op.Entity.PartitionKey, op.Entity.RowKey}
				if seen[k] || op.Mode == storage.Merge && (op.Kind == storage.OpUpdate || op.Kind == storage.OpUpsert) {
					return false, nil
				}
				seen[k] = true
			}
			groups = append(groups, txnrec.Group{Table: meta.Physical, Ops: ops})
			gm = append(gm, gmeta{meta: meta, b: b})
		}
	}
	// Two rows taking one unique global value: the error in the order of
	// the rows, nothing applied (secondary.go, takenTwice).
	for i, p := range prep {
		tt := t.tables[phys[i]]
		if before, dup := takenTwice(tt); dup != nil {
			wss := make([][]ixmaint.Write, 0, len(p.batches))
			for _, b := range p.batches {
				wss = append(wss, b.ws)
			}
			return true, g.firstDuplicate(ctx, tt.meta, wss, before, dup)
		}
	}
	// The global index writes of every batch first (ixmaint.Begin).
	ixops := make([]*ixmaint.Op, len(groups))
	// The error reported is the first group's, in the order of the
	// transaction's rows (a multi-row INSERT with two duplicates names
	// the first row's value, as MySQL does), not the first to arrive.
	run := ordered.NewGroup(commitParallel)
	tableOf := map[string]int{}
	for i, p := range phys {
		tableOf[t.tables[p].meta.Physical] = i
	}
	for gi := range groups {
		if len(gm[gi].b.ws) == 0 || !ixmaint.HasGlobal(gm[gi].meta) {
			continue
		}
		run.Go(gi, func() error {
			op, err := g.beginIndexes(ctx, gm[gi].meta, gm[gi].b.ws, handoffs[tableOf[gm[gi].meta.Physical]])
			ixops[gi] = op // each goroutine its own element; read after Wait
			return err
		})
	}
	firstErr := run.Wait()
	committed := false
	defer func() {
		for _, op := range ixops {
			if op != nil {
				log.ix = append(log.ix, ixBatch{op: op, applied: committed})
			}
		}
	}()
	if firstErr != nil {
		return true, firstErr
	}
	beforeCommit := func() error {
		for gi, op := range ixops {
			if op != nil && op.Expired() {
				return errConflict("the index writes of table " + gm[gi].meta.Name + " took too long")
			}
		}
		return nil
	}
	// Members of one table group in one partition: one entity group
	// transaction, one batch (tablegroup.go).
	tables := make([]string, len(groups))
	batches := make([][]storage.Operation, len(groups))
	for i, gr := range groups {
		tables[i], batches[i] = gr.Table, gr.Ops
	}
	if mb, ok := mergeGroupBatches(tables, batches); ok && !versioned && !building {
		if err := beforeCommit(); err != nil {
			return true, err
		}
		if _, err := g.store.Batch(ctx, mb.table, mb.ops); err != nil {
			gi, oerr := mb.origError(err)
			if gi < 0 {
				gi = 0
			}
			return true, g.applyError(gm[gi].meta, groups[gi].Ops, oerr)
		}
		committed = true
		log.batches++
		log.other = true
		for _, x := range gm {
			g.addRowCount(x.meta.Physical, x.b.delta)
		}
		return true, nil
	}
	// The transaction record's store sits below the group wrapper: it
	// gets members' batches in the group table's key space.
	err = g.txs.Commit(ctx, groupTables(groups), beforeCommit)
	var ge *txnrec.GroupError
	switch {
	case versioned && n == 1 && errors.Is(err, storage.ErrTooLarge):
		// An entity at the property limit cannot take the lock and the
		// version (catalog/txn, "Limits"): nothing was applied; the
		// single-batch path writes it, without a commit timestamp.
		return false, nil
	case err == nil:
		committed = true
		log.batches += len(groups)
		log.other = true
		for _, x := range gm {
			g.addRowCount(x.meta.Physical, x.b.delta)
		}
		return true, nil
	case errors.As(err, &ge) && ge.Group >= 0 && ge.Group < len(groups):
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

// buildingLocal reports whether meta has a local index being built.
func buildingLocal(meta *catalog.Table) bool {
	for j := range meta.Indexes {
		if meta.Indexes[j].State == catalog.IndexBuilding && !meta.Indexes[j].Global {
			return true
		}
	}
	return false
}

// withoutMissingLocalDeletes drops from ops the deletes of local index
// entities that are not there: a local index being built lacks the
// entities of the rows its backfill has not reached. The batch path
// drops such a delete when its batch fails on it and sends the batch
// again (applyIndexed); a failed Commit cannot be sent again (its locks,
// rolled back, changed the rows' ETags), so they are looked up first,
// one Get each, in parallel, only while an index is being built. Safe as
// the batch path's retry: a backfill that writes such an entity after
// the lookup changes its row's ETag in the same batch, and the row's own
// write (its lock) is conditional on the ETag the transaction read, so
// the commit then fails with 1213 rather than leave the entity behind.
func (g *Gateway) withoutMissingLocalDeletes(ctx context.Context, meta *catalog.Table, ops []storage.Operation) ([]storage.Operation, error) {
	end := meta.RowKeyEnd()
	missing := make([]bool, len(ops))
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		sem      = make(chan struct{}, commitParallel)
	)
	for i, op := range ops {
		if op.Kind != storage.OpDelete || op.Entity == nil || op.Entity.RowKey < end {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			_, err := g.store.Get(ctx, meta.Physical, op.Entity.PartitionKey, op.Entity.RowKey, &storage.GetOptions{Select: []string{}})
			switch {
			case errors.Is(err, storage.ErrNotFound):
				missing[i] = true
			case err != nil:
				mu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if !slices.Contains(missing, true) {
		return ops, nil
	}
	out := make([]storage.Operation, 0, len(ops))
	for i, op := range ops {
		if !missing[i] {
			out = append(out, op)
		}
	}
	return out, nil
}

// handsUniqueValues reports whether a batch of rest inserts a value of a
// unique global index that a row of first releases: the case for which
// the batch-by-batch path settles first's index entries before rest's
// (uniquePhases), which one atomic commit cannot.
func handsUniqueValues(meta *catalog.Table, first, rest []txBatch) bool {
	released := map[string]bool{}
	for i := range meta.Indexes {
		ix := &meta.Indexes[i]
		if !ix.Unique || !ix.Global {
			continue
		}
		for _, b := range first {
			for _, w := range b.ws {
				if w.Old == nil || hasNullIn(meta, ix, w.Old) {
					continue
				}
				if e, err := meta.IndexEntity(ix, "", "", w.Old); err == nil {
					released[ix.Name+"\x00"+e.PartitionKey+"\x00"+e.RowKey] = true
				} else {
					return true
				}
			}
		}
		for _, b := range rest {
			for _, w := range b.ws {
				if w.New == nil || hasNullIn(meta, ix, w.New) {
					continue
				}
				e, err := meta.IndexEntity(ix, "", "", w.New)
				if err != nil || released[ix.Name+"\x00"+e.PartitionKey+"\x00"+e.RowKey] {
					return true
				}
			}
		}
	}
	return false
}

// startTxnRecovery finishes the transactions crashed gateways left (their
// records past the lease), now and every txnSweepEvery, until ctx is done.
func (g *Gateway) startTxnRecovery(ctx context.Context) {
	if g.txs == nil {
		return
	}
	run := func() {
		st, err := g.txs.Recover(ctx)
		if err != nil {
			g.logger().Warn("sqlgw: transaction recovery", "error", err)
		} else if st.Resolved > 0 {
			g.logger().Info("sqlgw: transaction recovery", "finished", st.Resolved, "in progress", st.Pending)
		}
	}
	go func() {
		run()
		tick := time.NewTicker(txnSweepEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				run()
			}
		}
	}()
}

// txnSweepEvery is the period of the transaction recovery sweep. Readers
// resolve the locks they meet without it; the sweep finishes the rest.
const txnSweepEvery = 2 * txnLease
