package sqltext

import "strings"

// ForShare writes MySQL 8.0's shared locking clause, FOR SHARE [OF
// tbl_name [, tbl_name] ...] [NOWAIT | SKIP LOCKED], in the spelling
// vitess's grammar takes, which knows FOR UPDATE [OF ...] [NOWAIT | SKIP
// LOCKED] and LOCK IN SHARE MODE but not FOR SHARE (a syntax error).
//
//   - FOR SHARE [NOWAIT | SKIP LOCKED] becomes LOCK IN SHARE MODE, the
//     old spelling of the same lock.
//   - FOR SHARE OF list [NOWAIT | SKIP LOCKED] becomes FOR UPDATE OF list
//     [NOWAIT | SKIP LOCKED], so that go-mysql-server checks that every
//     name in the list is a table of the query block, as it does for FOR
//     UPDATE OF (MySQL's 3568 for a name that is not).
//
// Neither changes what the statement does: sqlgw's locking reads take no
// lock, shared or exclusive (engine/txn.go: a row so read is remembered
// like any read and a write to it fails at commit if another transaction
// changed it), so no statement ever waits for a row lock and no row is
// ever locked by another transaction's locking read: NOWAIT's "fail rather
// than wait" and SKIP LOCKED's "skip rows locked by others" are met as
// written (docs/compatibility.md). The clause is rewritten wherever the
// words FOR SHARE follow each other as code, except in statements whose
// FOR names an account (SHOW GRANTS FOR, SET PASSWORD FOR, and the
// GRANT/REVOKE forms), where SHARE would be a user name.
var ForShare = Step{
	Name:     "for-share",
	Upstream: "vitess's grammar has FOR UPDATE and LOCK IN SHARE MODE but not MySQL 8.0's FOR SHARE",
	Apply:    forShare,
}

func forShare(t *Text) {
	if !hasShare(t.Src) {
		return
	}
	switch strings.ToLower(FirstWord(t.Src)) {
	case "show", "set", "grant", "revoke":
		return
	}
	q, toks := t.Src, t.Tokens()
	code := func(k int) int { // the index of the first code token at or after k
		for k < len(toks) && toks[k].Skip() {
			k++
		}
		return k
	}
	for k := 0; k < len(toks); k++ {
		if !toks[k].Is(q, "for") {
			continue
		}
		s := code(k + 1)
		if s == len(toks) || !toks[s].Is(q, "share") {
			continue
		}
		end := toks[s].End // the end of the text LOCK IN SHARE MODE replaces
		n := code(s + 1)
		if n < len(toks) && toks[n].Is(q, "of") {
			t.Replace(toks[k].Start, toks[s].End, "FOR UPDATE")
			k = s
			continue
		}
		switch {
		case n < len(toks) && toks[n].Is(q, "nowait"):
			end = toks[n].End
		case n < len(toks) && toks[n].Is(q, "skip"):
			if l := code(n + 1); l < len(toks) && toks[l].Is(q, "locked") {
				end = toks[l].End
			}
		}
		t.Replace(toks[k].Start, end, "LOCK IN SHARE MODE")
		k = s
	}
}

// hasShare reports whether s contains the word SHARE in any case (a byte
// scan before lexing: a bulk INSERT's text is never lexed for this step).
func hasShare(s string) bool {
	for i := 0; i+5 <= len(s); i++ {
		if s[i]|0x20 == 's' && s[i+1]|0x20 == 'h' && s[i+2]|0x20 == 'a' && s[i+3]|0x20 == 'r' && s[i+4]|0x20 == 'e' {
			return true
		}
	}
	return false
}
