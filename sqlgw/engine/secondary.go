package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/catalog/ixmaint"
	"github.com/sqlgw/sqlgw/internal/ordered"
	"github.com/sqlgw/sqlgw/planner"
	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/recorder"
)

// Secondary indexes
//
// DDL: CREATE [UNIQUE] INDEX, ALTER TABLE ADD/DROP INDEX, INDEX/KEY/UNIQUE
// in CREATE TABLE, DROP INDEX. The kind and covering columns come from the
// index comment (catalog.ParseIndexOptions):
//
//	CREATE INDEX by_city ON users (city, age) COMMENT 'sqlgw: global, cover=(name)'
//	CREATE INDEX by_status ON orders (cust, status) COMMENT 'sqlgw: local'
//
// A table without a primary key (its rows under generated RowKeys in one
// partition) has local indexes only (catalog.ChooseIndexKind): their
// entities, written in the row's batch, end with the generated RowKey, as
// a keyed table's end with the row's keys. UPDATE and DELETE find the
// row's key among the rows the statement read (txn.go, noteKeyless) and
// maintain its entries from the values read; the lookup names the index
// it reads (keylessLookupIndex), since the table has no PRIMARY.
//
// Without a kind, an index that starts with the partition-key columns is
// local, any other is global (catalog.ChooseIndexKind). SHOW INDEX and
// information_schema.STATISTICS list them (GetIndexes), the comment
// showing the kind and the covered columns.
//
// CREATE INDEX adds the index in state building (writers maintain it from
// then on: a commit takes its tables' indexes as they are when it starts,
// indexesSince), waits for this gateway's commits in flight and, unless
// no other gateway can use the store (storage.Claimer), for every other
// gateway's catalog cache to see it, backfills it online
// (ixmaint.Backfill; progress in SHOW PROCESSLIST, as the statement's
// table progress "index NAME", and in the log; on a store only this
// gateway uses, pages that no commit overlapped are written without
// their checks, commitgate.go), then marks it ready;
// only then does the planner use it. A gateway that starts with an index
// still building (a crash mid-backfill) runs the backfill again from the
// start (idempotent). A duplicate found by the backfill of a UNIQUE index
// drops the index and fails the statement with 1062.
//
// Writes (txn.go): every row write of a table with indexes carries its
// local index operations in its own batch; global ones are writes of the
// commit's own atomic unit when it can take them (txnindex.go), and
// otherwise follow ixmaint's protocol around the batch
// (ixmaint.Maintainer.Begin / Finish). A unique
// violation is MySQL error 1062 naming the index. Reads of IndexLookup and
// IndexRange plans (iter.go) read the index entities, then the base rows
// with parallel Gets, verifying every hit of a global index against its
// row (stale hits are dropped and repaired); covering plans read no base
// row for unmarked entities. Recovery of interrupted global index writes
// runs at start-up and every indexSweepEvery (startIndexRecovery); marks
// younger than the lease are left to their writers, so entries a crash
// left are settled within lease + indexSweepEvery of the restart.

// indexLease is the lease of marked global index entities.
const indexLease = ixmaint.DefaultLease

// indexSweepEvery is the period of the recovery sweep after start-up. A
// sweep reads every global index table with a filter (the store scans them
// whole), so it runs a few times a minute at most; readers never depend on
// it (they verify), only the tidiness of the index after a crash does.
const indexSweepEvery = 2 * indexLease

// readyIndexes lists the indexes the planner may use, in catalog order.
func readyIndexes(t *catalog.Table) []*catalog.Index {
	var out []*catalog.Index
	for i := range t.Indexes {
		if t.Indexes[i].State == catalog.IndexReady {
			out = append(out, &t.Indexes[i])
		}
	}
	return out
}

var _ planner.IndexedTable = (*plannerTable)(nil)

// Indexes implements planner.IndexedTable.
func (p *plannerTable) Indexes() []planner.Index { return plannerIndexes(p.t, readyIndexes(p.t)) }

// EncodeIndexKey implements planner.IndexedTable: encodeIndexKey's
// answer, from the key columns of the ready indexes found once per table
// (an IN list binds ten values per execute: each used to list the ready
// indexes and their columns again).
func (p *plannerTable) EncodeIndexKey(n, first int, vals []planner.Datum) (string, error) {
	ic := p.ixKeys.Load()
	if ic == nil {
		ixs := readyIndexes(p.t)
		ic = &indexKeyCols{cols: make([][]catalog.KeyColumn, len(ixs)), errs: make([]error, len(ixs))}
		for i, ix := range ixs {
			ic.cols[i], ic.errs[i] = p.t.IndexColumns(ix)
		}
		p.ixKeys.Store(ic)
	}
	if n < 0 || n >= len(ic.cols) {
		return "", fmt.Errorf("sqlgw: index %d out of range", n)
	}
	if ic.errs[n] != nil {
		return "", ic.errs[n]
	}
	cols := ic.cols[n]
	if first+len(vals) > len(cols) {
		return "", fmt.Errorf("sqlgw: %d index values from %d for %d columns", len(vals), first, len(cols))
	}
	var buf [64]byte
	b := buf[:0]
	var err error
	for i, d := range vals {
		if b, err = cols[first+i].Append(b, d); err != nil {
			return "", err
		}
	}
	return string(b), nil
}

// indexKeyCols are a table's ready indexes' key columns (or the error of
// finding them), position for position (plannerTable.EncodeIndexKey).
type indexKeyCols struct {
	cols [][]catalog.KeyColumn
	errs []error
}

