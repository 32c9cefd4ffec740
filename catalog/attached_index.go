package catalog

import (
	"fmt"
	"strings"

	"github.com/sqlgw/sqlgw/storage"
)

// Secondary indexes of attached tables
//
// An attached table's store table is the user's: sqlgw never writes an
// entity or a property there that the user's applications did not ask for
// through SQL. Its secondary indexes are therefore always global (their
// entities live in a physical table of sqlgw's own, Prefix + "x" + ...),
// never local (local entries would be "~" entities in the user's
// partitions), and they follow the global index protocol of package
// catalog/ixmaint unchanged: the user's entities never carry a mark.
//
// Layout: as any global index entity (index.go), keyed by the key
// components of the indexed values, with the base row's raw PartitionKey
// and RowKey in _pk and _rk; the indexed values are carried under the
// user's property names with the column's EDM type (attachedValue), the
// same typed values the base entity holds, so that the planner's filters
// on an index entity (Column.Literal) compare like its filters on the base
// entities. Index columns follow the key-column rules: a String or Binary
// property, inferred as MEDIUMTEXT or MEDIUMBLOB, is indexed once pinned
// to VARCHAR(n) or VARBINARY(n) (ALTER TABLE ... MODIFY, pinnedColumnType
// in attached.go; values longer than n then show in the JSON column and
// are not indexed, the column being NULL for them). A value whose key
// exceeds the store's key limit is an error naming the column, for the
// write that carries it and for the CREATE INDEX that meets it (which is
// then not created).
//
// What can be indexed: property columns (not PartitionKey, RowKey,
// Timestamp or the JSON column: the first two are the base keys the entry
// already names, the service rewrites Timestamp on every write, JSON is no
// key), whose property name does not start with "_" (the names of the
// index entity's bookkeeping). UNIQUE is refused: other applications write
// the table without sqlgw, so sqlgw cannot enforce it. Covering columns are
// refused: readers always read the base entity (below), so they would buy
// nothing.
//
// Freshness contract. Writes through SQL maintain the index as for
// sqlgw's own tables. Writes by other applications bypass sqlgw, so the
// index lags them: an entity they insert, or whose indexed property they
// change, is not found through the index (the new value) until the index
// is rebuilt; an entity they delete or change leaves a stale entry. Every
// index hit is therefore verified against the base entity, read with one
// Get (readers never trust an entry alone, even for columns it carries:
// planner.Index.Unsynced): a hit whose entity is gone or no longer has the
// indexed values is skipped and the entry removed, so a lookup never
// returns a wrong row, but it can miss rows written by others since the
// last rebuild. REPAIR TABLE rebuilds the table's indexes from the
// entities (adds what is missing, removes what is stale), REFRESH TABLE
// re-infers the columns and then does the same, and CHECK TABLE reports
// how far the indexes are behind. A query that must see other
// applications' latest writes uses IGNORE INDEX.

// attachedIndexable checks that ix can index attached table t (see
// above).
func (t *Table) attachedIndexable(ix *Index) error {
	switch {
	case ix.Unique:
		return fmt.Errorf("%w: UNIQUE index %q on attached table %q (other applications write it without sqlgw, which cannot enforce uniqueness)", ErrUnsupported, ix.Name, t.Name)
	case len(ix.Covering) > 0:
		return fmt.Errorf("%w: covering columns of index %q on attached table %q (its hits are always verified against the base entities)", ErrUnsupported, ix.Name, t.Name)
	}
	for _, kp := range ix.Columns {
		i := t.ColumnIndex(kp.Column)
		if i < 0 {
			return fmt.Errorf("%w: index %q column %q", ErrNoColumn, ix.Name, kp.Column)
		}
		c := &t.Columns[i]
		if c.Role != RoleProperty {
			return fmt.Errorf("%w: index %q column %q of attached table %q: only property columns can be indexed (not PartitionKey, RowKey, Timestamp or the JSON column)", ErrUnsupported, ix.Name, c.Name, t.Name)
		}
		if strings.HasPrefix(c.Property, "_") {
			return fmt.Errorf("%w: index %q column %q: property %s starts with _, which index entities reserve", ErrUnsupported, ix.Name, c.Name, c.Property)
		}
		if err := c.Type.keyable(); err != nil {
			return fmt.Errorf("index %q column %q: %w", ix.Name, c.Name, err)
		}
	}
	if !ix.Global {
		return fmt.Errorf("%w: index %q on attached table %q must be global (a local index would put sqlgw's entities in the table's own partitions)", ErrUnsupported, ix.Name, t.Name)
	}
	return nil
}

// attachedIndexValue is the property value an attached table's index
// entity carries for column c's value d (the base entity's EDM type).
func attachedIndexValue(c *Column, d Datum) (storage.Value, error) {
	return attachedValue(c, d, c.Edm)
}
