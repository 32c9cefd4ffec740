package storage

import (
	"encoding/base64"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// The Table service's limits. Every backend enforces them, through the
// Validate functions below, so a schema that works on one backend works on
// every other.
const (
	MaxProperties        = 252      // user properties per entity
	MaxValueBytes        = 64 << 10 // per Binary value, and per String value as UTF-16 (32 Ki units)
	MaxEntityBytes       = 1 << 20  // per entity, by EntitySize
	MaxBatchOps          = 100      // operations per batch
	MaxBatchBytes        = 4 << 20  // per batch, sum of EntitySize
	MaxPageSize          = 1000     // entities per query page
	MaxFilterComparisons = 15       // comparisons in one filter sent to the service
	MaxPropertyNameLen   = 255      // characters in a property name
	MaxKeyUTF16          = 512      // UTF-16 units per PartitionKey or RowKey (1 KiB)
	MaxStringUTF16       = 32 << 10 // UTF-16 units per String value
)

// Limits are the limits a backend is configured with.
type Limits struct {
	// MaxKeyUTF16 caps each of PartitionKey and RowKey in UTF-16 code units.
	MaxKeyUTF16 int
	// MaxKeyBytes, if non-zero, also caps each key in UTF-8 bytes. The
	// Cosmos DB Table API is stricter than the Table service; CosmosLimits
	// applies its 255 bytes to both keys.
	MaxKeyBytes int
}

// DefaultLimits are the Table service's (and Azurite's) key limits.
var DefaultLimits = Limits{MaxKeyUTF16: MaxKeyUTF16}

// CosmosLimits are the stricter key limits of the Cosmos DB Table API.
var CosmosLimits = Limits{MaxKeyUTF16: MaxKeyUTF16, MaxKeyBytes: 255}

// KeyLimit returns the longest ASCII key these limits allow.
func (l Limits) KeyLimit() int {
	n := l.MaxKeyUTF16
	if l.MaxKeyBytes > 0 && l.MaxKeyBytes < n {
		n = l.MaxKeyBytes
	}
	return n
}

// CompareKeys compares two strings ordinally by UTF-16 code units, the
// order of the Table service. It equals the byte order of their UTF-8
// except where a character above U+FFFF meets one in U+E000..U+FFFF.
func CompareKeys(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		return cmpInt(int64(len(a)), int64(len(b)))
	}
	// Back up to the start of the rune holding the first differing byte.
	for i > 0 && !utf8.RuneStart(a[i]) {
		i--
	}
	ra, _ := utf8.DecodeRuneInString(a[i:])
	rb, _ := utf8.DecodeRuneInString(b[i:])
	return cmpInt(int64(utf16First(ra)), int64(utf16First(rb)))
}

// utf16First returns the first UTF-16 unit of r, and for two runes with the
// same first unit, the second decides; folding both into one number keeps
// their order: first unit in the high bits, second in the low.
func utf16First(r rune) int64 {
	if r < 0x10000 {
		return int64(r) << 16
	}
	hi, lo := utf16.EncodeRune(r)
	return int64(hi)<<16 | int64(lo)
}

// ValidateTableName checks the Table service's rules: 3 to 63 ASCII letters
// and digits, starting with a letter, and not the reserved name "tables".
func ValidateTableName(name string) error {
	if len(name) < 3 || len(name) > 63 {
		return fmt.Errorf("%w: table name %q must have 3 to 63 characters", ErrInvalid, name)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return fmt.Errorf("%w: table name %q must be letters and digits, starting with a letter", ErrInvalid, name)
		}
	}
	if equalFoldASCII(name, "tables") {
		return fmt.Errorf("%w: table name %q is reserved", ErrInvalid, name)
	}
	return nil
}

func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i]|0x20, b[i]|0x20
		if x != y {
			return false
		}
	}
	return true
}

