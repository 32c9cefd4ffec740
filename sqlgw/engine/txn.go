package engine

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/catalog/ixmaint"
	txnrec "github.com/sqlgw/sqlgw/catalog/txn"
	"github.com/sqlgw/sqlgw/internal/ordered"
	"github.com/sqlgw/sqlgw/sqlgw/mysqlerr"
	"github.com/sqlgw/sqlgw/storage"
)

// Transactions
//
// A transaction buffers its writes in the session, per physical table and
// row key, and applies them at COMMIT (under autocommit: at the end of each
// statement). Reads inside the transaction overlay the buffer on what the
// store returns (read-your-writes).
//
// Every row the transaction reads from the store has its ETag remembered
// (the first one seen). An UPDATE or DELETE of that row is sent with
// If-Match on that ETag, and an INSERT of a new row is an insert that fails
// if the row exists: if another client changed the row in between, the
// commit fails with MySQL error 1213 (ER_LOCK_DEADLOCK, SQLSTATE 40001),
// which clients and ORMs retry. No update is ever lost.
//
// Atomicity: the writes of one transaction that fit one store batch (one
// partition of one table, at most 100 operations) are sent as that one
// atomic batch, as before. Writes that span partitions, tables or batches
// commit atomically (txnatomic.go, catalog/txn): as one Pebble batch on the
// embedded store, and through a transaction record on the Table service
// (locks first, one conditional write of the record as the commit point,
// locks resolved by the committer or by any gateway that meets them). A COMMIT
// (or autocommit statement) that fails has applied nothing: 1213 for a
// write conflict or a store failure before the commit point, 1062 for a
// duplicate; 1180 when the outcome of the commit point is unknown (never
// 1213: a retry could apply it twice).
// Still committed batch by batch, as described below, are transactions
// the atomic path does not cover (txnatomic.go lists them: a row larger
// than one batch, an index being built, two-phase unique global index
// handoffs, one entity written in two batches). If a later batch of those
// fails (a duplicate key, a conflict):
//   - when everything applied so far was inserts (a multi-row INSERT), they
//     are deleted again, each with If-Match on the ETag its insert returned,
//     and the statement fails cleanly (other sessions may have seen the
//     rows for that moment);
//   - otherwise the earlier batches stay applied, and the error (same MySQL
//     code) says so.
//
// Unique keys: every INSERT and UPDATE checks the unique secondary keys it
// changes during the statement, row by row against the state the statement
// has produced so far (editor.go, checkUnique), as InnoDB does: UPDATE
// IGNORE skips a conflicting row, a failing statement is undone from the
// buffer whole, and the buffer never holds two rows with one unique value.
// So at COMMIT a unique value one row releases and another takes is a
// handoff, not a duplicate: local index operations on one entity merge in
// the row's batch (mergeIndexOps), global ones are taken over
// (ixmaint.Handoffs). A value taken by another transaction meanwhile still
// fails its conditional insert: 1062 for exactly one of them. When the
// rows of one partition need more than one batch, a local handoff orders
// them: takers after releasers (releasesFirst) and that partition's
// batches one at a time (sequentialPartitions); only a cycle of values
// spread over several batches cannot commit in order, and is refused
// (1235) before the table is written.
//
// A single row larger than one batch (over 100 entities or batchBytes) is
// written across batches with its main entity as the commit point
// (applyBig): inserted, updated (under a new continuation generation,
// catalog/row.go) and deleted atomically and crash-safely; its local index
// entities ride in the main entity's batch.
//
// Isolation: snapshot.go. On a store with snapshots (the embedded Pebble
// store) a statement reads one snapshot, and a REPEATABLE READ or
// SERIALIZABLE transaction one snapshot from its first read to COMMIT
// (snapshot isolation: no dirty, non-repeatable or phantom reads, no read
// skew; write skew remains); READ COMMITTED takes one per statement. On a
// store without them (Azure Table) reads see the latest committed value of
// every row (read committed per entity, never an uncommitted or aborted
// write: a row locked by a transaction in progress reads as its previous
// value), so non-repeatable reads, phantoms and read skew remain at every
// level there. Everywhere, write-write conflicts on rows the transaction
// read are detected at commit (first committer wins, the other gets 1213):
// lost updates and dirty reads are prevented at every level
// (TestConflict, TestSnapshotLostUpdate, TestBankTransfers). SELECT ...
// FOR UPDATE and FOR SHARE take no lock: the row's ETag is remembered like
// any read, so a transaction that writes the row fails at commit if
// another changed it meanwhile.

type txn struct {
	id       uint64
	readOnly bool
	// oneShot: the characteristics a SET TRANSACTION without SESSION or
	// GLOBAL gave this transaction (its isolation level overrides the
	// session's: perStatement), nil without (txreadonly.go).
	oneShot    *txOneShot
	tables     map[string]*txTable // by physical table
	savepoints []savepoint
}

type savepoint struct {
	name   string
	tables map[string]*txTable
}

// snapshot copies the write buffer's maps.
func (t *txn) snapshot() map[string]*txTable {
	out := make(map[string]*txTable, len(t.tables))
	for p, tt := range t.tables {
		tt.flushReads()
		c := &txTable{meta: tt.meta, reads: make(map[entKey]read, len(tt.reads)), writes: make(map[entKey]*pending, len(tt.writes)),
			order: append([]entKey(nil), tt.order...), version: tt.version, keyless: make(map[string][]entKey, len(tt.keyless))}
		for k, v := range tt.reads {
			c.reads[k] = v
		}
		for k, v := range tt.writes {
			c.writes[k] = v
		}
		for k, v := range tt.keyless {
			c.keyless[k] = append([]entKey(nil), v...)
		}
		out[p] = c
	}
	return out
}

// restore returns the write buffer to a snapshot (copied again, so the
// savepoint can be rolled back to more than once).
func (t *txn) restore(snap map[string]*txTable) {
	saved := t.tables
	t.tables = snap
	fresh := t.snapshot()
	t.tables = fresh
	for p, tt := range t.tables {
		if old, ok := saved[p]; ok {
			tt.version = old.version + 1
		}
	}
}

// dropSavepoint removes the named savepoint and those after it.
func (t *txn) dropSavepoint(name string) bool {
	for i := len(t.savepoints) - 1; i >= 0; i-- {
		if strings.EqualFold(t.savepoints[i].name, name) {
			t.savepoints = t.savepoints[:i]
			return true
		}
	}
	return false
}

// newTxn is a transaction numbered id: its session's connection ID and
// a per-session sequence (unique in the process without a counter
// shared by every connection, whose cache line the cores passed between
// them on every statement).
func newTxn(id uint64, readOnly bool) *txn {
	// tables is made by the first table(): an autocommit SELECT's
	// transaction (one per statement) usually never touches it.
	return &txn{id: id, readOnly: readOnly}
}

