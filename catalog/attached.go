package catalog

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/sqlgw/sqlgw/storage"
)

// Attached tables
//
// An attached table is a store table sqlgw did not create: written by
// other applications through the Azure SDKs, with hand-made PartitionKeys
// and RowKeys and plain typed properties. Its catalog record (Table with
// Attached set) maps it to SQL without changing its shape:
//
//	column         role              SQL type                       stored as
//	PartitionKey   RolePartitionKey  VARCHAR(1024) utf8mb4_0900_bin the entity's PartitionKey, raw
//	RowKey         RoleRowKey        VARCHAR(1024) utf8mb4_0900_bin the entity's RowKey, raw
//	Timestamp      RoleTimestamp     DATETIME(6), read-only         the service's Timestamp
//	one per property RoleProperty    by its EDM type (below)        the property, same name and type
//	_extra         RoleExtras        JSON                           every other property
//
// EDM type -> SQL type: Int32 INT, Int64 BIGINT, Double DOUBLE, Boolean
// TINYINT (0/1), DateTime DATETIME(6), Guid CHAR(36) (lowercase canonical
// text), Binary MEDIUMBLOB, String MEDIUMTEXT utf8mb4_0900_bin. When the
// scanned entities disagree on a property's type it is widened: Int32 and
// Int64 to Int64; Int32 or Int64 with Double to Double; anything else to
// String (the value's text). Such a column is Mixed: no comparison on it
// is pushed to the store (the service compares only values of one type).
//
// Keys are the raw strings (no key encoding), one component each, so the
// planner's point gets, partition scans and ranges apply unchanged:
// PrefixEnd of a raw key is the key plus " ", the smallest legal key after
// it (the service forbids U+0000-U+001F in keys). SQL orders the key
// columns by code point and the store by UTF-16 unit; the two differ only
// between characters above U+FFFF and U+E000-U+FFFF.
//
// The extras column holds the properties outside the columns as a JSON
// object in the Table service's own JSON format (odata=minimalmetadata):
// String as a JSON string, Int32 as a number, Boolean as true/false, and
// the other types as a value plus a "<name>@odata.type" annotation (Int64
// as a decimal string, Double as a number or "NaN"/"Infinity"/"-Infinity",
// DateTime as RFC 3339 text with 7 fraction digits, Guid as text, Binary
// as base64). A property whose value does not fit its column's type (an
// entity beyond the scanned ones) is kept there too, and the column is
// NULL; a value that fits a wider column carries its own type as an
// annotation alone ("Count@odata.type": "Edm.Int32" in a BIGINT column),
// so writing the row back keeps the entity's EDM type. On writes, keys
// without annotation are typed as the service types JSON: string String,
// true/false Boolean, an integral number Int32 (Int64 when it does not
// fit), any other number Double; null, or a key removed, deletes the
// property. Nested objects and arrays are rejected.
//
// Writes send one plain entity per row (no continuation entities, no
// internal properties), conditional on the ETag read as for every table;
// a row over an entity's limits is an error, never split. DROP TABLE of an
// attached table forgets the mapping and leaves the store table alone;
// TRUNCATE is refused. The record keeps each column's property name, so
// renaming a column (ALTER TABLE ... RENAME COLUMN) never renames the
// property; RefreshAttached re-infers the columns by scanning again,
// keeping the names given to known properties. MODIFY pins a column's EDM
// type; a String or Binary property may be pinned to VARCHAR(n) or
// VARBINARY(n) (pinnedColumnType), which secondary indexes can key
// (attached_index.go): longer values then show in the JSON column, and no
// comparison on the column is pushed to the store (it would see them).

// Role is what an attached table's column maps to.
type Role uint8

// Column roles. Part of the persisted format.
const (
	// RoleProperty: the column is the entity property Column.Property, of
	// EDM type Column.Edm. The zero Role (ordinary tables' columns).
	RoleProperty Role = iota
	// RolePartitionKey: the entity's PartitionKey.
	RolePartitionKey
	// RoleRowKey: the entity's RowKey.
	RoleRowKey
	// RoleTimestamp: the entity's Timestamp (read-only).
	RoleTimestamp
	// RoleExtras: a JSON object of every property outside the columns.
	RoleExtras
)