// ValidateKey checks one PartitionKey or RowKey: valid UTF-8, none of the
// characters the service forbids (/ \ # ? U+0000..U+001F U+007F..U+009F),
// and within the limits. Empty keys are allowed. Errors wrap ErrInvalidKey.
func (l Limits) ValidateKey(which, key string) error {
	units := 0
	for i, r := range key {
		switch {
		case r == utf8.RuneError && !validRuneAt(key, i):
			return fmt.Errorf("%w: %s is not valid UTF-8", ErrInvalidKey, which)
		case r == '/' || r == '\\' || r == '#' || r == '?' || r < 0x20 || (r >= 0x7f && r <= 0x9f):
			return fmt.Errorf("%w: %s contains forbidden character %U", ErrInvalidKey, which, r)
		}
		units += utf16.RuneLen(r)
	}
	if units > l.MaxKeyUTF16 {
		return fmt.Errorf("%w: %s has %d UTF-16 units, the limit is %d", ErrInvalidKey, which, units, l.MaxKeyUTF16)
	}
	if l.MaxKeyBytes > 0 && len(key) > l.MaxKeyBytes {
		return fmt.Errorf("%w: %s has %d bytes, the limit is %d", ErrInvalidKey, which, len(key), l.MaxKeyBytes)
	}
	return nil
}

func validRuneAt(s string, i int) bool {
	_, size := utf8.DecodeRuneInString(s[i:])
	return size == 3 // a literal U+FFFD is three bytes; a decoding error is one
}

// ValidateKeys checks both keys of an entity.
func (l Limits) ValidateKeys(pk, rk string) error {
	if err := l.ValidateKey("PartitionKey", pk); err != nil {
		return err
	}
	return l.ValidateKey("RowKey", rk)
}

// reservedProperty reports whether name may not be a user property name.
// (A switch, not a map: every Get and Query checks its projection's
// names, and two map lookups per name were most of a point select's
// validation.)
func reservedProperty(name string) bool {
	switch name {
	case PropPartitionKey, PropRowKey, PropTimestamp, "ETag":
		return true
	}
	return false
}

// ValidatePropertyName checks a user property name: 1 to 255 characters, an
// ASCII letter or underscore followed by ASCII letters, digits and
// underscores (a C# identifier, restricted to ASCII so that every backend
// and every OData parser agrees), and not a reserved name. Errors wrap ErrInvalid.
func ValidatePropertyName(name string) error {
	if len(name) == 0 || len(name) > MaxPropertyNameLen {
		return fmt.Errorf("%w: property name %q must have 1 to %d characters", ErrInvalid, name, MaxPropertyNameLen)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		ok := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || (i > 0 && c >= '0' && c <= '9')
		if !ok {
			return fmt.Errorf("%w: property name %q must be ASCII letters, digits and _, not starting with a digit", ErrInvalid, name)
		}
	}
	if reservedProperty(name) {
		return fmt.Errorf("%w: property name %q is reserved", ErrInvalid, name)
	}
	return nil
}

func validateValue(name string, v Value) error {
	switch v.typ {
	case TypeString:
		if !utf8.ValidString(v.s) {
			return fmt.Errorf("%w: property %q is not valid UTF-8", ErrInvalid, name)
		}
		if n := utf16Len(v.s); n > MaxStringUTF16 {
			return fmt.Errorf("%w: property %q has %d UTF-16 units, the limit is %d", ErrTooLarge, name, n, MaxStringUTF16)
		}
	case TypeBinary:
		if len(v.s) > MaxValueBytes {
			return fmt.Errorf("%w: property %q has %d bytes, the limit is %d", ErrTooLarge, name, len(v.s), MaxValueBytes)
		}
	case TypeGUID:
		if len(v.s) != 16 {
			return fmt.Errorf("%w: property %q is a GUID of %d bytes", ErrInvalid, name, len(v.s))
		}
	case TypeDateTime:
		if v.i < minDateTime || v.i > maxDateTime {
			return fmt.Errorf("%w: property %q: DateTime %s is outside 1601-01-01..9999-12-31", ErrInvalid, name, v.Time())
		}
	case TypeInt32:
		if v.i != int64(int32(v.i)) {
			return fmt.Errorf("%w: property %q: Int32 out of range", ErrInvalid, name)
		}
	case TypeInt64, TypeDouble, TypeBoolean:
	default:
		return fmt.Errorf("%w: property %q has no value", ErrInvalid, name)
	}
	return nil
}

func utf16Len(s string) int {
	i := 0
	for i < len(s) && s[i] < utf8.RuneSelf {
		i++
	}
	if i == len(s) {
		return len(s) // ASCII: a unit per byte
	}
	n := i
	for _, r := range s[i:] {
		n += utf16.RuneLen(r)
	}
	return n
}

