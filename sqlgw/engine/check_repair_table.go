package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/catalog/ixmaint"
	"github.com/sqlgw/sqlgw/storage"
)

// CHECK TABLE and REPAIR TABLE (maintenance.go): the table's consistency check.
//
// One scan of the base table decodes every row (its main entity and the
// continuation entities it names) and computes the index entities each
// row implies (catalog.Table.IndexEntity, as ixmaint.Check does); one scan
// of each index compares what is stored with that: an entry no row implies
// is extra, one whose values differ is wrong, a row whose entry is absent
// has it missing. Global entries carrying the pending mark
// (ixmaint.PropPending) are counted as pending instead: by the index
// protocol they may disagree with their rows until their writer or the
// recovery sweep settles them. The scans are not a snapshot, so every
// difference is read again (the entry and its row) before it is reported;
// one that a concurrent write explains is dropped.

// adminMaxVerify caps the differences read again per index; beyond it
// they are reported as found.
const adminMaxVerify = 10000

// adminMaxDetail caps the rows named in a message.
const adminMaxDetail = 3

// ixProblem is one difference between an index and its rows.
type ixProblem struct {
	kind    string // "missing", "extra", "wrong"
	ix      *catalog.Index
	want    *storage.Entity // missing, wrong: the entry the row implies
	cur     *storage.Entity // extra, wrong: the entry as stored (ETag set)
	pk, rk  string          // the base row
	rowETag storage.ETag    // missing, wrong: the row's ETag (local repairs)
}

// checkReport is what a check found in one table.
type checkReport struct {
	rows      int
	badRows   []string // rows that do not decode, described
	leftovers int      // continuation entities no row names (interrupted rewrites)
	pending   map[string]int
	building  []string // indexes being built, not checked
	problems  []ixProblem
	unchecked map[string]int // differences beyond adminMaxVerify, by index
	lost      []string       // global indexes whose store table is gone
	baseLost  bool           // the table's own store table is gone
}

func (r *checkReport) corrupt() bool {
	return len(r.badRows) > 0 || len(r.problems) > 0 || len(r.unchecked) > 0 || len(r.lost) > 0 || r.baseLost
}

// wantEntry is an index entry a row implies.
type wantEntry struct {
	e       *storage.Entity
	pk, rk  string
	rowETag storage.ETag
	dup     bool // another row implies the same entry (listed in dups)
}

