package catalog

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/sqlgw/sqlgw/catalog/keys"
	"github.com/sqlgw/sqlgw/storage"
)

// Internal property names (sqlgw's namespace: user properties never start
// with '_'). Part of the persisted row format.
const (
	// PropExtras on a row's main entity holds the number of continuation
	// entities: Int32 n for continuations of generation 0; Int64
	// gen<<32 | n for those of generation gen >= 1 (a row rewritten across
	// batches, see EncodeEntitiesGen); absent means none.
	PropExtras = "_n"
)

// Continuation entities: generations
//
// A row's continuation entities have RowKeys that sort right after its
// main RowKey rk (ContinuationRange):
//
//	generation 0:   rk + "}" + uint(i)                      i = 1..n
//	generation g>0: rk + "}" + uint(0) + uint(g) + uint(i)  i = 1..n
//
// (uint: keys.EncodeUintAscending). The main entity's _n names the
// generation and the count, and readers (DecodeRow) take exactly those
// entities from whatever the continuation range holds. A row too large for
// one atomic batch is rewritten by writing the continuations of a new
// generation first, then replacing the main entity (If-Match: the commit
// point), then deleting the other generations: a crash anywhere leaves the
// old row or the new one, whole, plus continuation entities of no
// generation the main entity names, which no reader uses and the row's
// next write deletes. The generation-0 format is the original one, so rows
// written before generations existed read unchanged.

// chunkProp is the name of chunk i >= 1 of a split value of property p.
func chunkProp(p string, i int) string { return "_" + p + "_" + strconv.Itoa(i) }

// entityBudget is the size an entity may reach, below MaxEntityBytes by a
// margin for the keys and the internal properties.
const entityBudget = storage.MaxEntityBytes - 8<<10

// EncodeRow maps a row (one Datum per column, in Columns order) to its keys
// and entities. entities[0] is the main entity (RowKey rk); further entities
// (a wide or large row) have RowKeys that sort right after rk and before any
// other row (see ContinuationRange). All must be written in one atomic batch.
// Keyless tables get a fresh generated RowKey on every call; updates of a
// keyless row use EncodeEntities with the row's existing keys.
func (t *Table) EncodeRow(row []Datum) (pk, rk string, entities []*storage.Entity, err error) {
	if t.Keyless() {
		pk, rk = "", generatedRowKey()
	} else if pk, rk, err = t.EncodeKey(row); err != nil {
		return "", "", nil, err
	}
	entities, err = t.EncodeEntities(pk, rk, row)
	return pk, rk, entities, err
}

var genSeq atomic.Uint64

