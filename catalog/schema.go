package catalog

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sqlgw/sqlgw/storage"
)

// maxPropBase is the longest property name derived from a column name,
// leaving room for a collision suffix and for chunk names "_<prop>_<n>"
// within storage.MaxPropertyNameLen.
const maxPropBase = 64

// propertyBase derives a property name from a column name: ASCII letters,
// digits and _ kept, every other byte replaced by _, a leading letter
// ensured with a "c" prefix, truncated to maxPropBase.
func propertyBase(col string) string {
	var sb strings.Builder
	for i := 0; i < len(col) && sb.Len() < maxPropBase; i++ {
		c := col[i]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			sb.WriteByte(c)
		} else {
			sb.WriteByte('_')
		}
	}
	s := sb.String()
	if s == "" || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		s = "c" + s
	}
	if len(s) > maxPropBase {
		s = s[:maxPropBase]
	}
	return s
}

// assignProperty gives col a property name unused in t (now or ever:
// names of dropped columns are retired, since old entities still carry
// their values). Names compare case-insensitively, so backends that fold
// case cannot confuse two of them.
func (t *Table) assignProperty(col *Column) {
	used := make(map[string]bool, len(t.Columns)+len(t.Retired))
	for _, c := range t.Columns {
		used[strings.ToLower(c.Property)] = true
	}
	for _, p := range t.Retired {
		used[strings.ToLower(p)] = true
	}
	base := propertyBase(col.Name)
	name := base
	for n := 2; used[strings.ToLower(name)] || reservedFold(name) || storage.ValidatePropertyName(name) != nil; n++ {
		name = base + "_" + strconv.Itoa(n)
	}
	col.Property = name
}

// validateColumn checks one column definition.
func validateColumn(c *Column) error {
	if c.Name == "" {
		return fmt.Errorf("%w: empty column name", ErrInvalidDef)
	}
	t := c.Type
	switch {
	case t.Kind == KindInvalid || t.Kind >= numKinds:
		return fmt.Errorf("%w: column %q: invalid type", ErrInvalidDef, c.Name)
	case t.Kind == KindDecimal && (t.Precision < 1 || t.Precision > 65 || t.Scale < 0 || t.Scale > 30 || t.Scale > t.Precision):
		return fmt.Errorf("%w: column %q: DECIMAL(%d,%d)", ErrInvalidDef, c.Name, t.Precision, t.Scale)
	case (t.Kind == KindDatetime || t.Kind == KindTimestamp || t.Kind == KindTime) && (t.FSP < 0 || t.FSP > 6):
		return fmt.Errorf("%w: column %q: fractional seconds precision %d", ErrInvalidDef, c.Name, t.FSP)
	case t.Kind == KindBit && (t.Length < 0 || t.Length > 64):
		return fmt.Errorf("%w: column %q: BIT(%d)", ErrInvalidDef, c.Name, t.Length)
	case t.Kind == KindSet && len(t.Values) > 64:
		return fmt.Errorf("%w: column %q: SET of %d members", ErrInvalidDef, c.Name, len(t.Values))
	case t.Kind == KindEnum && len(t.Values) > 65535:
		return fmt.Errorf("%w: column %q: ENUM of %d members", ErrInvalidDef, c.Name, len(t.Values))
	}
	return nil
}

