// Package engine is sqlgw's go-mysql-server integration: the database
// provider, databases, the Table and its capability interfaces, sessions
// and transactions, the read path (lookups, the planner's access paths,
// lazy pages, parallel MultiGet), secondary indexes, batched lookup joins,
// DDL features (generated columns, CHECK, triggers, views, foreign keys,
// narrowing ALTER, primary key changes, TIME(n)), statistics, the plan
// cache of prepared and text statements and its direct execution, attached
// tables and the analyzer rules.
//
// Engine (engine.go) builds a go-mysql-server engine over a store; Gateway
// (gateway.go) is the state every session of one engine shares. The server
// (package sqlgw) builds an Engine, puts the wire layer and the statement
// interceptors in front of it and reaches the engine only through what
// this package exports.
//
// # Files
//
//	engine.go       Engine: the go-mysql-server engine with sqlgw's provider,
//	                analyzer rules, parser, schema formatter, coster
//	gateway.go      Gateway: state shared by the sessions of one engine
//	                (store, catalog, schema and row-count caches); Accounts
//	provider.go     databases; CREATE/DROP/RENAME TABLE and their checks
//	table.go        Table: projections, TRUNCATE, ALTER, AUTO_INCREMENT; the
//	                capability assertions of Table, all in one block
//	types.go        engine types and values <-> catalog types and Datums
//	collations.go   collation weights for keys; collated planner columns
//	session.go      sessions, savepoints, Sqlgw_* status variables
//	txn.go          transactions, commit in per-partition batches
//	txnatomic.go    atomic commit across partitions (catalog/txn)
//	txnindex.go     global index entities in the commit's own atomic unit
//	snapshot.go     snapshot reads: one store snapshot per statement or
//	                REPEATABLE READ transaction; isolation levels, anomalies
//	editor.go       INSERT/UPDATE/DELETE/REPLACE into the transaction buffer
//	strictwrite.go  strict-mode write errors naming the column and row
//	insertinfo.go   INSERT's "Records: n Duplicates: n" info
//	index.go        PRIMARY index, LookupForExpressions -> planner, ranges
//	exprconv.go     engine expressions -> planner IR
//	hints.go        USE/FORCE/IGNORE INDEX hints
//	iter.go         plan execution: lazy pages, parallel MultiGet, overlay
//	                of the transaction's writes
//	cache.go        per-statement caches for lookups re-run by nested loops
//	rules.go        analyzer rule: LIMIT pushdown, sort elimination
//	exact_sum_avg.go      analyzer rule: exact SUM and AVG (DECIMAL)
//	outer_join_nullable.go  no NOT NULL flag on outer-joined columns
//	coster.go       join costing with the planner's estimates
//	joinbatch.go, joinbatch_index.go, joinbatch_order.go
//	                batched lookup joins (per block of outer rows)
//	explain.go      plain EXPLAIN rows naming the access path
//	plancache.go    FastLane: plan cache of prepared SELECTs
//	textcache.go    the plan cache of text SELECTs, per normalized shape
//	direct.go       cached plans run without the engine's executor
//	secondary.go    secondary indexes: maintenance, reads, recovery
//	indexrename.go  ALTER TABLE ... RENAME INDEX
//	foreignkeys.go, foreignkeys_errors.go  foreign keys and their errors
//	generated_check_onupdate.go  generated columns, CHECK, ON UPDATE
//	show_create_generated.go     SHOW CREATE TABLE of generated columns
//	dump_generated_values.go     generated-column values in dumps
//	triggers.go     triggers kept in the table's catalog record
//	views.go        view definitions kept in the store
//	create_view_qualified.go     CREATE VIEW db.v creates it in db
//	enum_in_functions.go         ENUM/SET values inside string functions
//	alter_narrowing.go           verified narrowing ALTER ... MODIFY
//	alter_primary_key.go         ADD/DROP PRIMARY KEY on an empty table
//	time_precision.go            TIME(n), DATETIME(n) fractions
//	partition.go    PARTITION BY KEY/HASH, PARTITIONS and DESC key columns from the statement
//	salt_read.go    reads of salted tables: bucket queries merged in key order
//	create_like.go  CREATE TABLE ... LIKE: the source's comment (sqlgw options) and DESC key columns
//	attached.go, attached_types.go  store tables sqlgw did not create
//	attached_index.go            secondary indexes on attached tables: the
//	                freshness contract, REPAIR/REFRESH TABLE rebuilds
//	tablegroup.go   table groups: the store wrapper for members, one batch
//	                per commit in one partition, the statement's partition reads
//	tablegroup_rule.go           analyzer rule: the bound partition key of
//	                joined group members
//	stats.go        ANALYZE TABLE statistics, CARDINALITY
//	stats_provider.go  go-mysql-server's statistics provider over them
//	stats_join.go   the join planner's filtered cardinalities
//	check_repair_table.go        CHECK and REPAIR TABLE's work
//	admin_results.go             the rows table maintenance answers
//	accounts_visible.go          tables and views an account sees
//	assign.go       @v := expr assignments in expressions
//	sysvars.go      MySQL 8 system variables go-mysql-server lacks
//	temporary.go    CREATE TEMPORARY TABLE is go-mysql-server's error
//	errors.go       catalog and store errors as engine errors
//	*_testhooks.go  hooks the end-to-end tests of ALTER use
//
// # Decisions
//
//   - Access paths: every table filter goes through LookupForExpressions
//     (index.go); the planner picks the path and EXPLAIN (plain, PLAN,
//     FORMAT=tree) shows it. Engine lookups (lookup joins, foreign keys)
//     on the PRIMARY or a secondary index are converted to the planner IR
//     and planned the same way; lookup joins into sqlgw tables are batched
//     per block of outer rows (joinbatch.go).
//   - Transactions: buffered in the session, applied at COMMIT in atomic
//     per-partition batches, conditional on ETags; a conflict is 1213.
//     txn.go documents what is atomic and isolated across partitions:
//     per-partition batches only (a failed multi-partition INSERT undoes its
//     inserts; updates and deletes across partitions are not atomic).
//   - Plan cache (plancache.go): a prepared SELECT over one table whose
//     parameters all land in the table's lookup is analyzed once per session;
//     each execute re-plans the lookup with the new values and runs the
//     cached plan. DDL (catalog version), another database or sql_mode, or
//     a parameter of another type sends the execute the general way.
//     Plan_cache_hits / _misses / Last_plan_from_cache show it.
//   - At most one row: a PointGet tells the engine so (index.go,
//     max1RowFDs), which then spools the row without its goroutines.
//   - Reading backwards: where the store can (storage.Capabilities.Reverse:
//     Pebble, not Azure), the planner reads ORDER BY ... DESC over an
//     ascending key or index backwards (planner.Query.Reverse, set in
//     Table.plan); iter.go merges a transaction's buffered writes in that
//     order (rowIter.less).
//   - Tables without a primary key have secondary and UNIQUE indexes, local
//     to their one partition and pointing at the generated RowKey
//     (secondary.go); their lookups name the index they read
//     (keylessLookupIndex), as the table has no PRIMARY.
//   - Counters: every store request a session makes goes through
//     storage/recorder with the session's Counters; SHOW SESSION STATUS LIKE
//     'Sqlgw%' reports Sqlgw_store_requests and Sqlgw_entities_read. Catalog
//     and view-definition reads are not counted.
//   - Unsupported features are MySQL errors (1235, ER_NOT_SUPPORTED_YET),
//     never silently ignored: stored procedures and events (provider.go);
//     PARTITION BY other than KEY(columns), changing a table's partition key,
//     RENAME TABLE into another database (partition.go, table.go); ALTER TABLE
//     ADD/DROP PRIMARY KEY on a table that holds rows or has indexes or
//     foreign keys (alter_primary_key.go); foreign keys on a table
//     without a primary key, FULLTEXT/SPATIAL/VECTOR indexes, index prefix
//     lengths (provider.go, secondary.go, foreignkeys.go); spatial and vector
//     column types (types.go); table options other than the ones dumps carry
//     (provider.go); indexes on VIRTUAL generated columns, CHECK constraints
//     on a table with VIRTUAL columns, a STORED generated column added to a
//     table with rows (generated_check_onupdate.go); triggers on another database's table
//     and renaming a table that has triggers (triggers.go);
//     CHECKSUM TABLE (maintenance.go); EXPLAIN ANALYZE of a write (explain.go);
//     column changes that need the stored values rewritten and key columns in
//     collations without registered weights (catalog, ErrUnsupported, mapped
//     in errors.go; collations.go registers the engine's). CREATE TEMPORARY
//     TABLE is go-mysql-server's own error (temporary.go). Supported, and
//     where: secondary indexes (secondary.go), foreign keys (foreignkeys*.go),
//     CHECK constraints, generated columns and ON UPDATE (generated_check_onupdate.go, triggers.go),
//     triggers (triggers.go), views (views.go), TIME(n)
//     (time_precision.go), verified narrowing ALTER ... MODIFY (alter_narrowing.go),
//     ADD/DROP PRIMARY KEY on an empty table (alter_primary_key.go).
//   - PARTITION BY KEY(a,b) (or HASH(a)) declares the partition key, like
//     COMMENT 'sqlgw: partition_key=(a,b)', and PARTITIONS n salts the
//     table into n buckets, like 'sqlgw: salt_buckets=n' (reads of salted
//     tables: salt_read.go); go-mysql-server drops the clause (and DESC in
//     PRIMARY KEY), so the connection handler reads them from the
//     statement (partition.go).
//
// # Imports
//
// The engine imports the catalog, the planner, the storage contract and
// storage/recorder, go-mysql-server and vitess, and sqlgw's lower packages
// (metrics, mysqlerr, sqltext). It never imports package sqlgw (the
// server facade, wire layer and admin statements) nor a storage backend;
// scripts/layering.sh checks both. What it needs of the server it
// declares as an interface (Accounts) or a hook.
package engine