// plannerIndexes describes ixs to the planner, position for position (an
// index that cannot be described gets no columns, so the planner skips it
// and the positions still agree with encodeIndexKey's).
func plannerIndexes(t *catalog.Table, ixs []*catalog.Index) []planner.Index {
	out := make([]planner.Index, 0, len(ixs))
	for _, ix := range ixs {
		pi := planner.Index{Name: ix.Name, Table: ix.Physical, Local: !ix.Global, Unique: ix.Unique, Unsynced: t.IsAttached(),
			BaseKeys: []string{catalog.PropBasePK, catalog.PropBaseRK, ixmaint.PropPending, ixmaint.PropPrevPK, ixmaint.PropPrevRK}}
		if !ix.Global {
			pi.Table = t.Physical
			_, pre, err := t.IndexPrefix(ix, nil)
			if err != nil {
				out = append(out, planner.Index{Name: ix.Name})
				continue
			}
			pi.LocalPrefix = pre
		}
		cols, err := t.IndexColumns(ix)
		if err != nil {
			out = append(out, planner.Index{Name: ix.Name})
			continue
		}
		for _, kc := range cols {
			pi.Columns = append(pi.Columns, planner.KeyColumn{Col: kc.Index, Desc: kc.Desc})
			pi.Carried = append(pi.Carried, kc.Index)
		}
		for _, c := range ix.Covering {
			if i := t.ColumnIndex(c); i >= 0 {
				pi.Carried = append(pi.Carried, i)
			}
		}
		// Primary-key columns decode exactly from the base keys.
		for _, kp := range t.PrimaryKey {
			if i := t.ColumnIndex(kp.Column); i >= 0 && ixmaint.KeyExact(t, i) {
				pi.Carried = append(pi.Carried, i)
			}
		}
		out = append(out, pi)
	}
	return out
}

// encodeIndexKey encodes values of index ixs[n] (planner.IndexedTable).
func encodeIndexKey(t *catalog.Table, ixs []*catalog.Index, n, first int, vals []planner.Datum) (string, error) {
	if n < 0 || n >= len(ixs) {
		return "", fmt.Errorf("sqlgw: index %d out of range", n)
	}
	cols, err := t.IndexColumns(ixs[n])
	if err != nil {
		return "", err
	}
	if first+len(vals) > len(cols) {
		return "", fmt.Errorf("sqlgw: %d index values from %d for %d columns", len(vals), first, len(cols))
	}
	var b []byte
	for i, d := range vals {
		if b, err = cols[first+i].Append(b, d); err != nil {
			return "", err
		}
	}
	return string(b), nil
}

// secondaryIndex is a secondary index as the engine sees it (SHOW INDEX,
// information_schema.STATISTICS, lookup joins, foreign-key checks). sqlgw
// chooses index paths for filters itself (LookupForExpressions), but the
// engine builds MySQLRangeCollections on it for lookup joins and foreign
// keys: IndexedAccess converts those to the planner's IR over the index's
// columns (rangesToPlanFor), which plans them onto the index when it is
// ready (IndexLookup/IndexRange, hits verified against base rows) and onto
// another correct path while it is building; whatever the plan does not
// answer exactly is enforced with the ranges' filter expression, so every
// range on the index's columns is supported.
type secondaryIndex struct {
	db, table string
	ix        catalog.Index
	exprs     []string
	types     []sql.ColumnExpressionType
	cols      []int // full-row ordinals, in expression order
	keyless   bool  // the table has no primary key: the index is local
}

var _ sql.Index = (*secondaryIndex)(nil)

func (t *Table) secondaryIndexes() []sql.Index {
	var out []sql.Index
	for _, ix := range t.meta().Indexes {
		si := &secondaryIndex{db: t.db.name, table: t.Name(), ix: ix, keyless: t.meta().Keyless()}
		for _, kp := range ix.Columns {
			c := t.meta().ColumnIndex(kp.Column)
			if c < 0 {
				continue
			}
			col := t.info.schema.Schema[c]
			e := indexExpr(t.Name(), col.Name)
			si.exprs = append(si.exprs, e)
			si.types = append(si.types, sql.ColumnExpressionType{Expression: e, Type: col.Type})
			si.cols = append(si.cols, c)
		}
		out = append(out, si)
	}
	return out
}

func (ix *secondaryIndex) ID() string                            { return ix.ix.Name }
func (ix *secondaryIndex) Database() string                      { return ix.db }
func (ix *secondaryIndex) Table() string                         { return ix.table }
func (ix *secondaryIndex) Expressions() []string                 { return ix.exprs }
func (ix *secondaryIndex) IsUnique() bool                        { return ix.ix.Unique }
func (ix *secondaryIndex) IsSpatial() bool                       { return false }
func (ix *secondaryIndex) IsFullText() bool                      { return false }
func (ix *secondaryIndex) IsVector() bool                        { return false }
func (ix *secondaryIndex) IndexType() string                     { return "BTREE" }
func (ix *secondaryIndex) IsGenerated() bool                     { return false }
func (ix *secondaryIndex) PrefixLengths() []uint16               { return nil }
func (ix *secondaryIndex) CanSupportOrderBy(sql.Expression) bool { return false }
func (ix *secondaryIndex) ColumnExpressionTypes(*sql.Context) []sql.ColumnExpressionType {
	return ix.types
}

// CanSupport implements sql.Index: true for MySQLRanges over (a prefix of)
// the index's columns, which rangesToPlanFor converts exactly (the plan's
// residual is the ranges' own filter expression), and for the planned
// lookups LookupForExpressions names the index in (keyless tables).
func (ix *secondaryIndex) CanSupport(_ *sql.Context, ranges ...sql.Range) bool {
	if len(ix.cols) != len(ix.ix.Columns) {
		return false // a column the catalog no longer has
	}
	for _, r := range ranges {
		if _, ok := r.(planRange); ok {
			continue // a planned lookup of a keyless table (keylessLookupIndex)
		}
		mr, ok := r.(sql.MySQLRange)
		if !ok || len(mr) > len(ix.cols) {
			return false
		}
	}
	return true
}

// Comment renders the index's kind and covered columns in the syntax that
// creates it (SHOW CREATE TABLE, dumps); nothing for a plain index of a
// keyless table, whose indexes are all local.
func (ix *secondaryIndex) Comment() string {
	if ix.keyless && len(ix.ix.Covering) == 0 {
		// A table without a primary key has local indexes only: the
		// kind says nothing, and a dump stays the one MySQL writes.
		return ""
	}
	kind := "global"
	if !ix.ix.Global {
		kind = "local"
	}
	s := "sqlgw: " + kind
	if len(ix.ix.Covering) > 0 {
		s += ", cover=(" + strings.Join(ix.ix.Covering, ", ") + ")"
	}
	return s
}