// Attached marks a table record as an attached store table (see
// "Attached tables"). Physical is then the store table's own name.
type Attached struct {
	// Scan is the number of entities the last inference read (at most).
	Scan int `json:"scan"`
}

// IsAttached reports whether t maps a store table sqlgw did not create.
func (t *Table) IsAttached() bool { return t.Attached != nil }

// DefaultAttachScan is how many entities an inference reads by default.
const DefaultAttachScan = 1000

// ExtrasColumnName is the name of an attached table's JSON column of the
// properties outside its columns ("_extra", or "_extra_2", ... when a
// property takes that name).
const ExtrasColumnName = "_extra"

// keyColumnType is the SQL type of an attached table's key columns.
var keyColumnType = Type{Kind: KindVarchar, Length: 1024, Collation: CollationUTF8MB4Bin}

// edmColumnType returns the SQL type of a property of EDM type e.
func edmColumnType(e storage.Type) Type {
	switch e {
	case storage.TypeInt32:
		return Type{Kind: KindInt32}
	case storage.TypeInt64:
		return Type{Kind: KindInt64}
	case storage.TypeDouble:
		return Type{Kind: KindDouble}
	case storage.TypeBoolean:
		return Type{Kind: KindInt8}
	case storage.TypeDateTime:
		return Type{Kind: KindDatetime, FSP: 6}
	case storage.TypeGUID:
		return Type{Kind: KindChar, Length: 36, Collation: CollationUTF8MB4Bin}
	case storage.TypeBinary:
		return Type{Kind: KindMediumBlob, Collation: CollationBinary}
	}
	return Type{Kind: KindMediumText, Collation: CollationUTF8MB4Bin}
}

// EdmForType returns the EDM type a new column of SQL type t stores its
// values as in an attached table (ALTER TABLE ... ADD COLUMN), or an
// error for a type with no faithful EDM counterpart.
func EdmForType(t Type) (storage.Type, error) {
	switch t.Kind {
	case KindInt8:
		if !t.Unsigned {
			return storage.TypeBoolean, nil
		}
	case KindInt16, KindInt24:
		return storage.TypeInt32, nil
	case KindInt32:
		if !t.Unsigned {
			return storage.TypeInt32, nil
		}
		return storage.TypeInt64, nil
	case KindInt64:
		if !t.Unsigned {
			return storage.TypeInt64, nil
		}
	case KindFloat, KindDouble:
		return storage.TypeDouble, nil
	case KindDatetime, KindTimestamp:
		return storage.TypeDateTime, nil
	case KindChar, KindVarchar, KindTinyText, KindText, KindMediumText, KindLongText:
		return storage.TypeString, nil
	case KindBinary, KindVarbinary, KindTinyBlob, KindBlob, KindMediumBlob, KindLongBlob:
		return storage.TypeBinary, nil
	}
	return 0, fmt.Errorf("%w: %s has no Table service property type (use INT, BIGINT, DOUBLE, TINYINT for Boolean, DATETIME, VARCHAR/TEXT or VARBINARY/BLOB)", ErrUnsupported, t)
}

// widen returns the type of a column whose values were seen as a and b.
func widen(a, b storage.Type) storage.Type {
	switch {
	case a == 0:
		return b
	case a == b:
		return a
	}
	isInt := func(t storage.Type) bool { return t == storage.TypeInt32 || t == storage.TypeInt64 }
	switch {
	case isInt(a) && isInt(b):
		return storage.TypeInt64
	case isInt(a) && b == storage.TypeDouble, a == storage.TypeDouble && isInt(b):
		return storage.TypeDouble
	}
	return storage.TypeString
}

// inferred is what a scan of an attached table found about one property.
type inferred struct {
	name  string
	typ   storage.Type
	mixed bool
}