// checkTable checks t (see above).
func (g *Gateway) checkTable(ctx context.Context, t *catalog.Table) (*checkReport, error) {
	rep := &checkReport{pending: map[string]int{}, unchecked: map[string]int{}}
	var ixs []*catalog.Index
	for i := range t.Indexes {
		ix := &t.Indexes[i]
		if ix.State == catalog.IndexBuilding {
			rep.building = append(rep.building, ix.Name)
			continue
		}
		ixs = append(ixs, ix)
	}
	want := make([]map[string]*wantEntry, len(ixs))
	for i := range want {
		want[i] = map[string]*wantEntry{}
	}
	bad := map[string]bool{}
	// dups: rows whose entry has the key another row's has (a unique
	// value two rows hold): the entry can name one row only.
	dups := make([][]*wantEntry, len(ixs))
	err := g.scanRows(ctx, t, func(main *storage.Entity, row []catalog.Datum, derr error) error {
		if derr != nil {
			// Read again: a row rewritten across batches meanwhile (its
			// continuation entities replaced) reads whole now.
			_, _, ok, err := ixmaint.GetRow(ctx, g.store, t, main.PartitionKey, main.RowKey)
			switch {
			case err == nil && !ok:
				return nil // deleted meanwhile
			case err == nil:
				derr = nil
			case errors.Is(err, catalog.ErrValue):
				derr = err
			default:
				return err
			}
			bad[main.PartitionKey+"|"+main.RowKey] = true // its index entries are not compared
			if derr == nil {
				rep.rows++
				return nil
			}
			rep.badRows = append(rep.badRows, fmt.Sprintf("%s: %v", rowDesc(t, main.PartitionKey, main.RowKey), derr))
			return nil
		}
		rep.rows++
		for i, ix := range ixs {
			e, err := t.IndexEntity(ix, main.PartitionKey, main.RowKey, row)
			if err != nil {
				return err
			}
			w := &wantEntry{e: e, pk: main.PartitionKey, rk: main.RowKey, rowETag: main.ETag}
			if first, dup := want[i][e.PartitionKey+"|"+e.RowKey]; dup {
				// Both rows are verified: whichever the entry does not
				// name has it missing.
				if !first.dup {
					first.dup = true
					dups[i] = append(dups[i], first)
				}
				dups[i] = append(dups[i], w)
				continue
			}
			want[i][e.PartitionKey+"|"+e.RowKey] = w
		}
		return nil
	}, &rep.leftovers)
	if errors.Is(err, storage.ErrNotFound) {
		rep.baseLost = true // nothing to compare the indexes with
		return rep, nil
	}
	if err != nil {
		return nil, err
	}
	for i, ix := range ixs {
		var found []ixProblem
		seen := map[string]bool{}
		table, q, err := indexScan(t, ix)
		if err != nil {
			return nil, err
		}
		err = g.scanEntities(ctx, table, q, func(e *storage.Entity) error {
			k := e.PartitionKey + "|" + e.RowKey
			seen[k] = true
			_, marked := e.Properties[ixmaint.PropPending]
			bpk, brk := e.Properties[catalog.PropBasePK].Str(), e.Properties[catalog.PropBaseRK].Str()
			w := want[i][k]
			switch {
			case marked && (w == nil || !sameIndexEntity(w.e, e)):
				rep.pending[ix.Name]++
			case w == nil && bad[bpk+"|"+brk]:
				// The entry of a row that does not decode: reported with the row.
			case w == nil:
				found = append(found, ixProblem{kind: "extra", ix: ix, cur: e, pk: bpk, rk: brk})
			case !sameIndexEntity(w.e, e):
				found = append(found, ixProblem{kind: "wrong", ix: ix, cur: e, want: w.e, pk: w.pk, rk: w.rk, rowETag: w.rowETag})
			case marked:
				rep.pending[ix.Name]++
			}
			return nil
		})
		if ix.Global && errors.Is(err, storage.ErrNotFound) {
			rep.lost = append(rep.lost, ix.Name)
			continue
		}
		if err != nil {
			return nil, err
		}
		for k, w := range want[i] {
			if !seen[k] && !w.dup {
				found = append(found, ixProblem{kind: "missing", ix: ix, want: w.e, pk: w.pk, rk: w.rk, rowETag: w.rowETag})
			}
		}
		for _, w := range dups[i] {
			found = append(found, ixProblem{kind: "missing", ix: ix, want: w.e, pk: w.pk, rk: w.rk, rowETag: w.rowETag})
		}
		sort.Slice(found, func(a, b int) bool {
			if found[a].pk != found[b].pk {
				return found[a].pk < found[b].pk
			}
			if found[a].rk != found[b].rk {
				return found[a].rk < found[b].rk
			}
			return found[a].kind < found[b].kind
		})
		for n, p := range found {
			if n >= adminMaxVerify {
				rep.unchecked[ix.Name] = len(found) - n
				break
			}
			v, pend, err := g.verifyProblem(ctx, t, p)
			if err != nil {
				return nil, err
			}
			if pend {
				rep.pending[ix.Name]++
			}
			if v != nil {
				rep.problems = append(rep.problems, *v)
			}
		}
	}
	return rep, nil
}

// indexScan returns the table and query that read every entry of ix.
func indexScan(t *catalog.Table, ix *catalog.Index) (string, *storage.Query, error) {
	if ix.Global {
		return ix.Physical, &storage.Query{}, nil
	}
	_, pre, err := t.IndexPrefix(ix, nil)
	if err != nil {
		return "", nil, err
	}
	return t.Physical, &storage.Query{Row: catalog.PrefixRange(pre)}, nil
}

