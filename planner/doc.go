// Package planner turns a SQL predicate over one table into the cheapest
// requests the entity store allows, and the residual filter the engine must
// still apply. It is pure: it imports no engine and no backend, only the
// storage request types and a narrow view of the table (Table), which the
// catalog implements.
//
// # Input and output
//
// sqlgw converts each top-level conjunct of go-mysql-server's filter into the
// predicate IR (Expr: Cmp, In, IsNull, And, Or, Not, Const, Opaque) and calls
// Build with them. The Plan names the access path (DESIGN.md's table:
// PointGet, MultiGet, RowRange, PartitionScan, PartitionRange, TableScan;
// IndexLookup and IndexRange are reserved for secondary indexes), carries the
// store requests (Gets or storage.Query values with key ranges, the pushed
// filter, $select and Top), the order rows arrive in, and Residual: the
// indexes of the conjuncts the engine must keep. A conjunct is dropped from
// Residual only when the requests return exactly the rows it accepts.
//
// # Soundness of the pushed filter
//
// The filter sent to the store is implied by the predicate: it may keep rows
// SQL drops (the engine drops them again), never the reverse. SQL is three
// valued and WHERE keeps TRUE; the store's filter is two valued with an absent
// property (SQL NULL) making every comparison false and Not inverting that
// (storage.Expr). For every IR node the planner derives two store filters:
// T, true for every row where the node is TRUE, and F, true for every row
// where it is FALSE, each flagged exact when it is also false elsewhere.
// NOT swaps them; AND may drop operands of T (a weaker filter) but needs
// every operand's F for its F (an OR cannot lose a branch); OR the reverse.
// So "x <> 5" is T = (x ne 5), exact (absent: ne is false, SQL: NULL <> 5 is
// unknown, row dropped); "NOT (x = 5)" is F(x = 5) = (x ne 5), not
// not (x eq 5) which would also keep rows where x is NULL. "x IS NULL" is
// not (x eq v) and not (x ne v) for any value v of x's type, which the
// contract makes true exactly when the property is absent.
//
// Literals are converted to the column's kind only where the conversion is
// exact (int column vs 5.0, or vs 5.5 rewritten to a bound); a string
// compared with an int column, a non-binary collation, or a column whose
// store representation does not compare like SQL (Column.Pushdown) stays
// with the engine.
//
// At most storage.MaxFilterComparisons comparisons go into one filter:
// conjuncts are added in order while they fit; the others stay residual.
//
// # Key constraints
//
// Conjuncts on a single key column become span sets on that column
// (points, or ordered intervals; NOT and OR are folded in). Each key part
// (PartitionKey, then RowKey) is encoded column by column: an equality
// prefix (cross products of IN lists, up to MaxKeys keys), then at most one
// column with ranges, converted to encoded key bounds with Table.EncodeKey
// and Table.PrefixEnd (flipped for a Desc column). Predicates on later key
// columns go into the filter when the column has a property, otherwise stay
// residual. An empty span set (a = 1 AND a = 2) gives the Empty path: no
// request at all.
//
// # Cost
//
// Costs are store requests and entities read, estimated from Stats (default
// 10,000 rows, partitions unknown) with fixed selectivities: an equality
// prefix of a key part divides by 10 per column, a range by 3, a pushed
// filter does not reduce entities read (the store still reads them), and a
// page holds storage.MaxPageSize entities.
package planner