// newTable builds and validates a table record from a definition. ID,
// Database, Physical are set by the caller.
func newTable(def *TableDef, limits storage.Limits) (*Table, error) {
	if def.Name == "" {
		return nil, fmt.Errorf("%w: empty table name", ErrInvalidDef)
	}
	t := &Table{
		Name:       def.Name,
		Comment:    def.Comment,
		Collation:  def.Collation,
		Generation: 1,
		KeyFormat:  KeyFormatCurrent,
	}
	seen := map[string]bool{}
	for _, c := range def.Columns {
		if err := validateColumn(&c); err != nil {
			return nil, err
		}
		if seen[strings.ToLower(c.Name)] {
			return nil, fmt.Errorf("%w: column %q", ErrColumnExists, c.Name)
		}
		seen[strings.ToLower(c.Name)] = true
		c.Type.Values = append([]string(nil), c.Type.Values...)
		t.assignProperty(&c)
		t.Columns = append(t.Columns, c)
	}
	if len(t.Columns) == 0 {
		return nil, fmt.Errorf("%w: table %q has no columns", ErrInvalidDef, def.Name)
	}
	t.PrimaryKey = append([]KeyPart(nil), def.PrimaryKey...)
	t.index()
	pkSeen := map[string]bool{}
	for _, kp := range t.PrimaryKey {
		i := t.ColumnIndex(kp.Column)
		if i < 0 {
			return nil, fmt.Errorf("%w: primary key column %q", ErrNoColumn, kp.Column)
		}
		if pkSeen[strings.ToLower(kp.Column)] {
			return nil, fmt.Errorf("%w: column %q twice in the primary key", ErrInvalidDef, kp.Column)
		}
		pkSeen[strings.ToLower(kp.Column)] = true
		c := &t.Columns[i]
		if err := c.Type.keyable(); err != nil {
			return nil, fmt.Errorf("table %q primary key column %q: %w", def.Name, c.Name, err)
		}
		c.Nullable = false
	}
	switch {
	case def.PartitionKey == nil && len(t.PrimaryKey) > 0:
		t.PartitionKey = []string{t.Columns[t.ColumnIndex(t.PrimaryKey[0].Column)].Name}
	case def.PartitionKey != nil:
		if len(t.PrimaryKey) == 0 {
			return nil, fmt.Errorf("%w: table %q: partition_key needs a primary key", ErrInvalidDef, def.Name)
		}
		if len(def.PartitionKey) == 0 {
			return nil, fmt.Errorf("%w: table %q: empty partition_key", ErrInvalidDef, def.Name)
		}
		partSeen := map[string]bool{}
		for _, p := range def.PartitionKey {
			if !pkSeen[strings.ToLower(p)] {
				return nil, fmt.Errorf("%w: table %q: partition_key column %q is not a primary-key column", ErrInvalidDef, def.Name, p)
			}
			if partSeen[strings.ToLower(p)] {
				return nil, fmt.Errorf("%w: table %q: partition_key column %q twice", ErrInvalidDef, def.Name, p)
			}
			partSeen[strings.ToLower(p)] = true
			t.PartitionKey = append(t.PartitionKey, t.Columns[t.ColumnIndex(p)].Name)
		}
	}
	switch {
	case def.SaltBuckets < 0 || def.SaltBuckets > MaxSaltBuckets:
		return nil, fmt.Errorf("%w: table %q: salt_buckets=%d (1 to %d)", ErrInvalidDef, def.Name, def.SaltBuckets, MaxSaltBuckets)
	case def.SaltBuckets > 1 && len(t.PrimaryKey) == 0:
		return nil, fmt.Errorf("%w: table %q: salt_buckets needs a primary key", ErrInvalidDef, def.Name)
	case def.SaltBuckets > 1:
		t.SaltBuckets = def.SaltBuckets
	}
	for _, ix := range def.Indexes {
		if err := t.addIndex(ix); err != nil {
			return nil, err
		}
	}
	t.limits = limits
	if err := t.derive(limits); err != nil {
		return nil, err
	}
	return t, nil
}

// index builds the name lookup maps.
func (t *Table) index() {
	t.byName = make(map[string]int, len(t.Columns))
	t.byProp = make(map[string]int, len(t.Columns))
	for i, c := range t.Columns {
		t.byName[strings.ToLower(c.Name)] = i
		t.byProp[c.Property] = i
	}
}

