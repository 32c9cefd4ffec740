// Package views keeps the definitions of SQL views in the store, for the
// engine's databases (go-mysql-server's sql.ViewDatabase): one entity per
// view in a table beside the catalog's, served from a cache that other
// gateways' changes reach within a second (views.go has the format).
//
// # Files
//
//	views.go  Store: the definitions, their entities and the cache
//
// # Imports
//
// The storage contract, go-mysql-server (sql.ViewDefinition and its
// errors) and sqlgw/mysqlerr (the store's errors as MySQL's): never the
// engine or anything above it (scripts/layering.sh checks it). The engine
// hands it the store and the context for requests billed to no session.
// Which views an account sees, and CREATE VIEW db.v, stay in the engine
// (accounts_visible.go) and sqlgw/engine/compat.
package views
