-- Access paths by query shape. Output: for EXPLAIN, the table and sqlgw's Extra (path and store
-- requests); for SHOW SESSION STATUS, the cumulative counters, so each query's cost is the
-- difference between the counters around it.
DROP DATABASE IF EXISTS cli_paths;
CREATE DATABASE cli_paths;
USE cli_paths;
CREATE TABLE orders (
  tenant VARCHAR(20) NOT NULL,
  id INT NOT NULL,
  customer VARCHAR(40),
  amount INT,
  PRIMARY KEY (tenant, id)
);
CREATE TABLE users (id INT NOT NULL PRIMARY KEY, name VARCHAR(20), age INT);
CREATE TABLE events (
  tenant VARCHAR(20) NOT NULL,
  region VARCHAR(10) NOT NULL,
  seq BIGINT NOT NULL,
  kind VARCHAR(20),
  PRIMARY KEY (tenant, region, seq)
) COMMENT 'sqlgw: partition_key=(tenant,region)';
INSERT INTO orders VALUES ('acme', 1, 'ann', 10), ('acme', 2, 'bob', 20), ('acme', 3, NULL, 30), ('beta', 1, 'cy', 40), ('gamma', 1, 'dee', 50);
INSERT INTO users VALUES (1, 'ann', 30), (2, 'bob', 40), (3, 'cy', 50);
INSERT INTO events VALUES ('acme', 'eu', 1, 'a'), ('acme', 'eu', 2, 'b'), ('acme', 'us', 1, 'c');

-- whole primary key: PointGet
EXPLAIN SELECT * FROM orders WHERE tenant = 'acme' AND id = 2;
EXPLAIN SELECT * FROM users WHERE id = 2;
EXPLAIN SELECT * FROM events WHERE tenant = 'acme' AND region = 'eu' AND seq = 2;
-- IN-lists and ORs of whole-key equalities: MultiGet
EXPLAIN SELECT * FROM users WHERE id IN (1, 3);
EXPLAIN SELECT * FROM users WHERE id = 1 OR id = 3;
EXPLAIN SELECT * FROM orders WHERE tenant = 'acme' AND id IN (1, 2);
-- partition key bound, RowKey range: RowRange
EXPLAIN SELECT * FROM orders WHERE tenant = 'acme' AND id > 1;
EXPLAIN SELECT * FROM orders WHERE tenant = 'acme' AND id BETWEEN 1 AND 2;
EXPLAIN SELECT * FROM events WHERE tenant = 'acme' AND region = 'eu' AND seq >= 2;
-- partition key bound, other predicates: PartitionScan
EXPLAIN SELECT * FROM orders WHERE tenant = 'acme' AND amount > 15;
EXPLAIN SELECT * FROM events WHERE tenant = 'acme' AND region = 'eu';
-- range on the partition key: PartitionRange
EXPLAIN SELECT * FROM orders WHERE tenant > 'b';
EXPLAIN SELECT * FROM users WHERE id BETWEEN 2 AND 3;
EXPLAIN SELECT * FROM events WHERE tenant = 'acme';
-- nothing better: TableScan
EXPLAIN SELECT * FROM orders WHERE amount > 15;
EXPLAIN SELECT * FROM orders;
-- writes find their rows the same way
EXPLAIN UPDATE users SET age = 1 WHERE id = 2;
EXPLAIN DELETE FROM orders WHERE tenant = 'acme' AND id = 3;

-- what queries cost: a PointGet is one request, a MultiGet of two keys two
SHOW SESSION STATUS LIKE 'Sqlgw%';
SELECT * FROM users WHERE id = 2;
SHOW SESSION STATUS LIKE 'Sqlgw%';
SELECT * FROM orders WHERE tenant = 'acme' AND id = 1;
SHOW SESSION STATUS LIKE 'Sqlgw%';
SELECT * FROM users WHERE id IN (1, 3);
SHOW SESSION STATUS LIKE 'Sqlgw%';
SELECT * FROM users WHERE id = 99;
SHOW SESSION STATUS LIKE 'Sqlgw%';

DROP DATABASE cli_paths;
