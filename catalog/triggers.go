package catalog

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Trigger is one trigger of a table. The catalog stores the definition
// only (the CREATE TRIGGER statement, as the engine received it, and the
// SQL mode it was written under); the engine parses and runs it.
type Trigger struct {
	Name   string `json:"name"`
	Create string `json:"create"`
	// CreatedAt is the creation time in Unix nanoseconds: the engine orders
	// a table's triggers of one timing and event by it.
	CreatedAt int64  `json:"at"`
	SQLMode   string `json:"mode,omitempty"`
}

// ErrTriggerExists is returned when a trigger name is already used in the
// database (MySQL keeps trigger names unique per schema).
var ErrTriggerExists = errors.New("catalog: duplicate trigger name")

// ErrNoTrigger is returned by DropTrigger for an unknown name.
var ErrNoTrigger = errors.New("catalog: no such trigger")

// Trigger returns the named trigger (case-insensitive), or nil.
func (t *Table) Trigger(name string) *Trigger {
	for i := range t.Triggers {
		if strings.EqualFold(t.Triggers[i].Name, name) {
			return &t.Triggers[i]
		}
	}
	return nil
}

// AddTrigger adds a trigger to a table. Errors: ErrNoTable,
// ErrTriggerExists, ErrInvalidDef.
func (c *Catalog) AddTrigger(ctx context.Context, db, table string, tr Trigger) (*Table, error) {
	if tr.Name == "" || tr.Create == "" {
		return nil, fmt.Errorf("%w: a trigger needs a name and a statement", ErrInvalidDef)
	}
	return c.alterTable(ctx, db, table, func(s *snapshot, t *Table, tx *txn) error {
		if t.Trigger(tr.Name) != nil {
			return fmt.Errorf("%w: %q", ErrTriggerExists, tr.Name)
		}
		for _, other := range s.tables[strings.ToLower(db)] {
			if other.Trigger(tr.Name) != nil {
				return fmt.Errorf("%w: %q (table %s)", ErrTriggerExists, tr.Name, other.Name)
			}
		}
		t.Triggers = append(slices.Clone(t.Triggers), tr)
		return nil
	})
}

// DropTrigger removes the named trigger from whichever table of the
// database has it. Errors: ErrNoDatabase, ErrNoTrigger.
func (c *Catalog) DropTrigger(ctx context.Context, db, name string) (*Table, error) {
	tables, err := c.Tables(ctx, db)
	if err != nil {
		return nil, err
	}
	for _, t := range tables {
		if t.Trigger(name) == nil {
			continue
		}
		out, err := c.alterTable(ctx, db, t.Name, func(s *snapshot, t *Table, tx *txn) error {
			i := slices.IndexFunc(t.Triggers, func(tr Trigger) bool { return strings.EqualFold(tr.Name, name) })
			if i < 0 {
				return fmt.Errorf("%w: %q", ErrNoTrigger, name) // dropped meanwhile
			}
			t.Triggers = slices.Delete(slices.Clone(t.Triggers), i, i+1)
			return nil
		})
		return out, err
	}
	return nil, fmt.Errorf("%w: %q", ErrNoTrigger, name)
}
