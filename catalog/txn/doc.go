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
// one batch), and, through the transaction record (groups in one
// partition that fit one batch take the inline path below instead):
//
//  1. writes the transaction record (RowKey "r" of partition <txn id> in
//     the record table, state pending, a lease expiry) together with the
//     intents: the new value of every operation (an encoded copy of its
//     properties, or "delete"), in the same partition: one batch when
//     they fit.
//     The committer renews the record's lease every quarter of it until
//     its commit point has landed, each renewal extended by the store's
//     latency (Store.renewLease), so a large or slow commit is not aborted
//     by its readers or a sweep while its committer is alive.
//  2. locks every entity, one batch per group, in parallel: a Merge of the
//     lock property PropLock ("<txn id>|<intent>|<flag>") conditional on
//     the ETag the transaction read (an Insert of a placeholder holding
//     only the lock for a new row). The entity keeps its previous,
//     committed value: readers are never blocked and never wrong. A lock
//     that fails (the row changed, a duplicate, another transaction's
//     lock) aborts: nothing is applied.
//  3. commits: one batch in the clock partition of the record table
//     (mvcc.go) that advances the clock entity from N to N+1 (If-Match)
//     and inserts the transaction's commit row "c-<txn id>" holding
//     C = N+1, its commit timestamp. This is the commit point. A gateway
//     that found the record's lease expired may have aborted it first, by
//     inserting the same commit row as aborted: the two inserts conflict,
//     so exactly one wins. The concurrent commits of one gateway share
//     one such batch and one timestamp (they hold disjoint locks).
//  4. resolves: every lock is replaced by the new value carrying
//     PropVersion = C (a delete by a tombstone: PropDeleted, PropVersion
//     C), and the previous value is written to a history entity of the
//     same partition in the same batch, one batch per group, conditional
//     on the lock's ETag; then the intents and the record are deleted, then
//     the commit row (with a later clock batch, or by the sweep).
//
// # One partition: the inline path
//
// A commit whose groups all lie in one partition of one table, and whose
// locks and intents fit one batch (the batches rule: storage.MaxBatchOps
// operations, half of storage.MaxBatchBytes), has no record (inline.go):
//
//  1. one batch in that partition writes the locks, as in step 2, and the
//     intents, encoded as in step 1, beside the rows: RowKeys
//     "\u00ffi" + <txn id> + intent number, above the catalog's keys and
//     the history namespace (see the end of this comment), never returned
//     by Get or Query. All or nothing: a lock that fails writes nothing.
//     The transaction id starts with "i" and encodes its lease expiry,
//     which readers take from it (there is no record to read, and no
//     renewal: the path is two requests long);
//  2. the commit point as in step 3; the commit row also names the table
//     and partition of the intents (so does an aborted commit row a
//     reader inserts), for the sweep;
//  3. one batch per partition resolves as in step 4 and deletes the
//     intents in the same batch: no clean-up request; the commit row's
//     deletion rides on a later clock batch, as in step 4.
//
// A failure before the commit point aborts (the commit row inserted as
// aborted, the locks removed and the intents deleted in one batch). A
// reader that meets a lock of an inline transaction reads its commit row;
// without one it reads the entity again: still locked at the same ETag,
// the transaction is pending (the commit row was not deleted after a
// resolution since the reader read the entity: see "Isolation"), within
// the lease the id encodes, and is aborted past it. A roll-forward reads
// the intent beside the row and deletes it in the resolution's batch; a
// roll-back deletes it too (one query of its keys first). Recover's sweep
// finishes an inline transaction from its commit row (committed past its
// lease, or aborted past abortRetention): it resolves every lock the
// intents in the named partition point at, deletes the intents, then the
// commit row (not before: a crash right after the commit point leaves
// the locks unresolved, and a commit row deleted then would lose the
// commit).
//
// Commit returns nil when committed; an error when nothing is applied
// (*GroupError names the group and wraps the store's error; ErrAborted when
// another gateway aborted the record; ErrStoreFailed, which wraps it, when
// a request failed without an answer before the commit point, or at it and
// the commit row was then found absent: the committer aborted it before
// returning, or left it to expire, and never sends the commit point);
// ErrUnknownOutcome only when the commit point's write failed without a
// definite answer and its commit row could not be read back (the caller
// must not report it as a retryable conflict).
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
// the lock's commit row, then (without one) its record (an inline
// transaction's: the entity again, above):
//
//   - committed: the intent is applied (as in step 4) and the new value
//     returned: roll forward;
//   - aborted, or neither commit row nor record (read twice): the lock is
//     removed (the previous value restored, or the placeholder deleted):
//     roll back;
//   - pending within its lease: the previous value is returned, with a
//     poisoned ETag, so that a write conditional on it fails
//     (storage.ErrPreconditionFailed: a write conflict) instead of
//     overwriting a live lock; a placeholder reads as absent, and an Insert
//     over it is a conflict, not a duplicate;
//   - pending past its lease: the transaction is aborted (its commit row
//     inserted as aborted, conditional on its absence), then rolled back.
//
// A query's filter is evaluated by the store on the previous values, so
// Query widens each top-level conjunct to also keep locked entities
// (a PropLock above the empty string), and evaluates the caller's filter again on the
// resolved values (the page brings the properties the filter names).
// Terminal states are cached per transaction id. QueryRows
// (storage.RowQuerier, on a store with native snapshots) is Query's page
// as rows of the selected properties: a page none of whose entities
// carries a lock, a version or a tombstone (the embedded store's own
// commits write none) as the store read it, history rows hidden; any
// other page goes through Query and is returned as its rows
// (TestQueryRowsSameAsQuery). GetRow (storage.RowGetter, getrow.go) is
// Get's answer there as a row: the selection and, after it, the lock,
// version and tombstone properties read in the one request Get sends
// (the same projection); an unlocked entity answers as read, a locked one
// is resolved as Get resolves it (TestGetRowSameAsGet).
//
// One page shows each transaction wholly or not at all (one row split
// over several entities is never torn, a SUM over a page never counts a
// transfer half). A page read at a snapshot does by construction. A page
// read without one (the gateway's current reads, sqlgw/engine/snapshot.go:
// the duplicate-key and unique checks, foreign key checks, a narrowing
// ALTER's verification scans, a wide row's continuations; and the reads
// of index backfills, of catalog/ixmaint's repairs and of commits) is
// one read of the store, but the state of a lock it holds is learnt
// after it, and that cannot show the page consistently from the page
// alone:
//
//   - an entity read again to resolve its lock may show a transaction that
//     committed after the page, whose other entities the page holds as
//     before it (TestReviewQueryPageLaterCommit: a transfer counted in
//     one account and not in the other);
//   - a transaction found committed may have reached its commit point
//     after the page was read, and then some of its locks (another
//     partition's batch) may have landed after the page too: those
//     entities are in the page as before it, unlocked, so even its
//     intent's value, shown for the locked ones, shows it half
//     (TestReviewQueryPageHalfLocked);
//   - which of the two it is, committed before the page or after, needs
//     the clock as of the page: a read of it before every page would cost
//     every query a request, where almost no page meets a lock.
//
// So a page without a snapshot that meets a lock is read again, whole, at
// a snapshot taken when it met the lock (Query, queryLocked), and that
// page is returned: every transaction with a commit point before the
// snapshot wholly, every other not at all, whatever it wrote before or
// after the first read. On a versioned store (the Table service) the
// snapshot is a read of the clock (one request, shared as Snapshot's)
// and the page is read as at any timestamp (queryAt: locks resolved and
// rolled forward as below, versions newer than the snapshot from the
// history, with poisoned ETags). On a store with snapshots of its own
// the page's locks are resolved first (a read in a native snapshot writes
// nothing, and an unresolved lock would fail every write on the entity
// until the sweep), then the page is read in a native snapshot taken then
// (resolveInSnapshot decides what is still locked in it). The snapshot is
// taken after the first read, so the page is at least as recent as the
// one read first (a current read still sees every commit acknowledged
// before it began). A page that meets no lock is returned as read: the
// common path pays nothing, and the page is as consistent as the store's
// read of it (the embedded store reads a page from one iterator, a
// point-in-time view; Azurite answers a query at once; the Table service
// does not document a page as one snapshot: a transaction that locks,
// commits and resolves entities of a page while the service reads it
// can show half in a page without locks, as with any reader of it
// without a snapshot). A Get reads one entity: a lock resolved from
// an entity read again shows a value that entity held during the Get,
// never a mix (TestReviewGetLaterCommit); separate Gets (the gateway's
// MultiGet, parallel Gets) are each the latest committed value of their
// entity, not one cut: read committed, as documented under "Isolation".
//
// Recover (the gateway runs it at start-up and periodically) lists the
// records past their lease, aborts the pending ones, resolves every lock
// their intents name, and deletes intents and records; then it deletes the
// commit rows left without a record (a committed one at once; an aborted
// one after abortRetention, 10 minutes: until then it makes a committer
// that stalled past its lease fail its commit point, and a committer
// refuses to reach its commit point later than half of that after it
// started). No record outlives its locks: locks are written after the
// record and the record is deleted after every lock is resolved; a lock
// found without a record belongs to an aborted transaction (a lock write
// delayed past the recovery of its record) and is rolled back.
//
// # Costs
//
// Through the record, a commit over P groups costs 2P+3 requests (record
// and intents, P locks, the commit point, P resolutions, the clean-up), in
// five round trips. The inline path (one partition, one batch) costs 3
// requests in three round trips: the locks with the intents, the commit
// point (shared with the gateway's concurrent commits), the resolution
// with the intents' deletes. The resolution writes each entity's previous value to
// the history: it takes it from the gateway's own read of the entity at
// the ETag its operation is conditional on (Store keeps the whole entities
// it read recently, by ETag; a projected Get is sent whole for this), a
// placeholder has none, and only the others (an upsert's) cost one query
// of the group's locked entities. The commit row's deletion rides on a
// later clock batch. On the Table service the gateway sends every commit
// through Commit, one batch included (sqlgw/engine/txnatomic.go: its
// commit timestamp is what snapshot reads decide by): a one-partition
// commit takes the inline path; on the embedded store a commit is one
// atomic batch. A reader pays nothing unless it meets a lock (one
// commit-row read, none once the outcome is cached, and one record read
// while pending, or for an inline transaction one read of the entity
// again; one intent read and one write to resolve it; a query page read
// without a snapshot is read again at one: one clock read and one query
// more) or reads at a snapshot older than a row's value (one query of
// the row's history).
//
// # Limits
//
//   - An inline transaction whose committer died before its commit point
//     leaves its locks and intents (no record lists it, no commit row
//     names it) until a reader meets a lock: past the lease the reader
//     aborts it, inserting the aborted commit row that names its
//     partition, and rolls the lock back; the sweep then finishes the
//     other locks its intents name, after abortRetention. Until a reader
//     comes, the intents occupy their partition (hidden from every read)
//     and a lock's row reads as its previous value.
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
//   - A versioned entity holds PropVersion (and a tombstone PropDeleted)
//     besides its properties and a lock: with the lock, two properties
//     more than the caller's. The commit of an entity with more than
//     storage.MaxProperties-2 fails with storage.ErrTooLarge, applying
//     nothing; the gateway then writes a single batch without the record
//     (so without a commit timestamp: see "Isolation", not covered). A history entity's RowKey is the row's plus
//     36 characters: a RowKey within 36 characters of the store's
//     key length limit (the Table service's) cannot be versioned: Commit
//     refuses it with storage.ErrTooLarge before writing anything (had
//     it passed the commit point, every resolution of the row, by the
//     committer, readers and Recover, would fail on the history key).
//   - A snapshot of a store without snapshots can be read for
//     MaxSnapshotAge (an hour); then, or when a version it needs was
//     pruned, reads fail with ErrSnapshotTooOld (the gateway reports 1213:
//     a retry takes a fresh snapshot). Recover prunes, every pruneEvery,
//     the history entities and tombstones older than MaxSnapshotAge and a
//     margin (by the store's Timestamp: when a version was superseded), in
//     the tables this gateway resolved commits into since it started: a
//     table no gateway writes after a restart keeps its history until one
//     does. History entities lie outside every row and index range
//     (histPrefix), so scans do not read them.
//
// # Isolation
//
// This package gives atomicity (all or nothing, for every reader, after
// any crash) and write-write conflict detection, and snapshot reads: a
// read whose context carries a storage.Snapshot sees exactly the
// transactions committed before the snapshot, in every table, partition
// and page. The gateway's isolation levels and the anomalies they allow
// are documented in sqlgw/engine/snapshot.go. A read without a snapshot
// sees, per entity, the latest committed value (read committed), and each
// query page one consistent cut ("Readers resolve").
//
// On the embedded Pebble store the snapshot is Pebble's own
// (storage.Snapshotter): there a lock is resolved as of the snapshot and
// nothing is written (resolveInSnapshot): the commit row and record in the
// snapshot decide, and the value returned carries a poisoned ETag.
//
// On a store without snapshots (the Table service) Store.Snapshot returns
// a timestamp S of the clock (mvcc.go), and every entity a transaction
// commits carries its commit timestamp (PropVersion), its previous
// versions kept in history entities of its partition. Definitions:
//
//   - The clock is one entity, N, in partition "clock" of the record
//     table. A snapshot is S = a read of N. Concurrent snapshot requests
//     of one gateway share a read only if it was sent after they arrived
//     (a read sent earlier could miss a commit acknowledged since).
//   - A transaction's commit point is the batch that moves N from C-1 to C
//     and inserts its commit row (step 3): its commit timestamp is C.
//   - A value's version is the commit timestamp of the transaction that
//     wrote it (PropVersion; absent: 0, a value written outside Commit).
//
// A read at S of an entity returns the value of the newest version at most
// S: the entity's value if its version is at most S, else the newest
// version at most S in its history (a tombstone, or none: absent). A lock
// is looked at first: its transaction T committed is rolled forward
// (then the rule above), aborted rolled back; pending (no commit row), the
// previous value under the lock is the candidate. The argument:
//
//  1. A commit with C <= S is complete before S is read: N reached C
//     before the read that returned S. Its locks were all written before
//     its commit point (step 2 precedes step 3), so a reader that reads an
//     entity after taking S finds, for every commit C <= S that wrote it,
//     either its lock (whose commit row then says committed at C: rolled
//     forward, version C) or its resolved value with version C, or a later
//     value whose history holds version C (a resolution writes the value
//     and the previous one's history entity in one batch). So no version
//     at most S is missed.
//  2. A lock whose transaction has no commit row when the reader looks
//     (after taking S): its commit point, if any, comes later, when N is
//     already at least S, so its C > S: the transaction is invisible, and
//     the previous value is right, with no wait and no abort. The commit
//     row is read before the record, and clean-up deletes the record
//     before the commit row, so "no commit row, record present" is never
//     a commit row already deleted. An inline transaction has no record:
//     the reader reads the entity again after the commit row, and a lock
//     still there at the same ETag was not yet resolved when the commit
//     row was read absent; a commit row is deleted only after every lock
//     is resolved (by its committer, or by the sweep once the intents,
//     which outlive their locks, are gone), so it was not yet written
//     either. The inline path writes its locks before its commit point
//     too, so 1 holds for it unchanged.
//  3. A value with a version above S, or a history version above S, is
//     skipped; the newest one at most S is the one S must see, by 1.
//
// So a read at S sees exactly the commits with C <= S, whatever it reads
// and in whatever order: one snapshot. A version read at S other than the
// entity's current, unlocked value carries a poisoned ETag: a write based
// on it fails as a conflict (as on Pebble, the first committer wins).
// A query widens each top-level conjunct of its filter to also return
// locked entities and those whose version is above S (PropVersion gt S),
// and evaluates the filter again on the version chosen. History entities
// (RowKeys under histPrefix, above every key the catalog encodes) and
// tombstones are never returned to callers; an insert outside Commit over
// a tombstone replaces it, and a lock's insert over one merges into it
// (the tombstone stays the previous value until the commit).
//
// Not covered: a write that does not go through Commit has no commit
// timestamp: it is visible to every snapshot from the moment it lands
// (read committed for that entity), and it replaces an entity's versions
// without keeping the previous one. Each history entity's key names the
// commit that superseded it (its successor) besides its version: a
// version whose successor is at most S while it is the newest at most S
// shows such a write in between (the row replaced or deleted outside
// Commit), and the read at S returns what the first commit above S found
// (the value written outside Commit, kept at version 0, or absent), never
// the older version (TestReviewReinsertAfterDeleteOutsideCommit). The
// value a write outside Commit replaced is lost to every snapshot. The
// gateway sends every transactional write of rows on the Table service
// through Commit (writes to a table whose index is being built included)
// except the cases sqlgw/engine/txnatomic.go lists (rows larger than one
// batch, attached tables, unique values handed between rows in separate
// batches, index entities the index protocol settles); DDL backfills and
// TRUNCATE write outside transactions, and a read at a snapshot older
// than a TRUNCATE or a rebuild of its table fails with 1412 instead
// (sqlgw/engine/snapshot.go).
//
// # Foreign tables
//
// Tables that other applications own (the gateway's attached tables:
// every store table the catalog did not create, its name outside the
// catalog's prefix) are named by Options.Foreign. Store passes every
// request on them to the inner store as it is: their entities' properties
// named _v, _d or _tx are the owner's data (never taken for a version, a
// tombstone or a lock, never stripped), a RowKey in the history namespace
// is a row like any other, and queries are never bounded below it. They
// are never versioned: a read at a timestamp snapshot reads their current
// state (read committed; Pebble's native snapshot still applies), and the
// gateway never commits them through Commit (sqlgw/engine/txnatomic.go).
// TestReviewForeignSystemProperties.
//
// The catalog's own tables cannot meet the history namespace, nor the
// inline intents above it: every RowKey the catalog writes (rows,
// continuations, local index entries) is made of catalog/keys' alphabet,
// printable ASCII '!'..'~', whatever the SQL values (a CJK string is
// escaped into it), all below histPrefix (U+00FF 'h');
// TestHistoryNamespaceAboveCatalogKeys. Queries of a table known to hold
// either are bounded below histPrefix; a query that meets one anyway
// hides it.
package txn
