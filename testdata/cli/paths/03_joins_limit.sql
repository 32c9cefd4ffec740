-- Joins and LIMIT cost a fixed number of store requests, not one per row: a join reads each side once
-- (a point get where the key is bound), and LIMIT stops reading at the first page.
DROP DATABASE IF EXISTS cli_joins;
CREATE DATABASE cli_joins;
USE cli_joins;
CREATE TABLE digits (d INT NOT NULL PRIMARY KEY);
INSERT INTO digits VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9);
CREATE TABLE t (pk INT NOT NULL PRIMARY KEY, v INT);
CREATE TABLE u (id INT NOT NULL PRIMARY KEY, t_pk INT, w INT);
INSERT INTO t SELECT a.d + 10 * b.d, a.d FROM digits a, digits b;
INSERT INTO u SELECT a.d + 10 * b.d + 100 * c.d, (a.d + 10 * b.d + 100 * c.d) % 100, 1 FROM digits a, digits b, digits c;

EXPLAIN SELECT COUNT(*) FROM t JOIN u ON u.t_pk = t.pk WHERE t.pk = 7;
EXPLAIN SELECT pk FROM t ORDER BY pk LIMIT 3;

SHOW SESSION STATUS LIKE 'Sqlgw_store_requests';
SELECT COUNT(*) FROM t JOIN u ON u.t_pk = t.pk WHERE t.pk = 7;
SHOW SESSION STATUS LIKE 'Sqlgw_store_requests';
SELECT COUNT(*) FROM u JOIN t ON t.pk = u.t_pk WHERE u.id < 50;
SHOW SESSION STATUS LIKE 'Sqlgw_store_requests';
SELECT COUNT(*) FROM u JOIN t ON t.pk = u.t_pk;
SHOW SESSION STATUS LIKE 'Sqlgw_store_requests';
SELECT pk FROM t ORDER BY pk LIMIT 3;
SHOW SESSION STATUS LIKE 'Sqlgw_store_requests';

DROP DATABASE cli_joins;
