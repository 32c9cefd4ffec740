#!/usr/bin/env bash
# mycli (Debian mycli, over PyMySQL), an interactive CLI, on a pseudo-terminal: on
# connect it reads the server version and, in a background thread, the names it offers
# for completion (databases, tables, columns, functions, users); then a typed query.
# Errors of those background queries go to its log file, which must have none.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/check.sh
. "$here/../lib/check.sh"
db=compat_mycli
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT

compat_exec "create database" -e "DROP DATABASE IF EXISTS $db; CREATE DATABASE $db"
compat_exec "create tables (composite primary keys)" "$db" <"$here/../cli/schema.sql"
compat_index "create secondary index" "$db" -e "CREATE INDEX idx_customers_name ON customers (name)"
compat_exec "insert rows" "$db" <"$here/../cli/data.sql"

# Keystrokes with pauses: the prompt must be up before typing, and the completion
# refresher must have run before quitting.
got=$( (
	sleep 3
	printf "SELECT name, note FROM customers WHERE region = 'eu' AND id = 1;\r"
	sleep 2
	printf "UPDATE orders SET qty = qty + 1 WHERE region = 'us';\r"
	sleep 2
	printf "quit\r"
	sleep 1
) | HOME=$home TERM=xterm COLUMNS=160 LINES=50 timeout 30 script -qec \
	"mycli --no-warn --myclirc $home/myclirc -h ${COMPAT_HOST:-127.0.0.1} -P $COMPAT_PORT -u ${COMPAT_USER:-root} ${COMPAT_PASSWORD:+-p $COMPAT_PASSWORD} $db" /dev/null 2>&1 |
	tr -d '\r' | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g')
flat=$(printf '%s' "$got" | grep -v '^\s*$' | tail -40)
if printf '%s' "$got" | grep -q "| O'Brien | it's fragile |"; then
	compat_ok "typed SELECT shows the row"
else
	compat_fail "typed SELECT shows the row" "$flat"
fi
if printf '%s' "$got" | grep -q "Query OK, 1 row affected"; then
	compat_ok "typed UPDATE reports 1 row affected"
else
	compat_fail "typed UPDATE reports 1 row affected" "$flat"
fi
if printf '%s' "$got" | grep -q "Goodbye"; then
	compat_ok "quit"
else
	compat_fail "quit" "$flat"
fi
# mycli's own log ($HOME/.mycli.log, INFO level) records failed background queries.
errs=$(grep -E ' (ERROR|CRITICAL) ' "$home/.mycli.log" 2>&1 | cut -c1-400)
[ -f "$home/.mycli.log" ] || errs="no log at $home/.mycli.log"
compat_eq "no errors in mycli's log (completion refresh queries)" "" "$errs"
compat_query "UPDATE committed" "8" "$db" -e "SELECT qty FROM orders WHERE region = 'us'"
compat_summary
