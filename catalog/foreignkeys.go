package catalog

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Foreign keys
//
// The catalog stores FOREIGN KEY definitions only, in the declaring
// (child) table's record: the gateway's engine (go-mysql-server) enforces
// them on every write by index lookups on both tables, and the index on
// the child columns is an ordinary secondary index the gateway creates
// with the constraint. The parent is named (database and table name), as
// MySQL does: renaming a parent or a column updates the referencing
// definitions through UpdateForeignKey. Constraint names are unique per
// database, as in InnoDB.
//
// A definition created with foreign_key_checks=0 may name a parent that
// does not exist yet: the catalog does not check the parent side.

// Referential actions, as MySQL spells them. "" is a definition that named
// no action (MySQL's default, NO ACTION, which InnoDB treats as RESTRICT).
const (
	FKRestrict   = "RESTRICT"
	FKCascade    = "CASCADE"
	FKSetNull    = "SET NULL"
	FKNoAction   = "NO ACTION"
	FKSetDefault = "SET DEFAULT"
)

// ForeignKey is one FOREIGN KEY constraint declared by a table.
type ForeignKey struct {
	Name string `json:"name"`
	// Columns are the child (declaring table's) columns, in order.
	Columns []string `json:"cols"`
	// ParentDatabase and ParentTable name the referenced table.
	ParentDatabase string   `json:"pdb"`
	ParentTable    string   `json:"ptable"`
	ParentColumns  []string `json:"pcols"`
	// OnUpdate and OnDelete are referential actions (FKCascade ...); ""
	// for none named.
	OnUpdate string `json:"onupd,omitempty"`
	OnDelete string `json:"ondel,omitempty"`
}

// ErrForeignKeyExists is returned when a FOREIGN KEY constraint name is
// already used in the database.
var ErrForeignKeyExists = errors.New("catalog: duplicate foreign key constraint name")

// ErrNoForeignKey is returned for a constraint name the table does not
// declare.
var ErrNoForeignKey = errors.New("catalog: no such foreign key constraint")

// ForeignKey returns the named FOREIGN KEY constraint (case-insensitive),
// or nil.
func (t *Table) ForeignKey(name string) *ForeignKey {
	for i := range t.ForeignKeys {
		if strings.EqualFold(t.ForeignKeys[i].Name, name) {
			return &t.ForeignKeys[i]
		}
	}
	return nil
}

// References reports whether fk references the table db.name.
func (fk *ForeignKey) References(db, name string) bool {
	return strings.EqualFold(fk.ParentDatabase, db) && strings.EqualFold(fk.ParentTable, name)
}

func validAction(a string) bool {
	switch a {
	case "", FKRestrict, FKCascade, FKSetNull, FKNoAction, FKSetDefault:
		return true
	}
	return false
}

// validate checks fk against its declaring table t and, with columns set,
// that the child columns exist (normalising them to the table's spelling).
// UpdateForeignKey does not check them: go-mysql-server renames the
// constraint's columns before the column itself.
func (fk *ForeignKey) validate(t *Table, columns bool) error {
	if fk.Name == "" {
		return fmt.Errorf("%w: a foreign key needs a name", ErrInvalidDef)
	}
	if len(fk.Columns) == 0 || len(fk.Columns) != len(fk.ParentColumns) {
		return fmt.Errorf("%w: foreign key %s: %d columns reference %d", ErrInvalidDef, fk.Name, len(fk.Columns), len(fk.ParentColumns))
	}
	if fk.ParentTable == "" || fk.ParentDatabase == "" {
		return fmt.Errorf("%w: foreign key %s: no referenced table", ErrInvalidDef, fk.Name)
	}
	if !validAction(fk.OnUpdate) || !validAction(fk.OnDelete) {
		return fmt.Errorf("%w: foreign key %s: referential action %q/%q", ErrInvalidDef, fk.Name, fk.OnUpdate, fk.OnDelete)
	}
	fk.Columns = slices.Clone(fk.Columns)
	fk.ParentColumns = slices.Clone(fk.ParentColumns)
	seen := map[string]bool{}
	for i, c := range fk.Columns {
		if seen[strings.ToLower(c)] {
			return fmt.Errorf("%w: foreign key %s: column %q twice", ErrInvalidDef, fk.Name, c)
		}
		seen[strings.ToLower(c)] = true
		if !columns {
			continue
		}
		j := t.ColumnIndex(c)
		if j < 0 {
			return fmt.Errorf("%w: foreign key %s column %q", ErrNoColumn, fk.Name, c)
		}
		fk.Columns[i] = t.Columns[j].Name
	}
	return nil
}

