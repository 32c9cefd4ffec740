package sqltext

import "strings"

// TxCharacteristics writes START TRANSACTION's list of characteristics
// (MySQL 8.0: any comma-separated list of READ ONLY, READ WRITE and WITH
// CONSISTENT SNAPSHOT, repeats allowed) as the one characteristic vitess's
// grammar takes after START TRANSACTION: READ ONLY or READ WRITE if the
// list has one (the access mode is what the engine acts on), else WITH
// CONSISTENT SNAPSHOT. The statement's text as the engine keeps it
// (ctx.Query(), Wire's output) still says WITH CONSISTENT SNAPSHOT, which
// is where the engine looks for it. A list with both READ ONLY and READ
// WRITE is MySQL's syntax error 1064: TxConflict is set and the list
// removed (the engine refuses the statement when it is built: an error
// here would reach the client as go-mysql-server's 1105). A single
// characteristic, and anything the step does not recognize, is left to
// the parser.
var TxCharacteristics = Step{
	Name:     "tx-characteristics",
	Upstream: "vitess's grammar takes one characteristic after START TRANSACTION, not a comma-separated list",
	Apply:    func(t *Text) { txCharacteristics(t, true) },
}

// PrepareTxCharacteristics is TxCharacteristics for the text of
// COM_STMT_PREPARE, which vitess parses before the handler and the
// engine see it (the Prepare pipeline): the list becomes the one
// characteristic, so that the statement prepares, and the engine's parse
// finds the one characteristic as in a COM_QUERY; WITH CONSISTENT
// SNAPSHOT beside an access mode stays in the text as a comment, where the
// engine looks for it. A conflicting list is
// left as it is, for vitess's parser to refuse: written as START
// TRANSACTION, the engine's parse would no longer see the conflict.
var PrepareTxCharacteristics = Step{
	Name:     "tx-characteristics-prepare",
	Upstream: TxCharacteristics.Upstream,
	Apply:    func(t *Text) { txCharacteristics(t, false) },
}

// txCharacteristics is TxCharacteristics's rewrite; a conflicting list is
// removed only if conflicts.
func txCharacteristics(t *Text, conflicts bool) {
	if !strings.EqualFold(FirstWord(t.Src), "start") || strings.IndexByte(t.Src, ',') < 0 {
		return
	}
	q, toks := t.Src, t.Tokens()
	k := 0
	word := func(kw string) bool { // the next code token is kw: consume it
		for k < len(toks) && toks[k].Skip() {
			k++
		}
		if k < len(toks) && toks[k].Is(q, kw) {
			k++
			return true
		}
		return false
	}
	if !word("start") || !word("transaction") {
		return
	}
	var ro, rw, snap bool
	n, first, last := 0, -1, -1
	for {
		for k < len(toks) && toks[k].Skip() {
			k++
		}
		start := -1
		if k < len(toks) {
			start = toks[k].Start
		}
		switch {
		case word("read"):
			switch {
			case word("only"):
				ro = true
			case word("write"):
				rw = true
			default:
				return
			}
		case word("with"):
			if !word("consistent") || !word("snapshot") {
				return
			}
			snap = true
		default:
			return
		}
		n++
		if first < 0 {
			first = start
		}
		last = toks[k-1].End
		for k < len(toks) && toks[k].Skip() {
			k++
		}
		if k == len(toks) || toks[k].IsOp(q, ";") {
			break
		}
		if !toks[k].IsOp(q, ",") {
			return
		}
		k++
	}
	if n < 2 {
		return
	}
	if ro && rw {
		if !conflicts {
			return
		}
		t.TxConflict = true
		t.Replace(first, last, "")
		return
	}
	mode := "WITH CONSISTENT SNAPSHOT"
	if ro {
		mode = "READ ONLY"
	} else if rw {
		mode = "READ WRITE"
	}
	if snap && (ro || rw) && !conflicts {
		// A prepared statement's text is the one the engine keeps
		// (ctx.Query()), where it looks for WITH CONSISTENT SNAPSHOT
		// (snapshot.go's startSnapshot): kept there as a comment.
		mode += " /* WITH CONSISTENT SNAPSHOT */"
	}
	t.Replace(first, last, mode)
}