// generatedRowKey returns a unique, roughly time-ordered RowKey for a keyless
// row: a string component of 32 hex digits, 16 of Unix nanoseconds and 16 of
// randomness (8 random bytes XOR a per-process sequence, so two rows of one
// process in one nanosecond still differ).
func generatedRowKey() string {
	var raw [16]byte
	binary.BigEndian.PutUint64(raw[:8], uint64(time.Now().UnixNano()))
	if _, err := rand.Read(raw[8:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	binary.BigEndian.PutUint64(raw[8:], binary.BigEndian.Uint64(raw[8:])^genSeq.Add(1))
	return string(keys.EncodeStringAscending(nil, hex.EncodeToString(raw[:])))
}

type prop struct {
	name string
	v    storage.Value
	size int
}

// EncodeEntities is EncodeRow with given keys (updates of keyless rows).
func (t *Table) EncodeEntities(pk, rk string, row []Datum) ([]*storage.Entity, error) {
	return t.EncodeEntitiesGen(pk, rk, row, 0)
}

// maxGeneration bounds continuation generations (they wrap to 1).
const maxGeneration = 1<<31 - 1

// EncodeEntitiesGen is EncodeEntities with the continuation entities of
// generation gen (see "Continuation entities: generations").
func (t *Table) EncodeEntitiesGen(pk, rk string, row []Datum, gen uint64) ([]*storage.Entity, error) {
	if gen > maxGeneration {
		return nil, fmt.Errorf("%w: continuation generation %d", ErrValue, gen)
	}
	if t.IsAttached() {
		return t.encodeAttached(pk, rk, row)
	}
	if len(row) != len(t.Columns) {
		return nil, fmt.Errorf("%w: table %q: row of %d values for %d columns", ErrValue, t.Name, len(row), len(t.Columns))
	}
	// The properties of a row of up to 16 of them (a bulk INSERT's every
	// row) are gathered on the stack: they only feed the map below.
	var buf [16]prop
	props := buf[:0]
	for i, d := range row {
		if d == nil {
			continue // NULL: absent property
		}
		c := &t.Columns[i]
		v, err := c.Type.toValue(d)
		if err != nil {
			return nil, fmt.Errorf("table %q column %q: %w", t.Name, c.Name, err)
		}
		props = appendSplit(props, c.Property, v)
	}
	// Sizes are storage.EntitySize's (additive over the keys and the
	// properties), so every entity is within the limit of every backend.
	base := storage.EntitySize(&storage.Entity{PartitionKey: pk, RowKey: rk}) + 64 // keys and the _n property
	contBase := -1                                                                 // measured when a row needs a continuation (rarely)
	var entities []*storage.Entity
	cur := &storage.Entity{PartitionKey: pk, RowKey: rk, Properties: make(storage.Properties, min(len(props), storage.MaxProperties))}
	size := base
	for _, p := range props {
		if len(cur.Properties) >= storage.MaxProperties-1 || size+p.size > entityBudget {
			if contBase < 0 {
				contBase = storage.EntitySize(&storage.Entity{PartitionKey: pk, RowKey: continuationKeyGen(rk, gen, math.MaxInt32)})
			}
			entities = append(entities, cur)
			cur = &storage.Entity{PartitionKey: pk, Properties: storage.Properties{}}
			size = contBase
		}
		cur.Properties[p.name] = p.v
		size += p.size
	}
	entities = append(entities, cur)
	if n := len(entities) - 1; n > 0 {
		entities[0].Properties[PropExtras] = storage.Int32(int32(n))
		if gen > 0 {
			entities[0].Properties[PropExtras] = storage.Int64(int64(gen)<<32 | int64(n))
		}
		for i := 1; i <= n; i++ {
			entities[i].RowKey = continuationKeyGen(rk, gen, i)
		}
		last := entities[n].RowKey
		if lim := t.limits.KeyLimit(); lim > 0 && len(last) > lim {
			return nil, fmt.Errorf("key of table %q: the row needs %d continuation entities and their RowKey of %d characters exceeds the store's limit of %d: %w",
				t.Name, n, len(last), lim, storage.ErrInvalidKey)
		}
	}
	return entities, nil
}

// continuationKeyGen is the RowKey of continuation i (>= 1) of generation
// gen of the row whose main RowKey is rk.
func continuationKeyGen(rk string, gen uint64, i int) string {
	b := append([]byte(rk), keys.ContinuationSep)
	if gen > 0 {
		b = keys.EncodeUintAscending(b, 0)
		b = keys.EncodeUintAscending(b, gen)
	}
	return string(keys.EncodeUintAscending(b, uint64(i)))
}

// ContinuationKeys returns the RowKeys of the continuation entities main
// entity e names (its generation, 1.._n).
func (t *Table) ContinuationKeys(e *storage.Entity) []string {
	n, gen := t.Extras(e), t.ContinuationGen(e)
	out := make([]string, n)
	for i := range out {
		out[i] = continuationKeyGen(e.RowKey, gen, i+1)
	}
	return out
}

// ContinuationGen returns the continuation generation main entity e names.
func (t *Table) ContinuationGen(e *storage.Entity) uint64 {
	if t.IsAttached() {
		return 0
	}
	if v, ok := e.Properties[PropExtras]; ok && v.Type() == storage.TypeInt64 {
		return uint64(v.Int()) >> 32
	}
	return 0
}

// NextGeneration returns a continuation generation for rewriting a row
// across batches that differs from the generations of every RowKey in
// extras (the continuation entities found in the row's range).
func (t *Table) NextGeneration(extras []string) uint64 {
	var top uint64
	for _, rk := range extras {
		if _, _, gen, err := t.splitContinuation(rk); err == nil && gen > top {
			top = gen
		}
	}
	if top >= maxGeneration {
		// Wrapping: every generation in extras is deleted by the write
		// that follows, so reuse the smallest one not among them.
		used := map[uint64]bool{}
		for _, rk := range extras {
			if _, _, gen, err := t.splitContinuation(rk); err == nil {
				used[gen] = true
			}
		}
		for g := uint64(1); ; g++ {
			if !used[g] {
				return g
			}
		}
	}
	return top + 1
}

// appendSplit appends property name=v, split into chunks when v is longer
// than one property may be.
func appendSplit(props []prop, name string, v storage.Value) []prop {
	switch v.Type() {
	case storage.TypeString:
		s := v.Str()
		if len(s) <= storage.MaxStringUTF16 {
			// No more UTF-16 units than UTF-8 bytes: one property, without
			// counting the units rune by rune (every string of a bulk
			// INSERT comes here).
			return append(props, stringProp(name, 0, s, 0))
		}
		units := 0
		start := 0
		chunk := 0
		for i, r := range s {
			n := utf16.RuneLen(r)
			if units+n > storage.MaxStringUTF16 {
				props = append(props, stringProp(name, chunk, s[start:i], units))
				chunk++
				start, units = i, 0
			}
			units += n
		}
		return append(props, stringProp(name, chunk, s[start:], units))
	case storage.TypeBinary:
		b := v.Bytes()
		chunk := 0
		for len(b) > storage.MaxValueBytes {
			props = append(props, binaryProp(name, chunk, b[:storage.MaxValueBytes]))
			b = b[storage.MaxValueBytes:]
			chunk++
		}
		return append(props, binaryProp(name, chunk, b))
	}
	return append(props, prop{name: name, v: v, size: storage.PropertySize(name, v)})
}

func stringProp(name string, chunk int, s string, units int) prop {
	if chunk > 0 {
		name = chunkProp(name, chunk)
	}
	return prop{name: name, v: storage.String(s), size: storage.PropertySize(name, storage.String(s))}
}

func binaryProp(name string, chunk int, b []byte) prop {
	if chunk > 0 {
		name = chunkProp(name, chunk)
	}
	return prop{name: name, v: storage.Binary(b), size: storage.PropertySize(name, storage.Binary(b))}
}

// EncodeKey returns the keys of a row (one Datum per column). Keyless
// tables have no key to compute: ErrInvalidDef.
func (t *Table) EncodeKey(row []Datum) (pk, rk string, err error) {
	if t.Keyless() {
		return "", "", fmt.Errorf("%w: table %q has no primary key", ErrInvalidDef, t.Name)
	}
	if len(row) != len(t.Columns) {
		return "", "", fmt.Errorf("%w: table %q: row of %d values for %d columns", ErrValue, t.Name, len(row), len(t.Columns))
	}
	pick := func(cols []KeyColumn) []Datum {
		vals := make([]Datum, len(cols))
		for i, kc := range cols {
			vals[i] = row[kc.Index]
		}
		return vals
	}
	if pk, err = t.PartitionPrefix(pick(t.partCols)); err != nil {
		return "", "", err
	}
	if t.Salted() > 0 {
		pk = t.Salt(pk)
		if limit := t.limits.KeyLimit(); limit > 0 && len(pk) > limit {
			return "", "", fmt.Errorf("key of table %q: salted PartitionKey of %d characters exceeds the store's limit of %d: %w",
				t.Name, len(pk), limit, storage.ErrInvalidKey)
		}
	}
	if rk, err = t.RowPrefix(pick(t.rowCols)); err != nil {
		return "", "", err
	}
	return pk, rk, nil
}

// EncodePrimaryKey returns the keys for primary-key values given in
// PrimaryKey order. Errors name the table and column; a key over the
// store's limit wraps storage.ErrInvalidKey.
func (t *Table) EncodePrimaryKey(vals []Datum) (pk, rk string, err error) {
	if len(vals) != len(t.PrimaryKey) || t.Keyless() {
		return "", "", fmt.Errorf("%w: table %q: %d values for a primary key of %d columns", ErrValue, t.Name, len(vals), len(t.PrimaryKey))
	}
	row := make([]Datum, len(t.Columns))
	for i, kp := range t.PrimaryKey {
		row[t.ColumnIndex(kp.Column)] = vals[i]
	}
	return t.EncodeKey(row)
}

// DecodeKey decodes a row's keys back to its primary-key values, in
// PrimaryKey order. It accepts continuation RowKeys too. A PAD SPACE
// string comes back without trailing spaces, and a column keyed by a
// registered collation's weights (RegisterCollation) as its weight
// sequence ([]int32): the exact values are in the row's properties.
func (t *Table) DecodeKey(pk, rk string) ([]Datum, error) {
	if t.Keyless() {
		return nil, nil
	}
	pk, err := t.Unsalt(pk)
	if err != nil {
		return nil, err
	}
	rest, part, err := t.decodeComponents(t.partCols, []byte(pk), nil)
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("%w: table %q: PartitionKey %q has trailing characters", ErrValue, t.Name, pk)
	}
	rest, rows, err := t.decodeComponents(t.rowCols, []byte(rk), nil)
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		if _, _, ok := parseContinuation(rest); !ok {
			return nil, fmt.Errorf("%w: table %q: RowKey %q has trailing characters", ErrValue, t.Name, rk)
		}
	}
	byCol := make(map[int]Datum, len(t.PrimaryKey))
	for i, kc := range t.partCols {
		byCol[kc.Index] = part[i]
	}
	for i, kc := range t.rowCols {
		byCol[kc.Index] = rows[i]
	}
	out := make([]Datum, len(t.PrimaryKey))
	for i, kp := range t.PrimaryKey {
		out[i] = byCol[t.ColumnIndex(kp.Column)]
	}
	return out, nil
}