// verifyProblem reads p's entry and row again: it returns the difference
// as it stands now (nil if a concurrent write explains it), and whether
// the entry is now pending. A difference is kept only if what it was read
// from did not change while the other side was read (same ETag before and
// after): a local entry changes in its row's batch, and an unmarked global
// entry is, by the index protocol, marked before its row changes and
// written before a row implying it exists, so an unchanged row (or entry)
// spanning the read of the other side is a real inconsistency.
func (g *Gateway) verifyProblem(ctx context.Context, t *catalog.Table, p ixProblem) (*ixProblem, bool, error) {
	table := t.Physical
	if p.ix.Global {
		table = p.ix.Physical
	}
	if p.kind == "missing" {
		row, etag, ok, err := ixmaint.GetRow(ctx, g.store, t, p.pk, p.rk)
		if errors.Is(err, catalog.ErrValue) {
			return nil, false, nil // the row is being rewritten, or reported as undecodable
		}
		if err != nil || !ok {
			return nil, false, err
		}
		w, err := t.IndexEntity(p.ix, p.pk, p.rk, row)
		if err != nil {
			return nil, false, err
		}
		var found *ixProblem
		cur, err := g.store.Get(ctx, table, w.PartitionKey, w.RowKey, nil)
		switch {
		case errors.Is(err, storage.ErrNotFound):
			found = &ixProblem{kind: "missing", ix: p.ix, want: w, pk: p.pk, rk: p.rk, rowETag: etag}
		case err != nil:
			return nil, false, err
		default:
			if _, marked := cur.Properties[ixmaint.PropPending]; marked {
				return nil, true, nil
			}
			if sameIndexEntity(w, cur) {
				return nil, false, nil
			}
			if cur.Properties[catalog.PropBasePK].Str() != p.pk || cur.Properties[catalog.PropBaseRK].Str() != p.rk {
				// The entry names another row (a unique value two rows hold).
				found = &ixProblem{kind: "missing", ix: p.ix, want: w, pk: p.pk, rk: p.rk, rowETag: etag}
			} else {
				found = &ixProblem{kind: "wrong", ix: p.ix, want: w, cur: cur, pk: p.pk, rk: p.rk, rowETag: etag}
			}
		}
		if ok, err := g.unchanged(ctx, t.Physical, p.pk, p.rk, etag); !ok || err != nil {
			return nil, false, err
		}
		return found, false, nil
	}
	cur, err := g.store.Get(ctx, table, p.cur.PartitionKey, p.cur.RowKey, nil)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if _, marked := cur.Properties[ixmaint.PropPending]; marked {
		return nil, true, nil
	}
	var found *ixProblem
	for _, c := range ixmaint.Candidates(cur) {
		row, etag, ok, err := ixmaint.GetRow(ctx, g.store, t, c[0], c[1])
		if errors.Is(err, catalog.ErrValue) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		if !ok {
			continue
		}
		w, err := t.IndexEntity(p.ix, c[0], c[1], row)
		if err != nil {
			return nil, false, err
		}
		if sameIndexEntity(w, cur) {
			return nil, false, nil
		}
		if w.PartitionKey == cur.PartitionKey && w.RowKey == cur.RowKey {
			found = &ixProblem{kind: "wrong", ix: p.ix, want: w, cur: cur, pk: c[0], rk: c[1], rowETag: etag}
		}
	}
	if found == nil {
		bpk, brk := cur.Properties[catalog.PropBasePK].Str(), cur.Properties[catalog.PropBaseRK].Str()
		found = &ixProblem{kind: "extra", ix: p.ix, cur: cur, pk: bpk, rk: brk}
	}
	if ok, err := g.unchanged(ctx, table, cur.PartitionKey, cur.RowKey, cur.ETag); !ok || err != nil {
		return nil, false, err
	}
	return found, false, nil
}

// unchanged reports whether the entity at pk/rk of table still has etag.
func (g *Gateway) unchanged(ctx context.Context, table, pk, rk string, etag storage.ETag) (bool, error) {
	e, err := g.store.Get(ctx, table, pk, rk, &storage.GetOptions{Select: []string{catalog.PropExtras}})
	if errors.Is(err, storage.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return e.ETag == etag, nil
}

// sameIndexEntity reports whether two index entities have the same keys
// and values, the index protocol's bookkeeping properties ignored.
func sameIndexEntity(a, b *storage.Entity) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.PartitionKey != b.PartitionKey || a.RowKey != b.RowKey {
		return false
	}
	book := func(p string) bool {
		return p == ixmaint.PropPending || p == ixmaint.PropPrevPK || p == ixmaint.PropPrevRK
	}
	n := 0
	for k, v := range a.Properties {
		if book(k) {
			continue
		}
		n++
		if w, ok := b.Properties[k]; !ok || !v.Equal(w) {
			return false
		}
	}
	for k := range b.Properties {
		if !book(k) {
			n--
		}
	}
	return n == 0
}

