package catalog

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sqlgw/sqlgw/storage"
)

// Errors returned by the catalog. Callers test them with errors.Is; the
// gateway maps them to MySQL error codes.
var (
	ErrDatabaseExists = errors.New("catalog: database exists")
	ErrNoDatabase     = errors.New("catalog: unknown database")
	ErrTableExists    = errors.New("catalog: table exists")
	ErrNoTable        = errors.New("catalog: unknown table")
	ErrColumnExists   = errors.New("catalog: duplicate column")
	ErrNoColumn       = errors.New("catalog: unknown column")
	ErrIndexExists    = errors.New("catalog: duplicate index")
	ErrNoIndex        = errors.New("catalog: unknown index")
	// ErrInvalidDef is a table, column or index definition the catalog
	// rejects (bad partition_key option, partition column outside the
	// primary key, duplicate key column, ...).
	ErrInvalidDef = errors.New("catalog: invalid definition")
	// ErrUnsupported is a definition or change sqlgw cannot store
	// correctly yet (a key column with a case-insensitive collation, an
	// ALTER that would need the stored encoding rewritten).
	ErrUnsupported = errors.New("catalog: unsupported")
	// ErrValue is a Datum that does not fit its column (wrong Go type, out of
	// range, a stored property that does not decode).
	ErrValue = errors.New("catalog: invalid value")
	// ErrConflict is returned when a DDL change kept conflicting with
	// concurrent changes after Options.MaxRetries attempts.
	ErrConflict = errors.New("catalog: too many concurrent changes, retry")
)

// Kind is the SQL type of a column, without its parameters.
type Kind uint8

// The column kinds. Values are part of the persisted catalog format: never
// renumber, only append.
const (
	KindInvalid    Kind = iota
	KindInt8            // TINYINT
	KindInt16           // SMALLINT
	KindInt24           // MEDIUMINT
	KindInt32           // INT
	KindInt64           // BIGINT
	KindDecimal         // DECIMAL(Precision, Scale)
	KindFloat           // FLOAT (single precision)
	KindDouble          // DOUBLE
	KindChar            // CHAR(Length)
	KindVarchar         // VARCHAR(Length)
	KindTinyText        // TINYTEXT
	KindText            // TEXT
	KindMediumText      // MEDIUMTEXT
	KindLongText        // LONGTEXT
	KindBinary          // BINARY(Length)
	KindVarbinary       // VARBINARY(Length)
	KindTinyBlob        // TINYBLOB
	KindBlob            // BLOB
	KindMediumBlob      // MEDIUMBLOB
	KindLongBlob        // LONGBLOB
	KindDate            // DATE
	KindDatetime        // DATETIME(FSP)
	KindTimestamp       // TIMESTAMP(FSP)
	KindTime            // TIME(FSP)
	KindYear            // YEAR
	KindEnum            // ENUM(Values...)
	KindSet             // SET(Values...)
	KindBit             // BIT(Length)
	KindJSON            // JSON
	numKinds
)

var kindNames = [...]string{"invalid", "tinyint", "smallint", "mediumint", "int", "bigint",
	"decimal", "float", "double", "char", "varchar", "tinytext", "text", "mediumtext",
	"longtext", "binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob", "date",
	"datetime", "timestamp", "time", "year", "enum", "set", "bit", "json"}

func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// IsInteger reports whether k is one of the integer kinds.
func (k Kind) IsInteger() bool { return k >= KindInt8 && k <= KindInt64 }

// IsText reports whether values of k are strings with a collation.
func (k Kind) IsText() bool { return k >= KindChar && k <= KindLongText }

// IsBinary reports whether values of k are byte strings.
func (k Kind) IsBinary() bool { return k >= KindBinary && k <= KindLongBlob }

// IsLarge reports whether a value of k may exceed one property (64 KiB) and
// is then split over several (TEXT and BLOB kinds, JSON).
func (k Kind) IsLarge() bool {
	switch k {
	case KindTinyText, KindText, KindMediumText, KindLongText,
		KindTinyBlob, KindBlob, KindMediumBlob, KindLongBlob, KindJSON:
		return true
	}
	return false
}

// Collations the catalog knows by behaviour. Any other collation name is
// accepted for non-key columns and treated as "not binary".
const (
	CollationBinary      = "binary"           // BINARY/VARBINARY/BLOB: bytes, NO PAD
	CollationUTF8MB4Bin  = "utf8mb4_0900_bin" // code point order, NO PAD (go-mysql-server's default)
	CollationDefaultText = CollationUTF8MB4Bin
)

