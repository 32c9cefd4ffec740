// Package storage is the entity-store contract every sqlgw backend implements.
//
// The contract mirrors the Azure Table model so that the embedded store
// (storage/pebble) and Azure Table Storage (storage/aztables) are
// interchangeable: a schema and a workload that work on one work on the other,
// with the same results and the same number of requests.
//
// # Model
//
// A Store holds tables. A table holds entities. An entity is addressed by
// (PartitionKey, RowKey), carries up to 252 typed properties, an opaque ETag
// that changes on every successful write, and a Timestamp set by the store.
// Entities of one partition can be written together in an atomic Batch.
//
// # Order
//
// Keys are compared ordinally by their UTF-16 code units, as the Table service
// does (this differs from UTF-8 byte order only for characters above U+FFFF,
// which sort below U+E000..U+FFFF). Query results come back in
// (PartitionKey, RowKey) order unless Capabilities().Unsorted is set.
//
// Reading backwards is an optional capability: a backend whose
// Capabilities().Reverse is set (the embedded Pebble store) accepts
// Query.Reverse and returns the same entities in descending (PartitionKey,
// RowKey) order, Top and continuations counting from the high end; the
// Table service cannot read backwards, so the Azure backend leaves it unset
// and rejects a reverse query with ErrInvalid. Callers (the planner) use it
// only where the capability is set and fall back to a forward read and a
// sort otherwise.
//
// Reading several queries of a table in one call is optional too
// (MultiQuerier, multiquery.go): the embedded store does, wrappers pass it
// on, and MultiQuery falls back to a loop of Query calls anywhere else; the
// answer is the loop's either way. So is reading several entities of a
// table in one call (MultiGetter, multiget.go: MultiGet, a loop of Get
// calls where a store does not). A store may lay out the tables its user
// reads by partition for those reads (PartitionReads, partitionreads.go:
// the embedded store's partition bloom filters); it changes no answer.
//
// # Errors
//
// Every method reports failures through the sentinel errors below, wrapped
// with context; callers test them with errors.Is and never by text:
//
//	ErrNotFound           the table or entity does not exist
//	ErrAlreadyExists      Insert or CreateTable of something that exists
//	ErrPreconditionFailed an If-Match ETag no longer matches
//	ErrTooLarge           a value, entity, batch or property count over a limit
//	ErrInvalidKey         a key with a forbidden character or over the length limit
//	ErrInvalid            any other malformed request (bad table or property
//	                      name, a batch that breaks the batch rules, a bad
//	                      continuation token, a DateTime out of range)
//	ErrUnavailable        the store is throttling or unreachable; retrying later
//	                      may succeed. Backends retry idempotent requests
//	                      themselves before returning it.
//	ErrOutcomeUnknown     a write whose request may or may not have been
//	                      applied (it timed out or its connection was lost
//	                      after it was sent, and the backend could not
//	                      retry it safely). It wraps ErrUnavailable.
//
// A failed Batch returns a *BatchError naming the failing operation; it wraps
// the operation's sentinel.
//
// # Concurrency
//
// A Store is safe for concurrent use by many goroutines. Single-entity writes
// and batches are atomic and linearizable per entity: two writers that both
// use If-Match with the ETag they read cannot both succeed.
//
// # Limits
//
// Limits (limits.go) are enforced identically by every backend, through the
// Validate functions of this package, before a request is sent: a request the
// Table service would reject is rejected by every backend, even one that could
// store it.
package storage

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"
	"unsafe"
)

