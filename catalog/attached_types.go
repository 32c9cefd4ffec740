package catalog

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode/utf16"

	"github.com/sqlgw/sqlgw/storage"
)

// Entity types in one attached table
//
// The design guide's heterogeneous entity types pattern keeps several
// kinds of entity in one table, told apart by a discriminator: a property
// (EntityType = 'Customer') or a RowKey prefix ('ORDER_...'). An attached
// table can be split into one SQL table per type (AttachEntityTypes, the
// gateway's REFRESH TABLE ... TYPES BY), each with the columns of its own
// entities. Such a record's Physical is the store table's name, '#', and
// the type's URL-encoded spec:
//
//	Orders#p=EntityType&t=Edm.String&v=Customer     a property's value
//	Orders#rk=ORDER_                                 a RowKey prefix
//
// ('#' never occurs in table names, so the two forms cannot collide). The
// gateway's store wrapper (sqlgw/engine/attached_types.go) turns every request on
// such a name into a request on the store table restricted to the type:
// queries get the discriminator as a filter (or the prefix as a RowKey
// range) and entities of other types are dropped; a Get of another type's
// entity is not found. Rows written through a typed table carry the
// discriminator (the property is set; a RowKey must start with the
// prefix). The discriminator property is no column of the typed table.

// EntityType is the type an attached table record is restricted to.
type EntityType struct {
	// Prop and Value: entities whose property Prop equals Value.
	Prop  string
	Value storage.Value
	// RowKeyPrefix: entities whose RowKey starts with it.
	RowKeyPrefix string
}

// typeSep separates the store table's name from the type spec.
const typeSep = "#"

// TypedPhysical returns the Physical of store table base restricted to et.
func TypedPhysical(base string, et EntityType) string {
	q := url.Values{}
	if et.Prop != "" {
		q.Set("p", et.Prop)
		q.Set("t", et.Value.Type().String())
		q.Set("v", edmText(et.Value))
	} else {
		q.Set("rk", et.RowKeyPrefix)
	}
	return base + typeSep + q.Encode()
}

// ParseTypedPhysical splits a typed Physical into the store table and the
// type; ok is false for a plain table name.
func ParseTypedPhysical(phys string) (base string, et *EntityType, ok bool) {
	base, spec, found := strings.Cut(phys, typeSep)
	if !found {
		return phys, nil, false
	}
	q, err := url.ParseQuery(spec)
	if err != nil {
		return base, &EntityType{RowKeyPrefix: "\x00invalid"}, true // matches nothing
	}
	if p := q.Get("p"); p != "" {
		t, _ := edmTypeByName(q.Get("t"))
		v, vok := parseEdmText(q.Get("v"), t)
		if !vok {
			return base, &EntityType{RowKeyPrefix: "\x00invalid"}, true
		}
		return base, &EntityType{Prop: p, Value: v}, true
	}
	return base, &EntityType{RowKeyPrefix: q.Get("rk")}, true
}

// Match reports whether e is of the type.
func (et *EntityType) Match(e *storage.Entity) bool {
	if et.Prop != "" {
		v, ok := e.Properties[et.Prop]
		return ok && v.Equal(et.Value)
	}
	return strings.HasPrefix(e.RowKey, et.RowKeyPrefix)
}

// Filter returns the store filter selecting the type, or nil (a RowKey
// prefix is a range: RowRange).
func (et *EntityType) Filter() storage.Expr {
	if et.Prop == "" {
		return nil
	}
	return storage.Eq(et.Prop, et.Value)
}

// RowRange returns the RowKey range of a RowKey-prefix type, or nil.
func (et *EntityType) RowRange() *storage.KeyRange {
	if et.Prop != "" || et.RowKeyPrefix == "" {
		return nil
	}
	r := &storage.KeyRange{Low: &storage.Bound{Key: et.RowKeyPrefix}}
	if end, ok := utf16PrefixEnd(et.RowKeyPrefix); ok {
		r.High = &storage.Bound{Key: end, Exclusive: true}
	}
	return r
}

// utf16PrefixEnd returns the smallest string above every string starting
// with p, in the store's UTF-16 order: p with its last UTF-16 unit
// incremented (units 0xFFFF carried away).
func utf16PrefixEnd(p string) (string, bool) {
	u := utf16.Encode([]rune(p))
	for len(u) > 0 {
		last := u[len(u)-1]
		if last < 0xD7FF || last >= 0xE000 && last < 0xFFFF {
			u[len(u)-1] = last + 1
			return string(utf16.Decode(u)), true
		}
		u = u[:len(u)-1]
	}
	return "", false
}

