#!/usr/bin/env bash
# unixODBC's command-line client isql (Debian unixodbc) with MariaDB
# Connector/ODBC: a query by key, a join with aggregates, and the catalog commands
# "help" (SQLTables) and "help TABLE" (SQLColumns) that interactive ODBC users run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/check.sh
. "$here/../lib/check.sh"
db=compat_isql
driver=${COMPAT_ODBC_DRIVER:-/usr/lib/x86_64-linux-gnu/odbc/libmaodbc.so}
dsn="DRIVER={$driver};SERVER=${COMPAT_HOST:-127.0.0.1};PORT=$COMPAT_PORT;USER=${COMPAT_USER:-root};PASSWORD=${COMPAT_PASSWORD:-};DATABASE=$db;CHARSET=utf8mb4"

compat_exec "create database" -e "DROP DATABASE IF EXISTS $db; CREATE DATABASE $db"
compat_exec "create tables (composite primary keys)" "$db" <"$here/../cli/schema.sql"
compat_index "create secondary index" "$db" -e "CREATE INDEX idx_customers_name ON customers (name)"
compat_exec "insert rows" "$db" <"$here/../cli/data.sql"

# odbc_query NAME WANT TOOL INPUT: runs TOOL in batch mode with '|' between fields.
odbc_query() {
	local name=$1 want=$2 tool=$3 input=$4 got
	if got=$(printf '%s\n' "$input" | "$tool" -b -v -d'|' -k "$dsn" 2>&1); then
		compat_eq "$name" "$want" "$got"
	else
		compat_fail "$name" "$got"
	fi
}
odbc_query "isql read by key with quotes" "O'Brien|it's fragile" isql \
	"SELECT name, note FROM customers WHERE region = 'eu' AND id = 1"
odbc_query "isql join with aggregate" "O'Brien|2|30|3.75
Smith|1|5|
Jones|1|7|3.00" isql "SELECT c.name, COUNT(*), SUM(o.qty), SUM(o.price) FROM customers c JOIN orders o ON o.region = c.region AND o.customer_id = c.id GROUP BY c.region, c.id, c.name ORDER BY c.region, c.id"
got=$(printf 'help\n' | isql -b -v -d'|' -k "$dsn" 2>&1 | awk -F'|' -v db="$db" '$1 == db { print $3 }' | sort | tr '\n' ' ')
compat_eq "isql help (SQLTables)" "customers orders " "$got"
got=$(printf 'help orders\n' | isql -b -v -d'|' -k "$dsn" 2>&1)
compat_eq "isql help orders (SQLColumns)" "region customer_id order_no qty price " \
	"$(printf '%s' "$got" | grep -q '^\[' && printf '%s' "$got" || printf '%s\n' "$got" | cut -d'|' -f4 | tr '\n' ' ')"
compat_summary