// inferProperties reads up to scan entities of table phys (in key order)
// and returns the properties they carry with their widened types, in
// order of first appearance.
func inferProperties(ctx context.Context, store storage.Store, phys string, scan int) ([]inferred, error) {
	if scan <= 0 {
		scan = DefaultAttachScan
	}
	var out []inferred
	byName := map[string]int{}
	q := &storage.Query{}
	base, et, typed := ParseTypedPhysical(phys)
	if typed {
		q.Filter, q.Row = et.Filter(), et.RowRange()
	}
	read := 0
	for read < scan {
		q.Top = min(scan-read, storage.MaxPageSize)
		page, err := store.Query(ctx, base, q)
		if err != nil {
			return nil, fmt.Errorf("scanning %s: %w", base, err)
		}
		for _, e := range page.Entities {
			if typed && !et.Match(e) {
				continue
			}
			names := make([]string, 0, len(e.Properties))
			for n := range e.Properties {
				if typed && n == et.Prop {
					continue // the discriminator: no column
				}
				names = append(names, n)
			}
			slices.Sort(names)
			for _, n := range names {
				v := e.Properties[n]
				i, ok := byName[n]
				if !ok {
					byName[n] = len(out)
					out = append(out, inferred{name: n, typ: v.Type()})
					continue
				}
				if w := widen(out[i].typ, v.Type()); w != out[i].typ || v.Type() != out[i].typ {
					out[i].typ, out[i].mixed = w, true
				}
			}
		}
		read += len(page.Entities)
		if page.Continuation == "" {
			break
		}
		q.Continuation = page.Continuation
	}
	return out, nil
}

// attachedColumns builds an attached table's columns from the inferred
// properties, keeping the column names and pinned types of old (a previous
// record of the table, or nil) for the properties it knew.
func attachedColumns(props []inferred, old *Table) []Column {
	oldByProp := map[string]*Column{}
	oldCols := map[string]*Column{} // oldByProp before the loop below takes its entries
	var extrasName string
	if old != nil {
		for i := range old.Columns {
			c := &old.Columns[i]
			switch c.Role {
			case RoleProperty:
				oldByProp[c.Property], oldCols[c.Property] = c, c
			case RoleExtras:
				extrasName = c.Name
			}
		}
	}
	cols := []Column{
		{Name: storage.PropPartitionKey, Type: keyColumnType, Role: RolePartitionKey},
		{Name: storage.PropRowKey, Type: keyColumnType, Role: RoleRowKey},
		{Name: storage.PropTimestamp, Type: Type{Kind: KindDatetime, FSP: 6}, Nullable: true, Role: RoleTimestamp},
	}
	if old != nil {
		// Keep the key and Timestamp columns' names (renames).
		for i := range old.Columns {
			switch r := old.Columns[i].Role; r {
			case RolePartitionKey, RoleRowKey, RoleTimestamp:
				cols[r-1].Name = old.Columns[i].Name
				cols[r-1].Comment = old.Columns[i].Comment
			}
		}
	}
	used := map[string]bool{}
	for _, c := range cols {
		used[strings.ToLower(c.Name)] = true
	}
	for _, p := range props {
		if reservedFold(p.name) {
			continue
		}
		c := Column{Name: p.name, Nullable: true, Property: p.name, Edm: p.typ, Mixed: p.mixed}
		if o, ok := oldByProp[p.name]; ok {
			c.Name, c.Comment = o.Name, o.Comment
			if o.Pinned {
				c.Edm, c.Mixed, c.Pinned = o.Edm, o.Mixed || o.Edm != p.typ, true
			} else if o.Edm != 0 && o.Edm != p.typ {
				// Never narrow a column on refresh: entities beyond the
				// scan may still hold the old type.
				c.Edm, c.Mixed = widen(o.Edm, p.typ), true
			}
			delete(oldByProp, p.name)
		}
		if used[strings.ToLower(c.Name)] {
			continue // a second property differing only in case: kept in the JSON column
		}
		c.Type = edmColumnType(c.Edm)
		if o, ok := oldCols[p.name]; ok && o.Pinned {
			c.Type = pinnedColumnType(c.Edm, o.Type)
		}
		used[strings.ToLower(c.Name)] = true
		cols = append(cols, c)
	}
	// Columns of properties the new scan did not see are kept (pinned or
	// not): the entities that carry them are still there, beyond the scan.
	for i := range old.columnsOrNil() {
		o := old.Columns[i]
		if o.Role == RoleProperty {
			if _, ok := oldByProp[o.Property]; ok && !used[strings.ToLower(o.Name)] {
				used[strings.ToLower(o.Name)] = true
				cols = append(cols, o)
			}
		}
	}
	if extrasName == "" || used[strings.ToLower(extrasName)] {
		extrasName = ExtrasColumnName
		for n := 2; used[strings.ToLower(extrasName)]; n++ {
			extrasName = fmt.Sprintf("%s_%d", ExtrasColumnName, n)
		}
	}
	cols = append(cols, Column{Name: extrasName, Type: Type{Kind: KindJSON}, Nullable: true, Role: RoleExtras})
	return cols
}