// createSecondaryIndex implements CREATE INDEX (and the indexes of CREATE
// TABLE, which the engine adds after creating the table).
func (t *Table) createSecondaryIndex(ctx *sql.Context, def sql.IndexDef) error {
	meta := t.meta()
	switch {
	case def.IsFullText(), def.IsSpatial(), def.IsVector():
		return errUnsupported.New(fmt.Sprintf("index %s: FULLTEXT, SPATIAL and VECTOR indexes are not supported", def.Name))
	}
	var cols []catalog.KeyPart
	var names []string
	for _, c := range def.Columns {
		names = append(names, c.Name)
	}
	var desc map[string]bool
	if ctx.Session != nil {
		desc = t.gw.Parts.TakeIndexDesc(ctx.Session.ID(), t.Name(), def.Name, names) // sqlgw/engine/ddldecl
	}
	for _, c := range def.Columns {
		if c.Length > 0 {
			return errUnsupported.New(fmt.Sprintf("index %s: prefix lengths (%s(%d)) are not supported", def.Name, c.Name, c.Length))
		}
		cols = append(cols, catalog.KeyPart{Column: c.Name, Desc: desc[strings.ToLower(c.Name)]})
	}
	opts, err := catalog.ParseIndexOptions(def.Comment)
	if err != nil {
		return mapError(err)
	}
	unique := def.IsUnique()
	global, err := catalog.ChooseIndexKind(meta, cols, unique, opts.Kind)
	if err != nil {
		return mapError(err)
	}
	name := def.Name
	if name == "" {
		name = cols[0].Column
		for i := 2; meta.Index(name) != nil; i++ {
			name = fmt.Sprintf("%s_%d", cols[0].Column, i)
		}
	}
	mctx := MetaCtx(ctx)
	nt, err := t.gw.Catalog.AddIndex(mctx, t.db.name, t.Name(), catalog.Index{Name: name, Columns: cols,
		Unique: unique, Global: global, Covering: opts.Cover, State: catalog.IndexBuilding})
	if err != nil {
		if errors.Is(err, catalog.ErrIndexExists) {
			return sql.ErrDuplicateKey.New(name)
		}
		return mapError(err)
	}
	// Progress in SHOW PROCESSLIST (the statement's table progress) and
	// in the log.
	item := "index " + name
	var pl sql.ProcessList = sql.EmptyProcessList{}
	if ctx.ProcessList != nil {
		pl = ctx.ProcessList
	}
	n, _ := t.gw.rowCount(meta.Physical)
	pl.AddTableProgress(ctx.Pid(), item, n)
	defer pl.RemoveTableProgress(ctx.Pid(), item)
	done := 0
	return t.gw.buildIndex(mctx, t.db.name, nt, name, func(rows int) {
		pl.UpdateTableProgress(ctx.Pid(), item, int64(rows-done))
		done = rows
	})
}

// indexesSince returns this gateway's current record of meta's table when
// it differs from meta in its indexes only (one added, made ready or
// dropped since the transaction's statements resolved the table), for the
// commit to maintain the indexes as they are now; nil otherwise (the
// common case: the same record). A transaction left open across CREATE
// INDEX so maintains the new index, whose backfill may have passed its
// rows already: the backfill checks the rows it indexes but does not
// rewrite them (catalog/ixmaint, backfillAtomic), so nothing else would
// make such a commit fail or maintain the index, and an insert never
// failed. Another gateway's commits see the index after their catalog
// refresh, which buildIndex waits out before the backfill. The record is
// the cached one (this gateway's own DDL is in it at once): the commit
// costs no catalog request.
func (g *Gateway) indexesSince(meta *catalog.Table) *catalog.Table {
	if meta == nil || meta.Database == "" || meta.IsAttached() {
		return nil
	}
	cur, err := g.Catalog.CachedTable(meta.Database, meta.Name) // no store request on the commit path
	if err != nil || cur == meta || cur.ID != meta.ID || cur.Physical != meta.Physical ||
		cur.Generation != meta.Generation || cur.DefVersion != meta.DefVersion {
		return nil
	}
	if slices.EqualFunc(cur.Indexes, meta.Indexes, func(a, b catalog.Index) bool {
		return a.Name == b.Name && a.ID == b.ID && a.State == b.State
	}) || !reflect.DeepEqual(cur.Columns, meta.Columns) || !reflect.DeepEqual(cur.PrimaryKey, meta.PrimaryKey) ||
		!slices.Equal(cur.PartitionKey, meta.PartitionKey) {
		return nil
	}
	return cur
}

// buildIndex backfills index name of table nt and marks it ready; on a
// duplicate in a unique index it drops the index.
func (g *Gateway) buildIndex(ctx context.Context, db string, nt *catalog.Table, name string, progress func(rows int)) error {
	// Writers of every gateway must see the index before the backfill
	// passes their rows. This gateway's commits take the table's indexes
	// as they are when they start (indexesSince): wait for those in
	// flight. Other gateways see it after their catalog refresh: wait
	// that out, unless no other gateway can use the store (an embedded
	// store only this process opens, claimed by this gateway alone).
	g.commits.drain()
	if g.alone == nil || !g.alone() || nt.IsAttached() {
		time.Sleep(g.catalogRefresh())
	}
	ix := nt.Index(name)
	if ix == nil {
		return fmt.Errorf("sqlgw: index %s vanished", name)
	}
	log := g.logger()
	start := time.Now()
	last := time.Now()
	err := g.maint().Backfill(ctx, nt, ix, func(rows int, pk, rk string) {
		if progress != nil {
			progress(rows)
		}
		if time.Since(last) > 2*time.Second {
			last = time.Now()
			log.Info("sqlgw: building index", "table", nt.Name, "index", name, "rows", rows)
		}
	})
	if errors.Is(err, ixmaint.ErrDuplicate) {
		if _, derr := g.Catalog.DropIndex(ctx, db, nt.Name, name); derr != nil {
			log.Warn("sqlgw: dropping a failed unique index", "index", name, "error", derr)
		}
		var de *ixmaint.DuplicateError
		if errors.As(err, &de) {
			return dupIndexError(nt, name, de.Entity)
		}
		return dupIndexError(nt, name, nil)
	}
	if err != nil && nt.IsAttached() {
		// Another application's value the index cannot hold (a key over
		// the store's limit): the index is not created (attached_index.go).
		g.dropFailedIndex(ctx, db, nt.Name, name)
	}
	if err != nil {
		return mapError(err)
	}
	if _, err := g.Catalog.SetIndexState(ctx, db, nt.Name, name, catalog.IndexReady); err != nil {
		return mapError(err)
	}
	log.Info("sqlgw: index ready", "table", nt.Name, "index", name, "took", time.Since(start).Round(time.Millisecond))
	g.statsAfterIndex(db, nt.Name) // stats.go
	return nil
}

