package engine

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/catalog"
	txnrec "github.com/sqlgw/sqlgw/catalog/txn"
	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/recorder"
)

// Snapshot reads
//
// Both backends serve the rows a statement reads from one snapshot: the
// embedded Pebble store its own (storage.Snapshotter, through every
// wrapper), Azure Table a timestamp of catalog/txn's clock over versioned
// entities (catalog/txn, "Isolation": one read of the clock entity per
// snapshot, shared by the concurrent statements of a gateway that arrived
// before it was sent; every commit there goes through the transaction
// record, whose commit timestamp the versions carry, txnatomic.go). A
// statement's reads of many partitions, tables, pages and indexes see
// every commit wholly or not at all, and see the same commits (a
// consistent cut: no read skew within a statement). Which snapshot:
//
//   - REPEATABLE READ (MySQL's default) and SERIALIZABLE: the transaction's,
//     taken at its first read (at START TRANSACTION WITH CONSISTENT
//     SNAPSHOT, if so started) and held until COMMIT or ROLLBACK, so
//     repeated reads in one transaction return the same rows. An
//     autocommit statement is its own transaction.
//   - READ COMMITTED and READ UNCOMMITTED: one per statement.
//
// Reads overlay the transaction's own buffered writes on the snapshot, as
// before. Writes apply to the store's current state, conditional on the
// ETag of the version the transaction read (txn.go): a row changed by
// another transaction since the snapshot fails the commit with 1213 (first
// committer wins), so no update is lost and a write is never based on a
// version older than the row's current one. The reads DML does to check
// for a duplicate key or a concurrently deleted row (editor.go getRow, the
// unique checks), foreign key checks (foreignkeys.go) and the verification
// scans of a narrowing ALTER (alter_narrowing.go) read the current state
// (Table.current), as InnoDB's current reads do: a duplicate committed
// after the snapshot fails the statement with 1062, a parent deleted after
// it fails a child's insert with 1452
// (TestSnapshotForeignKeyChecksReadCurrentRows).
// A row the transaction read at two versions (its snapshot and a current
// read) cannot be written on either ETag (txn.go, noteRead): an UPDATE
// computes from the snapshot's value, so a write on the newer ETag would
// lose the change in between; the commit fails with 1213
// (TestSnapshotMixedReadsNoLostUpdate).
//
// Anomalies that remain (each shown by a test in snapshot_e2e_test.go):
//
//   - REPEATABLE READ is snapshot isolation: no dirty reads, no
//     non-repeatable reads, no phantoms, no read skew, no lost updates
//     (TestSnapshotRepeatableRead, TestSnapshotLostUpdate,
//     TestBankTransfers' SUM checks, TestHistoryAnomalies: G0, G1a/b/c,
//     lost update and G-single checked over a register history); write
//     skew remains (two transactions
//     each reading what the other writes both commit:
//     TestSnapshotWriteSkew).
//   - SERIALIZABLE is the same snapshot isolation (write skew remains; the
//     read set is not validated at commit): sqlgw takes no read locks
//     (TestSnapshotWriteSkew runs both levels).
//   - READ COMMITTED: each statement is consistent, but two statements of
//     one transaction may see different commits (non-repeatable reads,
//     phantoms, read skew across statements: TestSnapshotReadCommitted).
//   - SELECT ... FOR UPDATE / FOR SHARE read the snapshot like any read and
//     take no lock; a row so read and then written fails the commit if
//     another transaction changed it after the snapshot.
//   - A read at a snapshot taken before an index was ready (CREATE INDEX
//     by any session or gateway after the transaction's first read) that
//     the plan sends through that index fails with 1412 (Table definition
//     has changed, please retry transaction), as InnoDB's does: the
//     index's entities hold the rows' values of when it was built, not
//     the snapshot's (checkIndexSnapshot,
//     TestReviewIndexCreatedAfterSnapshot). The same read with IGNORE
//     INDEX, or in a new transaction, succeeds.
//   - A read of a table whose rows were replaced or rewritten after the
//     snapshot fails with 1412 too, as InnoDB's consistent read of a
//     table rebuilt or created after its read view does
//     (checkTableSnapshot, catalog.Table.DefVersion): a table created
//     after it (DROP and CREATE of its name included:
//     TestSnapshotDropCreateAfterSnapshot), TRUNCATE (a fresh physical
//     table: TestSnapshotTruncateAfterSnapshot), and the ALTERs after
//     which the rows the snapshot holds no longer read as they were: a
//     primary key change (rows map to other keys) and a narrowing MODIFY
//     COLUMN (shorter, smaller, fewer ENUM members, NOT NULL: it checks
//     the current values only, not those of older snapshots)
//     (TestSnapshotAlterAfterSnapshot). sqlgw has no ALTER that rewrites
//     rows or moves them to a new physical table besides these. Metadata
//     changes do not count: a comment, a rename, a column added (older
//     rows read its default), dropped (its property is retired) or
//     widened (every stored value reads unchanged), an index added (only
//     reads through it: above) or dropped, constraints, triggers,
//     AUTO_INCREMENT. Nor does DML (TestSnapshotDMLKeepsTableDefVersion).
//     Other tables read on at the snapshot; a new transaction reads the
//     table. The check applies to every read at a snapshot, but a
//     statement resolves its tables before its first read takes the
//     snapshot, so it is a transaction's later statements (REPEATABLE
//     READ, SERIALIZABLE) that meet such a change; at READ COMMITTED
//     each statement's snapshot follows the tables it resolved
//     (TestSnapshotTruncateAfterSnapshot). Attached tables are not
//     checked (see below).
//   - Both checks compare with the catalog version the gateway had cached
//     before taking the snapshot; a change made by another gateway less
//     than the catalog's refresh interval before the snapshot is newer
//     than that. When a check would fail, the embedded store reads the
//     catalog's version at the snapshot (once per snapshot) and decides
//     exactly (TestSnapshotCatalogChangeBeforeSnapshotOtherGateway); the
//     Table service cannot (below).
//
// The same semantics hold on both backends, and every test named above
// runs on both (sqltest.ForEachBackend), as do the SIGKILL bank tests of
// cmd/sqlgw (one gateway, and two gateways on one Azurite account, killed
// alternately: every sum read during the run must be the total).
// Differences on Azure Table:
//
//   - Taking a snapshot is one request (the clock read), counted in the
//     session's Snapshot_clock_reads, not in Sqlgw_store_requests. An
//     autocommit point select executed directly from the plan cache takes
//     none: its one entity is read at its current committed state
//     (singleread.go), so it costs one request. When
//     it fails (the clock entity throttled or unreachable past the
//     store's retries), the statement's reads fail with it (1205, retry
//     later), never read without a snapshot (TestReviewClockReadFailure).
//   - Writes that do not go through the transaction record (the cases
//     txnatomic.go lists, DDL backfills) carry no commit timestamp: every
//     snapshot sees them once they land (read committed for those rows).
//     Writes to a table whose index is being built are not among them
//     (TestSnapshotWritesDuringIndexBuild).
//   - The catalog is not versioned, so its version at a timestamp
//     snapshot cannot be read: a table or index change made by another
//     gateway less than the catalog's refresh interval (250 ms by
//     default) before the snapshot may fail a read at it with 1412
//     spuriously, never with wrong rows (snapCatalog.precedes); a retry
//     of the transaction succeeds.
//   - Attached tables (attached.go) are foreign to catalog/txn
//     (wrapTxn): their entities are read as they are, never as versions,
//     so a snapshot does not cover them (read committed), and their own
//     _v, _d or _tx properties and RowKeys in the history namespace are
//     data (TestAttachedForeignSystemProperties).
//   - A snapshot can be read for an hour (catalog/txn.MaxSnapshotAge:
//     the versions older snapshots would need are pruned): a statement or
//     transaction reading at an older one fails with 1213
//     (catalog/txn.ErrSnapshotTooOld; a retry takes a fresh snapshot, and
//     the server retries an autocommit statement that sent nothing yet,
//     sqlgw/wire/autoretry.go: TestSnapshotTooOldRetried).
//
// The session holds at most one snapshot: taking one releases the
// previous; COMMIT, ROLLBACK, the end of a statement outside an open
// REPEATABLE READ transaction (the wire handler's EndStatement; an Engine used
// in-process, without the handler, releases it at its next statement or
// transaction) and the end of the connection release it. A Pebble snapshot
// keeps the versions it shows from being compacted away: an open
// transaction pins what was overwritten since its first read, as InnoDB's
// read view pins its undo log.

