#!/usr/bin/env bash
# mysql CLI (mariadb-client) in batch mode (-e, one connection per call) and a piped
# script (one session, output compared with piped.expected), with SQL-level
# PREPARE/EXECUTE, transactions, SAVEPOINT and user variables.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/check.sh
. "$here/../lib/check.sh"
db=compat_cli

compat_exec "create database" -e "DROP DATABASE IF EXISTS $db; CREATE DATABASE $db"
compat_exec "create tables (composite primary keys)" "$db" <"$here/schema.sql"
compat_index "create secondary index" "$db" -e "CREATE INDEX idx_customers_name ON customers (name)"
compat_exec "insert rows" "$db" <"$here/data.sql"

compat_query "read by key with quotes" "O'Brien	it's fragile" "$db" \
	-e "SELECT name, note FROM customers WHERE region = 'eu' AND id = 1"
compat_query "read NULL by key" "Smith	NULL	1" "$db" \
	-e "SELECT name, note, note IS NULL FROM customers WHERE region = 'eu' AND id = 2"
compat_query "read by name (secondary-index column)" "eu	1" "$db" \
	-e "SELECT region, id FROM customers WHERE name = 'O''Brien'"
compat_query "read missing key" "" "$db" \
	-e "SELECT name FROM customers WHERE region = 'eu' AND id = 99"
compat_query "join with aggregate" "O'Brien	2	30	3.75
Smith	1	5	NULL
Jones	1	7	3.00" "$db" -e "SELECT c.name, COUNT(*) AS n, SUM(o.qty) AS qty, SUM(o.price) AS total
  FROM customers c JOIN orders o ON o.region = c.region AND o.customer_id = c.id
  GROUP BY c.region, c.id, c.name ORDER BY c.region, c.id"

# SUM over an INT column is DECIMAL in MySQL and MariaDB (clients map it to exact types).
got=$(compat_sql -t --column-type-info "$db" -e "SELECT SUM(qty) AS s, COUNT(*) AS n FROM orders" 2>&1 | grep '^Type:' | tr -s ' ' | tr '\n' ' ')
compat_eq "SUM(INT) is DECIMAL, COUNT is BIGINT" "Type: NEWDECIMAL Type: LONGLONG " "$got"

compat_query "update affected rows" "2" "$db" \
	-e "UPDATE customers SET note = 'updated' WHERE region = 'eu'; SELECT ROW_COUNT()"
compat_query "update with no change affects 0 rows" "0" "$db" \
	-e "UPDATE customers SET note = 'updated' WHERE region = 'eu' AND id = 1; SELECT ROW_COUNT()"
compat_query "delete affected rows" "2" "$db" \
	-e "DELETE FROM orders WHERE region = 'eu' AND customer_id = 1; SELECT ROW_COUNT()"
compat_query "delete missing row affects 0" "0" "$db" \
	-e "DELETE FROM orders WHERE region = 'zz' AND customer_id = 1; SELECT ROW_COUNT()"

compat_query "rollback discards" "0" "$db" -e "START TRANSACTION;
  INSERT INTO customers VALUES ('ap', 1, 'Rolled', 'back');
  ROLLBACK;
  SELECT COUNT(*) FROM customers WHERE region = 'ap'"
compat_exec "commit keeps" "$db" -e "BEGIN;
  INSERT INTO customers VALUES ('ap', 2, 'Kept', NULL);
  COMMIT"
compat_query "committed row visible to a new connection" "Kept" "$db" \
	-e "SELECT name FROM customers WHERE region = 'ap'"
compat_query "autocommit=0 then rollback" "0" "$db" -e "SET autocommit = 0;
  INSERT INTO customers VALUES ('ap', 3, 'Rolled', NULL);
  ROLLBACK;
  SELECT COUNT(*) FROM customers WHERE region = 'ap' AND id = 3"
compat_query "SAVEPOINT and ROLLBACK TO SAVEPOINT" "ap	2
ap	4" "$db" -e "START TRANSACTION;
  INSERT INTO customers VALUES ('ap', 4, 'Before', NULL);
  SAVEPOINT sp1;
  INSERT INTO customers VALUES ('ap', 5, 'After', NULL);
  ROLLBACK TO SAVEPOINT sp1;
  RELEASE SAVEPOINT sp1;
  COMMIT;
  SELECT region, id FROM customers WHERE region = 'ap' ORDER BY id"

compat_query "PREPARE/EXECUTE select with parameters" "O'Brien	updated" "$db" -e "SET @r = 'eu', @i = 1;
  PREPARE s FROM 'SELECT name, note FROM customers WHERE region = ? AND id = ?';
  EXECUTE s USING @r, @i;
  DEALLOCATE PREPARE s"
