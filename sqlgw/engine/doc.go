// Package engine is sqlgw's go-mysql-server integration: the database
// provider, databases, the Table and its capability interfaces, sessions
// and transactions, the read path (lookups, the planner's access paths,
// lazy pages, parallel MultiGet), secondary indexes, batched lookup joins,
// DDL features (generated columns, CHECK, triggers, views, foreign keys,
// narrowing ALTER, primary key changes, TIME(n)), statistics, the plan
// cache of prepared statements, attached tables and the analyzer rules.
//
// Engine (engine.go) builds a go-mysql-server engine over a store; Gateway
// (gateway.go) is the state every session of one engine shares. The server
// (package sqlgw) builds an Engine, puts the wire layer and the statement
// interceptors in front of it and reaches the engine only through what
// this package exports.
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
//   - Counters: every store request a session makes goes through
//     storage/recorder with the session's Counters; SHOW SESSION STATUS LIKE
//     'Sqlgw%' reports Sqlgw_store_requests and Sqlgw_entities_read. Catalog
//     and view-definition reads are not counted.
//   - Unsupported features are MySQL errors (1235, ER_NOT_SUPPORTED_YET),
//     never silently ignored: stored procedures and events (provider.go);
//     PARTITION BY other than KEY(columns), changing a table's partition key,
//     RENAME TABLE into another database (partition.go, table.go); ALTER TABLE
//     ADD/DROP PRIMARY KEY on a table that holds rows or has indexes or
//     foreign keys (alter_primary_key.go); secondary indexes and foreign keys on a table
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
//   - PARTITION BY KEY(a,b) declares the partition key, like COMMENT
//     'sqlgw: partition_key=(a,b)'; go-mysql-server drops the clause (and
//     DESC in PRIMARY KEY), so the connection handler reads them from the
//     statement (partition.go).
//   - Accounts: go-mysql-server's users, roles and grants, persisted in
//     the catalog's accounts record with conditional writes and polled by
//     every gateway (Config.AccountsRefresh, default 1 s); the configured
//     user (default root) is the bootstrap administrator created on a store
//     without accounts; an empty password only on a loopback listener
//     (ErrInsecure otherwise; loopback is decided by the address bound,
//     net.IP.IsLoopback, loopback.go). Failed logins are logged (never the
//     password) and delayed per address. See accounts.go.
//   - Limits (connlimits.go): MySQL's max_connections, connect_timeout,
//     wait_timeout and max_allowed_packet with MySQL's defaults and error
//     codes; temporary accept errors (EMFILE) are waited out, a fatal one
//     ends Serve with an error. Write conflicts of autocommit statements
//     are retried by the server (autoretry.go); a write the store may have
//     applied without confirming it is 1180 "outcome unknown" (errors.go).
//   - TLS: with Config.TLSConfig, clients may upgrade in the handshake (the
//     mysql CLI's --ssl, drivers' sslMode/tls options); with
//     RequireSecureTransport, plain connections are refused (error 3159).
//   - Metrics: store requests and latency by operation, table reads by
//     access path, connections and statements, in Prometheus' text format
//     (metrics.go, Server.Metrics().Handler()).
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