// Sentinel errors. See the package documentation for which operation returns which.
var (
	ErrNotFound           = errors.New("storage: not found")
	ErrAlreadyExists      = errors.New("storage: already exists")
	ErrPreconditionFailed = errors.New("storage: precondition failed (ETag mismatch)")
	ErrTooLarge           = errors.New("storage: limit exceeded")
	ErrInvalidKey         = errors.New("storage: invalid key")
	ErrInvalid            = errors.New("storage: invalid request")
	ErrUnavailable        = errors.New("storage: unavailable (throttled or unreachable), retry later")
	// ErrOutcomeUnknown wraps ErrUnavailable: errors.Is(err,
	// ErrUnavailable) holds for it too.
	ErrOutcomeUnknown = fmt.Errorf("storage: outcome unknown, the write may or may not have been applied: %w", ErrUnavailable)
)

// BatchError reports which operation of a Batch failed. Index is the position
// of the failing operation in the slice passed to Batch (0-based), or -1 when
// the batch as a whole was rejected (empty, too many operations, too many
// bytes, or the table does not exist). An operation that breaks a batch rule
// on its own (a second partition, a second operation on one entity, an
// invalid entity) is named by its index, as ValidateBatch does. Err wraps one
// of the sentinel errors.
type BatchError struct {
	Index int
	Err   error
}

func (e *BatchError) Error() string {
	if e.Index < 0 {
		return fmt.Sprintf("storage: batch rejected: %v", e.Err)
	}
	return fmt.Sprintf("storage: batch operation %d failed: %v", e.Index, e.Err)
}

func (e *BatchError) Unwrap() error { return e.Err }

// ETag is an opaque entity version. Every successful write returns a new one.
type ETag string

// ETagAny matches any existing entity in Update and Delete (If-Match: *).
const ETagAny ETag = "*"

// Type is the EDM type of a property value.
type Type uint8

// The property types of the Table service. The zero Type is invalid.
const (
	TypeString   Type = iota + 1 // Edm.String: UTF-8 in Go, at most 64 KiB as UTF-16
	TypeInt32                    // Edm.Int32
	TypeInt64                    // Edm.Int64
	TypeDouble                   // Edm.Double
	TypeBoolean                  // Edm.Boolean
	TypeDateTime                 // Edm.DateTime: UTC, 100 ns precision, years 1601..9999
	TypeBinary                   // Edm.Binary: at most 64 KiB
	TypeGUID                     // Edm.Guid: 16 bytes
)

var typeNames = [...]string{"invalid", "Edm.String", "Edm.Int32", "Edm.Int64", "Edm.Double",
	"Edm.Boolean", "Edm.DateTime", "Edm.Binary", "Edm.Guid"}

func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// Value is one typed property value. Build values with the constructors
// (String, Int32, ...); the zero Value is invalid. Values are immutable:
// Binary and GUID values share the slice they were built from, so callers
// must not modify it afterwards.
//
// A Value is 32 bytes, not the 64 of one field per kind: every entity's
// Properties map holds one per property, and a bulk load builds a map per
// row and per index entry, so the map's slots (and their zeroing and the
// collector's scan) are half as large. i holds the integers, ticks and a
// Double's bits; s holds a String's text and a Binary or GUID value's bytes
// (the same memory, not a copy: see Binary).
type Value struct {
	typ Type
	i   int64  // Int32, Int64, Boolean (0/1), DateTime (ticks of 100 ns since 0001-01-01 UTC), Double (math.Float64bits)
	s   string // String; Binary, GUID (16 bytes): the retained slice's bytes
}

// String returns an Edm.String value.
func String(s string) Value { return Value{typ: TypeString, s: s} }

// Int32 returns an Edm.Int32 value.
func Int32(v int32) Value { return Value{typ: TypeInt32, i: int64(v)} }

// Int64 returns an Edm.Int64 value.
func Int64(v int64) Value { return Value{typ: TypeInt64, i: v} }

// Double returns an Edm.Double value.
func Double(v float64) Value { return Value{typ: TypeDouble, i: int64(math.Float64bits(v))} }

// Bool returns an Edm.Boolean value.
func Bool(v bool) Value {
	if v {
		return Value{typ: TypeBoolean, i: 1}
	}
	return Value{typ: TypeBoolean}
}

