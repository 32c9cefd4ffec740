package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/planner"
)

// Index hints
//
// MySQL's index hints on a table reference (SELECT, UPDATE, multi-table
// DELETE) restrict the secondary indexes sqlgw's planner may use for it:
//
//	USE INDEX (a, b)    only a or b (USE INDEX () : none)
//	IGNORE INDEX (a)    not a
//	FORCE INDEX (a)     like USE, and a table scan counts as very
//	                    expensive: a forced index that can answer any
//	                    conjunct is used instead of a scan
//
// KEY is a synonym of INDEX; several hints may follow one reference (the
// allowed set is the USE/FORCE lists' union minus the IGNORE lists). A
// name that is not an index of the table is MySQL's error 1176 (Key 'x'
// doesn't exist in table 't', SQLSTATE 42000), checked when the
// statement is parsed.
// FOR JOIN has the plain form's effect. FOR ORDER BY and FOR GROUP BY
// are accepted and validated but change nothing: sqlgw never chooses a
// secondary index for ordering or grouping, only to find rows.
//
// PRIMARY may be named (error 1176 on a keyless table). It does not
// restrict the primary key's paths (PointGet, MultiGet, RowRange,
// PartitionScan): a table is stored clustered on its key, so those are
// reads of the table itself, never worse than the scan MySQL would fall
// back to; IGNORE INDEX (PRIMARY) is accepted and has no effect, and
// USE INDEX (PRIMARY) keeps every secondary index out. A FORCE INDEX
// plan keeps whole-key equalities on PointGet/MultiGet (docs/architecture.md).
//
// go-mysql-server's parser knows only one USE/IGNORE/FORCE INDEX (list)
// per reference (no KEY, no FOR, no empty list) and ignores what it
// parses. sqlgw's parser wrapper (dump_generated_values.go) therefore blanks
// every hint clause out of the text it parses (same length, so positions
// hold) after checking the names against the catalog. The check's 1176
// reaches the client as is: from PREPARE and the binary protocol's
// prepare as the parser's error, from the statement builder (which would
// turn any parse error into a syntax error) as a SIGNAL statement raising
// it (prepareHintsSignal).
//
// Reads find the hints again in the statement text, ctx.Query() (for a
// prepared statement, its text when it executes): hintsOf tokenizes it,
// cached by text in a small bounded map; a text without "index" or "key"
// after "use", "ignore" or "force" costs byte scans and nothing else
// (mayHaveHints). A table value resolves the hints once (resolveHints:
// LookupForExpressions with the alias its conjuncts use, planIn
// otherwise), and every plan of that value (filters, lookups the engine
// builds, batched lookup joins, UPDATE/DELETE, the LIMIT and ORDER BY
// re-plans of rules.go) is built on the allowed indexes (buildPlan).
//
// The same table referenced twice with different hints: a filter on one
// reference (LookupForExpressions) gets that reference's hints, matched
// by alias; a lookup the engine builds (joins, batched joins) does not
// say which reference it serves, so it gets the least restrictive
// combination: an index any reference allows, FORCE only if all force.
//
// Not covered: hints stored in a view's definition or a trigger's or
// routine's body (their statement text at execution is the caller's, so
// they have no effect); in a multi-statement text, the hints of every
// statement apply to same-named references of the others.
//
// The engine chooses lookup joins (and index scans for sorting) itself,
// from GetIndexes: in a SELECT (or EXPLAIN of one) GetIndexes leaves out
// the indexes the hints exclude (hintedIndexes), so EXPLAIN's key and
// possible_keys do not name them either. In UPDATE and DELETE it shows
// every index, since the engine's foreign-key checks and cascades look
// their indexes up there: an engine lookup join in a hinted multi-table
// UPDATE/DELETE may still be "on" an excluded index, but sqlgw's reads
// for it do not use the index (a key path or a scan). FORCE INDEX does
// not make the engine prefer a lookup join. While a SELECT with hints
// runs, information_schema reads of the hinted table within it miss the
// excluded indexes too.

