package compat

import (
	"strings"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/hash"
	"github.com/dolthub/go-mysql-server/sql/iters"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// SELECT DISTINCT compares strings by their collation in MySQL: under
// utf8mb4_general_ci 'a' and 'A' are one value, under utf8mb4_0900_ai_ci
// 'a', 'A' and 'á'. go-mysql-server's Distinct hashes
// each row without its schema (plan.DistinctHasher calls hash.HashOf with
// a nil schema), so it hashes the strings' bytes and returns every spelling
// as a distinct row. hash.HashOf given the schema hashes a string column by
// its collation's weight string, as GROUP BY already does; the first row of
// each class is returned, as MySQL returns one of them. DISTINCT then groups
// as MySQL does, PAD SPACE collations included: a string column whose
// collation is PAD SPACE (its PAD_ATTRIBUTE, the rule catalog.PadSpace
// keys by: utf8mb4_general_ci, utf8mb4_bin, latin1_*, ...; the layering
// keeps catalog out of this package) is hashed without its trailing
// spaces, so 'b' and 'b ' are
// one value, as sqlgw's = compares them (sqlgw/engine/padspace.go).
// GROUP BY and COUNT(DISTINCT) still hash them apart (go-mysql-server's
// own hashing, docs/compatibility.md).
//
// Upstream fix: DistinctHasher.HashOf passing the Distinct's child schema
// (or the distinctOn expressions' types) to hash.HashOf.

// DistinctIter is go-mysql-server's Distinct iterator over child with a
// hasher that honours the collations of n's child schema. ok is false for a
// DISTINCT ON (not MySQL), which keeps go-mysql-server's own iterator.
func DistinctIter(ctx *sql.Context, n *plan.Distinct, child sql.RowIter) (it sql.RowIter, ok bool) {
	if len(n.DistinctOn()) > 0 {
		return nil, false
	}
	return iters.NewDistinctIter(ctx, child, newDistinctHasher(n.Child.Schema(ctx))), true
}

// distinctHasher hashes a row as hash.HashOf(ctx, schema, row) does.
//
// hash.HashOf writes a string's collation weights into its xxhash digest
// four bytes at a time (sql.CollationID.WriteWeightString), a Write call
// per character: 9% of sysbench oltp_read_only's CPU for its DISTINCT c
// over 100 rows of 120 characters. A row of NULLs and strings of string
// columns that convert to themselves (go-mysql-server's ConvertToString:
// within the type's length, valid UTF-8, not a padded BINARY) is hashed
// here instead: the same bytes (the weights, NULL's "<nil>", a zero byte
// between values) appended to a buffer and hashed by one xxhash.Sum64,
// which is the digest's Sum64 over the bytes written to it, so the hash is
// the same number. Any other row is hashed by hash.HashOf itself.
// TestDistinctHasherSameHash compares the two.
type distinctHasher struct {
	schema sql.Schema
	// cols[i] is schema[i]'s string type when its strings hash here.
	cols []*types.StringType
	buf  []byte
	// pad[i]: schema[i] is text under a PAD SPACE collation, hashed
	// without trailing spaces (nil when no column is); row is the
	// trimmed copy of a row.
	pad []bool
	row sql.Row
}

func newDistinctHasher(schema sql.Schema) *distinctHasher {
	h := &distinctHasher{schema: schema, cols: make([]*types.StringType, len(schema))}
	for i, c := range schema {
		if _, ext := c.Type.(sql.ExtendedType); ext {
			continue
		}
		if st, ok := c.Type.(types.StringType); ok && st.Type() != sqltypes.Binary {
			h.cols[i] = &st
		}
		if st, ok := c.Type.(sql.StringType); ok && types.IsTextOnly(st) && st.Collation().PadAttribute() == "PAD SPACE" {
			if h.pad == nil {
				h.pad = make([]bool, len(schema))
			}
			h.pad[i] = true
		}
	}
	return h
}

func (h *distinctHasher) HashOf(ctx *sql.Context, row sql.Row) (uint64, error) {
	if h.pad != nil && len(row) <= len(h.pad) {
		h.row = append(h.row[:0], row...)
		for i, v := range h.row {
			if s, ok := v.(string); ok && h.pad[i] {
				h.row[i] = strings.TrimRight(s, " ")
			}
		}
		row = h.row
	}
	if buf, ok := h.appendRow(h.buf[:0], row); ok {
		h.buf = buf
		return xxhash.Sum64(buf), nil
	}
	return hash.HashOf(ctx, h.schema, row)
}

// appendRow appends what hash.HashOf writes to its digest for row, or
// reports false for a row it does not take.
func (h *distinctHasher) appendRow(buf []byte, row sql.Row) ([]byte, bool) {
	if len(row) > len(h.cols) {
		return nil, false
	}
	for i, v := range row {
		if i > 0 {
			buf = append(buf, 0)
		}
		if v == nil {
			buf = append(buf, "<nil>"...)
			continue
		}
		st := h.cols[i]
		s, isString := v.(string)
		if st == nil || !isString || !convertsToItself(st, s) {
			return nil, false
		}
		coll := st.Collation()
		if coll == sql.Collation_binary {
			buf = append(buf, s...)
			continue
		}
		weight := coll.Sorter()
		for _, r := range s { // valid UTF-8 (convertsToItself)
			w := weight(r)
			buf = append(buf, byte(w), byte(w>>8), byte(w>>16), byte(w>>24))
		}
	}
	return buf, true
}

// convertsToItself reports whether types.ConvertToString(ctx, s, st, nil)
// returns s without an error, given st is not BINARY: s within the type's
// length as ConvertToBytes measures it, and valid UTF-8 for a type that is
// not binary.
func convertsToItself(st *types.StringType, s string) bool {
	n := int64(len(s))
	switch {
	case st.Type() == sqltypes.Text:
		if n > st.MaxByteLength() {
			return false
		}
	case n > st.MaxCharacterLength():
		if st.CharacterSet().MaxLength() == 1 || int64(utf8.RuneCountInString(s)) > st.MaxCharacterLength() {
			return false
		}
	}
	return types.IsBinaryType(*st) || utf8.ValidString(s)
}

// HashesAsWeights reports whether DISTINCT's hasher (and hash.HashOf given
// the schema) hashes s, a value of a column of type st, by the weights of
// its characters under st's collation without converting it first: st is
// not BINARY and s converts to itself (within the type's length, valid
// UTF-8). Two such strings of one column are then one DISTINCT value
// exactly when their weight strings are equal (up to a collision of the
// 64-bit hash). sqlgw/engine's sort with DISTINCT (sortrows.go) relies on
// it.
func HashesAsWeights(st types.StringType, s string) bool {
	return st.Type() != sqltypes.Binary && convertsToItself(&st, s)
}
