package engine

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/sqlgw/mysqlerr"
	"github.com/sqlgw/sqlgw/sqlgw/sqltext"
	"github.com/sqlgw/sqlgw/storage"
)

// Writes
//
// The editor buffers each row change in the transaction (txn.go); nothing
// is sent to the store before COMMIT (or the end of an autocommit
// statement), except the reads below:
//
//   - INSERT must report a duplicate key during the statement, with the
//     existing row (INSERT IGNORE, ON DUPLICATE KEY UPDATE and REPLACE need
//     it), so it reads the key first: one Get. The one exception is a plain
//     INSERT under autocommit: there the insert is sent as a create-only
//     operation and a duplicate fails it at the end of the statement, with
//     the same error 1062, saving the Get (a multi-partition INSERT that
//     fails this way deletes the rows it already wrote: txn.go).
//   - UPDATE and DELETE use the ETag remembered when the row was read by
//     this transaction; the write is conditional on it.
//
// A statement's changes are undone from the buffer if the statement fails
// (DiscardChanges), as MySQL rolls back a failed statement.
func (t *Table) Inserter(ctx *sql.Context) sql.RowInserter { return t.editor(ctx) }

// Updater implements sql.UpdatableTable.
func (t *Table) Updater(ctx *sql.Context) sql.RowUpdater { return t.editor(ctx) }

// Deleter implements sql.DeletableTable.
func (t *Table) Deleter(ctx *sql.Context) sql.RowDeleter { return t.editor(ctx) }

// Replacer implements sql.ReplaceableTable.
func (t *Table) Replacer(ctx *sql.Context) sql.RowReplacer { return t.editor(ctx) }

// editorRowHook, if set (tests: SetEditorRowHook), runs before each row
// an editor inserts, updates or deletes.
var editorRowHook func(ctx *sql.Context)

type undo struct {
	tt  *txTable
	k   entKey
	had bool
	was *pending
	now *pending // the statement's write
}

type editor struct {
	t    *Table
	undo []undo
	// sess: the session the editor's open statement is registered with
	// (between StatementBegin and StatementComplete or DiscardChanges),
	// nil if none; see Session.CommandEnd.
	sess *Session
	// skip caches skipExistenceCheck for the statement (0: not known yet,
	// 1: skip, -1: check): it reads the whole statement text, which per
	// row made a large multi-row INSERT quadratic.
	skip int8
}

var _ sql.TableEditor = (*editor)(nil)

func (t *Table) editor(ctx *sql.Context) *editor { return &editor{t: t} }

func (e *editor) StatementBegin(ctx *sql.Context) {
	e.undo, e.skip = e.undo[:0], 0
	if s := sessionOf(ctx); s != nil && e.sess == nil {
		e.sess = s
		s.openEditor(e)
	}
}

func (e *editor) DiscardChanges(ctx *sql.Context, _ error) error {
	if e.sess != nil {
		e.sess.closeEditor(e, nil)
		e.sess = nil
	}
	undoWrites(e.undo, false)
	e.undo = e.undo[:0]
	return nil
}

// undoWrites undoes the writes us, newest first; ended (the statement
// failed after it completed or left its editors: Session.StatementFailed)
// undoes only the keys whose write is still the statement's own.
func undoWrites(us []undo, ended bool) {
	for i := len(us) - 1; i >= 0; i-- {
		u := us[i]
		if ended && u.tt.writes[u.k] != u.now {
			continue
		}
		u.tt.version++
		u.tt.uniq = nil // rebuilt when next needed
		if u.had {
			u.tt.writes[u.k] = u.was
		} else {
			delete(u.tt.writes, u.k)
		}
	}
}

// StatementComplete hands the statement's undo log to the session, which
// keeps it until the statement has ended (Session.StatementFailed).
func (e *editor) StatementComplete(ctx *sql.Context) error {
	if e.sess != nil {
		e.sess.closeEditor(e, e.undo)
		e.sess, e.undo = nil, nil
	}
	e.undo, e.skip = e.undo[:0], 0
	return nil
}

func (e *editor) Close(ctx *sql.Context) error { return nil }

// txTable returns the transaction state of the table, or an error outside
// a transaction (the engine always opens one per statement).
func (e *editor) txTable(ctx *sql.Context) (*txTable, error) {
	tx := currentTxn(ctx)
	if tx == nil {
		return nil, fmt.Errorf("sqlgw: write to %s outside a transaction", e.t.Name())
	}
	if tx.readOnly {
		return nil, sql.ErrReadOnlyTransaction.New()
	}
	return tx.table(e.t.meta()), nil
}