// hintKind is the kind of one hint clause.
type hintKind byte

const (
	hintUse hintKind = iota
	hintIgnore
	hintForce
)

// hintClause is one USE/IGNORE/FORCE {INDEX|KEY} [FOR ...] (names).
type hintClause struct {
	kind hintKind
	// scoped: FOR ORDER BY or FOR GROUP BY (no effect in sqlgw).
	scoped bool
	names  []string // as written
}

// hintRef is a table reference with hint clauses.
type hintRef struct {
	db, table, alias string // as written; db and alias may be ""
	clauses          []hintClause
}

// tableHint is the effect of a reference's hints on its access paths.
type tableHint struct {
	use    map[string]bool // nil: no USE/FORCE list; lower-case names
	ignore map[string]bool
	force  bool
}

// allows reports whether secondary index name may be used.
func (h *tableHint) allows(name string) bool {
	n := lower(name)
	return (h.use == nil || h.use[n]) && !h.ignore[n]
}

// hintSet is what a Table value resolved: the hints of every reference
// it may serve (none: no hints).
type hintSet struct {
	refs []*tableHint
	// readOnly: the statement is a SELECT (or EXPLAIN of one), so the
	// engine's own view of the indexes may be filtered (hintedIndexes).
	readOnly bool
}

var noHints = &hintSet{}

func (hs *hintSet) allows(name string) bool {
	for _, h := range hs.refs {
		if h.allows(name) {
			return true
		}
	}
	return false
}

func (hs *hintSet) force() bool {
	for _, h := range hs.refs {
		if !h.force {
			return false
		}
	}
	return len(hs.refs) > 0
}

func effectOf(r *hintRef) *tableHint {
	h := &tableHint{ignore: map[string]bool{}}
	for _, c := range r.clauses {
		if c.scoped {
			continue
		}
		switch c.kind {
		case hintIgnore:
			for _, n := range c.names {
				h.ignore[lower(n)] = true
			}
		case hintUse, hintForce:
			if h.use == nil {
				h.use = map[string]bool{}
			}
			for _, n := range c.names {
				h.use[lower(n)] = true
			}
			if c.kind == hintForce {
				h.force = true
			}
		}
	}
	return h
}

// mayHaveHints is the cheap test that keeps hint-free texts out: true
// when "index" or "key" follows "use", "ignore" or "force" (or a comment)
// across blanks, in any case. No allocation; texts without those words
// cost a byte scan.
func mayHaveHints(q string) bool {
	for _, w := range [...]string{"index", "key"} {
		for from := 0; ; {
			i := indexFold(q[from:], w)
			if i < 0 {
				break
			}
			i += from
			j := i
			for j > 0 && isBlank(q[j-1]) {
				j--
			}
			if j > 0 && q[j-1] == '/' {
				return true // USE /* ... */ INDEX: let the scanner decide
			}
			for _, kw := range [...]string{"use", "ignore", "force"} {
				if j >= len(kw) && j < i && strings.EqualFold(q[j-len(kw):j], kw) {
					return true
				}
			}
			from = i + len(w)
		}
	}
	return false
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// indexFold returns the index of the lower-case ASCII word w in s in any
// case, or -1.
func indexFold(s, w string) int {
	for i := 0; i+len(w) <= len(s); i++ {
		j := 0
		for ; j < len(w); j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != w[j] {
				break
			}
		}
		if j == len(w) {
			return i
		}
	}
	return -1
}

// hintToken is a token of the hint scanner.
type hintToken struct {
	start, end int
	word       string // identifier or keyword, unquoted; "" for punctuation
	quoted     bool
	punct      byte
}

