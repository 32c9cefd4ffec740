package catalog

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/sqlgw/sqlgw/catalog/keys"
	"github.com/sqlgw/sqlgw/storage"
)

// Table groups
//
// Several of sqlgw's own tables may share one physical table and one
// partition key (the design guide's "store multiple entity types in the
// same table" for entity group transactions): orders and their lines by
// customer, say, so that a transaction writing an order and its lines in
// one partition is one entity group transaction (one batch request), and
// one partition query returns both for a join. A table joins a group with
// the table option group (ParseTableOptions):
//
//	CREATE TABLE orders (cust INT, id INT, total DECIMAL(10,2), PRIMARY KEY (cust, id))
//	  COMMENT 'sqlgw: group=sales';
//	CREATE TABLE order_lines (cust INT, id INT, line INT, sku VARCHAR(20), PRIMARY KEY (cust, id, line))
//	  COMMENT 'sqlgw: group=sales';
//
// Groups are named per database. Every table of a group has a primary key
// whose partition-key columns match the group's in number, order, type
// (kind, signedness, length, scale, precision, collation) and direction,
// and the same salt_buckets (salt.go), so that equal values are equal
// PartitionKeys in every member; the other
// key columns, the columns and the indexes are each table's own.
//
// Key format (part of the persisted format, like package keys). A member's
// entities live in the group's physical table (Prefix + "t" + 12
// characters, created by the first member) under the usual PartitionKey;
// their RowKey is the member prefix, then the RowKey the table would have
// alone (rows, continuation entities and local index entities alike):
//
//	member prefix  keys.EncodeUintAscending(nil, member id): "a5" for 5,
//	               "b42" for 42 (prefix-free, so no separator is needed)
//	member id      the table's ID when created; a fresh ID from the same
//	               counter after each TRUNCATE (a new generation)
//
// For orders (ID 5) and order_lines (ID 6) above, customer 7's order 1
// and its line 2 are (golden bytes, group_test.go):
//
//	PartitionKey "a7"   RowKey "a5" + "a1"        = "a5a1"
//	PartitionKey "a7"   RowKey "a6" + "a1" + "a2" = "a6a1a2"
//
// so one partition holds each table's rows in a contiguous RowKey range,
// tables in member-id order. A member's record has Group set and Physical
// = the group's physical table + GroupSep + member prefix ("sqlgwt3k9...~a5");
// the gateway's store wrapper (sqlgw/engine/tablegroup.go) turns requests on such
// a name into requests on the group's table with the prefix added to every
// RowKey and queries kept within [prefix, PrefixEnd(prefix)), so that
// everything above (row encoding, local indexes, the planner) works on
// the table as if it were alone. Global indexes keep their own physical
// tables.
//
// DDL touches only the member: DROP TABLE deletes its entities (the
// group's table itself once no member is left), TRUNCATE gives it a fresh
// member id and deletes the old entities after the change commits, ALTER
// changes its own record; changing the primary key of a member is refused.
// DROP DATABASE deletes the groups' tables.

// GroupSep separates a group member's physical table from its member
// prefix in Table.Physical.
const GroupSep = "~"

// GroupPhysical returns the Physical of the member with member id id of
// the group stored in physical table base.
func GroupPhysical(base string, id uint64) string {
	return base + GroupSep + string(keys.EncodeUintAscending(nil, id))
}

// ParseGroupPhysical splits a group member's Physical into the group's
// physical table and the member prefix; ok is false for any other name.
func ParseGroupPhysical(phys string) (base, prefix string, ok bool) {
	base, prefix, ok = strings.Cut(phys, GroupSep)
	if !ok || prefix == "" {
		return phys, "", false
	}
	if rest, _, err := keys.DecodeUintAscending([]byte(prefix)); err != nil || len(rest) > 0 {
		return phys, "", false
	}
	return base, prefix, true
}

// sameKeyType reports whether a and b encode equal values to equal key
// components.
func sameKeyType(a, b Type) bool {
	return a.Kind == b.Kind && a.Unsigned == b.Unsigned && a.Length == b.Length &&
		a.Scale == b.Scale && a.FSP == b.FSP && strings.EqualFold(a.collation(), b.collation())
}

// checkGroupKey checks that t's partition key matches member m's.
func checkGroupKey(t, m *Table) error {
	bad := func(why string) error {
		return fmt.Errorf("%w: table %q cannot join table group %q: %s", ErrInvalidDef, t.Name, m.Group, why)
	}
	if t.Keyless() {
		return bad("a table of a group needs a primary key")
	}
	if t.Salted() != m.Salted() {
		// The stored PartitionKey carries the bucket (salt.go): equal
		// values are one partition only under equal salting.
		return bad(fmt.Sprintf("it has salt_buckets=%d, the group's (table %s) %d", t.Salted(), m.Name, m.Salted()))
	}
	if len(t.partCols) != len(m.partCols) {
		return bad(fmt.Sprintf("its partition key has %d columns, the group's (table %s) %d", len(t.partCols), m.Name, len(m.partCols)))
	}
	for i := range t.partCols {
		a, b := t.partCols[i].Column(), m.partCols[i].Column()
		if !sameKeyType(a.Type, b.Type) || t.partCols[i].Desc != m.partCols[i].Desc {
			return bad(fmt.Sprintf("partition key column %s %s differs from %s.%s %s", a.Name, a.Type, m.Name, b.Name, b.Type))
		}
	}
	return nil
}