// dropSecondaryIndex implements DROP INDEX: the catalog drops the index
// (and a global index's table); a local index's entities are deleted from
// the base partitions here (they are unreachable already: index IDs are
// never reused).
func (t *Table) dropSecondaryIndex(ctx *sql.Context, name string) error {
	meta := t.meta()
	ix := meta.Index(name)
	if ix == nil {
		return sql.ErrIndexNotFound.New(name)
	}
	local := !ix.Global
	_, pre, perr := meta.IndexPrefix(ix, nil)
	if _, err := t.gw.Catalog.DropIndex(MetaCtx(ctx), t.db.name, t.Name(), name); err != nil {
		return mapError(err)
	}
	if local && perr == nil {
		t.gw.deleteRange(MetaCtx(ctx), meta.Physical, catalog.PrefixRange(pre))
	}
	return nil
}

// deleteRange deletes the entities whose RowKeys are in r, in every
// partition, in batches (best effort: failures are logged).
func (g *Gateway) deleteRange(ctx context.Context, phys string, r *storage.KeyRange) {
	q := &storage.Query{Row: r, Select: []string{}}
	byPart := map[string][]storage.Operation{}
	flush := func(pk string) {
		if ops := byPart[pk]; len(ops) > 0 {
			if _, err := g.store.Batch(ctx, phys, ops); err != nil {
				g.logger().Warn("sqlgw: deleting dropped index entities", "error", err)
			}
			delete(byPart, pk)
		}
	}
	for {
		page, err := g.store.Query(ctx, phys, q)
		if err != nil {
			g.logger().Warn("sqlgw: deleting dropped index entities", "error", err)
			return
		}
		for _, e := range page.Entities {
			ops := append(byPart[e.PartitionKey], storage.Operation{Kind: storage.OpDelete,
				Entity: &storage.Entity{PartitionKey: e.PartitionKey, RowKey: e.RowKey}})
			byPart[e.PartitionKey] = ops
			if len(ops) == storage.MaxBatchOps {
				flush(e.PartitionKey)
			}
		}
		if page.Continuation == "" {
			break
		}
		q.Continuation = page.Continuation
	}
	for pk := range byPart {
		flush(pk)
	}
}

// loadIndex runs an index plan's reads: the index entities, then the base
// rows (or, for a covering plan, rows built from the entities). It fills
// it.fetched with main entities, in index order (key order when the
// transaction has buffered writes to merge).
func (it *rowIter) loadIndex() error {
	p := it.spec.plan
	ix := it.meta.Index(p.Index.Name)
	if ix == nil {
		return fmt.Errorf("sqlgw: index %s of table %s is gone; retry", p.Index.Name, it.meta.Name)
	}
	if err := checkIndexSnapshot(it.ctx, it.meta, ix); err != nil { // snapshot.go
		return err
	}
	// The hits as rows (only their candidates) unless the plan covers.
	hits, err := it.readIndexHits(p, ix.Global && !p.Index.Covering) // joinbatch_index.go: in parallel
	if err != nil {
		return err
	}
	// out and also (a second row of a handed-over entity) in one
	// allocation, capped so that neither grows into the other.
	n := len(hits)
	pair := make([]*storage.Entity, 2*n)
	out, also := pair[:n:n], pair[n:]
	gets := make([]int, 0, n)
	for i := range hits {
		h := &hits[i]
		if p.Index.Covering && h.e != nil && (!ix.Global || !h.e.Properties[ixmaint.PropPending].IsValid()) {
			e, err := it.coveringEntity(ix, h.e)
			if err != nil {
				return err
			}
			out[i] = e
			continue
		}
		gets = append(gets, i)
	}
	stale := make([]bool, len(hits))
	var cols indexCols
	if ix.Global && len(gets) > 0 {
		cols = it.indexCols(ix)
	}
	var outR, alsoR []*storage.Row
	if it.ixRowsMode == rowsOn && len(gets) > 0 && len(gets) == len(hits) {
		// The rows as rows in one store call (indexrows.go).
		pairR := make([]*storage.Row, 2*n)
		outR, alsoR = pairR[:n:n], pairR[n:]
		ok, err := it.hitRowsAsRows(ix, cols, hits, gets, outR, alsoR)
		if err != nil {
			return mapError(err)
		}
		if ok {
			for _, i := range gets {
				stale[i] = outR[i] == nil
			}
			gets = gets[:0]
		} else {
			outR, alsoR = nil, nil
		}
	}
	if it.t.gw.serial && len(gets) > 1 && !noIndexMultiQuery.Load() {
		// The rows in one store call (indexhits.go).
		if err := it.hitRows(ix, cols, hits, gets, out, also); err != nil {
			return mapError(err)
		}
		for _, i := range gets {
			stale[i] = out[i] == nil
		}
		gets = gets[:0]
	}
	var errs []error
	if len(gets) > 0 {
		errs = make([]error, len(hits))
		it.verifyEach(ix, cols, hits, gets, out, also, stale, errs)
	}
	for i := range hits {
		if errs != nil && errs[i] != nil {
			return mapError(errs[i])
		}
		if stale[i] && ix.Global {
			// The repair decides on the current rows, not on the
			// statement's snapshot (snapshot.go): a row may imply the
			// entity again since.
			if err := it.repairHit(storage.WithSnapshot(it.ctx, nil), ix, &hits[i]); err != nil {
				it.t.gw.logger().Warn("sqlgw: repairing a stale index entity", "index", ix.Name, "error", err)
			}
		}
	}
	it.fetched, it.fetchedRows, it.ixRows = it.fetched[:0], it.fetchedRows[:0], outR != nil
	if it.ixRows {
		it.fetchedRows = inIndexOrder(it, it.fetchedRows, outR, alsoR, rowKeyOf)
	} else {
		it.fetched = inIndexOrder(it, it.fetched, out, also, entityKeyOf)
	}
	it.fi = 0
	it.ixLoaded = true
	return nil
}