// hintTokens splits q into identifiers, keywords and punctuation,
// skipping whitespace, comments and string literals.
func hintTokens(q string) []hintToken {
	var out []hintToken
	i := 0
	for i < len(q) {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case c == '#' || (c == '-' && strings.HasPrefix(q[i:], "-- ")):
			for i < len(q) && q[i] != '\n' {
				i++
			}
		case c == '/' && strings.HasPrefix(q[i:], "/*"):
			if j := strings.Index(q[i+2:], "*/"); j >= 0 {
				i += j + 4
			} else {
				i = len(q)
			}
		case c == '\'' || c == '"':
			i = min(quotedEnd(q, i)+1, len(q))
			out = append(out, hintToken{start: i, end: i, punct: '\''})
		case c == '`':
			name, j := backquoted(q, i)
			end := min(j+1, len(q))
			out = append(out, hintToken{start: i, end: end, word: name, quoted: true})
			i = end
		case c == '_' || c == '$' || c >= 0x80 || ('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z'):
			j := i
			for j < len(q) {
				d := q[j]
				if d == '_' || d == '$' || d >= 0x80 || ('0' <= d && d <= '9') || ('a' <= d && d <= 'z') || ('A' <= d && d <= 'Z') {
					j++
					continue
				}
				break
			}
			out = append(out, hintToken{start: i, end: j, word: q[i:j]})
			i = j
		default:
			out = append(out, hintToken{start: i, end: i + 1, punct: c})
			i++
		}
	}
	return out
}

func (t hintToken) is(kw string) bool {
	return !t.quoted && t.word != "" && strings.EqualFold(t.word, kw)
}

func (t hintToken) ident() bool { return t.word != "" }

// scanHints finds the hint clauses of q: the references they belong to
// and the byte ranges of the clauses ([start, end) pairs).
func scanHints(q string) (refs []*hintRef, spans [][2]int) {
	toks := hintTokens(q)
	for i := 0; i < len(toks); {
		first := i
		var clauses []hintClause
		for {
			c, next, ok := hintClauseAt(toks, i)
			if !ok {
				break
			}
			clauses = append(clauses, c)
			spans = append(spans, [2]int{toks[i].start, toks[next-1].end})
			i = next
		}
		if len(clauses) == 0 {
			i++
			continue
		}
		if r := refBefore(toks, first); r != nil {
			r.clauses = clauses
			refs = append(refs, r)
		}
	}
	return refs, spans
}

// hintClauseAt parses a hint clause at toks[i]; next is the token after it.
func hintClauseAt(toks []hintToken, i int) (c hintClause, next int, ok bool) {
	at := func(k int) hintToken {
		if k < len(toks) {
			return toks[k]
		}
		return hintToken{}
	}
	switch {
	case at(i).is("use"):
		c.kind = hintUse
	case at(i).is("ignore"):
		c.kind = hintIgnore
	case at(i).is("force"):
		c.kind = hintForce
	default:
		return c, 0, false
	}
	if !at(i+1).is("index") && !at(i+1).is("key") {
		return c, 0, false
	}
	k := i + 2
	if at(k).is("for") {
		switch {
		case at(k + 1).is("join"):
			k += 2
		case (at(k+1).is("order") || at(k+1).is("group")) && at(k+2).is("by"):
			c.scoped = true
			k += 3
		default:
			return c, 0, false
		}
	}
	if at(k).punct != '(' {
		return c, 0, false
	}
	k++
	for at(k).punct != ')' {
		if len(c.names) > 0 {
			if at(k).punct != ',' {
				return c, 0, false
			}
			k++
		}
		if !at(k).ident() {
			return c, 0, false
		}
		c.names = append(c.names, at(k).word)
		k++
	}
	if len(c.names) == 0 && c.kind != hintUse {
		return c, 0, false // MySQL: a syntax error; left to the parser
	}
	return c, k + 1, true
}

