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
// # Imports
//
// The engine imports the catalog, the planner, the storage contract and
// storage/recorder, go-mysql-server and vitess, and sqlgw's lower packages
// (metrics, mysqlerr, sqltext). It never imports package sqlgw (the
// server facade, wire layer and admin statements) nor a storage backend;
// scripts/layering.sh checks both. What it needs of the server it
// declares as an interface (Accounts) or a hook.
package engine
