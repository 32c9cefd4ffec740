#!/usr/bin/env bash
# The schema-discovery and session statements that BI tools (DBeaver, Metabase, Tableau,
# Workbench) and drivers (Connector/J, Connector/ODBC, SQLAlchemy, Django, GORM) send on
# connect, driven through the mysql CLI. Contents are compared where MySQL defines them;
# statements whose answer is server-specific (version strings, variables) must succeed
# and have the right shape.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/check.sh
. "$here/../lib/check.sh"
db=compat_discovery

compat_exec "create database" -e "DROP DATABASE IF EXISTS $db; CREATE DATABASE $db"
compat_exec "create tables (composite primary keys)" "$db" <"$here/../cli/schema.sql"
index_ok=0
compat_index "create secondary index" "$db" -e "CREATE INDEX idx_customers_name ON customers (name)"
[ "$(compat_sql -N -B "$db" -e "SELECT COUNT(*) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = '$db' AND INDEX_NAME = 'idx_customers_name'" 2>/dev/null)" = 1 ] && index_ok=1
compat_exec "insert rows" "$db" <"$here/../cli/data.sql"

# --- version and session variables (drivers' connect-time queries) -----------------
compat_query "version variables" "1" -e "SELECT @@version IS NOT NULL AND @@version_comment IS NOT NULL AND @@version REGEXP '^[0-9]+[.][0-9]+[.][0-9]+'"
compat_query "autocommit and isolation" "1	REPEATABLE-READ" \
	-e "SELECT @@autocommit, @@tx_isolation"
compat_exec "Connector/J connect-time variables" -e "/* mysql-connector-java */ SELECT @@session.auto_increment_increment AS auto_increment_increment,
  @@character_set_client AS character_set_client, @@character_set_connection AS character_set_connection,
  @@character_set_results AS character_set_results, @@character_set_server AS character_set_server,
  @@collation_server AS collation_server, @@collation_connection AS collation_connection,
  @@init_connect AS init_connect, @@interactive_timeout AS interactive_timeout, @@license AS license,
  @@lower_case_table_names AS lower_case_table_names, @@max_allowed_packet AS max_allowed_packet,
  @@net_write_timeout AS net_write_timeout, @@performance_schema AS performance_schema,
  @@query_cache_size AS query_cache_size, @@query_cache_type AS query_cache_type,
  @@sql_mode AS sql_mode, @@system_time_zone AS system_time_zone, @@time_zone AS time_zone,
  @@tx_isolation AS transaction_isolation, @@wait_timeout AS wait_timeout"
compat_exec "MariaDB Connector/J and ODBC variables" -e "SELECT @@max_allowed_packet, @@system_time_zone, @@time_zone, @@auto_increment_increment, @@session.tx_read_only, @@sql_auto_is_null, @@character_set_database, @@collation_database, @@version_compile_os, @@hostname, @@port"
got=$(compat_sql -N -B -e "SHOW VARIABLES LIKE 'lower_case_table_names'" 2>&1 | cut -f1)
compat_eq "SHOW VARIABLES LIKE" "lower_case_table_names" "$got"
got=$(compat_sql -N -B -e "SHOW SESSION VARIABLES WHERE Variable_name IN ('sql_mode', 'max_allowed_packet', 'autocommit')" 2>&1 | cut -f1 | sort | tr '\n' ' ')
compat_eq "SHOW SESSION VARIABLES WHERE" "autocommit max_allowed_packet sql_mode " "$got"
got=$(compat_sql -N -B -e "SHOW GLOBAL VARIABLES LIKE 'version'" 2>&1 | cut -f1)
compat_eq "SHOW GLOBAL VARIABLES LIKE" "version" "$got"
compat_exec "SHOW STATUS" -e "SHOW SESSION STATUS LIKE 'Threads_connected'; SHOW GLOBAL STATUS LIKE 'Uptime'"
got=$(compat_sql -N -B -e "SHOW CHARACTER SET LIKE 'utf8mb4'" 2>&1 | cut -f1)
compat_eq "SHOW CHARACTER SET LIKE" "utf8mb4" "$got"
got=$(compat_sql -N -B -e "SHOW COLLATION WHERE Charset = 'utf8mb4' AND Collation = 'utf8mb4_bin'" 2>&1 | cut -f1,2)
compat_eq "SHOW COLLATION WHERE" "utf8mb4_bin	utf8mb4" "$got"
compat_exec "SHOW ENGINES" -e "SHOW ENGINES"
got=$(compat_sql -N -B -e "SHOW DATABASES" 2>&1 | grep -cx "$db\|information_schema")
compat_eq "SHOW DATABASES" "2" "$got"
compat_exec "session settings drivers send" "$db" -e "SET NAMES utf8mb4; SET NAMES utf8mb4 COLLATE utf8mb4_general_ci;
  SET character_set_results = NULL; SET autocommit = 1; SET SQL_SELECT_LIMIT = DEFAULT;
  SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED; SET SESSION TRANSACTION READ WRITE;
  SET SESSION sql_mode = 'STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION'; SET time_zone = '+00:00';
  SET @@session.wait_timeout = 28800; SET SESSION net_write_timeout = 600; SHOW WARNINGS"