// refBefore reads the table reference that ends before toks[i]:
// [db .] table [[AS] alias].
func refBefore(toks []hintToken, i int) *hintRef {
	at := func(k int) hintToken {
		if k >= 0 && k < len(toks) {
			return toks[k]
		}
		return hintToken{}
	}
	name := func(k int) (db, table string, ok bool) {
		if at(k).punct == ')' {
			// table PARTITION (p, ...): skip the partition list.
			for k--; k >= 0 && at(k).punct != '('; k-- {
			}
			if !at(k - 1).is("partition") {
				return "", "", false
			}
			k -= 2
		}
		if !at(k).ident() {
			return "", "", false
		}
		if at(k-1).punct == '.' && at(k-2).ident() {
			return at(k - 2).word, at(k).word, true
		}
		return "", at(k).word, true
	}
	last := i - 1
	if at(last).punct == ')' {
		if db, table, ok := name(last); ok {
			return &hintRef{db: db, table: table}
		}
		return nil
	}
	if !at(last).ident() {
		return nil
	}
	if at(last - 1).is("as") {
		db, table, ok := name(last - 2)
		if !ok {
			return nil
		}
		return &hintRef{db: db, table: table, alias: at(last).word}
	}
	if at(last-1).punct == '.' {
		db, table, _ := name(last)
		return &hintRef{db: db, table: table}
	}
	prev := at(last - 1)
	if (prev.ident() && !refStarter(prev)) || prev.punct == ')' {
		db, table, ok := name(last - 1)
		if !ok {
			return nil
		}
		return &hintRef{db: db, table: table, alias: at(last).word}
	}
	return &hintRef{table: at(last).word}
}

// refStarter reports whether t is a keyword a table name follows (so the
// word after it is the table, not an alias).
func refStarter(t hintToken) bool {
	if t.quoted {
		return false
	}
	switch strings.ToLower(t.word) {
	case "from", "join", "straight_join", "update", "ignore", "low_priority", "into", "using", "table", "lateral":
		return true
	}
	return false
}

// hintCache maps statement texts to their hints.
var hintCache = struct {
	sync.Mutex
	m map[string][]*hintRef
}{m: map[string][]*hintRef{}}

const maxHintCache = 256

// hintsOf returns the hinted references of statement text q.
func hintsOf(q string) []*hintRef {
	if !mayHaveHints(q) {
		return nil
	}
	hintCache.Lock()
	refs, ok := hintCache.m[q]
	hintCache.Unlock()
	if ok {
		return refs
	}
	refs, _ = scanHints(q)
	hintCache.Lock()
	if len(hintCache.m) >= maxHintCache {
		clear(hintCache.m)
	}
	hintCache.m[q] = refs
	hintCache.Unlock()
	return refs
}

// resolveHints records on t the hints of the statement's references to
// it. alias, if not "", is the name the caller's expressions use for the
// table: references under that name win.
func (t *Table) resolveHints(ctx *sql.Context, alias string) {
	refs := hintsOf(ctx.Query())
	if len(refs) == 0 {
		t.hints = noHints
		return
	}
	cur := ctx.GetCurrentDatabase()
	var all, named []*tableHint
	for _, r := range refs {
		db := r.db
		if db == "" {
			db = cur
		}
		if !strings.EqualFold(db, t.db.name) || !strings.EqualFold(r.table, t.Name()) {
			continue
		}
		h := effectOf(r)
		all = append(all, h)
		as := r.alias
		if as == "" {
			as = r.table
		}
		if alias != "" && strings.EqualFold(as, alias) {
			named = append(named, h)
		}
	}
	switch {
	case len(named) > 0:
		t.hints = &hintSet{refs: named}
	case len(all) > 0 && alias != "" && !strings.EqualFold(alias, t.Name()):
		// Another reference's alias: this one has no hints.
		t.hints = noHints
		return
	case len(all) > 0:
		t.hints = &hintSet{refs: all}
	default:
		t.hints = noHints
		return
	}
	t.hints.readOnly = readOnlyStatement(ctx.Query())
}