// scanEntities runs q over table to the end (ixmaint.ScanAll).
func (g *Gateway) scanEntities(ctx context.Context, table string, q *storage.Query, f func(*storage.Entity) error) error {
	return ixmaint.ScanAll(ctx, g.store, table, q, f)
}

// scanRows reads every row of t: f gets each main entity with its decoded
// row, or the reason it does not decode (a continuation entity missing, a
// value of the wrong type). Continuation entities the row does not name
// (another generation's, left by an interrupted rewrite; readers ignore
// them) are counted in leftovers.
func (g *Gateway) scanRows(ctx context.Context, t *catalog.Table, f func(main *storage.Entity, row []catalog.Datum, err error) error, leftovers *int) error {
	var group []*storage.Entity
	flush := func() error {
		if len(group) == 0 {
			return nil
		}
		main := group[0]
		names := map[string]bool{}
		for _, k := range t.ContinuationKeys(main) {
			names[k] = true
		}
		use := []*storage.Entity{main}
		for _, e := range group[1:] {
			if names[e.RowKey] {
				use = append(use, e)
			} else {
				*leftovers++
			}
		}
		group = nil
		row, err := t.DecodeRow(use...)
		return f(main, row, err)
	}
	visit := func(e *storage.Entity) error {
		if t.IsContinuation(e) {
			if len(group) > 0 && group[0].PartitionKey == e.PartitionKey && strings.HasPrefix(e.RowKey, group[0].RowKey) {
				group = append(group, e)
			} else {
				*leftovers++
			}
			return nil
		}
		if err := flush(); err != nil {
			return err
		}
		group = []*storage.Entity{e}
		return nil
	}
	q := &storage.Query{Row: t.RowRange()}
	if g.unsorted {
		// Results in any order: group after sorting by key.
		var all []*storage.Entity
		if err := g.scanEntities(ctx, t.Physical, q, func(e *storage.Entity) error { all = append(all, e); return nil }); err != nil {
			return err
		}
		sort.Slice(all, func(i, j int) bool {
			if all[i].PartitionKey != all[j].PartitionKey {
				return all[i].PartitionKey < all[j].PartitionKey
			}
			return all[i].RowKey < all[j].RowKey
		})
		for _, e := range all {
			if err := visit(e); err != nil {
				return err
			}
		}
		return flush()
	}
	if err := g.scanEntities(ctx, t.Physical, q, visit); err != nil {
		return err
	}
	return flush()
}

// rowDesc names a row by its primary-key values, as "row (1, 'a')".
func rowDesc(t *catalog.Table, pk, rk string) string {
	vals, err := t.DecodeKey(pk, rk)
	if err != nil || t.Keyless() {
		return fmt.Sprintf("row with key %q/%q", pk, rk)
	}
	parts := make([]string, len(vals))
	for i, v := range vals {
		switch v := v.(type) {
		case nil:
			parts[i] = "NULL"
		case string:
			parts[i] = "'" + v + "'"
		case []byte:
			parts[i] = "'" + string(v) + "'"
		default:
			parts[i] = fmt.Sprint(v)
		}
	}
	return "row (" + strings.Join(parts, ", ") + ")"
}