// verifyEach is loadIndex's read of the rows of hits[gets] one Get per
// candidate row (Gateway.each: in parallel where the store is remote),
// each verified against its hit, filling out, also, stale and errs at
// each hit's position.
func (it *rowIter) verifyEach(ix *catalog.Index, cols indexCols, hits []indexHit, gets []int, out, also []*storage.Entity, stale []bool, errs []error) {
	it.t.gw.each(len(gets), func(j int) {
		i := gets[j]
		h := &hits[i]
		// A marked entity handed between two rows of one transaction
		// names both (ixmaint.Candidates): each whose row implies it is
		// an answer (both, only if a commit was cut half-way).
		for _, cand := range h.candidates() {
			e, ok, err := it.verifyHit(ix, cols, h, cand[0], cand[1])
			if err != nil {
				errs[i] = err
				return
			}
			if ok && out[i] == nil {
				out[i] = e
			} else if ok {
				also[i] = e
			}
		}
		stale[i] = out[i] == nil
	})
}

// indexCols are the ordinals of a global index's columns, which decide
// its keys, or the error of finding them (verifyHit returns it).
type indexCols struct {
	ords []int
	// keys are the index's key columns (ords are their Index), for
	// checkHitRow's hitKeysMatch.
	keys []catalog.KeyColumn
	err  error
}

// indexCols returns ix's indexCols, made once per read rather than per
// hit.
func (it *rowIter) indexCols(ix *catalog.Index) indexCols {
	cols, err := it.meta.IndexColumns(ix)
	if err != nil {
		return indexCols{err: err}
	}
	ords := make([]int, len(cols))
	for i, c := range cols {
		ords[i] = c.Index
	}
	return indexCols{ords: ords, keys: cols}
}

// verifyHit reads the base row (pk, rk) of index hit h and reports whether
// it still implies h (always, for a local index); cols are ix's
// (it.indexCols), for a global index.
func (it *rowIter) verifyHit(ix *catalog.Index, cols indexCols, h *indexHit, pk, rk string) (*storage.Entity, bool, error) {
	e, err := it.t.gw.store.Get(it.ctx, it.meta.Physical, pk, rk, nil)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	ok, err := it.checkHit(ix, cols, h, pk, rk, e)
	if !ok || err != nil {
		return nil, false, err
	}
	return e, true, nil
}

// checkHit reports whether e, the base row (pk, rk) of index hit h,
// still implies h (always, for a local index); cols are ix's
// (it.indexCols), for a global index.
func (it *rowIter) checkHit(ix *catalog.Index, cols indexCols, h *indexHit, pk, rk string, e *storage.Entity) (bool, error) {
	if !ix.Global {
		return true, nil
	}
	ents := []*storage.Entity{e}
	if it.meta.Extras(e) > 0 {
		more, err := it.continuations(e)
		if err != nil {
			return false, err
		}
		ents = append(ents, more...)
	}
	// Only the index's columns decide its keys: the rest of the row is
	// not decoded here.
	if cols.err != nil {
		return false, cols.err
	}
	row, err := it.meta.DecodeRowColumns(cols.ords, ents...)
	if err != nil {
		return false, err
	}
	wpk, wrk, err := it.meta.IndexKeys(ix, pk, rk, row)
	if err != nil {
		return false, err
	}
	return wpk == h.PartitionKey && wrk == h.RowKey, nil
}

// coveringEntity builds a row's main entity from an index entity that
// carries every needed column (and the exactly decodable key columns). It
// is marked synthetic: its ETag is not the row's.
func (it *rowIter) coveringEntity(ix *catalog.Index, h *storage.Entity) (*storage.Entity, error) {
	pk, rk, vals, err := it.meta.DecodeIndexEntity(ix, h)
	if err != nil {
		return nil, mapError(err)
	}
	kv, err := it.meta.DecodeKey(pk, rk)
	if err != nil {
		return nil, mapError(err)
	}
	for i, kp := range it.meta.PrimaryKey {
		c := it.meta.ColumnIndex(kp.Column)
		if c >= 0 && vals[c] == nil && i < len(kv) && ixmaint.KeyExact(it.meta, c) {
			vals[c] = kv[i]
		}
	}
	ents, err := it.meta.EncodeEntities(pk, rk, vals)
	if err != nil {
		return nil, mapError(err)
	}
	e := ents[0]
	delete(e.Properties, catalog.PropExtras)
	if it.synthetic == nil {
		it.synthetic = map[*storage.Entity]bool{}
	}
	it.synthetic[e] = true
	return e, nil
}

// maint returns the gateway's index maintainer.
func (g *Gateway) maint() *ixmaint.Maintainer {
	g.maintOnce.Do(func() {
		g.maintainer = &ixmaint.Maintainer{Store: g.store, Lease: indexLease}
		if g.txs != nil {
			// The backfill's atomic pages (ixmaint.backfillAtomic): on the
			// embedded store, below the transaction wrapper, which holds no
			// lock there (txnindex.go).
			inner := g.txs.Store
			g.maintainer.MultiBatch = func(ctx context.Context, b []storage.TableBatch) ([][]storage.ETag, error) {
				return storage.ForwardMultiBatch(ctx, inner, groupTableBatches(b)) // tablegroup.go
			}
			// Pages read and written while no commit ran are not
			// checked (commitgate.go; ixmaint backfillQuiet).
			g.maintainer.Writers = writerGate{g}
		}
	})
	return g.maintainer
}

func (g *Gateway) logger() *slog.Logger {
	if g.Log != nil {
		return g.Log
	}
	return slog.Default()
}

func (g *Gateway) catalogRefresh() time.Duration { return g.Catalog.RefreshInterval() }

// indexWrites turns a batch's buffered writes into ixmaint writes.
func indexWrite(k entKey, w *pending) ixmaint.Write {
	iw := ixmaint.Write{OldPK: k.pk, OldRK: k.rk, PK: k.pk, RK: k.rk}
	if w.stored {
		iw.Old = w.old
	}
	if !w.deleted {
		iw.New = w.row
	}
	return iw
}