// expect sizes the statement's undo log and, when the transaction has
// written nothing to the table yet (an autocommit INSERT), its write
// buffer for n more rows: a bulk INSERT's thousand rows then fill them
// without growing them step by step (directinsert.go). The buffers hold
// the same writes either way.
func (e *editor) expect(ctx *sql.Context, n int) {
	tt, err := e.txTable(ctx)
	if err != nil {
		return // Insert reports it
	}
	e.undo = slices.Grow(e.undo, n)
	if len(tt.writes) == 0 {
		tt.writes = make(map[entKey]*pending, n)
	}
	tt.order = slices.Grow(tt.order, n)
}

func (e *editor) put(tt *txTable, k entKey, p *pending) {
	was, had := tt.writes[k]
	e.undo = append(e.undo, undo{tt: tt, k: k, had: had, was: was, now: p})
	tt.put(k, p)
}

// datums converts an engine row (full schema) to catalog datums.
func (t *Table) datums(ctx *sql.Context, row sql.Row) ([]catalog.Datum, error) {
	cols := t.meta().Columns
	if len(row) != len(cols) {
		return nil, fmt.Errorf("sqlgw: table %s: row has %d values for %d columns", t.Name(), len(row), len(cols))
	}
	out := make([]catalog.Datum, len(cols))
	for i := range cols {
		d, err := toDatum(ctx, cols[i].Type, row[i])
		if err != nil {
			return nil, err
		}
		out[i] = d
	}
	return out, nil
}

// keyOf returns a row's entity keys. Keyless rows have no key derived from
// their values: keylessKey finds the one the transaction read.
func (t *Table) keyOf(d []catalog.Datum) (entKey, error) {
	pk, rk, err := t.meta().EncodeKey(d)
	if err != nil {
		return entKey{}, mapError(err)
	}
	return entKey{pk, rk}, nil
}

// Insert implements sql.RowInserter.
func (e *editor) Insert(ctx *sql.Context, row sql.Row) error {
	if editorRowHook != nil {
		editorRowHook(ctx)
	}
	tt, err := e.txTable(ctx)
	if err != nil {
		return err
	}
	d, err := e.t.datums(ctx, row)
	if err != nil {
		return err
	}
	row = append(sql.Row(nil), row...)
	if e.t.meta().Keyless() {
		pk, rk, _, err := e.t.meta().EncodeRow(d)
		if err != nil {
			return mapError(err)
		}
		k := entKey{pk, rk}
		if err := e.checkUnique(ctx, tt, k, d, nil); err != nil {
			return err // a UNIQUE index (secondary.go)
		}
		e.put(tt, k, &pending{row: d, sqlRow: row})
		tt.noteKeyless(k, row)
		return nil
	}
	k, err := e.t.keyOf(d)
	if err != nil {
		return err
	}
	if w, ok := tt.writes[k]; ok {
		if !w.deleted {
			return sql.NewUniqueKeyErr(dupEntryText(e.t.meta().Name, primaryKeyName, primaryKeyText(ctx, e.t.meta(), row)), true, w.sqlRow)
		}
		if err := e.checkUnique(ctx, tt, k, d, nil); err != nil {
			return err
		}
		e.put(tt, k, &pending{row: d, sqlRow: row, stored: w.stored, base: w.base, old: w.old})
		return nil
	}
	if r, ok := tt.readOf(k); ok && !r.exists {
		if err := e.checkUnique(ctx, tt, k, d, nil); err != nil {
			return err
		}
		e.put(tt, k, &pending{row: d, sqlRow: row})
		return nil
	}
	if e.skip == 0 {
		e.skip = -1
		if skipExistenceCheck(ctx, e.t.db.name, e.t.Name()) {
			e.skip = 1
		}
	}
	if e.skip == 1 {
		e.put(tt, k, &pending{row: d, sqlRow: row})
		return nil
	}
	existing, r, err := e.t.getRow(ctx, k)
	if err != nil {
		return err
	}
	tt.noteRead(k, r)
	if existing != nil {
		return sql.NewUniqueKeyErr(dupEntryText(e.t.meta().Name, primaryKeyName, primaryKeyText(ctx, e.t.meta(), row)), true, existing)
	}
	if err := e.checkUnique(ctx, tt, k, d, nil); err != nil {
		return err
	}
	e.put(tt, k, &pending{row: d, sqlRow: row})
	return nil
}

