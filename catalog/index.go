package catalog

import (
	"fmt"

	"github.com/sqlgw/sqlgw/catalog/keys"
	"github.com/sqlgw/sqlgw/storage"
)

// Index entities. Part of the persisted format.
//
// A local index entity lives in its base row's partition:
//
//	PartitionKey  the base row's PartitionKey
//	RowKey        "~" + integer component of Index.ID + one component per
//	              index column (NULL allowed: '!' ascending, '~' descending)
//	              [+ the base row's RowKey]
//
// A global index entity lives in the index's own physical table:
//
//	PartitionKey  the component of the first index column
//	RowKey        the components of the other index columns
//	              [+ the base row's PartitionKey + its RowKey]
//
// The bracketed suffix is present for non-unique indexes and for unique
// ones whose indexed values hold a NULL (MySQL allows many such rows); it
// makes the key unique and orders equal index values by base key. Without
// it, a conditional insert of the index entity enforces UNIQUE. Both base
// keys are concatenations of prefix-free components, so the suffix needs
// no separator.
//
// Properties: PropBasePK and PropBaseRK (the base row's keys, String), and
// the values of the index columns and covering columns under the base
// columns' property names, encoded as in rows (so DecodeIndexEntity
// returns exact values, trailing spaces of PAD SPACE strings included).
const (
	PropBasePK = "_pk"
	PropBaseRK = "_rk"
)

// IndexColumns returns the index's key columns as KeyColumns, for building
// ranges with KeyColumn.Range (on an index, a NULL Datum is allowed and
// encodes as keys.Null).
func (t *Table) IndexColumns(ix *Index) ([]KeyColumn, error) {
	out := make([]KeyColumn, len(ix.Columns))
	for i, kp := range ix.Columns {
		c := t.ColumnIndex(kp.Column)
		if c < 0 {
			return nil, fmt.Errorf("%w: index %q column %q", ErrNoColumn, ix.Name, kp.Column)
		}
		out[i] = KeyColumn{Index: c, Desc: kp.Desc, table: t, nullable: true}
	}
	return out, nil
}

// IndexPrefix returns the keys that every entity of index ix whose first
// len(vals) index values are vals starts with: for a local index, the
// RowKey prefix within the base partition (pk is ""); for a global one,
// the PartitionKey (when vals is non-empty, else "") and the RowKey prefix.
// With len(vals) == 0 for a global index, every entity matches.
func (t *Table) IndexPrefix(ix *Index, vals []Datum) (pk, rkPrefix string, err error) {
	cols, err := t.IndexColumns(ix)
	if err != nil {
		return "", "", err
	}
	if len(vals) > len(cols) {
		return "", "", fmt.Errorf("%w: index %q: %d values for %d columns", ErrValue, ix.Name, len(vals), len(cols))
	}
	if !ix.Global {
		b := keys.EncodeUintAscending([]byte(keys.LocalIndexPrefix), uint64(ix.ID))
		for i, d := range vals {
			if b, err = cols[i].Append(b, d); err != nil {
				return "", "", err
			}
		}
		return "", string(b), t.checkLen(string(b), cols, "RowKey")
	}
	if len(vals) == 0 {
		return "", "", nil
	}
	p, err := cols[0].Append(nil, vals[0])
	if err != nil {
		return "", "", err
	}
	var r []byte
	for i, d := range vals[1:] {
		if r, err = cols[i+1].Append(r, d); err != nil {
			return "", "", err
		}
	}
	if err := t.checkLen(string(p), cols[:1], "PartitionKey"); err != nil {
		return "", "", err
	}
	return string(p), string(r), t.checkLen(string(r), cols, "RowKey")
}

func (t *Table) checkLen(k string, cols []KeyColumn, which string) error {
	if lim := t.limits.KeyLimit(); lim > 0 && len(k) > lim {
		name := ""
		if len(cols) > 0 {
			name = cols[len(cols)-1].Column().Name
		}
		return fmt.Errorf("key of table %q column %q: index %s of %d characters exceeds the store's limit of %d: %w",
			t.Name, name, which, len(k), lim, storage.ErrInvalidKey)
	}
	return nil
}