func (t *txn) String() string   { return fmt.Sprintf("sqlgw transaction %d", t.id) }
func (t *txn) IsReadOnly() bool { return t.readOnly }

var _ sql.Transaction = (*txn)(nil)

// EndFailedStatement is called by the wire handler after a statement of
// connection conn failed. In autocommit mode outside BEGIN ... COMMIT a
// failed statement leaves nothing: its transaction, if it buffered
// writes or had a one-shot SET TRANSACTION's characteristics (a read-only
// one must not outlive its statement: txreadonly.go), is rolled back. A
// statement cancelled (KILL QUERY) between two rows of an INSERT had its rows so far completed into the transaction
// (go-mysql-server's TableEditorIter completes a statement whose
// context ended between rows), and the session's next statement, reusing that transaction, committed
// them. Inside a transaction only the statement's own changes are
// undone (Gateway.StatementFailed, session.go).
func (g *Gateway) EndFailedStatement(conn uint32) {
	s := g.Session(conn)
	if s == nil || s.GetIgnoreAutoCommit() || !s.PendingWrites() && !s.oneShotOpen() {
		return
	}
	ctx := sql.NewEmptyContext()
	v, err := s.GetSessionVariable(ctx, "autocommit")
	if err != nil {
		return
	}
	on := false
	switch x := v.(type) {
	case int8:
		on = x != 0
	case int64:
		on = x != 0
	case int:
		on = x != 0
	case bool:
		on = x
	}
	if !on {
		return
	}
	if tx := s.GetTransaction(); tx != nil {
		s.Rollback(ctx, tx)
		s.SetTransaction(nil)
	}
	if s.Tx != nil {
		s.Rollback(ctx, s.Tx)
	}
}

// PendingWrites reports whether the session's open transaction, if any,
// has buffered writes. In autocommit mode go-mysql-server leaves open the
// transaction PREPARE began, for the execution to commit; it has none, so
// sqlgw/wire's autoretry.go may still run an execution again after a
// conflict.
func (s *Session) PendingWrites() bool {
	tx, _ := s.GetTransaction().(*txn)
	return tx.hasWrites() || s.Tx.hasWrites()
}

func (t *txn) hasWrites() bool {
	if t == nil {
		return false
	}
	for _, tt := range t.tables {
		if len(tt.writes) > 0 {
			return true
		}
	}
	return false
}

type entKey struct{ pk, rk string }

// read is what the transaction learnt about a stored row.
type read struct {
	etag   storage.ETag
	extras []string // RowKeys of the stored row's continuation entities
	exists bool     // false: the transaction saw that no row exists
}

// notedRead is a read noteScanned keeps: the read r of the row under k,
// or (rows not nil, noteScannedRow) a run of consecutive rows of one page
// read by rows (rowread.go), each the read {its ETag, exists} of the row
// under its keys.
type notedRead struct {
	k    entKey
	r    read
	rows []storage.Row
}

// pending is one buffered write.
type pending struct {
	row []catalog.Datum // nil for a delete
	// old is the stored row (when stored), for index maintenance.
	old     []catalog.Datum
	sqlRow  sql.Row // the engine's full row (nil for a delete)
	deleted bool
	// stored reports that the row exists in the store (as of base); then
	// the write is conditional on base.etag. Otherwise it is an insert.
	stored bool
	base   read
}

type txTable struct {
	meta *catalog.Table
	// reads are the rows read (noteRead), with scanned, the reads not yet
	// noted in it (noteScanned); look at them through readOf.
	reads   map[entKey]read
	scanned []notedRead
	// nscanned is the number of reads in scanned, runs counted by row.
	nscanned int
	writes   map[entKey]*pending
	order    []entKey // first-write order
	// version counts changes of writes, to invalidate cached lookups.
	version uint64
	// keyless maps a keyless row's fingerprint (its values) to the keys of
	// the rows with those values the transaction has seen: an UPDATE or
	// DELETE of a keyless table gets only the row's values from the engine.
	keyless map[string][]entKey
	// uniq maps the unique index entities of the buffered rows (index name
	// and entity keys, for values without NULL) to their rows, for the
	// statement-time unique checks (secondary.go, checkUnique); kept up to
	// date by put, rebuilt when nil.
	uniq map[string]entKey
}

// uniqKey identifies a unique index entity in txTable.uniq.
func uniqKey(ix *catalog.Index, e *storage.Entity) string {
	return ix.Name + "\x00" + e.PartitionKey + "\x00" + e.RowKey
}

// uniqEntities calls f with the unique index entities row implies (those
// keyed by the values alone: no NULL among them).
func uniqEntities(meta *catalog.Table, k entKey, row []catalog.Datum, f func(ix *catalog.Index, e *storage.Entity)) {
	if row == nil {
		return
	}
	for i := range meta.Indexes {
		ix := &meta.Indexes[i]
		if !ix.Unique {
			continue
		}
		if hasNullIn(meta, ix, row) {
			continue // NULLs never collide
		}
		e, err := meta.IndexEntity(ix, k.pk, k.rk, row)
		if err != nil {
			continue
		}
		f(ix, e)
	}
}

// hasNullIn reports whether row is NULL in a column of index ix.
func hasNullIn(meta *catalog.Table, ix *catalog.Index, row []catalog.Datum) bool {
	for _, kp := range ix.Columns {
		if c := meta.ColumnIndex(kp.Column); c >= 0 && row[c] == nil {
			return true
		}
	}
	return false
}

// bufferedUnique returns the buffered row that holds unique index entity e.
func (tt *txTable) bufferedUnique(ix *catalog.Index, e *storage.Entity) (entKey, bool) {
	if tt.uniq == nil {
		tt.uniq = map[string]entKey{}
		for k, w := range tt.writes {
			if !w.deleted {
				uniqEntities(tt.meta, k, w.row, func(ix *catalog.Index, e *storage.Entity) { tt.uniq[uniqKey(ix, e)] = k })
			}
		}
	}
	k, ok := tt.uniq[uniqKey(ix, e)]
	return k, ok
}

// noteUnique updates uniq for the write of row k from was to now.
func (tt *txTable) noteUnique(k entKey, was, now *pending) {
	if tt.uniq == nil {
		return
	}
	if was != nil && !was.deleted {
		uniqEntities(tt.meta, k, was.row, func(ix *catalog.Index, e *storage.Entity) {
			if tt.uniq[uniqKey(ix, e)] == k {
				delete(tt.uniq, uniqKey(ix, e))
			}
		})
	}
	if now != nil && !now.deleted {
		uniqEntities(tt.meta, k, now.row, func(ix *catalog.Index, e *storage.Entity) { tt.uniq[uniqKey(ix, e)] = k })
	}
}