// derive computes the non-persisted fields from the persisted ones.
func (t *Table) derive(limits storage.Limits) error {
	t.limits = limits
	t.index()
	for i := range t.Columns {
		// The key format reaches the encoders through the column types.
		t.Columns[i].Type.unpaddedKey = t.KeyFormat < KeyFormatPadSpace
	}
	t.partCols, t.rowCols = nil, nil
	inPart := map[int]bool{}
	for _, p := range t.PartitionKey {
		i := t.ColumnIndex(p)
		if i < 0 {
			return fmt.Errorf("%w: table %q: partition column %q", ErrNoColumn, t.Name, p)
		}
		desc := false
		for _, kp := range t.PrimaryKey {
			if strings.EqualFold(kp.Column, p) {
				desc = kp.Desc
			}
		}
		inPart[i] = true
		t.partCols = append(t.partCols, KeyColumn{Index: i, Desc: desc, table: t, raw: t.IsAttached()})
	}
	for _, kp := range t.PrimaryKey {
		i := t.ColumnIndex(kp.Column)
		if i < 0 {
			return fmt.Errorf("%w: table %q: key column %q", ErrNoColumn, t.Name, kp.Column)
		}
		if !inPart[i] {
			t.rowCols = append(t.rowCols, KeyColumn{Index: i, Desc: kp.Desc, table: t, raw: t.IsAttached()})
		}
	}
	return nil
}

// addIndex validates and appends a secondary index definition.
func (t *Table) addIndex(ix Index) error {
	if ix.Name == "" {
		return fmt.Errorf("%w: index without a name", ErrInvalidDef)
	}
	if strings.EqualFold(ix.Name, "PRIMARY") || t.Index(ix.Name) != nil {
		return fmt.Errorf("%w: index %q", ErrIndexExists, ix.Name)
	}
	if len(ix.Columns) == 0 {
		return fmt.Errorf("%w: index %q has no columns", ErrInvalidDef, ix.Name)
	}
	if t.IsAttached() {
		if err := t.attachedIndexable(&ix); err != nil { // attached_index.go
			return err
		}
	}
	for _, kp := range ix.Columns {
		i := t.ColumnIndex(kp.Column)
		if i < 0 {
			return fmt.Errorf("%w: index %q column %q", ErrNoColumn, ix.Name, kp.Column)
		}
		if err := t.Columns[i].Type.keyable(); err != nil {
			return fmt.Errorf("index %q column %q: %w", ix.Name, kp.Column, err)
		}
	}
	for _, c := range ix.Covering {
		if t.ColumnIndex(c) < 0 {
			return fmt.Errorf("%w: index %q covering column %q", ErrNoColumn, ix.Name, c)
		}
	}
	if ix.State == 0 {
		ix.State = IndexBuilding
	}
	ix.Columns = append([]KeyPart(nil), ix.Columns...)
	ix.Covering = append([]string(nil), ix.Covering...)
	t.NextIndexID++
	ix.ID = t.NextIndexID
	t.Indexes = append(t.Indexes, ix)
	return nil
}

// clone returns a deep copy of t's persisted fields, derived again.
func (t *Table) clone() *Table {
	c := *t
	c.Columns = append([]Column(nil), t.Columns...)
	for i := range c.Columns {
		c.Columns[i].Type.Values = append([]string(nil), c.Columns[i].Type.Values...)
	}
	c.PrimaryKey = append([]KeyPart(nil), t.PrimaryKey...)
	c.PartitionKey = append([]string(nil), t.PartitionKey...)
	c.Indexes = append([]Index(nil), t.Indexes...)
	for i := range c.Indexes {
		c.Indexes[i].Columns = append([]KeyPart(nil), c.Indexes[i].Columns...)
		c.Indexes[i].Covering = append([]string(nil), c.Indexes[i].Covering...)
	}
	c.Retired = append([]string(nil), t.Retired...)
	if t.Attached != nil {
		a := *t.Attached
		c.Attached = &a
	}
	_ = c.derive(t.limits)
	return &c
}

// reservedFold reports whether name is a reserved property name in any
// case (a backend that folds case must not see "rowkey" as RowKey).
func reservedFold(name string) bool {
	for _, r := range []string{storage.PropPartitionKey, storage.PropRowKey, storage.PropTimestamp, "ETag"} {
		if strings.EqualFold(name, r) {
			return true
		}
	}
	return false
}
