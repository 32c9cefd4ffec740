// Package statistics is sqlgw's table statistics and store cost model:
// what ANALYZE TABLE computes from a table's rows, its stored form, and
// the forms the planners read it in (sqlgw's planner.Stats,
// go-mysql-server's sql.Statistic with histograms, SHOW INDEX's
// CARDINALITY); and what a lookup join costs in store round trips.
//
// # What is computed
//
// An Analysis reads every row of a table once (the engine's full scan) and
// computes, for the PRIMARY key (its columns in storage order) and for
// every secondary index: the number of rows, the number of distinct values
// of each prefix of the index's columns (compared as the keys compare
// them, i.e. under each column's collation: 'a' and 'A' are one value
// under utf8mb4_0900_ai_ci), the most frequent values of the leading
// column (top statTopN, with their counts) and, when it is numeric or
// temporal, its smallest and largest values, and a histogram of the
// index's columns (histogram.go). The result is a Table, which never
// changes; the engine keeps one per table and gateway, replaced by every
// analysis.
//
// Where they are read:
//   - The planner (Table.Planner, planner.Stats): the partition count of
//     the primary key (distinct values of the partition-key columns), per
//     index the rows per value of its leading column
//     (planner.Stats.RowsPerValue) with the top values, and the bounds of
//     numeric and temporal leading columns (planner.Stats.Bounds, for
//     ranges), which replace its fixed guesses (planner package doc, Cost).
//   - go-mysql-server's index choice and join planner (Table.GMS).
//   - SHOW INDEX and information_schema.STATISTICS: CARDINALITY of an index
//     column is the distinct count of the index's prefix up to that column
//     (Table.Cardinality, MySQL's meaning).
//
// Refresh: every insert and delete counts as a change (Table.NoteChanges);
// once the changes since the last analysis reach Share of the analysed row
// count (and at least RefreshMin rows), Table.StartRefresh says a
// background re-analysis is due (never two at a time per table). The share
// is the global variable sqlgw_stats_auto_recalc_percent (RecalcVar,
// default 10, as InnoDB's innodb_stats_auto_recalc threshold; 0: never).
//
// Stored form: Table.Marshal and Unmarshal (JSON; fields added later are
// optional, so older stored statistics still load).
//
// # Files
//
//	table.go      Table, Analysis, the refresh rule, the planner's form,
//	              CARDINALITY
//	histogram.go  histograms: sampling during the analysis, buckets, their
//	              stored form, go-mysql-server's sql.Statistic (Table.GMS)
//	stored.go     the stored form (Marshal, Unmarshal)
//	cost.go       the store cost of lookup joins (LookupJoinCost), read by
//	              the engine's coster
//
// # Imports
//
// The catalog (tables, key columns, Datums), the planner (its Stats), the
// storage contract (page size), go-mysql-server: never the engine or
// anything above it (scripts/layering.sh checks it). What it needs of the
// engine, the conversions of catalog types and values to
// go-mysql-server's, it is handed as Values. The engine owns reading the
// rows, keeping the statistics per gateway, storing them, and the
// go-mysql-server adapters (its stats.go, stats_provider.go, stats_join.go,
// coster.go).
package statistics