// report adds a check's rows to res and reports whether it was clean.
func (rep *checkReport) report(t *catalog.Table, name string, op AdminOp, res *AdminResult) bool {
	for _, b := range rep.building {
		res.Add(name, op, "note", fmt.Sprintf("Index '%s' is being built; not checked", b))
	}
	for i, b := range rep.badRows {
		if i == adminMaxDetail {
			res.Add(name, op, "Warning", fmt.Sprintf("%d more rows cannot be read", len(rep.badRows)-i))
			break
		}
		res.Add(name, op, "Warning", "Cannot read "+b)
	}
	byIndex := map[string][]ixProblem{}
	var names []string
	for _, p := range rep.problems {
		if byIndex[p.ix.Name] == nil {
			names = append(names, p.ix.Name)
		}
		byIndex[p.ix.Name] = append(byIndex[p.ix.Name], p)
	}
	for n := range rep.unchecked {
		if byIndex[n] == nil {
			names = append(names, n)
			byIndex[n] = []ixProblem{}
		}
	}
	sort.Strings(names)
	for _, n := range names {
		ps := byIndex[n]
		counts := map[string]int{}
		var detail []string
		for _, p := range ps {
			counts[p.kind]++
			if len(detail) < adminMaxDetail {
				switch p.kind {
				case "missing":
					detail = append(detail, "no entry for "+rowDesc(t, p.pk, p.rk))
				case "extra":
					detail = append(detail, "an entry for "+rowDesc(t, p.pk, p.rk)+" that the row does not imply")
				case "wrong":
					detail = append(detail, "the entry for "+rowDesc(t, p.pk, p.rk)+" has other values")
				}
			}
		}
		kind := "local"
		if ix := t.Index(n); ix != nil && ix.Global {
			kind = "global"
		}
		msg := fmt.Sprintf("Index '%s' (%s) is corrupt: %d entries missing, %d extra, %d with wrong values", n, kind, counts["missing"], counts["extra"], counts["wrong"])
		if u := rep.unchecked[n]; u > 0 {
			msg += fmt.Sprintf(", %d more differences not verified", u)
		}
		if len(detail) > 0 {
			msg += " (" + strings.Join(detail, "; ") + ")"
		}
		res.Add(name, op, "Warning", msg)
	}
	if rep.baseLost {
		res.Add(name, op, "Warning", fmt.Sprintf("The table's store table %s is missing: its rows are lost", t.Physical))
	}
	for _, n := range rep.lost {
		res.Add(name, op, "Warning", fmt.Sprintf("Index '%s' (global) is corrupt: its store table %s is missing", n, t.Index(n).Physical))
	}
	var pend []string
	for n := range rep.pending {
		pend = append(pend, n)
	}
	sort.Strings(pend)
	for _, n := range pend {
		res.Add(name, op, "note", fmt.Sprintf("Index '%s': %d entries of writes in flight or interrupted are pending (readers verify them; their writer, the recovery sweep or REPAIR TABLE settles them)", n, rep.pending[n]))
	}
	if rep.leftovers > 0 {
		res.Add(name, op, "note", fmt.Sprintf("%d continuation entities of interrupted row rewrites are left over (reads ignore them)", rep.leftovers))
	}
	if rep.corrupt() {
		res.Add(name, op, "error", "Corrupt")
		return false
	}
	res.Add(name, op, "status", "OK")
	return true
}

// adminCheck is CHECK TABLE of one table.
func (g *Gateway) AdminCheck(ctx context.Context, t *catalog.Table, name string, res *AdminResult) error {
	rep, err := g.checkTable(ctx, t)
	if err != nil {
		return err
	}
	g.setRowCount(t.Physical, int64(rep.rows+len(rep.badRows)))
	rep.report(t, name, OpCheck, res)
	return nil
}

// settleMarks resolves t's pending global entries older than the lease
// (ixmaint.Recover, as the recovery sweep does).
func (g *Gateway) SettleMarks(ctx context.Context, t *catalog.Table) (ixmaint.RecoverStats, error) {
	if !ixmaint.HasGlobal(t) {
		return ixmaint.RecoverStats{}, nil
	}
	return g.maint().Recover(ctx, t, false)
}

