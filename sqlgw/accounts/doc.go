// Package accounts keeps sqlgw's users, roles and grants: go-mysql-server's
// mysql database persisted in the catalog's accounts record and polled by
// every gateway (accounts.go), logins with mysql_native_password and
// caching_sha2_password and the failed-login delays (accounts_auth.go),
// and MySQL's privilege errors and statements go-mysql-server lacks
// (accounts_errors.go). Accounts implements engine.Accounts (what the
// engine needs to hide tables and views an account may not see) and
// Intercept, the "accounts" statement interceptor of the server.
//
// # Imports
//
// It imports sqlgw/engine (sessions) and the catalog, go-mysql-server and
// vitess; never package sqlgw, sqlgw/wire or sqlgw/admin
// (scripts/layering.sh).
package accounts