// rowFingerprint identifies a row by its values, for keyless tables.
func rowFingerprint(row sql.Row) string {
	var sb strings.Builder
	for _, v := range row {
		fmt.Fprintf(&sb, "%T:%v\x00", v, v)
	}
	return sb.String()
}

// noteKeyless records that the keyless row under k has values row.
func (tt *txTable) noteKeyless(k entKey, row sql.Row) {
	if tt.keyless == nil {
		tt.keyless = map[string][]entKey{}
	}
	fp := rowFingerprint(row)
	for _, x := range tt.keyless[fp] {
		if x == k {
			return
		}
	}
	tt.keyless[fp] = append(tt.keyless[fp], k)
}

// takeKeyless returns (and forgets) the key of a keyless row with values row.
func (tt *txTable) takeKeyless(row sql.Row) (entKey, bool) {
	fp := rowFingerprint(row)
	ks := tt.keyless[fp]
	for len(ks) > 0 {
		k := ks[len(ks)-1]
		ks = ks[:len(ks)-1]
		tt.keyless[fp] = ks
		if w, ok := tt.writes[k]; ok && w.deleted {
			continue
		}
		return k, true
	}
	return entKey{}, false
}

func (t *txn) table(meta *catalog.Table) *txTable {
	tt, ok := t.tables[meta.Physical]
	if !ok {
		tt = &txTable{meta: meta, reads: map[entKey]read{}, writes: map[entKey]*pending{}}
		if t.tables == nil {
			t.tables = map[string]*txTable{}
		}
		t.tables[meta.Physical] = tt
	}
	if tt.meta != meta {
		tt.uniq = nil // the indexes may have changed
	}
	tt.meta = meta
	return tt
}

// peek returns the transaction's table state without creating it.
func (t *txn) peek(phys string) *txTable {
	if t == nil {
		return nil
	}
	return t.tables[phys]
}

// noteRead remembers the ETag of a stored row the first time it is read.
// A row read again at another version (a snapshot read and a current read,
// snapshot.go, or two statements' snapshots at READ COMMITTED) gets an
// unusable ETag: a write computed from either read must not commit on the
// other's version (it fails with 1213, TestSnapshotMixedReadsNoLostUpdate).
func (tt *txTable) noteRead(k entKey, r read) {
	tt.flushReads()
	tt.note(k, r)
}

// noteScanned is noteRead for a row a read returned (rowIter), made
// when the reads are next looked at (flushReads). A transaction whose
// reads are never looked at (a read-only one: only UPDATE, DELETE and
// INSERT look, editor.go) then never hashes them: 4.4% of sysbench
// oltp_read_only's CPU went into the map for its 400 rows per
// transaction. The map ends up as if each had been noted at once: the
// reads are applied in their order, each only while fewer than
// maxTrackedReads are remembered, as rowIter did.
func (tt *txTable) noteScanned(k entKey, r read) {
	if tt.nscanned >= maxTrackedReads {
		tt.flushReads()
	}
	tt.scanned = append(tt.scanned, notedRead{k: k, r: r})
	tt.nscanned++
}

// noteScannedRow is noteScanned of rest[0], a row a read by rows returned
// (its keys, its ETag, exists), rest the rows of its page from it on.
// The page's rows stay as they are (each query returns new ones), so a
// row right after the last one noted extends that run instead of adding
// a read: the reads of a range are one entry, not 80 bytes copied per
// row into a list that grows from nothing in each transaction (2.4% of
// sysbench oltp_read_only's CPU).
func (tt *txTable) noteScannedRow(rest []storage.Row) {
	if tt.nscanned >= maxTrackedReads {
		tt.flushReads()
	}
	tt.nscanned++
	if n := len(tt.scanned); n > 0 {
		last := &tt.scanned[n-1]
		if l := len(last.rows); l > 0 && l < cap(last.rows) && &last.rows[:l+1][l] == &rest[0] {
			last.rows = last.rows[:l+1]
			return
		}
	}
	tt.scanned = append(tt.scanned, notedRead{rows: rest[:1]})
}

// flushReads notes the reads noteScanned kept.
func (tt *txTable) flushReads() {
	for _, n := range tt.scanned {
		if n.rows == nil {
			if len(tt.reads) < maxTrackedReads {
				tt.note(n.k, n.r)
			}
			continue
		}
		for i := range n.rows {
			if len(tt.reads) >= maxTrackedReads {
				break
			}
			r := &n.rows[i]
			tt.note(entKey{r.PartitionKey, r.RowKey}, read{etag: r.ETag, exists: true})
		}
	}
	clear(tt.scanned)
	tt.scanned = tt.scanned[:0]
	tt.nscanned = 0
}

// readOf returns the remembered read of the row under k.
func (tt *txTable) readOf(k entKey) (read, bool) {
	tt.flushReads()
	r, ok := tt.reads[k]
	return r, ok
}

func (tt *txTable) note(k entKey, r read) {
	prev, ok := tt.reads[k]
	if !ok {
		tt.reads[k] = r
		return
	}
	if prev.exists && r.exists && prev.etag != r.etag {
		prev.etag = txnrec.UnusableETag(prev.etag)
		tt.reads[k] = prev
	}
}

func (tt *txTable) put(k entKey, p *pending) {
	tt.version++
	was, ok := tt.writes[k]
	if !ok {
		tt.order = append(tt.order, k)
	}
	tt.writes[k] = p
	tt.noteUnique(k, was, p)
}

// commit applies the buffered writes. See the comment at the top of the file.
func (g *Gateway) commit(ctx context.Context, t *txn) error {
	err := staleAbsence(t, g.commitWrites(ctx, t))
	if err == nil && commitWrittenHook != nil {
		commitWrittenHook(ctx)
	}
	return err
}

// commitWrittenHook, if set (tests only: SetCommitWrittenHook), runs after
// a commit has written, with its context.
var commitWrittenHook func(ctx context.Context)

// commitWrites is commit before its duplicate's mapping (staleAbsence).
func (g *Gateway) commitWrites(ctx context.Context, t *txn) error {
	var phys []string
	for p, tt := range t.tables {
		if len(tt.writes) > 0 {
			phys = append(phys, p)
		}
	}
	sort.Strings(phys)
	if len(phys) == 0 {
		return nil // nothing to write (a commit that writes nothing passes no gate)
	}
	if bulkCommit(t, phys) {
		ctx = storage.WithBulkWrite(ctx)
	}
	defer g.commits.enter()() // before indexesSince: CREATE INDEX's drain, the backfill's writer gate (commitgate.go)
	var log commitLog
	defer g.finishIndexes(ctx, &log)
	prep := make([]*preparedTable, len(phys))
	for i, p := range phys {
		if cur := g.indexesSince(t.tables[p].meta); cur != nil {
			t.table(cur) // an index added or dropped since (secondary.go)
		}
		if commitIndexesHook != nil {
			commitIndexesHook()
		}
		pt, err := prepareTable(t.tables[p])
		if err != nil {
			return err
		}
		prep[i] = pt
	}
	if done, err := g.commitIndexed(ctx, t, phys, prep, &log); done { // txnindex.go
		return err
	}
	if done, err := g.commitAtomic(ctx, t, phys, prep, &log); done {
		return err
	}
	for i, p := range phys {
		if err := g.commitTable(ctx, t.tables[p], prep[i], &log); err != nil {
			if log.batches == 0 {
				return err
			}
			if !log.other {
				log.compensated = true
				if g.compensate(ctx, log.inserts) == nil {
					return err // the statement left nothing behind
				}
			}
			return errPartialCommit(err)
		}
	}
	return nil
}

