// Package compat holds sqlgw's MySQL-compatibility adjustments of
// go-mysql-server: analyzer rules, functions, a schema formatter, a
// statement fix and system variables, each correcting one place where
// go-mysql-server's behaviour differs from MySQL's, each in a file named
// for what it adjusts. None of them needs the engine's tables, sessions or
// store: they work on go-mysql-server's plans, expressions and parsed
// statements only, and the engine (package sqlgw/engine) installs them.
//
// # Files
//
//	exact_sum_avg.go          analyzer rule: SUM and AVG of INT and DECIMAL are
//	                          exact DECIMALs (go-mysql-server: DOUBLE)
//	distinct_collation.go     SELECT DISTINCT compares strings by their
//	                          collation (the engine's exec builder and direct
//	                          ranges use its iterator)
//	setop_collation.go        UNION, INTERSECT, EXCEPT and recursive CTEs compare rows by
//	                          their collations too (the engine's exec builder)
//	outer_join_nullable.go    no NOT NULL flag on outer-joined columns
//	                          (called by the engine's pushdown rule)
//	enum_in_functions.go      ENUM/SET values inside string functions (the
//	                          engine's provider answers Function with them)
//	assign.go                 @v := expr inside expressions (sqlgw_assign,
//	                          sqlgw_var; sqltext rewrites the statement)
//	show_create_generated.go  SHOW CREATE TABLE of generated columns in MySQL 8's
//	                          order
//	create_view_qualified.go  CREATE VIEW db.v creates it in db
//	sysvars.go                MySQL 8 system variables go-mysql-server lacks;
//	                          PublishTLS (@@have_ssl)
//
// # Imports
//
// go-mysql-server, vitess, decimal and sqlgw/sqltext (the names of the
// assignment functions) only: never the engine or anything above it, nor
// the catalog or the store (scripts/layering.sh checks it). An adjustment
// that needs the engine's tables (ALTER narrowing, primary key changes,
// generated-column values of dumps, TIME(n) precisions kept per session,
// triggers, views) stays in the engine.
package compat