// ticksPerSecond is the number of DateTime ticks (100 ns) in a second.
const ticksPerSecond = 10_000_000

// unixEpochTicks is 1970-01-01T00:00:00Z in ticks since 0001-01-01T00:00:00Z.
const unixEpochTicks = 621_355_968_000_000_000

// DateTime returns an Edm.DateTime value; t is converted to UTC and truncated
// to 100 ns. Times outside 1601-01-01..9999-12-31 are rejected by
// ValidateEntity with ErrInvalid.
func DateTime(t time.Time) Value {
	sec := t.Unix()
	ticks := unixEpochTicks + sec*ticksPerSecond + int64(t.Nanosecond())/100
	return Value{typ: TypeDateTime, i: ticks}
}

// DateTimeTicks returns an Edm.DateTime value from ticks of 100 ns since
// 0001-01-01T00:00:00Z (the .NET DateTime.Ticks of a UTC time).
func DateTimeTicks(ticks int64) Value { return Value{typ: TypeDateTime, i: ticks} }

// Binary returns an Edm.Binary value. The slice is retained, not copied.
func Binary(b []byte) Value {
	return Value{typ: TypeBinary, s: bytesView(b)}
}

// GUID returns an Edm.Guid value from its 16 bytes in RFC 4122 (big-endian,
// textual) order.
func GUID(g [16]byte) Value {
	b := g // escapes: the Value keeps it
	return Value{typ: TypeGUID, s: bytesView(b[:])}
}