compat_query "PREPARE/EXECUTE insert with quote and NULL" "it's fragile	NULL" "$db" -e "SET @n = 'it''s fragile', @x = NULL;
  PREPARE ins FROM 'INSERT INTO customers (region, id, name, note) VALUES (''zz'', 1, ?, ?)';
  EXECUTE ins USING @n, @x;
  DEALLOCATE PREPARE ins;
  SELECT name, note FROM customers WHERE region = 'zz'"
compat_query "PREPARE/EXECUTE re-executed" "1
1" "$db" -e "PREPARE c FROM 'SELECT COUNT(*) FROM orders WHERE region = ?';
  SET @r = 'us'; EXECUTE c USING @r;
  SET @r = 'eu'; EXECUTE c USING @r;
  DEALLOCATE PREPARE c"
compat_query "@var := assignment" "3	3" "$db" -e "SELECT @a := 1 + 2 AS a, @a AS b"
compat_query "SELECT without FROM" "1	abc	NULL" -e "SELECT 1, CONCAT('a', 'bc'), NULL"
got=$(compat_sql --batch "$db" -e "SELECT * FROM no_such_table" 2>&1 | grep -o 'ERROR [0-9]* ([0-9A-Z]*)')
compat_eq "error code for a missing table" "ERROR 1146 (42S02)" "$got"
got=$(compat_sql --batch "$db" -e "INSERT INTO customers VALUES ('eu', 2, 'Dup', NULL)" 2>&1 | grep -o 'ERROR [0-9]* ([0-9A-Z]*)')
compat_eq "duplicate primary key is ER_DUP_ENTRY" "ERROR 1062 (23000)" "$got"

# Interactive mode on a pseudo-terminal: on connect the client reads table and column
# names for completion (auto-rehash), then runs a statement typed at the prompt.
got=$(printf "SELECT name FROM customers WHERE region = 'eu' AND id = 1;\nSHOW TABLES;\nquit\n" |
	COLUMNS=200 timeout 30 script -qec "mariadb --no-defaults --default-character-set=utf8mb4 --protocol=TCP -h${COMPAT_HOST:-127.0.0.1} -P$COMPAT_PORT -u${COMPAT_USER:-root} ${COMPAT_PASSWORD:+-p$COMPAT_PASSWORD} $db" /dev/null 2>&1 | tr -d '\r')
if printf '%s' "$got" | grep -q "Reading table information" && printf '%s' "$got" | grep -q "| O'Brien |" &&
	printf '%s' "$got" | grep -q "| orders " && printf '%s' "$got" | grep -q Bye && ! printf '%s' "$got" | grep -q ERROR; then
	compat_ok "interactive session with completion (auto-rehash)"
else
	compat_fail "interactive session with completion (auto-rehash)" "$(printf '%s' "$got" | sed 's/\x1b[^a-zA-Z]*[a-zA-Z]//g' | head -40)"
fi

# Tab completion in a real terminal (tmux): the names read on connect complete
# "qt" to qty and "pric" to price.
sess=compat-cli-$$
tmux new-session -d -s "$sess" -x 160 -y 40 \
	"mariadb --no-defaults --default-character-set=utf8mb4 --protocol=TCP -h${COMPAT_HOST:-127.0.0.1} -P$COMPAT_PORT -u${COMPAT_USER:-root} ${COMPAT_PASSWORD:+-p$COMPAT_PASSWORD} $db; sleep 30"
for ((i = 0; i < 300; i++)); do
	tmux capture-pane -p -t "$sess" 2>/dev/null | grep -q "\[$db\]>" && break
	sleep 0.1
done
tmux send-keys -t "$sess" -l "SELECT qt"
tmux send-keys -t "$sess" Tab
tmux send-keys -t "$sess" -l "FROM orders WHERE pric"
tmux send-keys -t "$sess" Tab
tmux send-keys -t "$sess" -l 'IS NULL\g' # \g ends the statement (tmux takes a trailing ";" as its own separator)
tmux send-keys -t "$sess" Enter
for ((i = 0; i < 300; i++)); do
	tmux capture-pane -p -t "$sess" 2>/dev/null | grep -q "row.* in set" && break
	sleep 0.1
done
got=$(tmux capture-pane -p -J -S -100 -t "$sess" 2>/dev/null)
tmux kill-session -t "$sess" 2>/dev/null
if printf '%s' "$got" | grep -q "SELECT qty \+FROM orders WHERE price \+IS NULL" && printf '%s' "$got" | grep -qE '^\| +5 \|$'; then
	compat_ok "interactive Tab completion of column names"
else
	compat_fail "interactive Tab completion of column names" "$(printf '%s' "$got" | grep -v '^$' | tail -15)"
fi

# A piped script: one session, the client's batch output compared line by line.
compat_exec "piped script reset" -e "DROP DATABASE IF EXISTS ${db}_piped; CREATE DATABASE ${db}_piped"
got=$( (cat "$here/schema.sql" "$here/data.sql" "$here/piped.sql") | compat_sql "${db}_piped" 2>&1)
compat_eq "piped script output" "$(cat "$here/piped.expected")" "$got"

compat_summary
