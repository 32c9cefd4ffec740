package catalog

import (
	"context"
	"fmt"
	"strings"
)

// RenameIndex renames a secondary index (ALTER TABLE ... RENAME INDEX).
// Metadata only: local index entities are keyed by the index's ID and a
// global index's entities live in its own physical table, neither of
// which a name enters, so no entity is rewritten. Renaming to a name
// another index of the table has (case-insensitively) is ErrIndexExists;
// a change of letter case only is allowed, as in MySQL.
func (c *Catalog) RenameIndex(ctx context.Context, db, table, from, to string) (*Table, error) {
	if to == "" || strings.EqualFold(to, "PRIMARY") {
		return nil, fmt.Errorf("%w: index name %q", ErrInvalidDef, to)
	}
	return c.alterTable(ctx, db, table, func(s *snapshot, t *Table, tx *txn) error {
		at := -1
		for i := range t.Indexes {
			if strings.EqualFold(t.Indexes[i].Name, from) {
				at = i
			}
		}
		if at < 0 {
			return fmt.Errorf("%w: %q", ErrNoIndex, from)
		}
		for i := range t.Indexes {
			if i != at && strings.EqualFold(t.Indexes[i].Name, to) {
				return fmt.Errorf("%w: %q", ErrIndexExists, to)
			}
		}
		t.Indexes[at].Name = to
		return nil
	})
}
