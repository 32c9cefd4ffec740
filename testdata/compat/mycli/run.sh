#!/usr/bin/env bash
# mycli (Debian mycli, over PyMySQL), an interactive CLI, in a tmux terminal: on
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

# mycli runs in a tmux pane (a real terminal); each line typed (no trailing ";", which
# tmux would take as its own separator) waits for the screen to
# show that the previous step finished.
sess=compat-mycli-$$
pane() { tmux capture-pane -p -J -S -300 -t "$sess" 2>/dev/null; }
wait_for() { # PATTERN SECONDS
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		pane | grep -q "$1" && return 0
		sleep 0.1
	done
	return 1
}
tmux new-session -d -s "$sess" -x 160 -y 50 \
	"env HOME=$home TERM=xterm mycli --no-warn --myclirc $home/myclirc -h ${COMPAT_HOST:-127.0.0.1} -P $COMPAT_PORT -u ${COMPAT_USER:-root} ${COMPAT_PASSWORD:+-p $COMPAT_PASSWORD} $db; sleep 30"
wait_for "@.*$db>" 60 || echo "# mycli prompt did not appear"
sleep 1
tmux send-keys -t "$sess" -l "SELECT name, note FROM customers WHERE region = 'eu' AND id = 1"
tmux send-keys -t "$sess" Enter
wait_for "row in set" 30
tmux send-keys -t "$sess" -l "UPDATE orders SET qty = qty + 1 WHERE region = 'us'"
tmux send-keys -t "$sess" Enter
wait_for "Query OK" 30
tmux send-keys -t "$sess" "quit" Enter
wait_for "Goodbye" 10
got=$(pane)
tmux kill-session -t "$sess" 2>/dev/null
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