// IndexEntity builds the entity of index ix for the row (one Datum per
// column) whose base keys are pk, rk. Write it in the base row's batch for
// a local index; for a global one, into ix.Physical (with Insert for a
// unique index whose key has no base-key suffix, to enforce uniqueness).
func (t *Table) IndexEntity(ix *Index, pk, rk string, row []Datum) (*storage.Entity, error) {
	cols, ipk, irk, err := t.indexKeys(ix, pk, rk, row)
	if err != nil {
		return nil, err
	}
	e := &storage.Entity{PartitionKey: ipk, RowKey: irk, Properties: storage.Properties{PropBasePK: storage.String(pk), PropBaseRK: storage.String(rk)}}
	add := func(ci int) error {
		d := row[ci]
		if d == nil {
			return nil
		}
		c := &t.Columns[ci]
		if t.IsAttached() {
			v, err := attachedIndexValue(c, d) // attached_index.go
			if err != nil {
				return fmt.Errorf("table %q: %w", t.Name, err)
			}
			e.Properties[c.Property] = v
			return nil
		}
		v, err := c.Type.toValue(d)
		if err != nil {
			return fmt.Errorf("table %q column %q: %w", t.Name, c.Name, err)
		}
		var one [1]prop // a value that needs no split: no slice to allocate
		for _, p := range appendSplit(one[:0], c.Property, v) {
			e.Properties[p.name] = p.v
		}
		return nil
	}
	for _, kc := range cols {
		if err := add(kc.Index); err != nil {
			return nil, err
		}
	}
	for _, name := range ix.Covering {
		ci := t.ColumnIndex(name)
		if ci < 0 {
			return nil, fmt.Errorf("%w: index %q covering column %q", ErrNoColumn, ix.Name, name)
		}
		if err := add(ci); err != nil {
			return nil, err
		}
	}
	if err := t.limits.ValidateEntity(e); err != nil {
		return nil, fmt.Errorf("index %q of table %q: %w", ix.Name, t.Name, err)
	}
	return e, nil
}

// IndexKeys returns the keys of IndexEntity's entity for the same
// arguments, without building it: only the index's columns of row are
// read (the others may be nil).
func (t *Table) IndexKeys(ix *Index, pk, rk string, row []Datum) (ipk, irk string, err error) {
	_, ipk, irk, err = t.indexKeys(ix, pk, rk, row)
	return ipk, irk, err
}

// indexKeys is IndexKeys, with the index's columns.
func (t *Table) indexKeys(ix *Index, pk, rk string, row []Datum) (cols []KeyColumn, ipk, irk string, err error) {
	if len(row) != len(t.Columns) {
		return nil, "", "", fmt.Errorf("%w: table %q: row of %d values for %d columns", ErrValue, t.Name, len(row), len(t.Columns))
	}
	cols, err = t.IndexColumns(ix)
	if err != nil {
		return nil, "", "", err
	}
	vals := make([]Datum, len(cols))
	hasNull := false
	for i, kc := range cols {
		vals[i] = row[kc.Index]
		hasNull = hasNull || vals[i] == nil
	}
	ipk, irk, err = t.IndexPrefix(ix, vals)
	if err != nil {
		return nil, "", "", err
	}
	if ix.Global {
		if !ix.Unique || hasNull {
			// The logical PartitionKey: index order is base-key order
			// on a salted table too (salt.go).
			lpk, err := t.Unsalt(pk)
			if err != nil {
				return nil, "", "", err
			}
			irk += lpk + rk
		}
	} else {
		ipk = pk
		if !ix.Unique || hasNull {
			irk += rk
		}
	}
	if err := t.checkLen(irk, cols, "RowKey"); err != nil {
		return nil, "", "", err
	}
	return cols, ipk, irk, nil
}

// DecodeIndexEntity returns the base row's keys and a row (one Datum per
// column) holding the values the index entity carries: its index and
// covering columns; every other column is nil.
func (t *Table) DecodeIndexEntity(ix *Index, e *storage.Entity) (pk, rk string, row []Datum, err error) {
	bp, ok1 := e.Properties[PropBasePK]
	br, ok2 := e.Properties[PropBaseRK]
	if !ok1 || !ok2 {
		return "", "", nil, fmt.Errorf("%w: index %q entity %q lacks its base keys", ErrValue, ix.Name, e.RowKey)
	}
	row = make([]Datum, len(t.Columns))
	for i := range t.Columns {
		c := &t.Columns[i]
		v, ok := e.Properties[c.Property]
		if !ok || c.Role != RoleProperty {
			continue
		}
		if t.IsAttached() {
			if d, fits := attachedDatum(c, v); fits {
				row[i] = d
			}
			continue
		}
		if c.Type.Kind.IsLarge() {
			if v, err = reassemble(e.Properties, c.Property, v); err != nil {
				return "", "", nil, err
			}
		}
		if row[i], err = c.Type.fromValue(v); err != nil {
			return "", "", nil, fmt.Errorf("index %q column %q: %w", ix.Name, c.Name, err)
		}
	}
	return bp.Str(), br.Str(), row, nil
}

// IndexSelect returns the properties to $select from index entities to get
// the base keys and the given columns; nil (everything) when a column is
// split or not carried by the index.
func (t *Table) IndexSelect(ix *Index, cols []int) []string {
	carried := map[int]bool{}
	for _, kp := range ix.Columns {
		carried[t.ColumnIndex(kp.Column)] = true
	}
	for _, name := range ix.Covering {
		carried[t.ColumnIndex(name)] = true
	}
	out := []string{PropBasePK, PropBaseRK}
	for _, i := range cols {
		if i < 0 || i >= len(t.Columns) || !carried[i] || t.Columns[i].Type.Kind.IsLarge() {
			return nil
		}
		out = append(out, t.Columns[i].Property)
	}
	return out
}
