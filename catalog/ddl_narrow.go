package catalog

import "context"

// Narrowing column changes
//
// ModifyColumn accepts only changes after which every stored value decodes
// unchanged and stays valid. A narrowing (VARCHAR(128) to VARCHAR(64), INT
// to SMALLINT, NULL to NOT NULL, ENUM members dropped from the end) keeps
// the first property (a value of the narrower domain is stored exactly as
// the wider type stores it) but not the second: it is valid only if every
// stored value lies in the narrower domain. Checking that is a scan of the
// table, which the catalog does not do; the gateway scans, then commits the
// change with ModifyColumnVerified, naming the table Version it verified.
// The catalog commits only if the table is still at that version, so a
// concurrent DDL change (say, another gateway widening the column again)
// between the scan and the commit is ErrConflict, never silently combined.
// Writes made meanwhile under the old schema are not the catalog's to see:
// the gateway re-verifies after the commit (sqlgw/engine/alter_narrowing.go).
//
// Narrowings that would change how a value is stored or read are refused
// like any other rewrite: CHAR and VARCHAR exchanged (trailing spaces),
// BINARY(n) (zero padding), fewer DECIMAL fraction digits, FLOAT from
// DOUBLE, a smaller fsp (rounding), a different property type (BIGINT to
// INT: Int64 to Int32), a different collation.

// Narrows reports whether changing a column of type a to type b keeps the
// stored representation of every value that b can hold, so that the change
// needs only a check that each stored value is one of b's, no rewrite. It is
// false for changes ModifyColumn accepts anyway and for those needing a
// rewrite.
func Narrows(a, b Type) bool {
	if compatible(a, b) == nil || compatible(b, a) != nil {
		return false
	}
	switch {
	case a.Kind.IsInteger(), a.Kind == KindEnum, a.Kind == KindSet, a.Kind == KindBit:
		// compatible(b, a): same property type, signedness and members.
		return true
	case a.Kind == KindDecimal:
		return a.Scale == b.Scale // fewer fraction digits round
	case a.Kind.IsText(), a.Kind.IsBinary():
		if a.Kind.IsLarge() {
			return b.Kind.IsLarge() || b.Kind == KindVarchar || b.Kind == KindVarbinary
		}
		// CHAR drops trailing spaces, VARCHAR keeps them; BINARY pads.
		return a.Kind == b.Kind && a.Kind != KindBinary
	}
	return false
}

// ModifyColumnVerified is ModifyColumn that also accepts the narrowings of
// Narrows and nullable to NOT NULL, for a caller that has verified every
// stored value of the table at Version version against col. It fails with
// ErrConflict if the table changed since (its Version moved).
func (c *Catalog) ModifyColumnVerified(ctx context.Context, db, table, name string, col Column, pos *ColumnPosition, version uint64) (*Table, error) {
	if version == 0 {
		version = ^uint64(0) // never a table's version: conflict rather than unchecked
	}
	return c.modifyColumn(ctx, db, table, name, col, pos, version)
}