// parseContinuation parses the suffix of a continuation RowKey, "}" +
// uint(i) or "}" + uint(0) + uint(gen) + uint(i), and returns the
// continuation's number (>= 1) and generation.
func parseContinuation(b []byte) (int, uint64, bool) {
	if len(b) < 3 || b[0] != keys.ContinuationSep {
		return 0, 0, false
	}
	rest, n, err := keys.DecodeUintAscending(b[1:])
	if err != nil {
		return 0, 0, false
	}
	var gen uint64
	if n == 0 {
		if rest, gen, err = keys.DecodeUintAscending(rest); err != nil || gen < 1 || gen > maxGeneration {
			return 0, 0, false
		}
		if rest, n, err = keys.DecodeUintAscending(rest); err != nil {
			return 0, 0, false
		}
	}
	if len(rest) != 0 || n < 1 || n > 1<<20 {
		return 0, 0, false
	}
	return int(n), gen, true
}

// splitRowKey splits rk into the row's main RowKey and the continuation
// number (0 for a main entity).
func (t *Table) splitRowKey(rk string) (string, int, error) {
	main, n, _, err := t.splitContinuation(rk)
	return main, n, err
}

// splitContinuation is splitRowKey with the continuation's generation.
func (t *Table) splitContinuation(rk string) (string, int, uint64, error) {
	var rest []byte
	var err error
	if t.Keyless() {
		rest, _, err = keys.DecodeStringAscending([]byte(rk))
	} else {
		rest, _, err = t.decodeComponents(t.rowCols, []byte(rk), nil)
	}
	if err != nil {
		return "", 0, 0, err
	}
	if len(rest) == 0 {
		return rk, 0, 0, nil
	}
	n, gen, ok := parseContinuation(rest)
	if !ok {
		return "", 0, 0, fmt.Errorf("%w: table %q: RowKey %q is neither a row nor a continuation", ErrValue, t.Name, rk)
	}
	return rk[:len(rk)-len(rest)], n, gen, nil
}

