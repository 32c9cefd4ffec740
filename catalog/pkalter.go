package catalog

import (
	"context"
	"fmt"
	"strings"
)

// Changing the primary key of an empty table
//
// A table's primary key decides every row's PartitionKey and RowKey, so
// changing it rewrites every stored row, which the catalog does not do.
// With no rows stored there is nothing to rewrite: a keyless table becomes
// keyed (the default partition-key rule, the key columns NOT NULL, as in
// CREATE TABLE), or a keyed one keyless, by a change of the record alone.
// The catalog cannot see rows; the gateway checks the physical table is
// empty at Version version and calls SetPrimaryKeyVerified, which commits
// only if the table is still at that version (else ErrConflict), and then
// re-checks after its readers have seen the change (sqlgw/engine/alter_primary_key.go).
//
// Refused with ErrUnsupported, whatever the rows: a table with secondary
// indexes (their entities embed the primary key), with foreign keys, or
// referenced by another table's foreign key; a keyed table given a key
// (ErrInvalidDef: the gateway answers 1068 before asking).

// SetPrimaryKeyVerified replaces table's primary key by pk (empty: make it
// keyless) for a caller that has verified the table's physical table holds
// no entities at Version version. Errors: ErrConflict (the table changed
// since version), ErrUnsupported, ErrInvalidDef, ErrNoColumn.
func (c *Catalog) SetPrimaryKeyVerified(ctx context.Context, db, table string, pk []KeyPart, version uint64) (*Table, error) {
	if version == 0 {
		version = ^uint64(0) // never a table's version: conflict rather than unchecked
	}
	return c.alterTable(ctx, db, table, func(s *snapshot, t *Table, tx *txn) error {
		if t.Version != version {
			return fmt.Errorf("%w: %s.%s changed while it was verified empty", ErrConflict, db, table)
		}
		if len(pk) > 0 && !t.Keyless() {
			return fmt.Errorf("%w: table %q already has a primary key", ErrInvalidDef, t.Name)
		}
		if len(pk) == 0 && t.Keyless() {
			return fmt.Errorf("%w: table %q has no primary key", ErrInvalidDef, t.Name)
		}
		if t.Group != "" {
			return fmt.Errorf("%w: changing the primary key of table %s, a member of table group %s (its partition key is the group's)", ErrUnsupported, t.Name, t.Group)
		}
		if len(t.Indexes) > 0 {
			return fmt.Errorf("%w: changing the primary key of table %s, which has secondary indexes (drop them first)", ErrUnsupported, t.Name)
		}
		if len(t.ForeignKeys) > 0 {
			return fmt.Errorf("%w: changing the primary key of table %s, which has foreign keys (drop them first)", ErrUnsupported, t.Name)
		}
		for _, byName := range s.tables {
			for _, o := range byName {
				for _, fk := range o.ForeignKeys {
					if strings.EqualFold(fk.ParentDatabase, t.Database) && strings.EqualFold(fk.ParentTable, t.Name) {
						return fmt.Errorf("%w: changing the primary key of table %s, which foreign key %s of table %s references", ErrUnsupported, t.Name, fk.Name, o.Name)
					}
				}
			}
		}
		// Rows an older snapshot holds map to keys under the old key.
		t.DefVersion = s.version + 1 // alterTable's version
		if len(pk) == 0 {
			for _, col := range t.Columns {
				if col.AutoIncrement {
					return fmt.Errorf("%w: table %q: the AUTO_INCREMENT column %q must stay a key", ErrInvalidDef, t.Name, col.Name)
				}
			}
			t.PrimaryKey, t.PartitionKey = nil, nil
			return nil
		}
		seen := map[string]bool{}
		var parts []KeyPart
		for _, kp := range pk {
			i := t.ColumnIndex(kp.Column)
			if i < 0 {
				return fmt.Errorf("%w: primary key column %q", ErrNoColumn, kp.Column)
			}
			if seen[strings.ToLower(kp.Column)] {
				return fmt.Errorf("%w: column %q twice in the primary key", ErrInvalidDef, kp.Column)
			}
			seen[strings.ToLower(kp.Column)] = true
			col := &t.Columns[i]
			if col.Virtual {
				return fmt.Errorf("%w: primary key column %q is a VIRTUAL generated column", ErrUnsupported, col.Name)
			}
			if err := col.Type.keyable(); err != nil {
				return fmt.Errorf("table %q primary key column %q: %w", t.Name, col.Name, err)
			}
			col.Nullable = false
			parts = append(parts, KeyPart{Column: col.Name, Desc: kp.Desc})
		}
		t.PrimaryKey = parts
		t.PartitionKey = []string{parts[0].Column}
		return nil
	})
}

// RevertPrimaryKey undoes a SetPrimaryKeyVerified whose second check
// failed: the table, still at Version version, gets back before's primary
// key, partition key and column nullability (the key columns were made NOT
// NULL). Errors: ErrConflict if the table changed since version.
func (c *Catalog) RevertPrimaryKey(ctx context.Context, db, table string, before *Table, version uint64) (*Table, error) {
	return c.alterTable(ctx, db, table, func(s *snapshot, t *Table, tx *txn) error {
		if t.Version != version {
			return fmt.Errorf("%w: %s.%s changed before its primary key change was undone", ErrConflict, db, table)
		}
		t.DefVersion = s.version + 1 // as SetPrimaryKeyVerified
		t.PrimaryKey = append([]KeyPart(nil), before.PrimaryKey...)
		t.PartitionKey = append([]string(nil), before.PartitionKey...)
		for i := range t.Columns {
			if j := before.ColumnIndex(t.Columns[i].Name); j >= 0 {
				t.Columns[i].Nullable = before.Columns[j].Nullable
			}
		}
		return nil
	})
}