compat_query "DATABASE(), CURRENT_USER(), CONNECTION_ID()" "$db	1	1" "$db" \
	-e "SELECT DATABASE(), CURRENT_USER() LIKE '%@%', CONNECTION_ID() > 0"

# MySQL 8 names that MariaDB 10.11 does not have, sent by MySQL's own connectors
# (Connector/J 8, Connector/Python, Connector/NET) when the server says it is 8.x, as
# sqlgw does. Checked against sqlgw only; MySQL 8's documentation is the reference.
if [ "${COMPAT_SERVER:-}" = sqlgw ]; then
	compat_exec "MySQL 8 Connector/J connect-time variables" -e "/* mysql-connector-j-8.3.0 */ SELECT @@session.auto_increment_increment AS auto_increment_increment,
  @@character_set_client AS character_set_client, @@character_set_connection AS character_set_connection,
  @@character_set_results AS character_set_results, @@character_set_server AS character_set_server,
  @@collation_server AS collation_server, @@collation_connection AS collation_connection,
  @@init_connect AS init_connect, @@interactive_timeout AS interactive_timeout, @@license AS license,
  @@lower_case_table_names AS lower_case_table_names, @@max_allowed_packet AS max_allowed_packet,
  @@net_write_timeout AS net_write_timeout, @@performance_schema AS performance_schema,
  @@sql_mode AS sql_mode, @@system_time_zone AS system_time_zone, @@time_zone AS time_zone,
  @@transaction_isolation AS transaction_isolation, @@wait_timeout AS wait_timeout"
	compat_query "@@transaction_isolation and @@transaction_read_only" "REPEATABLE-READ	0" \
		-e "SELECT @@session.transaction_isolation, @@session.transaction_read_only"
	compat_exec "SET NAMES with MySQL 8's default collation (Connector/Python)" \
		-e "SET NAMES 'utf8mb4' COLLATE 'utf8mb4_0900_ai_ci'; SET @@session.autocommit = OFF; SET @@session.autocommit = ON"
	compat_query "SHOW VARIABLES LIKE 'transaction_isolation'" "transaction_isolation	REPEATABLE-READ" \
		-e "SHOW VARIABLES LIKE 'transaction_isolation'"
else
	echo "# MySQL 8 connector statements: not run against MariaDB 10.11 (it lacks @@transaction_isolation, utf8mb4_0900_ai_ci)"
fi

# --- SHOW on tables ---------------------------------------------------------------
compat_query "SHOW FULL TABLES FROM" "customers	BASE TABLE
orders	BASE TABLE" -e "SHOW FULL TABLES FROM $db"
compat_query "SHOW FULL TABLES LIKE" "orders	BASE TABLE" "$db" -e "SHOW FULL TABLES LIKE 'ord%'"
got=$(compat_sql -N -B -e "SHOW FULL COLUMNS FROM customers FROM $db" 2>&1 | cut -f1,2,4,5)
compat_eq "SHOW FULL COLUMNS" "region	varchar(16)	NO	PRI
id	int	NO	PRI
name	varchar(64)	NO	$([ $index_ok = 1 ] && echo MUL)
note	varchar(255)	YES	" "$(printf '%s' "$got" | sed 's/int(11)/int/')"
got=$(compat_sql -N -B "$db" -e "SHOW COLUMNS FROM orders" 2>&1 | cut -f1,2,3,4)
compat_eq "SHOW COLUMNS" "region	varchar(16)	NO	PRI
customer_id	int	NO	PRI
order_no	int	NO	PRI
qty	int	NO	
price	decimal(10,2)	YES	" "$(printf '%s' "$got" | sed 's/int(11)/int/')"
want="customers	0	PRIMARY	1	region
customers	0	PRIMARY	2	id"
[ $index_ok = 1 ] && want="$want
customers	1	idx_customers_name	1	name"
got=$(compat_sql -N -B "$db" -e "SHOW INDEX FROM customers" 2>&1 | cut -f1-5)
compat_eq "SHOW INDEX" "$want" "$got"
got=$(compat_sql -N -B -e "SHOW KEYS FROM orders IN $db" 2>&1 | cut -f3,4,5)
compat_eq "SHOW KEYS IN" "PRIMARY	1	region
PRIMARY	2	customer_id
PRIMARY	3	order_no" "$got"
got=$(compat_sql -N -B "$db" -e "SHOW CREATE TABLE orders" 2>&1 | tr '\t' '\n' | grep -c 'PRIMARY KEY (`region`,`customer_id`,`order_no`)')
compat_eq "SHOW CREATE TABLE names the composite key" "1" "$got"
got=$(compat_sql -N -B -e "SHOW TABLE STATUS FROM $db LIKE 'customers'" 2>&1 | cut -f1)
compat_eq "SHOW TABLE STATUS" "customers" "$got"
compat_exec "SHOW CREATE DATABASE" -e "SHOW CREATE DATABASE $db"