// EntitySize is the size of an entity against MaxEntityBytes: the larger of
// two measures, so that an entity one backend accepts fits every Table
// endpoint.
//
//   - The Table service's formula: 4 bytes, plus 2 bytes per UTF-16 unit of
//     the keys, plus for each property 8 bytes, 2 per unit of its name, and
//     its value's size (String 4 + 2 per unit, Binary 4 + length, Int32 4,
//     Int64/Double/DateTime 8, Boolean 1, GUID 16).
//   - The entity's JSON request body (JSONSize): Azurite rejects an
//     Insert Or Replace/Merge or Update whose body exceeds 1 MiB of UTF-8
//     as EntityTooLarge. There a Binary value is base64 (4/3 of its
//     length), a String is JSON-escaped (6 bytes per UTF-16 unit of a
//     non-ASCII character or of < > & and control characters, see
//     jsonStringLen), and every typed property carries an "@odata.type"
//     annotation.
//
// The measure is additive: the keys' part is the larger of the two for the
// keys, and each property adds PropertySize, the larger of the two for that
// property. So a writer that splits a row into entities (the catalog) can
// budget property by property and get exactly EntitySize.
func EntitySize(e *Entity) int {
	n := keysSize(e.PartitionKey, e.RowKey)
	for name, v := range e.Properties {
		n += PropertySize(name, v)
	}
	return n
}

// keysSize is the keys' part of EntitySize: the formula's 4 + 2 per unit,
// or the JSON object's braces, the two key properties and room for a
// backend's substitute of an empty PartitionKey (48 + escaped keys).
func keysSize(pk, rk string) int {
	return max(4+2*(utf16Len(pk)+utf16Len(rk)), 48+jsonStringLen(pk)+jsonStringLen(rk))
}

// PropertySize is one property's part of EntitySize: the larger of the
// Table service's formula and its bytes in the JSON body (`,"name":value`,
// plus `,"name@odata.type":"Edm.Type"` for every type but String and
// Boolean, each value at its longest rendering).
func PropertySize(name string, v Value) int {
	formula := 8 + 2*utf16Len(name)
	js := 4 + len(name)   // ,"name":
	const annotation = 30 // ,"name@odata.type":"Edm.DateTime" is len(name) + 29
	switch v.typ {
	case TypeString:
		units, jsLen, _ := stringSizes(v.s)
		formula += 4 + 2*units
		js += 2 + jsLen
	case TypeBinary:
		formula += 4 + len(v.s)
		js += 2 + base64.StdEncoding.EncodedLen(len(v.s)) + annotation + len(name)
	case TypeInt32:
		formula += 4
		js += 11 + annotation + len(name) // -2147483648
	case TypeBoolean:
		formula++
		js += 5 // false
	case TypeGUID:
		formula += 16
		js += 38 + annotation + len(name)
	case TypeInt64:
		formula += 8
		js += 22 + annotation + len(name) // "-9223372036854775808"
	case TypeDateTime:
		formula += 8
		js += 30 + annotation + len(name) // "2006-01-02T15:04:05.0000000Z"
	default: // Double
		formula += 8
		js += 32 + annotation + len(name) // shortest round-trip, "-Infinity"
	}
	return max(formula, js)
}

// stringSizes returns utf16Len(s) and jsonStringLen(s) in one pass over
// an ASCII string (each non-ASCII rest measured by those two), and whether
// s is ASCII (so valid UTF-8): a row's strings are measured by every
// batch's validation and by the writer's budget, and most are ASCII.
func stringSizes(s string) (units, js int, ascii bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return i + utf16Len(s[i:]), js + jsonStringLen(s[i:]), false
		}
		js += int(jsonASCIILen[c])
	}
	return len(s), js, true
}

// jsonStringLen is the length of s inside the quotes of a JSON string as
// the Azure Table backend sends it: encoding/json's HTML-safe escaping
// (\" \\ \n \r \t take 2 bytes; other control characters and < > & take
// 6, as \u00XX), and every non-ASCII character as \uXXXX, 6 bytes per
// UTF-16 unit (the backend escapes them for Azurite, which corrupts
// multi-byte UTF-8 split across the chunks of a request body; 6 per unit
// also bounds plain UTF-8). An invalid byte counts 6, as \ufffd.
func jsonStringLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			n += int(jsonASCIILen[c])
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			n += 6
		} else {
			n += 6 * utf16.RuneLen(r)
		}
		i += size
	}
	return n
}

