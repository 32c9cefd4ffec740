package sqltext

import (
	"slices"
	"strings"
)

// Step is one named rewrite of a statement text. Apply reads the text's
// tokens (Text.Tokens, of the text as the client sent it) and records its
// changes as edits (Replace, Insert) and its findings in Text's result
// fields; it never sees another step's edits. A step first asks a cheap
// question of the text (a byte scan) and lexes only when it may apply,
// so that a statement no step concerns (a bulk INSERT) is never lexed.
type Step struct {
	// Name names the step in tests and documentation.
	Name string
	// Upstream is the go-mysql-server (or vitess parser) behaviour the
	// step works around, in one line; "" for a step that implements
	// MySQL behaviour go-mysql-server does not own (a MariaDB dump's
	// syntax, for one).
	Upstream string
	Apply    func(t *Text)
}

// Text is a statement text going through a pipeline.
type Text struct {
	// Src is the text the pipeline started from.
	Src  string
	toks []Token // Src's tokens, once a step asked for them

	edits []edit
	seq   int

	// Empty is set by MariaDBOnly: the text held nothing but MariaDB-only
	// comments (and the result is "").
	Empty bool
	// TimePrecisions is set by TimePrecision for a CREATE or ALTER TABLE
	// that declares TIME columns: each one's declared precision by
	// lower-cased column name (TIME alone: 0).
	TimePrecisions map[string]int
	// Hints is set by IndexHints: the table references with index hint
	// clauses, in text order.
	Hints []*HintRef
	// TxConflict is set by TxCharacteristics: START TRANSACTION's list
	// has both READ ONLY and READ WRITE (MySQL's 1064).
	TxConflict bool
	// Rollup is set by Rollup: the text has GROUP BY ... WITH ROLLUP.
	Rollup bool
}

// Tokens returns Src's tokens, lexing it on the first call.
func (t *Text) Tokens() []Token {
	if t.toks == nil && t.Src != "" {
		t.toks = Lex(t.Src)
	}
	return t.toks
}

type edit struct {
	start, end int
	text       string
	seq        int
}

// Replace records that Src[start:end] becomes s.
func (t *Text) Replace(start, end int, s string) {
	t.seq++
	t.edits = append(t.edits, edit{start, end, s, t.seq})
}

// Insert records that s is inserted before Src[at]. Insertions at one
// position keep their order.
func (t *Text) Insert(at int, s string) { t.Replace(at, at, s) }

// sorted returns the edits by position: by start, an insertion before a
// replacement starting at the same place, then in the order made.
func (t *Text) sorted() []edit {
	es := slices.Clone(t.edits)
	slices.SortStableFunc(es, func(a, b edit) int {
		if a.start != b.start {
			return a.start - b.start
		}
		if (a.start == a.end) != (b.start == b.end) {
			if a.start == a.end {
				return -1
			}
			return 1
		}
		return a.seq - b.seq
	})
	return es
}

// overlapping reports whether two edits touch the same text (an
// insertion strictly inside a replaced range counts).
func overlapping(es []edit) bool {
	end := -1
	for _, e := range es {
		if e.start < end {
			return true
		}
		if e.end > end {
			end = e.end
		}
	}
	return false
}

// String returns the text with every edit applied.
func (t *Text) String() string {
	if len(t.edits) == 0 {
		return t.Src
	}
	var b strings.Builder
	last := 0
	for _, e := range t.sorted() {
		b.WriteString(t.Src[last:e.start])
		b.WriteString(e.text)
		last = e.end
	}
	b.WriteString(t.Src[last:])
	return b.String()
}

// Run applies steps to q, in order, and returns the result (String) with
// the steps' findings. The text is lexed once and every step reads the
// same tokens, so the steps run in one pass; when the edits of two steps
// would touch the same text (none of the pipelines here do, as their
// steps act on different statements or clauses), Run instead applies the
// steps one after the other, lexing each intermediate text.
func Run(q string, steps []Step) *Text {
	t := &Text{Src: q}
	for _, s := range steps {
		s.Apply(t)
	}
	if !overlapping(t.sorted()) {
		return t
	}
	cur := q
	var res *Text
	for _, s := range steps {
		next := &Text{Src: cur}
		if res != nil {
			next.Empty, next.TimePrecisions, next.Hints, next.TxConflict, next.Rollup = res.Empty, res.TimePrecisions, res.Hints, res.TxConflict, res.Rollup
		}
		s.Apply(next)
		cur, res = next.String(), next
	}
	out := &Text{Src: cur}
	out.Empty, out.TimePrecisions, out.Hints, out.TxConflict, out.Rollup = res.Empty, res.TimePrecisions, res.Hints, res.TxConflict, res.Rollup
	return out
}

// The helpers steps share over Text.Tokens.

// skipVersion returns the index after the VersionClose matching the
// VersionOpen at toks[k] (or len(toks)).
func skipVersion(toks []Token, k int) int {
	for k++; k < len(toks); k++ {
		if toks[k].Kind == VersionClose {
			return k + 1
		}
	}
	return k
}
