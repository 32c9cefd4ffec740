// Package catalog holds sqlgw's schema (databases, tables, columns, keys,
// secondary indexes) and the mapping of SQL rows to store entities and back.
// It lives in the store itself and imports only storage: it never imports
// go-mysql-server. The gateway converts go-mysql-server types to Type and
// values to Datum.
//
// # Type model
//
// Type describes a column: a Kind (integers of every width signed or
// unsigned, DECIMAL(p,s), FLOAT, DOUBLE, CHAR(n), VARCHAR(n), the TEXT
// kinds, BINARY(n), VARBINARY(n), the BLOB kinds, DATE, DATETIME(fsp),
// TIMESTAMP(fsp), TIME(fsp), YEAR, ENUM, SET, BIT(n), JSON) with its
// parameters and collation. Datum is the Go value of one SQL value; its
// representation per kind is fixed (see Datum).
//
// # Keys
//
// The primary key becomes (PartitionKey, RowKey). By default the leading
// primary-key column is the partition key and the others, in key order,
// form the RowKey. A table comment "sqlgw: partition_key=(a,b)" (see
// ParseTableOptions; the gateway passes the parsed list in
// TableDef.PartitionKey) names other primary-key columns instead. Each key
// is the concatenation of its columns' components in the format of package
// keys (printable, order-preserving, prefix-free); a DESC key column stores
// the complemented (descending) component. A key longer than the store's
// limit (storage.Capabilities().Limits.KeyLimit()) is an error naming the
// table and column, wrapping storage.ErrInvalidKey; keys are never truncated.
//
// Key columns must compare as their bytes: binary kinds, text with a NO
// PAD binary collation (utf8mb4_0900_bin, go-mysql-server's default), or
// text with a PAD SPACE binary collation (utf8mb4_bin, latin1_bin, ...),
// whose key drops trailing spaces and orders as MySQL pads
// (keys.EncodeStringPadAscending; DecodeKey then returns the value without
// trailing spaces, DecodeRow the exact one). Case- and accent-insensitive
// collations (_ci, _ai) need the collation's weights: the gateway
// registers go-mysql-server's per-rune weights with RegisterCollation, and
// a collation registered so, NO PAD ("_0900_") or PAD SPACE
// (utf8mb4_general_ci, utf8mb4_unicode_ci), is keyed by its weight
// sequence (keys.EncodeWeightsAscending), which orders and deduplicates
// exactly as the engine compares ('a' and 'A' are one key under _ci; the
// engine does not pad, so neither do these keys: 'a' < 'a ').
// Unregistered ones are rejected for key and index columns with
// ErrUnsupported: the catalog has no weight tables of its own, and an
// approximate weight would make distinct values collide or equal ones
// differ.
//
// A salted table (TableDef.SaltBuckets = n, salt.go) stores its
// PartitionKeys behind a bucket component: keys.EncodeUintAscending(
// FNV-1a-32(pk) mod n) + pk, pk being the key above (golden bytes in
// salt.go and TestSaltGolden: with n = 8, INT 7 is "a1a7"). EncodeKey
// returns the stored key, DecodeKey accepts it, and PartitionPrefix (the
// planner's EncodeKey) stays logical: Salt and Unsalt convert.
//
// Keyless tables store every row in the partition "" under a generated,
// unique, time-ordered RowKey (a string component of 32 hex digits: Unix
// nanoseconds, then randomness), so a multi-row INSERT is one batch.
//
// The catalog's own records (the Table JSON, the entities of the catalog
// table) and the row layout below are persisted formats, like the key
// encoding: fields are only ever added.
//
// # Values
//
// Each column, key or not, is one property (key columns are stored as
// properties too, so rows decode without parsing keys and filters can test
// them). NULL is an absent property. Per kind (property type; comparisons
// pushed down to the store with results identical to SQL):
//
//	integers (signed, unsigned < 2^32)  Int32 or Int64      all
//	BIGINT UNSIGNED, BIT(64)        Int64 of v XOR 2^63 (order-preserving)  all
//	BIT(n<64), SET                  Int64                   BIT: all; SET: eq, ne
//	YEAR                            Int32                   all
//	ENUM                            Int32 index             eq, ne (MySQL orders ENUM by
//	                                                        index but compares it with
//	                                                        strings as text)
//	FLOAT, DOUBLE                   Double                  all (values are never NaN)
//	DECIMAL                         String, the key encoding of package keys
//	                                (order-preserving, exact)  all
//	DATE, DATETIME, TIMESTAMP       String "YYYY-MM-DD" / "YYYY-MM-DDThh:mm:ss.ffffff"
//	                                (the full MySQL range, unlike Edm.DateTime)  all
//	TIME                            Int64 microseconds      all
//	CHAR, VARCHAR                   String                  eq, ne with a NO PAD binary
//	                                                        collation; none otherwise
//	                                                        (the store orders by UTF-16
//	                                                        units, MySQL by code point)
//	BINARY, VARBINARY               Binary                  eq, ne
//	TEXT kinds, JSON                String, split           none
//	BLOB kinds                      Binary, split           none
//
// A row is written in one atomic batch only while its entities fit one
// batch (100 entities, 4 MiB); EncodeRow returns every entity of a larger
// row and the gateway decides how to write it.
//
// "Split" values longer than one property (32 Ki UTF-16 units or 64 KiB)
// continue in properties named "_<prop>_<n>" (n = 1, 2, ...), so a filter on
// the first property alone would be wrong: no pushdown. Column.Pushdown
// implements this table.
//
// # Property names
//
// A column's property name is derived from its name when the column is
// created (letters, digits and _ kept, anything else becomes _, truncated
// to 64 characters, a leading letter ensured by a "c" prefix when needed,
// "_<n>" appended on a collision), then stored in the catalog and never
// changed: renames keep it. User properties always start with a letter;
// names starting with _ belong to sqlgw (_n: number of continuation
// entities, _<prop>_<n>: continuation chunks, _pk and _rk: the base keys
// of an index entity). Names compare case-insensitively for uniqueness and
// never equal a reserved name (PartitionKey, RowKey, Timestamp, ETag) in
// any case. Properties of dropped columns are retired, never reused, since
// old entities still carry their values.
//
// # Wide rows
//
// A row whose properties exceed one entity (252 properties or 1 MiB) spans
// a main entity, RowKey rk, and continuation entities with RowKeys
// rk + "}" + an integer component (keys.EncodeUintAscending(1), 2, ...):
// they sort right after rk and before any other row, because rk is a
// complete, prefix-free key. The main entity's _n property counts them.
// Local secondary-index entities live in the same partitions under RowKeys
// starting with keys.LocalIndexPrefix ("~"), after every row.
//
// # Secondary indexes
//
// Index definitions (name, columns with direction, unique, local or
// global, covering columns, state) are part of the table record. The entity
// layout of index entries is in index.go: IndexEntity builds the entry of a
// row, IndexPrefix and IndexColumns build lookup keys and ranges,
// DecodeIndexEntity returns the base row's keys and the carried values.
// Index columns follow the key-column rules above; NULL is allowed.
// ParseIndexOptions reads an index comment ('sqlgw: global|local,
// cover=(a, b)'), ChooseIndexKind the default kind. Maintaining the
// entities (writes, crash recovery, verification, backfill) is package
// catalog/ixmaint; the _p property marks a global index entity a write has
// not settled yet.
//
// # Physical tables
//
// Each table's rows live in a physical table Prefix + "t" + 12 random
// base-36 characters, fresh for every CREATE and every TRUNCATE (the
// Table service keeps a deleted name unusable for a while). Global indexes
// get Prefix + "x" + 12 characters. The catalog itself is the table
// Prefix + "catalog". Members of a table group share their group's
// physical table, each under its own RowKey prefix (group.go has the
// format); their Physical names the group's table and the prefix.
//
// # Attached tables
//
// A table record with Attached set maps a store table sqlgw did not create
// (attached.go): raw PartitionKey/RowKey, Timestamp, one column per
// property by its EDM type (Column.Role, Column.Edm), a JSON column for
// the other properties, one plain entity per row. EncodeRow, DecodeRow,
// Select, Pushdown and Literal follow that mapping for such tables.
//
// # Persistence and concurrency
//
// The catalog table holds, in partition "c", the version entity (RowKey
// "v": the catalog version and the table-ID counter), one entity per
// database (RowKey "d" + the database's key component) and one per table
// (RowKey "t" + its ID component, the Table record as JSON in String
// properties of up to 32 Ki characters each). Every DDL is one atomic batch
// over these entities that updates the version entity with If-Match on the
// ETag it read: of two concurrent changes exactly one commits, and the
// other re-reads the catalog, re-applies its change (re-checking
// existence) and tries again, so no change is lost. AUTO_INCREMENT counters
// live in partition "a", one entity per table generation, updated
// with If-Match in blocks (Options.AutoIncrementBlock): values are unique
// across gateways but not gap-free, and a gateway keeps using the block it
// reserved even after another gateway saw a larger explicit value (MySQL's
// "counter continues above an explicit value" holds per gateway). A
// multi-row INSERT announces how many values it will take
// (WantAutoIncrement), and the next reservation covers them all: one
// synced write per statement instead of one per block.
//
// Reads are served from a cached snapshot. At most once per
// RefreshInterval (default 250 ms) a read first fetches the version entity
// (one Get) and reloads the partition if the version moved; Refresh forces
// the check. A read that finds the cache past half its interval uses it
// and starts the check in the background instead (refresh.go), so under a
// steady load no statement waits for it; the bound is the same. The
// gateway therefore pays no catalog request per query.
package catalog