// dupEntryWarning words the warning INSERT IGNORE and UPDATE IGNORE leave
// for a skipped duplicate as MySQL does: level Warning, "Duplicate entry
// 'v' for key 'k'" (go-mysql-server says Note and its own error text).
func dupEntryWarning(w *sql.Warning) *sql.Warning {
	var se *mysql.SQLError
	if err := mysqlerr.Translate(mysql.NewSQLError(mysql.ERDupEntry, "23000", "%s", w.Message), ""); errors.As(err, &se) {
		return &sql.Warning{Level: "Warning", Code: w.Code, Message: se.Message}
	}
	return w
}

// skipExistenceCheck reports a plain INSERT (no IGNORE, no ON DUPLICATE KEY
// UPDATE; REPLACE uses the Replacer) into table db.table under autocommit,
// where a create-only write at the end of the statement reports duplicates
// just as well. The engine does not tell a table editor which statement
// drives it, so this reads the statement text, conservatively: the text
// must be INSERT [modifiers] [INTO] <this very table>, and must not contain
// the words IGNORE, DUPLICATE or SELECT anywhere. Anything else (a trigger's
// INSERT IGNORE into this table while the statement inserts into another,
// a comment where a keyword was expected, a routine) does the check, which
// is always right, only one Get dearer.
func skipExistenceCheck(ctx *sql.Context, db, table string) bool {
	ac, err := plan.IsSessionAutocommit(ctx)
	if err != nil || !ac {
		return false
	}
	if ctx.GetIgnoreAutoCommit() {
		return false // inside BEGIN ... COMMIT
	}
	q := ctx.Query()
	if containsFoldASCII(q, "ignore") || containsFoldASCII(q, "duplicate") || containsFoldASCII(q, "select") {
		return false
	}
	tdb, tname, ok := plainInsertTarget(q)
	if !ok {
		if tdb, tname, ok = plainLoadTarget(q); !ok {
			return false
		}
	}
	if tdb == "" {
		tdb = ctx.GetCurrentDatabase()
	}
	return strings.EqualFold(tdb, db) && strings.EqualFold(tname, table)
}

// containsFoldASCII reports whether s contains the lower-case ASCII word w
// in any ASCII case (sqltext.IndexFold).
func containsFoldASCII(s, w string) bool {
	return sqltext.IndexFold(s, w) >= 0
}

// reLoadData matches the start of a LOAD DATA without LOCAL, REPLACE or
// IGNORE (the words the caller excludes anywhere): LOAD DATA
// [LOW_PRIORITY|CONCURRENT] INFILE 'file' INTO TABLE [db.]table, the names
// bare or `quoted`. LOAD DATA LOCAL skips duplicates with a warning, as
// MySQL does (go-mysql-server's NewLoadData: LOCAL without REPLACE is
// IGNORE), so it needs the existence read.
var reLoadData = regexp.MustCompile("(?is)^[\\s(]*LOAD\\s+DATA\\s+(?:(?:LOW_PRIORITY|CONCURRENT)\\s+)?INFILE\\s+'(?:[^'\\\\]|\\\\.|'')*'\\s*INTO\\s+TABLE\\s+(`(?:[^`]|``)+`|[A-Za-z0-9_$\\x{80}-\\x{10FFFF}]+)(?:\\s*\\.\\s*(`(?:[^`]|``)+`|[A-Za-z0-9_$\\x{80}-\\x{10FFFF}]+))?(?:[\\s(;]|$)")

// plainLoadTarget is plainInsertTarget for LOAD DATA (a plain LOAD DATA
// under autocommit reports a duplicate key at the end of the statement as
// an INSERT does, and reads no row before writing it).
func plainLoadTarget(q string) (db, table string, ok bool) {
	m := reLoadData.FindStringSubmatch(q)
	if m == nil {
		return "", "", false
	}
	unquote := func(id string) string {
		if strings.HasPrefix(id, "`") {
			return strings.ReplaceAll(id[1:len(id)-1], "``", "`")
		}
		return id
	}
	if m[2] != "" {
		return unquote(m[1]), unquote(m[2]), true
	}
	return "", unquote(m[1]), true
}

