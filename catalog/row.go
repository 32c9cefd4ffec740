package catalog

import (
	"github.com/sqlgw/sqlgw/storage"
)

// EncodeRow maps a row (one Datum per column, in Columns order) to its keys
// and entities. entities[0] is the main entity (RowKey rk); further entities
// (a wide or large row) have RowKeys that sort right after rk and before any
// other row (see ContinuationRange). All must be written in one atomic batch.
// Keyless tables get a fresh generated RowKey on every call; updates of a
// keyless row use EncodeEntities with the row's existing keys.
func (t *Table) EncodeRow(row []Datum) (pk, rk string, entities []*storage.Entity, err error) {
	return "", "", nil, errTODO
}

// EncodeEntities is EncodeRow with given keys (updates of keyless rows).
func (t *Table) EncodeEntities(pk, rk string, row []Datum) ([]*storage.Entity, error) {
	return nil, errTODO
}

// EncodeKey returns the keys of a row (one Datum per column).
func (t *Table) EncodeKey(row []Datum) (pk, rk string, err error) { return "", "", errTODO }

// EncodePrimaryKey returns the keys for primary-key values given in
// PrimaryKey order. Errors name the table and column; a key over the
// store's limit wraps storage.ErrInvalidKey.
func (t *Table) EncodePrimaryKey(vals []Datum) (pk, rk string, err error) {
	return "", "", errTODO
}

// DecodeKey decodes a row's keys back to its primary-key values, in
// PrimaryKey order. It accepts continuation RowKeys too.
func (t *Table) DecodeKey(pk, rk string) ([]Datum, error) { return nil, errTODO }

// DecodeRow rebuilds a row from its main entity followed by its
// continuation entities (all, when the main entity says it has extras and
// the projection needs them). Columns whose properties are absent are NULL.
func (t *Table) DecodeRow(entities ...*storage.Entity) ([]Datum, error) { return nil, errTODO }

// IsContinuation reports whether e is a continuation entity of a row (not
// the row's main entity). In a scan, a continuation belongs to the nearest
// preceding main entity.
func (t *Table) IsContinuation(e *storage.Entity) bool { return false }

// Extras returns how many continuation entities the row of main entity e has.
func (t *Table) Extras(e *storage.Entity) int { return 0 }

// ContinuationRange returns the RowKey range holding exactly the
// continuation entities of the row whose main RowKey is rk.
func (t *Table) ContinuationRange(rk string) *storage.KeyRange { return nil }

// Select returns the property names a query must $select to decode the
// given columns (indexes into Columns), internal properties included; nil
// means "select everything" (needed when a column may be split over
// several properties).
func (t *Table) Select(cols []int) []string { return nil }
