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
// By the engine object they implement (the sub-packages below hold what
// needs none of them):
//
// The engine, its shared state, databases and tables:
//
//	engine.go       Engine: the go-mysql-server engine with sqlgw's provider,
//	                analyzer rules, parser, schema formatter, coster
//	gateway.go      Gateway: state shared by the sessions of one engine
//	                (store, catalog, schema and row-count caches); Accounts
//	provider.go     databases; CREATE/DROP/RENAME TABLE and their checks;
//	                CREATE TABLE ... LIKE takes the source's comment (sqlgw
//	                options) and DESC key columns
//	table.go        Table: projections, TRUNCATE, ALTER, AUTO_INCREMENT; the
//	                capability assertions of Table, all in one block
//	temporary.go    Table.IsTemporary (CREATE TEMPORARY TABLE is
//	                go-mysql-server's own error)
//	types.go        engine types and values <-> catalog types and Datums
//	collations.go   collation weights for keys; collated planner columns
//	accounts_visible.go          tables and views an account sees
//	errors.go       the engine's names for sqlgw/mysqlerr's errors (catalog
//	                and store errors, 1235, 1213)
//
// Sessions, transactions and writes:
//
//	session.go      sessions, savepoints, Sqlgw_* status variables
//	warnings.go     the warning list in MySQL's order and reset per
//	                statement; MySQL's texts of foreign key, duplicate-key
//	                and IF [NOT] EXISTS notes; @@warning_count
//	txn.go          transactions, commit in per-partition batches
//	txnatomic.go    atomic commit across partitions (catalog/txn)
//	txnindex.go     global index entities in the commit's own atomic unit
//	readabsent.go   a commit's insert of a row it read as absent, found
//	                stored: a conflict (retried), not 1062
//	snapshot.go     snapshot reads: one store snapshot per statement or
//	                REPEATABLE READ transaction; isolation levels, anomalies
//	singleread.go   an autocommit point select reads its one entity
//	                without a snapshot (one request on Azure Table)
//	editor.go       INSERT/UPDATE/DELETE/REPLACE into the transaction buffer
//	strictwrite.go  strict-mode write errors naming the column and row
//	lenientwrite.go non-strict sql_mode: values truncated, clipped or
//	                zeroed with MySQL's warnings 1265, 1264, 1366
//	numericdate.go  numbers (20240229, 240229) written into DATE,
//	                DATETIME and TIMESTAMP columns
//	insertinfo.go   INSERT's "Records: n Duplicates: n" info
//
// The read path:
//
//	index.go        PRIMARY index, LookupForExpressions -> planner (through
//	                sqlgw/engine/exprconv), ranges
//	hints.go        USE/FORCE/IGNORE INDEX hints
//	iter.go         plan execution: lazy pages, parallel MultiGet, overlay
//	                of the transaction's writes
//	salt_read.go    reads of salted tables: bucket queries merged in key order
//	cache.go        per-statement caches for lookups re-run by nested loops
//	rules.go        analyzer rule: LIMIT pushdown, sort elimination
//	stringbounds.go a string that is not a number compared with a numeric
//	                column: converted once, one warning per statement
//	explain.go      plain EXPLAIN rows naming the access path
//	plancache.go    FastLane: plan cache of prepared SELECTs
//	textcache.go    the plan cache of text SELECTs, per normalized shape
//	querycontext.go the plan cache's statement context, made without
//	                go-mysql-server's session manager and its mutex
//	direct.go       cached plans run without the engine's executor
//	directrange.go  … with aggregates, sorts, DISTINCT over the lookup
//	sortrows.go     its ORDER BY of string columns (and DISTINCT under it), sortIter's order
//	rowdecode.go    direct execution's rows: only the returned columns,
//	                each decoded once from its property
//	rowread.go      … over a key range, from the store's rows
//	                (storage.RowQuerier): no entities, no property maps
//	pointrow.go     … by one primary key, from the store's row
//	                (storage.RowGetter)
//	directwrite.go  cached plans of INSERT … VALUES, UPDATE/DELETE by key
//	directinsert.go INSERT … VALUES executed without the exec pipeline;
//	                directinsert_bulk.go (large texts, uncached),
//	                directinsert_values.go (large texts of literals: only
//	                the first tuple parsed), directinsert_text.go (text
//	                templates, unparsed)
//	directupdate.go … such an UPDATE run without the engine's iterators
//	boundplan.go    cached plans' access paths: parameters bound, not re-planned
//	selectlimit.go  sql_select_limit for simple SELECTs (a go-mysql-server bug)
//	txcontrol.go    prepared BEGIN and COMMIT without go-mysql-server's executor
//
// Joins:
//
//	joinbatch.go, joinbatch_index.go, joinbatch_order.go
//	                batched lookup joins (per block of outer rows)
//	coster.go       go-mysql-server's coster plus the store cost of lookup
//	                joins (statistics.LookupJoinCost)
//	stats_join.go   the join planner's filtered cardinalities
//
// Secondary indexes:
//
//	secondary.go    secondary indexes: maintenance, reads, recovery
//	                (an IN list's index partitions read in one
//	                storage.MultiQuery call on the embedded store:
//	                joinbatch_index.go, multiQueryHits)
//	indexhits.go    the rows of an index read's hits in one
//	                storage.MultiGet call on the embedded store
//	indexrename.go  ALTER TABLE ... RENAME INDEX
//	attached_index.go            secondary indexes on attached tables: the
//	                freshness contract, REPAIR/REFRESH TABLE rebuilds
//
// DDL features:
//
//	foreignkeys.go  foreign keys (their errors' MySQL texts: sqlgw/mysqlerr)
//	generated_check_onupdate.go  generated columns, CHECK, ON UPDATE
//	dump_generated_values.go     generated-column values in dumps
//	triggers.go     triggers kept in the table's catalog record
//	alter_narrowing.go           verified narrowing ALTER ... MODIFY
//	alter_primary_key.go         ADD/DROP PRIMARY KEY on an empty table
//	time_precision.go            TIME(n): declared precisions kept in the
//	                catalog, values rounded (results: sqlgw/wire)
//	*_testhooks.go  hooks the end-to-end tests of ALTER use
//
// Statistics, attached tables, table groups, table maintenance:
//
//	stats.go        ANALYZE TABLE's read into a statistics.Analysis, the
//	                statistics kept per gateway and in the store, refresh,
//	                CARDINALITY and DESC in SHOW INDEX / SHOW CREATE TABLE
//	stats_provider.go  go-mysql-server's statistics provider over them
//	attached.go     store tables sqlgw did not create (the typed-table store
//	                wrapper: sqlgw/engine/typedstore)
//	tablegroup.go   table groups: the store wrapper for members, one batch
//	                per commit in one partition, the statement's partition reads
//	                (the rule binding joined members' partition key:
//	                sqlgw/engine/groupjoin)
//	check_repair_table.go        CHECK and REPAIR TABLE's work
//	admin_results.go             the rows table maintenance answers
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
//     each execute binds the new values into the cached access path
//     (boundplan.go, planner.Template: keys encoded, no planning), or
//     re-plans the lookup where the binding is not proven to be the
//     planner's answer, and runs the cached plan. DDL (catalog version), another database, sql_mode or
//     character_set_results, or a parameter of another type sends the
//     execute the general way. Text SELECTs share plans per normalized
//     shape (textcache.go); plans that are only the lookup, its columns
//     and LIMITs run without go-mysql-server's executor (direct.go),
//     decoding only the columns they return (rowdecode.go; a key range
//     from rows of the selected properties, rowread.go; a point get
//     from the row of one key, pointrow.go), as do those
//     that add SUM/COUNT/MIN/MAX/AVG without GROUP BY keys, ORDER BY
//     columns or DISTINCT, each evaluated by the engine's own operator
//     code or sqlgw's equivalent of it, compared with it by tests
//     (directrange.go, sortrows.go).
//     INSERT … VALUES and UPDATE/DELETE whose WHERE a lookup answers are
//     cached too (directwrite.go): the binder and analyzer are skipped, the
//     executor and the editor still do the write; an INSERT … VALUES runs
//     without the executor (directinsert.go), a large one uncached too
//     (directinsert_bulk.go; of literals only, with only its first tuple
//     parsed: directinsert_values.go), a text one of a known template unparsed
//     (directinsert_text.go); such an UPDATE runs without the executor's
//     iterators, the editor still writing (directupdate.go).
//     A prepared BEGIN or COMMIT whose commit cannot fail (no buffered
//     write) runs without go-mysql-server's executor (txcontrol.go).
//     Plan_cache_hits / _misses / _direct / _writes / Last_plan_from_cache
//     show it.
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
//     and view-definition reads are not counted; the clock reads that take
//     snapshots on Azure Table are counted apart, in Snapshot_clock_reads
//     (snapshot.go).
//   - Unsupported features are MySQL errors (1235, ER_NOT_SUPPORTED_YET),
//     never silently ignored: stored procedures and events (provider.go);
//     PARTITION BY other than KEY(columns), changing a table's partition key,
//     RENAME TABLE into another database (sqlgw/engine/ddldecl, table.go); ALTER TABLE
//     ADD/DROP PRIMARY KEY on a table that holds rows or has indexes or
//     foreign keys (alter_primary_key.go); foreign keys on a table
//     without a primary key, FULLTEXT/SPATIAL/VECTOR indexes, index prefix
//     lengths (provider.go, secondary.go, foreignkeys.go); spatial and vector
//     column types (types.go); table options other than the ones dumps carry
//     (provider.go); indexes on VIRTUAL generated columns, CHECK constraints
//     on a table with VIRTUAL columns, a STORED generated column added to a
//     table with rows (generated_check_onupdate.go); triggers on another database's table
//     and renaming a table that has triggers (triggers.go);
//     CHECKSUM TABLE (sqlgw/admin); EXPLAIN ANALYZE of a write (explain.go);
//     column changes that need the stored values rewritten and key columns in
//     collations without registered weights (catalog, ErrUnsupported, mapped
//     in sqlgw/mysqlerr's store.go; collations.go registers the engine's). CREATE TEMPORARY
//     TABLE is go-mysql-server's own error (temporary.go). Supported, and
//     where: secondary indexes (secondary.go), foreign keys (foreignkeys*.go),
//     CHECK constraints, generated columns and ON UPDATE (generated_check_onupdate.go, triggers.go),
//     triggers (triggers.go), views (sqlgw/engine/views), TIME(n)
//     (time_precision.go), verified narrowing ALTER ... MODIFY (alter_narrowing.go),
//     ADD/DROP PRIMARY KEY on an empty table (alter_primary_key.go).
//   - PARTITION BY KEY(a,b) (or HASH(a)) declares the partition key, like
//     COMMENT 'sqlgw: partition_key=(a,b)', and PARTITIONS n salts the
//     table into n buckets, like 'sqlgw: salt_buckets=n' (reads of salted
//     tables: salt_read.go); go-mysql-server drops the clause (and DESC in
//     PRIMARY KEY), so the connection handler reads them from the
//     statement (sqlgw/engine/ddldecl, read into Gateway.Parts; provider.go
//     applies it).
//
// # Sub-packages
//
// Below the engine, importing nothing of it (scripts/layering.sh checks
// it), each with its own file map:
//
//	compat      MySQL-compatibility adjustments of go-mysql-server that need
//	            none of the engine's objects: exact SUM/AVG, nullable
//	            outer-joined columns, ENUM/SET in string functions, @v :=
//	            expr, SHOW CREATE TABLE of generated columns, CREATE VIEW
//	            db.v, the MySQL 8 system variables go-mysql-server lacks;
//	            the engine installs them (engine.go, provider.go, rules.go,
//	            dump_generated_values.go)
//	statistics  what ANALYZE TABLE computes from the rows, its stored
//	            form, the planner's and go-mysql-server's forms of it
//	            (histograms), the refresh rule, and the store cost of
//	            lookup joins; the engine reads the rows, keeps and stores
//	            the results and adapts them (stats.go, stats_provider.go,
//	            stats_join.go, coster.go)
//	ddldecl     what a DDL statement declares that go-mysql-server drops
//	            (PARTITION BY KEY/HASH, PARTITIONS, DESC key and index
//	            columns, RENAME TABLE into another database, the source of
//	            CREATE TABLE ... LIKE), read from the statement text by the
//	            connection handler into Gateway.Parts (LIKE: by provider.go)
//	exprconv    go-mysql-server filter expressions -> the planner's IR
//	            (the read path's translation; index.go uses it)
//	groupjoin   analyzer rule: the bound partition key of joined
//	            table-group members (engine.go installs it with tableGroup)
//	views       view definitions kept in the store, with their cache
//	            (Gateway.Views; the provider's sql.ViewDatabase methods)
//	typedstore  the store wrapper that presents each entity type of an
//	            attached table as its own table (TYPES BY)
//
// What stays here uses the engine's objects themselves: the batched joins
// read through the read path's row iterators, read specs and per-block
// plans (rowIter, readSpec, Table.planIn, the transaction's buffered
// writes); the DDL features verify, rewrite or read tables through Table
// and Database (Table.plan and newRowIter for a narrowing ALTER's scan,
// the transaction buffer for ADD/DROP PRIMARY KEY, Database for
// triggers); CHECK/REPAIR TABLE scans with the secondary-index
// maintenance. Cutting them out would mean exporting those internals,
// not removing a dependency.
//
// # Imports
//
// The engine imports the catalog, the planner, the storage contract and
// storage/recorder, go-mysql-server and vitess, its sub-packages and
// sqlgw's lower packages (metrics, mysqlerr, sqltext). It never imports
// package sqlgw (the server facade, wire layer and admin statements) nor
// a storage backend; scripts/layering.sh checks both. What it needs of the server it
// declares as an interface (Accounts) or a hook.
package engine