// Type describes a column's SQL type. The gateway converts
// go-mysql-server's types to it; the catalog never imports go-mysql-server.
type Type struct {
	Kind Kind `json:"k"`
	// Unsigned marks UNSIGNED integer kinds.
	Unsigned bool `json:"u,omitempty"`
	// Precision and Scale of DECIMAL (Precision 1..65, Scale 0..30).
	Precision int `json:"p,omitempty"`
	Scale     int `json:"s,omitempty"`
	// Length of CHAR/VARCHAR (characters), BINARY/VARBINARY (bytes) and BIT (bits).
	Length int `json:"n,omitempty"`
	// FSP is the fractional seconds precision (0..6) of DATETIME, TIMESTAMP, TIME.
	FSP int `json:"f,omitempty"`
	// TimeFSP marks a TIME column whose FSP is its declared precision (TIME
	// is TIME(0); the gateway rounds values to FSP digits when it writes
	// them). Records written before the gateway supported TIME(n) lack it:
	// there TIME and TIME(6) both have FSP 0 and values keep microseconds.
	// Added later: absent in older records.
	TimeFSP bool `json:"tf,omitempty"`
	// Values are the members of ENUM and SET, in declaration order.
	Values []string `json:"v,omitempty"`
	// Collation of text kinds (e.g. utf8mb4_0900_bin, utf8mb4_0900_ai_ci);
	// "" means CollationDefaultText. Binary kinds use "binary".
	Collation string `json:"c,omitempty"`

	// unpaddedKey marks a column of a table whose KeyFormat predates
	// KeyFormatPadSpace: a PAD SPACE weighted collation keys the value
	// with its trailing spaces (Table.KeyFormat). Set by Table.derive from
	// the table record; not persisted.
	unpaddedKey bool
}

// Key formats of a table's text key components (Table.KeyFormat).
const (
	// KeyFormatUnpadded (0, records without a format) keys the values of
	// every weighted collation with all their weights.
	KeyFormatUnpadded = 0
	// KeyFormatPadSpace keys the values of a PAD SPACE weighted collation
	// without their trailing spaces (Type.keyWeights).
	KeyFormatPadSpace = 1
	// KeyFormatCurrent is the format of tables created now.
	KeyFormatCurrent = KeyFormatPadSpace
)

// String renders t in SQL syntax, e.g. "bigint unsigned", "decimal(65,30)".
func (t Type) String() string {
	s := t.Kind.String()
	switch t.Kind {
	case KindDecimal:
		s = fmt.Sprintf("decimal(%d,%d)", t.Precision, t.Scale)
	case KindChar, KindVarchar, KindBinary, KindVarbinary, KindBit:
		s = fmt.Sprintf("%s(%d)", s, t.Length)
	case KindDatetime, KindTimestamp, KindTime:
		if t.FSP > 0 {
			s = fmt.Sprintf("%s(%d)", s, t.FSP)
		}
	case KindEnum, KindSet:
		q := make([]string, len(t.Values))
		for i, v := range t.Values {
			q[i] = "'" + strings.ReplaceAll(v, "'", "''") + "'"
		}
		s = s + "(" + strings.Join(q, ",") + ")"
	}
	if t.Unsigned {
		s += " unsigned"
	}
	if t.Kind.IsText() && t.Collation != "" {
		s += " collate " + t.Collation
	}
	return s
}

// collation returns the effective collation name.
func (t Type) collation() string {
	if t.Kind.IsBinary() {
		return CollationBinary
	}
	if t.Collation == "" {
		return CollationDefaultText
	}
	return t.Collation
}

// BinaryCollation reports whether values of t compare as their bytes with
// NO PAD semantics: binary kinds, and text with utf8mb4_0900_bin (or any
// other "*_0900_bin"). Only such columns can be key columns, and only their
// equality comparisons are pushed down to the store. (utf8mb4_bin and other
// older "_bin" collations are PAD SPACE: 'a' = 'a ', so they are not binary.)
func (t Type) BinaryCollation() bool {
	if t.Kind.IsBinary() {
		return true
	}
	if !t.Kind.IsText() {
		return false
	}
	c := t.collation()
	return c == CollationBinary || strings.HasSuffix(c, "_0900_bin")
}

// padBin reports whether t is text with a PAD SPACE binary collation
// (utf8mb4_bin, latin1_bin, ascii_bin, ...: every "_bin" collation but the
// 0900 ones): byte order, but trailing spaces ignored. Such columns can be
// key columns (keys.EncodeStringPadAscending); comparisons on them are not
// pushed down ('a' = 'a ' in SQL, not in the store).
func (t Type) padBin() bool {
	return t.Kind.IsText() && !t.BinaryCollation() && strings.HasSuffix(t.collation(), "_bin")
}

// Datum is the Go value of one SQL value, as the catalog encodes and
// decodes it. The representation per kind is fixed (see the package doc):
//
//	NULL                              nil
//	signed integers                   int64
//	unsigned integers                 uint64
//	FLOAT, DOUBLE                     float64
//	DECIMAL                           decimal.Decimal (github.com/shopspring/decimal)
//	CHAR, VARCHAR, TEXT kinds         string
//	BINARY, VARBINARY, BLOB kinds     []byte
//	DATE, DATETIME, TIMESTAMP         time.Time (UTC, microsecond precision)
//	TIME                              int64 microseconds, -838:59:59..838:59:59
//	YEAR                              int64, 0 or 1901..2155
//	ENUM                              uint64, 1-based index of the member (0: the '' error value)
//	SET                               uint64 bitmask
//	BIT                               uint64
//	JSON                              string (JSON text)
type Datum = any