// jsonASCIILen is jsonStringLen's length of each ASCII byte.
var jsonASCIILen = func() (t [utf8.RuneSelf]uint8) {
	for c := range t {
		switch {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
			t[c] = 2
		case c < 0x20 || c == '<' || c == '>' || c == '&':
			t[c] = 6
		default:
			t[c] = 1
		}
	}
	return t
}()

// ValidateEntity checks an entity for a write: keys, property count, names,
// values and total size. Errors wrap ErrInvalidKey, ErrInvalid or ErrTooLarge.
func (l Limits) ValidateEntity(e *Entity) error {
	_, err := l.validateEntity(e)
	return err
}

// validateEntity is ValidateEntity, also returning EntitySize(e) (one pass
// over every property: a batch's validation measures each entity once).
func (l Limits) validateEntity(e *Entity) (int, error) {
	if e == nil {
		return 0, fmt.Errorf("%w: nil entity", ErrInvalid)
	}
	if err := l.ValidateKeys(e.PartitionKey, e.RowKey); err != nil {
		return 0, err
	}
	if len(e.Properties) > MaxProperties {
		return 0, fmt.Errorf("%w: %d properties, the limit is %d", ErrTooLarge, len(e.Properties), MaxProperties)
	}
	n := keysSize(e.PartitionKey, e.RowKey)
	for name, v := range e.Properties {
		if err := ValidatePropertyName(name); err != nil {
			return 0, err
		}
		if v.typ == TypeString {
			// validateValue and PropertySize in one measure of the
			// string, with validateValue's errors in its order.
			units, js, ascii := stringSizes(v.s)
			if !ascii && !utf8.ValidString(v.s) {
				return 0, fmt.Errorf("%w: property %q is not valid UTF-8", ErrInvalid, name)
			}
			if units > MaxStringUTF16 {
				return 0, fmt.Errorf("%w: property %q has %d UTF-16 units, the limit is %d", ErrTooLarge, name, units, MaxStringUTF16)
			}
			n += max(8+2*utf16Len(name)+4+2*units, 4+len(name)+2+js) // PropertySize
			continue
		}
		if err := validateValue(name, v); err != nil {
			return 0, err
		}
		n += PropertySize(name, v)
	}
	if n > MaxEntityBytes {
		return 0, fmt.Errorf("%w: entity of %d bytes, the limit is %d", ErrTooLarge, n, MaxEntityBytes)
	}
	return n, nil
}

// ValidateBatch checks the batch rules: 1 to MaxBatchOps operations, one
// partition, at most one operation per entity, every operation valid, and at
// most MaxBatchBytes in all by BatchOpSize. Errors are *BatchError.
func (l Limits) ValidateBatch(ops []Operation) error {
	return l.validateBatch(ops, false)
}

// ValidateMultiBatchOps is ValidateBatch for one batch of a MultiBatch,
// which may also hold OpCheck operations (their keys count as a delete's).
func (l Limits) ValidateMultiBatchOps(ops []Operation) error {
	return l.validateBatch(ops, true)
}