// readOnlyStatement reports whether statement text q is a SELECT, a
// query in parentheses, a WITH query, or EXPLAIN/DESCRIBE of a SELECT.
func readOnlyStatement(q string) bool {
	toks := hintTokens(q)
	for i := 0; i < len(toks); i++ {
		tk := toks[i]
		switch {
		case tk.punct == '(':
			continue
		case tk.is("select"), tk.is("with"), tk.is("table"):
			return true
		case tk.is("explain"), tk.is("describe"), tk.is("desc"):
			// EXPLAIN [FORMAT=x | PLAN | ANALYZE] SELECT ...
			for i++; i < len(toks) && !toks[i].is("select") && !toks[i].is("with") && toks[i].punct != '('; i++ {
				if toks[i].is("update") || toks[i].is("delete") || toks[i].is("insert") || toks[i].is("replace") {
					return false
				}
			}
			return i < len(toks)
		default:
			return false
		}
	}
	return false
}

// hintedIndexes filters the indexes GetIndexes shows the engine by the
// statement's hints, so that the engine's own choices (lookup joins, index
// scans for sorting) do not pick an index the hints exclude. Only in
// read-only statements: in a write, the engine looks up the indexes its
// foreign-key checks and cascades need, which hints must not hide (there
// sqlgw's plans alone honour the hints). PRIMARY is always shown.
func (t *Table) hintedIndexes(ctx *sql.Context, ixs []sql.Index) []sql.Index {
	if ctx == nil || !mayHaveHints(ctx.Query()) {
		return ixs
	}
	t.hintsIn(ctx)
	hs := t.hints
	if hs == nil || len(hs.refs) == 0 || !hs.readOnly {
		return ixs
	}
	out := ixs[:0:0]
	for _, ix := range ixs {
		if _, secondary := ix.(*secondaryIndex); !secondary || hs.allows(ix.ID()) {
			out = append(out, ix)
		}
	}
	return out
}

// hintsIn resolves t's hints for a read that does not know its alias.
func (t *Table) hintsIn(ctx *sql.Context) {
	if t.hints == nil {
		t.resolveHints(ctx, "")
	}
}

// hintedTable is the planner's view of a table under index hints: only
// the allowed ready indexes, positions consistent between Indexes and
// EncodeIndexKey.
type hintedTable struct {
	*plannerTable
	ixs []*catalog.Index
}

func (h *hintedTable) Indexes() []planner.Index { return plannerIndexes(h.t, h.ixs) }

func (h *hintedTable) EncodeIndexKey(n, first int, vals []planner.Datum) (string, error) {
	return encodeIndexKey(h.t, h.ixs, n, first, vals)
}

// buildPlan is planner.Build under t's index hints.
func (t *Table) buildPlan(q *planner.Query) (*planner.Plan, error) {
	hs := t.hints
	if hs == nil || len(hs.refs) == 0 {
		return planner.Build(t.info.pt, q)
	}
	ht := &hintedTable{plannerTable: t.info.pt}
	for _, ix := range readyIndexes(t.info.pt.t) {
		if hs.allows(ix.Name) {
			ht.ixs = append(ht.ixs, ix)
		}
	}
	p, err := planner.Build(ht, q)
	if err != nil || !hs.force() || q.NoIndex || p.Index != nil || len(ht.ixs) == 0 {
		return p, err
	}
	switch p.Path {
	case planner.PointGet, planner.MultiGet, planner.Empty:
		return p, nil
	}
	var best *planner.Plan
	for n := range ht.ixs {
		fp, err := planner.BuildIndex(ht, q, n)
		if err != nil {
			return nil, err
		}
		if fp != nil && (best == nil || fp.Cost.ScoreFor(q.Cost) < best.Cost.ScoreFor(q.Cost)) {
			best = fp
		}
	}
	if best == nil {
		return p, nil
	}
	return best, nil
}