// DecodeRow rebuilds a row from its main entity followed by its
// continuation entities: those the main entity names (its generation and
// _n = k: k of them, otherwise ErrValue) are taken from the entities given,
// others (another generation's, left by an interrupted rewrite) ignored.
// Columns whose properties are absent are NULL.
func (t *Table) DecodeRow(entities ...*storage.Entity) ([]Datum, error) {
	return t.DecodeRowColumns(nil, entities...)
}

// DecodeRowColumns is DecodeRow that decodes only the columns cols
// (ordinals; nil: all) and leaves the others nil. An attached table's
// row is decoded whole.
func (t *Table) DecodeRowColumns(cols []int, entities ...*storage.Entity) ([]Datum, error) {
	if len(entities) > 0 && entities[0] != nil && t.IsAttached() {
		return t.decodeAttached(entities[0])
	}
	props, err := t.RowProperties(entities...)
	if err != nil {
		return nil, err
	}
	row := make([]Datum, len(t.Columns))
	for j := range t.Columns {
		i := j
		if cols != nil {
			if j >= len(cols) {
				break
			}
			i = cols[j]
		}
		v, ok, err := t.ColumnValue(props, i)
		if err != nil || !ok {
			if err != nil {
				return nil, err
			}
			continue
		}
		d, err := t.Columns[i].Type.fromValue(v)
		if err != nil {
			return nil, fmt.Errorf("table %q column %q: %w", t.Name, t.Columns[i].Name, err)
		}
		row[i] = d
	}
	return row, nil
}

