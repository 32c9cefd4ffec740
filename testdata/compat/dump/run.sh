#!/usr/bin/env bash
# mariadb-dump of a database, restored into another database on the same server with
# the client; the restored tables must have the same definitions and contents. Done
# with the default options (LOCK TABLES) and with --single-transaction.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/check.sh
. "$here/../lib/check.sh"
src=compat_dump
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

compat_exec "create database" -e "DROP DATABASE IF EXISTS $src; CREATE DATABASE $src"
compat_exec "create tables (composite primary keys)" "$src" <"$here/../cli/schema.sql"
compat_index "create secondary index" "$src" -e "CREATE INDEX idx_customers_name ON customers (name)"
compat_exec "insert rows" "$src" <"$here/../cli/data.sql"
compat_exec "create and fill a table of assorted types" "$src" <"$here/extra.sql"

# contents DB: every table's definition and rows, in key order, as the client prints them.
contents() {
	local db=$1 t
	for t in customers orders kinds; do
		compat_sql --batch --skip-column-names "$db" -e "SHOW CREATE TABLE $t" 2>&1
		compat_sql --batch "$db" -e "SELECT * FROM $t ORDER BY 1, 2, 3" 2>&1
	done
}
want=$(contents "$src")

dump_opts() {
	echo --no-defaults --default-character-set=utf8mb4 --protocol=TCP -h"${COMPAT_HOST:-127.0.0.1}" -P"$COMPAT_PORT" -u"${COMPAT_USER:-root}" ${COMPAT_PASSWORD:+-p"$COMPAT_PASSWORD"}
}

for mode in default single-transaction; do
	opts=()
	[ "$mode" = single-transaction ] && opts=(--single-transaction)
	dst=${src}_restored_${mode//-/_}
	# shellcheck disable=SC2046
	if mariadb-dump $(dump_opts) "${opts[@]}" "$src" >"$work/$mode.sql" 2>"$work/$mode.err"; then
		compat_ok "mariadb-dump ($mode)"
	else
		compat_fail "mariadb-dump ($mode)" "$(cat "$work/$mode.err")"
		continue
	fi
	if grep -q "INSERT INTO \`customers\`" "$work/$mode.sql" && grep -q "O\\\\'Brien" "$work/$mode.sql"; then
		compat_ok "dump ($mode) has the rows"
	else
		compat_fail "dump ($mode) has the rows" "$(head -c 2000 "$work/$mode.sql")"
	fi
	compat_exec "create database for restore ($mode)" -e "DROP DATABASE IF EXISTS $dst; CREATE DATABASE $dst"
	echo "# dump ($mode) first line: $(head -1 "$work/$mode.sql" | cut -c1-80)"
	compat_exec "restore dump ($mode)" "$dst" <"$work/$mode.sql"
	compat_eq "restored contents equal ($mode)" "$want" "$(contents "$dst")"
	if [ "$mode" = default ]; then
		# The same dump without its first line (the client-side sandbox command that
		# newer mariadb-dump writes), so that the rest of the file is tested on its own.
		compat_exec "create database for restore without line 1" -e "DROP DATABASE IF EXISTS ${dst}_l2; CREATE DATABASE ${dst}_l2"
		compat_exec "restore dump from line 2" "${dst}_l2" < <(tail -n +2 "$work/$mode.sql")
		compat_eq "restored contents equal (from line 2)" "$want" "$(contents "${dst}_l2")"
	fi
done

compat_summary