// plainInsertTarget parses "INSERT [LOW_PRIORITY|DELAYED|HIGH_PRIORITY]
// [INTO] [db.]table" at the start of q (leading blanks and parentheses
// skipped; identifiers bare or `quoted`) and returns the table; ok is false
// for anything else.
func plainInsertTarget(q string) (db, table string, ok bool) {
	s := strings.TrimLeft(q, " \t\r\n(")
	word := func() string {
		s = strings.TrimLeft(s, " \t\r\n")
		n := 0
		for n < len(s) && (s[n] == '_' || s[n] >= 'a' && s[n] <= 'z' || s[n] >= 'A' && s[n] <= 'Z') {
			n++
		}
		w := s[:n]
		return w
	}
	eat := func(w string) { s = strings.TrimLeft(s, " \t\r\n")[len(w):] }
	if w := word(); !strings.EqualFold(w, "INSERT") {
		return "", "", false
	} else {
		eat(w)
	}
	for {
		w := word()
		switch strings.ToUpper(w) {
		case "LOW_PRIORITY", "DELAYED", "HIGH_PRIORITY", "INTO":
			eat(w)
			continue
		}
		break
	}
	ident := func() (string, bool) {
		s = strings.TrimLeft(s, " \t\r\n")
		if strings.HasPrefix(s, "`") {
			var b strings.Builder
			for i := 1; i < len(s); i++ {
				if s[i] != '`' {
					b.WriteByte(s[i])
					continue
				}
				if i+1 < len(s) && s[i+1] == '`' {
					b.WriteByte('`')
					i++
					continue
				}
				s = s[i+1:]
				return b.String(), b.Len() > 0
			}
			return "", false
		}
		n := 0
		for n < len(s) && (s[n] == '_' || s[n] == '$' || s[n] >= 'a' && s[n] <= 'z' || s[n] >= 'A' && s[n] <= 'Z' || s[n] >= '0' && s[n] <= '9' || s[n] >= 0x80) {
			n++
		}
		id := s[:n]
		s = s[n:]
		return id, n > 0
	}
	table, ok = ident()
	if !ok {
		return "", "", false
	}
	if strings.HasPrefix(s, ".") {
		s = s[1:]
		db = table
		if table, ok = ident(); !ok {
			return "", "", false
		}
	}
	// What follows the name must start a column list, VALUES/VALUE, SET,
	// PARTITION or end the statement.
	rest := strings.TrimLeft(s, " \t\r\n")
	if rest == "" || rest[0] == '(' {
		return db, table, true
	}
	switch strings.ToUpper(word()) {
	case "VALUES", "VALUE", "SET":
		return db, table, true
	}
	return "", "", false
}

// getRow reads one stored row by key (one Get, plus its continuation
// entities if it is a wide row). A wide row rewritten between the two
// reads (its old continuation generation deleted: txn.go, applyBig) does
// not decode; it is read again.
func (t *Table) getRow(ctx *sql.Context, k entKey) (sql.Row, read, error) {
	for attempt := 0; ; attempt++ {
		row, r, wide, err := t.getRowOnce(ctx, k)
		if err != nil && wide && attempt < 2 {
			continue
		}
		return row, r, err
	}
}

func (t *Table) getRowOnce(ctx *sql.Context, k entKey) (_ sql.Row, _ read, wide bool, _ error) {
	sctx := storeCtx(ctx)
	ent, err := t.gw.store.Get(sctx, t.meta().Physical, k.pk, k.rk, nil)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, read{}, false, nil
	}
	if err != nil {
		return nil, read{}, false, mapError(err)
	}
	ents := []*storage.Entity{ent}
	r := read{etag: ent.ETag, exists: true}
	wide = t.meta().Extras(ent) > 0
	if wide {
		it := &rowIter{t: t, ctx: sctx, meta: t.meta()}
		more, err := it.continuations(ent)
		if err != nil {
			return nil, read{}, true, err
		}
		for _, x := range more {
			r.extras = append(r.extras, x.RowKey)
		}
		ents = append(ents, more...)
	}
	row, err := t.decode(ents)
	if err != nil {
		return nil, read{}, wide, err
	}
	return row, r, wide, nil
}

// keyString renders the primary key of a row for conflict messages.
func (t *Table) keyString(row sql.Row) string {
	var parts []string
	for _, kp := range t.meta().PrimaryKey {
		i := t.meta().ColumnIndex(kp.Column)
		parts = append(parts, fmt.Sprint(row[i]))
	}
	return strings.Join(parts, "-")
}

// base returns what the transaction knows about the stored row under k:
// from a buffered write, from the remembered read, or by reading it now
// (checking it still equals old, the row the engine read).
func (e *editor) base(ctx *sql.Context, tt *txTable, k entKey, old sql.Row) (stored bool, r read, err error) {
	if w, ok := tt.writes[k]; ok {
		return w.stored, w.base, nil
	}
	if r, ok := tt.readOf(k); ok {
		return r.exists, r, nil
	}
	cur, r, err := e.t.getRow(ctx, k)
	if err != nil {
		return false, read{}, err
	}
	at := mysqlerr.ConflictKey{Table: e.t.meta().Physical, PartitionKey: k.pk, RowKey: k.rk} // for the server's wait queues
	if cur == nil {
		return false, read{}, mysqlerr.ConflictOn(fmt.Sprintf("row %s of table %s was deleted concurrently", e.t.keyString(old), e.t.Name()), at)
	}
	eq, err := rowsEqual(ctx, e.t.info.schema.Schema, cur, old)
	if err != nil {
		return false, read{}, err
	}
	if !eq {
		return false, read{}, mysqlerr.ConflictOn(fmt.Sprintf("row %s of table %s changed concurrently", e.t.keyString(old), e.t.Name()), at)
	}
	return true, r, nil
}

