// Package ixmaint maintains secondary index entities (catalog/index.go
// fixes their layout) and keeps global ones crash-safe: the write
// protocol, the reader's verification and repair, the recovery sweep, the
// online backfill, and a consistency check.
//
// # Local indexes
//
// A local index entity lives in its base row's partition; LocalOps returns
// the operations to add to the row's own atomic batch (delete the old
// entity, write the new one; Insert for a unique index, so a duplicate
// fails the whole batch with storage.ErrAlreadyExists). Local entities are
// therefore always exactly what the rows imply. A local UNIQUE index is
// unique per partition; the gateway makes a unique index local only when
// its columns include every partition-key column, so that this is global
// uniqueness.
//
// # Global indexes: the protocol
//
// A global index entity lives in the index's own table, in a partition
// chosen by its first indexed value, so its maintenance crosses partitions
// and cannot share the row's batch. The design guide's eventually
// consistent transactions pattern needs a durable intent; here the intent
// is carried by the index entities themselves: the property PropPending
// (the writer's start time, Int64 Unix microseconds) marks an entity whose
// base row may not (or no longer) imply it. The invariant readers rely on:
//
//	an index entity without PropPending matches its base row, and every
//	row's entities exist (with or without the mark).
//
// A write of rows (Begin ... Finish) follows it:
//
//  1. Begin: for every changed entity, write the new one marked (Upsert;
//     for a unique index whose key has no base-key suffix, a conditional
//     Insert), and mark the old one (Merge of PropPending). Writes of one
//     row's indexes go out in parallel. A unique Insert that finds another
//     row's entity: if that entity is unmarked, or marked less than Lease
//     ago (a live writer), it is a duplicate (ErrDuplicate, MySQL 1062)
//     and Begin removes what it wrote: no trace; if marked longer ago, it
//     is resolved (below) and the Insert retried. An Insert that meets
//     the placeholder of a transaction in progress (a store wrapped by
//     catalog/txn: a record writing the value atomically with its row
//     fails it with ErrPreconditionFailed) waits for that transaction's
//     outcome, up to Lease/4, then finds the value taken or free, as
//     MySQL waits on the lock; a longer wait returns the precondition
//     error (the gateway's 1213).
//  2. The caller commits the base rows (their own batches, conditional on
//     the ETags read), adding LocalOps. A caller must not commit later than
//     Lease/2 after Begin (Op.Expired): it aborts instead.
//  3. Finish: for committed rows, delete the old entities (If-Match the
//     mark's ETag) and rewrite the new ones without the mark (If-Match);
//     for rows that did not commit, resolve every entity touched.
//
// A crash anywhere leaves only marked entities that disagree with their
// rows, and missing entities never: new entities are written before the
// row changes and old ones removed after. So the index is always a superset
// of the truth, and the unmarked part is exact.
//
// Resolving an entity (Resolve) reads its base row and compares: if the
// row implies exactly this entity, the mark is cleared; otherwise the
// entity is deleted. Both are If-Match on the ETag read, so a concurrent
// writer's newer version is never overwritten; a marked entity younger
// than Lease belongs to a live writer and is left alone unless forced.
//
// Recovery (Recover) queries each global index table for marked entities
// (a filter on PropPending) and resolves those older than Lease. The
// gateway runs it at start-up and periodically. After it, the index equals
// what the base rows imply (Check verifies that).
//
// # Values handed between rows of one transaction
//
// A transaction may move a unique value from one row to another (a swap
// through a free value, UPDATE t SET u = u + 1 in descending order, DELETE
// a row then give its value to another). The rows commit in separate
// batches when they are in separate partitions, and the entity, keyed by
// the value alone, can name one base row only. Handoffs (built by the
// caller over all the transaction's writes) lists such values; Begin then
// takes the entity over from the releasing row (a Replace If-Match the
// ETag it read, retried if that row's own writer marks it meanwhile),
// marked, naming the releasing row in PropPrevPK/PropPrevRK. Readers
// verify both candidates (Candidates) and keep each whose row implies the
// entity; resolving keeps the holder the rows name: the taker, else the
// previous holder, else nobody (deleted); if both hold it (a commit cut
// half-way between the two rows' batches left a duplicate) it stays marked,
// naming both, so readers still find both. So the taker's Finish resolves
// a taken-over entity from the rows rather than unmarking it blindly. The releasing row's old entity
// is marked like any other but never deleted by its writer: its Finish
// resolves it once the batches are written. A real concurrent duplicate
// from another transaction still fails the conditional insert (the entity
// exists and is unmarked or freshly marked), so exactly one of them wins.
//
// # Global index entities in the row's own atomic commit
//
// When the rows and their global index entities can be written in one
// atomic unit, the protocol above is not needed: GlobalOps returns the
// entity writes (unmarked inserts, deletes, updates) to add to that unit,
// one storage.MultiBatcher batch on the embedded store, or the groups of
// a transaction record (catalog/txn) on the Table service, whose commit
// point is then the entities' too; its locks are resolved by readers and
// the sweep like any other. The gateway does so whenever it can
// (sqlgw/engine/txnindex.go) and falls back to Begin and Finish when the atomic
// write fails on an index entity (a duplicate, a stale entity of an
// interrupted protocol write), which settle those cases. Unmarked entities
// written so match their rows: the invariant holds.
//
// Writes that do not change an index's entity (same key, same carried
// values) cost nothing for that index. Request counts per row for one
// global index: INSERT 3 (mark-insert, row, unmark), UPDATE changing the
// indexed value 5 (new, mark old, row, delete old, unmark new: three round
// trips, the pairs being parallel), DELETE 3; a local index adds none.
// In the row's own atomic commit (above) a global index adds no request
// on the embedded store (the same one batch).
//
// # Readers
//
// Fetch reads the base rows of index hits, one Get each in parallel, and
// keeps a hit only if its base row still implies that entity (Current):
// a lagging or stale entity never yields a wrong row, and, by the
// invariant, no right row is missed. Stale entities found so are resolved
// in the background. A covering read trusts unmarked entities and fetches
// the base row only for marked ones.
//
// # Backfill
//
// Backfill builds a new index from the rows while writers keep writing
// (writers maintain an index in state building as if it were ready). It
// pages through the base table from a cursor, reading only the properties
// the index carries; for each page it writes marked entities, then
// resolves them against a fresh read of the page, so a row changed
// meanwhile never leaves a stale unmarked entity. Progress (rows done and
// the cursor) is reported through a callback. With Maintainer.MultiBatch
// (the embedded store), a page's global entities are instead written
// unmarked in one atomic write together with a check (storage.OpCheck) of
// each of the page's rows against the ETag the page read: one write per
// page, the rows themselves not rewritten; a page a writer changed
// meanwhile, or whose entities exist already, fails whole and is
// backfilled entity by entity. Such an entity is current when written; a
// writer that changes its row later runs Begin before its commit and
// Finish after it, and the entity is marked by that Begin or, when Begin
// found none (the backfill had not reached the row), is merged into the
// marked copy Begin wrote in its place (an index being built): either way
// Finish sees the entity's ETag changed and resolves it from the committed
// row, and, the page's entities being merged rather than replaced, the
// mark survives for Recover if the writer is killed before its Finish
// (backfillAtomic has the orders; TestBackfillPageAmidWrite runs them).
// Entity by entity, an entity that exists already is left alone (an
// earlier page's, current then, or a writer's, marked), not overwritten
// and resolved against the row before that writer's commit.
//
// With Maintainer.Writers too (a WriterGate: the gateway's commits on an
// embedded store it alone uses, which are then every write of a row), a
// page read while no writer was in flight, and written while none has
// started or finished since, new ones held back during its write, is
// written without its checks and replacing what is there
// (backfillQuiet): no row changed between its read and its write, and no
// writer is between its Begin and its Finish, so each entity is what its
// row implies and no live writer's mark can be lost. Otherwise the page
// is checked as above. This takes the read of every row and every
// entity off a build that runs without concurrent writes (sysbench's
// prepare), about a third of its CPU.
// Until the sixth round of issue 13 the page rewrote every row (an empty
// Merge, to change its ETag) so that such writers failed their commit
// instead. A restarted backfill starts again from the beginning, which is
// idempotent.
//
// Writers whose table record predates the index do not maintain it: the
// gateway makes every commit take its tables' indexes as they are when it
// starts, and waits, before the backfill, for its commits in flight and
// for other gateways' catalog refresh (sqlgw/engine, buildIndex).
package ixmaint