func (l Limits) validateBatch(ops []Operation, checks bool) error {
	if len(ops) == 0 {
		return &BatchError{Index: -1, Err: fmt.Errorf("%w: empty batch", ErrInvalid)}
	}
	if len(ops) > MaxBatchOps {
		return &BatchError{Index: -1, Err: fmt.Errorf("%w: %d operations, the limit is %d", ErrTooLarge, len(ops), MaxBatchOps)}
	}
	// A batch of one operation (a bulk INSERT's MultiBatch is a
	// thousand of them, one per row's partition) needs no set of keys.
	var seen map[string]struct{}
	if len(ops) > 1 {
		seen = make(map[string]struct{}, len(ops))
	}
	total := 0
	for i, op := range ops {
		if op.Entity == nil {
			return &BatchError{Index: i, Err: fmt.Errorf("%w: operation without entity", ErrInvalid)}
		}
		if op.Entity.PartitionKey != ops[0].Entity.PartitionKey {
			return &BatchError{Index: i, Err: fmt.Errorf("%w: batch spans partitions %q and %q", ErrInvalid, ops[0].Entity.PartitionKey, op.Entity.PartitionKey)}
		}
		if seen != nil {
			if _, dup := seen[op.Entity.RowKey]; dup {
				return &BatchError{Index: i, Err: fmt.Errorf("%w: two operations on RowKey %q", ErrInvalid, op.Entity.RowKey)}
			}
			seen[op.Entity.RowKey] = struct{}{}
		}
		var err error
		size := 0
		switch op.Kind {
		case OpInsert, OpUpsert, OpUpdate:
			size, err = l.validateEntity(op.Entity)
		case OpDelete:
			err = l.ValidateKeys(op.Entity.PartitionKey, op.Entity.RowKey)
			size = keysSize(op.Entity.PartitionKey, op.Entity.RowKey)
		case OpCheck:
			if !checks {
				err = fmt.Errorf("%w: a check operation outside a MultiBatch", ErrInvalid)
				break
			}
			err = l.ValidateKeys(op.Entity.PartitionKey, op.Entity.RowKey)
			size = keysSize(op.Entity.PartitionKey, op.Entity.RowKey)
		default:
			err = fmt.Errorf("%w: unknown operation kind %v", ErrInvalid, op.Kind)
		}
		if err != nil {
			return &BatchError{Index: i, Err: err}
		}
		total += batchOpFraming + 6*(len(op.Entity.PartitionKey)+len(op.Entity.RowKey)) + size // BatchOpSize
	}
	if total > MaxBatchBytes {
		return &BatchError{Index: -1, Err: fmt.Errorf("%w: batch of %d bytes, the limit is %d", ErrTooLarge, total, MaxBatchBytes)}
	}
	return nil
}

// BatchOpSize is one operation's part of a batch's size against
// MaxBatchBytes: the service limits the batch's request body, a multipart
// document in which every operation is an HTTP request. That is the
// entity's EntitySize (its keys' part only for a delete), plus the
// operation's framing: its part boundary and headers, and a request line
// whose URL holds the endpoint, the table and the keys percent-encoded
// (up to 6 bytes per byte of a key: a quote is doubled, then encoded).
func BatchOpSize(op Operation) int {
	if op.Entity == nil {
		return batchOpFraming
	}
	e := op.Entity
	n := batchOpFraming + 6*(len(e.PartitionKey)+len(e.RowKey))
	if op.Kind == OpDelete {
		return n + keysSize(e.PartitionKey, e.RowKey)
	}
	return n + EntitySize(e)
}

// batchOpFraming bounds an operation's multipart headers and the URL
// without its keys (an Azure endpoint and a table name of at most 63
// characters); the batch's own boundaries fit in it too. Azurite's
// framing of one Delete with one-character keys is 614 bytes, batch
// boundaries and a 37-character endpoint included.
const batchOpFraming = 1024

// ValidateQuery checks a query's keys, filter, projection and top.
func (l Limits) ValidateQuery(q *Query) error {
	if q == nil {
		return fmt.Errorf("%w: nil query", ErrInvalid)
	}
	if q.Top < 0 {
		return fmt.Errorf("%w: negative top %d", ErrInvalid, q.Top)
	}
	for _, name := range q.Select {
		if reservedProperty(name) {
			continue
		}
		if err := ValidatePropertyName(name); err != nil {
			return err
		}
	}
	return ValidateFilter(q.Filter)
}

// SplitBatches cuts operations on one partition, in order, into batches of
// at most MaxBatchOps operations and at most maxBytes of entities (by
// EntitySize; a single larger operation is a batch of its own). Callers
// pass a margin under MaxBatchBytes for the request's own framing.
func SplitBatches(ops []Operation, maxBytes int) [][]Operation {
	var out [][]Operation
	var cur []Operation
	size := 0
	for _, op := range ops {
		es := EntitySize(op.Entity)
		if len(cur) > 0 && (len(cur)+1 > MaxBatchOps || size+es > maxBytes) {
			out = append(out, cur)
			cur, size = nil, 0
		}
		cur = append(cur, op)
		size += es
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}