// snapState is a session's read snapshot.
type snapState struct {
	mu     sync.Mutex
	snap   storage.Snapshot
	tx     *txn   // the transaction it belongs to
	stmtID stmtID // the statement it belongs to (per-statement levels)
	stmt   bool   // taken for one statement
	// cat: the catalog version known to precede the snapshot (tables and
	// indexes changed after it are not read at it: checkTableSnapshot,
	// checkIndexSnapshot).
	cat *snapCatalog
	// none: the store has no snapshots (do not ask again).
	none bool
}

// stmtID identifies a statement: the process id go-mysql-server gives each
// query, and its start time (contexts built by hand may share a pid).
type stmtID struct {
	pid uint64
	at  time.Time
}

func statementOf(ctx *sql.Context) stmtID { return stmtID{ctx.Pid(), ctx.QueryTime()} }

// consistentSnapshot matches START TRANSACTION ... WITH CONSISTENT
// SNAPSHOT (go-mysql-server parses the clause but does not pass it on).
var consistentSnapshot = regexp.MustCompile(`(?is)\bwith\s+consistent\s+snapshot\b`)

// readCtxCounting returns the context for the session's reads of table
// rows: storeCtx's, carrying the statement's or transaction's snapshot
// (taken at the first read) when the store has snapshots; its requests
// count in also (if not nil) besides the session's counters, one context
// value for both (a read's own counters, rowIter).
func readCtxCounting(ctx *sql.Context, also *recorder.Counters) context.Context {
	return readCtxCountingIn(ctx, nil, also)
}