// dupIndexError is MySQL's 1062 for unique index ix, naming the values
// when e, the index entity that collided, is known.
func dupIndexError(meta *catalog.Table, ix string, e *storage.Entity) error {
	if v, ok := indexValues(meta, ix, e); ok {
		return dupEntryError(meta.Name, ix, v)
	}
	return mysql.NewSQLError(mysql.ERDupEntry, "23000", "Duplicate entry for key '%s.%s'", meta.Name, ix)
}

// takenTwice finds the first row of tt's writes, in the order of the
// transaction's rows, whose new values take a unique global index entity
// an earlier row takes too: two rows of one plain multi-row INSERT with
// equal values, or values equal under the index's collation ('xyz' and
// 'XyZ'; checkUnique skips those statements, and the commit's parallel
// index writes would name whichever row lost the race). MySQL names the
// later row's value (dup). The rows before it take distinct values
// (before reports them): firstDuplicate looks for a stored holder of one
// of theirs, which MySQL meets first. Nothing is computed for a table
// without a unique global index, or for one row.
func takenTwice(tt *txTable) (before func(ixmaint.Write) bool, dup error) {
	meta := tt.meta
	if len(tt.writes) < 2 {
		return nil, nil
	}
	unique := false
	for i := range meta.Indexes {
		unique = unique || meta.Indexes[i].Unique && meta.Indexes[i].Global
	}
	if !unique {
		return nil, nil
	}
	seen := map[string]bool{}
	prior := make(map[entKey]bool, len(tt.writes))
	done := make(map[entKey]bool, len(tt.writes))
	for _, k := range tt.order {
		w := tt.writes[k]
		if w == nil || done[k] {
			continue
		}
		done[k] = true
		if !w.deleted {
			uniqEntities(meta, k, w.row, func(ix *catalog.Index, e *storage.Entity) {
				if !ix.Global || dup != nil {
					return
				}
				key := uniqKey(ix, e)
				if seen[key] {
					dup = dupIndexError(meta, ix.Name, e)
				}
				seen[key] = true
			})
		}
		if dup != nil {
			return func(w ixmaint.Write) bool { return prior[entKey{w.PK, w.RK}] }, dup
		}
		prior[k] = true
	}
	return nil, nil
}

// firstDuplicate is the error of a commit of meta's rows that takenTwice
// found failing with dup: the global index writes of the rows before that
// row (the rows of batches kept by before) are begun, in parallel, and
// undone; the first batch's failure (a duplicate of a stored value) is
// the error, else dup. Nothing else of the commit is applied.
func (g *Gateway) firstDuplicate(ctx context.Context, meta *catalog.Table, batches [][]ixmaint.Write, before func(ixmaint.Write) bool, dup error) error {
	var kept [][]ixmaint.Write
	var all []ixmaint.Write
	for _, ws := range batches {
		var k []ixmaint.Write
		for _, w := range ws {
			if before(w) {
				k = append(k, w)
			}
		}
		if len(k) > 0 {
			kept = append(kept, k)
			all = append(all, k...)
		}
	}
	h, err := ixmaint.NewHandoffs(meta, all)
	if err != nil {
		return mapError(err)
	}
	run := ordered.NewGroup(commitParallel)
	for i, ws := range kept {
		run.Go(i, func() error {
			op, err := g.beginIndexes(ctx, meta, ws, h)
			if op != nil {
				if ferr := op.Finish(ctx, func(int) bool { return false }); ferr != nil {
					g.logger().Warn("sqlgw: finishing index writes (recovery will)", "error", ferr)
				}
			}
			return err
		})
	}
	if err := run.Wait(); err != nil {
		return err
	}
	return dup
}

// indexValues renders the indexed values an index entity carries as MySQL
// does in 1062 messages ('a-b').
func indexValues(meta *catalog.Table, name string, e *storage.Entity) (string, bool) {
	ix := meta.Index(name)
	if ix == nil || e == nil {
		return "", false
	}
	_, _, row, err := meta.DecodeIndexEntity(ix, e)
	if err != nil {
		return "", false
	}
	return rowIndexValues(nil, meta, ix, row), true
}

// rowIndexValues renders row's values in index ix's columns ('a-b'); ctx
// is the statement's, or nil (engineValueText).
func rowIndexValues(ctx *sql.Context, meta *catalog.Table, ix *catalog.Index, row []catalog.Datum) string {
	return keyDatumsText(ctx, meta, ix.Columns, row)
}

// startIndexRecovery resolves interrupted global index writes of every
// table now and every lease period, and resumes the backfill of indexes
// left building by a crash. It stops when ctx is done.
//
// Its requests, and the transaction sweep's, are marked as background
// work (recorder.Background): they are no statement's, and a test tracing
// a statement through the server's recorder must not see them. A sweep
// pass that meets a commit in flight reads the index at a clock snapshot
// (catalog/txn queryLocked), so every entity committed since costs it a
// history read; on a loaded machine a pass over a table just written
// runs on for seconds, into the statements that follow (it showed as a
// stray history read of a unique index in TestCollationMatrix/azurite's
// trace of a point Get).
func (g *Gateway) StartIndexRecovery(ctx context.Context) {
	ctx = recorder.Background(ctx)
	g.startTxnRecovery(ctx)
	run := func(resume bool) {
		dbs, err := g.Catalog.Databases(ctx)
		if err != nil {
			return
		}
		for _, db := range dbs {
			tables, err := g.Catalog.Tables(ctx, db)
			if err != nil {
				continue
			}
			for _, t := range tables {
				if ixmaint.HasGlobal(t) {
					if rs, err := g.maint().Recover(ctx, t, false); err != nil {
						g.logger().Warn("sqlgw: index recovery", "table", t.Name, "error", err)
					} else if rs.Marked > 0 {
						g.logger().Info("sqlgw: index recovery", "table", t.Name, "resolved", rs.Kept+rs.Removed, "pending", rs.Skipped)
					}
				}
				if !resume {
					continue
				}
				for _, ix := range t.Indexes {
					if ix.State == catalog.IndexBuilding {
						g.logger().Info("sqlgw: resuming the build of an index", "table", t.Name, "index", ix.Name)
						if err := g.buildIndex(ctx, db, t, ix.Name, nil); err != nil {
							g.logger().Warn("sqlgw: index build", "index", ix.Name, "error", err)
						}
					}
				}
			}
		}
	}
	go func() {
		run(true)
		tick := time.NewTicker(indexSweepEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				run(false)
			}
		}
	}()
}

