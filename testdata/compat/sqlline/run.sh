#!/usr/bin/env bash
# sqlline (Debian sqlline), the JDBC command-line client, over MariaDB Connector/J: on
# connect it builds its completion list from DatabaseMetaData (tables and columns);
# then !tables, !columns, !primarykeys, !indexes, a query and an update.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/check.sh
. "$here/../lib/check.sh"
db=compat_sqlline

compat_exec "create database" -e "DROP DATABASE IF EXISTS $db; CREATE DATABASE $db"
compat_exec "create tables (composite primary keys)" "$db" <"$here/../cli/schema.sql"
compat_index "create secondary index" "$db" -e "CREATE INDEX idx_customers_name ON customers (name)"
compat_exec "insert rows" "$db" <"$here/../cli/data.sql"

url="jdbc:mariadb://${COMPAT_HOST:-127.0.0.1}:$COMPAT_PORT/$db?user=${COMPAT_USER:-root}${COMPAT_PASSWORD:+&password=$COMPAT_PASSWORD}"
out=$(printf '%s\n' '!tables' '!columns orders' '!primarykeys orders' '!indexes customers' \
	"SELECT name, note FROM customers WHERE region = 'eu' AND id = 1;" \
	"UPDATE orders SET qty = qty + 1 WHERE region = 'us';" '!quit' |
	timeout 120 sqlline -u "$url" -d org.mariadb.jdbc.Driver --outputformat=csv --fastConnect=false --force=true 2>&1 |
	grep -v '^\[warning\]')
# section NAME: the output lines after the prompt line that ran command NAME.
section() { printf '%s\n' "$out" | awk -v c="$1" 'index($0, "> " c) { p = 1; next } / jdbc:mariadb:.*> / { p = 0 } p'; }
flat=$(printf '%s' "$out" | tail -30)
if printf '%s' "$out" | grep -q "Building list of tables and columns" && printf '%s' "$out" | grep -q "(100%) Done"; then
	compat_ok "connect and build the completion list (DatabaseMetaData)"
else
	compat_fail "connect and build the completion list (DatabaseMetaData)" "$flat"
fi
compat_eq "!tables" "customers orders " "$(section '!tables' | awk -F"','" -v db="$db" 'NR > 1 { print $3 }' | tr '\n' ' ')"
compat_eq "!columns orders" "region customer_id order_no qty price " "$(section '!columns orders' | awk -F"','" 'NR > 1 { print $4 }' | tr '\n' ' ')"
# (JDBC orders primary-key rows by column name; KEY_SEQ gives the key order)
compat_eq "!primarykeys orders" "1:region 2:customer_id 3:order_no " "$(section '!primarykeys orders' | awk -F"','" 'NR > 1 { print $5 ":" $4 }' | sort | tr '\n' ' ')"
compat_eq "!indexes customers" "PRIMARY" "$(section '!indexes customers' | awk -F"','" 'NR > 1 { print $6 }' | sort -u | grep -x PRIMARY)"
compat_eq "query" "'name','note'
'O'Brien','it's fragile'
1 row selected" "$(section 'SELECT name' | sed 's/ (.*seconds)$//')"
compat_eq "update" "1 row affected" "$(section 'UPDATE orders' | sed 's/ (.*seconds)$//')"
compat_summary
