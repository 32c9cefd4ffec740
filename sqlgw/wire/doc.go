// Package wire is sqlgw's MySQL protocol layer in front of
// go-mysql-server's server: Handler (handler.go), the mysql.Handler that
// runs a statement's text through sqltext's Wire pipeline (MariaDB-only
// comments, := in SELECT, TIME(n)), then the ordered, named list of
// statement interceptors (Interceptor, Chain) and the engine, drains on
// shutdown, retries autocommit statements after a write conflict, queued
// per conflicting row (autoretry.go, rowqueue.go) and gives errors MySQL's codes (sqlgw/mysqlerr); the
// connection wrapper (Listener, conn.go) that rewrites packets
// (prepared statements, OK info, COM_STATISTICS and COM_CHANGE_USER in
// protocol.go), TLS and require_secure_transport (tlsconn.go), the
// connection limits (connlimits.go), client-side errors (clienterrs.go),
// max_execution_time and its hint: a top-level SELECT's deadline on the
// statement's context, 3024 when it passes (maxexec.go),
// SHOW COUNT(*) WARNINGS/ERRORS answered from the session (showcount.go),
// and the rewrites of go-mysql-server's answers: one ordered, named list
// of result and error steps (ResultStep, resultSteps in result_steps.go),
// each with the upstream behaviour it corrects, among them the SHOW ...
// LIKE headers, TIME(n) precisions and fractions, OK-packet infos and
// MySQL's error codes (show_like_header.go, time_precision.go,
// time_fractions.go, sqlgw/mysqlerr).
//
// # Imports
//
// It imports sqlgw/engine, sqlgw/accounts (logins for COM_CHANGE_USER),
// sqlgw/mysqlerr, sqlgw/metrics and sqlgw/sqltext; never package sqlgw or
// sqlgw/admin, whose statement interceptors and prepared-statement rewrite
// the server hands it (Interceptor, ConnRegistry.PrepareRewrite)
// (scripts/layering.sh).
package wire