# --- information_schema ------------------------------------------------------------
compat_query "information_schema.SCHEMATA" "$db	utf8mb4" \
	-e "SELECT SCHEMA_NAME, DEFAULT_CHARACTER_SET_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = '$db'"
compat_query "information_schema.TABLES" "customers	BASE TABLE
orders	BASE TABLE" -e "SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA = '$db' ORDER BY TABLE_NAME"
compat_exec "information_schema.TABLES, BI tool columns" -e "SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE, ENGINE, VERSION, ROW_FORMAT, TABLE_ROWS, AVG_ROW_LENGTH, DATA_LENGTH, AUTO_INCREMENT, CREATE_TIME, UPDATE_TIME, TABLE_COLLATION, TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = '$db'"
compat_query "information_schema.COLUMNS" "region	1	NO	varchar	16	NULL	NULL	PRI
customer_id	2	NO	int	NULL	10	0	PRI
order_no	3	NO	int	NULL	10	0	PRI
qty	4	NO	int	NULL	10	0	
price	5	YES	decimal	NULL	10	2	" -e "SELECT COLUMN_NAME, ORDINAL_POSITION, IS_NULLABLE, DATA_TYPE, CHARACTER_MAXIMUM_LENGTH,
  NUMERIC_PRECISION, NUMERIC_SCALE, COLUMN_KEY FROM information_schema.COLUMNS
  WHERE TABLE_SCHEMA = '$db' AND TABLE_NAME = 'orders' ORDER BY ORDINAL_POSITION"
compat_exec "information_schema.COLUMNS, all columns" -e "SELECT * FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = '$db'"
want="PRIMARY	1	region	0
PRIMARY	2	id	0"
[ $index_ok = 1 ] && want="idx_customers_name	1	name	1
$want"
compat_query "information_schema.STATISTICS" "$want" -e "SELECT INDEX_NAME, SEQ_IN_INDEX, COLUMN_NAME, NON_UNIQUE FROM information_schema.STATISTICS
  WHERE TABLE_SCHEMA = '$db' AND TABLE_NAME = 'customers' ORDER BY INDEX_NAME, SEQ_IN_INDEX"
compat_query "information_schema.KEY_COLUMN_USAGE" "PRIMARY	region	1
PRIMARY	customer_id	2
PRIMARY	order_no	3" -e "SELECT CONSTRAINT_NAME, COLUMN_NAME, ORDINAL_POSITION FROM information_schema.KEY_COLUMN_USAGE
  WHERE TABLE_SCHEMA = '$db' AND TABLE_NAME = 'orders' ORDER BY ORDINAL_POSITION"
compat_query "information_schema.TABLE_CONSTRAINTS" "PRIMARY	PRIMARY KEY" -e "SELECT CONSTRAINT_NAME, CONSTRAINT_TYPE FROM information_schema.TABLE_CONSTRAINTS
  WHERE TABLE_SCHEMA = '$db' AND TABLE_NAME = 'orders'"
compat_query "information_schema.REFERENTIAL_CONSTRAINTS (none)" "0" -e "SELECT COUNT(*) FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = '$db'"
compat_query "information_schema.ROUTINES and VIEWS (none)" "0	0" -e "SELECT (SELECT COUNT(*) FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = '$db'), (SELECT COUNT(*) FROM information_schema.VIEWS WHERE TABLE_SCHEMA = '$db')"
compat_query "catalog query with @var := (ODBC style)" "1	customers
2	orders" -e "SELECT @n := @n + 1 AS n, TABLE_NAME FROM information_schema.TABLES, (SELECT @n := 0) AS init
  WHERE TABLE_SCHEMA = '$db' ORDER BY TABLE_NAME"
