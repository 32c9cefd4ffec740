package engine

import (
	"context"
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/sqlgw/sqltext"
)

// TIME(n)
//
// go-mysql-server has one TIME type, with six fractional digits, and
// rejects TIME(0) to TIME(5) when it builds a CREATE or ALTER TABLE
// ("TIME length not yet supported"). sqlgw keeps the declared precision in
// the catalog (catalog.Type.FSP with TimeFSP set) and applies it in its own
// layer, as MySQL does:
//
//   - The connection handler reads every "column TIME[(n)]" of a CREATE or
//     ALTER TABLE statement (sqltext's TimePrecision step, which also
//     hands the engine the statement with TIME(n) replaced by TIME(6), and
//     NoteTimePrecision, which records them for the session); CreateTable, AddColumn
//     and ModifyColumn then record the declared n (TIME alone is TIME(0))
//     through applyTimePrecision. RENAME COLUMN and CREATE TABLE ... LIKE
//     keep the precision of the column they copy (keptTimePrecisions). A TIME column created any other way (no
//     statement text: the enginetest harness) is TIME(6), the engine's own
//     reading.
//   - Values are rounded to n digits when written (toDatum), half away
//     from zero like MySQL without TIME_TRUNCATE_FRACTIONAL.
//   - Results show n digits, and SHOW CREATE TABLE, SHOW COLUMNS, DESCRIBE
//     and information_schema.COLUMNS time(n): sqlgw/wire's result steps
//     (its time_precision.go), from the catalog.
//
// Tables recorded before TIME(n) was supported (TimeFSP unset) keep their
// behaviour: microseconds stored, a zero fraction dropped in text rows.

// maxTimeMicros is 838:59:59, the largest TIME magnitude.
const maxTimeMicros = 3020399000000

// roundTimeMicros rounds a TIME value in microseconds to fsp fractional
// digits, half away from zero, within the TIME range.
func roundTimeMicros(us int64, fsp int) int64 {
	if fsp >= 6 || fsp < 0 {
		return us
	}
	unit := int64(1)
	for i := fsp; i < 6; i++ {
		unit *= 10
	}
	neg := us < 0
	if neg {
		us = -us
	}
	us = (us + unit/2) / unit * unit
	if us > maxTimeMicros {
		us = maxTimeMicros
	}
	if neg {
		us = -us
	}
	return us
}

// timeDecls holds, per session, the TIME column precisions of the CREATE
// or ALTER TABLE statement running on it, by lower-cased column name.
var timeDecls struct {
	mu sync.Mutex
	m  map[*Session]map[string]int
}

// NoteTimePrecision is called by the connection handler before a
// statement runs, with the statement text as sqltext's TimePrecision step
// left it (every TIME(0..5) of a CREATE or ALTER TABLE written TIME(6),
// which the engine accepts) and the precisions that step read (declared,
// by lower-cased column name; nil for other statements): it records them
// for the session, with those that RENAME COLUMN and CREATE TABLE ...
// LIKE keep. The returned function forgets the record (call it when the
// statement is done).
func (g *Gateway) NoteTimePrecision(conn uint32, query string, declared map[string]int) func() {
	decl := declared
	// Statements that give a column an existing column's type without
	// naming it: RENAME COLUMN and CREATE TABLE ... LIKE.
	if kept := g.keptTimePrecisions(conn, query); len(kept) > 0 {
		if decl == nil {
			decl = map[string]int{}
		}
		for c, fsp := range kept {
			if _, ok := decl[c]; !ok {
				decl[c] = fsp
			}
		}
	}
	if len(decl) == 0 {
		return func() {}
	}
	s := g.Session(conn)
	if s == nil {
		return func() {}
	}
	timeDecls.mu.Lock()
	if timeDecls.m == nil {
		timeDecls.m = map[*Session]map[string]int{}
	}
	timeDecls.m[s] = decl
	timeDecls.mu.Unlock()
	return func() {
		timeDecls.mu.Lock()
		delete(timeDecls.m, s)
		timeDecls.mu.Unlock()
	}
}

// keptTimePrecisions returns the precisions of TIME(n) columns that a
// RENAME COLUMN or CREATE TABLE ... LIKE copies, by their new lower-cased
// name (nil for any other statement).
func (g *Gateway) keptTimePrecisions(conn uint32, query string) map[string]int {
	w := sqltext.LeadingWords(query, 3)
	if len(w) < 2 || w[1] != "table" && !(len(w) > 2 && w[2] == "table") {
		return nil
	}
	lq := strings.ToLower(query)
	switch {
	case w[0] == "alter" && strings.Contains(lq, "rename"):
	case w[0] == "create" && strings.Contains(lq, "like"):
	default:
		return nil
	}
	db := g.CurrentDB(conn)
	columns := func(tn sqltext.Name) []catalog.Column {
		d := tn.DB
		if d == "" {
			d = db
		}
		t, err := g.Catalog.Table(MetaCtx(context.Background()), d, tn.Table)
		if err != nil {
			return nil
		}
		return t.Columns
	}
	out := map[string]int{}
	if w[0] == "alter" {
		table, renames, ok := sqltext.RenamedColumns(query)
		if !ok {
			return nil
		}
		var cols []catalog.Column
		for _, r := range renames {
			if r[0] == "" || r[1] == "" {
				continue
			}
			if cols == nil {
				cols = columns(table)
			}
			for _, c := range cols {
				if strings.EqualFold(c.Name, r[0]) && c.Type.Kind == catalog.KindTime && c.Type.TimeFSP {
					out[strings.ToLower(r[1])] = c.Type.FSP
				}
			}
		}
		return out
	}
	_, src, ok := sqltext.CreateLike(query)
	if !ok {
		return nil
	}
	for _, c := range columns(src) {
		if c.Type.Kind == catalog.KindTime && c.Type.TimeFSP {
			out[strings.ToLower(c.Name)] = c.Type.FSP
		}
	}
	return out
}

// applyTimePrecision gives the TIME columns among cols the precision
// their statement declared (hook of CreateTable, AddColumn, ModifyColumn).
func applyTimePrecision(ctx *sql.Context, cols ...*catalog.Column) {
	s, ok := ctx.Session.(*Session)
	if !ok {
		return
	}
	timeDecls.mu.Lock()
	decl := timeDecls.m[s]
	timeDecls.mu.Unlock()
	for _, c := range cols {
		if c.Type.Kind != catalog.KindTime {
			continue
		}
		if fsp, ok := decl[strings.ToLower(c.Name)]; ok {
			c.Type.FSP, c.Type.TimeFSP = fsp, true
		}
	}
}

// applyTimePrecisionAll is applyTimePrecision over a slice of columns.
func applyTimePrecisionAll(ctx *sql.Context, cols []catalog.Column) {
	for i := range cols {
		applyTimePrecision(ctx, &cols[i])
	}
}

// timeDatum converts a TIME engine value to the Datum of column type ct,
// rounded to its declared precision.
func timeDatum(ct catalog.Type, us int64) int64 {
	if ct.TimeFSP {
		return roundTimeMicros(us, ct.FSP)
	}
	return us
}
