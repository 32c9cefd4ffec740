package catalog

import "github.com/sqlgw/sqlgw/storage"

// StorageType returns the property type the column's values are stored as.
func (c *Column) StorageType() storage.Type { return 0 }

// Literal converts a Datum into the property value it is stored as, for
// building pushed-down filters: storage.Eq(c.Property, lit) matches exactly
// the rows whose column equals d when Pushdown(storage.OpEq) holds.
func (c *Column) Literal(d Datum) (storage.Value, error) { return storage.Value{}, errTODO }

// Pushdown reports whether a comparison "column op literal" evaluated by the
// store on the stored property gives exactly SQL's result (with NULL an
// absent property, false for every op, as SQL's NULL comparisons).
func (c *Column) Pushdown(op storage.Op) bool { return false }