// RowProperties returns the properties of a row stored in its main entity
// followed by its continuation entities, picked and merged as DecodeRow
// does (the main entity's own map when it has no continuation). Not for
// attached tables (their rows decode by role: DecodeRow).
//
// With ColumnValue and Type.Decode it lets a reader decode only the
// columns it returns, each once (the direct read path of sqlgw/engine).
func (t *Table) RowProperties(entities ...*storage.Entity) (storage.Properties, error) {
	if len(entities) == 0 || entities[0] == nil {
		return nil, fmt.Errorf("%w: table %q: no entity", ErrValue, t.Name)
	}
	main := entities[0]
	if t.IsAttached() {
		return nil, fmt.Errorf("%w: table %q: attached rows decode by role", ErrUnsupported, t.Name)
	}
	n := t.Extras(main)
	if len(entities) != 1+n || t.ContinuationGen(main) > 0 {
		byKey := make(map[string]*storage.Entity, len(entities)-1)
		for _, e := range entities[1:] {
			byKey[e.RowKey] = e
		}
		picked := []*storage.Entity{main}
		for _, k := range t.ContinuationKeys(main) {
			if e, ok := byKey[k]; ok {
				picked = append(picked, e)
			}
		}
		if len(picked) != 1+n {
			return nil, fmt.Errorf("%w: table %q: row %q has %d continuation entities, %d given", ErrValue, t.Name, main.RowKey, n, len(picked)-1)
		}
		entities = picked
	}
	props := main.Properties
	if len(entities) > 1 {
		props = make(storage.Properties, len(main.Properties))
		for _, e := range entities {
			if e.PartitionKey != main.PartitionKey {
				return nil, fmt.Errorf("%w: table %q: continuation in another partition", ErrValue, t.Name)
			}
			for k, v := range e.Properties {
				props[k] = v
			}
		}
	}
	return props, nil
}