func (t *Table) columnsOrNil() []Column {
	if t == nil {
		return nil
	}
	return t.Columns
}

// newAttachedTable builds the record of store table phys attached as name.
func newAttachedTable(name, phys string, scan int, props []inferred, old *Table, limits storage.Limits) (*Table, error) {
	t := &Table{
		Name:       name,
		Physical:   phys,
		Generation: 1,
		Attached:   &Attached{Scan: scan},
		Columns:    attachedColumns(props, old),
		KeyFormat:  KeyFormatCurrent,
	}
	t.PrimaryKey = []KeyPart{{Column: t.Columns[0].Name}, {Column: t.Columns[1].Name}}
	t.PartitionKey = []string{t.Columns[0].Name}
	if old != nil {
		t.ID, t.Database, t.Comment, t.Collation, t.NextIndexID = old.ID, old.Database, old.Comment, old.Collation, old.NextIndexID
		t.Indexes, t.KeyFormat = old.Indexes, old.KeyFormat // its index entries keep their format
		t.Checks, t.Triggers, t.ForeignKeys = old.Checks, old.Triggers, old.ForeignKeys
	}
	if err := t.derive(limits); err != nil {
		return nil, err
	}
	return t.clone(), nil
}

// IsOwnPhysical reports whether store table phys is one of this catalog's
// (its name starts with Options.Prefix, case-insensitively): never
// attached. Nor are the tables of other sqlgw deployments on the store
// (SyncAttached recognises them by their catalog table).
func (c *Catalog) IsOwnPhysical(phys string) bool {
	return len(phys) >= len(c.opts.Prefix) && strings.EqualFold(phys[:len(c.opts.Prefix)], c.opts.Prefix)
}

// AttachResult reports what SyncAttached or RefreshAttached did.
type AttachResult struct {
	// Attached lists the tables attached now (SQL names).
	Attached []string
	// Refreshed lists the tables whose columns were inferred again.
	Refreshed []string
}

// SyncAttached attaches every store table that is neither this catalog's
// own (IsOwnPhysical) nor attached yet as a table of database db (created
// when there is a table to attach), its columns inferred from its first scan entities.
// Tables already attached are left as they are (RefreshAttached re-infers
// them). only, when not empty, restricts it to the store tables named
// there (case-insensitive).
func (c *Catalog) SyncAttached(ctx context.Context, db string, scan int, only ...string) (*AttachResult, error) {
	names, err := c.store.ListTables(ctx)
	if err != nil {
		return nil, err
	}
	s, err := c.current(ctx)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, ts := range s.tables {
		for _, t := range ts {
			if t.IsAttached() {
				have[strings.ToLower(t.Physical)] = true
			}
		}
	}
	res := &AttachResult{}
	others, err := c.otherDeployments(ctx, names)
	if err != nil {
		return nil, err
	}
	var todo []string
	for _, n := range names {
		if slices.ContainsFunc(others, func(p string) bool { return len(n) >= len(p) && strings.EqualFold(n[:len(p)], p) }) {
			continue // another sqlgw deployment's table
		}
		if len(only) > 0 && !slices.ContainsFunc(only, func(o string) bool { return strings.EqualFold(o, n) }) {
			continue
		}
		if !c.IsOwnPhysical(n) && !have[strings.ToLower(n)] {
			todo = append(todo, n)
		}
	}
	if len(todo) == 0 {
		return res, nil
	}
	if err := c.ensureDatabase(ctx, db); err != nil {
		return nil, err
	}
	for _, n := range todo {
		if _, err := c.AttachTable(ctx, db, n, n, scan); err != nil {
			if isErr(err, ErrTableExists) {
				continue // attached meanwhile, or a table of that name exists
			}
			return res, err
		}
		res.Attached = append(res.Attached, n)
	}
	return res, nil
}