var _ = slices.Clone[[]int]

// storedRow returns the stored row under k for index maintenance: the one
// a buffered write recorded, else the row the engine read (equal to the
// stored one, as base checked).
func storedRow(tt *txTable, k entKey, engineRow []catalog.Datum) []catalog.Datum {
	if w, ok := tt.writes[k]; ok {
		return w.old
	}
	return engineRow
}

// ixBatch is the global index write of one applied (or attempted) batch.
type ixBatch struct {
	op      *ixmaint.Op
	applied bool
}

// addIndexOps adds a row write's local index operations to its batch
// operations and records the write for the global indexes.
func addIndexOps(meta *catalog.Table, k entKey, w *pending, ro *rowOps) error {
	iw := indexWrite(k, w)
	lo, _, err := ixmaint.LocalOps(meta, iw)
	if err != nil {
		return mapError(err)
	}
	ro.ops = append(ro.ops, lo...)
	ro.ix = &iw
	return nil
}

// beginIndexes runs the first step of the global index protocol for the
// rows of one batch; the commit finishes it (finishIndexes). A non-nil Op
// must be finished even with an error (a write that took too long).
//
// h lists the unique values the transaction hands from one of its rows to
// another (built over all its writes of the table: ixmaint.NewHandoffs):
// those entities are taken over rather than reported as duplicates, so a
// swap or shift of unique values that each statement allowed commits.
func (g *Gateway) beginIndexes(ctx context.Context, meta *catalog.Table, ws []ixmaint.Write, h *ixmaint.Handoffs) (*ixmaint.Op, error) {
	if len(ws) == 0 || !ixmaint.HasGlobal(meta) {
		return nil, nil
	}
	op, err := g.maint().BeginHandoffs(ctx, meta, ws, h)
	if err != nil {
		var de *ixmaint.DuplicateError
		if errors.As(err, &de) {
			return nil, dupIndexError(meta, de.Index, de.Entity)
		}
		if errors.Is(err, storage.ErrPreconditionFailed) {
			// An index entity another writer holds (a transaction record's
			// lock or placeholder that outlived ixmaint's wait, or a mark
			// changed under it): a conflict to retry, not an internal error.
			return nil, errConflict(err.Error())
		}
		return nil, mapError(err)
	}
	if op.Expired() {
		return op, errConflict("the index writes of table " + meta.Name + " took too long")
	}
	return op, nil
}

// applyIndexed applies a batch; a delete of a local index entity that an
// index still being built lacks is dropped and the batch retried (safe:
// the backfill's write of that entity changes the row's ETag). It returns
// the batch as applied.
func (g *Gateway) applyIndexed(ctx context.Context, meta *catalog.Table, ops []storage.Operation) ([]storage.ETag, []storage.Operation, error) {
	if len(meta.Indexes) > 0 {
		var err error
		if ops, err = mergeIndexOps(meta, ops); err != nil {
			return nil, nil, err
		}
	}
	for {
		if len(ops) == 1 {
			etags, err := g.apply(ctx, meta, ops)
			return etags, ops, err
		}
		etags, err := g.store.Batch(ctx, meta.Physical, ops)
		var be *storage.BatchError
		if err != nil && errors.As(err, &be) && errors.Is(err, storage.ErrNotFound) && be.Index >= 0 && be.Index < len(ops) &&
			ops[be.Index].Kind == storage.OpDelete && ops[be.Index].Entity.RowKey >= meta.RowKeyEnd() && len(meta.Indexes) > 0 {
			ops = slices.Delete(slices.Clone(ops), be.Index, be.Index+1)
			continue
		}
		if err != nil {
			return nil, ops, g.applyError(meta, ops, err)
		}
		return etags, ops, nil
	}
}

// finishIndexes ends the global index writes of a commit.
func (g *Gateway) finishIndexes(ctx context.Context, log *commitLog) {
	for _, b := range log.ix {
		committed := b.applied && !log.compensated
		if err := b.op.Finish(ctx, func(int) bool { return committed }); err != nil {
			g.logger().Warn("sqlgw: finishing index writes (recovery will)", "error", err)
		}
	}
}

// indexExplain names an index plan's two steps for EXPLAIN's Extra.
func indexExplain(p *planner.Plan) string {
	ix := p.Index
	kind := "global"
	if ix.Local {
		kind = "local"
	}
	if ix.Unique {
		kind = "unique " + kind
	}
	n := len(ix.Gets) + len(ix.Queries)
	what := "index gets"
	if len(ix.Queries) > 0 {
		what = "index queries"
	}
	s := fmt.Sprintf("index %s (%s): %d %s", ix.Name, kind, n, what)
	if ix.Covering {
		return s + ", covering (no base gets)"
	}
	return s + fmt.Sprintf(", then ~%s base gets in parallel", formatCost(ix.Hits))
}