// readCtxCountingIn is readCtxCounting whose counters' context, when also
// is set, is made in f if f is not nil (storeCtxCountingIn).
func readCtxCountingIn(ctx *sql.Context, f *recorder.Frame, also *recorder.Counters) context.Context {
	var c context.Context
	if also != nil && f != nil {
		c = storeCtxCountingIn(ctx, f, also)
	} else if also != nil {
		c = storeCtxCounting(ctx, also)
	} else {
		c = storeCtx(ctx) // not both: each wraps ctx anew
	}
	s := sessionOf(ctx)
	if s == nil {
		return c
	}
	sn, cat, err := s.readSnapshot(ctx)
	if err != nil {
		// Reading without the snapshot would give a statement a torn cut
		// and a REPEATABLE READ transaction non-repeatable reads (its next
		// statement would take one): every read of this context fails
		// instead (TestReviewClockReadFailure).
		failed, cancel := context.WithCancelCause(c)
		cancel(err)
		return failed
	}
	if sn != nil {
		return context.WithValue(storage.WithSnapshot(c, sn), snapCatalogKey{}, cat)
	}
	return c
}

// snapCatalogKey carries, in a context with the session's snapshot, its
// *snapCatalog.
type snapCatalogKey struct{}

// snapCatalog is what the gateway knows of the catalog version at a
// snapshot.
type snapCatalog struct {
	mu sync.Mutex
	// ver: a catalog version committed before the snapshot was taken (at
	// first the one the gateway had cached before taking it).
	ver uint64
	// asked: the version at the snapshot was read from the store (or
	// cannot be: a timestamp snapshot), so ver is final.
	asked bool
	cat   *catalog.Catalog
}

// precedes reports whether the catalog change at version v was committed
// before the snapshot that ctx carries. The version the gateway cached
// before the snapshot decides when it is at least v; otherwise, once per
// snapshot, the version is read from the store at the snapshot, when the
// catalog's store can read at it: the embedded store's own snapshot,
// which the catalog shares with the tables (New opens the catalog on the
// gateway's store). A timestamp snapshot of the Table service (catalog/txn)
// cannot read the catalog's past (its entities are not versioned): the
// change counts as after the snapshot, so a change made by another
// gateway less than the catalog's refresh interval before the snapshot
// may fail a read with 1412 spuriously, never give wrong rows.
func (sc *snapCatalog) precedes(ctx context.Context, v uint64) bool {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if v <= sc.ver {
		return true
	}
	if sc.asked || sc.cat == nil {
		return false
	}
	sn := storage.SnapshotOf(ctx)
	if _, ts := txnrec.SnapshotTS(sn); ts || sn == nil {
		sc.asked = true
		return false
	}
	// MetaCtx drops every value of ctx (the session's counters): the
	// snapshot is put back.
	got, err := sc.cat.StoredVersion(storage.WithSnapshot(MetaCtx(ctx), sn))
	if err != nil {
		return false // 1412 this time; the next read asks again
	}
	sc.asked = true
	sc.ver = max(sc.ver, got)
	return v <= sc.ver
}

