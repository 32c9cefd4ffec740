package catalog

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Check is one CHECK constraint of a table. The catalog stores the
// definition only: the expression is SQL text rendered by the engine
// (go-mysql-server parses and evaluates it on every INSERT and UPDATE);
// the catalog neither parses nor evaluates it.
type Check struct {
	Name string `json:"name"`
	Expr string `json:"expr"`
	// NotEnforced is set for NOT ENFORCED constraints (kept, shown, not
	// evaluated). Stored negated so that the common case is omitted.
	NotEnforced bool `json:"noenf,omitempty"`
}

// ErrCheckExists is returned when a CHECK constraint name is already used
// in the database: MySQL 8 keeps constraint names unique per schema.
var ErrCheckExists = errors.New("catalog: duplicate check constraint name")

// ErrNoCheck is returned by DropCheck for a name the table does not have.
var ErrNoCheck = errors.New("catalog: no such check constraint")

// Check returns the named CHECK constraint (case-insensitive), or nil.
func (t *Table) Check(name string) *Check {
	for i := range t.Checks {
		if strings.EqualFold(t.Checks[i].Name, name) {
			return &t.Checks[i]
		}
	}
	return nil
}

// AddCheck adds a CHECK constraint to a table. The name must be unused by
// any table of the database; an empty name is generated as MySQL does:
// <table>_chk_<n>, with the smallest n free in the database. Errors:
// ErrNoTable, ErrCheckExists, ErrInvalidDef.
func (c *Catalog) AddCheck(ctx context.Context, db, table string, ch Check) (*Table, error) {
	if ch.Expr == "" {
		return nil, fmt.Errorf("%w: a check constraint needs an expression", ErrInvalidDef)
	}
	return c.alterTable(ctx, db, table, func(s *snapshot, t *Table, tx *txn) error {
		used := func(name string) string {
			if t.Check(name) != nil {
				return t.Name
			}
			for _, other := range s.tables[strings.ToLower(db)] {
				if other.ID != t.ID && other.Check(name) != nil {
					return other.Name
				}
			}
			return ""
		}
		if ch.Name == "" {
			for n := 1; ; n++ {
				if name := fmt.Sprintf("%s_chk_%d", t.Name, n); used(name) == "" {
					ch.Name = name
					break
				}
			}
		}
		if in := used(ch.Name); in != "" {
			return fmt.Errorf("%w: %q (table %s)", ErrCheckExists, ch.Name, in)
		}
		// A fresh slice: the old snapshot shares the backing array.
		t.Checks = append(slices.Clone(t.Checks), ch)
		return nil
	})
}

// DropCheck removes a table's CHECK constraint. Errors: ErrNoTable,
// ErrNoCheck.
func (c *Catalog) DropCheck(ctx context.Context, db, table, name string) (*Table, error) {
	return c.alterTable(ctx, db, table, func(s *snapshot, t *Table, tx *txn) error {
		i := slices.IndexFunc(t.Checks, func(ch Check) bool { return strings.EqualFold(ch.Name, name) })
		if i < 0 {
			return fmt.Errorf("%w: %q", ErrNoCheck, name)
		}
		t.Checks = slices.Delete(slices.Clone(t.Checks), i, i+1)
		return nil
	})
}