// bytesView is b's bytes as a string, sharing b's memory (Binary and GUID
// values are immutable by contract: nobody writes to b afterwards).
func bytesView(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// Type returns the value's type; 0 for the zero Value.
func (v Value) Type() Type { return v.typ }

// IsValid reports whether v was built by a constructor.
func (v Value) IsValid() bool { return v.typ != 0 }

// Str returns a String value's text ("" for other types).
func (v Value) Str() string {
	if v.typ != TypeString {
		return ""
	}
	return v.s
}

// Int returns the integer of an Int32, Int64 or Boolean value (0 or 1), or
// the ticks of a DateTime (0 for other types).
func (v Value) Int() int64 {
	if v.typ == TypeDouble {
		return 0
	}
	return v.i
}

// Float returns a Double value's number.
func (v Value) Float() float64 {
	if v.typ != TypeDouble {
		return 0
	}
	return math.Float64frombits(uint64(v.i))
}

// BoolValue returns a Boolean value's truth.
func (v Value) BoolValue() bool { return v.typ != TypeDouble && v.i != 0 }

// Bytes returns a Binary or GUID value's bytes. Callers must not modify them.
func (v Value) Bytes() []byte {
	switch {
	case v.typ != TypeBinary && v.typ != TypeGUID:
		return nil
	case len(v.s) == 0:
		return []byte{} // Binary(nil) and Binary([]byte{}) are an empty value, not NULL
	}
	return unsafe.Slice(unsafe.StringData(v.s), len(v.s))
}

// Ticks returns a DateTime value as 100 ns ticks since 0001-01-01T00:00:00Z.
func (v Value) Ticks() int64 { return v.i }

// Time returns a DateTime value as a UTC time.Time.
func (v Value) Time() time.Time {
	rel := v.i - unixEpochTicks
	sec := rel / ticksPerSecond
	rem := rel % ticksPerSecond
	if rem < 0 {
		rem += ticksPerSecond
		sec--
	}
	return time.Unix(sec, rem*100).UTC()
}

// GUIDValue returns a GUID value's 16 bytes.
func (v Value) GUIDValue() (g [16]byte) {
	if v.typ == TypeGUID {
		copy(g[:], v.s)
	}
	return g
}

// Equal reports whether two values have the same type and the same content.
// Doubles compare by bits, so NaN equals NaN and 0 differs from -0: this is
// identity, used to check round trips, not the filter's comparison.
func (v Value) Equal(w Value) bool {
	if v.typ != w.typ {
		return false
	}
	switch v.typ {
	case TypeString, TypeBinary, TypeGUID:
		return v.s == w.s
	default: // integers, ticks and a Double's bits: so NaN equals NaN, 0 differs from -0
		return v.i == w.i
	}
}

// GoString renders the value as the constructor call that builds it.
func (v Value) GoString() string {
	switch v.typ {
	case TypeString:
		return fmt.Sprintf("storage.String(%q)", v.s)
	case TypeInt32:
		return fmt.Sprintf("storage.Int32(%d)", v.i)
	case TypeInt64:
		return fmt.Sprintf("storage.Int64(%d)", v.i)
	case TypeDouble:
		return fmt.Sprintf("storage.Double(%g)", v.Float())
	case TypeBoolean:
		return fmt.Sprintf("storage.Bool(%t)", v.i != 0)
	case TypeDateTime:
		return fmt.Sprintf("storage.DateTime(%s)", v.Time().Format(time.RFC3339Nano))
	case TypeBinary:
		return fmt.Sprintf("storage.Binary(%x)", v.s)
	case TypeGUID:
		return fmt.Sprintf("storage.GUID(%x)", v.s)
	}
	return "storage.Value{}"
}

// Properties are an entity's user properties by name. A property that is not
// in the map is absent (SQL NULL, to the gateway).
type Properties map[string]Value

// Entity is one stored entity. PartitionKey and RowKey identify it; ETag and
// Timestamp are set by the store on reads and ignored on writes.
type Entity struct {
	PartitionKey string
	RowKey       string
	Properties   Properties
	ETag         ETag
	Timestamp    time.Time
}

// UpdateMode says what a write does to properties of an existing entity that
// the new entity does not carry.
type UpdateMode uint8

const (
	// Replace drops properties the new entity does not carry.
	Replace UpdateMode = iota
	// Merge keeps properties the new entity does not carry.
	Merge
)

func (m UpdateMode) String() string {
	if m == Merge {
		return "merge"
	}
	return "replace"
}

// Bound is one end of a key range. Exclusive excludes Key itself.
type Bound struct {
	Key       string
	Exclusive bool
}

// KeyRange is a range of PartitionKeys or RowKeys. A nil Low or High is
// unbounded on that side. The zero KeyRange is everything.
type KeyRange struct {
	Low, High *Bound
}

// Exactly returns the range holding the one key k.
func Exactly(k string) *KeyRange {
	return &KeyRange{Low: &Bound{Key: k}, High: &Bound{Key: k}}
}

// Single reports whether r holds exactly one key, and returns it.
func (r *KeyRange) Single() (string, bool) {
	if r == nil || r.Low == nil || r.High == nil || r.Low.Exclusive || r.High.Exclusive || r.Low.Key != r.High.Key {
		return "", false
	}
	return r.Low.Key, true
}

// Contains reports whether key k lies in r (ordinal UTF-16 order).
func (r *KeyRange) Contains(k string) bool {
	if r == nil {
		return true
	}
	if r.Low != nil {
		c := CompareKeys(k, r.Low.Key)
		if c < 0 || (c == 0 && r.Low.Exclusive) {
			return false
		}
	}
	if r.High != nil {
		c := CompareKeys(k, r.High.Key)
		if c > 0 || (c == 0 && r.High.Exclusive) {
			return false
		}
	}
	return true
}

// Query reads entities of one table.
type Query struct {
	// Partition restricts the PartitionKey; nil means every partition.
	// Exactly(pk) reads one partition.
	Partition *KeyRange
	// Row restricts the RowKey within every partition read; nil means all.
	Row *KeyRange
	// Filter is evaluated by the store; nil keeps every entity.
	Filter Expr
	// Select names the properties to return; nil returns all. PartitionKey,
	// RowKey, ETag and Timestamp are always returned. Names that no entity
	// carries are simply absent from the results.
	Select []string
	// Top caps the number of entities in this page (0: no cap beyond
	// MaxPageSize). A caller that needs n entities in total passes the
	// remainder with each continuation.
	Top int
	// Reverse returns the entities in descending (PartitionKey, RowKey)
	// order: the first page holds the highest keys of the range. Only
	// for a backend whose Capabilities().Reverse is set; others fail
	// with ErrInvalid.
	Reverse bool
	// Continuation resumes a query from the token of a previous Page; the
	// other fields must be the same as in the query that produced it.
	Continuation string
}

// Page is one page of query results.
type Page struct {
	// Entities in (PartitionKey, RowKey) order, at most min(Top, MaxPageSize).
	// A page may be short, or even empty, while Continuation is not: callers
	// follow Continuation until it is "".
	Entities []*Entity
	// Continuation is "" when the query is complete. It is a printable
	// string that can be stored and passed back later.
	Continuation string
}

// GetOptions modify Get.
type GetOptions struct {
	// Select names the properties to return; nil returns all.
	Select []string
}

// OpKind is the kind of one batch operation.
type OpKind uint8

const (
	OpInsert OpKind = iota + 1 // fails with ErrAlreadyExists if present
	OpUpsert                   // insert or update with Mode
	OpUpdate                   // update with Mode and IfMatch; ErrNotFound if absent
	OpDelete                   // delete with IfMatch; ErrNotFound if absent
	// OpCheck writes nothing: the entity must exist and match IfMatch
	// (ErrNotFound, ErrPreconditionFailed otherwise), so the other
	// operations of the write apply only while it is unchanged. Only in
	// a MultiBatcher's MultiBatch (see there); Store.Batch rejects it.
	OpCheck
)

func (k OpKind) String() string {
	switch k {
	case OpInsert:
		return "insert"
	case OpUpsert:
		return "upsert"
	case OpUpdate:
		return "update"
	case OpDelete:
		return "delete"
	case OpCheck:
		return "check"
	}
	return fmt.Sprintf("OpKind(%d)", uint8(k))
}

// Operation is one operation of a batch. For OpDelete and OpCheck only the
// entity's keys are used. IfMatch applies to OpUpdate, OpDelete and OpCheck:
// "" or ETagAny means unconditional (the entity must still exist).
type Operation struct {
	Kind    OpKind
	Mode    UpdateMode
	Entity  *Entity
	IfMatch ETag
}

// Capabilities describe how a backend differs from the Table service model.
type Capabilities struct {
	// Limits in force; both backends enforce at least DefaultLimits.
	Limits Limits
	// Unsorted is set when query results may come back in any order (the
	// Cosmos DB Table API); callers then sort themselves.
	Unsorted bool
	// Reverse is set when the backend answers Query.Reverse (reads a key
	// range backwards): the embedded Pebble store does, the Table service
	// does not.
	Reverse bool
	// Cost weighs the backend's work for the planner; the zero value
	// means AzureCost.
	Cost CostModel
	// InProcess is set when requests are served in the calling process
	// without a round trip (the embedded Pebble store): independent
	// requests then gain nothing from being sent in parallel, and the
	// goroutines that would send them cost scheduling and stack growth,
	// so callers send them one after another.
	InProcess bool
}

// CostModel is what reads cost on a backend, for the planner's choice
// between plans (package planner, Cost), in requests: a plan's score is
// requests + entities/EntitiesPerRequest + bytes/BytesPerRequest, the
// entities and bytes being those the store reads (server-side: a filter
// reduces what is returned, not what is read). A request is a round trip
// to the Table service; on the embedded store a seek (an iterator
// positioned, or a point get).
type CostModel struct {
	// EntitiesPerRequest is how many entities read cost one request (0:
	// entities do not count apart).
	EntitiesPerRequest float64
	// BytesPerRequest is how many bytes read and decoded cost one request
	// (0: bytes do not count apart).
	BytesPerRequest float64
}

// AzureCost is the Table service's model: requests (billing, latency)
// and entities read server-side (the scalability targets are in
// entities: about 2,000 per second per partition, 20,000 per account, a
// budget every client shares); the bytes do not count apart. Ten
// entities weigh one request: a round trip costs about as much time as
// receiving a hundred entities of a page, and a scan spends the table's
// worth of the shared budget.
var AzureCost = CostModel{EntitiesPerRequest: 10}

// PebbleCost is the embedded store's model: seeks and bytes. A seek (a
// point get or a positioned iterator: block index lookups, a block
// decompressed) costs about as much as reading and decoding 2.5 KB of
// entities sequentially; there is no per-entity budget. For entities of
// the planner's default size (256 bytes) this is AzureCost's ratio, so
// both backends choose alike; with larger entities (ANALYZE measures
// them) Pebble leans to fewer bytes, Azure does not care.
var PebbleCost = CostModel{BytesPerRequest: 2560}

// Store is the entity-store contract. See the package documentation for
// ordering, concurrency and errors. All methods honour ctx cancellation.
type Store interface {
	// CreateTable creates an empty table. Names follow the Table service's
	// rules (ValidateTableName) and are case-insensitive.
	// Errors: ErrAlreadyExists, ErrInvalid.
	CreateTable(ctx context.Context, table string) error
	// DeleteTable deletes a table and every entity in it in one operation.
	// Errors: ErrNotFound.
	DeleteTable(ctx context.Context, table string) error
	// ListTables returns every table's name, as created, in case-insensitive
	// ordinal order.
	ListTables(ctx context.Context) ([]string, error)
	// TableExists reports whether a table exists.
	TableExists(ctx context.Context, table string) (bool, error)

	// Get returns one entity. Errors: ErrNotFound (table or entity), ErrInvalidKey.
	Get(ctx context.Context, table, pk, rk string, opts *GetOptions) (*Entity, error)
	// Insert adds an entity that must not exist and returns its ETag.
	// Errors: ErrAlreadyExists, ErrNotFound (table), ErrTooLarge, ErrInvalidKey, ErrInvalid.
	Insert(ctx context.Context, table string, e *Entity) (ETag, error)
	// Upsert inserts e, or updates the existing entity with mode.
	// Errors: ErrNotFound (table), ErrTooLarge, ErrInvalidKey, ErrInvalid.
	Upsert(ctx context.Context, table string, e *Entity, mode UpdateMode) (ETag, error)
	// Update changes an existing entity with mode, if its ETag matches
	// ifMatch ("" or ETagAny: any). Errors: ErrNotFound (table or entity),
	// ErrPreconditionFailed, ErrTooLarge, ErrInvalidKey, ErrInvalid.
	Update(ctx context.Context, table string, e *Entity, mode UpdateMode, ifMatch ETag) (ETag, error)
	// Delete removes an existing entity if its ETag matches ifMatch (""
	// or ETagAny: any). Errors: ErrNotFound, ErrPreconditionFailed, ErrInvalidKey.
	Delete(ctx context.Context, table, pk, rk string, ifMatch ETag) error
	// Batch applies up to MaxBatchOps operations on distinct entities of one
	// partition atomically: all succeed, or none has any effect and the
	// error is a *BatchError. On success it returns one ETag per operation
	// ("" for deletes).
	Batch(ctx context.Context, table string, ops []Operation) ([]ETag, error)
	// Query returns one page of a query. Errors: ErrNotFound (table),
	// ErrInvalid (bad continuation or filter).
	Query(ctx context.Context, table string, q *Query) (*Page, error)

	// Capabilities describes the backend.
	Capabilities() Capabilities
	// Close releases the store. Writes that returned before Close are durable
	// (for durable backends).
	Close() error
}