// bulkWriteRows is the number of rows from which a commit is a bulk
// write (storage.WithBulkWrite): the row cache replaces the entries its
// rows have and adds new ones only into free room, never evicting what
// reads cached for them (scan resistance). A multi-row INSERT, LOAD
// DATA, INSERT ... SELECT or a wide UPDATE may write more rows than the
// cache holds; an OLTP transaction writes a few, and they go in as
// before. Decided here by count, so that every bulk path gets it without
// being tagged one by one.
const bulkWriteRows = 128

// bulkCommit reports whether the commit of t writes at least
// bulkWriteRows rows (in the tables phys).
func bulkCommit(t *txn, phys []string) bool {
	n := 0
	for _, p := range phys {
		n += len(t.tables[p].writes)
	}
	return n >= bulkWriteRows
}

// commitLog records what a commit has applied so far.
type commitLog struct {
	batches int
	inserts []appliedInsert
	other   bool // an update or delete was applied: not undoable
	// Global index writes in progress (secondary.go), finished when the
	// commit ends; compensated: the applied inserts were (or were tried
	// to be) deleted again, so their index entries are resolved from the
	// rows.
	ix          []ixBatch
	compensated bool
}

type appliedInsert struct {
	table string
	e     *storage.Entity
	etag  storage.ETag
}