// errTableDefChanged is MySQL's ER_TABLE_DEF_CHANGED (1412), as InnoDB
// reports a consistent read through an index created after the read
// view.
func errTableDefChanged(table, index string) error {
	return mysql.NewSQLError(1412, "HY000", "Table definition has changed, please retry transaction (sqlgw: index %s of table %s was built after this transaction's snapshot)", index, table)
}

// errTableChanged is ER_TABLE_DEF_CHANGED (1412) for a table whose rows
// were replaced or rewritten after the snapshot.
func errTableChanged(table string) error {
	return mysql.NewSQLError(1412, "HY000", "Table definition has changed, please retry transaction (sqlgw: table %s was created, truncated or rebuilt after this transaction's snapshot)", table)
}

// checkTableSnapshot fails a read of table t at a snapshot taken before
// the catalog change that last replaced or rewrote its rows
// (Table.DefVersion: CREATE, TRUNCATE, a primary key change, a narrowing
// MODIFY COLUMN), as InnoDB fails a consistent read of a table rebuilt
// after its read view with 1412: the snapshot never had the new physical
// table's rows (an empty table after TRUNCATE, another table after DROP
// and CREATE of its name), or holds values the new definition cannot
// read (a row under the old primary key, a value wider than the narrowed
// column). Attached tables are not checked: the catalog never replaces
// or rewrites their rows (TRUNCATE and key changes refuse them), and
// attaching one reads rows that existed before. Reads without a snapshot
// and snapshots taken after the change read the table.
func checkTableSnapshot(ctx context.Context, t *catalog.Table) error {
	if t.DefVersion == 0 || t.IsAttached() || storage.SnapshotOf(ctx) == nil {
		return nil
	}
	if sc, ok := ctx.Value(snapCatalogKey{}).(*snapCatalog); ok && !sc.precedes(ctx, t.DefVersion) {
		return errTableChanged(t.Name)
	}
	return nil
}

// checkIndexSnapshot fails a read of index ix at a snapshot taken before
// the catalog made it ready (Index.ReadyVersion after the snapshot,
// snapCatalog.precedes): the index's entities
// were backfilled with the rows' values when it was built, not the
// snapshot's (on Pebble the snapshot predates them all; on the Table
// service they carry no commit timestamp), so a lookup would miss rows or
// return values from after the snapshot. InnoDB fails such a read with
// 1412; so does sqlgw (TestReviewIndexCreatedAfterSnapshot). Reads
// without a snapshot (current reads: unique and foreign key checks) and
// snapshots taken after the index was ready use it.
func checkIndexSnapshot(ctx context.Context, t *catalog.Table, ix *catalog.Index) error {
	if ix.ReadyVersion == 0 || storage.SnapshotOf(ctx) == nil {
		return nil
	}
	if sc, ok := ctx.Value(snapCatalogKey{}).(*snapCatalog); ok && !sc.precedes(ctx, ix.ReadyVersion) {
		return errTableDefChanged(t.Name, ix.Name)
	}
	return nil
}

// perStatement reports whether the isolation level of transaction tx (a
// SET TRANSACTION's for it, else the session's) takes a snapshot per
// statement (READ COMMITTED, READ UNCOMMITTED).
func perStatement(ctx *sql.Context, tx *txn) bool {
	var s string
	if tx != nil && tx.oneShot != nil && tx.oneShot.iso != "" {
		s = tx.oneShot.iso // SET TRANSACTION ISOLATION LEVEL (txreadonly.go)
	} else {
		v, err := ctx.GetSessionVariable(ctx, "transaction_isolation")
		if err != nil {
			return false
		}
		s, _ = v.(string)
	}
	s = strings.ToUpper(s)
	return s == "READ-COMMITTED" || s == "READ-UNCOMMITTED"
}