// prepareHints returns statement text q with its hint clauses blanked
// out for go-mysql-server's parser (same length: positions hold), after
// checking that every index they name exists: a name that does not is
// MySQL's 1176 (Key 'x' doesn't exist in table 't').
func (g *Gateway) prepareHints(ctx context.Context, q string) (string, error) {
	if !mayHaveHints(q) {
		return q, nil
	}
	refs, spans := scanHints(q)
	if len(spans) == 0 {
		return q, nil
	}
	if sctx, ok := ctx.(*sql.Context); ok && sctx != nil && sctx.Session != nil {
		for _, r := range refs {
			if err := g.checkHint(sctx, r); err != nil {
				return q, err
			}
		}
	}
	b := []byte(q)
	for _, s := range spans {
		for i := s[0]; i < s[1]; i++ {
			if b[i] != '\n' {
				b[i] = ' '
			}
		}
	}
	return string(b), nil
}

// prepareHintsSignal is prepareHints for the parse of the engine's
// statement builder, which turns every parse error into a syntax error
// (1105): a hint's error is returned as the text of a SIGNAL statement
// that raises it with its own number, state and message.
func (g *Gateway) prepareHintsSignal(ctx context.Context, q string) (string, error) {
	out, err := g.prepareHints(ctx, q)
	var se *mysql.SQLError
	if errors.As(err, &se) {
		return fmt.Sprintf("SIGNAL SQLSTATE '%s' SET MYSQL_ERRNO = %d, MESSAGE_TEXT = '%s'",
			se.SQLState(), se.Number(), strings.NewReplacer(`\`, `\\`, `'`, `''`).Replace(se.Message)), nil
	}
	return out, err
}

// checkHint checks that every index r's hints name exists.
func (g *Gateway) checkHint(ctx *sql.Context, r *hintRef) error {
	db := r.db
	if db == "" {
		db = ctx.GetCurrentDatabase()
	}
	if db == "" {
		return nil
	}
	meta, err := g.Catalog.Table(MetaCtx(ctx), db, r.table)
	if err != nil || meta == nil {
		return nil // not a sqlgw table (a CTE, a view, or none): the engine reports it
	}
	name := r.alias
	if name == "" {
		name = r.table
	}
	for _, c := range r.clauses {
		for _, n := range c.names {
			if strings.EqualFold(n, "primary") && !meta.Keyless() {
				continue
			}
			if !hasIndex(meta, n) {
				return mysql.NewSQLError(mysql.ERKeyDoesNotExist, "42000", "Key '%s' doesn't exist in table '%s'", n, name)
			}
		}
	}
	return nil
}

func hasIndex(t *catalog.Table, name string) bool {
	for i := range t.Indexes {
		if strings.EqualFold(t.Indexes[i].Name, name) {
			return true
		}
	}
	return false
}

// quotedEnd returns the index of the quote that closes the string literal
// opening at q[i] ('...' or "..."; backslash escapes and doubled quotes
// inside), or an index at or past len(q) if it is not closed.
func quotedEnd(q string, i int) int {
	c := q[i]
	j := i + 1
	for j < len(q) {
		if q[j] == '\\' {
			j += 2
			continue
		}
		if q[j] == c {
			if j+1 < len(q) && q[j+1] == c {
				j += 2
				continue
			}
			break
		}
		j++
	}
	return j
}

// backquoted returns the identifier quoted with backquotes at q[i]
// (doubled backquotes inside stand for one) and the index of its closing
// backquote, or len(q) if it is not closed.
func backquoted(q string, i int) (name string, end int) {
	var sb strings.Builder
	j := i + 1
	for j < len(q) {
		if q[j] == '`' {
			if j+1 < len(q) && q[j+1] == '`' {
				sb.WriteByte('`')
				j += 2
				continue
			}
			break
		}
		sb.WriteByte(q[j])
		j++
	}
	return sb.String(), j
}