// Name describes the type ("EntityType = 'Customer'", "RowKey prefix 'ORDER_'").
func (et *EntityType) Name() string {
	if et.Prop != "" {
		return fmt.Sprintf("%s = '%s'", et.Prop, edmText(et.Value))
	}
	return fmt.Sprintf("RowKey prefix '%s'", et.RowKeyPrefix)
}

// entityType returns the type t is restricted to, or nil.
func (t *Table) entityType() *EntityType {
	if !t.IsAttached() {
		return nil
	}
	_, et, _ := ParseTypedPhysical(t.Physical)
	return et
}

// TypesBy says how AttachEntityTypes tells entity types apart: by the
// value of property Prop, or by the RowKey up to and including the first
// RowKeySep.
type TypesBy struct {
	Prop      string
	RowKeySep string
}

// typeOf returns the type of e under by, or false when e has none (no
// such property, or no separator in its RowKey).
func (by TypesBy) typeOf(e *storage.Entity) (EntityType, bool) {
	if by.Prop != "" {
		v, ok := e.Properties[by.Prop]
		return EntityType{Prop: by.Prop, Value: v}, ok
	}
	i := strings.Index(e.RowKey, by.RowKeySep)
	if by.RowKeySep == "" || i < 0 {
		return EntityType{}, false
	}
	return EntityType{RowKeyPrefix: e.RowKey[:i+len(by.RowKeySep)]}, true
}

// typeTableName derives a SQL table name from the base table's and the
// type's: letters, digits and _ kept, others become _.
func typeTableName(base string, et EntityType) string {
	raw := et.RowKeyPrefix
	if et.Prop != "" {
		raw = edmText(et.Value)
	}
	var b strings.Builder
	for _, r := range raw {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	s := strings.Trim(b.String(), "_")
	if s == "" {
		s = "type"
	}
	name := base + "_" + s
	if len(name) > 64 {
		name = name[:64]
	}
	return name
}

// TypeResult is one table of AttachEntityTypes.
type TypeResult struct {
	Table   string
	Type    string // EntityType.Name
	Columns int
	New     bool
}

// AttachEntityTypes splits attached table db.name into one attached table
// per entity type found in its first scan entities (the table's Scan when
// scan <= 0), named name_<type>: each gets the columns of its own
// entities, without the discriminator. Tables of types attached before are
// refreshed (their column names kept). The base table stays as it is.
func (c *Catalog) AttachEntityTypes(ctx context.Context, db, name string, by TypesBy, scan int) ([]TypeResult, error) {
	base, err := c.Table(ctx, db, name)
	if err != nil {
		return nil, err
	}
	if !base.IsAttached() || base.entityType() != nil {
		return nil, fmt.Errorf("%w: %s.%s is not an attached store table", ErrInvalidDef, db, name)
	}
	if scan <= 0 {
		scan = base.Attached.Scan
	}
	// One scan finds the types; each type's columns come from its own
	// entities (a query per type, up to scan entities each).
	var types []EntityType
	seen := map[string]bool{}
	q := &storage.Query{}
	for read := 0; read < scan; {
		q.Top = min(scan-read, storage.MaxPageSize)
		page, err := c.store.Query(ctx, base.Physical, q)
		if err != nil {
			return nil, fmt.Errorf("scanning %s: %w", base.Physical, err)
		}
		for _, e := range page.Entities {
			et, ok := by.typeOf(e)
			if !ok {
				continue
			}
			if k := TypedPhysical(base.Physical, et); !seen[k] {
				seen[k] = true
				types = append(types, et)
			}
		}
		read += len(page.Entities)
		if page.Continuation == "" {
			break
		}
		q.Continuation = page.Continuation
	}
	var out []TypeResult
	for _, et := range types {
		phys := TypedPhysical(base.Physical, et)
		var existing *Table
		if ts, err := c.Tables(ctx, db); err == nil {
			for _, t := range ts {
				if t.IsAttached() && t.Physical == phys {
					existing = t
				}
			}
		}
		if existing != nil {
			t, err := c.RefreshAttached(ctx, db, existing.Name, scan)
			if err != nil {
				return out, err
			}
			out = append(out, TypeResult{Table: t.Name, Type: et.Name(), Columns: len(t.Columns)})
			continue
		}
		tname := typeTableName(base.Name, et)
		for n := 2; ; n++ {
			if _, err := c.Table(ctx, db, tname); err != nil {
				break
			}
			tname = fmt.Sprintf("%s_%d", typeTableName(base.Name, et), n)
		}
		t, err := c.AttachTable(ctx, db, tname, phys, scan)
		if err != nil {
			return out, err
		}
		out = append(out, TypeResult{Table: t.Name, Type: et.Name(), Columns: len(t.Columns), New: true})
	}
	slices.SortFunc(out, func(a, b TypeResult) int { return strings.Compare(a.Table, b.Table) })
	return out, nil
}