// fkNameUsed reports the table of database db (other than except) that
// declares a constraint named name, or nil.
func (s *snapshot) fkNameUsed(db, name string, except uint64) *Table {
	for _, other := range s.tables[strings.ToLower(db)] {
		if other.ID != except && other.ForeignKey(name) != nil {
			return other
		}
	}
	return nil
}

// AddForeignKey adds a FOREIGN KEY constraint to table db.table. The name
// must be unused in the database. The catalog checks the child columns;
// the parent is checked by the caller (it may not exist yet when
// foreign_key_checks=0). Errors: ErrNoTable, ErrForeignKeyExists,
// ErrNoColumn, ErrInvalidDef.
func (c *Catalog) AddForeignKey(ctx context.Context, db, table string, fk ForeignKey) (*Table, error) {
	return c.alterTable(ctx, db, table, func(s *snapshot, t *Table, tx *txn) error {
		if err := fk.validate(t, true); err != nil {
			return err
		}
		if t.ForeignKey(fk.Name) != nil {
			return fmt.Errorf("%w: %q", ErrForeignKeyExists, fk.Name)
		}
		if other := s.fkNameUsed(db, fk.Name, t.ID); other != nil {
			return fmt.Errorf("%w: %q (table %s)", ErrForeignKeyExists, fk.Name, other.Name)
		}
		// A fresh slice: the old snapshot shares the backing array.
		t.ForeignKeys = append(slices.Clone(t.ForeignKeys), fk)
		return nil
	})
}

// UpdateForeignKey replaces the constraint name of table db.table by fk
// (a rename of the constraint, of a referenced table or column). Errors: ErrNoTable, ErrNoForeignKey, ErrForeignKeyExists,
// ErrInvalidDef.
func (c *Catalog) UpdateForeignKey(ctx context.Context, db, table, name string, fk ForeignKey) (*Table, error) {
	return c.alterTable(ctx, db, table, func(s *snapshot, t *Table, tx *txn) error {
		i := slices.IndexFunc(t.ForeignKeys, func(f ForeignKey) bool { return strings.EqualFold(f.Name, name) })
		if i < 0 {
			return fmt.Errorf("%w: %q", ErrNoForeignKey, name)
		}
		if err := fk.validate(t, false); err != nil {
			return err
		}
		if !strings.EqualFold(fk.Name, name) {
			if t.ForeignKey(fk.Name) != nil {
				return fmt.Errorf("%w: %q", ErrForeignKeyExists, fk.Name)
			}
			if other := s.fkNameUsed(db, fk.Name, t.ID); other != nil {
				return fmt.Errorf("%w: %q (table %s)", ErrForeignKeyExists, fk.Name, other.Name)
			}
		}
		t.ForeignKeys = slices.Clone(t.ForeignKeys)
		t.ForeignKeys[i] = fk
		return nil
	})
}

// DropForeignKey removes a FOREIGN KEY constraint of table db.table (its
// index stays, as in MySQL). Errors: ErrNoTable, ErrNoForeignKey.
func (c *Catalog) DropForeignKey(ctx context.Context, db, table, name string) (*Table, error) {
	return c.alterTable(ctx, db, table, func(s *snapshot, t *Table, tx *txn) error {
		i := slices.IndexFunc(t.ForeignKeys, func(f ForeignKey) bool { return strings.EqualFold(f.Name, name) })
		if i < 0 {
			return fmt.Errorf("%w: %q", ErrNoForeignKey, name)
		}
		t.ForeignKeys = slices.Delete(slices.Clone(t.ForeignKeys), i, i+1)
		return nil
	})
}

// Reference is a FOREIGN KEY constraint that references some table: the
// declaring table (its current record) and the definition.
type Reference struct {
	Child *Table
	FK    ForeignKey
}

// ReferencingForeignKeys returns every constraint, in any database, whose
// parent is db.table, ordered by child database, child table, constraint
// name. One snapshot read: no store request unless the cache is stale.
func (c *Catalog) ReferencingForeignKeys(ctx context.Context, db, table string) ([]Reference, error) {
	s, err := c.current(ctx)
	if err != nil {
		return nil, err
	}
	var out []Reference
	for _, ts := range s.tables {
		for _, t := range ts {
			for _, fk := range t.ForeignKeys {
				if fk.References(db, table) {
					out = append(out, Reference{Child: t, FK: fk})
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b Reference) int {
		if c := strings.Compare(strings.ToLower(a.Child.Database), strings.ToLower(b.Child.Database)); c != 0 {
			return c
		}
		if c := strings.Compare(strings.ToLower(a.Child.Name), strings.ToLower(b.Child.Name)); c != 0 {
			return c
		}
		return strings.Compare(strings.ToLower(a.FK.Name), strings.ToLower(b.FK.Name))
	})
	return out, nil
}