got=$(sed "s/@@DB@@/$db/" "$here/odbc_sqlcolumns.sql" | compat_sql -N -B 2>&1 | cut -f3,4,5,7)
compat_eq "MariaDB ODBC SQLColumns query (@var :=)" "orders	region	-9	16
orders	customer_id	4	10
orders	order_no	4	10
orders	qty	4	10
orders	price	3	10" "$got"
compat_query "result metadata only (WHERE 1=0)" "" "$db" -e "SELECT * FROM customers WHERE 1 = 0"

# --- what GUI tools add (DBeaver, Metabase, Workbench) -------------------------------
compat_query "permission probe with LIMIT 0 (Metabase)" "" "$db" -e "SELECT TRUE AS _ FROM customers WHERE 1 <> 1 LIMIT 0"
compat_exec "SHOW FULL PROCESSLIST (DBeaver session manager)" -e "SHOW FULL PROCESSLIST"
compat_exec "SHOW TABLE STATUS FROM db (DBeaver)" -e "SHOW TABLE STATUS FROM $db"
compat_exec "SHOW STATUS LIKE Ssl_cipher (Workbench)" -e "SHOW SESSION STATUS LIKE 'Ssl_cipher'"
compat_exec "information_schema.ENGINES and PARTITIONS" -e "SELECT * FROM information_schema.ENGINES; SELECT * FROM information_schema.PARTITIONS WHERE TABLE_SCHEMA = '$db'"
compat_query "information_schema.TRIGGERS and EVENTS (none)" "0	0" -e "SELECT (SELECT COUNT(*) FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = '$db'), (SELECT COUNT(*) FROM information_schema.EVENTS WHERE EVENT_SCHEMA = '$db')"
got=$(compat_sql -N -B -e "SHOW FULL COLUMNS FROM \`$db\`.\`customers\` WHERE \`Key\` = 'PRI'" 2>&1 | cut -f1 | tr '\n' ' ')
compat_eq "SHOW FULL COLUMNS ... WHERE Key = 'PRI'" "region id " "$got"
compat_query "SELECT @@version_comment LIMIT 1 (mysql CLI, Connector/Python)" "1" -e "SELECT COUNT(*) FROM (SELECT @@version_comment LIMIT 1) AS v"

# --- grants and EXPLAIN ------------------------------------------------------------
got=$(compat_sql -N -B -e "SHOW GRANTS" 2>&1 | grep -c '^GRANT ')
compat_eq "SHOW GRANTS has GRANT lines" "1" "$([ "$got" -ge 1 ] && echo 1 || echo "$got: $(compat_sql -N -B -e 'SHOW GRANTS' 2>&1)")"
got=$(compat_sql -N -B -e "SHOW GRANTS FOR CURRENT_USER()" 2>&1 | grep -c '^GRANT ')
compat_eq "SHOW GRANTS FOR CURRENT_USER()" "1" "$([ "$got" -ge 1 ] && echo 1 || echo "$got: $(compat_sql -N -B -e 'SHOW GRANTS FOR CURRENT_USER()' 2>&1)")"
# EXPLAIN's id/rows columns are integers: a NULL must be SQL NULL, not the text 'NULL'
# (the XML output tells them apart; drivers that parse integers choke on the text).
explain_check() {
	local name=$1 q=$2 out
	if ! out=$(compat_sql -X "$db" -e "$q" 2>&1); then
		compat_fail "$name" "$out"
	elif printf '%s' "$out" | grep -q '>NULL</field>'; then
		compat_fail "$name" "a field holds the text NULL instead of SQL NULL: $(printf '%s' "$out" | grep '>NULL</field>' | head -3 | tr -s ' ')"
	elif ! printf '%s' "$out" | grep -q '<row>'; then
		compat_fail "$name" "no rows: $out"
	else
		compat_ok "$name"
	fi
}
explain_check "EXPLAIN point lookup" "EXPLAIN SELECT * FROM customers WHERE region = 'eu' AND id = 1"
explain_check "EXPLAIN join" "EXPLAIN SELECT c.name, SUM(o.qty) FROM customers c JOIN orders o ON o.region = c.region AND o.customer_id = c.id GROUP BY c.name"
compat_summary