// checkUnique looks for another row holding the new row's values in a
// unique index, at statement time, so that INSERT IGNORE, ON DUPLICATE KEY
// UPDATE and REPLACE see secondary unique keys as MySQL does (the engine
// acts on the UniqueKeyError and its existing row). Plain autocommit
// INSERTs skip it: the commit's conditional insert of the index entity
// reports 1062 just as well. Rows with a NULL in the index never conflict.
//
// UPDATE checks too (old is the row before the update: only the unique
// indexes whose values change are checked), row by row against the state
// the statement has produced so far, as InnoDB does: so UPDATE IGNORE skips
// the row with a warning, a failing UPDATE fails during the statement (and
// is rolled back whole from the buffer, never half-committed), and a
// transaction's buffer never holds two rows with one unique value, which
// the commit relies on (txn.go: values handed from one row to another).
func (e *editor) checkUnique(ctx *sql.Context, tt *txTable, k entKey, d, old []catalog.Datum) error {
	meta := e.t.meta()
	for i := range meta.Indexes {
		ix := &meta.Indexes[i]
		if !ix.Unique {
			continue
		}
		if old != nil && !uniqueChanged(meta, ix, old, d) {
			continue
		}
		null := false
		for _, kp := range ix.Columns {
			if c := meta.ColumnIndex(kp.Column); c >= 0 && d[c] == nil {
				null = true
			}
		}
		if null {
			continue
		}
		ent, err := meta.IndexEntity(ix, k.pk, k.rk, d)
		if err != nil {
			return mapError(err)
		}
		if bk, ok := tt.bufferedUnique(ix, ent); ok && bk != k {
			if w := tt.writes[bk]; w != nil && !w.deleted && w.row != nil {
				return sql.NewUniqueKeyErr(dupEntryText(meta.Name, ix.Name, rowIndexValues(ctx, meta, ix, d)), false, w.sqlRow)
			}
		}
		table := ix.Physical
		if !ix.Global {
			table = meta.Physical
		}
		cur, err := e.t.gw.store.Get(storeCtx(ctx), table, ent.PartitionKey, ent.RowKey, nil)
		if errors.Is(err, storage.ErrNotFound) {
			continue
		}
		if err != nil {
			return mapError(err)
		}
		existing, err := e.uniqueHolder(ctx, tt, ix, cur, k)
		if err != nil {
			return err
		}
		if existing != nil {
			return sql.NewUniqueKeyErr(dupEntryText(meta.Name, ix.Name, rowIndexValues(ctx, meta, ix, d)), false, existing)
		}
	}
	return nil
}

// uniqueHolder returns the stored row that holds unique index entity cur,
// if it is another row than k and not one the transaction rewrote (those
// were compared in the buffer); nil if none (a stale entity, which the
// commit resolves). A handed-over entity may name two rows (Candidates).
func (e *editor) uniqueHolder(ctx *sql.Context, tt *txTable, ix *catalog.Index, cur *storage.Entity, k entKey) (sql.Row, error) {
	meta := e.t.meta()
	for _, c := range ixmaint.Candidates(cur) {
		bk := entKey{c[0], c[1]}
		if bk == k {
			continue
		}
		if _, ok := tt.writes[bk]; ok {
			continue // the transaction rewrote that row: compared above
		}
		existing, r, err := e.t.getRow(ctx, bk)
		if err != nil {
			return nil, err
		}
		if existing == nil {
			continue
		}
		if meta.Keyless() {
			// ON DUPLICATE KEY UPDATE and REPLACE then update or delete
			// the holder by its values: keep its generated key.
			tt.noteKeyless(bk, existing)
		}
		ed, err := e.t.datums(ctx, existing)
		if err != nil {
			return nil, err
		}
		if ix.Global {
			want, err := meta.IndexEntity(ix, bk.pk, bk.rk, ed)
			if err != nil || want.PartitionKey != cur.PartitionKey || want.RowKey != cur.RowKey {
				continue
			}
		}
		tt.noteRead(bk, r)
		return existing, nil
	}
	return nil, nil
}

// uniqueChanged reports whether a row's values in unique index ix differ
// between a and b (by the index's encoding, so under its collation).
func uniqueChanged(meta *catalog.Table, ix *catalog.Index, a, b []catalog.Datum) bool {
	ea, err1 := meta.IndexEntity(ix, "", "", a)
	eb, err2 := meta.IndexEntity(ix, "", "", b)
	if err1 != nil || err2 != nil {
		return true
	}
	return ea.PartitionKey != eb.PartitionKey || ea.RowKey != eb.RowKey
}

// uniquePhases splits a commit's batches in two when the table has a unique
// global index: first those for which releases reports a change or delete
// of stored rows, then the others; otherwise one phase.
func uniquePhases[B any](meta *catalog.Table, batches []B, releases func(B) bool) [][]B {
	unique := false
	for _, ix := range meta.Indexes {
		unique = unique || (ix.Unique && ix.Global)
	}
	if !unique {
		return [][]B{batches}
	}
	var first, rest []B
	for _, b := range batches {
		if releases(b) {
			first = append(first, b)
		} else {
			rest = append(rest, b)
		}
	}
	if len(first) == 0 || len(rest) == 0 {
		return [][]B{batches}
	}
	return [][]B{first, rest}
}

// mergeIndexOps combines operations of one batch on the same local index
// entity (a row releasing a unique value another row of the batch takes:
// REPLACE, a swap, a shift): a batch must touch distinct entities. A row
// only deletes entities its stored version implies and writes those its
// new version implies, so whatever the order, a write is the final state:
// it becomes an Upsert (the releasing row's own conditional write in the
// same atomic batch guards it); deletes alone stay one delete. Two writes
// of one unique entity (two rows taking one value, which the statement
// checks rule out unless the buffer was too large to compare) are a 1062.
func mergeIndexOps(meta *catalog.Table, ops []storage.Operation) ([]storage.Operation, error) {
	end := meta.RowKeyEnd()
	first := map[entKey]int{}
	var out []storage.Operation
	for _, op := range ops {
		if op.Entity == nil || op.Entity.RowKey < end {
			out = append(out, op)
			continue
		}
		k := entKey{op.Entity.PartitionKey, op.Entity.RowKey}
		i, seen := first[k]
		if !seen {
			first[k] = len(out)
			out = append(out, op)
			continue
		}
		prev := out[i]
		switch {
		case op.Kind == storage.OpDelete && prev.Kind == storage.OpDelete:
		case op.Kind == storage.OpDelete:
			out[i] = storage.Operation{Kind: storage.OpUpsert, Mode: storage.Replace, Entity: prev.Entity}
		case prev.Kind == storage.OpDelete:
			out[i] = storage.Operation{Kind: storage.OpUpsert, Mode: storage.Replace, Entity: op.Entity}
		default:
			if ix := ixmaint.LocalIndexOf(meta, &op); ix != nil {
				return nil, dupIndexError(meta, ix.Name, op.Entity)
			}
			return nil, errDuplicate(meta, describeKey(meta, op.Entity))
		}
	}
	return out, nil
}