// Column is one column of a table.
type Column struct {
	// Name as declared; lookups are case-insensitive, as MySQL's.
	Name string `json:"name"`
	Type Type   `json:"type"`
	// Nullable is false for NOT NULL columns (every primary-key column).
	Nullable bool `json:"null,omitempty"`
	// Default is the DEFAULT expression as SQL text, kept for the gateway;
	// HasDefault tells an absent default from DEFAULT ''.
	Default    string `json:"def,omitempty"`
	HasDefault bool   `json:"hasdef,omitempty"`
	// AutoIncrement marks the AUTO_INCREMENT column.
	AutoIncrement bool   `json:"ai,omitempty"`
	Comment       string `json:"comment,omitempty"`
	// OnUpdate is the ON UPDATE expression as SQL text ("" for none).
	// Generated is the expression of a GENERATED ALWAYS AS column ("" for
	// an ordinary column); Virtual marks a VIRTUAL one (its property is
	// still written, but readers never trust it: the engine recomputes
	// it). The catalog keeps them as text; the gateway hands them to the
	// engine, which evaluates them (sqlgw/engine/generated_check_onupdate.go). Added later:
	// absent in older records, which therefore mean "none".
	OnUpdate  string `json:"onupd,omitempty"`
	Generated string `json:"gen,omitempty"`
	Virtual   bool   `json:"virt,omitempty"`
	// Property is the store property name, assigned by the catalog when the
	// column is created and never changed afterwards (renames keep it).
	// Ignored in definitions passed to CreateTable/AddColumn.
	Property string `json:"prop,omitempty"`
	// Attached tables only (attached.go): the column's role, the EDM type
	// of its property, whether scanned entities disagreed on that type
	// (Mixed: no comparison is pushed down), and whether ALTER TABLE fixed
	// the type (Pinned: refreshes keep it). Added later: absent elsewhere.
	Role   Role         `json:"role,omitempty"`
	Edm    storage.Type `json:"edm,omitempty"`
	Mixed  bool         `json:"mixed,omitempty"`
	Pinned bool         `json:"pin,omitempty"`
}

// KeyPart is one column of a primary key or index.
type KeyPart struct {
	Column string `json:"col"`
	Desc   bool   `json:"desc,omitempty"`
}

// IndexState is the lifecycle state of a secondary index.
type IndexState uint8

// Index states. Part of the persisted format.
const (
	// IndexBuilding: writers maintain the index, a backfill is running, and
	// the planner must not read it.
	IndexBuilding IndexState = iota + 1
	// IndexReady: complete; the planner may use it.
	IndexReady
)

func (s IndexState) String() string {
	switch s {
	case IndexBuilding:
		return "building"
	case IndexReady:
		return "ready"
	}
	return fmt.Sprintf("IndexState(%d)", uint8(s))
}

// Index is a secondary index.
type Index struct {
	Name    string    `json:"name"`
	Columns []KeyPart `json:"cols"`
	Unique  bool      `json:"unique,omitempty"`
	// Global indexes live in their own physical table (Physical), keyed by
	// the indexed values; local ones live in the base row's partition under
	// RowKeys starting with keys.LocalIndexPrefix.
	Global bool `json:"global,omitempty"`
	// Covering names extra columns whose values index entities duplicate.
	Covering []string   `json:"cover,omitempty"`
	State    IndexState `json:"state"`
	// ID is unique within the table, assigned by the catalog; local index
	// entities carry it in their RowKey prefix.
	ID uint32 `json:"id"`
	// Physical is the physical table of a global index, assigned by the catalog.
	Physical string `json:"phys,omitempty"`
	// ReadyVersion is the catalog version whose change made the index
	// IndexReady (SetIndexState; 0: ready when created, with its table, or
	// made ready before versions were recorded). A read at a store
	// snapshot taken while the catalog was at an older version must not
	// use the index: its entities were backfilled with the rows' values
	// at build time, not the snapshot's (sqlgw/engine/snapshot.go).
	ReadyVersion uint64 `json:"rver,omitempty"`
}

// TableDef is the input to CreateTable.
type TableDef struct {
	Name    string
	Columns []Column
	// PrimaryKey columns in key order; empty for a keyless table.
	PrimaryKey []KeyPart
	// PartitionKey, if non-nil, names the primary-key columns that form the
	// PartitionKey, in this order (from a `sqlgw: partition_key=(a,b)`
	// comment, see ParseTableOptions, or PARTITION BY KEY). They may be any
	// non-empty subset of the primary key (all of it gives an empty RowKey:
	// one row per partition); the remaining primary-key columns, in
	// primary-key order, form the RowKey. Nil applies the default rule: the
	// leading primary-key column. Must be nil for a keyless table.
	PartitionKey []string
	Indexes      []Index
	Comment      string
	Collation    string
	// AutoIncrement is the first value of the AUTO_INCREMENT counter (0: 1).
	AutoIncrement uint64
	// Group, if set, makes the table a member of that table group
	// (group.go, the table option group=name).
	Group string
	// SaltBuckets, above 1, spreads the partitions over that many hashed
	// buckets (salt.go); 0 or 1: not salted. A keyed, non-attached table
	// only; at most MaxSaltBuckets.
	SaltBuckets int
}