// ColumnValue returns the stored value of column i in a row's properties
// (RowProperties), a split value reassembled; ok is false when the
// property is absent (the column is NULL).
func (t *Table) ColumnValue(props storage.Properties, i int) (v storage.Value, ok bool, err error) {
	c := &t.Columns[i]
	v, ok = props[c.Property]
	if !ok {
		return storage.Value{}, false, nil
	}
	if c.Type.Kind.IsLarge() {
		if v, err = reassemble(props, c.Property, v); err != nil {
			return storage.Value{}, false, fmt.Errorf("table %q column %q: %w", t.Name, c.Name, err)
		}
	}
	return v, true, nil
}

// reassemble joins the chunks of a split value.
func reassemble(props storage.Properties, name string, first storage.Value) (storage.Value, error) {
	next, ok := props[chunkProp(name, 1)]
	if !ok {
		return first, nil
	}
	switch first.Type() {
	case storage.TypeString:
		buf := []byte(first.Str())
		for i := 2; ok; i++ {
			if next.Type() != storage.TypeString {
				return storage.Value{}, fmt.Errorf("%w: chunk of type %s", ErrValue, next.Type())
			}
			buf = append(buf, next.Str()...)
			next, ok = props[chunkProp(name, i)]
		}
		if !utf8.Valid(buf) {
			return storage.Value{}, fmt.Errorf("%w: chunks are not UTF-8", ErrValue)
		}
		return storage.String(string(buf)), nil
	case storage.TypeBinary:
		buf := append([]byte(nil), first.Bytes()...)
		for i := 2; ok; i++ {
			if next.Type() != storage.TypeBinary {
				return storage.Value{}, fmt.Errorf("%w: chunk of type %s", ErrValue, next.Type())
			}
			buf = append(buf, next.Bytes()...)
			next, ok = props[chunkProp(name, i)]
		}
		return storage.Binary(buf), nil
	}
	return first, nil
}

// IsContinuation reports whether e is a continuation entity of a row (not
// the row's main entity). In a scan, a continuation belongs to the nearest
// preceding main entity. It decides by the RowKey alone, so it works
// whatever the projection.
func (t *Table) IsContinuation(e *storage.Entity) bool {
	if t.IsAttached() {
		return false
	}
	if strings.IndexByte(e.RowKey, keys.ContinuationSep) < 0 {
		return false // fast path: every continuation RowKey holds the separator
	}
	_, n, err := t.splitRowKey(e.RowKey)
	return err == nil && n > 0
}

// Extras returns how many continuation entities the row of main entity e
// has (its _n property; Select always includes it).
func (t *Table) Extras(e *storage.Entity) int {
	if t.IsAttached() {
		return 0
	}
	if v, ok := e.Properties[PropExtras]; ok {
		switch v.Type() {
		case storage.TypeInt32:
			if v.Int() > 0 {
				return int(v.Int())
			}
		case storage.TypeInt64:
			return int(v.Int() & (1<<32 - 1))
		}
	}
	return 0
}

// ContinuationRange returns the RowKey range holding exactly the
// continuation entities of the row whose main RowKey is rk.
func (t *Table) ContinuationRange(rk string) *storage.KeyRange {
	return PrefixRange(rk + string(keys.ContinuationSep))
}

// Select returns the property names a query must $select to decode the
// given columns (indexes into Columns), the internal _n included; nil
// means "select everything", returned when a column may be split over
// several properties (TEXT, BLOB, JSON), whose chunk names depend on the
// value.
func (t *Table) Select(cols []int) []string {
	if t.IsAttached() {
		return t.selectAttached(cols)
	}
	out := make([]string, 0, len(cols)+1)
	out = append(out, PropExtras)
	for _, i := range cols {
		if i < 0 || i >= len(t.Columns) {
			continue
		}
		if t.Columns[i].Type.Kind.IsLarge() {
			return nil
		}
		out = append(out, t.Columns[i].Property)
	}
	return out
}