// compensate deletes the entities a failed commit inserted (when it only
// inserted), each only if still unchanged (If-Match on the ETag the insert
// returned), so that a failed multi-partition INSERT leaves no rows behind,
// as MySQL's statement atomicity requires. Readers may see the rows in
// between; a concurrent change to them keeps them (and the caller reports a
// partial commit).
func (g *Gateway) compensate(ctx context.Context, ins []appliedInsert) error {
	ctx = context.WithoutCancel(ctx)
	var firstErr error
	for _, a := range ins {
		err := g.store.Delete(ctx, a.table, a.e.PartitionKey, a.e.RowKey, a.etag)
		if err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return firstErr
}

// errPartialCommit reports a failure after some batches were applied,
// keeping the MySQL error code of the cause.
func errPartialCommit(err error) error {
	se := sql.CastSQLError(plainDup(err))
	return mysql.NewSQLError(int(se.Number()), se.SQLState(),
		"%s (sqlgw: the transaction spanned several partitions or batches; %s)", se.Message, PartialCommitNote)
}

type rowOps struct {
	ops   []storage.Operation
	delta int64 // row-count change
	size  int   // opsSize(ops), set by prepareTable
	ix    *ixmaint.Write
}

// txBatch is one store batch of a commit: operations of one partition.
type txBatch struct {
	pk    string
	ops   []storage.Operation
	delta int64
	size  int
	ws    []ixmaint.Write // the rows, for global index maintenance
}

// preparedTable is one table's writes cut into batches.
type preparedTable struct {
	batches []txBatch
	big     []bigRow
}

// prepareTable turns one table's writes into store operations, partition
// by partition, cut into batches of at most storage.MaxBatchOps operations
// (a row's entities never straddle two batches); rows larger than one
// batch are apart (big).
func prepareTable(tt *txTable) (*preparedTable, error) {
	byPart := make(map[string][]rowOps, min(len(tt.order), 1024))
	var parts []string
	var big []bigRow
	// A key undone by a failed statement (editor.DiscardChanges) stays in
	// order and is appended again when written later: each key once.
	// Every key of writes is in order (txTable.put appends it, undo only
	// deletes from writes), so when order is no longer than writes it
	// holds each key once and needs no set (a bulk INSERT's thousand
	// rows: a thousand-entry map saved).
	var done map[entKey]bool
	if len(tt.order) > len(tt.writes) {
		done = make(map[entKey]bool, len(tt.writes))
	}
	keys := make([]entKey, 0, len(tt.writes))
	for _, k := range tt.order {
		if tt.writes[k] == nil || done[k] {
			continue // undone by a failed statement, or seen already
		}
		if done != nil {
			done[k] = true
		}
		keys = append(keys, k)
	}
	ros, err := rowOperationsAll(tt, keys)
	if err != nil {
		return nil, err
	}
	for i, k := range keys {
		ro := ros[i]
		if len(ro.ops) == 0 {
			continue
		}
		if len(ro.ops) > storage.MaxBatchOps || ro.size > batchBytes {
			big = append(big, bigRow{k: k, w: tt.writes[k], ro: ro})
			continue
		}
		if _, ok := byPart[k.pk]; !ok {
			parts = append(parts, k.pk)
		}
		byPart[k.pk] = append(byPart[k.pk], ro)
	}
	// A row taking a local unique value another row releases goes after
	// it (a shift in the order a later statement made valid), so that
	// batches applied in order never take before they release.
	for _, pk := range parts {
		if len(byPart[pk]) > 1 {
			byPart[pk] = releasesFirst(tt.meta, byPart[pk])
		}
	}
	// Cut each partition's operations into batches (a row's entities never
	// straddle two batches).
	type batch = txBatch
	batches := make([]batch, 0, len(parts)) // at least one a partition
	for _, pk := range parts {
		var b batch
		for _, ro := range byPart[pk] {
			rs := ro.size
			if len(b.ops) > 0 && (len(b.ops)+len(ro.ops) > storage.MaxBatchOps || b.size+rs > batchBytes) {
				batches = append(batches, b)
				b = batch{}
			}
			b.pk = pk
			b.ops = append(b.ops, ro.ops...)
			b.delta += ro.delta
			b.size += rs
			if ro.ix != nil {
				b.ws = append(b.ws, *ro.ix)
			}
		}
		if len(b.ops) > 0 {
			batches = append(batches, b)
		}
	}
	return &preparedTable{batches: batches, big: big}, nil
}

// parallelEncodeRows is the number of rows from which a commit encodes
// its rows' entities on several goroutines (rowOperationsAll): a bulk
// INSERT's thousand rows, not a transaction's handful, where starting
// goroutines would cost more than it saves.
const parallelEncodeRows = 256

// rowOperationsAll returns the store operations of each of tt's writes
// keys (rowOperations, then the local index operations, then their size),
// in the order of keys. A large commit's rows are encoded in chunks on up
// to GOMAXPROCS goroutines: each row's operations depend on that row and
// the table's definition only, and the commit's wall time on an otherwise
// idle server is mostly this encoding and the store's batch. The error is
// the first row's in keys order, as one loop would return.
func rowOperationsAll(tt *txTable, keys []entKey) ([]rowOps, error) {
	ros := make([]rowOps, len(keys))
	one := func(i int) error {
		k := keys[i]
		w := tt.writes[k]
		ro, err := rowOperations(tt.meta, k, w)
		if err != nil {
			return err
		}
		if len(ro.ops) == 0 {
			return nil
		}
		if len(tt.meta.Indexes) > 0 {
			// Local index operations ride in the row's batch; the row is
			// recorded for the global indexes (secondary.go).
			if err := addIndexOps(tt.meta, k, w, &ro); err != nil {
				return err
			}
		}
		ro.size = opsSize(ro.ops) // once: a bulk INSERT's rows are measured here only
		ros[i] = ro
		return nil
	}
	workers := min(runtime.GOMAXPROCS(0), len(keys)/(parallelEncodeRows/2))
	if workers <= 1 {
		for i := range keys {
			if err := one(i); err != nil {
				return nil, err
			}
		}
		return ros, nil
	}
	errs := make([]error, workers)
	var wg sync.WaitGroup
	per := (len(keys) + workers - 1) / workers
	for w := range workers {
		lo, hi := w*per, min((w+1)*per, len(keys))
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				// A panic stays the statement's error, as on the
				// connection's goroutine, not the process's end.
				if r := recover(); r != nil {
					errs[w] = fmt.Errorf("sqlgw: encoding the rows of table %s: %v", tt.meta.Name, r)
				}
			}()
			for i := lo; i < hi; i++ {
				if err := one(i); err != nil {
					errs[w] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for w := range workers { // chunks are in keys order: the first error is the first row's
		if errs[w] != nil {
			return nil, errs[w]
		}
	}
	return ros, nil
}

// commitTable applies one table's writes batch by batch (the path of a
// commit that fits one batch, or that the atomic path does not take:
// commitAtomic).
func (g *Gateway) commitTable(ctx context.Context, tt *txTable, p *preparedTable, log *commitLog) error {
	batches, big := p.batches, p.big
	// Unique values handed from one row to another within the
	// transaction (secondary.go, beginIndexes).
	var handoffs *ixmaint.Handoffs
	if ixmaint.HasGlobal(tt.meta) {
		var all []ixmaint.Write
		for _, b := range batches {
			all = append(all, b.ws...)
		}
		for _, b := range big {
			if b.ro.ix != nil {
				all = append(all, *b.ro.ix)
			}
		}
		h, err := ixmaint.NewHandoffs(tt.meta, all)
		if err != nil {
			return mapError(err)
		}
		handoffs = h
	}
	// Two rows taking one unique global value: the error in the order of
	// the rows, nothing applied (secondary.go, takenTwice).
	if before, dup := takenTwice(tt); dup != nil {
		wss := make([][]ixmaint.Write, 0, len(batches)+len(big))
		for _, b := range batches {
			wss = append(wss, b.ws)
		}
		for _, b := range big {
			if b.ro.ix != nil {
				wss = append(wss, []ixmaint.Write{*b.ro.ix})
			}
		}
		return g.firstDuplicate(ctx, tt.meta, wss, before, dup)
	}
	// A local unique value handed from one row to another whose writes
	// fell in different batches of one partition (UPDATE t SET u = u + 1
	// over more rows than one batch holds): that partition's batches go in
	// order, one at a time, releases before takes.
	seq, err := sequentialPartitions(tt.meta, len(batches), func(i int) (string, []storage.Operation) { return batches[i].pk, batches[i].ops })
	if err != nil {
		return err
	}
	// Batches of different partitions are independent: send them in
	// parallel (bounded), so a multi-row INSERT over many partitions costs
	// one round trip time per commitParallel batches, not per batch.
	// The error reported is that of the first failing batch in the order
	// of the transaction's rows (prepareTable: partitions in first-write
	// order), not the first to arrive: a multi-row INSERT whose rows hit
	// several stored keys names the first row's, as MySQL does.
	var (
		mu    sync.Mutex // log and delta
		delta int64
		chain = ordered.NewGroup(commitParallel)
	)
	// With a unique global index, the batches that change or delete rows
	// go first and settle their index entries before any insert needs a
	// value they release (REPLACE, delete-then-insert): secondary.go.
	order := make([]int, len(batches))
	for i := range order {
		order[i] = i
	}
	phases := uniquePhases(tt.meta, order, func(bi int) bool {
		for _, w := range batches[bi].ws {
			if w.Old != nil {
				return true
			}
		}
		return false
	})
	for pi, phase := range phases {
		if pi > 0 {
			if chain.Wait() != nil {
				break
			}
			g.finishIndexes(ctx, log)
			log.ix = nil
		}
		run := func(bi int) error {
			b := batches[bi]
			ixop, err := g.beginIndexes(ctx, tt.meta, b.ws, handoffs)
			var etags []storage.ETag
			applied := b.ops
			if err == nil {
				etags, applied, err = g.applyIndexed(ctx, tt.meta, b.ops)
			}
			mu.Lock()
			defer mu.Unlock()
			if ixop != nil {
				log.ix = append(log.ix, ixBatch{op: ixop, applied: err == nil})
			}
			if err != nil {
				chain.Fail(bi, err)
				return err
			}
			log.batches++
			delta += b.delta
			for i, op := range applied {
				if (op.Kind == storage.OpInsert || op.Kind == storage.OpUpsert && op.Entity.RowKey >= tt.meta.RowKeyEnd()) && i < len(etags) {
					log.inserts = append(log.inserts, appliedInsert{table: tt.meta.Physical, e: op.Entity, etag: etags[i]})
				} else {
					log.other = true
				}
			}
			return nil
		}
		// Chains: one per batch, except a sequential partition's batches,
		// which form one chain in order.
		var chains [][]int
		chainOf := map[string]int{}
		for _, bi := range phase {
			pk := batches[bi].pk
			if !seq[pk] {
				chains = append(chains, []int{bi})
				continue
			}
			if i, ok := chainOf[pk]; ok {
				chains[i] = append(chains[i], bi)
				continue
			}
			chainOf[pk] = len(chains)
			chains = append(chains, []int{bi})
		}
		for _, c := range chains {
			if chain.Err() != nil {
				break
			}
			// run records a failure at its batch's position (the order
			// of the rows), which is not the chain's.
			chain.Go(len(batches), func() error {
				for _, bi := range c {
					if run(bi) != nil {
						break
					}
				}
				return nil
			})
		}
	}
	firstErr := chain.Wait()
	g.addRowCount(tt.meta.Physical, delta)
	if firstErr != nil {
		return firstErr
	}
	for _, b := range big {
		var ws []ixmaint.Write
		if b.ro.ix != nil {
			ws = []ixmaint.Write{*b.ro.ix}
		}
		ixop, err := g.beginIndexes(ctx, tt.meta, ws, handoffs)
		if err == nil {
			err = g.applyBig(ctx, tt.meta, b, log)
		}
		if ixop != nil {
			log.ix = append(log.ix, ixBatch{op: ixop, applied: err == nil})
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// releasesFirst orders one partition's row writes so that a row taking a
// local unique index entity (Insert) comes after the row releasing it
// (Delete), keeping the first-write order otherwise (a stable topological
// order); rows in a cycle of such handoffs keep their order (within one
// batch, mergeIndexOps settles them).
func releasesFirst(meta *catalog.Table, rows []rowOps) []rowOps {
	unique := false
	for i := range meta.Indexes {
		unique = unique || (meta.Indexes[i].Unique && !meta.Indexes[i].Global)
	}
	if !unique {
		return rows
	}
	end := meta.RowKeyEnd()
	releaser := map[entKey]int{}
	for i, ro := range rows {
		for _, op := range ro.ops {
			if op.Kind == storage.OpDelete && op.Entity != nil && op.Entity.RowKey >= end {
				releaser[entKey{op.Entity.PartitionKey, op.Entity.RowKey}] = i
			}
		}
	}
	if len(releaser) == 0 {
		return rows
	}
	after := make([][]int, len(rows)) // releaser -> takers
	indeg := make([]int, len(rows))
	edges := 0
	for i, ro := range rows {
		for _, op := range ro.ops {
			if op.Kind != storage.OpInsert || op.Entity == nil || op.Entity.RowKey < end {
				continue
			}
			if r, ok := releaser[entKey{op.Entity.PartitionKey, op.Entity.RowKey}]; ok && r != i {
				after[r] = append(after[r], i)
				indeg[i]++
				edges++
			}
		}
	}
	if edges == 0 {
		return rows
	}
	out := make([]rowOps, 0, len(rows))
	done := make([]bool, len(rows))
	// Take the first row in first-write order with no pending releaser
	// (a min-heap of ready rows); if none is ready (a cycle), the first
	// remaining row.
	ready := &intHeap{}
	for i := range rows {
		if indeg[i] == 0 {
			heap.Push(ready, i)
		}
	}
	next := 0 // the first row maybe not done, for cycles
	for len(out) < len(rows) {
		pick := -1
		for ready.Len() > 0 {
			if i := heap.Pop(ready).(int); !done[i] {
				pick = i
				break
			}
		}
		if pick < 0 {
			for done[next] {
				next++
			}
			pick = next
		}
		done[pick] = true
		out = append(out, rows[pick])
		for _, j := range after[pick] {
			if indeg[j]--; indeg[j] == 0 && !done[j] {
				heap.Push(ready, j)
			}
		}
	}
	return out
}

type intHeap []int

func (h intHeap) Len() int           { return len(h) }
func (h intHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h intHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *intHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *intHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// sequentialPartitions finds the partitions whose batches (n of them; at
// returns batch i's partition and operations) hand a local unique index
// entity from one batch to another: one deletes it (the row releasing the
// value) and another inserts it (the row taking it). Applied in order, one
// at a time, a release in an earlier batch frees the value for the take; a
// take before the release (a cycle of values, as in a swap, spread over
// more than one batch) cannot commit in order and is refused before
// anything of the table is written.
func sequentialPartitions(meta *catalog.Table, n int, at func(i int) (string, []storage.Operation)) (map[string]bool, error) {
	unique := false
	for i := range meta.Indexes {
		unique = unique || (meta.Indexes[i].Unique && !meta.Indexes[i].Global)
	}
	if !unique || n < 2 {
		return nil, nil
	}
	end := meta.RowKeyEnd()
	type place struct{ del, ins int }
	seen := map[entKey]*place{}
	var seq map[string]bool
	for i := 0; i < n; i++ {
		pk, ops := at(i)
		for _, op := range ops {
			if op.Entity == nil || op.Entity.RowKey < end || op.Kind != storage.OpDelete && op.Kind != storage.OpInsert {
				continue
			}
			k := entKey{op.Entity.PartitionKey, op.Entity.RowKey}
			p := seen[k]
			if p == nil {
				p = &place{-1, -1}
				seen[k] = p
			}
			if op.Kind == storage.OpDelete {
				p.del = i
			} else {
				p.ins = i
			}
			if p.del < 0 || p.ins < 0 || p.del == p.ins {
				continue
			}
			if p.ins < p.del {
				name := "?"
				if ix := ixmaint.LocalIndexOf(meta, &op); ix != nil {
					name = ix.Name
				}
				return nil, mysql.NewSQLError(mysql.ERNotSupportedYet, "42000",
					"sqlgw: this transaction moves values of unique index %s of table %s between rows in a cycle that spans more than one store batch of a partition (%d operations each); commit it in smaller transactions", name, meta.Name, storage.MaxBatchOps)
			}
			if seq == nil {
				seq = map[string]bool{}
			}
			seq[pk] = true
		}
	}
	return seq, nil
}

// bigRow is a row whose entities do not fit one batch (more than
// storage.MaxBatchOps entities or batchBytes).
type bigRow struct {
	k  entKey
	w  *pending
	ro rowOps
}

// batchBytes is the byte budget of one batch, by storage.EntitySize: half
// the Table service's 4 MiB, because the HTTP body of an Azure batch is
// larger than the entities' size (Binary values travel in base64, every
// property carries its name and type annotation), and the service rejects
// the request body, not the entity sizes (HTTP 413).
const batchBytes = storage.MaxBatchBytes / 2

func opsSize(ops []storage.Operation) int {
	n := 0
	for _, op := range ops {
		n += storage.EntitySize(op.Entity)
	}
	return n
}

func oversize(ops []storage.Operation) bool {
	return len(ops) > storage.MaxBatchOps || opsSize(ops) > batchBytes
}

// chunks cuts ops into batches within the store's batch limits.
func chunks(ops []storage.Operation) [][]storage.Operation {
	return storage.SplitBatches(ops, batchBytes)
}

// applyBig writes a row larger than one batch: the row cannot be written
// atomically, so its main entity (whose _n property names the generation
// and number of its continuation entities, catalog/row.go) is the commit
// point, written in one batch with the row's local index operations, so
// those change exactly when the row does:
//
//   - insert: continuation entities first, then the main entity with a
//     create-only insert; until then readers see no row (scans skip
//     continuation entities). If the insert fails, the continuation
//     entities are deleted again.
//   - update: the new version's continuation entities under a new
//     generation (catalog.Table.NextGeneration: none of the row's
//     continuation range), then the main entity replaced If-Match the ETag
//     read, then every continuation entity of another generation deleted.
//     Readers follow the generation the main entity names, so they see the
//     old row or the new one, whole. If the main entity's write fails, the
//     new generation is deleted again.
//   - delete: the main entity first (conditional on its ETag), then the
//     row's whole continuation range.
//
// A crash leaves only continuation entities no main entity names:
// invisible, and deleted by the row's next update or delete through this
// path, or by an update of a row that has continuation entities (the
// range is read with the row). One case keeps them longer: a crash while
// a row that had none grew past one batch leaves the row as it was, small,
// and its later small writes do not look at the range (no sweep exists
// yet; the entities cost storage only). A reader that read the main entity
// just before an update's commit point and its continuations after the
// old generation was deleted cannot decode the row, never gets a mixed
// one: the writers' reads (editor.go getRow, ixmaint.GetRow) read it
// again; a query's read (iter.go) fails that statement (1105, retry).
// Not seen in 166 reads racing 15 updates of a 3 MiB row on pebble.
func (g *Gateway) applyBig(ctx context.Context, meta *catalog.Table, b bigRow, log *commitLog) error {
	var ops, ixOps []storage.Operation
	for _, op := range b.ro.ops {
		if op.Entity.RowKey >= meta.RowKeyEnd() {
			ixOps = append(ixOps, op)
		} else {
			ops = append(ops, op)
		}
	}
	main, extras := ops[0], ops[1:]
	commit := func(main storage.Operation) ([]storage.ETag, error) {
		batch := append([]storage.Operation{main}, ixOps...)
		if len(batch) > storage.MaxBatchOps {
			return nil, mysql.NewSQLError(mysql.ERTooBigRowSize, "42000",
				"sqlgw: a row larger than one store batch changes %d local index entities; at most %d fit its commit batch", len(ixOps), storage.MaxBatchOps-1)
		}
		etags, _, err := g.applyIndexed(ctx, meta, batch)
		return etags, err
	}
	// undo deletes continuation entities written before a failed commit.
	undo := func(written []storage.Operation) {
		for _, op := range written {
			g.store.Delete(context.WithoutCancel(ctx), meta.Physical, op.Entity.PartitionKey, op.Entity.RowKey, storage.ETagAny)
		}
	}
	writeExtras := func(extras []storage.Operation) error {
		var written []storage.Operation
		for i := range extras {
			extras[i].Kind, extras[i].Mode, extras[i].IfMatch = storage.OpUpsert, storage.Replace, ""
		}
		for _, c := range chunks(extras) {
			if _, err := g.apply(ctx, meta, c); err != nil {
				undo(written)
				return err
			}
			written = append(written, c...)
		}
		return nil
	}
	switch {
	case b.w.deleted:
		if _, err := commit(main); err != nil {
			return err
		}
		log.batches++
		log.other = true
		g.addRowCount(meta.Physical, -1)
		g.dropContinuations(ctx, meta, b.k, nil)
		return nil
	case main.Kind == storage.OpInsert:
		// Never overwrite another row's continuation entities: check the
		// key is free first (a concurrent insert of the same key can still
		// race with this one; the main entity's create-only insert then
		// fails and reports the duplicate).
		switch _, err := g.store.Get(ctx, meta.Physical, main.Entity.PartitionKey, main.Entity.RowKey, &storage.GetOptions{Select: []string{}}); {
		case err == nil:
			return errDuplicate(meta, describeKey(meta, main.Entity))
		case !errors.Is(err, storage.ErrNotFound):
			return mapError(err)
		}
		if err := writeExtras(extras); err != nil {
			return err
		}
		etags, err := commit(main)
		if err != nil {
			undo(extras)
			return err
		}
		log.batches++
		log.inserts = append(log.inserts, appliedInsert{table: meta.Physical, e: main.Entity, etag: etags[0]})
		g.addRowCount(meta.Physical, 1)
		return nil
	}
	// Update: the row's whole continuation range decides the generation
	// (stray entities of a crashed rewrite included).
	have, err := g.continuationKeys(ctx, meta, b.k)
	if err != nil {
		return err
	}
	gen := meta.NextGeneration(append(have, b.w.base.extras...))
	ents, err := meta.EncodeEntitiesGen(b.k.pk, b.k.rk, b.w.row, gen)
	if err != nil {
		return mapError(err)
	}
	newExtras := make([]storage.Operation, 0, len(ents)-1)
	for _, e := range ents[1:] {
		newExtras = append(newExtras, storage.Operation{Kind: storage.OpUpsert, Mode: storage.Replace, Entity: e})
	}
	if err := writeExtras(newExtras); err != nil {
		return err
	}
	newMain := storage.Operation{Kind: storage.OpUpdate, Mode: storage.Replace, IfMatch: b.w.base.etag, Entity: ents[0]}
	if _, err := commit(newMain); err != nil {
		undo(newExtras)
		return err
	}
	log.batches++
	log.other = true
	keep := make(map[string]bool, len(ents))
	for _, e := range ents[1:] {
		keep[e.RowKey] = true
	}
	g.dropContinuations(ctx, meta, b.k, keep)
	return nil
}

// continuationKeys lists the RowKeys in the continuation range of row k.
func (g *Gateway) continuationKeys(ctx context.Context, meta *catalog.Table, k entKey) ([]string, error) {
	q := &storage.Query{Partition: storage.Exactly(k.pk), Row: meta.ContinuationRange(k.rk), Select: []string{}}
	var out []string
	for {
		page, err := g.store.Query(ctx, meta.Physical, q)
		if err != nil {
			return nil, mapError(err)
		}
		for _, e := range page.Entities {
			out = append(out, e.RowKey)
		}
		if page.Continuation == "" {
			return out, nil
		}
		q.Continuation = page.Continuation
	}
}

// dropContinuations deletes the entities of row k's continuation range
// except those in keep, after its commit point: best effort (what is left
// is invisible and the row's next large write deletes it), so failures
// are only logged.
func (g *Gateway) dropContinuations(ctx context.Context, meta *catalog.Table, k entKey, keep map[string]bool) {
	ctx = context.WithoutCancel(ctx)
	have, err := g.continuationKeys(ctx, meta, k)
	if err != nil {
		g.logger().Warn("sqlgw: listing continuation entities to delete (left, invisible)", "table", meta.Name, "error", err)
		return
	}
	var del []storage.Operation
	for _, rk := range have {
		if !keep[rk] {
			del = append(del, storage.Operation{Kind: storage.OpDelete, Entity: &storage.Entity{PartitionKey: k.pk, RowKey: rk}})
		}
	}
	for _, c := range chunks(del) {
		if _, err := g.store.Batch(ctx, meta.Physical, c); err != nil && !errors.Is(err, storage.ErrNotFound) {
			g.logger().Warn("sqlgw: deleting old continuation entities (left, invisible)", "table", meta.Name, "error", err)
		}
	}
}

// commitParallel bounds the batches of one commit in flight at once.
const commitParallel = 16

// rowOperations turns one buffered write into store operations: the main
// entity conditional on the ETag read, continuation entities alongside.
func rowOperations(meta *catalog.Table, k entKey, w *pending) (rowOps, error) {
	var ro rowOps
	switch {
	case w.deleted && !w.stored:
		return ro, nil
	case w.deleted:
		ro.ops = append(ro.ops, storage.Operation{Kind: storage.OpDelete, IfMatch: w.base.etag,
			Entity: &storage.Entity{PartitionKey: k.pk, RowKey: k.rk}})
		for _, x := range w.base.extras {
			ro.ops = append(ro.ops, storage.Operation{Kind: storage.OpDelete,
				Entity: &storage.Entity{PartitionKey: k.pk, RowKey: x}})
		}
		ro.delta = -1
		return ro, nil
	}
	ents, err := meta.EncodeEntities(k.pk, k.rk, w.row)
	if err != nil {
		return ro, mapError(err)
	}
	if !w.stored {
		for _, e := range ents {
			ro.ops = append(ro.ops, storage.Operation{Kind: storage.OpInsert, Entity: e})
		}
		ro.delta = 1
		return ro, nil
	}
	ro.ops = append(ro.ops, storage.Operation{Kind: storage.OpUpdate, Mode: storage.Replace, IfMatch: w.base.etag, Entity: ents[0]})
	rewritten := make(map[string]bool, len(ents)-1)
	for _, e := range ents[1:] {
		ro.ops = append(ro.ops, storage.Operation{Kind: storage.OpUpsert, Mode: storage.Replace, Entity: e})
		rewritten[e.RowKey] = true
	}
	// The stored row's continuation entities not rewritten in place (fewer
	// now, or of another generation: catalog/row.go).
	for _, x := range w.base.extras {
		if !rewritten[x] {
			ro.ops = append(ro.ops, storage.Operation{Kind: storage.OpDelete,
				Entity: &storage.Entity{PartitionKey: k.pk, RowKey: x}})
		}
	}
	return ro, nil
}

// apply sends one batch (or a single operation) and maps failures.
func (g *Gateway) apply(ctx context.Context, meta *catalog.Table, ops []storage.Operation) ([]storage.ETag, error) {
	var err error
	etags := make([]storage.ETag, 1)
	if len(ops) == 1 {
		op := ops[0]
		switch op.Kind {
		case storage.OpInsert:
			etags[0], err = g.store.Insert(ctx, meta.Physical, op.Entity)
		case storage.OpUpdate:
			etags[0], err = g.store.Update(ctx, meta.Physical, op.Entity, op.Mode, op.IfMatch)
		case storage.OpDelete:
			err = g.store.Delete(ctx, meta.Physical, op.Entity.PartitionKey, op.Entity.RowKey, op.IfMatch)
		case storage.OpUpsert:
			etags[0], err = g.store.Upsert(ctx, meta.Physical, op.Entity, op.Mode)
		}
	} else {
		etags, err = g.store.Batch(ctx, meta.Physical, ops)
	}
	if err == nil {
		return etags, nil
	}
	return nil, g.applyError(meta, ops, err)
}

// applyError maps the failure of a batch to the MySQL error a client expects.
func (g *Gateway) applyError(meta *catalog.Table, ops []storage.Operation, err error) error {
	var op *storage.Operation
	var be *storage.BatchError
	if errors.As(err, &be) && be.Index >= 0 && be.Index < len(ops) {
		op = &ops[be.Index]
	} else if len(ops) == 1 {
		op = &ops[0]
	}
	if errors.Is(err, storage.ErrAlreadyExists) {
		if ix := ixmaint.LocalIndexOf(meta, op); ix != nil {
			return dupIndexError(meta, ix.Name, op.Entity)
		}
	}
	switch {
	case errors.Is(err, storage.ErrAlreadyExists):
		if op == nil {
			return errDuplicate(meta, "")
		}
		dup := errDuplicate(meta, describeKey(meta, op.Entity))
		if op.Kind != storage.OpInsert {
			return dup
		}
		return &dupOnInsert{err: dup, table: meta.Physical, pk: op.Entity.PartitionKey, rk: op.Entity.RowKey} // commit's staleAbsence (readabsent.go)
	case errors.Is(err, storage.ErrPreconditionFailed), errors.Is(err, storage.ErrNotFound) && op != nil && op.Kind != storage.OpInsert:
		key := ""
		var at []mysqlerr.ConflictKey // the entity, for the server's wait queues (sqlgw/wire's autoretry.go)
		if op != nil {
			key = describeKey(meta, op.Entity)
			at = append(at, mysqlerr.ConflictKey{Table: meta.Physical, PartitionKey: op.Entity.PartitionKey, RowKey: op.Entity.RowKey})
		}
		return mysqlerr.ConflictOn(fmt.Sprintf("row %s of table %s changed since this transaction read it", key, meta.Name), at...)
	}
	return mapError(err)
}

// errDuplicate is MySQL's 1062 for a duplicate found at commit.
func errDuplicate(meta *catalog.Table, key string) error {
	return dupEntryError(meta.Name, primaryKeyName, key)
}

// describeKey renders a row's primary key for error messages, MySQL style
// ('1-a').
func describeKey(meta *catalog.Table, e *storage.Entity) string {
	vals, err := meta.DecodeKey(e.PartitionKey, e.RowKey)
	if err != nil {
		return e.PartitionKey + "/" + e.RowKey
	}
	// A column keyed by a collation's weights decodes to the weights; the
	// value itself is in the entity's properties when it carries them.
	for i, v := range vals {
		if _, weights := v.([]int32); !weights {
			continue
		}
		if row, err := meta.DecodeRow(e); err == nil {
			if c := meta.ColumnIndex(meta.PrimaryKey[i].Column); c >= 0 && row[c] != nil {
				vals[i] = row[c]
			}
		}
	}
	parts := make([]string, len(vals))
	for i, v := range vals {
		if _, weights := v.([]int32); !weights && i < len(meta.PrimaryKey) {
			if c := meta.ColumnIndex(meta.PrimaryKey[i].Column); c >= 0 {
				parts[i] = datumText(nil, meta.Columns[c].Type, v)
				continue
			}
		}
		if b, ok := v.([]byte); ok {
			v = string(b)
		}
		parts[i] = fmt.Sprint(v)
	}
	return strings.Join(parts, "-")
}

// partialCommitNote ends the message of a commit that failed after some
// batches were applied (txn.go, errPartialCommit): never retried.
const PartialCommitNote = "the batches before this one were committed and are not rolled back"