func rowsEqual(ctx *sql.Context, sch sql.Schema, a, b sql.Row) (bool, error) {
	if len(a) != len(b) {
		return false, nil
	}
	for i := range a {
		c, err := sch[i].Type.Compare(ctx, a[i], b[i])
		if err != nil {
			return false, err
		}
		if c != 0 {
			return false, nil
		}
	}
	return true, nil
}

// Update implements sql.RowUpdater.
func (e *editor) Update(ctx *sql.Context, old, new sql.Row) error {
	if editorRowHook != nil {
		editorRowHook(ctx)
	}
	tt, err := e.txTable(ctx)
	if err != nil {
		return err
	}
	if e.t.meta().Keyless() {
		return e.updateKeyless(ctx, tt, old, new)
	}
	od, err := e.t.datums(ctx, old)
	if err != nil {
		return err
	}
	ok, err := e.t.keyOf(od)
	if err != nil {
		return err
	}
	nd, err := e.t.datums(ctx, new)
	if err != nil {
		return err
	}
	nk, err := e.t.keyOf(nd)
	if err != nil {
		return err
	}
	if ok != nk {
		// A primary-key change is a delete and an insert.
		if err := e.Delete(ctx, old); err != nil {
			return err
		}
		return e.Insert(ctx, new)
	}
	stored, r, err := e.base(ctx, tt, ok, old)
	if err != nil {
		return err
	}
	if err := e.checkUnique(ctx, tt, ok, nd, od); err != nil {
		return err
	}
	e.put(tt, ok, &pending{row: nd, sqlRow: append(sql.Row(nil), new...), stored: stored, base: r, old: storedRow(tt, ok, od)})
	return nil
}

// Delete implements sql.RowDeleter.
func (e *editor) Delete(ctx *sql.Context, row sql.Row) error {
	if editorRowHook != nil {
		editorRowHook(ctx)
	}
	tt, err := e.txTable(ctx)
	if err != nil {
		return err
	}
	if e.t.meta().Keyless() {
		k, ok := tt.takeKeyless(row)
		if !ok {
			return errConflict(fmt.Sprintf("a row of table %s (no primary key) changed concurrently", e.t.Name()))
		}
		d, err := e.t.datums(ctx, row)
		if err != nil {
			return err
		}
		stored, r, err := e.base(ctx, tt, k, row)
		if err != nil {
			return err
		}
		e.put(tt, k, &pending{deleted: true, stored: stored, base: r, old: storedRow(tt, k, d)})
		return nil
	}
	d, err := e.t.datums(ctx, row)
	if err != nil {
		return err
	}
	k, err := e.t.keyOf(d)
	if err != nil {
		return err
	}
	stored, r, err := e.base(ctx, tt, k, row)
	if err != nil {
		return err
	}
	e.put(tt, k, &pending{deleted: true, stored: stored, base: r, old: storedRow(tt, k, d)})
	return nil
}

// updateKeyless updates a row of a table without a primary key: its key is
// the generated RowKey of the row the transaction read with these values.
func (e *editor) updateKeyless(ctx *sql.Context, tt *txTable, old, new sql.Row) error {
	k, ok := tt.takeKeyless(old)
	if !ok {
		return errConflict(fmt.Sprintf("a row of table %s (no primary key) changed concurrently", e.t.Name()))
	}
	nd, err := e.t.datums(ctx, new)
	if err != nil {
		return err
	}
	od, err := e.t.datums(ctx, old)
	if err != nil {
		return err
	}
	stored, r, err := e.base(ctx, tt, k, old)
	if err != nil {
		return err
	}
	if err := e.checkUnique(ctx, tt, k, nd, od); err != nil {
		tt.noteKeyless(k, old) // the row keeps its values
		return err
	}
	nr := append(sql.Row(nil), new...)
	e.put(tt, k, &pending{row: nd, sqlRow: nr, stored: stored, base: r, old: storedRow(tt, k, od)})
	tt.noteKeyless(k, nr)
	return nil
}
