// Package txn makes a write that spans partitions and tables of an entity
// store atomic, with only the store's single-entity conditional writes and
// single-partition batches, and no coordinator: the transaction-record
// design of Percolator (Peng and Dabek, OSDI 2010) and Cherry Garcia (Dey,
// Fekete and Röhm, ICDE 2015), as TiDB and CockroachDB ship it.
//
// # Protocol
//
// Store wraps a storage.Store. Commit(groups) takes the operations of one
// transaction, cut into groups (one partition of one table each, at most
// one batch), and:
//
//  1. writes the transaction record (RowKey "r" of partition <txn id> in
//     the record table, state pending, a lease expiry) together with the
//     intents: the new value of every operation (an encoded copy of its
//     properties, or "delete"), in the same partition: one batch when
//     they fit.
//     The committer renews the record's lease every third of it until the
//     commit point, so a large commit is not aborted by its readers.
//  2. locks every entity, one batch per group, in parallel: a Merge of the
//     lock property PropLock ("<txn id>|<intent>|<flag>") conditional on
//     the ETag the transaction read (an Insert of a placeholder holding
//     only the lock for a new row). The entity keeps its previous,
//     committed value: readers are never blocked and never wrong. A lock
//     that fails (the row changed, a duplicate, another transaction's
//     lock) aborts: nothing is applied.
//  3. commits: one conditional write (If-Match) of the record from pending
//     to committed. This is the commit point. A gateway that found the
//     record's lease expired may have aborted it first (the same
//     conditional write, to aborted): then exactly one of the two wins.
//  4. resolves: every lock is replaced by the new value (or the entity
//     deleted), one batch per group, conditional on the lock's ETag; then
//     the intents and the record are deleted.
//
// Commit returns nil when committed; an error when nothing is applied
// (*GroupError names the group and wraps the store's error; ErrAborted when
// another gateway aborted the record); ErrUnknownOutcome when the commit
// point's write failed without a definite answer and the record could not
// be read back (the caller must not report it as a retryable conflict).
//
// # Stores with an atomic batch across partitions
//
// When the store is a storage.MultiBatcher (the embedded Pebble store),
// Commit applies all groups as that one atomic write instead: one request,
// no record, no lock, and the same outcomes (nil, or *GroupError naming
// the group and operation that failed, with nothing applied). Wrappers
// that forward it report storage.ErrMultiBatchUnsupported when the backend
// below them has none, and the record protocol runs. CommitAtomic is
// that atomic write alone (done is false, and nothing sent, without it):
// the gateway commits one batch of rows with their global index entities
// through it, and keeps its own cheaper path where it is missing.
//
// # Readers resolve
//
// Every read through Store (Get, Query) that meets a locked entity reads
// the lock's record:
//
//   - committed: the intent is applied (Replace If-Match the locked ETag)
//     and the new value returned: roll forward;
//   - aborted, or no record (read twice): the lock is removed (the previous
//     value restored, or the placeholder deleted): roll back;
//   - pending within its lease: the previous value is returned, with a
//     poisoned ETag, so that a write conditional on it fails
//     (storage.ErrPreconditionFailed: a write conflict) instead of
//     overwriting a live lock; a placeholder reads as absent, and an Insert
//     over it is a conflict, not a duplicate;
//   - pending past its lease: the record is aborted (conditional), then
//     rolled back.
//
// A query's filter is evaluated by the store on the previous values, so
// Query widens each top-level conjunct to also keep locked entities
// (a PropLock above the empty string), and evaluates the caller's filter again on the
// resolved values (the page brings the properties the filter names).
// One page shows each transaction on one side of its commit point: once
// an entity of the page found a transaction pending, its other locked
// entities in the page show their previous values as the page has them,
// even if it commits meanwhile (one row split over several entities is
// never torn, and a page is not a mix of before and after). Terminal
// states are cached per transaction id.
//
// Recover (the gateway runs it at start-up and periodically) lists the
// records past their lease, aborts the pending ones, resolves every lock
// their intents name, and deletes intents and records. No record outlives
// its locks: locks are written after the record and the record is deleted
// after every lock is resolved; a lock found without a record belongs to
// an aborted transaction (a lock write delayed past the recovery of its
// record) and is rolled back.
//
// # Costs
//
// Through the record, a commit over P groups costs 2P+3 requests (record and intents, P
// locks, the commit point, P resolutions, the clean-up), in five round
// trips; the gateway keeps its single-batch path (1 request) for a
// transaction that fits one batch. A reader pays nothing unless it meets a
// lock: then one record read (none once the outcome is cached), one intent
// read and one write to resolve it.
//
// # Limits
//
//   - Leases use the gateways' wall clocks: a gateway whose clock runs
//     ahead by more than the lease may abort a live transaction early
//     (never a committed one: the commit point is conditional).
//   - A lock adds one property: an entity already holding
//     storage.MaxProperties properties cannot be locked (the commit fails
//     with the store's error and applies nothing).
//   - Merge-mode writes are not supported in a transaction.
//   - An Upsert's lock is an unconditional Merge: in a group without a
//     conditional operation (an Insert, or an If-Match) it can take over
//     another live transaction's lock on the same entity. The gateway
//     never sends such a group (a row's continuation and index entities,
//     its only upserts, share the batch of its conditional main entity);
//     unconditional Updates and Deletes are made conditional on a read
//     (and fail when their entity reads as absent).
//   - An Upsert's lock cannot tell an absent entity from an existing one
//     without properties (both hold only the lock): such an entity, when
//     the transaction aborts or while it is pending, is taken for the
//     placeholder of a new one (deleted, read as absent). The gateway's
//     upserted entities always hold properties.
//   - Writes that do not go through Commit and are unconditional (an
//     Upsert, an Update or Delete with ETagAny) overwrite a lock like any
//     value; the gateway's row writes are conditional.
//
// # Isolation
//
// This package gives atomicity (all or nothing, for every reader, after
// any crash) and write-write conflict detection. By itself a reader sees,
// per entity, the latest committed value (read committed). Between the
// commit point and the last resolution a reader of several entities can
// see some rolled forward and others still showing their previous value
// only if it read the latter before the commit point: each entity read is
// a committed value, but a read of many entities is not one snapshot.
// The gateway's isolation levels and the anomalies they allow are
// documented in sqlgw/engine/snapshot.go.
//
// Reads that carry a storage.Snapshot (storage.WithSnapshot: the gateway's
// snapshot reads, sqlgw/engine/snapshot.go) are one snapshot when the store
// takes them (the embedded Pebble store). There a lock is resolved as of
// the snapshot and nothing is written (resolveInSnapshot): the record's
// state in the snapshot decides, and the value returned carries a
// poisoned ETag. The Table service has no snapshots.
//
// Snapshots on the Table service (not implemented) need commit timestamps
// and previous versions kept in the entities. The open question is the
// single-batch commit: to stay one request it must take its timestamp
// before its write lands, and a reader on another gateway whose snapshot
// is later may have read the entity just before; Percolator closes that
// gap with two phases for every write (a lock, then the commit timestamp),
// TiKV's one-phase commit with a per-key maximum read timestamp kept by
// the storage node, which the Table service does not have.
package txn