// otherDeployments returns the prefixes of the other sqlgw deployments
// sharing the store: every table named <prefix>catalog holding a catalog
// version entity. Their tables are never attached.
func (c *Catalog) otherDeployments(ctx context.Context, names []string) ([]string, error) {
	var out []string
	for _, n := range names {
		p, ok := strings.CutSuffix(strings.ToLower(n), "catalog")
		if !ok || p == "" || c.IsOwnPhysical(n) {
			continue
		}
		switch _, err := c.store.Get(ctx, n, catalogPartition, versionRowKey, &storage.GetOptions{Select: []string{}}); {
		case err == nil:
			out = append(out, n[:len(p)])
		case !isErr(err, storage.ErrNotFound) && !isErr(err, storage.ErrInvalidKey):
			return nil, err
		}
	}
	return out, nil
}

// ensureDatabase creates database db unless it exists.
func (c *Catalog) ensureDatabase(ctx context.Context, db string) error {
	if ok, err := c.DatabaseExists(ctx, db); err != nil || ok {
		return err
	}
	if err := c.CreateDatabase(ctx, db); err != nil && !isErr(err, ErrDatabaseExists) {
		return err
	}
	return nil
}

// AttachTable attaches store table phys as table name of database db
// (which must exist), inferring its columns from its first scan entities
// (DefaultAttachScan when scan <= 0). Errors: ErrTableExists, ErrNoDatabase,
// ErrInvalidDef for one of this catalog's own tables, storage.ErrNotFound
// when phys does not exist.
func (c *Catalog) AttachTable(ctx context.Context, db, name, phys string, scan int) (*Table, error) {
	if base, _, _ := ParseTypedPhysical(phys); c.IsOwnPhysical(base) {
		return nil, fmt.Errorf("%w: %s is one of sqlgw's own store tables", ErrInvalidDef, phys)
	}
	if scan <= 0 {
		scan = DefaultAttachScan
	}
	props, err := inferProperties(ctx, c.store, phys, scan)
	if err != nil {
		return nil, err
	}
	proto, err := newAttachedTable(name, phys, scan, props, nil, c.store.Capabilities().Limits)
	if err != nil {
		return nil, err
	}
	var out *Table
	_, err = c.mutate(ctx, func(s *snapshot, tx *txn) error {
		lower := strings.ToLower(db)
		if _, ok := s.dbs[lower]; !ok {
			return fmt.Errorf("%w: %q", ErrNoDatabase, db)
		}
		if _, ok := s.tables[lower][strings.ToLower(name)]; ok {
			return fmt.Errorf("%w: %s.%s", ErrTableExists, db, name)
		}
		for _, ts := range s.tables {
			for _, t := range ts {
				if t.IsAttached() && strings.EqualFold(t.Physical, phys) {
					return fmt.Errorf("%w: store table %s is attached as %s.%s", ErrTableExists, phys, t.Database, t.Name)
				}
			}
		}
		out = s.addTable(lower, proto)
		return tx.putTable(out)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// RefreshAttached infers an attached table's columns again from its first
// scan entities (the record's Scan when scan <= 0): new properties get
// columns, known ones keep their column names, pinned columns their types,
// and no column is narrowed or dropped (entities beyond the scan may still
// carry it). Errors: ErrNoTable, ErrInvalidDef for a table sqlgw created.
func (c *Catalog) RefreshAttached(ctx context.Context, db, name string, scan int) (*Table, error) {
	cur, err := c.Table(ctx, db, name)
	if err != nil {
		return nil, err
	}
	if !cur.IsAttached() {
		return nil, fmt.Errorf("%w: %s.%s is not an attached table", ErrInvalidDef, db, name)
	}
	if scan <= 0 {
		scan = cur.Attached.Scan
	}
	props, err := inferProperties(ctx, c.store, cur.Physical, scan)
	if err != nil {
		return nil, err
	}
	return c.alterTable(ctx, db, name, func(s *snapshot, t *Table, tx *txn) error {
		if !t.IsAttached() || !strings.EqualFold(t.Physical, cur.Physical) {
			return fmt.Errorf("%w: %s.%s changed concurrently", ErrConflict, db, name)
		}
		n, err := newAttachedTable(t.Name, t.Physical, scan, props, t, t.limits)
		if err != nil {
			return err
		}
		*t = *n
		return nil
	})
}

// attachedNewColumn completes a column added to an attached table (ALTER
// TABLE ... ADD COLUMN): it maps the property of the column's exact name,
// of the EDM type of its SQL type, and takes that EDM type's SQL type.
func attachedNewColumn(t *Table, col *Column) error {
	edm, err := EdmForType(col.Type)
	if err != nil {
		return fmt.Errorf("column %q: %w", col.Name, err)
	}
	if reservedFold(col.Name) || storage.ValidatePropertyName(col.Name) != nil {
		return fmt.Errorf("%w: column %q of an attached table must be a valid property name", ErrInvalidDef, col.Name)
	}
	for _, c := range t.Columns {
		if c.Role == RoleProperty && strings.EqualFold(c.Property, col.Name) {
			return fmt.Errorf("%w: property %q is column %q", ErrColumnExists, c.Property, c.Name)
		}
	}
	col.Property, col.Role, col.Edm, col.Pinned = col.Name, RoleProperty, edm, true
	col.Type, col.Nullable = pinnedColumnType(edm, col.Type), true
	col.Default, col.HasDefault, col.AutoIncrement, col.Generated, col.Virtual, col.OnUpdate = "", false, false, "", false, ""
	return nil
}

// attachedModify is MODIFY/CHANGE COLUMN on an attached table: a rename
// keeps the property; a type pins the property column's EDM type to the
// type's (refreshes keep it). Key, Timestamp and JSON columns keep their
// types.
func attachedModify(old, col Column) (Column, error) {
	nc := old
	nc.Name, nc.Comment = col.Name, col.Comment
	if old.Role != RoleProperty {
		if col.Type.Kind != old.Type.Kind {
			return nc, fmt.Errorf("%w: column %q of an attached table maps the entity's %s; its type is fixed", ErrUnsupported, old.Name, old.Property)
		}
		return nc, nil
	}
	edm, err := EdmForType(col.Type)
	if err != nil {
		return nc, fmt.Errorf("column %q: %w", old.Name, err)
	}
	nc.Mixed = nc.Mixed || nc.Edm != edm
	nc.Edm, nc.Type, nc.Pinned = edm, pinnedColumnType(edm, col.Type), true
	return nc, nil
}

// pinnedColumnType is the SQL type of a property column pinned (ALTER
// TABLE ... ADD or MODIFY) to SQL type want of EDM type edm: the EDM
// type's own SQL type, except that a String property may be pinned to
// VARCHAR(n) utf8mb4_0900_bin and a Binary one to VARBINARY(n). Such a
// bounded column is what a secondary index can key (MySQL, like sqlgw,
// keys no TEXT or BLOB column without a prefix length); an entity whose
// value is longer than n shows it in the JSON column, as any value that
// does not fit its column (attachedDatum).
func pinnedColumnType(edm storage.Type, want Type) Type {
	switch {
	case edm == storage.TypeString && want.Kind == KindVarchar:
		return Type{Kind: KindVarchar, Length: want.Length, Collation: CollationUTF8MB4Bin}
	case edm == storage.TypeBinary && want.Kind == KindVarbinary:
		return Type{Kind: KindVarbinary, Length: want.Length, Collation: CollationBinary}
	}
	return edmColumnType(edm)
}
