#!/usr/bin/env bash
# The MariaDB administration CLIs (Debian mariadb-client): mariadb-admin (mysqladmin:
# ping, version, status = COM_STATISTICS, variables, extended-status, processlist, create,
# flush-tables, flush-privileges, flush-status, kill, drop), mariadb-show (mysqlshow:
# databases, tables, columns, keys, row counts, table status) and mariadb-check
# (mysqlcheck: CHECK TABLE, ANALYZE TABLE). The SQL clients' own work is done by `cli`.
set -uo pipefail
# shellcheck source=../lib/check.sh
. "$(dirname "$0")/../lib/check.sh"
DB=compat_admin
conn=(--no-defaults --protocol=TCP -h"${COMPAT_HOST:-127.0.0.1}" -P"$COMPAT_PORT" -u"${COMPAT_USER:-root}" ${COMPAT_PASSWORD:+-p"$COMPAT_PASSWORD"})
admin() { mariadb-admin "${conn[@]}" "$@" 2>&1; }
show() { mariadb-show "${conn[@]}" "$@" 2>&1; }
# expect NAME REGEX CMD...: CMD must succeed and its output match REGEX (grep -E).
expect() {
	local name=$1 re=$2 out
	shift 2
	if out=$("$@" 2>&1) && printf '%s\n' "$out" | grep -E -- "$re" >/dev/null; then
		compat_ok "$name"
	else
		compat_fail "$name" "exit $?, want /$re/, got: $(printf '%s' "$out" | head -12)"
	fi
}

expect 'mariadb-admin ping' '^mysqld is alive$' admin ping
expect 'mariadb-admin version' '^Server version[[:space:]]+[0-9]+\.[0-9]+' admin version
expect 'mariadb-admin status (COM_STATISTICS)' '^Uptime: [0-9]+ +Threads: [0-9]+ +Questions: [0-9]+' admin status
expect 'mariadb-admin variables' '^\| max_allowed_packet +\| [0-9]+ +\|' admin variables
expect 'mariadb-admin extended-status' '^\| Threads_connected +\| [0-9]+ +\|' admin extended-status
expect 'mariadb-admin processlist' '\| [Ss]how processlist +\|' admin processlist
admin -f drop "$DB" >/dev/null
expect 'mariadb-admin create' '' admin create "$DB"
expect 'mariadb-show lists the database' "^\| $DB +\|\$" show
compat_exec 'create tables and rows' "$DB" -e "
	CREATE TABLE customers (region VARCHAR(16) NOT NULL, id INT NOT NULL, name VARCHAR(64) NOT NULL,
		note VARCHAR(255) NULL, PRIMARY KEY (region, id));
	CREATE TABLE orders (region VARCHAR(16) NOT NULL, customer_id INT NOT NULL, order_no INT NOT NULL,
		qty INT NOT NULL, price DECIMAL(10,2) NULL, PRIMARY KEY (region, customer_id, order_no));
	CREATE TABLE events (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, what VARCHAR(32) NOT NULL);
	INSERT INTO customers VALUES ('eu', 1, 'O''Brien', 'it''s fragile'), ('eu', 2, 'Smith', NULL), ('us', 1, 'Jones', 'plain');
	INSERT INTO orders VALUES ('eu', 1, 1, 10, 1.50), ('eu', 1, 2, 20, 2.25), ('eu', 2, 1, 5, NULL), ('us', 1, 1, 7, 3.00);"
compat_index 'create secondary index' "$DB" -e 'CREATE INDEX idx_customers_name ON customers (name)'
expect 'mariadb-show DB lists the tables' '^\| orders +\|$' show "$DB"
expect 'mariadb-show DB TABLE lists the columns' '^\| note +\| varchar\(255\) ' show "$DB" customers
expect 'mariadb-show -k lists the primary key and the index' 'idx_customers_name' show -k "$DB" customers
expect 'mariadb-show -k lists the composite primary key' '^\| customers +\| 0 +\| PRIMARY +\| 2 +\| id ' show -k "$DB" customers
expect 'mariadb-show --count' '^\| customers +\| +4 +\| +3 \|$' show --count "$DB"
expect 'mariadb-show --status' '^\| orders +\| InnoDB ' show --status "$DB"
expect 'mariadb-admin flush-tables' '' admin flush-tables
expect 'mariadb-admin flush-privileges' '' admin flush-privileges
expect 'mariadb-admin flush-status' '' admin flush-status
expect 'mariadb-check (CHECK TABLE)' "^$DB\.orders +OK\$" mariadb-check "${conn[@]}" "$DB"
expect 'mariadb-check --analyze (ANALYZE TABLE, one table empty)' "^$DB\.events +(OK|Table is already up to date)\$" mariadb-check "${conn[@]}" --analyze "$DB"

# kill: a client sleeping 30 s is found in the process list and killed.
compat_sql -N -e 'SELECT SLEEP(30)' >/dev/null 2>&1 &
sleeper=$!
id=
for _ in $(seq 50); do
	id=$(compat_sql -N -e 'SHOW PROCESSLIST' 2>/dev/null | awk -F'\t' '$8 ~ /SLEEP\(30\)/ { print $1; exit }')
	[ -n "$id" ] && break
	sleep 0.1
done
if [ -z "$id" ]; then
	compat_fail 'mariadb-admin kill' 'the sleeping query never showed in SHOW PROCESSLIST'
else
	t0=$SECONDS
	out=$(admin kill "$id")
	rc=$?
	for _ in $(seq 100); do kill -0 "$sleeper" 2>/dev/null || break; sleep 0.1; done
	if [ $rc -eq 0 ] && ! kill -0 "$sleeper" 2>/dev/null && [ $((SECONDS - t0)) -lt 15 ]; then
		compat_ok 'mariadb-admin kill'
	else
		compat_fail 'mariadb-admin kill' "exit $rc: $out; the killed client still runs after $((SECONDS - t0)) s"
	fi
fi
kill "$sleeper" 2>/dev/null
wait "$sleeper" 2>/dev/null

expect 'mariadb-admin drop' "Database \"$DB\" dropped" admin -f drop "$DB"
if show | grep -q "$DB"; then compat_fail 'dropped database is gone' "$(show)"; else compat_ok 'dropped database is gone'; fi
compat_summary