// readSnapshot returns the snapshot the session's current read uses, taking
// it if needed; nil when the store has none; an error when it could not be
// taken (a failed clock read on the Table service, a closing store).
func (s *Session) readSnapshot(ctx *sql.Context) (storage.Snapshot, *snapCatalog, error) {
	tx := currentTxn(ctx)
	stmt := tx == nil || perStatement(ctx, tx)
	st := &s.snap
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.none {
		return nil, nil, nil
	}
	if st.snap != nil && st.tx == tx && st.stmt == stmt && (!stmt || st.stmtID == statementOf(ctx)) {
		return st.snap, st.cat, nil
	}
	sn, err := s.takeSnapshotLocked(ctx, tx, stmt)
	return sn, st.cat, err
}

// takeSnapshotLocked releases the session's snapshot and takes a new one
// for tx (s.snap.mu held).
func (s *Session) takeSnapshotLocked(ctx *sql.Context, tx *txn, stmt bool) (storage.Snapshot, error) {
	st := &s.snap
	if st.snap != nil {
		st.snap.Release()
		st.snap = nil
	}
	// The catalog version first: every change up to it was committed
	// before the snapshot (checkTableSnapshot, checkIndexSnapshot).
	catVer := s.GW.Catalog.Version()
	// On the embedded store no request; on the Table service one clock
	// read (catalog/txn), counted in the session's Snapshot_clock_reads.
	// (The embedded store's snapshot never blocks: no context to cancel
	// it with, which WithoutCounters would build on every statement.)
	base := context.Background()
	if !s.GW.serial {
		base = WithoutCounters(ctx)
	}
	sn, err := storage.ForwardSnapshot(recorder.WithCounters(base, &s.snapReads), s.GW.store)
	if err != nil {
		if errors.Is(err, storage.ErrSnapshotUnsupported) {
			st.none = true
			return nil, nil
		}
		// Otherwise (a failed clock read, a closing store): the reads
		// fail (readCtxCounting); the next read tries again.
		return nil, fmt.Errorf("sqlgw: taking the read snapshot: %w", err)
	}
	st.snap, st.tx, st.stmt, st.stmtID = sn, tx, stmt, statementOf(ctx)
	st.cat = &snapCatalog{ver: catVer, cat: s.GW.Catalog}
	return sn, nil
}

// startSnapshot takes the snapshot of a transaction started WITH
// CONSISTENT SNAPSHOT (at a level that keeps one per transaction).
// It fails when the snapshot cannot be taken (a later one, taken at the
// first read, would miss the guarantee the statement asks for).
func (s *Session) startSnapshot(ctx *sql.Context, tx *txn) error {
	if q := strings.TrimSpace(ctx.Query()); len(q) < 5 || !strings.EqualFold(q[:5], "start") || // most are autocommit statements
		!consistentSnapshot.MatchString(q) || perStatement(ctx, tx) {
		return nil
	}
	s.snap.mu.Lock()
	defer s.snap.mu.Unlock()
	if !s.snap.none {
		if _, err := s.takeSnapshotLocked(ctx, tx, false); err != nil {
			return mapError(err)
		}
	}
	return nil
}

// releaseSnapshot releases the session's snapshot if it belongs to tx (any
// snapshot, for tx nil).
func (s *Session) releaseSnapshot(tx *txn) {
	st := &s.snap
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.snap != nil && (tx == nil || st.tx == tx) {
		st.snap.Release()
		st.snap, st.tx = nil, nil
	}
}

// EndStatement releases the session's snapshot at the end of a statement
// (the wire handler calls it after each query and execute) unless the open
// transaction it belongs to keeps it (REPEATABLE READ, SERIALIZABLE): an
// idle connection holds no snapshot.
func (g *Gateway) EndStatement(conn uint32) {
	s := g.Session(conn)
	if s == nil {
		return
	}
	s.dropEdits()       // the statement's undo logs (session.go)
	s.restoreHintVars() // what its SET_VAR hints set (setvarhint.go)
	cur, _ := s.GetTransaction().(*txn)
	if cur == nil {
		cur = s.Tx
	}
	st := &s.snap
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.snap != nil && (st.stmt || st.tx != cur) {
		st.snap.Release()
		st.snap, st.tx = nil, nil
	}
}