// groupMember returns a table of database lower in group (case-insensitive), or nil.
func (s *snapshot) groupMember(lower, group string) *Table {
	for _, t := range s.tables[lower] {
		if t.Group != "" && strings.EqualFold(t.Group, group) {
			return t
		}
	}
	return nil
}

// groupInUse reports whether a table of the snapshot lives in base.
func (s *snapshot) groupInUse(base string) bool {
	for _, ts := range s.tables {
		for _, t := range ts {
			if b, _, ok := ParseGroupPhysical(t.Physical); ok && strings.EqualFold(b, base) {
				return true
			}
		}
	}
	return false
}

// errNoGroupTable makes CreateTable create the group's table and retry.
var errNoGroupTable = errors.New("catalog: the table group has no physical table")

// createGroupMember is CreateTable for a table joining group def.Group.
func (c *Catalog) createGroupMember(ctx context.Context, db string, def *TableDef, proto *Table) (*Table, error) {
	if proto.Keyless() {
		return nil, fmt.Errorf("%w: table %q: a table of group %q needs a primary key", ErrInvalidDef, def.Name, def.Group)
	}
	var created []string
	defer func() { c.dropPhysical(created...)(ctx) }() // whatever was not used
	for i := range proto.Indexes {
		if proto.Indexes[i].Global {
			n, err := c.createPhysical(ctx, 'x')
			if err != nil {
				return nil, err
			}
			proto.Indexes[i].Physical = n
			created = append(created, n)
		}
	}
	ownBase := ""
	for range 3 {
		var out *Table
		_, err := c.mutate(ctx, func(s *snapshot, tx *txn) error {
			lower := strings.ToLower(db)
			if _, ok := s.dbs[lower]; !ok {
				return fmt.Errorf("%w: %q", ErrNoDatabase, db)
			}
			if _, ok := s.tables[lower][strings.ToLower(def.Name)]; ok {
				return fmt.Errorf("%w: %s.%s", ErrTableExists, db, def.Name)
			}
			base := ownBase
			if m := s.groupMember(lower, def.Group); m != nil {
				if err := checkGroupKey(proto, m); err != nil {
					return err
				}
				base, _, _ = ParseGroupPhysical(m.Physical)
			} else if base == "" {
				return errNoGroupTable
			}
			out = s.addTable(lower, proto)
			out.Group = def.Group
			out.Physical = GroupPhysical(base, out.ID)
			return tx.putTable(out)
		})
		if errors.Is(err, errNoGroupTable) && ownBase == "" {
			if ownBase, err = c.createPhysical(ctx, 't'); err != nil {
				return nil, err
			}
			created = append(created, ownBase)
			continue
		}
		if err != nil {
			return nil, err
		}
		keep := map[string]bool{}
		if b, _, _ := ParseGroupPhysical(out.Physical); b != "" {
			keep[b] = true
		}
		for _, ix := range out.Indexes {
			keep[ix.Physical] = true
		}
		var rest []string
		for _, n := range created {
			if !keep[n] {
				rest = append(rest, n)
			}
		}
		created = rest
		return out, nil
	}
	return nil, fmt.Errorf("%w: table group %q changed concurrently", ErrConflict, def.Group)
}

// groupDropNames returns what to delete after dropping group member t from
// snapshot s (already without t): its entities, or the group's whole
// physical table when no member is left.
func groupDropNames(s *snapshot, t *Table) []string {
	base, _, _ := ParseGroupPhysical(t.Physical)
	var names []string
	if s.groupInUse(base) {
		names = append(names, t.Physical) // its entities (dropPhysical)
	} else {
		names = append(names, base)
	}
	for _, ix := range t.Indexes {
		if ix.Physical != "" {
			names = append(names, ix.Physical)
		}
	}
	return names
}

// DeleteGroupMember deletes every entity of group member phys (a Physical
// with a member prefix) from the group's table: all partitions, the RowKey
// range of the prefix, one batch per partition and 100 entities.
func DeleteGroupMember(ctx context.Context, st storage.Store, phys string) error {
	base, prefix, ok := ParseGroupPhysical(phys)
	if !ok {
		return fmt.Errorf("%w: %q is no group member", ErrInvalidDef, phys)
	}
	q := &storage.Query{Row: PrefixRange(prefix), Select: []string{}}
	for {
		page, err := st.Query(ctx, base, q)
		if err != nil {
			return err
		}
		var ops []storage.Operation
		flush := func() error {
			if len(ops) == 0 {
				return nil
			}
			_, err := st.Batch(ctx, base, ops)
			ops = ops[:0]
			if err != nil && !errors.Is(err, storage.ErrNotFound) {
				return err
			}
			return nil
		}
		for _, e := range page.Entities {
			if len(ops) > 0 && (ops[0].Entity.PartitionKey != e.PartitionKey || len(ops) == storage.MaxBatchOps) {
				if err := flush(); err != nil {
					return err
				}
			}
			ops = append(ops, storage.Operation{Kind: storage.OpDelete, Entity: &storage.Entity{PartitionKey: e.PartitionKey, RowKey: e.RowKey}})
		}
		if err := flush(); err != nil {
			return err
		}
		if page.Continuation == "" {
			return nil
		}
		q.Continuation = page.Continuation
	}
}