// adminRepair is REPAIR TABLE of one table: settle old marks, repair every
// verified difference with conditional writes, check again.
func (g *Gateway) AdminRepair(ctx context.Context, t *catalog.Table, name string, res *AdminResult) error {
	rs, err := g.SettleMarks(ctx, t)
	lostTable := errors.Is(err, storage.ErrNotFound) // an index's store table is gone: rebuilt below
	if err != nil && !lostTable {
		return err
	}
	rep, err := g.checkTable(ctx, t)
	if err != nil {
		return err
	}
	fixed := map[string]int{}
	for _, n := range rep.lost {
		// The index's store table is gone: create it and build the index
		// again from the rows (the online backfill, safe with writers).
		ix := t.Index(n)
		if err := g.store.CreateTable(ctx, ix.Physical); err != nil && !errors.Is(err, storage.ErrAlreadyExists) {
			return err
		}
		if err := g.maint().Backfill(ctx, t, ix, nil); err != nil && !errors.Is(err, ixmaint.ErrDuplicate) {
			return err
		}
		res.Add(name, OpRepair, "note", fmt.Sprintf("Index '%s': store table %s created and the index rebuilt", n, ix.Physical))
	}
	if lostTable {
		if rs, err = g.SettleMarks(ctx, t); err != nil {
			return err
		}
	}
	for _, p := range rep.problems {
		ok, err := g.repairProblem(ctx, t, p)
		if err != nil {
			return err
		}
		if ok {
			fixed[p.ix.Name]++
		}
	}
	var names []string
	for n := range fixed {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		res.Add(name, OpRepair, "note", fmt.Sprintf("Index '%s': %d entries repaired", n, fixed[n]))
	}
	if settled := rs.Kept + rs.Removed; settled > 0 {
		res.Add(name, OpRepair, "note", fmt.Sprintf("%d pending index entries settled", settled))
	}
	if len(fixed) > 0 || len(rep.unchecked) > 0 || len(rep.lost) > 0 {
		if rep, err = g.checkTable(ctx, t); err != nil {
			return err
		}
	}
	g.setRowCount(t.Physical, int64(rep.rows+len(rep.badRows)))
	rep.report(t, name, OpRepair, res)
	return nil
}

// repairProblem makes one index entry agree with its row, with the index
// protocol's conditional writes: a concurrent writer's change is never
// overwritten (the repair is then skipped; the check that follows tells).
func (g *Gateway) repairProblem(ctx context.Context, t *catalog.Table, p ixProblem) (bool, error) {
	m := g.maint()
	skip := func(err error) (bool, error) {
		if errors.Is(err, storage.ErrPreconditionFailed) || errors.Is(err, storage.ErrNotFound) || errors.Is(err, storage.ErrAlreadyExists) {
			return false, nil
		}
		return err == nil, err
	}
	if p.ix.Global {
		switch p.kind {
		case "missing":
			// As the backfill does: write it marked, then resolve it
			// against the row read again.
			e := cloneIndexEntity(p.want)
			e.Properties[ixmaint.PropPending] = storage.Int64(time.Now().UnixMicro())
			etag, err := g.store.Insert(ctx, p.ix.Physical, e)
			if err != nil {
				return skip(err)
			}
			e.ETag = etag
			o, err := m.Resolve(ctx, t, p.ix, e, true)
			return o == ixmaint.Kept, err
		default:
			o, err := m.Resolve(ctx, t, p.ix, p.cur, false)
			return o == ixmaint.Kept || o == ixmaint.Removed, err
		}
	}
	// Local: the entry and an empty Merge of the row conditional on the
	// ETag read, in one batch (never an entry for a changed row).
	touchRow := storage.Operation{Kind: storage.OpUpdate, Mode: storage.Merge, IfMatch: p.rowETag,
		Entity: &storage.Entity{PartitionKey: p.pk, RowKey: p.rk, Properties: storage.Properties{}}}
	switch p.kind {
	case "missing":
		_, err := g.store.Batch(ctx, t.Physical, []storage.Operation{touchRow, {Kind: storage.OpInsert, Entity: p.want}})
		return skip(err)
	case "wrong":
		_, err := g.store.Batch(ctx, t.Physical, []storage.Operation{touchRow,
			{Kind: storage.OpUpdate, Mode: storage.Replace, IfMatch: p.cur.ETag, Entity: p.want}})
		return skip(err)
	default:
		// Extra: a writer that makes a row imply this entry rewrites it
		// (new ETag), so the conditional delete never removes a live one.
		return skip(g.store.Delete(ctx, t.Physical, p.cur.PartitionKey, p.cur.RowKey, p.cur.ETag))
	}
}

func cloneIndexEntity(e *storage.Entity) *storage.Entity {
	c := &storage.Entity{PartitionKey: e.PartitionKey, RowKey: e.RowKey, Properties: make(storage.Properties, len(e.Properties))}
	for k, v := range e.Properties {
		c.Properties[k] = v
	}
	return c
}

// adminAnalyze is ANALYZE TABLE: the rows are read once and counted, and
// the statistics of every index computed (stats.go); they become the
// coster's and the planner's estimates.
func (g *Gateway) AdminAnalyze(ctx context.Context, t *catalog.Table) error {
	return g.analyzeTable(ctx, t)
}
