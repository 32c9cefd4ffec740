// Package planner turns a SQL predicate over one table into the cheapest
// requests the entity store allows, and the residual filter the engine must
// still apply. It is pure: it imports no engine and no backend, only the
// storage request types, and sees the table through a narrow interface
// (Table) that sqlgw implements over the catalog's record.
//
// # Input and output
//
// sqlgw converts each top-level conjunct of go-mysql-server's filter into the
// predicate IR (Expr: Cmp, In, Prefix, IsNull, And, Or, Not, Const, Opaque;
// column references are ordinals, literals are Datums) and calls Build. The Plan
// names the access path (docs/architecture.md's table: PointGet, MultiGet, RowRange,
// PartitionScan, PartitionRange, IndexLookup, IndexRange, TableScan, plus
// Empty for a contradiction; IndexAccess describes the index read of the
// secondary-index paths, see index.go), carries the store requests (Gets,
// or storage.Query values with key ranges, the pushed filter, $select and
// Top), the order rows arrive in, and Residual: the indexes of the conjuncts
// the engine must keep. A conjunct is dropped from Residual only when the
// requests return exactly the rows it accepts. Plan.String is EXPLAIN.
//
// # Soundness of the pushed filter
//
// The filter sent to the store is implied by the predicate: it may keep rows
// SQL drops (the engine drops them again), never the reverse. SQL is three
// valued and WHERE keeps TRUE; the store's filter is two valued, an absent
// property (SQL NULL) making every comparison false and Not inverting that
// (storage.Expr). For every IR node the planner derives two store filters:
// T, true for every row where the node is TRUE, and F, true for every row
// where it is FALSE, each flagged exact when it is also false elsewhere.
// NOT swaps them; AND may drop operands of its T (a weaker filter) but needs
// every operand's F for its F (an OR cannot lose a branch); OR the reverse.
// So "x <> 5" is T = (x ne 5), exact (absent: ne is false; SQL: NULL <> 5 is
// unknown, the row is dropped); "NOT (x = 5)" is F(x = 5) = (x ne 5), not
// not (x eq 5), which would also keep the rows where x is NULL; and
// "NOT (x <=> 5)" is not (x eq 5), exactly. "x IS NULL" is pushed as
// not (x eq v) and not (x ne v) for a value v of x's type: a stored value is
// always eq or ne to v, so the pair is true exactly when the property is
// absent, by the contract's rule for absent properties (the Table service
// and Azurite behave so; see docs/azure-table-service.md).
//
// Prefix (LIKE 'abc%') is the range ['abc', 'abd'): a key range on a key
// column, a range filter where the store orders the column; any other LIKE
// is Opaque.
//
// Collated key and index columns (case- or accent-insensitive, PAD SPACE)
// are planned in their key space: Build first rewrites the literals they
// are compared with into collation keys (Column.Collation), widening the
// ranges where the keys are not exact and keeping those conjuncts
// residual; see collate.go. Comparisons on collated columns never go into
// a store filter (the store compares bytes); collate.go says why there is
// no normalised shadow property.
//
// Literals are converted to the column's kind only where the conversion is
// exact: an integer column against 5.0 or 5e0 compares with 5; against 5.5,
// "=" is never true and "<" becomes "<= 5"; a DATE against a DATETIME with a
// time of day likewise. A string compared with a number, a non-binary
// collation (Column.Collated), or a column whose stored form does not
// compare like SQL (Column.Pushdown) stays with the engine (key columns with
// a Collation excepted, above).
//
// At most storage.MaxFilterComparisons comparisons go into one filter:
// exact conjuncts first, then the others, each in order while it fits. A
// single-column conjunct that does not fit is replaced by the bounds of the
// values it allows (x IN (1, ..., 20) by x ge 1 and x le 20), unless it is
// TRUE for NULL; it then stays residual.
//
// # Key constraints
//
// Every conjunct yields, per column it constrains, the set of values for
// which it can be TRUE (a union of intervals, NULL included or not); the
// sets of all conjuncts are intersected, and an empty set is a
// contradiction: the Empty path, no request. Key columns (the
// PartitionKey's, then the RowKey's) are then used in order: an equality
// prefix (cross products of IN lists, or the tuples of an OR of equalities
// such as (a = 1 AND b = 2) OR (a = 3 AND b = 4)), up to MaxKeys keys, then
// at most one column with ranges, turned into key bounds with
// Table.EncodeKey and Table.PrefixEnd (flipped for a Desc column). The
// whole key bound gives Gets; the partition key bound gives one query per
// partition (RowKey ranges within it); otherwise the partition key's own
// constraints give PartitionKey ranges, with the RowKey's constraints as
// one RowKey range applied within every partition when they make one.
// Predicates on later key columns go into the filter (key columns are
// properties too) or stay residual. Every query stays below
// Table.RowKeyEnd, where the catalog keeps local index entities.
//
// # Cost
//
// A plan's cost is its store requests and the entities the store reads
// server-side (a filter reduces what is returned, not what is read),
// estimated from Stats: the row count (default 10,000), the partition count
// (default 100 rows per partition) and, after ANALYZE TABLE, the rows per
// value of each index's leading column (Stats.RowsPerValue; IndexRowsPerValue
// before) and the bounds of numeric and temporal leading columns
// (Stats.Bounds: a range keeps the share of [min, max] it covers), and the
// rows of the leading column's most frequent values (Stats.TopValues: an
// equality on a value most rows hold is costed as such); fixed
// selectivities otherwise: an equality on a key column keeps 1/10, a range
// 1/3; a page holds storage.MaxPageSize entities; Top caps what
// is read only when every entity read is returned. When enumerating key
// values fans out into several queries, the planner also costs plans using
// fewer key columns (never dropping a bound partition key, whose point
// queries are the store's cheap unit) and keeps the cheapest by
// Cost.ScoreFor with the backend's weights (Query.Cost, from
// storage.Capabilities.Cost; the zero model is the Table service's):
//
//	Azure (storage.AzureCost)    requests + entities/10
//	Pebble (storage.PebbleCost)  seeks + bytes/2,560
//
// On Azure a request is a round trip (billing, latency) and the entities
// are those read server-side, counted against the Table service's
// throughput targets (about 2,000 entities/s per partition, 20,000/s per
// account, each Get one entity): ten entities weigh one request
// (see plan.go for why). On Pebble a request is a seek (an iterator
// positioned, or a point get) and what is read costs by its bytes
// (Cost.Bytes: the entities times Stats.EntityBytes, the average entity
// size ANALYZE TABLE measures, at least 256 bytes: a smaller entity still
// costs its share of decoding and of the block read): a seek weighs about
// 2.5 KB read and decoded. At the default entity size the two models give
// the same scores, so both backends choose the same plans (which the
// golden EXPLAIN files and the matrix test rely on); with large entities
// Pebble prefers reading fewer of them (an index over a scan), where the
// Table service, whose budget is in entities whatever their size, does
// not (TestCostModelPerBackend). So a 10-value IN on an indexed column is 10
// index reads plus the base gets, not a scan with a 10-way OR that reads
// the whole table. Whole-key equalities always become PointGet or
// MultiGet (docs/architecture.md).
//
// # Order
//
// The store returns entities in (PartitionKey, RowKey) order; requests are
// listed in key order, so a keyed table's rows arrive in key order
// (Plan.Order: the key columns, descending where the key column is Desc).
// Plan.OrderSatisfied reports that an ORDER BY needs no sort, ignoring
// columns bound to one value. LIMIT becomes the queries' Top only when no
// sort is needed and nothing is residual.
//
// An ORDER BY that is the exact reverse of the key order (ORDER BY k DESC
// on an ascending key, within a partition or across the whole key, or
// ORDER BY ts on PRIMARY KEY (host, ts DESC)) is read backwards
// (Plan.Reverse): Gets are listed in descending key order on any store,
// and queries are listed backwards and sent with storage.Query.Reverse,
// but only when Query.Reverse says the store can read backwards
// (storage.Capabilities.Reverse: the embedded Pebble store can; the Table
// service cannot, so on Azure the planner keeps the forward read and the
// engine sorts, reading every row in range). Under a LIMIT the backwards
// read carries Top = LIMIT, so ORDER BY k DESC LIMIT n reads n entities.
// Secondary indexes follow the same rule through their view (index.go): a
// DESC index column (KEY (b DESC), stored in descending order) serves
// ORDER BY b DESC LIMIT n by a forward read on both backends, and an
// ascending index serves it by a backwards read on Pebble.
//
// # Templates
//
// A statement planned once and executed with other values (sqlgw's plan
// cache) need not be planned again: Prepare makes a Template of a query
// and Template.Bind returns Build's plan for new values of its literals,
// or declines (the caller then calls Build): key plans re-run only the
// key planning (a PointGet only encodes its key), and index plans encode
// the new index keys once the statistics and the number of distinct
// values prove the planner would choose the same index (values with a
// duplicate among them bind from a plan kept for their number of
// distinct values: a variant). bind.go says why each shortcut gives
// Build's answer; bind_test.go compares them.
//
// # Salted tables
//
// A salted table's PartitionKeys carry a hashed bucket prefix: the plan is
// built on logical keys, then its requests are rewritten per bucket, and
// a PartitionKey range or scan becomes one query per bucket, merged in
// key order by the reader (Plan.Groups; salt.go), or in reverse key
// order when the plan reads backwards (each bucket's query reads
// backwards).
package planner
